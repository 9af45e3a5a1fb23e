//! Linkage quality against a known truth: a user's own truth file (`--truth`,
//! `read_truth`, `quality_by_ids`) or the scenario's (docs/SCENARIO.md, `quality`).
//! Precision = true pairs returned / pairs returned; recall = true pairs returned /
//! true pairs; F1 their harmonic mean.

use crate::error::InputError;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub pairs: u64,
    pub true_pairs: u64,
}

/// `pairs` are (a, b) indices; `truth[a]` is the index of a's true match in B (if
/// B still holds it); `n` is the number of true pairs (the number of A records).
pub fn quality(pairs: impl Iterator<Item = (u32, u32)>, truth: &[Option<u32>], n: usize) -> Quality {
    let mut returned = 0u64;
    let mut correct = 0u64;
    for (a, b) in pairs {
        returned += 1;
        if truth.get(a as usize).copied().flatten() == Some(b) {
            correct += 1;
        }
    }
    Quality::of_counts(correct, returned, n as u64)
}

impl Quality {
    /// The quality of `returned` pairs of which `correct` are true, against
    /// `truth` true pairs in all: each ratio 0 where its denominator is, F1 0
    /// where precision and recall both are. Every score of pairs or clusters
    /// against a truth is counted here ([`crate::multi::score`] too).
    pub fn of_counts(correct: u64, returned: u64, truth: u64) -> Quality {
        let ratio = |x: u64, y: u64| if y == 0 { 0.0 } else { x as f64 / y as f64 };
        let (precision, recall) = (ratio(correct, returned), ratio(correct, truth));
        let f1 = if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
        Quality { precision, recall, f1, pairs: returned, true_pairs: correct }
    }
}

/// Quality of pairs of ids against a truth of id pairs, any number per record:
/// precision = returned pairs in the truth / pairs returned; recall = returned
/// pairs in the truth / pairs in the truth (so a one-to-one rule is scored over
/// every true pair, as docs/SCENARIO.md asks for FEBRL).
pub fn quality_by_ids<'a>(
    pairs: impl Iterator<Item = (&'a str, &'a str)>,
    truth: &HashSet<(String, String)>,
) -> Quality {
    let (mut returned, mut correct) = (0u64, 0u64);
    for (a, b) in pairs {
        returned += 1;
        if truth.contains(&(a.to_string(), b.to_string())) {
            correct += 1;
        }
    }
    Quality::of_counts(correct, returned, truth.len() as u64)
}

/// A truth file: CSV with a header, the true pairs' A ids in the first column
/// and B ids in the second (`a_id,b_id`, the form of the pairs `link` writes).
pub fn read_truth(bytes: &[u8], what: &str) -> Result<HashSet<(String, String)>, InputError> {
    let text = crate::dataset::decode_text(bytes, what)?;
    let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(text.as_bytes());
    let mut truth = HashSet::new();
    for (i, row) in reader.records().enumerate() {
        let row = row.map_err(|e| InputError::Csv { record: i + 1, reason: e.to_string() })?;
        match (row.get(0), row.get(1)) {
            (Some(a), Some(b)) if !a.trim().is_empty() && !b.trim().is_empty() => {
                truth.insert((a.trim().to_string(), b.trim().to_string()));
            }
            _ => {
                return Err(InputError::Csv {
                    record: i + 1,
                    reason: format!("{what}: a true pair needs an A id and a B id"),
                })
            }
        }
    }
    if truth.is_empty() {
        return Err(InputError::Empty { what: what.to_string() });
    }
    Ok(truth)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        let truth = vec![Some(1), Some(0), None];
        let q = quality([(0, 1), (0, 2), (1, 0), (2, 2)].into_iter(), &truth, 3);
        assert_eq!(q.true_pairs, 2);
        assert_eq!(q.pairs, 4);
        assert!((q.precision - 0.5).abs() < 1e-12);
        assert!((q.recall - 2.0 / 3.0).abs() < 1e-12);
        assert!((q.f1 - 2.0 * 0.5 * (2.0 / 3.0) / (0.5 + 2.0 / 3.0)).abs() < 1e-12);
        let none = quality(std::iter::empty(), &truth, 3);
        assert_eq!(none.f1, 0.0);
    }

    #[test]
    fn truth_by_ids_scores_every_true_pair() {
        let truth =
            read_truth(b"a_id,b_id\nrec-1-org,rec-1-dup-0\nrec-1-org,rec-1-dup-1\nrec-2-org,rec-2-dup-0\n", "t")
                .unwrap();
        let q = quality_by_ids([("rec-1-org", "rec-1-dup-0"), ("rec-2-org", "rec-1-dup-1")].into_iter(), &truth);
        assert_eq!((q.pairs, q.true_pairs), (2, 1));
        assert!((q.precision - 0.5).abs() < 1e-12 && (q.recall - 1.0 / 3.0).abs() < 1e-12);
        assert!(read_truth(b"a_id,b_id\n", "t").is_err());
        assert!(read_truth(b"a_id,b_id\nx\n", "t").is_err());
    }
}
