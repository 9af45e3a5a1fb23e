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
//! **Keyed batches** ([`Evidence::Distance`]). The keyed rotation leaves no
//! plain coordinates, so no q-gram filter and no bound on edits: every pair
//! within A's thresholds (for the generous bound) is a candidate, most of all
//! pairs. The first feature is then the pair's distance relative to its A
//! row's threshold, in levels ([`distance_level`]: 0 for identical vectors,
//! then d/t up to each of [`DISTANCE_EDGES`], then above), and the "fewest
//! edits" features read these levels. The fit sees only the candidates among
//! each A row's and each B row's [`BEST_PER_ROW`] best by cosine (the rest
//! are never kept): with thousands of candidates per row the mixture would
//! otherwise split the non-matches by distance instead of finding the
//! matches.
//!
//! **Privacy.** The matcher uses only what it already sees (vectors, their
//! distances, A's thresholds); nothing new leaves a party, and no budget is
//! spent. The fit, like the pairs, is the matcher's. The keyed fit reads the
//! same (distances and A's thresholds, which the range match compares anyway).

use crate::em;
use crate::matching::Scored;
use serde::{Deserialize, Serialize};

/// The posterior a kept candidate reaches at least.
pub const KEEP: f64 = 0.5;

/// What the first feature of a candidate's pattern reads ([`Scored::edits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Evidence {
    /// The q-gram filter's lower bound on edits, 0..=bound (unkeyed batches).
    Edits,
    /// The distance relative to A's threshold ([`distance_level`]): keyed
    /// batches, which have no filter and so no bound on edits.
    Distance,
}

impl Evidence {
    pub fn is_edits(&self) -> bool {
        *self == Evidence::Edits
    }
}

/// How `ed auto` is fitted for two batches: the bound A's thresholds cover,
/// and what the fit reads ([`crate::matcher::cutoff_bound`] decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub bound: u32,
    pub evidence: Evidence,
}

/// The upper edges of the distance levels above 0, as shares of A's threshold
/// ([`distance_level`]).
pub const DISTANCE_EDGES: [f64; 3] = [0.25, 0.5, 0.75];

/// The keyed fit's candidates: each A row's and each B row's this many best
/// by cosine (ties included).
pub const BEST_PER_ROW: usize = 2;

/// The level of a distance `d` relative to its A row's threshold `t`: 0 when
/// the vectors are identical, `i` when `d/t` is at most `DISTANCE_EDGES[i−1]`
/// (and above the edge before), the last level above the last edge.
pub fn distance_level(d: f64, t: f64) -> u32 {
    if d <= 0.0 {
        return 0;
    }
    let r = if t > 0.0 { d / t } else { f64::INFINITY };
    DISTANCE_EDGES.iter().position(|&e| r <= e).map_or(DISTANCE_EDGES.len() + 1, |i| i + 1) as u32
}

/// Writes each candidate's [`distance_level`] into its `edits` (keyed
/// candidates have no filter bound there); `thresholds` are A's, by the
/// candidates' A rows, as the matcher compared them.
pub fn set_distance_levels(candidates: &mut [Scored], thresholds: &[f64]) {
    for s in candidates {
        let t = thresholds.get(s.pair.a as usize).copied().unwrap_or(0.0);
        s.edits = distance_level(s.pair.distance, t);
    }
}

/// Keyed candidates (pairs within A's thresholds, no filter bound) as the
/// distance fit reads them: scored by cosine ([`crate::matching::rank_by_cosine`])
/// with their [`distance_level`]s. The matcher and the shards both call it.
pub fn scored_by_distance(
    a: &crate::embed::BatchVectors,
    b: &crate::embed::BatchVectors,
    pairs: &[crate::matching::Pair],
    thresholds: &[f64],
) -> Vec<Scored> {
    let mut scored = crate::matching::rank_by_cosine(a, b, pairs);
    set_distance_levels(&mut scored, thresholds);
    scored
}

/// The candidates among each A row's and each B row's [`BEST_PER_ROW`] best
/// by cosine (ties included), in their order.
fn best_per_row(candidates: &[Scored]) -> Vec<Scored> {
    let na = candidates.iter().map(|s| s.pair.a as usize + 1).max().unwrap_or(0);
    let nb = candidates.iter().map(|s| s.pair.b as usize + 1).max().unwrap_or(0);
    let (mut top_a, mut top_b) = (vec![[f64::INFINITY; BEST_PER_ROW]; na], vec![[f64::INFINITY; BEST_PER_ROW]; nb]);
    let insert = |top: &mut [f64; BEST_PER_ROW], x: f64| {
        if let Some(i) = top.iter().position(|&y| x < y) {
            top.copy_within(i..BEST_PER_ROW - 1, i + 1);
            top[i] = x;
        }
    };
    for s in candidates {
        insert(&mut top_a[s.pair.a as usize], s.score);
        insert(&mut top_b[s.pair.b as usize], s.score);
    }
    candidates
        .iter()
        .filter(|s| {
            s.score <= top_a[s.pair.a as usize][BEST_PER_ROW - 1]
                || s.score <= top_b[s.pair.b as usize][BEST_PER_ROW - 1]
        })
        .copied()
        .collect()
}

