//! The configurations: each preset is defined here and nowhere else.
//!
//! A [`Config`] holds every choice that decides what a linkage computes: how
//! each party mines ([`MineOptions`], which also says the shape of the shared
//! base: padding and public grams), which thresholds party A sends
//! ([`ThresholdOptions`]), and which pairs the matcher keeps ([`Rule`]). The CLI,
//! the wasm API and the web app start from [`Config::default`] (the recommended
//! configuration) or a [`Preset`], and override single fields.
//!
//! | | [`Preset::Recommended`] (default) | [`Preset::Paper`] |
//! |---|---|---|
//! | mined grams | 75 prefix-tree 3-grams of `^record$` | 75 prefix-tree 1–3-grams |
//! | public grams | every 2-gram of Σ and the boundary grams (no budget) | none |
//! | thresholds | sound, ed `auto` (bound 2, cut-off fitted by the matcher) | the paper's Algorithm 2, ed 1 |
//! | rule | `ranked`: q-gram filter, greedy one-to-one by cosine | `all`: every B within A's threshold |
//!
//! Both spend the same ε = 0.1 per party on the same mined part; the public grams
//! depend on Σ alone. docs/RESULTS.md ("Levers") measures what each choice adds.

use crate::base::{MinerKind, Strategy};
use crate::matching::Rule;
use crate::mine::MineOptions;
use crate::threshold::ThresholdMode;
use serde::{Deserialize, Serialize};

/// A whole configuration, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(all(feature = "clap", not(target_arch = "wasm32")), derive(clap::ValueEnum))]
pub enum Preset {
    /// The grams-projections paper's configuration (its Table 3).
    Paper,
    /// Public 2-grams and boundary grams, mined 3-grams of `^record$`, sound
    /// thresholds, the `ranked` rule. The default.
    #[default]
    Recommended,
}

impl Preset {
    /// Every preset, in the order options list them.
    pub const ALL: [Preset; 2] = [Preset::Recommended, Preset::Paper];

    /// The preset as options spell it.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Paper => "paper",
            Preset::Recommended => "recommended",
        }
    }

    /// The preset spelled `name` by [`Preset::name`], if any.
    pub fn from_name(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The configuration this preset names.
    pub fn config(self) -> Config {
        match self {
            Preset::Paper => Config::paper(),
            Preset::Recommended => Config::recommended(),
        }
    }
}

/// The edit distance a linkage allows: a number, or `auto` (the default of the
/// recommended configuration): party A's thresholds and the q-gram filter then
/// cover [`Ed::AUTO_BOUND`] edits, and the matcher keeps the candidates a
/// cut-off fitted on them without labels calls matches
/// ([`crate::cutoff`]). One spelling everywhere: `--ed auto|N`, the
/// JS `thresholds.ed` (`"auto"` or a number), messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ed {
    Fixed(u32),
    Auto,
}

impl Ed {
    /// The generous bound of `auto`: NAMES at 3 edits costs ten times the
    /// matcher's time of 2, and of the data sets measured
    /// (docs/results/ed_auto.md) only FEBRL 1's "given surname" gains from 3
    /// fixed edits (0.0078 of F1 over auto).
    pub const AUTO_BOUND: u32 = 2;

    /// The edits A's thresholds and the filter cover.
    pub fn bound(self) -> u32 {
        match self {
            Ed::Fixed(n) => n,
            Ed::Auto => Ed::AUTO_BOUND,
        }
    }

    pub fn is_auto(self) -> bool {
        self == Ed::Auto
    }

    /// `auto` or a number of edits.
    pub fn parse(s: &str) -> Option<Ed> {
        match s.trim() {
            "auto" => Some(Ed::Auto),
            n => n.parse().ok().map(Ed::Fixed),
        }
    }
}

impl From<u32> for Ed {
    fn from(n: u32) -> Ed {
        Ed::Fixed(n)
    }
}

impl std::fmt::Display for Ed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ed::Fixed(n) => write!(f, "{n}"),
            Ed::Auto => f.write_str("auto"),
        }
    }
}

impl Serialize for Ed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Ed::Fixed(n) => s.serialize_u32(*n),
            Ed::Auto => s.serialize_str("auto"),
        }
    }
}

impl<'de> Deserialize<'de> for Ed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Ed, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(u32),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(n) => Ok(Ed::Fixed(n)),
            Raw::S(s) => Ed::parse(&s)
                .ok_or_else(|| serde::de::Error::custom(format!("ed {s:?} is neither \"auto\" nor a number of edits"))),
        }
    }
}

