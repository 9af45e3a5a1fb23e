//! The exact inner-product bootstrap: C decodes a batch from the inner
//! products it keeps, with no key.
//!
//! A distance-preserving transform (the keyed rotation of [`crate::keyed`])
//! keeps every inner product, so the Gram matrix of the batch C receives is
//! the Gram matrix of the plaintext vectors, up to f32 rounding. C computes
//! plaintext vectors for every public value itself (the shared base is
//! public), so:
//!
//! 1. **Anchors.** The largest groups of identical rows are matched to the
//!    most frequent public values ([`frequency_seeds`]): a depth-first search
//!    keeps the assignment whose norms and pairwise inner products all agree.
//!    Rows whose norm leaves few public values are narrowed by arc
//!    consistency on their exact inner products with each other; a row left
//!    with one value is an anchor too.
//! 2. **Rounds.** Every other distinct row keeps the public values of its norm
//!    whose inner products with every anchor equal the row's own; one left is
//!    a decoded row, an anchor of the next round. A round that decodes
//!    nothing runs arc consistency again on the rows of fewest candidates;
//!    the rounds end when that decodes nothing either.
//!
//! Nothing here knows the transform: the rows are read through their
//! non-zero entries, dense or sparse, so the same functions judge any
//! encoding (they decode nothing where the encoding does not keep the
//! plaintext's inner products).

use crate::embed::BatchVectors;
use crate::sparse_vectors::SparseVectors;

/// The relative rounding bound of an inner product (or squared norm) of two
/// rows rounded once from f64 to f32 (2·2⁻²⁴ by Cauchy–Schwarz), doubled.
pub const ROUNDING: f64 = 4.0 / 16_777_216.0;
/// Extra anchors a lone candidate is checked against before it counts.
const CONFIRM: usize = 16;
/// Anchors that add no new plaintext coordinate, kept per round as filters.
const EXTRA_FILTERS: usize = 256;
/// Search steps of the anchor search.
const SEED_BUDGET: usize = 200_000;

/// The distinct rows of what C received (several sources pooled: the parts of
/// a record batch embedded over one base), with each row's group.
pub struct Rows {
    pub vectors: SparseVectors,
    pub norms2: Vec<f64>,
    /// The group of every received row, sources in order.
    pub group_of: Vec<u32>,
    /// Rows per group.
    pub size: Vec<u32>,
}

impl Rows {
    /// Groups the rows of `sources` (all of one dimension) by bit identity.
    pub fn new(sources: &[&BatchVectors]) -> Rows {
        let dim = sources.iter().map(|s| s.dim()).max().unwrap_or(0);
        let mut index: std::collections::HashMap<(Vec<u32>, Vec<u32>), u32> = Default::default();
        let mut rows =
            Rows { vectors: SparseVectors::new(dim), norms2: Vec::new(), group_of: Vec::new(), size: Vec::new() };
        for s in sources {
            let src = s.source();
            for r in 0..src.rows() {
                let (mut cols, mut bits) = (Vec::new(), Vec::new());
                src.nonzero(r, &mut |c, v| {
                    cols.push(c);
                    bits.push(v.to_bits());
                });
                let key = (cols, bits);
                let g = match index.get(&key) {
                    Some(&g) => g,
                    None => {
                        let g = rows.size.len() as u32;
                        let vals: Vec<f32> = key.1.iter().map(|&b| f32::from_bits(b)).collect();
                        rows.norms2.push(vals.iter().map(|&x| x as f64 * x as f64).sum());
                        rows.vectors.push_row(key.0.iter().copied().zip(vals));
                        rows.size.push(0);
                        index.insert(key, g);
                        g
                    }
                };
                rows.size[g as usize] += 1;
                rows.group_of.push(g);
            }
        }
        rows
    }

    pub fn len(&self) -> usize {
        self.size.len()
    }

    pub fn is_empty(&self) -> bool {
        self.size.is_empty()
    }

    /// The inner product of distinct rows `a` and `b` (f64 from the f32 entries).
    pub fn dot(&self, a: usize, b: usize) -> f64 {
        let ((ca, va), (cb, vb)) = (self.vectors.row(a), self.vectors.row(b));
        if ca.len() == self.vectors.dim && cb.len() == self.vectors.dim {
            return va.iter().zip(vb).map(|(&x, &y)| x as f64 * y as f64).sum();
        }
        let (mut i, mut j, mut s) = (0, 0, 0.0);
        while i < ca.len() && j < cb.len() {
            match ca[i].cmp(&cb[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    s += va[i] as f64 * vb[j] as f64;
                    i += 1;
                    j += 1;
                }
            }
        }
        s
    }

