//! `DataOwner`: one party's records and privacy budget, in the browser or Node.

use super::errors::{count_arg, invalid, options, string_arg, to_js_error, type_name};
use super::progress::with_progress;
use crate::alphabet::Alphabet;
use crate::public::merge_shared;
use crate::dataset::{read_records, Dataset, InputFormat, RawRecord};
use crate::dp::{BudgetLedger, Epsilon, Randomness};
use crate::embed::Embedder;
use crate::error::InputError;
use crate::keyed::{Key, Transform};
use crate::mine::{mine, MineOptions};
use crate::protocol::{read_noisy_base, read_shared_base, write_noisy_base, write_shared_base, Party, ThresholdSet, VectorBatch};
use crate::threshold::{thresholds, ThresholdMode};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

/// Options of a data owner (all optional).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct OwnerOptions {
    /// The public alphabet, as its symbols (default A–Z and space).
    pub(super) alphabet: Option<String>,
    /// The party's total privacy budget ε (default 0.1, the scenario's).
    pub(super) budget: Option<f64>,
    /// Seed for reproducible experiments: everything made is then NOT private.
    pub(super) seed: Option<u64>,
}

/// Which party embeds (`"A"` sends thresholds). Lower case is accepted too.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub(super) enum PartyOption {
    #[default]
    #[serde(alias = "a")]
    A,
    #[serde(alias = "b")]
    B,
}

/// Thresholds for an edit distance: `mode` is `"sound"` (the default, the
/// recommended), `"paper"` or `{global: number | null}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct ThresholdOptions {
    ed: u32,
    mode: ThresholdMode,
}

impl Default for ThresholdOptions {
    fn default() -> Self {
        ThresholdOptions { ed: 1, mode: ThresholdMode::Sound }
    }
}

impl ThresholdOptions {
    /// The paper's thresholds for one edit.
    pub(super) fn paper() -> Self {
        ThresholdOptions { ed: 1, mode: ThresholdMode::Paper }
    }
}

/// Options of `embed`: party A gets thresholds (default `{ed: 1, mode: "sound"}`),
/// party B none unless asked; `binary` gives the compact `Uint8Array` form.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct EmbedOptions {
    party: PartyOption,
    thresholds: Option<ThresholdOptions>,
    binary: bool,
    /// The keyed transform's key, 64 hex digits (`keygen()`), shared with the
    /// other party out of band; or
    key: Option<String>,
    /// a passphrase (at least 8 characters) the key is derived from (Argon2id).
    passphrase: Option<String>,
}

impl EmbedOptions {
    fn key(&self) -> Result<Option<Key>, crate::error::Error> {
        match (&self.key, &self.passphrase) {
            (Some(_), Some(_)) => Err(crate::error::Error::InvalidKey("give either key or passphrase, not both".into())),
            (Some(k), None) => Key::from_hex(k).map(Some),
            (None, Some(p)) => Key::from_passphrase(p).map(Some),
            (None, None) => Ok(None),
        }
    }
}

/// Options of `DataOwner.mergeBases` (the shape of the shared base): public grams
/// of length `publicQ` on top of the mined ones (`null`: none), and `padding` (the
/// records embedded as `^record$`; the noisy bases must have been mined so).
/// Default: the recommended `{publicQ: 2, padding: true}`; `{publicQ: null,
/// padding: false}` is the paper's base. Read by hand ([`MergeOptions::read`]);
/// serialized for `defaults()`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct MergeOptions {
    pub(super) public_q: Option<usize>,
    pub(super) padding: bool,
}

impl Default for MergeOptions {
    fn default() -> Self {
        let m = MineOptions::recommended();
        MergeOptions { public_q: m.public_q, padding: m.padding }
    }
}

impl MergeOptions {
    /// The paper's base: mined grams only.
    pub(super) fn paper() -> Self {
        let m = MineOptions::paper();
        MergeOptions { public_q: m.public_q, padding: m.padding }
    }

    /// The options a caller gave, over the defaults (`publicQ: null`: no public grams).
    fn read(v: &JsValue) -> Result<MergeOptions, JsValue> {
        let mut o = MergeOptions::default();
        for (key, x) in super::errors::option_entries(v, "merge options", &["padding", "publicQ"])? {
            if key == "publicQ" {
                o.public_q = if x.is_null() { None } else { Some(count_arg(&x, "merge options: publicQ", 1)? as usize) };
            } else {
                o.padding = super::errors::bool_arg(&x, "merge options: padding")?;
            }
        }
        Ok(o)
    }
}

