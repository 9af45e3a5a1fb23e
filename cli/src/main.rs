//! The gramlink command line: each party's steps and the matcher's; the
//! experiments sit apart under `gramlink lab` (lab/).
//! Every protocol step is the core's ([`gramlink::party`], [`gramlink::matcher`],
//! [`gramlink::session`]); this binary reads flags and files and prints.

mod clusters;
mod io;
mod keys;
mod kuzu;
mod lab;
mod ledger;
mod ledger_index;
mod ledger_lock;
mod linkage;
mod options;
mod progress_bar;
mod record_steps;
mod records;
mod rehearse;
mod rehearse_records;
mod seed;
mod signing;
mod twin;
mod unmap;

use clap::{Args, Parser, Subcommand};
use gramlink::party::{merge_parties, DataOwner};
use gramlink::protocol::{read_noisy_base, write_noisy_base, write_shared_base};
use io::{InFile, Result};
use options::{flags_of, MineFlags, MiningFlags, PresetArg, ReadFlags, RecordArgs};
use progress_bar::Bar;
use std::path::PathBuf;
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "gramlink", version, about = "Privacy-preserving record linkage with differentially private gram bases", after_help = io::EXIT_STATUSES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Mine a noisy base of frequent grams from a party's records (ε-DP).
    Mine(MineArgs),
    /// Merge the parties' noisy bases (two or more) into the shared base (with its fingerprint).
    Merge(MergeArgs),
    /// Embed a party's records over the shared base (party A adds thresholds).
    Embed(linkage::EmbedArgs),
    /// The matcher: link party A's vectors to party B's.
    Match(linkage::MatchArgs),
    /// The whole protocol between two local files (both parties and the matcher).
    Link(linkage::LinkArgs),
    /// The matcher: blocking rules designed for two record batches (each rule's candidates and the matches it finds), as [[block]] TOML.
    Blocks(record_steps::BlocksArgs),
    /// Write a new random key for the keyed transform (A and B share it; C never sees it).
    Keygen(keys::KeygenArgs),
    /// Write a new Ed25519 signing key for your batches, and its public key for the matcher (embed --signing-key; match --verify-a/--verify-b).
    SignKeygen(signing::SignKeygenArgs),
    /// Map the matcher's pairs back from pseudonyms to your own ids (with embed's id map).
    Unmap(unmap::UnmapArgs),
    /// Kuzu et al.'s protocol: DP blocking and Paillier comparison (C: blocks, keygen, decide; A: encrypt; B: compare).
    Kuzu(kuzu::KuzuArgs),
    /// A synthetic twin of a party's file (condensation for strings, KRIMP for categorical fields), with its report.
    Twin(twin::TwinArgs),
    /// Choose the linkage configuration on two twins; with --real, what that choice costs on the real data.
    Rehearse(rehearse::RehearseArgs),
    /// The lab: the paper's experiments, the evaluation scenario, the attacks and benchmarks (not used in a real linkage).
    Lab(lab::LabArgs),
}

#[derive(Args)]
struct MineArgs {
    #[command(flatten)]
    records: RecordArgs,
    /// Mine for whole records: a linkage schema (TOML or JSON; docs/RECORDS.md);
    /// the input is then a CSV and the output the party's noisy bases, one per
    /// gram space, with the schema's budget split.
    #[arg(long, conflicts_with_all = flags_of!(ReadFlags, PresetArg, MineFlags))]
    schema: Option<PathBuf>,
    /// This party's own date format of a date field, FIELD=FORMAT (year, day
    /// or month first, separated by -, / or . or not: YYYYMMDD, DD.MM.YYYY, MM/DD/YYYY, …), repeatable; the schema stays as
    /// it is. Without it, a format found in the file is used and said on stderr.
    #[arg(long = "date-format", value_name = "FIELD=FORMAT", requires = "schema", value_parser = crate::options::date_format_arg)]
    date_formats: Vec<(String, String)>,
    #[command(flatten)]
    mining: MiningFlags,
    /// Seed for reproducible experiments: the base is then NOT private.
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    ledger: ledger::LedgerFlags,
    /// Where to write the noisy base (JSON).
    #[arg(long, short)]
    out: PathBuf,
}

