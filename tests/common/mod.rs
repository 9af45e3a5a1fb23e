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

pub fn data(name: &str) -> String {
    format!("{}/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

pub struct Dir(pub tempfile::TempDir);

impl Dir {
    pub fn new() -> Self {
        Dir(tempfile::tempdir().expect("tempdir"))
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
    pub fn write(&self, name: &str, bytes: &[u8]) -> String {
        let p = self.path(name);
        std::fs::write(&p, bytes).expect("write");
        p.display().to_string()
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
