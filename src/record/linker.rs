//! The matcher of records: candidates by the schema's blocking rules,
//! comparison levels per field, the Fellegi–Sunter fit, the decision.
//!
//! **Privacy.** The matcher sees what the record batches hold: vectors and
//! A's thresholds per embedded field, keyed hashes, clear values, ids; never
//! a record's text or the key. It spends no budget. What agreement patterns
//! and keyed fields tell it is in docs/THREAT_MODEL.md.

use super::batch::{FieldData, RecordBatch};
pub use super::blocking::{Candidates, RuleCount};
use super::compare::Comparer;
use super::decide::{assign, has_duplicates, kept_probabilities, propose};
use super::fit::{fit_bounded, OneMatch, Rivals};
use super::schema::{Assignment, Schema};
use crate::dp::Randomness;
use crate::em::{frequencies, joined, Fit, Start};
use crate::error::Error;
use crate::protocol::Party;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Random pairs whose levels estimate u at the start of the fit.
pub const U_SAMPLE: usize = 50_000;

/// A pair's class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Class {
    #[serde(rename = "M")]
    Match,
    #[serde(rename = "P")]
    Possible,
}

/// A decided pair: rows of A and B, weight, match probability, the level of
/// each sent field (see [`super::compare`]), whether the names matched swapped.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredPair {
    pub a: u32,
    pub b: u32,
    pub weight: f64,
    pub probability: f64,
    pub levels: Vec<u8>,
    pub swapped: bool,
    pub class: Class,
}

/// A record linkage: the fit, the thresholds, the M and P pairs, the counts.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordLinkage {
    pub fit: Fit,
    pub upper: f64,
    pub lower: f64,
    /// The match probability of the kept pair at the upper threshold (the
    /// lowest-weight match) as the decision estimates it, its record's
    /// rivals not counted ([`super::decide`]); `None` without a match.
    /// `fit.probability(upper)` counts every candidate of its pattern.
    pub upper_probability: Option<f64>,
    /// The assignment applied (`auto` resolved).
    pub assignment: Assignment,
    /// M then P, each by weight, descending.
    pub pairs: Vec<ScoredPair>,
    pub candidates: u64,
    pub matches: u64,
    pub possible: u64,
    pub non_matches: u64,
    /// 1 − candidates / (|A|·|B|).
    pub reduction_ratio: f64,
    pub rules: Vec<RuleCount>,
    /// Every candidate pair (a, b), ascending (for pairs completeness).
    pub candidate_pairs: Vec<(u32, u32)>,
}

/// Scored candidates ([`RecordMatcher::score`]): pair `i` is
/// `candidates[i]`, with its levels (and whether the names matched crossed)
/// and its weight under `fit`.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub candidates: Vec<(u32, u32)>,
    pub rules: Vec<RuleCount>,
    pub levels: Vec<(Vec<u8>, bool)>,
    pub fit: Fit,
    pub weights: Vec<f64>,
}

/// Both parties' record batches, checked against the schema and each other.
pub struct RecordMatcher {
    schema: Schema,
    a: RecordBatch,
    b: RecordBatch,
}

impl RecordMatcher {
    /// Checks: both batches under `schema` (fingerprint, fields), A from party
    /// A and B from party B, both keyed or neither, each embedded field over
    /// the same base with the same dimension.
    pub fn new(schema: Schema, a: RecordBatch, b: RecordBatch) -> Result<RecordMatcher, Error> {
        if a.party != Party::A || b.party != Party::B {
            return Err(Error::Parameter(format!(
                "the first batch must be party A's and the second party B's (found {} and {})",
                a.party.name(),
                b.party.name()
            )));
        }
        RecordMatcher::pair(schema, a, b)
    }

