//! The lattice index.
//!
//! Some coordinates hold only whole numbers in every vector of A and B (the
//! 1-gram coordinates: a count divided by 1). On those coordinates S a difference
//! δ = a_S − b_S is an integer vector, and
//!
//!   d(a, b)² = ‖δ‖² + ‖a_R − b_R‖² ≥ ‖δ‖² + (‖a_R‖ − ‖b_R‖)²,
//!
//! where R are the other coordinates. B's distinct lattice keys b_S are kept
//! sorted, which makes them a trie: a query walks it depth first, paying (a_c − v)²
//! for value v at coordinate c, and abandons a branch as soon as the paid amount
//! exceeds th² (plus a 1e-9 relative margin). Only keys that exist and lie within
//! the ball are visited. Within a key's bucket, rows are sorted by ‖b_R‖, and only
//! those with (‖a_R‖ − ‖b_R‖)² within the budget left are candidates. Each candidate
//! is decided by [`distance`], exactly as brute force decides it: the index prunes,
//! never changes, the answer.

use super::distance::distance;
use crate::embed::Vectors;
use crate::hash::PackedMap;

const MAX_VALUE: f32 = 255.0;

/// The B rows of one lattice key, sorted by the norm of their other coordinates.
struct Bucket {
    rows: Vec<u32>,
    rest_norms: Vec<f64>,
}

pub struct Lattice {
    /// Lattice coordinates, most variable first (so the trie prunes early).
    coords: Vec<usize>,
    is_lattice: Vec<bool>,
    /// Distinct keys, sorted, `coords.len()` bytes each.
    keys: Vec<u8>,
    buckets: Vec<Bucket>,
    /// Keys packed 4 bits a coordinate (when they fit) → bucket: for balls of
    /// squared radius below 2 (one count off by one at most), 1 + 2|S| hash lookups
    /// beat walking the trie.
    packed: Option<PackedMap<u128, usize>>,
}

fn whole(x: f32) -> bool {
    (0.0..=MAX_VALUE).contains(&x) && x.fract() == 0.0
}

