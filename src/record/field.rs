//! A schema's field: its kind, options, levels and gram space.

use super::date_parts::{self, DatePart, MAX_DAYS};
use super::dates::DateFormat;
use crate::error::{Error, InputError};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// At most this many edit levels per field (the thresholds A computes per level).
pub const MAX_LEVELS: usize = 4;

/// An error in the schema, a field's options included: `schema: …`.
pub(super) fn bad(m: String) -> Error {
    Error::Input(InputError::Format(format!("schema: {m}")))
}

/// How a field is transformed by its owner and compared by the matcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Private: its own ε-DP gram base and embedding (letters by default).
    String,
    /// Private: as `String`, tokens sorted (token order does not matter); all
    /// name fields share one base, so swapped name fields are compared across.
    Name,
    /// Private: a date, compared per year, month and day by embedded digits.
    Date,
    /// Private: a number, embedded over the digits.
    Number,
    /// Private: equality of a keyed hash (the parties' shared key; the matcher
    /// never has it).
    Keyed,
    /// Not sensitive: sent and compared as is.
    Clear,
    /// Never leaves the party.
    Suppress,
}

impl Kind {
    pub const ALL: [Kind; 7] =
        [Kind::String, Kind::Name, Kind::Date, Kind::Number, Kind::Keyed, Kind::Clear, Kind::Suppress];

    pub fn name(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Name => "name",
            Kind::Date => "date",
            Kind::Number => "number",
            Kind::Keyed => "keyed",
            Kind::Clear => "clear",
            Kind::Suppress => "suppress",
        }
    }

    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Embedded over a gram base (compared by distance with edit levels).
    pub fn is_embedded(self) -> bool {
        matches!(self, Kind::String | Kind::Name | Kind::Date | Kind::Number)
    }

    /// Mines grams with ε by default (dates and numbers use the public digit
    /// grams only: their alphabet is ten symbols, every 2-gram is public).
    pub fn mines_by_default(self) -> bool {
        matches!(self, Kind::String | Kind::Name)
    }
}

/// Per-component weights of a date's weighted edit distance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DateWeights {
    #[serde(default = "two")]
    pub year: f64,
    #[serde(default = "one")]
    pub month: f64,
    #[serde(default = "one")]
    pub day: f64,
}

fn one() -> f64 {
    1.0
}
fn two() -> f64 {
    2.0
}

impl Default for DateWeights {
    fn default() -> Self {
        DateWeights { year: 2.0, month: 1.0, day: 1.0 }
    }
}

/// One field of the schema, as written. Defaults per kind are applied by
/// [`Field::levels`] and friends, so the written schema stays what the user wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Field {
    /// The field's name (unique; errors and results use it).
    pub name: String,
    /// The CSV column(s); several are joined by a space. Default: `[name]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<String>,
    /// One of [`Kind::name`]; checked by [`Schema::validate`](super::Schema::validate).
    pub kind: String,
    /// This field's share of the party's ε (mined kinds only). Default: the
    /// budget not given explicitly, split equally over the other mined fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<f64>,
    /// The edit distances that make the field's levels (below exact). Default
    /// `[1, 2]`; for a date the weighted-distance bands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub levels: Option<Vec<f64>>,
    /// Symbols of a string field ([`crate::alphabet::Alphabet::parse`]). Default `letters`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alphabet: Option<String>,
    /// A date's layout: year, day or month first, separated by `-`, `/`, `.`
    /// or nothing (`YYYYMMDD`, `DD.MM.YYYY`, `MM/DD/YYYY`, …: [`DateFormat::parse`]). Default: each value's own
    /// ([`DateFormat::of_value`]; a file's 8-digit values in the layout of eight
    /// digits that reads them), so the two parties may write dates differently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// A date sent as three parts, year, month and day (`true`), instead of
    /// whole (default). Split, each part is a small domain of its own whose
    /// equal values are equal rows: with a list of the data's values, graph
    /// matching named the month of 82.92 % and the day of 58.62 % of a keyed
    /// FEBRL 3 batch, where the whole date gave 0.05 % (docs/THREAT_MODEL.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<bool>,
    /// A split date's component weights.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<DateWeights>,
    /// A date's level "day and month swapped" (default: on for a whole
    /// date, off for a split one): one more part, the date with month and
    /// day in ascending order ([`super::date_parts`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swap: Option<bool>,
    /// A date's level "within N days" (default: none): two more parts, the
    /// date's N-day cells on two grids offset by half a cell
    /// ([`super::date_parts`]). 2 to 366.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<u32>,
    /// A date's level "year ± 1" (default off): the same month and day, the
    /// years one apart; two more parts ([`super::date_parts`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year_off: Option<bool>,
    /// A date that does not parse: `error` (default, the row is named) or `missing`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
    /// A name's nicknames become their formal name before encoding (default
    /// false: it makes more records share a value, and the matcher's
    /// exact-algebra attack then names more of them; [`super::names`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nicknames: Option<bool>,
    /// A name written as a placeholder ("Wife", "Unknown") is missing
    /// (default true; [`super::names`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fillers: Option<bool>,
    /// A name's level "initial" (default on): one side is a single letter
    /// and the other's vector holds one of its two bigram buckets
    /// ([`super::compare`]); computed from what the matcher already sees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initials: Option<bool>,
    /// Another field whose value salts this one's keyed encoding (a date
    /// salts by its year): values under different salts are encoded by
    /// unrelated sketches, so the matcher compares them only where the salts
    /// agree ([`super::salt`], measured there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub salt: Option<String>,
    /// Fixed m probabilities per level (exact, each edit level, disagree),
    /// instead of the EM estimate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub m: Option<Vec<f64>>,
    /// Fixed u probabilities per level, as `m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub u: Option<Vec<f64>>,
}

