//! A second exact range index: two tries walked together ([`trie_match`]).
//!
//! A and B are each sorted into a trie over the same most-variable coordinates
//! ([`super::bounds::Layout`]; a node holding at most `leaf` vectors is not
//! split). The walk pairs an A node with the B nodes that may still hold a match
//! for some vector below it (its *frontier*) and moves down both tries one level
//! at a time, so the A vectors that share a prefix share its work; a B leaf met
//! on the way is carried down as it is. Once the A node or the frontier is small
//! (or A's node is a leaf), its vectors are checked against the frontier's one by
//! one. A pair of nodes, then of vectors, is dropped only when a lower bound of
//! d² exceeds the pruning limit of the A side ([`super::bounds::Layout::limit`]:
//! th² plus a margin):
//!
//! - nodes: Σ_{fixed i} Δ_i² (exact: each node holds one value per fixed
//!   coordinate) + the gap between the nodes' intervals of W, the weight of the
//!   unfixed coordinates: `Σ_fixed Δ_i² + |W(a) − W(b)| <= d²` (bounds 1 and 2 of
//!   [`super::bounds`]);
//! - vectors: the same fixed part + U·(Σ_j |Δkey_j| − q) − slack, the key bound
//!   of the coordinates the B node leaves unfixed (bound 3).
//!
//! Each bound is at most d(a, b)² up to rounding far below the margin, so no pair
//! within the threshold is ever dropped; every pair that survives is decided by
//! [`distance`], exactly as [`super::brute_force`] and [`super::range_match`]
//! decide it. The answer is therefore theirs, pair for pair and distance for
//! distance; only the work differs. The walk is cut into the same tasks whether they run in parallel or
//! not, and each A row's pairs are sorted by (distance, b), so the output and the
//! statistics do not depend on threads either.

use super::bounds::{sad, Layout};
use super::distance::distance;
use super::trie::{Trie, LEAF};
use super::{validate, MatchStats, Pair, MAX_PAIRS};

/// The walk's own counters (candidates and pairs go to [`MatchStats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counters {
    candidates: u64,
    node_pairs: u64,
    key_checks: u64,
}
use crate::embed::Vectors;
use crate::error::Error;
use std::sync::atomic::{AtomicU64, Ordering};

/// Tuning of [`trie_match`]; the answer never depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrieMatchOptions {
    /// Trie levels (coordinates fixed by the walk).
    pub depth: usize,
    /// A trie node with at most this many vectors is a leaf.
    pub leaf: usize,
    /// Use every core (native builds only; wasm is always sequential).
    pub parallel: bool,
}

impl Default for TrieMatchOptions {
    fn default() -> Self {
        TrieMatchOptions { depth: DEFAULT_DEPTH, leaf: LEAF, parallel: true }
    }
}

/// Trie levels by default (the most the keys allow; measured on NAMES embedded
/// over 75 grams, benches/matching.rs).
pub const DEFAULT_DEPTH: usize = super::bounds::MAX_DEPTH;
/// The walk is cut into about this many independent tasks.
const TASKS: usize = 256;

/// A B node that may still hold a match: its level, its children
/// `child..child_end` (none for a leaf), its vectors `item..item_end`, the exact
/// partial sum `p` of the squared differences on the coordinates fixed at its
/// level, and the sum `q` of their key bytes' differences.
#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    child: u32,
    child_end: u32,
    item: u32,
    item_end: u32,
    q: u32,
    level: u32,
    p: f64,
}

type Frontier = Vec<Entry>;

/// Decide vector by vector once the A node's vectors times the frontier's are
/// at most this many times the frontier's entries: below that, walking further
/// down costs more than checking the keys.
const RESOLVE: usize = 4;

struct Ctx<'a> {
    a: &'a Trie,
    b: &'a Trie,
    layout: &'a Layout,
    dim: usize,
    total: AtomicU64,
}

#[derive(Default)]
struct TaskOut {
    pairs: Vec<Pair>,
    /// (A row, start in `pairs`, count)
    runs: Vec<(u32, u32, u32)>,
    stats: Counters,
    /// Scratch: B vectors that pass the key bound.
    cands: Vec<u32>,
}

