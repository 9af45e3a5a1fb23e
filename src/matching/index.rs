//! The exact range index.
//!
//! B's vectors are projected onto an orthonormal basis u_1..u_K of their top
//! principal directions (K ≤ 8), and a k-d tree is built over the projections.
//! Orthonormal projection never lengthens a vector, so for any a, b
//!
//!   Σ_j ⟨a − b, u_j⟩² ≤ ‖a − b‖²,
//!
//! and the distance from a's projection to a tree box (or to b's projection) is a
//! lower bound of d(a, b). A box or point is pruned only when that bound exceeds
//! th² by a safety margin (1e-9·(1 + th²), far above the rounding error of the
//! projections); everything else is decided by [`distance`], exactly as brute
//! force decides it. So the index prunes, never changes, the answer.

use super::distance::{distance, may_be_within};
use super::lattice::Lattice;
use super::pairs::{join_chunks, push_found, validate, MatchStats, Pair};
use crate::embed::Vectors;
use crate::error::Error;
use std::sync::atomic::AtomicU64;
use std::sync::OnceLock;

const MAX_COMPONENTS: usize = 8;
const LEAF: usize = 24;
const PCA_SAMPLE: usize = 1024;
const POWER_ITERATIONS: usize = 60;

struct TreeNode {
    /// Box: per projected dimension, [lo, hi].
    lo: Vec<f64>,
    hi: Vec<f64>,
    start: usize,
    end: usize,
    children: Option<(usize, usize)>,
}

struct PcaTree {
    k: usize,
    dim: usize,
    mean: Vec<f64>,
    basis: Vec<f64>,
    /// Projections of B in tree order, k per point.
    proj: Vec<f64>,
    /// B row of each point in tree order.
    rows: Vec<u32>,
    nodes: Vec<TreeNode>,
}

impl PcaTree {
    fn project(&self, v: &[f32], out: &mut [f64]) {
        for (c, o) in out.iter_mut().enumerate() {
            let u = &self.basis[c * self.dim..(c + 1) * self.dim];
            let mut s = 0.0;
            for ((x, m), w) in v.iter().zip(&self.mean).zip(u) {
                s += (*x as f64 - m) * w;
            }
            *o = s;
        }
    }

    fn build(b: &Vectors) -> PcaTree {
        let dim = b.dim;
        let n = b.len();
        let (mean, basis, k) = principal_basis(b);
        let mut idx =
            PcaTree { k, dim, mean, basis, proj: vec![0.0; n * k], rows: (0..n as u32).collect(), nodes: Vec::new() };
        let mut tmp = vec![0.0; k];
        let mut proj = vec![0.0; n * k];
        for r in 0..n {
            idx.project(b.row(r), &mut tmp);
            proj[r * k..(r + 1) * k].copy_from_slice(&tmp);
        }
        let mut rows: Vec<u32> = (0..n as u32).collect();
        if n > 0 {
            build_node(&mut idx.nodes, &mut rows, &proj, k, 0, n);
        }
        for (i, &r) in rows.iter().enumerate() {
            idx.proj[i * k..(i + 1) * k].copy_from_slice(&proj[r as usize * k..(r as usize + 1) * k]);
        }
        idx.rows = rows;
        idx
    }

    /// All B rows within `th` of `a`, sorted by (distance, b); returns candidates.
    #[inline(never)]
    fn query(
        &self,
        a: &[f32],
        th: f64,
        b: &Vectors,
        q: &mut [f64],
        stack: &mut Vec<usize>,
        out: &mut Vec<(u32, f64)>,
    ) -> u64 {
        out.clear();
        if self.nodes.is_empty() {
            return 0;
        }
        self.project(a, q);
        let t2 = th * th;
        let limit = t2 + 1e-9 * (1.0 + t2);
        let mut candidates = 0;
        stack.clear();
        stack.push(0);
        while let Some(v) = stack.pop() {
            let node = &self.nodes[v];
            let mut lb = 0.0;
            for (c, &x) in q.iter().enumerate().take(self.k) {
                let gap = if x < node.lo[c] {
                    node.lo[c] - x
                } else if x > node.hi[c] {
                    x - node.hi[c]
                } else {
                    0.0
                };
                lb += gap * gap;
            }
            if lb > limit {
                continue;
            }
            match node.children {
                Some((l, r)) => {
                    stack.push(r);
                    stack.push(l);
                }
                None => {
                    for i in node.start..node.end {
                        let p = &self.proj[i * self.k..(i + 1) * self.k];
                        let mut plb = 0.0;
                        for c in 0..self.k {
                            let g = q[c] - p[c];
                            plb += g * g;
                        }
                        if plb > limit {
                            continue;
                        }
                        candidates += 1;
                        let row = self.rows[i];
                        let br = b.row(row as usize);
                        if !may_be_within(a, br, limit) {
                            continue;
                        }
                        let d = distance(a, br);
                        if d <= th {
                            out.push((row, d));
                        }
                    }
                }
            }
        }
        crate::sorting::sort_by_distance(out);
        candidates
    }
}

