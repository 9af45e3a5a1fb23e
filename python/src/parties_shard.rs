//! The multi-party matcher in shards ([`gramlink::multi::edges`]) for the
//! Spark job (gramlink/spark_parties.py): `parties_check` (the driver's
//! checks of every batch file, before any work), `parties_both_ways` (a
//! task: a shard of one party's rows against another party's whole batch,
//! both ways),
//! `parties_pair` (a task: one pair of parties' edges) and `parties_cluster`
//! (a task: the clusters of some whole connected components).
//! Columns cross as little-endian bytes, as in `shard.rs`.

use crate::errors::{invalid, OrPy};
use crate::record_shard::u32s;
use crate::shard::{le, numbers, scored_columns, Batch, BatchFile, ScoredColumns};
use gramlink::matching::{Pair, Scored};
use gramlink::multi::edges::{both_ways, pair_edges, Way};
use gramlink::multi::greedy::{self, Edge};
use gramlink::multi::{check_batches, check_merge_threshold, MERGE_THRESHOLD};
use gramlink::protocol::{Party, VectorBatch};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

/// Each file's header (no rows) and its rows in all.
fn heads(paths: &[PathBuf]) -> PyResult<Vec<(VectorBatch, usize)>> {
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        let mut file = BatchFile::open(p)?;
        let head = file.read(Some(0..0)).py()?;
        out.push((head, file.rows()?));
    }
    Ok(out)
}

/// Checks the vector batches in `paths` as `match_parties` checks them
/// (named by their paths; the same codes: `BATCH_TWICE`, `PARTY_TWICE`,
/// `NO_RECORDS`, `ID_CLASH`, `FINGERPRINT_MISMATCH`, …) and the merge
/// threshold. Reads one batch at a time and keeps its header and ids only
/// (two batches of the same ids are read again to compare their vectors).
/// Returns each batch's party and rows.
#[pyfunction]
#[pyo3(signature = (paths, merge_threshold=None))]
pub fn parties_check(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    merge_threshold: Option<f64>,
) -> PyResult<Vec<(&'static str, usize)>> {
    let what: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let mut heads = Vec::with_capacity(paths.len());
    let mut ids = Vec::with_capacity(paths.len());
    for p in &paths {
        let batch = py.detach(|| BatchFile::open(p)?.read(None).py())?;
        heads.push(batch.rows(0..0));
        ids.push(batch.ids);
    }
    let parties: Vec<(Party, &[String])> = heads.iter().zip(&ids).map(|(h, i)| (h.party, i.as_slice())).collect();
    let read = |i: usize| BatchFile::open(&paths[i]).ok().and_then(|mut f| f.read(None).ok());
    let same = |i: usize, j: usize| {
        ids[i] == ids[j] && matches!((read(i), read(j)), (Some(x), Some(y)) if x.vectors == y.vectors)
    };
    let refs: Vec<&VectorBatch> = heads.iter().collect();
    check_batches(&refs, &parties, same, &what).py()?;
    check_merge_threshold(merge_threshold.unwrap_or(MERGE_THRESHOLD)).py()?;
    Ok(heads.iter().zip(&ids).map(|(h, i)| (h.party.name(), i.len())).collect())
}

/// One task's work: both ways of a pair for `a`'s rows (rows `offset..` of
/// its party's batch) against the whole of `b` ([`both_ways`]), as two
/// column sets: `a`'s rows' candidates (rows of a in the whole batch, rows of
/// b: u32; distances and scores: f64; edits: u32) with the pairs compared,
/// and `b`'s rows' candidates among these rows (rows of b, rows of a in the
/// whole batch, …) with 0.
#[pyfunction]
pub fn parties_both_ways<'py>(
    py: Python<'py>,
    a: &Batch,
    b: &Batch,
    offset: u32,
) -> PyResult<(ScoredColumns<'py>, ScoredColumns<'py>)> {
    let (forth, back, compared) = py.detach(|| both_ways(&a.batch, &b.batch, offset)).py()?;
    Ok((scored_columns(py, &forth, compared), scored_columns(py, &back, 0)))
}

