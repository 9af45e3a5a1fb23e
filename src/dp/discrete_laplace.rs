//! Exact discrete-Laplace (two-sided geometric) noise.
//!
//! For a rate r = ε/Δ, [`DiscreteLaplace`] samples Z with P(Z = z) ∝ exp(−r·|z|) over
//! the integers. Adding Z to an integer query of L1 sensitivity Δ is ε-DP: for
//! neighbouring inputs the query moves by at most Δ, and for every output z,
//! P(f(D)+Z = z) / P(f(D')+Z = z) = exp(−r(|z−f(D)| − |z−f(D')|)) ≤ exp(r·Δ) = exp(ε)
//! by the triangle inequality. This is the pmf's own ratio, so it holds exactly
//! only if the sampler is exact: every step below is integer arithmetic on
//! rationals (Canonne, Kamath, Steinke, "The discrete Gaussian for differential
//! privacy", NeurIPS 2020, Algorithms 1–2; opendp's `samplers::cks20` does the same),
//! with uniform integers from [`Randomness`] by rejection. No floating point
//! touches a released value.

use super::epsilon::Epsilon;
use super::rng::Randomness;
use crate::error::DpError;

/// Samples Bernoulli(exp(−γ)) for the rational γ = `num / den` ≥ 0, exactly.
///
/// For γ ∈ [0, 1]: draw A_k ~ Bernoulli(γ/k) for k = 1, 2, … until one fails; the
/// number of successes K satisfies P(K odd) = exp(−γ) (CKS Algorithm 1). For γ > 1,
/// exp(−γ) = exp(−1)^⌊γ⌋ · exp(−(γ − ⌊γ⌋)).
pub fn sample_bernoulli_exp(num: u128, den: u128, rng: &mut Randomness) -> bool {
    debug_assert!(den > 0);
    let whole = num / den;
    for _ in 0..whole {
        if !bernoulli_exp_le1(1, 1, rng) {
            return false;
        }
    }
    bernoulli_exp_le1(num % den, den, rng)
}

/// Bernoulli(exp(−num/den)) for num ≤ den.
fn bernoulli_exp_le1(num: u128, den: u128, rng: &mut Randomness) -> bool {
    let mut k: u128 = 1;
    loop {
        // Bernoulli(γ / k) = P(U < num) for U uniform in [0, den·k)
        if rng.below_u128(den * k) < num {
            k += 1;
        } else {
            return k % 2 == 1;
        }
    }
}

/// Samples Y ≥ 0 with P(Y = y) ∝ exp(−y·s/t), exactly (CKS Algorithm 2's geometric
/// part): X = U + t·V with U uniform in [0, t) accepted with probability exp(−U/t)
/// and V ~ Geometric(exp(−1)); then Y = ⌊X / s⌋.
fn sample_geometric_exp(s: u128, t: u128, rng: &mut Randomness) -> u128 {
    let u = loop {
        let u = rng.below_u128(t);
        if sample_bernoulli_exp(u, t, rng) {
            break u;
        }
    };
    let mut v: u128 = 0;
    while sample_bernoulli_exp(1, 1, rng) {
        v += 1;
    }
    (u + t * v) / s
}

/// Samples Z with P(Z = z) ∝ exp(−|z|·s/t) over the integers (rate s/t > 0).
pub fn sample_discrete_laplace(s: u128, t: u128, rng: &mut Randomness) -> i64 {
    loop {
        let negative = rng.bit();
        let y = sample_geometric_exp(s, t, rng);
        if negative && y == 0 {
            // zero would otherwise be counted twice
            continue;
        }
        let y = y.min(i64::MAX as u128) as i64;
        return if negative { -y } else { y };
    }
}

/// The discrete-Laplace mechanism for an integer query of sensitivity Δ at ε.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscreteLaplace {
    epsilon: Epsilon,
    sensitivity: u64,
    // rate r = ε/Δ = s/t in lowest terms up to powers of two
    s: u128,
    t: u128,
}

impl DiscreteLaplace {
    /// Noise for a query whose value changes by at most `sensitivity` (in L1) between
    /// neighbouring datasets, spending `epsilon`.
    pub fn new(epsilon: Epsilon, sensitivity: u64) -> Result<Self, DpError> {
        if epsilon.is_zero() {
            return Err(DpError::InvalidParameter("discrete Laplace needs epsilon > 0".into()));
        }
        if sensitivity == 0 || sensitivity > 1 << 24 {
            return Err(DpError::InvalidParameter(format!("sensitivity must be in 1..=2^24, got {sensitivity}")));
        }
        let (num, den) = epsilon.as_fraction();
        Ok(DiscreteLaplace { epsilon, sensitivity, s: num, t: den * sensitivity as u128 })
    }

    pub fn epsilon(&self) -> Epsilon {
        self.epsilon
    }

    pub fn sensitivity(&self) -> u64 {
        self.sensitivity
    }

    /// The noise scale Δ/ε (the `b` of Laplace(b)), for reporting.
    pub fn scale(&self) -> f64 {
        self.t as f64 / self.s as f64
    }

    /// One noise draw.
    pub fn sample(&self, rng: &mut Randomness) -> i64 {
        sample_discrete_laplace(self.s, self.t, rng)
    }

    /// `value` plus one noise draw (saturating).
    pub fn release(&self, value: i64, rng: &mut Randomness) -> i64 {
        value.saturating_add(self.sample(rng))
    }

    /// The exact pmf P(Z = z) = (1−p)/(1+p) · p^|z|, p = exp(−ε/Δ), in floating point,
    /// for tests and for reporting only.
    pub fn pmf(&self, z: i64) -> f64 {
        let p = (-(self.s as f64) / self.t as f64).exp();
        (1.0 - p) / (1.0 + p) * p.powf(z.unsigned_abs() as f64)
    }

