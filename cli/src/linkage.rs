//! The linkage commands: embed (a party), match (the matcher), link (the whole
//! protocol on two local files). The evaluation scenario is the lab's (lab/eval.rs).
//! Each calls one role of the core; none chains the protocol's steps.

use crate::io::{self, CliError, InFile, Result};
use crate::options::{flags_of, ConfigFlags, MineFlags, PresetArg, ReadFlags, RecordArgs, RuleFlag, ThresholdFlags};
use crate::progress_bar::Bar;
use clap::Args;
use gramlink::clock::{Clock, SystemClock};
use gramlink::dp::{Epsilon, Randomness};
use gramlink::keyed::Key;
use gramlink::matcher::Matcher;
use gramlink::matching::Pair;
use gramlink::party::DataOwner;
use gramlink::protocol::{read_shared_base, Party};
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
    #[command(flatten)]
    preset: PresetArg,
    #[command(flatten)]
    threshold: ThresholdFlags,
    #[command(flatten)]
    batch: BatchFlags,
    #[command(flatten)]
    key: crate::keys::KeyArgs,
    /// Embed whole records: the linkage schema (TOML or JSON; docs/RECORDS.md);
    /// --base is then the shared bases of `merge --schema`, the output a record
    /// batch; the key hashes the keyed fields and rotates every embedded field's
    /// vectors (the matcher then compares without the q-gram filter).
    #[arg(long, conflicts_with_all = flags_of!(ReadFlags, PresetArg, ThresholdFlags, BatchFlags))]
    schema: Option<PathBuf>,
    /// This party's own date format of a date field, FIELD=FORMAT (year, day
    /// or month first, separated by -, / or . or not: YYYYMMDD, DD.MM.YYYY, MM/DD/YYYY, …), repeatable; the schema stays as
    /// it is. Without it, a format found in the file is used and said on stderr.
    #[arg(long = "date-format", value_name = "FIELD=FORMAT", requires = "schema", value_parser = crate::options::date_format_arg)]
    date_formats: Vec<(String, String)>,
    #[command(flatten)]
    ids: crate::unmap::IdFlags,
    #[command(flatten)]
    signing: crate::signing::SigningFlags,
    /// Where to write the vector batch.
    #[arg(long, short)]
    out: PathBuf,
}

/// What only a one-string batch has.
#[derive(Args)]
struct BatchFlags {
    /// Party b sends thresholds too (a linkage of more than two parties: every party bounds
    /// its own records' errors).
    #[arg(long)]
    send_thresholds: bool,
    /// Write JSON instead of the compact binary form.
    #[arg(long)]
    json: bool,
}

pub fn cmd_embed(a: EmbedArgs) -> Result<()> {
    let signing = a.signing.load()?;
    if let Some(schema) = &a.schema {
        crate::record_steps::embed(crate::record_steps::EmbedRun {
            schema,
            input: &a.records.input,
            date_formats: &a.date_formats,
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
    let thresholds = a.batch.send_thresholds.then(|| config.thresholds.clone());
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
    if a.batch.json {
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
    #[arg(long, conflicts_with_all = flags_of!(PresetArg, RuleFlag))]
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

/// `--truth`: a CSV of true pairs by ids (`a_id,b_id`) or of each record's
/// person (`id,person`), to score one's own linkage.
#[derive(Args, Clone, Default)]
pub struct TruthArg {
    /// Score the pairs against this CSV: true pairs (header, then A id and B id
    /// per row; any number of true pairs per record), or each record's person
    /// (a header with the columns id and person, as `lab corrupt --parties`
    /// writes): prints precision, recall (over every true pair) and F1.
    #[arg(long)]
    pub truth: Option<PathBuf>,
}

/// A truth file's path and what it holds.
type Truth = Option<(PathBuf, gramlink::matching::truth::Truth)>;

impl TruthArg {
    /// The true pairs, read before any work (a bad truth file fails fast).
    fn load(&self) -> Result<Truth> {
        let Some(path) = &self.truth else {
            return Ok(None);
        };
        let truth = gramlink::matching::truth::read_any_truth(&io::read_bytes(path)?, &path.display().to_string())?;
        Ok(Some((path.clone(), truth)))
    }
}

/// Prints the scores of `pairs` (rows of `m`'s batches) against a loaded truth.
fn report(truth: &Truth, m: &Matcher, pairs: &[Pair]) {
    let Some((path, truth)) = truth else { return };
    let (a_ids, b_ids) = (&m.a().ids, &m.b().ids);
    let truth = truth.pairs_between(a_ids, b_ids);
    let q = gramlink::matching::truth::quality_by_ids(
        pairs.iter().map(|p| (a_ids[p.a as usize].as_str(), b_ids[p.b as usize].as_str())),
        &truth,
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
        // record batches with a schema, else one-string batches
        return match a.schema.as_deref() {
            Some(schema) => crate::record_steps::clusters(schema, run),
            None => crate::clusters::run(run),
        };
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
    #[arg(long, conflicts_with_all = flags_of!(ReadFlags, PresetArg, MineFlags, ThresholdFlags, RuleFlag))]
    schema: Option<PathBuf>,
    /// Party A's own date format of a date field, FIELD=FORMAT (as `mine
    /// --date-format`), repeatable.
    #[arg(long = "date-format-a", value_name = "FIELD=FORMAT", requires = "schema", value_parser = crate::options::date_format_arg)]
    date_format_a: Vec<(String, String)>,
    /// Party B's own date format of a date field, FIELD=FORMAT.
    #[arg(long = "date-format-b", value_name = "FIELD=FORMAT", requires = "schema", value_parser = crate::options::date_format_arg)]
    date_format_b: Vec<(String, String)>,
    #[command(flatten)]
    read: ReadFlags,
    #[command(flatten)]
    config: ConfigFlags,
    /// Both parties apply the keyed transform with a fresh random key (the
    /// matcher's answer is unchanged; see `gramlink lab attack`).
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
            date_formats: [&a.date_format_a, &a.date_format_b],
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
    let mut rng = crate::seed::randomness(a.seed, "the bases are")?;
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
