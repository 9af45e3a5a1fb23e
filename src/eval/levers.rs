//! The linkage-quality levers of issue #8, each a [`ScenarioOptions`], measured
//! side by side (`gramlink levers`): from the paper's configuration to the
//! recommended one, one change at a time, plus variations of the recommended one.
//!
//! Every lever keeps the privacy model: the mined part is ε-DP with the same ε per
//! party; padding symbols and public grams depend on the public alphabet only;
//! thresholds, vectors and chosen ids are all that leaves a party, as before.

use super::scenario::ScenarioOptions;
use crate::dp::Randomness;
use crate::threshold::ThresholdMode;

/// A named configuration.
#[derive(Debug, Clone)]
pub struct Lever {
    pub name: &'static str,
    pub options: ScenarioOptions,
}

/// The levers, in the order the table shows them (ed and seed are set per run).
pub fn levers() -> Vec<Lever> {
    let paper = ScenarioOptions::paper();
    let rec = ScenarioOptions::recommended();
    let greedy = |o: ScenarioOptions| ScenarioOptions { one_to_one: true, nearest: false, ..o };
    vec![
        Lever { name: "paper (k=75 mined 1-3 grams, paper threshold, all pairs)", options: paper.clone() },
        Lever { name: "paper + greedy one-to-one", options: greedy(paper.clone()) },
        Lever {
            name: "paper + sound threshold + greedy one-to-one",
            options: greedy(ScenarioOptions { threshold: ThresholdMode::Sound, ..paper.clone() }),
        },
        Lever {
            name: "+ padding ^record$ (mined 1-3 grams)",
            options: greedy(ScenarioOptions { threshold: ThresholdMode::Sound, padding: true, ..paper.clone() }),
        },
        Lever {
            name: "public 2-grams (no padding) + mined 3-grams, sound, q-gram filter, cosine",
            options: greedy(ScenarioOptions { padding: false, ..rec.clone() }),
        },
        Lever {
            name: "public 2-grams + padding + mined 3-grams, sound, greedy by distance",
            options: ScenarioOptions { qgram: false, ..rec.clone() },
        },
        Lever { name: "RECOMMENDED: + q-gram count filter, greedy by cosine distance", options: rec.clone() },
        Lever { name: "recommended, mutual-nearest instead of greedy", options: ScenarioOptions { nearest: true, ..rec.clone() } },
        Lever { name: "recommended, k=150 mined", options: ScenarioOptions { k: 150, ..rec.clone() } },
        Lever { name: "recommended, mined 3-4 grams", options: ScenarioOptions { q_max: 4, ..rec.clone() } },
        Lever {
            name: "recommended, public 1-grams instead of 2-grams (mined 2-3)",
            options: ScenarioOptions { public_q: Some(1), q_min: 2, ..rec.clone() },
        },
    ]
}

/// A seeded random subset of `n` records (in their original order): the whole
/// list if it is not longer.
pub fn subset(records: &[String], n: usize, seed: u64) -> Vec<String> {
    if records.len() <= n {
        return records.to_vec();
    }
    let mut keep = Randomness::seeded(seed).permutation(records.len());
    keep.truncate(n);
    keep.sort_unstable();
    keep.into_iter().map(|i| records[i].clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levers_are_distinct_and_subset_is_seeded() {
        let l = levers();
        for (i, x) in l.iter().enumerate() {
            for y in &l[i + 1..] {
                assert_ne!(x.options, y.options, "{} == {}", x.name, y.name);
            }
        }
        let recs: Vec<String> = (0..100).map(|i| i.to_string()).collect();
        let s = subset(&recs, 10, 7);
        assert_eq!(s.len(), 10);
        assert_eq!(s, subset(&recs, 10, 7));
        assert_eq!(subset(&recs, 200, 7), recs);
    }
}