/// Party A's thresholds: for which edit distance, and how they are computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ThresholdOptions {
    pub ed: Ed,
    pub mode: ThresholdMode,
}

impl Default for ThresholdOptions {
    fn default() -> Self {
        Config::default().thresholds
    }
}

/// One whole configuration: the options of every step that depends on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Config {
    /// Mining, and the shape of the shared base (`padding`, `publicQ`, `k`).
    pub mine: MineOptions,
    /// Party A's thresholds.
    pub thresholds: ThresholdOptions,
    /// Which pairs the matcher keeps.
    pub rule: Rule,
    /// The keyed encoding the parties apply when they share a key
    /// ([`crate::keyed::Encoding`]: the sketch by default; written only when
    /// another, so configurations written before it read back the same).
    #[serde(skip_serializing_if = "crate::keyed::Encoding::is_default")]
    pub encoding: crate::keyed::Encoding,
}

impl Default for Config {
    fn default() -> Self {
        Preset::default().config()
    }
}

impl Config {
    /// The paper's configuration (Table 3): 75 grams of lengths 1–3 mined by the
    /// private prefix tree (hybrid budget strategy, ε = 0.1, depth 7), the paper's
    /// personalized thresholds for one edit, every pair within threshold.
    pub fn paper() -> Config {
        Config {
            mine: MineOptions {
                miner: MinerKind::PrefixTree,
                strategy: Strategy::Hybrid,
                epsilon: 0.1,
                k: 75,
                q_min: 1,
                q_max: 3,
                h_max: 7,
                max_grams_per_record: 12,
                padding: false,
                public_q: None,
            },
            thresholds: ThresholdOptions { ed: Ed::Fixed(1), mode: ThresholdMode::Paper },
            rule: Rule::All,
            encoding: Default::default(),
        }
    }

    /// The recommended configuration: every public 2-gram of Σ and the boundary
    /// 2-grams `^a`, `a$` (data-independent, no budget) plus 75 ε-DP mined
    /// 3-grams of the padded records; the sound thresholds for `ed auto`; the
    /// `ranked` rule.
    ///
    /// Privacy: the same ε as the paper's configuration buys the same mined part.
    pub fn recommended() -> Config {
        let paper = Config::paper();
        Config {
            mine: MineOptions { q_min: 3, q_max: 3, padding: true, public_q: Some(2), ..paper.mine },
            thresholds: ThresholdOptions { ed: Ed::Auto, mode: ThresholdMode::Sound },
            rule: Rule::Ranked,
            encoding: Default::default(),
        }
    }

    /// The configuration with the edit distance set (thresholds and filter).
    pub fn with_ed(mut self, ed: impl Into<Ed>) -> Config {
        self.thresholds.ed = ed.into();
        self
    }
}

// The defaults of the parts, from the default configuration: written here, so
// `mine` and `matching` do not import `config` back.
impl Default for MineOptions {
    fn default() -> Self {
        Config::default().mine
    }
}

impl Default for Rule {
    fn default() -> Self {
        Config::default().rule
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_the_recommended_preset_everywhere() {
        assert_eq!(Config::default(), Config::recommended());
        assert_eq!(MineOptions::default(), Config::recommended().mine);
        assert_eq!(ThresholdOptions::default(), Config::recommended().thresholds);
        assert_eq!(Rule::default(), Config::recommended().rule);
    }

    #[test]
    fn names_round_trip() {
        for p in Preset::ALL {
            assert_eq!(Preset::from_name(p.name()), Some(p));
            assert_eq!(serde_json::to_value(p).unwrap(), p.name());
        }
        for m in [ThresholdMode::Paper, ThresholdMode::Sound, ThresholdMode::Global(None)] {
            assert_eq!(ThresholdMode::from_name(m.name()), Some(m));
        }
        assert_eq!(ThresholdMode::from_name("lenient"), None);
    }

    #[test]
    fn presets_differ_only_where_documented() {
        let (p, r) = (Config::paper(), Config::recommended());
        assert_eq!((p.mine.epsilon, p.mine.k, p.mine.h_max), (r.mine.epsilon, r.mine.k, r.mine.h_max));
        assert_eq!((p.mine.q_min, p.mine.padding, p.mine.public_q), (1, false, None));
        assert_eq!((r.mine.q_min, r.mine.padding, r.mine.public_q), (3, true, Some(2)));
    }
}
