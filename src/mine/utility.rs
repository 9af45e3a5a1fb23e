//! Mining utility as in the paper's Figure 4: the fraction of the exact top-k
//! grams (by record support) that a miner's top-k contains.

use crate::base::NoisyBase;
use crate::dataset::Dataset;
use std::collections::HashSet;

/// |miner's top-k ∩ exact top-k| / k, with the exact top-k computed on `dataset`.
pub fn utility(base: &NoisyBase, dataset: &Dataset, k: usize) -> f64 {
    let exact = super::exact::top_k(dataset.records(), dataset.alphabet(), k, base.params.q_min, base.params.q_max);
    overlap(base, &exact.iter().map(|g| g.gram.clone()).collect::<Vec<_>>(), k)
}

/// |base's top-k ∩ reference| / k.
pub fn overlap(base: &NoisyBase, reference: &[String], k: usize) -> f64 {
    if k == 0 {
        return 0.0;
    }
    let reference: HashSet<&str> = reference.iter().take(k).map(|s| s.as_str()).collect();
    let hits = base.grams.iter().take(k).filter(|g| reference.contains(g.gram.as_str())).count();
    hits as f64 / k as f64
}
