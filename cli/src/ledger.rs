//! The party's privacy ledger file for the ε-spending commands (`mine`, `mine
//! --schema`, `kuzu encrypt`), one way for all three: the ledger is taken under
//! an exclusive lock ([`crate::ledger_lock`]) and checked before the data is
//! read, the spend is reserved (written) before the mechanism runs, and the
//! lock is held until the final write, so k runs on the same data are k spends
//! on one record ([`gramlink::dp::LedgerFile`]), started together or not. A run
//! that fails before it releases anything gives its reservation back; a run
//! killed meanwhile leaves it spent (it may have released).
//!
//! The default file sits beside the data, by its canonical path (a symlink or
//! `./x` finds the same ledger): `names.txt` → `names.txt.ledger.json`. Data that
//! is not a regular file (a pipe, `/dev/stdin`) has no place beside it: it needs
//! `--ledger`. The ledger records the SHA-256 of the data's bytes, and the
//! user's index ([`crate::ledger_index`]) warns of other ledgers of the same
//! bytes. All of it guards against mistakes, not against the owner, who can
//! always copy a file and delete a ledger (docs/THREAT_MODEL.md).
//!
//! A seeded run (`--seed`) releases nothing private (its noise is reproducible)
//! and is not recorded.

use crate::io::{CliError, Result};
use crate::ledger_index;
use crate::ledger_lock::{Held, LockedLedger};
use clap::Args;
use gramlink::dp::{Epsilon, LedgerFile, Spend};
use gramlink::error::DpError;
use std::path::{Path, PathBuf};

/// The ledger flags of an ε-spending command.
#[derive(Args, Clone, Default)]
pub struct LedgerFlags {
    /// The party's privacy ledger for this data, kept across runs [default: the input's name + .ledger.json, beside it;
    /// required for an input that is not a regular file].
    #[arg(long, value_name = "FILE")]
    pub ledger: Option<PathBuf>,
    /// The ledger's total ε: a new ledger's total [default: this run's ε, so a second release is refused]; on an
    /// existing ledger, a new total (kept on record in the ledger; never below what is spent).
    #[arg(long, value_name = "EPSILON")]
    pub ledger_total: Option<f64>,
}

/// A ledger held locked with this run's spend reserved; [`OpenLedger::charge`]
/// settles it, and dropping it unsettled gives the reservation back.
pub struct OpenLedger {
    lock: Option<LockedLedger>,
    /// The ledger as it was before the reservation (the total set, if raised).
    before: LedgerFile,
    /// The file's bytes before this run, to write back; `None`: there was none.
    original: Option<Vec<u8>>,
    sha256: Option<String>,
    command: &'static str,
}

fn ledger_error(e: DpError, path: &Path) -> CliError {
    CliError::from(gramlink::Error::from(e)).context(path.display())
}

/// The error of a path that is no regular file where the ledger needs one:
/// "`path` is a directory`why`" (a pipe, a device, …: [`crate::io::file_kind`]).
fn not_regular(path: &Path, meta: &std::fs::Metadata, why: &str) -> CliError {
    let kind = crate::io::file_kind(meta.file_type());
    ledger_error(DpError::Ledger(format!("{} is {kind}{why}", path.display())), path)
}

impl LedgerFlags {
    /// The ledger of `input`, locked, checked for `epsilon` (a named error past
    /// its total), with `epsilon` reserved; `None` for a seeded run.
    pub fn open(
        &self,
        input: &Path,
        epsilon: Epsilon,
        seeded: bool,
        command: &'static str,
    ) -> Result<Option<OpenLedger>> {
        if seeded {
            return Ok(None);
        }
        let meta =
            std::fs::metadata(input).map_err(|e| CliError::io(format!("cannot read {}: {e}", input.display())))?;
        let path = match &self.ledger {
            Some(l) => canonical_ledger(l)?,
            None if meta.is_file() => default_path(&canonical(input)?),
            None => {
                let why =
                    ": its ledger has no place beside it; name the party's ledger for this data with --ledger FILE";
                return Err(not_regular(input, &meta, why));
            }
        };
        // a pipe is read once, by the run: its bytes are not hashed
        let sha256 = if meta.is_file() { Some(ledger_index::sha256_of(input)?) } else { None };
        if let Some(h) = &sha256 {
            for w in ledger_index::other_ledgers(h, &path) {
                eprintln!("{w}");
            }
        }
        let total = self.ledger_total.map(Epsilon::new).transpose().map_err(gramlink::Error::from)?;
        loop {
            let (mut lock, held) = LockedLedger::open(&path)?;
            let (mut before, original) = match held {
                Held::Existing(bytes) => {
                    let text = std::str::from_utf8(&bytes)
                        .map_err(|_| ledger_error(DpError::Ledger("the file is not UTF-8".into()), &path))?;
                    (LedgerFile::parse(text).map_err(|e| ledger_error(e, &path))?, Some(bytes))
                }
                Held::New => {
                    let name =
                        input.file_name().map_or_else(|| input.display().to_string(), |n| n.to_string_lossy().into());
                    (LedgerFile::new(&name, total.unwrap_or(epsilon)).map_err(gramlink::Error::from)?, None)
                }
            };
            if let Some(t) = total {
                before.set_total(t, &now_utc()).map_err(|e| ledger_error(e, &path))?;
            }
            if let Some(h) = &sha256 {
                if before.data_sha256().is_some_and(|was| was != h) {
                    eprintln!(
                        "warning: {} has changed since the ledger {} was started (its spends still count for it)",
                        input.display(),
                        path.display()
                    );
                }
                before.set_data_sha256(h).map_err(|e| ledger_error(e, &path))?;
            }
            before.check(&path.display().to_string(), epsilon).map_err(|e| {
                let e = CliError::from(gramlink::Error::from(e));
                CliError {
                    message: format!("{} (a larger total is the owner's decision: --ledger-total)", e.message),
                    ..e
                }
            })?;
            let mut reserved = before.clone();
            let note = format!(
                "reserved by a {command} run (process {}) before it mined: kept if that run was stopped",
                std::process::id()
            );
            let spend = Spend { at: now_utc(), command: command.into(), epsilon, released: note };
            reserved.charge(&path.display().to_string(), spend).map_err(gramlink::Error::from)?;
            if lock.write(reserved.to_json().as_bytes())? {
                return Ok(Some(OpenLedger { lock: Some(lock), before, original, sha256, command }));
            }
            // another run created the ledger between the read and the write: read it
        }
    }
}

