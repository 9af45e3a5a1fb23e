//! The sparse index: for wide, mostly-zero vectors (a base with every public
//! 2-gram has ~800 coordinates, of which a name touches ~10).
//!
//! **Count coordinates.** A coordinate is a *count coordinate* with divisor L
//! (1..=8) when every value of A and B there is ≥ 0 and equals `n as f32 / L as f32`
//! for an integer n (a gram count over |g| = L is exactly that; the smallest L
//! that fits every value is used). With w = 1/L², for integers
//! (Δn)² ≥ |Δn|, so over the count coordinates Q
//!
//!   d(a, b)² ≥ Σ_Q w·|n_a − n_b| = W_a + W_b − 2·O(a, b),
//!
//! with W the weighted mass Σ_Q w·n and O = Σ_Q w·min(n_a, n_b) the weighted
//! overlap (the q-gram count filter). So a pair within `th` needs
//! O ≥ τ(W_b) = (W_a + W_b − th²)/2, and since O ≤ min(W_a, W_b), |W_a − W_b| ≤ th².
//!
//! **Prefix filter.** A's count coordinates are ordered rarest first (shortest
//! posting list); `rem_j` is A's mass from coordinate j on. A row b that shares
//! none of A's first j coordinates has O ≤ rem_j, so it can qualify only if
//! τ(W_b) ≤ rem_j. Coordinate j is therefore probed only for the B rows whose
//! mass W_b ≤ 2·rem_j − W_a + th² (posting lists are sorted by W_b), and every
//! qualifying B row sharing a count coordinate with A is met at its first shared
//! coordinate. Rows that share none can qualify only if τ(W_b) ≤ 0; they are
//! taken from B sorted by mass. The bounds use a 1e-9 relative margin, and masses
//! are sums of dyadic numbers (exact). Each candidate is decided by
//! [`distance`]-equal arithmetic on the sparse rows (a coordinate zero in both
//! adds exactly 0.0), so the index prunes, never changes, the answer.

use super::pairs::{MatchStats, Pair};
use crate::embed::Vectors;
use crate::error::Error;
use crate::sparse_vectors::SparseVectors;
use std::sync::atomic::AtomicU64;

/// Largest integer a count coordinate may hold (keeps masses exact).
const MAX_COUNT: f32 = (1 << 20) as f32;

/// Exactly [`super::distance`] of the dense rows: the same squares added in the
/// same coordinate order; coordinates zero in both add 0.0, which changes nothing.
/// Stops early (`f64::INFINITY`) once the partial sum exceeds `stop`: the terms
/// are ≥ 0 and f64 addition is monotone, so the full distance would exceed it too.
pub(crate) fn sparse_distance(a: (&[u32], &[f32]), b: (&[u32], &[f32]), stop: f64) -> f64 {
    let (mut i, mut j, mut s) = (0, 0, 0.0f64);
    let sq = |x: f32, y: f32| {
        let d = x as f64 - y as f64;
        d * d
    };
    while i < a.0.len() || j < b.0.len() {
        let ca = a.0.get(i).copied().unwrap_or(u32::MAX);
        let cb = b.0.get(j).copied().unwrap_or(u32::MAX);
        if ca == cb {
            s += sq(a.1[i], b.1[j]);
            i += 1;
            j += 1;
        } else if ca < cb {
            s += sq(a.1[i], 0.0);
            i += 1;
        } else {
            s += sq(0.0, b.1[j]);
            j += 1;
        }
        if s > stop {
            return f64::INFINITY;
        }
    }
    s.sqrt()
}

/// Should the sparse index be used: wide vectors with few non-zero entries.
pub fn worthwhile(a: &Vectors, b: &Vectors) -> bool {
    if b.dim < 128 || b.is_empty() || a.is_empty() {
        return false;
    }
    let sample = b.len().min(2000);
    let nnz: usize = (0..sample).map(|r| b.row(r).iter().filter(|x| **x != 0.0).count()).sum();
    nnz * 8 < sample * b.dim
}

/// [`worthwhile`] for vectors held sparse: the same test on the same numbers,
/// so a batch takes the same index whichever form it travels in (the
/// matcher's candidate counts stay those of the dense form).
pub fn worthwhile_rows(a: &SparseVectors, b: &SparseVectors) -> bool {
    if b.dim < 128 || b.is_empty() || a.is_empty() {
        return false;
    }
    let sample = b.len().min(2000);
    b.starts[sample] * 8 < sample * b.dim
}

struct SparsePostings<'v> {
    a: &'v SparseVectors,
    b: &'v SparseVectors,
    /// Per coordinate: scale s of a count coordinate, or 0.
    scale: Vec<u8>,
    /// Per B row: mass W_b.
    b_mass: Vec<f64>,
    /// Per coordinate: B rows holding it, sorted by (mass, row).
    postings: Vec<Vec<u32>>,
    /// Masses of `postings`, in the same order.
    posting_mass: Vec<Vec<f64>>,
    /// All B rows sorted by (mass, row), and their masses.
    by_mass: Vec<u32>,
    by_mass_w: Vec<f64>,
}

