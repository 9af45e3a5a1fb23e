//! The filter's work per A row: its candidates verified, and its best
//! `per_row` pairs kept (the argument is in the parent module's documentation).

use super::filter::{CountFilter, DenseRow, Scored};
use crate::matching::pairs::Pair;

/// A pair of the row being matched that passed every test, before its
/// exact distance is known.
#[derive(Debug, Clone, Copy)]
struct Found {
    b: u32,
    score: f64,
    edits: u32,
}

/// One thread's buffers for [`match_rows`], reused across its chunks.
pub(super) struct Scratch {
    order: Vec<(usize, usize)>,
    cand: Vec<u32>,
    found: Vec<Found>,
    best: Vec<Scored>,
    row: DenseRow,
}

impl Scratch {
    pub(super) fn new(ix: &CountFilter) -> Scratch {
        let dim = ix.cl.of.len();
        Scratch {
            order: Vec::new(),
            cand: Vec::new(),
            found: Vec::new(),
            best: Vec::new(),
            row: DenseRow { cnt: vec![0; dim], val: vec![0.0; dim], overlap: vec![0; ix.cl.len.len()] },
        }
    }
}

/// The pairs of A rows `rows` passing every test, each row's best `per_row` by
/// (score, distance, b), in A-row order; and the number of candidates verified.
/// Only the pairs that can rank among a row's best get their exact distance:
/// those scoring at most the `per_row`-th best score (every other pair has
/// `per_row` pairs of strictly lower score before it).
///
/// With `th_b` (B's thresholds), the same pass also gives the way back: the
/// same pairs seen from B within B's thresholds, every one (B row as
/// `pair.a`, with its exact distance; [`super::best_per_row`] keeps each B
/// row's best once every A row is done). The count filter is symmetric: at
/// one `ed`, the B rows it lets through for an A row are exactly the B rows
/// whose own probe of an index over A would meet that A row, and every test
/// is symmetric in the two rows ([`CountFilter::count_tests`]). So the index
/// over one side serves both.
/// Never inlined: in wasm, V8 optimizes it between the chunks' calls.
#[inline(never)]
pub(super) fn match_rows(
    ix: &CountFilter,
    th: &[f64],
    th_b: Option<&[f64]>,
    rows: std::ops::Range<usize>,
    per_row: usize,
    s: &mut Scratch,
) -> (Vec<Scored>, Vec<Scored>, u64) {
    let (mut out, mut back) = (Vec::new(), Vec::new());
    let mut candidates = 0u64;
    for i in rows {
        ix.candidates(i, &mut s.order, &mut s.cand);
        candidates += s.cand.len() as u64;
        s.found.clear();
        ix.load(i, &mut s.row);
        for &j in &s.cand {
            let Some(t) = ix.count_tests(i, j as usize, &mut s.row) else { continue };
            if ix.within(&t, i, j as usize, th[i]) {
                s.found.push(Found { b: j, score: t.score(), edits: t.edits });
            }
            if th_b.is_some_and(|th_b| ix.within(&t, i, j as usize, th_b[j as usize])) {
                let pair = Pair { a: j, b: i as u32, distance: ix.distance(i, j as usize) };
                back.push(Scored { pair, score: t.score(), edits: t.edits });
            }
        }
        ix.unload(i, &mut s.row);
        keep_best(ix, i, per_row, s, &mut out);
    }
    (out, back, candidates)
}

/// Appends to `out` A row `i`'s best `per_row` of `s.found`, by (score,
/// distance, b): the exact distance computed only for those scoring at most
/// the `per_row`-th best score.
fn keep_best(ix: &CountFilter, i: usize, per_row: usize, s: &mut Scratch, out: &mut Vec<Scored>) {
    let mut keep = s.found.len();
    if keep > per_row {
        crate::sorting::partition_at(&mut s.found, per_row - 1, |x, y| x.score.total_cmp(&y.score).then(x.b.cmp(&y.b)));
        let cut = s.found[per_row - 1].score;
        keep = per_row;
        for t in per_row..s.found.len() {
            if s.found[t].score <= cut {
                s.found.swap(keep, t);
                keep += 1;
            }
        }
    }
    s.best.clear();
    s.best.extend(s.found[..keep].iter().map(|f| Scored {
        pair: Pair { a: i as u32, b: f.b, distance: ix.distance(i, f.b as usize) },
        score: f.score,
        edits: f.edits,
    }));
    crate::sorting::sort_by(&mut s.best, ranked);
    out.extend_from_slice(&s.best[..keep.min(per_row)]);
}

/// The order of a row's pairs: score, then distance, then the other row.
pub(super) fn ranked(x: &Scored, y: &Scored) -> std::cmp::Ordering {
    x.score.total_cmp(&y.score).then(x.pair.distance.total_cmp(&y.pair.distance)).then(x.pair.b.cmp(&y.pair.b))
}
