//! The gramlink command line: each party's steps, the matcher, and experiments.

mod attack;
mod corrupt_cmd;
mod experiment;
mod io;
mod keys;
mod linkage;
mod paper_figures;
mod levers;
mod preset;
mod progress_bar;
mod results;

use clap::{Args, Parser, Subcommand, ValueEnum};
use gramlink::alphabet::Alphabet;
use gramlink::base::{MinerKind, Strategy};
use gramlink::dp::{BudgetLedger, Epsilon, Randomness};
use gramlink::mine::{mine, MineOptions};
use gramlink::protocol::{read_noisy_base, write_noisy_base, write_shared_base};
use io::anyhow_lite::Result;
use progress_bar::Bar;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "gramlink", version, about = "Privacy-preserving record linkage with differentially private gram bases")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Mine a noisy base of frequent grams from a party's records (ε-DP).
    Mine(MineArgs),
    /// Merge two parties' noisy bases into the shared base (with its fingerprint).
    Merge(MergeArgs),
    /// Mining utility (paper Figure 4): share of the exact top-k each miner finds.
    MineUtility(UtilityArgs),
    /// Embed a party's records over the shared base (party A adds thresholds).
    Embed(linkage::EmbedArgs),
    /// The matcher: link party A's vectors to party B's.
    Match(linkage::MatchArgs),
    /// The whole protocol between two local files (both parties and the matcher).
    Link(linkage::LinkArgs),
    /// The SCENARIO.md evaluation: B is a corrupted copy of the data; prints F1.
    Eval(linkage::EvalArgs),
    /// The matcher's attacks on A's vectors (dictionary, frequency, norm), without and with the key.
    Attack(attack::AttackArgs),
    /// Write a new random key for the keyed transform (A and B share it; C never sees it).
    Keygen(keys::KeygenArgs),
    /// Regenerate docs/RESULTS.md (the F1 table of NAMES and CITIES).
    Results(results::ResultsArgs),
    /// Write party A's records and B's corrupted copy (SCENARIO.md) as two CSV files.
    Corrupt(corrupt_cmd::CorruptArgs),
    /// The paper's experiments (Figures 4–10): CSV, SVG and a table each, under docs/results.
    Experiment(experiment::ExperimentArgs),
    /// F1 of each linkage-quality lever (issue #8) on CITIES and NAMES, ed 0–2.
    Levers(levers::LeversArgs),
}

/// Where a party's records are.
#[derive(Args, Clone)]
struct RecordArgs {
    /// Records: a text file (one record a line) or, with --column, a CSV file.
    #[arg(long, short)]
    input: PathBuf,
    /// CSV column holding the records.
    #[arg(long)]
    column: Option<String>,
    /// CSV column holding the record ids (default: row number).
    #[arg(long)]
    id_column: Option<String>,
}

impl RecordArgs {
    fn load(&self, alphabet: &Alphabet) -> Result<gramlink::dataset::Dataset> {
        io::load_dataset(&self.input, self.column.as_deref(), self.id_column.as_deref(), alphabet)
    }
}

#[derive(Args, Clone)]
struct InputArgs {
    #[command(flatten)]
    records: RecordArgs,
    /// The public alphabet (default: A–Z and space).
    #[arg(long)]
    alphabet: Option<String>,
}

impl InputArgs {
    fn alphabet(&self) -> Result<Alphabet> {
        parse_alphabet(self.alphabet.as_deref())
    }
}

