//! `RecordOwner` and `RecordMatcher`: whole records ([`crate::record`]) behind
//! JS arguments. The schema is the core's (a JSON string or a plain object,
//! read by [`Schema::parse_json`]); the messages are the CLI's. A party's CSV
//! is given whole (`new RecordOwner(csv, …)`) or streamed in chunks
//! (`RecordTableReader`, then `RecordOwner.fromReader`): the same table and
//! errors either way.

use super::args::{option_entries, set, string_arg, text_or_bytes, to_plain, type_name};
use super::errors::invalid;
use super::progress::with_progress;
use crate::dataset::ChunkReader;
use crate::dp::Randomness;
use crate::error::InputError;
use crate::record::export::{pairs_csv, Review};
use crate::record::linker::Scored;
use crate::record::messages::{read_noisy_bases, read_shared_bases, write_noisy_bases, write_shared_bases};
use crate::record::owner::spaces;
use crate::record::{merge, Class, RecordBatch, Schema, TableReader};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A schema from a JSON string or a plain object.
pub(super) fn schema_arg(v: &JsValue) -> Result<Schema, JsValue> {
    let text = match v.as_string() {
        Some(s) => s,
        None if v.is_object() && !js_sys::Array::is_array(v) => js_sys::JSON::stringify(v)
            .ok()
            .and_then(|s| s.as_string())
            .ok_or_else(|| invalid("the schema cannot be written as JSON".into()))?,
        None => return Err(invalid(format!("the schema must be a JSON string or an object, got {}", type_name(v)))),
    };
    Ok(Schema::parse_json(&text)?)
}

pub(super) fn batch_arg(v: &JsValue, what: &str) -> Result<RecordBatch, JsValue> {
    let bytes = v
        .dyn_ref::<js_sys::Uint8Array>()
        .map(|a| a.to_vec())
        .ok_or_else(|| invalid(format!("{what} must be a Uint8Array (a record batch), got {}", type_name(v))))?;
    Ok(RecordBatch::read(&bytes)?)
}

/// What errors call a party's records (the constructor's and the reader's alike).
const RECORDS: &str = "the records";

/// The randomness of `RecordOwner` options `{seed}` (a seed: NOT private);
/// `known`: the option names the caller takes.
fn owner_randomness(options: &JsValue, known: &[&str]) -> Result<Randomness, JsValue> {
    let mut seed = None;
    for (k, x) in option_entries(options, "RecordOwner options", known)? {
        if k == "seed" && !x.is_null() {
            seed = Some(super::owner::seed_arg(&x)?);
        }
    }
    Ok(Randomness::from_seed_option(seed)?)
}

/// `reader` with `options.dateFormats` (`{ field: "YYYY-MM-DD", … }`): the
/// file's own date formats.
fn with_date_formats(mut reader: TableReader, options: &JsValue) -> Result<TableReader, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(reader);
    }
    let formats = js_sys::Reflect::get(options, &JsValue::from_str("dateFormats"))?;
    if !formats.is_undefined() && !formats.is_null() {
        let formats: std::collections::BTreeMap<String, String> = serde_wasm_bindgen::from_value(formats)
            .map_err(|e| InputError::Format(format!("options.dateFormats: {e}")))?;
        for (field, format) in &formats {
            reader = reader.date_format(field, format)?;
        }
    }
    Ok(reader)
}

/// A party's record CSV read chunk by chunk (a `File`'s stream in the web
/// app's Worker), so the file is never whole in JS or in wasm: the core's
/// [`TableReader`] behind JS arguments. Its table goes to
/// `RecordOwner.fromReader`; an error at any chunk ends the reading.
#[wasm_bindgen]
pub struct RecordTableReader {
    inner: Option<TableReader>,
    what: String,
}

#[wasm_bindgen]
impl RecordTableReader {
    /// A reader of one CSV (with a header) under `schema` (a JSON string or
    /// an object), checked here, before any byte is read. `options.dateFormats`
    /// (`{ field: "YYYY-MM-DD", … }`) reads this file's dates in its own
    /// formats; the schema, and its fingerprint, stay as they are.
    #[wasm_bindgen(constructor)]
    pub fn new(schema: JsValue, options: JsValue) -> Result<RecordTableReader, JsValue> {
        let schema = schema_arg(&schema)?;
        schema.validate()?;
        let reader = with_date_formats(TableReader::new(&schema, RECORDS), &options)?;
        Ok(RecordTableReader { inner: Some(reader), what: RECORDS.into() })
    }
}

super::reader::chunk_reader_methods!(RecordTableReader, TableReader);

