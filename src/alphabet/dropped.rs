//! What normalization drops, counted by class of character: digits, punctuation
//! and letters outside Σ vanish from records without a word otherwise (a date of
//! birth or a house number in a field normalized onto A–Z becomes nothing). The
//! warning a user sees when it is more than a little is in warning.rs.
//!
//! Counts are of characters after NFKD with the combining marks removed (accents
//! are folded, not dropped: `Müller` drops nothing); whitespace is collapsed, not
//! dropped. Nothing here is record text: counts per class and per ASCII symbol.

use serde::{Deserialize, Serialize};

/// The share of dropped characters above which a report warns.
pub const WARN_SHARE: f64 = 0.01;

/// Characters kept and dropped by normalization, by class.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CharCounts {
    /// Characters kept (symbols of Σ).
    pub kept: u64,
    /// Dropped decimal digits and other numerals.
    pub digits: u64,
    /// Dropped punctuation (ASCII and the General Punctuation block).
    pub punctuation: u64,
    /// Dropped letters: other scripts, or letters Σ lacks.
    pub letters: u64,
    /// Anything else dropped (symbols, emoji, control characters).
    pub other: u64,
    /// Dropped printable ASCII characters, by code (for the suggestion).
    #[serde(skip)]
    ascii: Vec<u64>,
}

impl CharCounts {
    /// Counts one dropped character.
    pub fn drop(&mut self, c: char) {
        if c.is_numeric() {
            self.digits += 1;
        } else if c.is_ascii_punctuation() || ('\u{2010}'..='\u{205E}').contains(&c) {
            self.punctuation += 1;
        } else if c.is_alphabetic() {
            self.letters += 1;
        } else {
            self.other += 1;
        }
        if c.is_ascii_graphic() {
            if self.ascii.is_empty() {
                self.ascii = vec![0; 128];
            }
            self.ascii[c as usize] += 1;
        }
    }

    pub fn dropped(&self) -> u64 {
        self.digits + self.punctuation + self.letters + self.other
    }

    /// Dropped characters as a share of all counted ones (0 for none).
    pub fn dropped_share(&self) -> f64 {
        let all = self.kept + self.dropped();
        if all == 0 {
            0.0
        } else {
            self.dropped() as f64 / all as f64
        }
    }

    /// Adds another record's counts.
    pub fn add(&mut self, other: &CharCounts) {
        self.kept += other.kept;
        self.digits += other.digits;
        self.punctuation += other.punctuation;
        self.letters += other.letters;
        self.other += other.other;
        if !other.ascii.is_empty() {
            if self.ascii.is_empty() {
                self.ascii = vec![0; 128];
            }
            for (a, b) in self.ascii.iter_mut().zip(&other.ascii) {
                *a += b;
            }
        }
    }

    /// The dropped printable ASCII characters, in ASCII order (for the suggestion).
    pub(super) fn dropped_ascii(&self) -> Vec<char> {
        self.ascii.iter().enumerate().filter(|(_, &n)| n > 0).map(|(c, _)| c as u8 as char).collect()
    }
}
