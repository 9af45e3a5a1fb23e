//! Where the parties' key comes from, and the one place it is resolved under
//! the export policy, for every front end (CLI, wasm, Python) and for one
//! string as for records.
//!
//! A front end is told a [`KeySource`] (a key, a passphrase, or the explicit
//! opt-out) or nothing; [`resolve`] turns it into the [`EmbedKey`] of one
//! embedding: the passphrase salted per linkage ([`Key::from_passphrase_for`]
//! with the [`Linkage`]'s context), and the export policy applied (vectors
//! leave keyed unless the owner opted out; [`UNKEYED_REVEALS`] says why).

use super::key::Key;
use crate::error::Error;

/// What an unkeyed vector batch reveals to whoever receives it (the matcher):
/// said by the export policy ([`resolve`]) and by the CLI's `--no-key` warning.
pub const UNKEYED_REVEALS: &str = "unkeyed vectors are public functions of the records: the matcher can embed a \
name list and find each record's nearest name (the dictionary attack), and, in the recommended preset \
(every public 2-gram, padded records), rebuild most records outright from the bigram multiset each vector \
carries, with no dictionary (gramlink lab attack; docs/THREAT_MODEL.md)";

/// Where the parties' shared key comes from, as the owner gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// The key itself (from `keygen`).
    Key(Key),
    /// A passphrase both parties hold: the key is derived from it (Argon2id),
    /// salted with the linkage ([`Linkage::context`]).
    Passphrase(String),
    /// The explicit opt-out: the vectors leave unkeyed.
    None,
}

impl KeySource {
    /// The source of a front end's three key options: `key` (64 hex digits) or
    /// `passphrase`, not both; the opt-out (`no_key`) alone is
    /// [`KeySource::None`]; nothing at all is `Option::None` (the export
    /// policy then decides). A key beside the opt-out stays a key here:
    /// whether that is allowed is the linkage's policy ([`resolve`]).
    pub fn from_options(key: Option<&str>, passphrase: Option<&str>, no_key: bool) -> Result<Option<KeySource>, Error> {
        match (key, passphrase) {
            (Some(_), Some(_)) => Err(Error::InvalidKey("give either key or passphrase, not both".into())),
            (Some(k), None) => Ok(Some(KeySource::Key(Key::from_hex(k)?))),
            (None, Some(p)) => Ok(Some(KeySource::Passphrase(p.to_string()))),
            (None, None) => Ok(no_key.then_some(KeySource::None)),
        }
    }
}

/// What one embedding links, as the key's resolution needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Linkage {
    /// One string over the shared base of this fingerprint: every batch
    /// carries vectors.
    OneString { base: String },
    /// Records under the schema of this fingerprint; `embeds`: whether the
    /// schema sends an embedded field (if not, the key only hashes keyed
    /// fields, and no opt-out is needed).
    Records { schema: String, embeds: bool },
}

impl Linkage {
    /// The passphrase's salt, which both parties hold and no other linkage
    /// shares: the shared base's fingerprint, or the schema's.
    pub fn context(&self) -> &str {
        match self {
            Linkage::OneString { base } => base,
            Linkage::Records { schema, .. } => schema,
        }
    }

    /// Whether the batch carries vectors.
    pub fn embeds(&self) -> bool {
        match self {
            Linkage::OneString { .. } => true,
            Linkage::Records { embeds, .. } => *embeds,
        }
    }
}

/// The key of one embedding, resolved: the parties' key (records: it also
/// hashes the keyed fields) and whether the vectors are rotated by the keyed
/// transform. `Default`: no key, unrotated (a run on one machine, or the
/// opt-out).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EmbedKey {
    pub key: Option<Key>,
    pub rotate: bool,
}

impl EmbedKey {
    /// `key`, rotating the vectors.
    pub fn rotated(key: Key) -> EmbedKey {
        EmbedKey { key: Some(key), rotate: true }
    }

    /// The key of the rotation, when the vectors are rotated.
    pub fn rotation(&self) -> Option<&Key> {
        self.key.as_ref().filter(|_| self.rotate)
    }
}

