//! One side's trie: the vectors sorted by their values on the layout's first
//! `depth` coordinates; a node at level t holds the vectors that share the values
//! of `order[..t]` (a contiguous range of them), and the range of their weights
//! over the other coordinates.

use super::bounds::{Key, Layout, KEY};
use crate::embed::Vectors;

/// A node, 28 bytes: its children are `child..next.child` at the next level
/// (`next`: the following node of the level; each level ends with a sentinel),
/// its vectors `item..item_end`. A leaf has no children.
#[derive(Debug, Clone, Copy, Default)]
pub struct Node {
    /// The value of coordinate `order[t-1]` shared by the node's vectors.
    pub val: f32,
    /// The node's weights of the unfixed coordinates lie in `[wlo, whi]` (bound
    /// 2); rounded outwards to f32, so the interval only widens.
    pub wlo: f32,
    pub whi: f32,
    pub child: u32,
    pub item: u32,
    pub item_end: u32,
    /// The key byte of `val` (see [`Layout::trie_byte`]).
    pub kb: u8,
}

pub struct Trie {
    /// `levels[0]` is the root; `levels[t]` fixes `order[..t]`. Each ends with a
    /// sentinel node.
    pub levels: Vec<Vec<Node>>,
    /// A side only: per level and node, the largest pruning limit of its vectors.
    pub node_limit: Vec<Vec<f64>>,
    /// Rows in trie order (dim numbers each).
    pub rows: Vec<f32>,
    /// The original row number of each vector, in trie order.
    pub ids: Vec<u32>,
    pub keys: Vec<Key>,
    /// A side only, per vector in trie order: threshold and pruning limit.
    pub th: Vec<f64>,
    pub limit: Vec<f64>,
}

fn canon(x: f32) -> f32 {
    x + 0.0 // -0.0 becomes 0.0: equal values, one node
}

/// The largest f32 <= x, and the smallest f32 >= x (x finite).
fn f32_below(x: f64) -> f32 {
    let f = x as f32;
    if f as f64 <= x {
        f
    } else if f > 0.0 {
        f32::from_bits(f.to_bits() - 1)
    } else if f == 0.0 {
        -f32::from_bits(1)
    } else {
        f32::from_bits(f.to_bits() + 1)
    }
}

fn f32_above(x: f64) -> f32 {
    -f32_below(-x)
}

/// An integer that sorts like the canonical f32.
fn sort_bits(x: f32) -> u32 {
    let b = canon(x).to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// A node with at most this many vectors is a leaf: below, checking its vectors'
/// keys one by one costs less than walking further.
pub const LEAF: usize = 4;

impl Trie {
    /// `th`: A's thresholds (the B side passes None).
    pub fn build(v: &Vectors, layout: &Layout, th: Option<&[f64]>, leaf: usize, parallel: bool) -> Trie {
        let dim = layout.dim;
        let depth = layout.depth;
        let n = v.len();
        // sort by the fixed coordinates, ties by row number: a total order
        let ids = sorted_ids(v, layout, parallel);
        let rows = gather(v, &ids, parallel);
        let (keys, w): (Vec<Key>, Vec<f64>) = per_vector(&rows, layout, parallel);
        let (th_sorted, limit): (Vec<f64>, Vec<f64>) = match th {
            Some(t) => ids.iter().map(|&i| (t[i as usize], layout.limit(t[i as usize]))).unzip(),
            None => (Vec::new(), Vec::new()),
        };
        let mut b = Builder {
            rows: &rows,
            dim,
            depth,
            fixed: &layout.order[..depth],
            w: &w,
            limit: &limit,
            layout,
            leaf: leaf.max(1),
            levels: vec![Vec::new(); depth + 1],
            node_limit: vec![Vec::new(); if th.is_some() { depth + 1 } else { 0 }],
        };
        b.push(0, 0..n, 0.0);
        b.children(0, 0, 0..n);
        let Builder { mut levels, mut node_limit, .. } = b;
        // sentinels: the end of the last node's children
        for t in 0..=depth {
            let child = if t < depth { levels[t + 1].len() as u32 } else { 0 };
            levels[t].push(Node { child, item: n as u32, item_end: n as u32, ..Node::default() });
            if let Some(nl) = node_limit.get_mut(t) {
                nl.push(f64::NEG_INFINITY);
            }
        }
        Trie { levels, node_limit, rows, ids, keys, th: th_sorted, limit }
    }

    #[inline]
    pub fn row(&self, p: usize, dim: usize) -> &[f32] {
        &self.rows[p * dim..(p + 1) * dim]
    }
}

struct Builder<'a> {
    rows: &'a [f32],
    dim: usize,
    depth: usize,
    fixed: &'a [usize],
    /// Per vector, its weights at levels 1..=depth (`depth` numbers each).
    w: &'a [f64],
    limit: &'a [f64],
    layout: &'a Layout,
    leaf: usize,
    levels: Vec<Vec<Node>>,
    node_limit: Vec<Vec<f64>>,
}

