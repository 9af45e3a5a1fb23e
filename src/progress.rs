//! Progress reporting and cancellation for long work (CLI progress bars, the web
//! app's Web Worker). The core calls [`Progress::tick`]; an implementation may ask
//! to stop by returning [`Error::Cancelled`].

use crate::error::Error;

pub trait Progress {
    /// `done` of `total` units of `phase` are finished. Return `Err(Error::Cancelled)`
    /// to stop the work; the caller then returns that error and writes nothing.
    fn tick(&mut self, phase: &str, done: u64, total: u64) -> Result<(), Error>;
}

/// No reporting, never cancels.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn tick(&mut self, _: &str, _: u64, _: u64) -> Result<(), Error> {
        Ok(())
    }
}

impl<F: FnMut(&str, u64, u64) -> Result<(), Error>> Progress for F {
    fn tick(&mut self, phase: &str, done: u64, total: u64) -> Result<(), Error> {
        self(phase, done, total)
    }
}
