//! `gramlink lab frontier`: the labelling, pattern-mining and graph-matching attacks on party A's NAMES batch under
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
    /// Fake rows in A's batch per distinct value (an experiment: src/research/chaff.rs).
    #[arg(long, default_value_t = 0.0)]
    fakes: f64,
    /// Where fakes come from: "edits" (one-edit variants of A's values) or "population"
    /// (names of --names that A does not hold).
    #[arg(long, default_value = "edits")]
    fake_source: String,
    /// C adds fakes of its own, made the same way, to its list (the adaptive attack).
    #[arg(long)]
    adaptive: bool,
    /// C prunes the rows it takes for fakes (leaves of stars of rows at cosine ≥ this) before
    /// the graph attack; 0: no pruning.
    #[arg(long, default_value_t = 0.0)]
    prune: f32,
    /// Instead of the attacks: the keyed linkage of all of --names against a one-edit copy
    /// (ed 1) with A's fakes, pairs naming a fake dropped.
    #[arg(long)]
    linkage: bool,
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
        fakes: a.fakes,
        fake_source: a.fake_source.parse().map_err(crate::io::CliError::usage)?,
        adaptive: a.adaptive,
        prune: a.prune,
    };
    let bar = &mut Bar::new();
    if a.linkage {
        let mut config = gramlink::config::Config::default();
        config.thresholds.ed = gramlink::config::Ed::Fixed(1);
        // the first keyed encoding listed
        if let Some(e) = o.encodings.iter().flatten().next() {
            config.encoding = *e;
        }
        let (q, n) = gramlink::research::chaff::linkage_with_fakes(
            names.records(),
            names.records(),
            &alphabet,
            &config,
            (o.fakes, o.fake_source),
            a.seed,
            bar,
        )?;
        bar.finish();
        println!(
            "keyed linkage ({}), ed 1, {} records of A and {n} fakes ({:?}): precision {:.4} recall {:.4} F1 {:.4}",
            config.encoding,
            names.records().len(),
            o.fake_source,
            q.precision,
            q.recall,
            q.f1
        );
        return Ok(());
    }
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
        "encoding    batch bytes   groups  frequency | labelling: records   distinct   exact image   residual | patterns: records   distinct   residual | graph: records   distinct   seeds (right)"
    );
    for r in rows {
        if let Some((kept, fakes)) = r.pruned {
            println!("C's pruning kept {kept} rows, {fakes} of them fakes");
        }
        let (l, p) = (r.labelling, r.patterns);
        let graph = r.graph.map_or("dense: n/a".to_string(), |g| {
            format!("{:>8.2} % {:>8.2} %   {} ({})", 100.0 * g.records, 100.0 * g.distinct, g.seeds, g.seeds_right)
        });
        println!(
            "{:<10} {:>12} {:>8} {:>8.2} % | {:>8.2} % {:>8.2} % {:>11.2} % {:>10.4} | {:>8.2} % {:>8.2} % {:>10.4} | {graph}",
            r.encoding,
            r.batch_bytes,
            r.groups,
            100.0 * r.frequency,
            100.0 * l.records,
            100.0 * l.distinct,
            100.0 * l.exact,
            l.residual,
            100.0 * p.records,
            100.0 * p.distinct,
            p.residual
        );
    }
    Ok(())
}
