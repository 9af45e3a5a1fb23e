//! What the wasm API's tests share (tests/wasm_api.rs, tests/wasm_errors.rs):
//! JS values from Rust, the check of a JS error's code, and the two-party
//! protocol over CITIES with its paper configuration.
#![allow(dead_code)] // each test file uses a part

use gramlink::wasm::DataOwner;
use js_sys::{Array, Object, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};

pub const CITIES: &str = include_str!("../../data/cities.txt");

pub fn js(json: &str) -> JsValue {
    JSON::parse(json).unwrap()
}

pub fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

/// A JS value as a serde_json value (object keys in any order; numbers exact).
pub fn as_json(v: &JsValue) -> serde_json::Value {
    serde_json::from_str(&String::from(JSON::stringify(v).unwrap())).unwrap()
}

pub fn strings(xs: &[String]) -> JsValue {
    xs.iter().map(|s| JsValue::from_str(s)).collect::<Array>().into()
}

/// The error is a real JS `Error` with this `code`; returns its message.
#[track_caller]
pub fn assert_code<T>(r: Result<T, JsValue>, code: &str) -> String {
    let e = match r {
        Ok(_) => panic!("expected a JS error with code {code}, got a value"),
        Err(e) => e,
    };
    assert!(e.is_instance_of::<js_sys::Error>(), "not a JS Error: {e:?}");
    let got = get(&e, "code").as_string().unwrap_or_default();
    let message = e.unchecked_ref::<js_sys::Error>().message().as_string().unwrap_or_default();
    assert_eq!(got, code, "wrong code; message: {message}");
    assert!(!message.is_empty());
    message
}

pub fn cities(n: usize) -> Vec<String> {
    CITIES.lines().take(n).map(str::to_string).collect()
}

/// B's copy: every third record loses its second character, the rest are unchanged.
pub fn corrupted(a: &[String]) -> Vec<String> {
    a.iter()
        .enumerate()
        .map(|(i, s)| {
            if i % 3 == 1 && s.chars().count() > 2 {
                s.chars().enumerate().filter(|&(j, _)| j != 1).map(|(_, c)| c).collect()
            } else {
                s.clone()
            }
        })
        .collect()
}

pub fn owner(records: &[String], options: &str) -> DataOwner {
    DataOwner::new(strings(records), js(options)).unwrap()
}

/// The paper's configuration, written out over the recommended defaults: mined
/// 1–3-grams of the unpadded records, no public grams.
pub const MINE: &str = r#"{"miner": "fpm", "epsilon": 2, "k": 75, "qMin": 1, "padding": false}"#;
pub const PAPER_MERGE: &str = r#"{"publicQ": null, "padding": false}"#;

/// `mergeBases` with `k` set in a copy of the (mining) options.
pub fn merge(a: JsValue, b: JsValue, k: impl Into<JsValue>, options: JsValue) -> Result<String, JsValue> {
    let o = if options.is_undefined() || options.is_null() {
        Object::new()
    } else if options.is_object() {
        Object::assign(&Object::new(), options.unchecked_ref())
    } else {
        return DataOwner::merge_bases(a, b, options);
    };
    Reflect::set(&o, &"k".into(), &k.into()).unwrap();
    DataOwner::merge_bases(a, b, o.into())
}

pub struct Protocol {
    pub a: DataOwner,
    pub shared: String,
    pub batch_a: JsValue,
    pub batch_b: JsValue,
    /// B's id map (pseudonym → own id): batches are shuffled, the maps say whose each row is.
    pub map_b: String,
}

pub fn protocol(n: usize) -> Protocol {
    let ra = cities(n);
    let rb = corrupted(&ra);
    let mut a = owner(&ra, r#"{"budget": 2, "seed": 1}"#);
    let mut b = owner(&rb, r#"{"budget": 2, "seed": 2}"#);
    let na = a.mine(js(MINE), None).unwrap();
    let nb = b.mine(js(MINE), None).unwrap();
    let shared = merge(na.into(), nb.into(), 75, js(PAPER_MERGE)).unwrap();
    let batch_a = a
        .embed(
            shared.clone().into(),
            js(r#"{"party": "A", "thresholds": {"ed": 1, "mode": "paper"}, "noKey": true}"#),
            None,
        )
        .unwrap();
    let batch_b = b.embed(shared.clone().into(), js(r#"{"party": "B", "binary": true, "noKey": true}"#), None).unwrap();
    let map_b = b.id_map_csv().unwrap().expect("a pseudonymous batch has a map");
    Protocol { a, shared, batch_a, batch_b, map_b }
}