/// The level name of a name's "initial", a level outside the closeness
/// order of the others ([`super::fit::monotone_side`]).
pub const INITIAL: &str = "initial";

impl Field {
    /// A field of `kind` read from the column of its name, every option default.
    pub fn new(name: &str, kind: Kind) -> Field {
        Field {
            name: name.into(),
            columns: Vec::new(),
            kind: kind.name().into(),
            epsilon: None,
            levels: None,
            alphabet: None,
            format: None,
            split: None,
            weights: None,
            swap: None,
            days: None,
            year_off: None,
            invalid: None,
            nicknames: None,
            fillers: None,
            initials: None,
            salt: None,
            m: None,
            u: None,
        }
    }

    /// The kind, parsed (`None` before validation for an unknown one).
    pub fn kind(&self) -> Option<Kind> {
        Kind::from_name(&self.kind)
    }

    /// The columns read: the written ones or the field's name.
    pub fn columns(&self) -> Vec<String> {
        if self.columns.is_empty() {
            vec![self.name.clone()]
        } else {
            self.columns.clone()
        }
    }

    /// The gram space the field is embedded in (shared by all name fields).
    pub fn space(&self) -> Option<String> {
        self.space_name().map(str::to_string)
    }

    pub(super) fn space_name(&self) -> Option<&str> {
        match self.kind()? {
            Kind::Name => Some("names"),
            k if k.is_embedded() => Some(&self.name),
            _ => None,
        }
    }

    /// The edit levels below exact (or a date's bands), ascending.
    pub fn levels(&self) -> Vec<f64> {
        self.levels.clone().unwrap_or_else(|| vec![1.0, 2.0])
    }

    /// Whether an exact agreement has two levels, on a rare value and on a
    /// common one (`compare::common_values`): a name, whose values'
    /// frequencies differ by orders of magnitude (two "Smith"s agreeing say
    /// less than two "Etienne"s), the term-frequency adjustment in two bins.
    pub fn splits_exact(&self) -> bool {
        self.kind() == Some(Kind::Name)
    }

    /// Whether a name has the level "initial" (`initials`, default on).
    pub fn initials(&self) -> bool {
        self.kind() == Some(Kind::Name) && self.initials != Some(false)
    }

    /// The number of comparison levels, missing excluded: exact, each edit
    /// level, disagree (a date: with its swapped and within-days levels; a
    /// name: its exact level split, and "initial"; keyed and clear: agree,
    /// disagree).
    pub fn level_count(&self) -> usize {
        match self.kind() {
            Some(k) if k.is_embedded() => {
                self.levels().len()
                    + 2
                    + usize::from(self.splits_exact())
                    + usize::from(self.initials())
                    + self.date_extra_levels()
            }
            _ => 2,
        }
    }

    fn split_date(&self) -> bool {
        self.kind() == Some(Kind::Date) && self.split == Some(true)
    }

    /// Whether a date has the level "day and month swapped" (`swap`, default
    /// on for a whole date).
    pub fn swaps(&self) -> bool {
        self.kind() == Some(Kind::Date) && self.swap.unwrap_or(self.split != Some(true))
    }

