//! `DataOwner`: one party's records and privacy budget, in the browser or Node:
//! the core's [`crate::party::DataOwner`] behind JS arguments.

use super::args::{count_arg, option_entries, options_over, string_arg, type_name};
use super::errors::invalid;
use super::progress::with_progress;
use crate::alphabet::Alphabet;
use crate::config::{Config, ThresholdOptions};
use crate::dataset::{detect_format, read_records, RawRecord};
use crate::dp::{Epsilon, Randomness};
use crate::error::InputError;
use crate::keyed::Key;
use crate::mine::MineOptions;
use crate::party::{self, merge_bases, EmbedRequest};
use crate::protocol::{read_noisy_base, read_shared_base, write_noisy_base, write_shared_base};
use crate::threshold::ThresholdMode;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

/// Options of a data owner (all optional). Read by hand ([`OwnerOptions::read`]:
/// small in wasm); serialized for `defaults()`.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct OwnerOptions {
    /// The public alphabet: `"letters"` (A–Z and space, the default),
    /// `"letters+digits"`, or its symbols.
    pub(super) alphabet: Option<String>,
    /// The party's total privacy budget ε (default: the default configuration's
    /// mining ε, 0.1).
    pub(super) budget: Option<f64>,
    /// Seed for reproducible experiments: everything made is then NOT private.
    pub(super) seed: Option<u64>,
}

impl OwnerOptions {
    fn read(v: JsValue) -> Result<OwnerOptions, JsValue> {
        let mut o = OwnerOptions::default();
        for (key, x) in option_entries(&v, "DataOwner options", &["alphabet", "budget", "seed"])? {
            if x.is_null() {
                continue;
            }
            match key.as_str() {
                "alphabet" => o.alphabet = Some(string_arg(&x, "DataOwner options: alphabet")?),
                "budget" => {
                    o.budget = Some(x.as_f64().ok_or_else(|| {
                        invalid(format!("DataOwner options: budget must be a number, got {}", type_name(&x)))
                    })?)
                }
                _ => o.seed = Some(seed_arg(&x)?),
            }
        }
        Ok(o)
    }

    /// Every option written out (what `defaults()` shows).
    pub(super) fn filled() -> OwnerOptions {
        OwnerOptions { alphabet: Some("letters".into()), budget: Some(Config::default().mine.epsilon), seed: None }
    }
}

/// Options of `embed`: the core's [`EmbedRequest`] (party, thresholds, key |
/// passphrase | noKey, keepIds: the same for records, [`super::RecordOwner`]),
/// and `binary` for the compact `Uint8Array` form. Read by serde
/// ([`super::args::options_given`]); serialized for `defaults()`.
#[derive(Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct EmbedJsOptions {
    #[serde(flatten)]
    pub(super) request: EmbedRequest,
    pub(super) binary: bool,
}

/// What KEY_REQUIRED tells a JS caller to do.
pub(super) const KEY_REMEDY: &str = "Share a key with the other party (keygen(); the embed option key or \
passphrase), or pass noKey: true to export unkeyed vectors anyway";

/// A seed: a whole number a JS double holds exactly.
pub(super) fn seed_arg(x: &JsValue) -> Result<u64, JsValue> {
    match x.as_f64() {
        Some(v) if v.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&v) => Ok(v as u64),
        _ => Err(invalid("DataOwner options: seed must be a whole number from 0 to 2^53 − 1".into())),
    }
}

/// One party's records, normalized onto the public alphabet, with its budget.
#[wasm_bindgen]
pub struct DataOwner {
    owner: party::DataOwner,
    /// The map of the last `embed`'s pseudonyms (none: no embed yet, or ids kept).
    id_map: Option<crate::pseudonym::IdMap>,
}

fn build(raw: Vec<RawRecord>, opts: JsValue) -> Result<DataOwner, JsValue> {
    let o = OwnerOptions::read(opts)?;
    let alphabet = Alphabet::parse(o.alphabet.as_deref().unwrap_or("letters"))?;
    let budget = Epsilon::new(o.budget.unwrap_or(Config::default().mine.epsilon))?;
    let rng = Randomness::from_seed_option(o.seed)?;
    Ok(DataOwner { owner: party::DataOwner::from_raw(raw, &alphabet, budget, rng)?, id_map: None })
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
        return Err(InputError::Empty { what: what.into() }.into());
    }
    Ok(out)
}

fn shared_base(json: &JsValue) -> Result<crate::base::SharedBase, JsValue> {
    Ok(read_shared_base(&string_arg(json, "the shared base")?)?)
}

super::ids::id_map_methods!(DataOwner);

#[wasm_bindgen]
impl DataOwner {
    /// A data owner from an array of strings (ids are their 1-based positions).
    #[wasm_bindgen(constructor)]
    pub fn new(records: JsValue, options: JsValue) -> Result<DataOwner, JsValue> {
        let records = string_array(&records, "the records array")?;
        let raw =
            records.into_iter().enumerate().map(|(i, text)| RawRecord { id: (i + 1).to_string(), text }).collect();
        build(raw, options)
    }

