//! The linkage commands: embed (a party), match (the matcher), link (the whole
//! protocol on two local files), eval (the SCENARIO.md evaluation).

use crate::io::{self, anyhow_lite::Result};
use crate::progress_bar::Bar;
use crate::MineParams;
use clap::{Args, ValueEnum};
use gramlink::dataset::Dataset;
use gramlink::dp::{BudgetLedger, Epsilon, Randomness};
use gramlink::embed::Embedder;
use gramlink::keyed::{self, Key, Transform};
use gramlink::clock::SystemClock;
use gramlink::eval::scenario::{run_scenario, ScenarioOptions};
use gramlink::matching::{self, Pair};
use gramlink::mine::mine;
use gramlink::protocol::{read_shared_base, Party, ThresholdSet, VectorBatch};
use gramlink::threshold::{thresholds, ThresholdMode};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum, PartialEq)]
pub enum ThresholdArg {
    Paper,
    Sound,
    Global,
}

#[derive(Args, Clone)]
pub struct ThresholdArgs {
    /// Edit distance the thresholds cover.
    #[arg(long, default_value_t = 1)]
    ed: u32,
    /// How party A's thresholds are computed: the paper's personalized rule
    /// (Algorithm 2, not an upper bound), the sound personalized bound, or one
    /// global value.
    /// (Default: the preset's, paper or sound.)
    #[arg(long = "threshold", value_enum)]
    threshold: Option<ThresholdArg>,
    /// The global threshold (default: the paper's Δq·ed).
    #[arg(long)]
    global_threshold: Option<f64>,
}

impl ThresholdArgs {
    /// Fills in the preset's threshold when `--threshold` is not given.
    fn resolve(&mut self, preset: crate::preset::Preset) {
        self.threshold.get_or_insert(preset.threshold());
    }

    fn kind(&self) -> ThresholdArg {
        self.threshold.unwrap_or(crate::preset::DEFAULT_PRESET.threshold())
    }

    fn mode(&self) -> Result<ThresholdMode> {
        if self.global_threshold.is_some() && self.kind() != ThresholdArg::Global {
            return Err("--global-threshold goes with --threshold global".into());
        }
        Ok(match self.kind() {
            ThresholdArg::Paper => ThresholdMode::Paper,
            ThresholdArg::Sound => ThresholdMode::Sound,
            ThresholdArg::Global => ThresholdMode::Global(self.global_threshold),
        })
    }

