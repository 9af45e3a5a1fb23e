//! The thresholds against their definitions: the paper's rule as printed, the
//! sound bound against exhaustive edits and proptest.

use super::testing::*;
use super::thresholder::self_overlap;
use super::*;

fn sound_sq(b: &SharedBase, s: &str, ed: u32) -> f64 {
    Thresholder::new(b, ed).unwrap().sound_squared(s)
}

#[test]
fn paper_by_hand() {
    let b = base_over("", &["A", "AN", "ANA"]);
    let t = |ed| Thresholder::new(&b, ed).unwrap();
    // D = [0, 1+1/4+1/9, 1/4+1/9, 1+1/4+1/9, 1/4+1/9, 1+1/9]; P[3] = 0, P[5] = 2.
    let d1: f64 = 1.0 + 0.25 + 1.0 / 9.0;
    assert!((t(1).paper("BANANA") - d1.sqrt()).abs() < 1e-12);
    assert!((t(2).paper("BANANA") - (d1 + 1.0 + 1.0 / 9.0).sqrt()).abs() < 1e-12);
    // A third position would share an occurrence with 1 or 5 (P[5] = 2, P[3] = 0),
    // or add D[0] = 0: ed = 3 adds nothing, positions 0 and 2 … at best D[2].
    let d3 = d1 + 1.0 + 1.0 / 9.0 + 0.25 + 1.0 / 9.0;
    assert!(t(3).paper("BANANA") <= d3.sqrt() + 1e-12);
    assert_eq!(t(0).paper("BANANA"), 0.0);
    assert_eq!(t(2).paper(""), 0.0);
    assert_eq!(t(2).paper("XYZ"), 0.0);
}

#[test]
fn paper_threshold_is_violated_by_a_substitution() {
    let b = base_over("", &["S", "M", "I", "T", "H", "Y", "SM", "TH"]);
    let t = Thresholder::new(&b, 1).unwrap();
    let paper = t.paper("SMITH");
    let d = dist2(&b, "SMITH", "SMYTH").sqrt();
    assert!((paper - 1.25f64.sqrt()).abs() < 1e-12);
    assert!(d > paper, "SMYTH is at {d}, outside the paper's {paper}");
    assert!(d <= t.sound("SMITH"));
}

#[test]
fn sound_by_hand() {
    // One edit of "A" over {A}: deleting or substituting A, or inserting an A.
    assert_eq!(sound_sq(&base_over("", &["A"]), "A", 1), 1.0);
    // {A, B}: a substitution A → B moves both coordinates.
    assert_eq!(sound_sq(&base_over("", &["A", "B"]), "A", 1), 2.0);
    // "AAAA" over {AA}: deleting s[1] removes two occurrences, (2/2)² = 1, and
    // creates one across the gap, (1/2)²: the bound drops their product (the
    // true change is (1/2)²), so 1.25, while the worst edit (substituting s[1])
    // gives 1.
    let b = base_over("", &["AA"]);
    assert_eq!(sound_sq(&b, "AAAA", 1), 1.25);
    assert_eq!(dist2(&b, "AAAA", "ABAA"), 1.0);
    assert_eq!(sound_sq(&base_over("", &["A"]), "A", 0), 0.0);
    // Nothing of length 2 can appear in a string of length ≤ 1.
    assert_eq!(sound_sq(&base_over("", &["AB"]), "", 1), 0.0);
}

#[test]
fn sound_covers_the_global_bounds_counterexample() {
    let b = base_over("", &["A", "B"]);
    assert!(dist2(&b, "AAA", "BBB").sqrt() > global_bound(&b, 3));
    assert!(dist2(&b, "AAA", "BBB") <= sound_sq(&b, "AAA", 3) + 1e-9);
}

#[test]
fn exhaustive_single_edits() {
    let sigma: Vec<char> = "ABN ".chars().collect();
    let bases: [&[&str]; 4] = [
        &["A", "AN", "ANA"],
        &["A", "AA", "AAA", "N", " ", "NA", "BA"],
        &["AB", "BA", "ABA", "BAB", "B"],
        &["N", "NN", "A N", "NAN"],
    ];
    for grams in bases {
        let b = base_over("ABN ", grams);
        let t = Thresholder::new(&b, 1).unwrap();
        for s in ["", "A", "BANANA", "AAAA", "ABABA", "NAN NAN", "B A", "ANNA"] {
            let th = t.sound_squared(s);
            let worst = neighbours(s, &sigma).iter().map(|x| dist2(&b, s, x)).fold(0.0, f64::max);
            assert!(worst <= th + 1e-9, "{grams:?} {s:?}: {worst} > {th}");
        }
    }
}

