//! The party's privacy ledger across CLI runs (issue 22, M4): a second mining
//! of the same data past the ledger's total is refused with the ε spent,
//! requested and total named; a damaged ledger is a named error, never reset.
#![cfg(not(target_arch = "wasm32"))]

use std::process::{Command, Output};

fn gramlink(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gramlink")).args(args).output().expect("run gramlink")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const NAMES: &str = "SMITH\nJOHNSON\nWILLIAMS\nBROWN\nJONES\nMILLER\nDAVIS\nGARCIA\nRODRIGUEZ\nWILSON\n";

#[test]
fn a_second_mining_past_the_ledger_is_refused_and_spends_are_kept() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).display().to_string();
    std::fs::write(p("names.txt"), NAMES).unwrap();
    let mine = |out: &str, extra: &[&str]| {
        let input = p("names.txt");
        let mut args = vec!["mine", "--input", &input, "--k", "5", "--epsilon", "0.5"];
        args.extend_from_slice(extra);
        let out = p(out);
        args.extend(["--out", &out]);
        gramlink(&args)
    };
    let first = mine("a1.json", &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    // the default ledger sits beside the data, its total the first run's ε
    let ledger = std::fs::read_to_string(p("names.txt.ledger.json")).unwrap();
    assert!(ledger.contains("\"version\": 1") && ledger.contains("a1.json"), "{ledger}");

    let second = mine("a2.json", &[]);
    assert_eq!(second.status.code(), Some(5), "{}", stderr(&second));
    let e = stderr(&second);
    assert!(e.contains("error[BUDGET_EXCEEDED]") && e.contains("names.txt.ledger.json"), "{e}");
    assert!(e.contains("spent ε 0.5 of its total 0.5") && e.contains("asks for ε 0.5 more"), "{e}");
    assert!(!d.path().join("a2.json").exists(), "nothing released past the budget");
    assert_eq!(std::fs::read_to_string(p("names.txt.ledger.json")).unwrap(), ledger, "the ledger is unchanged");

    // raising the total is the owner's explicit decision, and kept on record
    let third = mine("a3.json", &["--ledger-total", "1"]);
    assert!(third.status.success(), "{}", stderr(&third));
    let l = gramlink::dp::LedgerFile::parse(&std::fs::read_to_string(p("names.txt.ledger.json")).unwrap()).unwrap();
    assert_eq!((l.spends().len(), l.raises().len()), (2, 1));
    assert_eq!(l.spent(), l.total());
    // never below what is spent
    let lower = mine("a4.json", &["--ledger-total", "0.5"]);
    assert!(stderr(&lower).contains("error[INVALID_LEDGER]"), "{}", stderr(&lower));

    // a seeded run is not private and not recorded
    let seeded = mine("s.json", &["--seed", "1", "--ledger", &p("seeded.ledger.json")]);
    assert!(seeded.status.success(), "{}", stderr(&seeded));
    assert!(!d.path().join("seeded.ledger.json").exists());
}

#[test]
fn a_damaged_ledger_is_a_named_error_and_left_alone() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).display().to_string();
    std::fs::write(p("names.txt"), NAMES).unwrap();
    let cases: [(&[u8], &str); 3] = [
        (b"{\"format\": \"gramlink privacy ledger\", \"version\": 9}", "not a ledger file"),
        (b"not json", "not a ledger file"),
        (b"\x00\xff", "not UTF-8"),
    ];
    for (bad, why) in cases {
        std::fs::write(p("l.json"), bad).unwrap();
        let o = gramlink(&["mine", "--input", &p("names.txt"), "--ledger", &p("l.json"), "--out", &p("o.json")]);
        assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
        assert!(stderr(&o).contains("error[INVALID_LEDGER]") && stderr(&o).contains(why), "{}", stderr(&o));
        assert_eq!(std::fs::read(p("l.json")).unwrap(), bad);
        assert!(!d.path().join("o.json").exists());
    }
}
