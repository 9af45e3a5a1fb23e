//! The messages that cross between parties: versioned, self-describing, validated
//! on read. Reading never panics: every problem is a [`ProtocolError`] that names it.
//!
//! | message | format name | JSON | binary |
//! |---|---|---|---|
//! | a party's noisy base | `gramlink/noisy-base` | yes | |
//! | the shared base | `gramlink/shared-base` | yes | |
//! | a vector batch | `gramlink/vector-batch` | yes | yes (`GLVB`) |
//! | a match result | `gramlink/match-result` | yes | |
//!
//! No message holds record text: ids are what the party chose, vectors and
//! thresholds are numbers, bases hold grams and noisy counts only.

use crate::base::{NoisyBase, SharedBase};
use crate::error::ProtocolError;
use serde::{Deserialize, Serialize};

mod envelope;
pub(crate) use envelope::{envelope, open};
pub use envelope::{
    MATCH_RESULT, MAX_MESSAGE_BYTES, NOISY_BASE, SHARED_BASE, VECTOR_BATCH, VECTOR_BATCH_VERSION, VERSION,
};

// ---------------------------------------------------------------- noisy base

pub fn write_noisy_base(base: &NoisyBase) -> String {
    envelope(NOISY_BASE, base)
}

pub fn read_noisy_base(text: &str) -> Result<NoisyBase, ProtocolError> {
    let base: NoisyBase = open(text, NOISY_BASE)?;
    let invalid = |reason: String| ProtocolError::Invalid { what: "noisy base".into(), reason };
    let p = &base.params;
    if p.q_min == 0 || p.q_min > p.q_max {
        return Err(invalid(format!("gram lengths [{}, {}] are not a valid range", p.q_min, p.q_max)));
    }
    if !(p.epsilon.is_finite() && p.epsilon >= 0.0 && p.epsilon_spent.is_finite() && p.epsilon_spent >= 0.0) {
        return Err(invalid("epsilon values must be finite and non-negative".into()));
    }
    if p.epsilon_spent > p.epsilon + 1e-12 {
        return Err(invalid(format!("it claims to spend {} of a budget of {}", p.epsilon_spent, p.epsilon)));
    }
    if let Some(pad) = base.padding {
        let sym = base.alphabet.symbols();
        if sym.len() < 2 || sym[sym.len() - 2..] != [pad.start, pad.end] {
            return Err(invalid(format!(
                "it says it was mined padded with {:?} and {:?}, but its alphabet does not end with them",
                pad.start, pad.end
            )));
        }
    }
    let mut seen = std::collections::HashSet::new();
    for g in &base.grams {
        let len = g.gram.chars().count();
        if len < p.q_min || len > p.q_max || !base.alphabet.covers(&g.gram) {
            return Err(invalid(format!(
                "gram {:?} is not a gram of lengths [{}, {}] over the alphabet",
                g.gram, p.q_min, p.q_max
            )));
        }
        if !g.count.is_finite() {
            return Err(invalid(format!("gram {:?} has a non-finite count", g.gram)));
        }
        if !seen.insert(g.gram.as_str()) {
            return Err(invalid(format!("gram {:?} appears twice", g.gram)));
        }
    }
    Ok(base)
}

// --------------------------------------------------------------- shared base

/// A shared base's message is the base's own serde form: `padding` absent
/// for unpadded bases, `private` present (`false`) only for a seeded run.
pub fn write_shared_base(base: &SharedBase) -> String {
    envelope(SHARED_BASE, base)
}

/// Reads a shared base and checks its fingerprint against its content.
pub fn read_shared_base(text: &str) -> Result<SharedBase, ProtocolError> {
    // as sent, unchecked: rebuilt (validated, its fingerprint computed) from its fields
    let sent: SharedBase = open(text, SHARED_BASE)?;
    let base = SharedBase::with_padding(
        sent.alphabet().clone(),
        sent.q_min(),
        sent.q_max(),
        sent.grams().to_vec(),
        sent.padding(),
    )
    .map_err(|e| ProtocolError::Invalid { what: "shared base".into(), reason: e.to_string() })?
    .with_private(sent.is_private());
    if base.fingerprint() != sent.fingerprint() {
        return Err(ProtocolError::Fingerprint {
            what: "the shared base's content".into(),
            found: base.fingerprint().into(),
            expected: sent.fingerprint().into(),
        });
    }
    Ok(base)
}

mod batch;
mod binary;
pub mod plausible;
mod rows;
pub mod signature;
pub mod sparse_wire;

pub use batch::{Party, ThresholdSet, UnknownParty, VectorBatch};
pub use binary::{from_le_bytes, read_numbers, BinaryLayout, Number};
pub use rows::read_binary_rows;

// -------------------------------------------------------------- match result

/// One linked pair, by the parties' ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkedPair {
    pub a: String,
    pub b: String,
    pub distance: f64,
}

/// The matcher's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    pub fingerprint: String,
    /// The rule the pairs were chosen by.
    pub rule: crate::matching::Rule,
    pub candidates: u64,
    pub pairs: Vec<LinkedPair>,
}

pub fn write_match_result(r: &MatchResult) -> String {
    envelope(MATCH_RESULT, r)
}

pub fn read_match_result(text: &str) -> Result<MatchResult, ProtocolError> {
    let r: MatchResult = open(text, MATCH_RESULT)?;
    if let Some(p) = r.pairs.iter().find(|p| !p.distance.is_finite() || p.distance < 0.0) {
        return Err(ProtocolError::Invalid {
            what: "match result".into(),
            reason: format!("pair ({}, {}) has distance {}", p.a, p.b, p.distance),
        });
    }
    Ok(r)
}
