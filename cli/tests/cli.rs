//! The CLI end to end: happy paths, and every bad input of the foundation issue
//! giving a clear error, a non-zero exit, and no output file.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{assert_fails, data, gramlink, ok, stderr, Dir};

#[test]
fn mine_and_merge_cities() {
    let d = Dir::new();
    let a = d.path("a.json");
    let b = d.path("b.json");
    let s = d.path("shared.json");
    // one ledger for the four runs on the same data (not beside the repository's data/)
    let ledger = d.path("ledger.json").display().to_string();
    ok(&[
        "mine",
        "--input",
        &data("cities.txt"),
        "--miner",
        "fpm",
        "--ledger",
        &ledger,
        "--ledger-total",
        "1",
        "--out",
        a.to_str().unwrap(),
    ]);
    ok(&[
        "mine",
        "--ledger",
        &ledger,
        "--input",
        &data("cities.txt"),
        "--strategy",
        "linear",
        "--hmax",
        "8",
        "--out",
        b.to_str().unwrap(),
    ]);
    let o = ok(&["merge", a.to_str().unwrap(), b.to_str().unwrap(), "--k", "50", "--out", s.to_str().unwrap()]);
    let shared = gramlink::protocol::read_shared_base(&std::fs::read_to_string(&s).unwrap()).unwrap();
    // the default (recommended) base: 50 mined grams on top of the 783 public 2-grams
    assert_eq!(shared.len(), 783 + 50);
    assert!(shared.padding().is_some());
    // the paper's base: 50 mined grams, nothing else
    for (f, extra) in [(&a, "--miner"), (&b, "--strategy")] {
        let val = if extra == "--miner" { "fpm" } else { "linear" };
        ok(&[
            "mine",
            "--ledger",
            &ledger,
            "--ledger-total",
            "1",
            "--input",
            &data("cities.txt"),
            "--preset",
            "paper",
            extra,
            val,
            "--out",
            f.to_str().unwrap(),
        ]);
    }
    ok(&[
        "merge",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--preset",
        "paper",
        "--k",
        "50",
        "--out",
        s.to_str().unwrap(),
    ]);
    let paper = gramlink::protocol::read_shared_base(&std::fs::read_to_string(&s).unwrap()).unwrap();
    assert_eq!(paper.len(), 50);
    assert!(String::from_utf8_lossy(&o.stdout).contains(shared.fingerprint()));
    let noisy = gramlink::protocol::read_noisy_base(&std::fs::read_to_string(&a).unwrap()).unwrap();
    assert!(noisy.private, "an unseeded base is private");
    assert!(noisy.params.epsilon_spent <= 0.1);
}

#[test]
fn seeded_mining_is_reproducible_and_marked_not_private() {
    let d = Dir::new();
    let run = |name: &str| {
        let p = d.path(name);
        let o = gramlink(&["mine", "--input", &data("cities.txt"), "--seed", "7", "--out", p.to_str().unwrap()]);
        assert!(o.status.success());
        assert!(stderr(&o).contains("NOT private"));
        std::fs::read_to_string(p).unwrap()
    };
    let (x, y) = (run("x.json"), run("y.json"));
    assert_eq!(x, y);
    assert!(x.contains("\"private\":false"));
}

#[test]
fn csv_input_with_columns() {
    let d = Dir::new();
    let csv = d.write("people.csv", "id,surname\n10,Smith\n11,Müller\n12,Иванов\n13,Smithe\n".as_bytes());
    let out = d.path("base.json");
    let o = ok(&[
        "mine",
        "--input",
        &csv,
        "--column",
        "surname",
        "--id-column",
        "id",
        "--miner",
        "exact",
        "--k",
        "5",
        "--out",
        out.to_str().unwrap(),
    ]);
    // the Cyrillic record normalizes to empty and is reported by id
    assert!(stderr(&o).contains("1 of 4 records normalize to the empty string"), "{}", stderr(&o));
    assert!(stderr(&o).contains("12"));
}

