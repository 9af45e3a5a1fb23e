//! Mutual-nearest-neighbour one-to-one linkage within the thresholds.
//!
//! A pair (a, b) of the range match is kept when b is a's unique nearest B and a
//! is b's unique nearest A among the pairs within threshold. A tie at either
//! minimum (two candidates at the same distance) keeps neither: the vectors cannot
//! tell them apart, and guessing by row order would make the result depend on the
//! order a party chose. The rule is symmetric and deterministic, and each record
//! is linked at most once. Unlike greedy [`super::one_to_one`], it never links a
//! record to its second choice after its first was taken.

use super::pairs::Pair;

/// The mutual unique nearest pairs of `pairs`, sorted by (a, distance, b).
pub fn nearest(pairs: &[Pair]) -> Vec<Pair> {
    let max_a = pairs.iter().map(|p| p.a as usize + 1).max().unwrap_or(0);
    let max_b = pairs.iter().map(|p| p.b as usize + 1).max().unwrap_or(0);
    // (best distance, its pair index, tied?)
    let mut best_a: Vec<(f64, usize, bool)> = vec![(f64::INFINITY, usize::MAX, false); max_a];
    let mut best_b: Vec<(f64, usize, bool)> = vec![(f64::INFINITY, usize::MAX, false); max_b];
    for (i, p) in pairs.iter().enumerate() {
        for slot in [&mut best_a[p.a as usize], &mut best_b[p.b as usize]] {
            if p.distance < slot.0 {
                *slot = (p.distance, i, false);
            } else if p.distance == slot.0 {
                slot.2 = true;
            }
        }
    }
    let mut out: Vec<Pair> = best_a
        .iter()
        .filter(|(_, i, tied)| *i != usize::MAX && !tied)
        .map(|&(_, i, _)| pairs[i])
        .filter(|p| {
            let (_, j, tied) = best_b[p.b as usize];
            !tied && pairs[j].a == p.a
        })
        .collect();
    super::pairs::sort_by_a(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::pairs::pair as p;

    #[test]
    fn mutual_only() {
        // a0's nearest is b0, b0's nearest is a1: a0 is not linked; a1-b0 is.
        let pairs = [p(0, 0, 0.5), p(0, 1, 1.0), p(1, 0, 0.2)];
        assert_eq!(nearest(&pairs), vec![p(1, 0, 0.2)]);
    }

    #[test]
    fn ties_link_nothing_and_order_does_not_matter() {
        let pairs = [p(0, 0, 1.0), p(0, 1, 1.0), p(1, 2, 0.5), p(2, 2, 0.7)];
        let got = nearest(&pairs);
        assert_eq!(got, vec![p(1, 2, 0.5)]);
        let mut rev = pairs.to_vec();
        rev.reverse();
        assert_eq!(nearest(&rev), got);
        assert!(nearest(&[]).is_empty());
    }
}
