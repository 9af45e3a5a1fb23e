//! Signed batches through the JS API (src/wasm/signing.rs), in Node and in
//! headless Chromium: the key pair and signatures are the CLI's texts, the
//! signature of the golden key and bytes is the native one, and both matchers
//! refuse an unsigned or wrongly signed batch by the CLI's codes.
#![cfg(target_arch = "wasm32")]

#[path = "golden/mod.rs"]
mod golden;

use gramlink::protocol::signature::{sign_bytes, VerifyingKey};
use gramlink::wasm::{sign_batch, sign_keygen, verify_batch, DataOwner, Matcher, RecordMatcher, RecordOwner};
use js_sys::{Array, Object, Reflect, Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

fn js(json: &str) -> JsValue {
    JSON::parse(json).unwrap()
}

fn get(v: &JsValue, key: &str) -> String {
    Reflect::get(v, &JsValue::from_str(key)).unwrap().as_string().unwrap()
}

/// The error's JS `code` (a real JS `Error`), and its message.
#[track_caller]
fn code<T>(r: Result<T, JsValue>) -> (String, String) {
    let e = r.err().expect("a JS error");
    let e = e.dyn_into::<js_sys::Error>().expect("a JS Error");
    let code = Reflect::get(&e, &JsValue::from_str("code")).unwrap().as_string().unwrap_or_default();
    (code, e.message().into())
}

/// The options `{verifyA, signatureA, verifyB, signatureB}` (absent: left out).
fn verify(a: Option<(&str, &str)>, b: Option<(&str, &str)>) -> JsValue {
    let o = Object::new();
    for (party, given) in [("A", a), ("B", b)] {
        if let Some((public, signature)) = given {
            Reflect::set(&o, &format!("verify{party}").into(), &public.into()).unwrap();
            if !signature.is_empty() {
                Reflect::set(&o, &format!("signature{party}").into(), &signature.into()).unwrap();
            }
        }
    }
    o.into()
}

/// The same key and bytes sign alike here and natively: the committed golden
/// signature (tests/golden/signature_ed25519_batch.json), through `signBatch`.
#[wasm_bindgen_test]
fn sign_batch_gives_the_native_golden_signature() {
    let committed: serde_json::Value = serde_json::from_str(
        golden::CASES.iter().find(|c| c.name == "signature_ed25519_batch").expect("the golden case").committed,
    )
    .unwrap();
    let text = |k: &str| committed[k].as_str().unwrap().to_string();
    let bytes = Uint8Array::from(golden::GOLDEN_SIGNED_BYTES);
    let sig = sign_batch(golden::GOLDEN_SIGNING_KEY.into(), bytes.clone().into()).unwrap();
    assert_eq!(sig, text("signature"));
    // the key as its file's bytes, the batch as text: the same signature
    let key_bytes = Uint8Array::from(golden::GOLDEN_SIGNING_KEY.as_bytes());
    let as_text = String::from_utf8(golden::GOLDEN_SIGNED_BYTES.to_vec()).unwrap();
    assert_eq!(sign_batch(key_bytes.into(), as_text.into()).unwrap(), sig);
    verify_batch(text("publicKey").into(), bytes.into(), sig.into()).unwrap();
}

#[wasm_bindgen_test]
fn keygen_sign_and_verify_are_the_cli_s_texts_and_codes() {
    let pair = sign_keygen().unwrap();
    let (key, public) = (get(&pair, "signingKey"), get(&pair, "publicKey"));
    assert!(key.starts_with("gramlink signing key v1 ") && key.ends_with('\n'), "{key}");
    // the public key is the one the core derives from the signing key (the CLI's .pub)
    let derived = gramlink::protocol::signature::SigningKey::from_text(&key).unwrap().verifying_key();
    assert_eq!(VerifyingKey::from_text(&public).unwrap(), derived);
    assert_ne!(key, get(&sign_keygen().unwrap(), "signingKey"), "two keys from the secure generator");

    // a batch of more than one 64 KiB piece: hashed in pieces as the native digest whole
    let batch: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let sig = sign_batch(key.clone().into(), Uint8Array::from(&batch[..]).into()).unwrap();
    assert_eq!(sig, sign_bytes(&key, &batch).unwrap());
    let js_batch = || JsValue::from(Uint8Array::from(&batch[..]));
    verify_batch(public.clone().into(), js_batch(), sig.clone().into()).unwrap();

    let (c, m) = code(verify_batch(public.clone().into(), js_batch(), JsValue::NULL));
    assert_eq!(c, "SIGNATURE_MISSING", "{m}");
    let mut changed = batch.clone();
    changed[150_000] ^= 1;
    let (c, m) = code(verify_batch(public.clone().into(), Uint8Array::from(&changed[..]).into(), sig.clone().into()));
    assert_eq!(c, "SIGNATURE_INVALID", "{m}");
    let other = get(&sign_keygen().unwrap(), "publicKey");
    assert_eq!(code(verify_batch(other.into(), js_batch(), sig.clone().into())).0, "SIGNATURE_INVALID");
    assert_eq!(
        code(verify_batch(public.clone().into(), js_batch(), "gramlink batch signature v1 00".into())).0,
        "SIGNATURE_INVALID"
    );
    // a secret key is no public one, nor the other way round
    assert_eq!(code(verify_batch(key.into(), js_batch(), sig.into())).0, "INVALID_KEY");
    assert_eq!(code(sign_batch(public.clone().into(), js_batch())).0, "INVALID_KEY");
    assert_eq!(code(sign_batch(JsValue::from(7), js_batch())).0, "INVALID_PARAMETER");
    assert_eq!(code(verify_batch(public.into(), JsValue::from(7), JsValue::NULL)).0, "INVALID_PARAMETER");
}

const CITIES: &str = include_str!("../data/cities.txt");

/// A's batch (JSON text) and B's (binary) over one shared base.
fn vector_batches() -> (JsValue, JsValue) {
    let records: Vec<String> = CITIES.lines().take(300).map(str::to_string).collect();
    let list = || -> JsValue { records.iter().map(|s| JsValue::from_str(s)).collect::<Array>().into() };
    let mut a = DataOwner::new(list(), js(r#"{"seed": 1}"#)).unwrap();
    let mut b = DataOwner::new(list(), js(r#"{"seed": 2}"#)).unwrap();
    let (na, nb) = (a.mine(JsValue::UNDEFINED, None).unwrap(), b.mine(JsValue::UNDEFINED, None).unwrap());
    let shared = DataOwner::merge_bases(na.into(), nb.into(), JsValue::UNDEFINED).unwrap();
    let ba = a.embed(shared.clone().into(), js(r#"{"party": "A", "noKey": true}"#), None).unwrap();
    let bb = b.embed(shared.into(), js(r#"{"party": "B", "noKey": true, "binary": true}"#), None).unwrap();
    (ba, bb)
}

#[wasm_bindgen_test]
fn the_matcher_links_signed_batches_and_refuses_others_by_name() {
    let (ba, bb) = vector_batches();
    assert!(ba.is_string() && bb.is_instance_of::<Uint8Array>());
    let (ka, kb) = (sign_keygen().unwrap(), sign_keygen().unwrap());
    let (pa, pb) = (get(&ka, "publicKey"), get(&kb, "publicKey"));
    let sa = sign_batch(get(&ka, "signingKey").into(), ba.clone()).unwrap();
    let sb = sign_batch(get(&kb, "signingKey").into(), bb.clone()).unwrap();
    let matcher = |options: JsValue| Matcher::new(ba.clone(), bb.clone(), options);

    let m = matcher(verify(Some((&pa, &sa)), Some((&pb, &sb)))).unwrap();
    assert_eq!(m.size_a(), 300);
    // one party checked, the other not: as `match --verify-a` alone
    matcher(verify(Some((&pa, &sa)), None)).unwrap();

    let (c, m) = code(matcher(verify(Some((&pa, &sa)), Some((&pb, "")))));
    assert_eq!(c, "SIGNATURE_MISSING");
    assert!(m.contains("party B's vector batch"), "{m}");
    // keys swapped: each batch is signed, not by the key given for it
    let (c, m) = code(matcher(verify(Some((&pb, &sa)), Some((&pa, &sb)))));
    assert_eq!(c, "SIGNATURE_INVALID");
    assert!(m.contains("party A's vector batch"), "{m}");
    // a byte changed after signing (B's binary batch)
    let mut changed = bb.dyn_ref::<Uint8Array>().unwrap().to_vec();
    let last = changed.len() - 1;
    changed[last] ^= 1;
    let (c, _) = code(Matcher::new(ba.clone(), Uint8Array::from(&changed[..]).into(), verify(None, Some((&pb, &sb)))));
    assert_eq!(c, "SIGNATURE_INVALID");
    // a signature without its key would be checked by nobody; a typo is refused
    assert_eq!(code(matcher(js(&format!(r#"{{"signatureA": {sa:?}}}"#)))).0, "INVALID_PARAMETER");
    assert_eq!(code(matcher(js(r#"{"verify_a": "x"}"#))).0, "INVALID_PARAMETER");
    assert_eq!(code(matcher(js(r#"{"verifyA": 3}"#))).0, "INVALID_PARAMETER");
    assert_eq!(code(matcher(verify(Some((&sa, &sa)), None))).0, "INVALID_KEY");
}

const FEBRL_A: &str = include_str!("../data/febrl/dataset1-a.csv");
const FEBRL_B: &str = include_str!("../data/febrl/dataset1-b.csv");
const SCHEMA: &str = r#"{"version": 1, "id": "rec_id", "epsilon": 0.1, "field": [
    {"name": "given_name", "kind": "name"}, {"name": "surname", "kind": "name"},
    {"name": "postcode", "kind": "number"}]}"#;

#[wasm_bindgen_test]
fn the_record_matcher_links_signed_batches_and_refuses_others_by_name() {
    let schema = || JsValue::from_str(SCHEMA);
    let mut a = RecordOwner::new(FEBRL_A.into(), schema(), js(r#"{"seed": 1}"#)).unwrap();
    let mut b = RecordOwner::new(FEBRL_B.into(), schema(), js(r#"{"seed": 2}"#)).unwrap();
    let shared =
        RecordOwner::merge_bases(a.mine(None).unwrap().into(), b.mine(None).unwrap().into(), schema()).unwrap();
    let ba: JsValue = a.embed(shared.clone().into(), js(r#"{"party": "A", "noKey": true}"#), None).unwrap().into();
    let bb: JsValue = b.embed(shared.into(), js(r#"{"party": "B", "noKey": true}"#), None).unwrap().into();
    let (ka, kb) = (sign_keygen().unwrap(), sign_keygen().unwrap());
    let (pa, pb) = (get(&ka, "publicKey"), get(&kb, "publicKey"));
    // the same function signs a record batch as a vector batch: its bytes
    let sa = sign_batch(get(&ka, "signingKey").into(), ba.clone()).unwrap();
    let sb = sign_batch(get(&kb, "signingKey").into(), bb.clone()).unwrap();
    verify_batch(pa.clone().into(), ba.clone(), sa.clone().into()).unwrap();
    let matcher = |options: JsValue| RecordMatcher::new(schema(), ba.clone(), bb.clone(), options);

    let m = matcher(verify(Some((&pa, &sa)), Some((&pb, &sb)))).unwrap();
    assert_eq!((m.size_a(), m.size_b()), (500, 500));
    let (c, m) = code(matcher(verify(Some((&pa, "")), None)));
    assert_eq!(c, "SIGNATURE_MISSING");
    assert!(m.contains("party A's record batch"), "{m}");
    let (c, m) = code(matcher(verify(None, Some((&pb, &sa)))));
    assert_eq!(c, "SIGNATURE_INVALID");
    assert!(m.contains("party B's record batch"), "{m}");
    // unchecked without keys, as before signatures
    matcher(JsValue::UNDEFINED).unwrap();
}
