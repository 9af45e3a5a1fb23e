//! The multi-party record matcher in shards ([`gramlink::multi::records`])
//! for the Spark job (gramlink/spark_parties.py, with a schema):
//! `parties_record_check` (the driver's checks, before any work),
//! `parties_record_shard` (a task: a shard of one party's records against
//! another's whole batch) and `parties_record_solve` (the last task: every
//! pair's decision and edges, then the clusters). Columns cross as
//! little-endian bytes, as in `record_shard.rs`.

use crate::errors::{invalid, io, OrPy};
use crate::record_shard::{shard, u32s, RecordBatchFile, ShardColumns};
use crate::records::schema_arg;
use crate::shard::le;
use gramlink::multi::records::{orient, pair_edges};
use gramlink::multi::{check_merge_threshold, check_parties, cluster, MERGE_THRESHOLD};
use gramlink::protocol::Party;
use gramlink::record::linker::RuleCount;
use gramlink::record::shard::{pair_levels, rows, ShardLevels};
use gramlink::record::{RecordBatch, RecordMatcher};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

fn read(path: &std::path::Path) -> PyResult<RecordBatch> {
    let bytes = std::fs::read(path).map_err(|e| io(path, e))?;
    RecordBatch::read(&bytes).map_err(gramlink::Error::from).py()
}

/// Checks the record batches in `paths` under `schema` as `match_parties`
/// checks them (named by their paths; the same codes), every pair on its
/// first records (each task validates its own), and the merge threshold.
/// Returns each batch's party and records, and the pairs of batches to link
/// (indexes; a shard is of the first's records: [`orient`]).
#[pyfunction]
#[pyo3(signature = (schema, paths, merge_threshold=None))]
#[allow(clippy::type_complexity)]
pub fn parties_record_check(
    py: Python<'_>,
    schema: &Bound<'_, PyAny>,
    paths: Vec<PathBuf>,
    merge_threshold: Option<f64>,
) -> PyResult<(Vec<(&'static str, usize)>, Vec<(usize, usize)>)> {
    let schema = schema_arg(schema)?;
    let what: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let mut batches = Vec::with_capacity(paths.len());
    for p in &paths {
        batches.push(read(p)?);
    }
    let ways = py
        .detach(|| {
            let parties: Vec<(Party, &[String])> = batches.iter().map(|b| (b.party, b.ids.as_slice())).collect();
            let same = |i: usize, j: usize| batches[i].ids == batches[j].ids && batches[i].fields == batches[j].fields;
            check_parties(&parties, same, &what)?;
            let party: Vec<Party> = batches.iter().map(|b| b.party).collect();
            let mut ways = Vec::new();
            for i in 0..batches.len() {
                for j in i + 1..batches.len() {
                    let (i, j) = orient(&party, i, j);
                    RecordMatcher::pair(schema.clone(), rows(&batches[i], 0..1), rows(&batches[j], 0..1))?;
                    ways.push((i, j));
                }
            }
            check_merge_threshold(merge_threshold.unwrap_or(MERGE_THRESHOLD))?;
            Ok::<_, gramlink::Error>(ways)
        })
        .py()?;
    Ok((batches.iter().map(|b| (b.party.name(), b.ids.len())).collect(), ways))
}

/// One task's work: `a`'s records `start..end` against the whole of `b`
/// ([`pair_levels`]), as `record_shard` returns them.
#[pyfunction]
pub fn parties_record_shard<'py>(
    py: Python<'py>,
    schema: &Bound<'py, PyAny>,
    a: &RecordBatchFile,
    b: &RecordBatchFile,
    start: usize,
    end: usize,
) -> PyResult<ShardColumns<'py>> {
    shard(py, schema, &a.batch, &b.batch, start..end, pair_levels)
}

