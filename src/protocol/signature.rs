//! Signed batches: each party signs the bytes of the batch it sends with its
//! own Ed25519 key ([`ed25519_dalek`]), and the matcher checks the signature
//! against the public key the party gave it out of band, as the parties compare
//! base fingerprints (issue 31: a batch with the public transform label copied
//! and random vectors was linked with exit 0).
//!
//! The signature is detached: a small text file beside the batch (the CLI:
//! `<batch>.sig`), so the batch's bytes, and every reader of batches old and
//! new, are unchanged; a matcher that asks for signatures refuses a batch
//! without one ([`ProtocolError::SignatureMissing`]) or with a wrong one
//! ([`ProtocolError::SignatureInvalid`]).
//!
//! What is signed: `"gramlink batch signature v1\0"` followed by the SHA-256
//! of the batch's bytes ([`BatchDigest`], so a batch of gigabytes is hashed
//! in pieces, never held twice). A signature binds the batch to the key: the
//! matcher knows which party made it, and that nobody changed a byte since.
//! It does not make the numbers true (a party may sign nonsense): the
//! plausibility checks ([`super::plausible`]) still run.
//!
//! Files (one line each): the secret key `gramlink signing key v1 <64 hex>`,
//! the public key `gramlink signing public key v1 <64 hex>`, the signature
//! `gramlink batch signature v1 <128 hex>`. The JS and Python APIs (src/wasm/signing.rs,
//! python/src/signing.rs) pass the same texts, so their keys and signatures are
//! the CLI's files: [`keygen_texts`], [`sign_bytes`], [`check_batch`].

use crate::error::{Error, ProtocolError};
use ed25519_dalek::Signer;
use sha2::{Digest, Sha256};

const SECRET_PREFIX: &str = "gramlink signing key v1 ";
const PUBLIC_PREFIX: &str = "gramlink signing public key v1 ";
const SIGNATURE_PREFIX: &str = "gramlink batch signature v1 ";
/// The domain of what is signed (no other gramlink signature can be taken for it).
const DOMAIN: &[u8] = b"gramlink batch signature v1\0";

/// A party's secret signing key.
pub struct SigningKey(ed25519_dalek::SigningKey);

/// A party's public key, given to the matcher out of band.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyingKey(ed25519_dalek::VerifyingKey);

/// The SHA-256 of a batch's bytes, fed in pieces.
#[derive(Default)]
pub struct BatchDigest(Sha256);

impl BatchDigest {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The digest of bytes held whole.
    pub fn of(bytes: &[u8]) -> Self {
        let mut d = Self::new();
        d.update(bytes);
        d
    }

    /// The message a signature covers.
    fn message(self) -> Vec<u8> {
        let mut m = DOMAIN.to_vec();
        m.extend_from_slice(&self.0.finalize());
        m
    }
}

/// The 32 or 64 bytes after `prefix` in a one-line file, or why not.
fn parse_hex<const N: usize>(text: &str, prefix: &str) -> Result<[u8; N], String> {
    let body = text
        .trim_end()
        .strip_prefix(prefix)
        .ok_or_else(|| format!("it does not start with {:?}", prefix.trim_end()))?;
    let bytes = hex::decode(body).map_err(|e| format!("not hex: {e}"))?;
    bytes.try_into().map_err(|b: Vec<u8>| format!("{} bytes, expected {N}", b.len()))
}

impl SigningKey {
    /// A new key from the operating system's secure generator.
    pub fn random() -> Result<SigningKey, Error> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| Error::Dp(crate::error::DpError::Entropy(e.to_string())))?;
        Ok(SigningKey(ed25519_dalek::SigningKey::from_bytes(&seed)))
    }

    /// Reads a secret key file's text.
    pub fn from_text(text: &str) -> Result<SigningKey, Error> {
        let seed = parse_hex::<32>(text, SECRET_PREFIX)
            .map_err(|e| Error::InvalidKey(format!("not a gramlink signing key: {e}")))?;
        Ok(SigningKey(ed25519_dalek::SigningKey::from_bytes(&seed)))
    }

    /// The secret key file's text (keep it to yourself).
    pub fn to_text(&self) -> String {
        format!("{SECRET_PREFIX}{}\n", hex::encode(self.0.to_bytes()))
    }

    pub fn verifying_key(&self) -> VerifyingKey {
        VerifyingKey(self.0.verifying_key())
    }

    /// The signature file's text for the batch of `digest`.
    pub fn sign(&self, digest: BatchDigest) -> String {
        let sig = self.0.sign(&digest.message());
        format!("{SIGNATURE_PREFIX}{}\n", hex::encode(sig.to_bytes()))
    }
}

impl VerifyingKey {
    /// Reads a public key file's text.
    pub fn from_text(text: &str) -> Result<VerifyingKey, Error> {
        let bad = |e: String| Error::InvalidKey(format!("not a gramlink public signing key: {e}"));
        let bytes = parse_hex::<32>(text, PUBLIC_PREFIX).map_err(bad)?;
        ed25519_dalek::VerifyingKey::from_bytes(&bytes).map(VerifyingKey).map_err(|e| bad(e.to_string()))
    }

    /// The public key file's text (give it to the matcher).
    pub fn to_text(&self) -> String {
        format!("{PUBLIC_PREFIX}{}\n", hex::encode(self.0.to_bytes()))
    }

