//! The pattern-mining attack on sparse keyed batches, after Christen et al.
//! (2018, "Efficient cryptanalysis of Bloom filters for privacy-preserving
//! record linkage"): C mines the frequent patterns of the batch's positions
//! (which coordinates are non-zero in a row, alone and in pairs) and of its
//! public list's grams, and assigns grams to coordinates under the
//! inclusion constraints those patterns must satisfy; then it decodes through
//! the assignment like the labelling attack ([`super`]).
//!
//! **The constraints.** A coordinate is non-zero in a row exactly when the
//! record holds one of the grams it counts. So, with a list that covers the
//! data and its exact frequencies (the worst case), for a coordinate `b`
//! counting the grams `G_b`:
//! - `supp(b) = supp(∪_{g ∈ G_b} g)`: the share of records holding one of its
//!   grams (each gram's own support is at most the coordinate's: Christen et
//!   al.'s "a q-gram's positions are set in every filter of a record holding
//!   it");
//! - `supp(b, c) ≥ supp(g, h)` for `g ∈ G_b`, `h ∈ G_c`: a record holding both
//!   grams sets both coordinates (their frequent pairs).
//!
//! **The search.** Grams by decreasing support (the frequent patterns first,
//! as Christen et al. align the most frequent q-grams first), each to the
//! coordinate of its gram length, with room, that breaks the constraints
//! least given the grams placed before it: the union's support over the
//! coordinate's, the frequent pairs (support ≥ [`MIN_PAIR`]) whose bucket
//! pair has less support than they do, and, when the coordinate is then full,
//! the gap between its support and its grams' union. Ties go to the
//! coordinate with the most support left to explain. The map is then refined
//! by decode-and-learn from the frequency attack's anchors and scored by the
//! dictionary attack through it ([`super::decode`]), as the labelling
//! attack's is, so the two reports compare.
//!
//! Where a coordinate counts one gram (the keyed permutation, `sketch:1`) the
//! supports name the grams; where it counts several, the union hides which,
//! and the frequent pairs must tell them apart.

use super::decode::{decode, frequency_anchors, refine};
use super::model::{gram_lengths, LabellingReport};
use super::view::{counted_rows, shape_of, spread_of, Coordinates, Known};
use crate::dp::Randomness;
use crate::embed::Embedder;
use crate::error::Error;
use crate::protocol::VectorBatch;

/// Smallest support of a pair of grams that counts as a frequent pattern.
pub const MIN_PAIR: f64 = 0.002;

/// The list's frequent patterns over the base's grams: each gram's support,
/// the values holding it, and each gram's frequent partners with their
/// pair's support.
struct ListPatterns {
    weight: Vec<f64>,
    support: Vec<f64>,
    holders: Vec<Vec<u32>>,
    partners: Vec<Vec<(u32, f64)>>,
}

fn list_patterns(embedder: &Embedder, d: usize, prior: &[(String, f64)]) -> ListPatterns {
    let total: f64 = prior.iter().map(|(_, w)| w).sum::<f64>().max(f64::MIN_POSITIVE);
    let weight: Vec<f64> = prior.iter().map(|(_, w)| w / total).collect();
    let (mut support, mut holders) = (vec![0.0; d], vec![Vec::new(); d]);
    let mut pair = vec![0.0; d * d];
    for (v, (name, _)) in prior.iter().enumerate() {
        let grams: Vec<usize> = embedder.embed_sparse(name).into_iter().map(|(g, _)| g).collect();
        for &g in &grams {
            support[g] += weight[v];
            holders[g].push(v as u32);
            for &h in &grams {
                pair[g * d + h] += weight[v];
            }
        }
    }
    let partners = (0..d)
        .map(|g| {
            (0..d).filter(|&h| h != g && pair[g * d + h] >= MIN_PAIR).map(|h| (h as u32, pair[g * d + h])).collect()
        })
        .collect();
    ListPatterns { weight, support, holders, partners }
}

