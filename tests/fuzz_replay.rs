//! Replays the committed fuzz corpora (fuzz/corpus/<target>/) through the fuzz
//! targets' bodies (src/fuzzing.rs) in `cargo test`, plus the inputs that once
//! broke a reader. Any panic is a failure.
#![cfg(not(target_arch = "wasm32"))]

use gramlink::fuzzing;
use std::path::Path;

fn replay(target: &str, body: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let r = std::panic::catch_unwind(|| body(&bytes));
        assert!(r.is_ok(), "{target}: {} panics", path.display());
        n += 1;
    }
    assert!(n > 0, "{target}: empty corpus");
    n
}

#[test]
fn corpora_replay_without_panics() {
    let counts: Vec<(&str, usize)> = vec![
        ("message_json", replay("message_json", fuzzing::message_json)),
        ("binary_batch", replay("binary_batch", fuzzing::binary_batch)),
        ("csv", replay("csv", fuzzing::csv)),
        ("text", replay("text", fuzzing::text)),
    ];
    eprintln!("replayed {counts:?}");
    // the hand-made valid messages the fuzzer starts from (fuzz/seeds/): each reads
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/message_json");
    for entry in std::fs::read_dir(&seeds).unwrap() {
        let path = entry.unwrap().path();
        let r = std::panic::catch_unwind(|| fuzzing::message_json(&std::fs::read(&path).unwrap()));
        assert!(r.is_ok(), "{} panics", path.display());
    }
}

/// Inputs found while building the bad-input catalogue.
#[test]
fn known_regressions() {
    // a forged dimension made n·dim overflow (a panic with overflow checks)
    let huge_dim = r#"{"format":"gramlink/vector-batch","version":1,"party":"A","fingerprint":"0000000000000000000000000000000000000000000000000000000000000000","dim":9223372036854775807,"count":2,"ids":["a","b"],"vectors":[]}"#;
    fuzzing::message_json(huge_dim.as_bytes());
    fuzzing::binary_batch(huge_dim.as_bytes());
    // an unclosed quote used to swallow the rest of the file
    fuzzing::csv(b"name,id\n\"abc,1\ndef,2\n");
    fuzzing::csv(b"name\n\"a\"\"b\"\n\"\n");
    // libFuzzer's first finds (fuzz/regressions/): a JSON batch whose thresholds
    // did not read back bit-identical (serde_json's default float parser could
    // miss the last ulp; fixed with its float_roundtrip feature)
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    fuzzing::message_json(&std::fs::read(dir.join("message_json_float_roundtrip")).unwrap());
    fuzzing::binary_batch(&std::fs::read(dir.join("binary_batch_float_roundtrip")).unwrap());
}
