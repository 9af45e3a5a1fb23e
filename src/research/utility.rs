//! The mining-utility experiment (paper Figure 4): for each miner, ε and k, the
//! share of the exact top-k grams (by record support) found in the miner's top-k,
//! averaged over seeded runs. Seeded, so the bases are not private: an experiment.

use crate::base::{MinerKind, Strategy};
use crate::dataset::Dataset;
use crate::dp::{BudgetLedger, Epsilon, Randomness};
use crate::error::Error;
use crate::mine::prefix_tree::PrefixTree;
use crate::mine::{exact, fpm, utility::overlap, MineOptions, PrivateRun};
use crate::progress::Progress;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UtilityGrid {
    pub epsilons: Vec<f64>,
    pub ks: Vec<usize>,
    pub q_min: usize,
    pub q_max: usize,
    pub h_max: usize,
    pub runs: u64,
    pub seed: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UtilityCell {
    pub miner: String,
    pub epsilon: f64,
    pub k: usize,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UtilityTable {
    pub grid: UtilityGrid,
    pub records: usize,
    pub cells: Vec<UtilityCell>,
}

impl UtilityTable {
    /// One row per miner, one column per (ε, k).
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "Mining utility (share of the exact top-k found), {} records, q in [{}, {}], h_max {}, mean of {} runs\n\n| miner |",
            self.records, self.grid.q_min, self.grid.q_max, self.grid.h_max, self.grid.runs
        );
        for e in &self.grid.epsilons {
            for k in &self.grid.ks {
                out += &format!(" ε={e} k={k} |");
            }
        }
        out += "\n|---|";
        out += &"---|".repeat(self.grid.epsilons.len() * self.grid.ks.len());
        out += "\n";
        let mut miners: Vec<&str> = Vec::new();
        for c in &self.cells {
            if !miners.contains(&c.miner.as_str()) {
                miners.push(&c.miner);
            }
        }
        for m in miners {
            out += &format!("| {m} |");
            for e in &self.grid.epsilons {
                for k in &self.grid.ks {
                    let c = self.cells.iter().find(|c| c.miner == m && c.epsilon == *e && c.k == *k);
                    out += &match c {
                        Some(c) => format!(" {:.3} |", c.mean),
                        None => " – |".into(),
                    };
                }
            }
            out += "\n";
        }
        out
    }
}

fn summarize(miner: &str, epsilon: f64, k: usize, xs: &[f64]) -> UtilityCell {
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    let min = xs.iter().cloned().fold(f64::INFINITY, f64::min);
    let max = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    UtilityCell { miner: miner.into(), epsilon, k, mean, min, max }
}

/// A private miner's entry: [`fpm::mine`] or [`PrefixTree::build`].
type Miner<T> = fn(PrivateRun<'_>) -> Result<T, Error>;

/// One seeded run of `miner`: `o` checked, a ledger of `e` of its own and the
/// run's randomness (`seed`).
fn seeded_run<T>(dataset: &Dataset, o: &MineOptions, e: Epsilon, seed: u64, miner: Miner<T>) -> Result<T, Error> {
    o.validate(dataset.alphabet().len())?;
    let (ledger, rng) = (&mut BudgetLedger::new(e), &mut Randomness::seeded(seed));
    miner(PrivateRun { dataset, options: o, epsilon: e, ledger, rng, progress: &mut crate::progress::NoProgress })
}

/// Runs the grid: FPM once per (ε, k, run); each prefix-tree strategy builds one
/// tree per (ε, run) and extracts every k from it (no extra budget).
pub fn mining_utility(
    dataset: &Dataset,
    grid: &UtilityGrid,
    progress: &mut dyn Progress,
) -> Result<UtilityTable, Error> {
    let kmax = grid.ks.iter().copied().max().unwrap_or(0);
    let exact_all: Vec<String> = exact::top_k(dataset.records(), dataset.alphabet(), kmax, grid.q_min, grid.q_max)
        .into_iter()
        .map(|g| g.gram)
        .collect();
    let total = (grid.epsilons.len() * (1 + Strategy::ALL.len())) as u64;
    let mut step = 0;
    let mut cells = Vec::new();
    for &eps in &grid.epsilons {
        let e = Epsilon::new(eps)?;
        // FPM
        for &k in &grid.ks {
            let mut xs = Vec::new();
            for r in 0..grid.runs {
                let o = MineOptions {
                    miner: MinerKind::Fpm,
                    epsilon: eps,
                    k,
                    q_min: grid.q_min,
                    q_max: grid.q_max,
                    ..crate::config::Config::paper().mine
                };
                let b = seeded_run(dataset, &o, e, grid.seed.wrapping_add(r), fpm::mine)?;
                xs.push(overlap(&b, &exact_all[..k.min(exact_all.len())], k));
            }
            cells.push(summarize("fpm", eps, k, &xs));
        }
        step += 1;
        progress.tick("mining utility", step, total)?;
        for s in Strategy::ALL {
            let mut per_k: Vec<Vec<f64>> = vec![Vec::new(); grid.ks.len()];
            for r in 0..grid.runs {
                let o = MineOptions {
                    miner: MinerKind::PrefixTree,
                    strategy: s,
                    epsilon: eps,
                    q_min: grid.q_min,
                    q_max: grid.q_max,
                    h_max: grid.h_max,
                    ..crate::config::Config::paper().mine
                };
                let tree = seeded_run(dataset, &o, e, grid.seed.wrapping_add(r), PrefixTree::build)?;
                for (i, &k) in grid.ks.iter().enumerate() {
                    let b = tree.extract(k, grid.q_min, grid.q_max)?;
                    per_k[i].push(overlap(&b, &exact_all[..k.min(exact_all.len())], k));
                }
            }
            for (i, &k) in grid.ks.iter().enumerate() {
                cells.push(summarize(&format!("prefix-tree {}", s.name()), eps, k, &per_k[i]));
            }
            step += 1;
            progress.tick("mining utility", step, total)?;
        }
    }
    Ok(UtilityTable { grid: grid.clone(), records: dataset.len(), cells })
}
