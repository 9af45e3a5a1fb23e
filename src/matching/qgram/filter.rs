//! The q-gram count filter: its index over B (per-class count totals, posting
//! lists, row signatures; built in build.rs) and its verdict on a pair, the
//! bound on edits it proves, and the scored pair it yields. The argument is in
//! the parent module's documentation.

use super::signature::signature;
use crate::matching::pairs::Pair;
use crate::shape::Shape;
use crate::sparse_vectors::{RowSource, SparseVectors};
use std::borrow::Cow;

/// A pair with its ranking score (cosine distance, in [0, 2]) and, when the
/// q-gram filter tested it, the fewest edits the filter allows between the two
/// records ([`edit_bound`]'s proven lower bound; 0 when untested).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    pub pair: Pair,
    pub score: f64,
    pub edits: u32,
}

/// The fewest edits that can change a class of gram length `len` by `l1`
/// (`Σ |n_a − n_b|` over its coordinates): one edit changes at most `2·len`
/// of it (the q-gram lemma above), so `⌈l1 / (2·len)⌉`.
pub fn edit_bound(l1: i64, len: i64) -> i64 {
    let per_edit = 2 * len.max(1);
    (l1.max(0) + per_edit - 1) / per_edit
}

/// Largest count a coordinate may hold here (bigger values are clamped: only a
/// forged vector has them, and it then links to nothing useful, without panic).
const MAX_COUNT: i64 = 1 << 20;

/// Largest class total accepted (a record of 4 KB has about 4,100 windows).
pub(super) const MAX_TOTAL: i64 = (1 << 31) - 1;

/// A posting's sort key: the row's class total, then its count before the
/// coordinate (both ≤ [`MAX_TOTAL`], so they fit 32 bits each).
pub(super) fn posting_key(total: i64, pre: i64) -> u64 {
    ((total as u64) << 32) | pre as u64
}

/// Sparse rows (borrowed when the source holds them sparse) with per-class
/// count totals and squared norms. A non-zero's count is not stored but read
/// off its value ([`Classes::count`]): one array fewer to load per B row
/// verified, and 4 bytes less per non-zero.
pub(super) struct Rows<'v> {
    pub(super) m: Cow<'v, SparseVectors>,
    /// `totals[r * classes + c]`: count total of row r in class c.
    pub(super) totals: Vec<i64>,
    norm2: Vec<f64>,
}

/// Per coordinate: class index, and the lengths of the classes.
pub(super) struct Classes {
    pub(super) of: Vec<usize>,
    pub(super) len: Vec<i64>,
    complete: Vec<bool>,
    /// Per coordinate: its class's gram length, as f64.
    len_of: Vec<f64>,
}

impl Classes {
    pub(super) fn new(shape: &Shape) -> Classes {
        let mut len: Vec<u8> = shape.lengths.clone();
        crate::sorting::sort_by(&mut len, |x, y| x.cmp(y));
        len.dedup();
        let of = shape.lengths.iter().map(|l| len.iter().position(|x| x == l).unwrap_or(0)).collect();
        let complete = len.iter().map(|l| shape.complete.contains(l)).collect();
        let len_of = shape.lengths.iter().map(|&l| f64::from(l)).collect();
        Classes { of, len: len.into_iter().map(i64::from).collect(), complete, len_of }
    }

    /// The occurrence count of value `x` at coordinate `c` (`x · L`, exact
    /// for an honest vector; rounded and clamped to [`MAX_COUNT`] otherwise).
    #[inline]
    pub(super) fn count(&self, c: usize, x: f32) -> i64 {
        ((x as f64) * self.len_of[c]).round().clamp(0.0, MAX_COUNT as f64) as i64
    }
}

impl<'v> Rows<'v> {
    pub(super) fn new(v: &'v dyn RowSource, cl: &Classes) -> Rows<'v> {
        let k = cl.len.len();
        let m = match v.as_sparse() {
            Some(m) => Cow::Borrowed(m),
            None => {
                let mut m = SparseVectors::new(v.dim());
                let mut row = Vec::new();
                for i in 0..v.rows() {
                    row.clear();
                    v.nonzero(i, &mut |j, x| row.push((j, x)));
                    m.push_row(row.iter().copied());
                }
                Cow::Owned(m)
            }
        };
        let mut r = Rows { totals: vec![0; v.rows() * k], norm2: Vec::with_capacity(v.rows()), m };
        for i in 0..r.m.len() {
            let mut n2 = 0.0f64;
            let (cols, vals) = r.m.row(i);
            for (&j, &x) in cols.iter().zip(vals) {
                let n = cl.count(j as usize, x);
                r.totals[i * k + cl.of[j as usize]] += n;
                n2 += x as f64 * x as f64;
            }
            r.norm2.push(n2);
        }
        r
    }

    pub(super) fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.m.starts[i]..self.m.starts[i + 1]
    }
}

