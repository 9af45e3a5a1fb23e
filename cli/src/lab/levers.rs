//! `gramlink lab levers`: F1 (precision, recall) of each linkage-quality lever
//! (src/research/levers.rs) on CITIES and a seeded NAMES subset, ed 0–2; writes a CSV and a
//! Markdown section (docs/results/levers.csv, docs/results/levers.md).

use crate::io::{self, Result};
use clap::Args;
use gramlink::alphabet::Alphabet;
use gramlink::clock::SystemClock;
use gramlink::eval::scenario::{run_scenario, ScenarioOptions};
use gramlink::progress::NoProgress;
use gramlink::research::levers::{levers, subset};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Args)]
pub struct LeversArgs {
    /// The CITIES list, one city a line.
    #[arg(long, default_value = "data/cities.txt")]
    cities: PathBuf,
    /// The NAMES list, one name a line.
    #[arg(long, default_value = "data/names.txt")]
    names: PathBuf,
    /// NAMES records used (a seeded random subset).
    #[arg(long, default_value_t = 20_000)]
    names_n: usize,
    /// Seed of the scenario and the subset: reproducible, NOT private.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Comma-separated edits per record of party B's copy.
    #[arg(long, value_delimiter = ',', default_values_t = vec![0, 1, 2])]
    eds: Vec<u32>,
    /// Only these levers (0-based indexes in the table's order).
    #[arg(long, value_delimiter = ',')]
    only: Vec<usize>,
    /// Where to write the table as CSV.
    #[arg(long, default_value = "docs/results/levers.csv")]
    csv: PathBuf,
    /// Where to write the table as a Markdown section.
    #[arg(long, default_value = "docs/results/levers.md")]
    md: PathBuf,
}

pub fn cmd_levers(a: LeversArgs) -> Result<()> {
    let alphabet = Alphabet::default();
    let cities = io::load_dataset(&a.cities, gramlink::dataset::FormatHint::Text, None, None, &alphabet)?;
    let names = io::load_dataset(&a.names, gramlink::dataset::FormatHint::Text, None, None, &alphabet)?;
    let names_sub = subset(names.records(), a.names_n, a.seed);
    let sets: [(String, &[String]); 2] =
        [("CITIES".into(), cities.records()), (format!("NAMES {}", names_sub.len()), &names_sub)];
    let all = levers();
    let chosen: Vec<usize> = if a.only.is_empty() { (0..all.len()).collect() } else { a.only.clone() };
    if let Some(bad) = chosen.iter().find(|&&i| i >= all.len()) {
        return Err(io::CliError::usage(format!(
            "--only {bad}: there are {} levers (0..{})",
            all.len(),
            all.len() - 1
        )));
    }
    let mut csv = String::from("lever,name,dataset,n,ed,precision,recall,f1,pairs,candidates,dims,ms\n");
    let mut md = String::new();
    let _ = writeln!(
        md,
        "| # | lever | dims | {} |",
        sets.iter().flat_map(|(l, _)| a.eds.iter().map(move |e| format!("{l} ed {e}"))).collect::<Vec<_>>().join(" | ")
    );
    let _ = writeln!(md, "|---|---|---|{}", "---|".repeat(sets.len() * a.eds.len()));
    for &i in &chosen {
        let lever = &all[i];
        let mut cells = Vec::new();
        let mut dims = 0;
        for (label, recs) in &sets {
            for &ed in &a.eds {
                let o = ScenarioOptions { seed: a.seed, ..lever.options.clone() }.with(|c| c.thresholds.ed = ed.into());
                let clock = SystemClock::default();
                let t = std::time::Instant::now();
                match run_scenario(recs, &alphabet, &o, &clock, &mut NoProgress) {
                    Ok(r) => {
                        let ms = t.elapsed().as_secs_f64() * 1000.0;
                        dims = r.base.len();
                        let _ = writeln!(
                            csv,
                            "{i},\"{}\",{label},{},{ed},{:.4},{:.4},{:.4},{},{},{},{:.0}",
                            lever.name, r.n, r.precision, r.recall, r.f1, r.pairs, r.candidates, dims, ms
                        );
                        cells.push(format!("{:.3} ({:.3}, {:.3})", r.f1, r.precision, r.recall));
                        eprintln!(
                            "[{i}] {label} ed {ed}: F1 {:.4} (P {:.4}, R {:.4}) {:.1}s — {}",
                            r.f1,
                            r.precision,
                            r.recall,
                            ms / 1000.0,
                            lever.name
                        );
                    }
                    Err(e) => {
                        let _ = writeln!(csv, "{i},\"{}\",{label},{},{ed},,,,,,,", lever.name, recs.len());
                        cells.push(format!("error: {e}"));
                        eprintln!("[{i}] {label} ed {ed}: {e}");
                    }
                }
            }
        }
        let _ = writeln!(md, "| {i} | {} | {dims} | {} |", lever.name, cells.join(" | "));
    }
    for p in [&a.csv, &a.md] {
        if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| io::CliError::io(format!("cannot create {}: {e}", dir.display())))?;
        }
    }
    io::write_atomic(&a.csv, csv.as_bytes())?;
    io::write_atomic(&a.md, md.as_bytes())?;
    print!("{md}");
    eprintln!("-> {}, {}", a.csv.display(), a.md.display());
    Ok(())
}
