//! The JS API's error paths (src/wasm) through its Rust bindings, in Node and
//! in headless Chromium: every bad record, option, base and batch a caller can
//! give, each checked by the JS error's `code`.
#![cfg(target_arch = "wasm32")]

mod wasm_common;
use gramlink::protocol::VectorBatch;
use gramlink::wasm::{fingerprint, run_scenario, unmap_pairs, DataOwner, Matcher};
use js_sys::{Array, Object, Reflect, Uint32Array, Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use wasm_common::*;

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
