//! Figures 9 and 10: gramlink against the Lipschitz (SparseMap) baseline of
//! `eval::lipschitz` — running time against N, and F1 against the base size.

use super::data::ExperimentData;
use super::figure::{Figure, Panel, Point};
use super::linkage::{embedded, party_b, scenario, MINERS};
use super::sweep::sweep;
use crate::clock::{Clock, SystemClock};
use crate::config::Preset;
use crate::dp::Randomness;
use crate::error::Error;
use crate::eval::scenario::ScenarioOptions;
use crate::progress::Progress;
use crate::research::lipschitz::{LipschitzBase, LipschitzOptions};
use crate::threshold::{thresholds, ThresholdMode};

/// (base + embedding ms, A's vectors, B's vectors, truth).
type LipschitzRun = (f64, crate::embed::Vectors, crate::embed::Vectors, Vec<Option<u32>>);

/// Lipschitz on the scenario's data: A builds the base with the greedy heuristic
/// on its records, both parties embed. Returns (base + embedding ms, A, B, truth).
fn lipschitz_run(
    records: &[String],
    d: &ExperimentData,
    ed: u32,
    seed: u64,
    base_size: usize,
) -> Result<LipschitzRun, Error> {
    let mut rng = Randomness::seeded(seed);
    let mut rng_corrupt = rng.fork();
    let (b_records, truth) = party_b(records, &d.alphabet, ed, &mut rng_corrupt);
    let clock = SystemClock::default();
    let t0 = clock.now_ms();
    let o = LipschitzOptions {
        base_size,
        pool: (4 * base_size).max(LipschitzOptions::default().pool),
        ..LipschitzOptions::default()
    };
    let base = LipschitzBase::greedy(records, &d.alphabet, &o, &mut rng.fork())?;
    let va = base.embed_all(records);
    let vb = base.embed_all(&b_records);
    Ok((clock.now_ms() - t0, va, vb, truth))
}

/// Figure 9: running time against N (NAMES prefixes), ed = 0 (exact matching, as
/// the paper measures): gramlink = both parties' mining, merge, embedding and the
/// personalized thresholds; Lipschitz = the greedy base and both embeddings. F1 of
/// exact matching (threshold 0) beside it.
pub fn fig9(d: &ExperimentData, progress: &mut dyn Progress) -> Result<Figure, Error> {
    let mut time = Panel::new("NAMES, ed = 0", "N (records)", "time (ms)");
    let mut f1 = Panel::new("NAMES, ed = 0, exact matching", "N (records)", "F1");
    let mut sizes: Vec<usize> = d.fig9_sizes.iter().map(|&n| n.min(d.names.len())).collect();
    sizes.dedup();
    for &n in &sizes {
        let records = &d.names[..n];
        let (mut tg, mut tl, mut fg, mut fl) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for r in 0..d.runs {
            let o = ScenarioOptions::scenario(Preset::Paper, 0, d.seed + r);
            let res = crate::eval::scenario::run_scenario(
                records,
                &d.alphabet,
                &o,
                &SystemClock::default(),
                &mut crate::progress::NoProgress,
            )?;
            let ms: f64 = res
                .timings_ms
                .iter()
                .filter(|(k, _)| k.as_str() != "corrupt" && k.as_str() != "match")
                .map(|(_, v)| v)
                .sum();
            tg.push(ms);
            fg.push(res.f1);
            let (ms, va, vb, truth) = lipschitz_run(records, d, 0, d.seed + r, 12)?;
            tl.push(ms);
            let (pairs, _) = crate::matching::range_match(&va, &vb, &vec![0.0; va.len()])?;
            fl.push(crate::matching::truth::quality(pairs.iter().map(|p| (p.a, p.b)), &truth, records.len()).f1);
            progress.tick("fig9", 0, 0)?;
        }
        time.push("gramlink (prefix-tree hybrid, k = 75)", Point::of(n as f64, &tg));
        time.push("Lipschitz (greedy heuristic, k = 12)", Point::of(n as f64, &tl));
        f1.push("gramlink (prefix-tree hybrid, k = 75)", Point::of(n as f64, &fg));
        f1.push("Lipschitz (greedy heuristic, k = 12)", Point::of(n as f64, &fl));
    }
    Ok(Figure {
        name: "fig9".into(),
        title: "Running time against N: gramlink against Lipschitz".into(),
        panels: vec![time, f1],
        notes: vec![
            format!("NAMES prefixes of {sizes:?} records; {} seeded runs per point, min–max spread; wall time on the machine that ran it (rayon on every core for both embeddings)", d.runs),
            "Lipschitz: 1,000 random candidate strings of length 10, reference sets of 1–8 strings, greedy selection of 12 from a pool of 48 on 400 sample pairs of A's records".into(),
        ],
    })
}

