//! The axis-recovery attack on keyed batches: C searches the rotated vectors
//! for the directions of the original gram axes, with no key.
//!
//! A keyed batch is `y = R·x` for a secret orthogonal `R` and sparse,
//! non-negative gram vectors `x`. Sparse coordinates are heavy-tailed, so a
//! direction `w` along which the centred projections `w·y` have a large fourth
//! moment is likely a gram axis `R·e_g` (independent component analysis). The
//! search is the kurtosis fixed point `w ← Σ (w·ỹ)³ ỹ` (ỹ the centred vectors),
//! normalized, from a data row as start, with deflation (each search is kept
//! orthogonal to the directions found before).
//!
//! Each search then sharpens its direction with what C knows of `x`: a
//! coordinate is a count divided by the gram's length (1, 2 or 3), so the
//! projections onto a true axis lie on a lattice. C rounds the projections to
//! the nearest lattice (the length that fits best) and solves the least-squares
//! problem `min ‖Y·w − t‖` for the rounded targets `t` (conjugate gradients),
//! twice. When the rounding is right for every record, `w` is the axis exactly.
//!
//! The experimenter knows `x`: a search counts as an axis recovered when the
//! projections correlate with some gram coordinate at `|corr| > 0.9999`. C then
//! holds that gram's count in every record, without knowing which gram it is:
//! naming it is a frequency analysis left to C. The report gives the share of
//! searches that ended on a gram axis and the share of the batch's active gram
//! axes (coordinates non-zero in some record) found.

use crate::embed::Vectors;
use crate::sparse_vectors::SparseVectors;

/// Correlation needed to count an axis as recovered.
pub const RECOVERED: f64 = 0.9999;

/// What the searches found.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AxisRecovery {
    /// Keyed vectors searched.
    pub vectors: usize,
    /// Searches run (one direction each).
    pub searches: usize,
    /// Distinct gram axes recovered.
    pub recovered: usize,
    /// Gram coordinates non-zero in some record of the batch.
    pub active: usize,
}

impl AxisRecovery {
    /// Share of searches that ended on a (distinct) gram axis.
    pub fn per_search(&self) -> f64 {
        self.recovered as f64 / self.searches.max(1) as f64
    }
    /// Share of the active gram axes recovered.
    pub fn share(&self) -> f64 {
        self.recovered as f64 / self.active.max(1) as f64
    }
}

/// Rows per block of the parallel passes.
const BLOCK: usize = 2048;
/// Fixed-point iterations per search.
const ITERATIONS: usize = 20;
/// Rounding and least-squares rounds per search.
const REFINE_ROUNDS: usize = 2;
/// Conjugate-gradient iterations per least-squares round.
const CG_ITERATIONS: usize = 15;

/// `Y·w`: the projection of every keyed row (uncentred).
fn times(keyed: &Vectors, w: &[f64]) -> Vec<f64> {
    let parts = crate::par::chunks(keyed.len(), BLOCK, |rows| {
        rows.map(|r| keyed.row(r).iter().zip(w).map(|(&y, w)| y as f64 * w).sum::<f64>()).collect::<Vec<f64>>()
    });
    parts.concat()
}

/// `Yᵀ·v`, in parallel blocks summed in order.
fn times_transposed(keyed: &Vectors, v: &[f64]) -> Vec<f64> {
    let dim = keyed.dim;
    let parts = crate::par::chunks(keyed.len(), BLOCK, |rows| {
        let mut g = vec![0.0f64; dim];
        for r in rows {
            for (g, &y) in g.iter_mut().zip(keyed.row(r)) {
                *g += v[r] * y as f64;
            }
        }
        g
    });
    let mut g = vec![0.0f64; dim];
    for part in parts {
        for (a, b) in g.iter_mut().zip(part) {
            *a += b;
        }
    }
    g
}

