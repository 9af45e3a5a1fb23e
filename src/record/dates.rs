//! Date layouts, and which one a party's file is written in.
//!
//! A layout is year, day or month first, its parts separated by `-`, `/`,
//! `.` or nothing (twelve: [`DateFormat::parse`]). The schema names one
//! `format` per date field, shared by both parties and fingerprinted; each
//! party may still write its dates its own way. A party names its own format
//! ([`super::TableReader::date_format`]), or the reader finds it from the
//! file's values ([`settle`]): when the schema's format is not the one that
//! reads the most values, and another reads clearly more, that one is used
//! and said so (a note the caller prints); without a schema format, each value
//! is read by its shape and a file's 8-digit values in the layout of eight
//! digits that reads them. A format the party named is never replaced.
//! Formats the values cannot tell apart (`01/02/2000` is 1 February or 2
//! January) are refused with an error naming both, never guessed. Values no
//! format reads are counted in a note; a file where most of them are is
//! refused, since its dates would otherwise go missing unseen.

use crate::error::{Error, InputError};

/// The order of a date layout's parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    Ymd,
    Dmy,
    Mdy,
}

/// A date layout: the order of year, month and day, and what separates them
/// (`-`, `/`, `.` or nothing: then 8 digits). Separated, a day or month may be
/// written with one digit (`1/2/2000`); the year always has four.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateFormat {
    order: Order,
    sep: Option<char>,
}

const fn layout(order: Order, sep: Option<char>) -> DateFormat {
    DateFormat { order, sep }
}

/// Every layout and its name, in the order ties are listed.
const NAMED: [(DateFormat, &str); 12] = [
    (DateFormat::COMPACT, "YYYYMMDD"),
    (DateFormat::ISO, "YYYY-MM-DD"),
    (DateFormat::DAY_FIRST, "DD/MM/YYYY"),
    (DateFormat::MONTH_FIRST, "MM/DD/YYYY"),
    (layout(Order::Mdy, None), "MMDDYYYY"),
    (layout(Order::Dmy, None), "DDMMYYYY"),
    (layout(Order::Ymd, Some('/')), "YYYY/MM/DD"),
    (layout(Order::Ymd, Some('.')), "YYYY.MM.DD"),
    (layout(Order::Dmy, Some('.')), "DD.MM.YYYY"),
    (layout(Order::Dmy, Some('-')), "DD-MM-YYYY"),
    (layout(Order::Mdy, Some('.')), "MM.DD.YYYY"),
    (layout(Order::Mdy, Some('-')), "MM-DD-YYYY"),
];

/// Every layout, in the order ties are listed.
const ALL: [DateFormat; 12] = {
    let mut all = [DateFormat::COMPACT; 12];
    let mut i = 0;
    while i < 12 {
        all[i] = NAMED[i].0;
        i += 1;
    }
    all
};

/// The layouts of eight digits, among which a field without a `format` reads
/// a file's 8-digit values ([`DateFormat::of_value`] gives them `YYYYMMDD`).
const EIGHT: [DateFormat; 3] = [DateFormat::COMPACT, layout(Order::Mdy, None), layout(Order::Dmy, None)];

impl DateFormat {
    /// `YYYYMMDD`, the form every date is sent in.
    pub const COMPACT: DateFormat = layout(Order::Ymd, None);
    /// `YYYY-MM-DD`.
    pub const ISO: DateFormat = layout(Order::Ymd, Some('-'));
    /// `DD/MM/YYYY`.
    pub const DAY_FIRST: DateFormat = layout(Order::Dmy, Some('/'));
    /// `MM/DD/YYYY`.
    pub const MONTH_FIRST: DateFormat = layout(Order::Mdy, Some('/'));

    pub fn parse(s: &str) -> Result<DateFormat, String> {
        NAMED.iter().find(|(_, n)| *n == s).map(|(f, _)| *f).ok_or_else(|| {
            let names: Vec<&str> = NAMED.iter().map(|(_, n)| *n).collect();
            format!("date format {s:?} is not one of {}", names.join(", "))
        })
    }

