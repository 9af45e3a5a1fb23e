//! `defaults()`, `normalize()` and `batchInfo()`: what the web pages need to
//! follow the core instead of repeating it. The pages fill their forms from
//! `defaults()`, so a change of a core default reaches them without an edit;
//! `normalize()` previews the normalization a data owner is about to apply, before
//! any mining; `batchInfo()` checks one vector batch on its own, so the matcher page
//! can name the file that is wrong.

use super::errors::{message_bytes, string_arg, to_js_error, to_plain};
use super::matcher::MatchOptions;
use super::owner::{string_array, EmbedOptions, OwnerOptions, ThresholdOptions};
use crate::alphabet::Alphabet;
use crate::eval::scenario::ScenarioOptions;
use crate::mine::MineOptions;
use crate::protocol::{Party, VectorBatch};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Every options object's defaults, from the core's constructors.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Defaults {
    owner: OwnerOptions,
    mine: MineOptions,
    embed: EmbedOptions,
    thresholds: ThresholdOptions,
    #[serde(rename = "match")]
    matching: MatchOptions,
    scenario: ScenarioOptions,
}

/// The default options of `DataOwner` (alphabet and budget filled in), `mine`,
/// `embed`, `thresholds`, `Matcher.match` and `runScenario`, as plain objects in
/// the camelCase the functions accept.
#[wasm_bindgen]
pub fn defaults() -> Result<JsValue, JsValue> {
    let owner = OwnerOptions::default();
    let owner = OwnerOptions {
        alphabet: Some(owner.alphabet.unwrap_or_else(|| Alphabet::default().as_string())),
        budget: Some(owner.budget.unwrap_or(super::owner::DEFAULT_BUDGET)),
        seed: None,
    };
    to_plain(&Defaults {
        owner,
        mine: MineOptions::default(),
        embed: EmbedOptions::default(),
        thresholds: ThresholdOptions::default(),
        matching: MatchOptions::default(),
        scenario: ScenarioOptions::default(),
    })
}

/// A preview of normalization.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Preview {
    /// The records as normalized onto Σ, index for index (empty strings included).
    normalized: Vec<String>,
    /// 1-based positions of the records that normalize to the empty string (the
    /// ones `DataOwner` sets aside).
    empty: Vec<usize>,
}

/// Normalizes `records` (strings) onto `alphabet` (default A–Z and space) exactly
/// as `DataOwner` does, for a preview: `{normalized: string[], empty: number[]}`.
/// Local only: nothing here leaves the page, and nothing is mined.
#[wasm_bindgen]
pub fn normalize(records: JsValue, alphabet: JsValue) -> Result<JsValue, JsValue> {
    let records = string_array(&records, "the records array")?;
    let alphabet = if alphabet.is_undefined() || alphabet.is_null() {
        Alphabet::default()
    } else {
        Alphabet::new(&string_arg(&alphabet, "the alphabet")?).map_err(|e| to_js_error(e.into()))?
    };
    let normalized: Vec<String> = records.iter().map(|r| alphabet.normalize(r)).collect();
    let empty = normalized.iter().enumerate().filter(|(_, n)| n.is_empty()).map(|(i, _)| i + 1).collect();
    to_plain(&Preview { normalized, empty })
}

/// What a vector batch holds (no vector, no id: only its shape).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BatchInfo {
    party: &'static str,
    fingerprint: String,
    size: usize,
    dim: usize,
    /// The threshold mode and edit distance, when the batch carries thresholds.
    threshold_mode: Option<String>,
    ed: Option<u32>,
    transform: Option<String>,
}

/// Reads and validates one vector batch (a JSON string or a `Uint8Array`):
/// `{party, fingerprint, size, dim, thresholdMode, ed, transform}`, or the error
/// `new Matcher` would throw for it.
#[wasm_bindgen(js_name = batchInfo)]
pub fn batch_info(batch: JsValue) -> Result<JsValue, JsValue> {
    let b = VectorBatch::read(&message_bytes(&batch, "the vector batch")?).map_err(|e| to_js_error(e.into()))?;
    to_plain(&BatchInfo {
        party: match b.party {
            Party::A => "A",
            Party::B => "B",
        },
        fingerprint: b.fingerprint.clone(),
        size: b.ids.len(),
        dim: b.vectors.dim,
        threshold_mode: b.thresholds.as_ref().map(|t| t.mode.clone()),
        ed: b.thresholds.as_ref().map(|t| t.ed),
        transform: b.transform.clone(),
    })
}
