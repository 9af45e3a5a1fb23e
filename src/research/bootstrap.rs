//! The exact inner-product bootstrap on a one-string batch (`gramlink lab attack
//! --bootstrap`): C holds A's batch, the shared base and a public list that
//! covers the data, and no key.
//!
//! [`bootstrap_attack`] takes the batch as C receives it: C embeds every
//! public value over the shared base ([`Embedder`]: padding and public grams
//! as the owners embed), seeds anchors from frequencies and unique norms and
//! decodes the rest by exact inner products ([`super::algebra`]), then fits the
//! orthogonal map on the decoded pairs ([`super::procrustes`]) and reports how
//! well it predicts held-out rows. [`run_bootstrap`] makes the batches by the
//! default two-party flow ([`DataOwner::mine`], [`merge_bases`],
//! [`DataOwner::embed`] with a [`Key`]) on NAMES drawn by Zipf's law over the
//! rank order and on all-distinct names.

use super::algebra::{bootstrap, frequency_seeds, Hypothesis, Plain, Rows};
use super::procrustes::{fit_held_out, FitReport};
use crate::alphabet::Alphabet;
use crate::base::SharedBase;
use crate::config::Config;
use crate::dataset::Dataset;
use crate::dp::{Epsilon, Randomness};
use crate::embed::Embedder;
use crate::error::Error;
use crate::keyed::Key;
use crate::party::{merge_bases, DataOwner, EmbedOptions};
use crate::progress::{NoProgress, Progress};
use crate::protocol::{Party, VectorBatch};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Largest groups of identical rows matched against the public frequency ranks.
pub const SEED_GROUPS: usize = 10;
/// Public ranks a seed group may take.
pub const SEED_RANKS: usize = 64;

/// What the bootstrap got back of a batch whose true records are known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BootstrapReport {
    pub records: usize,
    /// Distinct true values among the records.
    pub distinct: usize,
    /// Share of records decoded to their value (a public vector shared by k
    /// values counts 1/k: C's uniform guess among them).
    pub records_share: f64,
    /// The same over distinct values.
    pub distinct_share: f64,
    /// Share of records decoded to a wrong value.
    pub wrong_share: f64,
    pub frequency_anchors: usize,
    pub norm_anchors: usize,
    /// Distinct rows decoded after each round (round 0: the anchors).
    pub rounds: Vec<usize>,
    pub fit: FitReport,
}

/// Decodes `batch` (rows as C received them) against C's public list
/// `public` (normalized, most frequent first) over `shared`; `truth` (A's
/// records, row by row) only scores the result.
pub fn bootstrap_attack(
    batch: &VectorBatch,
    shared: &SharedBase,
    public: &[String],
    truth: &[String],
    seed: u64,
) -> Result<BootstrapReport, Error> {
    if truth.len() != batch.vectors.len() {
        return Err(Error::Parameter(format!(
            "the truth holds {} records for a batch of {} rows",
            truth.len(),
            batch.vectors.len()
        )));
    }
    let embedder = Embedder::new(shared)?;
    let plain = Plain::new(&embedder.embed_all_sparse(public, &mut NoProgress)?);
    let rows = Rows::new(&[&batch.vectors]);
    // the largest groups against the most frequent public values
    let mut order: Vec<u32> = (0..rows.len() as u32).filter(|&g| rows.size[g as usize] > 1).collect();
    order.sort_by_key(|&g| (std::cmp::Reverse(rows.size[g as usize]), g));
    let top: Vec<u32> = {
        let mut seen = Vec::new();
        for &p in plain.group_of.iter().take(SEED_RANKS) {
            if !seen.contains(&p) {
                seen.push(p);
            }
        }
        seen
    };
    let hyps: Vec<Hypothesis> = order
        .iter()
        .take(SEED_GROUPS)
        .enumerate()
        .map(|(i, &g)| {
            let mut c: Vec<(usize, u32)> = top.iter().enumerate().map(|(r, &p)| (r.abs_diff(i), p)).collect();
            c.sort_unstable();
            Hypothesis { row: g, candidates: c.into_iter().map(|(_, p)| p).collect() }
        })
        .collect();
    let seeds = frequency_seeds(&rows, &plain, &hyps);
    let b = bootstrap(&rows, &plain, &seeds);

    let position: HashMap<&str, u32> = public.iter().enumerate().map(|(i, s)| (s.as_str(), i as u32)).collect();
    let weight = |g: u32, t: &str| -> (f64, bool) {
        match (b.decoded[g as usize], position.get(t)) {
            (Some(p), Some(&i)) if plain.group_of[i as usize] == p => {
                (1.0 / plain.members[p as usize].len() as f64, false)
            }
            (Some(_), _) => (0.0, true),
            (None, _) => (0.0, false),
        }
    };
    let (mut hits, mut wrong) = (0.0, 0usize);
    let mut values: HashMap<&str, u32> = HashMap::new();
    for (r, t) in truth.iter().enumerate() {
        let g = rows.group_of[r];
        let (w, bad) = weight(g, t);
        hits += w;
        wrong += usize::from(bad);
        values.insert(t, g);
    }
    let distinct_hits: f64 = values.iter().map(|(t, &g)| weight(g, t).0).sum();
    // a row of each group: its true plaintext for the held-out check
    let mut first = vec![usize::MAX; rows.len()];
    for (r, &g) in rows.group_of.iter().enumerate().rev() {
        first[g as usize] = r;
    }
    let truth_vec = |g: usize| embedder.embed_sparse(&truth[first[g]]);
    let (_, fit) = fit_held_out(&rows, &plain, &b.decoded, &truth_vec, &mut Randomness::seeded(seed));
    let n = truth.len().max(1) as f64;
    Ok(BootstrapReport {
        records: truth.len(),
        distinct: values.len(),
        records_share: hits / n,
        distinct_share: distinct_hits / values.len().max(1) as f64,
        wrong_share: wrong as f64 / n,
        frequency_anchors: b.frequency_anchors,
        norm_anchors: b.norm_anchors,
        rounds: b.rounds,
        fit,
    })
}

