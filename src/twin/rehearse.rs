//! A rehearsal on twins: pick the linkage configuration on synthetic data, and
//! measure what that choice costs on the real data.
//!
//! One string column: each twin plays party A of the evaluation scenario
//! (docs/SCENARIO.md: party B holds a copy with random edits per record, in a
//! seeded order, so the truth is known; the edits are the scenario's fixed
//! number, or the rates observed between the real files or passed by the
//! user, [`Corruption`] and [`super::observed`]); every configuration of a
//! grid runs on each twin, and the one with the best mean F1 is chosen. The
//! evaluation runs the same grid on the real data the same way and reports
//! the F1 of the twin's choice against the F1 of the best real choice.

use crate::alphabet::Alphabet;
use crate::clock::Clock;
use crate::config::Config;
use crate::error::Error;
use crate::eval::scenario::{run_scenario, ScenarioOptions};
use crate::matching::Rule;
use crate::progress::Progress;
use crate::threshold::ThresholdMode;
use serde::{Deserialize, Serialize};

/// A configuration of the grid, with its label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    pub label: String,
    pub config: Config,
}

/// The grid: the recommended configuration with the thresholds' edit distance
/// 0, 1 or 2 and each of: rule `ranked` with sound or paper thresholds; rules
/// `greedy`, `nearest` and `all` with the paper's thresholds. (`all` and
/// `greedy` with the sound thresholds are left out: on NAMES they make tens of
/// millions of candidate pairs at ed 2 and are never best.)
pub fn default_grid() -> Vec<Choice> {
    let mut grid = Vec::new();
    for ed in 0..=2 {
        for (rule, mode) in [
            (Rule::Ranked, ThresholdMode::Sound),
            (Rule::Ranked, ThresholdMode::Paper),
            (Rule::Greedy, ThresholdMode::Paper),
            (Rule::Nearest, ThresholdMode::Paper),
            (Rule::All, ThresholdMode::Paper),
        ] {
            let mut config = Config::recommended().with_ed(ed);
            config.rule = rule;
            config.thresholds.mode = mode.clone();
            grid.push(Choice { label: format!("ed {ed}, {} thresholds, rule {}", mode.name(), rule.name()), config });
        }
    }
    grid
}

/// How party B's copy is corrupted in the rehearsal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Corruption {
    /// Every record with this many edits (the scenario's corruption).
    Edits(u32),
    /// `rates[e]` of the records with `e` edits (as observed, or as the user says).
    Rates(Vec<f64>),
}

impl Corruption {
    /// Refuses rates that are not shares ≥ 0 with a positive sum.
    pub fn validate(&self) -> Result<(), Error> {
        if let Corruption::Rates(r) = self {
            if r.is_empty() || r.iter().any(|x| !(x.is_finite() && *x >= 0.0)) || r.iter().sum::<f64>() <= 0.0 {
                return Err(Error::Parameter(format!(
                    "rehearsal: corruption rates must be shares ≥ 0 of 0, 1, 2, … edits with a positive sum, not {r:?}"
                )));
            }
        }
        Ok(())
    }

    /// In words, for tables.
    pub fn describe(&self) -> String {
        match self {
            Corruption::Edits(e) => format!("{e} edits"),
            Corruption::Rates(r) => {
                let parts: Vec<String> = r.iter().enumerate().map(|(e, x)| format!("{:.0}% {e}", 100.0 * x)).collect();
                format!("edits as observed ({})", parts.join(", "))
            }
        }
    }
}

/// One configuration's F1 on each data set, and their mean.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GridRow {
    pub label: String,
    pub f1: Vec<f64>,
    pub mean_f1: f64,
}

/// Runs every choice of `grid` on every set of `sets` (each as party A of the
/// scenario with `corruption`, seed `seed`).
pub fn run_grid(
    sets: &[&[String]],
    alphabet: &Alphabet,
    grid: &[Choice],
    corruption: &Corruption,
    seed: u64,
    clock: &dyn Clock,
    progress: &mut dyn Progress,
) -> Result<Vec<GridRow>, Error> {
    corruption.validate()?;
    let mut rows = Vec::with_capacity(grid.len());
    for choice in grid {
        let (corrupt_ed, corrupt_rates) = match corruption {
            Corruption::Edits(e) => (Some(*e), None),
            Corruption::Rates(r) => (None, Some(r.clone())),
        };
        let options = ScenarioOptions {
            seed,
            sample: 0,
            corrupt_ed,
            corrupt_rates,
            ..ScenarioOptions::new(choice.config.clone())
        };
        let mut f1 = Vec::with_capacity(sets.len());
        for set in sets {
            f1.push(run_scenario(set, alphabet, &options, clock, progress)?.f1);
        }
        let mean_f1 = f1.iter().sum::<f64>() / f1.len().max(1) as f64;
        rows.push(GridRow { label: choice.label.clone(), f1, mean_f1 });
    }
    Ok(rows)
}