    fn tol(&self, a: usize, b: usize) -> f64 {
        ROUNDING * (self.norms2[a] * self.norms2[b]).sqrt() + 1e-9
    }
}

/// C's plaintext vectors of the public values, grouped by identity.
pub struct Plain {
    pub vectors: SparseVectors,
    pub norms2: Vec<f64>,
    /// Public values (indices into C's list) of each distinct vector, ascending.
    pub members: Vec<Vec<u32>>,
    /// The distinct vector of each public value.
    pub group_of: Vec<u32>,
    by_norm: Vec<(f64, u32)>,
}

impl Plain {
    pub fn new(list: &SparseVectors) -> Plain {
        let mut index: std::collections::HashMap<(Vec<u32>, Vec<u32>), u32> = Default::default();
        let mut p = Plain {
            vectors: SparseVectors::new(list.dim),
            norms2: Vec::new(),
            members: Vec::new(),
            group_of: Vec::with_capacity(list.len()),
            by_norm: Vec::new(),
        };
        for r in 0..list.len() {
            let (cols, vals) = list.row(r);
            let next = p.members.len() as u32;
            let g = *index.entry((cols.to_vec(), vals.iter().map(|v| v.to_bits()).collect())).or_insert(next);
            if g == next {
                p.vectors.push_row(cols.iter().copied().zip(vals.iter().copied()));
                p.norms2.push(vals.iter().map(|&x| x as f64 * x as f64).sum());
                p.members.push(Vec::new());
            }
            p.members[g as usize].push(r as u32);
            p.group_of.push(g);
        }
        p.by_norm = p.norms2.iter().enumerate().map(|(g, &n)| (n, g as u32)).collect();
        p.by_norm.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        p
    }

    /// The distinct public vectors whose squared norm is within `tol` of `n2`.
    pub fn of_norm(&self, n2: f64, tol: f64) -> impl Iterator<Item = u32> + '_ {
        let lo = self.by_norm.partition_point(|&(x, _)| x < n2 - tol);
        let hi = self.by_norm.partition_point(|&(x, _)| x <= n2 + tol);
        self.by_norm[lo..hi].iter().map(|&(_, g)| g)
    }

    fn dense(&self, g: u32) -> Vec<f64> {
        let mut x = vec![0.0; self.vectors.dim];
        let (cols, vals) = self.vectors.row(g as usize);
        for (&c, &v) in cols.iter().zip(vals) {
            x[c as usize] = v as f64;
        }
        x
    }

    fn dot_dense(&self, g: u32, x: &[f64]) -> f64 {
        let (cols, vals) = self.vectors.row(g as usize);
        cols.iter().zip(vals).map(|(&c, &v)| v as f64 * x[c as usize]).sum()
    }

    fn dot(&self, a: u32, b: u32) -> f64 {
        self.dot_dense(a, &self.dense(b))
    }
}

/// A guess to check: a distinct row and the public vectors it may be, most
/// likely first (the frequency ranks).
pub struct Hypothesis {
    pub row: u32,
    pub candidates: Vec<u32>,
}

/// The largest consistent assignment of the hypotheses (rows to distinct
/// public vectors, norms and all pairwise inner products agreeing), found by
/// a depth-first search that tries candidates in order before skipping a row.
pub fn frequency_seeds(rows: &Rows, plain: &Plain, hyps: &[Hypothesis]) -> Vec<(u32, u32)> {
    struct Search<'a> {
        rows: &'a Rows,
        plain: &'a Plain,
        hyps: Vec<Hypothesis>,
        chosen: Vec<(u32, u32)>,
        best: Vec<(u32, u32)>,
        steps: usize,
    }
    impl Search<'_> {
        fn fits(&self, g: u32, p: u32) -> bool {
            let (g, rows) = (g as usize, self.rows);
            (rows.norms2[g] - self.plain.norms2[p as usize]).abs() <= rows.tol(g, g)
                && self.chosen.iter().all(|&(h, q)| {
                    q != p && (rows.dot(g, h as usize) - self.plain.dot(p, q)).abs() <= rows.tol(g, h as usize)
                })
        }
        fn go(&mut self, i: usize) -> bool {
            self.steps += 1;
            if self.chosen.len() > self.best.len() {
                self.best = self.chosen.clone();
            }
            if i == self.hyps.len() {
                return self.best.len() == self.hyps.len() || self.steps > SEED_BUDGET;
            }
            if self.chosen.len() + (self.hyps.len() - i) <= self.best.len() || self.steps > SEED_BUDGET {
                return self.steps > SEED_BUDGET;
            }
            let g = self.hyps[i].row;
            for k in 0..self.hyps[i].candidates.len() {
                let p = self.hyps[i].candidates[k];
                if self.fits(g, p) {
                    self.chosen.push((g, p));
                    let done = self.go(i + 1);
                    self.chosen.pop();
                    if done {
                        return true;
                    }
                }
            }
            self.go(i + 1)
        }
    }
    let hyps = hyps.iter().map(|h| Hypothesis { row: h.row, candidates: h.candidates.clone() }).collect();
    let mut s = Search { rows, plain, hyps, chosen: Vec::new(), best: Vec::new(), steps: 0 };
    s.go(0);
    s.best
}

