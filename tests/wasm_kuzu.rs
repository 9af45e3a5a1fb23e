//! Kuzu et al.'s roles through their Rust bindings, in Node (or headless Chromium, as
//! the other wasm suites): a 512-bit key (small, NOT secure: for speed), one block,
//! two A records against two B records on a name and a year; C's decisions are the
//! rule's (each record matches its own duplicate only), and bad input is refused by
//! its JS error's `code`. tests/js/kuzu.test.mjs runs the same API through npm.
#![cfg(target_arch = "wasm32")]

mod wasm_common;
use gramlink::wasm::{kuzu_block_model, kuzu_decide, kuzu_keygen, KuzuOwner};
use js_sys::{Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use wasm_common::{assert_code, get, js};

const RULE: &str = r#"{"id": "id", "block": "name", "threshold": 0.7, "attribute": [
    {"column": "name", "kind": "string", "weight": 0.8},
    {"column": "year", "kind": "year", "weight": 0.2, "min": 1900, "max": 2010}]}"#;

struct Run {
    key: JsValue,
    model: JsValue,
    blocks: Uint8Array,
    b: KuzuOwner,
}

fn encrypt() -> Run {
    let key: JsValue = kuzu_keygen(JsValue::from(512), js(r#"{"seed": 5}"#)).unwrap().into();
    let model: JsValue = kuzu_block_model("SMITH\n".into(), js(r#"{"take": 1, "blocks": 1}"#)).unwrap().into();
    let a = KuzuOwner::new("id,name,year\na1,JOHNSON,1970\na2,WILLIAMS,1985\n".into(), RULE.into()).unwrap();
    let b = KuzuOwner::new("id,name,year\nb1,WILLIAMSON,1985\nb2,JONSON,1970\n".into(), RULE.into()).unwrap();
    // a large ε and a tiny w_n: (almost) no fakes, so the test stays small
    let opts = js(r#"{"epsilon": 50, "wn": 10, "bRecords": 2, "seed": 1}"#);
    let out = a.encrypt(model.clone(), get(&key, "publicKey"), opts, None).unwrap();
    Run { blocks: get(&out, "blocks").dyn_into().unwrap(), key, model, b }
}

#[wasm_bindgen_test]
fn the_three_roles_decide_as_the_rule() {
    let r = encrypt();
    let out = r.b.compare(r.model, get(&r.key, "publicKey"), r.blocks.into(), js(r#"{"seed": 2}"#), None).unwrap();
    let map = JSON::parse(&get(&out, "map").as_string().unwrap()).unwrap();
    let matches = kuzu_decide(get(&out, "pairs"), RULE.into(), get(&r.key, "privateKey"), None).unwrap();
    let matches = JSON::parse(&matches).unwrap();
    // pair id -> B id, through B's map
    let rows: js_sys::Array = get(&map, "pairs").dyn_into().unwrap();
    let mut matched_b: Vec<String> = js_sys::Array::from(&get(&matches, "pairs"))
        .iter()
        .map(|id| {
            let row = rows.iter().find(|row| js_sys::Array::from(row).get(0) == id).unwrap();
            js_sys::Array::from(&row).get(2).as_string().unwrap()
        })
        .collect();
    matched_b.sort();
    // JOHNSON/JONSON and WILLIAMS/WILLIAMSON reach θ with their years; no cross pair does
    assert_eq!(matched_b, ["b1", "b2"]);
    assert_eq!(get(&matches, "key"), get(&r.key, "fingerprint"));
}

#[wasm_bindgen_test]
fn bad_input_is_refused_by_code() {
    let r = encrypt();
    let other: JsValue = kuzu_keygen(JsValue::from(512), js(r#"{"seed": 6}"#)).unwrap().into();
    let blocks = || JsValue::from(r.blocks.clone());
    assert_code(
        r.b.compare(r.model.clone(), get(&other, "publicKey"), blocks(), JsValue::NULL, None),
        "FINGERPRINT_MISMATCH",
    );
    let short = r.blocks.slice(0, r.blocks.length() - 9);
    assert_code(
        r.b.compare(r.model.clone(), get(&r.key, "publicKey"), short.into(), JsValue::NULL, None),
        "TRUNCATED_MESSAGE",
    );
    let forged = r.blocks.slice(0, r.blocks.length());
    // the last ciphertext, before the count (0) of the block of empty identifiers
    forged.fill(0, forged.length() - 4 - 128, forged.length() - 4);
    assert_code(
        r.b.compare(r.model.clone(), get(&r.key, "publicKey"), forged.into(), JsValue::NULL, None),
        "INVALID_MESSAGE",
    );
    assert_code(
        kuzu_decide(Uint8Array::new_with_length(4).into(), RULE.into(), get(&r.key, "publicKey"), None),
        "WRONG_MESSAGE_KIND",
    );
    assert_code(kuzu_keygen(JsValue::from(100), JsValue::UNDEFINED), "INVALID_PARAMETER");
    assert_code(KuzuOwner::new("id,name,year\n1,A,1970\n".into(), "{}".into()), "INVALID_PARAMETER");
    // a progress callback that returns false cancels
    let stop = js_sys::Function::new_no_args("return false");
    let a = KuzuOwner::new("id,name,year\na1,JOHNSON,1970\n".into(), RULE.into()).unwrap();
    let opts = js(r#"{"bRecords": 2, "seed": 1}"#);
    assert_code(a.encrypt(r.model.clone(), get(&r.key, "publicKey"), opts, Some(stop)), "CANCELLED");
}
