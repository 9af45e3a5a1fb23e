//! The lower bounds of d(a, b)² that the index prunes with, and why they hold.
//!
//! Write Δ_i = a_i − b_i, so d(a, b)² = Σ_i Δ_i². Three bounds, each a sum over
//! disjoint sets of coordinates, so they add up:
//!
//! 1. **Partial sums.** For any set T of coordinates, Σ_{i∈T} Δ_i² ≤ d². The trie
//!    fixes the exact values of its first coordinates, so their terms are known.
//! 2. **Lattice sums.** Let s_i be the smallest gap between two distinct values of
//!    coordinate i in A ∪ B (the embedding's 1-gram counts give s_i = 1, 2-gram
//!    coordinates s_i = 1/2, 3-grams 1/3). Then Δ_i is 0 or |Δ_i| ≥ s_i, so
//!    Δ_i² ≥ s_i·|Δ_i|, and for any set S:
//!    Σ_{i∈S} Δ_i² ≥ Σ_{i∈S} s_i·|Δ_i| ≥ |W_S(a) − W_S(b)|, W_S(v) = Σ_{i∈S} s_i·v_i.
//!    One number per vector (its "weight" over S) bounds the whole of S: this is
//!    what makes the bound strong on short strings, where d² is a few units.
//!    A coordinate with more than [`MAX_DISTINCT`] distinct values gets s_i = 0:
//!    the bound then ignores it, and stays true for any input.
//! 3. **Keys.** For blocks S_j of coordinates sharing one gap s_j, the integer
//!    n_j = round(Σ_{i∈S_j} v_i / s_j) satisfies, with E_j the largest rounding
//!    residual seen, s_j²·(|Δn_j| − 2E_j) ≤ s_j·|Σ_{i∈S_j} Δ_i| ≤ Σ_{i∈S_j} Δ_i².
//!    A key holds 32 such bytes, each stored as f_j·(n_j − offset_j), clamped to
//!    0..=255 (clamping never increases a difference), with f_j = ⌊s_j²/U⌋ for
//!    the smallest U = min s_j²; so U·|Δbyte_j| − 2s_j²E_j ≤ Σ_{i∈S_j} Δ_i², and
//!    one sum of absolute byte differences (`psadbw` on x86) bounds them all.
//!    Bytes 0..16 are the trie's coordinates one by one; a byte the trie has
//!    fixed is not counted twice: the walk carries the exact sum q of the fixed
//!    bytes' differences and the index subtracts it. Bytes 16..32 sum the other
//!    coordinates in blocks.
//!
//! Every bound is computed in f64, in an order other than [`super::distance`]'s,
//! so a pair is pruned only when its bound exceeds th² by a margin far above the
//! rounding error ([`Layout::limit`]); everything else is decided by `distance`.

use crate::embed::Vectors;

/// Bytes of key per vector.
pub const KEY: usize = 32;
/// Key bytes for the trie's own coordinates; the trie is at most this deep.
pub const MAX_DEPTH: usize = 16;
const GROUP: usize = 8;
/// Beyond this many distinct values a coordinate is treated as continuous.
pub const MAX_DISTINCT: usize = 64;

pub type Key = [u8; KEY];

/// How the coordinates are used: which the trie fixes, in what order, and how the
/// others are summarized.
pub struct Layout {
    pub dim: usize,
    /// All coordinates, most variable first; the trie fixes `order[..depth]`.
    pub order: Vec<usize>,
    pub depth: usize,
    /// s_i for coordinate i (0: no lattice bound).
    pub gap: Vec<f64>,
    /// Coordinates summed into each key byte (empty: unused byte), their gap s_j,
    /// offset and multiplier f_j.
    pub blocks: Vec<Vec<usize>>,
    pub block_gap: Vec<f64>,
    pub offset: Vec<f64>,
    pub mult: Vec<f64>,
    /// The common unit U of a byte difference.
    pub unit: f64,
    /// Per trie level t (0..=depth): Σ 2·s_j²·E_j over the bytes not fixed at t.
    pub key_slack: Vec<f64>,
    /// Absolute rounding slack of the weight sums.
    pub weight_slack: f64,
    /// The distinct values of every coordinate (for compact sort keys).
    pub distinct: Vec<Distinct>,
}

