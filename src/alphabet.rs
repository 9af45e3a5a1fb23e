//! The public alphabet and normalization.
//!
//! Differential privacy needs the alphabet fixed before the data is read: the
//! prefix-tree miner asks a count for every symbol of Σ, and a symbol seen only in
//! the data must never decide what is asked. So Σ is a parameter, public, agreed by
//! both parties, and normalization maps any input onto it.
//!
//! Normalization, in this order (docs/SCENARIO.md):
//! 1. Unicode NFKD (compatibility decomposition: `ﬁ` → `fi`, `Ｋ` → `K`, `é` → `e` + ◌́;
//!    in wasm the JS engine's, see below);
//! 2. drop combining marks (so `Kīhei` → `Kihei`, `Cañon` → `Canon`, `Müller` → `Muller`);
//! 3. uppercase (`ß` → `SS`), unless the alphabet has lowercase letters of its own;
//! 4. keep the symbols of Σ and whitespace; drop everything else (`‘Ewa` → `Ewa`,
//!    letters of other scripts such as `Иванов` or `王` vanish: such a record
//!    normalizes to the empty string and is reported, never matched);
//! 5. turn each run of whitespace into one space (if Σ has a space; otherwise drop
//!    it), and trim.
//!
//! Letters without a decomposition (`Ø`, `Ł`, `Đ`) are not letters of A–Z after
//! NFKD and are dropped, as the rule says: `Łódź` → `ODZ`.
//!
//! Natively, steps 1–2 use the `unicode-normalization` crate (0.1.26: Unicode
//! 18.0); in wasm32 the JS engine's `String.prototype.normalize("NFKD")` and
//! `/\p{M}/u` (Node 20.20 with ICU 78: Unicode 17.0; a browser: its ICU's version),
//! which keeps the crate's tables (a third of the gzipped wasm) out of the npm
//! package. Unicode's stability policies fix the decomposition and the category of
//! every assigned code point, so native and wasm normalize identically except,
//! possibly, for code points assigned after the older of the two Unicode versions
//! (the older side leaves such a code point as it is). Steps 3–5 run in Rust on both
//! platforms.

use crate::error::InputError;
use serde::{Deserialize, Serialize};
mod dropped;
mod named;
mod nfkd;
mod warning;
pub use dropped::{CharCounts, WARN_SHARE};
pub use named::NamedAlphabet;
use nfkd::is_combining_mark;

/// The largest alphabet accepted: the prefix tree asks |Σ| counts per node, and
/// the FPM miner enumerates Σ^q, so Σ must stay small.
pub const MAX_ALPHABET: usize = 64;

/// A public, ordered set of symbols. Position in the order is the symbol's index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Alphabet {
    symbols: Vec<char>,
    fold_case: bool,
}

impl Default for Alphabet {
    /// A–Z and space: the scenario's Σ (27 symbols).
    fn default() -> Self {
        Alphabet::new("ABCDEFGHIJKLMNOPQRSTUVWXYZ ").expect("the default alphabet is valid")
    }
}

impl Alphabet {
    /// An alphabet from its symbols, e.g. `"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "`.
    ///
    /// Symbols are kept in the order given, must be distinct, printable, and not
    /// combining marks or whitespace other than the plain space. Input is folded to
    /// uppercase unless the alphabet contains lowercase letters.
    pub fn new(symbols: &str) -> Result<Self, InputError> {
        let mut out: Vec<char> = Vec::new();
        for c in symbols.chars() {
            if c.is_control() || (c.is_whitespace() && c != ' ') {
                return Err(InputError::Alphabet(format!(
                    "symbol U+{:04X} is a control or whitespace character; only the plain space may stand for whitespace",
                    c as u32
                )));
            }
            if is_combining_mark(c) {
                return Err(InputError::Alphabet(format!(
                    "symbol U+{:04X} is a combining mark; normalization removes those",
                    c as u32
                )));
            }
            if out.contains(&c) {
                return Err(InputError::Alphabet(format!("symbol {c:?} appears twice")));
            }
            out.push(c);
        }
        if out.is_empty() {
            return Err(InputError::Alphabet("it has no symbols".into()));
        }
        if out.len() > MAX_ALPHABET {
            return Err(InputError::Alphabet(format!("{} symbols; at most {MAX_ALPHABET} are supported", out.len())));
        }
        if out == [' '] {
            return Err(InputError::Alphabet("it has only the space".into()));
        }
        let fold_case = !out.iter().any(|c| c.is_lowercase());
        Ok(Alphabet { symbols: out, fold_case })
    }

    /// An alphabet by name ([`NamedAlphabet`]: `letters`, `letters+digits`) or,
    /// for any other text, by its symbols ([`Alphabet::new`]).
    pub fn parse(spec: &str) -> Result<Self, InputError> {
        match NamedAlphabet::ALL.into_iter().find(|n| n.name() == spec) {
            Some(n) => Alphabet::new(n.symbols()),
            None => Alphabet::new(spec),
        }
    }

    /// Whether input is folded to uppercase (Σ has no lowercase letter).
    pub fn folds_case(&self) -> bool {
        self.fold_case
    }

    pub fn symbols(&self) -> &[char] {
        &self.symbols
    }

