//! The README's command-line quick start runs as written: every `gramlink …` line of the
//! ```sh block under "## On the command line", in order, in a folder holding the a.csv and
//! b.csv it names (as tests/js/readme.test.mjs runs the JavaScript one).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

const README: &str = include_str!("../../README.md");
const HEADING: &str = "## On the command line";

/// The commands of the section's first ```sh block: comments and blank lines dropped,
/// each line split on whitespace (the block uses no quoting).
fn commands() -> Vec<Vec<String>> {
    let section = &README[README.find(HEADING).expect("the README has a command-line section")..];
    let start = section.find("```sh\n").expect("the section has a ```sh block") + "```sh\n".len();
    let end = start + section[start..].find("```").expect("the ```sh block ends");
    section[start..end]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().map(String::from).collect())
        .collect()
}

/// Two parties' files, columns `id` and `surname`: B holds A's first names again, under
/// its own ids (A's id + 100000), in reverse order.
fn write_parties(dir: &Path, n: usize) {
    let names = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/names.txt")).unwrap();
    let names: Vec<&str> = names.lines().take(n).collect();
    let mut a = String::from("id,surname\n");
    let mut b = String::from("id,surname\n");
    for (i, name) in names.iter().enumerate() {
        a.push_str(&format!("{i},{name}\n"));
    }
    for (i, name) in names.iter().enumerate().rev() {
        b.push_str(&format!("{},{name}\n", i + 100_000));
    }
    std::fs::write(dir.join("a.csv"), a).unwrap();
    std::fs::write(dir.join("b.csv"), b).unwrap();
}

/// Column `col` of a CSV with a header, row by row.
fn column(path: &Path, col: usize) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().skip(1).map(|l| l.split(',').nth(col).expect("a column").to_string()).collect()
}

#[test]
fn the_readme_command_line_quick_start_runs_as_written() {
    let cmds = commands();
    let verbs: Vec<&str> = cmds.iter().map(|c| c.get(1).map_or("", String::as_str)).collect();
    for verb in ["mine", "merge", "keygen", "embed", "match", "unmap"] {
        assert!(verbs.contains(&verb), "the README's quick start has no `gramlink {verb}`: {verbs:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    let n = 2000;
    write_parties(dir.path(), n);
    for cmd in &cmds {
        assert_eq!(cmd[0], "gramlink", "a README line that is not a gramlink command: {cmd:?}");
        let out = Command::new(env!("CARGO_BIN_EXE_gramlink"))
            .args(&cmd[1..])
            .current_dir(dir.path())
            // the ledger index stays in the test's folder, not the user's state directory
            .env("XDG_STATE_HOME", dir.path().join("state"))
            .output()
            .expect("run gramlink");
        assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    // each owner mapped the same pairs (one row each, in the matcher's order) to its own ids
    let a_ids = column(&dir.path().join("pairs-a.csv"), 0);
    let b_ids = column(&dir.path().join("pairs-b.csv"), 1);
    assert_eq!(a_ids.len(), b_ids.len(), "pairs-a.csv and pairs-b.csv differ in length");
    let truth: HashMap<String, String> = (0..n).map(|i| (i.to_string(), (i + 100_000).to_string())).collect();
    let right = a_ids.iter().zip(&b_ids).filter(|(a, b)| truth.get(*a) == Some(*b)).count();
    // B holds A's names exactly: nearly all are linked, and to the right record
    assert!(right * 100 >= n * 95, "{right} of {n} records linked to their copy ({} pairs)", a_ids.len());
    assert!(right * 100 >= a_ids.len() * 95, "{right} right of {} pairs", a_ids.len());
}
