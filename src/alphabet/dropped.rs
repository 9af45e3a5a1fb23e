//! What normalization drops, by class of character, and the warning a user sees
//! when it is more than a little: digits, punctuation and letters outside Σ
//! vanish from records without a word otherwise (a date of birth or a house
//! number in a field normalized onto A–Z becomes nothing).
//!
//! Counts are of characters after NFKD with the combining marks removed (accents
//! are folded, not dropped: `Müller` drops nothing); whitespace is collapsed, not
//! dropped. Nothing here is record text: counts per class and per ASCII symbol.

use super::Alphabet;
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

    /// An alphabet that would keep the dropped ASCII characters: `letters+digits`
    /// when digits are all that is missing from the default, else `alphabet` with
    /// the dropped printable ASCII symbols added in ASCII order (as many as fit).
    /// `None` when nothing ASCII was dropped.
    pub fn suggestion(&self, alphabet: &Alphabet) -> Option<String> {
        let dropped: Vec<char> =
            self.ascii.iter().enumerate().filter(|(_, &n)| n > 0).map(|(c, _)| c as u8 as char).collect();
        if dropped.is_empty() {
            return None;
        }
        if dropped.iter().all(char::is_ascii_digit) && *alphabet == Alphabet::default() {
            return Some(NamedAlphabet::LettersDigits.name().into());
        }
        let mut s = alphabet.as_string();
        for c in dropped {
            let c = if alphabet.folds_case() { c.to_ascii_uppercase() } else { c };
            if s.chars().count() >= super::MAX_ALPHABET {
                break;
            }
            if !s.chars().any(|x| x == c) {
                s.push(c);
            }
        }
        Some(s)
    }

    /// The warning for a user, when more than [`WARN_SHARE`] of the characters
    /// were dropped: how many, of which classes, and an alphabet that keeps them.
    pub fn warning(&self, alphabet: &Alphabet) -> Option<String> {
        if self.dropped_share() <= WARN_SHARE {
            return None;
        }
        let classes: Vec<String> = [
            ("digits", self.digits),
            ("punctuation", self.punctuation),
            ("letters outside the alphabet", self.letters),
            ("other symbols", self.other),
        ]
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(what, n)| format!("{n} {what}"))
        .collect();
        let mut w = format!(
            "normalization dropped {:.1}% of the characters ({}): they take no part in the linkage",
            100.0 * self.dropped_share(),
            classes.join(", ")
        );
        if let Some(s) = self.suggestion(alphabet) {
            w.push_str(&format!("; to keep them, use the alphabet {s:?}"));
        }
        Some(w)
    }
}

/// The alphabets a user can name instead of listing symbols.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamedAlphabet {
    /// A–Z and space (the default).
    Letters,
    /// A–Z, 0–9 and space.
    LettersDigits,
}

impl NamedAlphabet {
    pub const ALL: [NamedAlphabet; 2] = [NamedAlphabet::Letters, NamedAlphabet::LettersDigits];

    pub fn name(self) -> &'static str {
        match self {
            NamedAlphabet::Letters => "letters",
            NamedAlphabet::LettersDigits => "letters+digits",
        }
    }

    pub fn symbols(self) -> &'static str {
        match self {
            NamedAlphabet::Letters => "ABCDEFGHIJKLMNOPQRSTUVWXYZ ",
            NamedAlphabet::LettersDigits => "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(alphabet: &Alphabet, records: &[&str]) -> CharCounts {
        let mut all = CharCounts::default();
        for r in records {
            let mut c = CharCounts::default();
            alphabet.normalize_counting(r, &mut c);
            all.add(&c);
        }
        all
    }

    #[test]
    fn classes_are_counted_and_accents_are_not_drops() {
        let c = counts(&Alphabet::default(), &["Müller", "12 Main St.", "Иван", "a☃b", "O‘Neil"]);
        assert_eq!((c.digits, c.punctuation, c.letters, c.other), (2, 2, 4, 1));
        assert_eq!(c.kept, 6 + 6 + 2 + 5);
        assert!(counts(&Alphabet::default(), &["Müller", "Kīhei"]).warning(&Alphabet::default()).is_none());
    }

    #[test]
    fn the_warning_names_an_alphabet_that_keeps_what_was_dropped() {
        let default = Alphabet::default();
        let dates = counts(&default, &["SMITH 1970", "JONES 1982"]);
        let w = dates.warning(&default).expect("8 of 18 characters dropped");
        assert!(w.contains("8 digits") && w.contains("\"letters+digits\""), "{w}");
        let keep = Alphabet::parse(&dates.suggestion(&default).unwrap()).unwrap();
        assert_eq!(counts(&keep, &["SMITH 1970", "JONES 1982"]).dropped(), 0);
        let mixed = counts(&default, &["O'NEIL-SMITH 12", "D'ARCY 7"]);
        let s = mixed.suggestion(&default).unwrap();
        let keep = Alphabet::parse(&s).unwrap();
        assert_eq!(counts(&keep, &["O'NEIL-SMITH 12", "D'ARCY 7"]).dropped(), 0, "{s:?}");
        assert!(counts(&default, &["Иван"]).suggestion(&default).is_none(), "no ASCII alphabet keeps Cyrillic");
    }

    #[test]
    fn named_alphabets() {
        assert_eq!(Alphabet::parse("letters").unwrap(), Alphabet::default());
        assert_eq!(Alphabet::parse("letters+digits").unwrap().len(), 37);
        assert_eq!(Alphabet::parse("AB").unwrap().as_string(), "AB");
        assert!(Alphabet::parse("").is_err());
    }
}
