//! The matcher's attacks on party A's vectors, run as an experiment
//! (`gramlink lab attack`) and a test: what C, who receives A's vectors and knows the
//! shared base, learns about A's records — without and with the keyed transform.
//!
//! Setting (all seeded, an experiment). A holds `sample` distinct surnames drawn
//! uniformly from NAMES; B a one-edit corrupted copy; both mine (ε-DP), merge
//! and embed exactly as the protocol does under the chosen configuration (the
//! one-way API of [`crate::party`]: [`DataOwner::mine`], [`merge_bases`],
//! [`DataOwner::embed`]), so padding and public grams are those of the preset.
//! The attacks read the vector batches C receives. C holds a public name list
//! (the whole Census list, `names_all.txt`) and the shared base.
//!
//! - **Reconstruction** ([`super::reconstruct`]): no dictionary, no key; an
//!   Eulerian-path decoder over the bigram multiset the vector carries.
//! - **Axis recovery** ([`super::axes`], keyed batches only): a kurtosis search
//!   for the rotated gram axes on `axis_vectors` keyed vectors.
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

use super::axes::AxisRecovery;
use super::reconstruct::{Decoder, Reconstruction};
use crate::alphabet::Alphabet;
use crate::base::SharedBase;
use crate::config::Config;
use crate::dataset::Dataset;
use crate::dp::{Epsilon, Randomness};
use crate::embed::{Embedder, Vectors};
use crate::error::Error;
use crate::eval::scenario::corrupted_copy;
use crate::keyed::Key;
use crate::party::{merge_bases, DataOwner, EmbedOptions};
use crate::progress::Progress;
use crate::protocol::{Party, VectorBatch};
use crate::sparse_vectors::SparseVectors;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Parameters of the attack experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttackOptions {
    /// A's records (distinct names for the dictionary, norm and reconstruction
    /// attacks; a Zipf multiset of this size for the frequency attack).
    pub sample: usize,
    /// A records attacked by nearest neighbour (the costly attack).
    pub targets: usize,
    /// Keyed vectors of distinct names the axis search runs on (0: skip it).
    pub axis_vectors: usize,
    /// Directions the axis search looks for.
    pub axis_searches: usize,
    pub seed: u64,
    /// The configuration both parties run (mining, padding, public grams, A's thresholds).
    pub config: Config,
}

impl Default for AttackOptions {
    fn default() -> Self {
        AttackOptions {
            sample: 20_000,
            targets: 500,
            axis_vectors: 30_000,
            axis_searches: 64,
            seed: 42,
            config: Config::default(),
        }
    }
}

/// Re-identification rates (shares of A's records, in [0, 1]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    pub dictionary: f64,
    pub frequency: f64,
    pub norm: f64,
    /// The decoder's reconstruction, with no dictionary and no key.
    pub reconstruction: Reconstruction,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttackReport {
    pub options: AttackOptions,
    pub dictionary_size: usize,
    pub dim: usize,
    pub fingerprint: String,
    pub unkeyed: Rates,
    pub keyed: Rates,
    /// The axis search on keyed vectors (`None` when skipped).
    pub axes: Option<AxisRecovery>,
    /// Whether the base lets the decoder read a bigram multiset at all.
    pub decodable: bool,
    /// A uniform guess over the dictionary.
    pub chance: f64,
    /// Distinct vectors among the Zipf multiset (the groups C sees).
    pub frequency_groups: usize,
}

