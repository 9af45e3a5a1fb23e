//! Budget allocation over the levels of the prefix tree (paper 5.2.1), and θ.
//!
//! Level i (1-based: the root's children are level 1) gets ε_i; a root-to-leaf path
//! spends at most Σ_i ε_i, and siblings partition the records (parallel
//! composition), so the tree is (Σ_i ε_i)-DP. Every schedule here sums to at most
//! ε *exactly* (amounts are [`Epsilon`] units, shares rounded down):
//!
//! - linear: ε_i = ε/h;
//! - exponential: ε_i = ε·2^(i−1)/(2^h − 1), doubling per level and summing to ε
//!   (the paper's ε_0 = ε/(2^(h+1) − 1) spends only about ε/2 on a path);
//! - adaptive: the exponential schedule, plus the adaptive rule of
//!   [`super::prefix_tree`] (a non-frequent node's children get all that remains);
//! - hybrid: half of ε over the first q_max levels in proportion to the level,
//!   ε_i = ε·i/(q_max(q_max+1)) for i ≤ q_max (Σ = ε/2), and the other half
//!   exponentially over levels q_max+1..h, ε_i = (ε/2)·2^(i−q_max−1)/(2^(h−q_max) − 1)
//!   (Σ = ε/2), plus the adaptive rule. The paper's equation 7 prints (i+1) for i,
//!   which spends about 1.25ε on a path when q_max = 3: not ε-DP. When h ≤ q_max
//!   the whole ε goes to the h levels in proportion to the level.

use crate::base::Strategy;
use crate::dp::Epsilon;

/// ε_i for levels 1..=h (index 0 is level 1).
pub fn schedule(strategy: Strategy, epsilon: Epsilon, h: usize, q_max: usize) -> Vec<Epsilon> {
    assert!((1..=64).contains(&h), "tree depth out of range (validated by MineOptions)");
    match strategy {
        Strategy::Linear => vec![epsilon.div_floor(h as u64); h],
        Strategy::Exponential | Strategy::Adaptive => exponential(epsilon, 1, h),
        Strategy::Hybrid => {
            if h <= q_max {
                return proportional(epsilon, h);
            }
            let half = epsilon.div_floor(2);
            let mut v = proportional(half, q_max);
            v.extend(exponential(half, q_max + 1, h));
            v
        }
    }
}

/// ε·i / (n(n+1)/2) for i = 1..=n.
fn proportional(epsilon: Epsilon, n: usize) -> Vec<Epsilon> {
    let total = (n * (n + 1) / 2) as u64;
    (1..=n).map(|i| epsilon.mul_ratio_floor(i as u64, total)).collect()
}

/// ε·2^(i−from)/(2^(to−from+1) − 1) for i = from..=to.
fn exponential(epsilon: Epsilon, from: usize, to: usize) -> Vec<Epsilon> {
    let n = to - from + 1;
    // 2^n − 1 overflows u64 only for n = 64, which `schedule` excludes below 64 levels
    let den = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    (0..n).map(|j| epsilon.mul_ratio_floor(1u64 << j.min(63), den)).collect()
}

/// θ for a query answered with budget ε_i: twice the standard deviation of
/// Laplace(1/ε_i), θ = 2√2/ε_i — the choice of Chen, Fung, Desai and Sossou
/// (KDD 2012) for deciding that a noisy count stands for an empty partition. The
/// discrete Laplace of the same ε has a slightly smaller deviation, so this θ is
/// a little more conservative. Data-independent.
pub fn theta(eps_i: Epsilon) -> f64 {
    2.0 * std::f64::consts::SQRT_2 / eps_i.as_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(v: &[Epsilon]) -> u64 {
        v.iter().map(|e| e.units()).sum()
    }

    #[test]
    fn every_schedule_sums_to_at_most_epsilon() {
        for eps in [0.01, 0.1, 0.5, 1.0, 3.0] {
            let e = Epsilon::new(eps).unwrap();
            for h in 1..=20 {
                for q in 1..=5 {
                    for s in Strategy::ALL {
                        let v = schedule(s, e, h, q);
                        assert_eq!(v.len(), h);
                        assert!(sum(&v) <= e.units(), "{s:?} h={h} q={q}");
                        // and wastes at most a few units to rounding
                        assert!(e.units() - sum(&v) <= 2 * h as u64 + 2, "{s:?} h={h} q={q}");
                    }
                }
            }
        }
    }

    #[test]
    fn hybrid_puts_half_on_the_first_qmax_levels() {
        let e = Epsilon::ONE;
        let v = schedule(Strategy::Hybrid, e, 7, 3);
        let first: f64 = v[..3].iter().map(|x| x.as_f64()).sum();
        assert!((first - 0.5).abs() < 1e-9);
        assert!((v[0].as_f64() - 1.0 / 12.0).abs() < 1e-9);
        assert!(v[4] > v[3] && v[6] > v[5]);
    }

    #[test]
    fn exponential_doubles() {
        let v = schedule(Strategy::Exponential, Epsilon::ONE, 5, 3);
        for w in v.windows(2) {
            assert!((w[1].as_f64() / w[0].as_f64() - 2.0).abs() < 1e-9);
        }
    }
}
