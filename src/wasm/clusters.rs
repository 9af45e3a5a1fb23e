//! `linkParties`: links the vector batches of two parties or more into
//! clusters, at most one record of each party in a cluster: the core's
//! [`crate::multi`] behind JS arguments. Its rows are the CLI's clusters.csv
//! (`match a.vec b.vec c.vec …`), written by the same [`crate::multi::export`].

use super::args::{option_entries, set, type_name};
use super::batch::read_batch;
use super::errors::invalid;
use crate::multi::{self, export, Parties, MERGE_THRESHOLD};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// `linkParties`' options, read by hand (small in wasm).
struct LinkOptions {
    merge_threshold: f64,
    pairs: bool,
    names: Option<Vec<String>>,
}

fn link_options(v: &JsValue) -> Result<LinkOptions, JsValue> {
    let what = "linkParties options";
    let mut o = LinkOptions { merge_threshold: MERGE_THRESHOLD, pairs: false, names: None };
    for (key, x) in option_entries(v, what, &["mergeThreshold", "pairs", "names"])? {
        if x.is_null() {
            continue;
        }
        let wrong = |want: &str| invalid(format!("{what}: {key} must be {want}, got {}", type_name(&x)));
        match key.as_str() {
            // its range is the core's check (multi::link)
            "mergeThreshold" => o.merge_threshold = x.as_f64().ok_or_else(|| wrong("a number"))?,
            "pairs" => o.pairs = x.as_bool().ok_or_else(|| wrong("a boolean"))?,
            _ => {
                let a = x.dyn_ref::<js_sys::Array>().ok_or_else(|| wrong("an array of strings"))?;
                let names: Option<Vec<String>> = a.iter().map(|n| n.as_string()).collect();
                o.names = Some(names.ok_or_else(|| wrong("an array of strings"))?);
            }
        }
    }
    Ok(o)
}

/// Links `batches` (an array of vector batches, each a JSON string or a
/// `Uint8Array`, every one with thresholds, parties A to Z) into clusters.
/// Throws as the CLI refuses: `PARTY_TWICE`, `BATCH_TWICE`, `NO_RECORDS`,
/// `ID_CLASH`, `FINGERPRINT_MISMATCH`, `INVALID_PARAMETER`. `options`:
/// `{mergeThreshold, pairs, names}` (the solver's merge threshold, default
/// 0.5; also the pairs sharing a cluster; each batch's name in errors, such
/// as its file's). Returns `{fingerprint, dim, parties, sizes, count,
/// compared, candidates, spans, cluster, csv, pairsCsv?}`: `cluster[r]` is
/// record `r`'s cluster (batch after batch, row after row); `spans[k]` how
/// many clusters hold `k` records (so span `k` parties); `csv` one row per
/// record (`party,id,cluster`).
#[wasm_bindgen(js_name = linkParties)]
pub fn link_parties(batches: JsValue, options: JsValue) -> Result<js_sys::Object, JsValue> {
    let o = link_options(&options)?;
    let list = batches.dyn_ref::<js_sys::Array>().ok_or_else(|| {
        invalid(format!("linkParties: the batches must be an array of vector batches, got {}", type_name(&batches)))
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
    let read: Result<Vec<_>, JsValue> = list.iter().zip(&names).map(|(b, name)| read_batch(&b, name)).collect();
    let read = read?;
    let parties = Parties::new(&read, &names)?;
    let clusters = multi::link(&parties, o.merge_threshold)?;
    let out = js_sys::Object::new();
    set(&out, "fingerprint", read[0].fingerprint.as_str());
    set(&out, "dim", read[0].vectors.dim() as f64);
    let letters: js_sys::Array = read.iter().map(|b| JsValue::from_str(b.party.name())).collect();
    set(&out, "parties", letters);
    let sizes: js_sys::Array = read.iter().map(|b| JsValue::from_f64(b.ids.len() as f64)).collect();
    set(&out, "sizes", sizes);
    set(&out, "count", clusters.count as f64);
    set(&out, "compared", clusters.compared as f64);
    set(&out, "candidates", clusters.candidates as f64);
    let spans: js_sys::Array = clusters.spans(read.len()).iter().map(|&n| JsValue::from_f64(n as f64)).collect();
    set(&out, "spans", spans);
    set(&out, "cluster", js_sys::Uint32Array::from(&clusters.cluster[..]));
    let roster = export::roster(&parties);
    set(&out, "csv", export::clusters_csv(&roster, &clusters)?);
    if o.pairs {
        set(&out, "pairsCsv", export::pairs_csv(&roster, &clusters)?);
    }
    Ok(out)
}
