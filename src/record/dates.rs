//! Date layouts, and which one a party's file is written in.
//!
//! The schema names one `format` per date field, shared by both parties and
//! fingerprinted; each party may still write its dates its own way. A party
//! names its own format ([`super::TableReader::date_format`]), or the reader
//! finds it from the file's values ([`settle`]): when the schema's format is
//! not the one that reads the most values, and another reads clearly more,
//! that one is used and said so (a note the caller prints). A format the
//! party named is never replaced. Formats the values cannot tell apart
//! (`01/02/2000` is 1 February or 2 January) are refused with an error naming
//! both, never guessed.

use crate::error::{Error, InputError};

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

/// Every layout, in the order ties are listed.
const ALL: [DateFormat; 4] = [DateFormat::Compact, DateFormat::Iso, DateFormat::DayFirst, DateFormat::MonthFirst];

/// `s` (trimmed, not blank) as `YYYYMMDD`, read in `format` (none: each
/// value's own layout, [`DateFormat::of_value`]).
pub fn compact(format: Option<DateFormat>, s: &str) -> Result<String, &'static str> {
    let (y, m, d) = format.unwrap_or_else(|| DateFormat::of_value(s)).read(s)?;
    Ok(format!("{y:04}{m:02}{d:02}"))
}

/// One date field of a party's file, as [`settle`] reads it.
#[derive(Debug, Clone, Copy)]
pub struct DateField<'a> {
    pub name: &'a str,
    /// The schema's format, or the party's own when `named`.
    pub format: Option<DateFormat>,
    /// The party named this format for its file: it is never replaced.
    pub named: bool,
    /// The schema's `invalid = "missing"`: a value no format reads is missing
    /// (otherwise it is refused).
    pub missing_if_invalid: bool,
}

/// `n` with thousands separated by commas (`9,812`).
fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The format `raw` (one field's trimmed values of a file, `None` blank) is
/// read in, and the note saying so when it is not `field.format`. The rule:
/// the format reading the most values wins when it reads clearly more than
/// the runner-up: of the values only one of the two reads (only the day-first
/// and month-first layouts share values), the winner's at least twice the
/// runner-up's. The field's own format wins ties and is kept when it reads
/// the most, or when the party named it.
fn choose(field: &DateField, raw: &[Option<String>], what: &str) -> Result<Option<(DateFormat, String)>, Error> {
    let Some(own) = field.format else { return Ok(None) };
    if field.named {
        return Ok(None);
    }
    let (mut reads, mut both_slashed, mut n) = ([0usize; 4], 0usize, 0usize);
    for v in raw.iter().flatten() {
        n += 1;
        let ok = ALL.map(|f| f.read(v).is_ok());
        for (r, ok) in reads.iter_mut().zip(ok) {
            *r += ok as usize;
        }
        both_slashed += (ok[2] && ok[3]) as usize;
    }
    let at = |f: DateFormat| ALL.iter().position(|&x| x == f).unwrap_or(0);
    // the field's own format first among equals, then the list's order
    let mut ranked: Vec<DateFormat> = std::iter::once(own).chain(ALL.into_iter().filter(|&f| f != own)).collect();
    crate::sorting::sort_by(&mut ranked, |&f, &g| reads[at(g)].cmp(&reads[at(f)]));
    let (win, next) = (ranked[0], ranked[1]);
    if win == own {
        return Ok(None);
    }
    let shared = if [win, next].contains(&DateFormat::DayFirst) && [win, next].contains(&DateFormat::MonthFirst) {
        both_slashed
    } else {
        0
    };
    let (only_win, only_next) = (reads[at(win)] - shared, reads[at(next)] - shared);
    let of = |f: DateFormat| format!("{} of {} values", count(reads[at(f)]), count(n));
    if only_win > 0 && only_win >= 2 * only_next {
        let note = format!(
            "field {}: the file's dates are {} ({}), not the schema's {}",
            field.name,
            win.name(),
            of(win),
            own.name()
        );
        return Ok(Some((win, note)));
    }
    let why = if only_win == 0 {
        "no value tells them apart (a day above 12)".to_string()
    } else {
        format!("{} values read only as {}, {} only as {}", count(only_win), win.name(), count(only_next), next.name())
    };
    Err(InputError::Format(format!(
        "{what}: field {:?}: the dates read as {} ({}) and as {} ({}): {why}, and the schema's {} reads {}; choose the file's date format",
        field.name,
        win.name(),
        of(win),
        next.name(),
        of(next),
        own.name(),
        count(reads[at(own)])
    ))
    .into())
}

/// One date field's values of a file (`raw`: trimmed, `None` blank; `ids`
/// name the rows) as `YYYYMMDD`, in the file's format (`choose`), and the
/// note when that is not the schema's. A value the format does not read is
/// missing or refused by the field's `invalid`; a file where no value reads
/// is refused, with the first value found.
pub fn settle(
    field: &DateField,
    raw: Vec<Option<String>>,
    ids: &[String],
    what: &str,
) -> Result<(Vec<Option<String>>, Option<String>), Error> {
    let (format, note) = match choose(field, &raw, what)? {
        Some((f, note)) => (Some(f), Some(note)),
        None => (field.format, None),
    };
    let mut first_unread: Option<(usize, String)> = None;
    let mut out = Vec::with_capacity(raw.len());
    for (i, v) in raw.into_iter().enumerate() {
        let Some(t) = v else {
            out.push(None);
            continue;
        };
        match compact(format, &t) {
            Ok(c) => out.push(Some(c)),
            Err(_) if field.missing_if_invalid => {
                first_unread.get_or_insert((i + 1, t));
                out.push(None);
            }
            Err(reason) => {
                return Err(InputError::Format(format!(
                    "{what}, row {} (id {:?}): field {:?} is not a date of format {} ({reason}); fix it, or declare such dates missing with invalid = \"missing\"",
                    i + 1,
                    ids.get(i).map_or("", String::as_str),
                    field.name,
                    format.unwrap_or_else(|| DateFormat::of_value(&t)).name()
                ))
                .into())
            }
        }
    }
    if let (Some((row, found)), false) = (&first_unread, out.iter().any(Option::is_some)) {
        // dates that are there but in another format: say what was found
        return Err(InputError::Format(format!(
            "{what}: field {:?}: no value is a date of format {} (row {row} has {found:?}); choose the file's date format",
            field.name,
            format.unwrap_or_else(|| DateFormat::of_value(found)).name()
        ))
        .into());
    }
    Ok((out, note))
}

#[cfg(test)]
mod tests;
