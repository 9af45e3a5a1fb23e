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
/// Never inlined: in wasm, V8 optimizes it between the chunks' calls.
#[inline(never)]
pub(super) fn match_rows(
    ix: &CountFilter,
    th: &[f64],
    rows: std::ops::Range<usize>,
    per_row: usize,
    s: &mut Scratch,
) -> (Vec<Scored>, u64) {
    let mut out = Vec::new();
    let mut candidates = 0u64;
    for i in rows {
        ix.candidates(i, &mut s.order, &mut s.cand);
        candidates += s.cand.len() as u64;
        s.found.clear();
        ix.load(i, &mut s.row);
        for &j in &s.cand {
            if let Some((score, edits)) = ix.verify(i, j as usize, th[i], &mut s.row) {
                s.found.push(Found { b: j, score, edits });
            }
        }
        ix.unload(i, &mut s.row);
        let mut keep = s.found.len();
        if keep > per_row {
            crate::sorting::partition_at(&mut s.found, per_row - 1, |x, y| {
                x.score.total_cmp(&y.score).then(x.b.cmp(&y.b))
            });
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
        crate::sorting::sort_by(&mut s.best, |x, y| {
            x.score.total_cmp(&y.score).then(x.pair.distance.total_cmp(&y.pair.distance)).then(x.pair.b.cmp(&y.pair.b))
        });
        out.extend_from_slice(&s.best[..keep.min(per_row)]);
    }
    (out, candidates)
}