/// The last task: every task's columns (as `parties_record_shard` gives
/// them, concatenated in any order; `way[k]` is `i * n + j` for candidate
/// `k` of batch `i`'s records against batch `j`'s, `sample_way` the same for
/// the sample's patterns, `rules` `(way, rule, pairs, fields)`), each pair's edges
/// ([`pair_edges`]) and the clusters. Returns every record's cluster (u32
/// bytes), the candidate pairs the solver read, the clusters and the pairs
/// compared.
#[pyfunction]
#[pyo3(signature = (schema, paths, way, a_rows, b_rows, levels, swapped, sample_way, sample, rules, merge_threshold=None))]
#[allow(clippy::too_many_arguments)]
pub fn parties_record_solve<'py>(
    py: Python<'py>,
    schema: &Bound<'py, PyAny>,
    paths: Vec<PathBuf>,
    way: &[u8],
    a_rows: &[u8],
    b_rows: &[u8],
    levels: &[u8],
    swapped: &[u8],
    sample_way: &[u8],
    sample: &[u8],
    rules: Vec<(u32, String, u64, Vec<String>)>,
    merge_threshold: Option<f64>,
) -> PyResult<(Bound<'py, PyBytes>, u64, u32, u64)> {
    let schema = schema_arg(schema)?;
    let threshold = merge_threshold.unwrap_or(MERGE_THRESHOLD);
    check_merge_threshold(threshold).py()?;
    let mut heads = Vec::with_capacity(paths.len());
    for p in &paths {
        let b = read(p)?;
        heads.push((b.party, b.ids.len()));
    }
    let n = heads.len();
    let nf = schema.sent().count().max(1);
    let (w, ra, rb, sw) =
        (u32s(way, "way")?, u32s(a_rows, "a_rows")?, u32s(b_rows, "b_rows")?, u32s(sample_way, "sample_way")?);
    let m = w.len();
    if ra.len() != m || rb.len() != m || levels.len() != m * nf || swapped.len() != m || sample.len() != sw.len() * nf {
        return Err(invalid("the shards' columns have different lengths"));
    }
    let ok = |k: u32| (k as usize) < n * n && (k as usize) / n != (k as usize) % n;
    if w.iter().chain(&sw).chain(rules.iter().map(|r| &r.0)).any(|&k| !ok(k)) {
        return Err(invalid(format!("a column names no pair of two of the {n} batches")));
    }
    let mut ways: Vec<ShardLevels> = vec![ShardLevels::default(); n * n];
    for k in 0..m {
        let s = &mut ways[w[k] as usize];
        s.candidates.push((ra[k], rb[k]));
        s.levels.push((levels[k * nf..(k + 1) * nf].to_vec(), swapped[k] != 0));
    }
    for (k, &x) in sw.iter().enumerate() {
        ways[x as usize].sample.push(sample[k * nf..(k + 1) * nf].to_vec());
    }
    for (x, rule, pairs, fields) in rules {
        ways[x as usize].rules.push(RuleCount { rule, pairs, fields });
    }
    let mut offsets = Vec::with_capacity(n);
    let mut total = 0u64;
    for (_, rows) in &heads {
        offsets.push(total as u32);
        total += *rows as u64;
    }
    let party: Vec<Party> = heads.iter().map(|h| h.0).collect();
    let index: Vec<u8> = heads.iter().flat_map(|(p, rows)| std::iter::repeat_n(p.index() as u8, *rows)).collect();
    let clusters = py
        .detach(|| {
            let mut edges = Vec::new();
            let mut compared = 0;
            for i in 0..n {
                for j in i + 1..n {
                    let (x, y) = orient(&party, i, j);
                    let shards = vec![std::mem::take(&mut ways[x * n + y])];
                    let (e, c) = pair_edges(&schema, (heads[x].1, heads[y].1), (offsets[x], offsets[y]), shards)?;
                    edges.extend(e);
                    compared += c;
                }
            }
            Ok::<_, gramlink::Error>(cluster(&index, edges, compared, threshold))
        })
        .py()?;
    let bytes = le(clusters.cluster.iter().copied(), u32::to_le_bytes);
    Ok((PyBytes::new(py, &bytes), clusters.candidates, clusters.count, clusters.compared))
}
