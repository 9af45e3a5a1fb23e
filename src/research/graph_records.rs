//! The graph-matching attack ([`super::graph`]) and the pattern-mining
//! attack ([`super::labelling::pattern_attack`]) on a record batch, part by
//! part: every embedded part whose rows are sparse (text, numbers, dates, and
//! each of a split date's year, month and day), with C's list the field's own values and their
//! exact frequencies (the worst case: a public list that covers the data).

use super::graph::{graph_attack, GraphReport};
use super::labelling::{pattern_attack_rows, Coordinates, Known, LabellingReport};
use crate::embed::BatchVectors;
use crate::error::Error;
use crate::record::batch::FieldData;
use crate::record::values::RecordTable;
use crate::record::{RecordBatch, Schema, SharedBases};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One field's graph-matching result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldGraph {
    pub field: String,
    /// C's list: "the field's own values" (the data's exact values and
    /// frequencies: the worst case) or "the other party's values" (a public
    /// list of the same population, with its own frequencies).
    pub list: String,
    /// Records with the field present.
    pub records: usize,
    pub report: GraphReport,
    /// The pattern-mining attack on the same part, with the same list as its
    /// dictionary (every record decoded).
    #[serde(default)]
    pub patterns: LabellingReport,
}

/// The attack on each embedded part of `batch` (rows in `truth`'s order: the
/// batch made with its rows kept): text fields, numbers, dates, a split date's
/// year, month and day each on its own (small domains are what C would try).
/// C's list is `public`'s values of the field, or with `None` `truth`'s own.
pub fn graph_fields(
    batch: &RecordBatch,
    schema: &Schema,
    shared: &SharedBases,
    truth: &RecordTable,
    public: Option<&RecordTable>,
    seed: u64,
) -> Result<Vec<FieldGraph>, Error> {
    // the grams a coordinate counts: public in the batch's encoding label
    let spread = match batch.encoding.as_deref().map(str::parse::<crate::keyed::Encoding>) {
        Some(Ok(crate::keyed::Encoding::Sketch { spread })) => spread as usize,
        _ => 1,
    };
    let mut out = Vec::new();
    for (name, data) in &batch.fields {
        let Some(field) = schema.field(name) else { continue };
        let FieldData::Embedded { base, parts, shape: Some(shape) } = data else { continue };
        let base = shared.by_fingerprint(base)?;
        let column = truth.column(name);
        for (p, part) in parts.iter().enumerate() {
            if !matches!(part.vectors, BatchVectors::Sparse(_)) {
                continue;
            }
            let label = field.part_name(p).map_or_else(|| name.clone(), |part| format!("{name} ({part})"));
            // the text each party embedded for this part
            let text = |v: Option<&String>| field.part_text(p, v.map_or("", |v| v.as_str())).to_string();
            let values: Vec<String> =
                part.rows.iter().map(|&r| text(column.get(r as usize).and_then(|v| v.as_ref()))).collect();
            let listed: Vec<String> = match public {
                Some(t) => t.column(name).iter().flatten().map(|v| text(Some(v))).collect(),
                None => values.clone(),
            };
            let mut counts: BTreeMap<&str, f64> = BTreeMap::new();
            for v in &listed {
                *counts.entry(v.as_str()).or_default() += 1.0;
            }
            let prior: Vec<(String, f64)> = counts.into_iter().map(|(v, n)| (v.to_string(), n)).collect();
            let report = graph_attack(&part.vectors, shape, base, &prior, &values, &vec![1; values.len()], seed)?;
            let dictionary: Vec<String> = prior.iter().map(|(v, _)| v.clone()).collect();
            let c = Coordinates { vectors: &part.vectors, shape, spread };
            let known = Known { base, prior: &prior, dictionary: &dictionary, truth: &values, targets: values.len() };
            let patterns = pattern_attack_rows(c, known, seed)?;
            let list = if public.is_some() { "the other party's values" } else { "the field's own values" };
            out.push(FieldGraph { field: label, list: list.into(), records: values.len(), report, patterns });
        }
    }
    Ok(out)
}