fn build_node(nodes: &mut Vec<TreeNode>, rows: &mut [u32], proj: &[f64], k: usize, start: usize, end: usize) -> usize {
    let mut lo = vec![f64::INFINITY; k];
    let mut hi = vec![f64::NEG_INFINITY; k];
    for &r in &rows[start..end] {
        for c in 0..k {
            let x = proj[r as usize * k + c];
            lo[c] = lo[c].min(x);
            hi[c] = hi[c].max(x);
        }
    }
    let id = nodes.len();
    nodes.push(TreeNode { lo: lo.clone(), hi: hi.clone(), start, end, children: None });
    if end - start <= LEAF || k == 0 {
        return id;
    }
    let split = (0..k).max_by(|&x, &y| (hi[x] - lo[x]).total_cmp(&(hi[y] - lo[y]))).unwrap_or(0);
    if hi[split] - lo[split] <= 0.0 {
        return id; // all points project to one spot: a leaf
    }
    let mid = start + (end - start) / 2;
    // The comparator is a strict total order, so a selection and a full sort put
    // the same rows on each side of `mid`: the same tree, natively and in wasm.
    let by_split =
        |x: &u32, y: &u32| proj[*x as usize * k + split].total_cmp(&proj[*y as usize * k + split]).then(x.cmp(y));
    crate::sorting::partition_at(&mut rows[start..end], mid - start, by_split);
    let l = build_node(nodes, rows, proj, k, start, mid);
    let r = build_node(nodes, rows, proj, k, mid, end);
    nodes[id].children = Some((l, r));
    id
}

/// Mean and top principal directions of (a sample of) B, orthonormalized. Power
/// iteration on the covariance XᵀX of the centered sample X (applied as Xᵀ(Xv),
/// never formed) with deflation by Gram–Schmidt; deterministic.
fn principal_basis(b: &Vectors) -> (Vec<f64>, Vec<f64>, usize) {
    let dim = b.dim;
    let n = b.len();
    let mut mean = vec![0.0; dim];
    if n == 0 || dim == 0 {
        return (mean, Vec::new(), 0);
    }
    let step = n.div_ceil(PCA_SAMPLE);
    let sample: Vec<usize> = (0..n).step_by(step).collect();
    for &r in &sample {
        for (m, x) in mean.iter_mut().zip(b.row(r)) {
            *m += *x as f64;
        }
    }
    for m in mean.iter_mut() {
        *m /= sample.len() as f64;
    }
    // the centered sample as a matrix X (rows × dim): each power step is
    // w = Xᵀ(X v), 2·rows·dim products, instead of a dim × dim covariance
    // (rows·dim² products to build: most of a keyed match's set-up)
    let mut x = vec![0.0; sample.len() * dim];
    for (row, &r) in x.chunks_exact_mut(dim).zip(&sample) {
        for ((c, v), m) in row.iter_mut().zip(b.row(r)).zip(&mean) {
            *c = *v as f64 - m;
        }
    }
    let k = MAX_COMPONENTS.min(dim);
    let mut basis: Vec<f64> = Vec::with_capacity(k * dim);
    let mut found = 0;
    let mut t = vec![0.0; sample.len()];
    for c in 0..k {
        // a deterministic start that is not orthogonal to much
        let mut v: Vec<f64> = (0..dim).map(|j| 1.0 + ((j * 7 + c * 13) % 11) as f64 / 11.0).collect();
        orthonormalize(&mut v, &basis, found, dim);
        for _ in 0..POWER_ITERATIONS {
            for (ti, row) in t.iter_mut().zip(x.chunks_exact(dim)) {
                *ti = row.iter().zip(&v).map(|(a, b)| a * b).sum();
            }
            let mut w = vec![0.0; dim];
            for (ti, row) in t.iter().zip(x.chunks_exact(dim)) {
                for (wj, xj) in w.iter_mut().zip(row) {
                    *wj += ti * xj;
                }
            }
            if !orthonormalize(&mut w, &basis, found, dim) {
                break;
            }
            v = w;
        }
        if orthonormalize(&mut v, &basis, found, dim) {
            basis.extend_from_slice(&v);
            found += 1;
        }
    }
    (mean, basis, found)
}

