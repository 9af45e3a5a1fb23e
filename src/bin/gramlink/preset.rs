//! `--preset`: the paper's configuration or the recommended one (issue #8), and
//! the individual flags that override a preset's choices.

use clap::ValueEnum;
use gramlink::mine::MineOptions;

#[derive(Clone, Copy, ValueEnum, PartialEq, Debug)]
pub enum Preset {
    /// 75 mined 1–3-grams, the paper's threshold, every pair within threshold.
    Paper,
    /// Public 2-grams + boundary grams, 75 mined 3-grams of `^record$`, sound
    /// threshold, greedy one-to-one.
    Recommended,
}

/// The preset used when `--preset` is not given.
pub const DEFAULT_PRESET: Preset = Preset::Paper;

/// Which pairs the matcher keeps.
#[derive(Clone, Copy, ValueEnum, PartialEq, Debug)]
pub enum Rule {
    /// Every B within A's threshold.
    All,
    /// Greedy one-to-one by increasing distance.
    Greedy,
    /// Mutual unique nearest neighbours (one-to-one).
    Nearest,
}

impl Preset {
    pub fn mine(self) -> MineOptions {
        match self {
            Preset::Paper => MineOptions::paper(),
            Preset::Recommended => MineOptions::recommended(),
        }
    }

    pub fn rule(self) -> Rule {
        match self {
            Preset::Paper => Rule::All,
            Preset::Recommended => Rule::Greedy,
        }
    }

    pub fn threshold(self) -> crate::linkage::ThresholdArg {
        match self {
            Preset::Paper => crate::linkage::ThresholdArg::Paper,
            Preset::Recommended => crate::linkage::ThresholdArg::Sound,
        }
    }
}

/// The rule from `--rule` / `--one-to-one` (greedy) or the preset's.
pub fn rule(explicit: Option<Rule>, one_to_one: bool, preset: Preset) -> Result<Rule, String> {
    match (explicit, one_to_one) {
        (Some(r), false) => Ok(r),
        (None, true) => Ok(Rule::Greedy),
        (None, false) => Ok(preset.rule()),
        (Some(_), true) => Err("give --rule or --one-to-one, not both".into()),
    }
}

/// Applies a rule to the range match's pairs.
pub fn apply(rule: Rule, pairs: Vec<gramlink::matching::Pair>) -> Vec<gramlink::matching::Pair> {
    match rule {
        Rule::All => pairs,
        Rule::Greedy => gramlink::matching::one_to_one(&pairs),
        Rule::Nearest => gramlink::matching::nearest(&pairs),
    }
}