fn canon(x: f32) -> f32 {
    x + 0.0 // -0.0 becomes 0.0: equal values, one trie node
}

/// An integer-valued f64 near x (ties to even below 2^51; x itself above, where
/// it is already within 1/2 of an integer). Any choice is sound: the residual
/// |x − nearest(x)| is measured with the same function. (`f64::round` is a libm
/// call on baseline x86-64.)
#[inline]
fn nearest(x: f64) -> f64 {
    const C: f64 = 6_755_399_441_055_744.0; // 1.5 · 2^52
    if x.abs() < 2_251_799_813_685_248.0 {
        (x + C) - C
    } else {
        x
    }
}

/// Sorted distinct values of a column (emptied beyond `MAX_DISTINCT`), with a
/// direct-mapped cache of values already seen.
pub struct Distinct {
    pub vals: Vec<f32>,
    pub overflow: bool,
    seen: [u32; 64],
}

impl Distinct {
    fn new() -> Self {
        Distinct { vals: Vec::new(), overflow: false, seen: [u32::MAX; 64] }
    }

    #[inline]
    fn add(&mut self, x: f32) {
        let x = canon(x);
        let bits = x.to_bits();
        let slot = (bits.wrapping_mul(0x9E37_79B1) >> 26) as usize;
        if self.seen[slot] == bits || self.overflow {
            return;
        }
        self.seen[slot] = bits;
        if let Err(p) = self.vals.binary_search_by(|v| v.total_cmp(&x)) {
            if self.vals.len() == MAX_DISTINCT {
                self.overflow = true;
                self.vals.clear();
            } else {
                self.vals.insert(p, x);
            }
        }
    }

    /// The rank of a value of the column (None once the column overflowed).
    pub fn rank(&self, x: f32) -> Option<usize> {
        if self.overflow {
            return None;
        }
        self.vals.binary_search_by(|v| v.total_cmp(&canon(x))).ok()
    }
}

/// Rows per chunk of the column passes: fixed, so that the sums are combined in
/// the same order however many threads run.
const CHUNK: usize = 4096;

/// `f` on fixed chunks of rows of A then B, results in chunk order.
fn per_chunk<R: Send>(sets: &[&Vectors], dim: usize, parallel: bool, f: impl Fn(&[f32]) -> R + Sync) -> Vec<R> {
    let chunks: Vec<&[f32]> = sets.iter().flat_map(|v| v.data.chunks(CHUNK * dim)).collect();
    #[cfg(not(target_arch = "wasm32"))]
    if parallel {
        use rayon::prelude::*;
        return chunks.par_iter().map(|c| f(c)).collect();
    }
    let _ = parallel;
    chunks.iter().map(|c| f(c)).collect()
}

/// Column statistics over A ∪ B: variance (for the order), the smallest gap,
/// and the distinct values.
fn columns(sets: &[&Vectors], dim: usize, parallel: bool) -> (Vec<f64>, Vec<f64>, Vec<Distinct>) {
    let parts = per_chunk(sets, dim, parallel, |data| {
        let mut sum = vec![0.0f64; dim];
        let mut sq = vec![0.0f64; dim];
        let mut distinct: Vec<Distinct> = (0..dim).map(|_| Distinct::new()).collect();
        for row in data.chunks_exact(dim) {
            for ((x, d), (s, q)) in row.iter().zip(distinct.iter_mut()).zip(sum.iter_mut().zip(sq.iter_mut())) {
                let y = *x as f64;
                *s += y;
                *q += y * y;
                d.add(*x);
            }
        }
        (sum, sq, distinct, data.len() / dim)
    });
    let mut sum = vec![0.0f64; dim];
    let mut sq = vec![0.0f64; dim];
    let mut n = 0usize;
    let mut distinct: Vec<Distinct> = (0..dim).map(|_| Distinct::new()).collect();
    for (ps, pq, pd, pn) in parts {
        n += pn;
        for c in 0..dim {
            sum[c] += ps[c];
            sq[c] += pq[c];
            if pd[c].overflow {
                distinct[c].overflow = true;
                distinct[c].vals.clear();
            }
            for &x in &pd[c].vals {
                distinct[c].add(x);
            }
        }
    }
    let var = (0..dim)
        .map(|c| {
            let m = sum[c] / n.max(1) as f64;
            (sq[c] / n.max(1) as f64 - m * m).max(0.0)
        })
        .collect();
    let gap = distinct
        .iter()
        .map(|d| {
            if d.overflow || d.vals.len() < 2 {
                return 0.0;
            }
            d.vals.windows(2).map(|w| w[1] as f64 - w[0] as f64).fold(f64::INFINITY, f64::min)
        })
        .collect();
    (var, gap, distinct)
}

