//! The q-gram filter against a full scan, on random records over small alphabets.

#[cfg(feature = "eval")]
use super::filter::DenseRow;
use super::*;
use crate::alphabet::Alphabet;
use crate::base::SharedBase;
use crate::dp::Randomness;
use crate::embed::Embedder;
use crate::matching::one_to_one_scored;
use crate::progress::NoProgress;

fn recommended_base(alphabet: &str) -> SharedBase {
    let a = Alphabet::new(alphabet).unwrap();
    let mut mined = crate::mine::random::mine(
        &a,
        &crate::mine::MineOptions { k: 5, q_min: 3, q_max: 3, ..Default::default() },
        &mut Randomness::seeded(1),
    )
    .unwrap();
    // random grams over Σ, declared padded: the shared base then adds the boundary grams
    mined.padding = Some(crate::padding::Padding::default());
    crate::public::merge_shared(&[&mined, &mined], 5, Some(2), true).unwrap()
}

/// The symbols of `alphabet`, its recommended base, the base's shape and its embedder.
fn setup(alphabet: &str) -> (Vec<char>, SharedBase, Shape, Embedder) {
    let base = recommended_base(alphabet);
    let shape = Shape::of(&base);
    let e = Embedder::new(&base).unwrap();
    (alphabet.chars().collect(), base, shape, e)
}

fn random_word(rng: &mut Randomness, sigma: &[char], max: usize) -> String {
    let n = 1 + rng.next_u32() as usize % max;
    (0..n).map(|_| sigma[rng.next_u32() as usize % sigma.len()]).collect()
}

#[test]
fn shape_of_the_recommended_base_has_a_complete_bigram_class() {
    let base = recommended_base("ABC");
    let s = Shape::of(&base);
    assert_eq!(s.lengths.len(), base.len());
    assert_eq!(s.complete, vec![2]);
    assert_eq!(s.filter_length(), Some(2));
    let mine = |seed| {
        crate::mine::random::mine(
            &Alphabet::new("ABC").unwrap(),
            &crate::mine::MineOptions { k: 4, q_min: 1, q_max: 3, ..Default::default() },
            &mut Randomness::seeded(seed),
        )
        .unwrap()
    };
    let paper = crate::public::merge_shared(&[&mine(2), &mine(3)], 4, None, false).unwrap();
    let ps = Shape::of(&paper);
    assert!(!ps.complete.contains(&2), "four random grams cannot hold every 2-gram");
    assert!(ps.validate(paper.len()).is_ok());
    assert!(ps.validate(paper.len() + 1).is_err());
}

