//! Keys and ciphertexts as bytes: the public key as a JSON message
//! (`gramlink/paillier-public-key`) that carries its fingerprint, the private key
//! (`gramlink/paillier-private-key`, which never leaves C), and ciphertexts at the
//! fixed width of n². Everything read is checked: a fingerprint that is not the
//! key's, a ciphertext out of [1, n²) or sharing a factor with n, a short buffer —
//! each a named error ([`ProtocolError`]), never a panic.

use super::keys::{Ciphertext, PrivateKey, PublicKey};
use crate::error::{Error, ProtocolError};
use crate::protocol::{envelope, open};
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, Zero};
use serde::{Deserialize, Serialize};

pub const PUBLIC_KEY: &str = "gramlink/paillier-public-key";
pub const PRIVATE_KEY: &str = "gramlink/paillier-private-key";

// `format` and `version` are checked by `open` before decoding; listed so that
// deny_unknown_fields accepts them
#[allow(dead_code)]
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PublicKeyFile {
    #[serde(default, skip_serializing)]
    format: String,
    #[serde(default, skip_serializing)]
    version: u32,
    bits: u32,
    /// n, hexadecimal (big-endian)
    n: String,
    fingerprint: String,
}

// `format` and `version` are checked by `open` before decoding; listed so that
// deny_unknown_fields accepts them
#[allow(dead_code)]
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PrivateKeyFile {
    #[serde(default, skip_serializing)]
    format: String,
    #[serde(default, skip_serializing)]
    version: u32,
    bits: u32,
    p: String,
    q: String,
    fingerprint: String,
}

fn hex_number(what: &'static str, s: &str) -> Result<BigUint, Error> {
    BigUint::parse_bytes(s.as_bytes(), 16).ok_or_else(|| {
        Error::Protocol(ProtocolError::Invalid { what: what.into(), reason: "not a hexadecimal number".into() })
    })
}

fn check_fingerprint(what: &str, found: &str, key: &PublicKey) -> Result<(), Error> {
    if found != key.fingerprint() {
        return Err(Error::Protocol(ProtocolError::Fingerprint {
            what: what.into(),
            found: found.into(),
            expected: key.fingerprint().into(),
        }));
    }
    Ok(())
}

pub fn write_public_key(key: &PublicKey) -> String {
    envelope(
        PUBLIC_KEY,
        &PublicKeyFile {
            format: String::new(),
            version: 0,
            bits: key.bits(),
            n: key.n().to_str_radix(16),
            fingerprint: key.fingerprint().into(),
        },
    )
}

/// Reads and checks a public key: its modulus, size, and stated fingerprint.
pub fn read_public_key(text: &str) -> Result<PublicKey, Error> {
    let f: PublicKeyFile = open(text, PUBLIC_KEY)?;
    let key = PublicKey::from_modulus(hex_number("public key", &f.n)?)?;
    if key.bits() != f.bits {
        return Err(Error::InvalidKey(format!("the key says {} bits, its modulus has {}", f.bits, key.bits())));
    }
    check_fingerprint("the public key", &f.fingerprint, &key)?;
    Ok(key)
}

pub fn write_private_key(key: &PrivateKey) -> String {
    let (p, q) = key.primes();
    envelope(
        PRIVATE_KEY,
        &PrivateKeyFile {
            format: String::new(),
            version: 0,
            bits: key.public().bits(),
            p: p.to_str_radix(16),
            q: q.to_str_radix(16),
            fingerprint: key.public().fingerprint().into(),
        },
    )
}

pub fn read_private_key(text: &str) -> Result<PrivateKey, Error> {
    let f: PrivateKeyFile = open(text, PRIVATE_KEY)?;
    let key = PrivateKey::from_primes(hex_number("private key", &f.p)?, hex_number("private key", &f.q)?)?;
    check_fingerprint("the private key", &f.fingerprint, key.public())?;
    Ok(key)
}

impl Ciphertext {
    /// Big-endian, left-padded to the key's ciphertext width.
    pub fn write_to(&self, key: &PublicKey, out: &mut Vec<u8>) {
        let bytes = self.0.to_bytes_be();
        let width = key.ciphertext_bytes();
        out.extend(std::iter::repeat_n(0u8, width.saturating_sub(bytes.len())));
        out.extend_from_slice(&bytes);
    }

    /// The ciphertext as a big integer (for tests and checks).
    pub fn value(&self) -> &BigUint {
        &self.0
    }
}

/// Reads one ciphertext at `*at` and advances; checks 0 < c < n².
pub fn read_ciphertext(key: &PublicKey, bytes: &[u8], at: &mut usize, what: &str) -> Result<Ciphertext, Error> {
    let width = key.ciphertext_bytes();
    let end = at.checked_add(width).filter(|&e| e <= bytes.len()).ok_or_else(|| {
        Error::Protocol(ProtocolError::Truncated {
            what: what.into(),
            reason: format!(
                "a ciphertext of {width} bytes at offset {at}, but only {} bytes remain",
                bytes.len() - *at
            ),
        })
    })?;
    let c = BigUint::from_bytes_be(&bytes[*at..end]);
    *at = end;
    if c.is_zero() || &c >= key.n_squared() {
        return Err(Error::Protocol(ProtocolError::Invalid {
            what: what.into(),
            reason: "a ciphertext is out of range (0 or not below n²)".into(),
        }));
    }
    Ok(Ciphertext(c))
}

/// Checks that every ciphertext is a unit mod n² (coprime to n) with one gcd:
/// a prime factor of n divides the product of the ciphertexts mod n iff it
/// divides one of them. A forged ciphertext sharing a factor with n would break
/// the homomorphic operations (and reveal n's factors).
pub fn check_units<'a>(key: &PublicKey, cs: impl IntoIterator<Item = &'a Ciphertext>, what: &str) -> Result<(), Error> {
    let mut product = BigUint::one();
    for c in cs {
        product = product * (&c.0 % key.n()) % key.n();
    }
    if !product.gcd(key.n()).is_one() {
        return Err(Error::Protocol(ProtocolError::Invalid {
            what: what.into(),
            reason: "a ciphertext is not invertible modulo n² (it shares a factor with n)".into(),
        }));
    }
    Ok(())
}