impl Layout {
    /// The layout for matching `a` against `b` (both non-empty, same dimension),
    /// with a trie of `depth` levels (clamped to 1..=min(dim, MAX_DEPTH)).
    pub fn new(a: &Vectors, b: &Vectors, depth: usize, parallel: bool) -> Layout {
        let dim = a.dim;
        let (var, gap, distinct_all) = columns(&[a, b], dim, parallel);
        let mut order: Vec<usize> = (0..dim).collect();
        order.sort_by(|&x, &y| var[y].total_cmp(&var[x]).then(x.cmp(&y)));
        let depth = depth.clamp(1, dim.clamp(1, MAX_DEPTH));
        let usable = |c: usize| gap[c] > 0.0 && gap[c].is_finite();

        let mut blocks: Vec<Vec<usize>> = vec![Vec::new(); KEY];
        let mut block_gap = vec![0.0f64; KEY];
        // bytes 0..depth: the trie's coordinates, one each
        for (j, &c) in order[..depth].iter().enumerate() {
            if usable(c) {
                blocks[j] = vec![c];
                block_gap[j] = gap[c];
            }
        }
        // bytes 16..32: the other coordinates, in blocks of one gap class each;
        // the two classes of most variance get eight bytes each (one: sixteen)
        let mut classes: Vec<(f64, Vec<usize>, f64)> = Vec::new(); // gap, coords, total variance
        for &c in order[depth..].iter().filter(|&&c| usable(c)) {
            match classes.iter_mut().find(|k| k.0 == gap[c]) {
                Some(k) => {
                    k.1.push(c);
                    k.2 += var[c];
                }
                None => classes.push((gap[c], vec![c], var[c])),
            }
        }
        classes.sort_by(|x, y| y.2.total_cmp(&x.2).then(x.0.total_cmp(&y.0)));
        let slots: Vec<(usize, usize, usize)> = match classes.len() {
            0 => Vec::new(),
            1 => vec![(0, MAX_DEPTH, 2 * GROUP)],
            _ => vec![(0, MAX_DEPTH, GROUP), (1, MAX_DEPTH + GROUP, GROUP)],
        };
        for &(class, base, width) in &slots {
            for (t, &c) in classes[class].1.iter().enumerate() {
                let j = base + t % width;
                blocks[j].push(c);
                block_gap[j] = classes[class].0;
            }
        }

        // offsets and rounding residuals over A ∪ B, and the largest weight
        let parts = per_chunk(&[a, b], dim, parallel, |data| {
            let mut lo = [f64::INFINITY; KEY];
            let mut resid = [0.0f64; KEY];
            let mut big = [0.0f64; KEY];
            let mut wmax = 0.0f64;
            for row in data.chunks_exact(dim) {
                for j in 0..KEY {
                    if blocks[j].is_empty() {
                        continue;
                    }
                    let t = block_sum(row, &blocks[j]) * (1.0 / block_gap[j]);
                    let n = nearest(t);
                    lo[j] = lo[j].min(n);
                    resid[j] = resid[j].max((t - n).abs());
                    big[j] = big[j].max(t.abs());
                }
                let w: f64 = row.iter().zip(&gap).map(|(x, s)| s * (*x as f64).abs()).sum();
                wmax = wmax.max(w);
            }
            (lo, resid, big, wmax)
        });
        let mut lo = [f64::INFINITY; KEY];
        let mut resid = [0.0f64; KEY];
        let mut big = [0.0f64; KEY];
        let mut wmax = 0.0f64;
        for (l, r, g, w) in parts {
            for j in 0..KEY {
                lo[j] = lo[j].min(l[j]);
                resid[j] = resid[j].max(r[j]);
                big[j] = big[j].max(g[j]);
            }
            wmax = wmax.max(w);
        }
        let mut offset = vec![0.0f64; KEY];
        let mut slack = [0.0f64; KEY];
        for j in 0..KEY {
            if blocks[j].is_empty() {
                continue;
            }
            // residual of the computed sums, plus their own rounding error
            let e = resid[j] + 1e-12 * (1.0 + big[j]);
            if e > 0.25 {
                // not on a lattice: this byte would bound nothing
                blocks[j].clear();
                block_gap[j] = 0.0;
                continue;
            }
            offset[j] = lo[j];
            slack[j] = 2.0 * block_gap[j] * block_gap[j] * e;
        }
        let unit = (0..KEY)
            .filter(|&j| !blocks[j].is_empty())
            .map(|j| block_gap[j] * block_gap[j])
            .fold(f64::INFINITY, f64::min);
        let unit = if unit.is_finite() { unit } else { 0.0 };
        // f_j = floor(s_j²/U), at least 1 (a hair of tolerance for s² = k·U)
        let mult: Vec<f64> = (0..KEY)
            .map(|j| if blocks[j].is_empty() { 0.0 } else { (block_gap[j] * block_gap[j] / unit * (1.0 + 1e-12)).floor().max(1.0) })
            .collect();
        let key_slack = (0..=depth)
            .map(|t| (0..KEY).filter(|&j| !(j < depth && j < t)).map(|j| slack[j]).sum())
            .collect();

        // rounding slack of the weight sums: relative to the largest weight
        let weight_slack = 1e-12 * (1.0 + wmax);
        Layout { dim, order, depth, gap, blocks, block_gap, offset, mult, unit, key_slack, weight_slack, distinct: distinct_all }
    }

