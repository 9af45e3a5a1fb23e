//! `gramlink lab attack --bootstrap` and `gramlink lab attack --schema`: the exact
//! algebra attacks on keyed batches (issue 29), the one-string inner-product
//! bootstrap (src/research/bootstrap.rs) and the record batch field by field
//! (src/research/small_domain.rs).

use crate::io::{self, Result};
use crate::progress_bar::Bar;
use clap::Args;
use gramlink::alphabet::Alphabet;
use gramlink::config::Config;
use gramlink::research::bootstrap::{run_bootstrap, BootstrapOptions, BootstrapReport};
use gramlink::research::small_domain::run_record_attack;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct AlgebraArgs {
    /// Run the exact inner-product bootstrap on keyed batches of `--names`
    /// (Zipf over the rank order, and all-distinct; the names file is C's public list).
    #[arg(long)]
    pub bootstrap: bool,
    /// A's records in each bootstrap setting.
    #[arg(long, default_value_t = 30_000)]
    pub records: usize,
    /// Attack a keyed record batch field by field under this schema (TOML or JSON).
    #[arg(long)]
    pub schema: Option<PathBuf>,
    /// Party A's records (`--schema`): the keyed batch attacked.
    #[arg(long, default_value = "data/febrl/dataset3-a.csv")]
    pub a: PathBuf,
    /// Party B's records (`--schema`): B's plain values are C's public frequency list.
    #[arg(long, default_value = "data/febrl/dataset3-b.csv")]
    pub b: PathBuf,
    /// The keyed encoding attacked: "sketch", "sketch:N" or "rotation" [default: the
    /// default of what is attacked: "sketch" for one string, "sketch:8" with --schema].
    #[arg(long)]
    pub encoding: Option<gramlink::keyed::Encoding>,
}

fn pct(x: f64) -> String {
    format!("{:6.2}%", 100.0 * x)
}

fn print_report(setting: &str, r: &BootstrapReport) {
    println!(
        "{setting:<13} {:>6} records {:>6} distinct  records {}  distinct {}  wrong {}",
        r.records,
        r.distinct,
        pct(r.records_share),
        pct(r.distinct_share),
        pct(r.wrong_share)
    );
    println!(
        "  anchors: {} by frequency, {} from norms (arc consistency); distinct rows decoded per round {:?}",
        r.frequency_anchors, r.norm_anchors, r.rounds
    );
    println!(
        "  Procrustes on {} decoded pairs: held-out |cos| mean {:.6}, least {:.6} ({} rows)",
        r.fit.pairs, r.fit.mean_abs_cos, r.fit.min_abs_cos, r.fit.held_out
    );
}

pub fn cmd_bootstrap(names: &Path, a: &AlgebraArgs, config: Config, seed: u64, json: bool) -> Result<()> {
    let alphabet = Alphabet::default();
    let list = io::load_dataset(names, gramlink::dataset::FormatHint::Text, None, None, &alphabet)?;
    let encoding = a.encoding.unwrap_or_default();
    let o = BootstrapOptions { records: a.records, seed, config: Config { encoding, ..config } };
    let bar = &mut Bar::new();
    let r = run_bootstrap(list.records(), &alphabet, &o, bar)?;
    bar.finish();
    if json {
        println!("{}", serde_json::to_string(&r).unwrap_or_default());
        return Ok(());
    }
    println!(
        "exact inner-product bootstrap on keyed batches ({}, default two-party flow, seed {seed}); \
         C's public list: {} ({} names), dimension {}",
        encoding,
        names.display(),
        r.public,
        r.dim
    );
    print_report("Zipf", &r.zipf);
    print_report("all-distinct", &r.distinct);
    Ok(())
}

pub fn cmd_records(schema: &Path, a: &AlgebraArgs, seed: u64, json: bool) -> Result<()> {
    let s = crate::records::load_schema(schema)?;
    let (ab, bb) = (io::read_bytes(&a.a)?, io::read_bytes(&a.b)?);
    let bar = &mut Bar::new();
    let encoding = a.encoding.unwrap_or_else(gramlink::keyed::Encoding::for_records);
    let r = run_record_attack(&s, &ab, &bb, seed, encoding, bar)?;
    bar.finish();
    if json {
        println!("{}", serde_json::to_string(&r).unwrap_or_default());
        return Ok(());
    }
    println!(
        "keyed record batch ({}) of {} ({} records, seed {seed}) attacked field by field; \
         C's public list: the plain values of {}",
        encoding,
        a.a.display(),
        r.records,
        a.b.display()
    );
    println!("field            kind     records  distinct  bootstrap    exact   within 5  exact (distinct)");
    for f in &r.fields {
        println!(
            "{:<16} {:<8} {:>7} {:>9}  {}  {}  {}  {}",
            f.field,
            f.kind,
            f.records,
            f.distinct,
            pct(f.bootstrap_share),
            pct(f.exact_share),
            pct(f.within5_share),
            pct(f.exact_distinct_share)
        );
    }
    for s in &r.spaces {
        println!(
            "base of {}: {} distinct rows, domain {}, anchors {} + {} (norm), decoded per round {:?}, \
             Procrustes held-out |cos| mean {:.6} on {} pairs",
            s.fields.join(", "),
            s.distinct_rows,
            s.domain,
            s.frequency_anchors,
            s.norm_anchors,
            s.rounds,
            s.fit.mean_abs_cos,
            s.fit.pairs
        );
    }
    for g in &r.graph {
        println!(
            "graph matching on {} (C's list: {} and frequencies): {} of {} records, {} of distinct values, {} seeds ({} right)",
            g.field,
            g.list,
            pct(g.report.records),
            g.records,
            pct(g.report.distinct),
            g.report.seeds,
            g.report.seeds_right
        );
        if let Some(p) = &g.patterns {
            println!(
                "pattern mining on {} (the same list): {} of records, {} of distinct values, residual {:.4}",
                g.field,
                pct(p.records),
                pct(p.distinct),
                p.residual
            );
        }
    }
    Ok(())
}
