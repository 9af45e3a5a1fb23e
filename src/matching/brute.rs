//! The reference matcher: every pair, no index.

use super::distance::distance;
use super::pairs::{validate, MatchStats, Pair};
use crate::embed::Vectors;
use crate::error::Error;

/// For each A row, every B row with `distance <= th_a`, sorted by (a, distance, b).
pub fn brute_force(a: &Vectors, b: &Vectors, thresholds: &[f64]) -> Result<(Vec<Pair>, MatchStats), Error> {
    validate(a, b, thresholds)?;
    let mut pairs = Vec::new();
    for (i, &th) in thresholds.iter().enumerate() {
        let start = pairs.len();
        for j in 0..b.len() {
            let d = distance(a.row(i), b.row(j));
            if d <= th {
                pairs.push(Pair { a: i as u32, b: j as u32, distance: d });
            }
        }
        crate::sorting::sort_by(&mut pairs[start..], |x, y| x.distance.total_cmp(&y.distance).then(x.b.cmp(&y.b)));
    }
    let stats = MatchStats { candidates: a.len() as u64 * b.len() as u64, pairs: pairs.len() as u64 };
    Ok((pairs, stats))
}

/// The inputs of the index tests, each index finding what [`brute_force`]
/// finds: random rows, and thresholds with ties.
#[cfg(all(test, not(target_arch = "wasm32")))]
pub(crate) mod cases {
    use super::*;
    use proptest::prelude::*;

    /// The rows' dimension, A's and B's bytes (each test makes its own kind
    /// of rows of them), and whether the thresholds are ties.
    #[derive(Debug, Clone)]
    pub struct Case {
        pub dim: usize,
        pub ra: Vec<u8>,
        pub rb: Vec<u8>,
        pub ties: bool,
    }

    /// Cases of a dimension in `dims`, up to `a_bytes` and `b_bytes` bytes.
    pub fn case(dims: std::ops::Range<usize>, a_bytes: usize, b_bytes: usize) -> impl Strategy<Value = Case> {
        let bytes = |n| prop::collection::vec(0u8..8, 0..n);
        (dims, bytes(a_bytes), bytes(b_bytes), any::<bool>()).prop_map(|(dim, ra, rb, ties)| Case { dim, ra, rb, ties })
    }

    impl Case {
        /// A threshold per A row `i`: with ties, the exact distance to B row
        /// `tie(i)` (modulo B's rows), so that pairs at the threshold are
        /// tested; else `scale(i)`.
        pub fn thresholds(
            &self,
            a: &Vectors,
            b: &Vectors,
            tie: impl Fn(usize) -> usize,
            scale: impl Fn(usize) -> f64,
        ) -> Vec<f64> {
            let at =
                |i| if self.ties && !b.is_empty() { distance(a.row(i), b.row(tie(i) % b.len())) } else { scale(i) };
            (0..a.len()).map(at).collect()
        }
    }
}