/// The dictionary as C embeds it: vectors grouped by identity.
struct Dictionary {
    /// One sparse row per distinct vector.
    vectors: SparseVectors,
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
        let all = embedder.embed_all_sparse(names, progress)?;
        let mut index: HashMap<(Vec<u32>, Vec<u32>), u32> = HashMap::new();
        let mut d = Dictionary {
            vectors: SparseVectors::new(all.dim),
            names: Vec::new(),
            group_of: Vec::with_capacity(names.len()),
            norms: Vec::new(),
        };
        for r in 0..all.len() {
            let (cols, vals) = all.row(r);
            let g = *index.entry((cols.to_vec(), bits(vals))).or_insert_with(|| {
                d.vectors.push_row(cols.iter().copied().zip(vals.iter().copied()));
                d.names.push(Vec::new());
                d.norms.push(norm(vals));
                (d.names.len() - 1) as u32
            });
            d.names[g as usize].push(r as u32);
            d.group_of.push(g);
        }
        Ok(d)
    }

    /// Expected success of a nearest-neighbour guess for `query` (dense, of
    /// dimension ≥ the dictionary's, dictionary vectors zero-padded) whose true
    /// name is `truth`. Squared distances as ‖q‖² + ‖d‖² − 2 q·d over d's
    /// non-zero entries; distances within a relative 1e-9 count as ties.
    fn nearest_neighbour(&self, query: &[f32], truth: u32) -> f64 {
        let qq: f64 = query.iter().map(|&x| x as f64 * x as f64).sum();
        let dist: Vec<f64> = (0..self.names.len())
            .map(|g| {
                let (cols, vals) = self.vectors.row(g);
                let dot: f64 = cols.iter().zip(vals).map(|(&c, &v)| query[c as usize] as f64 * v as f64).sum();
                qq + self.norms[g] * self.norms[g] - 2.0 * dot
            })
            .collect();
        let best = dist.iter().copied().fold(f64::INFINITY, f64::min);
        let tol = 1e-9 * (qq + 1.0);
        let ties: Vec<usize> = (0..dist.len()).filter(|&g| dist[g] <= best + tol).collect();
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
pub fn zipf_sample(n: usize, count: usize, rng: &mut Randomness) -> Vec<usize> {
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

/// Party A's batch of `records` under the configuration, as the protocol makes
/// it ([`DataOwner::embed`]), without or with `key`.
fn batch(records: &[String], shared: &SharedBase, o: &AttackOptions, key: Option<&Key>) -> Result<VectorBatch, Error> {
    let alphabet = shared.padding().map_or(Ok(shared.alphabet().clone()), |p| p.strip(shared.alphabet()))?;
    let owner = DataOwner::new(
        Dataset::from_normalized(records.to_vec(), &alphabet),
        Epsilon::zero(),
        Randomness::seeded(o.seed),
    )?;
    let key = key.map_or_else(crate::keyed::EmbedKey::default, |k| crate::keyed::EmbedKey::rotated(k.clone()));
    // one row a record, in record order: these attacks judge each row against
    // its record (the shuffle hides a row's position, not what its vector
    // carries). The default sends each distinct record once instead
    // (crate::pseudonym::distinct), which only weakens the frequency attack
    // here; the frontier (super::frontier) attacks the batch as it is sent.
    let options = EmbedOptions { key, ..EmbedOptions::new(Party::A, &o.config).local() };
    Ok(owner.embed(shared, &options, &mut crate::progress::NoProgress)?.batch)
}

/// The decoder's reconstruction on a batch as C receives it: gram counts read
/// off the coordinates (a keyed batch's coordinates are rotated mixtures).
fn reconstruction(decoder: Option<&Decoder<'_>>, batch: &VectorBatch, truth: &[String], dim: usize) -> Reconstruction {
    let Some(d) = decoder else { return Reconstruction::default() };
    let rows = batch.vectors.to_dense();
    let sparse: Vec<(Vec<u32>, Vec<f32>)> = (0..rows.len())
        .map(|r| {
            let row = &rows.row(r)[..dim.min(rows.dim)];
            let nz: Vec<usize> = (0..row.len()).filter(|&c| row[c] != 0.0).collect();
            (nz.iter().map(|&c| c as u32).collect(), nz.iter().map(|&c| row[c]).collect())
        })
        .collect();
    super::reconstruct::score(d, sparse.iter().map(|(c, v)| (c.as_slice(), v.as_slice())), truth)
}

/// Runs the attacks without and with the keyed transform, on the batches the
/// configuration's pipeline makes.
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
    Error::check_count("the sample", o.sample, names.len(), "the names")?;
    Error::check_count("targets", o.targets, o.sample, "the sample")?;
    if o.axis_vectors > names.len() {
        return Err(Error::Parameter(format!("the axis search takes at most {} names", names.len())));
    }
    let mut rng = Randomness::seeded(o.seed);
    let (mut r_sample, mut r_corrupt, r_a, r_b, mut r_key, mut r_zipf) =
        (rng.fork(), rng.fork(), rng.fork(), rng.fork(), rng.fork(), rng.fork());
    let perm = r_sample.permutation(names.len());
    let a: Vec<String> = perm[..o.sample].iter().map(|&i| names[i].clone()).collect();
    let (b, _) = corrupted_copy(&a, 1, alphabet, &mut r_corrupt);
    let b: Vec<String> = b.into_iter().filter(|s| !s.is_empty()).collect();
    let mine = &o.config.mine;
    let budget = Epsilon::new(mine.epsilon)?;
    let owner = |records: Vec<String>, rng| DataOwner::new(Dataset::from_normalized(records, alphabet), budget, rng);
    let (mut owner_a, mut owner_b) = (owner(a.clone(), r_a)?, owner(b, r_b)?);
    let (na, nb) = (owner_a.mine(mine, progress)?, owner_b.mine(mine, progress)?);
    let shared: SharedBase = merge_bases(&na, &nb, mine)?;
    // C's own embedding of its dictionary: the same public algorithm
    let embedder = Embedder::new(&shared)?;
    let dict = Dictionary::new(&embedder, dictionary, progress)?;
    let position: HashMap<&str, u32> = dictionary.iter().enumerate().map(|(i, s)| (s.as_str(), i as u32)).collect();
    let truth_of = |s: &str| position.get(s).copied();

    let mut key = [0u8; 32];
    r_key.fill_bytes(&mut key);
    let key = Key::from_bytes(key);
    let plain = batch(&a, &shared, o, None)?;
    let keyed = batch(&a, &shared, o, Some(&key))?;
    let (va, ka) = (plain.vectors.to_dense(), keyed.vectors.to_dense());

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

    // reconstruction: no dictionary, no key
    let decoder = Decoder::new(&shared, &embedder);
    let rec_plain = reconstruction(decoder.as_ref(), &plain, &a, embedder.dim());
    let rec_keyed = reconstruction(decoder.as_ref(), &keyed, &a, embedder.dim());

    // frequency attack on a Zipf multiset over the public rank order
    let draws = zipf_sample(names.len(), o.sample, &mut r_zipf);
    let multiset: Vec<String> = draws.iter().map(|&r| names[r].clone()).collect();
    let vz = batch(&multiset, &shared, o, None)?;
    let kz = batch(&multiset, &shared, o, Some(&key))?;
    let ranks: Vec<usize> = (0..names.len()).collect();
    let (freq_plain, groups) = frequency_attack(&vz.vectors.to_dense(), &draws, &ranks);
    let (freq_keyed, _) = frequency_attack(&kz.vectors.to_dense(), &draws, &ranks);

    // axis recovery on a keyed batch of distinct names
    let axes = (o.axis_vectors > 0).then(|| -> Result<AxisRecovery, Error> {
        let records: Vec<String> = perm[..o.axis_vectors].iter().map(|&i| names[i].clone()).collect();
        let k = batch(&records, &shared, o, Some(&key))?;
        let p = embedder.embed_all_sparse(&records, &mut crate::progress::NoProgress)?;
        Ok(super::axes::recover(&k.vectors.to_dense(), &p, o.axis_searches))
    });
    let axes = axes.transpose()?;

    Ok(AttackReport {
        options: o.clone(),
        dictionary_size: dictionary.len(),
        dim: embedder.dim(),
        fingerprint: shared.fingerprint().to_string(),
        unkeyed: Rates { dictionary: dict_plain, frequency: freq_plain, norm: norm_plain, reconstruction: rec_plain },
        keyed: Rates { dictionary: dict_keyed, frequency: freq_keyed, norm: norm_keyed, reconstruction: rec_keyed },
        axes,
        decodable: decoder.is_some(),
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
