//! The bad-input catalogue of the JS API (what the pages' file inputs hand it:
//! CSV text, message files as text or bytes, keys), in Node and headless
//! Chromium: each case throws a real JS `Error` with its exact `code` and a
//! message containing the expected text — never a trap or a panic.
#![cfg(target_arch = "wasm32")]

use gramlink::wasm::{fingerprint, keygen, DataOwner, Matcher};
use js_sys::{Array, Reflect, Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

fn js(json: &str) -> JsValue {
    JSON::parse(json).unwrap()
}

fn strings(xs: &[&str]) -> JsValue {
    xs.iter().map(|s| JsValue::from_str(s)).collect::<Array>().into()
}

fn bytes(b: &[u8]) -> JsValue {
    Uint8Array::from(b).into()
}

/// `Err(description)` unless `r` is a JS Error with `code` whose message holds `needle`.
fn expect<T>(r: Result<T, JsValue>, code: &str, needle: &str) -> Result<(), String> {
    let e = match r {
        Ok(_) => return Err(format!("expected {code}, got a value")),
        Err(e) => e,
    };
    if !e.is_instance_of::<js_sys::Error>() {
        return Err(format!("not a JS Error: {e:?}"));
    }
    let got = Reflect::get(&e, &"code".into()).unwrap().as_string().unwrap_or_default();
    let message = e.unchecked_ref::<js_sys::Error>().message().as_string().unwrap_or_default();
    if got != code || !message.contains(needle) {
        return Err(format!("got {got} {message:?}, expected {code} containing {needle:?}"));
    }
    Ok(())
}

const CITIES: &str = include_str!("../data/cities.txt");

struct Fixture {
    noisy_a: String,
    shared: String,
    batch_a: String,
    batch_b: Vec<u8>,
    keyed_a: String,
    keyed_b2: Vec<u8>,
}

fn fixture() -> Fixture {
    let recs: Vec<&str> = CITIES.lines().take(300).collect();
    let mut a = DataOwner::new(strings(&recs[..200]), js(r#"{"budget": 1, "seed": 1}"#)).unwrap();
    let mut b = DataOwner::new(strings(&recs[100..]), js(r#"{"budget": 1, "seed": 2}"#)).unwrap();
    let na = a.mine(js(r#"{"epsilon": 1}"#), None).unwrap();
    let nb = b.mine(js(r#"{"epsilon": 1}"#), None).unwrap();
    let shared = DataOwner::merge_bases(na.clone().into(), nb.into(), JsValue::UNDEFINED).unwrap();
    // unkeyed on purpose (noKey): the bad batches below are forged from their plain form
    let batch_a = a.embed(shared.clone().into(), js(r#"{"noKey": true}"#), None).unwrap().as_string().unwrap();
    let batch_b = Uint8Array::new(
        &b.embed(shared.clone().into(), js(r#"{"party": "B", "binary": true, "noKey": true}"#), None).unwrap(),
    )
    .to_vec();
    let k1 = "01".repeat(32);
    let k2 = "02".repeat(32);
    let keyed_a =
        a.embed(shared.clone().into(), js(&format!(r#"{{"key": "{k1}"}}"#)), None).unwrap().as_string().unwrap();
    let keyed_b2 = Uint8Array::new(
        &b.embed(shared.clone().into(), js(&format!(r#"{{"party": "B", "binary": true, "key": "{k2}"}}"#)), None)
            .unwrap(),
    )
    .to_vec();
    Fixture { noisy_a: na, shared, batch_a, batch_b, keyed_a, keyed_b2 }
}

#[wasm_bindgen_test]
fn every_bad_input_throws_its_code() {
    let f = fixture();
    let recs = strings(&["PARIS", "ROME"]);
    let owner = || DataOwner::new(recs.clone(), JsValue::UNDEFINED).unwrap();
    let csv = |text: &str| {
        DataOwner::from_bytes(
            bytes(text.as_bytes()),
            js(r#"{"format": "csv", "column": "name", "idColumn": "id"}"#),
            JsValue::UNDEFINED,
        )
        .map(|_| ())
    };
    let matcher = |a: JsValue, b: JsValue| Matcher::new(a, b, JsValue::UNDEFINED).map(|_| ());
    let embed = |opts: &str| owner().embed(f.shared.clone().into(), js(opts), None).map(|_| ());
    let b = f.batch_b.clone();
    let mut v9 = b.clone();
    v9[4] = 9;
    let cases: Vec<(&str, Result<(), JsValue>, &str, &str)> = vec![
        // CSV text from a file input
        ("unclosed quote", csv("name,id\n\"PARIS,1\nROME,2\n"), "MALFORMED_CSV", "never closed"),
        ("ragged row", csv("name,id\nPARIS,1,x\n"), "MALFORMED_CSV", "malformed CSV at record 1"),
        (
            "missing column",
            DataOwner::from_bytes(bytes(b"city,id\nPARIS,1\n"), js(r#"{"column": "name"}"#), JsValue::UNDEFINED)
                .map(|_| ()),
            "MISSING_COLUMN",
            "CSV column \"name\" not found",
        ),
        ("header only", csv("name,id\n"), "EMPTY_INPUT", "holds no records"),
        ("empty text", csv(""), "EMPTY_INPUT", "holds no records"),
        ("NUL in text", csv("name,id\nPA\0RIS,1\n"), "NOT_TEXT", "NUL byte"),
        ("duplicate id", csv("name,id\nPARIS,1\nROME,1\n"), "DUPLICATE_ID", "duplicate record id \"1\""),
        ("empty id", csv("name,id\nPARIS,\n"), "MALFORMED_CSV", "the id column is empty"),
        (
            "record too long",
            DataOwner::new(strings(&[&"A".repeat(5000)]), JsValue::UNDEFINED).map(|_| ()),
            "RECORD_TOO_LONG",
            "limit is 4096",
        ),
        (
            "odd Unicode only",
            DataOwner::new(strings(&["王", "😀", "\u{200B}"]), JsValue::UNDEFINED).map(|_| ()),
            "EMPTY_INPUT",
            "after normalization",
        ),
        // messages from files
        (
            "shared base not JSON",
            fingerprint("hello".into()).map(|_| ()),
            "MALFORMED_MESSAGE",
            "not a gramlink gramlink/shared-base message",
        ),
        (
            "shared base truncated",
            fingerprint(f.shared[..f.shared.len() / 2].to_string().into()).map(|_| ()),
            "TRUNCATED_MESSAGE",
            "truncated gramlink/shared-base",
        ),
        (
            "shared base tampered",
            fingerprint(f.shared.replacen("\"grams\":[\"", "\"grams\":[\"Z", 1).into()).map(|_| ()),
            "FINGERPRINT_MISMATCH",
            "fingerprint mismatch",
        ),
        (
            "batch cut in the preamble",
            matcher(f.batch_a.clone().into(), bytes(&b[..5])),
            "TRUNCATED_MESSAGE",
            "shorter than the 12-byte preamble",
        ),
        (
            "batch cut in the numbers",
            matcher(f.batch_a.clone().into(), bytes(&b[..b.len() - 2])),
            "TRUNCATED_MESSAGE",
            "bytes of numbers",
        ),
        (
            "batch with trailing bytes",
            matcher(f.batch_a.clone().into(), bytes(&[&b[..], b"!!"].concat())),
            "INVALID_MESSAGE",
            "2 trailing bytes",
        ),
        ("batch version 9", matcher(f.batch_a.clone().into(), bytes(&v9)), "UNSUPPORTED_VERSION", "version 9"),
        (
            "batch not UTF-8",
            matcher(f.batch_a.clone().into(), bytes(b"\xff\xfe{}")),
            "MALFORMED_MESSAGE",
            "neither a binary batch nor UTF-8 JSON",
        ),
        ("batch is a number", matcher(f.batch_a.clone().into(), JsValue::from(3)), "INVALID_PARAMETER", ""),
        ("B's batch as A", matcher(bytes(&b), bytes(&b)), "INVALID_PARAMETER", "has no thresholds"),
        (
            "shared base as batch",
            matcher(f.shared.clone().into(), bytes(&b)),
            "WRONG_MESSAGE_KIND",
            "expected gramlink/vector-batch",
        ),
        (
            "forged dimension",
            matcher(f.batch_a.replacen("\"dim\":", "\"dim\":4000000000,\"x\":", 1).into(), bytes(&b)),
            "INVALID_MESSAGE",
            "dimension 4000000000",
        ),
        // options that contradict the data (the defaults are the recommended configuration)
        (
            "merge without the padding mined with",
            DataOwner::merge_bases(
                f.noisy_a.clone().into(),
                f.noisy_a.clone().into(),
                js(r#"{"publicQ": null, "padding": false}"#),
            )
            .map(|_| ()),
            "INCOMPATIBLE_BASES",
            "mined with padding",
        ),
        (
            "unknown match rule",
            Matcher::new(f.batch_a.clone().into(), bytes(&b), JsValue::UNDEFINED)
                .and_then(|m| m.run(js(r#"{"rule": "bogus"}"#)))
                .map(|_| ()),
            "INVALID_PARAMETER",
            "unknown rule \"bogus\"",
        ),
        (
            "the old oneToOne option",
            Matcher::new(f.batch_a.clone().into(), bytes(&b), JsValue::UNDEFINED)
                .and_then(|m| m.run(js(r#"{"oneToOne": true}"#)))
                .map(|_| ()),
            "INVALID_PARAMETER",
            "unknown option \"oneToOne\"",
        ),
        // bytes read by the core's reader
        (
            "bytes: CSV without a column",
            DataOwner::from_bytes(bytes(b"id,name\n1,PARIS\n"), JsValue::UNDEFINED, JsValue::UNDEFINED).map(|_| ()),
            "MISSING_COLUMN",
            "the header has: \"id\", \"name\"",
        ),
        (
            "bytes: not UTF-8",
            DataOwner::from_bytes(bytes(b"PARIS\n\xff\xfe\n"), JsValue::UNDEFINED, JsValue::UNDEFINED).map(|_| ()),
            "NOT_TEXT",
            "not UTF-8",
        ),
        (
            "bytes: not bytes",
            DataOwner::from_bytes("PARIS".into(), JsValue::UNDEFINED, JsValue::UNDEFINED).map(|_| ()),
            "INVALID_PARAMETER",
            "must be a Uint8Array",
        ),
        (
            "bytes: a column for text",
            DataOwner::from_bytes(bytes(b"PARIS\n"), js(r#"{"format": "text", "column": "name"}"#), JsValue::UNDEFINED)
                .map(|_| ()),
            "INVALID_FORMAT",
            "applies to CSV input",
        ),
        (
            "bytes: unknown input option",
            DataOwner::from_bytes(bytes(b"PARIS\n"), js(r#"{"colum": "name"}"#), JsValue::UNDEFINED).map(|_| ()),
            "INVALID_PARAMETER",
            "unknown option \"colum\"",
        ),
        // the keyed transform
        (
            "keyed A, unkeyed B",
            matcher(f.keyed_a.clone().into(), bytes(&b)),
            "TRANSFORM_MISMATCH",
            "party A's batch is keyed but party B's is not",
        ),
        (
            "different keys",
            matcher(f.keyed_a.clone().into(), bytes(&f.keyed_b2)),
            "TRANSFORM_MISMATCH",
            "different keys",
        ),
        (
            "unkeyed A, keyed B",
            matcher(f.batch_a.clone().into(), bytes(&f.keyed_b2)),
            "TRANSFORM_MISMATCH",
            "party B's batch is keyed",
        ),
        ("key too short", embed(r#"{"key": "abcd"}"#), "INVALID_KEY", "a key is 64 hex digits"),
        ("key not hex", embed(&format!(r#"{{"key": "{}"}}"#, "zz".repeat(32))), "INVALID_KEY", "not hex"),
        ("short passphrase", embed(r#"{"passphrase": "secret"}"#), "INVALID_KEY", "at least 8 are needed"),
        (
            "key and passphrase",
            embed(&format!(r#"{{"key": "{}", "passphrase": "long enough phrase"}}"#, "01".repeat(32))),
            "INVALID_KEY",
            "either key or passphrase",
        ),
        ("key of the wrong type", embed(r#"{"key": 42}"#), "INVALID_PARAMETER", ""),
    ];
    assert!(cases.len() >= 20);
    let failures: Vec<String> = cases
        .into_iter()
        .filter_map(|(name, r, code, needle)| expect(r, code, needle).err().map(|e| format!("{name}: {e}")))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // the keyed path works end to end: a passphrase on both sides links
    let k = keygen().unwrap();
    assert_eq!(k.len(), 64);
}