impl Builder<'_> {
    fn value(&self, p: usize, t: usize) -> f32 {
        canon(self.rows[p * self.dim + self.fixed[t]])
    }

    /// Pushes the node of level t holding `items` (equal on order[..t]), with
    /// the value `val` of order[t-1]; its children are set by [`Self::children`].
    fn push(&mut self, t: usize, items: std::ops::Range<usize>, val: f32) {
        let mut node = Node { val, wlo: f32::NEG_INFINITY, whi: f32::INFINITY, child: 0, item: items.start as u32, item_end: items.end as u32, kb: 0 };
        if t > 0 {
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for p in items.clone() {
                let x = self.w[p * self.depth + t - 1];
                lo = lo.min(x);
                hi = hi.max(x);
            }
            node.wlo = f32_below(lo);
            node.whi = f32_above(hi);
            node.kb = self.layout.trie_byte(t - 1, val);
        }
        self.levels[t].push(node);
        if !self.node_limit.is_empty() {
            let lim = self.limit[items].iter().copied().fold(f64::NEG_INFINITY, f64::max);
            self.node_limit[t].push(lim);
        }
    }

    /// The children of node `k` of level t (which holds `items`) and their
    /// subtrees; none if the node is a leaf. The children are pushed as one
    /// block before any grandchild, and nodes are visited in the order of their
    /// level, so every node's children are contiguous and follow the order of
    /// their parents: node k's children end where node k+1's begin.
    fn children(&mut self, t: usize, k: usize, items: std::ops::Range<usize>) {
        if t == self.depth {
            return;
        }
        self.levels[t][k].child = self.levels[t + 1].len() as u32;
        if items.len() <= self.leaf {
            return;
        }
        let mut runs = Vec::new();
        let mut start = items.start;
        for p in items.start + 1..=items.end {
            if p == items.end || self.value(p, t).to_bits() != self.value(start, t).to_bits() {
                runs.push(start..p);
                start = p;
            }
        }
        let first = self.levels[t + 1].len();
        for r in &runs {
            let v = self.value(r.start, t);
            self.push(t + 1, r.clone(), v);
        }
        for (j, r) in runs.into_iter().enumerate() {
            self.children(t + 1, first + j, r);
        }
    }
}

/// The rows of `v` in the order `ids`.
fn gather(v: &Vectors, ids: &[u32], parallel: bool) -> Vec<f32> {
    let dim = v.dim;
    #[cfg(not(target_arch = "wasm32"))]
    if parallel {
        use rayon::prelude::*;
        let mut rows = vec![0.0f32; ids.len() * dim];
        rows.par_chunks_mut(dim * 256).zip(ids.par_chunks(256)).for_each(|(dst, ids)| {
            for (d, &i) in dst.chunks_exact_mut(dim).zip(ids) {
                d.copy_from_slice(v.row(i as usize));
            }
        });
        return rows;
    }
    let _ = parallel;
    let mut rows = Vec::with_capacity(ids.len() * dim);
    for &i in ids {
        rows.extend_from_slice(v.row(i as usize));
    }
    rows
}

