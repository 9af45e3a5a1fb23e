//! The paper's experiments (section 7, Figures 4–10), as data: each figure is a
//! list of panels, each panel a list of series of points averaged over seeded runs
//! with their spread (min and max). The CLI (`gramlink lab experiment`) writes them as
//! CSV and draws them as SVG. Seeded: experiments, not private runs.
//!
//! Native only (timings and rayon); the wasm build does not need it.

mod baseline;
mod data;
mod figure;
mod linkage;
mod mining;
mod sweep;

pub use data::ExperimentData;
pub use figure::{Figure, Mark, Panel, Point, Series};
pub use sweep::{sweep, Sweep};

use crate::error::Error;
use crate::progress::Progress;

/// The figures, in the paper's order.
pub const FIGURES: [&str; 7] = ["fig4", "fig5", "fig6", "fig7", "fig8", "fig9", "fig10"];

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
    use crate::alphabet::Alphabet;

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
