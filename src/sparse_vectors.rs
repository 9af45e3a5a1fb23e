//! Sparse vectors: each row's non-zero coordinates, in coordinate order, with
//! their values. An unkeyed embedding has a few dozen non-zero coordinates
//! out of hundreds (every public 2-gram, mined 3-grams), so the record batch
//! holds its embedded fields this way: a million FEBRL-like records take some
//! 1.6 GB instead of 21 GB dense.
//!
//! The values are exactly the dense embedding's (`count as f32 / |g| as f32`,
//! [`crate::embed::Embedder::embed_sparse`]), and every computation on them
//! leaves out only coordinates that are zero on both sides, whose terms are
//! `+0.0`: results equal the dense ones bit for bit (tests check it). The
//! conversions to and from dense vectors are on [`crate::embed::Vectors`].

/// Rows of non-zero coordinates: row `r` is `cols[starts[r]..starts[r + 1]]`
/// (strictly ascending, each `< dim`) with the same range of `vals` (finite,
/// non-zero).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SparseVectors {
    pub dim: usize,
    pub starts: Vec<usize>,
    pub cols: Vec<u32>,
    pub vals: Vec<f32>,
}

/// A sparse row compared bit for bit ([`SparseVectors::row_key`]).
#[derive(Debug, Clone, Copy)]
pub struct RowKey<'a> {
    cols: &'a [u32],
    vals: &'a [f32],
}

impl PartialEq for RowKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cols == other.cols
            && self.vals.len() == other.vals.len()
            && self.vals.iter().zip(other.vals).all(|(x, y)| x.to_bits() == y.to_bits())
    }
}

impl Eq for RowKey<'_> {}

impl std::hash::Hash for RowKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.cols.hash(h);
        for x in self.vals {
            x.to_bits().hash(h);
        }
    }
}

impl SparseVectors {
    /// No rows yet, of dimension `dim`.
    pub fn new(dim: usize) -> SparseVectors {
        SparseVectors { dim, starts: vec![0], cols: Vec::new(), vals: Vec::new() }
    }

    /// Appends a row from its `(coordinate, value)` entries in coordinate
    /// order; zero values are left out.
    pub fn push_row(&mut self, entries: impl IntoIterator<Item = (u32, f32)>) {
        for (c, v) in entries {
            if v != 0.0 {
                self.cols.push(c);
                self.vals.push(v);
            }
        }
        self.starts.push(self.cols.len());
    }

    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Rows `rows` (clamped to the rows there are) as vectors of their own.
    pub fn slice(&self, rows: std::ops::Range<usize>) -> SparseVectors {
        let end = rows.end.min(self.len());
        let start = rows.start.min(end);
        let (s, e) = (self.starts[start], self.starts[end]);
        SparseVectors {
            dim: self.dim,
            starts: self.starts[start..=end].iter().map(|x| x - s).collect(),
            cols: self.cols[s..e].to_vec(),
            vals: self.vals[s..e].to_vec(),
        }
    }

    /// The rows `order` names, in that order (a permutation of the rows: the
    /// shuffled batch of [`crate::pseudonym::Rows`]).
    pub fn select(&self, order: &[usize]) -> SparseVectors {
        let mut out = SparseVectors::new(self.dim);
        out.starts.reserve_exact(order.len());
        out.cols.reserve_exact(self.nnz());
        out.vals.reserve_exact(self.nnz());
        for &r in order {
            let (c, v) = self.row(r);
            out.cols.extend_from_slice(c);
            out.vals.extend_from_slice(v);
            out.starts.push(out.cols.len());
        }
        out
    }

    /// Non-zero entries in all.
    pub fn nnz(&self) -> usize {
        self.cols.len()
    }

    /// Row `r`'s coordinates and values.
    pub fn row(&self, r: usize) -> (&[u32], &[f32]) {
        let range = self.starts[r]..self.starts[r + 1];
        (&self.cols[range.clone()], &self.vals[range])
    }

    /// Row `r` as a key that is equal for identical rows (the same
    /// coordinates and bit-identical values), to group them without a copy.
    pub fn row_key(&self, r: usize) -> RowKey<'_> {
        let (cols, vals) = self.row(r);
        RowKey { cols, vals }
    }

    /// Checks the invariants (a message's vectors are checked before use).
    pub fn validate(&self) -> Result<(), String> {
        if self.starts.first() != Some(&0) || self.starts.last() != Some(&self.cols.len()) {
            return Err("its row offsets do not cover its entries".into());
        }
        if self.vals.len() != self.cols.len() {
            return Err(format!("{} coordinates but {} values", self.cols.len(), self.vals.len()));
        }
        if self.starts.windows(2).any(|w| w[0] > w[1]) {
            return Err("its row offsets are not ascending".into());
        }
        for r in 0..self.len() {
            let (cols, vals) = self.row(r);
            if cols.windows(2).any(|w| w[0] >= w[1]) || cols.last().is_some_and(|&c| c as usize >= self.dim) {
                return Err(format!("row {r}: its coordinates are not ascending below {}", self.dim));
            }
            if vals.iter().any(|v| !v.is_finite() || *v == 0.0) {
                return Err(format!("row {r}: a value is zero or not finite"));
            }
        }
        Ok(())
    }
}

/// A matrix read row by row through its non-zero entries, dense or sparse:
/// what the q-gram filter and the record comparisons build their rows from.
pub trait RowSource {
    fn dim(&self) -> usize;
    fn rows(&self) -> usize;
    /// Calls `f(coordinate, value)` for each non-zero entry of row `r`, in
    /// coordinate order.
    fn nonzero(&self, r: usize, f: &mut dyn FnMut(u32, f32));
    /// The rows as they are, when they are held sparse (no copy needed).
    fn as_sparse(&self) -> Option<&SparseVectors> {
        None
    }
}

impl RowSource for SparseVectors {
    fn as_sparse(&self) -> Option<&SparseVectors> {
        Some(self)
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn rows(&self) -> usize {
        self.len()
    }
    fn nonzero(&self, r: usize, f: &mut dyn FnMut(u32, f32)) {
        let (cols, vals) = self.row(r);
        for (&c, &v) in cols.iter().zip(vals) {
            f(c, v);
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn rows_keep_their_non_zero_entries_and_damage_is_named() {
        let mut s = SparseVectors::new(4);
        s.push_row([(1, 1.5), (2, 0.0), (3, 2.0)]);
        s.push_row([]);
        s.push_row([(0, 3.0), (3, 0.5)]);
        assert_eq!((s.len(), s.nnz()), (3, 4));
        assert_eq!(s.row(0), (&[1, 3][..], &[1.5, 2.0][..]));
        assert_eq!(s.row(1), (&[][..], &[][..]));
        s.validate().unwrap();
        let mut bad = s.clone();
        bad.cols[1] = 1;
        assert!(bad.validate().unwrap_err().contains("row 0"));
        let mut bad = s.clone();
        bad.cols[3] = 4;
        assert!(bad.validate().unwrap_err().contains("below 4"));
        let mut bad = s.clone();
        bad.vals[0] = f32::NAN;
        assert!(bad.validate().is_err());
        let mut bad = s;
        bad.starts[3] = 9;
        assert!(bad.validate().is_err());
    }
}
