//! The paper's experiments (section 7, Figures 4–10), as data: each figure is a
//! list of panels, each panel a list of series of points averaged over seeded runs
//! with their spread (min and max). The CLI (`gramlink lab experiment`) writes them as
//! CSV and draws them as SVG. Seeded: experiments, not private runs.
//!
//! Native only (timings and rayon); the wasm build does not need it.

mod baseline;
mod linkage;
mod mining;
mod sweep;

pub use sweep::{sweep, Sweep};

use crate::alphabet::Alphabet;
use crate::error::Error;
use crate::progress::Progress;
use serde::Serialize;
use std::fmt::Write as _;

/// The figures, in the paper's order.
pub const FIGURES: [&str; 7] = ["fig4", "fig5", "fig6", "fig7", "fig8", "fig9", "fig10"];

/// The data and the sizes of an experiment run.
#[derive(Debug, Clone)]
pub struct ExperimentData {
    pub alphabet: Alphabet,
    /// NAMES, normalized (all of it: Figure 9 takes its prefixes).
    pub names: Vec<String>,
    /// The other figures use the first `names_limit` names (None: all).
    pub names_limit: Option<usize>,
    /// CITIES, normalized.
    pub cities: Vec<String>,
    /// Seeded runs averaged per point.
    pub runs: u64,
    pub seed: u64,
    /// NAMES records for Figure 5 (its global-threshold sweep is all-pairs).
    pub fig5_names: usize,
    /// NAMES sizes for Figure 9 (each capped at the NAMES records given).
    pub fig9_sizes: Vec<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    pub x: f64,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub runs: usize,
}

