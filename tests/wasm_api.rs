//! The JS API (src/wasm) through its Rust bindings, run in Node and in headless
//! Chromium (the environment, WASM_BINDGEN_USE_BROWSER, picks which: no
//! `run_in_browser` here). The whole protocol end to end, and every error path a
//! caller can reach, each checked by the JS error's `code`.
#![cfg(target_arch = "wasm32")]

use gramlink::protocol::VectorBatch;
use gramlink::wasm::{defaults, fingerprint, run_scenario, unmap_pairs, DataOwner, Matcher};
use js_sys::{Array, Float64Array, Object, Reflect, Uint32Array, Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

const CITIES: &str = include_str!("../data/cities.txt");
const GOLDEN_SCENARIO: &str = include_str!("golden/scenario_cities1000_ed1_seed42.json");
const GOLDEN_RECOMMENDED: &str = include_str!("golden/scenario_cities1000_ed1_seed42_recommended.json");

fn js(json: &str) -> JsValue {
    JSON::parse(json).unwrap()
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

/// A JS value as a serde_json value (object keys in any order; numbers exact).
fn as_json(v: &JsValue) -> serde_json::Value {
    serde_json::from_str(&String::from(JSON::stringify(v).unwrap())).unwrap()
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

/// The paper's configuration, written out over the recommended defaults: mined
/// 1–3-grams of the unpadded records, no public grams.
const MINE: &str = r#"{"miner": "fpm", "epsilon": 2, "k": 75, "qMin": 1, "padding": false}"#;
const PAPER_MERGE: &str = r#"{"publicQ": null, "padding": false}"#;

/// `mergeBases` with `k` set in a copy of the (mining) options.
fn merge(a: JsValue, b: JsValue, k: impl Into<JsValue>, options: JsValue) -> Result<String, JsValue> {
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

struct Protocol {
    a: DataOwner,
    shared: String,
    batch_a: JsValue,
    batch_b: JsValue,
    /// B's id map (pseudonym → own id): batches are shuffled, the maps say whose each row is.
    map_b: String,
}

fn protocol(n: usize) -> Protocol {
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

/// The records linked, as (A record, B record) indices: each pair's pseudonyms
/// through the owners' id maps (own ids are record numbers from 1), since the
/// batches' rows are shuffled.
fn linked_records(r: &JsValue, map_a: &str, map_b: &str) -> Vec<(u32, u32)> {
    // a row stands for every record of its group of identical ones: every pair of them
    let index = |map: &str| -> std::collections::HashMap<String, Vec<u32>> {
        let mut out: std::collections::HashMap<String, Vec<u32>> = std::collections::HashMap::new();
        for l in map.lines().skip(1) {
            let (p, id) = l.split_once(',').unwrap();
            out.entry(p.to_string()).or_default().push(id.parse::<u32>().unwrap() - 1);
        }
        out
    };
    let (ia, ib) = (index(map_a), index(map_b));
    let ids = |k: &str| -> Vec<String> {
        get(r, k).dyn_into::<Array>().unwrap().iter().map(|x| x.as_string().unwrap()).collect()
    };
    let mut out = Vec::new();
    for (a, b) in ids("aIds").iter().zip(ids("bIds")) {
        for &x in &ia[a] {
            out.extend(ib[&b].iter().map(|&y| (x, y)));
        }
    }
    out
}

/// The rows of a batch whose owner's id map is `map`: one per distinct pseudonym.
fn rows_of(map: &str) -> usize {
    map.lines().skip(1).map(|l| l.split_once(',').unwrap().0).collect::<std::collections::HashSet<_>>().len()
}

/// The rows linked, as (A row, B row).
fn linked(r: &JsValue) -> Vec<(u32, u32)> {
    let ia = get(r, "a").dyn_into::<Uint32Array>().unwrap().to_vec();
    let ib = get(r, "b").dyn_into::<Uint32Array>().unwrap().to_vec();
    ia.into_iter().zip(ib).collect()
}

/// [`linked_records`] with the two maps a run stored in its result (`records`).
fn records_of(r: &JsValue) -> Vec<(u32, u32)> {
    let maps = get(r, "records").as_string().unwrap();
    let (a, b) = maps.split_once('\u{0}').unwrap();
    linked_records(r, a, b)
}

/// F1 of linked records against the truth "row i of A is row i of B" (every record).
fn f1(pairs: &[(u32, u32)], n: usize) -> f64 {
    let tp = pairs.iter().filter(|(a, b)| a == b).count() as f64;
    if tp == 0.0 {
        return 0.0;
    }
    let (precision, recall) = (tp / pairs.len() as f64, tp / n as f64);
    2.0 * precision * recall / (precision + recall)
}

/// The whole protocol with every option left at its default (the recommended
/// configuration) and with the paper's written out, on the same 2,000 cities, the
/// same corrupted copy (one deletion in every third record: ed 1), the same seeds
/// and ε: the defaults make the recommended base (public 2-grams: dimension above
/// 750, a shape in both batches), link by the ranked rule, and link better.
#[wasm_bindgen_test]
fn defaults_are_the_recommended_configuration() {
    let n = 2000;
    let ra = cities(n);
    let rb = corrupted(&ra);
    let run = |mine: JsValue, merge_options: JsValue, embed_a: JsValue, rule: JsValue| {
        let mut a = owner(&ra, r#"{"seed": 11}"#);
        let mut b = owner(&rb, r#"{"seed": 12}"#);
        let na = a.mine(mine.clone(), None).unwrap();
        let nb = b.mine(mine, None).unwrap();
        let shared = merge(na.into(), nb.into(), 75, merge_options).unwrap();
        // unkeyed on purpose: the test reads the batches' coordinates (their shape)
        let embed_a = if embed_a.is_undefined() { Object::new().into() } else { embed_a };
        Reflect::set(&embed_a, &"noKey".into(), &JsValue::TRUE).unwrap();
        let batch_a = a.embed(shared.clone().into(), embed_a, None).unwrap();
        let batch_b = b.embed(shared.into(), js(r#"{"party": "B", "binary": true, "noKey": true}"#), None).unwrap();
        let m = Matcher::new(batch_a.clone(), batch_b.clone(), JsValue::UNDEFINED).unwrap();
        let r: JsValue = m.run(rule).unwrap().into();
        // the records each pair names (the rows are shuffled)
        let maps = (a.id_map_csv().unwrap().unwrap(), b.id_map_csv().unwrap().unwrap());
        Reflect::set(&r, &"records".into(), &JsValue::from_str(&format!("{}\u{0}{}", maps.0, maps.1))).unwrap();
        let read = |v: &JsValue| match v.as_string() {
            Some(s) => VectorBatch::read(s.as_bytes()).unwrap(),
            None => VectorBatch::read(&v.dyn_ref::<Uint8Array>().unwrap().to_vec()).unwrap(),
        };
        (m.dim(), read(&batch_a), read(&batch_b), r)
    };
    let (dim, ba, bb, r) = run(JsValue::UNDEFINED, JsValue::UNDEFINED, JsValue::UNDEFINED, JsValue::UNDEFINED);
    assert!(dim > 750, "dimension {dim}: no public 2-grams in the default base");
    assert!(ba.shape.is_some() && ba.shape == bb.shape, "the batches carry the base's shape");
    assert_eq!(ba.thresholds.as_ref().unwrap().mode, gramlink::threshold::ThresholdMode::Sound);
    assert_eq!(get(&r, "rule").as_string().unwrap(), "ranked");
    let recommended = f1(&records_of(&r), n);

    // the paper's configuration, from defaults().presets.paper
    let paper = get(&get(&defaults().unwrap(), "presets"), "paper");
    let th = Object::new();
    Reflect::set(&th, &"thresholds".into(), &get(&paper, "thresholds")).unwrap();
    let rule = Object::new();
    Reflect::set(&rule, &"rule".into(), &get(&paper, "rule")).unwrap();
    let (pdim, pa, _, pr) = run(get(&paper, "mine"), get(&paper, "mine"), th.into(), rule.into());
    assert!(pdim <= 75, "the paper's base has the mined grams only, got {pdim}");
    assert_eq!(pa.thresholds.as_ref().unwrap().mode, gramlink::threshold::ThresholdMode::Paper);
    assert_eq!(get(&pr, "rule").as_string().unwrap(), "all");
    let paper_f1 = f1(&records_of(&pr), n);
    web_sys::console::log_1(
        &format!("CITIES n={n} ed 1 seed 11/12: F1 recommended {recommended:.4}, paper {paper_f1:.4}").into(),
    );
    assert!(recommended > paper_f1, "F1: recommended {recommended}, paper {paper_f1}");
    assert!(recommended > 0.5, "F1 of the recommended configuration {recommended}");
}

/// A binary batch is written into its JS array and read out of one without a
/// whole copy in wasm memory (src/wasm/batch.rs): the bytes are exactly the
/// core's `to_binary`, a batch inside a larger buffer at an odd offset (a Node
/// `Buffer` from a pool, a slice of a file) reads the same, and every cut or
/// padded form is a named error.
#[wasm_bindgen_test]
fn binary_batches_cross_the_boundary_whole() {
    let p = protocol(400);
    let bytes = p.batch_b.dyn_ref::<Uint8Array>().unwrap().to_vec();
    let b = VectorBatch::read(&bytes).unwrap();
    assert_eq!(bytes, b.to_binary(), "the API's bytes are the core's binary form");
    let a_bytes: JsValue =
        Uint8Array::from(&VectorBatch::read(p.batch_a.as_string().unwrap().as_bytes()).unwrap().to_binary()[..]).into();
    let reference: JsValue = Matcher::new(a_bytes.clone(), p.batch_b.clone(), JsValue::UNDEFINED)
        .unwrap()
        .run(js(r#"{"rule": "all"}"#))
        .unwrap()
        .into();
    // the same bytes at offset 3 of a larger buffer
    let big = Uint8Array::new_with_length(bytes.len() as u32 + 8);
    big.subarray(3, 3 + bytes.len() as u32).copy_from(&bytes);
    let inside: JsValue = big.subarray(3, 3 + bytes.len() as u32).into();
    let r: JsValue = Matcher::new(a_bytes.clone(), inside, JsValue::UNDEFINED)
        .unwrap()
        .run(js(r#"{"rule": "all"}"#))
        .unwrap()
        .into();
    assert_eq!(JSON::stringify(&r).unwrap(), JSON::stringify(&reference).unwrap());
    assert_eq!(
        get(&r, "distances").dyn_into::<Float64Array>().unwrap().to_vec(),
        get(&reference, "distances").dyn_into::<Float64Array>().unwrap().to_vec()
    );
    let info = gramlink::wasm::batch_info(big.subarray(3, 3 + bytes.len() as u32).into()).unwrap();
    assert_eq!(get(&info, "size").as_f64(), Some(400.0));
    // cut in the preamble, in the header, in the numbers; one byte too many
    let header_end = b.binary_parts()[0].len();
    for cut in [4, 11, 12, 20, header_end, header_end + 1, bytes.len() - 1] {
        let e = assert_code(
            Matcher::new(a_bytes.clone(), Uint8Array::from(&bytes[..cut]).into(), JsValue::UNDEFINED),
            "TRUNCATED_MESSAGE",
        );
        assert!(e.contains("binary vector batch") || e.contains("vector-batch"), "cut at {cut}: {e}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    let e = assert_code(
        Matcher::new(a_bytes.clone(), Uint8Array::from(&longer[..]).into(), JsValue::UNDEFINED),
        "INVALID_MESSAGE",
    );
    assert!(e.contains("trailing"), "{e}");
    let mut version = bytes.clone();
    version[4] = 7;
    assert_code(
        Matcher::new(a_bytes, Uint8Array::from(&version[..]).into(), JsValue::UNDEFINED),
        "UNSUPPORTED_VERSION",
    );
}

/// Two owners on 2,500 cities (with non-ASCII names) and a corrupted copy, in the
/// paper's configuration: mine, merge, embed (JSON and binary), match by its rules.
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

    let m = Matcher::new(p.batch_a.clone(), p.batch_b.clone(), JsValue::UNDEFINED).unwrap();
    // one row for each distinct vector: the paper's small base gives a few cities one vector
    let map = p.a.id_map_csv().unwrap().expect("a pseudonymous batch has a map");
    assert_eq!((m.size_a(), m.size_b(), m.fingerprint()), (rows_of(&map), rows_of(&p.map_b), fp.clone()));
    assert!(m.size_a() <= n && m.size_a() * 100 >= n * 99, "{} rows of {n} records", m.size_a());
    let ranked: JsValue = m.run(JsValue::UNDEFINED).unwrap().into();
    assert_eq!(get(&ranked, "rule").as_string().unwrap(), "ranked", "the default rule");
    let r: JsValue = m.run(js(r#"{"rule": "all"}"#)).unwrap().into();
    assert_eq!(get(&r, "rule").as_string().unwrap(), "all", "one spelling: options and results");
    let ia: Uint32Array = get(&r, "a").dyn_into().unwrap();
    let ib: Uint32Array = get(&r, "b").dyn_into().unwrap();
    let d: Float64Array = get(&r, "distances").dyn_into().unwrap();
    let (ia, ib, d) = (ia.to_vec(), ib.to_vec(), d.to_vec());
    let count = get(&r, "count").as_f64().unwrap() as usize;
    assert!(count > 0 && ia.len() == count && ib.len() == count && d.len() == count);
    assert!(get(&r, "candidates").as_f64().unwrap() >= count as f64);
    let a_ids: Array = get(&r, "aIds").dyn_into().unwrap();
    assert_eq!(a_ids.length() as usize, count);
    // the batch carries pseudonyms (its rows shuffled); A's map says whose each is
    let first = a_ids.get(0).as_string().unwrap();
    assert!(map.lines().any(|l| l.starts_with(&format!("{first},"))), "{first} is not in A's map");
    // every unchanged record (distance 0 is within any threshold) is linked to its copy
    let pairs: std::collections::HashSet<(u32, u32)> = linked_records(&r, &map, &p.map_b).into_iter().collect();
    for i in (0..n as u32).filter(|i| i % 3 != 1) {
        assert!(pairs.contains(&(i, i)), "unchanged record {} ({}) not linked", i + 1, cities(n)[i as usize]);
    }
    assert!(d.iter().all(|x| x.is_finite() && *x >= 0.0));

    let one: JsValue = m.run(js(r#"{"rule": "greedy"}"#)).unwrap().into();
    assert_eq!(get(&one, "rule").as_string().unwrap(), "greedy");
    let oa = get(&one, "a").dyn_into::<Uint32Array>().unwrap().to_vec();
    let ob = get(&one, "b").dyn_into::<Uint32Array>().unwrap().to_vec();
    assert!(oa.len() <= count && oa.len() > n / 2);
    assert_eq!(oa.iter().collect::<std::collections::HashSet<_>>().len(), oa.len());
    assert_eq!(ob.iter().collect::<std::collections::HashSet<_>>().len(), ob.len());
    let msg = m.match_result(js(r#"{"rule": "greedy"}"#)).unwrap();
    assert!(msg.contains("gramlink/match-result") && msg.contains(&fp) && msg.contains(r#""rule":"greedy""#));
    for (rule, name) in [("nearest", "nearest"), ("ranked", "ranked")] {
        let r: JsValue = m.run(js(&format!(r#"{{"rule": "{rule}"}}"#))).unwrap().into();
        assert_eq!(get(&r, "rule").as_string().unwrap(), name);
        let pairs = linked(&r);
        let a: std::collections::HashSet<u32> = pairs.iter().map(|p| p.0).collect();
        let b: std::collections::HashSet<u32> = pairs.iter().map(|p| p.1).collect();
        assert!(a.len() == pairs.len() && b.len() == pairs.len() && pairs.len() > n / 2, "{rule}: one-to-one");
    }
    assert!(m.match_result(js(r#"{"rule": "ranked"}"#)).unwrap().contains(r#""rule":"ranked""#));

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
    let counter =
        wasm_bindgen::closure::Closure::<dyn FnMut(String, f64, f64)>::new(move |_: String, _: f64, _: f64| {
            t.set(t.get() + 1);
        });
    // the defaults: the recommended configuration
    let r = run_scenario(
        strings(&first),
        js(r#"{"config": {"thresholds": {"ed": 1}}, "seed": 42, "meanHMax": true}"#),
        Some(counter.as_ref().unchecked_ref::<js_sys::Function>().clone()),
    )
    .unwrap();
    assert!(ticks.get() > 2, "the progress callback was called {} times", ticks.get());
    let golden = js(GOLDEN_RECOMMENDED);
    for key in ["f1", "precision", "recall", "candidates", "fingerprint", "hMax", "pairs", "options"] {
        assert_eq!(as_json(&get(&r, key)), as_json(&get(&golden, key)), "{key} differs from the native golden value");
    }
    // the paper's configuration from defaults().presets.paper gives the paper's
    let paper = Object::new();
    Reflect::set(&paper, &"config".into(), &get(&get(&defaults().unwrap(), "presets"), "paper")).unwrap();
    Reflect::set(&paper, &"meanHMax".into(), &JsValue::TRUE).unwrap();
    let r = run_scenario(strings(&first), paper.into(), None).unwrap();
    let golden = js(GOLDEN_SCENARIO);
    for key in ["f1", "precision", "recall", "candidates", "fingerprint", "hMax", "pairs", "options"] {
        assert_eq!(as_json(&get(&r, key)), as_json(&get(&golden, key)), "{key} differs from the native golden value");
    }
    let timings = get(&r, "timingsMs");
    assert!(!timings.is_instance_of::<js_sys::Map>(), "timings are a plain object");
    assert!(get(&timings, "match").as_f64().unwrap() >= 0.0);
    assert!(Array::is_array(&get(&r, "sample")));

    // the whole of CITIES (with its non-ASCII names) by the sound rule, one-to-one
    let r = run_scenario(strings(&all), js(r#"{"config": {"mine": {"miner": "fpm", "epsilon": 1}, "thresholds": {"ed": 1, "mode": "sound"}, "rule": "greedy"}}"#), None).unwrap();
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
    let noop = js_sys::Function::new_with_args(
        "phase, done, total",
        "if (typeof phase !== 'string') throw new Error('phase')",
    );
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
    let csv = |text: &str, input: &str| {
        DataOwner::from_bytes(Uint8Array::from(text.as_bytes()).into(), js(input), JsValue::UNDEFINED)
    };
    assert_code(csv("id,name\n1,Paris\n", r#"{"column": "city"}"#), "MISSING_COLUMN");
    assert_code(csv("id,name\n1,Paris\n1,Rome\n", r#"{"column": "name", "idColumn": "id"}"#), "DUPLICATE_ID");
    assert_code(DataOwner::from_bytes(JsValue::from(5), JsValue::UNDEFINED, JsValue::UNDEFINED), "INVALID_PARAMETER");
    let o = csv("id,name\nx1,Paris\nx2,Zürich\nx3,\"!!\"\n", r#"{"column": "name", "idColumn": "id"}"#).unwrap();
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
    assert_code(
        run_scenario(strings(&r), js(r#"{"config": {"thresholds": {"mode": "lenient"}}}"#), None),
        "INVALID_PARAMETER",
    );
    let m = assert_code(run_scenario(strings(&r), js(r#"{"config": {"mine": {"kk": 3}}}"#), None), "INVALID_PARAMETER");
    assert!(m.contains("config: mine: unknown option \"kk\""), "{m}");
    assert_code(run_scenario(strings(&r), js(r#"{"ed": 1}"#), None), "INVALID_PARAMETER");
    assert_code(run_scenario(strings(&r), js(r#"{"seed": -1}"#), None), "INVALID_PARAMETER");
    assert_code(run_scenario(strings(&r), js(r#"{"alphabet": "AAB"}"#), None), "INVALID_ALPHABET");
    assert_code(run_scenario(strings(&r), js(r#"{"alphabet": 7}"#), None), "INVALID_PARAMETER");
    // the alphabet option is taken from a copy: the caller's object is left as it was
    let o = js(r#"{"alphabet": "ABCDEFGHIJKLMNOPQRSTUVWXYZ ", "config": {"mine": {"k": 20}}}"#);
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
    let mut a = owner(&cities(300), r#"{"seed": 4, "budget": 3}"#);
    let na = a.mine(js(MINE), None).unwrap();
    assert_code(merge(na.clone().into(), na.clone().into(), 0, js(PAPER_MERGE)), "INVALID_BASE");
    assert_code(merge(na.clone().into(), na.clone().into(), 2.5, JsValue::UNDEFINED), "INVALID_PARAMETER");
    assert_code(
        merge(na.clone().into(), JsValue::from_str("{\"format\""), 10, JsValue::UNDEFINED),
        "TRUNCATED_MESSAGE",
    );
    assert_code(merge(na.clone().into(), JsValue::from_str("not json"), 10, JsValue::UNDEFINED), "MALFORMED_MESSAGE");
    let shared = merge(na.clone().into(), na.clone().into(), 20, js(PAPER_MERGE)).unwrap();
    assert_code(merge(shared.clone().into(), na.clone().into(), 10, JsValue::UNDEFINED), "WRONG_MESSAGE_KIND");
    // the paper's options give the core's paper base (base::merge), bit for bit, with
    // the not-private mark of the seeded owner's noisy bases carried over
    let (ca, cb) =
        (gramlink::protocol::read_noisy_base(&na).unwrap(), gramlink::protocol::read_noisy_base(&na).unwrap());
    let core = gramlink::base::merge(&ca, &cb, 20).unwrap().with_private(ca.private && cb.private);
    assert!(!core.is_private());
    assert_eq!(shared, gramlink::protocol::write_shared_base(&core));
    // merge options that contradict how the noisy bases were mined: a typed error
    let padded = a.mine(js(r#"{"miner": "fpm", "epsilon": 0.5}"#), None).unwrap();
    let recommended = merge(padded.clone().into(), padded.clone().into(), 20, JsValue::UNDEFINED).unwrap();
    assert!(recommended.len() > shared.len());
    let m = assert_code(merge(na.clone().into(), na.clone().into(), 20, JsValue::UNDEFINED), "INCOMPATIBLE_BASES");
    assert!(m.contains("without padding"), "{m}");
    let m = assert_code(merge(padded.clone().into(), padded.clone().into(), 20, js(PAPER_MERGE)), "INCOMPATIBLE_BASES");
    assert!(m.contains("noisy base a was mined with padding"), "{m}");
    assert_code(
        merge(padded.clone().into(), padded.clone().into(), 20, js(r#"{"padding": false}"#)),
        "INCOMPATIBLE_BASES",
    );
    let m = assert_code(merge(padded.clone().into(), na.clone().into(), 20, JsValue::UNDEFINED), "INCOMPATIBLE_BASES");
    assert!(m.contains("noisy base b was mined without padding"), "{m}");
    assert_code(merge(padded.clone().into(), padded.clone().into(), 20, js(r#"{"publicQ": 0}"#)), "INVALID_BASE");
    assert_code(merge(padded.clone().into(), padded.clone().into(), 20, js(r#"{"publicQ": 9}"#)), "INVALID_BASE");
    assert_code(merge(padded.clone().into(), padded.clone().into(), 20, js(r#"{"publicq": 2}"#)), "INVALID_PARAMETER");
    assert_code(merge(padded.clone().into(), padded.clone().into(), 20, JsValue::from(2)), "INVALID_PARAMETER");
    // publicQ left undefined is the default, not "none"
    let undefined_q = Object::new();
    Reflect::set(&undefined_q, &"publicQ".into(), &JsValue::UNDEFINED).unwrap();
    assert_eq!(merge(padded.clone().into(), padded.into(), 20, undefined_q.into()).unwrap(), recommended);
    assert_code(fingerprint("{oops".into()), "MALFORMED_MESSAGE");
    assert_code(fingerprint(JsValue::UNDEFINED), "INVALID_PARAMETER");
    assert_code(a.embed("[]".into(), JsValue::UNDEFINED, None), "MALFORMED_MESSAGE");
    assert_code(
        a.embed(shared.replace("\"version\":1", "\"version\":9").into(), JsValue::UNDEFINED, None),
        "UNSUPPORTED_VERSION",
    );
    let fp = fingerprint(shared.clone().into()).unwrap();
    let tampered = shared.replace(&fp, &"0".repeat(64));
    assert_code(a.embed(tampered.into(), JsValue::UNDEFINED, None), "FINGERPRINT_MISMATCH");
    assert_code(a.embed(shared.clone().into(), js(r#"{"party": "C1"}"#), None), "INVALID_PARAMETER");
    // unkeyed vectors leave only when asked for (the export policy); a key and noKey contradict
    let m = assert_code(a.embed(shared.clone().into(), JsValue::UNDEFINED, None), "KEY_REQUIRED");
    assert!(m.contains("noKey: true") && m.contains("keygen()"), "{m}");
    let both = format!(r#"{{"key": "{}", "noKey": true}}"#, "ab".repeat(32));
    assert_code(a.embed(shared.clone().into(), js(&both), None), "INVALID_KEY");
    assert_code(
        a.embed(shared.clone().into(), js(r#"{"thresholds": {"ed": 99}, "noKey": true}"#), None),
        "INVALID_PARAMETER",
    );
    assert_code(a.thresholds(shared.clone().into(), JsValue::from(-1), JsValue::UNDEFINED), "INVALID_PARAMETER");
    assert_code(a.thresholds(shared.into(), JsValue::from(1), js(r#"{"global": -2}"#)), "INVALID_PARAMETER");
}

/// Batches carry random pseudonyms unless `keepIds`; the owner's map
/// (`idMapCsv`) gives the matcher's pairs back through `unmapPairs`.
#[wasm_bindgen_test]
fn ids_are_pseudonyms_unless_kept_and_map_back() {
    let p = protocol(300);
    let m = Matcher::new(p.batch_a.clone(), p.batch_b.clone(), JsValue::UNDEFINED).unwrap();
    let r: JsValue = m.run(js(r#"{"rule": "greedy"}"#)).unwrap().into();
    let ids = |k: &str| -> Vec<String> {
        get(&r, k).dyn_into::<Array>().unwrap().iter().map(|x| x.as_string().unwrap()).collect()
    };
    let (a_ids, b_ids) = (ids("aIds"), ids("bIds"));
    assert!(a_ids
        .iter()
        .chain(&b_ids)
        .all(|x| x.len() == gramlink::pseudonym::PSEUDONYM_DIGITS && x.chars().all(|c| c.is_ascii_hexdigit())));
    let ia = get(&r, "a").dyn_into::<Uint32Array>().unwrap().to_vec();
    let pairs: String = std::iter::once("a_id,b_id\n".to_string())
        .chain(a_ids.iter().zip(&b_ids).map(|(x, y)| format!("{x},{y}\n")))
        .collect();
    let map_a = p.a.id_map_csv().unwrap().unwrap();
    let own = unmap_pairs(pairs.clone().into(), map_a.clone().into(), JsValue::NULL).unwrap();
    // the batch's rows are shuffled; the map lists A's records in order (own id: row number)
    let records: Vec<&str> = map_a.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    for ((line, row), pseudonym) in own.lines().skip(1).zip(&ia).zip(&a_ids) {
        let record = records.iter().position(|q| q == pseudonym).unwrap();
        assert!(line.starts_with(&format!("{},", record + 1)), "A's own id is its record's number: {line}");
        assert!(*row < records.len() as u32);
    }
    assert_code(unmap_pairs(pairs.clone().into(), JsValue::UNDEFINED, JsValue::NULL), "INVALID_PARAMETER");
    assert_code(unmap_pairs(pairs.into(), JsValue::from(3), JsValue::NULL), "INVALID_PARAMETER");
    // keepIds: the own ids, and no map
    let mut a = owner(&cities(5), r#"{"seed": 1}"#);
    let kept = a.embed(p.shared.clone().into(), js(r#"{"noKey": true, "keepIds": true}"#), None).unwrap();
    let kept = VectorBatch::read(kept.as_string().unwrap().as_bytes()).unwrap();
    let mut ids = kept.ids.clone();
    ids.sort();
    assert_eq!(ids, ["1", "2", "3", "4", "5"], "the own ids, in a shuffled order");
    assert_eq!(a.id_map_csv().unwrap(), None);
    assert_code(a.embed(p.shared.clone().into(), js(r#"{"noKey": true, "keepIds": 1}"#), None), "INVALID_PARAMETER");
    assert_code(a.embed(p.shared.into(), js(r#"{"noKey": true, "keepids": true}"#), None), "INVALID_PARAMETER");
}

#[wasm_bindgen_test]
fn bad_batches() {
    let p = protocol(300);
    // another base: fingerprint mismatch
    let mut c = owner(&cities(300), r#"{"budget": 2, "seed": 9}"#);
    let nc = c.mine(js(MINE), None).unwrap();
    let other = merge(nc.clone().into(), nc.into(), 40, js(PAPER_MERGE)).unwrap();
    let batch_c = c.embed(other.into(), js(r#"{"party": "B", "noKey": true}"#), None).unwrap();
    let m = assert_code(Matcher::new(p.batch_a.clone(), batch_c, JsValue::UNDEFINED), "FINGERPRINT_MISMATCH");
    assert!(m.contains("fingerprint"), "{m}");

    // wrong dimension: same base, one component dropped from every B vector
    let bytes = p.batch_b.dyn_ref::<Uint8Array>().unwrap().to_vec();
    let mut b = VectorBatch::read(&bytes).unwrap();
    let dim = b.vectors.dim();
    let data = b.vectors.to_dense().data.chunks(dim).flat_map(|r| r[..dim - 1].to_vec()).collect();
    b.vectors = gramlink::embed::BatchVectors::Dense(gramlink::embed::Vectors { dim: dim - 1, data });
    // the batch's own shape (one gram length per coordinate) no longer fits it
    let m = assert_code(Matcher::new(p.batch_a.clone(), b.to_json().into(), JsValue::UNDEFINED), "INVALID_MESSAGE");
    assert!(m.contains("shape"), "{m}");
    // without a shape, the matcher compares the dimensions
    b.shape = None;
    let m = assert_code(Matcher::new(p.batch_a.clone(), b.to_json().into(), JsValue::UNDEFINED), "INVALID_PARAMETER");
    assert!(m.contains("dimension"), "{m}");
    // a batch whose numbers do not make its announced vectors
    let a_json = p.batch_a.as_string().unwrap();
    let bad_dim = a_json.replacen(&format!("\"dim\":{dim}"), &format!("\"dim\":{}", dim + 1), 1);
    assert_ne!(bad_dim, a_json);
    assert_code(Matcher::new(bad_dim.into(), p.batch_b.clone(), JsValue::UNDEFINED), "INVALID_MESSAGE");
    // truncated binary, wrong types, no thresholds, not a batch
    assert_code(
        Matcher::new(p.batch_a.clone(), Uint8Array::from(&bytes[..bytes.len() - 3]).into(), JsValue::UNDEFINED),
        "TRUNCATED_MESSAGE",
    );
    assert_code(Matcher::new(p.batch_a.clone(), JsValue::from(3), JsValue::UNDEFINED), "INVALID_PARAMETER");
    assert_code(Matcher::new(p.batch_b.clone(), p.batch_b.clone(), JsValue::UNDEFINED), "INVALID_PARAMETER");
    assert_code(Matcher::new(p.shared.clone().into(), p.batch_b.clone(), JsValue::UNDEFINED), "WRONG_MESSAGE_KIND");
    let m = Matcher::new(p.batch_a.clone(), p.batch_b.clone(), JsValue::UNDEFINED).unwrap();
    assert_code(m.run(js(r#"{"one_to_one": true}"#)), "INVALID_PARAMETER");
    let msg = assert_code(m.run(js(r#"{"rule": "bogus"}"#)), "INVALID_PARAMETER");
    assert!(msg.contains("bogus") && msg.contains("ranked"), "{msg}");
    assert_code(m.match_result(js(r#"{"rule": "bogus"}"#)), "INVALID_PARAMETER");
    assert_code(m.run(js(r#"{"rule": 3}"#)), "INVALID_PARAMETER");
    let msg = assert_code(m.run(js(r#"{"rule": "all", "oneToOne": true}"#)), "INVALID_PARAMETER");
    assert!(msg.contains("unknown option \"oneToOne\""), "the older spelling is gone: {msg}");
}

/// The heap grows in large steps (src/wasm/heap.rs): 40 MB of small allocations
/// take a few dozen `memory.grow`s, not the 640 that 64 KB steps would.
#[wasm_bindgen_test]
fn heap_grows_in_large_steps() {
    let mut grows = 0;
    let mut pages = core::arch::wasm32::memory_size::<0>();
    let start = pages;
    let mut keep: Vec<Vec<u8>> = Vec::with_capacity(400_000);
    for i in 0..400_000 {
        keep.push(vec![i as u8; 100]);
        let now = core::arch::wasm32::memory_size::<0>();
        if now != pages {
            grows += 1;
            pages = now;
        }
    }
    let grown_mb = (pages - start) * 64 / 1024;
    assert!(keep.iter().all(|v| v.len() == 100));
    web_sys::console::log_1(
        &format!("40 MB in 400,000 allocations: memory grew {grown_mb} MB in {grows} steps").into(),
    );
    assert!(grows <= 40, "{grows} memory.grow steps for {grown_mb} MB");
}
