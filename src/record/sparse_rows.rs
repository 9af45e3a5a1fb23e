//! The per-pair comparison of two unkeyed record vectors as sparse rows
//! ([`crate::sparse_vectors::SparseVectors`], the form a batch holds them in):
//! a value has a few dozen grams among hundreds of coordinates, so one merge
//! over the non-zero coordinates does the dense loops' work in a small
//! fraction of their time, and nothing is copied.
//!
//! [`compare`] gives exactly the dense results: the distance sums the same
//! terms in the same coordinate order, leaving out only coordinates that are
//! zero on both sides, whose term is `+0.0` and leaves an f64 sum unchanged;
//! the bound uses the same integer counts (`round(value · L)`). It stops early
//! only when the partial sum already puts the pair beyond `limit`: terms are
//! non-negative, so a rounded f64 sum never decreases, and the whole distance
//! would be beyond it too. A test checks both against the dense functions.

use super::edit_bound::bound_of;
use crate::sparse_vectors::SparseVectors;

/// The distance and the q-gram bound ([`super::edit_bound::qgram_bound`]) of row
/// `ra` of `a` and row `rb` of `b`, from one merge; `None` when the distance
/// is certainly above `limit` (the largest threshold the caller compares with).
pub(crate) fn compare(
    a: &SparseVectors,
    ra: usize,
    b: &SparseVectors,
    rb: usize,
    lengths: &[u8],
    complete: &[bool],
    limit: f64,
) -> Option<(f64, u32)> {
    // squared, widened a little so that rounding never stops a pair within it
    let stop = limit * limit * (1.0 + 1e-9) + f64::MIN_POSITIVE;
    let ((ca, va), (cb, vb)) = (a.row(ra), b.row(rb));
    let (mut i, mut j) = (0, 0);
    let mut s = 0.0f64;
    let mut diff = [0i64; 33];
    let mut total = [0i64; 33];
    let count = |x: f32, l: usize| (x as f64 * l as f64).round() as i64;
    while i < ca.len() || j < cb.len() {
        let x = if i < ca.len() { ca[i] } else { u32::MAX };
        let y = if j < cb.len() { cb[j] } else { u32::MAX };
        let (c, p, q) = if x == y {
            i += 1;
            j += 1;
            (x, va[i - 1], vb[j - 1])
        } else if x < y {
            i += 1;
            (x, va[i - 1], 0.0)
        } else {
            j += 1;
            (y, 0.0, vb[j - 1])
        };
        let d = p as f64 - q as f64;
        s += d * d;
        if s > stop {
            return None;
        }
        let l = lengths[c as usize] as usize;
        let (na, nb) = (count(p, l), count(q, l));
        diff[l] += (na - nb).abs();
        if complete[c as usize] {
            total[l] += na - nb;
        }
    }
    Some((s.sqrt(), bound_of(&diff, &total)))
}

/// Whether `row` is a single letter whose bigram coordinates `other` holds
/// one of ([`super::compare::PartCmp::initial`] says why): its complete bigram
/// class counts exactly 2 windows (a padded one-letter value), and some
/// coordinate of those is among `other`'s columns (ascending, as rows keep them).
pub(crate) fn letter_in(row: (&[u32], &[f32]), other: &[u32], lengths: &[u8], complete: &[bool]) -> bool {
    let bigram = |c: u32| lengths.get(c as usize) == Some(&2) && complete.get(c as usize) == Some(&true);
    let (cols, vals) = row;
    let windows: i64 =
        cols.iter().zip(vals).filter(|(&c, _)| bigram(c)).map(|(_, &v)| (v as f64 * 2.0).round() as i64).sum();
    windows == 2 && cols.iter().any(|&c| bigram(c) && other.binary_search(&c).is_ok())
}

/// One A row spread out densely, for a quick test of many B rows against it
/// ([`Scattered::beyond`]): blocking checks each A row of a group against
/// every B row of the group, and most pairs are far apart.
///
/// Exactness: `beyond` only ever rejects a pair whose distance exceeds
/// `limit`, which [`compare`] would reject too; every other pair goes on to
/// `compare`. Its sum `‖a‖² + Σ_b ((a_c − b_c)² − a_c²)` equals `d²` exactly in
/// real numbers; in f64 each term is exact (differences and squares of f32
/// values fit in 53 bits), and the few dozen additions err by far less than the
/// margin of 1e-9·(‖a‖² + ‖b‖²) it allows. A test checks it against `compare`.
pub(crate) struct Scattered {
    values: Vec<f64>,
    cols: Vec<u32>,
    row: usize,
    norm2: f64,
}