/// One pair of parties' task: both ways' candidates (columns as
/// `parties_both_ways` gives them, concatenated in any order; `way[k]` is 0 for
/// candidate `k` of `paths[0]`'s rows against `paths[1]`, 1 for the way
/// back), the batches' records starting at `offsets` in the global
/// numbering. Returns the pair's edges ([`pair_edges`], as `multi::link`
/// makes them): global records x (of `paths[0]`) and y (u32 bytes) and
/// scores (f64 bytes).
#[pyfunction]
#[pyo3(signature = (paths, offsets, way, a_rows, b_rows, distances, scores, edits))]
#[allow(clippy::too_many_arguments)]
pub fn parties_pair<'py>(
    py: Python<'py>,
    paths: (PathBuf, PathBuf),
    offsets: (u32, u32),
    way: &[u8],
    a_rows: &[u8],
    b_rows: &[u8],
    distances: &[u8],
    scores: &[u8],
    edits: &[u8],
) -> PyResult<Edges<'py>> {
    let heads = heads(&[paths.0, paths.1])?;
    let w = numbers(way, "way", u32::from_le_bytes)?;
    let ra = numbers(a_rows, "a_rows", u32::from_le_bytes)?;
    let rb = numbers(b_rows, "b_rows", u32::from_le_bytes)?;
    let d = numbers(distances, "distances", f64::from_le_bytes)?;
    let s = numbers(scores, "scores", f64::from_le_bytes)?;
    let e = numbers(edits, "edits", u32::from_le_bytes)?;
    if [ra.len(), rb.len(), d.len(), s.len(), e.len()].iter().any(|&l| l != w.len()) {
        return Err(invalid("the candidate columns have different lengths"));
    }
    let mut ways: [Vec<Scored>; 2] = [Vec::new(), Vec::new()];
    for k in 0..w.len() {
        let (x, y) = match w[k] {
            0 => (0, 1),
            1 => (1, 0),
            _ => return Err(invalid(format!("candidate {k}: way {} is neither 0 nor 1", w[k]))),
        };
        if ra[k] as usize >= heads[x].1 || rb[k] as usize >= heads[y].1 {
            return Err(invalid(format!("candidate {k} names no pair of rows of the two batches")));
        }
        ways[x].push(Scored { pair: Pair { a: ra[k], b: rb[k], distance: d[k] }, score: s[k], edits: e[k] });
    }
    let [forth_candidates, back_candidates] = ways;
    let edges = py.detach(|| {
        let forth = Way { head: &heads[0].0, rows: heads[0].1, offset: offsets.0, candidates: forth_candidates };
        let back = Way { head: &heads[1].0, rows: heads[1].1, offset: offsets.1, candidates: back_candidates };
        pair_edges(forth, back)
    });
    Ok(edge_columns(py, &edges))
}

/// An edge list as columns: x and y (u32 bytes), scores (f64 bytes).
pub(crate) type Edges<'py> = (Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>);

pub(crate) fn edge_columns<'py>(py: Python<'py>, edges: &[Edge]) -> Edges<'py> {
    let x = le(edges.iter().map(|e| e.x), u32::to_le_bytes);
    let y = le(edges.iter().map(|e| e.y), u32::to_le_bytes);
    let s = le(edges.iter().map(|e| e.score), f64::to_le_bytes);
    (PyBytes::new(py, &x), PyBytes::new(py, &y), PyBytes::new(py, &s))
}

/// A task of the cluster stage: edges (global records `x`, `y`, u32 bytes,
/// and `scores`, f64 bytes) that hold whole connected components of the
/// candidate graph (any number), every batch's party (`parties`, by name)
/// and where its records start (`offsets`, ascending). The greedy solver
/// ([`greedy::solve`], `merge_threshold` as `match_parties`'s) on these
/// edges alone, their records numbered in global order, so each component's
/// clusters are the whole graph's (src/multi/greedy.rs says why). Returns the
/// records on an edge (ascending) and, for each, its cluster's first record
/// (global indexes, u32 bytes).
#[pyfunction]
#[pyo3(signature = (parties, offsets, x, y, scores, merge_threshold=None))]
pub fn parties_cluster<'py>(
    py: Python<'py>,
    parties: Vec<String>,
    offsets: Vec<u32>,
    x: &[u8],
    y: &[u8],
    scores: &[u8],
    merge_threshold: Option<f64>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let threshold = merge_threshold.unwrap_or(MERGE_THRESHOLD);
    check_merge_threshold(threshold).py()?;
    let mut index = Vec::with_capacity(parties.len());
    for p in &parties {
        index.push(p.parse::<Party>().map_err(|e| invalid(e.to_string()))?.index() as u8);
    }
    if offsets.len() != index.len() || offsets.windows(2).any(|w| w[0] > w[1]) || offsets.first() != Some(&0) {
        return Err(invalid("offsets: one per party, ascending from 0"));
    }
    let (x, y, s) = (u32s(x, "x")?, u32s(y, "y")?, numbers(scores, "scores", f64::from_le_bytes)?);
    if y.len() != x.len() || s.len() != x.len() {
        return Err(invalid("the edge columns have different lengths"));
    }
    let (records, first) = py.detach(|| {
        let mut records: Vec<u32> = x.iter().chain(&y).copied().collect();
        records.sort_unstable();
        records.dedup();
        let local = |r: u32| records.binary_search(&r).unwrap_or(0) as u32;
        let mut edges: Vec<Edge> = (0..x.len()).map(|k| Edge { x: local(x[k]), y: local(y[k]), score: s[k] }).collect();
        // a record's party: the last batch starting at or before it
        let party: Vec<u8> = records.iter().map(|&r| index[offsets.partition_point(|&o| o <= r) - 1]).collect();
        let cluster = greedy::solve(&party, &mut edges, threshold);
        // clusters are numbered in order of their first record
        let mut first = Vec::new();
        for (k, &c) in cluster.iter().enumerate() {
            if c as usize == first.len() {
                first.push(records[k]);
            }
        }
        let first: Vec<u32> = cluster.iter().map(|&c| first[c as usize]).collect();
        (records, first)
    });
    let (r, f) = (le(records.into_iter(), u32::to_le_bytes), le(first.into_iter(), u32::to_le_bytes));
    Ok((PyBytes::new(py, &r), PyBytes::new(py, &f)))
}
