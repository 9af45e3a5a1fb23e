//! The party's privacy ledger across CLI runs (issue 22, M4): a second mining
//! of the same data past the ledger's total is refused with the ε spent,
//! requested and total named; a damaged ledger is a named error, never reset.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{gramlink, names_dir, stderr, NAMES};
use std::process::{Command, Output};

#[test]
fn a_second_mining_past_the_ledger_is_refused_and_spends_are_kept() {
    let d = names_dir();
    let p = |n: &str| d.path().join(n).display().to_string();
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
    let d = names_dir();
    let p = |n: &str| d.path().join(n).display().to_string();
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

/// `gramlink` with its ledger index in `state` (the tests' own, never the user's).
fn gramlink_in(state: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gramlink")).args(args).env("XDG_STATE_HOME", state).output().expect("run gramlink")
}

/// Many names: a run that takes long enough for two to overlap.
fn many_names() -> String {
    (0..20_000).map(|i| format!("{}{}\n", ["SMITH", "JONES", "BROWN", "DAVIS"][i % 4], i % 977)).collect()
}

#[test]
fn two_runs_started_together_are_never_both_admitted() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("names.txt"), many_names()).unwrap();
    let input = d.path().join("names.txt").display().to_string();
    for trial in 0..6 {
        std::fs::remove_file(d.path().join("names.txt.ledger.json")).ok();
        let runs: Vec<_> = ["a", "b"]
            .iter()
            .map(|r| {
                Command::new(env!("CARGO_BIN_EXE_gramlink"))
                    .args(["mine", "--input", &input, "--out", &d.path().join(r).display().to_string()])
                    .env("XDG_STATE_HOME", d.path())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outs: Vec<Output> = runs.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
        let admitted = outs.iter().filter(|o| o.status.success()).count();
        assert_eq!(admitted, 1, "trial {trial}: {:?}", outs.iter().map(stderr).collect::<Vec<_>>());
        let refused = outs.iter().find(|o| !o.status.success()).unwrap();
        assert!(stderr(refused).contains("error[BUDGET_EXCEEDED]"), "{}", stderr(refused));
        let l = std::fs::read_to_string(d.path().join("names.txt.ledger.json")).unwrap();
        let l = gramlink::dp::LedgerFile::parse(&l).unwrap();
        assert_eq!(l.spends().len(), 1, "one release, one spend");
        assert!(!l.spends()[0].released.contains("reserved"), "the reservation is settled");
    }
}

#[test]
fn a_run_waits_for_the_ledger_lock_and_reads_what_its_holder_wrote() {
    use std::io::{BufRead, BufReader};
    let d = names_dir();
    let p = |n: &str| d.path().join(n).display().to_string();
    let first =
        gramlink_in(d.path(), &["mine", "--input", &p("names.txt"), "--out", &p("a.json"), "--ledger-total", "1"]);
    assert!(first.status.success(), "{}", stderr(&first));
    // hold the ledger's lock as another run would
    let held = std::fs::OpenOptions::new().read(true).write(true).open(p("names.txt.ledger.json")).unwrap();
    held.lock().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gramlink"))
        .args(["mine", "--input", &p("names.txt"), "--out", &p("b.json"), "--epsilon", "0.5"])
        .env("XDG_STATE_HOME", d.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.contains("waiting for the ledger") && line.contains("another run holds it"), "{line}");
    // the holder spends the rest meanwhile (in place: the waiting run holds this very file)
    let mut l = gramlink::dp::LedgerFile::parse(&std::fs::read_to_string(p("names.txt.ledger.json")).unwrap()).unwrap();
    let rest = l.remaining();
    let spend = gramlink::dp::Spend { at: "t".into(), command: "mine".into(), epsilon: rest, released: "x".into() };
    l.charge("l", spend).unwrap();
    std::fs::write(p("names.txt.ledger.json"), l.to_json()).unwrap();
    held.unlock().unwrap();
    let mut rest_of_err = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest_of_err).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(5), "{rest_of_err}");
    assert!(rest_of_err.contains("error[BUDGET_EXCEEDED]"), "{rest_of_err}");
    assert!(!d.path().join("b.json").exists());
}

