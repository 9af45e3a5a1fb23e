//! The keyed hash of a `keyed` field's value, and the key's check value in a
//! record batch: both a PRF under the parties' key, salted by the schema.

use crate::keyed::Key;

/// The keyed hash of a keyed field's value: HKDF-SHA-256 (extract with the
/// schema fingerprint as salt and the parties' key, expand with the field's
/// name and the value), 128 bits. A PRF of the value under the key: without
/// the key the matcher can only compare hashes for equality.
pub fn keyed_hash(key: &Key, schema_fingerprint: &str, field: &str, value: &str) -> [u8; 16] {
    let mut info = Vec::with_capacity(32 + field.len() + value.len());
    info.extend_from_slice(b"gramlink keyed field v1\0");
    info.extend_from_slice(field.as_bytes());
    info.push(0);
    info.extend_from_slice(value.as_bytes());
    prf(key, schema_fingerprint, &info)
}

/// The key's check value in a record batch: the same PRF on a label no field
/// value can produce (its own prefix), hex. The matcher compares the two
/// batches' check values to catch parties holding different keys (every
/// keyed hash would silently disagree); it learns nothing else of the key.
pub fn key_check(key: &Key, schema_fingerprint: &str) -> String {
    prf(key, schema_fingerprint, b"gramlink key check v1").iter().map(|b| format!("{b:02x}")).collect()
}

fn prf(key: &Key, schema_fingerprint: &str, info: &[u8]) -> [u8; 16] {
    let hk = hkdf::Hkdf::<sha2::Sha256>::new(Some(schema_fingerprint.as_bytes()), key.bytes());
    let mut out = [0u8; 16];
    // 16 bytes is far below HKDF-SHA-256's limit of 8160: expand cannot fail
    hk.expand(info, &mut out).expect("16 bytes of HKDF output");
    out
}