/// Whether a noisy base was mined over padded records: its alphabet is Σ followed
/// by the two padding symbols, as `mine` extends it. (The message does not say
/// more: an alphabet of one's own ending with `^$` reads as padded.)
fn mined_with_padding(b: &crate::base::NoisyBase) -> bool {
    let p = crate::public::Padding::default();
    let sym = b.alphabet.symbols();
    let n = sym.len();
    n > 2 && sym[n - 2] == p.start && sym[n - 1] == p.end
}

/// The merge options against the noisy bases: padding must be how both were mined.
fn check_merge(o: &MergeOptions, a: &crate::base::NoisyBase, b: &crate::base::NoisyBase) -> Result<(), crate::error::Error> {
    use crate::error::BaseError;
    let (pa, pb) = (mined_with_padding(a), mined_with_padding(b));
    if pa != pb {
        return Err(BaseError::Incompatible(format!(
            "noisy base a was mined {} padding and noisy base b {} (mine both with the same padding option)",
            if pa { "with" } else { "without" },
            if pb { "with" } else { "without" }
        ))
        .into());
    }
    if o.padding != pa {
        return Err(BaseError::Incompatible(if pa {
            "the noisy bases were mined with padding (their alphabet ends with the padding symbols ^ $): merge them with padding: true".into()
        } else {
            "the noisy bases were mined without padding: merge them with padding: false (or mine them with padding: true)".into()
        })
        .into());
    }
    Ok(())
}

/// A party's total budget when none is given (the scenario's ε per party).
pub(super) const DEFAULT_BUDGET: f64 = 0.1;

/// One party's records, normalized onto the public alphabet, with its budget.
#[wasm_bindgen]
pub struct DataOwner {
    dataset: Dataset,
    ledger: BudgetLedger,
    rng: Randomness,
}

fn build(raw: Vec<RawRecord>, opts: JsValue) -> Result<DataOwner, JsValue> {
    let o: OwnerOptions = options(opts, "DataOwner options")?;
    let alphabet = match &o.alphabet {
        Some(a) => Alphabet::new(a).map_err(|e| to_js_error(e.into()))?,
        None => Alphabet::default(),
    };
    let budget = Epsilon::new(o.budget.unwrap_or(DEFAULT_BUDGET)).map_err(|e| to_js_error(e.into()))?;
    // the same limit as file input (read_records): an array of strings skips that path
    if let Some((index, r)) = raw.iter().enumerate().find(|(_, r)| r.text.len() > crate::dataset::MAX_RECORD_BYTES) {
        return Err(to_js_error(InputError::RecordTooLong { index: index + 1, len: r.text.len(), limit: crate::dataset::MAX_RECORD_BYTES }.into()));
    }
    let dataset = Dataset::normalize(raw, &alphabet).map_err(|e| to_js_error(e.into()))?;
    if dataset.is_empty() {
        return Err(to_js_error(InputError::Empty { what: "the records after normalization onto the alphabet".into() }.into()));
    }
    let rng = Randomness::from_seed_option(o.seed).map_err(|e| to_js_error(e.into()))?;
    Ok(DataOwner { dataset, ledger: BudgetLedger::new(budget), rng })
}

/// The strings of a JS array, or an error naming the first element that is not one.
pub(super) fn string_array(v: &JsValue, what: &str) -> Result<Vec<String>, JsValue> {
    if !js_sys::Array::is_array(v) {
        return Err(invalid(format!("{what} must be an array of strings, got {}", type_name(v))));
    }
    let arr: &js_sys::Array = v.unchecked_ref();
    let mut out = Vec::with_capacity(arr.length() as usize);
    for (i, x) in arr.iter().enumerate() {
        match x.as_string() {
            Some(s) => out.push(s),
            None => return Err(invalid(format!("{what}[{i}] is {}, not a string", type_name(&x)))),
        }
    }
    if out.is_empty() {
        return Err(to_js_error(InputError::Empty { what: what.into() }.into()));
    }
    Ok(out)
}

fn shared_base(json: &JsValue) -> Result<crate::base::SharedBase, JsValue> {
    let text = string_arg(json, "the shared base")?;
    read_shared_base(&text).map_err(|e| to_js_error(e.into()))
}