#[test]
fn a_run_that_fails_after_its_reservation_gives_it_back() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).display().to_string();
    // the ledger is taken before the data is read: an empty input fails after the reservation
    std::fs::write(p("empty.txt"), "").unwrap();
    let o = gramlink_in(d.path(), &["mine", "--input", &p("empty.txt"), "--out", &p("o.json")]);
    assert!(!o.status.success() && stderr(&o).contains("EMPTY_INPUT"), "{}", stderr(&o));
    assert!(!d.path().join("empty.txt.ledger.json").exists(), "a new ledger is removed again");
    std::fs::write(p("names.txt"), NAMES).unwrap();
    let ok = gramlink_in(d.path(), &["mine", "--input", &p("names.txt"), "--out", &p("o.json"), "--ledger-total", "1"]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    let before = std::fs::read(p("names.txt.ledger.json")).unwrap();
    let o = gramlink_in(d.path(), &["mine", "--input", &p("names.txt"), "--out", &p("o2.json"), "--column", "nope"]);
    assert!(!o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(p("names.txt.ledger.json")).unwrap(), before, "an existing ledger as it was");
}

#[test]
fn a_symlink_finds_the_same_ledger_and_a_copy_is_named_in_a_warning() {
    let d = names_dir();
    let p = |n: &str| d.path().join(n).display().to_string();
    let first = gramlink_in(d.path(), &["mine", "--input", &p("names.txt"), "--out", &p("a.json")]);
    assert!(first.status.success(), "{}", stderr(&first));
    let l = std::fs::read_to_string(p("names.txt.ledger.json")).unwrap();
    assert!(l.contains("\"data_sha256\""), "{l}");
    std::os::unix::fs::symlink(p("names.txt"), p("link.txt")).unwrap();
    let linked = gramlink_in(d.path(), &["mine", "--input", &p("link.txt"), "--out", &p("b.json")]);
    assert!(stderr(&linked).contains("error[BUDGET_EXCEEDED]"), "{}", stderr(&linked));
    assert!(stderr(&linked).contains("names.txt.ledger.json"), "{}", stderr(&linked));
    assert!(!d.path().join("link.txt.ledger.json").exists());
    // a copy has a fresh ledger, and the warning names the other one and what it spent
    std::fs::copy(p("names.txt"), p("copy.txt")).unwrap();
    let copy = gramlink_in(d.path(), &["mine", "--input", &p("copy.txt"), "--out", &p("c.json")]);
    assert!(copy.status.success(), "{}", stderr(&copy));
    let e = stderr(&copy);
    assert!(e.contains("the same data") && e.contains("names.txt.ledger.json") && e.contains("spent"), "{e}");
    // a deleted ledger is still named, with what it held
    std::fs::remove_file(p("copy.txt.ledger.json")).unwrap();
    let again = gramlink_in(d.path(), &["mine", "--input", &p("copy.txt"), "--out", &p("c2.json")]);
    assert!(stderr(&again).contains("copy.txt.ledger.json, which is gone"), "{}", stderr(&again));
}

#[test]
fn inputs_that_are_not_files_need_a_ledger_and_no_ledger_goes_among_devices() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).display().to_string();
    let fifo = p("pipe");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let o = gramlink_in(d.path(), &["mine", "--input", &fifo, "--out", &p("o.json")]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(stderr(&o).contains("error[INVALID_LEDGER]") && stderr(&o).contains("is a pipe"), "{}", stderr(&o));
    assert!(stderr(&o).contains("--ledger"), "{}", stderr(&o));
    assert!(!d.path().join("pipe.ledger.json").exists());
    // /dev/stdin as a pipe: refused the same way, and nothing written into /dev
    let mut child = Command::new(env!("CARGO_BIN_EXE_gramlink"))
        .args(["mine", "--input", "/dev/stdin", "--out", &p("o.json")])
        .env("XDG_STATE_HOME", d.path())
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdin.take());
    let o = child.wait_with_output().unwrap();
    assert!(stderr(&o).contains("error[INVALID_LEDGER]") && stderr(&o).contains("/dev/stdin"), "{}", stderr(&o));
    assert!(!std::path::Path::new("/dev/stdin.ledger.json").exists());
    // an explicit ledger among devices, or one that is a directory: refused by name
    std::fs::write(p("names.txt"), NAMES).unwrap();
    for (ledger, why) in [("/dev/names.ledger.json", "among the system's devices"), (&p("") as &str, "a directory")] {
        let o = gramlink_in(d.path(), &["mine", "--input", &p("names.txt"), "--ledger", ledger, "--out", &p("o.json")]);
        assert!(stderr(&o).contains("error[INVALID_LEDGER]") && stderr(&o).contains(why), "{}", stderr(&o));
    }
    assert!(!std::path::Path::new("/dev/names.ledger.json").exists());
    assert!(!d.path().join("o.json").exists());
}
