//! The warning a user sees when normalization dropped more than a little
//! ([`WARN_SHARE`] of the characters), and an alphabet that would keep what was
//! dropped.

use super::dropped::{CharCounts, WARN_SHARE};
use super::named::NamedAlphabet;
use super::{Alphabet, MAX_ALPHABET};

impl CharCounts {
    /// An alphabet that would keep the dropped ASCII characters: `letters+digits`
    /// when digits are all that is missing from the default, else `alphabet` with
    /// the dropped printable ASCII symbols added in ASCII order (as many as fit).
    /// `None` when nothing ASCII was dropped.
    pub fn suggestion(&self, alphabet: &Alphabet) -> Option<String> {
        let dropped = self.dropped_ascii();
        if dropped.is_empty() {
            return None;
        }
        if dropped.iter().all(char::is_ascii_digit) && *alphabet == Alphabet::default() {
            return Some(NamedAlphabet::LettersDigits.name().into());
        }
        let mut s = alphabet.as_string();
        for c in dropped {
            let c = if alphabet.folds_case() { c.to_ascii_uppercase() } else { c };
            if s.chars().count() >= MAX_ALPHABET {
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
}
