//! The linkage commands: embed (a party), match (the matcher), link (the whole
//! protocol on two local files), eval (the evaluation scenario of docs/SCENARIO.md).
//! Each calls one role of the core; none chains the protocol's steps.

use crate::io::{self, CliError, InFile, Result};
use crate::options::{ConfigFlags, PresetArg, ReadFlags, RecordArgs, RuleFlag, ThresholdFlags};
use crate::progress_bar::Bar;
use clap::Args;
use gramlink::clock::{Clock, SystemClock};
use gramlink::dp::{Epsilon, Randomness};
use gramlink::eval::scenario::{run_scenario, ScenarioOptions};
use gramlink::keyed::Key;
use gramlink::matcher::Matcher;
use gramlink::matching::{Pair, Rule};
use gramlink::party::DataOwner;
use gramlink::protocol::{read_shared_base, Party};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Args)]
pub struct EmbedArgs {
    #[command(flatten)]
    records: RecordArgs,
    /// The shared base (from `gramlink merge`).
    #[arg(long)]
    base: PathBuf,
    /// Which party this is, a letter: a sends thresholds (the preset's, or the flags'), b none
    /// (unless --send-thresholds); c to z (a linkage of more than two parties) send them too.
    #[arg(long, default_value = "a")]
    party: Party,
    /// Party b sends thresholds too (a linkage of more than two parties: every party bounds
    /// its own records' errors).
    #[arg(long, conflicts_with = "schema")]
    send_thresholds: bool,
    #[command(flatten)]
    preset: PresetArg,
    #[command(flatten)]
    threshold: ThresholdFlags,
    /// Write JSON instead of the compact binary form.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    key: crate::keys::KeyArgs,
    /// Embed whole records: the linkage schema (TOML or JSON; docs/RECORDS.md);
    /// --base is then the shared bases of `merge --schema`, the output a record
    /// batch; the key hashes the keyed fields and rotates every embedded field's
    /// vectors (the matcher then compares without the q-gram filter).
    #[arg(long, conflicts_with_all = crate::options::schema_conflicts::EMBED)]
    schema: Option<PathBuf>,
    #[command(flatten)]
    ids: crate::unmap::IdFlags,
    #[command(flatten)]
    signing: crate::signing::SigningFlags,
    /// Where to write the vector batch.
    #[arg(long, short)]
    out: PathBuf,
}

pub fn cmd_embed(a: EmbedArgs) -> Result<()> {
    let signing = a.signing.load()?;
    if let Some(schema) = &a.schema {
        crate::record_steps::embed(crate::record_steps::EmbedRun {
            schema,
            input: &a.records.input,
            base: &a.base,
            party: a.party,
            key: &a.key,
            ids: &a.ids,
            out: &a.out,
        })?;
        return crate::signing::sign_written(signing.as_ref(), &a.out);
    }
    let base = read_shared_base(&io::read_text(&a.base)?).in_file(&a.base)?;
    let mut config = a.preset.config();
    a.threshold.apply(&mut config)?;
    // the key is checked before the records are read, so a bad key fails fast;
    // unkeyed vectors leave only with --no-key
    let thresholds = a.send_thresholds.then(|| config.thresholds.clone());
    let target = crate::keys::Target::OneString(&base, &config);
    let options = a.key.options_with(a.party, a.ids.keep_ids(), thresholds, target)?;
    let dataset = a.records.read.load(&a.records.input, base.alphabet())?;
    // embedding spends no budget and draws no noise
    let owner = DataOwner::new(dataset, Epsilon::zero(), Randomness::secure()?).in_file(&a.records.input)?;
    let bar = &mut Bar::new();
    let embedded = owner.embed(&base, &options, bar)?;
    bar.finish();
    let batch = embedded.batch;
    if !batch.private {
        eprintln!("warning: the shared base is marked not private (a seeded run): so is this batch");
    }
    a.ids.write_map(embedded.id_map.as_ref(), &a.out)?;
    // written from the batch's own memory: the binary form's numbers are not copied
    // into one buffer first (2 M keyed records: 6.9 GB once, not twice)
    if a.json {
        io::write_atomic(&a.out, batch.to_json().as_bytes())?;
    } else {
        let parts = batch.binary_parts();
        io::write_atomic_parts(&a.out, &[&parts[0], &parts[1], &parts[2]])?;
    }
    crate::signing::sign_written(signing.as_ref(), &a.out)?;
    let th = batch.thresholds.as_ref().map_or(String::new(), |t| {
        let auto = if t.auto { " (ed auto: the matcher fits the cut-off)" } else { "" };
        format!(", {} thresholds for ed {}{auto}", t.mode.name(), t.ed)
    });
    eprintln!("embedded {} records over {} grams{th} -> {}", batch.ids.len(), base.len(), a.out.display());
    Ok(())
}

