//! The JS API's size limits (issue 22, reliability): a message or a batch too
//! large for wasm memory is a named error up front, never an `unreachable` trap
//! from a failed allocation.
#![cfg(target_arch = "wasm32")]

use gramlink::wasm::{batch_info, DataOwner};
use js_sys::{Array, Reflect, Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

const CITIES: &str = include_str!("../data/cities.txt");

fn js(json: &str) -> JsValue {
    JSON::parse(json).unwrap()
}

#[track_caller]
fn code_and_message<T>(r: Result<T, JsValue>) -> (String, String) {
    let e = r.err().expect("an error");
    let code = Reflect::get(&e, &"code".into()).unwrap().as_string().unwrap_or_default();
    (code, e.unchecked_ref::<js_sys::Error>().message().as_string().unwrap_or_default())
}

#[wasm_bindgen_test]
fn a_message_past_the_limit_is_refused_before_it_is_copied() {
    // 513 MiB of zeros: the length is checked before the bytes enter wasm memory
    let big = Uint8Array::new_with_length(513 << 20);
    let (code, message) = code_and_message(batch_info(big.into()));
    assert_eq!(code, "INVALID_MESSAGE", "{message}");
    assert!(message.contains("more than the 536870912"), "{message}");
}

#[wasm_bindgen_test]
fn a_keyed_batch_too_large_for_wasm_is_refused_before_the_work() {
    // 9,000 records over the public 3-grams (21,141 grams, padded to 32,768
    // dimensions when keyed): 1.2 GB of dense vectors
    let records: Array = CITIES.lines().chain(CITIES.lines()).take(9000).map(JsValue::from_str).collect();
    let mut a = DataOwner::new(records.into(), js(r#"{"budget": 2, "seed": 1}"#)).unwrap();
    let na = a.mine(js(r#"{"epsilon": 1, "k": 20}"#), None).unwrap();
    let shared = DataOwner::merge_bases(na.clone().into(), na.into(), js(r#"{"k": 20, "publicQ": 3}"#)).unwrap();
    let key = JsValue::from_str(&"ab".repeat(32));
    // the rotation (a named option) is dense; the default sketch is sparse
    let options = js(r#"{"party": "B", "binary": true, "encoding": "rotation"}"#);
    Reflect::set(&options, &"key".into(), &key).unwrap();
    let (code, message) = code_and_message(a.embed(shared.clone().into(), options, None));
    assert_eq!(code, "INVALID_PARAMETER", "{message}");
    assert!(message.contains("keyed (dense) batch of 9000 records") && message.contains("wasm memory"), "{message}");
    // the same records unkeyed, or sketched (the default encoding), are sparse, and fit
    assert!(a.embed(shared.clone().into(), js(r#"{"party": "B", "binary": true, "noKey": true}"#), None).is_ok());
    let options = js(r#"{"party": "B", "binary": true}"#);
    Reflect::set(&options, &"key".into(), &key).unwrap();
    assert!(a.embed(shared.into(), options, None).is_ok());
}
