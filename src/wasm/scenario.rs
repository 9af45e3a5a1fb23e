//! `runScenario`: the SCENARIO.md evaluation for the demo page.

use super::errors::{options_over, string_arg, to_js_error, to_plain};
use super::owner::string_array;
use super::progress::{with_progress, JsClock};
use crate::alphabet::Alphabet;
use crate::dataset::{Dataset, RawRecord};
use crate::eval::scenario::{run_scenario as run, ScenarioOptions};
use wasm_bindgen::prelude::*;

/// Runs the seeded evaluation on `records` (party A's; B is a corrupted copy):
/// records are normalized onto the alphabet (option `alphabet`, default A–Z and
/// space) and the empty ones dropped. The other options are the core's
/// `ScenarioOptions` (camelCase), over the recommended configuration
/// (`ScenarioOptions::recommended()`: ed 1, seed 42, miner "prefix-tree",
/// strategy "hybrid", epsilon 0.1, k 75, qMin 3, qMax 3, padding true, publicQ 2,
/// hMax = mean record length, maxGramsPerRecord 12, threshold "sound", oneToOne
/// true, qgram true, sample 20): the options given override those fields, so the
/// paper's configuration must switch off what it does not use (`defaults().presets.paper.scenario`
/// writes every field out). Returns the `ScenarioResult` as a plain object.
/// Seeded: an experiment, not a private run.
#[wasm_bindgen(js_name = runScenario)]
pub fn run_scenario(records: JsValue, opts: JsValue, on_progress: Option<js_sys::Function>) -> Result<JsValue, JsValue> {
    let records = string_array(&records, "the records array")?;
    let (alphabet, opts) = split_alphabet(opts)?;
    let o: ScenarioOptions =
        options_over(opts, "scenario options", &ScenarioOptions::recommended(), &["nearest", "padding", "publicQ", "keyed", "qgram"])?;
    let raw = records.into_iter().enumerate().map(|(i, text)| RawRecord { id: (i + 1).to_string(), text }).collect();
    let dataset = Dataset::normalize(raw, &alphabet).map_err(|e| to_js_error(e.into()))?;
    let r = with_progress(on_progress.as_ref(), |p| run(dataset.records(), &alphabet, &o, &JsClock, p)).map_err(to_js_error)?;
    to_plain(&r)
}

/// Takes `alphabet` out of a copy of the options object (it is the owner's, not the
/// core scenario's, option).
fn split_alphabet(opts: JsValue) -> Result<(Alphabet, JsValue), JsValue> {
    if !opts.is_object() || js_sys::Array::is_array(&opts) {
        return Ok((Alphabet::default(), opts));
    }
    let copy = js_sys::Object::assign(&js_sys::Object::new(), opts.unchecked_ref());
    let key = JsValue::from_str("alphabet");
    let value = js_sys::Reflect::get(&copy, &key).unwrap_or(JsValue::UNDEFINED);
    let _ = js_sys::Reflect::delete_property(&copy, &key);
    let alphabet = if value.is_undefined() || value.is_null() {
        Alphabet::default()
    } else {
        Alphabet::new(&string_arg(&value, "the alphabet")?).map_err(|e| to_js_error(e.into()))?
    };
    Ok((alphabet, copy.into()))
}