    /// Two parties' batches of a linkage of more ([`crate::multi::records`]):
    /// every check of [`RecordMatcher::new`] but which party is which.
    pub fn pair(schema: Schema, a: RecordBatch, b: RecordBatch) -> Result<RecordMatcher, Error> {
        schema.validate()?;
        a.validate(&schema)?;
        b.validate(&schema)?;
        if a.keyed != b.keyed {
            return Err(Error::TransformMismatch(
                "one record batch was embedded with the shared key and the other without".into(),
            ));
        }
        if a.encoding != b.encoding {
            return Err(Error::TransformMismatch(format!(
                "the record batches were encoded differently (A: {}, B: {}): both parties must embed with the same encoding",
                a.encoding.as_deref().unwrap_or("rotation"),
                b.encoding.as_deref().unwrap_or("rotation")
            )));
        }
        if let (Some(ka), Some(kb)) = (&a.key_check, &b.key_check) {
            if ka != kb {
                return Err(Error::TransformMismatch(
                    "the two record batches were made with different keys (their key check values differ): both parties need the same key file".into(),
                ));
            }
        }
        for ((name, da), (_, db)) in a.fields.iter().zip(&b.fields) {
            if let (
                FieldData::Embedded { base: ba, parts: pa, shape: sa },
                FieldData::Embedded { base: bb, parts: pb, shape: sb },
            ) = (da, db)
            {
                if sa != sb {
                    return Err(Error::Parameter(format!(
                        "field {name:?}: the two batches describe the base's coordinates differently"
                    )));
                }
                if ba != bb {
                    return Err(crate::error::ProtocolError::Fingerprint {
                        what: format!("field {name:?} of party B's record batch"),
                        found: bb.clone(),
                        expected: ba.clone(),
                    }
                    .into());
                }
                if pa[0].vectors.dim() != pb[0].vectors.dim() {
                    return Err(Error::Parameter(format!(
                        "field {name:?}: A's vectors have {} components, B's {}",
                        pa[0].vectors.dim(),
                        pb[0].vectors.dim()
                    )));
                }
            }
        }
        let m = RecordMatcher { schema, a, b };
        Comparer::new(&m.schema, &m.a, &m.b).map_err(Error::Parameter)?;
        Ok(m)
    }

    pub fn a(&self) -> &RecordBatch {
        &self.a
    }

    pub fn b(&self) -> &RecordBatch {
        &self.b
    }

    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The candidate pairs (a, b), ascending, of the union of the blocking
    /// rules, and what each rule found ([`super::blocking`]); with
    /// `blocking = "auto"`, of the rules the tool designs ([`RecordMatcher::design_blocks`]).
    pub fn candidates(&self) -> Result<Candidates, Error> {
        if self.schema.designs_blocks() {
            let mut schema = self.schema.clone();
            schema.blocks = self.design_blocks()?.rules;
            return super::blocking::candidates(&schema, &self.a, &self.b);
        }
        super::blocking::candidates(&self.schema, &self.a, &self.b)
    }

    /// Blocking rules designed by the tool for these batches
    /// ([`super::block_design`]); its pilot is linked as any candidates are
    /// (scored, fitted and decided here).
    pub fn design_blocks(&self) -> Result<super::block_design::Design, Error> {
        let (schema, a, b) = (&self.schema, &self.a, &self.b);
        super::block_design::design(schema, a, b, |candidates, rules| {
            let scored = score_candidates(schema, a, b, candidates, rules)?;
            let linkage = decide(schema, a.ids.len(), b.ids.len(), &scored, None, None);
            Ok(linkage.pairs.iter().filter(|p| p.class == Class::Match).map(|p| (p.a, p.b, p.probability)).collect())
        })
    }

    /// Links the batches: candidates, levels, the fit ([`RecordMatcher::score`]),
    /// then the decision with the schema's thresholds or the proposed ones.
    pub fn link(&self) -> Result<RecordLinkage, Error> {
        let s = self.score()?;
        Ok(self.decide(&s, None, None))
    }

    /// The candidates, each one's levels, the EM fit and the weights: all the
    /// decision needs, so thresholds can move without a new fit.
    pub fn score(&self) -> Result<Scored, Error> {
        let (candidates, rules) = self.candidates()?;
        score_candidates(&self.schema, &self.a, &self.b, candidates, rules)
    }

    /// The decision on scored candidates: M, P and U by `upper` and `lower`
    /// (each `None`: the schema's fixed threshold, else the proposed one), then
    /// the schema's assignment among M.
    pub fn decide(&self, s: &Scored, upper: Option<f64>, lower: Option<f64>) -> RecordLinkage {
        decide(&self.schema, self.a.ids.len(), self.b.ids.len(), s, upper, lower)
    }
}

