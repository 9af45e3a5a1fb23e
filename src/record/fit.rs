//! The record fit, bounded so that it cannot collapse silently.
//!
//! The free EM of [`crate::em::fit`] estimates u and λ among the candidates
//! too; when blocking makes a large class of candidates agree on one field
//! (every pair born the same day), it may take that class for the matches
//! (λ 0.28 among 900,000 candidates of 10,000 records, a first-name exact
//! with a negative weight). Here, as splink does it:
//!
//! - **u** is fixed: the level frequencies among random pairs of the two
//!   files (nearly all non-matches), or the schema's fixed u;
//! - **λ** is the share of matches among *all* |A|·|B| pairs, from the
//!   expected number of matches N = Σ over candidates of their match
//!   probability, and N is bounded by min(|A|, |B|) (a linkage holds at most
//!   that many one-to-one matches);
//! - **m** by EM, each M-step made monotone in agreement (pool adjacent
//!   violators on m/u: a closer level never weighs less than a farther one);
//! - **rivals share**: given the candidates' records, a record has at most one
//!   match, so each E-step shares a record's match probability among its
//!   candidates by their odds o: a pair's is o / (1 + o + max(O_a, O_b) − o),
//!   with O_a and O_b the sums of the odds of every candidate of its A and of
//!   its B record (a pair without rivals keeps o / (1 + o); the larger of the
//!   two rivalries, not their sum, so that a pair is not discounted twice for
//!   one household seen from both sides). Which records have at most one
//!   match is the assignment's ([`OneMatch`]): under many-to-one only B's,
//!   O_a is left out, since an A record's copies in B are all its matches
//!   (FEBRL 2's original with three copies would give each a third). Without it, records
//!   that share a household (last name, address) look like one person to the
//!   fit: every household pair comes out a match, the first name's exact level
//!   gets m 0.41 and a different first name costs almost nothing (docs
//!   issue 30's census against W-2 records).
//!
//! Every bound that binds at the end is said ([`Fit::repairs`], printed as a
//! warning); a fit the bounds cannot repair (the schema's fixed m and u give a
//! closer level a lower weight) is refused with `FIT_REFUSED`.
//! [`health`] is what the CLI prints: expected matches and each level's weight.

use super::field::INITIAL;
use crate::em::{m_start, Fit, Start, FLOOR, MAX_ITERATIONS, MISSING, TOLERANCE};
use crate::error::Error;

/// The candidates as the E-step shares them among rivals: per candidate
/// (`pairs`), its A row, its B row and the index of its pattern in the fit's
/// patterns; and which records have at most one match.
#[derive(Clone, Copy)]
pub struct Rivals<'a> {
    pub pairs: &'a [(u32, u32, u32)],
    pub one_match: OneMatch,
}

/// Which records have at most one match (see the module docs): B's (the
/// many-to-one assignment: B may hold several copies of an A record), or
/// both parties' (one-to-one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OneMatch {
    B,
    Both,
}