#[test]
fn bad_inputs_fail_clearly_and_leave_nothing() {
    let d = Dir::new();
    let out = d.path("out.json");
    let o = out.to_str().unwrap().to_string();
    let empty = d.write("empty.txt", b"");
    let binary = d.write("blob.bin", &[0x7f, b'E', b'L', b'F', 0, 0, 1, 2, 0xff]);
    let latin1 = d.write("latin1.txt", b"M\xfcller\n");
    let csv = d.write("x.csv", b"name,city\nSmith,Boston\n");
    let names = data("names.txt");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["mine", "--input", "/nonexistent/names.txt", "--out", &o], "cannot read /nonexistent/names.txt"),
        (vec!["mine", "--input", &empty, "--out", &o], "is empty"),
        (vec!["mine", "--input", &binary, "--out", &o], "binary file"),
        (vec!["mine", "--input", &latin1, "--out", &o], "not UTF-8"),
        (vec!["mine", "--input", &csv, "--column", "surname", "--out", &o], "column \"surname\" not found"),
        (vec!["mine", "--input", &names, "--epsilon", "0", "--out", &o], "must be greater than 0"),
        (vec!["mine", "--input", &names, "--epsilon", "-1", "--out", &o], "must be greater than 0"),
        (vec!["mine", "--input", &names, "--epsilon", "NaN", "--out", &o], "not a number"),
        (vec!["mine", "--input", &names, "--epsilon", "inf", "--out", &o], "must be finite"),
        (vec!["mine", "--input", &names, "--k", "0", "--out", &o], "k must be at least 1"),
        (
            vec!["mine", "--input", &names, "--qmin", "3", "--qmax", "2", "--out", &o],
            "q_min (3) is greater than q_max (2)",
        ),
        (
            vec!["mine", "--input", &names, "--miner", "fpm", "--qmax", "6", "--out", &o],
            "lower q_max or use the prefix-tree miner",
        ),
        (vec!["mine", "--input", &names, "--alphabet", "AA", "--out", &o], "appears twice"),
        (vec!["merge", &names, &names, "--out", &o], "not a gramlink gramlink/noisy-base message"),
    ];
    for (args, needle) in cases {
        let r = gramlink(&args);
        assert_fails(&r, needle, &out);
    }
}

#[test]
fn an_existing_output_survives_a_failed_run() {
    let d = Dir::new();
    let out = d.write("keep.json", b"previous");
    let r = gramlink(&["mine", "--input", &data("names.txt"), "--k", "0", "--out", &out]);
    assert!(!r.status.success());
    assert_eq!(std::fs::read(&out).unwrap(), b"previous");
}

#[test]
fn every_command_has_help() {
    for cmd in [&["mine"][..], &["merge"], &["lab", "mine-utility"]] {
        let o = gramlink(&[cmd, &["--help"]].concat());
        assert!(o.status.success());
        assert!(String::from_utf8_lossy(&o.stdout).contains("Usage"));
    }
}

