//! The CLI's outputs under adverse conditions (issue 22, reliability): an output
//! path that is a device, a pipe or a directory, and a signal while a file is
//! being written.
#![cfg(unix)]

mod common;
use common::{gramlink, link_by_name, ok, stderr, Dir};
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
    let d = Dir::with_names();
    let fifo = d.file("pipe");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    ok(&["mine", "--input", &d.file("names.txt"), "--k", "5", "--seed", "1", "--out", &fifo]);
    let got = String::from_utf8(reader.join().unwrap()).unwrap();
    assert!(got.contains("\"format\":\"gramlink/noisy-base\""), "{got}");
    // still a pipe, not replaced by a file
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(temporaries(d.0.path()).is_empty());

    std::fs::create_dir(d.file("dir")).unwrap();
    let o = gramlink(&["mine", "--input", &d.file("names.txt"), "--k", "5", "--seed", "1", "--out", &d.file("dir")]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("error[NOT_A_FILE]") && stderr(&o).contains("is a directory"), "{}", stderr(&o));
    assert!(std::fs::metadata(d.file("dir")).unwrap().is_dir());
}

#[test]
fn a_signal_while_writing_removes_the_temporary_file() {
    let d = Dir::with_names();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gramlink"))
        .args(["mine", "--input", &d.file("names.txt"), "--k", "5", "--seed", "1", "--out", &d.file("base.json")])
        .env("GRAMLINK_TEST_WRITE_DELAY_MS", "30000")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // the temporary file appears (the run then waits before renaming it)
    let mut seen = false;
    for _ in 0..600 {
        if !temporaries(d.0.path()).is_empty() {
            seen = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(seen, "no temporary file appeared");
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(temporaries(d.0.path()).is_empty(), "left behind: {:?}", temporaries(d.0.path()));
    assert!(!d.path("base.json").exists());
}

#[test]
fn a_large_public_q_is_said_out_loud() {
    let d = Dir::with_names();
    let o =
        ok(&["mine", "--input", &d.file("names.txt"), "--public-q", "3", "--seed", "1", "--out", &d.file("b.json")]);
    assert!(stderr(&o).contains("warning: --public-q 3 makes a shared base of up to 21216 grams"), "{}", stderr(&o));
    let o = gramlink(&["mine", "--input", &d.file("names.txt"), "--seed", "1", "--out", &d.file("c.json")]);
    assert!(!stderr(&o).contains("dimensions"), "{}", stderr(&o));
}

#[test]
fn ids_a_spreadsheet_would_run_are_escaped_in_pairs_csv() {
    let d = Dir::new();
    let rows = "id,name\n\"=HYPERLINK(\"\"http://x\"\")\",SMITH\n+1,JONES\n-2,BROWN\n@3,MILLER\nplain,DAVIS\n";
    let (a, b) = (d.write("a.csv", rows.as_bytes()), d.write("b.csv", rows.as_bytes()));
    let o = link_by_name(&a, &b, "1", &["--out", &d.file("pairs.csv")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let pairs = std::fs::read_to_string(d.file("pairs.csv")).unwrap();
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
    let d = Dir::new();
    let inputs = [
        ("pairs.csv", "a_id,b_id,distance\n0123456789abcdef,fedcba9876543210,0.5\n"),
        ("a.ids.csv", "pseudonym,id\n0123456789abcdef,7\n"),
        ("b.ids.csv", "pseudonym,id\nfedcba9876543210,9\n"),
    ];
    let [pairs, a_map, b_map] = inputs.map(|(name, text)| d.write(name, text.as_bytes()));
    let unmap = |out: &str| gramlink(&["unmap", &pairs, "--a-map", &a_map, "--b-map", &b_map, "-o", out]);
    std::os::unix::fs::symlink(&a_map, d.file("link.csv")).unwrap();
    let sub = d.path("sub");
    std::fs::create_dir(&sub).unwrap();
    let other_spelling = format!("{}/../b.ids.csv", sub.display());
    for out in [pairs.clone(), a_map.clone(), d.file("link.csv"), other_spelling] {
        let o = unmap(&out);
        assert_eq!(o.status.code(), Some(3), "{out}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("error[OUTPUT_IS_INPUT]") && stderr(&o).contains("never writes over"),
            "{}",
            stderr(&o)
        );
    }
    for (name, text) in inputs {
        assert_eq!(std::fs::read_to_string(d.path(name)).unwrap(), text);
    }
    // another output is written
    let o = unmap(&d.file("own.csv"));
    assert!(o.status.success(), "{}", stderr(&o));
}
