//! The lattice index, for small thresholds.
//!
//! Some coordinates hold only whole numbers in every vector of A and B (the
//! 1-gram coordinates: a count divided by 1). On those coordinates S a difference
//! δ = a_S − b_S is an integer vector, and d(a, b)² ≥ ‖δ‖². So every B row within
//! th of a lies in a bucket keyed by a_S + δ for some integer δ with ‖δ‖² ≤ th²:
//! the lattice points of a small ball. With th² < 2 that is at most 1 + 2|S|
//! lookups (one count off by one); with th² < 3, about 2|S|² more. Each candidate
//! is then decided by [`distance`], as brute force decides it, so the index is
//! exact. Queries whose ball holds too many lattice points fall back to the tree.

use super::distance::distance;
use crate::embed::Vectors;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// At most this many lattice points per query; beyond, the caller uses the tree.
pub const MAX_LOOKUPS: usize = 4096;
const BITS: u32 = 4;
const MAX_VALUE: f32 = 15.0;

/// A multiply-mix hasher for the u128 keys (std's SipHash is several times slower
/// here, and these keys are not attacker-chosen in a way that matters: a skewed
/// bucket costs time, never correctness).
#[derive(Default)]
pub struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    }
    fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64);
    }
}

/// The B rows of one lattice point, sorted by the norm of their other coordinates.
#[derive(Default)]
struct Bucket {
    rows: Vec<u32>,
    rest_norms: Vec<f64>,
}

pub struct Lattice {
    coords: Vec<usize>,
    is_lattice: Vec<bool>,
    buckets: HashMap<u128, Bucket, BuildHasherDefault<MixHasher>>,
}

fn whole(x: f32) -> bool {
    x >= 0.0 && x <= MAX_VALUE && x.fract() == 0.0
}

impl Lattice {
    /// The lattice of the coordinates that are whole numbers in 0..=15 in every
    /// vector of A and B (at most 32 of them); None if there are none.
    pub fn build(a: &Vectors, b: &Vectors) -> Option<Lattice> {
        let dim = b.dim;
        if dim == 0 {
            return None;
        }
        let mut ok = vec![true; dim];
        for v in [a, b] {
            for r in 0..v.len() {
                for (c, x) in v.row(r).iter().enumerate() {
                    if ok[c] && !whole(*x) {
                        ok[c] = false;
                    }
                }
            }
        }
        let coords: Vec<usize> = (0..dim).filter(|&c| ok[c]).take(128 / BITS as usize).collect();
        if coords.is_empty() {
            return None;
        }
        let mut is_lattice = vec![false; dim];
        for &c in &coords {
            is_lattice[c] = true;
        }
        let mut lat = Lattice { coords, is_lattice, buckets: HashMap::default() };
        let mut buckets: HashMap<u128, Vec<(f64, u32)>, BuildHasherDefault<MixHasher>> = HashMap::default();
        for r in 0..b.len() {
            let row = b.row(r);
            buckets.entry(lat.key(row)).or_default().push((lat.rest_norm(row), r as u32));
        }
        for (k, mut v) in buckets {
            v.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            lat.buckets.insert(k, Bucket { rest_norms: v.iter().map(|x| x.0).collect(), rows: v.iter().map(|x| x.1).collect() });
        }
        Some(lat)
    }

    /// The norm of the coordinates outside the lattice. For a, b with lattice
    /// difference δ: d(a, b)² = ‖δ‖² + ‖a_R − b_R‖² ≥ ‖δ‖² + (‖a_R‖ − ‖b_R‖)².
    fn rest_norm(&self, v: &[f32]) -> f64 {
        v.iter().zip(&self.is_lattice).filter(|(_, l)| !**l).map(|(x, _)| (*x as f64) * (*x as f64)).sum::<f64>().sqrt()
    }

    fn key(&self, v: &[f32]) -> u128 {
        self.coords.iter().enumerate().fold(0u128, |k, (i, &c)| k | ((v[c] as u128) << (i as u32 * BITS)))
    }

    /// Lattice points of the ball of squared radius `r2` around `a`, at most `limit`
    /// (None beyond it).
    fn count_points(&self, a: &[f32], r2: f64, limit: usize) -> Option<usize> {
        let vals: Vec<i32> = self.coords.iter().map(|&c| a[c] as i32).collect();
        let mut n = 0usize;
        fn go(vals: &[i32], start: usize, r2: f64, n: &mut usize, limit: usize) -> bool {
            *n += 1;
            if *n > limit {
                return false;
            }
            for j in start..vals.len() {
                let mut d = 1i32;
                while (d * d) as f64 <= r2 {
                    for s in [d, -d] {
                        let v = vals[j] + s;
                        if (0..=MAX_VALUE as i32).contains(&v) && !go(vals, j + 1, r2 - (d * d) as f64, n, limit) {
                            return false;
                        }
                    }
                    d += 1;
                }
            }
            true
        }
        go(&vals, 0, r2, &mut n, limit).then_some(n)
    }

    /// If the ball is small enough, all B rows within `th` of `a` (appended to
    /// `out`) and the number of candidates; None means "use the tree".
    pub fn query(&self, a: &[f32], th: f64, b: &Vectors, out: &mut Vec<(u32, f64)>) -> Option<u64> {
        let t2 = th * th;
        let r2 = t2 + 1e-9 * (1.0 + t2);
        self.count_points(a, r2, MAX_LOOKUPS)?;
        let base = self.key(a);
        let vals: Vec<i32> = self.coords.iter().map(|&c| a[c] as i32).collect();
        let a_rest = self.rest_norm(a);
        let mut candidates = 0u64;
        // `left` is the squared budget left for the other coordinates
        let mut visit = |key: u128, left: f64, candidates: &mut u64, out: &mut Vec<(u32, f64)>| {
            if let Some(bucket) = self.buckets.get(&key) {
                let reach = left.max(0.0).sqrt() + 1e-9 * (1.0 + a_rest);
                let lo = bucket.rest_norms.partition_point(|&n| n < a_rest - reach);
                let hi = bucket.rest_norms.partition_point(|&n| n <= a_rest + reach);
                for &r in &bucket.rows[lo..hi] {
                    *candidates += 1;
                    let d = distance(a, b.row(r as usize));
                    if d <= th {
                        out.push((r, d));
                    }
                }
            }
        };
        #[allow(clippy::too_many_arguments)]
        fn go(
            vals: &[i32],
            key: u128,
            start: usize,
            r2: f64,
            candidates: &mut u64,
            out: &mut Vec<(u32, f64)>,
            visit: &mut dyn FnMut(u128, f64, &mut u64, &mut Vec<(u32, f64)>),
        ) {
            visit(key, r2, candidates, out);
            for j in start..vals.len() {
                let shift = j as u32 * BITS;
                let mut d = 1i32;
                while (d * d) as f64 <= r2 {
                    for s in [d, -d] {
                        let v = vals[j] + s;
                        if (0..=MAX_VALUE as i32).contains(&v) {
                            let k = (key & !(0xFu128 << shift)) | ((v as u128) << shift);
                            go(vals, k, j + 1, r2 - (d * d) as f64, candidates, out, visit);
                        }
                    }
                    d += 1;
                }
            }
        }
        go(&vals, base, 0, r2, &mut candidates, out, &mut visit);
        Some(candidates)
    }
}
