//! What the CLI's integration tests share: running the binary, the
//! repository's data, a scratch folder, and the check of a failed run.
#![allow(dead_code)] // each test file uses a part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn gramlink(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gramlink")).args(args).output().expect("run gramlink")
}

/// `gramlink link a b` on two CSV files of `id` and `name` columns, seeded,
/// with `extra` flags after.
pub fn link_by_name(a: &str, b: &str, seed: &str, extra: &[&str]) -> Output {
    let args = ["link", a, b, "--column", "name", "--id-column", "id", "--seed", seed];
    gramlink(&[&args[..], extra].concat())
}

/// Ten surnames, one per line: a small input to mine.
pub const NAMES: &str = "SMITH\nJOHNSON\nWILLIAMS\nBROWN\nJONES\nMILLER\nDAVIS\nGARCIA\nRODRIGUEZ\nWILSON\n";

/// A scratch folder holding `names.txt` ([`NAMES`]).
pub fn names_dir() -> tempfile::TempDir {
    Dir::with_names().0
}

/// A run that must succeed.
pub fn ok(args: &[&str]) -> Output {
    let o = gramlink(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o
}

/// The F1 of a truth report's line that starts with `what` (`pairs:`,
/// `clusters:`).
pub fn f1_of(report: &str, what: &str) -> f64 {
    let line = report.lines().find(|x| x.starts_with(what)).unwrap_or_else(|| panic!("{report}"));
    line.split("F1 ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap()
}

pub fn data(name: &str) -> String {
    format!("{}/data/{name}", concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

pub struct Dir(pub tempfile::TempDir);

impl Dir {
    pub fn new() -> Self {
        Dir(tempfile::tempdir().expect("tempdir"))
    }
    /// A scratch folder holding `names.txt` ([`NAMES`]).
    pub fn with_names() -> Self {
        let d = Dir::new();
        d.write("names.txt", NAMES.as_bytes());
        d
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
    /// [`Dir::path`] as the text of an argument.
    pub fn file(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }
    pub fn write(&self, name: &str, bytes: &[u8]) -> String {
        std::fs::write(self.path(name), bytes).expect("write");
        self.file(name)
    }
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The run failed with a message containing `needle`, and wrote nothing at `out`.
pub fn assert_fails(o: &Output, needle: &str, out: &Path) {
    assert!(!o.status.success(), "expected failure, got success; stderr: {}", stderr(o));
    let e = stderr(o);
    assert!(e.contains(needle), "stderr {e:?} does not mention {needle:?}");
    assert!(!e.contains("panicked"), "panic: {e}");
    assert!(!out.exists(), "{} was left behind", out.display());
    // no temporary file either
    if let Some(dir) = out.parent() {
        let leftovers: Vec<_> = std::fs::read_dir(dir)
            .expect("dir")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    }
}
