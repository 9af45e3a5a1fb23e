//! What the web pages add to the JS API (src/wasm/defaults.rs): `defaults()` is
//! the core's defaults, `normalize()` is `DataOwner`'s normalization, and
//! `batchInfo()` checks one vector batch as `new Matcher` does, and the records
//! page streams a file into `RecordTableReader` for `RecordOwner.fromReader`.
//! Node and Chromium.
#![cfg(target_arch = "wasm32")]

use gramlink::wasm::{batch_info, defaults, normalize, DataOwner, RecordOwner, RecordTableReader};
use js_sys::{Array, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

fn code(e: JsValue) -> String {
    get(&e, "code").as_string().unwrap_or_default()
}

fn json(v: &JsValue) -> serde_json::Value {
    serde_json::from_str(&JSON::stringify(v).unwrap().as_string().unwrap()).unwrap()
}

/// `defaults()` is the core's: the default configuration (the recommended
/// preset) and each preset's whole configuration, from `config`.
#[wasm_bindgen_test]
fn defaults_are_the_cores() {
    use gramlink::config::{Config, Preset};
    use gramlink::eval::scenario::ScenarioOptions;
    let d = defaults().unwrap();
    let config: Config = serde_wasm_bindgen::from_value(get(&d, "config")).unwrap();
    assert_eq!(config, Config::default());
    assert_eq!(config, Config::recommended());
    assert_eq!(json(&get(&d, "scenario")), serde_json::to_value(ScenarioOptions::default()).unwrap());
    assert_eq!(get(&get(&d, "owner"), "alphabet").as_string().unwrap(), "letters");
    assert_eq!(json(&get(&get(&d, "config"), "thresholds")), serde_json::json!({"ed": "auto", "mode": "sound"}));
    assert_eq!(json(&get(&get(&d, "config"), "rule")), serde_json::json!("ranked"));
    assert_eq!(json(&get(&get(&d, "embed"), "thresholds")), serde_json::json!({"ed": "auto", "mode": "sound"}));
    let presets = get(&d, "presets");
    for p in Preset::ALL {
        let c: Config = serde_wasm_bindgen::from_value(get(&presets, p.name())).unwrap();
        assert_eq!(c, p.config(), "presets.{}", p.name());
    }
    // written out: what the recommended configuration switches on, the paper's switches off
    let paper = get(&presets, "paper");
    assert_eq!(get(&get(&paper, "mine"), "padding"), JsValue::FALSE);
    assert!(get(&get(&paper, "mine"), "publicQ").is_null());
    assert_eq!(json(&get(&paper, "thresholds")), serde_json::json!({"ed": 1, "mode": "paper"}));
    assert_eq!(json(&get(&paper, "rule")), serde_json::json!("all"));
}

#[wasm_bindgen_test]
fn normalize_previews_what_the_owner_keeps() {
    let raw = ["Émile  Zola", "123", " o'Brien ", ""];
    let arr: JsValue = raw.iter().map(|s| JsValue::from_str(s)).collect::<Array>().into();
    let p = normalize(arr.clone(), JsValue::UNDEFINED).unwrap();
    let n: Vec<String> = serde_wasm_bindgen::from_value(get(&p, "normalized")).unwrap();
    assert_eq!(n, ["EMILE ZOLA", "", "OBRIEN", ""]);
    let empty: Vec<usize> = serde_wasm_bindgen::from_value(get(&p, "empty")).unwrap();
    assert_eq!(empty, [2, 4]);
    // what was dropped, by class, and the warning naming an alphabet that keeps it
    let warning = get(&p, "warning").as_string().unwrap();
    assert!(
        warning.contains("3 digits, 1 punctuation") && warning.contains("\"ABCDEFGHIJKLMNOPQRSTUVWXYZ '123\""),
        "{warning}"
    );
    // the same records through DataOwner: the same empties, by id (1-based positions)
    let owner = DataOwner::new(arr, JsValue::UNDEFINED).unwrap();
    let report = owner.normalization_report().unwrap();
    let ids: Vec<String> = serde_wasm_bindgen::from_value(get(&report, "empty_ids")).unwrap();
    assert_eq!(ids, ["2", "4"]);
    // bad input is a typed error, not a trap
    assert_eq!(code(normalize(JsValue::from_f64(1.0), JsValue::UNDEFINED).unwrap_err()), "INVALID_PARAMETER");
    let one: JsValue = Array::of1(&JsValue::from_str("a")).into();
    assert_eq!(code(normalize(one, JsValue::from_str("")).unwrap_err()), "INVALID_ALPHABET");
}

#[wasm_bindgen_test]
fn batch_info_reads_one_batch() {
    let recs: JsValue = ["SMITH", "JONES", "BROWN"].iter().map(|s| JsValue::from_str(s)).collect::<Array>().into();
    let seeded = JSON::parse(r#"{"seed": 3}"#).unwrap();
    let mut owner = DataOwner::new(recs, seeded).unwrap();
    let base = owner.mine(JSON::parse(r#"{"epsilon": 0.1, "miner": "exact"}"#).unwrap(), None).unwrap();
    let shared =
        DataOwner::merge_bases(base.clone().into(), base.clone().into(), JSON::parse(r#"{"k": 20}"#).unwrap()).unwrap();
    let a = owner.embed(shared.clone().into(), JSON::parse(r#"{"noKey": true}"#).unwrap(), None).unwrap();
    let info = batch_info(a).unwrap();
    assert_eq!(get(&info, "party").as_string().unwrap(), "A");
    assert_eq!(get(&info, "size").as_f64(), Some(3.0));
    assert_eq!(get(&info, "thresholdMode").as_string().unwrap(), "sound", "the default threshold mode");
    let b = owner
        .embed(shared.into(), JSON::parse(r#"{"party": "B", "binary": true, "noKey": true}"#).unwrap(), None)
        .unwrap();
    assert!(b.is_instance_of::<js_sys::Uint8Array>());
    let info = batch_info(b).unwrap();
    assert_eq!(get(&info, "party").as_string().unwrap(), "B");
    assert!(get(&info, "thresholdMode").is_null());
    // a noisy base is not a vector batch
    assert_eq!(code(batch_info(JsValue::from_str(&base)).unwrap_err()), "WRONG_MESSAGE_KIND");
    assert_eq!(code(batch_info(JsValue::from_f64(2.0)).unwrap_err()), "INVALID_PARAMETER");
}

const FEBRL_A: &str = include_str!("../data/febrl/dataset1-a.csv");

/// The FEBRL schema's fields that need no key (written as JSON: no TOML in wasm).
const FEBRL_SCHEMA: &str = r#"{"version": 1, "id": "rec_id", "epsilon": 0.1, "field": [
    {"name": "given_name", "kind": "name"}, {"name": "surname", "kind": "name"},
    {"name": "address_1", "kind": "string"}, {"name": "postcode", "kind": "number"},
    {"name": "date_of_birth", "kind": "date", "invalid": "missing"}]}"#;

/// A reader fed `bytes` in chunks of `size` (each a fresh `Uint8Array`, as a
/// `File`'s stream hands them out).
fn streamed(bytes: &[u8], size: usize) -> Result<RecordTableReader, JsValue> {
    let mut r = RecordTableReader::new(JsValue::from_str(FEBRL_SCHEMA), JsValue::UNDEFINED)?;
    for chunk in bytes.chunks(size) {
        r.push(js_sys::Uint8Array::from(chunk).into())?;
    }
    Ok(r)
}

#[wasm_bindgen_test]
fn a_record_csv_streamed_in_chunks_is_the_whole_ones() {
    let seeded = || JSON::parse(r#"{"seed": 5}"#).unwrap();
    let whole = RecordOwner::new(JsValue::from_str(FEBRL_A), JsValue::from_str(FEBRL_SCHEMA), seeded()).unwrap();
    assert_eq!(whole.size(), 500);
    for size in [7, 4096, 65536] {
        let mut r = streamed(FEBRL_A.as_bytes(), size).unwrap();
        assert_eq!(r.bytes_read(), FEBRL_A.len() as f64);
        // records are parsed a megabyte at a time: the last ones at the end
        assert!(r.records_read() <= 500.0);
        let owner = RecordOwner::from_reader(&mut r, seeded()).unwrap();
        assert_eq!(owner.size(), whole.size(), "chunks of {size}");
        assert_eq!(json(&owner.fields().unwrap()), json(&whole.fields().unwrap()), "chunks of {size}");
        assert_eq!(owner.schema_fingerprint(), whole.schema_fingerprint());
        // the reader is used up: a second owner from it is a named error
        assert_eq!(code(RecordOwner::from_reader(&mut r, seeded()).err().unwrap()), "INVALID_FORMAT");
    }
}

#[wasm_bindgen_test]
fn a_record_csv_cut_off_mid_stream_is_a_named_error() {
    let csv = format!("{FEBRL_A}rec-9-org,\"open");
    let mut r = streamed(csv.as_bytes(), 1000).unwrap();
    let e = RecordOwner::from_reader(&mut r, JsValue::UNDEFINED).err().unwrap();
    assert_eq!(code(e.clone()), "MALFORMED_CSV");
    let message = e.unchecked_ref::<js_sys::Error>().message().as_string().unwrap();
    assert!(message.contains("the quoted field opened on line 502 is never closed"), "{message}");
    // cut inside a UTF-8 sequence (the first byte of "é")
    let cut = [FEBRL_A.as_bytes(), b"rec-9-org, \xC3"].concat();
    let mut r = streamed(&cut, 333).unwrap();
    assert_eq!(code(RecordOwner::from_reader(&mut r, JsValue::UNDEFINED).err().unwrap()), "NOT_TEXT");
    // an error while pushing ends the reading; a chunk that is no bytes is refused
    let mut r = RecordTableReader::new(JsValue::from_str(FEBRL_SCHEMA), JsValue::UNDEFINED).unwrap();
    assert_eq!(code(r.push(js_sys::Uint8Array::from(&b"rec_id\0"[..]).into()).unwrap_err()), "NOT_TEXT");
    assert_eq!(code(r.push(js_sys::Uint8Array::from(&b"x"[..]).into()).unwrap_err()), "INVALID_FORMAT");
    assert_eq!(code(r.push(JsValue::from_str("text")).unwrap_err()), "INVALID_PARAMETER");
    // a schema that does not validate is refused before any byte is read
    let bad = JsValue::from_str(r#"{"version": 1, "field": [{"name": "x", "kind": "blob"}]}"#);
    assert!(RecordTableReader::new(bad, JsValue::UNDEFINED).is_err());
}