/// What the fit found, for the report ("what it chose, and why").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cutoff {
    /// The bound A's thresholds and the filter covered.
    pub bound: u32,
    /// What the first feature read; with [`Evidence::Distance`] the `…_by_edits`
    /// and `match_edits` lists are by [`distance_level`] instead of by edits.
    #[serde(default = "edits", skip_serializing_if = "Evidence::is_edits")]
    pub evidence: Evidence,
    pub candidates: u64,
    /// Keyed: the candidates the fit saw (each row's [`BEST_PER_ROW`] best).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fitted: Option<u64>,
    pub kept: u64,
    /// Estimated share of matches among the candidates.
    pub lambda: f64,
    /// Kept candidates per filter bound on edits (index: edits).
    pub kept_by_edits: Vec<u64>,
    /// Candidates (the fit's) per filter bound on edits.
    pub candidates_by_edits: Vec<u64>,
    /// The fitted share of matches at each edit bound (m of the first feature).
    pub match_edits: Vec<f64>,
    pub iterations: u32,
    pub converged: bool,
}

fn edits() -> Evidence {
    Evidence::Edits
}

impl Cutoff {
    /// The largest level of the first feature holding at least 1 % of the
    /// kept candidates (a handful kept farther out do not make it).
    pub fn chosen_level(&self) -> u32 {
        let floor = (self.kept as f64 * 0.01).max(1.0);
        self.kept_by_edits.iter().rposition(|&k| k as f64 >= floor).unwrap_or(0) as u32
    }

    /// The `ed` the data chose ([`Cutoff::chosen_level`]); none for keyed
    /// batches, whose levels are distances ([`Cutoff::chosen_share`]).
    pub fn chosen_ed(&self) -> Option<u32> {
        self.evidence.is_edits().then(|| self.chosen_level())
    }

    /// Keyed: the share of A's threshold the kept distances reach (the upper
    /// edge of [`Cutoff::chosen_level`]; 0 for identical vectors only, `None`
    /// above the last edge).
    pub fn chosen_share(&self) -> Option<f64> {
        match self.chosen_level() as usize {
            0 => Some(0.0),
            l => DISTANCE_EDGES.get(l - 1).copied(),
        }
    }