/// The row with the best mean F1 (the first on ties: the grid's order).
pub fn best(rows: &[GridRow]) -> Option<usize> {
    (0..rows.len()).fold(None, |b, i| match b {
        Some(j) if rows[j].mean_f1 >= rows[i].mean_f1 => Some(j),
        _ => Some(i),
    })
}

/// A rehearsal evaluated on the real data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RehearsalEvaluation {
    /// The corruption of the rehearsal on the twins, and of the evaluation on
    /// the real data (the true one when it is known, else the same).
    pub corruption: Corruption,
    pub real_corruption: Corruption,
    pub on_twins: Vec<GridRow>,
    pub on_real: Vec<GridRow>,
    /// The choice made on the twins, and its F1 on the real data.
    pub twin_choice: String,
    pub twin_choice_real_f1: f64,
    /// The choice made on the real data, and its F1 there.
    pub real_choice: String,
    pub real_choice_f1: f64,
    /// `real_choice_f1 − twin_choice_real_f1` (≥ 0).
    pub f1_loss: f64,
}

/// Compares the choice on the twins' grid with the choice on the real grid
/// (the same grid, in the same order).
pub fn evaluate(
    corruption: Corruption,
    real_corruption: Corruption,
    on_twins: Vec<GridRow>,
    on_real: Vec<GridRow>,
) -> Result<RehearsalEvaluation, Error> {
    let none = || Error::Parameter("rehearsal: the grid is empty".into());
    let (t, r) = (best(&on_twins).ok_or_else(none)?, best(&on_real).ok_or_else(none)?);
    if on_twins.len() != on_real.len() {
        return Err(Error::Parameter("rehearsal: the twins' and the real grids differ".into()));
    }
    Ok(RehearsalEvaluation {
        corruption,
        real_corruption,
        twin_choice: on_twins[t].label.clone(),
        twin_choice_real_f1: on_real[t].mean_f1,
        real_choice: on_real[r].label.clone(),
        real_choice_f1: on_real[r].mean_f1,
        f1_loss: on_real[r].mean_f1 - on_real[t].mean_f1,
        on_twins,
        on_real,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(label: &str, f1: f64) -> GridRow {
        GridRow { label: label.into(), f1: vec![f1], mean_f1: f1 }
    }

    #[test]
    fn the_loss_is_what_the_twins_choice_gives_up_on_real_data() {
        let twins = vec![row("a", 0.5), row("b", 0.9), row("c", 0.9)];
        let real = vec![row("a", 0.8), row("b", 0.7), row("c", 0.95)];
        let e = evaluate(Corruption::Edits(1), Corruption::Edits(1), twins, real).unwrap();
        assert_eq!((e.twin_choice.as_str(), e.real_choice.as_str()), ("b", "c"));
        assert!((e.f1_loss - 0.25).abs() < 1e-12);
        assert!(evaluate(Corruption::Edits(1), Corruption::Edits(1), vec![], vec![]).is_err());
    }

    #[test]
    fn grid_runs_on_small_sets() {
        let names: Vec<String> = include_str!("../../data/names.txt").lines().take(300).map(String::from).collect();
        let grid: Vec<Choice> = default_grid()
            .into_iter()
            .filter(|c| c.config.thresholds.ed == crate::config::Ed::Fixed(1))
            .take(2)
            .collect();
        let clock = crate::clock::NoClock;
        let mut np = crate::progress::NoProgress;
        let rows = run_grid(&[&names], &Alphabet::default(), &grid, &Corruption::Edits(1), 7, &clock, &mut np).unwrap();
        assert_eq!(rows.len(), 2);
        // the recommended configuration links 300 names at one edit nearly perfectly
        assert!(rows[0].mean_f1 > 0.9 && rows.iter().all(|r| r.mean_f1 <= 1.0), "{rows:?}");
        assert_eq!(best(&rows), Some(0));
        // observed rates: all records untouched links perfectly; bad rates are named
        let clean = Corruption::Rates(vec![1.0, 0.0]);
        let rows = run_grid(&[&names], &Alphabet::default(), &grid[..1], &clean, 7, &clock, &mut np).unwrap();
        assert!(rows[0].mean_f1 > 0.98, "{rows:?}");
        let bad = Corruption::Rates(vec![0.0, -1.0]);
        let e = run_grid(&[&names], &Alphabet::default(), &grid[..1], &bad, 7, &clock, &mut np).unwrap_err();
        assert_eq!(e.code(), "INVALID_PARAMETER");
    }
}