/// Every pair within `ed` edits passes, and the index finds exactly what a
/// scan of all pairs with the same tests finds.
#[test]
#[cfg(feature = "eval")] // B is the scenario's corrupted copy
fn sound_and_equal_to_a_full_scan() {
    // 10 symbols: 120 bigram coordinates, so row signatures (64 bits) collide
    let (sigma, base, shape, e) = setup("ABCDEFGHIJ");
    let mut rng = Randomness::seeded(7);
    for ed in 0..=3u32 {
        let a: Vec<String> = (0..120).map(|_| random_word(&mut rng, &sigma, 9)).collect();
        // B: an edited copy of each A record, then random records
        let mut b: Vec<String> = a
            .iter()
            .map(|s| crate::eval::corrupt::corrupt(s, ed, &mut rng))
            .map(|s| s.chars().filter(|c| sigma.contains(c)).collect::<String>())
            .collect();
        for s in b.iter_mut() {
            if s.is_empty() {
                *s = "A".into();
            }
        }
        b.extend((0..80).map(|_| random_word(&mut rng, &sigma, 9)));
        let (va, vb) = (e.embed_all(&a, &mut NoProgress).unwrap(), e.embed_all(&b, &mut NoProgress).unwrap());
        let th = crate::threshold::thresholds(&base, &a, ed, &crate::threshold::ThresholdMode::Sound).unwrap();
        let (got, _) = scored_match(&va, &vb, &th, ed, &shape, usize::MAX).unwrap();
        let ix = build(&va, &vb, ed, &shape).unwrap();
        let mut sc = DenseRow { cnt: vec![0; va.dim], val: vec![0.0; va.dim], overlap: vec![0; ix.cl.len.len()] };
        let mut want = Vec::new();
        for i in 0..a.len() {
            ix.load(i, &mut sc);
            for j in 0..b.len() {
                let d = ix.distance(i, j);
                assert_eq!(d, crate::matching::distance(va.row(i), vb.row(j)), "the same arithmetic as `distance`");
                if ix.verify(i, j, th[i], &mut sc).is_some() {
                    assert!(d <= th[i], "a pair past the threshold passed");
                    want.push((i as u32, j as u32));
                }
                // at a threshold of exactly the pair's distance, the verdict is the exact one
                let (pass, at) = (ix.verify(i, j, th[i], &mut sc).is_some(), ix.verify(i, j, d, &mut sc).is_some());
                assert!(!pass || at, "ed {ed}: ({i}, {j}) at d = {d} refused at its own distance");
                if d > 0.0 {
                    let below = d * (1.0 - 1e-12);
                    assert!(ix.verify(i, j, below, &mut sc).is_none(), "({i}, {j}) kept below its distance");
                }
            }
            ix.unload(i, &mut sc);
            // the edited copy is within ed edits (the corruption made at most ed)
            if crate::eval::corrupt::edit_distance(&a[i], &b[i]) <= ed as usize {
                assert!(
                    got.iter().any(|s| s.pair.a == i as u32 && s.pair.b == i as u32),
                    "ed {ed}: {} / {} filtered out",
                    a[i],
                    b[i]
                );
            }
        }
        let mut g: Vec<(u32, u32)> = got.iter().map(|s| (s.pair.a, s.pair.b)).collect();
        g.sort_unstable();
        want.sort_unstable();
        assert_eq!(g, want, "ed {ed}");
        if ed == 2 {
            assert!(
                want.len() < a.len() * b.len() / 2,
                "the filter removes pairs ({} of {})",
                want.len(),
                a.len() * b.len()
            );
        }
    }
}

#[test]
fn per_row_keeps_the_best_and_greedy_is_one_to_one() {
    let (_, base, shape, e) = setup("ABCD");
    let a: Vec<String> = ["ABCDAB", "ABCDAC", "DCBA"].iter().map(|s| s.to_string()).collect();
    let b: Vec<String> = ["ABCDAC", "ABCDAB", "DCBAA", "ABCDA"].iter().map(|s| s.to_string()).collect();
    let (va, vb) = (e.embed_all(&a, &mut NoProgress).unwrap(), e.embed_all(&b, &mut NoProgress).unwrap());
    let th = crate::threshold::thresholds(&base, &a, 1, &crate::threshold::ThresholdMode::Sound).unwrap();
    let (all, _) = scored_match(&va, &vb, &th, 1, &shape, usize::MAX).unwrap();
    let (one, _) = scored_match(&va, &vb, &th, 1, &shape, 1).unwrap();
    assert_eq!(one.len(), 3);
    for s in &one {
        let best = all.iter().filter(|x| x.pair.a == s.pair.a).map(|x| x.score).fold(f64::INFINITY, f64::min);
        assert_eq!(s.score, best);
    }
    let g: Vec<(u32, u32)> = one_to_one_scored(&all).iter().map(|p| (p.a, p.b)).collect();
    assert_eq!(g, vec![(0, 1), (1, 0), (2, 2)]);
}

/// Random words of at most `max` symbols over 5 (many pairs per row, many
/// tied scores): `na` for A and `nb` for B, and their vectors, with the base
/// and its shape.
#[allow(clippy::type_complexity)]
fn short_words(
    seed: u64,
    na: usize,
    nb: usize,
    max: usize,
) -> (SharedBase, Shape, (Vec<String>, Vec<String>, crate::embed::Vectors, crate::embed::Vectors)) {
    let (sigma, base, shape, e) = setup("ABCDE");
    let mut rng = Randomness::seeded(seed);
    let a: Vec<String> = (0..na).map(|_| random_word(&mut rng, &sigma, max)).collect();
    let b: Vec<String> = (0..nb).map(|_| random_word(&mut rng, &sigma, max)).collect();
    let (va, vb) = (e.embed_all(&a, &mut NoProgress).unwrap(), e.embed_all(&b, &mut NoProgress).unwrap());
    (base, shape, (a, b, va, vb))
}