    /// One line: what was chosen, and why.
    pub fn describe(&self) -> String {
        let share = |v: &[u64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("/");
        if !self.evidence.is_edits() {
            let levels = std::iter::once("0".to_string())
                .chain(DISTANCE_EDGES.iter().map(|e| format!("≤{e}")))
                .chain(std::iter::once(format!(">{}", DISTANCE_EDGES[DISTANCE_EDGES.len() - 1])))
                .collect::<Vec<_>>()
                .join(" ");
            let chose = match self.chosen_share() {
                Some(x) if x > 0.0 => format!("distances up to {x} of A's threshold"),
                Some(_) => "identical vectors only".to_string(),
                None => "distances up to A's whole threshold".to_string(),
            };
            return format!(
                "ed auto (keyed: no edit bounds, so distances relative to A's {}-edit thresholds) chose {chose}: \
                 of {} candidates within the thresholds, the fit saw each row's {BEST_PER_ROW} best by cosine ({}; by \
                 distance/threshold {levels}: {}), and a Fellegi–Sunter fit without labels calls {} matches (by \
                 level: {}; estimated match share {:.3})",
                self.bound,
                self.candidates,
                self.fitted.unwrap_or(self.candidates),
                share(&self.candidates_by_edits),
                self.kept,
                share(&self.kept_by_edits),
                self.lambda
            );
        }
        format!(
            "ed auto chose {} edit{}: of {} candidates within {} edits (by edits 0..{}: {}), a Fellegi–Sunter fit \
             without labels calls {} matches (by edits: {}; estimated match share {:.3})",
            self.chosen_level(),
            if self.chosen_level() == 1 { "" } else { "s" },
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

/// The comparison patterns of `candidates` (see the module's model), whose
/// first feature has levels `0..=bound`.
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

/// Fits the model to `candidates` of `a_rows` A rows and `b_rows` B rows
/// under `plan`: the q-gram filter's within `plan.bound` edits, or keyed ones
/// within A's thresholds with their [`distance_level`]s
/// ([`set_distance_levels`]). Returns the kept candidates (posterior ≥
/// [`KEEP`]) with the fit's report.
pub fn fit(candidates: &[Scored], plan: Plan, a_rows: usize, b_rows: usize) -> (Vec<Scored>, Cutoff) {
    let within = candidates.len() as u64;
    let seen;
    let (candidates, top) = match plan.evidence {
        Evidence::Edits => (candidates, plan.bound),
        Evidence::Distance => {
            seen = best_per_row(candidates);
            (&seen[..], DISTANCE_EDGES.len() as u32 + 1)
        }
    };
    let levels = [top as usize + 1, 2, 2, 2, 2];
    let pats = patterns(candidates, top);
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
    let mut kept_by_edits = vec![0u64; top as usize + 1];
    let mut candidates_by_edits = vec![0u64; top as usize + 1];
    for (s, p) in candidates.iter().zip(&pats) {
        let e = p[0] as usize;
        candidates_by_edits[e] += 1;
        if model.probability(model.weight(p)) >= KEEP {
            kept.push(*s);
            kept_by_edits[e] += 1;
        }
    }
    let report = Cutoff {
        bound: plan.bound,
        evidence: plan.evidence,
        candidates: within,
        fitted: (!plan.evidence.is_edits()).then_some(candidates.len() as u64),
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

    const EDITS: Plan = Plan { bound: 2, evidence: Evidence::Edits };

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
            let (kept, r) = fit(&c, EDITS, n as usize, n as usize);
            let true_kept = kept.iter().filter(|s| s.pair.a == s.pair.b).count();
            assert!(true_kept as f64 >= 0.99 * n as f64, "ed {true_edits}: {true_kept} of {n} true pairs kept");
            assert!(
                kept.len() - true_kept <= n as usize / 100,
                "ed {true_edits}: {} false kept",
                kept.len() - true_kept
            );
            assert!((r.lambda - 0.2).abs() < 0.02, "λ {}", r.lambda);
            assert_eq!(r.chosen_ed(), Some(true_edits));
            assert!(r.describe().contains(&format!("chose {true_edits} edit")), "{}", r.describe());
        }
    }

    /// The keyed case: no edit bounds, every pair within A's thresholds a
    /// candidate (forty per A row here). True pairs (a, a) at about 0.4 of A's
    /// threshold with cosine scores near 0.1; per A row one near non-match
    /// at the same level (score near 0.25) and the rest farther. The fit on
    /// distance levels keeps the true pairs and drops the non-matches.
    #[test]
    fn the_distance_fit_separates_a_synthetic_keyed_mixture() {
        let mut rng = Randomness::seeded(5);
        let n = 2000u32;
        let mut c = Vec::new();
        for a in 0..n {
            let d = 1.0 + 0.5 * uniform(&mut rng);
            c.push(Scored { pair: Pair { a, b: a, distance: d }, score: 0.05 + 0.1 * uniform(&mut rng), edits: 0 });
            for k in 1..40u32 {
                let b = (a + k * 37) % n;
                let (d, s) = match k {
                    1 => (1.2 + 0.5 * uniform(&mut rng), 0.2 + 0.1 * uniform(&mut rng)),
                    _ => (2.2 + 1.7 * uniform(&mut rng), 0.3 + 0.4 * uniform(&mut rng)),
                };
                c.push(Scored { pair: Pair { a, b, distance: d }, score: s, edits: 0 });
            }
        }
        set_distance_levels(&mut c, &vec![4.0; n as usize]);
        assert_eq!(c[0].edits, distance_level(c[0].pair.distance, 4.0));
        let plan = Plan { bound: 2, evidence: Evidence::Distance };
        let (kept, r) = fit(&c, plan, n as usize, n as usize);
        let true_kept = kept.iter().filter(|s| s.pair.a == s.pair.b).count();
        assert!(true_kept as f64 >= 0.99 * n as f64, "{true_kept} of {n} true pairs kept");
        assert!(kept.len() - true_kept <= n as usize / 100, "{} false kept", kept.len() - true_kept);
        assert_eq!(r.candidates, c.len() as u64);
        assert!(r.fitted.is_some_and(|f| f < r.candidates / 10), "{:?}", r.fitted);
        assert_eq!((r.chosen_ed(), r.chosen_share()), (None, Some(0.5)));
        assert!(r.describe().contains("chose distances up to 0.5 of A's threshold"), "{}", r.describe());
    }

    #[test]
    fn distance_levels() {
        let levels: Vec<u32> =
            [0.0, 0.5, 1.0, 1.5, 2.0, 3.9, 4.0, 9.0].iter().map(|&d| distance_level(d, 4.0)).collect();
        assert_eq!(levels, [0, 1, 1, 2, 2, 4, 4, 4]);
        assert_eq!(distance_level(1.0, 0.0), 4);
    }

    /// No candidates: nothing kept, no panic.
    #[test]
    fn empty_candidates() {
        for plan in [EDITS, Plan { bound: 2, evidence: Evidence::Distance }] {
            let (kept, r) = fit(&[], plan, 10, 10);
            assert!(kept.is_empty());
            assert_eq!((r.candidates, r.kept, r.chosen_level()), (0, 0, 0));
        }
    }
}
