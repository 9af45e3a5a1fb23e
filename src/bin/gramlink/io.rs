//! File handling for the CLI: inputs with clear errors, outputs written atomically
//! (a temporary file in the same directory, renamed into place), so a failed run
//! never leaves a partial or stale file behind.

use anyhow_lite::{Context, Result};
use gramlink::alphabet::Alphabet;
use gramlink::dataset::{read_file, Dataset, InputFormat};
use std::io::Write;
use std::path::Path;

pub mod anyhow_lite {
    //! A tiny error wrapper: a message with context, printed by `main`.
    pub type Result<T> = std::result::Result<T, String>;
    pub trait Context<T> {
        fn context(self, what: impl FnOnce() -> String) -> Result<T>;
    }
    impl<T, E: std::fmt::Display> Context<T> for std::result::Result<T, E> {
        fn context(self, what: impl FnOnce() -> String) -> Result<T> {
            self.map_err(|e| format!("{}: {e}", what()))
        }
    }
}

/// Text (one record a line) unless a CSV column is named.
pub fn format_for(column: Option<&str>, id_column: Option<&str>) -> InputFormat {
    match column {
        Some(c) => InputFormat::Csv { column: c.to_string(), id_column: id_column.map(str::to_string) },
        None => InputFormat::Text,
    }
}

pub fn load_dataset(path: &Path, column: Option<&str>, id_column: Option<&str>, alphabet: &Alphabet) -> Result<Dataset> {
    if id_column.is_some() && column.is_none() {
        return Err("--id-column needs --column (it applies to CSV input)".into());
    }
    let raw = read_file(path, &format_for(column, id_column)).map_err(|e| e.to_string())?;
    let d = Dataset::normalize(raw, alphabet).map_err(|e| format!("{}: {e}", path.display()))?;
    let r = d.report();
    if r.empty > 0 {
        let shown: Vec<&str> = r.empty_ids.iter().take(10).map(String::as_str).collect();
        eprintln!(
            "note: {} of {} records normalize to the empty string and are left out (ids: {}{})",
            r.empty,
            r.total,
            shown.join(", "),
            if r.empty > 10 { ", …" } else { "" }
        );
    }
    if d.is_empty() {
        return Err(format!("{}: no record is left after normalization onto the alphabet", path.display()));
    }
    Ok(d)
}

pub fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).context(|| format!("cannot read {}", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", path.display()))
}

/// Writes `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).context(|| format!("cannot write in {}", dir.display()))?;
    tmp.write_all(bytes).context(|| format!("cannot write {}", path.display()))?;
    tmp.as_file().sync_all().context(|| format!("cannot write {}", path.display()))?;
    tmp.persist(path).map_err(|e| format!("cannot write {}: {}", path.display(), e.error))?;
    Ok(())
}