/// `candidates` scored: each one's levels, the random pairs' patterns, the
/// fit ([`fit_scored`]) and the weights.
pub fn score_candidates(
    schema: &Schema,
    a: &RecordBatch,
    b: &RecordBatch,
    candidates: Vec<(u32, u32)>,
    rules: Vec<RuleCount>,
) -> Result<Scored, Error> {
    let cmp = Comparer::new(schema, a, b).map_err(Error::Parameter)?;
    let nf = cmp.fields.len();
    let levels: Vec<(Vec<u8>, bool)> = crate::par::map(&candidates, |&(x, y)| {
        let mut out = vec![0u8; nf];
        let swapped = cmp.levels(x, y, &mut out);
        (out, swapped)
    });
    let (na, nb) = (a.ids.len(), b.ids.len());
    let mut random: HashMap<Vec<u8>, u64> = HashMap::new();
    let mut out = vec![0u8; nf];
    for (x, y) in u_sample(na, nb) {
        cmp.levels(x, y, &mut out);
        *random.entry(out.clone()).or_default() += 1;
    }
    fit_scored(schema, na, nb, candidates, rules, levels, random.into_iter().collect())
}

/// The random pairs (a, b) of `na` A and `nb` B records whose levels start
/// u in the fit: [`U_SAMPLE`] drawn with a fixed seed (the matcher's choice
/// is not private, and the same batches must give the same linkage).
pub fn u_sample(na: usize, nb: usize) -> Vec<(u32, u32)> {
    let mut rng = Randomness::seeded(0x6c69_6e6b);
    let sample = (U_SAMPLE as u64).min(na as u64 * nb as u64) as usize;
    (0..sample).map(|_| (rng.below(na) as u32, rng.below(nb) as u32)).collect()
}

/// [`RecordMatcher::decide`] for `na` A and `nb` B records under `schema`:
/// the one decision, for the single machine and the sharded matcher
/// ([`super::shard`]).
pub fn decide(
    schema: &Schema,
    na: usize,
    nb: usize,
    s: &Scored,
    upper: Option<f64>,
    lower: Option<f64>,
) -> RecordLinkage {
    let Scored { candidates, rules, levels, fit, weights } = s;
    let mut sorted: Vec<(f64, f64)> = weights.iter().map(|&w| (w, fit.probability(w))).collect();
    crate::sorting::sort_by(&mut sorted, |x, y| y.0.total_cmp(&x.0));
    let (_, proposed_lower) = propose(&sorted, schema.decision.precision, schema.decision.recall);
    // the matches' precision is estimated on the pairs the assignment keeps
    // (greedy by weight, so the pairs at or above any weight keep the same
    // ones): a doubtful pair's rivals for its records do not count against it
    let estimate = match schema.assignment() {
        Assignment::Auto => Assignment::ManyToOne,
        other => other,
    };
    let all: Vec<(u32, u32, f64)> =
        (0..candidates.len()).map(|i| (candidates[i].0, candidates[i].1, weights[i])).collect();
    let patterns: Vec<&[u8]> = levels.iter().map(|(p, _)| p.as_slice()).collect();
    let probabilities: Vec<f64> = weights.iter().map(|&w| fit.probability(w)).collect();
    // the upper weight for the pairs `assignment` keeps, the pairs at or above it, and
    // the kept pairs' probability there
    let upper_for = |assignment: Assignment| {
        let kept = assign(&all, assignment);
        let p = kept_probabilities(&patterns, &probabilities, &kept);
        let kept: Vec<(f64, f64)> = kept.iter().zip(p).map(|(&i, p)| (weights[i], p)).collect();
        let upper = upper
            .or(schema.decision.upper)
            .unwrap_or_else(|| propose(&kept, schema.decision.precision, schema.decision.recall).0);
        let above: Vec<usize> = (0..candidates.len()).filter(|&i| weights[i] >= upper).collect();
        let at = kept.iter().filter(|(w, _)| *w >= upper).map(|(w, _)| *w).fold(f64::INFINITY, f64::min);
        let p = kept.iter().filter(|(w, _)| *w == at).map(|(_, p)| *p).reduce(f64::min);
        (upper, above, p)
    };
    let (mut upper, mut above, mut upper_probability) = upper_for(estimate);
    let assignment = match schema.assignment() {
        Assignment::Auto => {
            // on the pairs many-to-one keeps: a B record whose best A record is
            // another (a household's) does not make its rival a copy's original
            let m_pairs: Vec<(u32, u32, f64)> =
                above.iter().map(|&i| (candidates[i].0, candidates[i].1, weights[i])).collect();
            let probs: Vec<(u32, u32, f64)> = assign(&m_pairs, Assignment::ManyToOne)
                .into_iter()
                .map(|k| (m_pairs[k].0, m_pairs[k].1, probabilities[above[k]]))
                .collect();
            if has_duplicates(&probs) {
                Assignment::ManyToOne
            } else {
                (upper, above, upper_probability) = upper_for(Assignment::OneToOne);
                Assignment::OneToOne
            }
        }
        other => other,
    };
    let lower = lower.or(schema.decision.lower).unwrap_or(proposed_lower).min(upper);
    let m_pairs: Vec<(u32, u32, f64)> = above.iter().map(|&i| (candidates[i].0, candidates[i].1, weights[i])).collect();
    let scored = |i: usize, class: Class| ScoredPair {
        a: candidates[i].0,
        b: candidates[i].1,
        weight: weights[i],
        probability: fit.probability(weights[i]),
        levels: levels[i].0.clone(),
        swapped: levels[i].1,
        class,
    };
    let mut pairs: Vec<ScoredPair> =
        assign(&m_pairs, assignment).into_iter().map(|k| scored(above[k], Class::Match)).collect();
    let matches = pairs.len() as u64;
    let mut possible: Vec<usize> =
        (0..candidates.len()).filter(|&i| weights[i] >= lower && weights[i] < upper).collect();
    crate::sorting::sort_by(&mut possible, |&x, &y| {
        weights[y].total_cmp(&weights[x]).then(candidates[x].cmp(&candidates[y]))
    });
    pairs.extend(possible.iter().map(|&i| scored(i, Class::Possible)));
    let n = candidates.len() as u64;
    let all = na as f64 * nb as f64;
    RecordLinkage {
        fit: fit.clone(),
        upper,
        lower,
        upper_probability,
        assignment,
        candidates: n,
        matches,
        possible: possible.len() as u64,
        non_matches: n - matches - possible.len() as u64,
        reduction_ratio: 1.0 - n as f64 / all,
        pairs,
        rules: rules.clone(),
        candidate_pairs: candidates.clone(),
    }
}

