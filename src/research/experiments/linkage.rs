//! Figures 5–8: linkage quality (F1) of the docs/SCENARIO.md protocol against the global
//! threshold, the base size k, ε and ed. Every point is the mean of `runs` seeded
//! scenarios (seed, seed+1, …), with min and max.

use super::data::ExperimentData;
use super::figure::{Figure, Mark, Panel, Point};
use super::sweep::sweep;
use crate::alphabet::Alphabet;
use crate::base::{MinerKind, SharedBase, Strategy};
use crate::clock::NoClock;
use crate::config::Preset;
use crate::dataset::Dataset;
use crate::dp::Randomness;
use crate::embed::Vectors;
use crate::error::Error;
use crate::eval::scenario::{corrupted_copy, run_scenario, ScenarioOptions, ScenarioResult};
use crate::mine::MineOptions;
use crate::party::{merge_bases, DataOwner};
use crate::progress::{NoProgress, Progress};
use crate::threshold::{thresholds, ThresholdMode};

/// The miners the linkage figures compare (the paper's Figures 7 and 8).
pub(super) const MINERS: [(MinerKind, Strategy, &str); 4] = [
    (MinerKind::Fpm, Strategy::Hybrid, "FPM"),
    (MinerKind::PrefixTree, Strategy::Linear, "prefix-tree linear"),
    (MinerKind::PrefixTree, Strategy::Hybrid, "prefix-tree hybrid"),
    (MinerKind::Exact, Strategy::Hybrid, "exact (not private)"),
];

pub(super) fn scenario(records: &[String], alphabet: &Alphabet, o: &ScenarioOptions) -> Result<ScenarioResult, Error> {
    run_scenario(records, alphabet, o, &NoClock, &mut NoProgress)
}

/// Both parties' vectors over the shared base, as `run_scenario` makes them (the
/// same seeded streams), for sweeps that need the vectors themselves.
pub(super) struct Embedded {
    pub shared: SharedBase,
    pub a: Vectors,
    pub b: Vectors,
    pub truth: Vec<Option<u32>>,
}

/// B's records (empty ones left out) and the truth, from the scenario's streams.
pub(super) fn party_b(
    records: &[String],
    alphabet: &Alphabet,
    ed: u32,
    rng_corrupt: &mut Randomness,
) -> (Vec<String>, Vec<Option<u32>>) {
    let (b_all, truth_all) = corrupted_copy(records, ed, alphabet, rng_corrupt);
    let mut index = vec![u32::MAX; b_all.len()];
    let mut b = Vec::with_capacity(b_all.len());
    for (j, s) in b_all.into_iter().enumerate() {
        if !s.is_empty() {
            index[j] = b.len() as u32;
            b.push(s);
        }
    }
    let truth = truth_all.iter().map(|t| t.map(|j| index[j as usize]).filter(|&j| j != u32::MAX)).collect();
    (b, truth)
}

pub(super) fn embedded(records: &[String], alphabet: &Alphabet, o: &ScenarioOptions) -> Result<Embedded, Error> {
    let mut rng = Randomness::seeded(o.seed);
    let (mut rng_corrupt, rng_a, rng_b) = (rng.fork(), rng.fork(), rng.fork());
    let (b_records, truth) = party_b(records, alphabet, o.ed(), &mut rng_corrupt);
    // the figures reproduce the paper's base: mined grams only, no padding
    let mine = MineOptions {
        h_max: if o.mean_h_max { crate::eval::scenario::mean_record_length(records) } else { o.config.mine.h_max },
        padding: false,
        public_q: None,
        ..o.config.mine.clone()
    };
    let budget = mine.budget();
    let mut a = DataOwner::new(Dataset::from_normalized(records.to_vec(), alphabet), budget, rng_a)?;
    let mut b = DataOwner::new(Dataset::from_normalized(b_records, alphabet), budget, rng_b)?;
    let (na, nb) = (a.mine(&mine, &mut NoProgress)?, b.mine(&mine, &mut NoProgress)?);
    let shared = merge_bases(&na, &nb, &mine)?;
    let (va, vb) = (a.vectors(&shared, &mut NoProgress)?, b.vectors(&shared, &mut NoProgress)?);
    Ok(Embedded { shared, a: va, b: vb, truth })
}

