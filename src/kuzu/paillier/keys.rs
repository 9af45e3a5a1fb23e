//! The key pair and the ciphertext: key generation, encryption, the homomorphic
//! operations and decryption (the scheme as the folder's docs describe it).

use crate::dp::Randomness;
use crate::error::Error;
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, Zero};
use sha2::{Digest, Sha256};

/// The default modulus size in bits.
pub const DEFAULT_BITS: u32 = 2048;
/// The smallest modulus accepted (tests and the paper's setting only: not secure).
pub const MIN_BITS: u32 = 512;
/// The largest modulus accepted.
pub const MAX_BITS: u32 = 8192;

/// A Paillier public key: n and the cached n².
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey {
    n: BigUint,
    n2: BigUint,
    fingerprint: String,
}

/// A ciphertext, an element of Z_{n²}^* (checked when read from a message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ciphertext(pub(crate) BigUint);

/// A Paillier private key with its CRT constants.
#[derive(Clone)]
pub struct PrivateKey {
    public: PublicKey,
    p: BigUint,
    q: BigUint,
    p2: BigUint,
    q2: BigUint,
    /// L_p(g^{p−1} mod p²)^{-1} mod p, and the same for q
    hp: BigUint,
    hq: BigUint,
    /// p^{-1} mod q, for the recombination
    p_inv_q: BigUint,
}

impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PrivateKey({} bits, {})", self.public.bits(), self.public.fingerprint)
    }
}

impl PublicKey {
    /// A public key from its modulus: odd, of [`MIN_BITS`]..=[`MAX_BITS`] bits.
    pub fn from_modulus(n: BigUint) -> Result<Self, Error> {
        let bits = n.bits();
        if bits < MIN_BITS as u64 || bits > MAX_BITS as u64 || n.is_even() {
            return Err(Error::InvalidKey(format!(
                "a Paillier modulus must be odd, of {MIN_BITS} to {MAX_BITS} bits (this one has {bits})"
            )));
        }
        let fingerprint = hex::encode(Sha256::digest(n.to_bytes_be()));
        let n2 = &n * &n;
        Ok(PublicKey { n, n2, fingerprint })
    }

    pub fn n(&self) -> &BigUint {
        &self.n
    }

    pub fn n_squared(&self) -> &BigUint {
        &self.n2
    }

    /// The modulus size in bits.
    pub fn bits(&self) -> u32 {
        self.n.bits() as u32
    }

    /// SHA-256 of n (big-endian bytes), hex: every message made under this key carries it.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// Bytes of one ciphertext in the binary messages (n² at full width).
    pub fn ciphertext_bytes(&self) -> usize {
        (self.n2.bits() as usize).div_ceil(8)
    }

    /// The plaintext of a signed integer: x for x ≥ 0, n − |x| for x < 0.
    pub fn encode_i64(&self, x: i64) -> BigUint {
        if x >= 0 {
            BigUint::from(x as u64)
        } else {
            &self.n - BigUint::from(x.unsigned_abs())
        }
    }

    /// A uniform element of Z_n^* (rejection sampling on `bits(n)` random bits).
    fn random_unit(&self, rng: &mut Randomness) -> BigUint {
        loop {
            let r = random_below(&self.n, rng);
            if !r.is_zero() && r.gcd(&self.n).is_one() {
                return r;
            }
        }
    }

    /// rⁿ mod n² for a fresh r: an encryption of zero's random factor.
    pub(super) fn random_mask(&self, rng: &mut Randomness) -> BigUint {
        self.random_unit(rng).modpow(&self.n, &self.n2)
    }

    /// Enc(m) with fresh randomness; m is reduced mod n.
    pub fn encrypt(&self, m: &BigUint, rng: &mut Randomness) -> Ciphertext {
        let gm = (BigUint::one() + (m % &self.n) * &self.n) % &self.n2;
        Ciphertext(gm * self.random_mask(rng) % &self.n2)
    }

    pub fn encrypt_u64(&self, m: u64, rng: &mut Randomness) -> Ciphertext {
        self.encrypt(&BigUint::from(m), rng)
    }

    /// The deterministic encryption of m with r = 1: (1 + m·n) mod n². Not hiding
    /// by itself: used only as an operand of ⊕ with a randomized ciphertext (a
    /// party adding its own known value), where the sum keeps the other's randomness.
    pub fn encrypt_trivial(&self, m: &BigUint) -> Ciphertext {
        Ciphertext((BigUint::one() + (m % &self.n) * &self.n) % &self.n2)
    }

    /// c₁ ⊕ c₂: encrypts m₁ + m₂ mod n.
    pub fn add(&self, a: &Ciphertext, b: &Ciphertext) -> Ciphertext {
        Ciphertext(&a.0 * &b.0 % &self.n2)
    }

    /// k ⊙ c: encrypts k·m mod n.
    pub fn mul(&self, c: &Ciphertext, k: &BigUint) -> Ciphertext {
        Ciphertext(c.0.modpow(k, &self.n2))
    }

    /// (−1) ⊙ c: encrypts −m mod n (the inverse of c mod n²).
    pub fn negate(&self, c: &Ciphertext) -> Result<Ciphertext, Error> {
        modinv(&c.0, &self.n2).map(Ciphertext).ok_or_else(|| not_invertible("ciphertext"))
    }

