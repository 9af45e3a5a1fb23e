//! `gramlink lab`: what measures gramlink rather than links with it — the
//! paper's experiments, the evaluation scenario, the matcher's attacks, the
//! benchmarks of Kuzu et al.'s protocol, KRIMP's own measures. No data owner or
//! matcher runs these in a real linkage, so `gramlink --help` does not list them.

mod attack;
mod attack_algebra;
mod corrupt;
mod corrupt_parties;
mod eval;
mod experiment;
mod frontier;
mod krimp;
mod kuzu_eval;
mod levers;
mod mine_utility;
mod paper_figures;
mod results;

use crate::io::Result;
use clap::{Args, Subcommand};

#[derive(Args)]
pub struct LabArgs {
    #[command(subcommand)]
    command: LabCommand,
}

#[derive(Subcommand)]
enum LabCommand {
    /// The evaluation scenario (docs/SCENARIO.md): B is a corrupted copy of the data; prints F1.
    Eval(eval::EvalArgs),
    /// Write party A's records and B's corrupted copy (docs/SCENARIO.md) as two CSV files.
    Corrupt(corrupt::CorruptArgs),
    /// Mining utility (paper Figure 4): share of the exact top-k each miner finds.
    MineUtility(mine_utility::UtilityArgs),
    /// The paper's experiments (Figures 4–10): CSV, SVG and a table each, under docs/results.
    Experiment(experiment::ExperimentArgs),
    /// Regenerate docs/RESULTS.md (the F1 table of NAMES and CITIES).
    Results(results::ResultsArgs),
    /// F1 of each linkage-quality lever (docs/RESULTS.md, "Levers") on CITIES and NAMES, ed 0–2.
    Levers(levers::LeversArgs),
    /// The matcher's attacks on A's vectors (dictionary, frequency, norm, reconstruction, axis recovery), without and with the key.
    Attack(attack::AttackArgs),
    /// The labelling, pattern-mining and graph-matching attacks on A's batch under each candidate encoding (docs/THREAT_MODEL.md's frontier).
    Frontier(frontier::FrontierArgs),
    /// KRIMP on a categorical CSV: code table, compression, and generated databases' dissimilarity, AS and NAS.
    Krimp(krimp::KrimpArgs),
    /// Kuzu et al.'s protocol, every role on two local files; prints precision, recall, F1, RR, PC, time and bytes per role.
    KuzuEval(kuzu_eval::EvalArgs),
    /// Speed of each of Kuzu et al.'s roles' operations (encryptions/s, comparisons/s, decisions/s) per key size.
    KuzuBench(kuzu_eval::BenchArgs),
}

pub fn cmd_lab(a: LabArgs) -> Result<()> {
    match a.command {
        LabCommand::Eval(a) => eval::cmd_eval(a),
        LabCommand::Corrupt(a) => corrupt::cmd_corrupt(a),
        LabCommand::MineUtility(a) => mine_utility::cmd_mine_utility(a),
        LabCommand::Experiment(a) => experiment::cmd_experiment(a),
        LabCommand::Results(a) => results::cmd_results(a),
        LabCommand::Levers(a) => levers::cmd_levers(a),
        LabCommand::Attack(a) => attack::cmd_attack(a),
        LabCommand::Frontier(a) => frontier::cmd_frontier(a),
        LabCommand::Krimp(a) => krimp::cmd_krimp(a),
        LabCommand::KuzuEval(a) => kuzu_eval::cmd_eval(a),
        LabCommand::KuzuBench(a) => kuzu_eval::cmd_bench(a),
    }
}