impl Lattice {
    /// The lattice of the coordinates that are whole numbers in 0..=255 in every
    /// vector of A and B; None if there are none.
    pub fn build(a: &Vectors, b: &Vectors) -> Option<Lattice> {
        let dim = b.dim;
        if dim == 0 {
            return None;
        }
        // Per-row and per-coordinate work is in functions of their own, called
        // once per row or coordinate: V8 (wasm) optimizes a function between
        // calls, never inside a running one, and this runs once per match.
        #[inline(never)]
        fn mark_whole(ok: &mut [bool], row: &[f32]) {
            for (o, x) in ok.iter_mut().zip(row) {
                *o &= whole(*x);
            }
        }
        let mut ok = vec![true; dim];
        for v in [a, b] {
            for r in 0..v.len() {
                mark_whole(&mut ok, v.row(r));
            }
        }
        let mut coords: Vec<usize> = (0..dim).filter(|&c| ok[c]).collect();
        if coords.is_empty() {
            return None;
        }
        // most variable coordinate first: the trie's upper levels then cut the most
        let n = b.len().max(1) as f64;
        #[inline(never)]
        fn variance(b: &Vectors, c: usize, n: f64) -> f64 {
            let (mut s, mut s2) = (0.0, 0.0);
            for r in 0..b.len() {
                let x = b.row(r)[c] as f64;
                s += x;
                s2 += x * x;
            }
            s2 / n - (s / n) * (s / n)
        }
        let var = |c: usize| variance(b, c, n);
        let mut scored: Vec<(f64, usize)> = coords.iter().map(|&c| (var(c), c)).collect();
        crate::sorting::sort_by(&mut scored, |x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        coords = scored.into_iter().map(|(_, c)| c).collect();
        let mut is_lattice = vec![false; dim];
        for &c in &coords {
            is_lattice[c] = true;
        }
        let mut lat = Lattice { coords, is_lattice, keys: Vec::new(), buckets: Vec::new(), packed: None };
        let width = lat.coords.len();
        let mut entries: Vec<(Vec<u8>, f64, u32)> =
            (0..b.len()).map(|r| (lat.key(b.row(r)), lat.rest_norm(b.row(r)), r as u32)).collect();
        crate::sorting::sort_by(&mut entries, |x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)).then(x.2.cmp(&y.2)));
        let mut i = 0;
        while i < entries.len() {
            let mut j = i;
            while j < entries.len() && entries[j].0 == entries[i].0 {
                j += 1;
            }
            lat.keys.extend_from_slice(&entries[i].0);
            lat.buckets.push(Bucket {
                rows: entries[i..j].iter().map(|e| e.2).collect(),
                rest_norms: entries[i..j].iter().map(|e| e.1).collect(),
            });
            i = j;
        }
        debug_assert_eq!(lat.keys.len(), lat.buckets.len() * width);
        if width <= 32 && lat.keys.iter().all(|&v| v <= 15) {
            let map = (0..lat.buckets.len()).map(|i| (pack(&lat.keys[i * width..(i + 1) * width]), i)).collect();
            lat.packed = Some(map);
        }
        Some(lat)
    }

    /// Scans bucket `i` for rows within `th`, with `left` of the squared budget.
    #[allow(clippy::too_many_arguments)]
    fn scan(
        &self,
        i: usize,
        a: &[f32],
        a_rest: f64,
        th: f64,
        left: f64,
        b: &Vectors,
        out: &mut Vec<(u32, f64)>,
    ) -> u64 {
        let bucket = &self.buckets[i];
        let reach = left.max(0.0).sqrt() + 1e-9 * (1.0 + a_rest);
        let from = bucket.rest_norms.partition_point(|&n| n < a_rest - reach);
        let to = bucket.rest_norms.partition_point(|&n| n <= a_rest + reach);
        for &r in &bucket.rows[from..to] {
            let d = distance(a, b.row(r as usize));
            if d <= th {
                out.push((r, d));
            }
        }
        (to - from) as u64
    }

    /// The norm of the coordinates outside the lattice.
    #[inline(never)]
    fn rest_norm(&self, v: &[f32]) -> f64 {
        v.iter().zip(&self.is_lattice).filter(|(_, l)| !**l).map(|(x, _)| (*x as f64) * (*x as f64)).sum::<f64>().sqrt()
    }

    #[inline(never)]
    fn key(&self, v: &[f32]) -> Vec<u8> {
        self.coords.iter().map(|&c| v[c] as u8).collect()
    }

    fn key_at(&self, i: usize, depth: usize) -> u8 {
        self.keys[i * self.coords.len() + depth]
    }

    /// All B rows within `th` of `a` (appended to `out`, unsorted); returns the
    /// number of candidates whose distance was computed.
    #[inline(never)]
    pub fn query(
        &self,
        a: &[f32],
        th: f64,
        b: &Vectors,
        stack: &mut Vec<(usize, usize, usize, f64)>,
        out: &mut Vec<(u32, f64)>,
    ) -> u64 {
        let t2 = th * th;
        let r2 = t2 + 1e-9 * (1.0 + t2);
        let width = self.coords.len();
        let a_rest = self.rest_norm(a);
        let av: Vec<f64> = self.coords.iter().map(|&c| a[c] as f64).collect();
        let mut candidates = 0u64;
        let small_ball = r2 < 2.0 && av.iter().all(|&x| x <= 15.0);
        if let (Some(map), true) = (&self.packed, small_ball) {
            // the ball's lattice points: the key itself and each coordinate ±1
            let center: Vec<u8> = av.iter().map(|&x| x as u8).collect();
            let key = pack(&center);
            if let Some(&i) = map.get(&key) {
                candidates += self.scan(i, a, a_rest, th, r2, b, out);
            }
            if r2 >= 1.0 {
                for (c, &v) in center.iter().enumerate() {
                    let shift = 4 * c as u32;
                    for w in [v.wrapping_sub(1), v + 1] {
                        if w <= 15 {
                            let k = (key & !(0xFu128 << shift)) | ((w as u128) << shift);
                            if let Some(&i) = map.get(&k) {
                                candidates += self.scan(i, a, a_rest, th, r2 - 1.0, b, out);
                            }
                        }
                    }
                }
            }
            return candidates;
        }
        stack.clear();
        if !self.buckets.is_empty() {
            stack.push((0, 0, self.buckets.len(), r2));
        }
        while let Some((depth, lo, hi, left)) = stack.pop() {
            if depth == width {
                candidates += self.scan(lo, a, a_rest, th, left, b, out);
                continue;
            }
            // values at this depth are sorted within [lo, hi): visit those within reach
            let x = av[depth];
            let span = left.max(0.0).sqrt();
            let min_v = (x - span).ceil().max(0.0);
            let mut i = lo + self.partition(lo, hi, depth, |v| (v as f64) < min_v);
            while i < hi {
                let v = self.key_at(i, depth);
                let cost = (x - v as f64) * (x - v as f64);
                if v as f64 > x && cost > left {
                    break;
                }
                let j = i + self.partition(i, hi, depth, |w| w <= v);
                if cost <= left {
                    stack.push((depth + 1, i, j, left - cost));
                }
                i = j;
            }
        }
        candidates
    }

    /// Number of keys in [lo, hi) whose value at `depth` satisfies `pred` (a prefix).
    fn partition(&self, lo: usize, hi: usize, depth: usize, pred: impl Fn(u8) -> bool) -> usize {
        let (mut l, mut h) = (lo, hi);
        while l < h {
            let m = l + (h - l) / 2;
            if pred(self.key_at(m, depth)) {
                l = m + 1;
            } else {
                h = m;
            }
        }
        l - lo
    }
}

/// Four bits a coordinate (values ≤ 15, at most 32 coordinates).
fn pack(key: &[u8]) -> u128 {
    key.iter().enumerate().fold(0u128, |k, (i, &v)| k | ((v as u128) << (4 * i as u32)))
}