/// Each vector's key and its weights at levels 1..=depth (from the rows in trie order).
fn per_vector(rows: &[f32], layout: &Layout, parallel: bool) -> (Vec<Key>, Vec<f64>) {
    let (dim, depth) = (layout.dim, layout.depth);
    let one = |r: &[f32], k: &mut Key, w: &mut [f64]| {
        *k = layout.key(r);
        layout.suffix_weights(r, w);
    };
    let n = rows.len() / dim.max(1);
    let mut keys = vec![[0u8; KEY]; n];
    let mut w = vec![0.0f64; n * depth];
    #[cfg(not(target_arch = "wasm32"))]
    if parallel {
        use rayon::prelude::*;
        keys.par_chunks_mut(1024)
            .zip(w.par_chunks_mut(1024 * depth))
            .zip(rows.par_chunks(1024 * dim))
            .for_each(|((k, w), r)| {
                for ((k, w), r) in k.iter_mut().zip(w.chunks_exact_mut(depth)).zip(r.chunks_exact(dim)) {
                    one(r, k, w);
                }
            });
        return (keys, w);
    }
    let _ = parallel;
    for ((k, w), r) in keys.iter_mut().zip(w.chunks_exact_mut(depth)).zip(rows.chunks_exact(dim)) {
        one(r, k, w);
    }
    (keys, w)
}

/// Row numbers in trie order. With at most 256 distinct values per fixed
/// coordinate (the embedding's case) the values' ranks pack into one u128 key;
/// otherwise the rows are compared value by value. Both orders are the same
/// total order, so parallel and sequential sorts agree.
fn sorted_ids(v: &Vectors, layout: &Layout, parallel: bool) -> Vec<u32> {
    let fixed = &layout.order[..layout.depth];
    let n = v.len();
    let packed: Option<Vec<(u128, u32)>> = (0..n)
        .map(|i| {
            let r = v.row(i);
            let mut k = 0u128;
            for (t, &c) in fixed.iter().enumerate() {
                let rank = layout.distinct[c].rank(r[c]).filter(|&x| x < 256)?;
                k |= (rank as u128) << (8 * (15 - t));
            }
            Some((k, i as u32))
        })
        .collect();
    if let Some(mut keyed) = packed {
        sort_by(&mut keyed, |x, y| x.cmp(y), parallel);
        return keyed.into_iter().map(|(_, i)| i).collect();
    }
    let mut sortkeys = vec![0u32; n * fixed.len()];
    for (i, k) in sortkeys.chunks_exact_mut(fixed.len().max(1)).enumerate().take(n) {
        let r = v.row(i);
        for (x, &c) in k.iter_mut().zip(fixed) {
            *x = sort_bits(r[c]);
        }
    }
    let d = fixed.len();
    let mut ids: Vec<u32> = (0..n as u32).collect();
    sort_by(
        &mut ids,
        |x, y| {
            let (i, j) = (*x as usize, *y as usize);
            sortkeys[i * d..(i + 1) * d].cmp(&sortkeys[j * d..(j + 1) * d]).then(i.cmp(&j))
        },
        parallel,
    );
    ids
}

fn sort_by<T: Send, F: Fn(&T, &T) -> std::cmp::Ordering + Sync>(items: &mut [T], cmp: F, parallel: bool) {
    #[cfg(not(target_arch = "wasm32"))]
    if parallel {
        use rayon::prelude::*;
        items.par_sort_unstable_by(cmp);
        return;
    }
    let _ = parallel;
    items.sort_unstable_by(cmp);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outward_rounding() {
        for x in [0.0, 1.0 / 3.0, -1.0 / 3.0, 1e-40, -1e-40, 12345.678901234, 3.0] {
            assert!((f32_below(x) as f64) <= x && (f32_above(x) as f64) >= x, "{x}");
        }
    }
}
