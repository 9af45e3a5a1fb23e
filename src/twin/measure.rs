//! How close a twin's strings are to the real ones: the paper's composition
//! comparison (symbol histograms), the share of pseudo-strings equal to a real
//! string, and each pseudo-string's edit distance to its nearest real string.

use rapidfuzz::distance::levenshtein;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};

/// Each symbol's share of all symbols of `strings` (Aggarwal and Yu's composition).
pub fn composition(strings: &[String]) -> BTreeMap<char, f64> {
    let mut counts: BTreeMap<char, f64> = BTreeMap::new();
    let mut total = 0.0f64;
    for c in strings.iter().flat_map(|s| s.chars()) {
        *counts.entry(c).or_default() += 1.0;
        total += 1.0;
    }
    counts.values_mut().for_each(|v| *v /= total.max(1.0));
    counts
}

/// `Σ_σ |p(σ) − q(σ)|` between two compositions (0: equal, 2: disjoint).
pub fn composition_l1(a: &BTreeMap<char, f64>, b: &BTreeMap<char, f64>) -> f64 {
    let symbols: HashSet<char> = a.keys().chain(b.keys()).copied().collect();
    symbols.iter().map(|c| (a.get(c).unwrap_or(&0.0) - b.get(c).unwrap_or(&0.0)).abs()).sum()
}

/// The share of `twin` equal to some string of `real`.
pub fn equal_share(twin: &[String], real: &[String]) -> f64 {
    let set: HashSet<&str> = real.iter().map(String::as_str).collect();
    twin.iter().filter(|s| set.contains(s.as_str())).count() as f64 / twin.len().max(1) as f64
}

/// Nearest-neighbour edit distances of a sample against the real strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NearestNeighbour {
    /// Pseudo-strings measured (the first of the twin's random order).
    pub sample: usize,
    pub mean: f64,
    /// How many are at distance 0, 1, 2, 3, and 4 or more.
    pub histogram: [usize; 5],
}

/// The Levenshtein distance from each of the first `sample` strings of `twin`
/// to its nearest string of `real` (real strings bucketed by length; a bucket is
/// skipped once its length difference alone reaches the best distance found).
pub fn nearest_neighbour(twin: &[String], real: &[String], sample: usize) -> NearestNeighbour {
    let mut by_len: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for r in real {
        by_len.entry(r.chars().count()).or_default().push(r);
    }
    let exact: HashSet<&str> = real.iter().map(String::as_str).collect();
    let lens: Vec<usize> = by_len.keys().copied().collect();
    let mut histogram = [0usize; 5];
    let mut sum = 0usize;
    let measured: Vec<&String> = twin.iter().take(sample).collect();
    for s in &measured {
        let d = if exact.contains(s.as_str()) {
            0
        } else {
            let n = s.chars().count();
            let cmp = levenshtein::BatchComparator::new(s.chars());
            let mut order = lens.clone();
            order.sort_by_key(|&l| l.abs_diff(n));
            let mut best = usize::MAX;
            for l in order {
                if l.abs_diff(n) >= best {
                    break;
                }
                for r in &by_len[&l] {
                    best = best.min(cmp.distance(r.chars()));
                }
            }
            best
        };
        sum += d;
        histogram[d.min(4)] += 1;
    }
    NearestNeighbour { sample: measured.len(), mean: sum as f64 / measured.len().max(1) as f64, histogram }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn measures() {
        let real = v(&["SMITH", "JONES", "AB"]);
        let twin = v(&["SMITH", "SMYTH", "ABCD", "JONESES"]);
        assert_eq!(equal_share(&twin, &real), 0.25);
        let nn = nearest_neighbour(&twin, &real, 10);
        assert_eq!(nn.histogram, [1, 1, 2, 0, 0]);
        assert_eq!(nn.mean, 5.0 / 4.0);
        let (a, b) = (composition(&v(&["AB"])), composition(&v(&["AC"])));
        assert!((composition_l1(&a, &b) - 1.0).abs() < 1e-12);
        assert_eq!(composition_l1(&a, &a), 0.0);
    }
}