/// Fits m (and λ) to the candidates' `patterns` with u fixed, for `na` A and
/// `nb` B records (see the module docs); with `rivals`, the patterns' pairs
/// share their records' match probability.
pub fn fit_bounded(
    patterns: &[(Vec<u8>, u64)],
    rivals: Option<Rivals>,
    starts: Vec<Start>,
    na: usize,
    nb: usize,
) -> Result<Fit, Error> {
    let nf = starts.len();
    let all = (na as f64 * nb as f64).max(1.0);
    let most = na.min(nb).max(1) as f64;
    let u: Vec<Vec<f64>> = starts.iter().map(|s| s.fixed_u.clone().unwrap_or_else(|| s.u_random.clone())).collect();
    let mut m: Vec<Vec<f64>> =
        starts.iter().map(|s| s.fixed_m.clone().unwrap_or_else(|| m_start(s.levels.len()))).collect();
    let mut expected = most / 2.0;
    let total: f64 = patterns.iter().map(|(_, c)| *c as f64).sum();
    let (mut iterations, mut converged) = (0, total == 0.0);
    let mut bounded = false;
    let mut pooled: Vec<Option<String>> = vec![None; nf];
    // the levels some candidate shows: a level none shows weighs 0 (em::field_fits)
    // and orders nothing (a date's swapped level, where no one's date is swapped)
    let mut seen: Vec<Vec<bool>> = m.iter().map(|v| vec![false; v.len()]).collect();
    let mut compared = vec![0u64; nf];
    for (p, c) in patterns {
        for (f, &l) in p.iter().enumerate() {
            if let Some(s) = seen.get_mut(f).and_then(|s| s.get_mut(l as usize)) {
                *s = true;
                compared[f] += c;
            }
        }
    }
    // each field's level outside the closeness chain (a name's "initial"), found once
    let sides: Vec<Option<usize>> = starts.iter().map(|s| s.levels.iter().position(|l| l == INITIAL)).collect();
    while !converged && iterations < MAX_ITERATIONS {
        iterations += 1;
        let prior = (expected / (all - expected).max(1.0)).ln();
        let mut n = 0.0;
        let mut mm: Vec<Vec<f64>> = m.iter().map(|v| vec![0.0; v.len()]).collect();
        for ((p, _), g) in patterns.iter().zip(expected_per_pattern(patterns, rivals, &m, &u, prior, na, nb)) {
            n += g;
            for f in 0..nf {
                if p[f] != MISSING {
                    mm[f][p[f] as usize] += g;
                }
            }
        }
        bounded = n > most;
        let next_expected = n.clamp(1e-6, most);
        let mut change = ((next_expected - expected) / most).abs();
        expected = next_expected;
        for f in 0..nf {
            if starts[f].fixed_m.is_some() || mm[f].iter().sum::<f64>() <= 0.0 {
                continue;
            }
            let free = floored(&mm[f]);
            let (next, violation) = monotone_side(&free, &u[f], &seen[f], sides[f]);
            pooled[f] = violation.map(|(l, k)| {
                format!(
                    "field {:?}: level {:?} came out weighing more than {:?}; pooled to one weight",
                    starts[f].name, starts[f].levels[k], starts[f].levels[l]
                )
            });
            change = change.max(next.iter().zip(&m[f]).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max));
            m[f] = next;
        }
        converged = change < TOLERANCE;
    }
    let mut repairs: Vec<String> = Vec::new();
    if bounded {
        repairs.push(format!(
            "the candidates' match probabilities add up to more than min(|A|, |B|) = {most}: expected matches bounded there"
        ));
    }
    repairs.extend(pooled.into_iter().flatten());
    repairs.extend(never_agree(&starts, &seen, &compared));
    let fields = crate::em::field_fits(patterns, starts, m, u);
    for (f, &side) in fields.iter().zip(&sides) {
        // a level no pair shows weighs exactly 0 (em::field_fits) and orders nothing: with
        // a name's exact agreement split on rare and common values, one of them may be empty
        // a side level ("initial") lies between the chain's ends, not in it
        let w: Vec<(usize, f64)> =
            f.weights.iter().copied().enumerate().filter(|&(l, w)| w != 0.0 && Some(l) != side).collect();
        let outside = side.filter(|&s| f.weights[s] != 0.0).and_then(|s| {
            let (top, bottom) = (w.first()?, w.last()?);
            let ws = (s, f.weights[s]);
            (ws.1 > top.1 + 1e-9).then_some([*top, ws]).or((ws.1 < bottom.1 - 1e-9).then_some([ws, *bottom]))
        });
        if let Some(pair) = w.windows(2).map(|p| [p[0], p[1]]).chain(outside).find(|p| p[1].1 > p[0].1 + 1e-9) {
            return Err(Error::Fit(format!(
                "field {:?}: level {:?} weighs {:.2}, more than the closer level {:?} ({:.2}); the schema fixes m and u so \
                 the fit cannot repair it: give a closer level at least the weight of a farther one",
                f.name, f.levels[pair[1].0], pair[1].1, f.levels[pair[0].0], pair[0].1
            )));
        }
    }
    let lambda = (expected / all).clamp(1e-12, 1.0 - 1e-9);
    Ok(Fit {
        lambda,
        fields,
        iterations,
        converged,
        expected_matches: expected,
        repairs,
        joint: Vec::new(),
        interactions: Vec::new(),
    })
}