/// Each row's best `per_row` (selected, then sorted) are the first `per_row`
/// of all its pairs sorted by (score, distance, b), ties at the cut included.
#[test]
fn per_row_is_the_head_of_the_full_ranking() {
    let (base, shape, (a, _, va, vb)) = short_words(11, 60, 300, 4);
    let th = crate::threshold::thresholds(&base, &a, 2, &crate::threshold::ThresholdMode::Sound).unwrap();
    let (all, _) = scored_match(&va, &vb, &th, 2, &shape, usize::MAX).unwrap();
    for k in [1usize, 3, 8] {
        let (top, _) = scored_match(&va, &vb, &th, 2, &shape, k).unwrap();
        let mut want = Vec::new();
        for i in 0..a.len() as u32 {
            let mut row: Vec<Scored> = all.iter().filter(|s| s.pair.a == i).copied().collect();
            assert!(
                row.windows(2)
                    .all(|w| (w[0].score, w[0].pair.distance, w[0].pair.b)
                        <= (w[1].score, w[1].pair.distance, w[1].pair.b)),
                "rows come sorted"
            );
            row.truncate(k);
            want.extend(row);
        }
        assert!(all.len() > a.len() * 8, "rows have more pairs than kept ({})", all.len());
        assert_eq!(top, want, "per_row {k}");
    }
}

#[test]
fn bad_shapes_are_refused() {
    let base = recommended_base("AB");
    let e = Embedder::new(&base).unwrap();
    let v = e.embed_all(&["AB".to_string()], &mut NoProgress).unwrap();
    let mut s = Shape::of(&base);
    s.complete.clear();
    assert!(scored_match(&v, &v, &[1.0], 1, &s, 4).unwrap_err().to_string().contains("complete"));
    let mut s = Shape::of(&base);
    s.lengths.pop();
    assert!(scored_match(&v, &v, &[1.0], 1, &s, 4).unwrap_err().to_string().contains("dimension"));
    assert!(scored_match(&v, &v, &[1.0], 99, &Shape::of(&base), 4).is_err());
}

/// One pass for both ways gives each way's pairs, scores, distances and
/// order exactly as its own pass does, whatever the cap and thresholds.
#[test]
fn both_ways_in_one_pass_equal_each_way_alone() {
    let (base, shape, (a, b, va, vb)) = short_words(13, 150, 220, 6);
    for ed in 1..=2u32 {
        let mode = crate::threshold::ThresholdMode::Sound;
        let th_a = crate::threshold::thresholds(&base, &a, ed, &mode).unwrap();
        // B's own thresholds, a third of them shrunk: the two ways keep different pairs
        let mut th_b = crate::threshold::thresholds(&base, &b, ed, &mode).unwrap();
        th_b.iter_mut().step_by(3).for_each(|t| *t *= 0.7);
        for per_row in [1usize, 3, usize::MAX] {
            let (ab, ba, stats) = scored_both_ways_rows(&va, &vb, &th_a, &th_b, ed, &shape, per_row).unwrap();
            let (want_ab, one) = scored_match(&va, &vb, &th_a, ed, &shape, per_row).unwrap();
            let (want_ba, _) = scored_match(&vb, &va, &th_b, ed, &shape, per_row).unwrap();
            if per_row == usize::MAX {
                // the caps below then cut rows of both ways
                let most = |v: &[Scored], rows: usize| {
                    (0..rows as u32).map(|r| v.iter().filter(|s| s.pair.a == r).count()).max().unwrap_or(0)
                };
                assert!(most(&want_ab, a.len()) > 3 && most(&want_ba, b.len()) > 3, "ed {ed}");
            }
            assert_eq!(ab, want_ab, "ed {ed}, per_row {per_row}: A's way");
            assert_eq!(ba, want_ba, "ed {ed}, per_row {per_row}: B's way");
            assert_eq!(stats.candidates, one.candidates, "the pairs verified are one way's");
        }
    }
    // bad thresholds are refused for either side
    let th_a = vec![1.0; a.len()];
    assert!(scored_both_ways_rows(&va, &vb, &th_a, &[1.0], 1, &shape, 4).is_err());
    assert!(scored_both_ways_rows(&va, &vb, &th_a, &vec![f64::NAN; b.len()], 1, &shape, 4).is_err());
}
