//! `match_parties`: the matcher of more than two parties ([`gramlink::multi`]):
//! one-string vector batches, or record batches with a schema
//! ([`gramlink::multi::records`]), clustered with at most one record per party.

use crate::convert::message;
use crate::errors::OrPy;
use crate::records::schema_arg;
use gramlink::multi::{self, export, Parties, MERGE_THRESHOLD};
use gramlink::protocol::{Party, VectorBatch};
use gramlink::record::RecordBatch;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Clusters the records of every party's batch (a list of two or more, each
/// bytes or JSON text; vector batches, or record batches with `schema`):
/// every pair of parties linked, then anonlink's greedy solver with
/// `merge_threshold` (0.5 by default), as `gramlink match a b c …`. Returns a
/// dict of equal lists `party`, `id`, `cluster` (one entry per record, batch
/// after batch) and the counts `clusters`, `compared`, `candidates`. Bad
/// linkages raise `GramlinkError` with the CLI's codes (`PARTY_TWICE`,
/// `BATCH_TWICE`, `NO_RECORDS`, `ID_CLASH`, `FINGERPRINT_MISMATCH`, …).
#[pyfunction]
#[pyo3(signature = (batches, *, schema=None, merge_threshold=None))]
pub fn match_parties<'py>(
    py: Python<'py>,
    batches: Vec<Bound<'py, PyAny>>,
    schema: Option<&Bound<'py, PyAny>>,
    merge_threshold: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let threshold = merge_threshold.unwrap_or(MERGE_THRESHOLD);
    let names: Vec<String> = (0..batches.len()).map(|i| format!("batches[{i}]")).collect();
    let mut bytes = Vec::with_capacity(batches.len());
    for (b, name) in batches.iter().zip(&names) {
        bytes.push(message(b, name)?);
    }
    let (roster, clusters) = match schema.filter(|s| !s.is_none()) {
        Some(s) => {
            let schema = schema_arg(s)?;
            let mut read = Vec::with_capacity(bytes.len());
            for b in &bytes {
                read.push(RecordBatch::read(b).py()?);
            }
            let c = py.detach(|| multi::records::link(&schema, &read, &names, threshold)).py()?;
            (read.into_iter().map(|b| (b.party, b.ids)).collect::<Vec<_>>(), c)
        }
        None => {
            let mut read = Vec::with_capacity(bytes.len());
            for b in &bytes {
                read.push(VectorBatch::read(b).map_err(gramlink::Error::from).py()?);
            }
            let c = py.detach(|| Parties::new(&read, &names).and_then(|p| multi::link(&p, threshold))).py()?;
            (read.into_iter().map(|b| (b.party, b.ids)).collect::<Vec<_>>(), c)
        }
    };
    let roster: Vec<(Party, &[String])> = roster.iter().map(|(p, ids)| (*p, ids.as_slice())).collect();
    let rows = export::rows(&roster);
    let d = PyDict::new(py);
    d.set_item("party", rows.iter().map(|r| r.0.name()).collect::<Vec<_>>())?;
    d.set_item("id", rows.iter().map(|r| r.1).collect::<Vec<_>>())?;
    d.set_item("cluster", clusters.cluster.clone())?;
    d.set_item("warnings", clusters.warnings.clone())?;
    d.set_item("clusters", clusters.count)?;
    d.set_item("compared", clusters.compared)?;
    d.set_item("candidates", clusters.candidates)?;
    Ok(d)
}
