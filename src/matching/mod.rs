//! The matcher: for every A vector, exactly the B vectors within A's threshold
//! (paper equation 4), and an optional one-to-one assignment.
//!
//! [`range_match`] uses an index (`index`) that may prune, never change, the
//! answer: every decision is `distance(a, b) <= th_a` with the one [`distance`]
//! function, and a test compares it with [`brute_force`] on random data with ties.

mod brute;
mod distance;
mod index;
mod lattice;
mod nearest;
mod one_to_one;
mod pairs;
mod qgram;
mod sparse;
pub mod truth;

pub use crate::shape::Shape;
pub use brute::brute_force;
pub use distance::distance;
pub use index::{range_match, range_match_sequential};
pub use nearest::nearest;
pub use one_to_one::{one_to_one, one_to_one_scored};
pub(crate) use pairs::sort_by_a;
pub use pairs::{validate, MatchStats, Pair, MAX_PAIRS};
pub use qgram::{best_per_row, edit_bound, scored_both_ways_rows, scored_match, scored_match_rows, Scored, PER_ROW};

use crate::embed::BatchVectors;
use crate::error::Error;
use serde::{Deserialize, Serialize};

/// Which pairs a linkage returns. One spelling everywhere ([`Rule::name`]): the
/// CLI's `--rule`, the JS `rule` option, match results, serde.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(all(feature = "clap", not(target_arch = "wasm32")), derive(clap::ValueEnum))]
pub enum Rule {
    /// Every B within A's threshold (the paper's rule); after the q-gram
    /// filter when the vectors have a shape that filters ([`candidates`]).
    All,
    /// Greedy one-to-one by increasing distance among the candidates.
    Greedy,
    /// Mutual unique nearest neighbours within threshold ([`nearest`]).
    Nearest,
    /// The recommended rule: greedy one-to-one by cosine distance among the pairs
    /// passing the q-gram count filter and the threshold ([`scored_match`]);
    /// without a shape (keyed vectors) among the pairs within threshold.
    Ranked,
}

impl Rule {
    /// Every rule, in the order messages list them.
    pub const ALL: [Rule; 4] = [Rule::All, Rule::Greedy, Rule::Nearest, Rule::Ranked];

    /// The rule as options and results spell it.
    pub fn name(self) -> &'static str {
        match self {
            Rule::All => "all",
            Rule::Greedy => "greedy",
            Rule::Nearest => "nearest",
            Rule::Ranked => "ranked",
        }
    }

    /// The rule spelled `name` by [`Rule::name`], if any.
    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.name() == name)
    }

    /// What the rule keeps, in words (for messages).
    pub fn describe(self) -> &'static str {
        match self {
            Rule::All => "every B within A's threshold (after the q-gram filter)",
            Rule::Greedy => "greedy one-to-one",
            Rule::Nearest => "nearest one-to-one",
            Rule::Ranked => "greedy one-to-one by cosine after the q-gram filter",
        }
    }
}

/// The pairs a rule chooses from: with a shape that filters (sparse counts
/// of a base with a complete gram class, unkeyed or sketched), the pairs
/// passing the q-gram count filter for `ed` edits and the threshold, with
/// their cosine scores, for every rule (the rules differ only in what they
/// keep); otherwise every pair within A's thresholds.
#[derive(Debug, Clone, PartialEq)]
pub enum Candidates {
    Within(Vec<Pair>),
    Scored(Vec<Scored>),
}

