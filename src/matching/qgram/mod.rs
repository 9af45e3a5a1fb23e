//! The recommended matcher: a sound q-gram count filter, then pairs ranked by
//! cosine distance for the one-to-one assignment.
//!
//! **Why.** The Euclidean sound threshold bounds the *squared* change an edit can
//! make, which for short records and ed ≥ 2 admits nearly every pair (NAMES at
//! ed 2: all 10⁸ pairs of 10,000 names). Counting instead of squaring is much
//! tighter: one edit of a record changes at most `L` windows of length `L` and
//! creates at most `L` (a substitution touches the `L` windows through its
//! position, an insertion splits one window set, a deletion merges one), so over
//! the coordinates of gram length `L`
//!
//!   Σ |n_a − n_b| ≤ 2·L·ed            (the q-gram lemma, per length class),
//!
//! with `n` the occurrence counts (`value · L`, exact: see [`crate::embed`]). When
//! the base holds *every* window of length `L` a record can have (a *complete*
//! class: every public 2-gram of Σ and the boundary grams, [`crate::public`]),
//! the class total is the number of windows, `|^s$| − L + 1`, so also
//!
//!   |N_a − N_b| ≤ ed                   (record lengths differ by ≤ ed edits).
//!
//! Every pair of records within `ed` edits passes both tests and the Euclidean
//! sound threshold; a pair failing one is provably farther than `ed` edits. So the
//! filter only removes pairs that cannot be true at the stated `ed`.
//!
//! **Candidates.** With `O = Σ min(n_a, n_b)` over the complete class `f`, the
//! first test gives `O ≥ τ(N_b) = (N_a + N_b − 2·L_f·ed)/2`. A's coordinates of
//! `f` are probed rarest first; `rem_j` is A's count from coordinate `j` on. A row
//! sharing none of the first `j` has `O ≤ rem_j`, so coordinate `j` is probed only
//! for rows with `N_b ≤ 2·rem_j − N_a + 2·L_f·ed` (posting lists are sorted by
//! `N_b`), and only within `|N_a − N_b| ≤ ed`; rows sharing nothing qualify only
//! when `τ(N_b) ≤ 0` and are taken from B sorted by `N_b`. All of it is integer
//! arithmetic. Every qualifying row is met at its first shared coordinate, so the
//! candidates are exactly those of a brute-force scan (a test checks it).
//!
//! **Ranking.** Among the pairs passing the filter, each A row keeps its `per_row`
//! best by cosine distance `1 − a·b/(‖a‖‖b‖)`: on 0/1 gram counts of one length
//! that is one minus the Dice-like overlap of the two gram sets normalized by
//! their sizes, so a long record with a few differing grams ranks above a short
//! one with as many (the plain Euclidean distance counts differing grams only).
//! The greedy assignment ([`one_to_one_scored`]) then takes pairs by increasing
//! score. Ranking uses nothing but the two vectors: the privacy model is the
//! paper's (C sees vectors, thresholds and the base's gram lengths, a function of
//! the shared base).

mod build;
mod filter;
mod rows;
mod signature;

pub use filter::{edit_bound, Scored};

use super::pairs::MatchStats;
use crate::embed::Vectors;
use crate::error::Error;
use crate::shape::Shape;
use crate::sparse_vectors::RowSource;
use build::build;
use rows::{match_rows, ranked, Scratch};

/// Most pairs kept per A row by the recommended matcher (the greedy assignment
/// rarely reaches beyond the first few; NAMES at ed 2 keeps 88 per row on
/// average before this cap).
pub const PER_ROW: usize = 64;

/// `1 − cos` of two vectors from their norms and distance
/// (`a·b = (‖a‖² + ‖b‖² − d²)/2`); 1 when either is zero. Clamped to [0, 2].
pub fn cosine_distance(norm_a: f64, norm_b: f64, d: f64) -> f64 {
    let den = norm_a * norm_b;
    if den > 0.0 {
        (1.0 - (norm_a * norm_a + norm_b * norm_b - d * d) / (2.0 * den)).clamp(0.0, 2.0)
    } else {
        1.0
    }
}

