//! The binary messages of the comparison: A's encrypted blocks (`GLKA`, A → B)
//! and B's blinded pairs (`GLKC`, B → C). Ciphertexts are most of their bytes, at
//! the fixed width of n². Each starts with a magic, a version, the fingerprints it
//! was made under (the key's; the block model's; the rule's), and reading checks
//! every one, every length and every ciphertext: a problem is a named
//! [`ProtocolError`], never a panic.

use super::super::paillier::{read_ciphertext, Ciphertext, PublicKey};
use super::rule::Frac;
use crate::error::{Error, ProtocolError};
use num_bigint::{BigInt, BigUint, Sign};

pub const BLOCKS_MAGIC: &[u8; 4] = b"GLKA";
pub const PAIRS_MAGIC: &[u8; 4] = b"GLKC";
pub const WIRE_VERSION: u32 = 1;
/// Longest blinded-threshold numerator or denominator accepted, in bytes.
const MAX_FRAC_BYTES: usize = 1 << 12;

/// A cursor over a message that names what it reads in its errors.
pub struct Reader<'a> {
    pub bytes: &'a [u8],
    pub at: usize,
    pub what: &'static str,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8], what: &'static str) -> Self {
        Reader { bytes, at: 0, what }
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or_else(|| {
            Error::Protocol(ProtocolError::Truncated {
                what: self.what.into(),
                reason: format!("{n} more bytes expected at offset {}, {} remain", self.at, self.bytes.len() - self.at),
            })
        })?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    pub fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap_or_default()))
    }

    pub fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap_or_default()))
    }

    pub fn ciphertext(&mut self, key: &PublicKey) -> Result<Ciphertext, Error> {
        read_ciphertext(key, self.bytes, &mut self.at, self.what)
    }

    pub fn is_done(&self) -> bool {
        self.at == self.bytes.len()
    }

    pub fn invalid(&self, reason: String) -> Error {
        Error::Protocol(ProtocolError::Invalid { what: self.what.into(), reason })
    }

    /// Magic and version.
    pub fn start(&mut self, magic: &[u8; 4]) -> Result<(), Error> {
        let m = self.take(4)?;
        if m != magic {
            return Err(Error::Protocol(ProtocolError::WrongFormat {
                expected: String::from_utf8_lossy(magic).into(),
                found: String::from_utf8_lossy(m).into(),
            }));
        }
        let v = self.u32()?;
        if v != WIRE_VERSION {
            return Err(Error::Protocol(ProtocolError::Version { format: self.what.into(), found: v, supported: 1 }));
        }
        Ok(())
    }

    /// A 32-byte fingerprint that must equal `expected`.
    pub fn fingerprint(&mut self, of: &str, expected: &[u8; 32]) -> Result<(), Error> {
        let f = self.take(32)?;
        if f != expected {
            return Err(Error::Protocol(ProtocolError::Fingerprint {
                what: format!("{} ({of})", self.what),
                found: hex::encode(f),
                expected: hex::encode(expected),
            }));
        }
        Ok(())
    }

    pub fn frac(&mut self) -> Result<Frac, Error> {
        let sign = self.take(1)?[0];
        let part = |r: &mut Self| -> Result<BigUint, Error> {
            let len = r.u32()? as usize;
            if len > MAX_FRAC_BYTES {
                return Err(r.invalid(format!("a threshold of {len} bytes (at most {MAX_FRAC_BYTES})")));
            }
            Ok(BigUint::from_bytes_be(r.take(len)?))
        };
        let num = part(self)?;
        let den = part(self)?;
        if den == BigUint::from(0u32) || sign > 1 {
            return Err(self.invalid("a blinded threshold with a zero denominator or a bad sign".into()));
        }
        let sign = if sign == 1 { Sign::Minus } else { Sign::Plus };
        Ok(Frac::new(BigInt::from_biguint(sign, num), den))
    }
}

pub fn put_u32(out: &mut Vec<u8>, x: u32) {
    out.extend_from_slice(&x.to_le_bytes());
}

pub fn put_u64(out: &mut Vec<u8>, x: u64) {
    out.extend_from_slice(&x.to_le_bytes());
}

pub fn put_frac(out: &mut Vec<u8>, f: &Frac) {
    out.push(u8::from(f.num.sign() == Sign::Minus));
    for part in [f.num.magnitude().to_bytes_be(), f.den.to_bytes_be()] {
        put_u32(out, part.len() as u32);
        out.extend_from_slice(&part);
    }
}

/// A key's fingerprint as 32 bytes.
pub fn key_fingerprint(key: &PublicKey) -> [u8; 32] {
    let mut f = [0u8; 32];
    let _ = hex::decode_to_slice(key.fingerprint(), &mut f);
    f
}