#[derive(Args)]
pub struct MatchArgs {
    /// Party A's vector batch (with thresholds).
    a: PathBuf,
    /// Party B's vector batch.
    b: PathBuf,
    /// More parties' batches (C, D, …, every one with thresholds; record batches with --schema): the
    /// matcher clusters the records.
    more: Vec<PathBuf>,
    #[command(flatten)]
    clusters: crate::clusters::ClusterFlags,
    #[command(flatten)]
    preset: PresetArg,
    #[command(flatten)]
    rule: RuleFlag,
    #[command(flatten)]
    truth: TruthArg,
    /// Link record batches (from `embed --schema`): the linkage schema.
    #[arg(long, conflicts_with_all = crate::options::schema_conflicts::MATCH)]
    schema: Option<PathBuf>,
    /// With --schema: print one JSON object (the fit, thresholds, counts).
    #[arg(long, requires = "schema")]
    json: bool,
    #[command(flatten)]
    verify: crate::signing::VerifyFlags,
    /// Where to write the pairs, as CSV: a_id,b_id,distance,cosine (with
    /// --schema: a_id,b_id,class,weight,probability,swapped and each field's level).
    #[arg(long, short)]
    out: PathBuf,
}

/// Pairs as CSV rows, ids quoted when they need it: each pair's distance and its
/// cosine distance (the `ranked` rule's score; from the distance and the norms).
use gramlink::dataset::csv_cell;

fn pairs_csv(m: &Matcher, pairs: &[Pair]) -> Result<Vec<u8>> {
    let err = |e: csv::Error| CliError::failed(format!("cannot write the pairs: {e}"));
    let scored = gramlink::matching::rank_by_cosine(&m.a().vectors, &m.b().vectors, pairs);
    let (a_ids, b_ids) = (&m.a().ids, &m.b().ids);
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["a_id", "b_id", "distance", "cosine"]).map_err(err)?;
    for s in &scored {
        let p = s.pair;
        // ids a spreadsheet would run as formulas are escaped (dataset::csv_cell)
        w.write_record([
            &*csv_cell(&a_ids[p.a as usize]),
            &*csv_cell(&b_ids[p.b as usize]),
            &format!("{:.6}", p.distance),
            &format!("{:.6}", s.score),
        ])
        .map_err(err)?;
    }
    w.into_inner().map_err(|e| CliError::failed(format!("cannot write the pairs: {e}")))
}

/// `--truth`: a CSV of true pairs by ids (`a_id,b_id`), to score one's own linkage.
#[derive(Args, Clone, Default)]
pub struct TruthArg {
    /// Score the pairs against this CSV of true pairs (header, then A id and B id
    /// per row; any number of true pairs per record): prints precision, recall
    /// (over every true pair) and F1.
    #[arg(long)]
    truth: Option<PathBuf>,
}

/// A truth file's path and its true pairs by ids.
type Truth = Option<(PathBuf, HashSet<(String, String)>)>;

impl TruthArg {
    /// The true pairs, read before any work (a bad truth file fails fast).
    fn load(&self) -> Result<Truth> {
        let Some(path) = &self.truth else {
            return Ok(None);
        };
        let truth = gramlink::eval::metrics::read_truth(&io::read_bytes(path)?, &path.display().to_string())?;
        Ok(Some((path.clone(), truth)))
    }
}