    /// The same plaintext under fresh randomness.
    pub fn rerandomize(&self, c: &Ciphertext, rng: &mut Randomness) -> Ciphertext {
        Ciphertext(&c.0 * self.random_mask(rng) % &self.n2)
    }
}

impl PrivateKey {
    /// Generates a key pair with an n of exactly `bits` bits (even, [`MIN_BITS`]..=[`MAX_BITS`]).
    pub fn generate(bits: u32, rng: &mut Randomness) -> Result<Self, Error> {
        if !(MIN_BITS..=MAX_BITS).contains(&bits) || bits % 2 != 0 {
            return Err(Error::Parameter(format!(
                "Paillier key size must be even and in {MIN_BITS}..={MAX_BITS} bits, got {bits}"
            )));
        }
        loop {
            let p = super::primes::random_prime(bits / 2, rng);
            let q = super::primes::random_prime(bits / 2, rng);
            if p != q && (&p * &q).bits() == bits as u64 {
                return Self::from_primes(p, q);
            }
        }
    }

    /// A key from its primes (as read from a key file); checks that they give a
    /// valid modulus and that gcd(n, φ(n)) = 1.
    pub fn from_primes(p: BigUint, q: BigUint) -> Result<Self, Error> {
        let one = BigUint::one();
        if p == q || p <= one || q <= one {
            return Err(Error::InvalidKey("the two Paillier primes must be distinct and greater than 1".into()));
        }
        let public = PublicKey::from_modulus(&p * &q)?;
        let phi = (&p - 1u32) * (&q - 1u32);
        if !public.n.gcd(&phi).is_one() {
            return Err(Error::InvalidKey("gcd(n, φ(n)) ≠ 1: not a Paillier key".into()));
        }
        let (p2, q2) = (&p * &p, &q * &q);
        let g = &public.n + 1u32;
        let h = |x: &BigUint, x2: &BigUint| -> Result<BigUint, Error> {
            let l = (g.modpow(&(x - 1u32), x2) - 1u32) / x;
            modinv(&(l % x), x).ok_or_else(|| Error::InvalidKey("the primes are not prime".into()))
        };
        let (hp, hq) = (h(&p, &p2)?, h(&q, &q2)?);
        let p_inv_q = modinv(&(&p % &q), &q).ok_or_else(|| Error::InvalidKey("p is not invertible mod q".into()))?;
        Ok(PrivateKey { public, p, q, p2, q2, hp, hq, p_inv_q })
    }

    pub fn public(&self) -> &PublicKey {
        &self.public
    }

    pub(crate) fn primes(&self) -> (&BigUint, &BigUint) {
        (&self.p, &self.q)
    }

    /// Dec(c), in Z_n (CRT: m_p = L_p(c^{p−1} mod p²)·h_p mod p, the same for q).
    pub fn decrypt(&self, c: &Ciphertext) -> BigUint {
        let part = |x: &BigUint, x2: &BigUint, hx: &BigUint| -> BigUint {
            let u = (&c.0 % x2).modpow(&(x - 1u32), x2);
            // u ≡ 1 mod x for a valid ciphertext; a forged one still gives some value
            let l = (u + x2 - 1u32) % x2 / x;
            l * hx % x
        };
        let mp = part(&self.p, &self.p2, &self.hp);
        let mq = part(&self.q, &self.q2, &self.hq);
        // m = m_p + p·((m_q − m_p)·p^{-1} mod q)
        let diff = (&mq + &self.q - (&mp % &self.q)) % &self.q;
        mp + &self.p * (diff * &self.p_inv_q % &self.q)
    }

    /// Dec(c) as a signed integer: values above n/2 are negative. None when the
    /// magnitude exceeds i64.
    pub fn decrypt_i128(&self, c: &Ciphertext) -> Option<i128> {
        let m = self.decrypt(c);
        let half = &self.public.n >> 1;
        let (neg, mag) = if m > half { (true, &self.public.n - &m) } else { (false, m) };
        let mag: u128 = mag.try_into().ok()?;
        let mag = i128::try_from(mag).ok()?;
        Some(if neg { -mag } else { mag })
    }
}

/// Uniform in [0, bound) for bound > 0: rejection on the bit length of bound.
fn random_below(bound: &BigUint, rng: &mut Randomness) -> BigUint {
    let bits = bound.bits();
    let bytes = bits.div_ceil(8) as usize;
    let top = (bits % 8) as u32;
    let mut buf = vec![0u8; bytes];
    loop {
        rng.fill_bytes(&mut buf);
        if top != 0 {
            buf[0] &= (1u8 << top) - 1;
        }
        let x = BigUint::from_bytes_be(&buf);
        if &x < bound {
            return x;
        }
    }
}

/// The inverse of a mod m, if gcd(a, m) = 1 (extended Euclid on signed integers).
fn modinv(a: &BigUint, m: &BigUint) -> Option<BigUint> {
    use num_bigint::BigInt;
    let (a, m) = (BigInt::from(a.clone()), BigInt::from(m.clone()));
    let e = a.extended_gcd(&m);
    if !e.gcd.is_one() {
        return None;
    }
    e.x.mod_floor(&m).to_biguint()
}

fn not_invertible(what: &str) -> Error {
    Error::Protocol(crate::error::ProtocolError::Invalid {
        what: what.into(),
        reason: "not invertible modulo n²".into(),
    })
}
