//! The one entry point for randomness.
//!
//! [`Randomness::secure`] seeds ChaCha20 with 256 bits from the operating system
//! (getrandom: `getrandom(2)` natively, `crypto.getRandomValues` in browsers and
//! Node): a cryptographically secure generator, as rand's own `StdRng` seeded from
//! `OsRng` is. [`Randomness::seeded`] uses the same generator from a 64-bit seed, for
//! tests and experiments: it is reproducible bit for bit on every platform, and
//! everything produced with it is marked as not private ([`Randomness::is_private`]).

use crate::error::DpError;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

/// A source of random bits for every randomized step of gramlink.
#[derive(Debug, Clone)]
pub struct Randomness {
    rng: ChaCha20Rng,
    private: bool,
}

impl Randomness {
    /// A cryptographically secure generator seeded from the operating system.
    pub fn secure() -> Result<Self, DpError> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| DpError::Entropy(e.to_string()))?;
        Ok(Randomness { rng: ChaCha20Rng::from_seed(seed), private: true })
    }

    /// A reproducible generator for tests and experiments. Its output is NOT private:
    /// anyone who knows the seed can subtract the noise.
    pub fn seeded(seed: u64) -> Self {
        Randomness { rng: ChaCha20Rng::seed_from_u64(seed), private: false }
    }

    /// The secure generator, or a seeded one when `seed` is given.
    pub fn from_seed_option(seed: Option<u64>) -> Result<Self, DpError> {
        match seed {
            Some(s) => Ok(Self::seeded(s)),
            None => Self::secure(),
        }
    }

    /// Whether output made with this generator may be called differentially private.
    pub fn is_private(&self) -> bool {
        self.private
    }

    /// A fresh, independent stream for a sub-task: seeded from this generator, so a
    /// seeded parent gives reproducible children and a secure parent secure ones.
    pub fn fork(&mut self) -> Randomness {
        let mut seed = [0u8; 32];
        self.rng.fill_bytes(&mut seed);
        Randomness { rng: ChaCha20Rng::from_seed(seed), private: self.private }
    }

    pub fn next_u32(&mut self) -> u32 {
        self.rng.next_u32()
    }

    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    pub fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.rng.fill_bytes(dest)
    }

    /// A fair coin.
    pub fn bit(&mut self) -> bool {
        self.rng.next_u32() & 1 == 1
    }

    /// Uniform in `[0, n)`, exactly (rejection sampling, no modulo bias). `n > 0`.
    pub fn below_u128(&mut self, n: u128) -> u128 {
        debug_assert!(n > 0);
        if n.is_power_of_two() {
            return self.u128() & (n - 1);
        }
        let bits = 128 - (n - 1).leading_zeros();
        let mask = if bits == 128 { u128::MAX } else { (1u128 << bits) - 1 };
        loop {
            let x = self.u128() & mask;
            if x < n {
                return x;
            }
        }
    }

    /// Uniform in `[0, n)` for `usize`. `n > 0`.
    pub fn below(&mut self, n: usize) -> usize {
        self.below_u128(n as u128) as usize
    }

    /// A uniform random permutation of `0..n` (Fisher–Yates).
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        self.shuffle(&mut p);
        p
    }

    /// Shuffles `items` uniformly (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    fn u128(&mut self) -> u128 {
        ((self.rng.next_u64() as u128) << 64) | self.rng.next_u64() as u128
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_is_reproducible_and_not_private() {
        let mut a = Randomness::seeded(7);
        let mut b = Randomness::seeded(7);
        assert!(!a.is_private());
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn secure_is_private_and_differs() {
        let mut a = Randomness::secure().unwrap();
        let mut b = Randomness::secure().unwrap();
        assert!(a.is_private());
        assert_ne!(a.next_u64(), b.next_u64());
        assert!(a.fork().is_private());
    }

    #[test]
    fn below_is_uniform_enough() {
        let mut r = Randomness::seeded(1);
        let mut counts = [0usize; 7];
        for _ in 0..70_000 {
            counts[r.below(7)] += 1;
        }
        // chi-square with 6 degrees of freedom; 22.46 is the 0.999 quantile
        let chi: f64 = counts.iter().map(|&c| (c as f64 - 10_000.0).powi(2) / 10_000.0).sum();
        assert!(chi < 22.46, "chi-square {chi}, counts {counts:?}");
    }

    #[test]
    fn permutation_is_a_permutation() {
        let mut r = Randomness::seeded(3);
        let mut p = r.permutation(1000);
        p.sort_unstable();
        assert_eq!(p, (0..1000).collect::<Vec<_>>());
    }
}
