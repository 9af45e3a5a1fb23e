//! Boundary padding: records embedded (and mined) as `^record$`.
//!
//! Without padding the first and last symbols of a record sit in fewer grams
//! than the middle ones, so an edit at either end is nearly invisible to the
//! embedding. With it, an edit at an end changes as many windows as one in the
//! middle.
//!
//! **Privacy.** The two symbols are public constants outside Σ, chosen before
//! any record is read: padding is a data-independent map applied to every record
//! alike, so it changes no sensitivity and spends no budget.
//!
//! The one place padding is decided is the noisy base: [`crate::mine::mine`]
//! records it ([`crate::base::NoisyBase::padding`]), the merge carries it into
//! the shared base ([`crate::base::SharedBase::padding`]), and the embedding and
//! the thresholds read it from there. Nothing guesses it.

use crate::alphabet::{Alphabet, MAX_ALPHABET};
use crate::error::BaseError;
use serde::{Deserialize, Serialize};

/// Start and end padding symbols, public and outside Σ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Padding {
    pub start: char,
    pub end: char,
}

impl Default for Padding {
    fn default() -> Self {
        Padding { start: '^', end: '$' }
    }
}

impl Padding {
    /// Checks the symbols against Σ: distinct, not in Σ, and Σ plus them within
    /// [`MAX_ALPHABET`].
    pub fn check(&self, alphabet: &Alphabet) -> Result<(), BaseError> {
        let bad = |m: String| Err(BaseError::Invalid(m));
        if self.start == self.end {
            return bad(format!("the padding symbols are equal ({:?})", self.start));
        }
        for c in [self.start, self.end] {
            if alphabet.contains(c) {
                return bad(format!("padding symbol {c:?} is in the alphabet"));
            }
        }
        if alphabet.len() + 2 > MAX_ALPHABET {
            return bad(format!("the alphabet has {} symbols: no room for two padding symbols", alphabet.len()));
        }
        Ok(())
    }

    /// Σ followed by the two padding symbols: the alphabet of padded records.
    pub fn extend(&self, alphabet: &Alphabet) -> Result<Alphabet, BaseError> {
        self.check(alphabet)?;
        let mut s = alphabet.as_string();
        s.push(self.start);
        s.push(self.end);
        Alphabet::new(&s).map_err(|e| BaseError::Invalid(e.to_string()))
    }

    /// `start + s + end`.
    pub fn pad(&self, s: &str) -> String {
        let mut out = String::with_capacity(s.len() + 2);
        out.push(self.start);
        out.push_str(s);
        out.push(self.end);
        out
    }

    /// Σ without the padding symbols (the inverse of [`Padding::extend`]).
    pub fn strip(&self, alphabet: &Alphabet) -> Result<Alphabet, BaseError> {
        let s: String = alphabet.symbols().iter().filter(|&&c| c != self.start && c != self.end).collect();
        Alphabet::new(&s).map_err(|e| BaseError::Invalid(e.to_string()))
    }
}

/// `s` padded when `padding` is set, else `s` itself (no copy).
pub fn apply<'s>(padding: Option<Padding>, s: &'s str) -> std::borrow::Cow<'s, str> {
    match padding {
        Some(p) => std::borrow::Cow::Owned(p.pad(s)),
        None => std::borrow::Cow::Borrowed(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_must_be_outside_sigma() {
        let al = Alphabet::new("AB^").unwrap();
        assert!(Padding::default().check(&al).is_err());
        assert!(Padding { start: 'X', end: 'X' }.check(&Alphabet::default()).is_err());
        let ext = Padding::default().extend(&Alphabet::default()).unwrap();
        assert_eq!(Padding::default().strip(&ext).unwrap(), Alphabet::default());
    }

    #[test]
    fn apply_pads_only_when_asked() {
        assert_eq!(apply(Some(Padding::default()), "AB"), "^AB$");
        assert_eq!(apply(None, "AB"), "AB");
    }
}
