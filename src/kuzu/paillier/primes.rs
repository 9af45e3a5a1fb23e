//! Random primes for key generation: crypto-primes' generator, fed from the one
//! source of randomness ([`Randomness`]) through rand_core 0.10's traits.

use crate::dp::Randomness;
use core::convert::Infallible;
use crypto_bigint::BoxedUint;
use num_bigint::BigUint;

/// [`Randomness`] as a rand_core 0.10 cryptographic generator (ChaCha20 seeded
/// from the operating system; a seeded one in tests).
struct Source<'a>(&'a mut Randomness);

impl rand_core_010::TryRng for Source<'_> {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.0.next_u32())
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.0.next_u64())
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.0.fill_bytes(dst);
        Ok(())
    }
}

impl rand_core_010::TryCryptoRng for Source<'_> {}

/// A random prime of exactly `bits` bits (top bit set), `bits` ≥ 16.
pub fn random_prime(bits: u32, rng: &mut Randomness) -> BigUint {
    let p: BoxedUint = crypto_primes::random_prime(&mut Source(rng), crypto_primes::Flavor::Any, bits);
    BigUint::from_bytes_be(&p.to_be_bytes())
}
