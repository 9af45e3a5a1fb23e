//! A ledger file held under an exclusive lock from the run's first read to its
//! last write, so two runs on the same data take turns: the second reads what
//! the first wrote (issue 31: two `mine` runs started together were both
//! admitted, as read, check, mine, write was not one step).
//!
//! The lock is the operating system's advisory file lock
//! ([`std::fs::File::lock`], `flock` on Linux): every gramlink run takes it, and
//! it goes with the process, so a killed run holds nothing. Every write is a
//! new file renamed over the old one (a crash leaves the old ledger or the new,
//! never half of one); the new file is locked *before* it takes the ledger's
//! name, so the name always points at a locked file while a run holds it. A run
//! that waited on a file since replaced (or removed) sees that its file is no
//! longer the one at the name, and starts again on the new one.
//!
//! A new ledger is written whole and locked under a temporary name, then linked
//! to the ledger's name, which fails if the name exists ([`std::fs::hard_link`]):
//! two runs cannot both create it, and no run ever reads a half-made ledger.

use crate::io::{CliError, Pending, Result};
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A ledger file this run holds locked (or, for a new ledger, the name no file
/// held yet when it was read).
pub struct LockedLedger {
    path: PathBuf,
    /// The locked file at `path`; `None` while the ledger does not exist yet.
    file: Option<File>,
}

/// What a locked ledger held when this run took it.
pub enum Held {
    /// The file's bytes.
    Existing(Vec<u8>),
    /// No ledger at that name yet.
    New,
}

fn io_error(what: String, e: std::io::Error) -> CliError {
    CliError::io(format!("{what}: {e}"))
}

impl LockedLedger {
    /// Takes the ledger at `path`: waits for its lock (saying so when another
    /// run holds it) and reads it, or finds that it does not exist yet.
    pub fn open(path: &Path) -> Result<(LockedLedger, Held)> {
        loop {
            let file = match File::open(path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Ok((LockedLedger { path: path.to_path_buf(), file: None }, Held::New))
                }
                Err(e) => return Err(io_error(format!("cannot read the ledger {}", path.display()), e)),
            };
            if let Err(std::fs::TryLockError::WouldBlock) = file.try_lock() {
                eprintln!("waiting for the ledger {} (another run holds it)", path.display());
                file.lock().map_err(|e| io_error(format!("cannot lock the ledger {}", path.display()), e))?;
            } else {
                // try_lock's other error (the lock failed outright) is lock()'s to report
                file.lock().map_err(|e| io_error(format!("cannot lock the ledger {}", path.display()), e))?;
            }
            if !same_file(&file, path) {
                // replaced or removed while this run waited: read the ledger there now
                continue;
            }
            let mut bytes = Vec::new();
            (&file)
                .read_to_end(&mut bytes)
                .map_err(|e| io_error(format!("cannot read the ledger {}", path.display()), e))?;
            return Ok((LockedLedger { path: path.to_path_buf(), file: Some(file) }, Held::Existing(bytes)));
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `bytes` as the ledger, keeping the lock (the new file is locked
    /// before it takes the name). For a ledger that did not exist, `Ok(false)`
    /// when another run created it meanwhile: nothing was written, and the
    /// caller starts again from [`Self::open`].
    pub fn write(&mut self, bytes: &[u8]) -> Result<bool> {
        let dir = match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let what = || format!("cannot write the ledger {}", self.path.display());
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| io_error(what(), e))?;
        let _pending = Pending::register(tmp.path());
        tmp.write_all(bytes).map_err(|e| io_error(what(), e))?;
        tmp.as_file().sync_all().map_err(|e| io_error(what(), e))?;
        tmp.as_file().lock().map_err(|e| io_error(what(), e))?;
        if self.file.is_none() {
            // created exclusively: the link fails if another run made the ledger first
            match std::fs::hard_link(tmp.path(), &self.path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(false),
                Err(e) => return Err(io_error(what(), e)),
            }
            let (file, temporary) = tmp.keep().map_err(|e| io_error(what(), e.error))?;
            // the ledger's name holds the file now; the temporary name goes
            let _ = std::fs::remove_file(temporary);
            self.file = Some(file);
        } else {
            let file = tmp.persist(&self.path).map_err(|e| io_error(what(), e.error))?;
            // the old file's lock goes with it; the new one is locked already
            self.file = Some(file);
        }
        Ok(true)
    }

    /// Removes the ledger this run created (a run that released nothing and
    /// found no ledger leaves none).
    pub fn remove(self) -> Result<()> {
        std::fs::remove_file(&self.path)
            .map_err(|e| io_error(format!("cannot remove the ledger {}", self.path.display()), e))
    }
}

/// Whether `file` is still the file at `path` (same device and inode).
fn same_file(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}
