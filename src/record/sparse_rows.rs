//! Unkeyed record vectors as sparse rows, for the per-pair comparisons of
//! [`super::compare`]: a value has a few dozen grams among hundreds of
//! coordinates, so a merge over the non-zero coordinates does the dense loop's
//! work in a small fraction of its time (FEBRL-like records: most of the link
//! step was the dense distance and q-gram bound).
//!
//! Both functions give exactly the dense results: the distance sums the same
//! terms in the same coordinate order, leaving out only coordinates that are
//! zero on both sides, whose term is `+0.0` and leaves an f64 sum unchanged;
//! the bound uses the same integer counts (`round(value · L)`), computed once
//! per row. A test checks both against the dense functions.

use crate::sparse_vectors::RowSource;
use std::ops::Range;

/// The non-zero coordinates of every row, with values and occurrence counts.
pub(crate) struct SparseRows {
    starts: Vec<usize>,
    cols: Vec<u32>,
    vals: Vec<f32>,
    counts: Vec<i64>,
}

impl SparseRows {
    /// `lengths`: the gram length of each coordinate (the base's shape).
    pub fn new(v: &dyn RowSource, lengths: &[u8]) -> SparseRows {
        let mut s = SparseRows { starts: vec![0], cols: Vec::new(), vals: Vec::new(), counts: Vec::new() };
        for r in 0..v.rows() {
            v.nonzero(r, &mut |c, x| {
                s.cols.push(c);
                s.vals.push(x);
                s.counts.push((x as f64 * lengths[c as usize] as f64).round() as i64);
            });
            s.starts.push(s.cols.len());
        }
        s
    }

    fn range(&self, r: usize) -> Range<usize> {
        self.starts[r]..self.starts[r + 1]
    }
}

/// Walks the union of two rows' coordinates in order: `f(col, i, j)` with the
/// entry index on each side (`usize::MAX`: zero there).
#[inline]
fn merge(a: &SparseRows, ra: usize, b: &SparseRows, rb: usize, mut f: impl FnMut(u32, usize, usize)) {
    let (mut i, ei) = (a.range(ra).start, a.range(ra).end);
    let (mut j, ej) = (b.range(rb).start, b.range(rb).end);
    while i < ei || j < ej {
        let ca = if i < ei { a.cols[i] } else { u32::MAX };
        let cb = if j < ej { b.cols[j] } else { u32::MAX };
        if ca == cb {
            f(ca, i, j);
            i += 1;
            j += 1;
        } else if ca < cb {
            f(ca, i, usize::MAX);
            i += 1;
        } else {
            f(cb, usize::MAX, j);
            j += 1;
        }
    }
}

/// [`crate::matching::distance`] of the two dense rows, bit for bit.
pub(crate) fn distance(a: &SparseRows, ra: usize, b: &SparseRows, rb: usize) -> f64 {
    let mut s = 0.0f64;
    merge(a, ra, b, rb, |_, i, j| {
        let x = if i == usize::MAX { 0.0 } else { a.vals[i] as f64 };
        let y = if j == usize::MAX { 0.0 } else { b.vals[j] as f64 };
        let d = x - y;
        s += d * d;
    });
    s.sqrt()
}

/// [`super::compare::qgram_bound`] of the two dense rows.
pub(crate) fn qgram_bound(
    a: &SparseRows,
    ra: usize,
    b: &SparseRows,
    rb: usize,
    lengths: &[u8],
    complete: &[bool],
) -> u32 {
    let mut diff = [0i64; 33];
    let mut total = [0i64; 33];
    merge(a, ra, b, rb, |c, i, j| {
        let na = if i == usize::MAX { 0 } else { a.counts[i] };
        let nb = if j == usize::MAX { 0 } else { b.counts[j] };
        let l = lengths[c as usize] as usize;
        diff[l] += (na - nb).abs();
        if complete[c as usize] {
            total[l] += na - nb;
        }
    });
    super::compare::bound_of(&diff, &total)
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
        let (sa, sb) = (SparseRows::new(&a, &lengths), SparseRows::new(&b, &lengths));
        for i in 0..a.len() {
            for j in 0..b.len() {
                let dense = crate::matching::distance(a.row(i), b.row(j));
                assert_eq!(distance(&sa, i, &sb, j).to_bits(), dense.to_bits());
                let bound = super::super::compare::qgram_bound(a.row(i), b.row(j), &lengths, &complete);
                assert_eq!(qgram_bound(&sa, i, &sb, j, &lengths, &complete), bound);
            }
        }
    }
}
