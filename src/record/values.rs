//! A party's records as the schema reads them: per field, the normalized value
//! of each record, or missing.
//!
//! Normalization per kind (the values never leave the party):
//! - `string`: onto the field's alphabet (letters by default; case folded,
//!   accents and punctuation dropped, [`crate::alphabet`]);
//! - `name`: onto letters, then the tokens sorted, so "MARY ANN" and
//!   "ANN MARY" are the same value;
//! - `number`: the digits only;
//! - `date`: parsed by the field's format (default: each value's own layout,
//!   [`DateFormat::of_value`]) into `YYYYMMDD` (month 1–12, day 1–31);
//! - `keyed` and `clear`: onto letters and digits, case folded.
//!
//! A value that normalizes to nothing is *missing*.

use super::schema::{Field, Kind, Schema};
use super::table_reader::TableReader;
use crate::alphabet::Alphabet;
use crate::error::Error;

/// The digits: the alphabet of `number` and `date` fields.
pub const DIGITS: &str = "0123456789";

/// A date layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateFormat {
    Compact,
    Iso,
    DayFirst,
    MonthFirst,
}

impl DateFormat {
    pub fn parse(s: &str) -> Result<DateFormat, String> {
        match s {
            "YYYYMMDD" => Ok(DateFormat::Compact),
            "YYYY-MM-DD" => Ok(DateFormat::Iso),
            "DD/MM/YYYY" => Ok(DateFormat::DayFirst),
            "MM/DD/YYYY" => Ok(DateFormat::MonthFirst),
            other => Err(format!("date format {other:?} is not one of YYYYMMDD, YYYY-MM-DD, DD/MM/YYYY, MM/DD/YYYY")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DateFormat::Compact => "YYYYMMDD",
            DateFormat::Iso => "YYYY-MM-DD",
            DateFormat::DayFirst => "DD/MM/YYYY",
            DateFormat::MonthFirst => "MM/DD/YYYY",
        }
    }

    /// The layout of one value by its shape, for a field without `format`:
    /// 8 digits `YYYYMMDD`, dashes `YYYY-MM-DD`, slashes month first
    /// (`MM/DD/YYYY`) unless the first part is above 12 (`DD/MM/YYYY`). Each
    /// party's file may so write its dates its own way.
    pub fn of_value(s: &str) -> DateFormat {
        if s.contains('-') {
            DateFormat::Iso
        } else if s.contains('/') {
            match s.split('/').next().and_then(|p| p.parse::<u32>().ok()) {
                Some(a) if a > 12 => DateFormat::DayFirst,
                _ => DateFormat::MonthFirst,
            }
        } else {
            DateFormat::Compact
        }
    }

    /// `(year, month, day)` of `s`, or why not.
    pub fn read(self, s: &str) -> Result<(u32, u32, u32), &'static str> {
        let num = |t: &str, n: usize| -> Result<u32, &'static str> {
            if t.len() != n || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err("not the format's digits");
            }
            t.parse().map_err(|_| "not a number")
        };
        let (y, m, d) = match self {
            DateFormat::Compact => {
                if s.len() != 8 || !s.is_ascii() {
                    return Err("not 8 digits");
                }
                (num(&s[0..4], 4)?, num(&s[4..6], 2)?, num(&s[6..8], 2)?)
            }
            DateFormat::Iso => {
                let p: Vec<&str> = s.split('-').collect();
                if p.len() != 3 {
                    return Err("not YYYY-MM-DD");
                }
                (num(p[0], 4)?, num(p[1], 2)?, num(p[2], 2)?)
            }
            DateFormat::DayFirst | DateFormat::MonthFirst => {
                let p: Vec<&str> = s.split('/').collect();
                if p.len() != 3 {
                    return Err("not three parts separated by '/'");
                }
                let (a, b) = (num(p[0], 2)?, num(p[1], 2)?);
                let y = num(p[2], 4)?;
                if self == DateFormat::DayFirst {
                    (y, b, a)
                } else {
                    (y, a, b)
                }
            }
        };
        if !(1..=12).contains(&m) {
            return Err("month not in 1-12");
        }
        if !(1..=31).contains(&d) {
            return Err("day not in 1-31");
        }
        Ok((y, m, d))
    }
}

