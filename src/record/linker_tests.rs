use super::*;

/// Three string fields (levels: exact, ed<=1, ed<=2, disagree) under `assignment`.
fn schema(assignment: &str) -> Schema {
    Schema::parse_json(&format!(
        r#"{{"version": 1, "epsilon": 1.0, "id": "id", "field": [
            {{"name": "first_name", "kind": "string"}},
            {{"name": "address", "kind": "string"}},
            {{"name": "date_of_birth", "kind": "string"}}
        ], "decision": {{"assignment": "{assignment}"}}}}"#
    ))
    .unwrap()
}

/// Random pairs: every field disagrees but one in a hundred of the first
/// names and one in a thousand of the others agree.
fn random() -> Vec<(Vec<u8>, u64)> {
    vec![(vec![3, 3, 3], 98_800), (vec![0, 3, 3], 1_000), (vec![3, 0, 3], 100), (vec![3, 3, 0], 100)]
}

/// The fit of `assignment` on `pairs` (a, b, levels) of `n` A and `n` B records.
fn fit(assignment: &str, n: usize, pairs: &[(u32, u32, [u8; 3])]) -> Fit {
    let candidates = pairs.iter().map(|&(a, b, _)| (a, b)).collect();
    let levels = pairs.iter().map(|(_, _, l)| (l.to_vec(), false)).collect();
    fit_scored(&schema(assignment), n, n, candidates, Vec::new(), levels, random()).unwrap().fit
}

#[test]
fn auto_fits_copies_under_many_to_one_s_assumption() {
    let n = 300u32;
    // copies: each of n/3 A records has three copies in B, one with another first name
    let copies: Vec<(u32, u32, [u8; 3])> = (0..n / 3)
        .flat_map(|a| [(a, 3 * a, [0, 0, 0]), (a, 3 * a + 1, [0, 0, 0]), (a, 3 * a + 2, [3, 0, 0])])
        .collect();
    let auto = fit("auto", n as usize, &copies);
    assert!((auto.expected_matches - n as f64).abs() < 0.05 * n as f64, "{}", auto.expected_matches);
    assert_eq!(auto.expected_matches, fit("many-to-one", n as usize, &copies).expected_matches);
}