/// Prints the scores of `pairs` (rows of `m`'s batches) against a loaded truth.
fn report(truth: &Truth, m: &Matcher, pairs: &[Pair]) {
    let Some((path, truth)) = truth else { return };
    let (a_ids, b_ids) = (&m.a().ids, &m.b().ids);
    let q = gramlink::eval::metrics::quality_by_ids(
        pairs.iter().map(|p| (a_ids[p.a as usize].as_str(), b_ids[p.b as usize].as_str())),
        truth,
    );
    eprintln!(
        "against {}: precision {:.4}  recall {:.4}  F1 {:.4} ({} of {} pairs true; {} true pairs in all)",
        path.display(),
        q.precision,
        q.recall,
        q.f1,
        q.true_pairs,
        q.pairs,
        truth.len()
    );
}

pub fn cmd_match(a: MatchArgs) -> Result<()> {
    let files = [vec![a.a.clone(), a.b.clone()], a.more.clone()].concat();
    let clustered = !a.more.is_empty() || a.clusters.clusters;
    if clustered && (a.rule.given() || a.json) {
        let e = "clusters link one-string batches from the ranked candidates, record batches by the schema: no --rule or --json";
        return Err(CliError::usage(e));
    }
    // the parties' signatures first: an unsigned or forged batch is not read further
    let signed = a.verify.check(&files)?;
    if clustered {
        let (flags, truth, out) = (&a.clusters, a.truth.truth.as_deref(), a.out.as_path());
        let run = crate::clusters::ClusterRun { files: &files, flags, truth, out, signed: &signed };
        return crate::clusters::run_any(a.schema.as_deref(), run);
    }
    if let Some(schema) = &a.schema {
        return crate::record_steps::matched(schema, &a.a, &a.b, a.truth.truth.as_deref(), &a.out, a.json);
    }
    let mut config = a.preset.config();
    a.rule.apply(&mut config);
    let truth = a.truth.load()?;
    let (ba, bb) = (io::read_bytes(&a.a)?, io::read_bytes(&a.b)?);
    let matcher = Matcher::read(&ba, &bb)?;
    for &(i, party) in &signed {
        crate::signing::signed_party(&files[i], party, [matcher.a(), matcher.b()][i].party)?;
    }
    for (party, batch) in [("A", matcher.a()), ("B", matcher.b())] {
        if !batch.private {
            eprintln!("warning: party {party}'s batch is marked NOT private (made from a seeded run: tests and experiments only)");
        }
    }
    let linkage = matcher.link(config.rule)?;
    io::write_atomic(&a.out, &pairs_csv(&matcher, &linkage.pairs)?)?;
    let n = matcher.a().ids.len() as f64 * matcher.b().ids.len() as f64;
    eprintln!(
        "{} pairs ({}), {} candidate distances computed of {} possible ({:.4}%) -> {}",
        linkage.pairs.len(),
        config.rule.describe(),
        linkage.stats.candidates,
        n,
        100.0 * linkage.stats.candidates as f64 / n.max(1.0),
        a.out.display()
    );
    if let Some(c) = &linkage.cutoff {
        eprintln!("{}", c.describe_kept(linkage.pairs.len(), config.rule.name()));
    } else if matcher.auto() {
        eprintln!(
            "ed auto: no cut-off for rule {} (only ranked fits one): every pair within {} edits is a candidate",
            config.rule.name(),
            matcher.ed()
        );
    }
    report(&truth, &matcher, &linkage.pairs);
    Ok(())
}

#[derive(Args)]
pub struct LinkArgs {
    /// Party A's records.
    a: PathBuf,
    /// Party B's records.
    b: PathBuf,
    /// Link whole records: a linkage schema (TOML or JSON; docs/RECORDS.md)
    /// naming the CSV columns, each field's kind, blocking and decision.
    #[arg(long, conflicts_with_all = crate::options::schema_conflicts::LINK)]
    schema: Option<PathBuf>,
    #[command(flatten)]
    read: ReadFlags,
    #[command(flatten)]
    config: ConfigFlags,
    /// Both parties apply the keyed transform with a fresh random key (the
    /// matcher's answer is unchanged; see `gramlink attack`).
    #[arg(long)]
    keyed: bool,
    /// Seed for reproducible experiments: the bases are then NOT private.
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    truth: TruthArg,
    /// Where to write the pairs, as CSV: a_id,b_id,distance,cosine.
    #[arg(long, short)]
    out: PathBuf,
}

