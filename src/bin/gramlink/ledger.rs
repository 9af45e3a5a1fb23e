//! The party's privacy ledger file for the ε-spending commands (`mine`, `mine
//! --schema`, `kuzu encrypt`): loaded and checked before the mechanism runs,
//! charged and written (atomically) before the release is written, so k runs on
//! the same data are k spends on one record ([`gramlink::dp::LedgerFile`]).
//!
//! The default file sits beside the data: `names.txt` → `names.txt.ledger.json`.
//! A seeded run (`--seed`) releases nothing private (its noise is reproducible)
//! and is not recorded.

use crate::io::{self, CliError, Result};
use clap::Args;
use gramlink::dp::{Epsilon, LedgerFile, Spend};
use std::path::{Path, PathBuf};

/// The ledger flags of an ε-spending command.
#[derive(Args, Clone, Default)]
pub struct LedgerFlags {
    /// The party's privacy ledger for this data, kept across runs [default: the input's name + .ledger.json, beside it].
    #[arg(long, value_name = "FILE")]
    pub ledger: Option<PathBuf>,
    /// The ledger's total ε: a new ledger's total [default: this run's ε, so a second release is refused]; on an
    /// existing ledger, a new total (kept on record in the ledger; never below what is spent).
    #[arg(long, value_name = "EPSILON")]
    pub ledger_total: Option<f64>,
}

/// A loaded ledger, checked for one run's ε.
pub struct OpenLedger {
    path: PathBuf,
    ledger: LedgerFile,
    command: &'static str,
}

impl LedgerFlags {
    /// The ledger of `input`, checked for `epsilon` (a named error past its
    /// total); `None` for a seeded run.
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
        let path = self.ledger.clone().unwrap_or_else(|| default_path(input));
        let total = self.ledger_total.map(Epsilon::new).transpose().map_err(gramlink::Error::from)?;
        let mut ledger = match std::fs::read(&path) {
            Ok(bytes) => {
                let text = std::str::from_utf8(&bytes)
                    .map_err(|_| gramlink::error::DpError::Ledger("the file is not UTF-8".into()))
                    .map_err(|e| CliError::from(gramlink::Error::from(e)).context(path.display()))?;
                LedgerFile::parse(text).map_err(|e| CliError::from(gramlink::Error::from(e)).context(path.display()))?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let name =
                    input.file_name().map_or_else(|| input.display().to_string(), |n| n.to_string_lossy().into());
                LedgerFile::new(&name, total.unwrap_or(epsilon)).map_err(gramlink::Error::from)?
            }
            Err(e) => return Err(CliError::io(format!("cannot read the ledger {}: {e}", path.display()))),
        };
        if let Some(t) = total {
            ledger
                .set_total(t, &now_utc())
                .map_err(|e| CliError::from(gramlink::Error::from(e)).context(path.display()))?;
        }
        ledger.check(&path.display().to_string(), epsilon).map_err(|e| {
            let e = CliError::from(gramlink::Error::from(e));
            CliError { message: format!("{} (a larger total is the owner's decision: --ledger-total)", e.message), ..e }
        })?;
        Ok(Some(OpenLedger { path, ledger, command }))
    }
}

impl OpenLedger {
    /// Charges `epsilon` for `released` and writes the ledger (before the
    /// caller writes the release).
    pub fn charge(mut self, epsilon: Epsilon, released: String) -> Result<()> {
        // another run on the same data may have charged the ledger meanwhile: then
        // this one releases nothing (the file is read again just before the write)
        if let Ok(bytes) = std::fs::read(&self.path) {
            let now = std::str::from_utf8(&bytes).ok().and_then(|t| LedgerFile::parse(t).ok());
            if now.as_ref().map(LedgerFile::spends) != Some(self.ledger.spends()) {
                return Err(CliError::from(gramlink::Error::from(gramlink::error::DpError::Ledger(format!(
                    "{} changed while this run mined (another run on the same data?): nothing was released; run again",
                    self.path.display()
                )))));
            }
        }
        let spend = Spend { at: now_utc(), command: self.command.into(), epsilon, released };
        self.ledger.charge(&self.path.display().to_string(), spend).map_err(gramlink::Error::from)?;
        io::write_atomic(&self.path, self.ledger.to_json().as_bytes())?;
        eprintln!(
            "ledger {}: ε spent {} of {} ({} release(s))",
            self.path.display(),
            readable(self.ledger.spent()),
            readable(self.ledger.total()),
            self.ledger.spends().len()
        );
        Ok(())
    }
}

/// `dir/names.txt` → `dir/names.txt.ledger.json`.
pub fn default_path(input: &Path) -> PathBuf {
    let mut s = input.as_os_str().to_owned();
    s.push(".ledger.json");
    PathBuf::from(s)
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