/// Party steps and the matcher through files, then every broken vector file refused.
#[test]
fn embed_and_match_through_files_and_refuse_bad_batches() {
    let d = Dir::new();
    let p = |n: &str| d.path(n).display().to_string();
    let cities = data("cities.txt");
    // two parties: B holds the same cities in another file
    let run = |args: &[&str]| {
        let o = gramlink(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        o
    };
    run(&[
        "mine",
        "--input",
        &cities,
        "--hmax",
        "8",
        "--ledger",
        &p("l.json"),
        "--ledger-total",
        "1",
        "--out",
        &p("na.json"),
    ]);
    run(&["mine", "--input", &cities, "--miner", "fpm", "--ledger", &p("l.json"), "--out", &p("nb.json")]);
    run(&["merge", &p("na.json"), &p("nb.json"), "--out", &p("shared.json")]);
    run(&[
        "embed",
        "--input",
        &cities,
        "--base",
        &p("shared.json"),
        "--threshold",
        "sound",
        "--ed",
        "1",
        "--no-key",
        "--out",
        &p("a.vec"),
    ]);
    // without a key (or --no-key) nothing is exported: the vectors would give the records away
    let refused =
        gramlink(&["embed", "--input", &cities, "--base", &p("shared.json"), "--party", "b", "--out", &p("b.vec")]);
    assert_eq!(refused.status.code(), Some(5), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("error[KEY_REQUIRED]"), "{}", stderr(&refused));
    assert!(!d.path("b.vec").exists());
    let b = run(&[
        "embed",
        "--input",
        &cities,
        "--base",
        &p("shared.json"),
        "--party",
        "b",
        "--json",
        "--no-key",
        "--out",
        &p("b.vec"),
    ]);
    assert!(stderr(&b).contains("warning: --no-key: unkeyed vectors"), "{}", stderr(&b));
    run(&["match", &p("a.vec"), &p("b.vec"), "--rule", "greedy", "--out", &p("pseudonymous.csv")]);
    // the batches carry random pseudonyms; each owner keeps the map back to its ids
    let pseudonymous = std::fs::read_to_string(d.path("pseudonymous.csv")).unwrap();
    assert!(!pseudonymous.lines().skip(1).any(|l| l.starts_with("1,")), "row numbers sent as ids");
    let (ma, mb) = (p("a.vec.ids.csv"), p("b.vec.ids.csv"));
    run(&["unmap", &p("pseudonymous.csv"), "--a-map", &ma, "--b-map", &mb, "-o", &p("pairs.csv")]);
    let csv = std::fs::read_to_string(d.path("pairs.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "a_id,b_id,distance,cosine");
    // the same file on both sides: one-to-one links each line to itself or to a twin
    assert!(lines.len() > 4900, "{} pairs", lines.len() - 1);
    let same = lines[1..]
        .iter()
        .filter(|l| {
            let f: Vec<&str> = l.split(',').collect();
            f[0] == f[1]
        })
        .count();
    assert!(same > 4500, "{same}");
    // the default rule: the q-gram filter and cosine ranking (the batches carry the shape)
    let o = run(&["match", &p("a.vec"), &p("b.vec"), "--out", &p("ranked-p.csv")]);
    assert!(stderr(&o).contains("by cosine after the q-gram filter"), "{}", stderr(&o));
    run(&["unmap", &p("ranked-p.csv"), "--a-map", &ma, "--b-map", &mb, "-o", &p("ranked.csv")]);
    let ranked = std::fs::read_to_string(d.path("ranked.csv")).unwrap();
    let same_ranked = ranked
        .lines()
        .skip(1)
        .filter(|l| {
            let f: Vec<&str> = l.split(',').collect();
            f[0] == f[1]
        })
        .count();
    assert!(same_ranked >= same, "ranked {same_ranked} vs greedy by distance {same}");

    // another base: refused by fingerprint
    run(&["mine", "--input", &cities, "--k", "40", "--seed", "9", "--out", &p("nc.json")]);
    run(&["merge", &p("nc.json"), &p("na.json"), "--k", "40", "--out", &p("other.json")]);
    run(&[
        "embed",
        "--input",
        &cities,
        "--base",
        &p("other.json"),
        "--party",
        "b",
        "--no-key",
        "--out",
        &p("other.vec"),
    ]);
    let out = d.path("bad-pairs.csv");
    let o = out.to_str().unwrap();
    let r = gramlink(&["match", &p("a.vec"), &p("other.vec"), "--out", o]);
    assert_fails(&r, "fingerprint mismatch", &out);

    let a_bin = std::fs::read(d.path("a.vec")).unwrap();
    let b_json = std::fs::read_to_string(d.path("b.vec")).unwrap();
    let header_len = u32::from_le_bytes(a_bin[8..12].try_into().unwrap()) as usize;
    let mut v1 = a_bin.clone();
    v1[4] = 1;
    // the first sparse rows overwritten: row 3 then declares 16,320 entries
    let mut damaged = a_bin.clone();
    let at = 12 + header_len;
    damaged[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    // B's first two pseudonyms made equal
    let mut v: serde_json::Value = serde_json::from_str(&b_json).unwrap();
    v["ids"][1] = v["ids"][0].clone();
    let dup_ids = v.to_string();
    assert_ne!(dup_ids, b_json);
    let wrong_dim = b_json.replacen("\"dim\":858", "\"dim\":74", 1);
    assert_ne!(wrong_dim, b_json);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated.vec", a_bin[..a_bin.len() - 7].to_vec(), "truncated"),
        ("header-cut.vec", a_bin[..20].to_vec(), "truncated"),
        ("v1.vec", v1, "unsupported gramlink/vector-batch version 1 (this build reads version 2)"),
        ("damaged.vec", damaged, "row 3 declares 16320 entries, more than the dimension 858"),
        ("dup.vec", dup_ids.into_bytes(), "used twice"),
        ("dim.vec", wrong_dim.into_bytes(), "the shape has 858 gram lengths for dimension 74"),
        ("v9.vec", b_json.replacen("\"version\":2", "\"version\":9", 1).into_bytes(), "version 9"),
        ("text.vec", b"SMITH\nJONES\n".to_vec(), "not a gramlink gramlink/vector-batch message"),
    ];
    for (name, bytes, needle) in cases {
        let bad = d.write(name, &bytes);
        let r = gramlink(&["match", &p("a.vec"), &bad, "--out", o]);
        assert_fails(&r, needle, &out);
    }
    // party A's batch without thresholds cannot drive the matcher
    let r = gramlink(&["match", &p("b.vec"), &p("a.vec"), "--out", o]);
    assert_fails(&r, "has no thresholds", &out);
    // an empty party
    let empty = d.write("empty.txt", b"");
    let r = gramlink(&["embed", "--input", &empty, "--base", &p("shared.json"), "--no-key", "--out", o]);
    assert_fails(&r, "is empty", &out);
    let blank = d.write("blank.txt", "\n  \nИванов\n".as_bytes());
    let r = gramlink(&["embed", "--input", &blank, "--base", &p("shared.json"), "--no-key", "--out", o]);
    assert_fails(&r, "after normalization onto the alphabet is empty", &out);
}
