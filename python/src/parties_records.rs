//! The multi-party record matcher in shards ([`gramlink::multi::records`])
//! for the Spark job (gramlink/spark_parties.py, with a schema):
//! `parties_record_check` (the driver's checks, before any work),
//! `parties_record_shard` (a task: a shard of one party's records against
//! another's whole batch) and `parties_record_pair` (a task: one pair's
//! decision on its shards' union and its edges; `parties_cluster` clusters
//! them). Columns cross as
//! little-endian bytes, as in `record_shard.rs`.

use crate::errors::OrPy;
use crate::parties_shard::edge_columns;
use crate::record_shard::{on_shard_columns, read_batch, shard_function};
use crate::records::schema_arg;
use gramlink::multi::records::{orient, pair_edges};
use gramlink::multi::{check_merge_threshold, check_parties, MERGE_THRESHOLD};
use gramlink::protocol::Party;
use gramlink::record::shard::rows;
use gramlink::record::RecordMatcher;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

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
        batches.push(read_batch(p)?);
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

shard_function!(
    /// One task's work: `a`'s records `start..end` against the whole of `b`
    /// (the matcher of any two parties, [`RecordMatcher::pair`]), as
    /// `record_shard` returns them.
    parties_record_shard,
    RecordMatcher::pair
);

/// A pair's edges as columns (x, y, scores: `edge_columns`), the pairs compared
/// and what its fit said.
type RecordEdges<'py> = (Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, u64, Vec<String>);

on_shard_columns! {
    /// One pair of parties' task, linked as [`orient`] orders them: every
    /// shard's columns (as `parties_record_shard` gives them, concatenated in
    /// any order), `rows` both batches' sizes and `offsets` where their
    /// records start in the global numbering. Returns the pair's edges
    /// ([`pair_edges`], as `multi::records::link` makes them: x and y u32
    /// bytes, scores f64 bytes), the candidate pairs compared and the fit's
    /// warnings.
    fn parties_record_pair<'py>(py, rows: (usize, usize), offsets: (u32, u32)) -> RecordEdges<'py>,
    |schema, shard| {
        let pair = py.detach(|| pair_edges(&schema, rows, offsets, vec![shard])).py()?;
        let (x, y, s) = edge_columns(py, &pair.edges);
        Ok((x, y, s, pair.compared, pair.warnings))
    }
}
