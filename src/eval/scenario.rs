//! The SCENARIO.md evaluation: party A holds the dataset, party B a corrupted copy
//! in a seeded random order; both mine, merge, embed; A computes thresholds; the
//! matcher links; the known truth scores the result. Every random step is drawn
//! from one seeded generator, so the same seed gives the same result natively and
//! in wasm. Seeded: an experiment, not a private run.

use super::clock::Clock;
use super::corrupt::corrupt;
use super::metrics::{quality, Quality};
use crate::alphabet::Alphabet;
use crate::base::{MinerKind, Strategy};
use crate::dataset::Dataset;
use crate::dp::{BudgetLedger, Epsilon, Randomness};
use crate::embed::Embedder;
use crate::keyed::{matching_thresholds, Key, Transform};
use crate::error::Error;
use crate::matching::{self, distance};
use crate::mine::{mine, MineOptions};
use crate::progress::Progress;
use crate::threshold::{thresholds, ThresholdMode};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Scenario options, with SCENARIO.md's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ScenarioOptions {
    pub ed: u32,
    pub seed: u64,
    pub miner: MinerKind,
    pub strategy: Strategy,
    /// ε per party for mining.
    pub epsilon: f64,
    pub k: usize,
    pub q_min: usize,
    pub q_max: usize,
    /// Prefix-tree depth; `None`: round(mean length of A's records), as the
    /// scenario states (the scenario's data are public).
    pub h_max: Option<usize>,
    pub max_grams_per_record: usize,
    pub threshold: ThresholdMode,
    pub one_to_one: bool,
    /// With `one_to_one`: link mutual unique nearest neighbours
    /// ([`matching::nearest`]) instead of greedy by increasing distance.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub nearest: bool,
    /// Pad records as `^record$` (public padding symbols) for mining and embedding.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub padding: bool,
    /// Add every public gram of this length over Σ (and, with padding, the
    /// boundary grams) to the shared base: data-independent, no budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub public_q: Option<usize>,
    /// How many linked pairs to return as a sample (with their strings: the
    /// scenario's data are public).
    pub sample: usize,
    /// Both parties apply the keyed transform ([`crate::keyed`]) with a key drawn
    /// from the seed (an experiment: a seeded key is no secret). Left out of the
    /// serialized options when off, so unkeyed results keep their form.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub keyed: bool,
    /// Link by [`matching::scored_match`]: the pairs passing the sound q-gram
    /// count filter, ranked by cosine distance, then greedy one-to-one (with
    /// `one_to_one`), instead of every pair within threshold ranked by distance.
    /// Needs a complete gram class (`public_q`) and unkeyed vectors.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub qgram: bool,
}

impl Default for ScenarioOptions {
    fn default() -> Self {
        let m = MineOptions::default();
        ScenarioOptions {
            ed: 1,
            seed: 42,
            miner: m.miner,
            strategy: m.strategy,
            epsilon: m.epsilon,
            k: m.k,
            q_min: m.q_min,
            q_max: m.q_max,
            h_max: None,
            max_grams_per_record: m.max_grams_per_record,
            threshold: ThresholdMode::Paper,
            one_to_one: false,
            nearest: false,
            padding: m.padding,
            public_q: m.public_q,
            sample: 20,
            keyed: false,
            qgram: false,
        }
    }
}

impl ScenarioOptions {
    /// The paper's configuration and rule (the default): 75 mined 1–3-grams, the
    /// paper's personalized thresholds, every pair within threshold.
    pub fn paper() -> Self {
        ScenarioOptions::default()
    }

    /// The recommended configuration ([`MineOptions::recommended`]): public
    /// 2-grams with boundary grams + 75 ε-DP mined 3-grams of padded records,
    /// the sound threshold, greedy one-to-one linkage (measured better than
    /// mutual-nearest, docs/results/levers.md).
    pub fn recommended() -> Self {
        let m = MineOptions::recommended();
        ScenarioOptions {
            q_min: m.q_min,
            q_max: m.q_max,
            padding: m.padding,
            public_q: m.public_q,
            threshold: ThresholdMode::Sound,
            one_to_one: true,
            nearest: false,
            qgram: true,
            ..ScenarioOptions::default()
        }
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
    /// The other rule on the same range match: one-to-one when `one_to_one` is
    /// off, every pair within threshold when it is on.
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
}

/// Party B's records and the truth: `b[j] = corrupt(a[perm[j]])`, `truth[i] = j`.
pub fn corrupted_copy(a: &[String], ed: u32, alphabet: &Alphabet, rng: &mut Randomness) -> (Vec<String>, Vec<Option<u32>>) {
    let corrupted: Vec<String> = a.iter().map(|s| alphabet.normalize(&corrupt(s, ed, rng))).collect();
    let perm = rng.permutation(a.len());
    let mut b = Vec::with_capacity(a.len());
    let mut truth = vec![None; a.len()];
    for (j, &i) in perm.iter().enumerate() {
        b.push(corrupted[i].clone());
        truth[i] = Some(j as u32);
    }
    (b, truth)
}

/// Runs the scenario on A's normalized records.
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
    let mut timings = BTreeMap::new();
    let mut t = clock.now_ms();
    let mut lap = |name: &str, timings: &mut BTreeMap<String, f64>| {
        let now = clock.now_ms();
        timings.insert(name.to_string(), now - t);
        t = now;
    };
    let mut rng = Randomness::seeded(options.seed);
    let (mut rng_corrupt, mut rng_a, mut rng_b) = (rng.fork(), rng.fork(), rng.fork());

