//! Figure 4: mining utility (share of the exact top-k grams a miner finds) against
//! ε at k = 75 and against k at ε = 0.1, on NAMES, FPM and the four prefix-tree
//! strategies; the grid of `eval::utility` (one tree per strategy, ε and run, every
//! k extracted from it).

use super::data::ExperimentData;
use super::figure::{Figure, Panel, Point};
use crate::dataset::Dataset;
use crate::error::Error;
use crate::progress::Progress;
use crate::research::utility::{mining_utility, UtilityGrid};

pub fn fig4(d: &ExperimentData, progress: &mut dyn Progress) -> Result<Figure, Error> {
    let (k_fixed, eps_fixed) = (75usize, 0.1f64);
    let grid = UtilityGrid {
        epsilons: vec![0.05, 0.1, 0.2, 0.5, 1.0],
        ks: vec![25, 50, 75, 100, 150],
        q_min: 1,
        q_max: 3,
        h_max: crate::eval::scenario::mean_record_length(d.names()),
        runs: d.runs,
        seed: d.seed,
    };
    let dataset = Dataset::from_normalized(d.names().to_vec(), &d.alphabet);
    let table = mining_utility(&dataset, &grid, progress)?;
    let mut by_eps = Panel::new(format!("NAMES, k = {k_fixed}"), "ε", "utility (share of the exact top-k)");
    by_eps.log_x = true;
    let mut by_k = Panel::new(format!("NAMES, ε = {eps_fixed}"), "k", "utility (share of the exact top-k)");
    for c in &table.cells {
        let p = Point { x: 0.0, mean: c.mean, min: c.min, max: c.max, runs: grid.runs as usize };
        if c.k == k_fixed {
            by_eps.push(&c.miner, Point { x: c.epsilon, ..p.clone() });
        }
        if c.epsilon == eps_fixed {
            by_k.push(&c.miner, Point { x: c.k as f64, ..p });
        }
    }
    Ok(Figure {
        name: "fig4".into(),
        title: "Mining utility against ε and k".into(),
        panels: vec![by_eps, by_k],
        notes: vec![format!(
            "NAMES: {} records; q ∈ [1, 3], h_max = {} (round(mean length)); {} seeded runs per point, min–max spread",
            d.names().len(),
            grid.h_max,
            d.runs
        )],
    })
}
