/// Euclidean distance, accumulated in f64 in coordinate order. Every matcher
/// decides `distance(a, b) <= th` with this function, so brute force and the
/// index agree even on ties at the threshold.
#[inline]
pub fn distance(a: &[f32], b: &[f32]) -> f64 {
    squared(a, b).sqrt()
}

#[inline]
fn squared(a: &[f32], b: &[f32]) -> f64 {
    let mut s = 0.0f64;
    for (x, y) in a.iter().zip(b) {
        let d = *x as f64 - *y as f64;
        s += d * d;
    }
    s
}

/// Lanes of the pre-check: eight independent f32 sums, which the compiler
/// vectorizes (the exact sum above is one chain of dependent f64 additions).
const LANES: usize = 8;

/// Whether the exact squared distance (`distance(a, b)²`, as [`distance`]
/// sums it) may be at most `limit`: `false` only when it is certainly above.
/// A sound pre-check, so a matcher that skips the pairs it rejects decides
/// exactly as [`distance`] alone would: the dense matchers of keyed batches
/// compare most pairs and reject nearly all of them, and this check is about
/// twenty times cheaper than the exact sum.
///
/// **Why it is sound.** Each lane sums m = ⌈n/8⌉ non-negative f32 terms
/// fl(fl(x − y)²); with u = 2⁻²⁴ each term is within (1 + u)³ of (x − y)² and
/// a sequential sum of m non-negative terms within γ_m = m·u/(1 − m·u) of the
/// exact sum (Higham, Accuracy and Stability of Numerical Algorithms, §3.1 and
/// Lemma 3.1), so the approximation s̃ ≤ (1 + γ)·s with γ = (m + 4)·u·2 (a
/// factor 2 of slack), where s is the exact real sum; underflow to subnormals
/// adds at most 2⁻¹⁴⁹ per operation (bounded below by `tiny`). The exact f64
/// sum ŝ ≥ (1 − γ₆₄)·s with γ₆₄ = (n + 4)·2⁻⁵³·2. So s̃ − tiny > limit·(1 + γ)
/// /(1 − γ₆₄) gives s > limit/(1 − γ₆₄) and ŝ > limit. A non-finite s̃ (an
/// f32 overflow of huge inputs) rejects nothing. Checked against the exact sum
/// by `tests::never_rejects_a_pair_within_the_limit`.
#[inline]
pub fn may_be_within(a: &[f32], b: &[f32], limit: f64) -> bool {
    let mut lanes = [0.0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        // fixed-size arrays: no bounds checks, one vector operation per lane group
        let (x, y): (&[f32; LANES], &[f32; LANES]) =
            (x.try_into().unwrap_or(&[0.0; LANES]), y.try_into().unwrap_or(&[0.0; LANES]));
        for l in 0..LANES {
            let d = x[l] - y[l];
            lanes[l] += d * d;
        }
    }
    let mut s = 0.0f64;
    for l in lanes {
        s += l as f64;
    }
    for (x, y) in ra.iter().zip(rb) {
        let d = *x as f64 - *y as f64;
        s += d * d;
    }
    if !s.is_finite() {
        return true;
    }
    let n = a.len() as f64;
    let m = (a.len() / LANES + 1) as f64;
    let u = f32::EPSILON as f64 / 2.0;
    let gamma = 2.0 * (m + 4.0) * u / (1.0 - 2.0 * (m + 4.0) * u);
    let gamma64 = 2.0 * (n + 4.0) * f64::EPSILON / 2.0;
    let tiny = (n + LANES as f64) * f64::from(f32::from_bits(1)) * 4.0;
    s - tiny <= limit * (1.0 + gamma) / (1.0 - gamma64)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn vector(len: usize) -> impl Strategy<Value = Vec<f32>> {
        prop::collection::vec(
            prop_oneof![Just(0.0f32), -4.0f32..4.0, -1e-20f32..1e-20, -1e15f32..1e15, (0u8..5).prop_map(f32::from)],
            len,
        )
    }

    proptest! {
        /// At the exact sum itself (the tightest limit a pair can meet), and
        /// just below it, the pre-check never rejects a pair that [`distance`]
        /// keeps; far above, it rejects.
        #[test]
        fn never_rejects_a_pair_within_the_limit((a, b) in (0usize..1100).prop_flat_map(|n| (vector(n), vector(n)))) {
            let exact = squared(&a, &b);
            prop_assert!(may_be_within(&a, &b, exact));
            prop_assert!(may_be_within(&a, &b, f64::INFINITY));
            if exact > 1e-12 && exact.is_finite() {
                prop_assert!(!may_be_within(&a, &b, exact / 2.0), "a pair twice the limit is rejected");
            }
        }
    }

    #[test]
    fn rejects_the_far_pairs_of_count_vectors() {
        let a: Vec<f32> = (0..1024).map(|i| (i % 3) as f32 * 0.5).collect();
        let b: Vec<f32> = (0..1024).map(|i| ((i + 1) % 3) as f32 * 0.5).collect();
        let exact = squared(&a, &b);
        assert!(may_be_within(&a, &b, exact) && !may_be_within(&a, &b, exact * 0.999));
    }
}
