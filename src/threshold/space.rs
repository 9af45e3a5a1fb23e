//! The coordinates a threshold bounds distances in: the base's grams, or
//! buckets that each sum grams of one length (the keyed sketch of
//! [`crate::keyed`]).

use crate::error::Error;

/// The coordinates of the vectors the thresholds are for.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Space {
    /// One coordinate per base gram (unkeyed vectors, and the rotation, which
    /// keeps every distance).
    #[default]
    Grams,
    /// `bucket[g]` is the coordinate gram `g` of the base is counted in; the
    /// grams of a bucket share one length, and a bucket sums at most `spread`
    /// of them.
    Buckets { bucket: Vec<u32>, spread: u32 },
}

impl Space {
    /// What a bound on base distances is multiplied by to bound distances in
    /// this space: 1 for the grams, `√spread` for buckets.
    ///
    /// **Proof.** Every bound here (a global one, or the sound one, step 1 of
    /// [`super::Thresholder::sound`]) bounds `‖r'‖² + ‖a'‖²`, with
    /// `Δ = r' − a'` the difference of the two vectors and `r', a' ≥ 0` the
    /// removed and added windows, each divided by its length. Summing into
    /// buckets is linear, `SΔ = Sr' − Sa'`, so
    /// `‖SΔ‖² ≤ ‖Sr'‖² + ‖Sa'‖²` (the cross term `−2⟨Sr', Sa'⟩ ≤ 0`). A bucket
    /// sums at most `spread` coordinates, so by Cauchy–Schwarz
    /// `(Σ_{g∈b} r'_g)² ≤ spread · Σ_{g∈b} r'_g²`, and over the buckets
    /// `‖Sr'‖² ≤ spread·‖r'‖²`; likewise for `a'`. Hence `‖SΔ‖ ≤ √spread · t`. ∎
    ///
    /// The sound mode does better ([`super::Thresholder::in_space`]): it runs
    /// its proof on the buckets themselves.
    pub fn factor(&self) -> f64 {
        match self {
            Space::Grams => 1.0,
            Space::Buckets { spread, .. } => (*spread as f64).sqrt(),
        }
    }

    /// The coordinate of each of the base's grams (of lengths `len`), the
    /// length of each coordinate, and `w` of each coordinate: the most
    /// windows of any string in it that contain one position, from `w_g` of
    /// each gram (`w`): `min(q, Σ_{g∈b} w_g)` (the windows of length q that
    /// hold one position are q; each gram of the bucket adds at most its own
    /// `w_g` of them).
    ///
    /// Errors (`Error::Parameter`) if the space does not fit the base: another
    /// number of grams, a bucket of grams of two lengths, or an empty bucket.
    pub(super) fn units(&self, len: &[usize], w: &[u32]) -> Result<Units, Error> {
        let Space::Buckets { bucket, .. } = self else {
            return Ok(Units { of: (0..len.len() as u32).collect(), len: len.to_vec(), w: w.to_vec() });
        };
        if bucket.len() != len.len() {
            return Err(Error::Parameter(format!(
                "the encoding's buckets are for {} grams, the shared base has {}",
                bucket.len(),
                len.len()
            )));
        }
        let n = bucket.iter().max().map_or(0, |&b| b as usize + 1);
        let (mut unit_len, mut unit_w) = (vec![0usize; n], vec![0u32; n]);
        for (g, &b) in bucket.iter().enumerate() {
            let b = b as usize;
            if unit_len[b] != 0 && unit_len[b] != len[g] {
                return Err(Error::Parameter(format!(
                    "bucket {b} holds grams of lengths {} and {}",
                    unit_len[b], len[g]
                )));
            }
            unit_len[b] = len[g];
            unit_w[b] = (unit_w[b] + w[g]).min(len[g] as u32);
        }
        if let Some(b) = unit_len.iter().position(|&l| l == 0) {
            return Err(Error::Parameter(format!("bucket {b} of the encoding holds no gram")));
        }
        Ok(Units { of: bucket.clone(), len: unit_len, w: unit_w })
    }
}

/// The coordinates of a [`Space`] over one base: see [`Space::units`].
pub(super) struct Units {
    /// The coordinate of each gram.
    pub of: Vec<u32>,
    /// The gram length of each coordinate.
    pub len: Vec<usize>,
    /// `w` of each coordinate.
    pub w: Vec<u32>,
}
