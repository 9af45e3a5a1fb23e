//! A figure as data: panels of series of points, each point a mean over seeded
//! runs with its spread; written as CSV and as markdown tables.

use crate::error::Error;
use serde::Serialize;
use std::fmt::Write as _;

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
    pub(super) fn new(title: impl Into<String>, x_label: &str, y_label: &str) -> Panel {
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
    pub(super) fn push(&mut self, name: &str, point: Point) {
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
