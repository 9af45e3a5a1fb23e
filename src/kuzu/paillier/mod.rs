//! The Paillier cryptosystem (Paillier, EUROCRYPT 1999), as Kuzu et al. (EDBT 2013)
//! use it for the secure comparison: additively homomorphic, semantically secure
//! under the decisional composite residuosity assumption.
//!
//! - Key generation: two random primes p ≠ q of `bits/2` bits each, top bit set
//!   (crypto-primes: trial division, Miller–Rabin base 2 and a strong Lucas test,
//!   Baillie–PSW), redrawn until n = pq has exactly `bits` bits. Default
//!   [`DEFAULT_BITS`] = 2048 (NIST SP 800-57: 112-bit security, the floor for new
//!   keys); [`MIN_BITS`] = 512 is allowed for tests and the paper's own setting
//!   (its §6.3 used 512-bit keys) and is NOT secure.
//! - g = n + 1, so g^m = 1 + m·n mod n²: Enc(m; r) = (1 + m·n)·rⁿ mod n² with r
//!   uniform in Z_n^* from [`Randomness`](crate::dp::Randomness) (never a seeded generator for a real run).
//!   The protocol's many encryptions use [`Encryptor`] instead: the same
//!   ciphertexts with the random factor h^α for a short α (Damgård–Jurik–Nielsen's
//!   variant, 46× faster measured at 2048 bits), secure under the additional
//!   assumption stated there.
//! - Dec(c) = L(c^λ mod n²)·μ mod n, computed per prime and recombined (CRT), which
//!   is about 3× faster than the textbook formula.
//! - c₁ ⊕ c₂ = c₁·c₂ mod n² encrypts m₁ + m₂; k ⊙ c = c^k mod n² encrypts k·m;
//!   re-randomizing multiplies by a fresh rⁿ.
//!
//! Plaintexts live in Z_n; a negative integer −x is n − x ([`PublicKey::encode_i64`]).
//! Big integers are num-bigint (pure Rust, builds for wasm32): its modular
//! exponentiation is not constant-time, which matters for the private key's
//! owner only (the matcher C) and is stated in docs/THREAT_MODEL.md.

mod fixed_base;
mod keys;
mod primes;
mod wire;

pub use fixed_base::{short_exponent_bits, Encryptor};
pub use keys::{Ciphertext, PrivateKey, PublicKey, DEFAULT_BITS, MAX_BITS, MIN_BITS};
pub use wire::{check_units, read_ciphertext, read_private_key, read_public_key, write_private_key, write_public_key};

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