/// The one resolution of a key source under the export policy. A batch's
/// vectors leave keyed unless the owner opted out (`no_key`, or
/// [`KeySource::None`]): without either, `KEY_REQUIRED`, with `remedy` (the
/// front end's own words for the key and the opt-out). One string: a key and
/// the opt-out together are refused (`INVALID_KEY`). Records: they go
/// together (the key then only hashes the keyed fields and the vectors leave
/// unrotated: the matcher keeps the q-gram filter, FEBRL 3 in 0.7 s instead of
/// 37 s, docs/RECORDS.md); a schema that embeds nothing needs the key only for
/// its keyed fields, which [`crate::record::RecordOwner::embed`] checks. A
/// passphrase is derived last, after the policy's checks (Argon2id takes a
/// moment).
pub fn resolve(source: Option<KeySource>, no_key: bool, linkage: &Linkage, remedy: &str) -> Result<EmbedKey, Error> {
    let opt_out = no_key || source == Some(KeySource::None);
    let has_key = matches!(source, Some(KeySource::Key(_) | KeySource::Passphrase(_)));
    let rotate = match linkage {
        Linkage::OneString { .. } if has_key && opt_out => {
            return Err(Error::InvalidKey("give a key or the opt-out to export unkeyed vectors, not both".into()))
        }
        Linkage::OneString { .. } => has_key,
        Linkage::Records { embeds, .. } => *embeds && !opt_out,
    };
    if !has_key && linkage.embeds() && !opt_out {
        return Err(Error::KeyRequired(format!("{UNKEYED_REVEALS}. {remedy}")));
    }
    let key = match source {
        Some(KeySource::Key(k)) => Some(k),
        Some(KeySource::Passphrase(p)) => Some(Key::from_passphrase_for(&p, linkage.context())?),
        _ => None,
    };
    Ok(EmbedKey { key, rotate })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_string() -> Linkage {
        Linkage::OneString { base: "fp".into() }
    }

    #[test]
    fn unkeyed_export_needs_an_explicit_opt_out() {
        let e = resolve(None, false, &one_string(), "pass --no-key").unwrap_err();
        assert_eq!((e.code(), e.class()), ("KEY_REQUIRED", crate::error::ErrorClass::Privacy));
        assert!(e.to_string().contains("dictionary attack") && e.to_string().ends_with("pass --no-key"));
        assert_eq!(resolve(None, true, &one_string(), "").unwrap(), EmbedKey::default());
        assert_eq!(resolve(Some(KeySource::None), false, &one_string(), "").unwrap(), EmbedKey::default());
        let key = Key::from_bytes([1; 32]);
        let k = resolve(Some(KeySource::Key(key.clone())), false, &one_string(), "").unwrap();
        assert_eq!(k, EmbedKey::rotated(key.clone()));
        let e = resolve(Some(KeySource::Key(key)), true, &one_string(), "").unwrap_err();
        assert_eq!(e.code(), "INVALID_KEY");
    }

    #[test]
    fn records_take_a_key_with_the_opt_out_and_need_none_without_vectors() {
        let key = Key::from_bytes([2; 32]);
        let records = |embeds| Linkage::Records { schema: "schema fp".into(), embeds };
        let e = resolve(None, false, &records(true), "r").unwrap_err();
        assert_eq!(e.code(), "KEY_REQUIRED");
        assert_eq!(resolve(None, false, &records(false), "r").unwrap(), EmbedKey::default());
        let hash_only = resolve(Some(KeySource::Key(key.clone())), true, &records(true), "r").unwrap();
        assert_eq!((hash_only.key.as_ref(), hash_only.rotation()), (Some(&key), None));
        let rotated = resolve(Some(KeySource::Key(key.clone())), false, &records(true), "r").unwrap();
        assert_eq!(rotated.rotation(), Some(&key));
    }

    #[test]
    fn a_passphrase_is_salted_by_its_linkage() {
        let source = || Some(KeySource::Passphrase("correct horse battery".into()));
        let a = resolve(source(), false, &one_string(), "").unwrap().key.unwrap();
        assert_eq!(a, Key::from_passphrase_for("correct horse battery", "fp").unwrap());
        let records = Linkage::Records { schema: "fp2".into(), embeds: true };
        assert_ne!(resolve(source(), false, &records, "").unwrap().key.unwrap(), a);
        let short = resolve(Some(KeySource::Passphrase("short".into())), false, &one_string(), "").unwrap_err();
        assert_eq!(short.code(), "INVALID_KEY");
    }

    #[test]
    fn a_front_end_gives_one_source_or_none() {
        let hex = Key::from_bytes([3; 32]).to_hex();
        assert_eq!(KeySource::from_options(None, None, false).unwrap(), None);
        assert_eq!(KeySource::from_options(None, None, true).unwrap(), Some(KeySource::None));
        let both = KeySource::from_options(Some(&hex), Some("a passphrase"), false).unwrap_err();
        assert_eq!(both.code(), "INVALID_KEY");
        assert_eq!(KeySource::from_options(Some("zz"), None, false).unwrap_err().code(), "INVALID_KEY");
        let k = KeySource::from_options(Some(&hex), None, true).unwrap();
        assert_eq!(k, Some(KeySource::Key(Key::from_bytes([3; 32]))));
    }
}
