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
//! **The rows the fit leaves unlinked.** The features are not independent
//! within a class (a pair best for a is often best for b too), so the
//! posteriors sit near 0 and 1, and the Bayes rule drops a level's pairs
//! together. Where values repeat across people (FEBRL's given names: "samuel"
//! in A, its exact namesake in B taken by another "samuel", its own duplicate
//! "samel" one edit away) a fixed `--ed` at that level still links such rows
//! to their next best. So after the fit, the rows the greedy assignment of
//! the kept candidates leaves unlinked on both sides are linked among
//! themselves as the fixed bound would: greedy by cosine over their
//! candidates up to the level the fit chose ([`Cutoff::chosen_level`]), and
//! the pairs that takes are kept too ([`Cutoff::leftovers`]). The rule on all
//! the kept candidates then links exactly the fit's pairs plus those (they
//! use only rows the fit's pairs leave free, so they change none of them).
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
    /// Of `kept`: pairs of rows the fit's own pairs leave unlinked, linked
    /// among themselves up to the chosen level (module docs).
    #[serde(default)]
    pub leftovers: u64,
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
        chosen_level(&self.kept_by_edits)
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
                 level: {}; estimated match share {:.3}){}",
                self.bound,
                self.candidates,
                self.fitted.unwrap_or(self.candidates),
                share(&self.candidates_by_edits),
                self.kept,
                share(&self.kept_by_edits),
                self.lambda,
                self.leftover_note()
            );
        }
        format!(
            "ed auto chose {} edit{}: of {} candidates within {} edits (by edits 0..{}: {}), a Fellegi–Sunter fit \
             without labels calls {} matches (by edits: {}; estimated match share {:.3}){}",
            self.chosen_level(),
            if self.chosen_level() == 1 { "" } else { "s" },
            self.candidates,
            self.bound,
            self.bound,
            share(&self.candidates_by_edits),
            self.kept,
            share(&self.kept_by_edits),
            self.lambda,
            self.leftover_note()
        )
    }

    /// [`Cutoff::describe`] and what the assignment then kept: `pairs` of
    /// the fit's matches under rule `rule` (one-to-one keeps fewer than the
    /// fit calls matches).
    pub fn describe_kept(&self, pairs: usize, rule: &str) -> String {
        format!("{}; the {rule} rule keeps {pairs} of them", self.describe())
    }

    /// The describe line's part on [`Cutoff::leftovers`] (empty without any).
    fn leftover_note(&self) -> String {
        match self.leftovers {
            0 => String::new(),
            n => format!(
                "; {n} of these link rows the fit's own pairs leave free, up to the chosen level, as a fixed bound would"
            ),
        }
    }
}

/// The largest level holding at least 1 % of `kept_by_level`'s total.
fn chosen_level(kept_by_level: &[u64]) -> u32 {
    let floor = (kept_by_level.iter().sum::<u64>() as f64 * 0.01).max(1.0);
    kept_by_level.iter().rposition(|&k| k as f64 >= floor).unwrap_or(0) as u32
}

/// The indices of the candidates (not among `kept`) that the greedy
/// assignment by cosine links among the rows `kept`'s own assignment leaves
/// unlinked on both sides, up to level `level` of the first feature.
fn leftover_pairs(candidates: &[Scored], pats: &[[u8; FEATURES]], kept: &[bool], level: u32) -> Vec<usize> {
    let chosen: Vec<Scored> = candidates.iter().zip(kept).filter(|(_, &k)| k).map(|(s, _)| *s).collect();
    let linked = crate::matching::one_to_one_scored(&chosen);
    let (used_a, used_b): (std::collections::HashSet<u32>, std::collections::HashSet<u32>) =
        (linked.iter().map(|p| p.a).collect(), linked.iter().map(|p| p.b).collect());
    let free: Vec<usize> = (0..candidates.len())
        .filter(|&i| {
            let s = &candidates[i];
            !kept[i] && u32::from(pats[i][0]) <= level && !used_a.contains(&s.pair.a) && !used_b.contains(&s.pair.b)
        })
        .collect();
    let scored: Vec<Scored> = free.iter().map(|&i| candidates[i]).collect();
    let taken: std::collections::HashSet<(u32, u32)> =
        crate::matching::one_to_one_scored(&scored).iter().map(|p| (p.a, p.b)).collect();
    free.into_iter().filter(|&i| taken.contains(&(candidates[i].pair.a, candidates[i].pair.b))).collect()
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
    let mut by_fit = Vec::with_capacity(candidates.len());
    for (s, p) in candidates.iter().zip(&pats) {
        let e = p[0] as usize;
        candidates_by_edits[e] += 1;
        let keep = model.probability(model.weight(p)) >= KEEP;
        if keep {
            kept.push(*s);
            kept_by_edits[e] += 1;
        }
        by_fit.push(keep);
    }
    let leftovers = leftover_pairs(candidates, &pats, &by_fit, chosen_level(&kept_by_edits));
    for &i in &leftovers {
        kept.push(candidates[i]);
        kept_by_edits[pats[i][0] as usize] += 1;
    }
    let report = Cutoff {
        bound: plan.bound,
        evidence: plan.evidence,
        candidates: within,
        fitted: (!plan.evidence.is_edits()).then_some(candidates.len() as u64),
        kept: kept.len() as u64,
        leftovers: leftovers.len() as u64,
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
mod tests;
