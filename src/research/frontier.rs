//! The frontier's attack columns for one string: party A's batch of NAMES
//! (a Zipf multiset over the public rank order, or distinct names) made by
//! the protocol's own steps under each candidate encoding, and the
//! labelling and pattern-mining attacks ([`super::labelling`]) and the graph-matching attack
//! ([`super::graph`]) run on what the matcher receives,
//! with C's list covering the data and its exact frequencies (the worst case).
//! `gramlink lab frontier` prints it; docs/THREAT_MODEL.md holds the table.

use super::bootstrap::mined_with_copy;
use super::chaff::{fakes, FakeSource, FAKE_MARK};
use super::graph::{graph_attack, GraphReport};
use super::labelling::{labelling_attack, pattern_attack, shape_of, Known, LabellingReport, Search};
use crate::alphabet::Alphabet;
use crate::config::Config;
use crate::dp::Randomness;
use crate::embed::BatchVectors;
use crate::error::Error;
use crate::keyed::{Encoding, Key};
use crate::party::EmbedOptions;
use crate::progress::Progress;
use crate::protocol::Party;
use crate::pseudonym::{Distinct, IdMap};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Parameters of the experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrontierOptions {
    /// A's records.
    pub sample: usize,
    /// Zipf's law over the rank order (else distinct names drawn uniformly).
    pub zipf: bool,
    /// Records decoded (the costly step).
    pub targets: usize,
    /// The search's swap proposals per gram.
    pub sweeps: usize,
    pub seed: u64,
    /// The encodings to attack (`None`: unkeyed).
    pub encodings: Vec<Option<Encoding>>,
    /// Fake rows per distinct record value ([`super::chaff`]; 0: none).
    #[serde(default)]
    pub fakes: f64,
    #[serde(default = "edits")]
    pub fake_source: FakeSource,
    /// C adds fakes of its own, made the same way, to its list.
    #[serde(default)]
    pub adaptive: bool,
    /// C prunes the rows it takes for fakes (star leaves at cosine ≥ this;
    /// 0: it does not) and matches the rest against its own list.
    #[serde(default)]
    pub prune: f32,
}

fn edits() -> FakeSource {
    FakeSource::Edits
}

/// One encoding's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrontierRow {
    pub encoding: String,
    /// A's batch in the binary form, bytes.
    pub batch_bytes: usize,
    pub labelling: LabellingReport,
    /// The pattern-mining attack ([`super::labelling::pattern_attack`]).
    #[serde(default)]
    pub patterns: LabellingReport,
    /// The frequency attack: identical rows grouped, the i-th largest group
    /// named after the i-th most frequent value (C's exact frequencies).
    pub frequency: f64,
    /// Distinct rows the batch shows (the groups C sees).
    pub groups: usize,
    /// The graph-matching attack ([`super::graph`]); `None` for a dense batch.
    pub graph: Option<GraphReport>,
    /// Under C's pruning of fakes: the rows it kept, and the fakes among them.
    #[serde(default)]
    pub pruned: Option<(usize, usize)>,
}

/// The frequency attack on any batch: rows grouped by identity (the same
/// coordinates and values), groups ranked by size (ties in row order) and
/// named after the values by decreasing frequency in `ranked`. Share of
/// records named correctly (row `r` stands for `records[r]` of them).
pub fn frequency_attack(
    batch: &crate::protocol::VectorBatch,
    truth: &[String],
    records: &[u32],
    ranked: &[String],
) -> (f64, usize) {
    let dense;
    let sparse = match &batch.vectors {
        crate::embed::BatchVectors::Sparse(s) => s,
        crate::embed::BatchVectors::Dense(d) => {
            dense = d.to_sparse();
            &dense
        }
    };
    let groups = Distinct::of((0..sparse.len()).map(|r| sparse.row_key(r)));
    let sizes = groups.sizes();
    // by size, ties in the order of their first row
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by_key(|&g| std::cmp::Reverse(sizes[g]));
    let mut named: Vec<Option<&String>> = vec![None; groups.len()];
    for (&g, name) in order.iter().zip(ranked) {
        named[g] = Some(name);
    }
    let hits: u64 =
        (0..sparse.len()).filter(|&r| named[groups.group(r)] == Some(&truth[r])).map(|r| records[r] as u64).sum();
    let total: u64 = records.iter().map(|&k| k as u64).sum();
    (hits as f64 / total.max(1) as f64, groups.len())
}

