//! The graph-matching attack ([`super::graph`]) on a record batch, field by
//! field: every embedded text field (a `string` or `name` field, one part)
//! whose rows are sparse, with C's list the field's own values and their
//! exact frequencies (the worst case: a public list that covers the data).

use super::graph::{graph_attack_rows, GraphReport};
use crate::embed::BatchVectors;
use crate::error::Error;
use crate::record::batch::FieldData;
use crate::record::values::RecordTable;
use crate::record::{Kind, RecordBatch, Schema, SharedBases};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One field's graph-matching result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldGraph {
    pub field: String,
    /// Records with the field present.
    pub records: usize,
    pub report: GraphReport,
}

/// The attack on each embedded text field of `batch` (rows in `truth`'s
/// order: the batch made with its rows kept).
pub fn graph_fields(
    batch: &RecordBatch,
    schema: &Schema,
    shared: &SharedBases,
    truth: &RecordTable,
    seed: u64,
) -> Result<Vec<FieldGraph>, Error> {
    let mut out = Vec::new();
    for (name, data) in &batch.fields {
        let text = schema.field(name).and_then(|f| f.kind()).is_some_and(|k| matches!(k, Kind::String | Kind::Name));
        let FieldData::Embedded { base, parts, shape: Some(shape) } = data else { continue };
        let [part] = parts.as_slice() else { continue };
        if !text || !matches!(part.vectors, BatchVectors::Sparse(_)) {
            continue;
        }
        let base = shared.by_fingerprint(base)?;
        let column = truth.column(name);
        let values: Vec<String> =
            part.rows.iter().map(|&r| column.get(r as usize).cloned().flatten().unwrap_or_default()).collect();
        let mut counts: BTreeMap<&str, f64> = BTreeMap::new();
        for v in &values {
            *counts.entry(v.as_str()).or_default() += 1.0;
        }
        let prior: Vec<(String, f64)> = counts.into_iter().map(|(v, n)| (v.to_string(), n)).collect();
        let report = graph_attack_rows(&part.vectors, shape, base, &prior, &values, &vec![1; values.len()], seed)?;
        out.push(FieldGraph { field: name.clone(), records: values.len(), report });
    }
    Ok(out)
}
