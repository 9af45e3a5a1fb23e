//! The matchers' shared pieces: a pair, the statistics of a match, the cap on
//! pairs, the checks of a match's inputs, and the joining and ordering of pairs
//! each matcher (brute.rs, index.rs, sparse.rs, nearest.rs, one_to_one.rs,
//! qgram/) uses.

use crate::embed::Vectors;
use crate::error::Error;
use serde::{Deserialize, Serialize};

/// A linked pair: row `a` of A, row `b` of B, and their distance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    pub a: u32,
    pub b: u32,
    pub distance: f64,
}

/// A pair written briefly in the matchers' tests.
#[cfg(test)]
pub(crate) fn pair(a: u32, b: u32, distance: f64) -> Pair {
    Pair { a, b, distance }
}

/// What the matcher did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MatchStats {
    /// Pairs whose full distance was computed.
    pub candidates: u64,
    /// Pairs returned.
    pub pairs: u64,
}

/// The largest number of pairs a range match may return (memory stays bounded;
/// a threshold that links most of B to most of A is a parameter problem).
pub const MAX_PAIRS: u64 = 200_000_000;

/// Appends A row `a`'s matches to `pairs`, counting them into `total` (shared by the
/// parallel workers) and refusing once more than [`MAX_PAIRS`] are found in all.
pub(crate) fn push_found(
    pairs: &mut Vec<Pair>,
    a: usize,
    found: &[(u32, f64)],
    total: &std::sync::atomic::AtomicU64,
) -> Result<(), Error> {
    pairs.extend(found.iter().map(|&(j, d)| Pair { a: a as u32, b: j, distance: d }));
    let n = found.len() as u64;
    if total.fetch_add(n, std::sync::atomic::Ordering::Relaxed) + n > MAX_PAIRS {
        return Err(Error::Parameter(format!(
            "more than {MAX_PAIRS} pairs are within the thresholds: the thresholds are too large for these vectors"
        )));
    }
    Ok(())
}

/// Joins the per-chunk results of a range match (chunks in A-row order, so the
/// pairs keep brute force's order), stopping at the first error.
pub(crate) fn join_chunks(parts: Vec<Result<(Vec<Pair>, u64), Error>>) -> Result<(Vec<Pair>, MatchStats), Error> {
    let mut pairs = Vec::new();
    let mut candidates = 0;
    for p in parts {
        let (ps, c) = p?;
        pairs.extend(ps);
        candidates += c;
    }
    let stats = MatchStats { candidates, pairs: pairs.len() as u64 };
    Ok((pairs, stats))
}

/// The order of an assignment's output: by A row, then distance, then B row.
pub(crate) fn sort_by_a(pairs: &mut [Pair]) {
    crate::sorting::sort_by(pairs, |x, y| x.a.cmp(&y.a).then(x.distance.total_cmp(&y.distance)).then(x.b.cmp(&y.b)));
}

/// Checks the inputs of a match; the error names the problem.
pub fn validate(a: &Vectors, b: &Vectors, thresholds: &[f64]) -> Result<(), Error> {
    if a.dim != b.dim {
        return Err(Error::Parameter(format!(
            "dimension mismatch: A's vectors have {} components, B's {}",
            a.dim, b.dim
        )));
    }
    for (name, v) in [("A", a), ("B", b)] {
        if v.dim == 0 && !v.data.is_empty() {
            return Err(Error::Parameter(format!("{name}'s vectors have dimension 0")));
        }
        if v.dim > 0 && v.data.len() % v.dim != 0 {
            return Err(Error::Parameter(format!(
                "{name}'s data ({} numbers) is not a whole number of vectors of dimension {}",
                v.data.len(),
                v.dim
            )));
        }
        if let Some(i) = v.first_non_finite() {
            return Err(Error::Parameter(format!("{name}'s vector {} has a non-finite component", i / v.dim.max(1))));
        }
    }
    if thresholds.len() != a.len() {
        return Err(Error::Parameter(format!("{} thresholds for {} A vectors", thresholds.len(), a.len())));
    }
    if let Some(i) = thresholds.iter().position(|t| !t.is_finite() || *t < 0.0) {
        return Err(Error::Parameter(format!(
            "threshold of A record {} is {} (must be finite and >= 0)",
            i + 1,
            thresholds[i]
        )));
    }
    Ok(())
}
