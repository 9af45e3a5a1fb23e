//! The matcher's steps, the one place they are chained: read both parties'
//! vector batches and check them against each other ([`Matcher::new`]), then
//! link them under a rule ([`Matcher::link`]).
//!
//! The CLI's `match`, the wasm `Matcher`, [`crate::session`], the benches and the
//! tests call these.
//!
//! **Privacy.** The matcher sees vectors, A's thresholds, the base's shape and
//! the ids the parties chose; never a record, a noisy base's counts or the key
//! (docs/THREAT_MODEL.md). It spends no budget.

use crate::cutoff::{Cutoff, Evidence, Plan};
use crate::error::{Error, ProtocolError};
use crate::matching::{self, Candidates, MatchStats, Pair, Rule};
use crate::protocol::{LinkedPair, MatchResult, VectorBatch};

/// Checks that two batches can be linked ([`Matcher::new`]'s checks) and
/// returns the edit distance of A's thresholds. Reads the headers only: an
/// empty batch of the same header answers the same.
pub fn check_pair(a: &VectorBatch, b: &VectorBatch) -> Result<u32, Error> {
    b.check_base(&a.fingerprint)?;
    let ed = match &a.thresholds {
        Some(t) => t.ed,
        None => {
            return Err(Error::Parameter(
                "party A's vector batch has no thresholds: embed it as party A (which sends thresholds)".into(),
            ))
        }
    };
    crate::keyed::check_transforms(a.transform.as_deref(), b.transform.as_deref())?;
    if a.vectors.dim() != b.vectors.dim() {
        return Err(Error::Parameter(format!(
            "dimension mismatch: A's vectors have {} components, B's {}",
            a.vectors.dim(),
            b.vectors.dim()
        )));
    }
    Ok(ed)
}

/// How the cut-off of `ed auto` is fitted ([`crate::cutoff`]) when `a`
/// (party A's batch; headers suffice) and `b` are linked under `rule`: on the
/// q-gram filter's bounds on edits, or for keyed batches (no filter) on the
/// distances relative to A's thresholds ([`Evidence::Distance`]). `None` when
/// A asks for a fixed `ed`, or for a rule other than `ranked` or an unkeyed
/// batch without the filter, where every candidate within the bound is kept.
/// The one place this is decided: [`Matcher::fitted_candidates`] and the
/// sharded matcher ([`crate::shard`]) ask it.
pub fn cutoff_bound(a: &VectorBatch, b: &VectorBatch, rule: Rule) -> Option<Plan> {
    let t = a.thresholds.as_ref().filter(|t| t.auto)?;
    let shape = a.shape.as_ref().filter(|s| b.shape.as_ref() == Some(*s) && s.filter_length().is_some());
    let evidence = match (shape, &a.transform) {
        (Some(_), _) => Evidence::Edits,
        (None, Some(_)) => Evidence::Distance,
        (None, None) => return None,
    };
    (rule == Rule::Ranked).then_some(Plan { bound: t.ed, evidence })
}

/// Checks that `a` (its thresholds the pair's) and `b` can be linked
/// ([`check_pair`]) and returns `a`'s thresholds as the matcher compares them
/// (widened for keyed batches by the transform's proven rounding bound,
/// [`crate::keyed::batch_thresholds`]) with their edit distance. Borrows the
/// batches: the multi-party linker ([`crate::multi`]) links each pair of
/// parties without a copy of either.
pub fn pair_thresholds(a: &VectorBatch, b: &VectorBatch) -> Result<(Vec<f64>, u32), Error> {
    let ed = check_pair(a, b)?;
    let values = a.thresholds.as_ref().map_or(&[][..], |t| t.values.as_slice());
    Ok((crate::keyed::batch_thresholds(&a.vectors, &b.vectors, values, a.transform.as_deref()), ed))
}

/// [`Matcher::fitted_candidates`] of `a` and `b` checked by [`pair_thresholds`]
/// (`thresholds` and `ed` its answer): the one place candidates are generated
/// and, with `ed auto`, cut.
pub fn fitted_candidates(
    a: &VectorBatch,
    b: &VectorBatch,
    thresholds: &[f64],
    ed: u32,
    rule: Rule,
) -> Result<(Candidates, MatchStats, Option<Cutoff>), Error> {
    let shape = a.shape.as_ref().filter(|s| b.shape.as_ref() == Some(*s));
    let (c, stats) = matching::candidates(&a.vectors, &b.vectors, thresholds, rule, ed, shape)?;
    let Some(plan) = cutoff_bound(a, b, rule) else { return Ok((c, stats, None)) };
    let scored = match c {
        Candidates::Scored(scored) => scored,
        Candidates::Within(pairs) => crate::cutoff::scored_by_distance(&a.vectors, &b.vectors, &pairs, thresholds),
    };
    let (kept, fit) = crate::cutoff::fit(&scored, plan, a.ids.len(), b.ids.len());
    Ok((Candidates::Scored(kept), stats, Some(fit)))
}

