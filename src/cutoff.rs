//! `ed auto`: which candidates are matches, fitted on the candidates without
//! labels (Fellegi–Sunter by EM, [`crate::em`]).
//!
//! **Why.** Party A cannot know how many edits separate its records from B's,
//! and the best fixed `ed` depends on it: the scenario's NAMES with one edit
//! link best at `ed 1` (a larger bound lets near names steal each other's
//! partners in the greedy assignment), with two edits at `ed 2`. So A sends
//! thresholds for a generous bound ([`crate::config::Ed::AUTO_BOUND`]), and the
//! matcher, which sees the candidates' distances, decides.
//!
//! **Model.** Each candidate pair (a, b) of the q-gram filter gets a comparison
//! pattern of five features, each at level 0 (agrees with a match) or more:
//! its filter bound on edits (0, 1, …, bound: [`crate::matching::Scored::edits`]);
//! whether b has a's best cosine score among a's candidates; whether a has b's
//! best among b's; whether its edit bound is a's smallest; and b's smallest.
//! The two-class model (match / non-match, features independent within a
//! class) is fitted by EM as for whole records, m starting on agreement and u
//! on disagreement, λ at min(|A|, |B|) over the candidates. A candidate is kept
//! when its posterior match probability is at least one half (the Bayes rule);
//! the rule (`ranked`: greedy one-to-one by cosine) then runs on the kept ones.
//!
//! **Privacy.** The matcher uses only what it already sees (vectors, their
//! distances, A's thresholds); nothing new leaves a party, and no budget is
//! spent. The fit, like the pairs, is the matcher's.

use crate::em;
use crate::matching::Scored;
use serde::{Deserialize, Serialize};

/// The posterior a kept candidate reaches at least.
pub const KEEP: f64 = 0.5;

/// What the fit found, for the report ("what it chose, and why").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cutoff {
    /// The bound A's thresholds and the filter covered.
    pub bound: u32,
    pub candidates: u64,
    pub kept: u64,
    /// Estimated share of matches among the candidates.
    pub lambda: f64,
    /// Kept candidates per filter bound on edits (index: edits).
    pub kept_by_edits: Vec<u64>,
    /// Candidates per filter bound on edits.
    pub candidates_by_edits: Vec<u64>,
    /// The fitted share of matches at each edit bound (m of the first feature).
    pub match_edits: Vec<f64>,
    pub iterations: u32,
    pub converged: bool,
}

impl Cutoff {
    /// The `ed` the data chose: the largest edit bound holding at least 1 % of
    /// the kept candidates (a handful kept farther out do not make it).
    pub fn chosen_ed(&self) -> u32 {
        let floor = (self.kept as f64 * 0.01).max(1.0);
        self.kept_by_edits.iter().rposition(|&k| k as f64 >= floor).unwrap_or(0) as u32
    }

