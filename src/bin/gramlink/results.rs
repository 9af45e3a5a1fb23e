//! `gramlink results`: regenerates docs/RESULTS.md — the docs/SCENARIO.md F1 table for
//! NAMES and CITIES, ed 0–2, FPM and prefix-tree hybrid, the paper's and the sound
//! threshold, each with the paper's rule and one-to-one.

use crate::io::{self, Result};
use clap::Args;
use gramlink::alphabet::Alphabet;
use gramlink::base::{MinerKind, Strategy};
use gramlink::clock::SystemClock;
use gramlink::config::Preset;
use gramlink::eval::scenario::{run_scenario, ScenarioOptions, ScenarioResult};
use gramlink::progress::NoProgress;
use gramlink::threshold::ThresholdMode;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Args)]
pub struct ResultsArgs {
    #[arg(long, default_value = "docs/RESULTS.md")]
    out: PathBuf,
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Run the sound threshold at ed 2 on this many NAMES records only (its range
    /// match returns hundreds of millions of pairs on all of them).
    #[arg(long, default_value_t = 20_000)]
    names_sound_ed2_limit: usize,
    /// The experiment tables (`gramlink experiment`, benches/peers/run.sh) to set
    /// beside the paper's figures.
    #[arg(long, default_value = "docs/results")]
    results_dir: PathBuf,
    /// Keep the F1 tables of the existing file and regenerate only the figures section.
    #[arg(long)]
    figures_only: bool,
}

struct Row {
    dataset: String,
    n: usize,
    miner: &'static str,
    threshold: &'static str,
    ed: u32,
    result: std::result::Result<ScenarioResult, String>,
}

pub fn cmd_results(a: ResultsArgs) -> Result<()> {
    if a.figures_only {
        let old = io::read_text(&a.out)?;
        let kept = old
            .split(crate::paper_figures::HEADING)
            .next()
            .unwrap_or(&old)
            .trim_end();
        let md = format!(
            "{kept}\n\n{}",
            crate::paper_figures::section(&a.results_dir)
        );
        io::write_atomic(&a.out, md.as_bytes())?;
        eprintln!("wrote {} (figures section only)", a.out.display());
        return Ok(());
    }
    let alphabet = Alphabet::default();
    let mut rows = Vec::new();
    let started = std::time::Instant::now();
    for (file, label) in [("data/cities.txt", "CITIES"), ("data/names.txt", "NAMES")] {
        let d = io::load_dataset(
            std::path::Path::new(file),
            gramlink::dataset::FormatHint::Text,
            None,
            None,
            &alphabet,
        )?;
        for ed in 0..=2u32 {
            for (miner, strategy, mname) in [
                (MinerKind::Fpm, Strategy::Hybrid, "FPM"),
                (
                    MinerKind::PrefixTree,
                    Strategy::Hybrid,
                    "prefix-tree hybrid",
                ),
            ] {
                for (mode, tname) in [
                    (ThresholdMode::Paper, "paper"),
                    (ThresholdMode::Sound, "sound"),
                ] {
                    let mut records = d.records();
                    if label == "NAMES" && ed == 2 && tname == "sound" {
                        records = &records[..a.names_sound_ed2_limit.min(records.len())];
                    }
                    let o = ScenarioOptions::scenario(Preset::Paper, ed, a.seed).with(|c| {
                        c.mine.miner = miner;
                        c.mine.strategy = strategy;
                        c.thresholds.mode = mode.clone();
                    });
                    eprintln!(
                        "[results] {label} ({} records) ed {ed} {mname} {tname} …",
                        records.len()
                    );
                    let result = run_scenario(
                        records,
                        &alphabet,
                        &o,
                        &SystemClock::default(),
                        &mut NoProgress,
                    )
                    .map_err(|e| e.to_string());
                    rows.push(Row {
                        dataset: label.into(),
                        n: records.len(),
                        miner: mname,
                        threshold: tname,
                        ed,
                        result,
                    });
                }
            }
        }
    }
    let mut md = render(
        &rows,
        a.seed,
        started.elapsed().as_secs_f64(),
        a.names_sound_ed2_limit,
    );
    md = format!(
        "{}\n\n{}",
        md.trim_end(),
        crate::paper_figures::section(&a.results_dir)
    );
    if let Some(dir) = a.out.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| io::CliError::io(format!("cannot create {}: {e}", dir.display())))?;
    }
    io::write_atomic(&a.out, md.as_bytes())?;
    eprintln!("wrote {}", a.out.display());
    Ok(())
}

fn cell(p: f64, r: f64, f: f64) -> String {
    format!("**{f:.3}** ({p:.3} / {r:.3})")
}

