//! The orthogonal Procrustes fit: from decoded (plaintext, received) pairs,
//! the orthogonal map that best sends the plaintext vectors onto the rows C
//! received (least squares: `R = U·Vᵀ` of the SVD `U·Σ·Vᵀ` of the
//! cross-covariance `Σ y·xᵀ`). On a keyed batch it is the rotation itself on
//! the span of the pairs: C can then un-rotate any row and read it as an
//! unkeyed one ([`super::reconstruct`]).

use super::algebra::{Plain, Rows};
use crate::dp::Randomness;
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// Rows the held-out check reads at most.
pub const HELD_OUT: usize = 2_000;

/// How well a fit on decoded pairs predicts rows it was not fitted on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FitReport {
    /// Decoded pairs fitted on.
    pub pairs: usize,
    /// Distinct rows outside the fit, decoded or not (at most [`HELD_OUT`]).
    pub held_out: usize,
    /// Mean and least `|cos|` between the fit's image of a held-out row's
    /// true plaintext and the row received.
    pub mean_abs_cos: f64,
    pub min_abs_cos: f64,
}

/// A fitted map from plaintext coordinates (`d`) to received ones (`n`).
pub struct Fit {
    /// `n × d`, orthonormal columns on the span of the pairs.
    r: DMatrix<f64>,
}

/// Fits the map on the pairs `(row, public vector)`; `None` without pairs.
pub fn fit(rows: &Rows, plain: &Plain, pairs: &[(u32, u32)]) -> Option<Fit> {
    if pairs.is_empty() {
        return None;
    }
    let (n, d) = (rows.vectors.dim, plain.vectors.dim);
    let mut m = DMatrix::<f64>::zeros(n, d);
    for &(g, p) in pairs {
        let y = dense_row(rows, g as usize);
        let (cols, vals) = plain.vectors.row(p as usize);
        for (&c, &x) in cols.iter().zip(vals) {
            let mut col = m.column_mut(c as usize);
            for (k, &yk) in y.iter().enumerate() {
                col[k] += yk * x as f64;
            }
        }
    }
    let svd = m.svd(true, true);
    let (u, v_t) = (svd.u?, svd.v_t?);
    Some(Fit { r: u * v_t })
}

/// Fits on a random 80 % of the decoded rows and checks the fit on the
/// other rows (`truth(g)`: row `g`'s true plaintext, sparse, for scoring).
pub fn fit_held_out(
    rows: &Rows,
    plain: &Plain,
    decoded: &[Option<u32>],
    truth: &(dyn Fn(usize) -> Vec<(usize, f32)> + Sync),
    rng: &mut Randomness,
) -> (Option<Fit>, FitReport) {
    let perm = rng.permutation(rows.len());
    let pairs: Vec<(u32, u32)> = perm.iter().filter_map(|&g| decoded[g].map(|p| (g as u32, p))).collect();
    let fitted = pairs.len() * 4 / 5;
    let Some(f) = fit(rows, plain, &pairs[..fitted]) else {
        return (None, FitReport::default());
    };
    let used: std::collections::HashSet<u32> = pairs[..fitted].iter().map(|&(g, _)| g).collect();
    let held: Vec<usize> = perm.into_iter().filter(|&g| !used.contains(&(g as u32))).take(HELD_OUT).collect();
    let cos = crate::par::map(&held, |&g| {
        let x = truth(g);
        let (cols, vals): (Vec<u32>, Vec<f32>) = x.iter().map(|&(c, v)| (c as u32, v)).unzip();
        abs_cos(&f.rotate(&cols, &vals), &dense_row(rows, g))
    });
    let report = FitReport {
        pairs: fitted,
        held_out: held.len(),
        mean_abs_cos: cos.iter().sum::<f64>() / cos.len().max(1) as f64,
        min_abs_cos: if cos.is_empty() { 0.0 } else { cos.iter().copied().fold(f64::INFINITY, f64::min) },
    };
    (Some(f), report)
}

/// Row `g` of the received rows as a dense f64 vector.
pub fn dense_row(rows: &Rows, g: usize) -> Vec<f64> {
    let mut y = vec![0.0; rows.vectors.dim];
    let (cols, vals) = rows.vectors.row(g);
    for (&c, &v) in cols.iter().zip(vals) {
        y[c as usize] = v as f64;
    }
    y
}

impl Fit {
    /// `R·x`: a plaintext vector (sparse) where the fit puts it.
    pub fn rotate(&self, cols: &[u32], vals: &[f32]) -> Vec<f64> {
        let mut y = vec![0.0; self.r.nrows()];
        for (&c, &x) in cols.iter().zip(vals) {
            for (k, yk) in y.iter_mut().enumerate() {
                *yk += self.r[(k, c as usize)] * x as f64;
            }
        }
        y
    }

    /// `Rᵀ·y`: a received row back in plaintext coordinates.
    pub fn unrotate(&self, y: &[f64]) -> Vec<f64> {
        (0..self.r.ncols()).map(|c| self.r.column(c).iter().zip(y).map(|(a, b)| a * b).sum()).collect()
    }
}

/// `|cos|` of two vectors (0 when either is zero).
pub fn abs_cos(a: &[f64], b: &[f64]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let (na, nb) = (a.iter().map(|x| x * x).sum::<f64>().sqrt(), b.iter().map(|x| x * x).sum::<f64>().sqrt());
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        (dot / (na * nb)).abs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::{BatchVectors, Vectors};
    use crate::sparse_vectors::SparseVectors;

    #[test]
    fn recovers_a_rotation_from_pairs() {
        // R: 90° in the (0, 1) plane, identity on axis 2
        let mut list = SparseVectors::new(3);
        for r in [[1.0f32, 0., 0.], [0., 1., 0.], [1., 1., 1.]] {
            list.push_row(r.iter().enumerate().map(|(c, &v)| (c as u32, v)));
        }
        let plain = Plain::new(&list);
        let data = vec![0., 1., 0., -1., 0., 0., -1., 1., 1.];
        let rows = Rows::new(&[&BatchVectors::Dense(Vectors { dim: 3, data })]);
        let f = fit(&rows, &plain, &[(0, 0), (1, 1), (2, 2)]).unwrap();
        let y = f.rotate(&[0, 2], &[2.0, 1.0]);
        for (a, b) in y.iter().zip([0.0, 2.0, 1.0]) {
            assert!((a - b).abs() < 1e-12, "{y:?}");
        }
        let x = f.unrotate(&[-1.0, 0.0, 0.0]);
        assert!((x[1] - 1.0).abs() < 1e-12 && x[0].abs() < 1e-12, "{x:?}");
        assert!((abs_cos(&y, &[0.0, -4.0, -2.0]) - 1.0).abs() < 1e-12);
    }
}
