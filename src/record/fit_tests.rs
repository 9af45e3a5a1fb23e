use super::*;
use crate::dp::Randomness;
use crate::em::frequencies;
use crate::em::tests::draw;

fn start(name: &str, levels: &[&str], u: Vec<f64>) -> Start {
    Start {
        name: name.into(),
        levels: levels.iter().map(|l| l.to_string()).collect(),
        u_random: u,
        fixed_m: None,
        fixed_u: None,
    }
}

/// Starts of fields of two levels (exact, disagree): name and u of each.
fn agree_or_not(fields: &[(&str, f64, f64)]) -> Vec<Start> {
    fields.iter().map(|&(name, exact, disagree)| start(name, &["exact", "disagree"], vec![exact, disagree])).collect()
}

/// The collapse case of docs issue 30: candidates from one block per name
/// within one edit and one block on the same date of birth, among n × n
/// pairs whose non-matches follow u. The bounded fit keeps the expected
/// matches at most min(|A|, |B|), near the true count, every field's weights
/// monotone, and a pair whose names agree exactly but whose date has a typo
/// linkable.
#[test]
fn the_same_date_block_does_not_collapse_the_fit() {
    let n = 1000usize;
    let mut rng = Randomness::seeded(30);
    // levels: names exact, ed<=1, ed<=2, disagree; date exact, ed<=1, ed<=2, disagree; sex agree, disagree
    let m_name = [0.92, 0.04, 0.01, 0.03];
    let m_date = [0.9, 0.04, 0.02, 0.04];
    let u_first = vec![0.01, 0.03, 0.06, 0.9];
    let u_last = vec![0.003, 0.01, 0.02, 0.967];
    let u_date = vec![0.0005, 0.002, 0.005, 0.9925];
    let blocked = |p: &[u8]| p[0] <= 1 || p[1] <= 1 || p[2] == 0;
    let mut counts: std::collections::HashMap<Vec<u8>, u64> = std::collections::HashMap::new();
    let mut matches = 0u64;
    for i in 0..n * n {
        let p = if i < n {
            vec![
                draw(&m_name, &mut rng),
                draw(&m_name, &mut rng),
                draw(&m_date, &mut rng),
                draw(&[0.98, 0.02], &mut rng),
            ]
        } else {
            vec![
                draw(&u_first, &mut rng),
                draw(&u_last, &mut rng),
                draw(&u_date, &mut rng),
                draw(&[0.5, 0.5], &mut rng),
            ]
        };
        if blocked(&p) {
            matches += (i < n) as u64;
            *counts.entry(p).or_default() += 1;
        }
    }
    let patterns: Vec<(Vec<u8>, u64)> = counts.into_iter().collect();
    let levels4 = ["exact", "ed<=1", "ed<=2", "disagree"];
    let starts = vec![
        start("first_name", &levels4, u_first.clone()),
        start("last_name", &levels4, u_last.clone()),
        start("date_of_birth", &["exact", "ed<=1", "ed<=2", "disagree"], u_date.clone()),
        start("sex", &["agree", "disagree"], vec![0.5, 0.5]),
    ];
    let fit = fit_bounded(&patterns, None, starts, n, n).unwrap();
    assert!(fit.expected_matches <= n as f64 + 1e-6);
    let m = matches as f64;
    assert!((fit.expected_matches - m).abs() < 0.05 * m, "expected {} of {m}", fit.expected_matches);
    for f in &fit.fields {
        assert!(f.weights.windows(2).all(|w| w[0] >= w[1] - 1e-9), "{}: {:?}", f.name, f.weights);
        assert!(f.weights[0] > 0.0, "{}: {:?}", f.name, f.weights);
        assert_eq!(f.u, f.u_random, "u stays the random pairs'");
    }
    let p = fit.probability(fit.weight(&[0, 0, 3, 0]));
    assert!(p > 0.5, "names exact, date disagree: probability {p}");
    assert!(fit.probability(fit.weight(&[3, 3, 0, 0])) < 0.5, "the same date alone links");
    assert!(health(&fit, n, n)[0].contains("expected matches"));
}