/// Figure 10: F1 against the base size on CITIES, ed = 1: gramlink (personalized
/// threshold) against Lipschitz with its best global threshold (chosen on the
/// truth: an oracle, as the scheme needs the threshold known in advance).
pub fn fig10(d: &ExperimentData, progress: &mut dyn Progress) -> Result<Figure, Error> {
    let ks = [4usize, 8, 12, 16, 20, 30, 50, 75];
    let records = &d.cities[..];
    let ed = 1u32;
    let mut panel = Panel::new("CITIES, ed = 1", "base size", "F1");
    for &k in &ks {
        // squared Lipschitz distances are integers: thresholds √0, √1, … cover every cut
        let grid: Vec<f64> = (0..=(4 * k as u32 + 8)).map(|j| (j as f64).sqrt()).collect();
        let (mut fl, mut fl_gl) = (Vec::new(), Vec::new());
        for r in 0..d.runs {
            let (_, va, vb, truth) = lipschitz_run(records, d, ed, d.seed + r, k)?;
            let s = sweep(&va, &vb, &truth, &grid, None);
            fl.push(s.global.iter().map(|q| q.f1).fold(0.0, f64::max));
            // gramlink with the best global threshold too, for a like-for-like view
            let o = ScenarioOptions::scenario(Preset::Paper, ed, d.seed + r).with(|c| c.mine.k = k);
            let e = embedded(records, &d.alphabet, &o)?;
            let g: Vec<f64> = (0..=40).map(|i| i as f64 * 0.1).collect();
            let th = thresholds(&e.shared, records, ed, &ThresholdMode::Paper)?;
            let sg = sweep(&e.a, &e.b, &e.truth, &g, Some(&th));
            fl_gl.push(sg.global.iter().map(|q| q.f1).fold(0.0, f64::max));
            progress.tick("fig10", 0, 0)?;
        }
        panel.push("Lipschitz (greedy heuristic), best global threshold", Point::of(k as f64, &fl));
        panel.push("gramlink prefix-tree hybrid, best global threshold", Point::of(k as f64, &fl_gl));
        for &(miner, strategy, name) in &MINERS[..3] {
            let mut f = Vec::new();
            for r in 0..d.runs {
                let o = ScenarioOptions::scenario(Preset::Paper, ed, d.seed + r).with(|c| {
                    c.mine.k = k;
                    c.mine.miner = miner;
                    c.mine.strategy = strategy;
                });
                f.push(scenario(records, &d.alphabet, &o)?.f1);
            }
            panel.push(&format!("gramlink {name}, personalized threshold"), Point::of(k as f64, &f));
        }
    }
    Ok(Figure {
        name: "fig10".into(),
        title: "F1 against the base size: gramlink against Lipschitz".into(),
        panels: vec![panel],
        notes: vec![
            format!("CITIES: {} records, ed = 1; {} seeded runs per point, min–max spread; paper rule (every B within the threshold)", records.len(), d.runs),
            "best global threshold: the best F1 over a grid, chosen on the truth (an oracle, favourable to the method); Lipschitz grid √0 … √(4k+8), gramlink 0 … 4 step 0.1".into(),
        ],
    })
}
