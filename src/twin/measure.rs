//! How close a twin's strings are to the real ones: the paper's composition
//! comparison (symbol histograms), the share of pseudo-strings equal to a real
//! string, and each pseudo-string's edit distance to its nearest real string.

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
            let chars: Vec<char> = s.chars().collect();
            let n = chars.len();
            let mut scratch = Vec::new();
            let mut order = lens.clone();
            order.sort_by_key(|&l| l.abs_diff(n));
            let mut best = usize::MAX;
            for l in order {
                if l.abs_diff(n) >= best {
                    break;
                }
                for r in &by_len[&l] {
                    let d = bounded_levenshtein(&chars, r, best.saturating_sub(1), &mut scratch);
                    best = best.min(d);
                }
            }
            best
        };
        sum += d;
        histogram[d.min(4)] += 1;
    }
    NearestNeighbour { sample: measured.len(), mean: sum as f64 / measured.len().max(1) as f64, histogram }
}

/// The Levenshtein distance of `a` and `b` if it is at most `bound`, else
/// something larger than `bound` (a row of the dynamic programme whose
/// minimum exceeds the bound ends the computation). Written here rather than
/// taken from a crate to keep the wasm package small.
fn bounded_levenshtein(a: &[char], b: &str, bound: usize, scratch: &mut Vec<char>) -> usize {
    scratch.clear();
    scratch.extend(b.chars());
    let b = &scratch[..];
    if a.len().abs_diff(b.len()) > bound {
        return bound + 1;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        let mut row_min = cur[0];
        for j in 1..=b.len() {
            let sub = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
            row_min = row_min.min(cur[j]);
        }
        if row_min > bound {
            return bound + 1;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
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
        let mut scratch = Vec::new();
        for (x, y) in [("KITTEN", "SITTING"), ("", "ABC"), ("SMITH", "SMITH"), ("AB", "BA")] {
            let exact = crate::eval::corrupt::edit_distance(x, y);
            let chars: Vec<char> = x.chars().collect();
            assert_eq!(bounded_levenshtein(&chars, y, 10, &mut scratch), exact);
            assert!(bounded_levenshtein(&chars, y, exact.saturating_sub(1), &mut scratch) >= exact);
        }
        let (a, b) = (composition(&v(&["AB"])), composition(&v(&["AC"])));
        assert!((composition_l1(&a, &b) - 1.0).abs() < 1e-12);
        assert_eq!(composition_l1(&a, &a), 0.0);
    }
}