/// One party's records under a linkage schema.
#[wasm_bindgen]
pub struct RecordOwner {
    owner: crate::record::RecordOwner,
    /// The map of the last `embed`'s pseudonyms (none: no embed yet, or ids kept).
    id_map: Option<crate::pseudonym::IdMap>,
}

super::ids::id_map_methods!(RecordOwner);

#[wasm_bindgen]
impl RecordOwner {
    /// The party's CSV (a string or a `Uint8Array`, with a header) read under
    /// `schema`; `options`: `{seed}` (reproducible noise: NOT private),
    /// `{dateFormats}` (as `RecordTableReader`'s; a format found in the file
    /// instead is listed in `notes`).
    #[wasm_bindgen(constructor)]
    pub fn new(csv: JsValue, schema: JsValue, options: JsValue) -> Result<RecordOwner, JsValue> {
        let schema = schema_arg(&schema)?;
        let rng = owner_randomness(&options, &["seed", "dateFormats"])?;
        let bytes = text_or_bytes(&csv, "the records")?;
        schema.validate()?;
        let mut reader = with_date_formats(TableReader::new(&schema, RECORDS), &options)?;
        reader.push(&bytes)?;
        Ok(RecordOwner { owner: crate::record::RecordOwner::from_reader(reader, rng)?, id_map: None })
    }

    /// How the file was read where it differs from the schema: a date format
    /// found in the file instead of the schema's, one sentence each.
    #[wasm_bindgen(getter)]
    pub fn notes(&self) -> Vec<String> {
        self.owner.table().notes.clone()
    }

    /// An owner of the table a [`RecordTableReader`] has read to its end (the
    /// reader is then used up); `options` as the constructor's.
    #[wasm_bindgen(js_name = fromReader)]
    pub fn from_reader(reader: &mut RecordTableReader, options: JsValue) -> Result<RecordOwner, JsValue> {
        let rng = owner_randomness(&options, &["seed"])?;
        let owner = crate::record::RecordOwner::from_reader(reader.take()?, rng)?;
        Ok(RecordOwner { owner, id_map: None })
    }

    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.owner.table().ids.len()
    }

    /// The schema's fingerprint (every message carries it).
    #[wasm_bindgen(getter, js_name = schemaFingerprint)]
    pub fn schema_fingerprint(&self) -> String {
        self.owner.schema().fingerprint()
    }

    /// Each sent field: `{name, kind, present}` (present: rows with a value).
    pub fn fields(&self) -> Result<JsValue, JsValue> {
        let kinds: Vec<serde_json::Value> = self
            .owner
            .table()
            .fields
            .iter()
            .map(|f| {
                serde_json::json!({"name": f.name, "kind": f.kind.name(), "present": f.values.iter().filter(|v| v.is_some()).count()})
            })
            .collect();
        to_plain(&kinds)
    }

    /// The budget split: `[{space, epsilon, fields}]`, one per gram space
    /// (epsilon 0: public grams only).
    #[wasm_bindgen(js_name = budgetSplit)]
    pub fn budget_split(&self) -> Result<JsValue, JsValue> {
        let schema = self.owner.schema();
        let split: Vec<serde_json::Value> = spaces(schema)?
            .into_iter()
            .map(|s| {
                let fields: Vec<&str> = s.fields.iter().map(|&i| schema.fields[i].name.as_str()).collect();
                serde_json::json!({"space": s.name, "epsilon": s.epsilon, "fields": fields})
            })
            .collect();
        to_plain(&split)
    }

    /// Mines a noisy base per space with the schema's split of ε (charged
    /// once: a second call is refused by the budget). Returns the noisy bases
    /// message (JSON).
    pub fn mine(&mut self, on_progress: Option<js_sys::Function>) -> Result<String, JsValue> {
        let bases = with_progress(on_progress.as_ref(), |p| self.owner.mine(p))?;
        Ok(write_noisy_bases(&bases))
    }

    /// The shared bases (JSON) from both parties' noisy bases under `schema`.
    #[wasm_bindgen(js_name = mergeBases)]
    pub fn merge_bases(a: JsValue, b: JsValue, schema: JsValue) -> Result<String, JsValue> {
        let schema = schema_arg(&schema)?;
        let na = read_noisy_bases(&string_arg(&a, "party A's noisy bases")?, &schema)?;
        let nb = read_noisy_bases(&string_arg(&b, "party B's noisy bases")?, &schema)?;
        Ok(write_shared_bases(&merge(&na, &nb, &schema)?))
    }

    /// The shared bases (JSON) from every party's noisy bases (an array of two
    /// or more messages) under `schema`, as `mergeBases` from two; one party's
    /// bases given twice are refused (`BASE_TWICE`).
    #[wasm_bindgen(js_name = mergeAllBases)]
    pub fn merge_all_bases(bases: JsValue, schema: JsValue) -> Result<String, JsValue> {
        let schema = schema_arg(&schema)?;
        let (texts, names) = super::args::string_list(&bases, "noisy bases")?;
        let read = texts.iter().map(|t| read_noisy_bases(t, &schema)).collect::<Result<Vec<_>, _>>()?;
        let refs: Vec<_> = read.iter().collect();
        Ok(write_shared_bases(&crate::record::owner::merge_parties(&refs, &names, &schema)?))
    }

    /// The party's record batch (binary) over the shared bases. `options`:
    /// the core's [`crate::party::EmbedRequest`], as `DataOwner.embed` takes
    /// it: `{party: "A" | "B", key: hex | passphrase: string (the parties'
    /// shared key, the passphrase salted with the schema: it hashes the keyed
    /// fields and rotates every embedded field's vectors), noKey: boolean
    /// (export unkeyed vectors anyway; with a key, the key only hashes the
    /// keyed fields), keepIds: boolean (send the own ids instead of random
    /// pseudonyms)}`. Without a key or `noKey: true`, a schema that embeds a
    /// field is refused (`KEY_REQUIRED`, the core's export policy). The map
    /// back from the pseudonyms is then `idMapCsv()`; the rows are shuffled.
    pub fn embed(
        &mut self,
        shared: JsValue,
        options: JsValue,
        on_progress: Option<js_sys::Function>,
    ) -> Result<js_sys::Uint8Array, JsValue> {
        let shared = read_shared_bases(&string_arg(&shared, "the shared bases")?, self.owner.schema())?;
        let request: crate::party::EmbedRequest = super::args::options_given(&options, "embed options")?;
        let linkage = crate::record::owner::linkage(self.owner.schema());
        let options = request.records(&linkage, super::owner::KEY_REMEDY)?;
        let embedded = with_progress(on_progress.as_ref(), |p| self.owner.embed(&shared, &options, p))?;
        let out = js_sys::Uint8Array::from(&embedded.batch.write()[..]);
        self.id_map = embedded.id_map;
        Ok(out)
    }
}

