//! The linkage-quality levers (docs/RESULTS.md, "Levers"), each a [`ScenarioOptions`], measured
//! side by side (`gramlink lab levers`): from the paper's configuration to the
//! recommended one, one change at a time, plus variations of the recommended one.
//!
//! Every lever keeps the privacy model: the mined part is ε-DP with the same ε per
//! party; padding symbols and public grams depend on the public alphabet only;
//! thresholds, vectors and chosen ids are all that leaves a party, as before.

use crate::config::{Config, Preset};
use crate::dp::Randomness;
use crate::eval::scenario::ScenarioOptions;
use crate::matching::Rule;
use crate::threshold::ThresholdMode;

/// A named configuration.
#[derive(Debug, Clone)]
pub struct Lever {
    pub name: &'static str,
    pub options: ScenarioOptions,
}

/// The levers, in the order the table shows them (ed and seed are set per run).
pub fn levers() -> Vec<Lever> {
    let paper = ScenarioOptions::scenario(Preset::Paper, 1, 42);
    let rec = ScenarioOptions::scenario(Preset::Recommended, 1, 42);
    let lever =
        |name, base: &ScenarioOptions, change: fn(&mut Config)| Lever { name, options: base.clone().with(change) };
    vec![
        lever("paper (k=75 mined 1-3 grams, paper threshold, all pairs)", &paper, |_| {}),
        lever("paper + greedy one-to-one", &paper, |c| c.rule = Rule::Greedy),
        lever("paper + sound threshold + greedy one-to-one", &paper, |c| {
            c.thresholds.mode = ThresholdMode::Sound;
            c.rule = Rule::Greedy;
        }),
        lever("+ padding ^record$ (mined 1-3 grams)", &paper, |c| {
            c.thresholds.mode = ThresholdMode::Sound;
            c.mine.padding = true;
            c.rule = Rule::Greedy;
        }),
        lever("public 2-grams (no padding) + mined 3-grams, sound, q-gram filter, cosine", &rec, |c| {
            c.mine.padding = false
        }),
        lever("public 2-grams + padding + mined 3-grams, sound, greedy by distance", &rec, |c| c.rule = Rule::Greedy),
        lever("RECOMMENDED: + q-gram count filter, greedy by cosine distance", &rec, |_| {}),
        lever("recommended, mutual-nearest instead of greedy", &rec, |c| c.rule = Rule::Nearest),
        lever("recommended, k=150 mined", &rec, |c| c.mine.k = 150),
        lever("recommended, mined 3-4 grams", &rec, |c| c.mine.q_max = 4),
        lever("recommended, public 1-grams instead of 2-grams (mined 2-3)", &rec, |c| {
            c.mine.public_q = Some(1);
            c.mine.q_min = 2;
        }),
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
