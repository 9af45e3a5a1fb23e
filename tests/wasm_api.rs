//! The JS API (src/wasm) through its Rust bindings, run in Node and in headless
//! Chromium (the environment, WASM_BINDGEN_USE_BROWSER, picks which: no
//! `run_in_browser` here). The whole protocol end to end, and every error path a
//! caller can reach, each checked by the JS error's `code`.
#![cfg(target_arch = "wasm32")]

use gramlink::protocol::VectorBatch;
use gramlink::wasm::{fingerprint, run_scenario, DataOwner, Matcher};
use js_sys::{Array, Float64Array, Object, Reflect, Uint32Array, Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

const CITIES: &str = include_str!("../data/cities.txt");
const GOLDEN_SCENARIO: &str = include_str!("golden/scenario_cities1000_ed1_seed42.json");

fn js(json: &str) -> JsValue {
    JSON::parse(json).unwrap()
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

fn strings(xs: &[String]) -> JsValue {
    xs.iter().map(|s| JsValue::from_str(s)).collect::<Array>().into()
}

/// The error is a real JS `Error` with this `code`; returns its message.
#[track_caller]
fn assert_code<T>(r: Result<T, JsValue>, code: &str) -> String {
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

fn cities(n: usize) -> Vec<String> {
    CITIES.lines().take(n).map(str::to_string).collect()
}

/// B's copy: every third record loses its second character, the rest are unchanged.
fn corrupted(a: &[String]) -> Vec<String> {
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

fn owner(records: &[String], options: &str) -> DataOwner {
    DataOwner::new(strings(records), js(options)).unwrap()
}

const MINE: &str = r#"{"miner": "fpm", "epsilon": 2, "k": 75}"#;

struct Protocol {
    a: DataOwner,
    shared: String,
    batch_a: JsValue,
    batch_b: JsValue,
}

fn protocol(n: usize) -> Protocol {
    let ra = cities(n);
    let rb = corrupted(&ra);
    let mut a = owner(&ra, r#"{"budget": 2, "seed": 1}"#);
    let mut b = owner(&rb, r#"{"budget": 2, "seed": 2}"#);
    let na = a.mine(js(MINE), None).unwrap();
    let nb = b.mine(js(MINE), None).unwrap();
    let shared = DataOwner::merge_bases(na.into(), nb.into(), JsValue::from(75)).unwrap();
    let batch_a = a.embed(shared.clone().into(), js(r#"{"party": "A", "thresholds": {"ed": 1, "mode": "paper"}}"#), None).unwrap();
    let batch_b = b.embed(shared.clone().into(), js(r#"{"party": "B", "binary": true}"#), None).unwrap();
    Protocol { a, shared, batch_a, batch_b }
}

/// Two owners on 2,500 cities (with non-ASCII names) and a corrupted copy: mine,
/// merge, embed (JSON and binary), match by both rules.
#[wasm_bindgen_test]
fn protocol_end_to_end() {
    let n = 2500;
    let p = protocol(n);
    assert!(p.batch_a.is_string(), "JSON batch is a string");
    assert!(p.batch_b.is_instance_of::<Uint8Array>(), "binary batch is a Uint8Array");
    let fp = fingerprint(p.shared.clone().into()).unwrap();
    assert_eq!(fp.len(), 64);
    assert!(p.shared.contains(&fp));
    assert!((p.a.epsilon_spent() - 2.0).abs() < 1e-9 && !p.a.private());

    let m = Matcher::new(p.batch_a.clone(), p.batch_b.clone()).unwrap();
    assert_eq!((m.size_a(), m.size_b(), m.fingerprint()), (n, n, fp.clone()));
    let r: JsValue = m.run(JsValue::UNDEFINED).unwrap().into();
    assert_eq!(get(&r, "rule").as_string().unwrap(), "threshold");
    let ia: Uint32Array = get(&r, "a").dyn_into().unwrap();
    let ib: Uint32Array = get(&r, "b").dyn_into().unwrap();
    let d: Float64Array = get(&r, "distances").dyn_into().unwrap();
    let (ia, ib, d) = (ia.to_vec(), ib.to_vec(), d.to_vec());
    let count = get(&r, "count").as_f64().unwrap() as usize;
    assert!(count > 0 && ia.len() == count && ib.len() == count && d.len() == count);
    assert!(get(&r, "candidates").as_f64().unwrap() >= count as f64);
    let a_ids: Array = get(&r, "aIds").dyn_into().unwrap();
    assert_eq!(a_ids.length() as usize, count);
    assert_eq!(a_ids.get(0).as_string().unwrap(), (ia[0] + 1).to_string());
    // every unchanged record (distance 0 is within any threshold) is linked to its copy
    let pairs: std::collections::HashSet<(u32, u32)> = ia.iter().copied().zip(ib.iter().copied()).collect();
    for i in (0..n as u32).filter(|i| i % 3 != 1) {
        assert!(pairs.contains(&(i, i)), "unchanged record {} ({}) not linked", i + 1, cities(n)[i as usize]);
    }
    assert!(d.iter().all(|x| x.is_finite() && *x >= 0.0));

    let one: JsValue = m.run(js(r#"{"oneToOne": true}"#)).unwrap().into();
    assert_eq!(get(&one, "rule").as_string().unwrap(), "one-to-one");
    let oa = get(&one, "a").dyn_into::<Uint32Array>().unwrap().to_vec();
    let ob = get(&one, "b").dyn_into::<Uint32Array>().unwrap().to_vec();
    assert!(oa.len() <= count && oa.len() > n / 2);
    assert_eq!(oa.iter().collect::<std::collections::HashSet<_>>().len(), oa.len());
    assert_eq!(ob.iter().collect::<std::collections::HashSet<_>>().len(), ob.len());
    let msg = m.match_result(js(r#"{"oneToOne": true}"#)).unwrap();
    assert!(msg.contains("gramlink/match-result") && msg.contains(&fp));

    // thresholds and vectors, locally
    let th = p.a.thresholds(p.shared.clone().into(), JsValue::from(1), JsValue::from_str("sound")).unwrap();
    assert_eq!(th.length() as usize, n);
    let v = p.a.embed_vectors(p.shared.clone().into()).unwrap();
    assert_eq!(v.length() as usize, n * m.dim());
}

/// All of CITIES, non-ASCII names included: normalization, and the seeded
/// scenario through `runScenario` equals the native golden values.
#[wasm_bindgen_test]
fn cities_with_non_ascii_names() {
    let all: Vec<String> = CITIES.lines().map(str::to_string).collect();
    assert!(all.iter().any(|s| s == "Kīhei") && all.iter().any(|s| !s.is_ascii()));
    let o = owner(&all, "{}");
    let report = o.normalization_report().unwrap();
    assert_eq!(get(&report, "total").as_f64().unwrap() as usize, all.len());
    assert!(get(&report, "changed").as_f64().unwrap() > 0.0);
    assert!(Array::is_array(&get(&report, "empty_ids")), "the core's report names it empty_ids");
    assert!(o.private());

    let first: Vec<String> = all[..1000].to_vec();
    let ticks = std::rc::Rc::new(std::cell::Cell::new(0u32));
    let t = ticks.clone();
    let counter = wasm_bindgen::closure::Closure::<dyn FnMut(String, f64, f64)>::new(move |_: String, _: f64, _: f64| {
        t.set(t.get() + 1);
    });
    let r = run_scenario(strings(&first), js(r#"{"ed": 1, "seed": 42}"#), Some(counter.as_ref().unchecked_ref::<js_sys::Function>().clone())).unwrap();
    assert!(ticks.get() > 2, "the progress callback was called {} times", ticks.get());
    let golden = js(GOLDEN_SCENARIO);
    for key in ["f1", "precision", "recall", "candidates", "fingerprint", "hMax", "pairs"] {
        assert_eq!(get(&r, key), get(&golden, key), "{key} differs from the native golden value");
    }
    let timings = get(&r, "timingsMs");
    assert!(!timings.is_instance_of::<js_sys::Map>(), "timings are a plain object");
    assert!(get(&timings, "match").as_f64().unwrap() >= 0.0);
    assert!(Array::is_array(&get(&r, "sample")));

    // the whole of CITIES (with its non-ASCII names) by the sound rule, one-to-one
    let r = run_scenario(strings(&all), js(r#"{"ed": 1, "threshold": "sound", "oneToOne": true, "miner": "fpm", "epsilon": 1}"#), None).unwrap();
    assert_eq!(get(&r, "n").as_f64().unwrap() as usize, all.len());
    assert!(get(&r, "recall").as_f64().unwrap() > 0.5, "recall {:?}", get(&r, "recall"));
}

/// A progress callback sees the phases; returning false cancels (CANCELLED).
#[wasm_bindgen_test]
fn progress_and_cancel() {
    // a cancelled mining has still been charged (the ledger charges before it draws)
    let mut o = owner(&cities(200), r#"{"seed": 3, "budget": 1}"#);
    let stop = js_sys::Function::new_with_args("phase, done, total", "return false");
    assert_code(o.mine(JsValue::UNDEFINED, Some(stop)), "CANCELLED");
    let noop = js_sys::Function::new_with_args("phase, done, total", "if (typeof phase !== 'string') throw new Error('phase')");
    o.mine(JsValue::UNDEFINED, Some(noop)).unwrap();
    let thrower = js_sys::Function::new_with_args("", "throw new Error('boom')");
    let m = assert_code(run_scenario(strings(&cities(50)), JsValue::UNDEFINED, Some(thrower)), "INVALID_PARAMETER");
    assert!(m.contains("boom"), "{m}");
}

#[wasm_bindgen_test]
fn bad_records() {
    assert_code(DataOwner::new(Array::new().into(), JsValue::UNDEFINED), "EMPTY_INPUT");
    assert_code(DataOwner::new(JsValue::from_str("Paris"), JsValue::UNDEFINED), "INVALID_PARAMETER");
    assert_code(DataOwner::new(js(r#"["Paris", 3]"#), JsValue::UNDEFINED), "INVALID_PARAMETER");
    assert_code(run_scenario(Array::new().into(), JsValue::UNDEFINED, None), "EMPTY_INPUT");
    assert_code(DataOwner::from_csv("id,name\n1,Paris\n".into(), "city".into(), JsValue::UNDEFINED, JsValue::UNDEFINED), "MISSING_COLUMN");
    assert_code(DataOwner::from_csv("id,name\n1,Paris\n1,Rome\n".into(), "name".into(), "id".into(), JsValue::UNDEFINED), "DUPLICATE_ID");
    assert_code(DataOwner::from_csv(JsValue::from(5), "name".into(), JsValue::UNDEFINED, JsValue::UNDEFINED), "INVALID_PARAMETER");
    let o = DataOwner::from_csv("id,name\nx1,Paris\nx2,Zürich\nx3,\"!!\"\n".into(), "name".into(), "id".into(), JsValue::UNDEFINED).unwrap();
    assert_eq!(o.ids(), vec!["x1".to_string(), "x2".to_string()]);
    let empty = JSON::stringify(&get(&o.normalization_report().unwrap(), "empty_ids")).unwrap();
    assert_eq!(String::from(empty), r#"["x3"]"#);
}

#[wasm_bindgen_test]
fn bad_options() {
    let r = cities(100);
    assert_code(DataOwner::new(strings(&r), JsValue::from(5)), "INVALID_PARAMETER");
    assert_code(DataOwner::new(strings(&r), js(r#"{"budgit": 1}"#)), "INVALID_PARAMETER");
    assert_code(DataOwner::new(strings(&r), js(r#"{"budget": -1}"#)), "INVALID_EPSILON");
    assert_code(DataOwner::new(strings(&r), js(r#"{"alphabet": "AAB"}"#)), "INVALID_ALPHABET");
    let mut o = owner(&r, r#"{"seed": 1}"#);
    let m = assert_code(o.mine(js(r#"{"kk": 3}"#), None), "INVALID_PARAMETER");
    assert!(m.contains("kk"), "{m}");
    assert_code(o.mine(js(r#"[1, 2]"#), None), "INVALID_PARAMETER");
    assert_code(o.mine(js(r#"{"k": "many"}"#), None), "INVALID_PARAMETER");
    let m = assert_code(o.mine(js(r#"{"miner": "magic"}"#), None), "INVALID_PARAMETER");
    assert!(m.contains("magic"), "{m}");
    let nan = Object::new();
    Reflect::set(&nan, &"epsilon".into(), &JsValue::from_f64(f64::NAN)).unwrap();
    assert_code(o.mine(nan.into(), None), "INVALID_EPSILON");
    assert_code(o.mine(js(r#"{"epsilon": 0}"#), None), "INVALID_EPSILON");
    assert_code(o.mine(js(r#"{"k": 0}"#), None), "INVALID_PARAMETER");
    assert_code(o.mine(js(r#"{"qMin": 3, "qMax": 2}"#), None), "INVALID_PARAMETER");
    assert_eq!(o.epsilon_spent(), 0.0, "failed minings charge nothing");
    assert_code(run_scenario(strings(&r), js(r#"{"threshold": "lenient"}"#), None), "INVALID_PARAMETER");
    assert_code(run_scenario(strings(&r), js(r#"{"seed": -1}"#), None), "INVALID_PARAMETER");
    assert_code(run_scenario(strings(&r), js(r#"{"alphabet": "AAB"}"#), None), "INVALID_ALPHABET");
    assert_code(run_scenario(strings(&r), js(r#"{"alphabet": 7}"#), None), "INVALID_PARAMETER");
    // the alphabet option is taken from a copy: the caller's object is left as it was
    let o = js(r#"{"alphabet": "ABCDEFGHIJKLMNOPQRSTUVWXYZ ", "k": 20}"#);
    let res = run_scenario(strings(&r), o.clone(), None).unwrap();
    assert_eq!(get(&res, "n").as_f64().unwrap() as usize, r.len());
    assert!(get(&o, "alphabet").is_string());
}

#[wasm_bindgen_test]
fn budget_exceeded() {
    let mut o = owner(&cities(300), r#"{"budget": 0.1}"#);
    o.mine(js(r#"{"epsilon": 0.1}"#), None).unwrap();
    let m = assert_code(o.mine(js(r#"{"epsilon": 0.1}"#), None), "BUDGET_EXCEEDED");
    assert!(m.contains("budget"), "{m}");
    let mut o = owner(&cities(300), r#"{"budget": 0.1}"#);
    assert_code(o.mine(js(r#"{"epsilon": 0.2}"#), None), "BUDGET_EXCEEDED");
}

#[wasm_bindgen_test]
fn bad_bases() {
    let mut a = owner(&cities(300), r#"{"seed": 4, "budget": 2}"#);
    let na = a.mine(js(MINE), None).unwrap();
    assert_code(DataOwner::merge_bases(na.clone().into(), na.clone().into(), JsValue::from(0)), "INVALID_BASE");
    assert_code(DataOwner::merge_bases(na.clone().into(), na.clone().into(), JsValue::from(2.5)), "INVALID_PARAMETER");
    assert_code(DataOwner::merge_bases(na.clone().into(), JsValue::from_str("{\"format\""), JsValue::from(10)), "TRUNCATED_MESSAGE");
    assert_code(DataOwner::merge_bases(na.clone().into(), JsValue::from_str("not json"), JsValue::from(10)), "MALFORMED_MESSAGE");
    let shared = DataOwner::merge_bases(na.clone().into(), na.clone().into(), JsValue::from(20)).unwrap();
    assert_code(DataOwner::merge_bases(shared.clone().into(), na.into(), JsValue::from(10)), "WRONG_MESSAGE_KIND");
    assert_code(fingerprint("{oops".into()), "MALFORMED_MESSAGE");
    assert_code(fingerprint(JsValue::UNDEFINED), "INVALID_PARAMETER");
    assert_code(a.embed("[]".into(), JsValue::UNDEFINED, None), "MALFORMED_MESSAGE");
    assert_code(a.embed(shared.replace("\"version\":1", "\"version\":9").into(), JsValue::UNDEFINED, None), "UNSUPPORTED_VERSION");
    let fp = fingerprint(shared.clone().into()).unwrap();
    let tampered = shared.replace(&fp, &"0".repeat(64));
    assert_code(a.embed(tampered.into(), JsValue::UNDEFINED, None), "FINGERPRINT_MISMATCH");
    assert_code(a.embed(shared.clone().into(), js(r#"{"party": "C"}"#), None), "INVALID_PARAMETER");
    assert_code(a.embed(shared.clone().into(), js(r#"{"thresholds": {"ed": 99}}"#), None), "INVALID_PARAMETER");
    assert_code(a.thresholds(shared.clone().into(), JsValue::from(-1), JsValue::UNDEFINED), "INVALID_PARAMETER");
    assert_code(a.thresholds(shared.into(), JsValue::from(1), js(r#"{"global": -2}"#)), "INVALID_PARAMETER");
}

#[wasm_bindgen_test]
fn bad_batches() {
    let p = protocol(300);
    // another base: fingerprint mismatch
    let mut c = owner(&cities(300), r#"{"budget": 2, "seed": 9}"#);
    let nc = c.mine(js(MINE), None).unwrap();
    let other = DataOwner::merge_bases(nc.clone().into(), nc.into(), JsValue::from(40)).unwrap();
    let batch_c = c.embed(other.into(), js(r#"{"party": "B"}"#), None).unwrap();
    let m = assert_code(Matcher::new(p.batch_a.clone(), batch_c), "FINGERPRINT_MISMATCH");
    assert!(m.contains("fingerprint"), "{m}");

    // wrong dimension: same base, one component dropped from every B vector
    let bytes = p.batch_b.dyn_ref::<Uint8Array>().unwrap().to_vec();
    let mut b = VectorBatch::read(&bytes).unwrap();
    let dim = b.vectors.dim;
    b.vectors.data = b.vectors.data.chunks(dim).flat_map(|r| r[..dim - 1].to_vec()).collect();
    b.vectors.dim = dim - 1;
    let m = assert_code(Matcher::new(p.batch_a.clone(), b.to_json().into()), "INVALID_PARAMETER");
    assert!(m.contains("dimension"), "{m}");
    // a batch whose numbers do not make its announced vectors
    let a_json = p.batch_a.as_string().unwrap();
    let bad_dim = a_json.replacen(&format!("\"dim\":{dim}"), &format!("\"dim\":{}", dim + 1), 1);
    assert_ne!(bad_dim, a_json);
    assert_code(Matcher::new(bad_dim.into(), p.batch_b.clone()), "INVALID_MESSAGE");
    // truncated binary, wrong types, no thresholds, not a batch
    assert_code(Matcher::new(p.batch_a.clone(), Uint8Array::from(&bytes[..bytes.len() - 3]).into()), "TRUNCATED_MESSAGE");
    assert_code(Matcher::new(p.batch_a.clone(), JsValue::from(3)), "INVALID_PARAMETER");
    assert_code(Matcher::new(p.batch_b.clone(), p.batch_b.clone()), "INVALID_PARAMETER");
    assert_code(Matcher::new(p.shared.clone().into(), p.batch_b.clone()), "WRONG_MESSAGE_KIND");
    let m = Matcher::new(p.batch_a.clone(), p.batch_b.clone()).unwrap();
    assert_code(m.run(js(r#"{"one_to_one": true}"#)), "INVALID_PARAMETER");
}
