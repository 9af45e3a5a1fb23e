//! Fellegi–Sunter weights by expectation–maximisation, without labels (the
//! automatic scheme of FRIL; splink's is the same model).
//!
//! Model: a candidate pair is a match with probability λ; given its class,
//! the fields' levels are independent, level l of field f with probability
//! m_f(l) for a match and u_f(l) for a non-match. A missing level has
//! probability 1 in both classes (it counts neither for nor against). EM
//! maximises the likelihood of the candidates' level patterns: the E-step
//! gives each pattern its match probability g; the M-step sets
//! λ = Σ c·g / Σ c, m_f(l) = Σ_{f at l} c·g / Σ_{f present} c·g and u_f(l)
//! likewise with 1 − g (c: how many candidates have the pattern). The
//! likelihood never decreases (the EM property); the fit stops when no
//! parameter moves by more than [`TOLERANCE`] or after [`MAX_ITERATIONS`].
//!
//! Start: u from random pairs of the two files (nearly all non-matches), m
//! concentrated on agreement, λ from the smaller file's size over the
//! candidates. A field with fixed m or u keeps it. Probabilities are kept at
//! least [`FLOOR`] so every weight is finite.
//!
//! The weight of level l is log2(m_f(l)/u_f(l)); a pair's weight is the sum
//! over its fields, and its match probability is
//! 1 / (1 + 2^−(weight + log2(λ/(1−λ)))).

use serde::{Deserialize, Serialize};

/// A field with no value on either side: probability 1 in both classes. A
/// leaf here (the whole-record comparison, [`crate::record::compare`], and the
/// one-string cut-off, [`crate::cutoff`], both fit this model).
pub const MISSING: u8 = u8::MAX;

pub const MAX_ITERATIONS: u32 = 1000;
pub const TOLERANCE: f64 = 1e-7;
pub const FLOOR: f64 = 1e-6;

/// One field's fitted probabilities and weights, per level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldFit {
    pub name: String,
    pub levels: Vec<String>,
    pub m: Vec<f64>,
    pub u: Vec<f64>,
    /// u as estimated from random pairs (the start).
    pub u_random: Vec<f64>,
    pub weights: Vec<f64>,
    pub fixed_m: bool,
    pub fixed_u: bool,
}

/// The fitted model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// The estimated share of matches among the candidates.
    pub lambda: f64,
    pub fields: Vec<FieldFit>,
    pub iterations: u32,
    pub converged: bool,
    /// The expected number of matches (the record fit's, bounded by
    /// min(|A|, |B|); [`crate::record::fit`]). 0 for the free fit.
    #[serde(default)]
    pub expected_matches: f64,
    /// The bounds that bound the fit, each said (printed as warnings).
    #[serde(default)]
    pub repairs: Vec<String>,
    /// Fields compared as one ([`crate::record::joint`]): `fields` then
    /// holds one comparison for both, in the first one's place.
    #[serde(default)]
    pub joint: Vec<Joint>,
    /// Comparisons whose agreements go together among non-matches
    /// ([`crate::record::interaction`]), in the comparisons' indices.
    #[serde(default)]
    pub interactions: Vec<Interaction>,
}

/// Two comparisons that agree together among non-matches far more often
/// than independence says (a household shares a surname and an address): a
/// pattern with both at an agreeing level weighs `log2(both_agree /
/// independent)` less, the evidence of the second agreement that the first
/// already gave. u of the pair is counted on the candidates, which hold every
/// pair agreeing on both; m stays the product (independent among matches).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interaction {
    pub first: usize,
    pub second: usize,
    /// The agreeing levels of each.
    pub agree_first: Vec<u8>,
    pub agree_second: Vec<u8>,
    /// Among all pairs, the non-matches' share agreeing on both, and the
    /// product of each one's share of agreeing non-matches (its u).
    pub both_agree: f64,
    pub independent: f64,
}

