//! What a mining is asked for ([`MineOptions`]), its checks and limits, what
//! a private miner is given ([`PrivateRun`]), and the parameter record of the
//! baselines that spend no budget.

use crate::base::{MinerKind, Strategy};
use crate::dataset::Dataset;
use crate::dp::{BudgetLedger, Epsilon, Randomness};
use crate::error::MineError;
use crate::progress::Progress;
use serde::{Deserialize, Serialize};

/// The largest gram length accepted (grams are short by nature; the prefix tree
/// is at most this deep).
pub const MAX_Q: usize = 12;
/// The FPM miner enumerates Σ^q for every length; it refuses universes above this.
pub const MAX_UNIVERSE: u64 = 1 << 22;

/// What a private miner ([`super::fpm::mine`],
/// [`super::prefix_tree::PrefixTree::build`]) is given: the records, the
/// options, the ε it spends (the options' own, checked), the party's ledger it
/// charges before it reads the records, its noise and its progress.
pub struct PrivateRun<'a> {
    pub dataset: &'a Dataset,
    pub options: &'a MineOptions,
    pub epsilon: Epsilon,
    pub ledger: &'a mut BudgetLedger,
    pub rng: &'a mut Randomness,
    pub progress: &'a mut dyn Progress,
}

/// Mining options. `Default` is the default configuration's mining options; the
/// presets are defined in `config` (which implements `Default` here, so the
/// presets have one home and no module imports it back).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct MineOptions {
    pub miner: MinerKind,
    /// Budget strategy of the prefix-tree miner.
    pub strategy: Strategy,
    /// The ε this mining may spend (charged to the party's ledger).
    pub epsilon: f64,
    pub k: usize,
    pub q_min: usize,
    pub q_max: usize,
    /// Depth of the prefix tree: a public parameter (the paper uses the mean record
    /// length; reading it off private data would leak, so the caller states it).
    pub h_max: usize,
    /// FPM: at most this many distinct grams of each length count for one record
    /// (the sensitivity of the support vector). Public.
    pub max_grams_per_record: usize,
    /// Mine the records padded as `^record$` (over Σ plus the two public padding
    /// symbols, [`crate::padding::Padding`]), so boundary grams can be mined.
    pub padding: bool,
    /// Not used by the miner: the length of the public grams (every gram of that
    /// length over Σ, data-independent, [`crate::public`]) the shared base gets on
    /// top of the mined grams at merge time. `None`: mined grams only (the paper).
    pub public_q: Option<usize>,
}

impl MineOptions {
    /// The budget a party needs for this mining: `epsilon` (zero for the
    /// baselines, which spend none).
    pub fn budget(&self) -> Epsilon {
        Epsilon::new(self.epsilon).unwrap_or(Epsilon::zero())
    }

    /// Checks every parameter; the error names the one that is wrong.
    pub fn validate(&self, sigma: usize) -> Result<Epsilon, MineError> {
        let bad = |m: String| Err(MineError::InvalidParameter(m));
        let eps = match self.miner {
            MinerKind::Exact | MinerKind::Random => Epsilon::new(self.epsilon).unwrap_or(Epsilon::zero()),
            _ => Epsilon::new(self.epsilon)?,
        };
        if self.k == 0 {
            return bad("k must be at least 1".into());
        }
        if self.k > 100_000 {
            return bad(format!("k = {} is too large (at most 100000)", self.k));
        }
        if self.q_min == 0 {
            return bad("q_min must be at least 1".into());
        }
        if self.q_min > self.q_max {
            return bad(format!("q_min ({}) is greater than q_max ({})", self.q_min, self.q_max));
        }
        if self.q_max > MAX_Q {
            return bad(format!("q_max = {} is too large (at most {MAX_Q})", self.q_max));
        }
        match self.miner {
            MinerKind::PrefixTree => {
                if self.h_max == 0 || self.h_max > 64 {
                    return bad(format!("h_max = {} must be in 1..=64", self.h_max));
                }
                if self.h_max < self.q_min {
                    return bad(format!(
                        "h_max ({}) is below q_min ({}): the tree would hold no gram of those lengths",
                        self.h_max, self.q_min
                    ));
                }
            }
            MinerKind::Fpm => {
                if self.max_grams_per_record == 0 || self.max_grams_per_record > 1024 {
                    return bad(format!("max_grams_per_record = {} must be in 1..=1024", self.max_grams_per_record));
                }
                for q in self.q_min..=self.q_max {
                    match super::encode::universe_size(sigma, q) {
                        Some(u) if u <= MAX_UNIVERSE => {}
                        _ => {
                            return bad(format!(
                                "the FPM miner counts all |Σ|^q grams; {sigma}^{q} is more than {MAX_UNIVERSE}: lower q_max or use the prefix-tree miner"
                            ))
                        }
                    }
                }
            }
            MinerKind::Exact | MinerKind::Random => {}
        }
        Ok(eps)
    }
}

/// The parameter record of a baseline that spends no budget (exact, random).
pub(super) fn baseline_record(miner: MinerKind, o: &MineOptions, note: &str) -> crate::base::MineRecord {
    crate::base::MineRecord {
        miner,
        strategy: None,
        k: o.k,
        q_min: o.q_min,
        q_max: o.q_max,
        epsilon: 0.0,
        epsilon_spent: 0.0,
        mechanism: std::collections::BTreeMap::from([("note".into(), note.into())]),
    }
}