/// Divisors tried for count coordinates (gram lengths).
const MAX_DIVISOR: u32 = 8;

/// Bit L−1 set when `x == n as f32 / L as f32` for an integer 0 ≤ n ≤ MAX_COUNT
/// (the embedder's exact arithmetic for a count over a gram of length L).
fn divisors_of(x: f32) -> u32 {
    if !(0.0..=MAX_COUNT).contains(&x) {
        return 0;
    }
    let mut mask = 0;
    for l in 1..=MAX_DIVISOR {
        let n = (x * l as f32).round();
        if n <= MAX_COUNT && n / l as f32 == x {
            mask |= 1 << (l - 1);
        }
    }
    mask
}

/// `n / L²` of a value of a count coordinate of divisor L.
fn weighted(x: f32, l: u8) -> f64 {
    let l = l as f64;
    (x as f64 * l).round() / (l * l)
}

fn mass(cols: &[u32], vals: &[f32], scale: &[u8]) -> f64 {
    cols.iter().zip(vals).filter(|(c, _)| scale[**c as usize] > 0).map(|(c, v)| weighted(*v, scale[*c as usize])).sum()
}

impl<'v> SparsePostings<'v> {
    fn build(a: &'v SparseVectors, b_csr: &'v SparseVectors) -> SparsePostings<'v> {
        let dim = b_csr.dim.max(a.dim);
        // Divisors valid for every value of a coordinate; the smallest gives the
        // strongest bound (|Δn|/L² per unit).
        let mut masks = vec![(1u32 << MAX_DIVISOR) - 1; dim];
        for m in [a, b_csr] {
            for (&c, &v) in m.cols.iter().zip(&m.vals) {
                let c = c as usize;
                if masks[c] != 0 {
                    masks[c] &= divisors_of(v);
                }
            }
        }
        let scale: Vec<u8> = masks.iter().map(|&m| if m == 0 { 0 } else { m.trailing_zeros() as u8 + 1 }).collect();
        let n = b_csr.len();
        let b_mass: Vec<f64> = (0..n)
            .map(|r| {
                let (c, v) = b_csr.row(r);
                mass(c, v, &scale)
            })
            .collect();
        let mut by_mass: Vec<u32> = (0..n as u32).collect();
        crate::sorting::sort_by(&mut by_mass, |&x, &y| {
            b_mass[x as usize].total_cmp(&b_mass[y as usize]).then(x.cmp(&y))
        });
        let by_mass_w = by_mass.iter().map(|&r| b_mass[r as usize]).collect();
        let mut postings: Vec<Vec<u32>> = vec![Vec::new(); dim];
        for &r in &by_mass {
            for &c in b_csr.row(r as usize).0 {
                if scale[c as usize] > 0 {
                    postings[c as usize].push(r);
                }
            }
        }
        let posting_mass = postings.iter().map(|p| p.iter().map(|&r| b_mass[r as usize]).collect()).collect();
        SparsePostings { a, b: b_csr, scale, b_mass, postings, posting_mass, by_mass, by_mass_w }
    }

    /// All B rows within `th` of A row `i`, sorted by (distance, b); returns candidates.
    fn query(
        &self,
        i: usize,
        th: f64,
        seen: &mut [u32],
        stamp: u32,
        order: &mut Vec<(usize, u32, f64)>,
        out: &mut Vec<(u32, f64)>,
    ) -> u64 {
        out.clear();
        let arow = self.a.row(i);
        let t2 = th * th;
        let limit = t2 + 1e-9 * (1.0 + t2);
        // A's count coordinates, rarest first, with their weighted counts.
        order.clear();
        for (&c, &v) in arow.0.iter().zip(arow.1) {
            let s = self.scale[c as usize];
            if s > 0 {
                order.push((self.postings[c as usize].len(), c, weighted(v, s)));
            }
        }
        crate::sorting::sort_by(order, |x, y| x.0.cmp(&y.0).then(x.1.cmp(&y.1)));
        let wa: f64 = order.iter().map(|o| o.2).sum();
        // Values are n/L rounded to f32 (relative error ≤ 2⁻²⁴), so d² may fall
        // short of Σ|Δn|/L² by a relative 2⁻²²: the slack covers it many times.
        let slack = 1e-6 * (1.0 + wa + limit);
        let (lo_w, hi_w) = (wa - limit - slack, wa + limit + slack);
        let mut candidates = 0u64;
        let mut check = |r: u32, seen: &mut [u32], out: &mut Vec<(u32, f64)>| {
            if seen[r as usize] == stamp {
                return;
            }
            seen[r as usize] = stamp;
            candidates += 1;
            let d = sparse_distance(arow, self.b.row(r as usize), limit);
            if d <= th {
                out.push((r, d));
            }
        };
        let mut rem = wa;
        for &(_, c, w) in order.iter() {
            // B rows with mass up to 2·rem − W_a + th² may need this coordinate.
            let top = (2.0 * rem - wa + limit + slack).min(hi_w);
            let pm = &self.posting_mass[c as usize];
            let from = pm.partition_point(|&m| m < lo_w);
            let to = pm.partition_point(|&m| m <= top);
            for &r in &self.postings[c as usize][from..to.max(from)] {
                check(r, seen, out);
            }
            rem -= w;
        }
        // Rows sharing no count coordinate: only if τ(W_b) ≤ 0, i.e. W_b ≤ th² − W_a.
        let top = limit - wa + slack;
        let from = self.by_mass_w.partition_point(|&m| m < lo_w);
        let to = self.by_mass_w.partition_point(|&m| m <= top);
        for &r in &self.by_mass[from..to.max(from)] {
            check(r, seen, out);
        }
        crate::sorting::sort_by_distance(out);
        candidates
    }
}

