//! The graph-matching attack ([`super::graph`]) and the pattern-mining
//! attack ([`super::labelling::pattern_attack`]) on a record batch, part by
//! part: every embedded part whose rows are sparse (text, numbers, dates, and
//! each of a split date's year, month and day), with C's list the field's own values and their
//! exact frequencies (the worst case: a public list that covers the data).

use super::graph::{graph_attack, graph_attack_list, GraphReport, List};
use super::labelling::{pattern_attack_rows, Coordinates, Known, LabellingReport};
use crate::embed::BatchVectors;
use crate::error::Error;
use crate::record::batch::FieldData;
use crate::record::salt::salt_text;
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
    /// dictionary (every record decoded); none against C's own salted list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patterns: Option<LabellingReport>,
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
            out.push(FieldGraph {
                field: label.clone(),
                list: list.into(),
                records: values.len(),
                report,
                patterns: Some(patterns),
            });
            // a salted field: C knows the salting, holds the values with their
            // salts, and salts its list under a key of its own
            if let Some(by) = field.salt.as_deref().and_then(|b| schema.field(b)) {
                let salt =
                    |t: &RecordTable, r: usize| salt_text(by, t.column(&by.name).get(r).and_then(|v| v.as_deref()));
                let joint: Vec<(String, String)> = match public {
                    Some(t) => (0..t.ids.len())
                        .filter_map(|r| t.column(name).get(r)?.as_ref().map(|v| (salt(t, r), text(Some(v)))))
                        .collect(),
                    None => part.rows.iter().zip(&values).map(|(&r, v)| (salt(truth, r as usize), v.clone())).collect(),
                };
                let salted = salted_list(base, spread, &joint, seed)?;
                let report = graph_attack_list(&part.vectors, shape, &salted, &values, &vec![1; values.len()], seed)?;
                let list = format!("{list} with their salts, salted under a key of C's own");
                out.push(FieldGraph { field: label, list, records: values.len(), report, patterns: None });
            }
        }
    }
    Ok(out)
}

/// C's list of (salt, value) pairs, each value embedded over the base and
/// sketched (`spread`) under a key of C's own salted as the owners salt
/// ([`crate::record::salt::context`]): C's rows then relate to each other
/// as the batch's do, same salt or not.
fn salted_list(
    base: &crate::base::SharedBase,
    spread: usize,
    joint: &[(String, String)],
    seed: u64,
) -> Result<List, Error> {
    let mut counts: BTreeMap<(&str, &str), f64> = BTreeMap::new();
    for (salt, v) in joint {
        *counts.entry((salt.as_str(), v.as_str())).or_default() += 1.0;
    }
    let mut own = [0u8; 32];
    own[..8].copy_from_slice(&seed.to_le_bytes());
    own[31] = 0xc;
    let key = crate::keyed::Key::from_bytes(own);
    let embedder = crate::embed::Embedder::new(base)?;
    let base_shape = crate::shape::Shape::of(base);
    let mut list = List { rows: Vec::new(), lengths: Vec::new(), dim: 0, values: Vec::new(), sizes: Vec::new() };
    let mut items = counts.into_iter().peekable();
    while let Some(((salt, _), _)) = items.peek().copied() {
        let mut rows = crate::sparse_vectors::SparseVectors::new(embedder.dim());
        while let Some(((_, v), n)) = items.next_if(|((s, _), _)| *s == salt) {
            rows.push_row(embedder.embed_sparse(v).into_iter().map(|(c, x)| (c as u32, x)));
            list.values.push(v.to_string());
            list.sizes.push(n);
        }
        let encoding = crate::keyed::Encoding::Sketch { spread: spread as u32 };
        let context = crate::record::salt::context("C's own", salt);
        let e = crate::keyed::encode(&key, encoding, &context, &base_shape, &rows)?;
        let (BatchVectors::Sparse(v), Some(shape)) = (e.vectors, e.shape) else {
            return Err(Error::Parameter("the sketch gives sparse rows with a shape".into()));
        };
        list.rows.extend((0..v.len()).map(|r| {
            let (c, x) = v.row(r);
            c.iter().copied().zip(x.iter().copied()).collect::<Vec<_>>()
        }));
        (list.lengths, list.dim) = (shape.lengths.clone(), shape.lengths.len());
    }
    Ok(list)
}
