//! `gramlink twin`: a synthetic twin of a party's file (strings by
//! condensation, categorical fields by KRIMP; [`gramlink::twin`]), with its
//! report. Every flag left out takes the core's default.

use crate::io::{self, InFile, Result};
use crate::options::{flags_of, ReadFlags};
use clap::Args;
use gramlink::twin::{check_record_options, twin_strings, twin_table, TwinOptions, TwinReport};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct TwinArgs {
    /// The party's file: one string a line (or CSV with --column), or a CSV of
    /// records with --schema.
    input: PathBuf,
    /// Whole records under a linkage schema (TOML or JSON; docs/RECORDS.md).
    #[arg(long, conflicts_with_all = flags_of!(ReadFlags))]
    schema: Option<PathBuf>,
    #[command(flatten)]
    read: ReadFlags,
    #[command(flatten)]
    flags: TwinFlags,
    /// Seed: the twin is then reproducible by anyone with the seed (experiments).
    #[arg(long)]
    seed: Option<u64>,
    /// Where to write the twin (text, one string a line; CSV with --schema).
    #[arg(long, short)]
    out: PathBuf,
    /// Where to write the report [default: the output's name + .report.json].
    #[arg(long)]
    report: Option<PathBuf>,
}

/// The twin's parameters (shared with `rehearse`).
#[derive(Args, Clone, Default)]
pub struct TwinFlags {
    /// Condensation: every group holds at least k strings [default: 10].
    #[arg(long)]
    pub k: Option<usize>,
    /// Condensation: the (ε, k)-similarity ε; a segment's lengths lie in [l, (1+ε)l] [default: 0.1].
    #[arg(long)]
    pub length_epsilon: Option<f64>,
    /// Condensation: the most strings grouped together (at least 2k) [default: 1000].
    #[arg(long)]
    pub block: Option<usize>,
    /// Condensation: the paper's optional re-assignment (section 2.2), which
    /// dissolves groups whose strings fit other groups better: on or off [default: on].
    #[arg(long)]
    pub reassign: Option<bool>,
    /// KRIMP: candidates are the value combinations held by at least this many rows [default: 5].
    #[arg(long)]
    pub min_sup: Option<usize>,
    /// KRIMP generator: the Laplace correction added to each code-table usage [default: 0.001].
    #[arg(long)]
    pub laplace: Option<f64>,
    /// Fields made by KRIMP besides the keyed and clear ones (comma-separated schema names).
    #[arg(long, value_delimiter = ',')]
    pub categorical: Vec<String>,
    /// Pseudo-strings per field whose nearest real string is measured [default: 500].
    #[arg(long)]
    pub nn_sample: Option<usize>,
}

impl TwinFlags {
    pub fn options(&self) -> TwinOptions {
        let mut o = TwinOptions::default();
        macro_rules! set {
            ($($flag:ident => $($path:ident).+),*) => {$( if let Some(v) = self.$flag { o.$($path).+ = v; } )*};
        }
        set!(k => condense.k, length_epsilon => condense.length_epsilon, block => condense.block,
             min_sup => krimp.min_sup, laplace => krimp.laplace, nn_sample => nn_sample);
        if let Some(r) = self.reassign {
            o.condense.reassign = r;
        }
        o.categorical = self.categorical.clone();
        o
    }
}

fn report_path(out: &Path, report: Option<&PathBuf>) -> PathBuf {
    report.cloned().unwrap_or_else(|| {
        let mut s = out.as_os_str().to_owned();
        s.push(".report.json");
        PathBuf::from(s)
    })
}

pub fn cmd_twin(a: TwinArgs) -> Result<()> {
    let options = a.flags.options();
    let mut rng = crate::seed::randomness(a.seed, "this twin is")?;
    let what = a.input.display().to_string();
    let report = if let Some(schema) = &a.schema {
        let schema = crate::records::load_schema(schema)?;
        // options first: a bad one fails before the file is read
        check_record_options(&schema, &options)?;
        let table = crate::records::read_table(&schema, &a.input)?;
        let t = twin_table(&table, &schema, &options, &mut rng, &what)?;
        io::write_atomic(&a.out, t.records.as_bytes())?;
        t.report
    } else {
        let alphabet = a.read.alphabet()?;
        let d = a.read.load(&a.input, &alphabet)?;
        // the report names the column, never the file's path
        let name = a.read.column.clone().unwrap_or_else(|| "records".into());
        let t = twin_strings(d.records(), &options, &mut rng, &name).in_file(&a.input)?;
        let mut text = t.records.join("\n");
        text.push('\n');
        io::write_atomic(&a.out, text.as_bytes())?;
        t.report
    };
    let rp = report_path(&a.out, a.report.as_ref());
    let json = serde_json::to_string_pretty(&report).map_err(|e| io::CliError::failed(e.to_string()))?;
    io::write_atomic(&rp, json.as_bytes())?;
    print_summary(&report);
    eprintln!("synthetic twin -> {} (report {})", a.out.display(), rp.display());
    Ok(())
}

/// The report in a few lines.
pub fn print_summary(r: &TwinReport) {
    println!(
        "SYNTHETIC twin: {} rows from {} (not differentially private; see the report's guarantees)",
        r.twin_rows, r.source_rows
    );
    for f in &r.fields {
        let nn = &f.nearest_neighbour;
        println!(
            "  {:<14} condensation k={}: {} groups (smallest {}), {} suppressed; composition L1 {:.4}; equal to a real value {:.1}%; nearest real string: mean {:.2} edits, histogram 0/1/2/3/4+ {:?} of {}",
            f.name, r.condense.k, f.groups, f.min_group, f.suppressed, f.composition_l1, 100.0 * f.equal_to_real, nn.mean, nn.histogram, nn.sample
        );
    }
    if let Some(c) = &r.categorical {
        println!(
            "  categorical {:?}: KRIMP min_sup {}: {} candidates, code table {} sets, compression {:.3}; dissimilarity {:.3}, AS {:.4}, NAS {:.3}",
            c.columns,
            r.krimp.as_ref().map_or(0, |k| k.min_sup),
            c.candidates,
            c.code_table_size,
            c.compression_ratio,
            c.evaluation.dissimilarity,
            c.evaluation.anonymity_score,
            c.evaluation.normalized_anonymity_score
        );
    }
    if let Some(e) = r.rows_equal_to_real {
        println!("  rows equal to a real record on every field: {:.2}%", 100.0 * e);
    }
}
