//! `linkParties`: links the batches of two parties or more into clusters, at
//! most one record of each party in a cluster: the core's [`crate::multi`]
//! behind JS arguments, for one-string batches and (with a schema) record
//! batches alike. Its rows are the CLI's clusters.csv (`match a.vec b.vec
//! c.vec …`, or with `--schema`), written by the same [`crate::multi::export`].

use super::args::{option_entries, set, type_name};
use super::batch::read_batch;
use super::errors::invalid;
use super::records::{batch_arg, schema_arg};
use crate::multi::{self, export, Clusters, Parties, MERGE_THRESHOLD};
use crate::protocol::Party;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// `linkParties`' options, read by hand (small in wasm).
struct LinkOptions {
    merge_threshold: f64,
    pairs: bool,
    names: Option<Vec<String>>,
    /// Record batches under this schema (else one-string vector batches).
    schema: Option<JsValue>,
}

fn link_options(v: &JsValue) -> Result<LinkOptions, JsValue> {
    let what = "linkParties options";
    let mut o = LinkOptions { merge_threshold: MERGE_THRESHOLD, pairs: false, names: None, schema: None };
    for (key, x) in option_entries(v, what, &["mergeThreshold", "pairs", "names", "schema"])? {
        if x.is_null() {
            continue;
        }
        let wrong = |want: &str| invalid(format!("{what}: {key} must be {want}, got {}", type_name(&x)));
        match key.as_str() {
            // its range is the core's check (multi::link)
            "mergeThreshold" => o.merge_threshold = x.as_f64().ok_or_else(|| wrong("a number"))?,
            "pairs" => o.pairs = x.as_bool().ok_or_else(|| wrong("a boolean"))?,
            // read (and refused, when it is not a schema) with the batches
            "schema" => o.schema = Some(x),
            _ => {
                let a = x.dyn_ref::<js_sys::Array>().ok_or_else(|| wrong("an array of strings"))?;
                let names: Option<Vec<String>> = a.iter().map(|n| n.as_string()).collect();
                o.names = Some(names.ok_or_else(|| wrong("an array of strings"))?);
            }
        }
    }
    Ok(o)
}

/// Links `batches` (an array of two or more, parties A to Z) into clusters:
/// vector batches (each a JSON string or a `Uint8Array`, every one with
/// thresholds), or with `options.schema` record batches (`Uint8Array`s, each
/// pair linked by the record linker). Throws as the CLI refuses:
/// `PARTY_TWICE`, `BATCH_TWICE`, `NO_RECORDS`, `ID_CLASH`,
/// `FINGERPRINT_MISMATCH`, `INVALID_PARAMETER`. `options`: `{mergeThreshold,
/// pairs, names, schema}` (the solver's merge threshold, default 0.5; also the
/// pairs sharing a cluster; each batch's name in errors, such as its file's;
/// the linkage schema of record batches). Returns `{fingerprint, dim?,
/// parties, sizes, count, compared, candidates, spans, cluster, csv,
/// pairsCsv?}`: `fingerprint` is the shared base's (records: the schema's),
/// `dim` the vectors' dimension (one-string batches only); `cluster[r]` is
/// record `r`'s cluster (batch after batch, row after row); `spans[k]` how
/// many clusters hold `k` records (so span `k` parties); `csv` one row per
/// record (`party,id,cluster`).
#[wasm_bindgen(js_name = linkParties)]
pub fn link_parties(batches: JsValue, options: JsValue) -> Result<js_sys::Object, JsValue> {
    let o = link_options(&options)?;
    let list = batches.dyn_ref::<js_sys::Array>().ok_or_else(|| {
        invalid(format!("linkParties: the batches must be an array of batches, got {}", type_name(&batches)))
    })?;
    let names: Vec<String> = match o.names {
        Some(n) if n.len() != list.length() as usize => {
            return Err(invalid(format!(
                "linkParties options: names has {} names for {} batches",
                n.len(),
                list.length()
            )))
        }
        Some(n) => n,
        None => (1..=list.length()).map(|i| format!("batch {i}")).collect(),
    };
    let out = js_sys::Object::new();
    let (roster, clusters): (Vec<(Party, Vec<String>)>, Clusters) = match &o.schema {
        None => {
            let read: Result<Vec<_>, JsValue> = list.iter().zip(&names).map(|(b, name)| read_batch(&b, name)).collect();
            let read = read?;
            let parties = Parties::new(&read, &names)?;
            let clusters = multi::link(&parties, o.merge_threshold)?;
            set(&out, "fingerprint", read[0].fingerprint.as_str());
            set(&out, "dim", read[0].vectors.dim() as f64);
            (read.into_iter().map(|b| (b.party, b.ids)).collect(), clusters)
        }
        Some(schema) => {
            let schema = schema_arg(schema)?;
            schema.validate()?;
            let read: Result<Vec<_>, JsValue> = list.iter().zip(&names).map(|(b, name)| batch_arg(&b, name)).collect();
            let read = read?;
            let clusters = multi::records::link(&schema, &read, &names, o.merge_threshold)?;
            set(&out, "fingerprint", schema.fingerprint().as_str());
            (read.into_iter().map(|b| (b.party, b.ids)).collect(), clusters)
        }
    };
    let roster: Vec<(Party, &[String])> = roster.iter().map(|(p, ids)| (*p, ids.as_slice())).collect();
    let letters: js_sys::Array = roster.iter().map(|(p, _)| JsValue::from_str(p.name())).collect();
    set(&out, "parties", letters);
    let sizes: js_sys::Array = roster.iter().map(|(_, ids)| JsValue::from_f64(ids.len() as f64)).collect();
    set(&out, "sizes", sizes);
    set(&out, "count", clusters.count as f64);
    set(&out, "compared", clusters.compared as f64);
    set(&out, "candidates", clusters.candidates as f64);
    let warnings: js_sys::Array = clusters.warnings.iter().map(|w| JsValue::from_str(w)).collect();
    set(&out, "warnings", warnings);
    let spans: js_sys::Array = clusters.spans(roster.len()).iter().map(|&n| JsValue::from_f64(n as f64)).collect();
    set(&out, "spans", spans);
    set(&out, "cluster", js_sys::Uint32Array::from(&clusters.cluster[..]));
    set(&out, "csv", export::clusters_csv(&roster, &clusters)?);
    if o.pairs {
        set(&out, "pairsCsv", export::pairs_csv(&roster, &clusters)?);
    }
    Ok(out)
}