impl Interaction {
    /// What a pattern of the comparisons' levels loses by it (bits, ≤ 0).
    pub fn correction(&self, pattern: &[u8]) -> f64 {
        let (a, b) = (pattern[self.first], pattern[self.second]);
        if self.agree_first.contains(&a) && self.agree_second.contains(&b) {
            -(self.both_agree / self.independent).log2()
        } else {
            0.0
        }
    }
}

/// Two fields whose disagreements go together among matches, compared as
/// one: the comparison's level is the sum of the two fields' levels, missing
/// when either is. `first < second`, indices into a pattern's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Joint {
    pub first: usize,
    pub second: usize,
    /// Among the pairs the other fields make near-certain matches: the share
    /// where both fields disagree, and the share independence predicts.
    pub both_disagree: f64,
    pub independent: f64,
}

/// The fields each comparison stands for, in the comparisons' order (`fields`
/// fields, `joint` pairs): a field alone, or a [`Joint`] pair in its first
/// field's place.
pub fn comparison_fields(fields: usize, joint: &[Joint]) -> Vec<Vec<usize>> {
    (0..fields)
        .filter(|&k| !joint.iter().any(|j| j.second == k))
        .map(|k| match joint.iter().find(|j| j.first == k) {
            Some(j) => vec![k, j.second],
            None => vec![k],
        })
        .collect()
}

/// Of the `found` pairs of comparisons (each with how many times more often
/// its event comes than independence says, and its two comparisons `ends`
/// gives), the most dependent first, each comparison in one pair at most
/// (the second pair would model an event already weighed); in the order of
/// their first comparison. Joints ([`crate::record::joint`]) and interactions
/// ([`crate::record::interaction`]) are chosen so.
pub fn strongest_disjoint<T>(mut found: Vec<(f64, T)>, n: usize, ends: impl Fn(&T) -> (usize, usize)) -> Vec<T> {
    crate::sorting::sort_by(&mut found, |x, y| y.0.total_cmp(&x.0).then(ends(&x.1).cmp(&ends(&y.1))));
    let mut taken = vec![false; n];
    let mut out = Vec::new();
    for (_, x) in found {
        let (i, j) = ends(&x);
        if !taken[i] && !taken[j] {
            taken[i] = true;
            taken[j] = true;
            out.push(x);
        }
    }
    crate::sorting::sort_by(&mut out, |x, y| ends(x).0.cmp(&ends(y).0));
    out
}

/// A pattern of every field's level as the fit's comparisons see it: each
/// [`Joint`] pair summed into its first field's place.
pub fn joined(pattern: &[u8], joint: &[Joint]) -> Vec<u8> {
    let mut out = Vec::with_capacity(pattern.len());
    for (k, &l) in pattern.iter().enumerate() {
        if joint.iter().any(|j| j.second == k) {
            continue;
        }
        match joint.iter().find(|j| j.first == k) {
            Some(j) if l == MISSING || pattern[j.second] == MISSING => out.push(MISSING),
            Some(j) => out.push(l + pattern[j.second]),
            None => out.push(l),
        }
    }
    out
}

/// What the fit starts from, per field.
#[derive(Clone)]
pub struct Start {
    pub name: String,
    pub levels: Vec<String>,
    pub u_random: Vec<f64>,
    pub fixed_m: Option<Vec<f64>>,
    pub fixed_u: Option<Vec<f64>>,
}

fn normalized(mut p: Vec<f64>) -> Vec<f64> {
    for x in p.iter_mut() {
        *x = x.max(FLOOR);
    }
    let s: f64 = p.iter().sum();
    p.iter().map(|x| x / s).collect()
}

/// The level frequencies of `patterns` (each with its count), per field,
/// smoothed by one pseudo-count per level.
pub fn frequencies(patterns: &[(Vec<u8>, u64)], level_counts: &[usize]) -> Vec<Vec<f64>> {
    let mut out: Vec<Vec<f64>> = level_counts.iter().map(|&n| vec![1.0; n]).collect();
    for (p, c) in patterns {
        for (f, &l) in p.iter().enumerate() {
            if l != MISSING {
                out[f][l as usize] += *c as f64;
            }
        }
    }
    out.into_iter().map(normalized).collect()
}

