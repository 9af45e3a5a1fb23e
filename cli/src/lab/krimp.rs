//! `gramlink lab krimp`: KRIMP's code table of a categorical CSV, and databases
//! generated from it, measured as Vreeken et al. (ICDM 2007) measure them:
//! compression ratio, code-table size, dissimilarity, AS and NAS
//! ([`gramlink::twin::krimp`]).

use crate::io::{self, CliError, InFile, Result};
use clap::Args;
use gramlink::dp::Randomness;
use gramlink::twin::krimp::{CategoricalDb, KrimpModel, KrimpOptions};
use std::path::PathBuf;

#[derive(Args)]
pub struct KrimpArgs {
    /// A CSV with a header; every value is a category (empty: its own category).
    input: PathBuf,
    /// The columns to use (comma-separated) [default: all].
    #[arg(long, value_delimiter = ',')]
    columns: Vec<String>,
    /// Candidates: value combinations held by at least this many rows (comma-separated: one run each) [default: 5].
    #[arg(long, value_delimiter = ',')]
    min_sup: Vec<usize>,
    /// The generator's Laplace correction [default: 0.001].
    #[arg(long)]
    laplace: Option<f64>,
    /// Generated databases per min_sup (the paper averages 10).
    #[arg(long, default_value_t = 10)]
    runs: u64,
    /// Seed of the generated databases.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Print JSON (one object per min_sup) instead of the text report.
    #[arg(long)]
    json: bool,
    /// Also compare the frequent item sets of generated and original (the
    /// paper's Table 1; costly at a low min_sup on many columns).
    #[arg(long)]
    patterns: bool,
}

fn read(a: &KrimpArgs) -> Result<CategoricalDb> {
    let text = io::read_text(&a.input)?;
    let mut r = csv::ReaderBuilder::new().has_headers(true).trim(csv::Trim::All).from_reader(text.as_bytes());
    let header: Vec<String> =
        r.headers().map_err(|e| CliError::failed(e.to_string()))?.iter().map(String::from).collect();
    let cols: Vec<usize> = if a.columns.is_empty() {
        (0..header.len()).collect()
    } else {
        a.columns
            .iter()
            .map(|c| {
                header.iter().position(|h| h == c).ok_or_else(|| {
                    CliError::from(gramlink::error::InputError::MissingColumn {
                        column: c.clone(),
                        available: header.join(", "),
                    })
                })
            })
            .collect::<Result<_>>()?
    };
    let mut rows = Vec::new();
    for (i, row) in r.records().enumerate() {
        let row = row.map_err(|e| gramlink::error::InputError::Csv { record: i + 1, reason: e.to_string() })?;
        rows.push(cols.iter().map(|&c| row.get(c).unwrap_or("").to_string()).collect());
    }
    let names: Vec<String> = cols.iter().map(|&c| header[c].clone()).collect();
    CategoricalDb::new(&names, &rows, &a.input.display().to_string()).in_file(&a.input)
}

pub fn cmd_krimp(a: KrimpArgs) -> Result<()> {
    if a.runs == 0 {
        return Err(CliError::usage("--runs must be at least 1"));
    }
    let db = read(&a)?;
    let mut out = Vec::new();
    let min_sups = if a.min_sup.is_empty() { vec![KrimpOptions::default().min_sup] } else { a.min_sup.clone() };
    for &min_sup in &min_sups {
        let mut options = KrimpOptions { min_sup, ..Default::default() };
        if let Some(l) = a.laplace {
            options.laplace = l;
        }
        let model = KrimpModel::fit(db.clone(), &options)?;
        let mut rng = Randomness::seeded(a.seed);
        let (mut ds, mut as_, mut nas, mut internal) = (0.0, 0.0, 0.0, 0.0);
        // Table 1's frequent pattern set comparison, and Figure 2's uncorrelated generation
        let (mut eq, mut gen_orig, mut diff, mut new, mut ds_unc) = (0.0, 0.0, 0.0, 0.0, 0.0);
        let uncorrelated = model.uncorrelated();
        let original_sets = if a.patterns { model.frequent_sets()? } else { Default::default() };
        // its own stream, so the correlated runs draw as before
        let mut rng_unc = Randomness::seeded(a.seed.wrapping_add(1));
        for _ in 0..a.runs {
            let g = model.generate(db.rows.len(), &mut rng);
            let e = model.evaluate(&g)?;
            if a.patterns {
                let p = model.compare_patterns(&original_sets, &g)?;
                eq += p.equal;
                gen_orig += p.generated_original;
                diff += p.avg_sup_diff_equal;
                new += p.avg_sup_new;
            }
            let u = uncorrelated.generate(db.rows.len(), &mut rng_unc);
            ds_unc += model.evaluate(&u)?.dissimilarity;
            ds += e.dissimilarity;
            as_ += e.anonymity_score;
            nas += e.normalized_anonymity_score;
            internal += model.internal_dissimilarity(&mut rng)?;
        }
        let r = a.runs as f64;
        out.push(serde_json::json!({
            "minSup": min_sup, "rows": db.rows.len(), "columns": db.columns.len(), "items": db.items.len(),
            "candidates": model.table.candidates, "codeTableSize": model.table.non_singletons(),
            "compressionRatio": model.table.ratio(), "dissimilarity": ds / r, "origInternal": internal / r,
            "anonymityScore": as_ / r, "normalizedAnonymityScore": nas / r, "runs": a.runs,
            "uncorrelatedDissimilarity": ds_unc / r,
            "patterns": a.patterns.then(|| serde_json::json!({
                "equal": eq / r, "generatedOriginal": gen_orig / r, "avgSupDiffEqual": diff / r, "avgSupNew": new / r,
            })),
        }));
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return Ok(());
    }
    println!(
        "{}: {} rows, {} columns, {} items; means over {} generated databases",
        a.input.display(),
        db.rows.len(),
        db.columns.len(),
        db.items.len(),
        a.runs
    );
    println!("| min_sup | candidates | code table | L(D,CT)/L(D,ST) | dissimilarity | orig. internal | AS | NAS |");
    println!("|---|---|---|---|---|---|---|---|");
    for v in &out {
        println!(
            "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.4} | {:.3} |",
            v["minSup"],
            v["candidates"],
            v["codeTableSize"],
            v["compressionRatio"].as_f64().unwrap_or(0.0),
            v["dissimilarity"].as_f64().unwrap_or(0.0),
            v["origInternal"].as_f64().unwrap_or(0.0),
            v["anonymityScore"].as_f64().unwrap_or(0.0),
            v["normalizedAnonymityScore"].as_f64().unwrap_or(0.0)
        );
    }
    let f = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
    println!();
    println!("| min_sup | dissimilarity: uncorrelated / correlated | % equal item sets | % generated sets original | % avg sup diff equal | % avg sup new |");
    println!("|---|---|---|---|---|---|");
    for v in &out {
        let p = &v["patterns"];
        let pats = if p.is_null() {
            "| – | – | – | – |".to_string()
        } else {
            format!(
                "| {:.0} | {:.0} | {:.2} | {:.2} |",
                100.0 * f(&p["equal"]),
                100.0 * f(&p["generatedOriginal"]),
                f(&p["avgSupDiffEqual"]),
                f(&p["avgSupNew"])
            )
        };
        println!(
            "| {} | {:.3} / {:.3} {}",
            v["minSup"],
            f(&v["uncorrelatedDissimilarity"]),
            f(&v["dissimilarity"]),
            pats
        );
    }
    Ok(())
}
