//! How close a twin's strings are to the real ones: the paper's composition
//! comparison (symbol histograms), the share of pseudo-strings equal to a real
//! string, and each pseudo-string's edit distance to its nearest real string.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};

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
/// skipped once its length difference alone reaches the best distance found,
/// and each comparison is bounded by it).
pub fn nearest_neighbour(twin: &[String], real: &[String], sample: usize) -> NearestNeighbour {
    let measured: Vec<&str> = twin.iter().take(sample).map(String::as_str).collect();
    let d = nearest_distances(&measured, real, false);
    let mut histogram = [0usize; 5];
    for &x in &d {
        histogram[x.min(4)] += 1;
    }
    let sum: usize = d.iter().sum();
    NearestNeighbour { sample: d.len(), mean: sum as f64 / d.len().max(1) as f64, histogram }
}

/// The Levenshtein distance from each of `queries` to its nearest string of
/// `real` (as [`nearest_neighbour`]). `leave_one_out`: each query is one of
/// `real` and its own copy does not count (another copy of it does).
pub fn nearest_distances(queries: &[&str], real: &[String], leave_one_out: bool) -> Vec<usize> {
    let mut by_len: BTreeMap<usize, Vec<Vec<char>>> = BTreeMap::new();
    let mut copies: HashMap<&str, usize> = HashMap::new();
    for r in real {
        by_len.entry(r.chars().count()).or_default().push(r.chars().collect());
        *copies.entry(r.as_str()).or_default() += 1;
    }
    let lens: Vec<usize> = by_len.keys().copied().collect();
    let mut rows = (Vec::new(), Vec::new());
    queries
        .iter()
        .map(|s| {
            let own = usize::from(leave_one_out);
            if copies.get(s).copied().unwrap_or(0) > own {
                return 0;
            }
            let chars: Vec<char> = s.chars().collect();
            let n = chars.len();
            let mut order = lens.clone();
            order.sort_by_key(|&l| l.abs_diff(n));
            let mut best = usize::MAX;
            for l in order {
                if l.abs_diff(n) >= best {
                    break;
                }
                // the query's own copy (distance 0) is skipped when left out
                for r in by_len[&l].iter().filter(|r| !(leave_one_out && **r == chars)) {
                    best = best.min(bounded_levenshtein(&chars, r, best.saturating_sub(1), &mut rows));
                }
            }
            best
        })
        .collect()
}

/// The Levenshtein distance of `a` and `b` if it is at most `bound`, else
/// something larger than `bound`: only the band `|i − j| ≤ bound` of the
/// dynamic programme is computed, and a row whose minimum exceeds the bound
/// ends it. Written here rather than taken from a crate to keep the wasm
/// package small.
fn bounded_levenshtein(a: &[char], b: &[char], bound: usize, rows: &mut (Vec<usize>, Vec<usize>)) -> usize {
    let (n, m) = (a.len(), b.len());
    if n.abs_diff(m) > bound {
        return bound + 1;
    }
    let bound = bound.min(n.max(m));
    let over = bound + 1;
    let (prev, cur) = rows;
    prev.clear();
    prev.extend((0..=m).map(|j| j.min(over)));
    cur.clear();
    cur.resize(m + 1, over);
    for i in 1..=n {
        let (lo, hi) = (i.saturating_sub(bound).max(1), (i + bound).min(m));
        cur[0] = i.min(over);
        if lo > 1 {
            cur[lo - 1] = over;
        }
        let mut row_min = cur[0];
        for j in lo..=hi {
            let sub = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let v = sub.min(prev[j] + 1).min(cur[j - 1] + 1).min(over);
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if hi < m {
            cur[hi + 1] = over;
        }
        if row_min > bound {
            return over;
        }
        std::mem::swap(prev, cur);
    }
    prev[m].min(over)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    #[cfg(feature = "eval")] // checked against the scenario's edit distance
    fn measures() {
        let real = v(&["SMITH", "JONES", "AB"]);
        let twin = v(&["SMITH", "SMYTH", "ABCD", "JONESES"]);
        assert_eq!(equal_share(&twin, &real), 0.25);
        let nn = nearest_neighbour(&twin, &real, 10);
        assert_eq!(nn.histogram, [1, 1, 2, 0, 0]);
        assert_eq!(nn.mean, 5.0 / 4.0);
        let mut rows = (Vec::new(), Vec::new());
        let mut rng = crate::dp::Randomness::seeded(4);
        let words = ["KITTEN", "SITTING", "", "ABC", "SMITH", "SMYTHE", "AB", "BA", "JOHNSON", "JONSSON"];
        for i in 0..400 {
            let (x, y) = (words[i % 10], words[rng.below(10)]);
            let exact = crate::eval::corrupt::edit_distance(x, y);
            let (a, b): (Vec<char>, Vec<char>) = (x.chars().collect(), y.chars().collect());
            for bound in 0..8 {
                let d = bounded_levenshtein(&a, &b, bound, &mut rows);
                if exact <= bound {
                    assert_eq!(d, exact, "{x} {y} bound {bound}");
                } else {
                    assert!(d > bound, "{x} {y} bound {bound}: {d}");
                }
            }
        }
        let (a, b) = (composition(&v(&["AB"])), composition(&v(&["AC"])));
        assert!((composition_l1(&a, &b) - 1.0).abs() < 1e-12);
        assert_eq!(composition_l1(&a, &a), 0.0);
    }
}