    /// The bound above which a pair is pruned for threshold `th`: th² plus a
    /// margin (relative 1e-9, absolute 1e-9 and the weights' slack) that no
    /// rounding of the bounds can cross. A pair whose lower bound exceeds it has
    /// `distance > th` for certain.
    pub fn limit(&self, th: f64) -> f64 {
        let t2 = th * th;
        t2 + 1e-9 * (1.0 + t2) + self.weight_slack
    }

    /// W over `order[from..]`, for every `from` in `1..=depth`: `out[t-1]` is the
    /// weight of the coordinates a trie node at level t leaves unfixed. Summed
    /// from the last coordinate down, a fixed order.
    pub fn suffix_weights(&self, row: &[f32], out: &mut [f64]) {
        let mut acc = 0.0f64;
        for t in (1..self.dim).rev() {
            let c = self.order[t];
            acc += self.gap[c] * row[c] as f64;
            if t <= self.depth {
                out[t - 1] = acc;
            }
        }
        if self.depth == self.dim {
            out[self.depth - 1] = 0.0;
        }
    }

    fn byte(&self, j: usize, sum: f64) -> u8 {
        if self.blocks[j].is_empty() {
            return 0;
        }
        // the same expression as in `new`, so the residuals measured there hold
        let n = nearest(sum * (1.0 / self.block_gap[j])) - self.offset[j];
        (self.mult[j] * n).clamp(0.0, 255.0) as u8
    }

    /// The key bytes of a vector.
    pub fn key(&self, row: &[f32]) -> Key {
        let mut k = [0u8; KEY];
        for (j, x) in k.iter_mut().enumerate() {
            if !self.blocks[j].is_empty() {
                *x = self.byte(j, block_sum(row, &self.blocks[j]));
            }
        }
        k
    }

    /// The key byte of trie coordinate `order[t]` for the value `v` (the same as
    /// byte t of the key of any vector with that value).
    pub fn trie_byte(&self, t: usize, v: f32) -> u8 {
        if t < KEY && !self.blocks[t].is_empty() {
            self.byte(t, v as f64)
        } else {
            0
        }
    }

