//! The random base: grams drawn without looking at the data (the paper's "random
//! grams" comparison). Data-independent, so it costs no privacy budget.

use super::options::{baseline_record, MineOptions};
use crate::alphabet::Alphabet;
use crate::base::{GramCount, MinerKind, NoisyBase};
use crate::dp::Randomness;
use crate::error::Error;
use std::collections::HashSet;

/// `k` distinct grams: each one's length uniform in [q_min, q_max], its symbols
/// uniform over Σ's letters (the space is left out: a gram of spaces, or one that
/// starts or ends with a space, says little about a name). Counts are 0: the order
/// is the draw order.
pub fn mine(alphabet: &Alphabet, options: &MineOptions, rng: &mut Randomness) -> Result<NoisyBase, Error> {
    let letters: Vec<char> = alphabet.symbols().iter().copied().filter(|c| *c != ' ').collect();
    let span = options.q_max - options.q_min + 1;
    let possible: u128 =
        (options.q_min..=options.q_max).map(|q| (letters.len() as u128).saturating_pow(q as u32)).sum();
    if (options.k as u128) > possible {
        return Err(Error::Parameter(format!(
            "k = {} is more than the {possible} distinct grams of lengths {}..={} over the alphabet",
            options.k, options.q_min, options.q_max
        )));
    }
    let mut seen = HashSet::new();
    let mut grams = Vec::with_capacity(options.k);
    while grams.len() < options.k {
        let q = options.q_min + rng.below(span);
        let g: String = (0..q).map(|_| letters[rng.below(letters.len())]).collect();
        if seen.insert(g.clone()) {
            grams.push(GramCount { gram: g, count: 0.0 });
        }
    }
    Ok(NoisyBase {
        padding: None,
        alphabet: alphabet.clone(),
        params: baseline_record(MinerKind::Random, options, "data-independent random grams: no budget spent"),
        // no data was read, so it is private whatever the generator
        private: true,
        grams,
    })
}