impl Scattered {
    pub fn new(dim: usize) -> Scattered {
        Scattered { values: vec![0.0; dim], cols: Vec::new(), row: usize::MAX, norm2: 0.0 }
    }

    /// Spreads out row `ra` of `a` (nothing to do when it already is).
    pub fn load(&mut self, a: &SparseVectors, ra: usize) {
        if self.row == ra {
            return;
        }
        for &c in &self.cols {
            self.values[c as usize] = 0.0;
        }
        self.cols.clear();
        let (cols, vals) = a.row(ra);
        self.norm2 = 0.0;
        for (&c, &v) in cols.iter().zip(vals) {
            if let Some(x) = self.values.get_mut(c as usize) {
                *x = v as f64;
                self.norm2 += v as f64 * v as f64;
                self.cols.push(c);
            }
        }
        self.row = ra;
    }

    /// True when row `rb` of `b` is certainly farther than `limit` from the
    /// loaded row.
    pub fn beyond(&self, b: &SparseVectors, rb: usize, limit: f64) -> bool {
        let (cols, vals) = b.row(rb);
        let (mut s, mut nb) = (self.norm2, 0.0f64);
        for (&c, &v) in cols.iter().zip(vals) {
            let x = self.values.get(c as usize).copied().unwrap_or(0.0);
            let y = v as f64;
            s += (x - y) * (x - y) - x * x;
            nb += y * y;
        }
        s > limit * limit * (1.0 + 1e-9) + 1e-9 * (self.norm2 + nb) + f64::MIN_POSITIVE
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::dp::Randomness;
    use crate::embed::Vectors;

    #[test]
    fn sparse_rows_give_the_dense_distance_and_bound_exactly() {
        let mut r = Randomness::seeded(11);
        let dim = 200;
        let lengths: Vec<u8> = (0..dim).map(|c| 1 + (c % 3) as u8).collect();
        let complete: Vec<bool> = (0..dim).map(|c| c % 3 == 1).collect();
        let mut make = |n: usize| {
            let mut data = vec![0f32; n * dim];
            for v in data.iter_mut() {
                if r.below(8) == 0 {
                    *v = (1 + r.below(3)) as f32 / (1 + r.below(3)) as f32;
                }
            }
            Vectors { dim, data }
        };
        let (a, b) = (make(30), make(40));
        let (sa, sb) = (a.to_sparse(), b.to_sparse());
        let mut stopped = 0;
        let (mut scattered, mut rejected) = (Scattered::new(a.dim), 0);
        for i in 0..a.len() {
            for j in 0..b.len() {
                let dense = crate::matching::distance(a.row(i), b.row(j));
                let bound = super::super::edit_bound::qgram_bound(a.row(i), b.row(j), &lengths, &complete);
                let (d, q) = compare(&sa, i, &sb, j, &lengths, &complete, f64::INFINITY).unwrap();
                scattered.load(&sa, i);
                for limit in [dense, dense * 0.999, dense * 1.001, 1.0] {
                    // never rejects a pair within the limit
                    assert!(!scattered.beyond(&sb, j, limit) || dense > limit, "{dense} rejected at {limit}");
                    rejected += scattered.beyond(&sb, j, limit) as usize;
                }
                assert_eq!((d.to_bits(), q), (dense.to_bits(), bound));
                // with a limit: the same answer within it, None only beyond it
                for limit in [dense, dense * 0.999, 1.0, 3.0] {
                    match compare(&sa, i, &sb, j, &lengths, &complete, limit) {
                        Some((d, q)) => assert_eq!((d.to_bits(), q), (dense.to_bits(), bound)),
                        None => {
                            assert!(dense > limit, "{dense} stopped at {limit}");
                            stopped += 1;
                        }
                    }
                }
            }
        }
        assert!(stopped > 100, "{stopped}");
        assert!(rejected > 100, "{rejected}");
    }
}