/// Each batch row's true value (its first record's, in `values`: the
/// owner's records in order) and how many records it stands for, through the
/// owner's id map (`None`: ids kept, the ids are record numbers).
fn row_truth(ids: &[String], map: Option<&IdMap>, values: &[String]) -> Result<(Vec<String>, Vec<u32>), Error> {
    let Some(map) = map else {
        let row = |id: &String| id.parse::<usize>().ok().and_then(|i| values.get(i)).cloned();
        let truth: Option<Vec<String>> = ids.iter().map(row).collect();
        let truth = truth.ok_or_else(|| Error::Parameter("a kept id is not a record number".into()))?;
        return Ok((truth, vec![1; ids.len()]));
    };
    let mut of: HashMap<String, (usize, u32)> = HashMap::new();
    for (r, p) in map.pseudonyms().into_iter().enumerate() {
        of.entry(p).or_insert((r, 0)).1 += 1;
    }
    let mut truth = Vec::with_capacity(ids.len());
    let mut records = Vec::with_capacity(ids.len());
    for id in ids {
        let &(r, k) = of.get(id).ok_or_else(|| Error::Parameter(format!("row {id} is not in the id map")))?;
        truth.push(values[r].clone());
        records.push(k);
    }
    Ok((truth, records))
}

/// Runs the attack on every encoding. `names` is the population in public
/// frequency-rank order; `dictionary` C's public list; both normalized.
pub fn run_frontier(
    names: &[String],
    dictionary: &[String],
    alphabet: &Alphabet,
    o: &FrontierOptions,
    progress: &mut dyn Progress,
) -> Result<Vec<FrontierRow>, Error> {
    if o.sample == 0 || (!o.zipf && o.sample > names.len()) {
        return Err(Error::Parameter(format!("the sample must hold 1..={} names, not {}", names.len(), o.sample)));
    }
    let mut rng = Randomness::seeded(o.seed);
    let (mut r_sample, mut r_corrupt, r_a, r_b, mut r_key) =
        (rng.fork(), rng.fork(), rng.fork(), rng.fork(), rng.fork());
    let a: Vec<String> = if o.zipf {
        super::attack::zipf_sample(names.len(), o.sample, &mut r_sample).into_iter().map(|i| names[i].clone()).collect()
    } else {
        r_sample.permutation(names.len())[..o.sample].iter().map(|&i| names[i].clone()).collect()
    };
    let config = Config::default();
    let (owner_a, shared) = mined_with_copy(a.clone(), alphabet, &config, &mut r_corrupt, (r_a, r_b), progress)?;
    // A's fakes (an experiment): embedded with its records, named by a mark no
    // list holds, standing for no record
    let (mut r_fake, mut r_c) = (r_key.fork(), r_key.fork());
    let normalize = |s: &str| alphabet.normalize(s);
    let fake = fakes(&a, names, o.fake_source, o.fakes, normalize, &mut r_fake);
    let owner_a = if fake.is_empty() {
        owner_a
    } else {
        let all: Vec<String> = a.iter().cloned().chain(fake.iter().cloned()).collect();
        let budget = crate::dp::Epsilon::new(config.mine.epsilon)?;
        crate::party::DataOwner::new(crate::dataset::Dataset::from_normalized(all, alphabet), budget, r_fake.fork())?
    };
    let values: Vec<String> = a.iter().cloned().chain(fake.iter().map(|f| format!("{FAKE_MARK}{f}"))).collect();
    let mut key = [0u8; 32];
    r_key.fill_bytes(&mut key);
    let key = Key::from_bytes(key);
    // C's prior: the data's own frequencies (the worst case)
    let mut counts: HashMap<&str, f64> = HashMap::new();
    for s in &a {
        *counts.entry(s.as_str()).or_default() += 1.0;
    }
    let mut prior: Vec<(String, f64)> = counts.into_iter().map(|(s, c)| (s.to_string(), c)).collect();
    prior.sort_by(|x, y| x.0.cmp(&y.0));
    let mut ranked = prior.clone();
    ranked.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    let ranked: Vec<String> = ranked.into_iter().map(|(s, _)| s).collect();
    let mut distinct_prior: Vec<(String, f64)> = prior.iter().map(|(s, _)| (s.clone(), 1.0)).collect();
    if o.adaptive && o.fakes > 0.0 {
        // C's own fakes, from its list, at A's rate
        let listed: Vec<String> = prior.iter().map(|(s, _)| s.clone()).collect();
        let own = fakes(&listed, names, o.fake_source, o.fakes, normalize, &mut r_c);
        distinct_prior.extend(own.into_iter().map(|f| (f, 1.0)));
    }
    let mut rows = Vec::new();
    for &encoding in &o.encodings {
        // the batch as the default sends it: pseudonyms, shuffled rows, each
        // distinct record once (crate::pseudonym::distinct)
        let options = EmbedOptions {
            key: encoding.map_or_else(Default::default, |_| crate::keyed::EmbedKey::rotated(key.clone())),
            encoding: encoding.unwrap_or_default(),
            ..EmbedOptions::new(Party::A, &config)
        };
        let embedded = owner_a.embed(&shared, &options, progress)?;
        let batch = embedded.batch;
        let batch_bytes = batch.to_binary().len();
        let rotated = batch.transform.as_deref().is_some_and(crate::keyed::is_rotation);
        let (truth, mut records) = row_truth(&batch.ids, embedded.id_map.as_ref(), &values)?;
        for (t, k) in truth.iter().zip(records.iter_mut()) {
            if t.starts_with(FAKE_MARK) {
                *k = 0;
            }
        }
        let (frequency, groups) = frequency_attack(&batch, &truth, &records, &ranked);
        // C sees whether rows repeat: without repeats its list's best weights
        // are one each (the batch's moments are those of the distinct values)
        let prior = if groups < batch.ids.len() { prior.clone() } else { distinct_prior.clone() };
        let search = Search { sweeps: o.sweeps, seed: o.seed };
        // the rotation is dense: the labelling attack has no coordinates to label
        // (its own attacks are the exact-algebra ones)
        let (labelling, patterns) = if rotated {
            (LabellingReport::default(), LabellingReport::default())
        } else {
            let known = Known { base: &shared, prior: &prior, dictionary, truth: &truth, targets: o.targets };
            (labelling_attack(&batch, known, search)?, pattern_attack(&batch, known, o.seed)?)
        };
        let mut pruned = None;
        let graph = if rotated {
            None
        } else if o.prune > 0.0 && !fake.is_empty() {
            // C keeps the rows it takes for real ones, as many as the rate leaves
            let (BatchVectors::Sparse(v), Some(shape)) = (&batch.vectors, &batch.shape) else {
                return Err(Error::Parameter("pruning needs a sparse batch with a shape".into()));
            };
            let keep = (v.len() as f64 / (1.0 + o.fakes)).round() as usize;
            let kept = super::chaff::suspected_real(v, keep, o.prune);
            let pick = |x: &[String]| kept.iter().map(|&r| x[r].clone()).collect::<Vec<_>>();
            let (t, k): (Vec<String>, Vec<u32>) = (pick(&truth), kept.iter().map(|&r| records[r]).collect());
            let fakes_kept = t.iter().filter(|t| t.starts_with(FAKE_MARK)).count();
            pruned = Some((kept.len(), fakes_kept));
            let real_prior: Vec<(String, f64)> = prior.iter().map(|(s, _)| (s.clone(), 1.0)).collect();
            let rows = BatchVectors::Sparse(v.select(&kept));
            let mut g = graph_attack(&rows, shape, &shared, &real_prior, &t, &k, o.seed)?;
            // shares of all of A's records
            let total: u64 = records.iter().map(|&k| k as u64).sum();
            let kept_total: u64 = k.iter().map(|&k| k as u64).sum();
            g.records *= kept_total as f64 / total.max(1) as f64;
            Some(g)
        } else {
            Some(graph_attack(&batch.vectors, shape_of(&batch)?, &shared, &prior, &truth, &records, o.seed)?)
        };
        let name = encoding.map_or("unkeyed".to_string(), |e| e.to_string());
        rows.push(FrontierRow { encoding: name, batch_bytes, labelling, patterns, frequency, groups, graph, pruned });
    }
    Ok(rows)
}