/// Removes the components along the first `n` basis vectors (twice, for accuracy)
/// and normalizes; false if nothing is left.
fn orthonormalize(v: &mut [f64], basis: &[f64], n: usize, dim: usize) -> bool {
    for _ in 0..2 {
        for c in 0..n {
            let u = &basis[c * dim..(c + 1) * dim];
            let d: f64 = v.iter().zip(u).map(|(a, b)| a * b).sum();
            for (x, y) in v.iter_mut().zip(u) {
                *x -= d * y;
            }
        }
    }
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm < 1e-12 {
        return false;
    }
    for x in v.iter_mut() {
        *x /= norm;
    }
    true
}

/// The indexes of B: the lattice when it applies, the tree built on first need.
struct Indexes<'a> {
    b: &'a Vectors,
    lattice: Option<Lattice>,
    tree: OnceLock<PcaTree>,
}

impl<'a> Indexes<'a> {
    fn new(a: &Vectors, b: &'a Vectors) -> Self {
        Indexes { b, lattice: Lattice::build(a, b), tree: OnceLock::new() }
    }

    fn tree(&self) -> &PcaTree {
        self.tree.get_or_init(|| PcaTree::build(self.b))
    }
}

#[inline(never)]
fn match_rows(
    ix: &Indexes,
    a: &Vectors,
    b: &Vectors,
    th: &[f64],
    rows: std::ops::Range<usize>,
    total: &AtomicU64,
) -> Result<(Vec<Pair>, u64), Error> {
    let mut q = Vec::new();
    let mut stack = Vec::new();
    let mut found = Vec::new();
    let mut pairs = Vec::new();
    let mut candidates = 0;
    let mut trie_stack = Vec::new();
    for i in rows {
        found.clear();
        candidates += match &ix.lattice {
            Some(l) => {
                let c = l.query(a.row(i), th[i], b, &mut trie_stack, &mut found);
                crate::sorting::sort_by_distance(&mut found);
                c
            }
            None => {
                let index = ix.tree();
                q.resize(index.k, 0.0);
                index.query(a.row(i), th[i], b, &mut q, &mut stack, &mut found)
            }
        };
        push_found(&mut pairs, i, &found, total)?;
    }
    Ok((pairs, candidates))
}

/// The exact range match, using every core natively (`crate::par`). Same pairs, same order as
/// [`range_match_sequential`] and [`super::brute_force`].
pub fn range_match(a: &Vectors, b: &Vectors, thresholds: &[f64]) -> Result<(Vec<Pair>, MatchStats), Error> {
    run(a, b, thresholds, true)
}

/// The exact range match on one thread (its per-row index queries; a sparse
/// batch still goes through `super::sparse`).
pub fn range_match_sequential(a: &Vectors, b: &Vectors, thresholds: &[f64]) -> Result<(Vec<Pair>, MatchStats), Error> {
    run(a, b, thresholds, false)
}

