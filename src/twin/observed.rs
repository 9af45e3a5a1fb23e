//! The corruption between two parties' strings as observed, without labels:
//! how many of B's records carry 0, 1, 2, … edits against their partner in A.
//!
//! Without labels no record of B is known to have a partner, but the distance
//! from each record of B to its nearest string of A is observable, and so is
//! what that distance looks like for a record with exactly `e` edits: corrupt
//! strings of A with `e` edits (the scenario's model, [`crate::eval::corrupt`])
//! and measure their distance to A the same way. A corrupted record can land
//! on another real string, or nearer to one than to its origin, which these
//! profiles count. B's histogram of nearest distances is then a mixture of the
//! profiles `h_e`, and the rates are its weights, fitted by EM for mixture
//! proportions (maximum likelihood, each weight ≥ 0, summing to 1).
//!
//! What it needs, and where it fails (stated in docs/TWINS.md): both files in
//! one place (the real files, or samples both parties agree to pool); B's
//! records all with a partner in A (a record without one looks like many
//! edits); edits of the scenario's kind. Two *twins* carry no such signal:
//! their strings are fresh draws from group statistics, so no pair survives
//! condensation, and the estimate on twins measures condensation, not
//! corruption.

use super::measure::nearest_distances;
use crate::dp::Randomness;
use crate::error::{Error, InputError};
use crate::eval::corrupt::corrupt;
use serde::{Deserialize, Serialize};

/// The estimate, with what it was made from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObservedCorruption {
    /// `rates[e]`: the estimated share of B's records with `e` edits.
    pub rates: Vec<f64>,
    /// The mean edits per record of the estimate.
    pub mean_edits: f64,
    /// B's nearest distances to A: shares at `0..=max_edits` and more.
    pub observed: Vec<f64>,
    /// The same for A's strings with exactly `e` edits, per `e`.
    pub profiles: Vec<Vec<f64>>,
    pub sample: usize,
}

/// Estimates the rates of 0, 1, …, `max_edits` edits of `b`'s records against
/// `a` from `sample` records of each (seeded draws).
pub fn estimate(
    a: &[String],
    b: &[String],
    max_edits: usize,
    sample: usize,
    rng: &mut Randomness,
) -> Result<ObservedCorruption, Error> {
    if a.len() < 2 || b.is_empty() {
        return Err(InputError::Empty {
            what: "the files to observe the corruption on (2 or more strings each)".into(),
        }
        .into());
    }
    if max_edits == 0 || sample == 0 {
        return Err(Error::Parameter("observed corruption: max edits and sample must be at least 1".into()));
    }
    let pick = |v: &[String], rng: &mut Randomness| -> Vec<String> {
        let mut idx = rng.permutation(v.len());
        idx.truncate(sample);
        idx.into_iter().map(|i| v[i].clone()).collect()
    };
    let (qa, qb) = (pick(a, rng), pick(b, rng));
    let bins = max_edits + 2; // 0..=max_edits, and more
    let histogram = |queries: &[String]| -> Vec<f64> {
        let refs: Vec<&str> = queries.iter().map(String::as_str).collect();
        let mut h = vec![0.0; bins];
        for d in nearest_distances(&refs, a, false) {
            h[d.min(bins - 1)] += 1.0 / queries.len() as f64;
        }
        h
    };
    let observed = histogram(&qb);
    let profiles: Vec<Vec<f64>> =
        (0..=max_edits as u32).map(|e| histogram(&qa.iter().map(|s| corrupt(s, e, rng)).collect::<Vec<_>>())).collect();
    let mut rates = vec![1.0 / profiles.len() as f64; profiles.len()];
    for _ in 0..EM_ROUNDS {
        let mut next = vec![0.0; rates.len()];
        for (d, &o) in observed.iter().enumerate() {
            let mix: f64 = rates.iter().zip(&profiles).map(|(r, h)| r * h[d]).sum();
            if o > 0.0 && mix > 0.0 {
                for (e, h) in profiles.iter().enumerate() {
                    next[e] += o * rates[e] * h[d] / mix;
                }
            }
        }
        let total: f64 = next.iter().sum();
        if total <= 0.0 {
            break;
        }
        rates = next.iter().map(|x| x / total).collect();
    }
    let mean_edits = rates.iter().enumerate().map(|(e, r)| e as f64 * r).sum();
    Ok(ObservedCorruption { rates, mean_edits, observed, profiles, sample: qb.len() })
}

/// EM rounds for the mixture weights (converged long before on a few bins).
const EM_ROUNDS: usize = 500;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rates_of_a_known_corruption_are_found() {
        // 40 % of B untouched, 60 % with one edit
        let names: Vec<String> = include_str!("../../data/names.txt").lines().take(3000).map(String::from).collect();
        let mut rng = Randomness::seeded(9);
        let b: Vec<String> =
            names.iter().enumerate().map(|(i, s)| corrupt(s, u32::from(i % 5 >= 2), &mut rng)).collect();
        let e = estimate(&names, &b, 3, 1500, &mut rng).unwrap();
        assert!((e.rates[0] - 0.4).abs() < 0.05 && (e.rates[1] - 0.6).abs() < 0.05, "{e:?}");
        assert!((e.rates.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert_eq!(estimate(&names[..1], &b, 3, 10, &mut rng).unwrap_err().code(), "EMPTY_INPUT");
    }
}