/// What the bootstrap decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Bootstrap {
    /// The public vector each distinct row was decoded to.
    pub decoded: Vec<Option<u32>>,
    pub frequency_anchors: usize,
    pub norm_anchors: usize,
    /// Distinct rows decoded after each round (round 0: the anchors).
    pub rounds: Vec<usize>,
    /// Anchors used as filters at the end (each adds a plaintext coordinate
    /// or is one of the extra filters).
    pub filters: usize,
}

struct Filter {
    row: usize,
    x: Vec<f64>,
}

/// Decodes `rows` against `plain` from the `seeds` (row, public vector) and
/// the rows of unique norm, in rounds.
pub fn bootstrap(rows: &Rows, plain: &Plain, seeds: &[(u32, u32)]) -> Bootstrap {
    let mut decoded: Vec<Option<u32>> = vec![None; rows.len()];
    for &(g, p) in seeds {
        decoded[g as usize] = Some(p);
    }
    let mut norm_anchors = 0;
    for (g, p) in norm_seeds(rows, plain) {
        let d = &mut decoded[g as usize];
        // consistent with the seeds, or no anchor
        let fits = seeds.iter().all(|&(h, q)| {
            (rows.dot(g as usize, h as usize) - plain.dot(p, q)).abs() <= rows.tol(g as usize, h as usize)
        });
        if d.is_none() && fits {
            *d = Some(p);
            norm_anchors += 1;
        }
    }
    let mut covered = vec![false; plain.vectors.dim];
    let mut filters: Vec<Filter> = Vec::new();
    let mut fresh: Vec<usize> = (0..rows.len()).filter(|&g| decoded[g].is_some()).collect();
    let mut rounds = vec![fresh.len()];
    while !fresh.is_empty() {
        let mut extra = 0;
        for &g in &fresh {
            let p = decoded[g].unwrap_or_default();
            let (cols, _) = plain.vectors.row(p as usize);
            let new = cols.iter().any(|&c| !covered[c as usize]);
            if new || extra < EXTRA_FILTERS {
                extra += usize::from(!new);
                cols.iter().for_each(|&c| covered[c as usize] = true);
                filters.push(Filter { row: g, x: plain.dense(p) });
            }
        }
        let todo: Vec<usize> = (0..rows.len()).filter(|&g| decoded[g].is_none()).collect();
        let found = crate::par::map(&todo, |&g| narrow(rows, plain, &filters, g));
        let mut new: Vec<(usize, u32)> =
            todo.iter().zip(&found).filter(|(_, c)| c.len() == 1).map(|(&g, c)| (g, c[0])).collect();
        if new.is_empty() {
            // stalled: arc consistency among the rows of fewest candidates
            let sets = todo.iter().copied().zip(found).collect();
            new = arc(rows, plain, sets).into_iter().map(|(g, p)| (g as usize, p)).collect();
        }
        for &(g, p) in &new {
            decoded[g] = Some(p);
        }
        fresh = new.into_iter().map(|(g, _)| g).collect();
        rounds.push(decoded.iter().filter(|d| d.is_some()).count());
    }
    let frequency_anchors = seeds.len();
    Bootstrap { decoded, frequency_anchors, norm_anchors, rounds, filters: filters.len() }
}

/// Rows the norm seeds look at (those of the fewest public norms).
const NORM_ROWS: usize = 400;
/// Public vectors of one norm past which a row is no norm seed.
const NORM_CANDIDATES: usize = 64;

/// Anchors from norms alone ([`arc`] on the candidates of each row's norm).
/// Rows of the fewest candidates keep the candidates that some candidate of every other such row
/// agrees with (arc consistency on the rows' exact inner products), until
/// nothing changes; rows left with one are anchors. Sound: a row's true
/// value always agrees with the others' true values.
fn norm_seeds(rows: &Rows, plain: &Plain) -> Vec<(u32, u32)> {
    let sets: Vec<(usize, Vec<u32>)> = (0..rows.len())
        .map(|g| (g, plain.of_norm(rows.norms2[g], rows.tol(g, g)).take(NORM_CANDIDATES + 1).collect::<Vec<_>>()))
        .collect();
    arc(rows, plain, sets)
}