    let (b_all, truth_all) = corrupted_copy(a_records, options.ed, alphabet, &mut rng_corrupt);
    // B's records that normalize to empty are left out, as any party does
    let mut b_index = vec![u32::MAX; b_all.len()];
    let mut b_records = Vec::with_capacity(b_all.len());
    for (j, s) in b_all.iter().enumerate() {
        if !s.is_empty() {
            b_index[j] = b_records.len() as u32;
            b_records.push(s.clone());
        }
    }
    let truth: Vec<Option<u32>> = truth_all.iter().map(|t| t.map(|j| b_index[j as usize]).filter(|&j| j != u32::MAX)).collect();
    lap("corrupt", &mut timings);

    let h_max = options.h_max.unwrap_or_else(|| {
        let total: usize = a_records.iter().map(|s| s.chars().count()).sum();
        ((total as f64 / a_records.len() as f64).round() as usize).max(1)
    });
    let mine_opts = MineOptions {
        miner: options.miner,
        strategy: options.strategy,
        epsilon: options.epsilon,
        k: options.k,
        q_min: options.q_min,
        q_max: options.q_max,
        h_max,
        max_grams_per_record: options.max_grams_per_record,
        padding: options.padding,
        public_q: options.public_q,
    };
    let budget = Epsilon::new(options.epsilon).unwrap_or(Epsilon::ONE);
    let da = Dataset::from_normalized(a_records.to_vec(), alphabet);
    let db = Dataset::from_normalized(b_records.clone(), alphabet);
    let base_a = mine(&da, &mine_opts, &mut BudgetLedger::new(budget), &mut rng_a, progress)?;
    lap("mine A", &mut timings);
    let base_b = mine(&db, &mine_opts, &mut BudgetLedger::new(budget), &mut rng_b, progress)?;
    lap("mine B", &mut timings);
    let shared = crate::public::merge_shared(&base_a, &base_b, options.k, options.public_q, options.padding)?;
    lap("merge", &mut timings);

    let embedder = Embedder::new(&shared)?;
    let va = embedder.embed_all(a_records, progress)?;
    lap("embed A", &mut timings);
    let vb = embedder.embed_all(&b_records, progress)?;
    lap("embed B", &mut timings);
    let th = thresholds(&shared, a_records, options.ed, &options.threshold)?;
    lap("thresholds", &mut timings);
    let (va, vb, th) = if options.keyed {
        // a fork drawn after the others, so unkeyed runs keep their random streams
        let mut key = [0u8; 32];
        rng.fork().fill_bytes(&mut key);
        let t = Transform::new(&Key::from_bytes(key), shared.fingerprint(), va.dim)?;
        let (va, vb) = (t.apply(&va)?, t.apply(&vb)?);
        let th = matching_thresholds(&va, &vb, &th, Some(t.label()));
        lap("keyed transform", &mut timings);
        (va, vb, th)
    } else {
        (va, vb, th)
    };

    let shape = (options.qgram && !options.keyed).then(|| matching::Shape::of(&shared)).filter(|s| s.filter_length().is_some());
    let (mut pairs, stats, greedy) = if let (true, false, Some(shape)) = (options.qgram, options.nearest, &shape) {
        let (s, stats) = matching::scored_match(&va, &vb, &th, options.ed, shape, matching::PER_ROW)?;
        lap("match", &mut timings);
        let greedy = matching::one_to_one_scored(&s);
        (s.into_iter().map(|x| x.pair).collect::<Vec<_>>(), stats, greedy)
    } else {
        let (pairs, stats) = matching::range_match(&va, &vb, &th)?;
        lap("match", &mut timings);
        let greedy = match (options.nearest, options.qgram) {
            (true, _) => matching::nearest(&pairs),
            // keyed: no q-gram filter, but the same cosine ranking
            (false, true) => matching::one_to_one_scored(&matching::rank_by_cosine(&va, &vb, &pairs)),
            (false, false) => matching::one_to_one(&pairs),
        };
        (pairs, stats, greedy)
    };
    let q_all = quality(pairs.iter().map(|p| (p.a, p.b)), &truth, a_records.len());
    let q_one = quality(greedy.iter().map(|p| (p.a, p.b)), &truth, a_records.len());
    let (q, other_rule): (Quality, Quality) = if options.one_to_one {
        pairs = greedy;
        lap("one-to-one", &mut timings);
        (q_one, q_all)
    } else {
        (q_all, q_one)
    };

    let mut outside = 0u64;
    for (i, t) in truth.iter().enumerate() {
        if let Some(j) = t {
            if distance(va.row(i), vb.row(*j as usize)) > th[i] {
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
        n: a_records.len(),
        b_empty: b_all.len() - b_records.len(),
        h_max,
        precision: q.precision,
        recall: q.recall,
        f1: q.f1,
        pairs: q.pairs,
        true_pairs: q.true_pairs,
        other_rule,
        candidates: stats.candidates,
        true_outside_threshold: outside,
        mean_threshold: th.iter().sum::<f64>() / th.len() as f64,
        base: shared.grams().to_vec(),
        fingerprint: shared.fingerprint().to_string(),
        timings_ms: timings,
        sample,
    })
}
