//! `gramlink rehearse`: pick the linkage configuration on two synthetic twins
//! and, given the real files, measure what the twins' choice costs there
//! ([`gramlink::twin::rehearse`]).

use crate::io::{self, CliError, Result};
use crate::progress_bar::Bar;
use clap::Args;
use gramlink::clock::SystemClock;
use gramlink::dataset::FormatHint;
use gramlink::dp::Randomness;
use gramlink::twin::observed;
use gramlink::twin::rehearse::{best, default_grid, evaluate, run_grid, Corruption, GridRow};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct RehearseArgs {
    /// Party A's twin (one string a line; CSV of records with --schema).
    twin_a: PathBuf,
    /// Party B's twin.
    twin_b: PathBuf,
    /// Records: the linkage schema; the rehearsal chooses its decision thresholds.
    #[arg(long)]
    schema: Option<PathBuf>,
    /// Edits per record of the scenario's corruption (strings).
    #[arg(long, default_value_t = 1)]
    corrupt_ed: u32,
    /// Strings: the corruption as observed, as shares of B's records with 0,
    /// 1, 2, … edits (comma-separated), instead of --corrupt-ed.
    #[arg(long, value_delimiter = ',', conflicts_with = "observe")]
    corrupt_rates: Vec<f64>,
    /// Strings: estimate the corruption from two files, A's then B's (given
    /// twice), without labels (docs/TWINS.md), instead of --corrupt-ed.
    #[arg(long, num_args = 1)]
    observe: Vec<PathBuf>,
    /// Strings: the corruption of the evaluation on the real files, when it is
    /// known (shares of 0, 1, 2, … edits) [default: the rehearsal's].
    #[arg(long, value_delimiter = ',')]
    real_corrupt_rates: Vec<f64>,
    /// Strings: the most edits per record the estimate considers.
    #[arg(long, default_value_t = 3)]
    observe_max_edits: usize,
    /// Strings: records of each file the estimate measures.
    #[arg(long, default_value_t = 1000)]
    observe_sample: usize,
    /// Use only the first N strings of each file.
    #[arg(long)]
    limit: Option<usize>,
    /// The real files, to evaluate the twins' choice (strings: each plays party
    /// A as the twins do; records: A's and B's files, with --truth).
    #[arg(long)]
    real: Vec<PathBuf>,
    /// Records: the truth of the real files (CSV a_id,b_id).
    #[arg(long)]
    truth: Option<PathBuf>,
    /// Seed of the corruption, the noise and the sampling (a rehearsal: NOT private).
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn load(path: &Path, limit: Option<usize>) -> Result<Vec<String>> {
    let alphabet = gramlink::alphabet::Alphabet::default();
    let d = io::load_dataset(path, FormatHint::Text, None, None, &alphabet)?;
    let mut v = d.records().to_vec();
    if let Some(n) = limit {
        v.truncate(n);
    }
    Ok(v)
}

fn table(title: &str, rows: &[GridRow]) {
    println!("{title}");
    let chosen = best(rows);
    for (i, r) in rows.iter().enumerate() {
        let f1: Vec<String> = r.f1.iter().map(|f| format!("{f:.4}")).collect();
        println!(
            "  {} {:<44} F1 {:.4}  ({})",
            if Some(i) == chosen { "*" } else { " " },
            r.label,
            r.mean_f1,
            f1.join(", ")
        );
    }
}

/// The corruption of the rehearsal: passed rates, rates observed between two
/// files (printed to stderr), or the scenario's fixed edits.
fn corruption(a: &RehearseArgs) -> Result<Corruption> {
    if !a.corrupt_rates.is_empty() {
        let c = Corruption::Rates(a.corrupt_rates.clone());
        c.validate()?;
        return Ok(c);
    }
    if a.observe.is_empty() {
        return Ok(Corruption::Edits(a.corrupt_ed));
    }
    if a.observe.len() != 2 {
        return Err(CliError::usage("--observe takes two files: A's, then B's"));
    }
    let (fa, fb) = (load(&a.observe[0], a.limit)?, load(&a.observe[1], a.limit)?);
    let mut rng = Randomness::seeded(a.seed);
    let o = observed::estimate(&fa, &fb, a.observe_max_edits, a.observe_sample, &mut rng)?;
    let rates: Vec<String> = o.rates.iter().map(|r| format!("{r:.3}")).collect();
    eprintln!(
        "observed corruption (no labels; {} records of B): rates of 0..{} edits {} (mean {:.2} edits); pass them with --corrupt-rates {}",
        o.sample,
        a.observe_max_edits,
        rates.join(", "),
        o.mean_edits,
        rates.join(",")
    );
    Ok(Corruption::Rates(o.rates))
}

pub fn cmd_rehearse(a: RehearseArgs) -> Result<()> {
    if let Some(schema) = &a.schema {
        return crate::rehearse_records::run(schema, &a.twin_a, &a.twin_b, &a.real, a.truth.as_ref(), a.seed, a.json);
    }
    if a.truth.is_some() {
        return Err(CliError::usage("--truth goes with --schema (strings know their truth from the scenario)"));
    }
    let corruption = corruption(&a)?;
    let title = format!("on the twins (scenario with {}; * = chosen):", corruption.describe());
    let alphabet = gramlink::alphabet::Alphabet::default();
    let twins = [load(&a.twin_a, a.limit)?, load(&a.twin_b, a.limit)?];
    let grid = default_grid();
    let clock = SystemClock::default();
    let sets: Vec<&[String]> = twins.iter().map(|v| v.as_slice()).collect();
    let on_twins = run_grid(&sets, &alphabet, &grid, &corruption, a.seed, &clock, &mut Bar::new())?;
    if a.real.is_empty() {
        let i = best(&on_twins).ok_or_else(|| CliError::failed("empty grid"))?;
        if a.json {
            let v = serde_json::json!({ "corruption": corruption, "onTwins": on_twins, "choice": on_twins[i].label });
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        } else {
            table(&title, &on_twins);
        }
        return Ok(());
    }
    let reals: Vec<Vec<String>> = a.real.iter().map(|p| load(p, a.limit)).collect::<Result<_>>()?;
    let sets: Vec<&[String]> = reals.iter().map(|v| v.as_slice()).collect();
    let real_corruption = if a.real_corrupt_rates.is_empty() {
        corruption.clone()
    } else {
        Corruption::Rates(a.real_corrupt_rates.clone())
    };
    let on_real = run_grid(&sets, &alphabet, &grid, &real_corruption, a.seed, &clock, &mut Bar::new())?;
    let e = evaluate(corruption, real_corruption, on_twins, on_real)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&e).unwrap_or_default());
    } else {
        table(&title, &e.on_twins);
        table(&format!("on the real data (scenario with {}):", e.real_corruption.describe()), &e.on_real);
        println!(
            "twins' choice: {} -> real F1 {:.4}; real choice: {} -> F1 {:.4}; F1 loss {:.4}",
            e.twin_choice, e.twin_choice_real_f1, e.real_choice, e.real_choice_f1, e.f1_loss
        );
    }
    Ok(())
}
