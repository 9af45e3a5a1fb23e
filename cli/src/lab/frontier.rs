//! `gramlink lab frontier`: the labelling and graph-matching attacks on party A's NAMES batch under
//! each candidate encoding (src/research/frontier.rs), for the frontier table
//! of docs/THREAT_MODEL.md.

use crate::io::{self, Result};
use crate::progress_bar::Bar;
use clap::Args;
use gramlink::alphabet::Alphabet;
use gramlink::keyed::Encoding;
use gramlink::research::frontier::{run_frontier, FrontierOptions};
use std::path::PathBuf;

#[derive(Args)]
pub struct FrontierArgs {
    /// A's population, in public frequency-rank order (one name a line).
    #[arg(long, default_value = "data/names.txt")]
    names: PathBuf,
    /// C's public name list (it covers the data: the worst case).
    #[arg(long, default_value = "data/names_all.txt")]
    dictionary: PathBuf,
    /// A's records.
    #[arg(long, default_value_t = 30_000)]
    sample: usize,
    /// Distinct names drawn uniformly instead of a Zipf multiset over the rank order.
    #[arg(long)]
    distinct: bool,
    /// Records decoded.
    #[arg(long, default_value_t = 1_000)]
    targets: usize,
    /// The labelling search's swap proposals per gram.
    #[arg(long, default_value_t = 400)]
    sweeps: usize,
    /// Encodings, comma-separated ("unkeyed", "sketch", "sketch:N", "rotation": dense, the
    /// labelling attack is skipped there).
    #[arg(long, default_value = "unkeyed,sketch:1,sketch:2,sketch:4,sketch:8")]
    encodings: String,
    /// The seed of every random step (an experiment).
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Print one JSON array.
    #[arg(long)]
    json: bool,
}

pub fn cmd_frontier(a: FrontierArgs) -> Result<()> {
    let alphabet = Alphabet::default();
    let text = gramlink::dataset::FormatHint::Text;
    let names = io::load_dataset(&a.names, text, None, None, &alphabet)?;
    let dict = io::load_dataset(&a.dictionary, text, None, None, &alphabet)?;
    let encodings = a
        .encodings
        .split(',')
        .map(|e| match e.trim() {
            "unkeyed" => Ok(None),
            e => e.parse::<Encoding>().map(Some),
        })
        .collect::<gramlink::error::Result<Vec<_>>>()?;
    let o = FrontierOptions {
        sample: a.sample,
        zipf: !a.distinct,
        targets: a.targets,
        sweeps: a.sweeps,
        seed: a.seed,
        encodings,
    };
    let bar = &mut Bar::new();
    let rows = run_frontier(names.records(), dict.records(), &alphabet, &o, bar)?;
    bar.finish();
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows).map_err(|e| crate::io::CliError::failed(e.to_string()))?);
        return Ok(());
    }
    let kind = if a.distinct { "distinct names" } else { "a Zipf multiset" };
    println!(
        "labelling attack on party A's batch: {} records ({kind}), {} decoded, seed {}",
        a.sample, a.targets, a.seed
    );
    println!(
        "encoding    batch bytes   groups  frequency | labelling: records   distinct   exact image   residual | graph: records   distinct   seeds (right)"
    );
    for r in rows {
        let l = r.labelling;
        let graph = r.graph.map_or("dense: n/a".to_string(), |g| {
            format!("{:>8.2} % {:>8.2} %   {} ({})", 100.0 * g.records, 100.0 * g.distinct, g.seeds, g.seeds_right)
        });
        println!(
            "{:<10} {:>12} {:>8} {:>8.2} % | {:>8.2} % {:>8.2} % {:>11.2} % {:>10.4} | {graph}",
            r.encoding,
            r.batch_bytes,
            r.groups,
            100.0 * r.frequency,
            100.0 * l.records,
            100.0 * l.distinct,
            100.0 * l.exact,
            l.residual
        );
    }
    Ok(())
}
