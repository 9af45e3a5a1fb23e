//! The user's index of ledgers by the data they guard: one line per charge,
//! `{"sha256", "ledger", "spent", "total", "at"}`, appended to
//! `$XDG_STATE_HOME/gramlink/ledgers.jsonl` (or `~/.local/state/gramlink/…`).
//!
//! A ledger is found by the data's path; the index finds the other ledgers of
//! the same bytes, so a copy, a rename, a deleted ledger or a `--ledger`
//! elsewhere is named in a warning with what those ledgers spent. It covers
//! this user's runs on this machine with that state directory, and identical
//! bytes only: a changed byte, another user or machine, or a removed index is
//! not seen. It helps an owner who forgot a release; it cannot stop one who
//! means to spend again (docs/THREAT_MODEL.md, "The privacy ledger").

use crate::io::{CliError, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// One charge on record in the index.
#[derive(Serialize, Deserialize)]
struct Entry {
    sha256: String,
    ledger: PathBuf,
    spent: f64,
    total: f64,
    at: String,
}

/// The SHA-256 (lowercase hex) of the bytes of the file at `path`, read in
/// pieces (a large data file is not held twice).
pub fn sha256_of(path: &Path) -> Result<String> {
    let mut f = std::fs::File::open(path)
        .map_err(|e| CliError::io(format!("cannot read {} to hash it: {e}", path.display())))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(|e| CliError::io(format!("cannot read {}: {e}", path.display())))?;
        if n == 0 {
            return Ok(hex::encode(hasher.finalize()));
        }
        hasher.update(&buf[..n]);
    }
}

/// The index file: `$XDG_STATE_HOME/gramlink/ledgers.jsonl` where that is an
/// absolute path (the XDG rule), else `$HOME/.local/state/gramlink/ledgers.jsonl`;
/// `None` with neither.
fn index_path() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))?;
    Some(state.join("gramlink").join("ledgers.jsonl"))
}

/// Warnings for the other ledgers the index knows for the data `sha256`
/// (`ledger` is this run's): where each is, what it spent, or that it is gone.
pub fn other_ledgers(sha256: &str, ledger: &Path) -> Vec<String> {
    let Some(index) = index_path() else { return Vec::new() };
    let Ok(text) = std::fs::read_to_string(&index) else { return Vec::new() };
    // the latest entry of each other ledger of these bytes
    let mut latest: Vec<Entry> = Vec::new();
    for e in text.lines().filter_map(|l| serde_json::from_str::<Entry>(l).ok()) {
        // this run's own ledger counts when it was deleted since its last charge
        if e.sha256 != sha256 || (e.ledger == ledger && ledger.exists()) {
            continue;
        }
        match latest.iter_mut().find(|x| x.ledger == e.ledger) {
            Some(x) => *x = e,
            None => latest.push(e),
        }
    }
    let short = &sha256[..sha256.len().min(16)];
    // the most recent few (an index of years of runs would otherwise fill the screen)
    let more = latest.len().saturating_sub(SHOWN);
    let mut lines: Vec<String> = latest[more..]
        .iter()
        .map(|e| {
            let now = std::fs::read_to_string(&e.ledger).ok().and_then(|t| gramlink::dp::LedgerFile::parse(&t).ok());
            match now {
                Some(l) => format!(
                    "warning: the same data (sha256 {short}…) has another ledger, {}: ε {} spent of {}; \
                     this run charges {} (releases of the same data add up, whichever ledger holds them)",
                    e.ledger.display(),
                    readable(l.spent().as_f64()),
                    readable(l.total().as_f64()),
                    ledger.display()
                ),
                None => format!(
                    "warning: the same data (sha256 {short}…) had the ledger {}, which is gone or unreadable now \
                     (it held ε {} spent of {} at {}); this run charges {}",
                    e.ledger.display(),
                    e.spent,
                    e.total,
                    e.at,
                    ledger.display()
                ),
            }
        })
        .collect();
    if more > 0 {
        lines.push(format!("warning: and {more} more ledger(s) of the same data in the index {}", index.display()));
    }
    lines
}

fn readable(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}

/// The most other ledgers named one by one in the warnings.
const SHOWN: usize = 3;

/// Appends a charge to the index (a line written in one append; a run that
/// cannot write the index says so and goes on: the ledger is the record, the
/// index only a help).
pub fn record(sha256: &str, ledger: &Path, spent: f64, total: f64, at: &str) {
    let Some(path) = index_path() else { return };
    let entry = Entry { sha256: sha256.into(), ledger: ledger.to_path_buf(), spent, total, at: at.into() };
    let line = serde_json::to_string(&entry).expect("an index entry serializes") + "\n";
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::OpenOptions::new().create(true).append(true).open(&path))
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        eprintln!("warning: cannot add the ledger to the index {}: {e}", path.display());
    }
}