/// `--alphabet`, or the default A–Z and space.
fn parse_alphabet(symbols: Option<&str>) -> Result<Alphabet> {
    match symbols {
        Some(a) => Alphabet::new(a).map_err(|e| e.to_string()),
        None => Ok(Alphabet::default()),
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum MinerArg {
    Fpm,
    PrefixTree,
    Exact,
    Random,
}

impl From<MinerArg> for MinerKind {
    fn from(m: MinerArg) -> Self {
        match m {
            MinerArg::Fpm => MinerKind::Fpm,
            MinerArg::PrefixTree => MinerKind::PrefixTree,
            MinerArg::Exact => MinerKind::Exact,
            MinerArg::Random => MinerKind::Random,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum StrategyArg {
    Linear,
    Exponential,
    Adaptive,
    Hybrid,
}

impl From<StrategyArg> for Strategy {
    fn from(s: StrategyArg) -> Self {
        match s {
            StrategyArg::Linear => Strategy::Linear,
            StrategyArg::Exponential => Strategy::Exponential,
            StrategyArg::Adaptive => Strategy::Adaptive,
            StrategyArg::Hybrid => Strategy::Hybrid,
        }
    }
}

/// The configuration and the parts of it that shape the shared base (shared by
/// the miner's flags and `merge`).
#[derive(Args, Clone)]
struct BaseShape {
    /// A whole configuration: the recommended one (the default: public 2-grams +
    /// mined 3-grams of `^record$`, sound threshold, q-gram filter, greedy
    /// one-to-one by cosine distance) or the paper's. The flags below override
    /// its parts.
    #[arg(long, value_enum)]
    preset: Option<preset::Preset>,
    /// Add every gram of this length over Σ to the shared base (public: costs no
    /// budget); 0: none. Default: the preset's (recommended 2, paper none).
    #[arg(long)]
    public_q: Option<usize>,
    /// Pad records as `^record$` for mining and embedding (default: the preset's;
    /// the noisy bases and the shared base must agree).
    #[arg(long)]
    padding: Option<bool>,
}

impl BaseShape {
    fn preset(&self) -> preset::Preset {
        self.preset.unwrap_or(preset::DEFAULT_PRESET)
    }

    /// The public gram length (None: no public grams), the flag over the preset's.
    fn public_q(&self) -> Option<usize> {
        match self.public_q {
            Some(0) => None,
            Some(q) => Some(q),
            None => self.preset().mine().public_q,
        }
    }

    fn padding(&self) -> bool {
        self.padding.unwrap_or(self.preset().mine().padding)
    }
}

#[derive(Args, Clone)]
struct MineParams {
    #[command(flatten)]
    shape: BaseShape,
    #[arg(long, value_enum, default_value = "prefix-tree")]
    miner: MinerArg,
    /// Budget strategy of the prefix-tree miner.
    #[arg(long, value_enum, default_value = "hybrid")]
    strategy: StrategyArg,
    /// Privacy budget ε for mining.
    #[arg(long, default_value_t = 0.1, allow_negative_numbers = true)]
    epsilon: f64,
    /// Number of grams in the base.
    #[arg(long, default_value_t = 75)]
    k: usize,
    /// Shortest mined gram (default: the preset's, paper 1, recommended 3).
    #[arg(long)]
    qmin: Option<usize>,
    /// Longest mined gram (default 3).
    #[arg(long)]
    qmax: Option<usize>,
    /// Depth of the prefix tree, a public parameter (default 7; `eval`: the data's
    /// rounded mean length, as SCENARIO.md says).
    #[arg(long)]
    hmax: Option<usize>,
    /// FPM: distinct grams of each length one record may contribute (sensitivity).
    #[arg(long, default_value_t = 12)]
    max_grams_per_record: usize,
    /// Seed for reproducible experiments. A seeded base is NOT private (`eval`: 42).
    #[arg(long)]
    seed: Option<u64>,
}

impl MineParams {
    fn preset(&self) -> preset::Preset {
        self.shape.preset()
    }

    fn options(&self) -> MineOptions {
        let p = self.preset().mine();
        MineOptions {
            miner: self.miner.into(),
            strategy: self.strategy.into(),
            epsilon: self.epsilon,
            k: self.k,
            q_min: self.qmin.unwrap_or(p.q_min),
            q_max: self.qmax.unwrap_or(p.q_max),
            h_max: self.hmax.unwrap_or(p.h_max),
            max_grams_per_record: self.max_grams_per_record,
            padding: self.shape.padding(),
            public_q: self.shape.public_q(),
        }
    }
}

#[derive(Args)]
struct MineArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    params: MineParams,
    /// Where to write the noisy base (JSON).
    #[arg(long, short)]
    out: PathBuf,
}

#[derive(Args)]
struct MergeArgs {
    /// Party A's noisy base.
    a: PathBuf,
    /// Party B's noisy base.
    b: PathBuf,
    /// Mined grams in the shared base.
    #[arg(long, default_value_t = 75)]
    k: usize,
    #[command(flatten)]
    shape: BaseShape,
    #[arg(long, short)]
    out: PathBuf,
}

#[derive(Args)]
struct UtilityArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Comma-separated ε values.
    #[arg(long, value_delimiter = ',', default_values_t = vec![0.05, 0.1, 0.5, 1.0])]
    epsilons: Vec<f64>,
    /// Comma-separated base sizes.
    #[arg(long, value_delimiter = ',', default_values_t = vec![25, 75, 150])]
    ks: Vec<usize>,
    #[arg(long, default_value_t = 1)]
    qmin: usize,
    #[arg(long, default_value_t = 3)]
    qmax: usize,
    #[arg(long, default_value_t = 7)]
    hmax: usize,
    /// Runs averaged per cell.
    #[arg(long, default_value_t = 5)]
    runs: u64,
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Mine(a) => cmd_mine(a),
        Command::Merge(a) => cmd_merge(a),
        Command::MineUtility(a) => cmd_utility(a),
        Command::Embed(a) => linkage::cmd_embed(a),
        Command::Match(a) => linkage::cmd_match(a),
        Command::Link(a) => linkage::cmd_link(a),
        Command::Eval(a) => linkage::cmd_eval(a),
        Command::Results(a) => results::cmd_results(a),
        Command::Keygen(a) => keys::cmd_keygen(a),
        Command::Attack(a) => attack::cmd_attack(a),
        Command::Corrupt(a) => corrupt_cmd::cmd_corrupt(a),
        Command::Experiment(a) => experiment::cmd_experiment(a),
        Command::Levers(a) => levers::cmd_levers(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn cmd_mine(a: MineArgs) -> Result<()> {
    let alphabet = a.input.alphabet()?;
    let options = a.params.options();
    // validate before reading the data, so bad parameters fail fast
    options.validate(alphabet.len()).map_err(|e| e.to_string())?;
    let dataset = a.input.records.load(&alphabet)?;
    let mut rng = Randomness::from_seed_option(a.params.seed).map_err(|e| e.to_string())?;
    if a.params.seed.is_some() {
        eprintln!("warning: --seed makes the noise reproducible: this base is NOT private (for experiments only)");
    }
    let budget = Epsilon::new(options.epsilon).unwrap_or(Epsilon::zero());
    let mut ledger = BudgetLedger::new(budget);
    let bar = &mut Bar::new();
    let base = mine(&dataset, &options, &mut ledger, &mut rng, bar).map_err(|e| e.to_string())?;
    bar.finish();
    io::write_atomic(&a.out, write_noisy_base(&base).as_bytes())?;
    eprintln!(
        "mined {} grams from {} records with {} (ε spent {} of {}) -> {}",
        base.grams.len(),
        dataset.len(),
        base.params.miner.name(),
        base.params.epsilon_spent,
        base.params.epsilon,
        a.out.display()
    );
    Ok(())
}

fn cmd_merge(a: MergeArgs) -> Result<()> {
    let read = |p: &PathBuf| -> Result<_> {
        read_noisy_base(&io::read_text(p)?).map_err(|e| format!("{}: {e}", p.display()))
    };
    let (na, nb) = (read(&a.a)?, read(&a.b)?);
    for (p, b) in [(&a.a, &na), (&a.b, &nb)] {
        if !b.private {
            eprintln!("warning: {} is marked not private (seeded or exact miner)", p.display());
        }
    }
    let shared = gramlink::public::merge_shared(&na, &nb, a.k, a.shape.public_q(), a.shape.padding()).map_err(|e| e.to_string())?;
    io::write_atomic(&a.out, write_shared_base(&shared).as_bytes())?;
    println!("shared base: {} grams, fingerprint {}", shared.len(), shared.fingerprint());
    Ok(())
}

fn cmd_utility(a: UtilityArgs) -> Result<()> {
    let alphabet = a.input.alphabet()?;
    let dataset = a.input.records.load(&alphabet)?;
    if a.ks.is_empty() || a.epsilons.is_empty() {
        return Err("--ks and --epsilons need at least one value each".into());
    }
    if a.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    let table = gramlink::research::utility::mining_utility(
        &dataset,
        &gramlink::research::utility::UtilityGrid {
            epsilons: a.epsilons.clone(),
            ks: a.ks.clone(),
            q_min: a.qmin,
            q_max: a.qmax,
            h_max: a.hmax,
            runs: a.runs,
            seed: a.seed,
        },
        &mut Bar::new(),
    )
    .map_err(|e| e.to_string())?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&table).unwrap_or_default());
    } else {
        print!("{}", table.to_markdown());
    }
    Ok(())
}
