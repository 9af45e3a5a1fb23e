//! Fast Paillier encryption for the many encryptions of one party's session: the
//! short-exponent variant of Damgård, Jurik and Nielsen ("A generalization of
//! Paillier's public-key system with applications to electronic voting", Int. J.
//! Inf. Secur. 2010, §4), with a fixed-base table.
//!
//! The textbook random factor rⁿ mod n² costs one exponentiation with the
//! n-bit exponent n (about 1.2·bits(n) multiplications mod n²). Here the
//! encrypting party draws once, per session, a uniform r₀ ∈ Z_n^* and sets
//! h = r₀ⁿ mod n² (a uniform n-th residue); every encryption then uses
//!
//!   Enc(m) = (1 + m·n) · h^α mod n²,  α uniform in [0, 2^ℓ), fresh per ciphertext,
//!
//! with ℓ = [`short_exponent_bits`] ≈ twice the key's security level (224 bits at
//! 2048). h^α is a product of ⌈ℓ/8⌉ precomputed powers h^(j·2^(8i)) (a comb with
//! 8-bit windows: 28 multiplications at 2048 bits instead of about 2,450).
//! Decryption is unchanged: h^α is an n-th residue, so it vanishes under L(c^λ).
//!
//! **Security assumption** (stated here and in docs/THREAT_MODEL.md). The scheme
//! is semantically secure under the decisional composite residuosity (DCR)
//! assumption *and* the short-exponent assumption: given n and h, the power h^α
//! with α uniform of ℓ bits is computationally indistinguishable from a uniform
//! element of the subgroup ⟨h⟩ of n-th residues. (With a uniform exponent, h^α
//! would be a uniform n-th residue, which is what DCR-based semantic security
//! needs; the short exponent replaces "uniform" by "indistinguishable from
//! uniform".) The best known attacks on short exponents in a group of unknown
//! order (Pollard's lambda, van Oorschot–Wiener) cost about 2^(ℓ/2) operations,
//! hence ℓ = 2κ for a κ-bit security level. h is not secret: it need not be
//! published, but the assumption is stated for an adversary who knows it. r₀ is
//! never reused as a random factor, and every α is fresh from [`Randomness`].
//!
//! **Against the key holder.** Whoever knows p and q knows the order of ⟨h⟩ and
//! can run Pohlig–Hellman on its smooth part (s bits) before lambda: then ℓ = 2κ
//! gives only about 2^((ℓ − s)/2). Against C this matters only for B's
//! re-randomization (C can decrypt everything else anyway), whose point is that C
//! cannot strip it: B therefore uses [`Encryptor::for_key_holder`], with
//! ℓ = bits(n)/2 (Damgård–Jurik–Nielsen's own choice; 1,024 bits at 2048, still
//! about 19× fewer multiplications than rⁿ).

use super::keys::{Ciphertext, PublicKey};
use crate::dp::Randomness;
use num_bigint::BigUint;
use num_traits::One;

/// Bits per window of the comb.
const WINDOW: u32 = 8;

/// ℓ, the bits of the short exponent α for a modulus of `bits` bits: twice the
/// security level of NIST SP 800-57 (1024 → 80, 2048 → 112, 3072 → 128,
/// 7680 → 192, 15360 → 256), and 128 below 1024 bits (keys that are not secure anyway).
pub fn short_exponent_bits(bits: u32) -> u32 {
    match bits {
        0..=1023 => 128,
        1024..=2047 => 160,
        2048..=3071 => 224,
        3072..=7679 => 256,
        _ => 384,
    }
}

/// One party's encryptor under a public key: h = r₀ⁿ and its comb table.
#[derive(Clone)]
pub struct Encryptor {
    key: PublicKey,
    /// table[i][j − 1] = h^(j·2^(8i)) mod n², j in 1..=255
    table: Vec<Vec<BigUint>>,
    exp_bits: u32,
}

impl std::fmt::Debug for Encryptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Encryptor({} bits, ℓ = {})", self.key.bits(), self.exp_bits)
    }
}

impl Encryptor {
    /// A fresh h = r₀ⁿ (r₀ from `rng`) and its table: ⌈ℓ/8⌉·255 multiplications
    /// mod n² (about 7,000 at 2048 bits, tens of milliseconds natively).
    /// A's: ℓ = [`short_exponent_bits`], for ciphertexts the key holder may decrypt anyway.
    pub fn new(key: &PublicKey, rng: &mut Randomness) -> Self {
        let h = key.random_mask(rng);
        Self::with_base(key, h, short_exponent_bits(key.bits()))
    }

