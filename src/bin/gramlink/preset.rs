//! `--preset`: the paper's configuration or the recommended one (issue #8), and
//! the individual flags that override a preset's choices.

use clap::ValueEnum;
use gramlink::mine::MineOptions;

#[derive(Clone, Copy, ValueEnum, PartialEq, Debug)]
pub enum Preset {
    /// 75 mined 1–3-grams, the paper's threshold, every pair within threshold.
    Paper,
    /// Public 2-grams + boundary grams, 75 mined 3-grams of `^record$`, sound
    /// threshold, q-gram filter, greedy one-to-one by cosine distance. The default.
    Recommended,
}

/// The preset used when `--preset` is not given.
pub const DEFAULT_PRESET: Preset = Preset::Recommended;

/// Which pairs the matcher keeps: the core's rule, spelled as `--rule` takes it.
pub use gramlink::matching::Rule;

/// `--rule`'s parser: the core's spellings ([`Rule::option`]), listed in `--help`.
pub fn rule_parser() -> impl clap::builder::TypedValueParser<Value = Rule> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Rule::ALL.map(Rule::option))
        .map(|s| Rule::from_option(&s).unwrap_or(Rule::Ranked))
}

/// How a rule is described in messages.
pub fn describe(rule: Rule) -> &'static str {
    match rule {
        Rule::All => "every B within A's threshold",
        Rule::Greedy => "greedy one-to-one",
        Rule::Nearest => "nearest one-to-one",
        Rule::Ranked => "greedy one-to-one by cosine after the q-gram filter",
    }
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
            Preset::Recommended => Rule::Ranked,
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