pub fn cmd_link(a: LinkArgs) -> Result<()> {
    if let Some(schema) = &a.schema {
        return crate::records::run(crate::records::RecordRun {
            schema,
            a: &a.a,
            b: &a.b,
            truth: a.truth.truth.as_deref(),
            seed: a.seed,
            keyed: a.keyed,
            encoding: a.config.encoding,
            key: None,
            out: Some(&a.out),
            json: false,
        });
    }
    let alphabet = a.read.alphabet()?;
    let config = a.config.config()?;
    config.mine.validate(alphabet.len())?;
    let truth = a.truth.load()?;
    let (da, db) = (a.read.load(&a.a, &alphabet)?, a.read.load(&a.b, &alphabet)?);
    let (read_a, read_b) = (da.report(), db.report());
    let mut rng = crate::randomness(a.seed, "the bases are")?;
    let budget = config.mine.budget();
    let mut owner_a = DataOwner::new(da, budget, rng.fork()).in_file(&a.a)?;
    let mut owner_b = DataOwner::new(db, budget, rng.fork()).in_file(&a.b)?;
    let key = if a.keyed { Some(Key::random()?) } else { None };
    let clock = SystemClock::default();
    let bar = &mut Bar::new();
    let s = gramlink::session::run(&mut owner_a, &mut owner_b, &config, key.as_ref(), &clock, bar)?;
    bar.finish();
    let m = &s.matcher;
    io::write_atomic(&a.out, &pairs_csv(m, &s.pairs)?)?;
    eprintln!(
        "A: {} records read, {} set aside; B: {} read, {} set aside; shared base {} ({} grams)",
        read_a.total,
        read_a.empty,
        read_b.total,
        read_b.empty,
        &s.shared.fingerprint()[..16],
        s.shared.len()
    );
    eprintln!(
        "{} pairs ({}, ed {}) from {} candidate distances computed in {:.0} ms -> {}",
        s.pairs.len(),
        config.rule.describe(),
        config.thresholds.ed,
        s.candidate_count,
        clock.now_ms(),
        a.out.display()
    );
    if let Some(c) = &s.cutoff {
        eprintln!("{}", c.describe_kept(s.pairs.len(), config.rule.name()));
    }
    report(&truth, m, &s.pairs);
    Ok(())
}

