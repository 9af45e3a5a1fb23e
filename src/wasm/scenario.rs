//! `runScenario`: the SCENARIO.md evaluation for the demo page.

use super::errors::{options, to_js_error, to_plain};
use super::owner::string_array;
use super::progress::{with_progress, JsClock};
use crate::alphabet::Alphabet;
use crate::dataset::{Dataset, RawRecord};
use crate::eval::scenario::{run_scenario as run, ScenarioOptions};
use wasm_bindgen::prelude::*;

/// Runs the seeded evaluation on `records` (party A's; B is a corrupted copy):
/// records are normalized onto the default alphabet (A–Z and space) and the empty
/// ones dropped. Options are the core's `ScenarioOptions` (camelCase; defaults: ed
/// 1, seed 42, miner "prefix-tree", strategy "hybrid", epsilon 0.1, k 75, qMin 1,
/// qMax 3, hMax = mean record length, maxGramsPerRecord 12, threshold "paper",
/// oneToOne false, sample 20). Returns the `ScenarioResult` as a plain object.
/// Seeded: an experiment, not a private run.
#[wasm_bindgen(js_name = runScenario)]
pub fn run_scenario(records: JsValue, opts: JsValue, on_progress: Option<js_sys::Function>) -> Result<JsValue, JsValue> {
    let records = string_array(&records, "the records array")?;
    let o: ScenarioOptions = options(opts, "scenario options")?;
    let raw = records.into_iter().enumerate().map(|(i, text)| RawRecord { id: (i + 1).to_string(), text }).collect();
    let alphabet = Alphabet::default();
    let dataset = Dataset::normalize(raw, &alphabet).map_err(|e| to_js_error(e.into()))?;
    let r = with_progress(on_progress.as_ref(), |p| run(dataset.records(), &alphabet, &o, &JsClock, p)).map_err(to_js_error)?;
    to_plain(&r)
}