impl OpenLedger {
    /// Settles the reservation as `epsilon` spent for `released` and writes the
    /// ledger (before the caller writes the release); the lock goes after.
    pub fn charge(mut self, epsilon: Epsilon, released: String) -> Result<()> {
        let mut lock = self.lock.take().expect("an open ledger holds its lock until it is settled");
        let path = lock.path().to_path_buf();
        let mut ledger = self.before.clone();
        let at = now_utc();
        let spend = Spend { at: at.clone(), command: self.command.into(), epsilon, released };
        ledger.charge(&path.display().to_string(), spend).map_err(gramlink::Error::from)?;
        lock.write(ledger.to_json().as_bytes())?;
        if let Some(h) = &self.sha256 {
            ledger_index::record(h, &path, readable(ledger.spent()), readable(ledger.total()), &at);
        }
        eprintln!(
            "ledger {}: ε spent {} of {} ({} release(s))",
            path.display(),
            readable(ledger.spent()),
            readable(ledger.total()),
            ledger.spends().len()
        );
        Ok(())
    }
}

impl Drop for OpenLedger {
    /// A run that ends without settling released nothing: its reservation is
    /// given back (the ledger as it was, or none).
    fn drop(&mut self) {
        let Some(mut lock) = self.lock.take() else { return };
        let path = lock.path().display().to_string();
        let restored = match self.original.take() {
            Some(bytes) => lock.write(&bytes).map(|_| ()),
            None => lock.remove(),
        };
        if let Err(e) = restored {
            eprintln!("warning: the reservation in {path} stays spent: {}", e.message);
        }
    }
}

/// `dir/names.txt` → `dir/names.txt.ledger.json`.
pub fn default_path(input: &Path) -> PathBuf {
    let mut s = input.as_os_str().to_owned();
    s.push(".ledger.json");
    PathBuf::from(s)
}

fn canonical(path: &Path) -> Result<PathBuf> {
    std::fs::canonicalize(path).map_err(|e| CliError::io(format!("cannot resolve {}: {e}", path.display())))
}

/// The canonical path of a `--ledger`: the file's own if it exists (and is a
/// regular file), else its directory's joined with its name; never in a
/// directory of devices or kernel files.
fn canonical_ledger(ledger: &Path) -> Result<PathBuf> {
    let path = match std::fs::metadata(ledger) {
        Ok(m) if m.is_file() => canonical(ledger)?,
        Ok(m) => return Err(not_regular(ledger, &m, ", not a ledger file")),
        Err(_) => {
            let dir = match ledger.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let name = ledger
                .file_name()
                .ok_or_else(|| ledger_error(DpError::Ledger(format!("{} names no file", ledger.display())), ledger))?;
            canonical(dir)?.join(name)
        }
    };
    if ["/dev", "/proc", "/sys"].iter().any(|d| path.starts_with(d)) {
        return Err(ledger_error(
            DpError::Ledger(format!(
                "{} is among the system's devices: a ledger belongs with the data",
                path.display()
            )),
            ledger,
        ));
    }
    Ok(path)
}

fn readable(e: Epsilon) -> f64 {
    (e.as_f64() * 1e9).round() / 1e9
}

/// Now, UTC, RFC 3339 to the second (no date library: days to civil date by
/// Howard Hinnant's algorithm).
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem / 60 % 60, rem % 60)
}
