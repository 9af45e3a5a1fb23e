//! Matching thresholds for an edit distance `ed` (paper section 6.1).
//!
//! A vector of B matches a record `s` of A when `‖v(s) − v(t)‖₂ ≤ th(s)`. Three
//! ways to choose `th` ([`ThresholdMode`]):
//!
//! - **global**: one value for every record, the user's or the paper's
//!   Proposition 6.9, `Δq·ed` with `Δq = q_max − q_min + 1` ([`global_bound`]).
//! - **paper**: the personalized threshold of Algorithm 2 ([`Thresholder::paper`]).
//!   Faithful to the paper, and therefore **not an upper bound**: it counts each
//!   base gram touched by an edit once, with weight `1/|g|²`, but an edit also
//!   *creates* grams (a substitution changes two 1-gram coordinates: 2 in the squared
//!   distance where `D[i] ≤ 1 + 2/4 + 3/9 ≈ 1.83`), and several edits or occurrences
//!   may hit the same coordinate, whose contributions add before squaring.
//! - **sound**: a personalized bound proven to hold for every string within `ed`
//!   edits ([`Thresholder::sound`]; the proof is there).
//!
//! Per string the personalized thresholds cost O(|s|·ed·q_max + occurrences) after
//! one Aho–Corasick pass; [`thresholds`] runs them in parallel natively (rayon) and
//! sequentially on wasm32, with identical results (each value depends on its
//! string only).

use crate::base::SharedBase;
use crate::error::Error;
use serde::{Deserialize, Serialize};

mod keys;
mod paper;
mod scratch;
mod sound;
mod space;
#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;
mod thresholder;

use scratch::Scratch;
pub use space::Space;
pub use thresholder::Thresholder;

/// The largest edit distance accepted: thresholds grow quickly with `ed`, and
/// beyond a few edits nothing useful is linked anyway.
pub const MAX_ED: u32 = 10;

/// The longest gram the personalized thresholds accept: a gram and its
/// placement are packed in one 128-bit lookup key (miners stop at 12 anyway).
pub const MAX_GRAM_LEN: usize = 16;

/// Least relative margin added to the sound threshold, so that distances computed
/// from the f32 vectors cannot exceed it through rounding alone.
///
/// Each coordinate is one correctly rounded division (relative error ≤ u = 2⁻²⁴):
/// equal coordinates round identically, and differing ones differ by at least
/// `1/q_max` while each is at most `|s| + ed`; so a coordinate difference is off
/// by a relative `u·(2|s| + ed + 1)·q_max` at most, and summing `k` squares in f32
/// adds about `k·u`. [`Thresholder::sound`] pads by this constant plus four times
/// that estimate (≈ 10⁻⁵ for names and k = 75).
pub const SOUND_MARGIN: f64 = 1e-4;

/// How thresholds are chosen. Serialized as `{"global": 2.5}`, `{"global": null}`,
/// `"paper"` or `"sound"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThresholdMode {
    /// One threshold for all records: the given value, or `Δq·ed` (Prop. 6.9).
    Global(Option<f64>),
    /// Algorithm 2 of the paper, personalized, not an upper bound.
    Paper,
    /// Personalized and proven: every string within `ed` edits is within it.
    Sound,
}

/// Proposition 6.9: `Δq·ed` with `Δq = q_max − q_min + 1`.
///
/// Per gram length q, an edit touches at most q windows of length q of each
/// string, so with `r`, `a` the removed and added counts of that length,
/// `Σ(a_g − r_g)²/q² ≤ ((Σa)² + (Σr)²)/q² ≤ 2ed²` and `‖Δ‖ ≤ √(2Δq)·ed`. That is at
/// most `Δq·ed` when `Δq ≥ 2`, so the bound holds then; with a single gram length
/// (`Δq = 1`) it does not (`AAA` → `BBB` over the base {A, B}: `√18 > 3`).
pub fn global_bound(base: &SharedBase, ed: u32) -> f64 {
    (base.q_max() - base.q_min() + 1) as f64 * ed as f64
}

/// The threshold of every record for edit distance `ed`, in record order, for
/// distances between the base's gram vectors ([`thresholds_in`] with
/// [`Space::Grams`]).
pub fn thresholds(base: &SharedBase, records: &[String], ed: u32, mode: &ThresholdMode) -> Result<Vec<f64>, Error> {
    thresholds_in(base, records, ed, mode, &Space::Grams)
}

/// The threshold of every record for edit distance `ed`, in record order, for
/// distances in `space`. The sound mode is proven in that space itself
/// ([`Thresholder::in_space`]); a global value and the paper's threshold are
/// scaled by [`Space::factor`], which keeps a bound a bound.
///
/// Errors (`Error::Parameter`) if `ed > MAX_ED`, if a global value is not a finite
/// number ≥ 0, if the base has a gram longer than [`MAX_GRAM_LEN`], or if the
/// space does not fit the base.
pub fn thresholds_in(
    base: &SharedBase,
    records: &[String],
    ed: u32,
    mode: &ThresholdMode,
    space: &Space,
) -> Result<Vec<f64>, Error> {
    check_ed(ed)?;
    let factor = space.factor();
    match mode {
        ThresholdMode::Global(Some(v)) if !v.is_finite() || *v < 0.0 => {
            Err(Error::Parameter(format!("the global threshold must be a finite number ≥ 0, got {v}")))
        }
        ThresholdMode::Global(Some(v)) => Ok(vec![*v * factor; records.len()]),
        ThresholdMode::Global(None) => Ok(vec![global_bound(base, ed) * factor; records.len()]),
        ThresholdMode::Paper => {
            let t = Thresholder::new(base, ed)?;
            Ok(per_record(records, |s, sc| t.paper_with(s, sc) * factor))
        }
        ThresholdMode::Sound => {
            let t = Thresholder::in_space(base, ed, space)?;
            Ok(per_record(records, |s, sc| t.sound_with(s, sc)))
        }
    }
}

fn check_ed(ed: u32) -> Result<(), Error> {
    if ed > MAX_ED {
        return Err(Error::Parameter(format!("edit distance {ed} is above the supported maximum of {MAX_ED}")));
    }
    Ok(())
}

/// `f` of each record, computed once per distinct record: a threshold depends
/// on the string alone, and person records repeat (a million people share a
/// few thousand given names), so this is the same vector at a fraction of the work.
fn per_record<F: Fn(&str, &mut Scratch) -> f64 + Sync + Send>(records: &[String], f: F) -> Vec<f64> {
    let mut first: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    let mut distinct: Vec<&str> = Vec::new();
    let slot: Vec<u32> = records
        .iter()
        .map(|r| {
            *first.entry(r.as_str()).or_insert_with(|| {
                distinct.push(r);
                (distinct.len() - 1) as u32
            })
        })
        .collect();
    let values = crate::par::map_init(&distinct, Scratch::default, |sc, s| f(s, sc));
    slot.iter().map(|&i| values[i as usize]).collect()
}

impl ThresholdMode {
    /// The mode's name, as options and messages spell it: `paper`, `sound`,
    /// `global` (a global value is not part of the name).
    pub fn name(&self) -> &'static str {
        match self {
            ThresholdMode::Paper => "paper",
            ThresholdMode::Sound => "sound",
            ThresholdMode::Global(_) => "global",
        }
    }

    /// The mode spelled `name` by [`ThresholdMode::name`]; `global` is the
    /// paper's global bound (no value).
    pub fn from_name(name: &str) -> Option<ThresholdMode> {
        [ThresholdMode::Paper, ThresholdMode::Sound, ThresholdMode::Global(None)].into_iter().find(|m| m.name() == name)
    }
}