/// The recommended match: for each A row, its best `per_row` B rows by cosine
/// distance among those passing the q-gram filter and A's (sound) threshold for
/// `ed` edits. Uses every core natively; the result does not depend on it.
///
/// Errors when the vectors do not fit the shape, the shape has no complete class,
/// or the thresholds are not one finite number ≥ 0 per A row.
pub fn scored_match(
    a: &Vectors,
    b: &Vectors,
    thresholds: &[f64],
    ed: u32,
    shape: &Shape,
    per_row: usize,
) -> Result<(Vec<Scored>, MatchStats), Error> {
    super::pairs::validate(a, b, thresholds)?;
    scored_match_rows(a, b, thresholds, ed, shape, per_row)
}

/// [`scored_match`] on any rows (dense or sparse, [`RowSource`]): the same
/// pairs and scores for the same vectors. `thresholds` (one per A row) must
/// be finite and non-negative, as [`scored_match`] checks for dense vectors.
pub fn scored_match_rows(
    a: &dyn RowSource,
    b: &dyn RowSource,
    thresholds: &[f64],
    ed: u32,
    shape: &Shape,
    per_row: usize,
) -> Result<(Vec<Scored>, MatchStats), Error> {
    if thresholds.len() != a.rows() || thresholds.iter().any(|t| !t.is_finite() || *t < 0.0) {
        return Err(Error::Parameter(format!(
            "{} thresholds for {} A rows, each must be finite and >= 0",
            thresholds.len(),
            a.rows()
        )));
    }
    let ix = build(a, b, ed, shape)?;
    let per_row = per_row.max(1);
    let na = a.rows();
    let parts = crate::par::chunks_init(
        na,
        512,
        || Scratch::new(&ix),
        |s, rows| match_rows(&ix, thresholds, None, rows, per_row, s),
    );
    let mut out = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum());
    let mut candidates = 0;
    for (p, _, c) in parts {
        out.extend(p);
        candidates += c;
    }
    let stats = MatchStats { candidates, pairs: out.len() as u64 };
    Ok((out, stats))
}

/// Both ways of a pair at once: [`scored_match_rows`] of `a` against `b`
/// within `th_a` and of `b` against `a` within `th_b`, at one `ed`, from one
/// index and one pass (every test the filter makes of a pair is symmetric in
/// the two rows), so half the work of the two calls, with the same pairs,
/// scores and order (a test compares them). The second list names B's rows
/// as `pair.a`.
pub fn scored_both_ways_rows(
    a: &dyn RowSource,
    b: &dyn RowSource,
    th_a: &[f64],
    th_b: &[f64],
    ed: u32,
    shape: &Shape,
    per_row: usize,
) -> Result<(Vec<Scored>, Vec<Scored>, MatchStats), Error> {
    for (name, th, rows) in [("A", th_a, a.rows()), ("B", th_b, b.rows())] {
        if th.len() != rows || th.iter().any(|t| !t.is_finite() || *t < 0.0) {
            return Err(Error::Parameter(format!(
                "{} thresholds for {rows} {name} rows, each must be finite and >= 0",
                th.len()
            )));
        }
    }
    let ix = build(a, b, ed, shape)?;
    let per_row = per_row.max(1);
    let parts = crate::par::chunks_init(
        a.rows(),
        512,
        || Scratch::new(&ix),
        |s, rows| match_rows(&ix, th_a, Some(th_b), rows, per_row, s),
    );
    let (mut out, mut back) = (Vec::new(), Vec::new());
    let mut candidates = 0;
    for (p, q, c) in parts {
        out.extend(p);
        back.extend(q);
        candidates += c;
    }
    let back = best_per_row(back, per_row);
    let stats = MatchStats { candidates, pairs: (out.len() + back.len()) as u64 };
    Ok((out, back, stats))
}

/// Each row's (`pair.a`'s) best `per_row` pairs by (score, distance, other
/// row), rows ascending: what [`scored_match_rows`] keeps of a row's pairs.
pub fn best_per_row(mut pairs: Vec<Scored>, per_row: usize) -> Vec<Scored> {
    crate::sorting::sort_by(&mut pairs, |x, y| x.pair.a.cmp(&y.pair.a).then_with(|| ranked(x, y)));
    let mut out = Vec::with_capacity(pairs.len());
    let mut start = 0;
    while start < pairs.len() {
        let row = pairs[start].pair.a;
        let end = start + pairs[start..].partition_point(|p| p.pair.a == row);
        out.extend_from_slice(&pairs[start..end.min(start.saturating_add(per_row.max(1)))]);
        start = end;
    }
    out
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
