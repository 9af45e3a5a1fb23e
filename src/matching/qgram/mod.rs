//! The recommended matcher: a sound q-gram count filter, then pairs ranked by
//! cosine distance for the one-to-one assignment.
//!
//! **Why.** The Euclidean sound threshold bounds the *squared* change an edit can
//! make, which for short records and ed ≥ 2 admits nearly every pair (NAMES at
//! ed 2: all 10⁸ pairs of 10,000 names). Counting instead of squaring is much
//! tighter: one edit of a record changes at most `L` windows of length `L` and
//! creates at most `L` (a substitution touches the `L` windows through its
//! position, an insertion splits one window set, a deletion merges one), so over
//! the coordinates of gram length `L`
//!
//!   Σ |n_a − n_b| ≤ 2·L·ed            (the q-gram lemma, per length class),
//!
//! with `n` the occurrence counts (`value · L`, exact: see [`crate::embed`]). When
//! the base holds *every* window of length `L` a record can have (a *complete*
//! class: every public 2-gram of Σ and the boundary grams, [`crate::public`]),
//! the class total is the number of windows, `|^s$| − L + 1`, so also
//!
//!   |N_a − N_b| ≤ ed                   (record lengths differ by ≤ ed edits).
//!
//! Every pair of records within `ed` edits passes both tests and the Euclidean
//! sound threshold; a pair failing one is provably farther than `ed` edits. So the
//! filter only removes pairs that cannot be true at the stated `ed`.
//!
//! **Candidates.** With `O = Σ min(n_a, n_b)` over the complete class `f`, the
//! first test gives `O ≥ τ(N_b) = (N_a + N_b − 2·L_f·ed)/2`. A's coordinates of
//! `f` are probed rarest first; `rem_j` is A's count from coordinate `j` on. A row
//! sharing none of the first `j` has `O ≤ rem_j`, so coordinate `j` is probed only
//! for rows with `N_b ≤ 2·rem_j − N_a + 2·L_f·ed` (posting lists are sorted by
//! `N_b`), and only within `|N_a − N_b| ≤ ed`; rows sharing nothing qualify only
//! when `τ(N_b) ≤ 0` and are taken from B sorted by `N_b`. All of it is integer
//! arithmetic. Every qualifying row is met at its first shared coordinate, so the
//! candidates are exactly those of a brute-force scan (a test checks it).
//!
//! **Ranking.** Among the pairs passing the filter, each A row keeps its `per_row`
//! best by cosine distance `1 − a·b/(‖a‖‖b‖)`: on 0/1 gram counts of one length
//! that is one minus the Dice-like overlap of the two gram sets normalized by
//! their sizes, so a long record with a few differing grams ranks above a short
//! one with as many (the plain Euclidean distance counts differing grams only).
//! The greedy assignment ([`one_to_one_scored`]) then takes pairs by increasing
//! score. Ranking uses nothing but the two vectors: the privacy model is the
//! paper's (C sees vectors, thresholds and the base's gram lengths, a function of
//! the shared base).

mod build;

use super::{MatchStats, Pair};
use crate::embed::Vectors;
use crate::error::Error;
use crate::shape::Shape;
use crate::sparse_vectors::{RowSource, SparseVectors};
use build::build;
use std::borrow::Cow;

/// Most pairs kept per A row by the recommended matcher (the greedy assignment
/// rarely reaches beyond the first few; NAMES at ed 2 keeps 88 per row on
/// average before this cap).
pub const PER_ROW: usize = 64;

/// `1 − cos` of two vectors from their norms and distance
/// (`a·b = (‖a‖² + ‖b‖² − d²)/2`); 1 when either is zero. Clamped to [0, 2].
pub fn cosine_distance(norm_a: f64, norm_b: f64, d: f64) -> f64 {
    let den = norm_a * norm_b;
    if den > 0.0 {
        (1.0 - (norm_a * norm_a + norm_b * norm_b - d * d) / (2.0 * den)).clamp(0.0, 2.0)
    } else {
        1.0
    }
}

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
const MAX_TOTAL: i64 = (1 << 31) - 1;

/// A posting's sort key: the row's class total, then its count before the
/// coordinate (both ≤ [`MAX_TOTAL`], so they fit 32 bits each).
fn posting_key(total: i64, pre: i64) -> u64 {
    ((total as u64) << 32) | pre as u64
}

