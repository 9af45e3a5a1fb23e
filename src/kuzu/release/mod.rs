//! Block release with differential privacy (the paper's §4.2).
//!
//! A releases, for every block ℓ of the model (the n_B clusters and the block of
//! empty values), a set of encrypted records whose size is
//! max(0, |A_ℓ| + m + Z_ℓ), with Z_ℓ i.i.d. discrete Laplace, P(Z = z) ∝ exp(−ε|z|/2),
//! and m a public integer shift. Positive noise adds fake records (which can never
//! match, [`super::compare`]); negative noise suppresses real records, chosen
//! uniformly in the block. Which records are fake or suppressed is in the
//! [`ReleaseReport`], which A keeps: B sees only the sizes and semantically
//! secure ciphertexts, in a random order within each block.
//!
//! # Privacy (ε-DP for A's records, neighbours: one record replaced)
//! The blocks partition A's records, so replacing one record changes at most two
//! block counts, each by one: the L1 sensitivity of the count vector is S(Q) = 2
//! (the paper's Theorem 4.1 — right, for this "bounded" neighbourhood; if
//! neighbours add or remove a record the sensitivity is 1 and the same noise gives
//! ε/2). Each count gets independent discrete Laplace noise of rate ε/S(Q) = ε/2,
//! the discrete analogue of Laplace with b = S(Q)/ε: for count vectors x, x' with
//! ‖x − x'‖₁ ≤ 2 and any noisy vector y, Π_ℓ P(x_ℓ + m + Z_ℓ = y_ℓ) / P(x'_ℓ + m + Z_ℓ = y_ℓ)
//! = exp(−(ε/2)·Σ_ℓ(|y_ℓ − m − x_ℓ| − |y_ℓ − m − x'_ℓ|)) ≤ exp((ε/2)·‖x − x'‖₁) ≤ e^ε
//! (triangle inequality, [`crate::dp::DiscreteLaplace`]). The shift m is computed
//! from public quantities only (ε, w_n, B's record count and n_B), so it does not
//! change the ratio. What B observes — the sizes max(0, ·), the order of
//! ciphertexts, fresh encryptions — is post-processing of the noisy counts
//! (clamping at zero, a uniform shuffle, and encryption under semantic security, which
//! makes a fake indistinguishable from a real record to B computationally:
//! the guarantee is computational DP against B, as the paper says in words).
//! The noise is sampled exactly from [`Randomness`] (no floating point touches it).
//!
//! # The shift (the paper's Theorem 4.2, checked)
//! A fake record costs about E\[Y\] = |B|/n_B comparisons; a suppression costs w_n.
//! With continuous noise X ~ Lap(μ, b), the expected cost
//! u(μ) = w_n·E\[max(0, −X)\] + E\[Y\]·E\[max(0, X)\] is, for μ ≥ 0,
//! (b/2)·e^{−μ/b}·(w_n + E\[Y\]) + E\[Y\]·μ, as the paper writes, and its minimum is at
//! μ = −b·ln(2E\[Y\]/(E\[Y\] + w_n)). That formula is right only when w_n ≥ E\[Y\]
//! (else it returns μ < 0, outside the branch it was derived on); for w_n < E\[Y\]
//! the mirror computation gives μ = b·ln(2w_n/(w_n + E\[Y\])) ≤ 0. [`continuous_shift`]
//! implements both branches. The noise here is discrete, so the shift used is the
//! integer m that minimizes the same expected cost under the discrete Laplace pmf
//! exactly (the cost is convex in m: it is searched around μ).

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;

use crate::dp::{BudgetLedger, DiscreteLaplace, Epsilon, Randomness};
use crate::error::Error;
use serde::{Deserialize, Serialize};

/// The L1 sensitivity of the block counts (Theorem 4.1).
pub const SENSITIVITY: u64 = 2;
/// The mechanism's name in the budget ledger.
pub const MECHANISM: &str = "kuzu block release";

/// The release's parameters: ε, the suppression cost w_n, and B's public record count.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseParams {
    pub epsilon: Epsilon,
    /// How many (fake, real) comparisons one avoided suppression is worth (the paper's default 5000).
    pub suppression_cost: f64,
    /// B's number of records (public), so E\[Y\] = b_records / n_blocks.
    pub b_records: u64,
}

impl ReleaseParams {
    pub fn new(epsilon: f64, suppression_cost: f64, b_records: u64) -> Result<Self, Error> {
        let epsilon = Epsilon::new(epsilon)?;
        if !(suppression_cost.is_finite() && suppression_cost > 0.0 && suppression_cost <= 1e12) {
            return Err(Error::Parameter(format!(
                "the suppression cost w_n must be in (0, 1e12], got {suppression_cost}"
            )));
        }
        if b_records == 0 {
            return Err(Error::Parameter("B's record count must be positive".into()));
        }
        Ok(ReleaseParams { epsilon, suppression_cost, b_records })
    }
}

