//! Linkage quality of the paper's rule (every B vector within the threshold) for
//! many global thresholds at once, and for per-record thresholds, from one pass
//! over all (A, B) pairs: each pair is counted in the bucket of the smallest
//! threshold that admits it, and prefix sums give every threshold's counts. No
//! pair list is kept, so a sweep over thresholds that admit most pairs stays in
//! memory. All-pairs: meant for experiment-sized data.

use crate::embed::Vectors;
use crate::matching::distance;
use crate::matching::truth::{quality, Quality};
use rayon::prelude::*;

#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    /// Quality at each global threshold, in the order given.
    pub global: Vec<Quality>,
    /// Quality with `personal[i]` as record i's threshold, if given.
    pub personal: Option<Quality>,
}

fn finish(returned: u64, correct: u64, n: usize) -> Quality {
    // quality() from counts: build the totals without listing pairs
    let mut q = quality(std::iter::empty(), &[], n);
    q.pairs = returned;
    q.true_pairs = correct;
    q.precision = if returned == 0 { 0.0 } else { correct as f64 / returned as f64 };
    q.recall = if n == 0 { 0.0 } else { correct as f64 / n as f64 };
    q.f1 = if q.precision + q.recall == 0.0 { 0.0 } else { 2.0 * q.precision * q.recall / (q.precision + q.recall) };
    q
}

/// `truth[i]`: the row of B made from A's record i. `global` must be sorted ascending.
pub fn sweep(a: &Vectors, b: &Vectors, truth: &[Option<u32>], global: &[f64], personal: Option<&[f64]>) -> Sweep {
    let m = global.len();
    let zero = || (vec![0u64; m + 1], vec![0u64; m + 1], 0u64, 0u64);
    let (ret, cor, pret, pcor) = (0..a.len())
        .into_par_iter()
        .fold(zero, |(mut ret, mut cor, mut pret, mut pcor), i| {
            let row = a.row(i);
            let t = truth.get(i).copied().flatten();
            for j in 0..b.len() {
                let d = distance(row, b.row(j));
                let bucket = global.partition_point(|&g| g < d);
                let hit = t == Some(j as u32);
                ret[bucket] += 1;
                cor[bucket] += u64::from(hit);
                if let Some(p) = personal {
                    if d <= p[i] {
                        pret += 1;
                        pcor += u64::from(hit);
                    }
                }
            }
            (ret, cor, pret, pcor)
        })
        .reduce(zero, |(mut r1, mut c1, p1, q1), (r2, c2, p2, q2)| {
            for k in 0..=m {
                r1[k] += r2[k];
                c1[k] += c2[k];
            }
            (r1, c1, p1 + p2, q1 + q2)
        });
    let n = a.len();
    let (mut r, mut c) = (0u64, 0u64);
    let global = (0..m)
        .map(|k| {
            r += ret[k];
            c += cor[k];
            finish(r, c, n)
        })
        .collect();
    Sweep { global, personal: personal.map(|_| finish(pret, pcor, n)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::brute_force;

    #[test]
    fn agrees_with_the_brute_force_matcher() {
        let a = Vectors { dim: 2, data: vec![0.0, 0.0, 1.0, 1.0, 3.0, 0.0] };
        let b = Vectors { dim: 2, data: vec![0.0, 0.5, 1.0, 1.0, 2.0, 2.0, 3.0, 0.0] };
        let truth = vec![Some(0), Some(2), None];
        let grid = [0.0, 0.5, 1.0, 1.5, 3.0];
        let personal = [0.5, 0.0, 2.0];
        let s = sweep(&a, &b, &truth, &grid, Some(&personal));
        for (k, &t) in grid.iter().enumerate() {
            let (pairs, _) = brute_force(&a, &b, &[t; 3]).unwrap();
            assert_eq!(s.global[k], quality(pairs.iter().map(|p| (p.a, p.b)), &truth, 3), "threshold {t}");
        }
        let (pairs, _) = brute_force(&a, &b, &personal).unwrap();
        assert_eq!(s.personal.unwrap(), quality(pairs.iter().map(|p| (p.a, p.b)), &truth, 3));
    }
}