/// Never inlined: in wasm, V8 optimizes it between the chunks' calls.
#[inline(never)]
fn match_rows(
    ix: &SparsePostings,
    th: &[f64],
    rows: std::ops::Range<usize>,
    total: &AtomicU64,
) -> Result<(Vec<Pair>, u64), Error> {
    let mut seen = vec![0u32; ix.b_mass.len()];
    let (mut order, mut found, mut pairs) = (Vec::new(), Vec::new(), Vec::new());
    let mut candidates = 0;
    for (k, i) in rows.enumerate() {
        candidates += ix.query(i, th[i], &mut seen, k as u32 + 1, &mut order, &mut found);
        super::pairs::push_found(&mut pairs, i, &found, total)?;
    }
    Ok((pairs, candidates))
}

/// The exact range match through the sparse index (inputs already validated).
/// Same pairs, same order as [`super::brute_force`].
pub fn sparse_match(a: &Vectors, b: &Vectors, thresholds: &[f64]) -> Result<(Vec<Pair>, MatchStats), Error> {
    sparse_match_rows(&a.to_sparse(), &b.to_sparse(), thresholds)
}

/// [`sparse_match`] on sparse vectors (as batches hold them): the same pairs
/// in the same order as for their dense form. `thresholds`: one finite
/// number ≥ 0 per A row (checked).
pub fn sparse_match_rows(
    a: &SparseVectors,
    b: &SparseVectors,
    thresholds: &[f64],
) -> Result<(Vec<Pair>, MatchStats), Error> {
    if a.dim != b.dim {
        return Err(Error::Parameter(format!(
            "dimension mismatch: A's vectors have {} components, B's {}",
            a.dim, b.dim
        )));
    }
    if thresholds.len() != a.len() || thresholds.iter().any(|t| !t.is_finite() || *t < 0.0) {
        return Err(Error::Parameter(format!(
            "{} thresholds for {} A vectors, each must be finite and >= 0",
            thresholds.len(),
            a.len()
        )));
    }
    let ix = SparsePostings::build(a, b);
    let total = AtomicU64::new(0);
    super::pairs::join_chunks(crate::par::chunks(a.len(), 512, |rows| match_rows(&ix, thresholds, rows, &total)))
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::matching::brute::cases::case;
    use crate::matching::brute_force;
    use proptest::prelude::*;

    /// Sparse rows whose values are counts over 1, 2, 3 or 4 (by coordinate), and
    /// a few arbitrary reals.
    fn vectors(dim: usize, raw: &[u8]) -> Vectors {
        let n = raw.len() / dim;
        let data = raw[..n * dim]
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let c = i % dim;
                if x < 5 {
                    0.0
                } else if c % 7 == 6 {
                    (x % 5) as f32 * 0.37
                } else {
                    (x % 3) as f32 / (c % 4 + 1) as f32
                }
            })
            .collect();
        Vectors { dim, data }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]
        #[test]
        fn sparse_index_equals_brute_force(c in case(1..40, 800, 1200), scale in 0u8..10) {
            let a = vectors(c.dim, &c.ra);
            let b = vectors(c.dim, &c.rb);
            let th = c.thresholds(&a, &b, |i| i * 7, |i| scale as f64 * 0.3 + (i % 3) as f64 * 0.1);
            let (want, _) = brute_force(&a, &b, &th).unwrap();
            let (got, stats) = sparse_match(&a, &b, &th).unwrap();
            prop_assert_eq!(got, want);
            prop_assert!(stats.candidates <= a.len() as u64 * b.len() as u64);
        }
    }

    #[test]
    fn negative_values_are_not_count_coordinates() {
        let a = Vectors { dim: 2, data: vec![-1.0, 0.5, 1.0, 0.0] };
        let b = Vectors { dim: 2, data: vec![-1.0, 0.0, 0.0, 0.5, 1.0, 0.25] };
        let th = [0.6, 0.3];
        assert_eq!(sparse_match(&a, &b, &th).unwrap().0, brute_force(&a, &b, &th).unwrap().0);
    }
}