impl Ctx<'_> {
    /// The frontier of A's node `ca` at level t+1, from its parent's `frontier`
    /// (B nodes of level t, and leaves of lower levels, which are carried over
    /// as they are); written to `out`, length returned.
    #[inline]
    fn child_frontier(&self, t: usize, frontier: &[Entry], ca: usize, out: &mut Frontier, stats: &mut Counters) -> usize {
        let an = &self.a.levels[t + 1][ca];
        let lim = self.a.node_limit[t + 1][ca];
        let (val, wlo, whi, kb) = (an.val as f64, an.wlo as f64, an.whi as f64, an.kb);
        let bl = &self.b.levels[t + 1][..];
        let bound: usize = frontier.iter().map(|e| ((e.child_end - e.child) as usize).max(1)).sum();
        if out.len() < bound {
            out.resize(bound, Entry::default());
        }
        let out = &mut out[..bound];
        let mut n = 0;
        for e in frontier {
            if e.child == e.child_end {
                // a leaf of B: nothing more to fix on its side
                out[n] = *e;
                n += (e.p <= lim) as usize;
                continue;
            }
            stats.node_pairs += (e.child_end - e.child) as u64;
            // the children and the node after the last (for the ends)
            let nodes = &bl[e.child as usize..=e.child_end as usize];
            for w in nodes.windows(2) {
                let (c, next) = (&w[0], &w[1]);
                let dv = val - c.val as f64;
                let p = e.p + dv * dv;
                let gap = (c.wlo as f64 - whi).max(wlo - c.whi as f64).max(0.0);
                // branch-free: write, then keep it only if the bound allows
                let q = e.q + kb.abs_diff(c.kb) as u32;
                out[n] = Entry { child: c.child, child_end: next.child, item: c.item, item_end: c.item_end, q, level: t as u32 + 1, p };
                n += (p + gap <= lim) as usize;
            }
        }
        n
    }

    fn descend(&self, t: usize, an: usize, frontier: &[Entry], bufs: &mut [Frontier], out: &mut TaskOut) -> Result<(), Error> {
        let al = &self.a.levels[t];
        let items = al[an].item as usize..al[an].item_end as usize;
        let children = al[an].child as usize..al[an + 1].child as usize;
        let b_items: usize = frontier.iter().map(|e| (e.item_end - e.item) as usize).sum();
        let Some((cur, rest)) = bufs.split_first_mut() else {
            return self.resolve(items, frontier, b_items, out);
        };
        if children.is_empty() || items.len() * b_items <= RESOLVE * frontier.len() {
            return self.resolve(items, frontier, b_items, out);
        }
        for ca in children {
            let n = self.child_frontier(t, frontier, ca, cur, &mut out.stats);
            if n > 0 {
                self.descend(t + 1, ca, &cur[..n], rest, out)?;
            }
        }
        Ok(())
    }

    /// Every A vector of `items` against every B vector of the frontier: the
    /// key bound, then [`distance`].
    fn resolve(&self, items: std::ops::Range<usize>, frontier: &[Entry], b_items: usize, out: &mut TaskOut) -> Result<(), Error> {
        let (unit, slacks) = (self.layout.unit, &self.layout.key_slack);
        let per_unit = if unit > 0.0 { 1.0 / unit } else { 0.0 };
        if out.cands.len() < b_items {
            out.cands.resize(b_items, 0);
        }
        let (bkeys, cands) = (&self.b.keys[..], &mut out.cands[..b_items]);
        for pa in items {
            let (lim, th, ka) = (self.a.limit[pa], self.a.th[pa], &self.a.keys[pa]);
            let mut n = 0;
            for e in frontier {
                // the key bound must stay within what the fixed part leaves
                let room = lim - e.p + slacks[e.level as usize];
                if room < 0.0 {
                    continue;
                }
                out.stats.key_checks += (e.item_end - e.item) as u64;
                // U·(sad − q) <= room, in integers: sad <= q + ⌊room / U⌋ (`as`
                // truncates: the floor of a non-negative number; the reciprocal's
                // rounding is far inside the pruning margin)
                let most = if unit > 0.0 { (e.q as f64 + room * per_unit).min(u32::MAX as f64) as u32 } else { u32::MAX };
                for (pb, kb) in (e.item..e.item_end).zip(&bkeys[e.item as usize..e.item_end as usize]) {
                    cands[n] = pb;
                    n += (sad(ka, kb) <= most) as usize;
                }
            }
            out.stats.candidates += n as u64;
            let first = out.pairs.len();
            let ra = self.a.row(pa, self.dim);
            for &pb in &cands[..n] {
                let d = distance(ra, self.b.row(pb as usize, self.dim));
                if d <= th {
                    out.pairs.push(Pair { a: self.a.ids[pa], b: self.b.ids[pb as usize], distance: d });
                }
            }
            let found = out.pairs.len() - first;
            if found > 0 {
                // distances are >= +0.0, so their bits sort like their values
                out.pairs[first..].sort_unstable_by_key(|x| (x.distance.to_bits(), x.b));
                out.runs.push((self.a.ids[pa], first as u32, found as u32));
                if self.total.fetch_add(found as u64, Ordering::Relaxed) + found as u64 > MAX_PAIRS {
                    return Err(too_many());
                }
            }
        }
        Ok(())
    }

    /// Walks down A's trie, one level at a time, until there are `TASKS` nodes
    /// (or only leaves): the independent tasks, the same in parallel and in
    /// sequence.
    fn tasks(&self, stats: &mut Counters) -> Vec<(usize, usize, Frontier)> {
        let (r, next) = (&self.b.levels[0][0], &self.b.levels[0][1]);
        let root = Entry { child: r.child, child_end: next.child, item: r.item, item_end: r.item_end, q: 0, level: 0, p: 0.0 };
        let mut tasks: Vec<(usize, usize, Frontier)> = vec![(0, 0, vec![root])];
        let mut buf = Frontier::new();
        while tasks.len() < TASKS {
            let mut next = Vec::new();
            let mut grew = false;
            for (t, an, frontier) in tasks {
                let al = &self.a.levels[t];
                let children = al[an].child as usize..al[an + 1].child as usize;
                if t == self.layout.depth || children.is_empty() {
                    next.push((t, an, frontier));
                    continue;
                }
                grew = true;
                for ca in children {
                    let n = self.child_frontier(t, &frontier, ca, &mut buf, stats);
                    if n > 0 {
                        next.push((t + 1, ca, buf[..n].to_vec()));
                    }
                }
            }
            tasks = next;
            if !grew {
                break;
            }
        }
        tasks
    }

    fn run(&self, task: &(usize, usize, Frontier)) -> Result<TaskOut, Error> {
        let (t, an, frontier) = task;
        let mut out = TaskOut::default();
        let mut bufs: Vec<Frontier> = vec![Frontier::new(); self.layout.depth - t];
        self.descend(*t, *an, frontier, &mut bufs, &mut out)?;
        Ok(out)
    }
}

