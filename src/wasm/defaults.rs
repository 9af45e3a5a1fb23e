//! `defaults()`, `normalize()` and `batchInfo()`: what the web pages need to
//! follow the core instead of repeating it. The pages fill their forms from
//! `defaults()`, so a change of a core default reaches them without an edit;
//! `normalize()` previews the normalization a data owner is about to apply, before
//! any mining; `batchInfo()` checks one vector batch on its own, so the matcher page
//! can name the file that is wrong.

use super::errors::{string_arg, to_js_error, to_plain};
use super::matcher::MatchOptions;
use super::owner::{string_array, EmbedOptions, MergeOptions, OwnerOptions, ThresholdOptions};
use crate::alphabet::Alphabet;
use crate::eval::scenario::ScenarioOptions;
use crate::mine::MineOptions;
use crate::protocol::Party;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Every options object's defaults, from the core's constructors.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Defaults {
    owner: OwnerOptions,
    mine: MineOptions,
    merge: MergeOptions,
    embed: EmbedOptions,
    thresholds: ThresholdOptions,
    #[serde(rename = "match")]
    matching: MatchOptions,
    scenario: ScenarioOptions,
}

/// One whole configuration: the options of every step that depends on it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Preset {
    mine: MineOptions,
    merge: MergeOptions,
    thresholds: ThresholdOptions,
    #[serde(rename = "match")]
    matching: MatchOptions,
    scenario: ScenarioOptions,
}

impl Preset {
    /// The recommended configuration (issue #8): the default of every function.
    fn recommended() -> Preset {
        Preset {
            mine: MineOptions::recommended(),
            merge: MergeOptions::default(),
            thresholds: ThresholdOptions::default(),
            matching: MatchOptions::default(),
            scenario: ScenarioOptions::recommended(),
        }
    }

    /// The paper's configuration: mined 1–3-grams only, its thresholds, every pair
    /// within threshold.
    fn paper() -> Preset {
        Preset {
            mine: MineOptions::paper(),
            merge: MergeOptions::paper(),
            thresholds: ThresholdOptions::paper(),
            matching: MatchOptions::all(),
            scenario: ScenarioOptions::default(),
        }
    }
}

/// Writes out, in `options`, every key of `reference` it leaves out (the core
/// skips switched-off fields when it serializes): `false` for a flag, `null` for
/// the rest. Options given over the recommended defaults must say what they turn off.
fn explicit(options: &JsValue, reference: &JsValue) {
    for key in js_sys::Object::keys(reference.unchecked_ref::<js_sys::Object>()).iter() {
        if !js_sys::Reflect::has(options, &key).unwrap_or(true) {
            let r = js_sys::Reflect::get(reference, &key).unwrap_or(JsValue::NULL);
            let off = if r.as_bool().is_some() { JsValue::FALSE } else { JsValue::NULL };
            let _ = js_sys::Reflect::set(options, &key, &off);
        }
    }
}

/// The default options of `DataOwner` (alphabet and budget filled in), `mine`,
/// `mergeBases`, `embed`, `thresholds`, `Matcher.match` and `runScenario`, as
/// plain objects in the camelCase the functions accept: the recommended
/// configuration. `presets.recommended` and `presets.paper` hold the options of
/// both configurations for `mine`, `merge`, `thresholds`, `match` and `scenario`,
/// every field written out (given over the defaults, `presets.paper.scenario` is
/// the paper's configuration).
#[wasm_bindgen]
pub fn defaults() -> Result<JsValue, JsValue> {
    let owner = OwnerOptions::default();
    let owner = OwnerOptions {
        alphabet: Some(owner.alphabet.unwrap_or_else(|| Alphabet::default().as_string())),
        budget: Some(owner.budget.unwrap_or(super::owner::DEFAULT_BUDGET)),
        seed: None,
    };
    let out = to_plain(&Defaults {
        owner,
        mine: MineOptions::recommended(),
        merge: MergeOptions::default(),
        embed: EmbedOptions::default(),
        thresholds: ThresholdOptions::default(),
        matching: MatchOptions::default(),
        scenario: ScenarioOptions::recommended(),
    })?;
    let recommended = to_plain(&Preset::recommended())?;
    let paper = to_plain(&Preset::paper())?;
    for part in ["mine", "merge", "thresholds", "match", "scenario"] {
        let key = JsValue::from_str(part);
        let get = |o: &JsValue| js_sys::Reflect::get(o, &key).unwrap_or(JsValue::NULL);
        explicit(&get(&paper), &get(&recommended));
    }
    let presets = js_sys::Object::new();
    super::errors::set(&presets, "recommended", recommended);
    super::errors::set(&presets, "paper", paper);
    super::errors::set(out.unchecked_ref(), "presets", presets);
    Ok(out)
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
    let b = super::batch::read_batch(&batch, "the vector batch")?;
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