    /// Lower bound of Σ Δ_i² over the coordinates a trie node at level t leaves
    /// unfixed, given the byte differences `q` of the fixed ones (the index tests
    /// `U·(sad − q) <= limit − p + key_slack[t]`, the same inequality).
    #[cfg(test)]
    pub fn key_bound(&self, t: usize, x: &Key, y: &Key) -> f64 {
        let q: u32 = (0..t.min(self.depth)).map(|j| x[j].abs_diff(y[j]) as u32).sum();
        self.unit * (sad(x, y) - q) as f64 - self.key_slack[t]
    }
}

fn block_sum(row: &[f32], block: &[usize]) -> f64 {
    block.iter().map(|&c| row[c] as f64).sum()
}

/// The sum of absolute differences of two keys' bytes (`psadbw` on x86).
#[inline]
pub fn sad(x: &Key, y: &Key) -> u32 {
    let mut s = 0u32;
    for j in 0..KEY {
        s += x[j].abs_diff(y[j]) as u32;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vecs(dim: usize, data: Vec<f32>) -> Vectors {
        Vectors { dim, data }
    }

    #[test]
    fn gaps_follow_the_lattice() {
        let a = vecs(3, vec![0.0, 0.5, 1.0 / 3.0, 2.0, 1.0, 0.0, 1.0, 1.5, 2.0 / 3.0]);
        let b = vecs(3, vec![3.0, 0.0, 1.0]);
        let l = Layout::new(&a, &b, 1, false);
        assert_eq!(l.gap[0], 1.0);
        assert_eq!(l.gap[1], 0.5);
        assert!((l.gap[2] - 1.0 / 3.0).abs() < 1e-6);
    }

    #[test]
    fn bounds_never_exceed_the_distance() {
        // a small lattice data set: every pair's bounds are below d²
        let mut data = Vec::new();
        let vals = [0.0f32, 0.5, 1.0, 1.5, 2.0, 1.0 / 3.0, 2.0 / 3.0];
        for r in 0..60 {
            for c in 0..12 {
                let v = if c < 5 { ((r * 7 + c * 3) % 4) as f32 } else { vals[(r * 5 + c * 11) % vals.len()] };
                data.push(if (5..9).contains(&c) { (v * 2.0).round() / 2.0 } else { v });
            }
        }
        let a = vecs(12, data.clone());
        let b = vecs(12, data.iter().rev().copied().collect());
        for depth in [1, 3, 6, 12] {
            let l = Layout::new(&a, &b, depth, true);
            let mut wa = vec![0.0; l.depth];
            let mut wb = vec![0.0; l.depth];
            for i in 0..a.len() {
                for j in 0..b.len() {
                    let (x, y) = (a.row(i), b.row(j));
                    let d2 = crate::matching::distance(x, y).powi(2);
                    for t in 0..=l.depth {
                        let fixed: f64 = l.order[..t].iter().map(|&c| (x[c] as f64 - y[c] as f64).powi(2)).sum();
                        let kb = l.key_bound(t, &l.key(x), &l.key(y));
                        assert!(fixed + kb <= d2 + 1e-9, "key bound at depth {depth}, level {t}");
                    }
                    l.suffix_weights(x, &mut wa);
                    l.suffix_weights(y, &mut wb);
                    for t in 1..=l.depth {
                        let fixed_t: f64 = l.order[..t].iter().map(|&c| (x[c] as f64 - y[c] as f64).powi(2)).sum();
                        assert!(fixed_t + (wa[t - 1] - wb[t - 1]).abs() <= d2 + 1e-9, "weight bound at level {t}");
                    }
                }
            }
        }
    }

    #[test]
    fn continuous_columns_get_no_lattice_bound() {
        let data: Vec<f32> = (0..200).map(|i| (i as f32 * 0.7317).sin()).collect();
        let a = vecs(2, data.clone());
        let b = vecs(2, data);
        let l = Layout::new(&a, &b, 1, false);
        assert_eq!(l.gap, vec![0.0, 0.0]);
        assert!(l.blocks.iter().all(|b| b.is_empty()));
    }
}
