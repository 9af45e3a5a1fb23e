//! `gramlink lab mine-utility` (paper Figure 4): the share of the exact top-k
//! grams each miner finds ([`gramlink::research::utility`]).

use crate::io::{self, Result};
use crate::options::RecordArgs;
use crate::progress_bar::Bar;
use clap::Args;

#[derive(Args)]
pub struct UtilityArgs {
    #[command(flatten)]
    records: RecordArgs,
    /// Comma-separated ε values.
    #[arg(long, value_delimiter = ',', default_values_t = vec![0.05, 0.1, 0.5, 1.0])]
    epsilons: Vec<f64>,
    /// Comma-separated base sizes.
    #[arg(long, value_delimiter = ',', default_values_t = vec![25, 75, 150])]
    ks: Vec<usize>,
    /// Shortest mined gram.
    #[arg(long, default_value_t = 1)]
    qmin: usize,
    /// Longest mined gram.
    #[arg(long, default_value_t = 3)]
    qmax: usize,
    /// Depth of the prefix tree.
    #[arg(long, default_value_t = 7)]
    hmax: usize,
    /// Runs averaged per cell.
    #[arg(long, default_value_t = 5)]
    runs: u64,
    /// Seed of the runs (the experiment is reproducible, its bases NOT private).
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn cmd_mine_utility(a: UtilityArgs) -> Result<()> {
    let alphabet = a.records.read.alphabet()?;
    let dataset = a.records.read.load(&a.records.input, &alphabet)?;
    if a.ks.is_empty() || a.epsilons.is_empty() {
        return Err(io::CliError::usage("--ks and --epsilons need at least one value each"));
    }
    if a.runs == 0 {
        return Err(io::CliError::usage("--runs must be at least 1"));
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
    )?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&table).unwrap_or_default());
    } else {
        print!("{}", table.to_markdown());
    }
    Ok(())
}
