//! The fit on synthetic mixtures: matches kept, non-matches dropped, the
//! leftover rows linked, keyed distance levels.

use super::*;
use crate::dp::Randomness;
use crate::matching::Pair;

const EDITS: Plan = Plan { bound: 2, evidence: Evidence::Edits };

fn uniform(rng: &mut Randomness) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A synthetic candidate set of `n` A rows, seeded: `row(a, u)` gives A row
/// `a`'s candidates as (b, distance, score, edits), `u()` a uniform draw in [0, 1).
fn mixture(
    n: u32,
    seed: u64,
    mut row: impl FnMut(u32, &mut dyn FnMut() -> f64) -> Vec<(u32, f64, f64, u32)>,
) -> Vec<Scored> {
    let mut rng = Randomness::seeded(seed);
    let mut u = || uniform(&mut rng);
    let mut c = Vec::new();
    for a in 0..n {
        let candidates = row(a, &mut u).into_iter();
        c.extend(candidates.map(|(b, distance, score, edits)| Scored { pair: Pair { a, b, distance }, score, edits }));
    }
    c
}

/// A synthetic two-class mixture: n true pairs (a, a), each at one or two
/// edits with a cosine score near 0.1, and for every A row several
/// non-matches at two edits with scores near 0.4. The fit keeps the true
/// pairs and drops the non-matches, whatever the true pairs' edits.
#[test]
fn the_fitted_cutoff_separates_a_synthetic_mixture() {
    for true_edits in [1u32, 2] {
        let n = 2000u32;
        let c = mixture(n, 11, |a, u| {
            let mut row = vec![(a, 1.0, 0.05 + 0.1 * u(), true_edits)];
            row.extend((1..=4u32).map(|k| ((a + k * 37) % n, 2.0, 0.3 + 0.2 * u(), 2)));
            row
        });
        let (kept, r) = fit(&c, EDITS, n as usize, n as usize);
        let true_kept = kept.iter().filter(|s| s.pair.a == s.pair.b).count();
        assert!(true_kept as f64 >= 0.99 * n as f64, "ed {true_edits}: {true_kept} of {n} true pairs kept");
        assert!(kept.len() - true_kept <= n as usize / 100, "ed {true_edits}: {} false kept", kept.len() - true_kept);
        assert!((r.lambda - 0.2).abs() < 0.02, "λ {}", r.lambda);
        assert_eq!(r.chosen_ed(), Some(true_edits));
        assert!(r.describe().contains(&format!("chose {true_edits} edit")), "{}", r.describe());
    }
}

/// The keyed case: no edit bounds, every pair within A's thresholds a
/// candidate (forty per A row here). True pairs (a, a) at about 0.4 of A's
/// threshold with cosine scores near 0.1; per A row one near non-match
/// at the same level (score near 0.25) and the rest farther. The fit on
/// distance levels keeps the true pairs and drops the non-matches.
#[test]
fn the_distance_fit_separates_a_synthetic_keyed_mixture() {
    let n = 2000u32;
    let mut c = mixture(n, 5, |a, u| {
        let d = 1.0 + 0.5 * u();
        let mut row = vec![(a, d, 0.05 + 0.1 * u(), 0)];
        row.extend((1..40u32).map(|k| {
            let (d, s) = match k {
                1 => (1.2 + 0.5 * u(), 0.2 + 0.1 * u()),
                _ => (2.2 + 1.7 * u(), 0.3 + 0.4 * u()),
            };
            ((a + k * 37) % n, d, s, 0)
        }));
        row
    });
    set_distance_levels(&mut c, &vec![4.0; n as usize]);
    assert_eq!(c[0].edits, distance_level(c[0].pair.distance, 4.0));
    let plan = Plan { bound: 2, evidence: Evidence::Distance };
    let (kept, r) = fit(&c, plan, n as usize, n as usize);
    let true_kept = kept.iter().filter(|s| s.pair.a == s.pair.b).count();
    assert!(true_kept as f64 >= 0.99 * n as f64, "{true_kept} of {n} true pairs kept");
    assert!(kept.len() - true_kept <= n as usize / 100, "{} false kept", kept.len() - true_kept);
    assert_eq!(r.candidates, c.len() as u64);
    assert!(r.fitted.is_some_and(|f| f < r.candidates / 10), "{:?}", r.fitted);
    assert_eq!((r.chosen_ed(), r.chosen_share()), (None, Some(0.5)));
    assert!(r.describe().contains("chose distances up to 0.5 of A's threshold"), "{}", r.describe());
}

/// Values that repeat across people: some A rows hold a value whose
/// exact namesake in B (an unrelated row) is taken by another A row, and
/// their own duplicate is one edit away (as are most true pairs). The fit keeps the exact
/// pairs; the rows it leaves free are linked to their one-edit partners
/// as `--ed 1` would, and those pairs are reported as leftovers.
#[test]
fn rows_the_fit_leaves_free_are_linked_up_to_the_chosen_level() {
    let n = 1000u32;
    let c = mixture(n, 3, |a, u| {
        // true pairs: a quarter exact (edits 0, score 0), the rest one edit
        // away, a third of those with a namesake
        let exact = a % 4 == 0;
        let mut row = vec![if exact { (a, 0.0, 0.0, 0) } else { (a, 1.0, 0.2 + 0.05 * u(), 1) }];
        if a % 4 == 1 {
            // its namesake: B row a − 1 (which A row a − 1 links exactly)
            row.push((a - 1, 0.0, 0.0, 0));
        }
        // near non-matches, one edit away too, and farther ones
        row.extend((1..=3u32).map(|k| ((a + k * 37 + 1) % n, 2.0, 0.4 + 0.2 * u(), if k == 1 { 1 } else { 2 })));
        row
    });
    let (kept, r) = fit(&c, EDITS, n as usize, n as usize);
    let linked = crate::matching::one_to_one_scored(&kept);
    let true_linked = linked.iter().filter(|p| p.a == p.b).count();
    assert!(true_linked as f64 >= 0.98 * n as f64, "{true_linked} of {n} linked to their own");
    assert!(r.leftovers > 0 && r.leftovers <= r.kept, "{r:?}");
    assert!(r.describe().contains("leave free"), "{}", r.describe());
    // the leftovers are pairs of rows none of the fit's own pairs uses
    let fit_only: Vec<Scored> = kept[..(r.kept - r.leftovers) as usize].to_vec();
    let first = crate::matching::one_to_one_scored(&fit_only);
    for s in &kept[(r.kept - r.leftovers) as usize..] {
        assert!(first.iter().all(|p| p.a != s.pair.a && p.b != s.pair.b), "{s:?} uses a row of the fit's pairs");
        assert!(s.edits <= r.chosen_level());
    }
}

#[test]
fn distance_levels() {
    let levels: Vec<u32> = [0.0, 0.5, 1.0, 1.5, 2.0, 3.9, 4.0, 9.0].iter().map(|&d| distance_level(d, 4.0)).collect();
    assert_eq!(levels, [0, 1, 1, 2, 2, 4, 4, 4]);
    assert_eq!(distance_level(1.0, 0.0), 4);
}

/// No candidates: nothing kept, no panic.
#[test]
fn empty_candidates() {
    for plan in [EDITS, Plan { bound: 2, evidence: Evidence::Distance }] {
        let (kept, r) = fit(&[], plan, 10, 10);
        assert!(kept.is_empty());
        assert_eq!((r.candidates, r.kept, r.chosen_level()), (0, 0, 0));
    }
}
