//! The evaluation scenario of docs/SCENARIO.md: party A holds the dataset, party
//! B a corrupted copy in a seeded random order; the protocol runs between them
//! ([`crate::session`]); the known truth scores the result. Every random step is drawn
//! from one seeded generator, so the same seed gives the same result natively and
//! in wasm. Seeded: an experiment, not a private run.

use super::corrupt::corrupt;
use crate::alphabet::Alphabet;
use crate::clock::Clock;
use crate::config::{Config, Preset};
use crate::dataset::Dataset;
use crate::dp::Randomness;
use crate::error::Error;
use crate::keyed::Key;
use crate::matching::truth::{quality, Quality};
use crate::matching::Rule;
use crate::party::DataOwner;
use crate::progress::Progress;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Scenario options: a configuration, and what the experiment adds to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ScenarioOptions {
    /// The configuration both parties and the matcher run; its edit distance
    /// (`thresholds.ed`) is also how many edits corrupt B's copy (one for `auto`)
    /// unless `corrupt_ed` says otherwise.
    pub config: Config,
    pub seed: u64,
    /// Set the prefix tree's depth to A's rounded mean record length, as
    /// docs/SCENARIO.md defines it (the scenario's data are public), instead of
    /// the configuration's `hMax`.
    pub mean_h_max: bool,
    /// How many linked pairs to return as a sample (with their strings: the
    /// scenario's data are public).
    pub sample: usize,
    /// Both parties apply the keyed transform ([`crate::keyed`]) with a key drawn
    /// from the seed (an experiment: a seeded key is no secret).
    pub keyed: bool,
    /// Edits per B record of the corruption, when they differ from the
    /// configuration's edit distance (a rehearsal tries thresholds for other
    /// distances on the same corruption). Default: `config.thresholds.ed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corrupt_ed: Option<u32>,
    /// A mixture instead of a fixed number of edits: `corrupt_rates[e]` is the
    /// share of B records with `e` edits (a rehearsal with the corruption as
    /// observed, [`crate::twin::observed`]); each record draws its count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corrupt_rates: Option<Vec<f64>>,
}

impl Default for ScenarioOptions {
    /// The default configuration, seed 42.
    fn default() -> Self {
        ScenarioOptions::new(Config::default())
    }
}

impl ScenarioOptions {
    /// `config` with seed 42, a sample of 20 pairs, no key, the configuration's
    /// tree depth.
    pub fn new(config: Config) -> Self {
        ScenarioOptions {
            config,
            seed: 42,
            mean_h_max: false,
            sample: 20,
            keyed: false,
            corrupt_ed: None,
            corrupt_rates: None,
        }
    }

    /// docs/SCENARIO.md's run of a preset: its configuration, the tree depth
    /// from the data, for `ed` edits with `seed`.
    pub fn scenario(preset: Preset, ed: u32, seed: u64) -> Self {
        ScenarioOptions { seed, mean_h_max: true, ..ScenarioOptions::new(preset.config().with_ed(ed)) }
    }

    /// These options with `change` applied to the configuration.
    pub fn with(mut self, change: impl FnOnce(&mut Config)) -> Self {
        change(&mut self.config);
        self
    }