fn datasets(d: &ExperimentData) -> [(&'static str, &[String]); 2] {
    [("NAMES", d.names()), ("CITIES", &d.cities[..])]
}

fn sizes_note(d: &ExperimentData) -> String {
    format!(
        "NAMES: {} records, CITIES: {} records; {} seeded runs per point (seeds {}…{}), min–max spread",
        d.names().len(),
        d.cities.len(),
        d.runs,
        d.seed,
        d.seed + d.runs - 1
    )
}

/// Figure 5: F1 against a global threshold, frequent against random grams, NAMES,
/// k = 100, ed 1 and 2; the paper's personalized threshold marked at its mean.
pub fn fig5(d: &ExperimentData, progress: &mut dyn Progress) -> Result<Figure, Error> {
    let records = &d.names()[..d.fig5_names.min(d.names().len())];
    let grid: Vec<f64> = (0..=24).map(|i| i as f64 * 0.25).collect();
    let mut panels = Vec::new();
    let total = 2 * 2 * d.runs;
    let mut step = 0;
    for ed in [1u32, 2] {
        let mut panel = Panel::new(format!("NAMES, ed = {ed}"), "global threshold", "F1");
        for (miner, name) in
            [(MinerKind::PrefixTree, "frequent grams (prefix-tree hybrid)"), (MinerKind::Random, "random grams")]
        {
            let mut per_t: Vec<Vec<f64>> = vec![Vec::new(); grid.len()];
            let (mut pf, mut pth) = (Vec::new(), Vec::new());
            for r in 0..d.runs {
                let o = ScenarioOptions::scenario(Preset::Paper, ed, d.seed + r).with(|c| {
                    c.mine.miner = miner;
                    c.mine.k = 100;
                });
                let e = embedded(records, &d.alphabet, &o)?;
                let th = thresholds(&e.shared, records, ed, &ThresholdMode::Paper)?;
                let s = sweep(&e.a, &e.b, &e.truth, &grid, Some(&th));
                for (k, q) in s.global.iter().enumerate() {
                    per_t[k].push(q.f1);
                }
                pf.push(s.personal.map(|q| q.f1).unwrap_or(0.0));
                pth.push(th.iter().sum::<f64>() / th.len() as f64);
                step += 1;
                progress.tick("fig5", step, total)?;
            }
            for (k, &t) in grid.iter().enumerate() {
                panel.push(name, Point::of(t, &per_t[k]));
            }
            let mut mark = Point::of(pth.iter().sum::<f64>() / pth.len() as f64, &pf);
            mark.runs = pf.len();
            panel.marks.push(Mark {
                series: name.into(),
                label: "personalized threshold (paper), at its mean".into(),
                point: mark,
            });
        }
        panels.push(panel);
    }
    Ok(Figure {
        name: "fig5".into(),
        title: "F1 against a global threshold: frequent against random grams".into(),
        panels,
        notes: vec![
            format!("NAMES: the first {} names (the sweep is all-pairs); k = 100, ε = 0.1, q ∈ [1, 3], paper rule (every B within the threshold); {} seeded runs per point", records.len(), d.runs),
            "the personalized threshold (Algorithm 2) is marked at the mean of its per-record values".into(),
        ],
    })
}

/// One scenario per (miner, x, run); `opt(x)` sets the varied parameter.
#[allow(clippy::too_many_arguments)]
fn f1_curves(
    d: &ExperimentData,
    panel_title: &str,
    records: &[String],
    xs: &[f64],
    miners: &[(MinerKind, Strategy, &str)],
    opt: &dyn Fn(f64, &mut ScenarioOptions),
    x_label: &str,
    progress: &mut dyn Progress,
    fig: &str,
) -> Result<Panel, Error> {
    let mut panel = Panel::new(panel_title, x_label, "F1");
    for &(miner, strategy, name) in miners {
        for &x in xs {
            let (mut f, mut one) = (Vec::new(), Vec::new());
            for r in 0..d.runs {
                let mut o = ScenarioOptions::scenario(Preset::Paper, 1, d.seed + r).with(|c| {
                    c.mine.miner = miner;
                    c.mine.strategy = strategy;
                });
                opt(x, &mut o);
                let res = scenario(records, &d.alphabet, &o)?;
                f.push(res.f1);
                one.push(res.other_rule.f1);
            }
            panel.push(name, Point::of(x, &f));
            if strategy == Strategy::Hybrid && miner == MinerKind::PrefixTree {
                panel.push(&format!("{name}, one-to-one"), Point::of(x, &one));
            }
            progress.tick(fig, 0, 0)?;
        }
    }
    Ok(panel)
}

/// Figure 6: F1 against the base size k, ed = 1.
pub fn fig6(d: &ExperimentData, progress: &mut dyn Progress) -> Result<Figure, Error> {
    let ks = [10.0, 25.0, 50.0, 75.0, 100.0, 150.0];
    let mut panels = Vec::new();
    for (label, records) in datasets(d) {
        let set = |x: f64, o: &mut ScenarioOptions| {
            o.config.mine.k = x as usize;
            o.config.thresholds.ed = 1.into();
        };
        panels.push(f1_curves(d, label, records, &ks, &MINERS[..3], &set, "k (base size)", progress, "fig6")?);
    }
    Ok(Figure {
        name: "fig6".into(),
        title: "F1 against the base size k, ed = 1".into(),
        panels,
        notes: vec![sizes_note(d), "ε = 0.1, q ∈ [1, 3], the paper's personalized threshold and rule".into()],
    })
}

/// Figure 7: F1 against ε, ed 0 and 1, private miners beside the exact (non-private) one.
pub fn fig7(d: &ExperimentData, progress: &mut dyn Progress) -> Result<Figure, Error> {
    let eps = [0.05, 0.1, 0.2, 0.5, 1.0];
    let mut panels = Vec::new();
    for (label, records) in datasets(d) {
        for ed in [0u32, 1] {
            let set = move |x: f64, o: &mut ScenarioOptions| {
                o.config.mine.epsilon = x;
                o.config.thresholds.ed = ed.into();
            };
            let mut p =
                f1_curves(d, &format!("{label}, ed = {ed}"), records, &eps, &MINERS, &set, "ε", progress, "fig7")?;
            p.log_x = true;
            panels.push(p);
        }
    }
    Ok(Figure {
        name: "fig7".into(),
        title: "F1 against the privacy parameter ε".into(),
        panels,
        notes: vec![
            sizes_note(d),
            "k = 75, q ∈ [1, 3], paper's personalized threshold and rule; the exact miner ignores ε".into(),
        ],
    })
}

/// Figure 8: F1 against ed.
pub fn fig8(d: &ExperimentData, progress: &mut dyn Progress) -> Result<Figure, Error> {
    let eds = [0.0, 1.0, 2.0];
    let mut panels = Vec::new();
    for (label, records) in datasets(d) {
        let set = |x: f64, o: &mut ScenarioOptions| o.config.thresholds.ed = (x as u32).into();
        panels.push(f1_curves(d, label, records, &eds, &MINERS, &set, "ed (edit operations)", progress, "fig8")?);
    }
    Ok(Figure {
        name: "fig8".into(),
        title: "F1 against the number of edit operations".into(),
        panels,
        notes: vec![sizes_note(d), "ε = 0.1, k = 75, q ∈ [1, 3], paper's personalized threshold and rule".into()],
    })
}
