//! `DataOwner`: one party's records and privacy budget, in the browser or Node.

use super::errors::{bad_options, to_js_error};
use crate::alphabet::Alphabet;
use crate::base::merge;
use crate::dataset::{read_records, Dataset, InputFormat, RawRecord};
use crate::dp::{BudgetLedger, Epsilon, Randomness};
use crate::error::{Error, InputError};
use crate::mine::{mine, MineOptions};
use crate::progress::{NoProgress, Progress};
use crate::protocol::{read_noisy_base, write_noisy_base, write_shared_base};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

/// Options of a data owner (all optional).
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
struct OwnerOptions {
    /// The public alphabet, as its symbols (default A–Z and space).
    alphabet: Option<String>,
    /// The party's total privacy budget ε (default 0.1, the scenario's).
    budget: Option<f64>,
    /// Seed for reproducible experiments: everything made is then NOT private.
    seed: Option<u64>,
}

/// A JS progress callback `(phase, done, total) => boolean | void`; returning
/// `false` cancels the work.
struct JsProgress<'a>(&'a js_sys::Function);

impl Progress for JsProgress<'_> {
    fn tick(&mut self, phase: &str, done: u64, total: u64) -> Result<(), Error> {
        let r = self
            .0
            .call3(&JsValue::NULL, &JsValue::from_str(phase), &JsValue::from_f64(done as f64), &JsValue::from_f64(total as f64))
            .map_err(|_| Error::Parameter("the progress callback threw".into()))?;
        if r == JsValue::FALSE {
            return Err(Error::Cancelled);
        }
        Ok(())
    }
}

/// One party's records, normalized onto the public alphabet, with its budget.
#[wasm_bindgen]
pub struct DataOwner {
    dataset: Dataset,
    ledger: BudgetLedger,
    rng: Randomness,
}

fn build(raw: Vec<RawRecord>, options: JsValue) -> Result<DataOwner, JsValue> {
    let o: OwnerOptions = if options.is_undefined() || options.is_null() {
        OwnerOptions::default()
    } else {
        serde_wasm_bindgen::from_value(options).map_err(|e| bad_options("DataOwner options", e))?
    };
    let alphabet = match &o.alphabet {
        Some(a) => Alphabet::new(a).map_err(|e| to_js_error(e.into()))?,
        None => Alphabet::default(),
    };
    let budget = Epsilon::new(o.budget.unwrap_or(0.1)).map_err(|e| to_js_error(e.into()))?;
    let dataset = Dataset::normalize(raw, &alphabet).map_err(|e| to_js_error(e.into()))?;
    let rng = Randomness::from_seed_option(o.seed).map_err(|e| to_js_error(e.into()))?;
    Ok(DataOwner { dataset, ledger: BudgetLedger::new(budget), rng })
}

#[wasm_bindgen]
impl DataOwner {
    /// A data owner from an array of strings (ids are their 1-based positions).
    #[wasm_bindgen(constructor)]
    pub fn new(records: Vec<String>, options: JsValue) -> Result<DataOwner, JsValue> {
        if records.is_empty() {
            return Err(to_js_error(InputError::Empty { what: "the records array".into() }.into()));
        }
        let raw = records.into_iter().enumerate().map(|(i, text)| RawRecord { id: (i + 1).to_string(), text }).collect();
        build(raw, options)
    }

    /// A data owner from CSV text: `column` holds the records, `idColumn` the ids.
    #[wasm_bindgen(js_name = fromCsv)]
    pub fn from_csv(text: &str, column: &str, id_column: Option<String>, options: JsValue) -> Result<DataOwner, JsValue> {
        let format = InputFormat::Csv { column: column.to_string(), id_column };
        let raw = read_records(text.as_bytes(), &format, "the CSV text").map_err(|e| to_js_error(e.into()))?;
        build(raw, options)
    }

    /// Records kept, changed and normalized to empty (with their ids).
    #[wasm_bindgen(js_name = normalizationReport)]
    pub fn normalization_report(&self) -> Result<JsValue, JsValue> {
        serde_wasm_bindgen::to_value(&self.dataset.report()).map_err(|e| to_js_error(Error::Parameter(e.to_string())))
    }

    /// Number of records kept after normalization.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.dataset.len()
    }

    #[wasm_bindgen(getter, js_name = epsilonBudget)]
    pub fn epsilon_budget(&self) -> f64 {
        self.ledger.budget().as_f64()
    }

    #[wasm_bindgen(getter, js_name = epsilonSpent)]
    pub fn epsilon_spent(&self) -> f64 {
        self.ledger.spent().as_f64()
    }

    /// Whether this owner's outputs are private (no seed was given).
    #[wasm_bindgen(getter)]
    pub fn private(&self) -> bool {
        self.rng.is_private()
    }

    /// Mines a noisy base (options as in the core's `MineOptions`, camelCase:
    /// miner, strategy, epsilon, k, qMin, qMax, hMax, maxGramsPerRecord), charging
    /// the budget. Returns the noisy-base message (JSON). Throws with code
    /// `BUDGET_EXCEEDED` past the budget.
    pub fn mine(&mut self, options: JsValue, on_progress: Option<js_sys::Function>) -> Result<String, JsValue> {
        let o: MineOptions = if options.is_undefined() || options.is_null() {
            MineOptions::default()
        } else {
            serde_wasm_bindgen::from_value(options).map_err(|e| bad_options("mine options", e))?
        };
        let base = match &on_progress {
            Some(f) => mine(&self.dataset, &o, &mut self.ledger, &mut self.rng, &mut JsProgress(f)),
            None => mine(&self.dataset, &o, &mut self.ledger, &mut self.rng, &mut NoProgress),
        }
        .map_err(to_js_error)?;
        Ok(write_noisy_base(&base))
    }

    /// Merges two noisy-base messages into the shared-base message (JSON) of `k`
    /// grams, by the core's deterministic rule.
    #[wasm_bindgen(js_name = mergeBases)]
    pub fn merge_bases(a: &str, b: &str, k: usize) -> Result<String, JsValue> {
        let na = read_noisy_base(a).map_err(|e| to_js_error(e.into()))?;
        let nb = read_noisy_base(b).map_err(|e| to_js_error(e.into()))?;
        let shared = merge(&na, &nb, k).map_err(|e| to_js_error(e.into()))?;
        Ok(write_shared_base(&shared))
    }
}
