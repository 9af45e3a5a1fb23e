//! `runScenario`: the evaluation scenario (docs/SCENARIO.md) for the demo page.

use super::args::{nested_options, string_arg, to_plain};
use super::owner::string_array;
use super::progress::{with_progress, JsClock};
use crate::alphabet::Alphabet;
use crate::dataset::{Dataset, RawRecord};
use crate::eval::scenario::{run_scenario as run, ScenarioOptions};
use wasm_bindgen::prelude::*;

/// Runs the seeded evaluation on `records` (party A's; B is a corrupted copy):
/// records are normalized onto the alphabet (option `alphabet`: `"letters"`, the
/// default, `"letters+digits"` or its symbols) and the empty ones dropped. The
/// other options are the core's `ScenarioOptions` (camelCase: `{config, seed,
/// meanHMax, sample, keyed, corruptEd}`) over `ScenarioOptions::default()` (the default
/// configuration, seed 42); `config` is merged field by field, so `{config:
/// {thresholds: {ed: 2}}}` changes the edit distance only, and
/// `{config: defaults().presets.paper}` runs the paper's configuration. Returns
/// the `ScenarioResult` as a plain object. Seeded: an experiment, not a private run.
#[wasm_bindgen(js_name = runScenario)]
pub fn run_scenario(
    records: JsValue,
    opts: JsValue,
    on_progress: Option<js_sys::Function>,
) -> Result<JsValue, JsValue> {
    let records = string_array(&records, "the records array")?;
    let (alphabet, corrupt_ed, opts) = split_alphabet(opts)?;
    let mut o: ScenarioOptions = nested_options(opts, "scenario options", &["mode"])?;
    o.corrupt_ed = corrupt_ed;
    let raw = records.into_iter().enumerate().map(|(i, text)| RawRecord { id: (i + 1).to_string(), text }).collect();
    let dataset = Dataset::normalize(raw, &alphabet)?;
    let r = with_progress(on_progress.as_ref(), |p| run(dataset.records(), &alphabet, &o, &JsClock, p))?;
    to_plain(&r)
}

/// Takes `alphabet` (the owner's option, not the core scenario's) and
/// `corruptEd` (B's edits, when they differ from the linkage's `ed`: absent
/// from the defaults' form, which the key check reads) out of a copy of the
/// options object.
fn split_alphabet(opts: JsValue) -> Result<(Alphabet, Option<u32>, JsValue), JsValue> {
    if !opts.is_object() || js_sys::Array::is_array(&opts) {
        return Ok((Alphabet::default(), None, opts));
    }
    let copy = js_sys::Object::assign(&js_sys::Object::new(), opts.unchecked_ref());
    let key = JsValue::from_str("alphabet");
    let value = js_sys::Reflect::get(&copy, &key).unwrap_or(JsValue::UNDEFINED);
    let _ = js_sys::Reflect::delete_property(&copy, &key);
    let alphabet = if value.is_undefined() || value.is_null() {
        Alphabet::default()
    } else {
        Alphabet::parse(&string_arg(&value, "the alphabet")?)?
    };
    let key = JsValue::from_str("corruptEd");
    let value = js_sys::Reflect::get(&copy, &key).unwrap_or(JsValue::UNDEFINED);
    let _ = js_sys::Reflect::delete_property(&copy, &key);
    let corrupt_ed = if value.is_undefined() || value.is_null() {
        None
    } else {
        Some(super::args::count_arg(&value, "corruptEd", 0)?)
    };
    Ok((alphabet, corrupt_ed, copy.into()))
}
