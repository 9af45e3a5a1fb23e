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