/// The projections rounded to the lattice `ℤ/L` (sign flipped so most mass is
/// non-negative), for the gram length `L ∈ {1, 2, 3}` that fits best.
fn lattice(proj: &[f64]) -> Vec<f64> {
    let sign = if proj.iter().sum::<f64>() < 0.0 { -1.0 } else { 1.0 };
    let round = |l: f64| -> Vec<f64> { proj.iter().map(|p| ((sign * p * l).round() / l).max(0.0)).collect() };
    let residual = |t: &[f64]| -> f64 { t.iter().zip(proj).map(|(t, p)| (t - sign * p).powi(2)).sum() };
    let mut best = round(1.0);
    for l in [2.0, 3.0] {
        let t = round(l);
        if residual(&t) < residual(&best) {
            best = t;
        }
    }
    best.iter_mut().for_each(|t| *t *= sign);
    best
}

/// `argmin ‖Y·w − t‖` by conjugate gradients on the normal equations (CGLS),
/// from `w`.
fn least_squares(keyed: &Vectors, t: &[f64], mut w: Vec<f64>) -> Vec<f64> {
    let mut r: Vec<f64> = times(keyed, &w).iter().zip(t).map(|(y, t)| t - y).collect();
    let mut s = times_transposed(keyed, &r);
    let mut p = s.clone();
    let mut gamma: f64 = s.iter().map(|x| x * x).sum();
    for _ in 0..CG_ITERATIONS {
        if gamma < 1e-24 {
            break;
        }
        let q = times(keyed, &p);
        let qq: f64 = q.iter().map(|x| x * x).sum();
        if qq <= 0.0 {
            break;
        }
        let alpha = gamma / qq;
        w.iter_mut().zip(&p).for_each(|(w, p)| *w += alpha * p);
        r.iter_mut().zip(&q).for_each(|(r, q)| *r -= alpha * q);
        s = times_transposed(keyed, &r);
        let next: f64 = s.iter().map(|x| x * x).sum();
        let beta = next / gamma;
        p.iter_mut().zip(&s).for_each(|(p, s)| *p = s + beta * *p);
        gamma = next;
    }
    w
}

/// Runs `searches` deflated kurtosis searches on `keyed` (the rotated batch)
/// and scores them against `plain` (the same records unkeyed).
pub fn recover(keyed: &Vectors, plain: &SparseVectors, searches: usize) -> AxisRecovery {
    let (n, dim) = (keyed.len(), keyed.dim);
    let mut mean = vec![0.0f64; dim];
    for r in 0..n {
        for (m, &y) in mean.iter_mut().zip(keyed.row(r)) {
            *m += y as f64;
        }
    }
    mean.iter_mut().for_each(|m| *m /= n.max(1) as f64);
    let truth = Columns::new(plain);
    let mut found: Vec<Vec<f64>> = Vec::new();
    let mut axes = std::collections::BTreeSet::new();
    let searches = searches.min(dim).min(n);
    for s in 0..searches {
        // start from a data row spread over the rows (deterministic)
        let start = (s * 7919) % n.max(1);
        let mut w: Vec<f64> = keyed.row(start).iter().zip(&mean).map(|(&y, m)| y as f64 - m).collect();
        deflate(&mut w, &found);
        if !normalize(&mut w) {
            continue;
        }
        for _ in 0..ITERATIONS {
            let mut g = cubed_sum(keyed, &mean, &w);
            deflate(&mut g, &found);
            if !normalize(&mut g) {
                break;
            }
            let dot: f64 = g.iter().zip(&w).map(|(a, b)| a * b).sum();
            w = g;
            if dot.abs() > 1.0 - 1e-12 {
                break;
            }
        }
        for _ in 0..REFINE_ROUNDS {
            let proj = times(keyed, &w);
            let t = lattice(&proj);
            w = least_squares(keyed, &t, w);
        }
        let proj = times(keyed, &w);
        if let Some(g) = truth.best(&proj) {
            axes.insert(g);
        }
        normalize(&mut w);
        found.push(w);
    }
    AxisRecovery { vectors: n, searches, recovered: axes.len(), active: truth.active() }
}

