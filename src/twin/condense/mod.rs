//! String condensation after Aggarwal and Yu, "On Anonymization of String Data"
//! (SDM 2007): strings are segmented by length ([`homogenize`]), each segment's
//! strings become templates of one length (`template`), templates are grouped
//! into groups of at least `k` (`group`), each group is kept only as its
//! first- and second-order symbol statistics (`stats`), and pseudo-strings are
//! generated from those statistics.
//!
//! **What it guarantees.** Every released pseudo-string is drawn from the
//! statistics of a group of at least `k` strings (the paper's
//! k-indistinguishability: no pseudo-string derives from fewer than `k` real
//! ones), and strings whose length fits no range of `k` are suppressed, never
//! released. It is **not** differential privacy: one string changes its group's
//! statistics by a bounded but unnoised amount, and a group of `k` identical
//! strings regenerates that string. The twin's report measures how many
//! pseudo-strings equal a real one.
//!
//! Readings of the paper (which leaves these open), besides those in the
//! sub-modules:
//! - the template length of a segment is `L = ⌈mean length⌉` of its strings,
//!   and every pseudo-string of the segment has length `L` (section 2.3's
//!   `l(G)/n(G)` read as the group's template length, which is what it keeps);
//! - a segment larger than `block` strings is cut, after sorting its strings,
//!   into blocks of near-equal size (each at least `k`), and the grouping runs in
//!   each block: the paper's grouping costs `n²/k` distances per pass, and its
//!   data sets held 1,000 strings (the default block). Groups never cross blocks;
//! - the symbols are those of the data (the public alphabet of a column), in
//!   code-point order; empty strings are not condensed (the twin keeps the share
//!   of empty values separately).

mod group;
mod homogenize;
mod reassign;
mod stats;
mod template;

pub use homogenize::{homogenize, Segment};
pub(crate) use stats::unit;
pub use stats::GroupStats;
pub use template::Template;

use crate::dp::Randomness;
use crate::error::{Error, InputError, TwinError};
use serde::{Deserialize, Serialize};

/// Condensation parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct CondenseOptions {
    /// The anonymity level: every group holds at least `k` strings.
    pub k: usize,
    /// The paper's ε of the (ε, k)-similarity assumption: a segment's lengths
    /// lie within `[l, (1 + ε)·l]`. 0 keeps only equal lengths together.
    pub length_epsilon: f64,
    /// The most strings grouped together (see the module docs); at least `2k` is used.
    pub block: usize,
    /// The most assignment passes (the paper stops at < 1 % improvement).
    pub max_passes: usize,
    /// Section 2.2's optional re-assignment: after the passes, dissolve the
    /// groups whose strings lower the objective in other groups (groups only
    /// grow, so each still holds at least `k`). Default on, as the paper's
    /// algorithm does it: measured in docs/TWINS.md, it leaves the composition
    /// and the nearest-neighbour distances as they are, lowers the share of
    /// pseudo-strings equal to a real one a little (NAMES: 0.4–0.8 points, more
    /// than the seeds' spread), and costs 10–20 % more time.
    pub reassign: bool,
}

impl Default for CondenseOptions {
    fn default() -> Self {
        CondenseOptions { k: 10, length_epsilon: 0.1, block: 1000, max_passes: 8, reassign: true }
    }
}

impl CondenseOptions {
    /// Refuses k = 0, a negative or non-finite ε, zero passes.
    pub fn validate(&self) -> Result<(), Error> {
        if self.k == 0 {
            return Err(Error::Parameter("condensation: k must be at least 1 (the anonymity level)".into()));
        }
        if !(self.length_epsilon >= 0.0 && self.length_epsilon.is_finite()) {
            return Err(Error::Parameter(format!(
                "condensation: the length tolerance ε must be a finite number ≥ 0, not {}",
                self.length_epsilon
            )));
        }
        if self.max_passes == 0 {
            return Err(Error::Parameter("condensation: maxPasses must be at least 1".into()));
        }
        Ok(())
    }
}