#[derive(Args)]
pub struct EvalArgs {
    /// Party A's dataset (one record a line); B is a corrupted copy.
    #[arg(long, required_unless_present = "schema", conflicts_with = "schema")]
    data: Option<PathBuf>,
    /// Score two files of one's own instead: a linkage schema (TOML or JSON),
    /// party A's and B's CSV files (positional) and --truth.
    #[arg(long, requires = "truth", requires = "files", conflicts_with_all = crate::options::schema_conflicts::EVAL)]
    schema: Option<PathBuf>,
    /// With --schema: party A's and party B's CSV files.
    #[arg(num_args = 2, value_names = ["A", "B"], requires = "schema")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    truth: TruthArg,
    /// With --schema: also write the pairs (M and P) as CSV.
    #[arg(long, short, requires = "schema")]
    out: Option<PathBuf>,
    #[command(flatten)]
    config: ConfigFlags,
    /// Both parties share a key (drawn from the seed: an experiment) and apply
    /// the keyed encoding (--encoding): the default, as a real linkage runs.
    #[arg(long, conflicts_with = "no_key")]
    keyed: bool,
    /// Unkeyed vectors instead (what the matcher can read back: docs/THREAT_MODEL.md).
    #[arg(long)]
    no_key: bool,
    /// The prefix tree's depth from the data's rounded mean record length, as
    /// docs/SCENARIO.md defines it (the scenario's data are public), instead of
    /// the configuration's (--hmax).
    #[arg(long, conflicts_with = "hmax")]
    mean_hmax: bool,
    /// Edits per record of B's corrupted copy [default: --ed's number, 1 with --ed auto].
    #[arg(long)]
    corrupt_ed: Option<u32>,
    /// The seed of every random step (the scenario is an experiment). [default: 42]
    #[arg(long)]
    seed: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn cmd_eval(a: EvalArgs) -> Result<()> {
    if let Some(schema) = &a.schema {
        return crate::records::run(crate::records::RecordRun {
            schema,
            a: &a.files[0],
            b: &a.files[1],
            truth: a.truth.truth.as_deref(),
            seed: a.seed,
            keyed: !a.no_key,
            encoding: a.config.encoding,
            key: None,
            out: a.out.as_deref(),
            json: a.json,
        });
    }
    let data = a.data.as_ref().ok_or_else(|| CliError::usage("--data or --schema is required"))?;
    let alphabet = gramlink::alphabet::Alphabet::default();
    let d = io::load_dataset(data, gramlink::dataset::FormatHint::Text, None, None, &alphabet)?;
    let config = a.config.config()?;
    let options = ScenarioOptions {
        seed: a.seed.unwrap_or(42),
        mean_h_max: a.mean_hmax,
        sample: 10,
        keyed: !a.no_key,
        corrupt_ed: a.corrupt_ed,
        ..ScenarioOptions::new(config)
    };
    let clock = SystemClock::default();
    let r = run_scenario(d.records(), &alphabet, &options, &clock, &mut Bar::new())?;
    let c = &options.config;
    if a.json {
        let v = serde_json::json!({
            "precision": r.precision, "recall": r.recall, "f1": r.f1, "pairs": r.pairs,
            "true_pairs": r.true_pairs, "candidates": r.candidates, "n": r.n,
            "true_outside_threshold": r.true_outside_threshold, "mean_threshold": r.mean_threshold,
            "h_max": r.h_max, "fingerprint": r.fingerprint, "timings_ms": r.timings_ms,
            "other_rule": r.other_rule, "ed": c.thresholds.ed, "corrupt_ed": options.ed(), "cutoff": r.cutoff,
            "keyed": options.keyed, "encoding": c.encoding,
        });
        println!("{v}");
        return Ok(());
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} records, B with {} edits each, {}, ed {}, seed {}, {} {} ε={} k={} q∈[{},{}] h_max={}, threshold {}, rule {}{}",
        r.n,
        options.ed(),
        if options.keyed { format!("keyed ({})", c.encoding) } else { "unkeyed (--no-key)".into() },
        c.thresholds.ed,
        options.seed,
        c.mine.miner.name(),
        c.mine.strategy.name(),
        c.mine.epsilon,
        c.mine.k,
        c.mine.q_min,
        c.mine.q_max,
        r.h_max,
        c.thresholds.mode.name(),
        c.rule.name(),
        match (c.mine.public_q, c.mine.padding) {
            (None, false) => String::new(),
            (q, p) => format!(
                ", public {}-grams{}, {} dims",
                q.map_or("no".into(), |q| q.to_string()),
                if p { " + padding" } else { "" },
                r.base.len()
            ),
        }
    );
    if let Some(cut) = &r.cutoff {
        let _ = writeln!(s, "{}", cut.describe());
    }
    let _ = writeln!(s, "precision {:.4}  recall {:.4}  F1 {:.4}", r.precision, r.recall, r.f1);
    let o = &r.other_rule;
    let _ = writeln!(
        s,
        "(with {}: precision {:.4}  recall {:.4}  F1 {:.4})",
        if c.rule == Rule::All { "greedy one-to-one" } else { "every candidate pair" },
        o.precision,
        o.recall,
        o.f1
    );
    let _ = writeln!(
        s,
        "pairs {}  true pairs {}  candidates {} of {} ({:.4}%)",
        r.pairs,
        r.true_pairs,
        r.candidates,
        r.n as f64 * r.n as f64,
        100.0 * r.candidates as f64 / (r.n as f64 * r.n as f64)
    );
    let _ = writeln!(
        s,
        "true pairs outside A's threshold: {} ({:.2}%), mean threshold {:.3}",
        r.true_outside_threshold,
        100.0 * r.true_outside_threshold as f64 / r.n as f64,
        r.mean_threshold
    );
    let total: f64 = r.timings_ms.values().sum();
    let _ = writeln!(
        s,
        "time {:.0} ms: {}",
        total,
        r.timings_ms.iter().map(|(k, v)| format!("{k} {v:.0}")).collect::<Vec<_>>().join(", ")
    );
    print!("{s}");
    Ok(())
}
