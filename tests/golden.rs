//! Native side of the golden values (see tests/golden/mod.rs): each case must match its
//! committed tests/golden/<name>.json. `GRAMLINK_BLESS=1 cargo test --test golden`
//! rewrites the files from the native results instead (review the diff before committing:
//! a changed file means seeded outputs changed).
#![cfg(not(target_arch = "wasm32"))]

#[path = "golden/mod.rs"]
mod golden;

use std::collections::BTreeSet;
use std::path::PathBuf;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("golden")
}

fn blessing() -> bool {
    std::env::var("GRAMLINK_BLESS").is_ok_and(|v| v == "1")
}

#[test]
fn golden_values_match_committed_files() {
    let dir = golden_dir();
    let bless = blessing();
    let mut failures = Vec::new();
    for case in golden::CASES {
        let path = dir.join(format!("{}.json", case.name));
        let actual = golden::canonical_text(&(case.compute)());
        if bless {
            std::fs::write(&path, &actual).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(committed) => {
                if let Some(diff) = golden::difference(&committed, &actual) {
                    failures.push(format!("{}: {diff}", case.name));
                }
            }
            Err(e) => failures.push(format!("{}: cannot read {} ({e})", case.name, path.display())),
        }
    }

    // every JSON file in tests/golden/ belongs to a case (the wasm test embeds only listed ones)
    let listed: BTreeSet<String> = golden::CASES.iter().map(|c| format!("{}.json", c.name)).collect();
    for entry in std::fs::read_dir(&dir).expect("tests/golden/ exists") {
        let path = entry.expect("readable directory entry").path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        if file.ends_with(".json") && !listed.contains(&file) {
            if bless {
                std::fs::remove_file(&path).unwrap();
            } else {
                failures.push(format!("{file}: no case of that name in tests/golden/mod.rs"));
            }
        }
    }

    assert!(
        failures.is_empty(),
        "golden values differ from the committed files (if the change is intended, rerun \
         with GRAMLINK_BLESS=1 and review the diff):\n  {}",
        failures.join("\n  ")
    );
}

#[test]
fn canonical_text_sorts_keys_and_ends_with_newline() {
    let v = serde_json::json!({ "b": 1, "a": [0.1, -0.0, 1e300] });
    assert_eq!(golden::canonical_text(&v), "{\n  \"a\": [\n    0.1,\n    -0.0,\n    1e+300\n  ],\n  \"b\": 1\n}\n");
}