fn run(a: &Vectors, b: &Vectors, thresholds: &[f64], parallel: bool) -> Result<(Vec<Pair>, MatchStats), Error> {
    validate(a, b, thresholds)?;
    if super::sparse::worthwhile(a, b) {
        return super::sparse::sparse_match(a, b, thresholds);
    }
    let index = Indexes::new(a, b);
    let total = AtomicU64::new(0);
    let rows = |rows| match_rows(&index, a, b, thresholds, rows, &total);
    let parts = if parallel {
        crate::par::chunks(a.len(), crate::par::WASM_ROWS_PER_CALL, rows)
    } else {
        // in chunks of rows as wasm runs them (one call each: crate::par)
        let chunk = crate::par::WASM_ROWS_PER_CALL;
        (0..a.len()).step_by(chunk).map(|start| rows(start..(start + chunk).min(a.len()))).collect()
    };
    join_chunks(parts)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::matching::brute::cases::case;
    use crate::matching::brute_force;
    use proptest::prelude::*;

    const VALUES: [f32; 8] = [0.0, 1.0 / 3.0, 0.5, 2.0 / 3.0, 1.0, 1.5, 2.0, 3.0];

    fn vectors(dim: usize, raw: &[u8]) -> Vectors {
        let n = raw.len() / dim.max(1);
        Vectors { dim, data: raw[..n * dim].iter().map(|&x| VALUES[x as usize % VALUES.len()]).collect() }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn index_equals_brute_force(c in case(1..12, 400, 600), ths in prop::collection::vec(0u8..12, 0..60)) {
            let a = vectors(c.dim, &c.ra);
            let b = vectors(c.dim, &c.rb);
            // thresholds: a few scales, or exact distances to some B row (ties)
            let th = c.thresholds(&a, &b, |i| i, |i| *ths.get(i).unwrap_or(&3) as f64 * 0.25);
            let (want, _) = brute_force(&a, &b, &th).unwrap();
            let (got, stats) = range_match(&a, &b, &th).unwrap();
            let (seq, seq_stats) = range_match_sequential(&a, &b, &th).unwrap();
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(&seq, &want);
            prop_assert_eq!(stats, seq_stats);
            prop_assert!(stats.candidates <= a.len() as u64 * b.len() as u64);
        }
    }

    /// Vectors whose first `whole` coordinates are counts (the lattice index's case).
    fn counted(dim: usize, whole: usize, raw: &[u8]) -> Vectors {
        let n = raw.len() / dim;
        let data = raw[..n * dim]
            .iter()
            .enumerate()
            .map(|(i, &x)| if i % dim < whole { (x % 4) as f32 } else { VALUES[x as usize % VALUES.len()] })
            .collect();
        Vectors { dim, data }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn lattice_index_equals_brute_force(c in case(2..10, 300, 500), whole_share in 1usize..10, scale in 0u8..8) {
            let whole = whole_share.min(c.dim);
            let a = counted(c.dim, whole, &c.ra);
            let b = counted(c.dim, whole, &c.rb);
            let th = c.thresholds(&a, &b, |i| i * 7, |i| scale as f64 * 0.25 + (i % 3) as f64 * 0.2);
            let (want, _) = brute_force(&a, &b, &th).unwrap();
            let (got, _) = range_match(&a, &b, &th).unwrap();
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn duplicates_and_zero_threshold() {
        let a = Vectors { dim: 3, data: vec![1.0, 0.5, 0.0, 1.0, 0.5, 0.0] };
        let b = Vectors { dim: 3, data: vec![1.0, 0.5, 0.0, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0] };
        let (p, _) = range_match(&a, &b, &[0.0, 0.0]).unwrap();
        assert_eq!(p.len(), 4);
        assert!(p.iter().all(|x| x.distance == 0.0 && x.b < 2));
    }

    #[test]
    fn bad_inputs_are_errors() {
        let a = Vectors { dim: 2, data: vec![1.0, 2.0] };
        let b = Vectors { dim: 3, data: vec![1.0, 2.0, 3.0] };
        assert!(range_match(&a, &b, &[1.0]).is_err());
        let b2 = Vectors { dim: 2, data: vec![f32::NAN, 0.0] };
        assert!(range_match(&a, &b2, &[1.0]).is_err());
        let b3 = Vectors { dim: 2, data: vec![0.0, 0.0] };
        assert!(range_match(&a, &b3, &[]).is_err());
        assert!(range_match(&a, &b3, &[f64::NAN]).is_err());
        assert!(range_match(&a, &b3, &[-1.0]).is_err());
        let empty = Vectors { dim: 2, data: vec![] };
        assert!(range_match(&a, &empty, &[1.0]).unwrap().0.is_empty());
        assert!(range_match(&empty, &b3, &[]).unwrap().0.is_empty());
    }
}
