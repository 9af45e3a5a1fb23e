use super::*;

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn named_errors_for_bad_input() {
    let mut rng = Randomness::seeded(1);
    let data = strings(&["SMITH", "JONES", "BROWN"]);
    let k0 = CondenseOptions { k: 0, ..Default::default() };
    assert_eq!(Condensation::new(&data, &k0, &mut rng, "t").unwrap_err().code(), "INVALID_PARAMETER");
    let k4 = CondenseOptions { k: 4, ..Default::default() };
    assert_eq!(Condensation::new(&data, &k4, &mut rng, "t").unwrap_err().code(), "TOO_FEW_RECORDS");
    let empty = strings(&["", ""]);
    assert_eq!(Condensation::new(&empty, &Default::default(), &mut rng, "t").unwrap_err().code(), "EMPTY_INPUT");
    assert_eq!(Condensation::new(&[], &Default::default(), &mut rng, "t").unwrap_err().code(), "EMPTY_INPUT");
    // k ≤ n, but lengths too spread for any range of k
    let spread = strings(&["AB", "ABCDEF", "ABCDEFGHIJKL"]);
    let k2 = CondenseOptions { k: 2, length_epsilon: 0.1, ..Default::default() };
    assert_eq!(Condensation::new(&spread, &k2, &mut rng, "t").unwrap_err().code(), "TOO_FEW_RECORDS");
}

#[test]
fn groups_hold_k_and_output_keeps_counts_and_symbols() {
    let names: Vec<String> = include_str!("../../../data/names.txt").lines().take(2000).map(String::from).collect();
    let opts = CondenseOptions { k: 10, block: 500, ..Default::default() };
    let c = Condensation::new(&names, &opts, &mut Randomness::seeded(3), "names").unwrap();
    assert!(c.min_group() >= 10);
    let released: usize = c.groups.iter().map(|g| g.n).sum();
    assert_eq!(released + c.suppressed, names.len());
    let out = c.generate(&mut Randomness::seeded(4));
    assert_eq!(out.len(), released);
    assert!(out.iter().all(|s| s.chars().all(|ch| ch.is_ascii_uppercase())));
    for &(lo, hi, len, _) in &c.segments {
        assert!(hi as f64 <= 1.1 * lo as f64 && (lo..=hi).contains(&len));
    }
    // same seeds, same twin
    let again = Condensation::new(&names, &opts, &mut Randomness::seeded(3), "names").unwrap();
    assert_eq!(again.generate(&mut Randomness::seeded(4)), out);
}
