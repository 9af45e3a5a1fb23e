//! The scored edges of a pair of parties, in two steps a cluster can split:
//! [`one_way`] scores some rows of one party against the whole batch of the
//! other (a Spark task's work, python/gramlink/spark_parties.py: a shard of
//! rows), and [`pair_edges`] turns both ways' candidates, each the union of
//! its shards, into the solver's edges (one task). [`super::link`] calls both
//! on whole batches, so the cluster job and the single machine make the same
//! edges, hence the same clusters.
//!
//! **Why a shard's rows give the whole batch's candidates.** A row's
//! candidates and scores depend on that row and on the whole other batch
//! only (the q-gram filter's index is built from the other batch, each row
//! keeps its own best [`crate::matching::PER_ROW`], a keyed row's widened
//! threshold uses its own norm: src/shard.rs says why). `ed auto`'s cut-off
//! compares a candidate with the others of its rows, so [`pair_edges`] fits
//! it on each way's union, with the single machine's function
//! ([`crate::cutoff::fit`]), before it keeps the best score of each pair.

use super::greedy::Edge;
use crate::embed::BatchVectors;
use crate::error::Error;
use crate::matcher::{cutoff_bound, pair_thresholds};
use crate::matching::{self, rank_by_cosine, Candidates, Rule, Scored};
use crate::protocol::VectorBatch;
use std::collections::HashMap;

/// The candidates of `a`'s rows (rows `offset..` of its party's batch, as
/// [`VectorBatch::rows`] or [`crate::protocol::read_binary_rows`] cut them)
/// against the whole of `b`, within `a`'s thresholds, each with its score
/// (the cosine distance; keyed under `ed auto`, the distance the cut-off
/// reads) and `a` rows numbered from `offset`; and the pairs compared. With
/// `ed auto` these are the candidates within the generous bound: the cut-off
/// is [`pair_edges`]'s, on every row's.
pub fn one_way(a: &VectorBatch, b: &VectorBatch, offset: u32) -> Result<(Vec<Scored>, u64), Error> {
    if (offset as u64) + a.ids.len() as u64 > u32::MAX as u64 {
        return Err(Error::Parameter(format!("rows from {offset}: more than 2^32 rows")));
    }
    let (thresholds, ed) = pair_thresholds(a, b)?;
    // as crate::matcher::fitted_candidates generates them, before its cut-off
    let shape = a.shape.as_ref().filter(|s| b.shape.as_ref() == Some(*s));
    let (c, stats) = matching::candidates(&a.vectors, &b.vectors, &thresholds, Rule::Ranked, ed, shape)?;
    let mut scored = match c {
        Candidates::Scored(s) => s,
        Candidates::Within(p) if cutoff_bound(a, b, Rule::Ranked).is_some() => {
            crate::cutoff::scored_by_distance(&a.vectors, &b.vectors, &p, &thresholds)
        }
        Candidates::Within(p) => rank_by_cosine(&a.vectors, &b.vectors, &p),
    };
    for s in &mut scored {
        s.pair.a += offset;
    }
    Ok((scored, stats.candidates))
}

