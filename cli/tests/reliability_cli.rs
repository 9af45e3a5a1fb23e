//! The CLI's outputs under adverse conditions (issue 22, reliability): an output
//! path that is a device, a pipe or a directory, and a signal while a file is
//! being written.
#![cfg(unix)]

mod common;
use common::{gramlink, link_by_name, names_dir, stderr};
use std::os::unix::fs::FileTypeExt;
use std::process::{Command, Stdio};

fn temporaries(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp"))
        .collect()
}

#[test]
fn out_onto_a_pipe_writes_through_and_onto_a_directory_is_refused() {
    let d = names_dir();
    let p = |n: &str| d.path().join(n).display().to_string();
    let fifo = p("pipe");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let o = gramlink(&["mine", "--input", &p("names.txt"), "--k", "5", "--seed", "1", "--out", &fifo]);
    assert!(o.status.success(), "{}", stderr(&o));
    let got = String::from_utf8(reader.join().unwrap()).unwrap();
    assert!(got.contains("\"format\":\"gramlink/noisy-base\""), "{got}");
    // still a pipe, not replaced by a file
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(temporaries(d.path()).is_empty());

    std::fs::create_dir(p("dir")).unwrap();
    let o = gramlink(&["mine", "--input", &p("names.txt"), "--k", "5", "--seed", "1", "--out", &p("dir")]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("error[NOT_A_FILE]") && stderr(&o).contains("is a directory"), "{}", stderr(&o));
    assert!(std::fs::metadata(p("dir")).unwrap().is_dir());
}

#[test]
fn a_signal_while_writing_removes_the_temporary_file() {
    let d = names_dir();
    let p = |n: &str| d.path().join(n).display().to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gramlink"))
        .args(["mine", "--input", &p("names.txt"), "--k", "5", "--seed", "1", "--out", &p("base.json")])
        .env("GRAMLINK_TEST_WRITE_DELAY_MS", "30000")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // the temporary file appears (the run then waits before renaming it)
    let mut seen = false;
    for _ in 0..600 {
        if !temporaries(d.path()).is_empty() {
            seen = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(seen, "no temporary file appeared");
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(temporaries(d.path()).is_empty(), "left behind: {:?}", temporaries(d.path()));
    assert!(!d.path().join("base.json").exists());
}

#[test]
fn a_large_public_q_is_said_out_loud() {
    let d = names_dir();
    let p = |n: &str| d.path().join(n).display().to_string();
    let o = gramlink(&["mine", "--input", &p("names.txt"), "--public-q", "3", "--seed", "1", "--out", &p("b.json")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: --public-q 3 makes a shared base of up to 21216 grams"), "{}", stderr(&o));
    let o = gramlink(&["mine", "--input", &p("names.txt"), "--seed", "1", "--out", &p("c.json")]);
    assert!(!stderr(&o).contains("dimensions"), "{}", stderr(&o));
}

#[test]
fn ids_a_spreadsheet_would_run_are_escaped_in_pairs_csv() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).display().to_string();
    let rows = "id,name\n\"=HYPERLINK(\"\"http://x\"\")\",SMITH\n+1,JONES\n-2,BROWN\n@3,MILLER\nplain,DAVIS\n";
    std::fs::write(p("a.csv"), rows).unwrap();
    std::fs::write(p("b.csv"), rows).unwrap();
    let o = link_by_name(&p("a.csv"), &p("b.csv"), "1", &["--out", &p("pairs.csv")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let pairs = std::fs::read_to_string(p("pairs.csv")).unwrap();
    let ids: Vec<String> =
        csv::Reader::from_reader(pairs.as_bytes()).records().map(|r| r.unwrap().get(0).unwrap().to_string()).collect();
    assert!(ids.contains(&"'=HYPERLINK(\"http://x\")".to_string()), "{pairs}");
    for id in ["'+1", "'-2", "'@3", "plain"] {
        assert!(ids.iter().any(|i| i == id), "{id} in {pairs}");
    }
    assert!(ids.iter().all(|i| !i.starts_with(['=', '+', '-', '@'])), "{pairs}");
}

#[test]
fn unmap_never_writes_over_its_inputs() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).display().to_string();
    let pairs = "a_id,b_id,distance\n0123456789abcdef,fedcba9876543210,0.5\n";
    std::fs::write(p("pairs.csv"), pairs).unwrap();
    std::fs::write(p("a.ids.csv"), "pseudonym,id\n0123456789abcdef,7\n").unwrap();
    std::fs::write(p("b.ids.csv"), "pseudonym,id\nfedcba9876543210,9\n").unwrap();
    std::os::unix::fs::symlink(p("a.ids.csv"), p("link.csv")).unwrap();
    let sub = d.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let other_spelling = format!("{}/../b.ids.csv", sub.display());
    for out in [p("pairs.csv"), p("a.ids.csv"), p("link.csv"), other_spelling] {
        let o =
            gramlink(&["unmap", &p("pairs.csv"), "--a-map", &p("a.ids.csv"), "--b-map", &p("b.ids.csv"), "-o", &out]);
        assert_eq!(o.status.code(), Some(3), "{out}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("error[OUTPUT_IS_INPUT]") && stderr(&o).contains("never writes over"),
            "{}",
            stderr(&o)
        );
    }
    assert_eq!(std::fs::read_to_string(p("pairs.csv")).unwrap(), pairs);
    assert_eq!(std::fs::read_to_string(p("a.ids.csv")).unwrap(), "pseudonym,id\n0123456789abcdef,7\n");
    assert_eq!(std::fs::read_to_string(p("b.ids.csv")).unwrap(), "pseudonym,id\nfedcba9876543210,9\n");
    // another output is written
    let o = gramlink(&[
        "unmap",
        &p("pairs.csv"),
        "--a-map",
        &p("a.ids.csv"),
        "--b-map",
        &p("b.ids.csv"),
        "-o",
        &p("own.csv"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}
