//! The secret both parties hold, and what the keyed transforms ([`super::Transform`],
//! [`super::Sketch`]) share in drawing from it: the largest dimension they accept and
//! the unbiased draw of their shuffles.

use crate::error::Error;
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;
use sha2::Sha256;

/// Shortest passphrase accepted (in chars).
pub const MIN_PASSPHRASE_CHARS: usize = 8;
/// The v1 Argon2id salt of [`Key::from_passphrase`], one for every linkage; the CLI and
/// the JS API use [`Key::from_passphrase_for`], salted per linkage.
const PASSPHRASE_SALT: &[u8] = b"gramlink keyed transform passphrase v1";

/// A secret 32-byte key. Its `Debug` never prints it.
#[derive(Clone, PartialEq, Eq)]
pub struct Key([u8; 32]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(<secret>)")
    }
}

pub(super) fn invalid_key(msg: impl Into<String>) -> Error {
    Error::InvalidKey(msg.into())
}

impl Key {
    pub fn from_bytes(bytes: [u8; 32]) -> Key {
        Key(bytes)
    }

    /// A fresh key from the operating system's secure generator.
    pub fn random() -> Result<Key, Error> {
        let mut k = [0u8; 32];
        getrandom::fill(&mut k).map_err(|e| Error::Dp(crate::error::DpError::Entropy(e.to_string())))?;
        Ok(Key(k))
    }

    /// Argon2id (19 MiB, 2 passes, the crate's recommended defaults) of a
    /// passphrase of at least [`MIN_PASSPHRASE_CHARS`] chars. Leading and trailing
    /// white space (a newline left in a file) is not part of the passphrase.
    /// (v1, one global salt: kept so existing callers build; prefer
    /// [`Key::from_passphrase_for`].)
    pub fn from_passphrase(passphrase: &str) -> Result<Key, Error> {
        Key::derive(passphrase, PASSPHRASE_SALT)
    }

    /// Argon2id of a passphrase salted for one linkage: salt = SHA-256 of `context`, which
    /// both parties hold and no other linkage shares (the shared base's fingerprint; the
    /// schema's for records). Not secret, but no table of guesses serves two linkages.
    pub fn from_passphrase_for(passphrase: &str, context: &str) -> Result<Key, Error> {
        use sha2::Digest;
        let mut h = Sha256::new();
        h.update(b"gramlink keyed transform passphrase v2\n");
        h.update(context.as_bytes());
        Key::derive(passphrase, &h.finalize())
    }

    fn derive(passphrase: &str, salt: &[u8]) -> Result<Key, Error> {
        let p = passphrase.trim();
        if p.chars().count() < MIN_PASSPHRASE_CHARS {
            return Err(invalid_key(format!(
                "the passphrase has {} chars; at least {MIN_PASSPHRASE_CHARS} are needed",
                p.chars().count()
            )));
        }
        let mut k = [0u8; 32];
        argon2::Argon2::default()
            .hash_password_into(p.as_bytes(), salt, &mut k)
            .map_err(|e| invalid_key(format!("Argon2id failed: {e}")))?;
        Ok(Key(k))
    }

    /// 64 hex digits (white space around them ignored), as `gramlink keygen` writes.
    pub fn from_hex(text: &str) -> Result<Key, Error> {
        let t = text.trim();
        if t.len() != 64 {
            return Err(invalid_key(format!(
                "a key is 64 hex digits (32 bytes); found {} characters",
                t.chars().count()
            )));
        }
        let mut k = [0u8; 32];
        hex::decode_to_slice(t, &mut k).map_err(|e| invalid_key(format!("not hex: {e}")))?;
        if k == [0u8; 32] {
            return Err(invalid_key("the all-zero key is refused (not a random key)"));
        }
        Ok(Key(k))
    }

    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// The key's bytes, for the core's other keyed functions (the keyed hash of
    /// record fields, `crate::record::keyed_hash`).
    pub(crate) fn bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

/// Largest padded dimension (a base of 2^20 grams is far beyond any use).
pub const MAX_DIM: usize = 1 << 20;

/// Uniform in [0, n) without modulo bias (rejection sampling).
pub(super) fn below(rng: &mut ChaCha20Rng, n: u32) -> u32 {
    let zone = u32::MAX - u32::MAX % n;
    loop {
        let x = rng.next_u32();
        if x < zone {
            return x % n;
        }
    }
}
