//! The FPM miner (paper 5.1, after Bhaskar, Laxman, Smith, Thakurta, KDD 2010):
//! one private top-k run per gram length q ∈ [q_min, q_max], each with ε/Δq, then
//! the top-k of the union.
//!
//! # Mechanism
//! For each length q, the query is the vector of record supports of *every* gram of
//! Σ^q (present in the data or not: the universe is public, so which counts exist
//! reveals nothing): c_g = number of records containing g, where each record counts
//! at most `max_grams_per_record` (= m) distinct q-grams, taken in order of first
//! occurrence. Each c_g gets independent discrete-Laplace noise of scale m/ε_q; the
//! miner keeps the k grams with the largest noisy counts (ties: Σ order —
//! data-independent) and releases those noisy counts less the length's noise floor
//! ([`noise_floor`]), and the top-k of all lengths by these released values.
//!
//! # Sensitivity and privacy
//! Adding or removing one record changes each c_g by at most 1 and changes at most
//! m of them (the record's capped gram set is a function of that record alone), so
//! the support vector has L1 sensitivity m. Releasing all |Σ|^q noisy counts is
//! then ε_q-DP (discrete Laplace mechanism, see [`crate::dp::DiscreteLaplace`]);
//! top-k selection and the final top-k over lengths are post-processing. The Δq
//! runs read the same records, so sequential composition gives Σ_q ε_q ≤ ε
//! (each ε_q = ⌊ε/Δq⌋ in exact units).
//!
//! This is Bhaskar et al.'s "perturb the scores, report the top-k" with the
//! sensitivity bounded by capping contributions. Their Laplace variant instead
//! noises with scale 4k/ε (truncated frequencies) plus 2k/ε for the released
//! counts; with m = 12 ≪ 6k = 450 at the default k = 75, the capped version adds
//! far less noise for the same ε.

use super::encode::{decode, support_counts, Encoded};
use super::options::PrivateRun;
use crate::base::{rank_order, GramCount, MineRecord, MinerKind, NoisyBase};
use crate::dp::{DiscreteLaplace, Epsilon};
use crate::error::Error;
use serde_json::json;
use std::collections::BTreeMap;

/// The noise floor of a length: about the largest of `universe` noise draws,
/// scale·ln(universe). The top noisy counts of a length are inflated by roughly
/// this much (the winner's curse), and the inflation grows with |Σ|^q: without the
/// correction, on a small dataset the maxima of 19,683 pure-noise 3-gram counts
/// outrank every real 1-gram. Subtracting it before the cross-length top-k (and in
/// the released counts) is post-processing of the noisy counts: no privacy cost.
pub fn noise_floor(scale: f64, universe: usize) -> f64 {
    scale * (universe.max(1) as f64).ln()
}

pub fn mine(run: PrivateRun<'_>) -> Result<NoisyBase, Error> {
    let PrivateRun { dataset, options, epsilon, ledger, rng, progress } = run;
    let alphabet = dataset.alphabet();
    let lengths = options.q_max - options.q_min + 1;
    let eps_q = epsilon.div_floor(lengths as u64);
    let m = options.max_grams_per_record;
    let noise = DiscreteLaplace::new(eps_q, m as u64)?;
    let spent = Epsilon::from_units(eps_q.units() * lengths as u64);
    // one charge for all lengths, before the data is read: all or nothing
    ledger.charge(&format!("fpm ({lengths} lengths x {eps_q})"), spent)?;
    let enc = Encoded::new(dataset.records(), alphabet);
    let mut candidates: Vec<(String, f64)> = Vec::new();
    for (step, q) in (options.q_min..=options.q_max).enumerate() {
        progress.tick("fpm", step as u64, lengths as u64)?;
        let counts = support_counts(&enc, q, m);
        let mut noisy: Vec<(u64, i64)> =
            counts.iter().enumerate().map(|(code, &c)| (code as u64, noise.release(c as i64, rng))).collect();
        // top-k of this length; among equal noisy counts the smaller code (Σ order) first
        crate::sorting::sort_by(&mut noisy, |a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        noisy.truncate(options.k);
        let floor = noise_floor(noise.scale(), counts.len());
        candidates.extend(noisy.into_iter().map(|(code, c)| (decode(alphabet, q, code), c as f64 - floor)));
    }
    progress.tick("fpm", lengths as u64, lengths as u64)?;
    crate::sorting::sort_by(&mut candidates, |a, b| rank_order(alphabet, (&a.0, a.1), (&b.0, b.1)));
    candidates.truncate(options.k);
    let mechanism = BTreeMap::from([
        ("noise".to_string(), json!("discrete Laplace on record supports of all of Σ^q")),
        ("max_grams_per_record".to_string(), json!(m)),
        ("epsilon_per_length".to_string(), json!(eps_q.as_f64())),
        ("noise_scale".to_string(), json!(noise.scale())),
        ("released_count".to_string(), json!("noisy support minus scale*ln(|Σ|^q)")),
        ("composition".to_string(), json!("sequential over gram lengths")),
    ]);
    Ok(NoisyBase {
        padding: None,
        alphabet: alphabet.clone(),
        params: MineRecord {
            miner: MinerKind::Fpm,
            strategy: None,
            k: options.k,
            q_min: options.q_min,
            q_max: options.q_max,
            epsilon: epsilon.as_f64(),
            epsilon_spent: spent.as_f64(),
            mechanism,
        },
        private: rng.is_private(),
        grams: candidates.into_iter().map(|(gram, count)| GramCount { gram, count }).collect(),
    })
}