    pub fn name(self) -> &'static str {
        NAMED.iter().find(|(f, _)| *f == self).map_or("YYYYMMDD", |(_, n)| n)
    }

    /// The layout of one value by its shape, for a field without `format`:
    /// no separator `YYYYMMDD` (a file's 8-digit values may be read otherwise:
    /// [`settle`]); a separator (`-`, `/`, `.`) after four digits year first,
    /// else day first when the first part is above 12, month first when the
    /// second is, and otherwise as the separator is used: slashes month first
    /// (`MM/DD/YYYY`), dots and dashes day first (`DD.MM.YYYY`). Each party's
    /// file may so write its dates its own way.
    pub fn of_value(s: &str) -> DateFormat {
        let Some(sep) = s.chars().find(|c| matches!(c, '-' | '/' | '.')) else { return DateFormat::COMPACT };
        let mut parts = s.split(sep);
        let first = parts.next().unwrap_or("");
        if first.len() >= 3 {
            return layout(Order::Ymd, Some(sep));
        }
        let part = |p: Option<&str>| p.and_then(|p| p.parse::<u32>().ok()).unwrap_or(0);
        let (a, b) = (part(Some(first)), part(parts.next()));
        let order = if a > 12 {
            Order::Dmy
        } else if b > 12 || sep == '/' {
            Order::Mdy
        } else {
            Order::Dmy
        };
        layout(order, Some(sep))
    }

    /// `(year, month, day)` of `s`, or why not.
    pub fn read(self, s: &str) -> Result<(u32, u32, u32), &'static str> {
        let num = |t: &str, n: std::ops::RangeInclusive<usize>| -> Result<u32, &'static str> {
            if !n.contains(&t.len()) || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err("not the format's digits");
            }
            t.parse().map_err(|_| "not a number")
        };
        let parts: [&str; 3] = match self.sep {
            None => {
                if s.len() != 8 || !s.is_ascii() {
                    return Err("not 8 digits");
                }
                match self.order {
                    Order::Ymd => [&s[0..4], &s[4..6], &s[6..8]],
                    _ => [&s[0..2], &s[2..4], &s[4..8]],
                }
            }
            Some(sep) => {
                let p: Vec<&str> = s.split(sep).collect();
                match p[..] {
                    [a, b, c] => [a, b, c],
                    _ => return Err("not three parts"),
                }
            }
        };
        let short = if self.sep.is_some() { 1..=2 } else { 2..=2 };
        let (y, m, d) = match self.order {
            Order::Ymd => (parts[0], parts[1], parts[2]),
            Order::Dmy => (parts[2], parts[1], parts[0]),
            Order::Mdy => (parts[2], parts[0], parts[1]),
        };
        let (y, m, d) = (num(y, 4..=4)?, num(m, short.clone())?, num(d, short)?);
        if !(1..=12).contains(&m) {
            return Err("month not in 1-12");
        }
        if !(1..=31).contains(&d) {
            return Err("day not in 1-31");
        }
        Ok((y, m, d))
    }

    /// A date (`year`, `month`, `day`, as written in `YYYYMMDD`) in this layout.
    pub fn write(self, y: &str, m: &str, d: &str) -> String {
        let sep = self.sep.map(String::from).unwrap_or_default();
        match self.order {
            Order::Ymd => [y, m, d].join(&sep),
            Order::Dmy => [d, m, y].join(&sep),
            Order::Mdy => [m, d, y].join(&sep),
        }
    }
}

/// `s` (trimmed, not blank) as `YYYYMMDD`, read in `format` (none: each
/// value's own layout, [`DateFormat::of_value`]).
pub fn compact(format: Option<DateFormat>, s: &str) -> Result<String, &'static str> {
    let (y, m, d) = format.unwrap_or_else(|| DateFormat::of_value(s)).read(s)?;
    Ok(format!("{y:04}{m:02}{d:02}"))
}

/// How a file's dates are read: in one format, or each value by its shape
/// with its 8-digit values in `eight`.
#[derive(Debug, Clone, Copy)]
struct Reading {
    format: Option<DateFormat>,
    eight: DateFormat,
}

impl Reading {
    fn of(self, s: &str) -> DateFormat {
        self.format.unwrap_or_else(|| match DateFormat::of_value(s) {
            DateFormat::COMPACT => self.eight,
            shape => shape,
        })
    }