/// Sparse rows (borrowed when the source holds them sparse) with integer
/// counts, per-class totals and squared norms.
struct Rows<'v> {
    m: Cow<'v, SparseVectors>,
    /// Clamped to `MAX_COUNT` (2²⁰), so they fit an i32.
    counts: Vec<i32>,
    /// `totals[r * classes + c]`: count total of row r in class c.
    totals: Vec<i64>,
    norm2: Vec<f64>,
}

/// Per coordinate: class index, and the lengths of the classes.
struct Classes {
    of: Vec<usize>,
    len: Vec<i64>,
    complete: Vec<bool>,
}

impl Classes {
    fn new(shape: &Shape) -> Classes {
        let mut len: Vec<u8> = shape.lengths.clone();
        crate::sorting::sort_by(&mut len, |x, y| x.cmp(y));
        len.dedup();
        let of = shape.lengths.iter().map(|l| len.iter().position(|x| x == l).unwrap_or(0)).collect();
        let complete = len.iter().map(|l| shape.complete.contains(l)).collect();
        Classes { of, len: len.into_iter().map(i64::from).collect(), complete }
    }
}

impl<'v> Rows<'v> {
    fn new(v: &'v dyn RowSource, cl: &Classes) -> Rows<'v> {
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
        let mut r = Rows {
            counts: Vec::with_capacity(m.nnz()),
            totals: vec![0; v.rows() * k],
            norm2: Vec::with_capacity(v.rows()),
            m,
        };
        for i in 0..r.m.len() {
            let mut n2 = 0.0f64;
            let (cols, vals) = r.m.row(i);
            for (&j, &x) in cols.iter().zip(vals) {
                let c = cl.of[j as usize];
                let n = ((x as f64) * cl.len[c] as f64).round().clamp(0.0, MAX_COUNT as f64) as i64;
                r.counts.push(n as i32);
                r.totals[i * k + c] += n;
                n2 += x as f64 * x as f64;
            }
            r.norm2.push(n2);
        }
        r
    }

    fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.m.starts[i]..self.m.starts[i + 1]
    }
}

/// The index over B of the filter class.
struct CountFilter<'v> {
    cl: Classes,
    a: Rows<'v>,
    b: Rows<'v>,
    f: usize,
    ed: i64,
    /// B rows sorted by (N_f, row), and their N_f.
    by_total: Vec<u32>,
    by_total_n: Vec<i64>,
    /// Per coordinate of class f: B rows holding it, sorted by [`posting_key`]
    /// (N_f, then `pre`: the row's class-f count on coordinates before this one
    /// in the global order), then row; and their keys.
    postings: Vec<Vec<u32>>,
    posting_key: Vec<Vec<u64>>,
    /// For each posting: the row's class-f signature ([`signature`]).
    posting_sig: Vec<Vec<u64>>,
    /// Global order of the class-f coordinates: rarest in B first (ties by index).
    rank: Vec<u32>,
}

