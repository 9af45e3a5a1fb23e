//! Bigram sets of strings, the representation both the blocking similarity and
//! the secure comparison use (the paper's §4.3: Jaccard similarity of bigram bit
//! vectors).
//!
//! A value is normalized with the default public alphabet (A–Z and space,
//! docs/SCENARIO.md) and padded with one space at each end, so that a one-letter
//! value still has bigrams and the first and last letters weigh as much as the
//! inner ones; its bigrams index a bit vector of 27² = 729 positions (the paper
//! uses 26² = 676 over letters only and does not say how it treats short values
//! or spaces). The empty value has no bigram.

use crate::alphabet::Alphabet;

/// Symbols: space and A–Z.
pub const SYMBOLS: usize = 27;
/// Positions of the bit vector: every ordered pair of symbols.
pub const BIGRAMS: usize = SYMBOLS * SYMBOLS;
const WORDS: usize = BIGRAMS.div_ceil(64);

/// The set of bigrams of one value, as a 729-bit vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bigrams([u64; WORDS]);

fn symbol(c: char) -> usize {
    match c {
        'A'..='Z' => c as usize - 'A' as usize + 1,
        _ => 0,
    }
}

/// The public normalization of a value (NFKD, marks dropped, uppercased, only
/// A–Z and single spaces kept).
pub fn normalize(raw: &str) -> String {
    thread_local! {
        static ALPHABET: Alphabet = Alphabet::default();
    }
    ALPHABET.with(|a| a.normalize(raw))
}

impl Bigrams {
    /// The bigrams of an already normalized value.
    pub fn of_normalized(s: &str) -> Self {
        let mut set = Bigrams::default();
        if s.is_empty() {
            return set;
        }
        let mut prev = 0;
        for c in s.chars().chain(std::iter::once(' ')) {
            let cur = symbol(c);
            set.insert(prev * SYMBOLS + cur);
            prev = cur;
        }
        set
    }

    /// The bigrams of a raw value (normalized first).
    pub fn of(raw: &str) -> Self {
        Self::of_normalized(&normalize(raw))
    }

    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    pub fn contains(&self, i: usize) -> bool {
        i < BIGRAMS && self.0[i / 64] >> (i % 64) & 1 == 1
    }

    /// The number of bigrams (ones of the bit vector).
    pub fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    pub fn intersection(&self, other: &Self) -> u32 {
        self.0.iter().zip(&other.0).map(|(a, b)| (a & b).count_ones()).sum()
    }

    pub fn union(&self, other: &Self) -> u32 {
        self.0.iter().zip(&other.0).map(|(a, b)| (a | b).count_ones()).sum()
    }

    /// |a ∩ b| / |a ∪ b|, and 0 when both are empty.
    pub fn jaccard(&self, other: &Self) -> f64 {
        let u = self.union(other);
        if u == 0 {
            0.0
        } else {
            self.intersection(other) as f64 / u as f64
        }
    }

    /// The positions set to one, ascending.
    pub fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        (0..BIGRAMS).filter(move |&i| self.contains(i))
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn padded_bigrams_and_jaccard() {
        let a = Bigrams::of("Smith");
        // " S", "SM", "MI", "IT", "TH", "H "
        assert_eq!(a.len(), 6);
        assert_eq!(Bigrams::of("a").len(), 2);
        assert!(Bigrams::of("  ").is_empty());
        let b = Bigrams::of("SMYTH");
        assert_eq!(a.intersection(&b), 4);
        assert_eq!(a.union(&b), 8);
        assert_eq!(a.jaccard(&a), 1.0);
        assert_eq!(Bigrams::default().jaccard(&Bigrams::default()), 0.0);
        assert_eq!(a.ones().count(), 6);
    }
}
