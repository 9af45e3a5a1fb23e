//! Linkage quality against the known truth (docs/SCENARIO.md): precision = true pairs
//! returned / pairs returned; recall = true pairs returned / N; F1 their harmonic mean.

use serde::{Deserialize, Serialize};

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
    let precision = if returned == 0 { 0.0 } else { correct as f64 / returned as f64 };
    let recall = if n == 0 { 0.0 } else { correct as f64 / n as f64 };
    let f1 = if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
    Quality { precision, recall, f1, pairs: returned, true_pairs: correct }
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
}
