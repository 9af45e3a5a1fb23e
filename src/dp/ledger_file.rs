//! A party's privacy ledger that outlives one run: every ε released from one
//! data set, recorded with what was released and when, against a total budget.
//!
//! A [`BudgetLedger`](super::BudgetLedger) lives as long as one owner object; a
//! party that runs `gramlink mine` k times on the same file, or reloads its page,
//! would otherwise release kε with no record. This ledger is kept beside the data
//! (the CLI) or in the browser's storage (the page), loaded before a mechanism
//! runs, charged, and saved before the release is written: a release never
//! exists that the ledger does not hold. Sequential composition: the ε spent is
//! the exact sum of the spends (as [`Epsilon`] units), and no spend may take it
//! past the total.
//!
//! The file is JSON (`format`, `version`, `data`, the SHA-256 of the data's
//! bytes `data_sha256` where the caller could read them, `total`, `spent`,
//! `spends` and the history of the total's `raises`); a file that does not parse, is of
//! another version, or whose `spent` is not the sum of its spends is refused
//! with [`DpError::Ledger`], never silently replaced by a fresh ledger.

use super::epsilon::Epsilon;
use crate::error::DpError;
use serde::{Deserialize, Serialize};

/// The `format` field of a ledger file.
pub const LEDGER_FORMAT: &str = "gramlink privacy ledger";
/// The ledger file version this build reads and writes.
pub const LEDGER_VERSION: u32 = 1;
/// The most spends one ledger holds (a ledger file is read whole; far beyond any real use).
pub const MAX_SPENDS: usize = 100_000;

/// One release charged to the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spend {
    /// When, as the caller's clock gives it (the CLI: UTC, RFC 3339).
    pub at: String,
    /// The command or page action that released it ("mine", "kuzu encrypt", …).
    pub command: String,
    pub epsilon: Epsilon,
    /// What left the party with this ε (a noisy base of n grams, to which file).
    pub released: String,
}

/// A change of the total budget (the owner's explicit decision, kept on record).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Raise {
    pub at: String,
    pub from: Epsilon,
    pub to: Epsilon,
}

/// A party's persistent ledger for one data set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LedgerFile {
    format: String,
    version: u32,
    /// What the ledger guards (the data file's name, or the page's party name).
    data: String,
    /// The SHA-256 of the data's bytes (hex), where the caller could read them
    /// twice (a file, not a pipe); a ledger written before this field has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    data_sha256: Option<String>,
    total: Epsilon,
    spent: Epsilon,
    spends: Vec<Spend>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    raises: Vec<Raise>,
}

impl LedgerFile {
    /// A fresh ledger of `total` for `data`.
    pub fn new(data: &str, total: Epsilon) -> Result<LedgerFile, DpError> {
        if total.is_zero() {
            return Err(DpError::Ledger("the total budget must be greater than 0".into()));
        }
        Ok(LedgerFile {
            format: LEDGER_FORMAT.into(),
            version: LEDGER_VERSION,
            data: data.into(),
            data_sha256: None,
            total,
            spent: Epsilon::zero(),
            spends: Vec::new(),
            raises: Vec::new(),
        })
    }

    /// Reads a ledger file and checks it: format, version, and that `spent`
    /// is the sum of the spends and within the total.
    pub fn parse(text: &str) -> Result<LedgerFile, DpError> {
        let bad = |m: String| DpError::Ledger(m);
        let l: LedgerFile = serde_json::from_str(text).map_err(|e| bad(format!("not a ledger file: {e}")))?;
        if l.format != LEDGER_FORMAT {
            return Err(bad(format!("format is {:?}, expected {LEDGER_FORMAT:?}", l.format)));
        }
        if l.version != LEDGER_VERSION {
            return Err(bad(format!("version {} is not supported (this build reads {LEDGER_VERSION})", l.version)));
        }
        if l.spends.len() > MAX_SPENDS {
            return Err(bad(format!("{} spends, more than the {MAX_SPENDS} a ledger holds", l.spends.len())));
        }
        let sum = l.spends.iter().try_fold(Epsilon::zero(), |s, x| s.checked_add(x.epsilon));
        if sum != Some(l.spent) {
            return Err(bad(format!("spent {} is not the sum of its spends: the file was altered", l.spent)));
        }
        if let Some(h) = &l.data_sha256 {
            if !is_sha256_hex(h) {
                return Err(bad(format!("data_sha256 {h:?} is not 64 lowercase hex digits")));
            }
        }
        if l.total.is_zero() || l.spent > l.total {
            return Err(bad(format!("spent {} exceeds its total {}: the file was altered", l.spent, l.total)));
        }
        Ok(l)
    }

