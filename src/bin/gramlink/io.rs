//! Errors and files for the CLI. Errors keep the core's stable code and say it
//! (`error[CODE]: message`); the exit status follows the error's class. Outputs
//! are written atomically (a temporary file in the same directory, renamed into
//! place), so a failed run never leaves a partial or stale file behind.

use gramlink::alphabet::Alphabet;
use gramlink::dataset::{detect_format, read_records, Dataset, FormatHint, NormalizationReport};
use gramlink::error::ErrorClass;
use std::io::Write;
use std::path::Path;

/// A CLI error: a stable code, an exit status and a message.
#[derive(Debug)]
pub struct CliError {
    pub code: &'static str,
    pub status: u8,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, CliError>;

/// The exit status of each class of error (also in `gramlink --help`).
pub const EXIT_STATUSES: &str = "Exit status: 0 success; 1 other failure (FAILED, CANCELLED); 2 usage (USAGE, and \
clap's own errors); 3 input (IO, NOT_TEXT, EMPTY_INPUT, MISSING_COLUMN, MALFORMED_CSV, INVALID_FORMAT, DUPLICATE_ID, \
RECORD_TOO_LONG, INVALID_ALPHABET, TOO_FEW_RECORDS, CONSTANT_COLUMN, EMPTY_COLUMN); 4 messages and bases (MALFORMED_MESSAGE, UNSUPPORTED_VERSION, WRONG_MESSAGE_KIND, \
FINGERPRINT_MISMATCH, INVALID_MESSAGE, TRUNCATED_MESSAGE, INCOMPATIBLE_BASES, INVALID_BASE, TRANSFORM_MISMATCH); \
5 privacy (BUDGET_EXCEEDED, INVALID_EPSILON, ENTROPY, INVALID_LEDGER); 6 parameters (INVALID_PARAMETER, INVALID_KEY). \
Errors print as `error[CODE]: message`.";

impl CliError {
    /// Flags that do not go together.
    pub fn usage(message: impl Into<String>) -> Self {
        CliError { code: "USAGE", status: 2, message: message.into() }
    }

    /// A file that cannot be read or written.
    pub fn io(message: impl Into<String>) -> Self {
        CliError { code: "IO", status: 3, message: message.into() }
    }

    /// Anything else (experiments' own checks).
    pub fn failed(message: impl Into<String>) -> Self {
        CliError { code: "FAILED", status: 1, message: message.into() }
    }

    /// The same error with `context` before its message (a file name).
    pub fn context(mut self, context: impl std::fmt::Display) -> Self {
        self.message = format!("{context}: {}", self.message);
        self
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error[{}]: {}", self.code, self.message)
    }
}

impl From<gramlink::Error> for CliError {
    fn from(e: gramlink::Error) -> Self {
        let status = match e.class() {
            ErrorClass::Input => 3,
            ErrorClass::Message => 4,
            ErrorClass::Privacy => 5,
            ErrorClass::Parameter => 6,
            ErrorClass::Cancelled => 1,
        };
        CliError { code: e.code(), status, message: e.to_string() }
    }
}

macro_rules! from_core {
    ($($t:ty),*) => {$(
        impl From<$t> for CliError {
            fn from(e: $t) -> Self {
                gramlink::Error::from(e).into()
            }
        }
    )*};
}
from_core!(
    gramlink::error::InputError,
    gramlink::error::ProtocolError,
    gramlink::error::BaseError,
    gramlink::error::DpError,
    gramlink::error::MineError,
    gramlink::error::TwinError
);

impl From<String> for CliError {
    fn from(message: String) -> Self {
        CliError::failed(message)
    }
}

impl From<&str> for CliError {
    fn from(message: &str) -> Self {
        CliError::failed(message)
    }
}

/// Adds a file name to an error.
pub trait InFile<T> {
    fn in_file(self, path: &Path) -> Result<T>;
}

impl<T, E: Into<CliError>> InFile<T> for std::result::Result<T, E> {
    fn in_file(self, path: &Path) -> Result<T> {
        self.map_err(|e| e.into().context(path.display()))
    }
}

/// A file's bytes.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| CliError::io(format!("cannot read {}: {e}", path.display())))
}

/// A file's text (UTF-8).
pub fn read_text(path: &Path) -> Result<String> {
    String::from_utf8(read_bytes(path)?).map_err(|e| {
        CliError::from(gramlink::error::InputError::NotText {
            what: path.display().to_string(),
            offset: e.utf8_error().valid_up_to(),
        })
    })
}

/// A party's records from a file: its format detected ([`detect_format`]) or
/// given, normalized onto `alphabet`; the normalization report printed.
pub fn load_dataset(
    path: &Path,
    hint: FormatHint,
    column: Option<&str>,
    id_column: Option<&str>,
    alphabet: &Alphabet,
) -> Result<Dataset> {
    let bytes = read_bytes(path)?;
    let what = path.display().to_string();
    let format = detect_format(&what, &bytes, hint, column, id_column)?;
    let raw = read_records(&bytes, &format, &what)?;
    let d = Dataset::normalize(raw, alphabet).in_file(path)?;
    report(path, &d.report());
    if d.is_empty() {
        return Err(CliError::from(gramlink::error::InputError::Empty {
            what: format!("{what} after normalization onto the alphabet"),
        }));
    }
    Ok(d)
}

/// What normalization set aside or dropped, on stderr.
fn report(path: &Path, r: &NormalizationReport) {
    if r.empty > 0 {
        let shown: Vec<&str> = r.empty_ids.iter().take(10).map(String::as_str).collect();
        eprintln!(
            "note: {}: {} of {} records normalize to the empty string and are left out (ids: {}{})",
            path.display(),
            r.empty,
            r.total,
            shown.join(", "),
            if r.empty > 10 { ", …" } else { "" }
        );
    }
    if let Some(w) = &r.warning {
        eprintln!("warning: {}: {w}", path.display());
    }
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let io = |what: &str, e: &dyn std::fmt::Display| CliError::io(format!("{what}: {e}"));
    let mut tmp =
        tempfile::NamedTempFile::new_in(dir).map_err(|e| io(&format!("cannot write in {}", dir.display()), &e))?;
    tmp.write_all(bytes).map_err(|e| io(&format!("cannot write {}", path.display()), &e))?;
    tmp.as_file().sync_all().map_err(|e| io(&format!("cannot write {}", path.display()), &e))?;
    tmp.persist(path).map_err(|e| io(&format!("cannot write {}", path.display()), &e.error))?;
    Ok(())
}