/// A condensed string column: the groups' statistics and the symbols they index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Condensation {
    pub symbols: Vec<char>,
    pub groups: Vec<GroupStats>,
    /// Non-empty strings suppressed by *HomogenizeLength*.
    pub suppressed: usize,
    /// Empty strings (not condensed).
    pub empty: usize,
    /// Length segments: `(min length, max length, template length, strings)`.
    pub segments: Vec<(usize, usize, usize, usize)>,
}

impl Condensation {
    /// Condenses `strings` (`what` names them in errors).
    pub fn new(strings: &[String], options: &CondenseOptions, rng: &mut Randomness, what: &str) -> Result<Self, Error> {
        options.validate()?;
        let k = options.k;
        let mut symbols: Vec<char> = strings.iter().flat_map(|s| s.chars()).collect();
        symbols.sort_unstable();
        symbols.dedup();
        if symbols.len() > u16::MAX as usize {
            return Err(Error::Parameter(format!("{what}: more than {} distinct symbols", u16::MAX)));
        }
        let encoded: Vec<Vec<u16>> = strings
            .iter()
            .filter(|s| !s.is_empty())
            .map(|s| s.chars().map(|c| symbols.binary_search(&c).unwrap_or(0) as u16).collect())
            .collect();
        let empty = strings.len() - encoded.len();
        if encoded.is_empty() {
            return Err(InputError::Empty { what: what.to_string() }.into());
        }
        if k > encoded.len() {
            return Err(TwinError::TooFewRecords { what: what.to_string(), k, n: encoded.len() }.into());
        }
        let lengths: Vec<usize> = encoded.iter().map(|s| s.len()).collect();
        let (segs, suppressed) = homogenize(&lengths, options.length_epsilon, k);
        if segs.is_empty() {
            return Err(TwinError::TooFewRecords {
                what: format!("{what} (no length range [l, (1+ε)·l] holds k strings; raise ε)"),
                k,
                n: encoded.len(),
            }
            .into());
        }
        let l = symbols.len();
        let block = options.block.max(2 * k);
        let mut groups = Vec::new();
        let mut segments = Vec::new();
        for seg in &segs {
            let total: usize = seg.members.iter().map(|&i| lengths[i]).sum();
            let len = total.div_ceil(seg.members.len());
            segments.push((seg.min_len, seg.max_len, len, seg.members.len()));
            let mut members = seg.members.clone();
            members.sort_by(|&a, &b| encoded[a].cmp(&encoded[b]).then(a.cmp(&b)));
            let blocks = members.len().div_ceil(block);
            let templates: Vec<Template> = members.iter().map(|&i| Template::convert(&encoded[i], len)).collect();
            for b in 0..blocks {
                let (lo, hi) = (b * members.len() / blocks, (b + 1) * members.len() / blocks);
                let refs: Vec<&Template> = templates[lo..hi].iter().collect();
                let mut found = group::group(&refs, len, l, k, options.max_passes, rng);
                if options.reassign {
                    reassign::reassign(&refs, &mut found, len, l);
                }
                for g in found {
                    let ts: Vec<&Template> = g.iter().map(|&j| refs[j]).collect();
                    groups.push(GroupStats::of(&ts, len));
                }
            }
        }
        Ok(Condensation { symbols, groups, suppressed: suppressed.len(), empty, segments })
    }

    /// The pseudo-strings: `n(G)` from each group, in a random order (the groups'
    /// order would tell the lengths' order).
    pub fn generate(&self, rng: &mut Randomness) -> Vec<String> {
        let mut out: Vec<String> = Vec::with_capacity(self.groups.iter().map(|g| g.n).sum());
        for g in &self.groups {
            for _ in 0..g.n {
                out.push(g.generate(rng).into_iter().map(|s| self.symbols[s as usize]).collect());
            }
        }
        rng.shuffle(&mut out);
        out
    }

    /// The smallest group's size (at least `k`).
    pub fn min_group(&self) -> usize {
        self.groups.iter().map(|g| g.n).min().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests;