/// The start of m: 0.9 on the first level (exact/agree), the rest halving.
pub(crate) fn m_start(levels: usize) -> Vec<f64> {
    let mut m = vec![0.9];
    let mut rest = 0.1;
    for i in 1..levels {
        let x = if i + 1 == levels { rest } else { rest / 2.0 };
        m.push(x);
        rest -= x;
    }
    normalized(m)
}

/// Fits the model to `patterns` (distinct level patterns with their counts).
pub fn fit(patterns: &[(Vec<u8>, u64)], starts: Vec<Start>, lambda_start: f64) -> Fit {
    let nf = starts.len();
    let mut m: Vec<Vec<f64>> =
        starts.iter().map(|s| s.fixed_m.clone().unwrap_or_else(|| m_start(s.levels.len()))).collect();
    let mut u: Vec<Vec<f64>> = starts.iter().map(|s| s.fixed_u.clone().unwrap_or_else(|| s.u_random.clone())).collect();
    let mut lambda = lambda_start.clamp(1e-4, 0.9);
    let total: f64 = patterns.iter().map(|(_, c)| *c as f64).sum();
    let mut iterations = 0;
    let mut converged = total == 0.0;
    while !converged && iterations < MAX_ITERATIONS {
        iterations += 1;
        let mut lam = 0.0;
        let mut mm: Vec<Vec<f64>> = m.iter().map(|v| vec![0.0; v.len()]).collect();
        let mut uu: Vec<Vec<f64>> = u.iter().map(|v| vec![0.0; v.len()]).collect();
        for (p, c) in patterns {
            let g = posterior(p, &m, &u, lambda);
            let c = *c as f64;
            lam += c * g;
            for f in 0..nf {
                let l = p[f];
                if l != MISSING {
                    mm[f][l as usize] += c * g;
                    uu[f][l as usize] += c * (1.0 - g);
                }
            }
        }
        let new_lambda = (lam / total).clamp(1e-9, 1.0 - 1e-9);
        let mut change = (new_lambda - lambda).abs();
        lambda = new_lambda;
        for f in 0..nf {
            if starts[f].fixed_m.is_none() && mm[f].iter().sum::<f64>() > 0.0 {
                let next = normalized(mm[f].clone());
                change = change.max(max_diff(&next, &m[f]));
                m[f] = next;
            }
            if starts[f].fixed_u.is_none() && uu[f].iter().sum::<f64>() > 0.0 {
                let next = normalized(uu[f].clone());
                change = change.max(max_diff(&next, &u[f]));
                u[f] = next;
            }
        }
        converged = change < TOLERANCE;
    }
    let fields = field_fits(patterns, starts, m, u);
    Fit {
        lambda,
        fields,
        iterations,
        converged,
        expected_matches: 0.0,
        repairs: Vec::new(),
        joint: Vec::new(),
        interactions: Vec::new(),
    }
}