/// The batch's patterns: each coordinate's support (rows where it is
/// non-zero) and each pair's (`m × m`).
fn batch_patterns(rows: &[Vec<(u32, u32)>], m: usize) -> (Vec<f64>, Vec<f64>) {
    let n = rows.len().max(1) as f64;
    let (mut one, mut two) = (vec![0.0; m], vec![0.0; m * m]);
    for row in rows {
        for &(b, _) in row {
            one[b as usize] += 1.0 / n;
            for &(c, _) in row {
                two[b as usize * m + c as usize] += 1.0 / n;
            }
        }
    }
    (one, two)
}

/// Runs the attack on `batch` (as C receives it) with what C `known`s. The
/// report's `residual` is the support the final map leaves unexplained (or
/// explains twice), relative to the coordinates' total support.
pub fn pattern_attack(batch: &VectorBatch, known: Known<'_>, seed: u64) -> Result<LabellingReport, Error> {
    let c = Coordinates { vectors: &batch.vectors, shape: shape_of(batch)?, spread: spread_of(batch)? };
    pattern_attack_rows(c, known, seed)
}

/// [`pattern_attack`] on rows (a record batch's part: src/research/graph_records.rs).
pub fn pattern_attack_rows(c: Coordinates<'_>, known: Known<'_>, seed: u64) -> Result<LabellingReport, Error> {
    let Known { base, prior, dictionary, truth, targets } = known;
    let (shape, spread) = (c.shape, c.spread);
    let embedder = Embedder::new(base)?;
    let len = gram_lengths(base);
    let rows = counted_rows(c.vectors, shape)?;
    let (d, m) = (len.len(), shape.lengths.len());
    let list = list_patterns(&embedder, d, prior);
    let (supp, pair) = batch_patterns(&rows, m);
    let words = prior.len().div_ceil(64);
    // covered[b]: the values holding a gram placed at b (their union's support is union[b])
    let mut covered = vec![0u64; m * words];
    let mut union = vec![0.0; m];
    let mut filled = vec![0usize; m];
    let mut map = vec![u32::MAX; d];
    let mut order: Vec<usize> = (0..d).collect();
    order.sort_by(|&x, &y| list.support[y].total_cmp(&list.support[x]).then(x.cmp(&y)));
    for g in order {
        let class = len[g].min(crate::shape::MAX_SHAPE_LEN);
        let mut best: Option<(f64, f64, usize, f64)> = None;
        for b in (0..m).filter(|&b| shape.lengths[b] == class && filled[b] < spread) {
            let bits = &covered[b * words..(b + 1) * words];
            let gain: f64 = list.holders[g]
                .iter()
                .filter(|&&v| bits[v as usize / 64] >> (v % 64) & 1 == 0)
                .map(|&v| list.weight[v as usize])
                .sum();
            let after = union[b] + gain;
            let mut cost = (after - supp[b]).max(0.0);
            if filled[b] + 1 == spread {
                cost += (supp[b] - after).abs();
            }
            for &(h, s) in &list.partners[g] {
                let c = map[h as usize];
                if c != u32::MAX && c as usize != b {
                    cost += (s - pair[b * m + c as usize]).max(0.0);
                }
            }
            let left = supp[b] - union[b];
            let better = best.is_none_or(|(bc, bl, _, _)| cost < bc - 1e-12 || (cost <= bc + 1e-12 && left > bl));
            if better {
                best = Some((cost, left, b, after));
            }
        }
        let Some((_, _, b, after)) = best else {
            return Err(Error::Parameter(format!("no coordinate left for a gram of length {}", len[g])));
        };
        map[g] = b as u32;
        filled[b] += 1;
        union[b] = after;
        for &v in &list.holders[g] {
            covered[b * words + v as usize / 64] |= 1 << (v % 64);
        }
    }
    let total: f64 = supp.iter().sum::<f64>().max(f64::MIN_POSITIVE);
    let residual = supp.iter().zip(&union).map(|(s, u)| (s - u).abs()).sum::<f64>() / total;
    let seeds = frequency_anchors(&rows, prior, dictionary);
    let map = refine(map, &embedder, &len, shape, &rows, dictionary, spread, &seeds);
    let mut rng = Randomness::seeded(seed);
    decode(&map, &embedder, shape, &rows, dictionary, truth, targets, residual, &mut rng)
}
