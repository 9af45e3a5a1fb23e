//! [`trie_match`] against brute force, on data built to be hard for it: few
//! distinct values (many exact ties and duplicate vectors) and thresholds equal
//! to exact distances between existing pairs (ties at the threshold); and the
//! one-to-one rule against its definition.

use super::*;
use proptest::prelude::*;

const VALUES: [f32; 10] = [0.0, 1.0 / 3.0, 0.5, 2.0 / 3.0, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0];

fn vectors(dim: usize, raw: &[u8], sparse: bool) -> Vectors {
    let n = raw.len() / dim.max(1);
    let data = raw[..n * dim]
        .iter()
        .map(|&x| {
            let x = x as usize;
            // sparse rows look like embedded strings: mostly zeros
            if sparse && x % 3 != 0 {
                0.0
            } else {
                VALUES[x % VALUES.len()]
            }
        })
        .collect();
    Vectors { dim, data }
}

fn thresholds(a: &Vectors, b: &Vectors, raw: &[u8], ties: bool) -> Vec<f64> {
    (0..a.len())
        .map(|i| {
            let r = *raw.get(i).unwrap_or(&5);
            if ties && !b.is_empty() && r % 2 == 0 {
                // exactly the distance to some B row: a tie at the threshold
                distance(a.row(i), b.row((r as usize * 7 + i) % b.len()))
            } else {
                r as f64 * 0.25
            }
        })
        .collect()
}

fn run(a: &Vectors, b: &Vectors, th: &[f64], depth: usize, leaf: usize, parallel: bool) -> Result<(Vec<Pair>, MatchStats), TestCaseError> {
    trie_match(a, b, th, &TrieMatchOptions { depth, leaf, parallel }).map_err(|e| TestCaseError::fail(e.to_string()))
}