#[test]
fn monotone_pools_a_farther_level_that_weighs_more() {
    let (m, v) = monotone(&[0.5, 0.3, 0.2], &[0.01, 0.001, 0.989]);
    assert_eq!(v, Some((0, 1)));
    assert!((m[0] / 0.01 - m[1] / 0.001).abs() < 1e-9);
    assert!((m.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    let (m2, v2) = monotone(&[0.9, 0.05, 0.05], &[0.01, 0.1, 0.89]);
    assert_eq!(v2, None);
    assert_eq!(m2, vec![0.9, 0.05, 0.05].iter().zip([0.01, 0.1, 0.89]).map(|(m, u)| u * m / u).collect::<Vec<_>>());
}

#[test]
fn monotone_orders_only_the_levels_candidates_show() {
    // a date: exact, day and month swapped (no candidate), ed<=1, disagree
    let (m, u) = ([0.9, 1e-6, 0.05, 0.05 - 1e-6], [0.001, 1e-5, 0.01, 0.989 - 1e-5]);
    assert_eq!(monotone(&m, &u).1, Some((1, 2)), "the empty level's floor would pool with ed<=1");
    let (fixed, v) = monotone_seen(&m, &u, &[true, false, true, true]);
    assert_eq!((v, fixed.clone()), (None, m.to_vec()));
    // a violation among the seen levels is still pooled, named by level
    let (m, u) = ([0.5, 1e-6, 0.3, 0.2 - 1e-6], [0.01, 1e-5, 0.001, 0.989 - 1e-5]);
    let (fixed, v) = monotone_seen(&m, &u, &[true, false, true, true]);
    assert_eq!(v, Some((0, 2)));
    assert!((fixed[0] / u[0] - fixed[2] / u[2]).abs() < 1e-9 && fixed[1] == 1e-6);
}

#[test]
fn fixed_weights_out_of_order_are_refused() {
    let mut s = start("given_name", &["exact", "ed<=1", "disagree"], vec![0.01, 0.02, 0.97]);
    s.fixed_m = Some(vec![0.2, 0.7, 0.1]);
    let patterns = vec![(vec![0u8], 10u64), (vec![1], 10), (vec![2], 100)];
    let e = fit_bounded(&patterns, None, vec![s], 50, 50).unwrap_err();
    assert_eq!(e.code(), "FIT_REFUSED", "{e}");
    assert!(e.to_string().contains("given_name"), "{e}");
    // a fixed "initial" between ed<=1 and disagree's weights, or above ed<=1's,
    // is in order; above exact's it is refused
    let levels = ["exact", "ed<=1", INITIAL, "disagree"];
    let patterns = vec![(vec![0u8], 10u64), (vec![1], 10), (vec![2], 10), (vec![3], 100)];
    for (m, ok) in [([0.7, 0.1, 0.1, 0.1], true), ([0.5, 0.1, 0.3, 0.1], true), ([0.2, 0.1, 0.6, 0.1], false)] {
        let mut s = start("given_name", &levels, vec![0.01, 0.02, 0.02, 0.95]);
        s.fixed_m = Some(m.to_vec());
        let fit = fit_bounded(&patterns, None, vec![s], 50, 50);
        assert_eq!(fit.is_ok(), ok, "{m:?}: {:?}", fit.err());
    }
}

#[test]
fn the_bound_is_said() {
    // every candidate looks like a match: more than min(|A|, |B|) of them
    let patterns = vec![(vec![0u8], 500u64)];
    let s = start("f", &["exact", "disagree"], frequencies(&[(vec![1], 1000)], &[2]).remove(0));
    let fit = fit_bounded(&patterns, None, vec![s], 100, 1000).unwrap();
    assert!((fit.expected_matches - 100.0).abs() < 1e-9);
    assert!(fit.repairs.iter().any(|r| r.contains("bounded")), "{:?}", fit.repairs);
}

#[test]
fn a_field_no_candidate_agrees_on_is_said() {
    // names decide; sex is coded "M"/"F" by one party and "Male"/"Female" by the other,
    // so it disagrees on every candidate (level 1), or is missing on some
    let starts = || agree_or_not(&[("name", 0.01, 0.99), ("sex", 0.5, 0.5)]);
    let patterns = vec![(vec![0u8, 1], 90u64), (vec![1, 1], 900), (vec![0, MISSING], 10)];
    let fit = fit_bounded(&patterns, None, starts(), 1000, 1000).unwrap();
    let said: Vec<&String> = fit.repairs.iter().filter(|r| r.contains("no candidate pair agrees")).collect();
    assert_eq!(said.len(), 1, "{:?}", fit.repairs);
    assert!(said[0].starts_with("field \"sex\": no candidate pair agrees at any level (990 compared"), "{said:?}");
    // one agreeing pair, or too few pairs to tell: nothing is said
    let mut one = patterns.clone();
    one.push((vec![0, 0], 1));
    let few = vec![(vec![0u8, 1], 9u64), (vec![1, 1], 40)];
    for p in [one, few] {
        let fit = fit_bounded(&p, None, starts(), 1000, 1000).unwrap();
        assert!(!fit.repairs.iter().any(|r| r.contains("no candidate pair agrees")), "{:?}", fit.repairs);
    }
}

#[test]
fn rivals_share_a_record_so_a_household_is_not_a_person() {
    // each B record: its A record agrees on every field, two more of its
    // household agree on last name and address, not on the first name
    let n = 1000u32;
    let starts = || agree_or_not(&[("first_name", 0.01, 0.99), ("last_name", 0.001, 0.999), ("address", 0.001, 0.999)]);
    let patterns = vec![(vec![0u8, 0, 0], n as u64), (vec![1u8, 0, 0], 2 * n as u64)];
    let rivals: Vec<(u32, u32, u32)> =
        (0..n).flat_map(|b| [(3 * b, b, 0), (3 * b + 1, b, 1), (3 * b + 2, b, 1)]).collect();
    let (na, nb) = (3 * n as usize, n as usize);
    let alone = fit_bounded(&patterns, None, starts(), na, nb).unwrap();
    let shared =
        fit_bounded(&patterns, Some(Rivals { pairs: &rivals, one_match: OneMatch::Both }), starts(), na, nb).unwrap();
    let first_exact = |f: &crate::em::Fit| f.fields[0].m[0];
    assert!(first_exact(&alone) < 0.5, "household pairs taken for matches: m {}", first_exact(&alone));
    assert!(first_exact(&shared) > 0.95, "m {}", first_exact(&shared));
    assert!((shared.expected_matches - n as f64).abs() < 0.05 * n as f64, "{}", shared.expected_matches);
    assert!(shared.probability(shared.weight(&[1, 0, 0])) < 0.5, "a different first name is not the person");
}

#[test]
fn copies_of_one_record_are_all_its_matches_under_many_to_one() {
    // each of n A records has three copies in B, each copy with one candidate
    // (its original): two agree on every field, one has a different first
    // name; A's other records have none (the bound min(|A|, |B|) is 3n)
    let n = 1000u32;
    let starts =
        || agree_or_not(&[("first_name", 0.01, 0.99), ("address", 0.001, 0.999), ("date_of_birth", 0.001, 0.999)]);
    let patterns = vec![(vec![0u8, 0, 0], 2 * n as u64), (vec![1u8, 0, 0], n as u64)];
    let pairs: Vec<(u32, u32, u32)> =
        (0..n).flat_map(|a| [(a, 3 * a, 0), (a, 3 * a + 1, 0), (a, 3 * a + 2, 1)]).collect();
    let (na, nb) = (3 * n as usize, 3 * n as usize);
    let fit = |one_match| fit_bounded(&patterns, Some(Rivals { pairs: &pairs, one_match }), starts(), na, nb).unwrap();
    let (copies, one) = (fit(OneMatch::B), fit(OneMatch::Both));
    // one-to-one's assumption shares each original among its copies: a third each
    assert!((one.expected_matches - n as f64).abs() < 0.05 * n as f64, "{}", one.expected_matches);
    assert!(one.probability(one.weight(&[1, 0, 0])) < 0.5, "the third copy lost to its originals' two others");
    assert!((copies.expected_matches - 3.0 * n as f64).abs() < 0.05 * n as f64, "{}", copies.expected_matches);
    let p = copies.probability(copies.weight(&[1, 0, 0]));
    assert!(p > 0.9, "a copy with another first name is still a match: p {p}");
}

#[test]
fn an_initial_is_ordered_only_against_exact_and_disagree() {
    // a name: exact, ed<=1, ed<=2, initial, disagree
    let u = [0.001, 0.002, 0.07, 0.003, 0.924];
    let seen = [true; 5];
    // forms with initials: "initial" weighs more than ed<=2 (and ed<=1), less
    // than exact; nothing to repair, where the chain would pool it with ed<=2
    let m = [0.85, 0.03, 0.02, 0.08, 0.02];
    assert_eq!(monotone(&m, &u).1, Some((2, 3)));
    assert_eq!(monotone_side(&m, &u, &seen, Some(3)), (m.to_vec(), None));
    // no initials in the data: its single letters are noise, and it weighs
    // less than ed<=2 but more than disagree: nothing to repair either
    let m = [0.9, 0.03, 0.02, 0.0005, 0.0495];
    let (fixed, v) = monotone_side(&m, &u, &seen, Some(3));
    assert!(v.is_none() && fixed.iter().zip(m).all(|(x, y)| (x - y).abs() < 1e-15), "{fixed:?}");
    // above exact: clamped to exact's ratio, m scaled back to its sum
    let (m, rare) = ([0.5, 0.03, 0.02, 0.4, 0.05], [0.001, 0.002, 0.07, 0.0005, 0.9265]);
    let (fixed, v) = monotone_side(&m, &rare, &seen, Some(3));
    assert_eq!(v, Some((0, 3)));
    assert!((fixed[3] / rare[3] - fixed[0] / rare[0]).abs() < 1e-9 * fixed[0] / rare[0], "{fixed:?}");
    assert!((fixed.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    let w: Vec<f64> = fixed.iter().zip(rare).map(|(m, u)| (m / u).ln()).collect();
    assert!(w[0] >= w[1] && w[1] >= w[2] && w[2] >= w[4], "the chain stays in order: {w:?}");
    // below disagree: raised to disagree's ratio
    let m = [0.9, 0.03, 0.02, 1e-6, 0.05 - 1e-6];
    let (fixed, v) = monotone_side(&m, &u, &seen, Some(3));
    assert_eq!(v, Some((3, 4)));
    assert!((fixed[3] / u[3] - fixed[4] / u[4]).abs() < 1e-9, "{fixed:?}");
}
