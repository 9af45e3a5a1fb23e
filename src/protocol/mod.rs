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

use crate::alphabet::Alphabet;
use crate::base::{NoisyBase, SharedBase};
use crate::error::ProtocolError;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const NOISY_BASE: &str = "gramlink/noisy-base";
pub const SHARED_BASE: &str = "gramlink/shared-base";
pub const VECTOR_BATCH: &str = "gramlink/vector-batch";
pub const MATCH_RESULT: &str = "gramlink/match-result";
/// The version this build writes and reads, for every message but the vector
/// batch ([`VECTOR_BATCH_VERSION`]).
pub const VERSION: u32 = 1;
/// The vector batch's version: 2 carries unkeyed vectors sparse, as gram ids
/// and counts ([`sparse_wire`]); version 1 batches (dense f32 only) are refused
/// with an error naming both versions.
pub const VECTOR_BATCH_VERSION: u32 = 2;

/// The version of messages of `format`.
pub(crate) fn version_of(format: &str) -> u32 {
    if format == VECTOR_BATCH {
        VECTOR_BATCH_VERSION
    } else {
        VERSION
    }
}
/// Largest message accepted (bytes): a NAMES batch is about 45 MB in JSON.
pub const MAX_MESSAGE_BYTES: usize = 1 << 30;

/// Wraps a payload with its format name and version.
pub(crate) fn envelope<T: Serialize>(format: &str, body: &T) -> String {
    let mut v = serde_json::to_value(body).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut v {
        map.insert("version".into(), Value::from(version_of(format)));
        map.insert("format".into(), Value::from(format));
    }
    // serde_json writes object keys in insertion order only with preserve_order;
    // readers do not care about order
    serde_json::to_string(&v).unwrap_or_default()
}

/// [`envelope`] without the `serde_json::Value` tree of the whole body (for
/// the large messages, the vector batch): [`write_envelope`]'s text.
pub(crate) fn envelope_streamed<T: Serialize>(format: &str, body: &T) -> String {
    let mut out = Vec::new();
    write_envelope(&mut out, format, body);
    // serde_json writes UTF-8 only
    String::from_utf8(out).unwrap_or_default()
}

/// Appends the message `body` (a struct, serialized as a JSON object) with
/// the format and version fields in front, as [`envelope`] gives it: the body
/// is written once, in place, and its opening brace becomes the comma after
/// the version.
pub(crate) fn write_envelope<T: Serialize>(out: &mut Vec<u8>, format: &str, body: &T) {
    out.extend_from_slice(b"{\"format\":");
    let _ = serde_json::to_writer(&mut *out, format);
    out.extend_from_slice(b",\"version\":");
    out.extend_from_slice(version_of(format).to_string().as_bytes());
    let at = out.len();
    // writing into a Vec fails only for a body that is not a map of strings
    // to values, which no message is
    let _ = serde_json::to_writer(&mut *out, body);
    match &out[at..] {
        [b'{', b'}'] => {
            out.truncate(at);
            out.push(b'}');
        }
        [b'{', ..] => out[at] = b',',
        _ => {
            out.truncate(at);
            out.push(b'}');
        }
    }
}

/// The two fields every message has, read without building the rest: the
/// other fields are skipped ([`serde::de::IgnoredAny`]), so checking a message
/// costs no memory beyond its text.
#[derive(Deserialize)]
struct Envelope {
    format: Option<Value>,
    version: Option<Value>,
}

/// Checks format and version, then decodes the payload straight into its
/// typed struct (never into a generic `serde_json::Value` first: for a large
/// vector batch that tree took many times the text's size).
pub(crate) fn open<T: DeserializeOwned>(text: &str, format: &'static str) -> Result<T, ProtocolError> {
    if text.len() > MAX_MESSAGE_BYTES {
        return Err(ProtocolError::Invalid {
            what: format.into(),
            reason: format!("larger than {MAX_MESSAGE_BYTES} bytes"),
        });
    }
    let syntax = |e: serde_json::Error| {
        if e.is_eof() {
            ProtocolError::Truncated { what: format.into(), reason: e.to_string() }
        } else {
            ProtocolError::Malformed { expected: format, reason: e.to_string() }
        }
    };
    // a struct also reads from a JSON array: anything but an object is refused first
    if text.trim_start().as_bytes().first().is_some_and(|&b| b != b'{') {
        serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(syntax)?;
        return Err(ProtocolError::Malformed { expected: format, reason: "not a JSON object".into() });
    }
    let env: Envelope = serde_json::from_str(text).map_err(syntax)?;
    let found = env
        .format
        .as_ref()
        .and_then(Value::as_str)
        .ok_or_else(|| ProtocolError::Malformed { expected: format, reason: "no \"format\" field".into() })?;
    if found != format {
        return Err(ProtocolError::WrongFormat { expected: format.into(), found: found.into() });
    }
    let version = env
        .version
        .as_ref()
        .and_then(Value::as_u64)
        .ok_or_else(|| ProtocolError::Malformed { expected: format, reason: "no numeric \"version\" field".into() })?;
    if version != version_of(format) as u64 {
        return Err(ProtocolError::Version {
            format: format.into(),
            found: version.min(u32::MAX as u64) as u32,
            supported: version_of(format),
        });
    }
    serde_json::from_str(text).map_err(|e| ProtocolError::Malformed { expected: format, reason: e.to_string() })
}

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

#[derive(Serialize, Deserialize)]
struct SharedBaseBody {
    alphabet: Alphabet,
    q_min: usize,
    q_max: usize,
    grams: Vec<String>,
    fingerprint: String,
    /// Optional (additive): padding symbols put around every record before
    /// embedding; absent for unpadded bases, whose messages are unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    padding: Option<crate::padding::Padding>,
    /// `false` when made from a seeded (not private) run; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    private: Option<bool>,
}

pub fn write_shared_base(base: &SharedBase) -> String {
    envelope(
        SHARED_BASE,
        &SharedBaseBody {
            alphabet: base.alphabet().clone(),
            q_min: base.q_min(),
            q_max: base.q_max(),
            grams: base.grams().to_vec(),
            fingerprint: base.fingerprint().to_string(),
            padding: base.padding(),
            private: (!base.is_private()).then_some(false),
        },
    )
}

/// Reads a shared base and checks its fingerprint against its content.
pub fn read_shared_base(text: &str) -> Result<SharedBase, ProtocolError> {
    let body: SharedBaseBody = open(text, SHARED_BASE)?;
    let base = SharedBase::with_padding(body.alphabet, body.q_min, body.q_max, body.grams, body.padding)
        .map_err(|e| ProtocolError::Invalid { what: "shared base".into(), reason: e.to_string() })?
        .with_private(body.private.unwrap_or(true));
    if base.fingerprint() != body.fingerprint {
        return Err(ProtocolError::Fingerprint {
            what: "the shared base's content".into(),
            found: base.fingerprint().into(),
            expected: body.fingerprint,
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