/// The bounded fit ([`super::fit`]) over the candidates' patterns (`levels[i]`:
/// candidate i's), u fixed from the random pairs' patterns (`random`: distinct, with counts,
/// any order: they are summed), and the weights: [`Scored`] for `na` A and
/// `nb` B records. The one fit, for the single machine and the sharded
/// matcher ([`super::shard`]).
pub fn fit_scored(
    schema: &Schema,
    na: usize,
    nb: usize,
    candidates: Vec<(u32, u32)>,
    rules: Vec<RuleCount>,
    levels: Vec<(Vec<u8>, bool)>,
    random: Vec<(Vec<u8>, u64)>,
) -> Result<Scored, Error> {
    let sent: Vec<_> = schema.sent().collect();
    let level_counts: Vec<usize> = sent.iter().map(|f| f.level_count()).collect();
    let u_random = frequencies(&random, &level_counts);
    let starts: Vec<Start> = sent
        .iter()
        .zip(u_random)
        .map(|(f, u)| Start {
            name: f.name.clone(),
            levels: f.level_names(),
            u_random: u,
            fixed_m: f.m.clone(),
            fixed_u: f.u.clone(),
        })
        .collect();
    let patterns: Vec<&[u8]> = levels.iter().map(|(p, _)| p.as_slice()).collect();
    let mut fit = fit_patterns(schema, na, nb, &candidates, &patterns, starts.clone())?;
    // fields whose disagreements go together among matches are weighed as one
    let fixed: Vec<bool> = starts.iter().map(|s| s.fixed_m.is_some() || s.fixed_u.is_some()).collect();
    let mut joint = super::joint::dependent(&fit, &distinct(&patterns).0, &fixed);
    while !joint.is_empty() {
        let together: Vec<Vec<u8>> = patterns.iter().map(|p| joined(p, &joint)).collect();
        let together: Vec<&[u8]> = together.iter().map(|p| p.as_slice()).collect();
        let random: Vec<(Vec<u8>, u64)> = random.iter().map(|(p, c)| (joined(p, &joint), *c)).collect();
        let mut refit =
            fit_patterns(schema, na, nb, &candidates, &together, super::joint::starts(&starts, &joint, &random))?;
        refit.joint = joint.clone();
        let kept: Vec<_> = joint.iter().filter(|j| super::joint::confirmed(&refit, j)).cloned().collect();
        if kept.len() == joint.len() {
            fit = refit;
            break;
        }
        joint = kept;
    }
    // comparisons whose agreements go together among non-matches are weighed once
    fit.interactions = super::interaction::found(schema, &rules, &fit, &candidates, &patterns, na, nb);
    let weights: Vec<f64> = levels.iter().map(|(p, _)| fit.weight(p)).collect();
    Ok(Scored { candidates, rules, levels, fit, weights })
}