/// Party A's batch (with thresholds) and party B's, checked against each other.
pub struct Matcher {
    a: VectorBatch,
    b: VectorBatch,
    /// A's thresholds as the matcher compares them: widened for keyed batches
    /// by the transform's proven rounding bound ([`crate::keyed::matching_thresholds`]).
    thresholds: Vec<f64>,
    ed: u32,
    /// A asked for `ed auto`: the matcher fits the cut-off ([`crate::cutoff`]).
    auto: bool,
}

/// A linkage: the rule, its pairs (rows of A and B), and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Linkage {
    pub rule: Rule,
    pub pairs: Vec<Pair>,
    pub stats: MatchStats,
    /// With `ed auto`: the fitted cut-off (what it chose, and why).
    pub cutoff: Option<Cutoff>,
}

impl Matcher {
    /// Checks that both batches were made with the same shared base, that A's
    /// carries thresholds, that both are keyed with the same key or neither, and
    /// that their dimensions agree.
    pub fn new(a: VectorBatch, b: VectorBatch) -> Result<Matcher, Error> {
        let (thresholds, ed) = pair_thresholds(&a, &b)?;
        let auto = a.thresholds.as_ref().is_some_and(|t| t.auto);
        Ok(Matcher { a, b, thresholds, ed, auto })
    }

    /// Reads both batches (JSON or binary) and checks them ([`Matcher::new`]).
    /// An error names the party whose message is wrong.
    pub fn read(a: &[u8], b: &[u8]) -> Result<Matcher, Error> {
        let named = |party: &str, e: ProtocolError| match e {
            ProtocolError::Invalid { what, reason } => {
                ProtocolError::Invalid { what: format!("party {party}'s {what}"), reason }
            }
            ProtocolError::Truncated { what, reason } => {
                ProtocolError::Truncated { what: format!("party {party}'s {what}"), reason }
            }
            ProtocolError::Implausible { what, reason } => {
                ProtocolError::Implausible { what: format!("party {party}'s {what}"), reason }
            }
            other => other,
        };
        let a = VectorBatch::read(a).map_err(|e| named("A", e))?;
        let b = VectorBatch::read(b).map_err(|e| named("B", e))?;
        Matcher::new(a, b)
    }

    pub fn a(&self) -> &VectorBatch {
        &self.a
    }

    pub fn b(&self) -> &VectorBatch {
        &self.b
    }

    /// The thresholds the matcher compares A's distances with.
    pub fn thresholds(&self) -> &[f64] {
        &self.thresholds
    }

    /// The edit distance of A's thresholds (the q-gram filter's).
    pub fn ed(&self) -> u32 {
        self.ed
    }

    /// Whether A asked for `ed auto` (the matcher then fits the cut-off).
    pub fn auto(&self) -> bool {
        self.auto
    }

    /// The pairs `rule` chooses from. The q-gram filter needs the base's shape,
    /// on both batches and the same.
    pub fn candidates(&self, rule: Rule) -> Result<(Candidates, MatchStats), Error> {
        self.fitted_candidates(rule).map(|(c, s, _)| (c, s))
    }

    /// [`Matcher::candidates`], and with `ed auto` only those the fitted
    /// cut-off keeps, with the fit ([`cutoff_bound`] says how it is fitted;
    /// keyed candidates are scored by cosine first). Without a fit (a rule
    /// other than `ranked`) every candidate within the bound is kept.
    pub fn fitted_candidates(&self, rule: Rule) -> Result<(Candidates, MatchStats, Option<Cutoff>), Error> {
        fitted_candidates(&self.a, &self.b, &self.thresholds, self.ed, rule)
    }

    /// The pairs `rule` keeps of `candidates`.
    pub fn assign(&self, candidates: &Candidates, rule: Rule) -> Vec<Pair> {
        candidates.assign(&self.a.vectors, &self.b.vectors, rule)
    }

    /// Links the batches under `rule`.
    pub fn link(&self, rule: Rule) -> Result<Linkage, Error> {
        let (c, stats, cutoff) = self.fitted_candidates(rule)?;
        let pairs = match (c, rule) {
            // every candidate: no copy of what may be millions of pairs
            (Candidates::Within(pairs), Rule::All) => pairs,
            (c, rule) => self.assign(&c, rule),
        };
        let stats = MatchStats { pairs: pairs.len() as u64, ..stats };
        Ok(Linkage { rule, pairs, stats, cutoff })
    }

    /// A linkage as the match-result message: pairs by the parties' ids.
    pub fn result(&self, linkage: &Linkage) -> MatchResult {
        let id = |ids: &[String], r: u32| ids.get(r as usize).cloned().unwrap_or_default();
        MatchResult {
            fingerprint: self.a.fingerprint.clone(),
            rule: linkage.rule,
            candidates: linkage.stats.candidates,
            pairs: linkage
                .pairs
                .iter()
                .map(|p| LinkedPair { a: id(&self.a.ids, p.a), b: id(&self.b.ids, p.b), distance: p.distance })
                .collect(),
        }
    }
}