/// Both ways of a pair for a shard of `a`'s rows (rows `offset..` of its
/// party's batch, as [`one_way`] takes them) against the whole of `b`:
/// [`one_way`]`(a, b, offset)`, and `b`'s rows' candidates among the shard's
/// rows (`b`'s rows as `pair.a`, the shard's numbered from `offset` as
/// `pair.b`), each `b` row's best [`crate::matching::PER_ROW`] of them where
/// the q-gram filter ranks; [`pair_edges`] keeps each row's best of the
/// union over the shards, which is the whole batch's best. And the pairs
/// compared. Where the filter runs and both parties ask for one `ed`, one
/// index over `b` probed by the shard's rows gives both ways
/// ([`crate::matching::scored_both_ways_rows`]: the count filter is
/// symmetric, so half the work of two passes); else each way has its pass.
#[allow(clippy::type_complexity)]
pub fn both_ways(a: &VectorBatch, b: &VectorBatch, offset: u32) -> Result<(Vec<Scored>, Vec<Scored>, u64), Error> {
    if (offset as u64) + a.ids.len() as u64 > u32::MAX as u64 {
        return Err(Error::Parameter(format!("rows from {offset}: more than 2^32 rows")));
    }
    let (th_a, ed_a) = pair_thresholds(a, b)?;
    let (th_b, ed_b) = pair_thresholds(b, a)?;
    let Some(shape) = filtered(a, b).filter(|_| ed_a == ed_b) else {
        let (forth, c1) = one_way(a, b, offset)?;
        let (mut back, c2) = one_way(b, a, 0)?;
        for s in &mut back {
            s.pair.b += offset;
        }
        return Ok((forth, back, c1 + c2));
    };
    if let (BatchVectors::Dense(x), BatchVectors::Dense(y)) = (&a.vectors, &b.vectors) {
        // what matching::candidates checks of dense vectors, each way
        matching::validate(x, y, &th_a)?;
        matching::validate(y, x, &th_b)?;
    }
    let (source_a, source_b) = (a.vectors.source(), b.vectors.source());
    let (mut forth, mut back, stats) =
        matching::scored_both_ways_rows(source_a, source_b, &th_a, &th_b, ed_a, shape, matching::PER_ROW)?;
    forth.iter_mut().for_each(|s| s.pair.a += offset);
    back.iter_mut().for_each(|s| s.pair.b += offset);
    Ok((forth, back, stats.candidates))
}

/// The shape the q-gram filter runs on for `a` against `b` (their shared
/// shape, with a complete class), as [`matching::candidates`] decides: then
/// the ranked rule keeps each row's best [`matching::PER_ROW`].
fn filtered<'b>(a: &'b VectorBatch, b: &VectorBatch) -> Option<&'b crate::shape::Shape> {
    a.shape.as_ref().filter(|s| b.shape.as_ref() == Some(*s) && s.filter_length().is_some())
}

/// One way of a pair: its batch's header (rows not needed), how many rows the
/// whole batch has, where they start in the global numbering, and the union
/// of its shards' [`one_way`] candidates (any order).
pub struct Way<'a> {
    pub head: &'a VectorBatch,
    pub rows: usize,
    pub offset: u32,
    pub candidates: Vec<Scored>,
}

/// The solver's edges of a pair of parties from both ways' candidates (`i`'s
/// rows against `j`'s batch, and back): with `ed auto` each way's cut-off
/// fitted on all its candidates ([`crate::cutoff::fit`], as
/// [`crate::matcher::fitted_candidates`] fits it), then each record pair's
/// best score of the two ways, by global index.
pub fn pair_edges(mut i: Way<'_>, mut j: Way<'_>) -> Vec<Edge> {
    // a row's candidates may come from several shards (the way back of
    // `both_ways`): its best of their union, as one pass keeps them
    let capped = |a: &mut Way<'_>, b: &Way<'_>| {
        let all = std::mem::take(&mut a.candidates);
        match filtered(a.head, b.head) {
            Some(_) => matching::best_per_row(all, matching::PER_ROW),
            None => all,
        }
    };
    let (ci, cj) = (capped(&mut i, &j), capped(&mut j, &i));
    let mut best: HashMap<(u32, u32), f64> = HashMap::new();
    for (a, b, candidates, swap) in [(&i, &j, &ci, false), (&j, &i, &cj, true)] {
        let fitted;
        let kept = match cutoff_bound(a.head, b.head, Rule::Ranked) {
            Some(plan) => {
                fitted = crate::cutoff::fit(candidates, plan, a.rows, b.rows).0;
                &fitted
            }
            None => candidates,
        };
        for s in kept {
            let (ri, rj) = if swap { (s.pair.b, s.pair.a) } else { (s.pair.a, s.pair.b) };
            let e = best.entry((ri, rj)).or_insert(f64::INFINITY);
            *e = e.min(s.score);
        }
    }
    best.into_iter().map(|((ri, rj), score)| Edge { x: i.offset + ri, y: j.offset + rj, score }).collect()
}