    /// One line: what was chosen, and why.
    pub fn describe(&self) -> String {
        let share = |v: &[u64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("/");
        format!(
            "ed auto chose {} edit{}: of {} candidates within {} edits (by edits 0..{}: {}), a Fellegi–Sunter fit \
             without labels calls {} matches (by edits: {}; estimated match share {:.3})",
            self.chosen_ed(),
            if self.chosen_ed() == 1 { "" } else { "s" },
            self.candidates,
            self.bound,
            self.bound,
            share(&self.candidates_by_edits),
            self.kept,
            share(&self.kept_by_edits),
            self.lambda
        )
    }
}

/// Number of features of a pattern.
const FEATURES: usize = 5;

/// The comparison patterns of `candidates` (see the module's model).
fn patterns(candidates: &[Scored], bound: u32) -> Vec<[u8; FEATURES]> {
    let na = candidates.iter().map(|s| s.pair.a as usize + 1).max().unwrap_or(0);
    let nb = candidates.iter().map(|s| s.pair.b as usize + 1).max().unwrap_or(0);
    let (mut best_a, mut best_b) = (vec![f64::INFINITY; na], vec![f64::INFINITY; nb]);
    let (mut min_a, mut min_b) = (vec![u32::MAX; na], vec![u32::MAX; nb]);
    for s in candidates {
        let (a, b) = (s.pair.a as usize, s.pair.b as usize);
        best_a[a] = best_a[a].min(s.score);
        best_b[b] = best_b[b].min(s.score);
        min_a[a] = min_a[a].min(s.edits);
        min_b[b] = min_b[b].min(s.edits);
    }
    candidates
        .iter()
        .map(|s| {
            let (a, b) = (s.pair.a as usize, s.pair.b as usize);
            [
                s.edits.min(bound) as u8,
                (s.score > best_a[a]) as u8,
                (s.score > best_b[b]) as u8,
                (s.edits > min_a[a]) as u8,
                (s.edits > min_b[b]) as u8,
            ]
        })
        .collect()
}

/// The start of u: most weight on the last (disagreeing) level.
fn u_start(levels: usize) -> Vec<f64> {
    let mut u = vec![0.1 / (levels.max(2) - 1) as f64; levels];
    u[levels - 1] = 0.9;
    u
}

/// Fits the model to `candidates` (the q-gram filter's, within `bound` edits)
/// of `a_rows` A rows and `b_rows` B rows, and returns the kept candidates
/// (posterior ≥ [`KEEP`]) with the fit's report.
pub fn fit(candidates: &[Scored], bound: u32, a_rows: usize, b_rows: usize) -> (Vec<Scored>, Cutoff) {
    let levels = [bound as usize + 1, 2, 2, 2, 2];
    let pats = patterns(candidates, bound);
    let mut counts = std::collections::BTreeMap::new();
    for p in &pats {
        *counts.entry(p.to_vec()).or_insert(0u64) += 1;
    }
    let distinct: Vec<(Vec<u8>, u64)> = counts.into_iter().collect();
    let starts = levels
        .iter()
        .enumerate()
        .map(|(f, &n)| em::Start {
            name: ["edits", "best for a", "best for b", "fewest edits for a", "fewest edits for b"][f].into(),
            levels: (0..n).map(|l| l.to_string()).collect(),
            u_random: u_start(n),
            fixed_m: None,
            fixed_u: None,
        })
        .collect();
    let lambda_start = (a_rows.min(b_rows) as f64 / candidates.len().max(1) as f64).clamp(0.01, 0.9);
    let model = em::fit(&distinct, starts, lambda_start);
    let mut kept = Vec::new();
    let mut kept_by_edits = vec![0u64; bound as usize + 1];
    let mut candidates_by_edits = vec![0u64; bound as usize + 1];
    for (s, p) in candidates.iter().zip(&pats) {
        let e = p[0] as usize;
        candidates_by_edits[e] += 1;
        if model.probability(model.weight(p)) >= KEEP {
            kept.push(*s);
            kept_by_edits[e] += 1;
        }
    }
    let report = Cutoff {
        bound,
        candidates: candidates.len() as u64,
        kept: kept.len() as u64,
        lambda: model.lambda,
        kept_by_edits,
        candidates_by_edits,
        match_edits: model.fields.first().map(|f| f.m.clone()).unwrap_or_default(),
        iterations: model.iterations,
        converged: model.converged,
    };
    (kept, report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dp::Randomness;
    use crate::matching::Pair;

    fn uniform(rng: &mut Randomness) -> f64 {
        (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A synthetic two-class mixture: n true pairs (a, a), each at one or two
    /// edits with a cosine score near 0.1, and for every A row several
    /// non-matches at two edits with scores near 0.4. The fit keeps the true
    /// pairs and drops the non-matches, whatever the true pairs' edits.
    #[test]
    fn the_fitted_cutoff_separates_a_synthetic_mixture() {
        for true_edits in [1u32, 2] {
            let mut rng = Randomness::seeded(11);
            let n = 2000u32;
            let mut c = Vec::new();
            for a in 0..n {
                let s = 0.05 + 0.1 * uniform(&mut rng);
                c.push(Scored { pair: Pair { a, b: a, distance: 1.0 }, score: s, edits: true_edits });
                for k in 1..=4u32 {
                    let b = (a + k * 37) % n;
                    let s = 0.3 + 0.2 * uniform(&mut rng);
                    c.push(Scored { pair: Pair { a, b, distance: 2.0 }, score: s, edits: 2 });
                }
            }
            let (kept, r) = fit(&c, 2, n as usize, n as usize);
            let true_kept = kept.iter().filter(|s| s.pair.a == s.pair.b).count();
            assert!(true_kept as f64 >= 0.99 * n as f64, "ed {true_edits}: {true_kept} of {n} true pairs kept");
            assert!(
                kept.len() - true_kept <= n as usize / 100,
                "ed {true_edits}: {} false kept",
                kept.len() - true_kept
            );
            assert!((r.lambda - 0.2).abs() < 0.02, "λ {}", r.lambda);
            assert_eq!(r.chosen_ed(), true_edits);
            assert!(r.describe().contains(&format!("chose {true_edits} edit")), "{}", r.describe());
        }
    }

    /// No candidates: nothing kept, no panic.
    #[test]
    fn empty_candidates() {
        let (kept, r) = fit(&[], 2, 10, 10);
        assert!(kept.is_empty());
        assert_eq!((r.candidates, r.kept, r.chosen_ed()), (0, 0, 0));
    }
}
