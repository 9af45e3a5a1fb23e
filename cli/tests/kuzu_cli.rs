//! Kuzu et al.'s protocol one role at a time through the CLI (`gramlink kuzu
//! blocks|keygen|encrypt|compare|decide|resolve`) on FEBRL 1, with a rule of one
//! number (the year of birth) so that a 512-bit run takes a second; and each bad
//! input refused by name, exit status 4, nothing written.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{gramlink, ok};
use std::collections::HashSet;
use std::path::Path;

fn fails(args: &[&str], out: &Path, code: &str) {
    let o = gramlink(args);
    assert_eq!(o.status.code(), Some(4), "{args:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("error[{code}]")), "{args:?}: {err}");
    assert!(!out.exists(), "{args:?} wrote {}", out.display());
}

const RULE: &str = r#"
id = "rec_id"
block = "surname"
threshold = 0.99
[[attribute]]
column = "date_of_birth"
kind = "year"
weight = 1.0
min = 1900
max = 2010
"#;

#[test]
fn roles_one_at_a_time_and_bad_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let data = |n: &str| format!("{}/data/{n}", concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    std::fs::write(p("rule.toml"), RULE).unwrap();
    let (a, b) = (data("febrl/dataset1-a.csv"), data("febrl/dataset1-b.csv"));
    ok(&["kuzu", "blocks", "--public", &data("names.txt"), "--take", "300", "--blocks", "100", "-o", &p("model.json")]);
    ok(&["kuzu", "keygen", "--bits", "512", "--seed", "1", "--out", &p("key.json"), "--public", &p("pub.json")]);
    ok(&["kuzu", "keygen", "--bits", "512", "--seed", "2", "--out", &p("key2.json"), "--public", &p("pub2.json")]);
    let (rule, model, glka, report) = (p("rule.toml"), p("model.json"), p("a.glka"), p("report.json"));
    let common = ["--rule", rule.as_str(), "--model", model.as_str()];
    let mut enc = vec!["kuzu", "encrypt", &a];
    enc.extend(common);
    let pubk = p("pub.json");
    enc.extend(["--key", &pubk, "--b-records", "500", "--epsilon", "1", "--wn", "5"]);
    enc.extend(["-o", &glka, "--report", &report]);
    // the party's ledger in the test's folder, not beside the repository's data/
    let ledger = p("a.ledger.json");
    enc.extend(["--ledger", &ledger]);
    ok(&enc);
    let map = p("map.json");
    let compare = |key: &str, blocks: &str, out: &str| {
        let mut v: Vec<String> = ["kuzu", "compare", &b].iter().map(|s| s.to_string()).collect();
        v.extend(common.iter().map(|s| s.to_string()));
        v.extend(["--key", key, "--blocks", blocks, "-o", out, "--map", &map].map(String::from));
        v
    };
    let args = compare(&p("pub.json"), &p("a.glka"), &p("pairs.glkc"));
    ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    ok(&["kuzu", "decide", &p("pairs.glkc"), "--rule", &p("rule.toml"), "--key", &p("key.json"), "-o", &p("m.json")]);
    ok(&["kuzu", "resolve", "--matches", &p("m.json"), "--map", &p("map.json"), "-o", &p("handles.csv")]);
    ok(&["kuzu", "resolve", "--links", &p("handles.csv"), "--report", &p("report.json"), "-o", &p("links.csv")]);
    // the same year of birth in one surname block: mostly true pairs, and some
    let truth: HashSet<String> =
        std::fs::read_to_string(data("febrl/dataset1-truth.csv")).unwrap().lines().map(String::from).collect();
    let links = std::fs::read_to_string(p("links.csv")).unwrap();
    let found = links.lines().skip(1).filter(|l| truth.contains(*l)).count();
    assert!(found > 100, "{found} true links of {}", links.lines().count() - 1);

    // another key, a truncated or forged message, another block model
    let out = dir.path().join("x.glkc");
    let args = compare(&p("pub2.json"), &p("a.glka"), &p("x.glkc"));
    fails(&args.iter().map(String::as_str).collect::<Vec<_>>(), &out, "FINGERPRINT_MISMATCH");
    let bytes = std::fs::read(p("a.glka")).unwrap();
    std::fs::write(p("short.glka"), &bytes[..bytes.len() - 7]).unwrap();
    let args = compare(&p("pub.json"), &p("short.glka"), &p("x.glkc"));
    fails(&args.iter().map(String::as_str).collect::<Vec<_>>(), &out, "TRUNCATED_MESSAGE");
    // the last record's first ciphertext, found by the message's layout (a
    // 108-byte header ending in the block count; per block a u32 size, then per
    // record a u64 handle and its big-endian ciphertexts): DP-noised blocks may
    // be empty, so the message need not end with a ciphertext
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap()) as usize;
    let n_blocks = u32_at(104);
    let last_record = (9..4096usize)
        .find_map(|width| {
            let (mut at, mut last) = (108, None);
            for _ in 0..n_blocks {
                let size = u32_at(at.min(bytes.len() - 4));
                at += 4;
                if size > 0 {
                    last = Some(at + (size - 1) * width);
                }
                at += size * width;
                if at > bytes.len() - 4 && at != bytes.len() {
                    return None;
                }
            }
            (at == bytes.len()).then_some(last).flatten()
        })
        .expect("the message's layout");
    let mut forged = bytes.clone();
    // its most significant bytes all ones: the value is not below n²
    forged[last_record + 8..last_record + 24].fill(0xff);
    std::fs::write(p("forged.glka"), &forged).unwrap();
    let args = compare(&p("pub.json"), &p("forged.glka"), &p("x.glkc"));
    fails(&args.iter().map(String::as_str).collect::<Vec<_>>(), &out, "INVALID_MESSAGE");
    let model = std::fs::read_to_string(p("model.json")).unwrap();
    std::fs::write(p("model.json"), model.replacen("SMITH", "SMYTHE", 1)).unwrap();
    let args = compare(&p("pub.json"), &p("a.glka"), &p("x.glkc"));
    fails(&args.iter().map(String::as_str).collect::<Vec<_>>(), &out, "FINGERPRINT_MISMATCH");
    let m = dir.path().join("m2.json");
    fails(
        &["kuzu", "decide", &p("pairs.glkc"), "--rule", &p("rule.toml"), "--key", &p("key2.json"), "-o", &p("m2.json")],
        &m,
        "FINGERPRINT_MISMATCH",
    );
}

/// The single-string scenario runs Kuzu's protocol and gramlink's own linkage
/// on the same strings in one run, each scored against the same truth.
#[test]
fn the_single_string_scenario_scores_kuzu_and_gramlink_in_one_run() {
    let names = format!("{}/data/names.txt", concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let args = ["lab", "kuzu-eval", "--names", &names, "--n", "400", "--ed", "1", "--public", &names, "--json"];
    let o = gramlink(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON line");
    let f1 = |v: &serde_json::Value| v["f1"].as_f64().unwrap_or(-1.0);
    let (kuzu, own) = (f1(&v["scores"]), f1(&v["gramlink"]));
    assert!((0.0..=1.0).contains(&kuzu), "Kuzu's F1 {kuzu}");
    // one edit per name: gramlink's recommended configuration links nearly all
    assert!(own > 0.9, "gramlink's F1 {own} on the same strings");
    assert_eq!(v["gramlink"]["pairs"].as_u64().map(|p| p <= 400), Some(true));
}
