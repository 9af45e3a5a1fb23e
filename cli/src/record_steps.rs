//! The record protocol one role at a time: `mine`, `merge`, `embed` and
//! `match` with `--schema` (each party runs its own steps on its own machine;
//! the messages are [`gramlink::record::messages`] and the record batch).

use crate::io::{self, InFile, Result};
use crate::ledger::LedgerFlags;
use crate::progress_bar::Bar;
use crate::records::{load_schema, read_owner, report, Report};
use gramlink::clock::{Clock, SystemClock};
use gramlink::dp::Randomness;
use gramlink::protocol::Party;
use gramlink::record::messages::{read_noisy_bases, read_shared_bases, write_noisy_bases, write_shared_bases};
use gramlink::record::{merge_parties, Kind, RecordBatch, RecordMatcher};
use std::path::{Path, PathBuf};

/// `mine --schema`: the party's noisy bases, one per mined space.
pub fn mine(
    schema: &Path,
    input: &Path,
    date_formats: &[(String, String)],
    seed: Option<u64>,
    ledger: &LedgerFlags,
    out: &Path,
) -> Result<()> {
    let schema = load_schema(schema)?;
    let budget = gramlink::dp::Epsilon::new(schema.epsilon).map_err(gramlink::Error::from)?;
    let ledger = ledger.open(input, budget, seed.is_some(), "mine --schema")?;
    let rng = crate::seed::randomness(seed, "these bases are")?;
    let mut owner = read_owner(&schema, input, date_formats, rng)?;
    let bar = &mut Bar::new();
    let bases = owner.mine(bar)?;
    bar.finish();
    if let Some(l) = ledger {
        let what = format!("noisy bases of {} spaces -> {}", bases.bases.len(), out.display());
        l.charge(owner.ledger().spent(), what)?;
    }
    io::write_atomic(out, write_noisy_bases(&bases).as_bytes())?;
    let spaces: Vec<String> =
        bases.bases.iter().map(|(s, b)| format!("{s}: {} grams, ε {:.4}", b.grams.len(), b.params.epsilon)).collect();
    eprintln!(
        "mined {} spaces from {} records (ε charged {:.4} of {}): {} -> {}",
        bases.bases.len(),
        owner.table().ids.len(),
        owner.ledger().spent(),
        schema.epsilon,
        spaces.join("; "),
        out.display()
    );
    Ok(())
}

/// `merge --schema`: the shared bases from every party's noisy bases.
pub fn merge(schema: &Path, parties: &[PathBuf], names: &[String], out: &Path) -> Result<()> {
    let schema = load_schema(schema)?;
    let mut noisy = Vec::with_capacity(parties.len());
    for p in parties {
        noisy.push(read_noisy_bases(&io::read_text(p)?, &schema).in_file(p)?);
    }
    crate::io::one_file_once(parties, names)?;
    let shared = merge_parties(&noisy.iter().collect::<Vec<_>>(), names, &schema)?;
    if !shared.private {
        eprintln!("warning: a noisy base is marked not private (seeded): so are the shared bases and every batch");
    }
    io::write_atomic(out, write_shared_bases(&shared).as_bytes())?;
    let spaces: Vec<String> =
        shared.bases.iter().map(|(s, b)| format!("{s}: {} grams, fingerprint {}", b.len(), b.fingerprint())).collect();
    println!("shared bases: {}", spaces.join("; "));
    Ok(())
}

/// What `embed --schema` is asked to do.
pub struct EmbedRun<'a> {
    pub schema: &'a Path,
    pub input: &'a Path,
    /// The party's own date formats (`--date-format`).
    pub date_formats: &'a [(String, String)],
    pub base: &'a Path,
    pub party: Party,
    pub key: &'a crate::keys::KeyArgs,
    pub ids: &'a crate::unmap::IdFlags,
    pub out: &'a Path,
}

/// `embed --schema`: the party's record batch (GLRB).
pub fn embed(r: EmbedRun) -> Result<()> {
    let schema = load_schema(r.schema)?;
    // the key and the export policy are checked before the records are read
    let options = r.key.options(r.party, r.ids.keep_ids(), crate::keys::Target::Records(&schema))?;
    if options.key.key.is_none() {
        if let Some(f) = schema.fields.iter().find(|f| f.kind() == Some(Kind::Keyed)) {
            return Err(io::CliError::usage(format!(
                "field {:?} is keyed: give both parties' shared key (--key-file from `gramlink keygen`, or --passphrase-file)",
                f.name
            )));
        }
    }
    let shared = read_shared_bases(&io::read_text(r.base)?, &schema).in_file(r.base)?;
    // embedding spends no budget and draws no noise
    let owner = read_owner(&schema, r.input, r.date_formats, Randomness::secure()?)?;
    let bar = &mut Bar::new();
    let embedded = owner.embed(&shared, &options, bar)?;
    bar.finish();
    let batch = embedded.batch;
    r.ids.write_map(embedded.id_map.as_ref(), r.out)?;
    io::write_atomic(r.out, &batch.write())?;
    eprintln!(
        "embedded {} records, {} fields sent{}{} -> {}",
        batch.ids.len(),
        batch.fields.len(),
        if options.key.rotate { ", vectors keyed" } else { "" },
        if batch.private { "" } else { " (NOT private: seeded noise)" },
        r.out.display()
    );
    Ok(())
}