#[derive(Args)]
struct MergeArgs {
    /// Every party's noisy base, two or more (A, B, C, … in this order with --schema).
    #[arg(required = true, num_args = 2..)]
    bases: Vec<PathBuf>,
    /// Merge record bases (from `mine --schema`): the linkage schema the
    /// parties mined under.
    #[arg(long, conflicts_with_all = flags_of!(PresetArg, MineFlags))]
    schema: Option<PathBuf>,
    #[command(flatten)]
    mining: MiningFlags,
    /// Where to write the shared base (JSON).
    #[arg(long, short)]
    out: PathBuf,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    io::on_signal_remove_temporaries();
    let result = match cli.command {
        Command::Mine(a) => cmd_mine(a),
        Command::Merge(a) => cmd_merge(a),
        Command::Embed(a) => linkage::cmd_embed(a),
        Command::Match(a) => linkage::cmd_match(a),
        Command::Link(a) => linkage::cmd_link(a),
        Command::Blocks(a) => record_steps::blocks(a),
        Command::Keygen(a) => keys::cmd_keygen(a),
        Command::SignKeygen(a) => signing::cmd_sign_keygen(a),
        Command::Unmap(a) => unmap::cmd_unmap(a),
        Command::Kuzu(a) => kuzu::cmd_kuzu(a),
        Command::Twin(a) => twin::cmd_twin(a),
        Command::Rehearse(a) => rehearse::cmd_rehearse(a),
        Command::Lab(a) => lab::cmd_lab(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(e.status)
        }
    }
}

fn cmd_mine(a: MineArgs) -> Result<()> {
    if let Some(schema) = &a.schema {
        return record_steps::mine(schema, &a.records.input, &a.date_formats, a.seed, &a.ledger, &a.out);
    }
    let alphabet = a.records.read.alphabet()?;
    let config = a.mining.config();
    // validate before reading the data, so bad parameters fail fast
    config.mine.validate(alphabet.len())?;
    if let Some(q) = config.mine.public_q {
        // every public q-gram is a dimension of every vector: say what that costs
        let n = alphabet.len().saturating_pow(q as u32)
            + if config.mine.padding { 2 * alphabet.len().saturating_pow(q as u32 - 1) } else { 0 };
        if let Some(w) = gramlink::base::size_warning(n + config.mine.k) {
            eprintln!("warning: --public-q {q} makes a shared base of up to {w}");
        }
    }
    // the party's ledger refuses a run past its total before the data is read
    let ledger = a.ledger.open(&a.records.input, config.mine.budget(), a.seed.is_some(), "mine")?;
    let dataset = a.records.read.load(&a.records.input, &alphabet)?;
    let rng = seed::randomness(a.seed, "this base is")?;
    let mut owner = DataOwner::new(dataset, config.mine.budget(), rng).in_file(&a.records.input)?;
    let bar = &mut Bar::new();
    let base = owner.mine(&config.mine, bar)?;
    bar.finish();
    // an exact (not private) base spends no ε: nothing to record
    if let Some(l) = ledger.filter(|_| base.private) {
        let what =
            format!("noisy base of {} grams ({}) -> {}", base.grams.len(), base.params.miner.name(), a.out.display());
        l.charge(owner.ledger().spent(), what)?;
    }
    io::write_atomic(&a.out, write_noisy_base(&base).as_bytes())?;
    eprintln!(
        "mined {} grams from {} records with {} (ε spent {} of {}) -> {}",
        base.grams.len(),
        owner.dataset().len(),
        base.params.miner.name(),
        base.params.epsilon_spent,
        base.params.epsilon,
        a.out.display()
    );
    Ok(())
}

fn cmd_merge(a: MergeArgs) -> Result<()> {
    let names: Vec<String> = a.bases.iter().map(|p| p.display().to_string()).collect();
    if let Some(schema) = &a.schema {
        return record_steps::merge(schema, &a.bases, &names, &a.out);
    }
    let mut noisy = Vec::with_capacity(a.bases.len());
    for p in &a.bases {
        let b = read_noisy_base(&io::read_text(p)?).in_file(p)?;
        if !b.private {
            eprintln!("warning: {} is marked not private (seeded or exact miner)", p.display());
        }
        noisy.push(b);
    }
    io::one_file_once(&a.bases, &names)?;
    let config = a.mining.config();
    let shared = merge_parties(&noisy.iter().collect::<Vec<_>>(), &names, &config.mine)?;
    if !shared.is_private() {
        eprintln!("warning: the shared base is marked not private, and so is every batch embedded over it");
    }
    if let Some(w) = shared.size_warning() {
        eprintln!("warning: a shared base of {w}");
    }
    io::write_atomic(&a.out, write_shared_base(&shared).as_bytes())?;
    println!("shared base: {} grams, fingerprint {}", shared.len(), shared.fingerprint());
    Ok(())
}
