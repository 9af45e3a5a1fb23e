//! One small hasher for the lookup tables keyed by packed integers (the
//! thresholds' gram keys, the lattice's bucket keys): a fixed multiply-mix, no
//! random seed, so runs are reproducible; the tables are only looked up, never
//! iterated, so the hash decides speed and never a result.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiply-mix hasher over 64-bit words.
#[derive(Default)]
pub struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
    }
    fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64);
    }
}

/// A map keyed by packed integers, hashed by [`MixHasher`].
pub type PackedMap<K, V> = HashMap<K, V, BuildHasherDefault<MixHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_differ_in_either_half_hash_apart() {
        let h = |k: u128| {
            let mut s = MixHasher::default();
            s.write_u128(k);
            s.finish()
        };
        assert_eq!(h(7), h(7));
        assert_ne!(h(1), h(1 << 64));
        let mut m: PackedMap<u128, u32> = PackedMap::default();
        m.insert(1 << 70, 3);
        assert_eq!(m.get(&(1 << 70)), Some(&3));
    }
}