/// The matcher of record batches: candidates, levels and the EM fit are made
/// once (the constructor); `link` decides with any thresholds.
#[wasm_bindgen]
pub struct RecordMatcher {
    matcher: crate::record::RecordMatcher,
    scored: Scored,
}

/// `{upper, lower}` of `link`: finite numbers or absent.
fn thresholds(options: &JsValue) -> Result<(Option<f64>, Option<f64>), JsValue> {
    let (mut upper, mut lower) = (None, None);
    for (name, x) in option_entries(options, "link options", &["upper", "lower"])? {
        if x.is_null() {
            continue;
        }
        let v = x
            .as_f64()
            .filter(|v| v.is_finite())
            .ok_or_else(|| invalid(format!("link options: {name} must be a finite number, got {}", type_name(&x))))?;
        if name == "upper" {
            upper = Some(v);
        } else {
            lower = Some(v);
        }
    }
    Ok((upper, lower))
}

super::matcher::batch_sizes!(RecordMatcher);

#[wasm_bindgen]
impl RecordMatcher {
    /// Party A's and party B's record batches (`Uint8Array`s) under `schema`.
    /// `options`: the signature checks of `new Matcher`'s (`{verifyA,
    /// signatureA, verifyB, signatureB}`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        schema: JsValue,
        batch_a: JsValue,
        batch_b: JsValue,
        options: JsValue,
    ) -> Result<RecordMatcher, JsValue> {
        let schema = schema_arg(&schema)?;
        let (what_a, what_b) = ("party A's record batch", "party B's record batch");
        super::signing::Verify::read(&options, "RecordMatcher options")?
            .check([(&batch_a, what_a), (&batch_b, what_b)])?;
        let a = batch_arg(&batch_a, what_a)?;
        let b = batch_arg(&batch_b, what_b)?;
        let matcher = crate::record::RecordMatcher::new(schema, a, b)?;
        let scored = matcher.score()?;
        Ok(RecordMatcher { matcher, scored })
    }

    /// What the schema's blocking rules admit on these batches, before any
    /// pair is compared: `{ pairs, candidates, rules: [{ rule, pairs }] }`
    /// (`pairs`: A × B). A page warns before linking when one rule admits
    /// most pairs.
    pub fn blocking(schema: JsValue, batch_a: JsValue, batch_b: JsValue) -> Result<js_sys::Object, JsValue> {
        let schema = schema_arg(&schema)?;
        let a = batch_arg(&batch_a, "party A's record batch")?;
        let b = batch_arg(&batch_b, "party B's record batch")?;
        let matcher = crate::record::RecordMatcher::new(schema, a, b)?;
        let (candidates, rules) = matcher.candidates()?;
        let out = js_sys::Object::new();
        set(&out, "pairs", matcher.a().ids.len() as f64 * matcher.b().ids.len() as f64);
        set(&out, "candidates", candidates.len() as f64);
        set(&out, "rules", to_plain(&rules)?);
        Ok(out)
    }

    /// Whether both batches were made with secure noise.
    #[wasm_bindgen(getter)]
    pub fn private(&self) -> bool {
        self.matcher.a().private && self.matcher.b().private
    }

    /// Every candidate's weight (for a histogram), in candidate order.
    pub fn weights(&self) -> js_sys::Float64Array {
        js_sys::Float64Array::from(&self.scored.weights[..])
    }

    /// The decision with `{upper, lower}` (each absent: the schema's, else
    /// the proposed one). See types/gramlink.d.ts, `RecordLinkageOutput`.
    pub fn link(&self, options: JsValue) -> Result<js_sys::Object, JsValue> {
        let (upper, lower) = thresholds(&options)?;
        let l = self.matcher.decide(&self.scored, upper, lower);
        let out = js_sys::Object::new();
        set(&out, "upper", l.upper);
        set(&out, "lower", l.lower);
        set(&out, "upperProbability", l.upper_probability.map_or(JsValue::NULL, JsValue::from));
        set(&out, "assignment", l.assignment.name());
        set(&out, "candidates", l.candidates as f64);
        set(&out, "matches", l.matches as f64);
        set(&out, "possible", l.possible as f64);
        set(&out, "nonMatches", l.non_matches as f64);
        set(&out, "reductionRatio", l.reduction_ratio);
        set(&out, "rules", to_plain(&l.rules)?);
        set(&out, "fit", to_plain(&l.fit)?);
        let sent: Vec<_> = self.matcher.schema().sent().collect();
        let fields: Vec<serde_json::Value> =
            sent.iter().map(|f| serde_json::json!({"name": f.name, "levels": f.level_names()})).collect();
        set(&out, "fields", to_plain(&fields)?);
        let p = &l.pairs;
        let ia: Vec<u32> = p.iter().map(|x| x.a).collect();
        let ib: Vec<u32> = p.iter().map(|x| x.b).collect();
        let pairs = js_sys::Object::new();
        set(&pairs, "a", js_sys::Uint32Array::from(&ia[..]));
        set(&pairs, "b", js_sys::Uint32Array::from(&ib[..]));
        let ids = |all: &[String], rows: &[u32]| -> js_sys::Array {
            rows.iter().map(|&r| JsValue::from_str(&all[r as usize])).collect()
        };
        set(&pairs, "aIds", ids(&self.matcher.a().ids, &ia));
        set(&pairs, "bIds", ids(&self.matcher.b().ids, &ib));
        let w: Vec<f64> = p.iter().map(|x| x.weight).collect();
        let pr: Vec<f64> = p.iter().map(|x| x.probability).collect();
        set(&pairs, "weight", js_sys::Float64Array::from(&w[..]));
        set(&pairs, "probability", js_sys::Float64Array::from(&pr[..]));
        let class: String = p.iter().map(|x| if x.class == Class::Match { 'M' } else { 'P' }).collect();
        set(&pairs, "classes", class);
        let swapped: Vec<u8> = p.iter().map(|x| u8::from(x.swapped)).collect();
        set(&pairs, "swapped", js_sys::Uint8Array::from(&swapped[..]));
        let levels: Vec<u8> = p.iter().flat_map(|x| x.levels.iter().copied()).collect();
        set(&pairs, "levels", js_sys::Uint8Array::from(&levels[..]));
        set(&out, "pairs", pairs);
        Ok(out)
    }

    /// The pairs of `link(options)` as CSV (ids, class, weight, probability,
    /// swapped, each field's level). `review`: a string with one character
    /// per pair of `link(options)`, `a` accepted, `r` rejected, anything else
    /// none; it adds a `review` column.
    #[wasm_bindgen(js_name = pairsCsv)]
    pub fn pairs_csv(&self, options: JsValue, review: Option<String>) -> Result<String, JsValue> {
        let (upper, lower) = thresholds(&options)?;
        let l = self.matcher.decide(&self.scored, upper, lower);
        let review = review.as_deref().map(Review::from_chars);
        Ok(pairs_csv(self.matcher.schema(), &l, &self.matcher.a().ids, &self.matcher.b().ids, review.as_deref())?)
    }
}