impl Candidates {
    /// Every candidate pair (what [`Rule::All`] returns).
    pub fn pairs(&self) -> Vec<Pair> {
        match self {
            Candidates::Within(p) => p.clone(),
            Candidates::Scored(s) => s.iter().map(|x| x.pair).collect(),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Candidates::Within(p) => p.len(),
            Candidates::Scored(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pairs `rule` keeps of these candidates. Unscored candidates are
    /// ranked by cosine distance for [`Rule::Ranked`], computed from the distance
    /// and the norms of `a` and `b` (which a keyed rotation preserves).
    pub fn assign(&self, a: &BatchVectors, b: &BatchVectors, rule: Rule) -> Vec<Pair> {
        match (self, rule) {
            (Candidates::Scored(s), Rule::Ranked) => one_to_one_scored(s),
            (Candidates::Within(p), Rule::Ranked) => one_to_one_scored(&rank_by_cosine(a, b, p)),
            (c, Rule::All) => c.pairs(),
            (c, Rule::Greedy) => one_to_one(&c.pairs()),
            (c, Rule::Nearest) => nearest(&c.pairs()),
        }
    }
}

/// The candidates of `rule` (see [`Candidates`]). With a shape (vectors of a
/// base with a complete gram class) the q-gram filter for `ed` edits prunes
/// them, whatever the rule: [`Rule::Ranked`] keeps each A row's best
/// [`PER_ROW`] by cosine, the others every pair that passes.
///
/// Sparse vectors go through the sparse index (and the q-gram filter on
/// their rows as they are); dense ones through the dense indexes. Either way
/// the pairs are those of the dense form.
pub fn candidates(
    a: &BatchVectors,
    b: &BatchVectors,
    thresholds: &[f64],
    rule: Rule,
    ed: u32,
    shape: Option<&Shape>,
) -> Result<(Candidates, MatchStats), Error> {
    if a.dim() != b.dim() {
        return Err(Error::Parameter(format!(
            "dimension mismatch: A's vectors have {} components, B's {}",
            a.dim(),
            b.dim()
        )));
    }
    if let Some(shape) = shape.filter(|s| s.filter_length().is_some()) {
        // one candidate generation for every rule; only the ranked one caps a row
        let per_row = if rule == Rule::Ranked { PER_ROW } else { usize::MAX };
        let (scored, stats) = match (a, b) {
            (BatchVectors::Dense(a), BatchVectors::Dense(b)) => scored_match(a, b, thresholds, ed, shape, per_row)?,
            _ => scored_match_rows(a.source(), b.source(), thresholds, ed, shape, per_row)?,
        };
        return Ok((Candidates::Scored(scored), stats));
    }
    let (pairs, stats) = match (a, b) {
        (BatchVectors::Dense(a), BatchVectors::Dense(b)) => range_match(a, b, thresholds)?,
        (BatchVectors::Sparse(sa), BatchVectors::Sparse(sb)) if sparse::worthwhile_rows(sa, sb) => {
            sparse::sparse_match_rows(sa, sb, thresholds)?
        }
        // narrow or dense-ish vectors (the paper's bases): the dense indexes,
        // as the dense form would take
        _ => range_match(&a.to_dense(), &b.to_dense(), thresholds)?,
    };
    Ok((Candidates::Within(pairs), stats))
}

/// The distance of row `i` of `a` and row `j` of `b`: [`distance`] of their
/// dense forms, bit for bit, whatever form each is held in.
pub fn row_distance(a: &BatchVectors, i: usize, b: &BatchVectors, j: usize) -> f64 {
    if let (BatchVectors::Dense(a), BatchVectors::Dense(b)) = (a, b) {
        return distance(a.row(i), b.row(j));
    }
    let entries = |v: &BatchVectors, r: usize| {
        let (mut c, mut x) = (Vec::new(), Vec::new());
        v.source().nonzero(r, &mut |k, y| {
            c.push(k);
            x.push(y);
        });
        (c, x)
    };
    let ((ca, xa), (cb, xb)) = (entries(a, i), entries(b, j));
    sparse::sparse_distance((&ca, &xa), (&cb, &xb), f64::INFINITY)
}

/// `pairs` with their cosine distance as score, from the distance and the
/// norms only (so it works on keyed, rotated vectors too).
pub fn rank_by_cosine(a: &BatchVectors, b: &BatchVectors, pairs: &[Pair]) -> Vec<Scored> {
    // the same sum as over the dense row: zeros add +0.0
    let norm = |v: &BatchVectors, r: usize| {
        let mut s = 0.0f64;
        v.source().nonzero(r, &mut |_, x| s += x as f64 * x as f64);
        s.sqrt()
    };
    let na: Vec<f64> = (0..a.len()).map(|r| norm(a, r)).collect();
    let nb: Vec<f64> = (0..b.len()).map(|r| norm(b, r)).collect();
    pairs
        .iter()
        .map(|p| Scored {
            pair: *p,
            score: qgram::cosine_distance(na[p.a as usize], nb[p.b as usize], p.distance),
            edits: 0,
        })
        .collect()
}