    /// B's, for ciphertexts whose randomness must stay hidden from the key holder
    /// (re-randomization): ℓ = max(2κ, bits(n)/2); see the module docs.
    pub fn for_key_holder(key: &PublicKey, rng: &mut Randomness) -> Self {
        let h = key.random_mask(rng);
        Self::with_base(key, h, short_exponent_bits(key.bits()).max(key.bits() / 2))
    }

    fn with_base(key: &PublicKey, h: BigUint, exp_bits: u32) -> Self {
        let n2 = key.n_squared();
        let windows = exp_bits.div_ceil(WINDOW) as usize;
        let mut table = Vec::with_capacity(windows);
        let mut base = h;
        for _ in 0..windows {
            let mut row = Vec::with_capacity((1 << WINDOW) - 1);
            row.push(base.clone());
            for j in 1..(1usize << WINDOW) - 1 {
                row.push(&row[j - 1] * &base % n2);
            }
            // base^(2^8) = base^255 · base
            base = &row[row.len() - 1] * &base % n2;
            table.push(row);
        }
        Encryptor { key: key.clone(), table, exp_bits }
    }

    pub fn key(&self) -> &PublicKey {
        &self.key
    }

    /// h^α mod n² for the ℓ-bit α given as little-endian bytes (its 8-bit windows).
    fn power(&self, alpha: &[u8]) -> BigUint {
        let n2 = self.key.n_squared();
        let mut acc: Option<BigUint> = None;
        for (row, &digit) in self.table.iter().zip(alpha) {
            if digit != 0 {
                let t = &row[digit as usize - 1];
                acc = Some(match acc {
                    None => t.clone(),
                    Some(a) => a * t % n2,
                });
            }
        }
        acc.unwrap_or_else(BigUint::one)
    }

    /// h^α for a fresh uniform ℓ-bit α: the random factor of one encryption.
    fn mask(&self, rng: &mut Randomness) -> BigUint {
        let mut alpha = vec![0u8; self.table.len()];
        rng.fill_bytes(&mut alpha);
        let extra = self.table.len() as u32 * WINDOW - self.exp_bits;
        if extra > 0 {
            let last = alpha.len() - 1;
            alpha[last] &= 0xff >> extra;
        }
        self.power(&alpha)
    }

    /// Enc(m) = (1 + m·n)·h^α mod n², m reduced mod n.
    pub fn encrypt(&self, m: &BigUint, rng: &mut Randomness) -> Ciphertext {
        let mask = self.mask(rng);
        let n2 = self.key.n_squared();
        if m.bits() == 0 {
            return Ciphertext(mask);
        }
        let gm = (BigUint::one() + (m % self.key.n()) * self.key.n()) % n2;
        Ciphertext(gm * mask % n2)
    }

    pub fn encrypt_u64(&self, m: u64, rng: &mut Randomness) -> Ciphertext {
        self.encrypt(&BigUint::from(m), rng)
    }

    /// The same plaintext under a fresh factor h^α.
    pub fn rerandomize(&self, c: &Ciphertext, rng: &mut Randomness) -> Ciphertext {
        Ciphertext(&c.0 * self.mask(rng) % self.key.n_squared())
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::kuzu::paillier::tests::key;

    #[test]
    fn the_comb_computes_h_to_the_alpha() {
        let pk = key().public();
        let h = BigUint::from(123_456_789u64).modpow(pk.n(), pk.n_squared());
        let enc = Encryptor::with_base(pk, h.clone(), short_exponent_bits(pk.bits()));
        let mut rng = Randomness::seeded(3);
        for _ in 0..20 {
            let mut alpha = vec![0u8; enc.table.len()];
            rng.fill_bytes(&mut alpha);
            let expected = h.modpow(&BigUint::from_bytes_le(&alpha), pk.n_squared());
            assert_eq!(enc.power(&alpha), expected);
        }
        assert_eq!(enc.power(&vec![0u8; enc.table.len()]), BigUint::one());
        assert_eq!(enc.table.len() as u32, short_exponent_bits(512).div_ceil(WINDOW));
    }

    #[test]
    fn masks_are_fresh_and_of_l_bits() {
        let enc = Encryptor::new(key().public(), &mut Randomness::seeded(4));
        let mut rng = Randomness::seeded(5);
        let (a, b) = (enc.encrypt_u64(0, &mut rng), enc.encrypt_u64(0, &mut rng));
        assert_ne!(a, b);
        assert_eq!(short_exponent_bits(2048), 224);
        let strong = Encryptor::for_key_holder(key().public(), &mut rng);
        assert_eq!(strong.exp_bits, 256);
        assert_eq!(key().decrypt(&strong.rerandomize(&a, &mut rng)), BigUint::from(0u32));
    }
}