fn floored(p: &[f64]) -> Vec<f64> {
    let v: Vec<f64> = p.iter().map(|x| x.max(FLOOR)).collect();
    let s: f64 = v.iter().sum();
    v.into_iter().map(|x| x / s).collect()
}

/// `m` made monotone against `u`: the ratios m/u non-increasing from the
/// closest level on (pool adjacent violators, each pool at its pooled ratio;
/// the sum of m is kept). Also the first violation found (closer, farther).
pub fn monotone(m: &[f64], u: &[f64]) -> (Vec<f64>, Option<(usize, usize)>) {
    // pools: (first level, m sum, u sum)
    let mut pools: Vec<(usize, f64, f64)> = Vec::new();
    let mut violation = None;
    for l in 0..m.len() {
        pools.push((l, m[l], u[l]));
        while pools.len() > 1 {
            let (_, m1, u1) = pools[pools.len() - 1];
            let (s0, m0, u0) = pools[pools.len() - 2];
            if m1 / u1 <= m0 / u0 * (1.0 + 1e-9) {
                break;
            }
            violation = violation.or(Some((s0, l)));
            pools.pop();
            let last = pools.len() - 1;
            pools[last] = (s0, m0 + m1, u0 + u1);
        }
    }
    let mut out = vec![0.0; m.len()];
    for (i, &(start, ms, us)) in pools.iter().enumerate() {
        let end = pools.get(i + 1).map_or(m.len(), |p| p.0);
        for l in start..end {
            out[l] = u[l] * ms / us;
        }
    }
    (out, violation)
}

/// [`monotone`] on the levels `seen` (the others keep their m): a level no
/// candidate shows has no weight to order. The violation is in level indices.
pub fn monotone_seen(m: &[f64], u: &[f64], seen: &[bool]) -> (Vec<f64>, Option<(usize, usize)>) {
    let at: Vec<usize> = (0..m.len()).filter(|&l| seen.get(l).copied().unwrap_or(true)).collect();
    let pick = |v: &[f64]| at.iter().map(|&l| v[l]).collect::<Vec<f64>>();
    let (fixed, violation) = monotone(&pick(m), &pick(u));
    let mut out = m.to_vec();
    for (&l, x) in at.iter().zip(fixed) {
        out[l] = x;
    }
    (out, violation.map(|(a, b)| (at[a], at[b])))
}

/// [`monotone_seen`] with `side`, a level outside the closeness chain: a
/// name's "initial" (a single letter against a name it begins or ends) is
/// farther than exact and closer than disagree, but neither closer nor
/// farther than an edit level (two edits of a short name, or an initial?).
/// The chain is made monotone without it; then its ratio m/u is clamped
/// between the chain's first and last seen levels', and m scaled back to its
/// sum (one factor for every level: the chain's order stays).
pub fn monotone_side(m: &[f64], u: &[f64], seen: &[bool], side: Option<usize>) -> (Vec<f64>, Option<(usize, usize)>) {
    let Some(s) = side.filter(|&s| seen.get(s).copied().unwrap_or(true)) else {
        return monotone_seen(m, u, seen);
    };
    let chain: Vec<bool> = (0..m.len()).map(|l| l != s && seen.get(l).copied().unwrap_or(true)).collect();
    let (mut out, mut violation) = monotone_seen(m, u, &chain);
    let (Some(top), Some(bottom)) = (chain.iter().position(|&c| c), chain.iter().rposition(|&c| c)) else {
        return (out, violation);
    };
    // the chain's repair leaves its ratios non-increasing within a relative 1e-9
    let lo = out[bottom] / u[bottom];
    let (hi, r) = ((out[top] / u[top]).max(lo), out[s] / u[s]);
    if r > hi || r < lo {
        violation = violation.or(Some(if r > hi { (top, s) } else { (s, bottom) }));
        out[s] = u[s] * r.max(lo).min(hi);
        let total: f64 = out.iter().sum();
        let want: f64 = m.iter().sum();
        out.iter_mut().for_each(|x| *x *= want / total);
    }
    (out, violation)
}

/// A pattern's match log-odds with prior log-odds `prior` (natural logs).
fn log_odds(p: &[u8], m: &[Vec<f64>], u: &[Vec<f64>], prior: f64) -> f64 {
    let mut w = prior;
    for (f, &l) in p.iter().enumerate() {
        if l != MISSING {
            w += (m[f][l as usize] / u[f][l as usize]).ln();
        }
    }
    w
}

