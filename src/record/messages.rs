//! The record protocol's base messages, JSON like the one-string ones
//! ([`crate::protocol`]): a party's noisy bases (one per mined space) and the
//! shared bases (one per space). Each carries the schema fingerprint; each
//! inner base is a complete one-string message, read and checked by the
//! one-string reader, so a record base is exactly as strict as a single base.
//! The record batch is binary ([`super::batch`]).

use super::owner::{spaces, NoisyBases, SharedBases};
use super::schema::Schema;
use crate::error::{Error, ProtocolError};
use crate::protocol::{envelope, open, read_noisy_base, read_shared_base, write_noisy_base, write_shared_base};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Format name of a party's noisy bases.
pub const NOISY_BASES: &str = "gramlink/record-noisy-bases";
/// Format name of the shared bases.
pub const SHARED_BASES: &str = "gramlink/record-shared-bases";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    /// The envelope's fields (checked by [`open`]); listed so that any other
    /// unknown field is refused.
    #[serde(default, skip_serializing)]
    #[allow(dead_code)]
    format: Option<String>,
    #[serde(default, skip_serializing)]
    #[allow(dead_code)]
    version: Option<u32>,
    schema: String,
    bases: Vec<Entry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    private: Option<bool>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    space: String,
    base: Value,
}

fn entry(space: &str, message: String) -> Entry {
    Entry { space: space.to_string(), base: serde_json::from_str(&message).unwrap_or(Value::Null) }
}

/// The spaces a message must hold, in schema order: the mined ones (ε > 0)
/// for noisy bases, every one for shared bases.
fn expected(schema: &Schema, mined_only: bool) -> Result<Vec<(String, f64)>, Error> {
    Ok(spaces(schema)?.into_iter().filter(|s| !mined_only || s.epsilon > 0.0).map(|s| (s.name, s.epsilon)).collect())
}

/// Opens a message of `format` (`what` in errors) for `schema`: its schema
/// fingerprint checked and its spaces exactly the [`expected`] ones. The
/// body, and each expected space in schema order with its ε share and its
/// base's message text.
fn open_bases(
    text: &str,
    format: &'static str,
    schema: &Schema,
    mined_only: bool,
    what: &str,
) -> Result<(Body, Vec<(String, f64, String)>), Error> {
    let body: Body = open(text, format)?;
    super::check::check_schema(&schema.fingerprint(), &body.schema, &format!("the {what}"))?;
    let want = expected(schema, mined_only)?;
    check_spaces(&body.bases, &want, what)?;
    let sent = want
        .into_iter()
        .map(|(space, share)| {
            let e = body.bases.iter().find(|e| e.space == space).expect("checked above");
            let base = e.base.to_string();
            (space, share, base)
        })
        .collect();
    Ok((body, sent))
}

/// Checks that `found` names exactly the `want` spaces, each once.
fn check_spaces(found: &[Entry], want: &[(String, f64)], what: &str) -> Result<(), Error> {
    let invalid = |reason: String| Error::from(ProtocolError::Invalid { what: what.into(), reason });
    for (i, e) in found.iter().enumerate() {
        if !want.iter().any(|(s, _)| *s == e.space) {
            let names: Vec<&str> = want.iter().map(|(s, _)| s.as_str()).collect();
            return Err(invalid(format!("space {:?} is not one of the schema's ({})", e.space, names.join(", "))));
        }
        if found[..i].iter().any(|p| p.space == e.space) {
            return Err(invalid(format!("space {:?} appears twice", e.space)));
        }
    }
    if let Some((s, _)) = want.iter().find(|(s, _)| !found.iter().any(|e| e.space == *s)) {
        return Err(invalid(format!("it has no base for space {s:?}")));
    }
    Ok(())
}

/// Writes a party's noisy bases.
pub fn write_noisy_bases(n: &NoisyBases) -> String {
    let bases = n.bases.iter().map(|(s, b)| entry(s, write_noisy_base(b))).collect();
    envelope(NOISY_BASES, &Body { format: None, version: None, schema: n.schema.clone(), bases, private: None })
}

/// Reads a party's noisy bases mined under `schema`: the fingerprint, the
/// spaces, each base (as [`read_noisy_base`]) and each space's ε share.
pub fn read_noisy_bases(text: &str, schema: &Schema) -> Result<NoisyBases, Error> {
    let (body, sent) = open_bases(text, NOISY_BASES, schema, true, "noisy bases")?;
    let mut bases = Vec::new();
    for (space, share, base) in sent {
        let base = read_noisy_base(&base).map_err(|err| in_space(err, &space))?;
        if (base.params.epsilon - share).abs() > 1e-9 * share.max(1.0) {
            return Err(ProtocolError::Invalid {
                what: "noisy bases".into(),
                reason: format!(
                    "space {space:?} was mined with ε {} but the schema gives it {share}",
                    base.params.epsilon
                ),
            }
            .into());
        }
        bases.push((space, base));
    }
    Ok(NoisyBases { schema: body.schema, bases })
}

/// Writes the shared bases.
pub fn write_shared_bases(s: &SharedBases) -> String {
    let bases = s.bases.iter().map(|(name, b)| entry(name, write_shared_base(b))).collect();
    envelope(
        SHARED_BASES,
        &Body { format: None, version: None, schema: s.schema.clone(), bases, private: Some(s.private) },
    )
}

/// Reads the shared bases for `schema`: the fingerprint, every space's base
/// (as [`read_shared_base`], which checks the base's own fingerprint).
pub fn read_shared_bases(text: &str, schema: &Schema) -> Result<SharedBases, Error> {
    let (body, sent) = open_bases(text, SHARED_BASES, schema, false, "shared bases")?;
    let mut bases = Vec::new();
    for (space, _, base) in sent {
        let base = read_shared_base(&base).map_err(|err| in_space(err, &space))?;
        bases.push((space, base));
    }
    Ok(SharedBases { schema: body.schema, bases, private: body.private.unwrap_or(false) })
}

/// Names the space in an inner base's error.
fn in_space(e: ProtocolError, space: &str) -> Error {
    ProtocolError::Invalid { what: format!("space {space:?}"), reason: e.to_string() }.into()
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
