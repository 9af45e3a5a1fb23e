//! The graph-matching attack (after Vidanage et al. 2020): C aligns the
//! similarity graph of the batch's rows with that of a public plaintext list,
//! by node features first and then by each node's similarities to the nodes
//! already aligned, and names every row after its plaintext partner.
//!
//! What C holds: the batch (sparse rows with their public shape), the shared
//! base (so it can embed any plaintext value without the key) and the public
//! list with the data's exact frequencies (the worst case: the list covers
//! the data). C never needs the key: it compares similarities within each
//! side, never across the two.
//!
//! 1. **Nodes.** Identical rows are one node (their count its size); the
//!    list's values embedded over the base are the other side's nodes.
//! 2. **Exact class totals.** Every encoding here keeps the total count of
//!    each gram length (the sketch sums counts within a length), which is a
//!    function of the value's length: a node may only be paired with a
//!    plaintext node of the same totals.
//! 3. **Seeds.** Frequency: the i-th largest group with the i-th most
//!    frequent value, where the sizes are unambiguous and the totals agree.
//!    Without enough of them (distinct data), node features: the size and the
//!    similarity profile against a random sample of the same side (how many
//!    neighbours above 0.3, 0.5 and 0.7, the largest, the mean of the five
//!    largest), paired greedily by feature distance, the most confident kept.
//! 4. **Propagation.** Each round, every node's cosine similarities to the
//!    aligned seeds on its side form its signature; rows and values with the
//!    same totals are paired greedily (one to one) by signature distance, and
//!    the most confident pairs join the seeds. The last round's pairing names
//!    the rows.

use crate::base::SharedBase;
use crate::dp::Randomness;
use crate::embed::{BatchVectors, Embedder};
use crate::error::Error;
use crate::shape::Shape;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// What the graph-matching attack got back.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct GraphReport {
    /// Share of the batch's rows named correctly.
    pub records: f64,
    /// Share of its distinct rows (nodes) named correctly.
    pub distinct: f64,
    /// Seeds the propagation started from, and how many of them were right.
    pub seeds: usize,
    pub seeds_right: usize,
}

/// Seeds kept in a signature at most (the cost is nodes × candidates × this).
const MAX_SIGNATURE: usize = 256;
/// Rounds of propagation.
const ROUNDS: usize = 4;
/// Same-side nodes sampled for the node features.
const FEATURE_SAMPLE: usize = 2000;

/// One side of the alignment: nodes as unit-length sparse rows, their class
/// totals and sizes.
struct Side {
    rows: Vec<Vec<(u32, f32)>>,
    totals: Vec<Vec<u32>>,
    size: Vec<f64>,
    dim: usize,
}

impl Side {
    fn new(rows: Vec<Vec<(u32, f32)>>, lengths: &[u8], size: Vec<f64>, dim: usize) -> Side {
        let mut classes: Vec<u8> = lengths.to_vec();
        classes.sort_unstable();
        classes.dedup();
        let totals = rows
            .iter()
            .map(|r| {
                let mut t = vec![0u32; classes.len()];
                for &(c, x) in r {
                    let l = lengths[c as usize];
                    let k = classes.binary_search(&l).unwrap_or(0);
                    t[k] += (x as f64 * l as f64).round() as u32;
                }
                t
            })
            .collect();
        let rows = rows
            .into_iter()
            .map(|r| {
                let n = r.iter().map(|&(_, x)| (x as f64).powi(2)).sum::<f64>().sqrt().max(1e-12);
                r.into_iter().map(|(c, x)| (c, (x as f64 / n) as f32)).collect()
            })
            .collect();
        Side { rows, totals, size, dim }
    }

    /// Cosine similarities of every node to each of `nodes` (rows of the result).
    fn signatures(&self, nodes: &[usize]) -> Vec<Vec<f32>> {
        let mut dense = vec![0f32; nodes.len() * self.dim];
        for (j, &s) in nodes.iter().enumerate() {
            for &(c, x) in &self.rows[s] {
                dense[j * self.dim + c as usize] = x;
            }
        }
        crate::par::map(&self.rows, |r| {
            (0..nodes.len()).map(|j| r.iter().map(|&(c, x)| x * dense[j * self.dim + c as usize]).sum()).collect()
        })
    }

    /// Node features against a random sample of the same side.
    fn features(&self, rng: &mut Randomness) -> Vec<[f32; 6]> {
        let n = self.rows.len();
        let sample: Vec<usize> = rng.permutation(n).into_iter().take(FEATURE_SAMPLE.min(n)).collect();
        let scale = n as f32 / sample.len().max(1) as f32;
        let sims = self.signatures(&sample);
        sims.iter()
            .zip(&self.size)
            .map(|(s, &size)| {
                let mut top: Vec<f32> = s.iter().copied().filter(|&x| x < 0.9999).collect();
                top.sort_unstable_by(|a, b| b.total_cmp(a));
                let above = |t: f32| (top.iter().filter(|&&x| x >= t).count() as f32 * scale + 1.0).ln();
                let best = top.first().copied().unwrap_or(0.0);
                let five = top.iter().take(5).sum::<f32>() / top.len().clamp(1, 5) as f32;
                [(size as f32).ln(), above(0.3), above(0.5), above(0.7), best, five]
            })
            .collect()
    }
}