/// Odds are capped here (e^300) so that a record's sum of them stays finite.
const MAX_LOG_ODDS: f64 = 300.0;

/// The E-step: each pattern's expected number of matches, its count times
/// its match probability, or with `rivals` the sum of its pairs' shares (see
/// the module docs).
fn expected_per_pattern(
    patterns: &[(Vec<u8>, u64)],
    rivals: Option<Rivals>,
    m: &[Vec<f64>],
    u: &[Vec<f64>],
    prior: f64,
    na: usize,
    nb: usize,
) -> Vec<f64> {
    let lo: Vec<f64> = patterns.iter().map(|(p, _)| log_odds(p, m, u, prior)).collect();
    let Some(Rivals { pairs, one_match }) = rivals else {
        return patterns.iter().zip(&lo).map(|((_, c), w)| *c as f64 / (1.0 + (-w).exp())).collect();
    };
    let odds: Vec<f64> = lo.iter().map(|w| w.min(MAX_LOG_ODDS).exp()).collect();
    let (mut sa, mut sb) = (vec![0.0; na], vec![0.0; nb]);
    for &(a, b, k) in pairs {
        sa[a as usize] += odds[k as usize];
        sb[b as usize] += odds[k as usize];
    }
    let mut out = vec![0.0; patterns.len()];
    for &(a, b, k) in pairs {
        let o = odds[k as usize];
        let rivals_b = sb[b as usize] - o;
        let others = match one_match {
            OneMatch::B => rivals_b,
            OneMatch::Both => (sa[a as usize] - o).max(rivals_b),
        };
        let others = others.max(0.0);
        out[k as usize] += o / (1.0 + others + o);
    }
    out
}

/// The fields whose every compared candidate pair disagrees (at least
/// [`NEVER_AGREE_PAIRS`] of them): such a field weighs nothing, and the
/// likely cause is the two parties writing its values differently ("M" and
/// "Male", another code list), which the matcher cannot see, only this.
fn never_agree(starts: &[Start], seen: &[Vec<bool>], compared: &[u64]) -> Vec<String> {
    let mut out = Vec::new();
    for ((s, seen), &n) in starts.iter().zip(seen).zip(compared) {
        let disagree_only = s.levels.last().is_some_and(|l| l == "disagree")
            && seen.last() == Some(&true)
            && seen[..seen.len() - 1].iter().all(|&x| !x);
        if disagree_only && n >= NEVER_AGREE_PAIRS {
            out.push(format!(
                "field {:?}: no candidate pair agrees at any level ({} compared, every one \"disagree\"), so it weighs \
                 nothing: do both parties write its values the same way (codes, spelling, layout)?",
                s.name, n
            ));
        }
    }
    out
}

/// How many compared pairs, all disagreeing, make [`never_agree`] speak.
const NEVER_AGREE_PAIRS: u64 = 50;

/// The fit's health, a line each: expected matches against the bound, then
/// each field's levels with their weights; repairs are the caller's warnings.
pub fn health(fit: &Fit, na: usize, nb: usize) -> Vec<String> {
    let mut out = vec![format!(
        "fit: {:.0} expected matches (at most min(|A|, |B|) = {}), prior log2 odds {:.2}; u from random pairs",
        fit.expected_matches,
        na.min(nb),
        (fit.lambda / (1.0 - fit.lambda)).log2()
    )];
    for f in &fit.fields {
        let levels: Vec<String> = f.levels.iter().zip(&f.weights).map(|(l, w)| format!("{l} {w:+.2}")).collect();
        out.push(format!("  {}: {}", f.name, levels.join(", ")));
    }
    out.extend(dependence(fit));
    out
}

/// What the fit says of fields that go together: its joints
/// ([`super::joint::describe`]), then its interactions
/// ([`super::interaction::describe`]), a line each.
pub fn dependence(fit: &Fit) -> Vec<String> {
    let mut out = super::joint::describe(fit);
    out.extend(super::interaction::describe(fit));
    out
}

#[cfg(test)]
#[path = "fit_tests.rs"]
mod tests;