/// The paper's optimal mean μ of Lap(μ, b) for the weighted cost, both branches.
pub fn continuous_shift(b: f64, mean_block: f64, w_n: f64) -> f64 {
    if w_n >= mean_block {
        -b * (2.0 * mean_block / (mean_block + w_n)).ln()
    } else {
        b * (2.0 * w_n / (w_n + mean_block)).ln()
    }
}

/// The expected cost w_n·E[max(0, −(m+Z))] + E\[Y\]·E[max(0, m+Z)] under the
/// discrete Laplace pmf (summed to a tail below 1e-16).
fn discrete_cost(mech: &DiscreteLaplace, m: i64, mean_block: f64, w_n: f64) -> f64 {
    let p = (-mech.epsilon().as_f64() / SENSITIVITY as f64).exp();
    let k = ((-37.0) / p.ln()).ceil().min(1e7) as i64;
    let mut cost = 0.0;
    for z in -k..=k {
        let x = m + z;
        let w = mech.pmf(z);
        cost += w * if x < 0 { w_n * (-x) as f64 } else { mean_block * x as f64 };
    }
    cost
}

/// The integer shift m for the discrete noise, and the continuous μ it rounds.
pub fn shift(params: &ReleaseParams, n_blocks: usize) -> Result<(i64, f64), Error> {
    let mech = DiscreteLaplace::new(params.epsilon, SENSITIVITY)?;
    let mean_block = params.b_records as f64 / n_blocks.max(1) as f64;
    let mu = continuous_shift(mech.scale(), mean_block, params.suppression_cost);
    let centre = mu.round() as i64;
    let best = (centre - 3..=centre + 3)
        .map(|m| (m, discrete_cost(&mech, m, mean_block, params.suppression_cost)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(centre, |(m, _)| m);
    Ok((best, mu))
}

/// One released slot: a real record (its index in A's data) or a fake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slot {
    Real(usize),
    Fake,
}

/// What A alone learns of its release: never sent to B or C.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReleaseReport {
    pub epsilon: f64,
    /// The noise scale b = S(Q)/ε.
    pub scale: f64,
    /// The paper's continuous μ and the integer shift used.
    pub mu: f64,
    pub shift: i64,
    pub fakes: usize,
    /// A's records suppressed (indices into A's data), ascending.
    pub suppressed: Vec<usize>,
    /// Whether the noise came from the secure generator (false: a seeded run, NOT private).
    pub private: bool,
}

/// The noisy blocks: for every block, the slots in release order.
#[derive(Debug, Clone, PartialEq)]
pub struct Release {
    pub blocks: Vec<Vec<Slot>>,
    pub report: ReleaseReport,
}

impl Release {
    /// The released block sizes (what B sees).
    pub fn sizes(&self) -> Vec<usize> {
        self.blocks.iter().map(Vec::len).collect()
    }
}

/// Releases A's blocks: `block_of[i]` is record i's block in 0..n_blocks. Charges
/// ε to `ledger` first (refused past the budget).
pub fn release(
    block_of: &[usize],
    n_blocks: usize,
    params: &ReleaseParams,
    ledger: &mut BudgetLedger,
    rng: &mut Randomness,
) -> Result<Release, Error> {
    if let Some(&b) = block_of.iter().find(|&&b| b >= n_blocks) {
        return Err(Error::Parameter(format!("block {b} is outside the model's {n_blocks} blocks")));
    }
    let mech = DiscreteLaplace::new(params.epsilon, SENSITIVITY)?;
    let (m, mu) = shift(params, n_blocks)?;
    ledger.charge(MECHANISM, params.epsilon)?;
    let mut members = vec![Vec::new(); n_blocks];
    for (i, &b) in block_of.iter().enumerate() {
        members[b].push(i);
    }
    let (mut fakes, mut suppressed) = (0usize, Vec::new());
    let blocks = members
        .into_iter()
        .map(|mut recs| {
            let noise = m.saturating_add(mech.sample(rng));
            let mut slots: Vec<Slot>;
            if noise >= 0 {
                slots = recs.into_iter().map(Slot::Real).collect();
                let add = usize::try_from(noise).unwrap_or(usize::MAX).min(u32::MAX as usize);
                slots.extend(std::iter::repeat_n(Slot::Fake, add));
                fakes += add;
            } else {
                rng.shuffle(&mut recs);
                let drop = (noise.unsigned_abs() as usize).min(recs.len());
                suppressed.extend(recs.drain(..drop));
                slots = recs.into_iter().map(Slot::Real).collect();
            }
            rng.shuffle(&mut slots);
            slots
        })
        .collect();
    suppressed.sort_unstable();
    let report = ReleaseReport {
        epsilon: params.epsilon.as_f64(),
        scale: mech.scale(),
        mu,
        shift: m,
        fakes,
        suppressed,
        private: rng.is_private(),
    };
    Ok(Release { blocks, report })
}
