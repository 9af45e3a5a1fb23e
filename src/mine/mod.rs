//! Miners: from a party's records to a noisy base of frequent grams.
//!
//! - [`fpm`]: top-k by noisy record supports, one run per gram length (paper 5.1);
//! - [`prefix_tree`]: the private prefix tree (paper 5.2) with its budget strategies;
//! - [`exact`] and [`random`]: the non-private and the data-independent baselines;
//! - [`utility`]: the paper's mining utility (Figure 4).
//!
//! Every miner charges the party's [`BudgetLedger`] before it touches the data and
//! records every mechanism parameter in the [`NoisyBase`] it returns.

pub mod budget;
pub mod encode;
pub mod exact;
pub mod fpm;
mod options;
pub mod prefix_tree;
pub mod random;
pub mod utility;

pub use options::{MineOptions, PrivateRun, MAX_Q, MAX_UNIVERSE};

use crate::base::{MinerKind, NoisyBase};
use crate::dataset::Dataset;
use crate::dp::{BudgetLedger, Randomness};
use crate::error::Error;
use crate::progress::Progress;

/// Mines `dataset` with `options`, charging `ledger`. The base is marked private
/// only when the miner is private and `rng` is the secure generator.
pub fn mine(
    dataset: &Dataset,
    options: &MineOptions,
    ledger: &mut BudgetLedger,
    rng: &mut Randomness,
    progress: &mut dyn Progress,
) -> Result<NoisyBase, Error> {
    if options.padding {
        // Σ plus two public symbols: data-independent, so the tree asks the same
        // counts for every dataset and the miner's ε-DP argument is unchanged.
        let p = crate::padding::Padding::default();
        let extended = p.extend(dataset.alphabet()).map_err(|e| Error::Parameter(e.to_string()))?;
        let padded = Dataset::from_normalized(dataset.records().iter().map(|s| p.pad(s)).collect(), &extended);
        let inner = MineOptions { padding: false, ..options.clone() };
        let mut base = mine(&padded, &inner, ledger, rng, progress)?;
        base.padding = Some(p);
        return Ok(base);
    }
    let eps = options.validate(dataset.alphabet().len())?;
    if dataset.is_empty() && options.miner != MinerKind::Random {
        return Err(Error::Parameter("there are no records to mine (all of them normalized to empty?)".into()));
    }
    let run = PrivateRun { dataset, options, epsilon: eps, ledger, rng, progress };
    match options.miner {
        MinerKind::Fpm => fpm::mine(run),
        MinerKind::PrefixTree => {
            let tree = prefix_tree::PrefixTree::build(run)?;
            Ok(tree.extract(options.k, options.q_min, options.q_max)?)
        }
        MinerKind::Exact => Ok(exact::mine(dataset, options, run.progress)?),
        MinerKind::Random => Ok(random::mine(dataset.alphabet(), options, run.rng)?),
    }
}
