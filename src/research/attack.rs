//! The matcher's attacks on party A's vectors, run as an experiment
//! (`gramlink attack`) and a test: what C, who receives A's vectors and knows the
//! shared base, learns about A's records — without and with the keyed transform.
//!
//! Setting (all seeded, an experiment). A holds `sample` distinct surnames drawn
//! uniformly from NAMES; B a one-edit corrupted copy; both mine (ε-DP) and merge
//! the shared base as in the protocol. C holds a public name list (the whole
//! Census list, `names_all.txt`) and the shared base.
//!
//! - **Dictionary attack**: C embeds every public name with the shared base and
//!   links each of `targets` A vectors to its nearest dictionary vector; ties are
//!   broken uniformly, so a target counts `1/|tie set|` if its true name is among
//!   the nearest. Keyed: C does the same against the rotated vectors (it has no
//!   key), padding its own vectors with zeros to the rotated dimension.
//! - **Frequency attack**: A's records are now a multiset of `sample` names drawn
//!   by Zipf's law (probability ∝ 1/rank) over the Census rank order, the usual
//!   model of surname frequencies. C groups A's identical vectors, ranks the groups
//!   by size and names the i-th largest group after the i-th most frequent public
//!   name (ties in size broken by group order, i.e. arbitrarily). Share of A's
//!   records whose group is named correctly. Identical records stay identical
//!   under any deterministic transform: the key does not help here.
//! - **Norm attack**: for each A record C lists the public names whose embedded
//!   norm equals the record's vector norm (within the rounding bound when keyed)
//!   and guesses one uniformly: `1/|candidates|` if the true name is a candidate.
//!   Rotations keep norms: the key does not help here either.
//!
//! The rates are exact expectations over C's uniform tie-breaking (no extra
//! randomness). "Chance" for a uniform guess over the dictionary is
//! `1/|dictionary|`.

use crate::alphabet::Alphabet;
use crate::base::SharedBase;
use crate::dataset::Dataset;
use crate::dp::{Epsilon, Randomness};
use crate::embed::{Embedder, Vectors};
use crate::error::Error;
use crate::eval::scenario::corrupted_copy;
use crate::keyed::{Key, Transform};
use crate::mine::MineOptions;
use crate::party::{merge_bases, DataOwner};
use crate::progress::Progress;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Parameters of the attack experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttackOptions {
    /// A's records (distinct names for the dictionary and norm attacks; a Zipf
    /// multiset of this size for the frequency attack).
    pub sample: usize,
    /// A records attacked by nearest neighbour (the costly attack).
    pub targets: usize,
    pub seed: u64,
    pub mine: MineOptions,
}

impl Default for AttackOptions {
    fn default() -> Self {
        AttackOptions { sample: 20_000, targets: 500, seed: 42, mine: crate::config::Config::paper().mine }
    }
}

/// Re-identification rates (shares of A's records, in [0, 1]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    pub dictionary: f64,
    pub frequency: f64,
    pub norm: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttackReport {
    pub options: AttackOptions,
    pub dictionary_size: usize,
    pub dim: usize,
    pub fingerprint: String,
    pub unkeyed: Rates,
    pub keyed: Rates,
    /// A uniform guess over the dictionary.
    pub chance: f64,
    /// Distinct vectors among the Zipf multiset (the groups C sees).
    pub frequency_groups: usize,
}

/// The dictionary as C embeds it: vectors grouped by identity.
struct Dictionary {
    /// One row per distinct vector (input dimension).
    vectors: Vectors,
    /// Names (indices into the list) sharing each distinct vector.
    names: Vec<Vec<u32>>,
    /// Group of each name.
    group_of: Vec<u32>,
    /// Norm of each distinct vector (f64 from the f32 coordinates).
    norms: Vec<f64>,
}

fn bits(row: &[f32]) -> Vec<u32> {
    row.iter().map(|x| x.to_bits()).collect()
}

fn norm(row: &[f32]) -> f64 {
    row.iter().map(|&x| x as f64 * x as f64).sum::<f64>().sqrt()
}

impl Dictionary {
    fn new(embedder: &Embedder, names: &[String], progress: &mut dyn Progress) -> Result<Dictionary, Error> {
        let all = embedder.embed_all(names, progress)?;
        let mut index: HashMap<Vec<u32>, u32> = HashMap::new();
        let mut d = Dictionary {
            vectors: Vectors { dim: all.dim, data: Vec::new() },
            names: Vec::new(),
            group_of: Vec::with_capacity(names.len()),
            norms: Vec::new(),
        };
        for r in 0..all.len() {
            let row = all.row(r);
            let g = *index.entry(bits(row)).or_insert_with(|| {
                d.vectors.data.extend_from_slice(row);
                d.names.push(Vec::new());
                d.norms.push(norm(row));
                (d.names.len() - 1) as u32
            });
            d.names[g as usize].push(r as u32);
            d.group_of.push(g);
        }
        Ok(d)
    }

