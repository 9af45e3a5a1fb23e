//! `defaults()` and `normalize()`: what the web pages need to follow the core
//! instead of repeating it. The pages fill their forms from `defaults()`, so a
//! change of a core default reaches them without an edit; `normalize()` previews
//! the normalization a data owner is about to apply, before any mining.

use super::errors::{string_arg, to_js_error, to_plain};
use super::matcher::MatchOptions;
use super::owner::{string_array, EmbedOptions, OwnerOptions, ThresholdOptions};
use crate::alphabet::Alphabet;
use crate::eval::scenario::ScenarioOptions;
use crate::mine::MineOptions;
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