/// Arc consistency over the rows of fewest candidates among `sets`: the
/// rows left with one candidate.
fn arc(rows: &Rows, plain: &Plain, sets: Vec<(usize, Vec<u32>)>) -> Vec<(u32, u32)> {
    let mut sets: Vec<(usize, Vec<u32>)> =
        sets.into_iter().filter(|(_, c)| !c.is_empty() && c.len() <= NORM_CANDIDATES).collect();
    sets.sort_by_key(|(g, c)| (c.len(), *g));
    sets.truncate(NORM_ROWS);
    let dense: std::collections::HashMap<u32, Vec<f64>> =
        sets.iter().flat_map(|(_, c)| c.iter().map(|&p| (p, plain.dense(p)))).collect();
    let pairs: Vec<Vec<(f64, f64)>> =
        crate::par::map(&sets, |(a, _)| sets.iter().map(|(b, _)| (rows.dot(*a, *b), rows.tol(*a, *b))).collect());
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..sets.len() {
            for j in 0..sets.len() {
                if i == j || (sets[i].1.len() <= 1 && sets[j].1.len() > 1) {
                    continue;
                }
                let (d, tol) = pairs[i][j];
                let others = sets[j].1.clone();
                let before = sets[i].1.len();
                sets[i].1.retain(|&c| others.iter().any(|&o| (plain.dot_dense(c, &dense[&o]) - d).abs() <= tol));
                changed |= sets[i].1.len() != before;
            }
        }
    }
    sets.into_iter().filter(|(_, c)| c.len() == 1).map(|(g, c)| (g as u32, c[0])).collect()
}

/// The public vectors of row `g`'s norm whose inner products with every
/// filter agree with the row's (a lone one checked against [`CONFIRM`] more).
fn narrow(rows: &Rows, plain: &Plain, filters: &[Filter], g: usize) -> Vec<u32> {
    let mut cands: Vec<u32> = plain.of_norm(rows.norms2[g], rows.tol(g, g)).collect();
    let mut confirmed = 0;
    for f in filters {
        if cands.is_empty() || (cands.len() == 1 && confirmed >= CONFIRM) {
            break;
        }
        let (d, tol) = (rows.dot(g, f.row), rows.tol(g, f.row));
        cands.retain(|&c| (plain.dot_dense(c, &f.x) - d).abs() <= tol);
        if cands.len() == 1 {
            confirmed += 1;
        }
    }
    cands
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::Vectors;

    fn sparse(rows: &[&[f32]]) -> SparseVectors {
        let mut s = SparseVectors::new(rows[0].len());
        for r in rows {
            s.push_row(r.iter().enumerate().map(|(c, &v)| (c as u32, v)));
        }
        s
    }

    #[test]
    fn a_rotation_of_the_plaintext_decodes_and_noise_does_not() {
        // public values e1, e2, e1+e2, 2·e3 and e1+e3; the batch: a rotation by
        // 90° in the (0, 1) plane of e1 (twice), e2, e1+e2, e1+e3
        let plain = Plain::new(&sparse(&[&[1., 0., 0.], &[0., 1., 0.], &[1., 1., 0.], &[0., 0., 2.], &[1., 0., 1.]]));
        let data = vec![0., 1., 0., 0., 1., 0., -1., 0., 0., -1., 1., 0., 0., 1., 1.];
        let batch = BatchVectors::Dense(Vectors { dim: 3, data });
        let rows = Rows::new(&[&batch]);
        assert_eq!(rows.size, vec![2, 1, 1, 1]);
        // norm 1 has two public values (e1, e2): the seed says e1
        let seeds = frequency_seeds(&rows, &plain, &[Hypothesis { row: 0, candidates: vec![0, 1] }]);
        assert_eq!(seeds, vec![(0, 0)]);
        let b = bootstrap(&rows, &plain, &seeds);
        assert_eq!(b.decoded, vec![Some(0), Some(1), Some(2), Some(4)]);
        // the norms' arc consistency alone names every row here: e1+e3 is the
        // row of norm √2 orthogonal to a row of norm 1, which fixes the rest
        assert_eq!((b.norm_anchors, b.rounds.clone()), (3, vec![4, 4]));
        assert_eq!(bootstrap(&rows, &plain, &[]).decoded, b.decoded);
        // no seed, a row nowhere near a public norm: nothing
        let noise = BatchVectors::Dense(Vectors { dim: 3, data: vec![0.3, 0.1, 0.2] });
        let rows = Rows::new(&[&noise]);
        assert_eq!(bootstrap(&rows, &plain, &[]).decoded, vec![None]);
    }
}