/// A's keyed batch of `records` by the default two-party flow: B holds a
/// one-edit corrupted copy, both mine under `config` and merge, and A embeds
/// with a key drawn from `rng` (C never sees it). Returns the shared base
/// and A's batch.
pub fn keyed_two_party(
    records: &[String],
    alphabet: &Alphabet,
    config: &Config,
    rng: &mut Randomness,
    progress: &mut dyn Progress,
) -> Result<(SharedBase, VectorBatch), Error> {
    let (mut r_b, r_ma, r_mb) = (rng.fork(), rng.fork(), rng.fork());
    let (a, shared) = mined_with_copy(records.to_vec(), alphabet, config, &mut r_b, (r_ma, r_mb), progress)?;
    let mut key = [0u8; 32];
    rng.fill_bytes(&mut key);
    // the rows in record order: the truth is `records`
    let options = EmbedOptions {
        key: crate::keyed::EmbedKey::rotated(Key::from_bytes(key)),
        ..EmbedOptions::new(Party::A, config).local()
    };
    let batch = a.embed(&shared, &options, progress)?.batch;
    Ok((shared, batch))
}

/// `records` as party A's owner and a one-edit corrupted copy of them
/// (empties dropped, edits drawn from `corrupt`) as party B's, each with its
/// own noise (`owners`), both mined under `config` and merged: A's owner and
/// the shared base.
pub(super) fn mined_with_copy(
    records: Vec<String>,
    alphabet: &Alphabet,
    config: &Config,
    corrupt: &mut Randomness,
    owners: (Randomness, Randomness),
    progress: &mut dyn Progress,
) -> Result<(DataOwner, SharedBase), Error> {
    let (b, _) = crate::eval::scenario::corrupted_copy(&records, 1, alphabet, corrupt);
    let b: Vec<String> = b.into_iter().filter(|s| !s.is_empty()).collect();
    let budget = Epsilon::new(config.mine.epsilon)?;
    let owner = |v: Vec<String>, r| DataOwner::new(Dataset::from_normalized(v, alphabet), budget, r);
    let (mut a, mut b) = (owner(records, owners.0)?, owner(b, owners.1)?);
    let (na, nb) = (a.mine(&config.mine, progress)?, b.mine(&config.mine, progress)?);
    Ok((a, merge_bases(&na, &nb, &config.mine)?))
}

/// Parameters of [`run_bootstrap`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BootstrapOptions {
    /// A's records in each setting.
    pub records: usize,
    pub seed: u64,
    pub config: Config,
}

/// Both settings' reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BootstrapRun {
    pub options: BootstrapOptions,
    pub public: usize,
    pub dim: usize,
    /// Records drawn by Zipf's law over the public rank order.
    pub zipf: BootstrapReport,
    /// All-distinct records.
    pub distinct: BootstrapReport,
}

/// Runs the bootstrap on keyed batches of `names` (normalized, in public
/// frequency-rank order; also C's public list, which then covers the data).
pub fn run_bootstrap(
    names: &[String],
    alphabet: &Alphabet,
    o: &BootstrapOptions,
    progress: &mut dyn Progress,
) -> Result<BootstrapRun, Error> {
    Error::check_count("the records", o.records, names.len(), "the names")?;
    let mut rng = Randomness::seeded(o.seed);
    let (mut r_zipf, mut r_perm, mut r_z, mut r_d) = (rng.fork(), rng.fork(), rng.fork(), rng.fork());
    let draws = super::attack::zipf_sample(names.len(), o.records, &mut r_zipf);
    let zipf: Vec<String> = draws.iter().map(|&r| names[r].clone()).collect();
    let perm = r_perm.permutation(names.len());
    let distinct: Vec<String> = perm[..o.records].iter().map(|&i| names[i].clone()).collect();
    let (shared, batch) = keyed_two_party(&zipf, alphabet, &o.config, &mut r_z, progress)?;
    let zipf = bootstrap_attack(&batch, &shared, names, &zipf, o.seed)?;
    let (shared, batch) = keyed_two_party(&distinct, alphabet, &o.config, &mut r_d, progress)?;
    let dim = batch.vectors.dim();
    let distinct = bootstrap_attack(&batch, &shared, names, &distinct, o.seed)?;
    Ok(BootstrapRun { options: o.clone(), public: names.len(), dim, zipf, distinct })
}
