//! The JS API (src/wasm) through its Rust bindings, run in Node and in headless
//! Chromium (the environment, WASM_BINDGEN_USE_BROWSER, picks which: no
//! `run_in_browser` here). The whole protocol end to end; every error path a
//! caller can reach is in tests/wasm_errors.rs.
#![cfg(target_arch = "wasm32")]

mod wasm_common;
use gramlink::protocol::VectorBatch;
use gramlink::wasm::{defaults, fingerprint, run_scenario, Matcher};
use js_sys::{Array, Float64Array, Object, Reflect, Uint32Array, Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use wasm_common::*;

const GOLDEN_SCENARIO: &str = include_str!("golden/scenario_cities1000_ed1_seed42.json");
const GOLDEN_RECOMMENDED: &str = include_str!("golden/scenario_cities1000_ed1_seed42_recommended.json");

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