#[wasm_bindgen]
impl DataOwner {
    /// A data owner from an array of strings (ids are their 1-based positions).
    #[wasm_bindgen(constructor)]
    pub fn new(records: JsValue, options: JsValue) -> Result<DataOwner, JsValue> {
        let records = string_array(&records, "the records array")?;
        let raw = records.into_iter().enumerate().map(|(i, text)| RawRecord { id: (i + 1).to_string(), text }).collect();
        build(raw, options)
    }

    /// A data owner from CSV text: `column` holds the records, `idColumn` the ids.
    #[wasm_bindgen(js_name = fromCsv)]
    pub fn from_csv(text: JsValue, column: JsValue, id_column: JsValue, options: JsValue) -> Result<DataOwner, JsValue> {
        let text = string_arg(&text, "the CSV text")?;
        let column = string_arg(&column, "the CSV column")?;
        let id_column = if id_column.is_undefined() || id_column.is_null() { None } else { Some(string_arg(&id_column, "the id column")?) };
        let format = InputFormat::Csv { column, id_column };
        let raw = read_records(text.as_bytes(), &format, "the CSV text").map_err(|e| to_js_error(e.into()))?;
        build(raw, options)
    }

    /// Records kept, changed and normalized to empty (with their ids).
    #[wasm_bindgen(js_name = normalizationReport)]
    pub fn normalization_report(&self) -> Result<JsValue, JsValue> {
        super::errors::to_plain(&self.dataset.report())
    }

