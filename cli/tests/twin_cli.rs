//! `gramlink twin` and `gramlink rehearse` through the CLI: a twin and its
//! report, each bad input refused by its stable code and exit status with
//! nothing written, and a small string rehearsal end to end.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{data, gramlink};
use std::path::Path;

/// Runs a command that must fail with `code` and `status`, writing nothing at `out`.
fn fails(args: &[&str], out: &Path, code: &str, status: i32) {
    let o = gramlink(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(status), "{args:?}: {err}");
    assert!(err.contains(&format!("error[{code}]")), "{args:?}: {err}");
    assert!(!out.exists(), "{args:?} wrote {}", out.display());
}

#[test]
fn twin_of_strings_and_records_with_reports_and_named_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    std::fs::write(p("few.txt"), "SMITH\nJONES\nBROWN\n").unwrap();
    let cities: String =
        std::fs::read_to_string(data("cities.txt")).unwrap().lines().take(400).map(|l| format!("{l}\n")).collect();
    std::fs::write(p("cities.txt"), cities).unwrap();

    let o = gramlink(&["twin", &p("cities.txt"), "-o", &p("twin.txt"), "--k", "5", "--seed", "1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p("twin.txt.report.json")).unwrap()).unwrap();
    assert_eq!(report["synthetic"], true);
    assert_eq!(report["differentiallyPrivate"], false);
    assert_eq!(report["seeded"], true);
    assert!(report["fields"][0]["minGroup"].as_u64().unwrap() >= 5);
    let n = std::fs::read_to_string(p("twin.txt")).unwrap().lines().count() as u64;
    assert_eq!(n, report["twinRows"].as_u64().unwrap());

    fails(&["twin", &p("few.txt"), "-o", &p("x.txt"), "--k", "4"], &dir.path().join("x.txt"), "TOO_FEW_RECORDS", 3);
    fails(&["twin", &p("few.txt"), "-o", &p("x.txt"), "--k", "0"], &dir.path().join("x.txt"), "INVALID_PARAMETER", 6);

    // records: a schema whose categorical field has one value, or is empty everywhere
    let schema =
        r#"{"version": 1, "id": "id", "field": [{"name": "name", "kind": "name"}, {"name": "sex", "kind": "clear"}]}"#;
    std::fs::write(p("s.json"), schema).unwrap();
    let rows = |sex: &str| -> String {
        let mut s = "id,name,sex\n".to_string();
        for i in 0..12 {
            s += &format!("{i},NAME{},{sex}\n", ["A", "B", "C"][i % 3]);
        }
        s
    };
    std::fs::write(p("one.csv"), rows("F")).unwrap();
    std::fs::write(p("none.csv"), rows("")).unwrap();
    let x = dir.path().join("x.csv");
    fails(&["twin", "--schema", &p("s.json"), &p("one.csv"), "-o", &p("x.csv"), "--k", "3"], &x, "CONSTANT_COLUMN", 3);
    // a field empty in every record: the schema's reader names it
    fails(&["twin", "--schema", &p("s.json"), &p("none.csv"), "-o", &p("x.csv"), "--k", "3"], &x, "EMPTY_COLUMN", 3);
    fails(
        &["twin", "--schema", &p("s.json"), &p("one.csv"), "-o", &p("x.csv"), "--min-sup", "0"],
        &x,
        "INVALID_PARAMETER",
        6,
    );
}

#[test]
fn rehearse_on_two_string_twins() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let names: String =
        std::fs::read_to_string(data("names.txt")).unwrap().lines().take(300).map(|l| format!("{l}\n")).collect();
    std::fs::write(p("names.txt"), names).unwrap();
    for (seed, out) in [("1", "ta.txt"), ("2", "tb.txt")] {
        let o = gramlink(&["twin", &p("names.txt"), "-o", &p(out), "--k", "5", "--seed", seed]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // the corruption as the user observed it: 30 % untouched, 70 % one edit
    let o = gramlink(&[
        "rehearse",
        &p("ta.txt"),
        &p("tb.txt"),
        "--real",
        &p("names.txt"),
        "--corrupt-rates",
        "0.3,0.7",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["onTwins"].as_array().unwrap().len(), 15);
    assert_eq!(v["corruption"]["rates"], serde_json::json!([0.3, 0.7]), "{v}");
    let loss = v["f1Loss"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&loss), "{v}");
    // observing needs A's file and B's; negative rates are named
    let o = gramlink(&["rehearse", &p("ta.txt"), &p("tb.txt"), "--observe", &p("names.txt")]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let o = gramlink(&["rehearse", &p("ta.txt"), &p("tb.txt"), "--corrupt-rates", "0.5,-1"]);
    assert_eq!(o.status.code(), Some(6), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn krimp_compares_frequent_pattern_sets() {
    let o =
        gramlink(&["lab", "krimp", &data("uci/iris.csv"), "--min-sup", "20", "--runs", "2", "--patterns", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let p = &v[0]["patterns"];
    let equal = p["equal"].as_f64().unwrap();
    assert!(equal > 0.3 && equal <= 1.0, "{v}");
    // the paper's Figure 2: correlated generation is closer to the original than uncorrelated
    assert!(v[0]["dissimilarity"].as_f64().unwrap() < v[0]["uncorrelatedDissimilarity"].as_f64().unwrap(), "{v}");
}