    pub fn len(&self) -> usize {
        self.symbols.len()
    }

    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }

    /// The alphabet as the string of its symbols (its canonical, public form).
    pub fn as_string(&self) -> String {
        self.symbols.iter().collect()
    }

    pub fn contains(&self, c: char) -> bool {
        self.symbols.contains(&c)
    }

    pub fn has_space(&self) -> bool {
        self.symbols.contains(&' ')
    }

    /// The index of `c` in Σ.
    pub fn index_of(&self, c: char) -> Option<usize> {
        self.symbols.iter().position(|&s| s == c)
    }

    /// Whether every character of `s` is a symbol of Σ.
    pub fn covers(&self, s: &str) -> bool {
        s.chars().all(|c| self.contains(c))
    }

    /// Normalizes one record onto Σ (see the module docs for the rule).
    pub fn normalize(&self, raw: &str) -> String {
        // one instantiation of the normalization for both entry points (wasm size)
        self.normalize_counting(raw, &mut CharCounts::default())
    }

    /// [`Alphabet::normalize`], counting what is kept and dropped into `counts`.
    pub fn normalize_counting(&self, raw: &str, counts: &mut CharCounts) -> String {
        let out = self.normalize_with(raw, |c| counts.drop(c));
        counts.kept += out.chars().filter(|&c| c != ' ').count() as u64;
        out
    }

    /// The normalization, calling `dropped` with each character it drops.
    fn normalize_with(&self, raw: &str, mut dropped: impl FnMut(char)) -> String {
        let mut out = String::with_capacity(raw.len());
        let mut pending_space = false;
        let keep_space = self.has_space();
        let mut push = |c: char, out: &mut String, pending: &mut bool| {
            if c.is_whitespace() {
                *pending = keep_space;
                return;
            }
            if self.contains(c) {
                if *pending && !out.is_empty() {
                    out.push(' ');
                }
                *pending = false;
                out.push(c);
            } else {
                dropped(c);
            }
        };
        let mut step = |c: char| {
            if self.fold_case && c.is_lowercase() {
                for u in c.to_uppercase() {
                    push(u, &mut out, &mut pending_space);
                }
            } else {
                push(c, &mut out, &mut pending_space);
            }
        };
        // NFKD leaves ASCII unchanged and ASCII has no combining marks: skip
        // steps 1-2 for the common case (they are most of the normalization time)
        if raw.is_ascii() {
            raw.chars().for_each(&mut step);
        } else {
            nfkd::for_each_unmarked_nfkd(raw, step);
        }
        out
    }
}

impl TryFrom<String> for Alphabet {
    type Error = InputError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        Alphabet::new(&s)
    }
}

impl From<Alphabet> for String {
    fn from(a: Alphabet) -> String {
        a.as_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each input normalized onto the default alphabet, against the expected text.
    fn normalizes(cases: &[(&str, &str)]) {
        for &(input, want) in cases {
            assert_eq!(Alphabet::default().normalize(input), want, "{input:?}");
        }
    }

    #[test]
    fn scenario_examples() {
        normalizes(&[
            ("Kīhei", "KIHEI"),
            ("Cañon City", "CANON CITY"),
            ("‘Ewa Beach", "EWA BEACH"),
            ("Müller", "MULLER"),
            ("straße", "STRASSE"),
            ("  o'brien \t jr. ", "OBRIEN JR"),
            ("Łódź", "ODZ"),
            ("ﬁnn", "FINN"),
        ]);
    }

    #[test]
    fn other_scripts_and_junk_normalize_to_empty() {
        let inputs = ["Иванов", "王", "", "   ", "1234 -- !!", "\u{0301}\u{200B}"];
        normalizes(&inputs.map(|input| (input, "")));
    }

    #[test]
    fn drop_happens_before_collapse() {
        // the apostrophe is dropped first, so no double space remains
        normalizes(&[("A ' B", "A B"), ("A'B", "AB")]);
    }

    #[test]
    fn custom_alphabet_with_digits() {
        let a = Alphabet::new("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ").unwrap();
        assert_eq!(a.normalize("Apt 4b"), "APT 4B");
        let no_space = Alphabet::new("ABC").unwrap();
        assert_eq!(no_space.normalize("a b c d"), "ABC");
        let lower = Alphabet::new("abc ").unwrap();
        assert_eq!(lower.normalize("aBc ab"), "ac ab");
    }

    #[test]
    fn invalid_alphabets() {
        assert!(Alphabet::new("").is_err());
        assert!(Alphabet::new("AA").is_err());
        assert!(Alphabet::new("A\tB").is_err());
        assert!(Alphabet::new(" ").is_err());
        assert!(Alphabet::new("A\u{0301}").is_err());
        let long: String = (0..65u32).map(|i| char::from_u32(0x100 + i).unwrap()).collect();
        assert!(Alphabet::new(&long).is_err());
    }

    #[test]
    fn output_is_always_over_sigma() {
        let a = Alphabet::default();
        for s in ["Kīhei", "x\u{3000}y", "Ǆ", "ǅemal", "İstanbul", "ℌello"] {
            let out = a.normalize(s);
            assert!(a.covers(&out), "{s:?} -> {out:?}");
            assert!(!out.starts_with(' ') && !out.ends_with(' ') && !out.contains("  "));
        }
    }

    #[test]
    fn named_alphabets() {
        assert_eq!(Alphabet::parse("letters").unwrap(), Alphabet::default());
        assert_eq!(Alphabet::parse("letters+digits").unwrap().len(), 37);
        assert_eq!(Alphabet::parse("AB").unwrap().as_string(), "AB");
        assert!(Alphabet::parse("").is_err());
    }
}
