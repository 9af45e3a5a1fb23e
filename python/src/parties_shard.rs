//! The multi-party matcher in shards ([`gramlink::multi::edges`]) for the
//! Spark job (gramlink/spark_parties.py): `parties_check` (the driver's
//! checks of every batch file, before any work), `parties_one_way` (a task:
//! a shard of one party's rows against another party's whole batch) and
//! `parties_solve` (the last task: every pair's edges, then the clusters).
//! Columns cross as little-endian bytes, as in `shard.rs`.

use crate::errors::{invalid, OrPy};
use crate::shard::{le, numbers, scored_columns, Batch, BatchFile, ScoredColumns};
use gramlink::matching::{Pair, Scored};
use gramlink::multi::edges::{one_way, pair_edges, Way};
use gramlink::multi::{check_batches, check_merge_threshold, cluster, MERGE_THRESHOLD};
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

/// One task's work: the candidates of `a`'s rows (rows `offset..` of its
/// party's batch) against the whole of `b` ([`one_way`]), as columns: rows of
/// a (in the whole batch) and of b (u32), distances and scores (f64), edits
/// (u32); and the pairs compared.
#[pyfunction]
pub fn parties_one_way<'py>(py: Python<'py>, a: &Batch, b: &Batch, offset: u32) -> PyResult<ScoredColumns<'py>> {
    let (scored, compared) = py.detach(|| one_way(&a.batch, &b.batch, offset)).py()?;
    Ok(scored_columns(py, &scored, compared))
}

/// The last task: every task's candidates (columns as `parties_one_way`
/// gives them, concatenated in any order; `way[k]` is `i * n + j` for
/// candidate `k` of batch `i`'s rows against batch `j`, `n` the number of
/// batches in `paths`), each pair's edges ([`pair_edges`]) and the clusters
/// (`merge_threshold` as `match_parties`'s). Returns every record's cluster
/// (u32 bytes, batch after batch, row after row), the candidate pairs the
/// solver read and the number of clusters.
#[pyfunction]
#[pyo3(signature = (paths, way, a_rows, b_rows, distances, scores, edits, merge_threshold=None))]
#[allow(clippy::too_many_arguments)]
pub fn parties_solve<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    way: &[u8],
    a_rows: &[u8],
    b_rows: &[u8],
    distances: &[u8],
    scores: &[u8],
    edits: &[u8],
    merge_threshold: Option<f64>,
) -> PyResult<(Bound<'py, PyBytes>, u64, u32)> {
    let threshold = merge_threshold.unwrap_or(MERGE_THRESHOLD);
    check_merge_threshold(threshold).py()?;
    let heads = heads(&paths)?;
    let n = heads.len();
    let w = numbers(way, "way", u32::from_le_bytes)?;
    let ra = numbers(a_rows, "a_rows", u32::from_le_bytes)?;
    let rb = numbers(b_rows, "b_rows", u32::from_le_bytes)?;
    let d = numbers(distances, "distances", f64::from_le_bytes)?;
    let s = numbers(scores, "scores", f64::from_le_bytes)?;
    let e = numbers(edits, "edits", u32::from_le_bytes)?;
    if [ra.len(), rb.len(), d.len(), s.len(), e.len()].iter().any(|&l| l != w.len()) {
        return Err(invalid("the candidate columns have different lengths"));
    }
    let mut ways: Vec<Vec<Scored>> = vec![Vec::new(); n * n];
    for k in 0..w.len() {
        let (i, j) = (w[k] as usize / n.max(1), w[k] as usize % n.max(1));
        if i >= n || i == j || ra[k] as usize >= heads[i].1 || rb[k] as usize >= heads[j].1 {
            return Err(invalid(format!("candidate {k} names no pair of rows of two of the {n} batches")));
        }
        ways[w[k] as usize].push(Scored {
            pair: Pair { a: ra[k], b: rb[k], distance: d[k] },
            score: s[k],
            edits: e[k],
        });
    }
    let mut offsets = Vec::with_capacity(n);
    let mut total = 0u64;
    for (_, rows) in &heads {
        offsets.push(total as u32);
        total += *rows as u64;
    }
    let party: Vec<u8> = heads.iter().flat_map(|(h, rows)| std::iter::repeat_n(h.party.index() as u8, *rows)).collect();
    let clusters = py.detach(|| {
        let mut edges = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                let way = |x: usize, y: usize, ways: &mut Vec<Vec<Scored>>| Way {
                    head: &heads[x].0,
                    rows: heads[x].1,
                    offset: offsets[x],
                    candidates: std::mem::take(&mut ways[x * n + y]),
                };
                let (wi, wj) = (way(i, j, &mut ways), way(j, i, &mut ways));
                edges.extend(pair_edges(wi, wj));
            }
        }
        cluster(&party, edges, 0, threshold)
    });
    let bytes = le(clusters.cluster.iter().copied(), u32::to_le_bytes);
    Ok((PyBytes::new(py, &bytes), clusters.candidates, clusters.count))
}