fn check(a: &Vectors, b: &Vectors, th: &[f64]) -> Result<(), TestCaseError> {
    let (want, _) = brute_force(a, b, th).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let d = TrieMatchOptions::default();
    let (got, stats) = run(a, b, th, d.depth, d.leaf, true)?;
    let (seq, seq_stats) = run(a, b, th, d.depth, d.leaf, false)?;
    prop_assert_eq!(&got, &want);
    prop_assert_eq!(&seq, &want);
    prop_assert_eq!(stats, seq_stats);
    prop_assert_eq!(stats.pairs, want.len() as u64);
    prop_assert!(stats.candidates <= a.len() as u64 * b.len() as u64);
    for (depth, leaf) in [(1, 1), (3, 2), (1000, 1), (1000, 8), (2, 64)] {
        for parallel in [false, true] {
            let (p, _) = run(a, b, th, depth, leaf, parallel)?;
            prop_assert_eq!(&p, &want);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn index_equals_brute_force(
        dim in prop_oneof![1usize..6, 6usize..24, Just(75usize)],
        ra in prop::collection::vec(0u8..40, 0..1500),
        rb in prop::collection::vec(0u8..40, 0..2500),
        rt in prop::collection::vec(0u8..16, 0..100),
        sparse in any::<bool>(),
        ties in any::<bool>(),
        b_copies_a in any::<bool>(),
    ) {
        let a = vectors(dim, &ra, sparse);
        let mut b = vectors(dim, &rb, sparse);
        if b_copies_a {
            // duplicates across the sides: distance 0 and many equal distances
            b.data.extend_from_slice(&a.data);
        }
        let th = thresholds(&a, &b, &rt, ties);
        check(&a, &b, &th)?;
    }

    #[test]
    fn index_equals_brute_force_on_continuous_values(
        dim in 1usize..10,
        ra in prop::collection::vec(-1000i32..1000, 0..400),
        rb in prop::collection::vec(-1000i32..1000, 0..400),
        th in 0.0f64..3.0,
    ) {
        let f = |r: &[i32]| {
            let n = r.len() / dim;
            Vectors { dim, data: r[..n * dim].iter().map(|&x| x as f32 / 337.0).collect() }
        };
        let (a, b) = (f(&ra), f(&rb));
        let ths = vec![th; a.len()];
        check(&a, &b, &ths)?;
    }
}

fn tm(a: &Vectors, b: &Vectors, th: &[f64]) -> Result<(Vec<Pair>, MatchStats), crate::error::Error> {
    trie_match(a, b, th, &TrieMatchOptions::default())
}

fn tm_seq(a: &Vectors, b: &Vectors, th: &[f64]) -> Result<(Vec<Pair>, MatchStats), crate::error::Error> {
    trie_match(a, b, th, &TrieMatchOptions { parallel: false, ..TrieMatchOptions::default() })
}

/// Name-like data: letter counts and pair counts of random short strings.
fn strings(n: usize, seed: u64) -> Vectors {
    let mut rng = crate::dp::Randomness::seeded(seed);
    let dim = 40;
    let mut data = Vec::with_capacity(n * dim);
    for _ in 0..n {
        let len = 3 + rng.below(6);
        let s: Vec<usize> = (0..len).map(|_| rng.below(8)).collect();
        let mut v = vec![0.0f32; dim];
        for &c in &s {
            v[c] += 1.0; // 8 "letters"
        }
        for w in s.windows(2) {
            let g = 8 + (w[0] * 8 + w[1]) % 30; // 30 "bigrams"
            v[g] += 0.5;
        }
        for w in s.windows(3) {
            if w[0] == w[2] {
                v[38 + w[1] % 2] += 1.0 / 3.0; // 2 "trigrams"
            }
        }
        data.extend_from_slice(&v);
    }
    Vectors { dim, data }
}

#[test]
fn name_like_data_with_many_thresholds() {
    let a = strings(1500, 1);
    let b = strings(2000, 2);
    for base in [0.0, 1.0, 1.5, 2.0, 3.0] {
        let th: Vec<f64> = (0..a.len())
            .map(|i| match i % 3 {
                0 => base,
                1 => distance(a.row(i), b.row(i)),
                _ => base + 0.5,
            })
            .collect();
        let (want, _) = brute_force(&a, &b, &th).unwrap();
        let (lattice, _) = range_match(&a, &b, &th).unwrap();
        assert_eq!(lattice, want, "the two indexes agree");
        let (got, stats) = tm(&a, &b, &th).unwrap();
        let (seq, seq_stats) = tm_seq(&a, &b, &th).unwrap();
        assert_eq!(got, want, "threshold {base}");
        assert_eq!(seq, want);
        assert_eq!(stats, seq_stats);
        if base <= 1.5 {
            assert!(stats.candidates < (a.len() * b.len()) as u64 / 4, "the index prunes: {stats:?}");
        }
    }
}

#[test]
fn output_is_sorted_by_a_distance_b() {
    let a = strings(300, 3);
    let b = strings(300, 4);
    let th = vec![2.0; a.len()];
    let (p, _) = tm(&a, &b, &th).unwrap();
    assert!(!p.is_empty());
    for w in p.windows(2) {
        let k = |x: &Pair| (x.a, x.distance, x.b);
        assert!(k(&w[0]).0 < k(&w[1]).0 || (k(&w[0]).0 == k(&w[1]).0 && (k(&w[0]).1, k(&w[0]).2) < (k(&w[1]).1, k(&w[1]).2)));
    }
}

#[test]
fn duplicates_and_zero_threshold() {
    let a = Vectors { dim: 3, data: vec![1.0, 0.5, 0.0, 1.0, 0.5, 0.0] };
    let b = Vectors { dim: 3, data: vec![1.0, 0.5, 0.0, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0] };
    let (p, _) = tm(&a, &b, &[0.0, 0.0]).unwrap();
    assert_eq!(p.len(), 4);
    assert!(p.iter().all(|x| x.distance == 0.0 && x.b < 2));
    // -0.0 and 0.0 are the same value
    let z = Vectors { dim: 2, data: vec![-0.0, 1.0] };
    let y = Vectors { dim: 2, data: vec![0.0, 1.0] };
    assert_eq!(tm(&z, &y, &[0.0]).unwrap().0.len(), 1);
}

#[test]
fn bad_inputs_are_errors_naming_the_problem() {
    let err = |r: Result<(Vec<Pair>, MatchStats), crate::error::Error>| match r {
        Err(crate::error::Error::Parameter(m)) => m,
        other => panic!("expected a parameter error, got {other:?}"),
    };
    let a = Vectors { dim: 2, data: vec![1.0, 2.0] };
    let b = Vectors { dim: 3, data: vec![1.0, 2.0, 3.0] };
    assert!(err(tm(&a, &b, &[1.0])).contains("dimension"));
    let nan = Vectors { dim: 2, data: vec![f32::NAN, 0.0] };
    assert!(err(tm(&a, &nan, &[1.0])).contains("non-finite"));
    let inf = Vectors { dim: 2, data: vec![0.0, f32::INFINITY] };
    assert!(err(tm(&inf, &a, &[1.0])).contains("non-finite"));
    let ok = Vectors { dim: 2, data: vec![0.0, 0.0] };
    assert!(err(tm(&a, &ok, &[])).contains("thresholds"));
    for bad in [f64::NAN, -1.0, f64::INFINITY] {
        assert!(err(tm(&a, &ok, &[bad])).contains("threshold"));
        assert!(err(brute_force(&a, &ok, &[bad])).contains("threshold"));
    }
    let ragged = Vectors { dim: 2, data: vec![0.0, 0.0, 1.0] };
    assert!(err(tm(&ragged, &ok, &[1.0])).contains("whole number"));
}

#[test]
fn empty_sides_give_empty_results() {
    let a = Vectors { dim: 2, data: vec![1.0, 2.0] };
    let empty = Vectors { dim: 2, data: vec![] };
    assert!(tm(&a, &empty, &[1.0]).unwrap().0.is_empty());
    assert!(tm(&empty, &a, &[]).unwrap().0.is_empty());
    assert!(tm_seq(&empty, &empty, &[]).unwrap().0.is_empty());
    assert!(brute_force(&a, &empty, &[1.0]).unwrap().0.is_empty());
}

#[test]
fn large_thresholds_match_everything() {
    let a = strings(50, 5);
    let b = strings(60, 6);
    let th = vec![1e6; a.len()];
    let (p, _) = tm(&a, &b, &th).unwrap();
    assert_eq!(p.len(), 50 * 60);
}


/// The one-to-one rule, spelled out: repeatedly link the smallest (distance, a, b)
/// among the pairs whose a and b are both free.
fn greedy_by_definition(pairs: &[Pair]) -> Vec<Pair> {
    let mut left: Vec<Pair> = pairs.to_vec();
    let mut out = Vec::new();
    while let Some(best) = left
        .iter()
        .copied()
        .min_by(|x, y| x.distance.total_cmp(&y.distance).then(x.a.cmp(&y.a)).then(x.b.cmp(&y.b)))
    {
        out.push(best);
        left.retain(|p| p.a != best.a && p.b != best.b);
    }
    out.sort_by(|x, y| x.a.cmp(&y.a).then(x.distance.total_cmp(&y.distance)).then(x.b.cmp(&y.b)));
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn one_to_one_is_greedy_and_maximal(raw in prop::collection::vec((0u32..12, 0u32..12, 0u8..6), 0..80)) {
        let pairs: Vec<Pair> = raw.iter().map(|&(a, b, d)| Pair { a, b, distance: d as f64 / 2.0 }).collect();
        let got = one_to_one(&pairs);
        prop_assert_eq!(&got, &greedy_by_definition(&pairs));
        let mut seen_a = std::collections::HashSet::new();
        let mut seen_b = std::collections::HashSet::new();
        for x in &got {
            prop_assert!(seen_a.insert(x.a) && seen_b.insert(x.b), "each record at most once");
        }
        // maximal: every pair left out shares a record with a linked pair that is
        // at most as far
        for q in &pairs {
            prop_assert!(got.iter().any(|x| (x.a == q.a || x.b == q.b) && x.distance <= q.distance));
        }
    }
}

#[test]
fn one_to_one_hand_examples() {
    let p = |a, b, d| Pair { a, b, distance: d };
    // greedy, not min-cost: (0,0) = 1.0 is linked first, leaving (1,1) = 3.0,
    // though (0,1) + (1,0) = 2.2 would cost less
    let pairs = [p(0, 0, 1.0), p(0, 1, 1.1), p(1, 0, 1.1), p(1, 1, 3.0)];
    assert_eq!(one_to_one(&pairs), vec![p(0, 0, 1.0), p(1, 1, 3.0)]);
    // equal distances: (0,1) < (1,1) < (1,2) by (a, b)
    let chain = [p(1, 2, 0.0), p(1, 1, 0.0), p(0, 1, 0.0)];
    assert_eq!(one_to_one(&chain), vec![p(0, 1, 0.0), p(1, 2, 0.0)]);
    assert!(one_to_one(&[]).is_empty());
}

#[test]
fn one_to_one_of_the_range_match() {
    let a = strings(400, 7);
    let b = strings(500, 8);
    let th = vec![1.5; a.len()];
    let (pairs, _) = tm(&a, &b, &th).unwrap();
    let linked = one_to_one(&pairs);
    assert_eq!(linked, greedy_by_definition(&pairs));
    assert!(!linked.is_empty() && linked.len() <= a.len().min(b.len()));
}
