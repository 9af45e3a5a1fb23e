//! The exact (non-private) top-k miner: the baseline of the paper's comparisons
//! and the reference of the mining utility. Its output is NOT private.

use super::encode::{decode, distinct_grams, support_counts, universe_size, Encoded};
use super::options::{baseline_record, MineOptions, MAX_UNIVERSE};
use crate::alphabet::Alphabet;
use crate::base::{rank_order, GramCount, MinerKind, NoisyBase};
use crate::dataset::Dataset;
use crate::error::Error;
use crate::progress::Progress;
use std::collections::HashMap;

/// Exact record supports of every gram of length `q` present in the data.
pub fn supports(enc: &Encoded, q: usize) -> Vec<(u64, u32)> {
    match universe_size(enc.sigma, q) {
        Some(u) if u <= MAX_UNIVERSE => support_counts(enc, q, usize::MAX)
            .into_iter()
            .enumerate()
            .filter(|&(_, c)| c > 0)
            .map(|(code, c)| (code as u64, c))
            .collect(),
        _ => {
            let mut map: HashMap<u64, u32> = HashMap::new();
            let mut buf = Vec::new();
            for r in enc.iter() {
                distinct_grams(enc.sigma, r, q, usize::MAX, &mut buf);
                for &c in &buf {
                    *map.entry(c).or_default() += 1;
                }
            }
            map.into_iter().collect()
        }
    }
}

/// The exact top-k grams with q in [q_min, q_max], by record support (ties: shorter
/// first, then Σ order).
pub fn top_k(records: &[String], alphabet: &Alphabet, k: usize, q_min: usize, q_max: usize) -> Vec<GramCount> {
    let enc = Encoded::new(records, alphabet);
    let mut all: Vec<(String, f64)> = Vec::new();
    for q in q_min..=q_max {
        all.extend(supports(&enc, q).into_iter().map(|(c, n)| (decode(alphabet, q, c), n as f64)));
    }
    crate::sorting::sort_by(&mut all, |a, b| rank_order(alphabet, (&a.0, a.1), (&b.0, b.1)));
    all.truncate(k);
    all.into_iter().map(|(gram, count)| GramCount { gram, count }).collect()
}

pub fn mine(dataset: &Dataset, options: &MineOptions, progress: &mut dyn Progress) -> Result<NoisyBase, Error> {
    progress.tick("exact supports", 0, 1)?;
    let grams = top_k(dataset.records(), dataset.alphabet(), options.k, options.q_min, options.q_max);
    progress.tick("exact supports", 1, 1)?;
    Ok(NoisyBase {
        padding: None,
        alphabet: dataset.alphabet().clone(),
        params: baseline_record(MinerKind::Exact, options, "exact counts: not private, never share"),
        private: false,
        grams,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_top_k_by_support() {
        let a = Alphabet::default();
        let recs: Vec<String> = ["ANNA", "ANA", "BOB"].iter().map(|s| s.to_string()).collect();
        let top = top_k(&recs, &a, 4, 1, 2);
        let names: Vec<&str> = top.iter().map(|g| g.gram.as_str()).collect();
        // A, N, AN, NA: 2 records each; B, O, ...: 1. Ties: shorter first, then Σ order
        assert_eq!(names, ["A", "N", "AN", "NA"]);
        assert_eq!(top[0].count, 2.0);
    }
}