/// Bit of a coordinate in a row signature (a fixed multiplicative hash).
fn sig_bit(c: usize) -> u64 {
    1u64 << ((c as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

/// The set of bits of a row's class-f coordinates. With `w(bit)` A's count on
/// the coordinates hashed to a bit, the overlap is at most
/// `Σ_{bit ∈ sig_a & sig_b} w(bit) ≤ popcount(sig_a & sig_b) + N_a − popcount(sig_a)`
/// (each bit of A carries weight ≥ 1; collisions inside A are in the second term).
fn signature(cols: impl Iterator<Item = usize>) -> u64 {
    cols.fold(0, |s, c| s | sig_bit(c))
}

/// Per-thread buffers: A's row as dense counts and values, per-class overlaps.
struct DenseRow {
    cnt: Vec<i64>,
    val: Vec<f32>,
    overlap: Vec<i64>,
}

impl CountFilter<'_> {
    fn total(&self, rows: &Rows, r: usize, c: usize) -> i64 {
        rows.totals[r * self.cl.len.len() + c]
    }

    /// Loads A row `i` into the dense scratch (counts and values by coordinate).
    fn load(&self, i: usize, sc: &mut DenseRow) {
        for x in self.a.range(i) {
            let c = self.a.m.cols[x] as usize;
            sc.cnt[c] = self.a.counts[x] as i64;
            sc.val[c] = self.a.m.vals[x];
        }
    }

    /// Clears what [`CountFilter::load`] set.
    fn unload(&self, i: usize, sc: &mut DenseRow) {
        for x in self.a.range(i) {
            let c = self.a.m.cols[x] as usize;
            sc.cnt[c] = 0;
            sc.val[c] = 0.0;
        }
    }

    /// The pair's verdict: `Some((distance, score))` when it passes every test.
    /// A row `i` must be loaded in `sc`. The count tests run first, on B's
    /// non-zeros against the dense A row; only pairs passing them get the exact
    /// distance (the same squares in the same coordinate order as `distance`).
    fn verify(&self, i: usize, j: usize, th: f64, sc: &mut DenseRow) -> Option<(f64, f64, u32)> {
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
        let rb = self.b.range(j);
        let mut dot = 0.0f64;
        for y in rb.clone() {
            let c = self.b.m.cols[y] as usize;
            let na = sc.cnt[c];
            if na > 0 {
                sc.overlap[self.cl.of[c]] += na.min(self.b.counts[y] as i64);
                dot += sc.val[c] as f64 * self.b.m.vals[y] as f64;
            }
        }
        for c in 0..k {
            let l1 = self.total(&self.a, i, c) + self.total(&self.b, j, c) - 2 * sc.overlap[c];
            if l1 > 2 * self.cl.len[c] * self.ed {
                return None;
            }
            edits = edits.max(edit_bound(l1, self.cl.len[c]));
        }
        let ra = self.a.range(i);
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
        let d = s.sqrt();
        if d > th {
            return None;
        }
        let den = (self.a.norm2[i] * self.b.norm2[j]).sqrt();
        let score = if den > 0.0 { (1.0 - dot / den).max(0.0) } else { 1.0 };
        Some((d, score, edits as u32))
    }

    /// The candidates of A row `i` (each once), into `out`.
    fn candidates(&self, i: usize, seen: &mut [u32], stamp: u32, order: &mut Vec<(usize, usize)>, out: &mut Vec<u32>) {
        out.clear();
        let n = self.total(&self.a, i, self.f);
        let budget = 2 * self.cl.len[self.f] * self.ed;
        let (lo, hi) = (n - self.ed, n + self.ed);
        let mut add = |r: u32, out: &mut Vec<u32>| {
            if seen[r as usize] != stamp {
                seen[r as usize] = stamp;
                out.push(r);
            }
        };
        // rows sharing nothing qualify only when τ(N_b) ≤ 0, i.e. N_b ≤ budget − n
        let free_hi = hi.min(budget - n);
        if free_hi >= lo {
            let s = self.by_total_n.partition_point(|&t| t < lo);
            let e = self.by_total_n.partition_point(|&t| t <= free_hi);
            for &r in &self.by_total[s..e] {
                add(r, out);
            }
        }
        order.clear();
        for x in self.a.range(i) {
            let c = self.a.m.cols[x] as usize;
            if self.cl.of[c] == self.f {
                order.push((self.rank[c] as usize, x));
            }
        }
        crate::sorting::sort_by(order, |x, y| x.0.cmp(&y.0));
        let sig_a = signature(order.iter().map(|&(_, x)| self.a.m.cols[x] as usize));
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
            // a row is taken at most once, exactly when it first passes.
            for nb in lo.max(0)..=upper {
                let need = n + nb - budget;
                let max_pre = nb - (need.max(0) + 1) / 2;
                if max_pre < 0 {
                    continue;
                }
                let s = keys.partition_point(|&k| k < posting_key(nb, 0));
                let e = keys.partition_point(|&k| k <= posting_key(nb, max_pre));
                for (&r, &sig) in self.postings[c][s..e].iter().zip(&self.posting_sig[c][s..e]) {
                    let shared = (sig_a & sig).count_ones() as i64 + extra_a;
                    if 2 * shared < need || seen[r as usize] == stamp {
                        continue;
                    }
                    seen[r as usize] = stamp;
                    out.push(r);
                }
            }
            rem -= self.a.counts[x] as i64;
        }
    }
}

/// The pairs of A rows `rows` passing every test, each row's best `per_row` by
/// (score, distance, b), in A-row order; and the number of candidates verified.
/// Never inlined: in wasm, V8 optimizes it between the chunks' calls.
#[inline(never)]
fn match_rows(
    ix: &CountFilter,
    th: &[f64],
    rows: std::ops::Range<usize>,
    per_row: usize,
    nb: usize,
) -> (Vec<Scored>, u64) {
    let mut seen = vec![0u32; nb];
    let mut stamp = 0u32;
    let (mut order, mut cand, mut found) = (Vec::new(), Vec::new(), Vec::new());
    let mut sc =
        DenseRow { cnt: vec![0; ix.cl.of.len()], val: vec![0.0; ix.cl.of.len()], overlap: vec![0; ix.cl.len.len()] };
    let mut out = Vec::new();
    let mut candidates = 0u64;
    for i in rows {
        stamp = stamp.wrapping_add(1);
        if stamp == 0 {
            seen.iter_mut().for_each(|s| *s = 0);
            stamp = 1;
        }
        ix.candidates(i, &mut seen, stamp, &mut order, &mut cand);
        // B's rows in memory order: their reads then walk forward, not at random
        crate::sorting::sort_keys(&mut cand);
        candidates += cand.len() as u64;
        found.clear();
        ix.load(i, &mut sc);
        for &j in &cand {
            if let Some((d, score, edits)) = ix.verify(i, j as usize, th[i], &mut sc) {
                found.push(Scored { pair: Pair { a: i as u32, b: j, distance: d }, score, edits });
            }
        }
        ix.unload(i, &mut sc);
        let by_rank = |x: &Scored, y: &Scored| {
            x.score.total_cmp(&y.score).then(x.pair.distance.total_cmp(&y.pair.distance)).then(x.pair.b.cmp(&y.pair.b))
        };
        // one sort for both (wasm has one sort routine: code size)
        crate::sorting::sort_by(&mut found, by_rank);
        found.truncate(per_row);
        out.extend_from_slice(&found);
    }
    (out, candidates)
}

/// The recommended match: for each A row, its best `per_row` B rows by cosine
/// distance among those passing the q-gram filter and A's (sound) threshold for
/// `ed` edits. Uses every core natively; the result does not depend on it.
///
/// Errors when the vectors do not fit the shape, the shape has no complete class,
/// or the thresholds are not one finite number ≥ 0 per A row.
pub fn scored_match(
    a: &Vectors,
    b: &Vectors,
    thresholds: &[f64],
    ed: u32,
    shape: &Shape,
    per_row: usize,
) -> Result<(Vec<Scored>, MatchStats), Error> {
    super::validate(a, b, thresholds)?;
    scored_match_rows(a, b, thresholds, ed, shape, per_row)
}

/// [`scored_match`] on any rows (dense or sparse, [`RowSource`]): the same
/// pairs and scores for the same vectors. `thresholds` (one per A row) must
/// be finite and non-negative, as [`scored_match`] checks for dense vectors.
pub fn scored_match_rows(
    a: &dyn RowSource,
    b: &dyn RowSource,
    thresholds: &[f64],
    ed: u32,
    shape: &Shape,
    per_row: usize,
) -> Result<(Vec<Scored>, MatchStats), Error> {
    if thresholds.len() != a.rows() || thresholds.iter().any(|t| !t.is_finite() || *t < 0.0) {
        return Err(Error::Parameter(format!(
            "{} thresholds for {} A rows, each must be finite and >= 0",
            thresholds.len(),
            a.rows()
        )));
    }
    let ix = build(a, b, ed, shape)?;
    let per_row = per_row.max(1);
    let (na, nb) = (a.rows(), b.rows());
    let parts = crate::par::chunks(na, 512, |rows| match_rows(&ix, thresholds, rows, per_row, nb));
    let mut out = Vec::new();
    let mut candidates = 0;
    for (p, c) in parts {
        out.extend(p);
        candidates += c;
    }
    let stats = MatchStats { candidates, pairs: out.len() as u64 };
    Ok((out, stats))
}

/// Greedy one-to-one by increasing score (ties: distance, then a, then b); each
/// A and each B row is linked at most once. Sorted by (a, distance, b).
pub fn one_to_one_scored(pairs: &[Scored]) -> Vec<Pair> {
    let mut order: Vec<&Scored> = pairs.iter().collect();
    crate::sorting::sort_by(&mut order, |x, y| {
        x.score
            .total_cmp(&y.score)
            .then(x.pair.distance.total_cmp(&y.pair.distance))
            .then(x.pair.a.cmp(&y.pair.a))
            .then(x.pair.b.cmp(&y.pair.b))
    });
    let max_a = pairs.iter().map(|p| p.pair.a as usize + 1).max().unwrap_or(0);
    let max_b = pairs.iter().map(|p| p.pair.b as usize + 1).max().unwrap_or(0);
    let (mut used_a, mut used_b) = (vec![false; max_a], vec![false; max_b]);
    let mut out = Vec::new();
    for s in order {
        let p = s.pair;
        if !used_a[p.a as usize] && !used_b[p.b as usize] {
            used_a[p.a as usize] = true;
            used_b[p.b as usize] = true;
            out.push(p);
        }
    }
    super::sort_by_a(&mut out);
    out
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
