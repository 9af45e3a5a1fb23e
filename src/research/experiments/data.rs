//! The records and the sizes an experiment run is given.

use crate::alphabet::Alphabet;

/// The data and the sizes of an experiment run.
#[derive(Debug, Clone)]
pub struct ExperimentData {
    pub alphabet: Alphabet,
    /// NAMES, normalized (all of it: Figure 9 takes its prefixes).
    pub names: Vec<String>,
    /// The other figures use the first `names_limit` names (None: all).
    pub names_limit: Option<usize>,
    /// CITIES, normalized.
    pub cities: Vec<String>,
    /// Seeded runs averaged per point.
    pub runs: u64,
    pub seed: u64,
    /// NAMES records for Figure 5 (its global-threshold sweep is all-pairs).
    pub fig5_names: usize,
    /// NAMES sizes for Figure 9 (each capped at the NAMES records given).
    pub fig9_sizes: Vec<usize>,
}

impl ExperimentData {
    /// NAMES as the figures other than Figure 9 use it.
    pub fn names(&self) -> &[String] {
        &self.names[..self.names_limit.unwrap_or(usize::MAX).min(self.names.len())]
    }
}
