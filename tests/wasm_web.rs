//! What the web pages add to the JS API (src/wasm/defaults.rs): `defaults()` is
//! the core's defaults, `normalize()` is `DataOwner`'s normalization, and
//! `batchInfo()` checks one vector batch as `new Matcher` does. Node and Chromium.
#![cfg(target_arch = "wasm32")]

use gramlink::mine::MineOptions;
use gramlink::wasm::{batch_info, defaults, normalize, DataOwner};
use js_sys::{Array, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

fn code(e: JsValue) -> String {
    get(&e, "code").as_string().unwrap_or_default()
}

#[wasm_bindgen_test]
fn defaults_are_the_cores() {
    let d = defaults().unwrap();
    let mine: MineOptions = serde_wasm_bindgen::from_value(get(&d, "mine")).unwrap();
    assert_eq!(mine, MineOptions::default());
    let scenario = JSON::stringify(&get(&d, "scenario")).unwrap().as_string().unwrap();
    let core = serde_json::to_string(&gramlink::eval::scenario::ScenarioOptions::default()).unwrap();
    assert_eq!(serde_json::from_str::<serde_json::Value>(&scenario).unwrap(), serde_json::from_str::<serde_json::Value>(&core).unwrap());
    assert_eq!(get(&get(&d, "owner"), "alphabet").as_string().unwrap(), "ABCDEFGHIJKLMNOPQRSTUVWXYZ ");
    assert_eq!(get(&get(&d, "thresholds"), "ed").as_f64(), Some(1.0));
    assert_eq!(get(&get(&d, "thresholds"), "mode").as_string().unwrap(), "paper");
    assert_eq!(get(&get(&d, "match"), "oneToOne"), JsValue::FALSE);
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
    let shared = DataOwner::merge_bases(base.clone().into(), base.clone().into(), JsValue::from_f64(20.0)).unwrap();
    let a = owner.embed(shared.clone().into(), JsValue::UNDEFINED, None).unwrap();
    let info = batch_info(a).unwrap();
    assert_eq!(get(&info, "party").as_string().unwrap(), "A");
    assert_eq!(get(&info, "size").as_f64(), Some(3.0));
    assert_eq!(get(&info, "thresholdMode").as_string().unwrap(), "paper");
    let b = owner.embed(shared.into(), JSON::parse(r#"{"party": "B", "binary": true}"#).unwrap(), None).unwrap();
    assert!(b.is_instance_of::<js_sys::Uint8Array>());
    let info = batch_info(b).unwrap();
    assert_eq!(get(&info, "party").as_string().unwrap(), "B");
    assert!(get(&info, "thresholdMode").is_null());
    // a noisy base is not a vector batch
    assert_eq!(code(batch_info(JsValue::from_str(&base)).unwrap_err()), "WRONG_MESSAGE_KIND");
    assert_eq!(code(batch_info(JsValue::from_f64(2.0)).unwrap_err()), "INVALID_PARAMETER");
}
