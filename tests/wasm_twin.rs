//! `makeTwin` through its Rust binding, in Node (or headless Chromium, as the
//! other wasm suites): a seeded twin of place names with its report, and each
//! bad input refused by its JS error's `code`.
#![cfg(target_arch = "wasm32")]

mod wasm_common;
use gramlink::wasm::make_twin;
use js_sys::{Array, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use wasm_common::{assert_code, get, js};

const CITIES: &str = include_str!("../data/cities.txt");

fn cities(n: usize) -> JsValue {
    CITIES.lines().take(n).map(JsValue::from_str).collect::<Array>().into()
}

#[wasm_bindgen_test]
fn a_seeded_twin_is_marked_and_reproducible() {
    let opts = || js(r#"{"seed": 3, "twin": {"condense": {"k": 5}, "nnSample": 20}}"#);
    let t = make_twin(cities(300), opts()).unwrap();
    assert_eq!(get(&t, "synthetic"), JsValue::TRUE);
    let report = get(&t, "report");
    assert_eq!(get(&report, "differentiallyPrivate"), JsValue::FALSE);
    let records: Array = get(&t, "records").dyn_into().unwrap();
    assert_eq!(records.length() as f64, get(&report, "twinRows").as_f64().unwrap());
    let again: Array = get(&make_twin(cities(300), opts()).unwrap(), "records").dyn_into().unwrap();
    assert_eq!(JSON::stringify(&records).unwrap(), JSON::stringify(&again).unwrap());
}

#[wasm_bindgen_test]
fn bad_input_is_refused_by_code() {
    assert_code(make_twin(cities(3), js(r#"{"twin": {"condense": {"k": 4}}}"#)), "TOO_FEW_RECORDS");
    assert_code(make_twin(cities(30), js(r#"{"twin": {"condense": {"k": 0}}}"#)), "INVALID_PARAMETER");
    assert_code(make_twin(cities(30), js(r#"{"colour": 1}"#)), "INVALID_PARAMETER");
    assert_code(make_twin(Array::new().into(), JsValue::UNDEFINED), "EMPTY_INPUT");
    let csv = JsValue::from_str("id,name,sex\n1,ANNA,F\n2,BOB,F\n3,CARL,F\n");
    let schema = r#"{"schema": {"version": 1, "id": "id", "field": [{"name": "name", "kind": "name"}, {"name": "sex", "kind": "clear"}]}, "twin": {"condense": {"k": 1}}}"#;
    assert_code(make_twin(csv, js(schema)), "CONSTANT_COLUMN");
}