/// `Σ_r (w·ỹ_r)³ ỹ_r` over the centred rows, in parallel blocks summed in order.
fn cubed_sum(keyed: &Vectors, mean: &[f64], w: &[f64]) -> Vec<f64> {
    let dim = keyed.dim;
    let parts = crate::par::chunks(keyed.len(), BLOCK, |rows| {
        let mut g = vec![0.0f64; dim];
        let mut c = vec![0.0f64; dim];
        for r in rows {
            for ((c, &y), m) in c.iter_mut().zip(keyed.row(r)).zip(mean) {
                *c = y as f64 - m;
            }
            let p: f64 = c.iter().zip(w).map(|(a, b)| a * b).sum();
            let p3 = p * p * p;
            for (g, c) in g.iter_mut().zip(&c) {
                *g += p3 * c;
            }
        }
        g
    });
    let mut g = vec![0.0f64; dim];
    for part in parts {
        for (a, b) in g.iter_mut().zip(part) {
            *a += b;
        }
    }
    g
}

fn deflate(v: &mut [f64], found: &[Vec<f64>]) {
    for f in found {
        let d: f64 = v.iter().zip(f).map(|(a, b)| a * b).sum();
        for (a, b) in v.iter_mut().zip(f) {
            *a -= d * b;
        }
    }
}

fn normalize(v: &mut [f64]) -> bool {
    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    // NaN too: a degenerate direction is no direction
    if n.is_nan() || n <= 1e-300 {
        return false;
    }
    v.iter_mut().for_each(|x| *x /= n);
    true
}

/// The true gram coordinates, by column, to correlate a projection with.
struct Columns {
    /// Per column: `(row, value)` of its non-zero entries.
    cols: Vec<Vec<(u32, f64)>>,
    rows: usize,
}

impl Columns {
    fn new(plain: &SparseVectors) -> Columns {
        let mut cols = vec![Vec::new(); plain.dim];
        for r in 0..plain.len() {
            let (cs, vs) = plain.row(r);
            for (&c, &v) in cs.iter().zip(vs) {
                cols[c as usize].push((r as u32, v as f64));
            }
        }
        Columns { cols, rows: plain.len() }
    }

    fn active(&self) -> usize {
        self.cols.iter().filter(|c| !c.is_empty()).count()
    }

    /// The column whose correlation with `proj` exceeds [`RECOVERED`] in
    /// absolute value, if any.
    fn best(&self, proj: &[f64]) -> Option<usize> {
        let n = self.rows as f64;
        let ps: f64 = proj.iter().sum();
        let pss: f64 = proj.iter().map(|p| p * p).sum();
        let var_p = pss - ps * ps / n;
        let mut best = (0.0f64, None);
        for (g, col) in self.cols.iter().enumerate() {
            if col.is_empty() {
                continue;
            }
            let xs: f64 = col.iter().map(|&(_, x)| x).sum();
            let xxs: f64 = col.iter().map(|&(_, x)| x * x).sum();
            let xps: f64 = col.iter().map(|&(r, x)| x * proj[r as usize]).sum();
            let var_x = xxs - xs * xs / n;
            let cov = xps - xs * ps / n;
            let corr = cov / (var_p * var_x).sqrt();
            if corr.abs() > best.0 {
                best = (corr.abs(), Some(g));
            }
        }
        best.1.filter(|_| best.0 > RECOVERED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyed::{Key, Transform};

    #[test]
    fn finds_the_axes_of_a_rotated_sparse_batch() {
        // 4,000 sparse non-negative 16-dim vectors, one to three axes each
        let mut rng = crate::dp::Randomness::seeded(3);
        let mut plain = SparseVectors::new(16);
        for _ in 0..4000 {
            let mut cols: Vec<u32> = (0..1 + rng.next_u32() % 3).map(|_| rng.next_u32() % 16).collect();
            cols.sort_unstable();
            cols.dedup();
            plain.push_row(cols.into_iter().map(|c| (c, 1.0)));
        }
        let t = Transform::new(&Key::from_bytes([7; 32]), "fp", 16).unwrap();
        let keyed = t.apply(&Vectors::from_sparse(&plain)).unwrap();
        let r = recover(&keyed, &plain, 16);
        assert_eq!(r.active, 16);
        // the rotation hides nothing from this search: most axes come back
        eprintln!("{r:?}");
        assert!(r.recovered >= 8, "{r:?}");
    }
}
