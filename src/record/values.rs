//! A party's records as the schema reads them: per field, the normalized value
//! of each record, or missing.
//!
//! Normalization per kind (the values never leave the party):
//! - `string`: onto the field's alphabet (letters by default; case folded,
//!   accents and punctuation dropped, [`crate::alphabet`]);
//! - `name`: onto letters; a placeholder ("WIFE", "UNKNOWN") is missing
//!   (unless the field opts out) and, where the field opts in, each nickname
//!   becomes its formal name ([`super::names`]); then the tokens sorted, so
//!   "MARY ANN" and "ANN MARY" are the same value;
//! - `number`: the digits only;
//! - `date`: parsed by the field's format (default: each value's own layout,
//!   [`DateFormat::of_value`]) into `YYYYMMDD` (month 1–12, day 1–31);
//! - `keyed` and `clear`: onto letters and digits, case folded.
//!
//! A value that normalizes to nothing is *missing*.

pub use super::dates::DateFormat;
use super::schema::{Field, Kind};
use crate::alphabet::Alphabet;
use crate::error::Error;

/// The digits: the alphabet of `number` and `date` fields.
pub const DIGITS: &str = "0123456789";

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
    /// How the file was read where it differs from the schema (a date format
    /// found in the file, [`super::dates`]): for the party to be told.
    pub notes: Vec<String>,
}

impl RecordTable {
    /// The values of the field named `field`, record by record (none when the
    /// table has no such field).
    pub fn column(&self, field: &str) -> &[Option<String>] {
        self.fields.iter().find(|f| f.name == field).map_or(&[][..], |f| f.values.as_slice())
    }
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
            Some(f) => Some(DateFormat::parse(f).map_err(|_| "bad format")?),
            None => None,
        };
        return super::dates::compact(f, t).map(Some);
    }
    let mut n = if kind == Kind::Name {
        // a hyphen, slash or comma separates name tokens ("MARY-ANN" is "MARY ANN")
        alphabet.normalize(&raw.replace(['-', '/', ',', '&'], " "))
    } else {
        alphabet.normalize(raw)
    };
    if kind == Kind::Name {
        if field.fillers != Some(false) && super::names::is_filler(&n) {
            return Ok(None);
        }
        let nicknames = field.nicknames == Some(true);
        let mut tokens: Vec<&str> = n
            .split(' ')
            .filter(|t| !t.is_empty())
            .map(|t| if nicknames { super::names::formal(t) } else { t })
            .collect();
        crate::sorting::sort_keys(&mut tokens);
        n = tokens.join(" ");
    }
    Ok((!n.is_empty()).then_some(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse_by_format() {
        assert_eq!(DateFormat::COMPACT.read("19081209"), Ok((1908, 12, 9)));
        assert_eq!(DateFormat::ISO.read("1908-12-09"), Ok((1908, 12, 9)));
        assert_eq!(DateFormat::DAY_FIRST.read("09/12/1908"), Ok((1908, 12, 9)));
        assert_eq!(DateFormat::MONTH_FIRST.read("12/09/1908"), Ok((1908, 12, 9)));
        assert!(DateFormat::COMPACT.read("19081309").is_err());
        assert!(DateFormat::COMPACT.read("1908120").is_err());
        assert!(DateFormat::COMPACT.read("19é81209").is_err());
    }

    #[test]
    fn names_ignore_token_order() {
        let f = Field::new("given", Kind::Name);
        let a = field_alphabet(&f).unwrap();
        assert_eq!(normalize(&f, &a, "Mary-Ann"), normalize(&f, &a, "ann MARY"));
        assert_eq!(normalize(&f, &a, " ,. "), Ok(None));
    }

    #[test]
    fn names_drop_placeholders_and_take_nicknames_where_the_field_says() {
        let mut f = Field::new("given", Kind::Name);
        let a = field_alphabet(&f).unwrap();
        // nicknames stay as written by default (docs/THREAT_MODEL.md: their cost)
        assert_eq!(normalize(&f, &a, "Greg"), Ok(Some("GREG".into())));
        assert_eq!(normalize(&f, &a, "Man of the House"), Ok(None));
        f.nicknames = Some(true);
        assert_eq!(normalize(&f, &a, "Greg"), Ok(Some("GREGORY".into())));
        assert_eq!(normalize(&f, &a, "Jimmy-Dave"), Ok(Some("DAVID JAMES".into())));
        assert_eq!(normalize(&f, &a, "Man of the House"), Ok(None));
        assert_eq!(normalize(&f, &a, "House"), Ok(Some("HOUSE".into())));
        f.nicknames = Some(false);
        f.fillers = Some(false);
        assert_eq!(normalize(&f, &a, "Greg"), Ok(Some("GREG".into())));
        assert_eq!(normalize(&f, &a, "Man of the House"), Ok(Some("HOUSE MAN OF THE".into())));
    }
}