#[test]
fn exhaustive_two_edits_over_a_small_alphabet() {
    let sigma: Vec<char> = "AB ".chars().collect();
    let bases: [&[&str]; 10] = [
        &["A", "AA", "AAA"],
        &["BB"],
        &["B", "BB", "BBB"],
        &["AB", "BA", "ABB"],
        &["A", "B", "AB", "ABA", "BB"],
        &[" ", "A A", "AB", "B"],
        &["AB"],
        &["AA"],
        &["ABA", "BAB"],
        &["AB", "AAB", "BA"],
    ];
    for grams in bases {
        let b = base_over("AB ", grams);
        let t = Thresholder::new(&b, 2).unwrap();
        // Every string over {A, B} of length ≤ 4, and a few with spaces.
        let mut strings: Vec<String> = vec![String::new(), "BAAB ".into(), "A A".into(), " B B".into()];
        for len in 1..=4u32 {
            strings.extend(
                (0..1u32 << len).map(|bits| (0..len).map(|i| if bits >> i & 1 == 1 { 'B' } else { 'A' }).collect()),
            );
        }
        for s in strings.iter().map(String::as_str) {
            let th = t.sound_squared(s);
            let mut ball: Vec<String> = vec![s.to_string()];
            for _ in 0..2 {
                ball = ball.iter().flat_map(|x| neighbours(x, &sigma)).collect();
                ball.sort();
                ball.dedup();
            }
            let worst = ball.iter().map(|x| dist2(&b, s, x)).fold(0.0, f64::max);
            assert!(worst <= th + 1e-9, "{grams:?} {s:?}: {worst} > {th}");
        }
    }
}

#[test]
fn characters_outside_the_alphabet_match_nothing() {
    let b = base_over("", &["A", "AB"]);
    let t = Thresholder::new(&b, 1).unwrap();
    assert!(t.sound("AxB").is_finite());
    assert_eq!(t.paper("xx"), 0.0);
}

#[test]
fn modes_and_validation() {
    let b = base_over("", &["A", "AN", "ANA"]);
    let recs: Vec<String> = ["BANANA", "", "ANNA"].iter().map(|s| s.to_string()).collect();
    assert_eq!(thresholds(&b, &recs, 2, &ThresholdMode::Global(None)).unwrap(), vec![6.0; 3]);
    assert_eq!(thresholds(&b, &recs, 2, &ThresholdMode::Global(Some(1.5))).unwrap(), vec![1.5; 3]);
    let t = Thresholder::new(&b, 2).unwrap();
    let paper = thresholds(&b, &recs, 2, &ThresholdMode::Paper).unwrap();
    let sound = thresholds(&b, &recs, 2, &ThresholdMode::Sound).unwrap();
    for (i, s) in recs.iter().enumerate() {
        assert_eq!(paper[i], t.paper(s));
        assert_eq!(sound[i], t.sound(s));
    }
    assert!(Thresholder::new(&b, 11).is_err());
    let long = SharedBase::new(crate::alphabet::Alphabet::default(), 1, 20, vec!["A".repeat(17)]).unwrap();
    let e = Thresholder::new(&long, 1).unwrap_err();
    assert!(e.to_string().contains("at most 16"), "{e}");
    for bad in [f64::NAN, f64::INFINITY, -1.0] {
        let e = thresholds(&b, &recs, 1, &ThresholdMode::Global(Some(bad))).unwrap_err();
        assert!(e.to_string().contains("global threshold"), "{e}");
    }
    let e = thresholds(&b, &recs, 11, &ThresholdMode::Sound).unwrap_err();
    assert!(e.to_string().contains("edit distance 11"), "{e}");
    assert_eq!(e.code(), "INVALID_PARAMETER");
}

#[test]
fn mode_serialization() {
    let json = |m: &ThresholdMode| serde_json::to_string(m).unwrap();
    assert_eq!(json(&ThresholdMode::Paper), "\"paper\"");
    assert_eq!(json(&ThresholdMode::Sound), "\"sound\"");
    assert_eq!(json(&ThresholdMode::Global(Some(2.5))), "{\"global\":2.5}");
    assert_eq!(json(&ThresholdMode::Global(None)), "{\"global\":null}");
    for m in [ThresholdMode::Paper, ThresholdMode::Sound, ThresholdMode::Global(Some(1.0)), ThresholdMode::Global(None)]
    {
        assert_eq!(serde_json::from_str::<ThresholdMode>(&json(&m)).unwrap(), m);
    }
}

#[test]
fn self_overlap_counts_occurrences_through_a_position() {
    assert_eq!(self_overlap(b"A"), 1);
    assert_eq!(self_overlap(b"AB"), 1);
    assert_eq!(self_overlap(b"AA"), 2);
    assert_eq!(self_overlap(b"AAA"), 3);
    assert_eq!(self_overlap(b"ABA"), 2);
    assert_eq!(self_overlap(b"ABAB"), 2);
    assert_eq!(self_overlap(b"ABC"), 1);
}