    /// Expected success of a nearest-neighbour guess for `query` (of dimension
    /// `pad` ≥ the dictionary's, dictionary vectors zero-padded) whose true name
    /// is `truth`.
    fn nearest_neighbour(&self, query: &[f32], truth: u32) -> f64 {
        let dim = self.vectors.dim;
        let tail: f64 = query[dim..].iter().map(|&x| x as f64 * x as f64).sum();
        let mut best = f64::INFINITY;
        let mut ties: Vec<usize> = Vec::new();
        for g in 0..self.names.len() {
            let row = self.vectors.row(g);
            let mut s = tail;
            for (x, y) in query[..dim].iter().zip(row) {
                let d = *x as f64 - *y as f64;
                s += d * d;
            }
            if s < best {
                best = s;
                ties.clear();
                ties.push(g);
            } else if s == best {
                ties.push(g);
            }
        }
        let total: usize = ties.iter().map(|&g| self.names[g].len()).sum();
        if ties.contains(&(self.group_of[truth as usize] as usize)) {
            1.0 / total as f64
        } else {
            0.0
        }
    }

    /// Expected success of a uniform guess among the names of norm within `tol`.
    fn norm_guess(&self, sorted: &[(f64, u32)], n: f64, tol: f64, truth: u32) -> f64 {
        let lo = sorted.partition_point(|&(x, _)| x < n - tol);
        let hi = sorted.partition_point(|&(x, _)| x <= n + tol);
        let cands: usize = sorted[lo..hi].iter().map(|&(_, g)| self.names[g as usize].len()).sum();
        let hit = sorted[lo..hi].iter().any(|&(_, g)| g == self.group_of[truth as usize]);
        if hit {
            1.0 / cands as f64
        } else {
            0.0
        }
    }
}

/// Zipf(1) draws over ranks 0..n (inverse CDF on the harmonic partial sums).
fn zipf_sample(n: usize, count: usize, rng: &mut Randomness) -> Vec<usize> {
    let mut cdf = Vec::with_capacity(n);
    let mut s = 0.0;
    for r in 1..=n {
        s += 1.0 / r as f64;
        cdf.push(s);
    }
    (0..count)
        .map(|_| {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * s;
            cdf.partition_point(|&c| c <= u).min(n - 1)
        })
        .collect()
}

/// Share of the multiset's records C names correctly by rank matching.
fn frequency_attack(vectors: &Vectors, truth: &[usize], public_rank_names: &[usize]) -> (f64, usize) {
    let mut groups: HashMap<Vec<u32>, Vec<usize>> = HashMap::new();
    let mut order: Vec<Vec<u32>> = Vec::new();
    for r in 0..vectors.len() {
        let k = bits(vectors.row(r));
        let e = groups.entry(k.clone()).or_default();
        if e.is_empty() {
            order.push(k);
        }
        e.push(r);
    }
    // largest first; equal sizes in first-seen order (deterministic)
    let mut ranked: Vec<&Vec<usize>> = order.iter().map(|k| &groups[k]).collect();
    ranked.sort_by_key(|g| std::cmp::Reverse(g.len()));
    let mut hits = 0usize;
    for (i, g) in ranked.iter().enumerate() {
        if let Some(&guess) = public_rank_names.get(i) {
            hits += g.iter().filter(|&&r| truth[r] == guess).count();
        }
    }
    (hits as f64 / vectors.len().max(1) as f64, ranked.len())
}

