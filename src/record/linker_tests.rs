use super::*;
use crate::record::schema::BlockRule;

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

/// Four string fields: two names, then two address parts.
fn address_schema() -> Schema {
    Schema::parse_json(
        r#"{"version": 1, "epsilon": 1.0, "id": "id", "field": [
            {"name": "first_name", "kind": "string"}, {"name": "last_name", "kind": "string"},
            {"name": "street_number", "kind": "string"}, {"name": "street_name", "kind": "string"}
        ]}"#,
    )
    .unwrap()
}

/// 10,000 true pairs (a, a), both names agreeing; `movers` of them with both
/// address parts disagreeing, 20 with only the number off, 20 with only the
/// street; and 5,000 candidates of other people with the same last name.
fn address_fit(movers: u32) -> Scored {
    let n = 10_000u32;
    let mut pairs: Vec<(u32, u32, [u8; 4])> = (0..n)
        .map(|a| {
            let l = match a {
                a if a < movers => [0, 0, 3, 3],
                a if a < movers + 20 => [0, 0, 3, 0],
                a if a < movers + 40 => [0, 0, 0, 3],
                _ => [0, 0, 0, 0],
            };
            (a, a, l)
        })
        .collect();
    pairs.extend((0..n / 2).map(|a| (a, (a + 7) % n, [3, 0, 3, 3])));
    pairs.sort_by_key(|p| (p.0, p.1));
    let candidates = pairs.iter().map(|&(a, b, _)| (a, b)).collect();
    let levels = pairs.iter().map(|(_, _, l)| (l.to_vec(), false)).collect();
    fit_scored(&address_schema(), n as usize, n as usize, candidates, Vec::new(), levels, address_random()).unwrap()
}

/// Random pairs of the address schema: a name agrees in 1 of 2,000, the
/// number in 1 of 100, the street in 1 of 1,000.
fn address_random() -> Vec<(Vec<u8>, u64)> {
    vec![
        (vec![3, 3, 3, 3], 98_800),
        (vec![0, 3, 3, 3], 50),
        (vec![3, 0, 3, 3], 50),
        (vec![3, 3, 0, 3], 1_000),
        (vec![3, 3, 3, 0], 100),
    ]
}

#[test]
fn movers_join_the_address_parts_and_become_matches() {
    let s = address_fit(200);
    assert_eq!(s.fit.joint.len(), 1, "{:?}", s.fit.joint);
    assert_eq!((s.fit.joint[0].first, s.fit.joint[0].second), (2, 3));
    assert_eq!(s.fit.fields.len(), 3);
    assert_eq!(s.fit.fields[2].name, "street_number + street_name");
    let moved = s.fit.probability(s.fit.weight(&[0, 0, 3, 3]));
    assert!(moved > 0.5, "a mover is a match: {moved}");
    // another person with the same last name and another address is not
    assert!(s.fit.probability(s.fit.weight(&[3, 0, 3, 3])) < 0.01);
    // without movers the parts disagree independently (20 each, none together): apart
    let apart = address_fit(0);
    assert!(apart.fit.joint.is_empty(), "{:?}", apart.fit.joint);
    assert_eq!(apart.fit.fields.len(), 4);
}

/// 10,000 true pairs (a, a) agreeing on all four fields, and `households` pairs
/// (a, a ^ 1) of household members: another first name, the same last name,
/// street number and street; blocks on the last name.
fn household_fit(households: u32) -> Scored {
    let n = 10_000u32;
    let schema = Schema { blocks: vec![BlockRule::on("last_name", Some(1))], ..address_schema() };
    let mut pairs: Vec<(u32, u32, [u8; 4])> = (0..n).map(|a| (a, a, [0, 0, 0, 0])).collect();
    pairs.extend((0..households).map(|a| (a ^ 1, a, [3, 0, 0, 0])));
    pairs.sort_by_key(|p| (p.0, p.1));
    let candidates = pairs.iter().map(|&(a, b, _)| (a, b)).collect();
    let levels = pairs.iter().map(|(_, _, l)| (l.to_vec(), false)).collect();
    let rules = schema.block_rules().iter().map(|r| RuleCount::of(&schema, r, 0)).collect();
    fit_scored(&schema, n as usize, n as usize, candidates, rules, levels, address_random()).unwrap()
}

#[test]
fn households_weigh_their_shared_surname_and_street_once() {
    let s = household_fit(600);
    assert_eq!(s.fit.interactions.len(), 1, "{:?}", s.fit.interactions);
    let x = &s.fit.interactions[0];
    assert_eq!((x.first, x.second), (1, 3), "last_name and street_name");
    // 600 household pairs among 10⁸, where the two u multiplied say 50
    assert!((x.both_agree * 1e8 - 600.0).abs() < 1e-6, "{}", x.both_agree * 1e8);
    let household = s.fit.probability(s.fit.weight(&[3, 0, 0, 0]));
    let mut independent = s.fit.clone();
    independent.interactions.clear();
    assert!(household < independent.probability(independent.weight(&[3, 0, 0, 0])), "{household}");
    assert!(s.fit.probability(s.fit.weight(&[0, 0, 0, 0])) > 0.99);
    // without households: none
    assert!(household_fit(0).fit.interactions.is_empty());
}
