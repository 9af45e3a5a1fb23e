//! Errors and files for the CLI. Errors keep the core's stable code and say it
//! (`error[CODE]: message`); the exit status follows the error's class. Outputs
//! are written atomically (a temporary file in the same directory, renamed into
//! place), so a failed run never leaves a partial or stale file behind.

use gramlink::alphabet::Alphabet;
use gramlink::dataset::{detect_format, file_head, read_file, Dataset, FormatHint, NormalizationReport};
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
clap's own errors); 3 input (IO, NOT_A_FILE, OUTPUT_IS_INPUT, NOT_TEXT, EMPTY_INPUT, MISSING_COLUMN, MALFORMED_CSV, INVALID_FORMAT, DUPLICATE_ID, \
RECORD_TOO_LONG, INVALID_ALPHABET, TOO_FEW_RECORDS, CONSTANT_COLUMN, EMPTY_COLUMN, ID_IS_LINKED_COLUMN, REPEATED_COLUMN); 4 messages and bases (MALFORMED_MESSAGE, UNSUPPORTED_VERSION, WRONG_MESSAGE_KIND, \
FINGERPRINT_MISMATCH, INVALID_MESSAGE, TRUNCATED_MESSAGE, IMPLAUSIBLE_BATCH, SIGNATURE_MISSING, SIGNATURE_INVALID, PARTY_TWICE, BATCH_TWICE, NO_RECORDS, ID_CLASH, INCOMPATIBLE_BASES, INVALID_BASE, BASE_TWICE, TRANSFORM_MISMATCH); \
5 privacy (BUDGET_EXCEEDED, INVALID_EPSILON, ENTROPY, KEY_REQUIRED, INVALID_LEDGER); 6 parameters (INVALID_PARAMETER, INVALID_KEY, FIT_REFUSED). \
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

    /// An output path that exists and is not a file gramlink may replace.
    pub fn not_a_file(message: impl Into<String>) -> Self {
        CliError { code: "NOT_A_FILE", status: 3, message: message.into() }
    }

    /// An output that is one of the command's inputs.
    pub fn output_is_input(message: impl Into<String>) -> Self {
        CliError { code: "OUTPUT_IS_INPUT", status: 3, message: message.into() }
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
    let what = path.display().to_string();
    let format = detect_format(&what, &file_head(path)?, hint, column, id_column)?;
    let mut bar = crate::progress_bar::Bar::new();
    let phase = format!("reading {what} (bytes)");
    let raw = read_file(path, &format, &mut |done, total| {
        let _ = gramlink::progress::Progress::tick(&mut bar, &phase, done, total);
    })?;
    bar.finish();
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

/// Writes `bytes` to `path` atomically: a temporary file beside it, renamed
/// into place, so a failed run never leaves a partial or stale file.
///
/// A path that exists and is not a regular file is never replaced by one: a
/// character device or a FIFO (`--out /dev/stdout`, a named pipe) is written
/// through, as a shell redirection would; a directory, a block device or a
/// socket is refused with a named error (`NOT_A_FILE`). A link to a regular
/// file is followed, so the link stays a link.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_parts(path, &[bytes])
}

/// What a file that is not a regular file is, for a message (the output's
/// and the ledger's).
pub fn file_kind(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "a pipe"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// [`write_atomic`] of `parts` one after the other (a batch's header and
/// numbers, written from where they lie instead of joined into one copy first).
pub fn write_atomic_parts(path: &Path, parts: &[&[u8]]) -> Result<()> {
    let io = |what: &str, e: &dyn std::fmt::Display| CliError::io(format!("{what}: {e}"));
    let target = match std::fs::metadata(path) {
        Ok(m) => {
            use std::os::unix::fs::FileTypeExt;
            let t = m.file_type();
            if t.is_char_device() || t.is_fifo() {
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| io(&format!("cannot write {}", path.display()), &e))?;
                for bytes in parts {
                    f.write_all(bytes).map_err(|e| io(&format!("cannot write {}", path.display()), &e))?;
                }
                return Ok(());
            }
            if !t.is_file() {
                let kind = file_kind(t);
                return Err(CliError::not_a_file(format!(
                    "{} is {kind}: gramlink writes its output to a regular file (or through a character device or a pipe), never over {kind}",
                    path.display()
                )));
            }
            // a link to a regular file: replace the file it points to
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        Err(_) => path.to_path_buf(),
    };
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp =
        tempfile::NamedTempFile::new_in(dir).map_err(|e| io(&format!("cannot write in {}", dir.display()), &e))?;
    // a signal while the file is written removes it (main's handler, [`remove_pending`])
    let _pending = Pending::register(tmp.path());
    for bytes in parts {
        tmp.write_all(bytes).map_err(|e| io(&format!("cannot write {}", path.display()), &e))?;
    }
    // tests/reliability_cli.rs signals a run while its temporary file exists
    if let Some(ms) = std::env::var("GRAMLINK_TEST_WRITE_DELAY_MS").ok().and_then(|v| v.parse().ok()) {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    tmp.as_file().sync_all().map_err(|e| io(&format!("cannot write {}", path.display()), &e))?;
    tmp.persist(&target).map_err(|e| io(&format!("cannot write {}", path.display()), &e.error))?;
    Ok(())
}

/// The temporary files being written now (a few at most).
static PENDING: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

/// A temporary file on the list of [`PENDING`] while it lives.
pub struct Pending(std::path::PathBuf);

impl Pending {
    pub fn register(path: &Path) -> Pending {
        PENDING.lock().unwrap_or_else(|e| e.into_inner()).push(path.to_path_buf());
        Pending(path.to_path_buf())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        PENDING.lock().unwrap_or_else(|e| e.into_inner()).retain(|p| *p != self.0);
    }
}

/// Removes every temporary file being written (called on SIGINT, SIGTERM or
/// SIGHUP, which end the process without running destructors).
pub fn remove_pending() -> usize {
    let pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    pending.iter().filter(|p| std::fs::remove_file(p).is_ok()).count()
}

/// Installs the signal handler: temporary files removed, exit status 130.
pub fn on_signal_remove_temporaries() {
    // a second handler cannot be installed (tests call main once): ignore that
    let _ = ctrlc::set_handler(|| {
        let n = remove_pending();
        eprintln!(
            "interrupted{}",
            if n > 0 { format!(": removed {n} unfinished output file(s)") } else { String::new() }
        );
        std::process::exit(130);
    });
}

/// CSV bytes with a two-column header.
pub fn csv_bytes(header: &[&str; 2], rows: impl Iterator<Item = (String, String)>) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: &dyn std::fmt::Display| CliError::failed(format!("cannot write CSV: {e}"));
    w.write_record(header).map_err(|e| err(&e))?;
    for (id, name) in rows {
        w.write_record([id, name]).map_err(|e| err(&e))?;
    }
    w.into_inner().map_err(|e| err(&e))
}

/// One file given twice is one party's base twice, whatever it holds (bases
/// of the public grams only are alike across parties, so the merge cannot tell).
pub fn one_file_once(files: &[std::path::PathBuf], names: &[String]) -> Result<()> {
    let real: Vec<std::path::PathBuf> =
        files.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())).collect();
    for (i, f) in real.iter().enumerate() {
        if let Some(j) = real[..i].iter().position(|g| g == f) {
            let (first, second) = (names[j].clone(), names[i].clone());
            return Err(gramlink::Error::from(gramlink::error::BaseError::Twice { first, second }).into());
        }
    }
    Ok(())
}