/// Runs the three attacks without and with the keyed transform.
///
/// `names` is A's population in public frequency-rank order (NAMES);
/// `dictionary` C's public list (names_all), both normalized.
pub fn run_attack(
    names: &[String],
    dictionary: &[String],
    alphabet: &Alphabet,
    o: &AttackOptions,
    progress: &mut dyn Progress,
) -> Result<AttackReport, Error> {
    if o.sample == 0 || o.sample > names.len() {
        return Err(Error::Parameter(format!("the sample must hold 1..={} names, not {}", names.len(), o.sample)));
    }
    if o.targets == 0 || o.targets > o.sample {
        return Err(Error::Parameter(format!("targets must be in 1..={} (the sample), not {}", o.sample, o.targets)));
    }
    let mut rng = Randomness::seeded(o.seed);
    let (mut r_sample, mut r_corrupt, r_a, r_b, mut r_key, mut r_zipf) =
        (rng.fork(), rng.fork(), rng.fork(), rng.fork(), rng.fork(), rng.fork());
    let perm = r_sample.permutation(names.len());
    let a: Vec<String> = perm[..o.sample].iter().map(|&i| names[i].clone()).collect();
    let (b, _) = corrupted_copy(&a, 1, alphabet, &mut r_corrupt);
    let b: Vec<String> = b.into_iter().filter(|s| !s.is_empty()).collect();
    let budget = Epsilon::new(o.mine.epsilon)?;
    let owner = |records: Vec<String>, rng| DataOwner::new(Dataset::from_normalized(records, alphabet), budget, rng);
    let (mut owner_a, mut owner_b) = (owner(a.clone(), r_a)?, owner(b, r_b)?);
    let (na, nb) = (owner_a.mine(&o.mine, progress)?, owner_b.mine(&o.mine, progress)?);
    let shared: SharedBase = merge_bases(&na, &nb, &o.mine)?;
    let embedder = Embedder::new(&shared)?;
    let dict = Dictionary::new(&embedder, dictionary, progress)?;
    let position: HashMap<&str, u32> = dictionary.iter().enumerate().map(|(i, s)| (s.as_str(), i as u32)).collect();
    let truth_of = |s: &str| position.get(s).copied();

    let va = embedder.embed_all(&a, progress)?;
    let mut key = [0u8; 32];
    r_key.fill_bytes(&mut key);
    let t = Transform::new(&Key::from_bytes(key), shared.fingerprint(), va.dim)?;
    let ka = t.apply(&va)?;

    // dictionary attack on the first `targets` records of the (random) sample
    let targets: Vec<(usize, u32)> =
        (0..a.len()).filter_map(|i| truth_of(&a[i]).map(|t| (i, t))).take(o.targets).collect();
    let nn = |v: &Vectors| -> f64 {
        let pad = |row: &[f32]| -> Vec<f32> {
            let mut q = row.to_vec();
            q.resize(v.dim.max(dict.vectors.dim), 0.0);
            q
        };
        let hits = nn_all(&dict, &targets.iter().map(|&(i, t)| (pad(v.row(i)), t)).collect::<Vec<_>>());
        hits / targets.len().max(1) as f64
    };
    let (dict_plain, dict_keyed) = (nn(&va), nn(&ka));

    // norm attack over all of A
    let mut sorted: Vec<(f64, u32)> = dict.norms.iter().enumerate().map(|(g, &n)| (n, g as u32)).collect();
    sorted.sort_by(|x, y| x.0.total_cmp(&y.0));
    let norm_rate = |v: &Vectors, rel_tol: f64| -> f64 {
        let mut s = 0.0;
        let mut n = 0usize;
        for (i, name) in a.iter().enumerate() {
            if let Some(t) = truth_of(name) {
                let x = norm(v.row(i));
                s += dict.norm_guess(&sorted, x, rel_tol * x + 1e-12, t);
                n += 1;
            }
        }
        s / n.max(1) as f64
    };
    // keyed: the transform's rounding bound (2^-24 relative, doubled for margin)
    let (norm_plain, norm_keyed) = (norm_rate(&va, 0.0), norm_rate(&ka, 2.0 / 16_777_216.0));

    // frequency attack on a Zipf multiset over the public rank order
    let draws = zipf_sample(names.len(), o.sample, &mut r_zipf);
    let multiset: Vec<String> = draws.iter().map(|&r| names[r].clone()).collect();
    let vz = embedder.embed_all(&multiset, progress)?;
    let kz = t.apply(&vz)?;
    let ranks: Vec<usize> = (0..names.len()).collect();
    let (freq_plain, groups) = frequency_attack(&vz, &draws, &ranks);
    let (freq_keyed, _) = frequency_attack(&kz, &draws, &ranks);

    Ok(AttackReport {
        options: o.clone(),
        dictionary_size: dictionary.len(),
        dim: va.dim,
        fingerprint: shared.fingerprint().to_string(),
        unkeyed: Rates { dictionary: dict_plain, frequency: freq_plain, norm: norm_plain },
        keyed: Rates { dictionary: dict_keyed, frequency: freq_keyed, norm: norm_keyed },
        chance: 1.0 / dictionary.len().max(1) as f64,
        frequency_groups: groups,
    })
}

/// Sum of the nearest-neighbour successes (natively in parallel: targets are
/// independent, so the sum is the same in any order up to float addition of
/// values 1/k, which is summed per target and then in target order).
fn nn_all(dict: &Dictionary, queries: &[(Vec<f32>, u32)]) -> f64 {
    let each = crate::par::map(queries, |(q, t)| dict.nearest_neighbour(q, *t));
    each.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zipf_favours_the_first_ranks() {
        let mut rng = Randomness::seeded(1);
        let d = zipf_sample(1000, 20_000, &mut rng);
        let first = d.iter().filter(|&&r| r == 0).count() as f64 / 20_000.0;
        // P(rank 1) = 1/H_1000 ≈ 0.1336
        assert!((first - 0.1336).abs() < 0.01, "{first}");
        assert!(d.iter().all(|&r| r < 1000));
    }

    #[test]
    fn frequency_attack_by_hand() {
        // three records of name 0, two of name 1, one of name 2: all named right
        let v = Vectors { dim: 1, data: vec![1.0, 2.0, 1.0, 3.0, 1.0, 2.0] };
        let truth = [0, 1, 0, 2, 0, 1];
        assert_eq!(frequency_attack(&v, &truth, &[0, 1, 2]), (1.0, 3));
        assert_eq!(frequency_attack(&v, &truth, &[1, 0, 2]).0, 1.0 / 6.0);
    }
}
