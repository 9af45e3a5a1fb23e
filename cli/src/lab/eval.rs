//! `gramlink lab eval`: the evaluation scenario (docs/SCENARIO.md), where B is
//! a corrupted copy of A's data and the truth is known, or (`--schema`) two
//! record files of one's own scored against their truth.

use crate::io::{self, CliError, Result};
use crate::linkage::TruthArg;
use crate::options::{flags_of, ConfigFlags, MineFlags, PresetArg, RuleFlag, ThresholdFlags};
use crate::progress_bar::Bar;
use clap::Args;
use gramlink::clock::SystemClock;
use gramlink::eval::scenario::{run_scenario, ScenarioOptions};
use gramlink::matching::Rule;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Args)]
pub struct EvalArgs {
    #[command(flatten)]
    scenario: ScenarioFlags,
    /// Score two files of one's own instead: a linkage schema (TOML or JSON),
    /// party A's and B's CSV files (positional) and --truth.
    #[arg(long, requires = "truth", requires = "files",
          conflicts_with_all = flags_of!(ScenarioFlags, PresetArg, MineFlags, ThresholdFlags, RuleFlag))]
    schema: Option<PathBuf>,
    /// With --schema: party A's and party B's CSV files.
    #[arg(num_args = 2, value_names = ["A", "B"], requires = "schema")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    truth: TruthArg,
    /// With --schema: also write the pairs (M and P) as CSV.
    #[arg(long, short, requires = "schema")]
    out: Option<PathBuf>,
    #[command(flatten)]
    config: ConfigFlags,
    /// Both parties share a key (drawn from the seed: an experiment) and apply
    /// the keyed encoding (--encoding): the default, as a real linkage runs.
    #[arg(long, conflicts_with = "no_key")]
    keyed: bool,
    /// Unkeyed vectors instead (what the matcher can read back: docs/THREAT_MODEL.md).
    #[arg(long)]
    no_key: bool,
    /// The seed of every random step (the scenario is an experiment). [default: 42]
    #[arg(long)]
    seed: Option<u64>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// The scenario's own data: one string a record, B a corrupted copy of A.
#[derive(Args)]
struct ScenarioFlags {
    /// Party A's dataset (one record a line); B is a corrupted copy.
    #[arg(long, required_unless_present = "schema")]
    data: Option<PathBuf>,
    /// The prefix tree's depth from the data's rounded mean record length, as
    /// docs/SCENARIO.md defines it (the scenario's data are public), instead of
    /// the configuration's (--hmax).
    #[arg(long, conflicts_with = "hmax")]
    mean_hmax: bool,
    /// Edits per record of B's corrupted copy [default: --ed's number, 1 with --ed auto].
    #[arg(long)]
    corrupt_ed: Option<u32>,
}

pub fn cmd_eval(a: EvalArgs) -> Result<()> {
    if let Some(schema) = &a.schema {
        return crate::records::run(crate::records::RecordRun {
            date_formats: [&[], &[]],
            schema,
            a: &a.files[0],
            b: &a.files[1],
            truth: a.truth.truth.as_deref(),
            seed: a.seed,
            keyed: !a.no_key,
            encoding: a.config.encoding,
            key: None,
            out: a.out.as_deref(),
            json: a.json,
        });
    }
    let data = a.scenario.data.as_ref().ok_or_else(|| CliError::usage("--data or --schema is required"))?;
    let alphabet = gramlink::alphabet::Alphabet::default();
    let d = io::load_dataset(data, gramlink::dataset::FormatHint::Text, None, None, &alphabet)?;
    let config = a.config.config()?;
    let options = ScenarioOptions {
        seed: a.seed.unwrap_or(42),
        mean_h_max: a.scenario.mean_hmax,
        sample: 10,
        keyed: !a.no_key,
        corrupt_ed: a.scenario.corrupt_ed,
        ..ScenarioOptions::new(config)
    };
    let clock = SystemClock::default();
    let r = run_scenario(d.records(), &alphabet, &options, &clock, &mut Bar::new())?;
    let c = &options.config;
    if a.json {
        let v = serde_json::json!({
            "precision": r.precision, "recall": r.recall, "f1": r.f1, "pairs": r.pairs,
            "true_pairs": r.true_pairs, "candidates": r.candidates, "n": r.n,
            "true_outside_threshold": r.true_outside_threshold, "mean_threshold": r.mean_threshold,
            "h_max": r.h_max, "fingerprint": r.fingerprint, "timings_ms": r.timings_ms,
            "other_rule": r.other_rule, "ed": c.thresholds.ed, "corrupt_ed": options.ed(), "cutoff": r.cutoff,
            "keyed": options.keyed, "encoding": c.encoding,
        });
        println!("{v}");
        return Ok(());
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} records, B with {} edits each, {}, ed {}, seed {}, {} {} ε={} k={} q∈[{},{}] h_max={}, threshold {}, rule {}{}",
        r.n,
        options.ed(),
        if options.keyed { format!("keyed ({})", c.encoding) } else { "unkeyed (--no-key)".into() },
        c.thresholds.ed,
        options.seed,
        c.mine.miner.name(),
        c.mine.strategy.name(),
        c.mine.epsilon,
        c.mine.k,
        c.mine.q_min,
        c.mine.q_max,
        r.h_max,
        c.thresholds.mode.name(),
        c.rule.name(),
        match (c.mine.public_q, c.mine.padding) {
            (None, false) => String::new(),
            (q, p) => format!(
                ", public {}-grams{}, {} dims",
                q.map_or("no".into(), |q| q.to_string()),
                if p { " + padding" } else { "" },
                r.base.len()
            ),
        }
    );
    if let Some(cut) = &r.cutoff {
        let _ = writeln!(s, "{}", cut.describe());
    }
    let _ = writeln!(s, "precision {:.4}  recall {:.4}  F1 {:.4}", r.precision, r.recall, r.f1);
    let o = &r.other_rule;
    let _ = writeln!(
        s,
        "(with {}: precision {:.4}  recall {:.4}  F1 {:.4})",
        if c.rule == Rule::All { "greedy one-to-one" } else { "every candidate pair" },
        o.precision,
        o.recall,
        o.f1
    );
    let _ = writeln!(
        s,
        "pairs {}  true pairs {}  candidates {} of {} ({:.4}%)",
        r.pairs,
        r.true_pairs,
        r.candidates,
        r.n as f64 * r.n as f64,
        100.0 * r.candidates as f64 / (r.n as f64 * r.n as f64)
    );
    let _ = writeln!(
        s,
        "true pairs outside A's threshold: {} ({:.2}%), mean threshold {:.3}",
        r.true_outside_threshold,
        100.0 * r.true_outside_threshold as f64 / r.n as f64,
        r.mean_threshold
    );
    let total: f64 = r.timings_ms.values().sum();
    let _ = writeln!(
        s,
        "time {:.0} ms: {}",
        total,
        r.timings_ms.iter().map(|(k, v)| format!("{k} {v:.0}")).collect::<Vec<_>>().join(", ")
    );
    print!("{s}");
    Ok(())
}