    /// The file's text (pretty JSON, one spend a few lines).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a ledger serializes") + "\n"
    }

    pub fn data(&self) -> &str {
        &self.data
    }

    /// The SHA-256 (hex) of the data this ledger guards, if recorded.
    pub fn data_sha256(&self) -> Option<&str> {
        self.data_sha256.as_deref()
    }

    /// Records the SHA-256 (hex) of the data's bytes; a ledger keeps the first
    /// hash it was given (the caller warns when the data changed since).
    pub fn set_data_sha256(&mut self, hex: &str) -> Result<(), DpError> {
        if !is_sha256_hex(hex) {
            return Err(DpError::Ledger(format!("data_sha256 {hex:?} is not 64 lowercase hex digits")));
        }
        if self.data_sha256.is_none() {
            self.data_sha256 = Some(hex.into());
        }
        Ok(())
    }

    pub fn total(&self) -> Epsilon {
        self.total
    }

    pub fn spent(&self) -> Epsilon {
        self.spent
    }

    pub fn remaining(&self) -> Epsilon {
        self.total.saturating_sub(self.spent)
    }

    pub fn spends(&self) -> &[Spend] {
        &self.spends
    }

    pub fn raises(&self) -> &[Raise] {
        &self.raises
    }

    /// Refuses `epsilon` if it would take the ledger past its total; `ledger`
    /// names the file in the error. Charges nothing (check before the work).
    pub fn check(&self, ledger: &str, epsilon: Epsilon) -> Result<(), DpError> {
        match self.spent.checked_add(epsilon) {
            Some(t) if t <= self.total => Ok(()),
            _ => Err(DpError::LedgerExhausted {
                ledger: ledger.into(),
                requested: readable(epsilon),
                spent: readable(self.spent),
                total: readable(self.total),
            }),
        }
    }

    /// Charges one release (refused past the total, as [`Self::check`]).
    pub fn charge(&mut self, ledger: &str, spend: Spend) -> Result<(), DpError> {
        self.check(ledger, spend.epsilon)?;
        if self.spends.len() >= MAX_SPENDS {
            return Err(DpError::Ledger(format!("{ledger} holds {MAX_SPENDS} spends already")));
        }
        self.spent = self.spent.checked_add(spend.epsilon).expect("checked above");
        self.spends.push(spend);
        Ok(())
    }

    /// Sets a new total (the owner's decision, kept in `raises`); never below
    /// what is spent.
    pub fn set_total(&mut self, total: Epsilon, at: &str) -> Result<(), DpError> {
        if total < self.spent || total.is_zero() {
            return Err(DpError::Ledger(format!(
                "a total of {total} is below the {} already spent: spent ε is never given back",
                self.spent
            )));
        }
        if total != self.total {
            self.raises.push(Raise { at: at.into(), from: self.total, to: total });
            self.total = total;
        }
        Ok(())
    }
}

/// A SHA-256 as the ledger writes it: 64 lowercase hex digits.
fn is_sha256_hex(h: &str) -> bool {
    h.len() == 64 && h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// ε for a message: the exact 2^-40 multiple shown to 9 decimals (0.1, not 0.09999999999990905).
fn readable(e: Epsilon) -> f64 {
    (e.as_f64() * 1e9).round() / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eps(x: f64) -> Epsilon {
        Epsilon::new(x).unwrap()
    }

    fn spend(x: f64) -> Spend {
        Spend { at: "2026-01-01T00:00:00Z".into(), command: "mine".into(), epsilon: eps(x), released: "base".into() }
    }

    #[test]
    fn a_second_release_past_the_total_is_refused_and_the_file_keeps_the_first() {
        let mut l = LedgerFile::new("names.txt", eps(0.1)).unwrap();
        l.charge("l.json", spend(0.1)).unwrap();
        let again = LedgerFile::parse(&l.to_json()).unwrap();
        assert_eq!(again, l);
        let e = again.check("l.json", eps(0.1)).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("l.json") && m.contains("spent ε 0.1") && m.contains("asks for ε 0.1"), "{m}");
        assert!(m.contains("total 0.1"), "{m}");
        let mut more = again.clone();
        assert!(more.charge("l.json", spend(0.05)).is_err());
        assert_eq!(more.spends().len(), 1);
    }

    #[test]
    fn altered_or_foreign_files_are_named_errors() {
        let mut l = LedgerFile::new("d", eps(1.0)).unwrap();
        l.charge("x", spend(0.25)).unwrap();
        let text = l.to_json();
        for (bad, why) in [
            (text.replace("\"spent\": 0.25", "\"spent\": 0.0"), "not the sum"),
            (text.replace("\"version\": 1", "\"version\": 2"), "version 2"),
            (text.replace(LEDGER_FORMAT, "other"), "format"),
            (text.replace("\"total\": 1.0", "\"total\": 0.1"), "exceeds its total"),
            (text[..text.len() / 2].to_string(), "not a ledger file"),
            (text.replace("\"data\"", "\"extra\": 1, \"data\""), "unknown field"),
            (text.replace("\"data\"", "\"data_sha256\": \"ABC\", \"data\""), "64 lowercase hex"),
        ] {
            let e = LedgerFile::parse(&bad).unwrap_err();
            assert!(matches!(e, DpError::Ledger(_)) && e.to_string().contains(why), "{why}: {e}");
        }
    }

    #[test]
    fn the_data_hash_is_kept_once_and_read_back() {
        let mut l = LedgerFile::new("d", eps(1.0)).unwrap();
        assert!(!l.to_json().contains("data_sha256"), "a ledger without a hash reads as before");
        let h = "ab".repeat(32);
        l.set_data_sha256(&h).unwrap();
        l.set_data_sha256(&"cd".repeat(32)).unwrap();
        assert_eq!(l.data_sha256(), Some(h.as_str()));
        assert_eq!(LedgerFile::parse(&l.to_json()).unwrap(), l);
        assert!(l.set_data_sha256("xyz").is_err());
    }

    #[test]
    fn the_total_is_raised_on_record_and_never_below_the_spent() {
        let mut l = LedgerFile::new("d", eps(0.25)).unwrap();
        l.charge("x", spend(0.25)).unwrap();
        assert!(l.set_total(eps(0.125), "t").is_err());
        l.set_total(eps(0.5), "t").unwrap();
        assert_eq!(l.raises().len(), 1);
        l.charge("x", spend(0.25)).unwrap();
        assert_eq!(l.remaining(), Epsilon::zero());
        assert_eq!(LedgerFile::parse(&l.to_json()).unwrap(), l);
    }
}
