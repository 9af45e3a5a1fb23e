//! The keyed rotation (`keyed-v1`, not the default: docs/THREAT_MODEL.md):
//! a keyed random orthogonal map of a shared base's vectors.

use super::key::{below, invalid_key, Key, MAX_DIM};
use crate::embed::Vectors;
use crate::error::Error;
use hkdf::Hkdf;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use sha2::Sha256;

/// Prefix of a keyed batch's `transform` label (the rest is the check value).
pub const LABEL_PREFIX: &str = "keyed-v1:";

/// The keyed rotation of one shared base's vectors.
#[derive(Debug, Clone)]
pub struct Transform {
    dim: usize,
    n: usize,
    /// Input coordinate i goes to output position `perm[i]` with sign `sign[i]`.
    pub(super) perm: Vec<u32>,
    sign: Vec<f64>,
    /// The three sign diagonals, applied before each Hadamard round.
    diag: [Vec<f64>; 3],
    scale: f64,
    label: String,
}

/// Random ±1.
fn sign(rng: &mut ChaCha20Rng) -> f64 {
    if rng.next_u32() & 1 == 0 {
        1.0
    } else {
        -1.0
    }
}

/// In-place unnormalized fast Walsh–Hadamard transform (`v.len()` a power of two).
fn fwht(v: &mut [f64]) {
    let n = v.len();
    let mut h = 1;
    while h < n {
        for block in v.chunks_mut(2 * h) {
            let (lo, hi) = block.split_at_mut(h);
            for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                let (a, b) = (*x, *y);
                *x = a + b;
                *y = a - b;
            }
        }
        h *= 2;
    }
}

impl Transform {
    /// The transform of `key` for vectors of dimension `dim` over the shared base
    /// with this `fingerprint`.
    pub fn new(key: &Key, fingerprint: &str, dim: usize) -> Result<Transform, Error> {
        if dim == 0 || dim > MAX_DIM {
            return Err(Error::Parameter(format!("cannot rotate vectors of dimension {dim} (1..={MAX_DIM})")));
        }
        let n = dim.next_power_of_two();
        let hk = Hkdf::<Sha256>::new(Some(fingerprint.as_bytes()), key.bytes());
        let mut seed = [0u8; 32];
        let mut check = [0u8; 16];
        // HKDF-Expand fails only for outputs over 255·32 bytes
        hk.expand(b"gramlink keyed transform v1 / rotation seed", &mut seed)
            .and_then(|_| hk.expand(b"gramlink keyed transform v1 / check value", &mut check))
            .map_err(|e| invalid_key(format!("HKDF: {e}")))?;
        let mut rng = ChaCha20Rng::from_seed(seed);
        // Fisher–Yates over all n positions: the padding coordinates are permuted too
        let mut perm: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            let j = below(&mut rng, i as u32 + 1) as usize;
            perm.swap(i, j);
        }
        let sign_p = (0..n).map(|_| sign(&mut rng)).collect();
        let diag = std::array::from_fn(|_| (0..n).map(|_| sign(&mut rng)).collect());
        Ok(Transform {
            dim,
            n,
            perm,
            sign: sign_p,
            diag,
            scale: 1.0 / (n as f64).sqrt(),
            label: format!("{LABEL_PREFIX}{}", hex::encode(check)),
        })
    }

    /// The public label written in the batch's `transform` field.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Output dimension (the input dimension padded to a power of two).
    pub fn out_dim(&self) -> usize {
        self.n
    }

    /// `R·x` in f64, `x` of the input dimension, `out` of length [`Self::out_dim`].
    pub fn apply_f64(&self, x: &[f32], out: &mut [f64]) {
        out.iter_mut().for_each(|o| *o = 0.0);
        for (i, &v) in x.iter().enumerate().take(self.dim) {
            out[self.perm[i] as usize] = self.sign[i] * v as f64;
        }
        for d in &self.diag {
            for (o, s) in out.iter_mut().zip(d) {
                *o *= s;
            }
            fwht(out);
            for o in out.iter_mut() {
                *o *= self.scale;
            }
        }
    }

    /// Rotates every vector (rows of the input dimension) into a new batch of
    /// dimension [`Self::out_dim`], each coordinate rounded once to f32.
    pub fn apply(&self, v: &Vectors) -> Result<Vectors, Error> {
        self.check_dim(v.dim)?;
        let mut data = Vec::with_capacity(v.len() * self.n);
        let mut buf = vec![0.0f64; self.n];
        for r in 0..v.len() {
            self.apply_f64(v.row(r), &mut buf);
            data.extend(buf.iter().map(|&x| x as f32));
        }
        Ok(Vectors { dim: self.n, data })
    }
}

impl Transform {
    /// Refuses vectors of another dimension than the transform's.
    fn check_dim(&self, dim: usize) -> Result<(), Error> {
        if dim != self.dim {
            return Err(Error::Parameter(format!(
                "the transform is for dimension {}, the vectors have {dim}",
                self.dim
            )));
        }
        Ok(())
    }

    /// [`Self::apply`] of sparse rows, densified one row at a time: the
    /// unrotated vectors are never all dense at once (the keyed batch of 2 M
    /// records is then one dense copy, not two).
    pub fn apply_sparse(&self, v: &crate::sparse_vectors::SparseVectors) -> Result<Vectors, Error> {
        self.check_dim(v.dim)?;
        let mut data = Vec::with_capacity(v.len() * self.n);
        let mut row = vec![0.0f32; self.dim];
        let mut buf = vec![0.0f64; self.n];
        for r in 0..v.len() {
            let (ids, values) = v.row(r);
            for (&i, &x) in ids.iter().zip(values) {
                row[i as usize] = x;
            }
            self.apply_f64(&row, &mut buf);
            data.extend(buf.iter().map(|&x| x as f32));
            for &i in ids {
                row[i as usize] = 0.0;
            }
        }
        Ok(Vectors { dim: self.n, data })
    }
}