    fn name(&self) -> &'static str {
        match self.kind() {
            ThresholdArg::Paper => "paper",
            ThresholdArg::Sound => "sound",
            ThresholdArg::Global => "global",
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum PartyArg {
    A,
    B,
}

#[derive(Args)]
pub struct EmbedArgs {
    #[command(flatten)]
    records: crate::RecordArgs,
    /// The shared base (from `gramlink merge`).
    #[arg(long)]
    base: PathBuf,
    /// Which party this is (A sends thresholds).
    #[arg(long, value_enum, default_value = "a")]
    party: PartyArg,
    /// Compute thresholds (party A): paper, sound or global.
    #[arg(long = "thresholds", value_enum)]
    thresholds: Option<ThresholdArg>,
    #[arg(long, default_value_t = 1)]
    ed: u32,
    #[arg(long)]
    global_threshold: Option<f64>,
    /// Write JSON instead of the compact binary form.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    key: crate::keys::KeyArgs,
    #[arg(long, short)]
    out: PathBuf,
}

pub fn cmd_embed(a: EmbedArgs) -> Result<()> {
    let base = read_shared_base(&io::read_text(&a.base)?).map_err(|e| format!("{}: {e}", a.base.display()))?;
    // the key is checked before the records are read, so a bad key fails fast
    let key = a.key.key()?;
    let dataset = a.records.load(base.alphabet())?;
    let bar = &mut Bar::new();
    let embedder = Embedder::new(&base).map_err(|e| e.to_string())?;
    let vectors = embedder.embed_all(dataset.records(), bar).map_err(|e| e.to_string())?;
    let th = match a.thresholds {
        None => {
            if a.global_threshold.is_some() {
                return Err("--global-threshold goes with --thresholds global".into());
            }
            None
        }
        Some(t) => {
            let args = ThresholdArgs { ed: a.ed, threshold: Some(t), global_threshold: a.global_threshold };
            let values = thresholds(&base, dataset.records(), a.ed, &args.mode()?).map_err(|e| e.to_string())?;
            Some(ThresholdSet { mode: args.name().into(), ed: a.ed, values })
        }
    };
    bar.finish();
    let (vectors, transform) = match &key {
        None => (vectors, None),
        Some(k) => {
            let t = Transform::new(k, base.fingerprint(), vectors.dim).map_err(|e| e.to_string())?;
            (t.apply(&vectors).map_err(|e| e.to_string())?, Some(t.label().to_string()))
        }
    };
    let batch = VectorBatch {
        party: match a.party {
            PartyArg::A => Party::A,
            PartyArg::B => Party::B,
        },
        fingerprint: base.fingerprint().to_string(),
        ids: dataset.ids().to_vec(),
        vectors,
        thresholds: th,
        shape: transform.is_none().then(|| gramlink::matching::Shape::of(&base)),
        transform,
    };
    batch.validate().map_err(|e| e.to_string())?;
    let bytes = if a.json { batch.to_json().into_bytes() } else { batch.to_binary() };
    io::write_atomic(&a.out, &bytes)?;
    eprintln!("embedded {} records over {} grams -> {}", batch.ids.len(), base.len(), a.out.display());
    Ok(())
}

#[derive(Args)]
pub struct MatchArgs {
    /// Party A's vector batch (with thresholds).
    a: PathBuf,
    /// Party B's vector batch.
    b: PathBuf,
    /// Link each record at most once (greedy by increasing distance).
    #[arg(long)]
    one_to_one: bool,
    /// Which pairs to keep: ranked (default: greedy one-to-one by cosine after the
    /// q-gram filter), all within threshold, greedy or nearest one-to-one.
    #[arg(long, value_parser = crate::preset::rule_parser())]
    rule: Option<crate::preset::Rule>,
    /// Pairs as CSV: a_id,b_id,distance.
    #[arg(long, short)]
    out: PathBuf,
}

fn read_batch(p: &PathBuf) -> Result<VectorBatch> {
    let bytes = std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
    VectorBatch::read(&bytes).map_err(|e| format!("{}: {e}", p.display()))
}

/// Pairs as CSV rows, ids quoted when they need it.
fn pairs_csv(pairs: &[Pair], a_ids: &[String], b_ids: &[String]) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["a_id", "b_id", "distance"]).map_err(|e| e.to_string())?;
    for p in pairs {
        w.write_record([&a_ids[p.a as usize], &b_ids[p.b as usize], &format!("{:.6}", p.distance)])
            .map_err(|e| e.to_string())?;
    }
    w.into_inner().map_err(|e| e.to_string())
}

pub fn cmd_match(a: MatchArgs) -> Result<()> {
    let (ba, bb) = (read_batch(&a.a)?, read_batch(&a.b)?);
    bb.check_base(&ba.fingerprint).map_err(|e| e.to_string())?;
    let th = ba
        .thresholds
        .as_ref()
        .ok_or_else(|| format!("{} has no thresholds: embed party A with --thresholds", a.a.display()))?;
    keyed::check_transforms(ba.transform.as_deref(), bb.transform.as_deref()).map_err(|e| e.to_string())?;
    if ba.vectors.dim != bb.vectors.dim {
        return Err(format!("dimensions differ: {} vs {}", ba.vectors.dim, bb.vectors.dim));
    }
    // keyed batches: thresholds widened by the transform's proven rounding bound
    let th = keyed::matching_thresholds(&ba.vectors, &bb.vectors, &th.values, ba.transform.as_deref());
    let rule = crate::preset::rule(a.rule, a.one_to_one, crate::preset::DEFAULT_PRESET)?;
    let ed = ba.thresholds.as_ref().map_or(0, |t| t.ed);
    // the q-gram filter needs both sides' gram lengths, and the same ones
    let shape = ba.shape.as_ref().filter(|s| bb.shape.as_ref() == Some(*s));
    let (pairs, stats) = matching::link(&ba.vectors, &bb.vectors, &th, rule, ed, shape).map_err(|e| e.to_string())?;
    io::write_atomic(&a.out, &pairs_csv(&pairs, &ba.ids, &bb.ids)?)?;
    let n = ba.ids.len() as f64 * bb.ids.len() as f64;
    eprintln!(
        "{} pairs ({}), {} candidate distances computed of {} possible ({:.4}%) -> {}",
        pairs.len(),
        crate::preset::describe(rule),
        stats.candidates,
        n,
        100.0 * stats.candidates as f64 / n.max(1.0),
        a.out.display()
    );
    Ok(())
}