/// The index over B of the filter class.
pub(super) struct CountFilter<'v> {
    pub(super) cl: Classes,
    pub(super) a: Rows<'v>,
    pub(super) b: Rows<'v>,
    pub(super) f: usize,
    pub(super) ed: i64,
    /// B rows sorted by (N_f, row), and their N_f.
    pub(super) by_total: Vec<u32>,
    pub(super) by_total_n: Vec<i64>,
    /// Per coordinate of class f: B rows holding it, sorted by [`posting_key`]
    /// (N_f, then `pre`: the row's class-f count on coordinates before this one
    /// in the global order), then row; and their keys.
    pub(super) postings: Vec<Vec<u32>>,
    pub(super) posting_key: Vec<Vec<u64>>,
    /// For each posting: the row's class-f signature ([`signature`]).
    pub(super) posting_sig: Vec<Vec<u64>>,
    /// Global order of the class-f coordinates: rarest in B first (ties by index).
    pub(super) rank: Vec<u32>,
    /// Per coordinate: its bit in a row signature ([`signature_bits`]).
    pub(super) bit: Vec<u64>,
}

/// Per-thread buffers: A's row as dense counts and values, per-class overlaps.
pub(super) struct DenseRow {
    pub(super) cnt: Vec<i64>,
    pub(super) val: Vec<f32>,
    pub(super) overlap: Vec<i64>,
}

/// What [`CountFilter::count_tests`] found of a pair that passed them.
pub(super) struct Tested {
    na2: f64,
    nb2: f64,
    dot: f64,
    pub(super) edits: u32,
}

impl Tested {
    /// The pair's cosine distance, its ranking score.
    pub(super) fn score(&self) -> f64 {
        let den = (self.na2 * self.nb2).sqrt();
        if den > 0.0 {
            (1.0 - self.dot / den).max(0.0)
        } else {
            1.0
        }
    }
}