    /// A date's N of its level "within N days" (`days`).
    pub fn within_days(&self) -> Option<u32> {
        self.days.filter(|_| self.kind() == Some(Kind::Date))
    }

    /// Whether a date has the level "year ± 1" (`year_off`).
    pub fn year_off(&self) -> bool {
        self.kind() == Some(Kind::Date) && self.year_off == Some(true)
    }

    /// The levels a date has between exact and its edit levels.
    fn date_extra_levels(&self) -> usize {
        usize::from(self.swaps()) + usize::from(self.year_off()) + usize::from(self.within_days().is_some())
    }

    /// What each part of a date field embeds ([`date_parts::layout`]).
    pub fn date_parts(&self) -> Vec<DatePart> {
        date_parts::layout(self.split_date(), self.swaps(), self.within_days(), self.year_off())
    }

    /// How many parts the field's vectors have: a date's
    /// ([`Field::date_parts`]: its text whole or split, then its swapped and
    /// within-days parts), one for every other embedded field.
    pub fn parts(&self) -> usize {
        if self.kind() == Some(Kind::Date) {
            self.date_parts().len()
        } else {
            1
        }
    }

    /// How many of the parts are compared by edits: a split date's three,
    /// else the first one.
    pub fn text_parts(&self) -> usize {
        if self.split_date() {
            3
        } else {
            1
        }
    }