    /// A data owner from a file's bytes (a `Uint8Array`: text, one record a
    /// line, or CSV), read by the same reader as the CLI's. `input`: `{format:
    /// "auto" | "text" | "csv", column, idColumn, name}`; CSV without `column` is
    /// refused with the header's columns (`MISSING_COLUMN`).
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: JsValue, input: JsValue, owner_options: JsValue) -> Result<DataOwner, JsValue> {
        let bytes = super::args::bytes_arg(&bytes)?;
        let i = super::args::InputOptions::read(input)?;
        let name = i.name.as_deref().unwrap_or("the input");
        let format = detect_format(name, &bytes, i.format, i.column.as_deref(), i.id_column.as_deref())?;
        build(read_records(&bytes, &format, name)?, owner_options)
    }

    /// A data owner from a [`super::RecordReader`] that has taken the whole
    /// input (the reader is used up).
    #[wasm_bindgen(js_name = fromReader)]
    pub fn from_reader(reader: &mut super::reader::RecordReader, owner_options: JsValue) -> Result<DataOwner, JsValue> {
        build(reader.finish()?, owner_options)
    }

    /// Records kept, changed and normalized to empty (with their ids), and the
    /// characters dropped by class with a warning past 1 %.
    #[wasm_bindgen(js_name = normalizationReport)]
    pub fn normalization_report(&self) -> Result<JsValue, JsValue> {
        super::args::to_plain(&self.owner.dataset().report())
    }

    /// Number of records kept after normalization.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.owner.dataset().len()
    }

    /// The ids of the records kept, in order (the rows of `embed`).
    #[wasm_bindgen(getter)]
    pub fn ids(&self) -> Vec<String> {
        self.owner.dataset().ids().to_vec()
    }

    #[wasm_bindgen(getter, js_name = epsilonBudget)]
    pub fn epsilon_budget(&self) -> f64 {
        self.owner.ledger().budget().as_f64()
    }

    #[wasm_bindgen(getter, js_name = epsilonSpent)]
    pub fn epsilon_spent(&self) -> f64 {
        self.owner.ledger().spent().as_f64()
    }

    /// Whether this owner's outputs are private (no seed was given).
    #[wasm_bindgen(getter)]
    pub fn private(&self) -> bool {
        self.owner.is_private()
    }

    /// Mines a noisy base (the core's `MineOptions`, camelCase: miner, strategy,
    /// epsilon, k, qMin, qMax, hMax, maxGramsPerRecord, padding, publicQ; the
    /// options given override the default configuration's), charging the budget.
    /// Returns the noisy-base message (JSON). Throws `BUDGET_EXCEEDED` past the budget.
    pub fn mine(&mut self, options: JsValue, on_progress: Option<js_sys::Function>) -> Result<String, JsValue> {
        let o: MineOptions = options_over(options, "mine options", &MineOptions::default())?;
        let base = with_progress(on_progress.as_ref(), |p| self.owner.mine(&o, p))?;
        Ok(write_noisy_base(&base))
    }

    /// Merges two noisy-base messages into the shared-base message (JSON), under
    /// the mining options both parties used (the same object `mine` took: `k`,
    /// `publicQ` and `padding` matter here). A base mined with other padding is
    /// refused (`INCOMPATIBLE_BASES`).
    #[wasm_bindgen(js_name = mergeBases)]
    pub fn merge_bases(a: JsValue, b: JsValue, options: JsValue) -> Result<String, JsValue> {
        let na = read_noisy_base(&string_arg(&a, "noisy base a")?)?;
        let nb = read_noisy_base(&string_arg(&b, "noisy base b")?)?;
        let o: MineOptions = options_over(options, "merge options", &MineOptions::default())?;
        Ok(write_shared_base(&merge_bases(&na, &nb, &o)?))
    }

    /// Merges the noisy bases of every party of a linkage (an array of two or
    /// more noisy-base messages) into the shared-base message, as `mergeBases`
    /// merges two (the CLI's `merge a b c …`): one party's base given twice is
    /// refused (`BASE_TWICE`: its counts would count twice).
    #[wasm_bindgen(js_name = mergeAllBases)]
    pub fn merge_all_bases(bases: JsValue, options: JsValue) -> Result<String, JsValue> {
        let (texts, names) = super::args::string_list(&bases, "noisy base")?;
        let read = texts.iter().map(|t| read_noisy_base(t)).collect::<Result<Vec<_>, _>>()?;
        let o: MineOptions = options_over(options, "merge options", &MineOptions::default())?;
        Ok(write_shared_base(&party::merge_parties(&read.iter().collect::<Vec<_>>(), &names, &o)?))
    }

    /// Embeds the records over the shared base (JSON message) and returns the
    /// vector-batch message: JSON text, or a `Uint8Array` with `binary: true`.
    /// Options: `{party: "A" | "B" = "A", thresholds: {ed, mode} (party A's
    /// default: the default configuration's, sound for ed 1; B none unless
    /// given), binary = false, key | passphrase | noKey: true, keepIds = false}`:
    /// unkeyed only with `noKey`. The batch carries random pseudonyms unless
    /// `keepIds`; the map back is then `idMapCsv()` (until the next embed).
    pub fn embed(
        &mut self,
        shared_base: JsValue,
        options: JsValue,
        on_progress: Option<js_sys::Function>,
    ) -> Result<JsValue, JsValue> {
        let o: EmbedJsOptions = super::args::options_given(&options, "embed options")?;
        let binary = o.binary;
        let base = self::shared_base(&shared_base)?;
        let core = o.request.one_string(&base, &Config::default(), KEY_REMEDY)?;
        // only the rotation is dense; the sketch is as sparse as unkeyed vectors
        let dense = core.key.rotate && core.encoding == crate::keyed::Encoding::Rotation;
        check_batch_size(&self.owner, base.len(), dense, binary)?;
        let embedded = with_progress(on_progress.as_ref(), |p| self.owner.embed(&base, &core, p))?;
        let batch = embedded.batch;
        let out = if binary { super::batch::binary_batch(&batch)?.into() } else { JsValue::from_str(&batch.to_json()) };
        self.id_map = embedded.id_map;
        Ok(out)
    }

    /// The records' vectors over the shared base, row-major (`size` rows of the
    /// base's dimension): for local use; what crosses to the matcher is `embed`'s.
    #[wasm_bindgen(js_name = embedVectors)]
    pub fn embed_vectors(&self, shared_base: JsValue) -> Result<js_sys::Float32Array, JsValue> {
        let v = self.owner.vectors(&self::shared_base(&shared_base)?, &mut crate::progress::NoProgress)?;
        Ok(js_sys::Float32Array::from(&v.data[..]))
    }

    /// The records' vectors over the shared base as sparse rows, for local use:
    /// `{dim, starts, cols, vals}`, row `r`'s coordinates `cols[starts[r]..starts[r + 1]]`
    /// (ascending) with the same range of `vals` (Uint32Array, Uint32Array,
    /// Float32Array); every other coordinate is zero. A few dozen entries per
    /// record where `embedVectors` gives the base's hundreds.
    #[wasm_bindgen(js_name = embedSparse)]
    pub fn embed_sparse(&self, shared_base: JsValue) -> Result<JsValue, JsValue> {
        let v = self.owner.sparse_vectors(&self::shared_base(&shared_base)?, &mut crate::progress::NoProgress)?;
        // wasm32: usize is u32, so the offsets convert without loss
        let starts: Vec<u32> = v.starts.iter().map(|&s| s as u32).collect();
        let out = js_sys::Object::new();
        super::args::set(&out, "dim", v.dim as f64);
        super::args::set(&out, "starts", js_sys::Uint32Array::from(&starts[..]));
        super::args::set(&out, "cols", js_sys::Uint32Array::from(&v.cols[..]));
        super::args::set(&out, "vals", js_sys::Float32Array::from(&v.vals[..]));
        Ok(out.into())
    }

    /// The per-record thresholds for edit distance `ed` and `mode` (`"sound"`,
    /// `"paper"` or `{global: number | null}`; each defaults to the default
    /// configuration's).
    pub fn thresholds(
        &self,
        shared_base: JsValue,
        ed: JsValue,
        mode: JsValue,
    ) -> Result<js_sys::Float64Array, JsValue> {
        let base = self::shared_base(&shared_base)?;
        let mut t = ThresholdOptions::default();
        if !(ed.is_undefined() || ed.is_null()) {
            t.ed = match ed.as_string().as_deref() {
                Some("auto") => crate::config::Ed::Auto,
                _ => count_arg(&ed, "ed", 0)?.into(),
            };
        }
        if !(mode.is_undefined() || mode.is_null()) {
            t.mode = serde_wasm_bindgen::from_value::<ThresholdMode>(mode)
                .map_err(|e| super::errors::bad_options("threshold mode", e))?;
        }
        Ok(js_sys::Float64Array::from(&self.owner.thresholds(&base, &t)?.values[..]))
    }
}

/// Refuses, before any work, an embedding whose batch would not fit in wasm
/// memory ([`super::args::MAX_WASM_BATCH_BYTES`], by
/// [`party::DataOwner::batch_bytes`]): JS `embed` of 700,000 keyed records
/// trapped with `unreachable` when an allocation failed.
fn check_batch_size(owner: &party::DataOwner, dim: usize, keyed: bool, binary: bool) -> Result<(), JsValue> {
    let need = owner.batch_bytes(dim, keyed, !binary);
    if need > super::args::MAX_WASM_BATCH_BYTES {
        return Err(crate::error::Error::Parameter(format!(
            "a {} batch of {} records over {dim} grams needs about {} MB of wasm memory, more than the {} MB \
             one embedding may take here: {}embed the records in parts, or use the native CLI",
            if keyed { "keyed (dense)" } else { "sparse" },
            owner.dataset().len(),
            need >> 20,
            super::args::MAX_WASM_BATCH_BYTES >> 20,
            if binary { "" } else { "ask for the binary form (binary: true), " }
        ))
        .into());
    }
    Ok(())
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
    Ok(Key::random()?.to_hex())
}