#[derive(Args)]
pub struct LinkArgs {
    /// Party A's records.
    a: PathBuf,
    /// Party B's records.
    b: PathBuf,
    /// CSV column of the records (both files).
    #[arg(long)]
    column: Option<String>,
    #[arg(long)]
    id_column: Option<String>,
    #[arg(long)]
    alphabet: Option<String>,
    #[command(flatten)]
    mine: MineParams,
    #[command(flatten)]
    threshold: ThresholdArgs,
    /// Greedy one-to-one (same as --rule greedy).
    #[arg(long)]
    one_to_one: bool,
    /// Both parties apply the keyed transform with a fresh random key (the
    /// matcher's answer is unchanged; see `gramlink attack`).
    #[arg(long)]
    keyed: bool,
    /// Which pairs to keep: ranked, all, greedy or nearest (default: the preset's).
    #[arg(long, value_parser = crate::preset::rule_parser())]
    rule: Option<crate::preset::Rule>,
    #[arg(long, short)]
    out: PathBuf,
}

pub fn cmd_link(mut a: LinkArgs) -> Result<()> {
    let alphabet = crate::parse_alphabet(a.alphabet.as_deref())?;
    let options = a.mine.options();
    a.threshold.resolve(a.mine.preset());
    let rule = crate::preset::rule(a.rule, a.one_to_one, a.mine.preset())?;
    options.validate(alphabet.len()).map_err(|e| e.to_string())?;
    let mode = a.threshold.mode()?;
    let da = io::load_dataset(&a.a, a.column.as_deref(), a.id_column.as_deref(), &alphabet)?;
    let db = io::load_dataset(&a.b, a.column.as_deref(), a.id_column.as_deref(), &alphabet)?;
    let budget = Epsilon::new(options.epsilon).unwrap_or(Epsilon::zero());
    let (mut ra, mut rb) = match a.mine.seed {
        Some(s) => {
            eprintln!("warning: --seed makes the noise reproducible: the bases are NOT private");
            let mut r = Randomness::seeded(s);
            (r.fork(), r.fork())
        }
        None => (Randomness::secure().map_err(|e| e.to_string())?, Randomness::secure().map_err(|e| e.to_string())?),
    };
    let bar = &mut Bar::new();
    let na = mine(&da, &options, &mut BudgetLedger::new(budget), &mut ra, bar).map_err(|e| format!("party A: {e}"))?;
    let nb = mine(&db, &options, &mut BudgetLedger::new(budget), &mut rb, bar).map_err(|e| format!("party B: {e}"))?;
    let shared = gramlink::public::merge_shared(&na, &nb, options.k, options.public_q, options.padding)
        .map_err(|e| e.to_string())?;
    let embedder = Embedder::new(&shared).map_err(|e| e.to_string())?;
    let va = embedder.embed_all(da.records(), bar).map_err(|e| e.to_string())?;
    let vb = embedder.embed_all(db.records(), bar).map_err(|e| e.to_string())?;
    let th = thresholds(&shared, da.records(), a.threshold.ed, &mode).map_err(|e| e.to_string())?;
    let (va, vb, th) = if a.keyed {
        let key = Key::random().map_err(|e| e.to_string())?;
        let t = Transform::new(&key, shared.fingerprint(), va.dim).map_err(|e| e.to_string())?;
        let (va, vb) = (t.apply(&va).map_err(|e| e.to_string())?, t.apply(&vb).map_err(|e| e.to_string())?);
        let th = keyed::matching_thresholds(&va, &vb, &th, Some(t.label()));
        (va, vb, th)
    } else {
        (va, vb, th)
    };
    let shape = (!a.keyed).then(|| matching::Shape::of(&shared));
    let (pairs, stats) = matching::link(&va, &vb, &th, rule, a.threshold.ed, shape.as_ref()).map_err(|e| e.to_string())?;
    bar.finish();
    io::write_atomic(&a.out, &pairs_csv(&pairs, da.ids(), db.ids())?)?;
    eprintln!(
        "shared base {} ({} grams); {} pairs from {} candidates -> {}",
        &shared.fingerprint()[..16],
        shared.len(),
        pairs.len(),
        stats.candidates,
        a.out.display()
    );
    Ok(())
}