fn too_many() -> Error {
    Error::Parameter(format!(
        "more than {MAX_PAIRS} pairs are within the thresholds: the thresholds are too large for these vectors"
    ))
}

/// The exact range match through the dual-trie index: for each A row, every B
/// row with `distance(a, b) <= th_a`, sorted by (a, distance, b). The same pairs,
/// order and statistics with any options, in parallel or not, natively or in
/// wasm, and the same pairs as [`super::brute_force`] and [`super::range_match`].
/// `candidates` counts the pairs whose distance was computed.
pub fn trie_match(a: &Vectors, b: &Vectors, thresholds: &[f64], options: &TrieMatchOptions) -> Result<(Vec<Pair>, MatchStats), Error> {
    validate(a, b, thresholds)?;
    if a.is_empty() || b.is_empty() {
        return Ok((Vec::new(), MatchStats::default()));
    }
    for (name, v) in [("A", a), ("B", b)] {
        if v.len() > u32::MAX as usize {
            return Err(Error::Parameter(format!("{name} has {} vectors; at most {} can be matched", v.len(), u32::MAX)));
        }
    }
    let parallel = options.parallel && cfg!(not(target_arch = "wasm32"));
    let layout = Layout::new(a, b, options.depth, parallel);
    let (ta, tb) = join(
        || Trie::build(a, &layout, Some(thresholds), options.leaf, parallel),
        || Trie::build(b, &layout, None, options.leaf, parallel),
        parallel,
    );
    let ctx = Ctx { a: &ta, b: &tb, layout: &layout, dim: a.dim, total: AtomicU64::new(0) };
    let mut counters = Counters::default();
    let tasks = ctx.tasks(&mut counters);
    let outs = run_all(&ctx, &tasks, parallel)?;

    // every A row's pairs are one run of one task: place the runs in row order
    let mut where_: Vec<Option<(usize, u32, u32)>> = vec![None; a.len()];
    let mut total = 0usize;
    for (k, o) in outs.iter().enumerate() {
        for &(row, start, len) in &o.runs {
            where_[row as usize] = Some((k, start, len));
            total += len as usize;
        }
        counters.candidates += o.stats.candidates;
        counters.node_pairs += o.stats.node_pairs;
        counters.key_checks += o.stats.key_checks;
    }
    let mut pairs = Vec::with_capacity(total);
    for &(k, start, len) in where_.iter().flatten() {
        pairs.extend_from_slice(&outs[k].pairs[start as usize..(start + len) as usize]);
    }
    let stats = MatchStats { candidates: counters.candidates, pairs: pairs.len() as u64 };
    Ok((pairs, stats))
}

fn join<A: Send, B: Send>(fa: impl FnOnce() -> A + Send, fb: impl FnOnce() -> B + Send, parallel: bool) -> (A, B) {
    #[cfg(not(target_arch = "wasm32"))]
    if parallel {
        return rayon::join(fa, fb);
    }
    let _ = parallel;
    (fa(), fb())
}

fn run_all(ctx: &Ctx, tasks: &[(usize, usize, Frontier)], parallel: bool) -> Result<Vec<TaskOut>, Error> {
    #[cfg(not(target_arch = "wasm32"))]
    if parallel {
        use rayon::prelude::*;
        return tasks.par_iter().map(|t| ctx.run(t)).collect();
    }
    let _ = parallel;
    tasks.iter().map(|t| ctx.run(t)).collect()
}