impl Point {
    /// Mean, min and max of the runs' values.
    pub fn of(x: f64, values: &[f64]) -> Point {
        let n = values.len().max(1) as f64;
        Point {
            x,
            mean: values.iter().sum::<f64>() / n,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            runs: values.len(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    pub name: String,
    pub points: Vec<Point>,
}

/// A marked point (e.g. the personalized threshold in Figure 5).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mark {
    pub series: String,
    pub label: String,
    pub point: Point,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub series: Vec<Series>,
    pub marks: Vec<Mark>,
}

impl Panel {
    fn new(title: impl Into<String>, x_label: &str, y_label: &str) -> Panel {
        Panel {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            log_x: false,
            series: Vec::new(),
            marks: Vec::new(),
        }
    }

    /// Adds `point` to the series `name` (created on first use).
    fn push(&mut self, name: &str, point: Point) {
        match self.series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push(point),
            None => self.series.push(Series { name: name.into(), points: vec![point] }),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    pub name: String,
    pub title: String,
    pub panels: Vec<Panel>,
    /// Sizes and settings, for the reader.
    pub notes: Vec<String>,
}

impl Figure {
    /// One row per point: figure, panel, series, x, mean, min, max, runs.
    pub fn to_csv(&self) -> Result<String, Error> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let err = |e: csv::Error| Error::Parameter(format!("CSV: {e}"));
        w.write_record(["figure", "panel", "series", "x", "mean", "min", "max", "runs"]).map_err(err)?;
        for p in &self.panels {
            let mut row = |series: String, q: &Point| {
                w.write_record([
                    self.name.clone(),
                    p.title.clone(),
                    series,
                    format!("{}", q.x),
                    format!("{:.6}", q.mean),
                    format!("{:.6}", q.min),
                    format!("{:.6}", q.max),
                    q.runs.to_string(),
                ])
                .map_err(err)
            };
            for s in &p.series {
                for q in &s.points {
                    row(s.name.clone(), q)?;
                }
            }
            for m in &p.marks {
                row(format!("{} [{}]", m.series, m.label), &m.point)?;
            }
        }
        let bytes = w.into_inner().map_err(|e| Error::Parameter(format!("CSV: {e}")))?;
        String::from_utf8(bytes).map_err(|e| Error::Parameter(format!("CSV: {e}")))
    }

    /// A compact markdown table per panel (mean, and the min–max spread).
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        for p in &self.panels {
            let _ = writeln!(s, "*{}* — {} against {}\n", p.title, p.y_label, p.x_label);
            let mut xs: Vec<f64> = p.series.iter().flat_map(|s| s.points.iter().map(|q| q.x)).collect();
            xs.sort_by(f64::total_cmp);
            xs.dedup();
            let _ = write!(s, "| series |");
            for x in &xs {
                let _ = write!(s, " {x} |");
            }
            let _ = writeln!(s, "\n|---|{}", "---|".repeat(xs.len()));
            for se in &p.series {
                let _ = write!(s, "| {} |", se.name);
                for x in &xs {
                    match se.points.iter().find(|q| q.x == *x) {
                        Some(q) if q.runs > 1 && q.max > q.min => {
                            let _ = write!(s, " {:.3} ({:.3}–{:.3}) |", q.mean, q.min, q.max);
                        }
                        Some(q) => {
                            let _ = write!(s, " {:.3} |", q.mean);
                        }
                        None => s.push_str(" – |"),
                    }
                }
                s.push('\n');
            }
            for m in &p.marks {
                let _ = writeln!(s, "\n{} — {}: {:.3} at x = {:.3}", m.series, m.label, m.point.mean, m.point.x);
            }
            s.push('\n');
        }
        if !self.notes.is_empty() {
            for n in &self.notes {
                let _ = writeln!(s, "- {n}");
            }
            s.push('\n');
        }
        s
    }
}

impl ExperimentData {
    /// NAMES as the figures other than Figure 9 use it.
    pub fn names(&self) -> &[String] {
        &self.names[..self.names_limit.unwrap_or(usize::MAX).min(self.names.len())]
    }
}

/// Runs one figure by name.
pub fn run_figure(name: &str, data: &ExperimentData, progress: &mut dyn Progress) -> Result<Figure, Error> {
    if data.runs == 0 {
        return Err(Error::Parameter("experiments need at least one run".into()));
    }
    if data.names.is_empty() || data.cities.is_empty() {
        return Err(Error::Parameter("experiments need NAMES and CITIES records".into()));
    }
    match name {
        "fig4" => mining::fig4(data, progress),
        "fig5" => linkage::fig5(data, progress),
        "fig6" => linkage::fig6(data, progress),
        "fig7" => linkage::fig7(data, progress),
        "fig8" => linkage::fig8(data, progress),
        "fig9" => baseline::fig9(data, progress),
        "fig10" => baseline::fig10(data, progress),
        other => Err(Error::Parameter(format!("unknown figure {other:?} (one of {})", FIGURES.join(", ")))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn tiny() -> ExperimentData {
        let names = [
            "SMITH",
            "JOHNSON",
            "WILLIAMS",
            "BROWN",
            "JONES",
            "MILLER",
            "DAVIS",
            "GARCIA",
            "RODRIGUEZ",
            "WILSON",
            "MARTINEZ",
            "ANDERSON",
            "TAYLOR",
            "THOMAS",
            "HERNANDEZ",
            "MOORE",
            "MARTIN",
            "JACKSON",
            "THOMPSON",
            "WHITE",
        ];
        let cities = [
            "NEW YORK",
            "LOS ANGELES",
            "CHICAGO",
            "HOUSTON",
            "PHOENIX",
            "PHILADELPHIA",
            "SAN ANTONIO",
            "SAN DIEGO",
            "DALLAS",
            "SAN JOSE",
            "AUSTIN",
            "JACKSONVILLE",
        ];
        ExperimentData {
            alphabet: Alphabet::default(),
            names: names.iter().map(|s| s.to_string()).collect(),
            cities: cities.iter().map(|s| s.to_string()).collect(),
            names_limit: Some(18),
            runs: 2,
            seed: 1,
            fig5_names: 15,
            fig9_sizes: vec![10, 20],
        }
    }

    #[test]
    fn point_spread() {
        let p = Point::of(1.0, &[0.2, 0.4, 0.6]);
        assert!((p.mean - 0.4).abs() < 1e-12);
        assert_eq!((p.min, p.max, p.runs), (0.2, 0.6, 3));
    }

    #[test]
    fn every_figure_runs_on_tiny_data() {
        let d = tiny();
        for f in FIGURES {
            // private mining on 20 records may find no gram at all: a typed error, not a panic
            let fig = match run_figure(f, &d, &mut crate::progress::NoProgress) {
                Ok(fig) => fig,
                Err(Error::Base(_)) => continue,
                Err(e) => panic!("{f}: {e}"),
            };
            assert_eq!(fig.name, f);
            assert!(!fig.panels.is_empty(), "{f}");
            for p in &fig.panels {
                assert!(!p.series.is_empty(), "{f} {}", p.title);
                for s in &p.series {
                    for q in &s.points {
                        assert!(
                            q.mean.is_finite() && q.min <= q.mean + 1e-12 && q.mean <= q.max + 1e-12,
                            "{f} {} {}",
                            p.title,
                            s.name
                        );
                    }
                }
            }
            let csv = fig.to_csv().unwrap();
            assert!(csv.starts_with("figure,panel,series,x,mean,min,max,runs"));
            assert!(csv.lines().count() > 1);
            assert!(!fig.to_markdown().is_empty());
        }
        assert!(run_figure("fig11", &d, &mut crate::progress::NoProgress).is_err());
    }
}