fn render(rows: &[Row], seed: u64, secs: f64, names_limit: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Results\n");
    let _ = writeln!(s, "Regenerated by `cargo run --release -- results` ({secs:.0} s on the machine that ran it). docs/SCENARIO.md: party B holds a corrupted copy of the data (exactly `ed` random edits per record) in a seeded random order; ε = 0.1 per party, k = 75, q ∈ [1, 3], h_max = round(mean length), seed {seed}. Cells: **F1** (precision / recall).\n");
    let _ = writeln!(s, "- *paper rule*: every B vector within A's threshold (equation 4); *one-to-one*: greedy by increasing distance on the same pairs.\n- *paper* threshold: Algorithm 2, faithfully (not an upper bound); *sound*: the proven personalized bound (src/threshold.rs).\n- *outside*: share of true pairs farther apart than A's threshold — missed by any rule.\n- NAMES at ed 2 with the sound threshold runs on the first {} names (column *n*): its range match returns about 40% of all pairs there, which on all 149,910 names would be billions of pairs.\n", names_limit);
    for ds in ["NAMES", "CITIES"] {
        let _ = writeln!(s, "## {ds}\n");
        let _ = writeln!(s, "| miner | threshold | ed | n | paper rule | one-to-one | outside | mean th | pairs | candidates (share of N²) | time |");
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|");
        for r in rows.iter().filter(|r| r.dataset == ds) {
            match &r.result {
                Ok(x) => {
                    // the grid runs the paper rule; one-to-one is the other rule on the same pairs
                    let one = &x.other_rule;
                    let time: f64 = x.timings_ms.values().sum();
                    let _ = writeln!(
                        s,
                        "| {} | {} | {} | {} | {} | {} | {:.1}% | {:.3} | {} | {} ({:.4}%) | {:.1} s |",
                        r.miner,
                        r.threshold,
                        r.ed,
                        r.n,
                        cell(x.precision, x.recall, x.f1),
                        cell(one.precision, one.recall, one.f1),
                        100.0 * x.true_outside_threshold as f64 / x.n as f64,
                        x.mean_threshold,
                        x.pairs,
                        x.candidates,
                        100.0 * x.candidates as f64 / (x.n as f64 * x.n as f64),
                        time / 1000.0
                    );
                }
                Err(e) => {
                    let _ = writeln!(
                        s,
                        "| {} | {} | {} | {} | failed: {e} | | | | | | |",
                        r.miner, r.threshold, r.ed, r.n
                    );
                }
            }
        }
        let _ = writeln!(s);
    }
    s += DISCUSSION;
    s
}

const DISCUSSION: &str = "## Against the paper, and why

The paper reports F1 ≈ 0.99 at ed 0, and 0.36 (NAMES) / 0.60 (CITIES) at ed 2 with the
personalized threshold. What this implementation measures differs for reasons that are
properties of the method as printed, not of this data:

- **ed 0.** Identical strings have identical vectors, so recall is 1; precision is lost
  only to distinct strings with identical vectors (anagram-like names over a base of
  short grams, e.g. AYALA / ALAYA), which the paper's rule must return. This matches the
  paper's 0.99.
- **The paper's threshold is not an upper bound.** An edit also *creates* base grams: a
  substitution changes two 1-gram coordinates, adding 2 to the squared distance, while
  D[i] of Algorithm 2 is at most about 1.83. The *outside* column is the share of true
  pairs that lie beyond A's threshold: they are lost whatever the rule. The sound
  threshold has 0% outside by construction (and by a property test).
- **The paper's rule returns every candidate within the threshold.** Precision then falls
  with the number of near neighbours: on NAMES a name has many neighbours within one
  edit's distance in the embedding (short grams, frequent letters), so precision is low
  and F1 with it. One-to-one assignment on the same pairs restores much of the
  precision; it is reported beside the paper's rule.
- **The sound threshold trades precision for recall.** It covers every string within ed
  edits, so recall is complete but the candidate sets grow; with one-to-one it is the
  better configuration at ed 1 and 2 on CITIES.
- **Small data and ε = 0.1.** The noisy counts of the prefix tree at level 1 have scale
  12/ε ≈ 120 under the hybrid strategy and θ ≈ 340; on 5,000 CITIES records many
  prefixes fall under θ, and FPM's 3-gram maxima are pure noise (its released counts
  subtract the noise floor, see src/mine/fpm.rs). The bases are then poorer than the
  non-private one; on NAMES (30× more records) the same ε costs far less.
- **The scenario is not tuned.** Seed 42, the defaults of docs/SCENARIO.md, one run per cell;
  B's order is a seeded permutation, so ties never favour the true pair.
";
