//! A party's records as the schema reads them: per field, the normalized value
//! of each record, or missing.
//!
//! Normalization per kind (the values never leave the party):
//! - `string`: onto the field's alphabet (letters by default; case folded,
//!   accents and punctuation dropped, [`crate::alphabet`]);
//! - `name`: onto letters, then the tokens sorted, so "MARY ANN" and
//!   "ANN MARY" are the same value;
//! - `number`: the digits only;
//! - `date`: parsed by the field's format into `YYYYMMDD` (month 1–12, day 1–31);
//! - `keyed` and `clear`: onto letters and digits, case folded.
//!
//! A value that normalizes to nothing is *missing*.

use super::schema::{Field, Kind, Schema};
use crate::alphabet::Alphabet;
use crate::dataset::QuoteScan;
use crate::dataset::{decode_text, delimiter, MAX_RECORD_BYTES};
use crate::error::{Error, InputError};

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
        let f = DateFormat::parse(field.format.as_deref().unwrap_or("YYYYMMDD")).map_err(|_| "bad format")?;
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
/// in errors. Errors name the field, the column or the row.
pub fn read_table(bytes: &[u8], schema: &Schema, what: &str) -> Result<RecordTable, Error> {
    let text = decode_text(bytes, what)?;
    if text.trim().is_empty() {
        return Err(InputError::Empty { what: what.into() }.into());
    }
    let header_line = text.lines().next().unwrap_or("");
    if let Some(line) = QuoteScan::unclosed_in(delimiter(header_line), text.as_bytes()) {
        return Err(InputError::Csv {
            record: line.saturating_sub(1),
            reason: format!("{what}: the quoted field opened on line {line} is never closed"),
        }
        .into());
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .delimiter(delimiter(header_line))
        .from_reader(text.as_bytes());
    let headers = reader.headers().map_err(|e| InputError::Csv { record: 0, reason: e.to_string() })?.clone();
    let names: Vec<&str> = headers.iter().map(|h| h.trim()).collect();
    let available = || names.iter().map(|h| format!("{h:?}")).collect::<Vec<_>>().join(", ");
    let find = |col: &str, field: &str| -> Result<usize, Error> {
        let hits: Vec<usize> = names.iter().enumerate().filter(|(_, h)| **h == col).map(|(i, _)| i).collect();
        match hits.len() {
            0 => Err(InputError::MissingColumn {
                column: col.to_string(),
                available: format!("{} (field {field:?} of the schema reads it; in {what})", available()),
            }
            .into()),
            1 => Ok(hits[0]),
            _ => Err(InputError::Csv {
                record: 0,
                reason: format!("{what}: the header names column {col:?} more than once: rename one"),
            }
            .into()),
        }
    };
    let id_col = match &schema.id {
        Some(c) => Some(find(c, "id")?),
        None => None,
    };
    struct Plan<'a> {
        field: &'a Field,
        alphabet: Alphabet,
        cols: Vec<usize>,
    }
    let mut plans = Vec::new();
    for f in schema.sent() {
        let cols = f.columns().iter().map(|c| find(c, &f.name)).collect::<Result<Vec<_>, _>>()?;
        plans.push(Plan { field: f, alphabet: field_alphabet(f)?, cols });
    }
    let mut ids = Vec::new();
    let mut values: Vec<Vec<Option<String>>> = vec![Vec::new(); plans.len()];
    let mut seen = std::collections::HashMap::new();
    let mut joined = String::new();
    for (i, row) in reader.records().enumerate() {
        let row_no = i + 1;
        let row = row.map_err(|e| InputError::Csv { record: row_no, reason: format!("{what}: {e}") })?;
        let id = match id_col {
            Some(c) => row.get(c).unwrap_or("").trim().to_string(),
            None => row_no.to_string(),
        };
        if id.is_empty() {
            return Err(InputError::Csv { record: row_no, reason: format!("{what}: the id column is empty") }.into());
        }
        if let Some(first) = seen.insert(id.clone(), row_no) {
            return Err(InputError::DuplicateId { id, first, second: row_no }.into());
        }
        for (p, out) in plans.iter().zip(values.iter_mut()) {
            joined.clear();
            for (k, c) in p.cols.iter().enumerate() {
                if k > 0 {
                    joined.push(' ');
                }
                joined.push_str(row.get(*c).unwrap_or("").trim());
            }
            if joined.len() > MAX_RECORD_BYTES {
                return Err(Error::Input(InputError::Format(format!(
                    "{what}, row {row_no}: field {:?} is {} bytes long (the limit is {MAX_RECORD_BYTES})",
                    p.field.name,
                    joined.len()
                ))));
            }
            let v = match normalize(p.field, &p.alphabet, &joined) {
                Ok(v) => v,
                Err(_) if p.field.invalid.as_deref() == Some("missing") => None,
                Err(reason) => {
                    return Err(Error::Input(InputError::Format(format!(
                        "{what}, row {row_no} (id {id:?}): field {:?} is not a date of format {} ({reason}); fix it, or declare such dates missing with invalid = \"missing\"",
                        p.field.name,
                        p.field.format.as_deref().unwrap_or("YYYYMMDD")
                    ))))
                }
            };
            out.push(v);
        }
        ids.push(id);
    }
    if ids.is_empty() {
        return Err(InputError::Empty { what: what.into() }.into());
    }
    let fields: Vec<FieldValues> = plans
        .iter()
        .zip(values)
        .map(|(p, values)| FieldValues {
            name: p.field.name.clone(),
            kind: p.field.kind().unwrap_or(Kind::String),
            values,
        })
        .collect();
    if let Some(f) = fields.iter().find(|f| f.present() == 0) {
        return Err(Error::Input(InputError::EmptyField {
            what: what.to_string(),
            field: f.name.clone(),
            columns: schema.field(&f.name).map(|x| x.columns().join(" + ")).unwrap_or_default(),
        }));
    }
    Ok(RecordTable { ids, fields })
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