impl CountFilter<'_> {
    fn total(&self, rows: &Rows, r: usize, c: usize) -> i64 {
        rows.totals[r * self.cl.len.len() + c]
    }

    /// Loads A row `i` into the dense scratch (counts and values by coordinate).
    pub(super) fn load(&self, i: usize, sc: &mut DenseRow) {
        for x in self.a.range(i) {
            let c = self.a.m.cols[x] as usize;
            sc.cnt[c] = self.cl.count(c, self.a.m.vals[x]);
            sc.val[c] = self.a.m.vals[x];
        }
    }

    /// Clears what [`CountFilter::load`] set.
    pub(super) fn unload(&self, i: usize, sc: &mut DenseRow) {
        for x in self.a.range(i) {
            let c = self.a.m.cols[x] as usize;
            sc.cnt[c] = 0;
            sc.val[c] = 0.0;
        }
    }

    /// The pair's verdict: `Some((score, edits))` when it passes every test.
    /// A row `i` must be loaded in `sc`. The count tests run first, on B's
    /// non-zeros against the dense A row; the Euclidean test then reads the
    /// distance off the dot product (`d² = ‖a‖² + ‖b‖² − 2·a·b`) and only when
    /// that is too close to A's threshold to call does it compute
    /// [`CountFilter::distance`], so the verdict is that of the exact distance.
    #[cfg(all(test, feature = "eval", not(target_arch = "wasm32")))] // the full-scan test's
    pub(super) fn verify(&self, i: usize, j: usize, th: f64, sc: &mut DenseRow) -> Option<(f64, u32)> {
        let t = self.count_tests(i, j, sc)?;
        self.within(&t, i, j, th).then(|| (t.score(), t.edits))
    }

    /// The count tests of [`CountFilter::verify`] and the pair's dot product:
    /// `None` when a count test fails. Every number here is symmetric in the
    /// two rows (the class totals' differences, the overlaps, and the dot
    /// product summed over the shared coordinates in column order, whichever
    /// row is loaded), so one call decides both ways of a pair
    /// ([`super::rows::match_rows`] with B's thresholds).
    pub(super) fn count_tests(&self, i: usize, j: usize, sc: &mut DenseRow) -> Option<Tested> {
        let k = self.cl.len.len();
        let mut edits = 0i64;
        for c in 0..k {
            if self.cl.complete[c] {
                let dn = (self.total(&self.a, i, c) - self.total(&self.b, j, c)).abs();
                if dn > self.ed {
                    return None;
                }
                edits = edits.max(dn);
            }
        }
        sc.overlap.iter_mut().for_each(|x| *x = 0);
        let mut dot = 0.0f64;
        for y in self.b.range(j) {
            let c = self.b.m.cols[y] as usize;
            let na = sc.cnt[c];
            if na > 0 {
                let x = self.b.m.vals[y];
                sc.overlap[self.cl.of[c]] += na.min(self.cl.count(c, x));
                dot += sc.val[c] as f64 * x as f64;
            }
        }
        for c in 0..k {
            let l1 = self.total(&self.a, i, c) + self.total(&self.b, j, c) - 2 * sc.overlap[c];
            if l1 > 2 * self.cl.len[c] * self.ed {
                return None;
            }
            edits = edits.max(edit_bound(l1, self.cl.len[c]));
        }
        Some(Tested { na2: self.a.norm2[i], nb2: self.b.norm2[j], dot, edits: edits as u32 })
    }

    /// The Euclidean test of [`CountFilter::verify`] against threshold `th`
    /// (either row's: the distance is symmetric).
    pub(super) fn within(&self, t: &Tested, i: usize, j: usize, th: f64) -> bool {
        let (d2, th2) = (t.na2 + t.nb2 - 2.0 * t.dot, th * th);
        // Every product of two f32 is exact in f64, so each sum here and in
        // `distance` is within n·2⁻⁵³ of its terms' magnitude (n non-zeros, a few
        // thousand at most): far inside this slack, outside which both agree.
        let slack = 1e-9 * (t.na2 + t.nb2 + th2);
        !(d2 > th2 + slack || (d2 >= th2 - slack && self.distance(i, j) > th))
    }

    /// The Euclidean distance of A row `i` and B row `j`: the same squares in
    /// the same coordinate order as the other matchers' distance, so the pairs
    /// carry bit-identical distances whichever matcher found them.
    pub(super) fn distance(&self, i: usize, j: usize) -> f64 {
        let (ra, rb) = (self.a.range(i), self.b.range(j));
        let (mut x, mut y) = (ra.start, rb.start);
        let mut s = 0.0f64;
        while x < ra.end || y < rb.end {
            let ca = if x < ra.end { self.a.m.cols[x] } else { u32::MAX };
            let cb = if y < rb.end { self.b.m.cols[y] } else { u32::MAX };
            let d = if ca == cb {
                x += 1;
                y += 1;
                self.a.m.vals[x - 1] as f64 - self.b.m.vals[y - 1] as f64
            } else if ca < cb {
                x += 1;
                self.a.m.vals[x - 1] as f64
            } else {
                y += 1;
                self.b.m.vals[y - 1] as f64
            };
            s += d * d;
        }
        s.sqrt()
    }

    /// The candidates of A row `i`, into `out`, sorted by row, each once (a
    /// sort and a dedup: a stamp per B row read at random cost more).
    pub(super) fn candidates(&self, i: usize, order: &mut Vec<(usize, usize)>, out: &mut Vec<u32>) {
        out.clear();
        let n = self.total(&self.a, i, self.f);
        let budget = 2 * self.cl.len[self.f] * self.ed;
        let (lo, hi) = (n - self.ed, n + self.ed);
        // rows sharing nothing qualify only when τ(N_b) ≤ 0, i.e. N_b ≤ budget − n
        let free_hi = hi.min(budget - n);
        if free_hi >= lo {
            let s = self.by_total_n.partition_point(|&t| t < lo);
            let e = self.by_total_n.partition_point(|&t| t <= free_hi);
            out.extend_from_slice(&self.by_total[s..e]);
        }
        order.clear();
        for x in self.a.range(i) {
            let c = self.a.m.cols[x] as usize;
            if self.cl.of[c] == self.f {
                order.push((self.rank[c] as usize, x));
            }
        }
        crate::sorting::sort_by(order, |x, y| x.0.cmp(&y.0));
        let sig_a = signature(&self.bit, order.iter().map(|&(_, x)| self.a.m.cols[x] as usize));
        // O ≤ popcount(sig_a & sig_b) + (A's count beyond one per bit), see `signature`
        let extra_a = n - sig_a.count_ones() as i64;
        let mut rem = n;
        for &(_, x) in order.iter() {
            let upper = hi.min(2 * rem - n + budget);
            if upper < lo {
                break;
            }
            let c = self.a.m.cols[x] as usize;
            let keys = &self.posting_key[c];
            // Positional filter (PPJoin): met here first, b shares none of A's
            // earlier coordinates and none of its own before `pre` (earlier in
            // the same global order), so O ≤ min(rem, N_b − pre), and O ≥ τ(N_b)
            // needs pre ≤ N_b − ⌈need/2⌉: a prefix of each N_b group. A row
            // whose true first shared coordinate came earlier but failed there
            // fails here too (`rem`, `N_b − pre` and the range only shrink), so
            // a row is taken exactly when it passes at its first shared
            // coordinate (and maybe again later: the dedup below).
            for nb in lo.max(0)..=upper {
                let need = n + nb - budget;
                let max_pre = nb - (need.max(0) + 1) / 2;
                if max_pre < 0 {
                    continue;
                }
                let s = keys.partition_point(|&k| k < posting_key(nb, 0));
                let e = keys.partition_point(|&k| k <= posting_key(nb, max_pre));
                for (&r, &sig) in self.postings[c][s..e].iter().zip(&self.posting_sig[c][s..e]) {
                    let common = (sig_a & sig).count_ones() as i64;
                    // A's extra first (known per row); B's (its count beyond one
                    // per bit of its signature) only for the rows that pass it
                    if 2 * (common + extra_a) >= need && 2 * (common + nb - sig.count_ones() as i64) >= need {
                        out.push(r);
                    }
                }
            }
            rem -= self.cl.count(c, self.a.m.vals[x]);
        }
        // B's rows in memory order: their reads then walk forward, not at random
        crate::sorting::sort_keys(out);
        out.dedup();
    }
}
