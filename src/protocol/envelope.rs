//! What every message shares: its format name and version, written around the
//! body ([`envelope`]) and checked before the body is read ([`open`]).

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
/// and counts ([`super::sparse_wire`]); version 1 batches (dense f32 only) are refused
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