    /// Number of records kept after normalization.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.dataset.len()
    }

    /// The ids of the records kept, in order (the rows of `embed`).
    #[wasm_bindgen(getter)]
    pub fn ids(&self) -> Vec<String> {
        self.dataset.ids().to_vec()
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
    /// miner, strategy, epsilon, k, qMin, qMax, hMax, maxGramsPerRecord, padding,
    /// publicQ), charging the budget. Defaults: the recommended configuration
    /// (`MineOptions::recommended()`: 75 prefix-tree 3-grams of the padded
    /// records); the options given override its fields. Returns the noisy-base
    /// message (JSON). Throws with code `BUDGET_EXCEEDED` past the budget.
    pub fn mine(&mut self, options: JsValue, on_progress: Option<js_sys::Function>) -> Result<String, JsValue> {
        let o: MineOptions = super::errors::options_over(options, "mine options", &MineOptions::recommended(), &["padding", "publicQ"])?;
        let (dataset, ledger, rng) = (&self.dataset, &mut self.ledger, &mut self.rng);
        let base = with_progress(on_progress.as_ref(), |p| mine(dataset, &o, ledger, rng, p)).map_err(to_js_error)?;
        Ok(write_noisy_base(&base))
    }

    /// Merges two noisy-base messages into the shared-base message (JSON): the top
    /// `k` mined grams by the core's deterministic rule, plus (options `{publicQ,
    /// padding}`, default the recommended `{publicQ: 2, padding: true}`) every
    /// public gram of length `publicQ` over Σ and the boundary grams. `padding`
    /// must be how the noisy bases were mined (else `INCOMPATIBLE_BASES`);
    /// `{publicQ: null, padding: false}` gives the paper's base.
    #[wasm_bindgen(js_name = mergeBases)]
    pub fn merge_bases(a: JsValue, b: JsValue, k: JsValue, options: JsValue) -> Result<String, JsValue> {
        let na = read_noisy_base(&string_arg(&a, "noisy base a")?).map_err(|e| to_js_error(e.into()))?;
        let nb = read_noisy_base(&string_arg(&b, "noisy base b")?).map_err(|e| to_js_error(e.into()))?;
        let k = count_arg(&k, "k", 0)?;
        let o = MergeOptions::read(&options)?;
        check_merge(&o, &na, &nb).map_err(to_js_error)?;
        let shared = merge_shared(&na, &nb, k as usize, o.public_q, o.padding).map_err(|e| to_js_error(e.into()))?;
        Ok(write_shared_base(&shared))
    }

    /// Embeds the records over the shared base (JSON message) and returns the
    /// vector-batch message: JSON text, or a `Uint8Array` with `binary: true`.
    /// Options: `{party: "A" | "B" = "A", thresholds: {ed = 1, mode = "paper"}
    /// (party A's default; B has none unless given), binary = false}`.
    pub fn embed(&self, shared_base: JsValue, options: JsValue, on_progress: Option<js_sys::Function>) -> Result<JsValue, JsValue> {
        let o: EmbedOptions = super::errors::options(options, "embed options")?;
        let base = self::shared_base(&shared_base)?;
        let key = o.key().map_err(to_js_error)?;
        let embedder = Embedder::new(&base).map_err(to_js_error)?;
        let vectors = with_progress(on_progress.as_ref(), |p| embedder.embed_all(self.dataset.records(), p)).map_err(to_js_error)?;
        let th = match (o.party, o.thresholds) {
            (PartyOption::B, None) => None,
            (_, t) => {
                let t = t.unwrap_or_default();
                let values = thresholds(&base, self.dataset.records(), t.ed, &t.mode).map_err(to_js_error)?;
                Some(ThresholdSet { mode: mode_name(&t.mode).into(), ed: t.ed, values })
            }
        };
        let (vectors, transform) = match &key {
            None => (vectors, None),
            Some(k) => {
                let t = Transform::new(k, base.fingerprint(), vectors.dim).map_err(to_js_error)?;
                (t.apply(&vectors).map_err(to_js_error)?, Some(t.label().to_string()))
            }
        };
        let batch = VectorBatch {
            party: match o.party {
                PartyOption::A => Party::A,
                PartyOption::B => Party::B,
            },
            fingerprint: base.fingerprint().to_string(),
            ids: self.dataset.ids().to_vec(),
            vectors,
            thresholds: th,
            shape: transform.is_none().then(|| crate::matching::Shape::of(&base)),
            transform,
        };
        batch.validate().map_err(|e| to_js_error(e.into()))?;
        Ok(if o.binary { super::batch::binary_batch(&batch)?.into() } else { JsValue::from_str(&batch.to_json()) })
    }

    /// The records' vectors over the shared base, row-major (`size` rows of the
    /// base's dimension): for local use; what crosses to the matcher is `embed`'s.
    #[wasm_bindgen(js_name = embedVectors)]
    pub fn embed_vectors(&self, shared_base: JsValue) -> Result<js_sys::Float32Array, JsValue> {
        let base = self::shared_base(&shared_base)?;
        let embedder = Embedder::new(&base).map_err(to_js_error)?;
        let v = embedder.embed_all(self.dataset.records(), &mut crate::progress::NoProgress).map_err(to_js_error)?;
        Ok(js_sys::Float32Array::from(&v.data[..]))
    }

    /// The per-record thresholds for edit distance `ed` (default 1); `mode` is
    /// `"sound"` (default), `"paper"` or `{global: number | null}`.
    pub fn thresholds(&self, shared_base: JsValue, ed: JsValue, mode: JsValue) -> Result<js_sys::Float64Array, JsValue> {
        let base = self::shared_base(&shared_base)?;
        let ed = if ed.is_undefined() || ed.is_null() { 1 } else { count_arg(&ed, "ed", 0)? };
        let mode: ThresholdMode = if mode.is_undefined() || mode.is_null() {
            ThresholdOptions::default().mode
        } else {
            serde_wasm_bindgen::from_value(mode).map_err(|e| super::errors::bad_options("threshold mode", e))?
        };
        let values = thresholds(&base, self.dataset.records(), ed, &mode).map_err(to_js_error)?;
        Ok(js_sys::Float64Array::from(&values[..]))
    }
}

/// The mode's name in a vector batch (as the CLI writes it).
fn mode_name(m: &ThresholdMode) -> &'static str {
    match m {
        ThresholdMode::Paper => "paper",
        ThresholdMode::Sound => "sound",
        ThresholdMode::Global(_) => "global",
    }
}

/// The fingerprint of a shared-base message (checked against its content), for
/// the parties to compare out of band.
#[wasm_bindgen]
pub fn fingerprint(shared_base: JsValue) -> Result<String, JsValue> {
    Ok(self::shared_base(&shared_base)?.fingerprint().to_string())
}

/// A new random key for the keyed transform (64 hex digits), from the platform's
/// secure generator: give it to the other party out of band, never to the matcher.
#[wasm_bindgen]
pub fn keygen() -> Result<String, JsValue> {
    Ok(Key::random().map_err(to_js_error)?.to_hex())
}