/// Greedy one-to-one pairing of `cands` (e node, p node, distance), closest
/// first; with the margin of each pair (the node's second-best distance minus
/// its best).
fn pair_greedily(mut cands: Vec<(usize, usize, f32)>, n_e: usize, n_p: usize) -> Vec<(usize, usize, f32)> {
    let mut best2 = vec![(f32::INFINITY, f32::INFINITY); n_e];
    for &(e, _, d) in &cands {
        let b = &mut best2[e];
        if d < b.0 {
            *b = (d, b.0);
        } else if d < b.1 {
            b.1 = d;
        }
    }
    cands.sort_unstable_by(|a, b| a.2.total_cmp(&b.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
    let (mut used_e, mut used_p) = (vec![false; n_e], vec![false; n_p]);
    let mut out = Vec::new();
    for (e, p, d) in cands {
        if !used_e[e] && !used_p[p] {
            used_e[e] = true;
            used_p[p] = true;
            let margin = if best2[e].1.is_finite() { best2[e].1 - d } else { f32::MAX };
            out.push((e, p, margin));
        }
    }
    out
}

/// For each e node outside `seeds`, its `keep` closest p nodes outside
/// them with the same totals by `dist`; `n_p`: the p nodes.
fn candidates(
    e: &Side,
    by_totals: &HashMap<&[u32], Vec<usize>>,
    seeds: &[(usize, usize)],
    n_p: usize,
    keep: usize,
    dist: impl Fn(usize, usize) -> f32 + Sync,
) -> Vec<(usize, usize, f32)> {
    let (mut skip_e, mut skip_p) = (vec![false; e.rows.len()], vec![false; n_p]);
    for &(a, b) in seeds {
        skip_e[a] = true;
        skip_p[b] = true;
    }
    let ids: Vec<usize> = (0..e.rows.len()).filter(|&i| !skip_e[i]).collect();
    let per = crate::par::map(&ids, |&i| {
        let Some(ps) = by_totals.get(e.totals[i].as_slice()) else { return Vec::new() };
        let mut best: Vec<(usize, usize, f32)> =
            ps.iter().filter(|&&p| !skip_p[p]).map(|&p| (i, p, dist(i, p))).collect();
        best.sort_unstable_by(|a, b| a.2.total_cmp(&b.2));
        best.truncate(keep);
        best
    });
    per.into_iter().flatten().collect()
}

/// C's list as the attack's other side: each item's row, the gram length of
/// each coordinate of the rows, their dimension, the item's value (what a
/// row named after it is named) and its frequency.
pub struct List {
    pub rows: Vec<Vec<(u32, f32)>>,
    pub lengths: Vec<u8>,
    pub dim: usize,
    pub values: Vec<String>,
    pub sizes: Vec<f64>,
}

impl List {
    /// The list `prior` (values and frequencies) embedded over the base
    /// without a key, as C can embed any value.
    pub fn plain(shared: &SharedBase, prior: &[(String, f64)]) -> Result<List, Error> {
        let embedder = Embedder::new(shared)?;
        let rows = crate::par::map(prior, |(s, _)| {
            embedder.embed_sparse(s).into_iter().map(|(c, x)| (c as u32, x)).collect::<Vec<_>>()
        });
        Ok(List {
            rows,
            lengths: shared.grams().iter().map(|g| g.chars().count() as u8).collect(),
            dim: embedder.dim(),
            values: prior.iter().map(|(v, _)| v.clone()).collect(),
            sizes: prior.iter().map(|(_, w)| *w).collect(),
        })
    }
}

/// Runs the attack on a batch's sparse rows `vectors` (with their `shape`:
/// a vector batch's, [`crate::research::labelling::shape_of`], or a record
/// field's part's) with C's list `prior` (values and frequencies), and scores
/// it against each row's true value `truth`; row `r` stands for `records[r]`
/// records (more than one where the owner sent each distinct record once,
/// [`crate::pseudonym::distinct`]).
pub fn graph_attack(
    vectors: &BatchVectors,
    shape: &Shape,
    shared: &SharedBase,
    prior: &[(String, f64)],
    truth: &[String],
    records: &[u32],
    seed: u64,
) -> Result<GraphReport, Error> {
    graph_attack_list(vectors, shape, &List::plain(shared, prior)?, truth, records, seed)
}

/// [`graph_attack`] against a list C prepared itself ([`List`]).
pub fn graph_attack_list(
    vectors: &BatchVectors,
    shape: &Shape,
    list: &List,
    truth: &[String],
    records: &[u32],
    seed: u64,
) -> Result<GraphReport, Error> {
    let BatchVectors::Sparse(v) = vectors else {
        return Err(Error::Parameter("the graph attack needs sparse rows (the rotation is dense)".into()));
    };
    if truth.len() != v.len() || records.len() != v.len() {
        return Err(Error::Parameter(format!(
            "{} truths and {} record counts for {} rows",
            truth.len(),
            records.len(),
            v.len()
        )));
    }
    // the batch's nodes: identical rows grouped
    let nodes = crate::pseudonym::Distinct::of((0..v.len()).map(|r| v.row_key(r)));
    let e_rows: Vec<Vec<(u32, f32)>> = nodes
        .firsts()
        .iter()
        .map(|&r| {
            let (c, x) = v.row(r);
            c.iter().copied().zip(x.iter().copied()).collect()
        })
        .collect();
    let e_size: Vec<f64> = nodes.sizes().into_iter().map(f64::from).collect();
    let row_node: Vec<usize> = (0..v.len()).map(|r| nodes.group(r)).collect();
    let e = Side::new(e_rows, &shape.lengths, e_size, v.dim);
    let p = Side::new(list.rows.clone(), &list.lengths, list.sizes.clone(), list.dim);
    let (n_e, n_p) = (e.rows.len(), p.rows.len());
    let mut by_totals: HashMap<&[u32], Vec<usize>> = HashMap::new();
    for (i, t) in p.totals.iter().enumerate() {
        by_totals.entry(t.as_slice()).or_default().push(i);
    }

    // 3. seeds: frequency, where sizes are unambiguous and the totals agree
    let mut e_order: Vec<usize> = (0..n_e).collect();
    e_order.sort_by(|&a, &b| e.size[b].total_cmp(&e.size[a]).then(a.cmp(&b)));
    let mut p_order: Vec<usize> = (0..n_p).collect();
    p_order.sort_by(|&a, &b| p.size[b].total_cmp(&p.size[a]).then(a.cmp(&b)));
    let mut seeds: Vec<(usize, usize)> = Vec::new();
    for (i, (&a, &b)) in e_order.iter().zip(&p_order).enumerate() {
        let size = e.size[a];
        if size < 3.0 {
            break;
        }
        let tied = |j: usize| e_order.get(j).is_some_and(|&o| e.size[o] == size);
        if !tied(i + 1) && (i == 0 || !tied(i - 1)) && e.totals[a] == p.totals[b] {
            seeds.push((a, b));
        }
    }
    let mut rng = Randomness::seeded(seed);
    if seeds.len() < 32 {
        let (fe, fp) = (e.features(&mut rng), p.features(&mut rng));
        let dist = |i: usize, j: usize| fe[i].iter().zip(&fp[j]).map(|(a, b)| (a - b) * (a - b)).sum::<f32>();
        let mut paired = pair_greedily(candidates(&e, &by_totals, &seeds, n_p, 5, dist), n_e, n_p);
        paired.sort_by(|a, b| b.2.total_cmp(&a.2));
        seeds.extend(paired.iter().take(64).map(|&(a, b, _)| (a, b)));
    }
    let seeds_used = seeds.len();
    let right = |a: usize, b: usize, row_of: &[usize]| truth[row_of[a]] == list.values[b];
    let mut first_row = vec![usize::MAX; n_e];
    for (r, &node) in row_node.iter().enumerate() {
        if first_row[node] == usize::MAX {
            first_row[node] = r;
        }
    }
    let seeds_right = seeds.iter().filter(|&&(a, b)| right(a, b, &first_row)).count();

    // 4. propagation
    let mut pairing: Vec<(usize, usize)> = seeds.clone();
    for round in 0..ROUNDS {
        let sig: Vec<(usize, usize)> = seeds.iter().copied().take(MAX_SIGNATURE).collect();
        let se_nodes: Vec<usize> = sig.iter().map(|s| s.0).collect();
        let sp_nodes: Vec<usize> = sig.iter().map(|s| s.1).collect();
        let (ge, gp) = (e.signatures(&se_nodes), p.signatures(&sp_nodes));
        let dist = |i: usize, j: usize| ge[i].iter().zip(&gp[j]).map(|(a, b)| (a - b) * (a - b)).sum::<f32>();
        let mut paired = pair_greedily(candidates(&e, &by_totals, &seeds, n_p, 5, dist), n_e, n_p);
        pairing = seeds.iter().copied().chain(paired.iter().map(|&(a, b, _)| (a, b))).collect();
        if round + 1 < ROUNDS {
            // the most confident quarter joins the seeds (kept in confidence order)
            paired.sort_by(|a, b| b.2.total_cmp(&a.2));
            let add = (n_e / 4).max(1);
            seeds.extend(paired.iter().take(add).map(|&(a, b, _)| (a, b)));
        }
    }
    let mut named = vec![usize::MAX; n_e];
    for &(a, b) in &pairing {
        named[a] = b;
    }
    let hits = row_node
        .iter()
        .enumerate()
        .filter(|&(r, &node)| named[node] != usize::MAX && truth[r] == list.values[named[node]]);
    let total: u64 = records.iter().map(|&k| k as u64).sum();
    let records = hits.map(|(r, _)| records[r] as u64).sum::<u64>() as f64 / total.max(1) as f64;
    let distinct = (0..n_e).filter(|&a| named[a] != usize::MAX && right(a, named[a], &first_row)).count() as f64
        / n_e.max(1) as f64;
    Ok(GraphReport { records, distinct, seeds: seeds_used, seeds_right })
}