    /// " of format F", or nothing when each value is read by its shape.
    fn said(self) -> String {
        self.format.map(|f| format!(" of format {}", f.name())).unwrap_or_default()
    }
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
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Which of `among` a file's values (`values`: trimmed, not blank) are read
/// in, when that is not `own` (named `own_said`), and the note saying so.
/// The rule: the format reading the most values wins when it reads clearly
/// more than the runner-up: of the values only one of the two reads (the
/// layouts with the same parts in another order share values: `01/02/2000`
/// reads day first and month first), the winner's at least twice the
/// runner-up's. `own` wins ties and is kept when it reads the most.
fn choose(
    name: &str,
    (own, own_said): (DateFormat, &str),
    among: &[DateFormat],
    values: &[&str],
    what: &str,
) -> Result<Option<(DateFormat, String)>, Error> {
    let n = values.len();
    let reads: Vec<usize> = among.iter().map(|f| values.iter().filter(|v| f.read(v).is_ok()).count()).collect();
    let at = |f: DateFormat| among.iter().position(|&x| x == f).unwrap_or(0);
    // `own` first among equals, then the list's order
    let mut ranked: Vec<DateFormat> = std::iter::once(own).chain(among.iter().copied().filter(|&f| f != own)).collect();
    crate::sorting::sort_by(&mut ranked, |&f, &g| reads[at(g)].cmp(&reads[at(f)]));
    let (win, next) = (ranked[0], ranked[1]);
    if win == own {
        return Ok(None);
    }
    let shared = values.iter().filter(|v| win.read(v).is_ok() && next.read(v).is_ok()).count();
    let (only_win, only_next) = (reads[at(win)] - shared, reads[at(next)] - shared);
    let of = |f: DateFormat| format!("{} of {} values", count(reads[at(f)]), count(n));
    if only_win > 0 && only_win >= 2 * only_next {
        let note = format!("field {name}: the file's dates are {} ({}), not {own_said}", win.name(), of(win));
        return Ok(Some((win, note)));
    }
    let why = if only_win == 0 {
        "no value tells them apart (a day above 12)".to_string()
    } else {
        format!("{} values read only as {}, {} only as {}", count(only_win), win.name(), count(only_next), next.name())
    };
    Err(InputError::Format(format!(
        "{what}: field {name:?}: the dates read as {} ({}) and as {} ({}): {why}, and {own_said} reads {}; choose the file's date format",
        win.name(),
        of(win),
        next.name(),
        of(next),
        count(reads[at(own)])
    ))
    .into())
}

/// How a file's values of `field` are read, and the note when that is not
/// the schema's: the format that reads them ([`choose`] among every layout,
/// unless the party named it); without a schema format, each value by its
/// shape, 8-digit values in the layout of eight digits that reads them.
fn reading(field: &DateField, raw: &[Option<String>], what: &str) -> Result<(Reading, Option<String>), Error> {
    let values = raw.iter().flatten().map(String::as_str);
    let fixed = |f: Option<DateFormat>| Reading { format: f, eight: DateFormat::COMPACT };
    match field.format {
        Some(own) if field.named => Ok((fixed(Some(own)), None)),
        Some(own) => {
            let values: Vec<&str> = values.collect();
            let said = format!("the schema's {}", own.name());
            Ok(match choose(field.name, (own, &said), &ALL, &values, what)? {
                Some((f, note)) => (fixed(Some(f)), Some(note)),
                None => (fixed(Some(own)), None),
            })
        }
        None => {
            let eight: Vec<&str> = values.filter(|v| v.len() == 8 && v.bytes().all(|b| b.is_ascii_digit())).collect();
            let own = (DateFormat::COMPACT, "YYYYMMDD (eight digits without a schema format)");
            Ok(match choose(field.name, own, &EIGHT, &eight, what)? {
                Some((f, note)) => (Reading { format: None, eight: f }, Some(note)),
                None => (fixed(None), None),
            })
        }
    }
}

/// One date field's values of a file (`raw`: trimmed, `None` blank; `ids`
/// name the rows) as `YYYYMMDD`, in the file's format (`reading`), and the
/// notes: the format when it is not the schema's, and how many values no
/// format read. A value the format does not read is missing or refused by the
/// field's `invalid`. A file where no value reads is refused with the first
/// value found, and so is one where most do not, unless the party named the
/// format: a format that reads under half a file's dates is the wrong one,
/// and its dates would go missing silently.
pub fn settle(
    field: &DateField,
    raw: Vec<Option<String>>,
    ids: &[String],
    what: &str,
) -> Result<(Vec<Option<String>>, Vec<String>), Error> {
    let (reading, note) = reading(field, &raw, what)?;
    let mut notes: Vec<String> = note.into_iter().collect();
    let (mut first_unread, mut missed, mut present): (Option<(usize, String)>, usize, usize) = (None, 0, 0);
    let mut out = Vec::with_capacity(raw.len());
    for (i, v) in raw.into_iter().enumerate() {
        let Some(t) = v else {
            out.push(None);
            continue;
        };
        present += 1;
        let format = reading.of(&t);
        match compact(Some(format), &t) {
            Ok(c) => out.push(Some(c)),
            Err(_) if field.missing_if_invalid => {
                missed += 1;
                first_unread.get_or_insert((i + 1, t));
                out.push(None);
            }
            Err(reason) => {
                return Err(InputError::Format(format!(
                    "{what}, row {} (id {:?}): field {:?} is not a date of format {} ({reason}); fix it, or declare such dates missing with invalid = \"missing\"",
                    i + 1,
                    ids.get(i).map_or("", String::as_str),
                    field.name,
                    format.name()
                ))
                .into())
            }
        }
    }
    let Some((row, found)) = first_unread else { return Ok((out, notes)) };
    if missed == present {
        // dates that are there but in another format: say what was found
        return Err(InputError::Format(format!(
            "{what}: field {:?}: no value is a date of format {} (row {row} has {found:?}); choose the file's date format",
            field.name,
            reading.of(&found).name()
        ))
        .into());
    }
    let unread = format!("{} of {} values are not dates{}", count(missed), count(present), reading.said());
    if 2 * missed > present && !field.named {
        return Err(InputError::Format(format!(
            "{what}: field {:?}: {unread} (row {row} has {found:?}); choose the file's date format",
            field.name
        ))
        .into());
    }
    notes.push(format!(
        "field {}: {unread} and are taken as missing (invalid = \"missing\"); the first, row {row}: {found:?}",
        field.name
    ));
    Ok((out, notes))
}

#[cfg(test)]
mod tests;