    /// Checks the signature file's text `signature` (`None`: there is none) of
    /// `what` (named in the error), a batch of `digest`.
    pub fn verify(&self, what: &str, digest: BatchDigest, signature: Option<&str>) -> Result<(), ProtocolError> {
        let Some(text) = signature else {
            return Err(ProtocolError::SignatureMissing { what: what.into() });
        };
        let invalid = |reason: String| ProtocolError::SignatureInvalid { what: what.into(), reason };
        let bytes = parse_hex::<64>(text, SIGNATURE_PREFIX).map_err(|e| invalid(format!("not a signature: {e}")))?;
        let sig = ed25519_dalek::Signature::from_bytes(&bytes);
        // verify_strict: no malleable or small-order forms
        self.0.verify_strict(&digest.message(), &sig).map_err(|_| {
            invalid(
                "it does not verify with the given public key (another key, or the batch changed since it was signed)"
                    .into(),
            )
        })
    }
}

/// A new signing key and its public key, as the texts of `gramlink
/// sign-keygen`'s two files (the key, then the public key).
pub fn keygen_texts() -> Result<(String, String), Error> {
    let key = SigningKey::random()?;
    Ok((key.to_text(), key.verifying_key().to_text()))
}

/// The signature file's text of the batch `bytes` with the secret key file's
/// text `key`, as `embed --signing-key` writes it.
pub fn sign_bytes(key: &str, bytes: &[u8]) -> Result<String, Error> {
    Ok(SigningKey::from_text(key)?.sign(BatchDigest::of(bytes)))
}

/// What the matcher checks of one party's batch, `what` (named in errors):
/// with the party's public key file's text `public`, the batch must carry a
/// signature (`signature`, the signature file's text) that verifies for its
/// bytes (`digest`, asked for only then); without a public key nothing is
/// checked, as for the CLI's `match` without `--verify-a`. A signature given
/// without its key is refused (`INVALID_PARAMETER`): nothing would check it,
/// and a caller who passes one expects it to be.
pub fn check_batch(
    what: &str,
    public: Option<&str>,
    signature: Option<&str>,
    digest: impl FnOnce() -> BatchDigest,
) -> Result<(), Error> {
    let Some(public) = public else {
        return match signature {
            None => Ok(()),
            Some(_) => Err(Error::Parameter(format!(
                "a signature of {what} was given without its party's public key: give the key too, so that it is checked"
            ))),
        };
    };
    let key = VerifyingKey::from_text(public)?;
    Ok(key.verify(what, digest(), signature)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(bytes: &[u8]) -> BatchDigest {
        let mut d = BatchDigest::new();
        // in two pieces: the same digest as one
        d.update(&bytes[..bytes.len() / 2]);
        d.update(&bytes[bytes.len() / 2..]);
        d
    }

    #[test]
    fn a_signature_verifies_with_its_key_only_and_for_its_bytes_only() {
        let key = SigningKey::random().unwrap();
        let public = VerifyingKey::from_text(&key.verifying_key().to_text()).unwrap();
        let again = SigningKey::from_text(&key.to_text()).unwrap();
        let sig = again.sign(digest(b"a batch"));
        public.verify("A's batch", digest(b"a batch"), Some(&sig)).unwrap();
        let e = public.verify("A's batch", digest(b"a batch!"), Some(&sig)).unwrap_err();
        assert!(matches!(e, ProtocolError::SignatureInvalid { .. }) && e.to_string().contains("A's batch"), "{e}");
        let other = SigningKey::random().unwrap().verifying_key();
        assert!(matches!(
            other.verify("x", digest(b"a batch"), Some(&sig)),
            Err(ProtocolError::SignatureInvalid { .. })
        ));
        assert!(matches!(public.verify("x", digest(b"a batch"), None), Err(ProtocolError::SignatureMissing { .. })));
        assert!(public.verify("x", digest(b"a batch"), Some("gramlink batch signature v1 00")).is_err());
        assert!(VerifyingKey::from_text(&key.to_text()).is_err(), "a secret key is not a public one");
        assert!(SigningKey::from_text("gramlink signing key v1 zz").is_err());
    }

    #[test]
    fn the_texts_of_keygen_sign_and_check_are_the_files_of_the_cli() {
        let (key, public) = keygen_texts().unwrap();
        assert!(key.starts_with(SECRET_PREFIX) && key.ends_with('\n') && public.starts_with(PUBLIC_PREFIX));
        let sig = sign_bytes(&key, b"a batch").unwrap();
        // what the CLI's files hold: the same key signs the same bytes alike (Ed25519 is deterministic)
        assert_eq!(sig, SigningKey::from_text(&key).unwrap().sign(digest(b"a batch")));
        let d = || BatchDigest::of(b"a batch");
        check_batch("A's batch", Some(&public), Some(&sig), d).unwrap();
        // a key or a signature read without its newline is the same
        check_batch("A's batch", Some(public.trim_end()), Some(sig.trim_end()), d).unwrap();
        let code = |r: Result<(), Error>| r.unwrap_err().code();
        assert_eq!(code(check_batch("x", Some(&public), None, d)), "SIGNATURE_MISSING");
        assert_eq!(
            code(check_batch("x", Some(&public), Some(&sig), || BatchDigest::of(b"a batch!"))),
            "SIGNATURE_INVALID"
        );
        assert_eq!(code(check_batch("x", Some(&key), Some(&sig), d)), "INVALID_KEY", "a secret key is no public one");
        assert_eq!(code(check_batch("x", None, Some(&sig), d)), "INVALID_PARAMETER");
        assert_eq!(code(sign_bytes(&public, b"a batch").map(drop)), "INVALID_KEY");
        // no key: nothing is checked, and the batch's bytes are not even hashed
        check_batch("x", None, None, || unreachable!("no digest without a key")).unwrap();
    }
}
