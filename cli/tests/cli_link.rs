//! The CLI end to end, part two: `link` and `lab eval` on two files, errors by
//! code and exit class, flags and their defaults, truth files, the scale data,
//! and what `ed auto` chose.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{assert_fails, data, gramlink, link_by_name, ok, stderr, Dir};

#[test]
fn link_two_files_and_eval_json() {
    let d = Dir::new();
    let a = d.write("a.txt", b"SMITH\nJOHNSON\nWILLIAMS\nBROWN\nJONES\nGARCIA\nMILLER\nDAVIS\n");
    let b = d.write("b.txt", b"JONES\nSMYTH\nGARCIA\nDAVIES\nBROWNE\nMILLER\n");
    let out = d.path("pairs.csv");
    ok(&[
        "link",
        &a,
        &b,
        "--miner",
        "exact",
        "--k",
        "40",
        "--threshold",
        "sound",
        "--rule",
        "greedy",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let csv = std::fs::read_to_string(&out).unwrap();
    for pair in ["5,1,", "6,3,", "7,6,", "1,2,", "8,4,", "4,5,"] {
        assert!(csv.lines().any(|l| l.starts_with(pair)), "{pair} missing from {csv}");
    }
    let o = ok(&["lab", "eval", "--data", &data("cities.txt"), "--ed", "1", "--seed", "42", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for field in ["precision", "recall", "f1", "pairs", "timings_ms"] {
        assert!(v.get(field).is_some(), "{field} missing");
    }
    assert!(v["f1"].as_f64().unwrap() > 0.3);
}

/// Each class of error prints `error[CODE]` and exits with its class's status.
#[test]
fn errors_print_their_code_and_exit_by_class() {
    let d = Dir::new();
    let out = d.path("out.json");
    let o = out.to_str().unwrap();
    let names = data("names.txt");
    let febrl = d.write("people.txt", b"rec_id,given_name,surname\nrec-1-org,mary,smith\n");
    let bad_base = d.write("base.json", b"{\"format\":\"gramlink/noisy-base\",\"version\":7}");
    let cases: Vec<(Vec<&str>, &str, i32)> = vec![
        (vec!["mine", "--input", "/nonexistent/names.txt", "--out", o], "IO", 3),
        (vec!["mine", "--input", &febrl, "--out", o], "MISSING_COLUMN", 3),
        (vec!["mine", "--input", &names, "--alphabet", "AA", "--out", o], "INVALID_ALPHABET", 3),
        (vec!["merge", &bad_base, &bad_base, "--out", o], "UNSUPPORTED_VERSION", 4),
        (vec!["mine", "--input", &names, "--epsilon", "0", "--out", o], "INVALID_EPSILON", 5),
        (vec!["mine", "--input", &names, "--k", "0", "--out", o], "INVALID_PARAMETER", 6),
        (vec!["link", &names, &names, "--global-threshold", "2", "--out", o], "USAGE", 2),
    ];
    for (args, code, status) in cases {
        let r = gramlink(&args);
        let e = stderr(&r);
        assert!(e.contains(&format!("error[{code}]: ")), "{args:?}: {e}");
        assert_eq!(r.status.code(), Some(status), "{args:?}: {e}");
        assert!(!out.exists());
    }
    // the statuses are documented where a user looks
    let help = String::from_utf8_lossy(&gramlink(&["--help"]).stdout).into_owned();
    assert!(help.contains("3 input (IO") && help.contains("5 privacy (BUDGET_EXCEEDED"), "{help}");
}

/// One spelling per flag across commands, and the presets' defaults in the help.
#[test]
fn flags_are_spelled_once_and_show_their_defaults() {
    for cmd in [&["embed"][..], &["link"], &["lab", "eval"]] {
        let help = String::from_utf8_lossy(&gramlink(&[cmd, &["--help"]].concat()).stdout).into_owned();
        assert!(help.contains("--threshold <THRESHOLD>"), "{cmd:?}: {help}");
        assert!(help.contains("recommended sound, paper paper"), "{cmd:?}: {help}");
        assert!(!help.contains("--thresholds") && !help.contains("--one-to-one"), "{cmd:?}");
    }
    for cmd in [&["match"][..], &["link"], &["lab", "eval"]] {
        let help = String::from_utf8_lossy(&gramlink(&[cmd, &["--help"]].concat()).stdout).into_owned();
        assert!(help.contains("recommended ranked, paper all"), "{cmd:?}: {help}");
    }
    let help = String::from_utf8_lossy(&gramlink(&["mine", "--help"]).stdout).into_owned();
    for text in ["--alphabet", "--id-column", "--out", "recommended 3, paper 1", "[default: 75]"] {
        assert!(help.contains(text), "mine --help lacks {text:?}");
    }
    let d = Dir::new();
    let r = gramlink(&[
        "link",
        &data("names.txt"),
        &data("names.txt"),
        "--thresholds",
        "sound",
        "--out",
        d.path("p.csv").to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(2), "the old spelling is refused");
    for rule in ["all", "greedy", "nearest", "ranked"] {
        let a = d.write("a.txt", b"SMITH\nJONES\nBROWN\n");
        let r = gramlink(&["link", &a, &a, "--rule", rule, "--seed", "3", "--out", d.path("p.csv").to_str().unwrap()]);
        assert!(r.status.success(), "{rule}: {}", stderr(&r));
    }
}

/// `link` and `eval` start from the same configuration: the same tree depth.
#[test]
fn link_and_eval_share_their_defaults() {
    let o = gramlink(&["lab", "eval", "--data", &data("cities.txt"), "--preset", "paper", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["h_max"], 7, "the configuration's depth, as link uses");
    let o = gramlink(&["lab", "eval", "--data", &data("cities.txt"), "--preset", "paper", "--mean-hmax", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_ne!(v["h_max"], 7, "the scenario's depth from the data");
}

/// CSV is detected; without a column the error names the columns; dropped
/// characters are reported with an alphabet that keeps them.
#[test]
fn csv_is_detected_and_dropped_characters_are_reported() {
    let d = Dir::new();
    let people = d.write("people.txt", b"id,name,born\n1,Mary Smith,1970\n2,John Jones,1982\n");
    let out = d.path("base.json");
    let r = gramlink(&["mine", "--input", &people, "--out", out.to_str().unwrap()]);
    assert_fails(&r, "\"id\", \"name\", \"born\"", &out);
    let dates = d.write("dates.txt", b"MARY SMITH 1970\nJOHN JONES 1982\n");
    let r = ok(&["mine", "--input", &dates, "--seed", "1", "--out", out.to_str().unwrap()]);
    let e = stderr(&r);
    assert!(e.contains("8 digits") && e.contains("\"letters+digits\""), "{e}");
    let r = gramlink(&[
        "mine",
        "--input",
        &dates,
        "--alphabet",
        "letters+digits",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!stderr(&r).contains("dropped"), "{}", stderr(&r));
    let r = gramlink(&["mine", "--input", &people, "--format", "text", "--seed", "1", "--out", out.to_str().unwrap()]);
    assert!(r.status.success(), "--format text reads the header as a record: {}", stderr(&r));
}

/// `--truth` scores one's own linkage against a CSV of true pairs by ids (any
/// number per record), and the pairs file carries each pair's cosine score.
#[test]
fn link_and_match_score_against_a_truth_file() {
    let d = Dir::new();
    let a = d.write("a.csv", b"id,name\n1,SMITH\n2,JOHNSON\n3,WILLIAMS\n4,BROWN\n");
    let b = d.write("b.csv", b"id,name\nx,SMYTH\ny,JONSON\nz,BROWNE\nw,GARCIA\n");
    let truth = d.write("truth.csv", b"a_id,b_id\n1,x\n2,y\n4,z\n3,q\n");
    let out = d.path("pairs.csv");
    let r = link_by_name(&a, &b, "2", &["--truth", &truth, "--out", out.to_str().unwrap()]);
    assert!(r.status.success(), "{}", stderr(&r));
    let e = stderr(&r);
    let line = e.lines().find(|l| l.starts_with("against ")).unwrap_or_else(|| panic!("no score line: {e}"));
    assert!(line.contains("4 true pairs in all"), "{line}");
    let csv = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], "a_id,b_id,distance,cosine");
    let true_rows = rows[1..].iter().filter(|l| ["1,x,", "2,y,", "4,z,"].iter().any(|p| l.starts_with(p))).count();
    assert!(line.contains(&format!("{true_rows} of {} pairs true", rows.len() - 1)), "{line} vs {csv}");
    for row in &rows[1..] {
        let cos: f64 = row.rsplit(',').next().unwrap().parse().unwrap();
        assert!((0.0..=2.0).contains(&cos), "{row}");
    }
    let bad = d.write("bad.csv", b"a_id,b_id\n");
    let out2 = d.path("pairs2.csv");
    let r = gramlink(&[
        "link",
        &a,
        &b,
        "--column",
        "name",
        "--seed",
        "2",
        "--truth",
        &bad,
        "--out",
        out2.to_str().unwrap(),
    ]);
    assert_fails(&r, "error[EMPTY_INPUT]", &out2);
}

/// The scale data: N distinct two-word records from a word list, B's corrupted
/// copy and the truth file that `link --truth` reads.
#[test]
fn corrupt_makes_two_word_scale_data_with_its_truth() {
    let d = Dir::new();
    let (a, b, t) = (d.path("a.csv"), d.path("b.csv"), d.path("truth.csv"));
    let run = |seed: &str| {
        ok(&[
            "lab",
            "corrupt",
            "--data",
            &data("names.txt"),
            "--two-words",
            "500",
            "--ed",
            "1",
            "--seed",
            seed,
            "--out-a",
            a.to_str().unwrap(),
            "--out-b",
            b.to_str().unwrap(),
            "--truth",
            t.to_str().unwrap(),
        ]);
        std::fs::read_to_string(&a).unwrap()
    };
    let first = run("5");
    assert_eq!(first, run("5"), "seeded");
    let rows: Vec<&str> = first.lines().skip(1).collect();
    assert_eq!(rows.len(), 500);
    assert_eq!(rows.iter().collect::<std::collections::HashSet<_>>().len(), 500, "distinct");
    assert!(rows.iter().all(|r| r.split(',').nth(1).unwrap().split(' ').count() == 2), "two words each");
    assert_eq!(std::fs::read_to_string(&t).unwrap().lines().count(), 501);
    let out = d.path("pairs.csv");
    let (a_path, b_path) = (a.to_str().unwrap(), b.to_str().unwrap());
    let r = link_by_name(a_path, b_path, "1", &["--truth", t.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let e = stderr(&r);
    assert!(r.status.success() && e.contains("500 true pairs in all"), "{e}");
    let tiny = d.write("tiny.txt", b"SMITH\nJONES\n");
    let r = gramlink(&[
        "lab",
        "corrupt",
        "--data",
        &tiny,
        "--two-words",
        "3",
        "--out-a",
        a.to_str().unwrap(),
        "--out-b",
        b.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(2), "{}", stderr(&r));
}

/// `--ed auto` (the default) says what it chose and why, and chooses the
/// corruption's edits on the scenario; `--ed N` overrides it; a bad value is
/// refused by name.
#[test]
fn ed_auto_says_what_it_chose() {
    let cities = data("cities.txt");
    for corrupt in ["1", "2"] {
        let o = ok(&["lab", "eval", "--data", &cities, "--corrupt-ed", corrupt]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("ed auto"), "{out}");
        let plural = if corrupt == "1" { "" } else { "s" };
        assert!(out.contains(&format!("ed auto chose {corrupt} edit{plural}: of ")), "{out}");
        assert!(out.contains("Fellegi–Sunter fit without labels"), "{out}");
    }
    let o = ok(&["lab", "eval", "--data", &cities, "--ed", "1"]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("ed auto chose"));
    let o = gramlink(&["lab", "eval", "--data", &cities, "--ed", "two"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("neither auto nor a number"), "{}", stderr(&o));
}

/// Keyed `link` under `ed auto` (the default) fits its cut-off on distances and
/// says what it chose.
#[test]
fn keyed_link_says_what_ed_auto_chose() {
    let d = Dir::new();
    let text = std::fs::read_to_string(data("cities.txt")).unwrap();
    let names: Vec<&str> = text.lines().take(300).collect();
    let a = d.write("a.txt", names.join("\n").as_bytes());
    let typos: Vec<String> = names.iter().map(|n| format!("{n}X")).collect();
    let b = d.write("b.txt", typos.join("\n").as_bytes());
    let out = d.path("p.csv");
    let o = out.to_str().unwrap();
    let r = ok(&["link", &a, &b, "--keyed", "--encoding", "rotation", "--seed", "1", "--out", o]);
    let e = stderr(&r);
    assert!(e.contains("ed auto (keyed: no edit bounds") && e.contains(" chose "), "{e}");
    // the default encoding (the sketch) keeps the q-gram filter: edit bounds again
    let r = ok(&["link", &a, &b, "--keyed", "--seed", "1", "--out", o]);
    let e = stderr(&r);
    assert!(!e.contains("keyed: no edit bounds") && e.contains("ed auto chose"), "{e}");
}