/// `match --schema`: the matcher links two record batches.
pub fn matched(schema: &Path, a: &Path, b: &Path, truth: Option<&Path>, out: &Path, json: bool) -> Result<()> {
    let schema = load_schema(schema)?;
    let truth = match truth {
        Some(p) => Some((gramlink::matching::truth::read_any_truth(&io::read_bytes(p)?, &p.display().to_string())?, p)),
        None => None,
    };
    let read = |p: &Path| RecordBatch::read(&io::read_bytes(p)?).map_err(gramlink::Error::from).in_file(p);
    let (ba, bb) = (read(a)?, read(b)?);
    let clock = SystemClock::default();
    let matcher = RecordMatcher::new(schema.clone(), ba, bb)?;
    let linkage = matcher.link()?;
    let mut timings = std::collections::BTreeMap::new();
    timings.insert("link".to_string(), clock.now_ms());
    for (p, batch) in [(a, matcher.a()), (b, matcher.b())] {
        if !batch.private {
            eprintln!("warning: {} is marked not private (seeded noise)", p.display());
        }
    }
    let truth = truth.as_ref().map(|(t, p)| (t.pairs_between(&matcher.a().ids, &matcher.b().ids), *p));
    let truth = truth.as_ref().map(|(t, p)| (&**t, *p));
    report(&schema, &matcher, &linkage, Report { truth, out: Some(out), json, timings: &timings, clock: &clock })
}

/// `match --schema s.toml a b c …` (or two with `--clusters`): record batches
/// of every party, clustered ([`gramlink::multi::records::link`]).
pub fn clusters(schema: &Path, r: crate::clusters::ClusterRun<'_>) -> Result<()> {
    let schema = load_schema(schema)?;
    let clock = SystemClock::default();
    let start = clock.now_ms();
    let truth = crate::clusters::load_truth(r.truth)?;
    let mut batches = Vec::with_capacity(r.files.len());
    for f in r.files {
        let batch = RecordBatch::read(&io::read_bytes(f)?).map_err(gramlink::Error::from).in_file(f)?;
        if !batch.private {
            eprintln!("warning: {} is marked not private (seeded noise)", f.display());
        }
        batches.push(batch);
    }
    for &(i, party) in r.signed {
        crate::signing::signed_party(&r.files[i], party, batches[i].party)?;
    }
    let names: Vec<String> = r.files.iter().map(|f| f.display().to_string()).collect();
    let read = clock.now_ms();
    let clusters = gramlink::multi::records::link(&schema, &batches, &names, r.flags.merge_threshold)?;
    let linked = clock.now_ms();
    let roster: Vec<(Party, &[String])> = batches.iter().map(|b| (b.party, b.ids.as_slice())).collect();
    crate::clusters::write(&r, &roster, &clusters, (read - start, linked - read), truth)
}

/// `gramlink blocks`: the matcher's design of blocking rules for two record batches.
#[derive(clap::Args)]
pub struct BlocksArgs {
    /// The linkage schema (its [[block]] rules, if any, are checked for fields that lack the entropy to block alone).
    #[arg(long)]
    schema: PathBuf,
    /// Party A's record batch (from `embed --schema`).
    a: PathBuf,
    /// Party B's record batch.
    b: PathBuf,
}

/// The rules the tool designs ([`gramlink::record::block_design`]): the
/// analysis on stderr, the chosen rules as `[[block]]` TOML on stdout.
pub fn blocks(args: BlocksArgs) -> Result<()> {
    #[derive(serde::Serialize)]
    struct Blocks {
        block: Vec<gramlink::record::schema::BlockRule>,
    }
    let schema = load_schema(&args.schema)?;
    let read = |p: &Path| RecordBatch::read(&io::read_bytes(p)?).map_err(gramlink::Error::from).in_file(p);
    let matcher = RecordMatcher::new(schema, read(&args.a)?, read(&args.b)?)?;
    let design = matcher.design_blocks()?;
    for line in design.lines() {
        eprintln!("{line}");
    }
    let text = toml::to_string(&Blocks { block: design.rules })
        .map_err(|e| gramlink::Error::Parameter(format!("the chosen rules as TOML: {e}")))?;
    print!("{text}");
    Ok(())
}