/// Each field's fit from its start and its final m and u: weights `log2(m/u)`,
/// and 0 for a level no candidate has (it carries no evidence, not the ratio
/// of two floors).
pub(crate) fn field_fits(
    patterns: &[(Vec<u8>, u64)],
    starts: Vec<Start>,
    m: Vec<Vec<f64>>,
    u: Vec<Vec<f64>>,
) -> Vec<FieldFit> {
    let mut seen: Vec<Vec<bool>> = m.iter().map(|v| vec![false; v.len()]).collect();
    for (p, _) in patterns {
        for (f, &l) in p.iter().enumerate() {
            if l != MISSING {
                seen[f][l as usize] = true;
            }
        }
    }
    starts
        .into_iter()
        .zip(m.into_iter().zip(u))
        .zip(seen)
        .map(|((s, (m, u)), seen)| FieldFit {
            weights: m.iter().zip(&u).zip(seen).map(|((a, b), seen)| if seen { (a / b).log2() } else { 0.0 }).collect(),
            name: s.name,
            levels: s.levels,
            u_random: s.u_random,
            fixed_m: s.fixed_m.is_some(),
            fixed_u: s.fixed_u.is_some(),
            m,
            u,
        })
        .collect()
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

/// The match probability of a pattern (the E-step), in log space.
fn posterior(p: &[u8], m: &[Vec<f64>], u: &[Vec<f64>], lambda: f64) -> f64 {
    let mut w = (lambda / (1.0 - lambda)).ln();
    for (f, &l) in p.iter().enumerate() {
        if l != MISSING {
            w += (m[f][l as usize] / u[f][l as usize]).ln();
        }
    }
    1.0 / (1.0 + (-w).exp())
}

impl Fit {
    /// A pattern's weight (one level per field): the sum of its
    /// comparisons' weights (missing: 0), joint fields taken as one.
    pub fn weight(&self, pattern: &[u8]) -> f64 {
        if self.joint.is_empty() {
            return self.comparison_weight(pattern);
        }
        self.comparison_weight(&joined(pattern, &self.joint))
    }

    /// The weight of a pattern of the comparisons' levels (`fields`).
    fn comparison_weight(&self, pattern: &[u8]) -> f64 {
        let w: f64 =
            pattern.iter().zip(&self.fields).filter(|(l, _)| **l != MISSING).map(|(l, f)| f.weights[*l as usize]).sum();
        w + self.interactions.iter().map(|i| i.correction(pattern)).sum::<f64>()
    }

    /// The match probability of a pair of weight `w`.
    pub fn probability(&self, w: f64) -> f64 {
        let prior = (self.lambda / (1.0 - self.lambda)).log2();
        1.0 / (1.0 + (-(w + prior)).exp2())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::dp::Randomness;

    /// A level drawn from the distribution `p` (the record fit's tests share it).
    pub(crate) fn draw(p: &[f64], rng: &mut Randomness) -> u8 {
        let x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let mut acc = 0.0;
        for (i, q) in p.iter().enumerate() {
            acc += q;
            if x < acc {
                return i as u8;
            }
        }
        (p.len() - 1) as u8
    }

    /// Patterns drawn from a known model: EM finds its m, u and λ back.
    #[test]
    fn recovers_a_known_model() {
        let m = [vec![0.85, 0.1, 0.05], vec![0.9, 0.1], vec![0.7, 0.2, 0.1]];
        let u = [vec![0.02, 0.08, 0.9], vec![0.3, 0.7], vec![0.05, 0.15, 0.8]];
        let lambda = 0.2;
        let mut rng = Randomness::seeded(7);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..200_000 {
            let is_match = ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < lambda;
            let p: Vec<u8> = (0..3).map(|f| draw(if is_match { &m[f] } else { &u[f] }, &mut rng)).collect();
            *counts.entry(p).or_insert(0u64) += 1;
        }
        let patterns: Vec<_> = counts.into_iter().collect();
        let starts = (0..3)
            .map(|f| Start {
                name: format!("f{f}"),
                levels: vec![String::new(); m[f].len()],
                u_random: normalized(vec![1.0; m[f].len()]),
                fixed_m: None,
                fixed_u: None,
            })
            .collect();
        let fit = fit(&patterns, starts, 0.5);
        assert!(fit.converged, "{} iterations", fit.iterations);
        assert!((fit.lambda - lambda).abs() < 0.01, "lambda {}", fit.lambda);
        for f in 0..3 {
            for l in 0..m[f].len() {
                assert!((fit.fields[f].m[l] - m[f][l]).abs() < 0.02, "m[{f}][{l}] = {}", fit.fields[f].m[l]);
                assert!((fit.fields[f].u[l] - u[f][l]).abs() < 0.02, "u[{f}][{l}] = {}", fit.fields[f].u[l]);
            }
        }
        // weights order agreement above disagreement
        assert!(fit.weight(&[0, 0, 0]) > fit.weight(&[2, 1, 2]));
        assert_eq!(fit.weight(&[MISSING, MISSING, MISSING]), 0.0);
    }
}