    /// Standard deviation of the noise, sqrt(2p)/(1−p), for reporting.
    pub fn std_dev(&self) -> f64 {
        let p = (-(self.s as f64) / self.t as f64).exp();
        (2.0 * p).sqrt() / (1.0 - p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chi-square goodness of fit of `n` draws against the exact pmf, pooling the
    /// tails so every cell expects at least 20 draws. Returns (statistic, degrees of
    /// freedom).
    fn chi_square(mech: &DiscreteLaplace, n: usize, seed: u64) -> (f64, usize) {
        let mut rng = Randomness::seeded(seed);
        let mut counts = std::collections::BTreeMap::<i64, usize>::new();
        for _ in 0..n {
            *counts.entry(mech.sample(&mut rng)).or_default() += 1;
        }
        // central cells [-m, m] with expectation >= 20, then two tail cells
        let mut m = 0i64;
        while mech.pmf(m + 1) * n as f64 >= 20.0 {
            m += 1;
        }
        let mut stat = 0.0;
        let mut cells = 0;
        let mut tail_p = 1.0;
        for z in -m..=m {
            let e = mech.pmf(z) * n as f64;
            tail_p -= mech.pmf(z);
            let o = *counts.get(&z).unwrap_or(&0) as f64;
            stat += (o - e).powi(2) / e;
            cells += 1;
        }
        let tail_o = counts.iter().filter(|(z, _)| z.abs() > m).map(|(_, c)| *c).sum::<usize>() as f64;
        let tail_e = tail_p.max(0.0) * n as f64;
        if tail_e >= 5.0 {
            stat += (tail_o - tail_e).powi(2) / tail_e;
            cells += 1;
        }
        (stat, cells - 1)
    }

    /// Upper 0.999 quantile of chi-square with `df` degrees of freedom
    /// (Wilson–Hilferty approximation, accurate to well under 1% for df >= 3).
    fn chi_square_q999(df: usize) -> f64 {
        let k = df as f64;
        let z = 3.090_232;
        k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
    }

    #[test]
    fn matches_exact_pmf_for_several_scales() {
        for (eps, sens, seed) in [(1.0, 1, 1u64), (0.5, 1, 2), (0.1, 1, 3), (2.0, 3, 4), (0.0333, 1, 5)] {
            let mech = DiscreteLaplace::new(Epsilon::new(eps).unwrap(), sens).unwrap();
            let (stat, df) = chi_square(&mech, 200_000, seed);
            assert!(df >= 3, "too few cells for eps {eps}");
            assert!(stat < chi_square_q999(df), "eps {eps} sens {sens}: chi2 {stat} with {df} df");
        }
    }

    #[test]
    fn detects_a_wrong_scale() {
        // the same test must reject draws from a different distribution: sample at
        // eps 0.5 and test against the pmf at eps 0.4
        let right = DiscreteLaplace::new(Epsilon::new(0.5).unwrap(), 1).unwrap();
        let wrong = DiscreteLaplace::new(Epsilon::new(0.4).unwrap(), 1).unwrap();
        let mut rng = Randomness::seeded(9);
        let n = 200_000;
        let mut counts = std::collections::HashMap::<i64, usize>::new();
        for _ in 0..n {
            *counts.entry(right.sample(&mut rng)).or_default() += 1;
        }
        let mut stat = 0.0;
        for z in -8..=8 {
            let e = wrong.pmf(z) * n as f64;
            let o = *counts.get(&z).unwrap_or(&0) as f64;
            stat += (o - e).powi(2) / e;
        }
        assert!(stat > chi_square_q999(16) * 10.0, "chi2 {stat}");
    }

    #[test]
    fn mean_and_variance() {
        let mech = DiscreteLaplace::new(Epsilon::new(0.2).unwrap(), 1).unwrap();
        let mut rng = Randomness::seeded(11);
        let n = 100_000;
        let xs: Vec<f64> = (0..n).map(|_| mech.sample(&mut rng) as f64).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        let sd = mech.std_dev();
        assert!(mean.abs() < 5.0 * sd / (n as f64).sqrt(), "mean {mean}");
        assert!((var.sqrt() / sd - 1.0).abs() < 0.02, "sd {} vs {sd}", var.sqrt());
    }

    #[test]
    fn bernoulli_exp_frequency() {
        let mut rng = Randomness::seeded(5);
        for (num, den) in [(1u128, 3u128), (1, 1), (7, 2), (0, 1)] {
            let p = (-(num as f64) / den as f64).exp();
            let n = 100_000;
            let hits = (0..n).filter(|_| sample_bernoulli_exp(num, den, &mut rng)).count() as f64;
            let sd = (p * (1.0 - p) / n as f64).sqrt().max(1e-9);
            assert!(((hits / n as f64) - p).abs() < 5.0 * sd + 1e-9, "{num}/{den}: {hits}");
        }
    }

    #[test]
    fn seeded_draws_are_reproducible() {
        let mech = DiscreteLaplace::new(Epsilon::new(0.1).unwrap(), 1).unwrap();
        let a: Vec<i64> = {
            let mut r = Randomness::seeded(42);
            (0..50).map(|_| mech.sample(&mut r)).collect()
        };
        let b: Vec<i64> = {
            let mut r = Randomness::seeded(42);
            (0..50).map(|_| mech.sample(&mut r)).collect()
        };
        assert_eq!(a, b);
    }

    #[test]
    fn rejects_bad_parameters() {
        assert!(DiscreteLaplace::new(Epsilon::zero(), 1).is_err());
        assert!(DiscreteLaplace::new(Epsilon::ONE, 0).is_err());
    }
}