    /// The edits per B record of the corruption: `corrupt_ed`, else the
    /// configuration's edit distance (1 for `ed auto`, the scenario's default).
    pub fn ed(&self) -> u32 {
        self.corrupt_ed.unwrap_or(match self.config.thresholds.ed {
            crate::config::Ed::Fixed(n) => n,
            crate::config::Ed::Auto => 1,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplePair {
    pub a: String,
    pub b: String,
    pub distance: f64,
    pub correct: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioResult {
    pub options: ScenarioOptions,
    pub n: usize,
    /// B records that normalized to empty after corruption (their true pair is lost).
    pub b_empty: usize,
    pub h_max: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub pairs: u64,
    pub true_pairs: u64,
    /// The other rule on the same candidates: greedy one-to-one for the rule
    /// `all`, every candidate pair for the others.
    pub other_rule: Quality,
    /// Pairs whose distance the matcher computed.
    pub candidates: u64,
    /// True pairs farther apart than A's threshold (missed whatever the rule).
    pub true_outside_threshold: u64,
    pub mean_threshold: f64,
    pub base: Vec<String>,
    pub fingerprint: String,
    pub timings_ms: BTreeMap<String, f64>,
    pub sample: Vec<SamplePair>,
    /// With `ed auto`: the matcher's fitted cut-off (what it chose, and why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cutoff: Option<crate::cutoff::Cutoff>,
}

/// Party B's records and the truth: `b[j] = corrupt(a[perm[j]])`, `truth[i] = j`.
pub fn corrupted_copy(
    a: &[String],
    ed: u32,
    alphabet: &Alphabet,
    rng: &mut Randomness,
) -> (Vec<String>, Vec<Option<u32>>) {
    corrupted_copy_by(a, |_| ed, alphabet, rng)
}

/// As [`corrupted_copy`], each record with `edits(rng)` edits (drawn just before its corruption).
pub fn corrupted_copy_by(
    a: &[String],
    mut edits: impl FnMut(&mut Randomness) -> u32,
    alphabet: &Alphabet,
    rng: &mut Randomness,
) -> (Vec<String>, Vec<Option<u32>>) {
    let corrupted: Vec<String> = a
        .iter()
        .map(|s| {
            let ed = edits(rng);
            alphabet.normalize(&corrupt(s, ed, rng))
        })
        .collect();
    let perm = rng.permutation(a.len());
    let mut b = Vec::with_capacity(a.len());
    let mut truth = vec![None; a.len()];
    for (j, &i) in perm.iter().enumerate() {
        b.push(corrupted[i].clone());
        truth[i] = Some(j as u32);
    }
    (b, truth)
}

/// B's copy without the records that normalize to empty (any party leaves
/// them out), and A's truth renumbered onto what is left.
pub fn without_empty(b_all: &[String], truth_all: &[Option<u32>]) -> (Vec<String>, Vec<Option<u32>>) {
    let mut b_index = vec![u32::MAX; b_all.len()];
    let mut b = Vec::with_capacity(b_all.len());
    for (j, s) in b_all.iter().enumerate() {
        if !s.is_empty() {
            b_index[j] = b.len() as u32;
            b.push(s.clone());
        }
    }
    let truth = truth_all.iter().map(|t| t.map(|j| b_index[j as usize]).filter(|&j| j != u32::MAX)).collect();
    (b, truth)
}

/// The scenario's prefix-tree depth: the records' rounded mean length in
/// symbols, at least 1 (docs/SCENARIO.md; the scenario's data are public).
pub fn mean_record_length(records: &[String]) -> usize {
    let total: usize = records.iter().map(|s| s.chars().count()).sum();
    ((total as f64 / records.len().max(1) as f64).round() as usize).max(1)
}

/// Runs the scenario on A's normalized records: B's corrupted copy, then the
/// whole protocol ([`crate::session::run`]) between two seeded owners, scored
/// against the truth.
pub fn run_scenario(
    a_records: &[String],
    alphabet: &Alphabet,
    options: &ScenarioOptions,
    clock: &dyn Clock,
    progress: &mut dyn Progress,
) -> Result<ScenarioResult, Error> {
    if a_records.is_empty() {
        return Err(Error::Parameter("the scenario needs at least one record".into()));
    }
    let start = clock.now_ms();
    let mut rng = Randomness::seeded(options.seed);
    let (mut rng_corrupt, rng_a, rng_b) = (rng.fork(), rng.fork(), rng.fork());

    let (b_all, truth_all) = match &options.corrupt_rates {
        Some(rates) => {
            let total: f64 = rates.iter().sum();
            if rates.is_empty() || rates.iter().any(|r| !(r.is_finite() && *r >= 0.0)) || total <= 0.0 {
                return Err(Error::Parameter(format!(
                    "corruption rates must be shares ≥ 0 with a positive sum, not {rates:?}"
                )));
            }
            let draw = |rng: &mut Randomness| {
                let mut x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
                for (e, r) in rates.iter().enumerate() {
                    if x < *r {
                        return e as u32;
                    }
                    x -= r;
                }
                (rates.len() - 1) as u32
            };
            corrupted_copy_by(a_records, draw, alphabet, &mut rng_corrupt)
        }
        None => corrupted_copy(a_records, options.ed(), alphabet, &mut rng_corrupt),
    };
    let (b_records, truth) = without_empty(&b_all, &truth_all);
    let corrupt_ms = clock.now_ms() - start;

    let mut config = options.config.clone();
    if options.mean_h_max {
        config.mine.h_max = mean_record_length(a_records);
    }
    let budget = config.mine.budget();
    let mut a = DataOwner::new(Dataset::from_normalized(a_records.to_vec(), alphabet), budget, rng_a)?;
    let mut b = DataOwner::new(Dataset::from_normalized(b_records.clone(), alphabet), budget, rng_b)?;
    // a fork drawn after the others, so unkeyed runs keep their random streams
    let key = options.keyed.then(|| {
        let mut key = [0u8; 32];
        rng.fork().fill_bytes(&mut key);
        Key::from_bytes(key)
    });
    let run = crate::session::run(&mut a, &mut b, &config, key.as_ref(), clock, progress)?;
    let mut timings = run.timings_ms;
    timings.insert("corrupt".into(), corrupt_ms);

    let (va, vb) = (&run.matcher.a().vectors, &run.matcher.b().vectors);
    let pairs = &run.pairs;
    // the other rule on the same candidates: every pair for a one-to-one rule,
    // greedy one-to-one for the paper's
    let other = match config.rule {
        Rule::All => run.matcher.assign(&run.candidates, Rule::Greedy),
        _ => run.candidates.pairs(),
    };
    let n = a_records.len();
    let q = quality(pairs.iter().map(|p| (p.a, p.b)), &truth, n);
    let other_rule = quality(other.iter().map(|p| (p.a, p.b)), &truth, n);

    let th = run.matcher.thresholds();
    let mut outside = 0u64;
    for (i, t) in truth.iter().enumerate() {
        if let Some(j) = t {
            if crate::matching::row_distance(va, i, vb, *j as usize) > th[i] {
                outside += 1;
            }
        }
    }
    let sample = pairs
        .iter()
        .take(options.sample)
        .map(|p| SamplePair {
            a: a_records[p.a as usize].clone(),
            b: b_records[p.b as usize].clone(),
            distance: p.distance,
            correct: truth[p.a as usize] == Some(p.b),
        })
        .collect();
    Ok(ScenarioResult {
        options: options.clone(),
        n,
        b_empty: b_all.len() - b_records.len(),
        h_max: config.mine.h_max,
        precision: q.precision,
        recall: q.recall,
        f1: q.f1,
        pairs: q.pairs,
        true_pairs: q.true_pairs,
        other_rule,
        candidates: run.candidate_count,
        true_outside_threshold: outside,
        mean_threshold: th.iter().sum::<f64>() / th.len() as f64,
        base: run.shared.grams().to_vec(),
        fingerprint: run.shared.fingerprint().to_string(),
        timings_ms: timings,
        sample,
        cutoff: run.cutoff,
    })
}