#[cfg(not(target_arch = "wasm32"))]
mod props {
    use super::super::testing::*;
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Edit {
        Sub(usize, usize),
        Ins(usize, usize),
        Del(usize),
    }

    fn apply(s: &str, edits: &[Edit], sigma: &[char]) -> String {
        let mut c: Vec<char> = s.chars().collect();
        for e in edits {
            match *e {
                Edit::Sub(p, x) if !c.is_empty() => {
                    let p = p % c.len();
                    c[p] = sigma[x % sigma.len()];
                }
                Edit::Del(p) if !c.is_empty() => {
                    c.remove(p % c.len());
                }
                Edit::Ins(p, x) | Edit::Sub(p, x) => c.insert(p % (c.len() + 1), sigma[x % sigma.len()]),
                Edit::Del(_) => {}
            }
        }
        c.into_iter().collect()
    }

    fn edit() -> impl Strategy<Value = Edit> {
        prop_oneof![
            (0..64usize, 0..64usize).prop_map(|(p, x)| Edit::Sub(p, x)),
            (0..64usize, 0..64usize).prop_map(|(p, x)| Edit::Ins(p, x)),
            (0..64usize).prop_map(Edit::Del),
        ]
    }

    /// (alphabet, grams, string, symbols edits draw from)
    fn case() -> impl Strategy<Value = (&'static str, Vec<String>, String, &'static str)> {
        prop_oneof![
            (proptest::collection::btree_set("[AB ]{1,3}|A{1,3}", 1..10), "[AB ]{0,10}|A{0,8}",).prop_map(|(g, s)| (
                "AB ",
                g.into_iter().collect(),
                s,
                "AB "
            )),
            (proptest::collection::btree_set("[A-E]{1,3}|[A-C]{1,2}|E{1,3}", 1..16), "[A-E]{0,12}|[EA]{0,9}",)
                .prop_map(|(g, s)| ("", g.into_iter().collect(), s, "ABCDEZ ")),
            // No 1-grams: the longer grams' terms then decide the bound.
            (proptest::collection::btree_set("[AB]{2,3}|A{2,3}", 1..5), "[AB]{0,9}|A{0,6}",).prop_map(|(g, s)| (
                "AB ",
                g.into_iter().collect(),
                s,
                "AB"
            )),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn every_string_within_ed_is_within_the_sound_threshold(
            (alphabet, grams, s, pool) in case(),
            edits in proptest::collection::vec(edit(), 1..=3),
        ) {
            let refs: Vec<&str> = grams.iter().map(String::as_str).collect();
            let b = base_over(alphabet, &refs);
            let sigma: Vec<char> = pool.chars().collect();
            for k in 1..=edits.len() {
                let x = apply(&s, &edits[..k], &sigma);
                let ed = k as u32;
                let t = Thresholder::new(&b, ed).unwrap();
                let bound = t.sound_squared(&s);
                let d = dist2(&b, &s, &x);
                prop_assert!(d.sqrt() <= bound.sqrt() + 1e-9, "{:?} {:?} -> {:?} (ed {}): {} > {}", refs, s, x, ed, d, bound);
                prop_assert!(t.sound(&s) >= t.paper(&s) - 1e-9);
            }
        }
    }
}

#[test]
fn a_threshold_depends_on_its_string_alone() {
    // many records through one scratch per thread, repeated and in two
    // orders: each equals the string's threshold computed alone
    let b = base_over("", &["A", "N", "B", "AN", "NA", "BA", "ANA", "NAN", "BAN", "ANAN"]);
    let mut r = crate::dp::Randomness::seeded(3);
    let recs: Vec<String> =
        (0..3000).map(|_| (0..1 + r.below(12)).map(|_| ['A', 'N', 'B', 'C'][r.below(4)]).collect()).collect();
    let mut reversed = recs.clone();
    reversed.reverse();
    for ed in 1..=2 {
        let t = Thresholder::new(&b, ed).unwrap();
        let got = thresholds(&b, &recs, ed, &ThresholdMode::Sound).unwrap();
        let back = thresholds(&b, &reversed, ed, &ThresholdMode::Sound).unwrap();
        for (i, s) in recs.iter().enumerate() {
            assert_eq!(got[i].to_bits(), t.sound(s).to_bits(), "{s:?} at ed {ed}");
            assert_eq!(back[recs.len() - 1 - i].to_bits(), got[i].to_bits(), "{s:?} at ed {ed}");
        }
    }
}
