//! The q-gram lemma's lower bound on the edit distance of two values, from
//! their vectors' gram counts: computed on dense vectors here, and on sparse
//! rows by [`super::sparse_rows::compare`] in the same merge as the distance.

/// A lower bound on the edit distance of two unkeyed vectors: per gram
/// length L, one edit changes the occurrence counts (`value · L`) by at most
/// 2L in all (the q-gram lemma, [`crate::matching::scored_match`]), so
/// `ed ≥ ⌈Σ|n_a − n_b| / 2L⌉`; over a complete class the window counts
/// differ by at most one per edit, so also `ed ≥ |N_a − N_b|`.
pub fn qgram_bound(a: &[f32], b: &[f32], lengths: &[u8], complete: &[bool]) -> u32 {
    let mut diff = [0i64; 33];
    let mut total = [0i64; 33];
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        let l = lengths[i] as usize;
        let (na, nb) = ((x as f64 * l as f64).round() as i64, (y as f64 * l as f64).round() as i64);
        diff[l] += (na - nb).abs();
        if complete[i] {
            total[l] += na - nb;
        }
    }
    bound_of(&diff, &total)
}

/// The bound from per-length count differences and window-total differences.
pub(super) fn bound_of(diff: &[i64; 33], total: &[i64; 33]) -> u32 {
    let mut bound = 0i64;
    for l in 1..33 {
        bound = bound.max((diff[l] + 2 * l as i64 - 1) / (2 * l as i64)).max(total[l].abs());
    }
    bound.min(u32::MAX as i64) as u32
}