/// One field's normalized values, record by record (`None`: missing).
#[derive(Debug, Clone, PartialEq)]
pub struct FieldValues {
    pub name: String,
    pub kind: Kind,
    pub values: Vec<Option<String>>,
}

impl FieldValues {
    pub fn present(&self) -> usize {
        self.values.iter().filter(|v| v.is_some()).count()
    }
}

/// A party's records under a schema: ids and the sent fields' values.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordTable {
    pub ids: Vec<String>,
    /// One per sent field of the schema, in schema order.
    pub fields: Vec<FieldValues>,
}

/// The alphabet a field's values are normalized onto.
pub fn field_alphabet(field: &Field) -> Result<Alphabet, Error> {
    let spec = match field.kind() {
        Some(Kind::String) => field.alphabet.as_deref().unwrap_or("letters"),
        Some(Kind::Name) => "letters",
        Some(Kind::Number | Kind::Date) => DIGITS,
        _ => "letters+digits",
    };
    Ok(Alphabet::parse(spec)?)
}

/// Normalizes one raw value of `field` (see the module docs). `Err` is the
/// reason a date does not parse.
pub fn normalize(field: &Field, alphabet: &Alphabet, raw: &str) -> Result<Option<String>, &'static str> {
    let kind = field.kind().unwrap_or(Kind::String);
    if kind == Kind::Date {
        let t = raw.trim();
        if t.is_empty() {
            return Ok(None);
        }
        let f = match field.format.as_deref() {
            Some(f) => DateFormat::parse(f).map_err(|_| "bad format")?,
            None => DateFormat::of_value(t),
        };
        let (y, m, d) = f.read(t)?;
        return Ok(Some(format!("{y:04}{m:02}{d:02}")));
    }
    let mut n = if kind == Kind::Name {
        // a hyphen, slash or comma separates name tokens ("MARY-ANN" is "MARY ANN")
        alphabet.normalize(&raw.replace(['-', '/', ',', '&'], " "))
    } else {
        alphabet.normalize(raw)
    };
    if kind == Kind::Name {
        let mut tokens: Vec<&str> = n.split(' ').filter(|t| !t.is_empty()).collect();
        tokens.sort_unstable();
        n = tokens.join(" ");
    }
    Ok((!n.is_empty()).then_some(n))
}

/// Reads a CSV file (with a header) under `schema`: the id column (if the
/// schema names one) and every sent field's columns. `what` names the input
/// in errors. Errors name the field, the column or the row. This is the
/// chunked [`TableReader`] fed one chunk, so a file streamed in chunks gives
/// the same table and the same errors.
pub fn read_table(bytes: &[u8], schema: &Schema, what: &str) -> Result<RecordTable, Error> {
    let mut reader = TableReader::new(schema, what);
    reader.push(bytes)?;
    reader.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse_by_format() {
        assert_eq!(DateFormat::Compact.read("19081209"), Ok((1908, 12, 9)));
        assert_eq!(DateFormat::Iso.read("1908-12-09"), Ok((1908, 12, 9)));
        assert_eq!(DateFormat::DayFirst.read("09/12/1908"), Ok((1908, 12, 9)));
        assert_eq!(DateFormat::MonthFirst.read("12/09/1908"), Ok((1908, 12, 9)));
        assert!(DateFormat::Compact.read("19081309").is_err());
        assert!(DateFormat::Compact.read("1908120").is_err());
        assert!(DateFormat::Compact.read("19é81209").is_err());
    }

    #[test]
    fn names_ignore_token_order() {
        let f = Field::new("given", Kind::Name);
        let a = field_alphabet(&f).unwrap();
        assert_eq!(normalize(&f, &a, "Mary-Ann"), normalize(&f, &a, "ann MARY"));
        assert_eq!(normalize(&f, &a, " ,. "), Ok(None));
    }
}