    /// The text part `c` embeds of a normalized value `v` (a date is
    /// YYYYMMDD): a date's part ([`date_parts::text`]), else the value itself.
    pub fn part_text<'v>(&self, c: usize, v: &'v str) -> Cow<'v, str> {
        match self.date_parts().get(c) {
            Some(&p) if self.kind() == Some(Kind::Date) => date_parts::text(p, self.split_date(), self.days, v),
            _ => Cow::Borrowed(v),
        }
    }

    /// Part `c`'s name in reports: a split date's "year", "month" or "day",
    /// a date's swapped and within-days parts; `None` for the field's text.
    pub fn part_name(&self, c: usize) -> Option<String> {
        let p = *self.date_parts().get(c).filter(|_| self.kind() == Some(Kind::Date))?;
        date_parts::name(p, self.split_date(), self.days)
    }

    /// The weights of the text parts' edit estimates in a date's level: a
    /// split date's `weights` (default year 2, month 1, day 1), a whole date's 1.
    pub fn part_weights(&self) -> Vec<f64> {
        if self.split_date() {
            let w = self.weights.clone().unwrap_or_default();
            vec![w.year, w.month, w.day]
        } else {
            vec![1.0]
        }
    }

    /// The names of the levels, in order (results and reports).
    pub fn level_names(&self) -> Vec<String> {
        match self.kind() {
            Some(Kind::Date) => {
                let mut v = vec!["exact".to_string()];
                if self.swaps() {
                    v.push("day and month swapped".into());
                }
                if self.year_off() {
                    v.push("year ± 1".into());
                }
                if let Some(n) = self.within_days() {
                    v.push(format!("within {n} day{}", if n == 1 { "" } else { "s" }));
                }
                // a split date's levels are bands of weighted edits; a whole one's are edits
                let band = |l: &f64| if self.split_date() { format!("within {l}") } else { format!("ed<={l}") };
                v.extend(self.levels().iter().map(band));
                v.push("disagree".into());
                v
            }
            Some(k) if k.is_embedded() => {
                let mut v = vec!["exact".to_string()];
                if self.splits_exact() {
                    v = vec!["exact, rare value".into(), "exact, common value".into()];
                }
                v.extend(self.levels().iter().map(|l| format!("ed<={l}")));
                if self.initials() {
                    v.push(INITIAL.into());
                }
                v.push("disagree".into());
                v
            }
            _ => vec!["agree".into(), "disagree".into()],
        }
    }

    pub(super) fn validate(&self) -> Result<(), Error> {
        let at = |m: String| bad(format!("field {:?}: {m}", self.name));
        if self.name.is_empty() || self.name.len() > 64 || self.name.chars().any(|c| c.is_control() || c == ',') {
            return Err(bad(format!(
                "field name {:?} must be 1-64 characters, no comma or control character",
                self.name
            )));
        }
        let kind = self.kind().ok_or_else(|| {
            at(format!("unknown kind {:?} (one of {})", self.kind, Kind::ALL.map(|k| k.name()).join(", ")))
        })?;
        if self.columns.iter().any(|c| c.trim().is_empty()) {
            return Err(at("an empty column name".into()));
        }
        let only = |opt: &str, set: bool, kinds: &[Kind]| {
            if set && !kinds.contains(&kind) {
                Err(at(format!("option {opt} does not apply to a {} field", kind.name())))
            } else {
                Ok(())
            }
        };
        only("levels", self.levels.is_some(), &[Kind::String, Kind::Name, Kind::Date, Kind::Number])?;
        only("alphabet", self.alphabet.is_some(), &[Kind::String])?;
        only("format", self.format.is_some(), &[Kind::Date])?;
        only("weights", self.weights.is_some(), &[Kind::Date])?;
        only("split", self.split.is_some(), &[Kind::Date])?;
        if self.weights.is_some() && self.split != Some(true) {
            return Err(at("weights weigh a split date's year, month and day: add split = true (a whole date \
                 is one part, its levels count edits)"
                .into()));
        }
        only("swap", self.swap.is_some(), &[Kind::Date])?;
        only("days", self.days.is_some(), &[Kind::Date])?;
        only("year_off", self.year_off.is_some(), &[Kind::Date])?;
        if let Some(n) = self.days {
            // one-day cells are days: equal cells would be equal dates, the exact level
            if !(2..=MAX_DAYS).contains(&n) {
                return Err(at(format!("days = {n}: a number of days from 2 to {MAX_DAYS}")));
            }
        }
        only("invalid", self.invalid.is_some(), &[Kind::Date])?;
        only("nicknames", self.nicknames.is_some(), &[Kind::Name])?;
        only("fillers", self.fillers.is_some(), &[Kind::Name])?;
        only("initials", self.initials.is_some(), &[Kind::Name])?;
        only("m", self.m.is_some(), &[Kind::String, Kind::Name, Kind::Date, Kind::Number, Kind::Keyed, Kind::Clear])?;
        only("u", self.u.is_some(), &[Kind::String, Kind::Name, Kind::Date, Kind::Number, Kind::Keyed, Kind::Clear])?;
        if let Some(levels) = &self.levels {
            if levels.is_empty() || levels.len() > MAX_LEVELS {
                return Err(at(format!("levels must list 1 to {MAX_LEVELS} values")));
            }
            if levels.windows(2).any(|w| w[0] >= w[1]) || levels.iter().any(|l| !l.is_finite() || *l <= 0.0) {
                return Err(at("levels must be ascending positive numbers".into()));
            }
            // a split date's levels are bands of weighted edits, any other's edits
            if !self.split_date() && levels.iter().any(|l| l.fract() != 0.0 || *l > crate::threshold::MAX_ED as f64) {
                return Err(at(format!(
                    "levels of a {} field are edit distances: whole numbers 1..={}",
                    kind.name(),
                    crate::threshold::MAX_ED
                )));
            }
        }
        if let Some(a) = &self.alphabet {
            crate::alphabet::Alphabet::parse(a).map_err(|e| at(e.to_string()))?;
        }
        if let Some(f) = &self.format {
            DateFormat::parse(f).map_err(at)?;
        }
        if let Some(w) = &self.weights {
            if [w.year, w.month, w.day].iter().any(|x| !x.is_finite() || *x < 0.0) || w.year + w.month + w.day == 0.0 {
                return Err(at("weights must be numbers >= 0, not all 0".into()));
            }
        }
        if let Some(i) = &self.invalid {
            if i != "error" && i != "missing" {
                return Err(at(format!("invalid = {i:?}: use \"error\" or \"missing\"")));
            }
        }
        for (n, p) in [("m", &self.m), ("u", &self.u)] {
            if let Some(p) = p {
                if p.len() != self.level_count() {
                    return Err(at(format!(
                        "{n} lists {} probabilities, the field has {} levels ({})",
                        p.len(),
                        self.level_count(),
                        self.level_names().join(", ")
                    )));
                }
                if p.iter().any(|x| !(x.is_finite() && *x > 0.0 && *x < 1.0)) {
                    return Err(at(format!("{n} must be probabilities in (0, 1)")));
                }
                let s: f64 = p.iter().sum();
                if (s - 1.0).abs() > 1e-6 {
                    return Err(at(format!("{n} must add up to 1 (it adds up to {s})")));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