#[derive(Args)]
pub struct EvalArgs {
    /// Party A's dataset (one record a line); B is a corrupted copy.
    #[arg(long)]
    data: PathBuf,
    #[command(flatten)]
    mine: MineParams,
    #[command(flatten)]
    threshold: ThresholdArgs,
    /// Greedy one-to-one (same as --rule greedy).
    #[arg(long)]
    one_to_one: bool,
    /// Apply the keyed transform (key drawn from the seed: an experiment).
    #[arg(long)]
    keyed: bool,
    /// Which pairs to keep: ranked, all, greedy or nearest (default: the preset's).
    #[arg(long, value_parser = crate::preset::rule_parser())]
    rule: Option<crate::preset::Rule>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn cmd_eval(mut a: EvalArgs) -> Result<()> {
    let alphabet = gramlink::alphabet::Alphabet::default();
    let d: Dataset = io::load_dataset(&a.data, None, None, &alphabet)?;
    a.threshold.resolve(a.mine.preset());
    let rule = crate::preset::rule(a.rule, a.one_to_one, a.mine.preset())?;
    let m = a.mine.options();
    let options = ScenarioOptions {
        ed: a.threshold.ed,
        seed: a.mine.seed.unwrap_or(42),
        miner: a.mine.miner.into(),
        strategy: a.mine.strategy.into(),
        epsilon: a.mine.epsilon,
        k: a.mine.k,
        q_min: m.q_min,
        q_max: m.q_max,
        h_max: a.mine.hmax,
        max_grams_per_record: a.mine.max_grams_per_record,
        threshold: a.threshold.mode()?,
        one_to_one: rule != crate::preset::Rule::All,
        nearest: rule == crate::preset::Rule::Nearest,
        padding: m.padding,
        public_q: m.public_q,
        sample: 10,
        keyed: a.keyed,
        qgram: rule == crate::preset::Rule::Ranked,
    };
    let clock = SystemClock::default();
    let r = run_scenario(d.records(), &alphabet, &options, &clock, &mut Bar::new()).map_err(|e| e.to_string())?;
    if a.json {
        let v = serde_json::json!({
            "precision": r.precision, "recall": r.recall, "f1": r.f1, "pairs": r.pairs,
            "true_pairs": r.true_pairs, "candidates": r.candidates, "n": r.n,
            "true_outside_threshold": r.true_outside_threshold, "mean_threshold": r.mean_threshold,
            "h_max": r.h_max, "fingerprint": r.fingerprint, "timings_ms": r.timings_ms,
            "other_rule": r.other_rule,
        });
        println!("{v}");
        return Ok(());
    }
    let mut s = String::new();
    let _ = writeln!(s, "{} records, ed {}, seed {}, {} {} ε={} k={} q∈[{},{}] h_max={}, threshold {}{}{}",
        r.n, options.ed, options.seed, r.options.miner.name(), r.options.strategy.name(), options.epsilon, options.k,
        options.q_min, options.q_max, r.h_max, a.threshold.name(),
        match rule {
            crate::preset::Rule::All => String::new(),
            r => format!(", {}", crate::preset::describe(r)),
        },
        match (options.public_q, options.padding) {
            (None, false) => String::new(),
            (q, p) => format!(", public {}-grams{}, {} dims", q.map_or("no".into(), |q| q.to_string()), if p { " + padding" } else { "" }, r.base.len()),
        });
    let _ = writeln!(s, "precision {:.4}  recall {:.4}  F1 {:.4}", r.precision, r.recall, r.f1);
    let o = &r.other_rule;
    let _ = writeln!(s, "(with {}: precision {:.4}  recall {:.4}  F1 {:.4})",
        if options.one_to_one { "every pair within threshold" } else { "one-to-one" }, o.precision, o.recall, o.f1);
    let _ = writeln!(s, "pairs {}  true pairs {}  candidates {} of {} ({:.4}%)", r.pairs, r.true_pairs, r.candidates,
        r.n as f64 * r.n as f64, 100.0 * r.candidates as f64 / (r.n as f64 * r.n as f64));
    let _ = writeln!(s, "true pairs outside A's threshold: {} ({:.2}%), mean threshold {:.3}", r.true_outside_threshold,
        100.0 * r.true_outside_threshold as f64 / r.n as f64, r.mean_threshold);
    let total: f64 = r.timings_ms.values().sum();
    let _ = writeln!(s, "time {:.0} ms: {}", total,
        r.timings_ms.iter().map(|(k, v)| format!("{k} {v:.0}")).collect::<Vec<_>>().join(", "));
    print!("{s}");
    Ok(())
}