/// The distinct `patterns` with their counts (sorted), and each pattern's index among them.
fn distinct(patterns: &[&[u8]]) -> (Vec<(Vec<u8>, u64)>, Vec<u32>) {
    let mut counts: HashMap<&[u8], u64> = HashMap::new();
    for p in patterns {
        *counts.entry(p).or_default() += 1;
    }
    let mut out: Vec<(Vec<u8>, u64)> = counts.into_iter().map(|(p, c)| (p.to_vec(), c)).collect();
    crate::sorting::sort_by(&mut out, |x, y| x.cmp(y));
    let index: HashMap<&[u8], u32> = out.iter().enumerate().map(|(k, (p, _))| (p.as_slice(), k as u32)).collect();
    let of = patterns.iter().map(|p| index[p]).collect();
    (out, of)
}

/// The bounded fit of the candidates' `patterns` (one per candidate, one
/// level per comparison of `starts`) under the schema's assignment.
fn fit_patterns(
    schema: &Schema,
    na: usize,
    nb: usize,
    candidates: &[(u32, u32)],
    patterns: &[&[u8]],
    starts: Vec<Start>,
) -> Result<Fit, Error> {
    let (distinct, of) = distinct(patterns);
    let rivals: Vec<(u32, u32, u32)> = candidates.iter().zip(&of).map(|(&(a, b), &k)| (a, b, k)).collect();
    // the E-step's rivals under the assignment's one-match assumption
    let fit_with =
        |one_match| fit_bounded(&distinct, Some(Rivals { pairs: &rivals, one_match }), starts.clone(), na, nb);
    Ok(match schema.assignment() {
        Assignment::OneToOne => fit_with(OneMatch::Both)?,
        Assignment::ManyToOne => fit_with(OneMatch::B)?,
        Assignment::All => fit_bounded(&distinct, None, starts.clone(), na, nb)?,
        // one-to-one's assumption first, many-to-one's where that fit still
        // shows copies: under one-to-one's, an A record's copies share one
        // match and the fit would learn from a third of each. Not the other
        // way: without A's side shared, a household member's candidate looks
        // like a copy (census-W2 at high noise)
        Assignment::Auto => {
            let fit = fit_with(OneMatch::Both)?;
            if shows_copies(&fit, candidates, patterns) {
                fit_with(OneMatch::B)?
            } else {
                fit
            }
        }
    })
}

/// Whether `fit` shows B holding several copies of A's records, by
/// [`has_duplicates`] on the pairs many-to-one keeps among the candidates
/// (`levels[i]`: candidate i's) the fit takes for matches more than not.
fn shows_copies(fit: &Fit, candidates: &[(u32, u32)], patterns: &[&[u8]]) -> bool {
    let likely: Vec<(u32, u32, f64)> = candidates
        .iter()
        .zip(patterns)
        .map(|(&(a, b), p)| (a, b, fit.weight(p)))
        .filter(|&(_, _, w)| fit.probability(w) >= 0.5)
        .collect();
    let kept: Vec<(u32, u32, f64)> = assign(&likely, Assignment::ManyToOne)
        .into_iter()
        .map(|k| (likely[k].0, likely[k].1, fit.probability(likely[k].2)))
        .collect();
    has_duplicates(&kept)
}

#[cfg(test)]
#[path = "linker_tests.rs"]
mod tests;
