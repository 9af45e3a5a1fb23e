//! A date's parts: the text compared by edits (whole, or a split date's year,
//! month and day), and the parts that give the comparisons people's errors
//! call for, each embedded by both parties like any other part (under its
//! own key derivation) and compared for exact agreement only:
//!
//! - **day and month swapped** (`swap`, default on for a whole date): the
//!   date with its month and day in ascending order, YYYY·min(MM, DD)·max(MM, DD).
//!   Two dates agree on it exactly when they are equal or one is the other
//!   with its day and month exchanged. One more text of the date under its
//!   own derivation is what the keyed encoding can compare: A's date against
//!   B's date with day and month exchanged (YYYYDDMM) would need the two
//!   texts under one derivation, and then the matcher would also compare
//!   each party's dates with its own exchanged ones. The ordered pair is a
//!   function of the date that only merges a date with its exchanged twin.
//! - **within N days** (`days = N`): the date's day number d (days since
//!   1900-01-01) on two grids of N-day cells offset by half a cell,
//!   ⌊d / N⌋ and ⌊(d + ⌊N/2⌋) / N⌋. Two dates at most ⌊N/2⌋ days apart share a
//!   cell in one grid or both (a grid's boundaries lie N apart, the two grids'
//!   alternate ⌊N/2⌋ and N − ⌊N/2⌋ apart: separating the dates in both grids
//!   takes more than ⌊N/2⌋ days); dates N days apart or more share none. So
//!   the level is "within N days": every pair up to ⌊N/2⌋ days, some up to
//!   N − 1, none beyond.
//! - **year ± 1** (`year_off = true`): the date's month and day with its year
//!   on two grids of two-year cells offset by one year, MMDD·⌊Y / 2⌋ and
//!   MMDD·⌊(Y + 1) / 2⌋. Two dates of the same month and day one year apart
//!   share a cell in exactly one grid (the years Y and Y + 1 fall in one cell
//!   of the grid whose cells start at Y); two or more years apart they share
//!   none. So the level is exact: same day and month, years one apart
//!   (1989 and 1990 as well as 1985 and 1986).

use std::borrow::Cow;

/// The most days a `days` option may give.
pub const MAX_DAYS: u32 = 366;

/// What part `c` of a date field embeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatePart {
    /// Compared by edits: the whole date (0), or a split date's year (0),
    /// month (1) or day (2).
    Text(usize),
    /// YYYY then MM and DD in ascending order ([`unordered`]).
    Unordered,
    /// The date's N-day cell on grid 0 or 1 ([`cell`]).
    Cell(usize),
    /// The date's month and day and two-year cell on grid 0 or 1 ([`year_cell`]).
    Year(usize),
}

/// The layout of a date field's parts: its edit-compared text parts (1
/// whole, 3 split), then the unordered part when `swap`, then the two cells
/// when `days` is set, then the two year cells when `year_off`.
pub fn layout(split: bool, swap: bool, days: Option<u32>, year_off: bool) -> Vec<DatePart> {
    let mut out: Vec<DatePart> = (0..if split { 3 } else { 1 }).map(DatePart::Text).collect();
    if swap {
        out.push(DatePart::Unordered);
    }
    if days.is_some() {
        out.extend([DatePart::Cell(0), DatePart::Cell(1)]);
    }
    if year_off {
        out.extend([DatePart::Year(0), DatePart::Year(1)]);
    }
    out
}

/// The text `part` embeds of the normalized date `v` (YYYYMMDD).
pub fn text<'v>(part: DatePart, split: bool, days: Option<u32>, v: &'v str) -> Cow<'v, str> {
    match part {
        DatePart::Text(c) if split => {
            let (lo, hi) = [(0, 4), (4, 6), (6, 8)][c.min(2)];
            Cow::Borrowed(v.get(lo..hi).unwrap_or(""))
        }
        DatePart::Text(_) => Cow::Borrowed(v),
        DatePart::Unordered => Cow::Owned(unordered(v)),
        DatePart::Cell(g) => Cow::Owned(cell(v, days.unwrap_or(1), g)),
        DatePart::Year(g) => Cow::Owned(year_cell(v, g)),
    }
}

/// The part's name in reports (`None`: a whole date's text, named by its field).
pub fn name(part: DatePart, split: bool, days: Option<u32>) -> Option<String> {
    match part {
        DatePart::Text(c) if split => Some(["year", "month", "day"][c.min(2)].into()),
        DatePart::Text(_) => None,
        DatePart::Unordered => Some("day and month unordered".into()),
        DatePart::Cell(g) => Some(format!("{}-day cell{}", days.unwrap_or(1), ["", ", offset"][g.min(1)])),
        DatePart::Year(g) => Some(format!("day, month and two-year cell{}", ["", ", offset"][g.min(1)])),
    }
}

/// `(year, month, day)` of a normalized date, `None` if it is not 8 digits.
fn ymd(v: &str) -> Option<(u32, u32, u32)> {
    super::dates::DateFormat::COMPACT.read(v).ok()
}

/// `v` (YYYYMMDD) with month and day in ascending order: equal for two dates
/// exactly when they are equal or one has the other's day and month exchanged.
/// A value that is not 8 digits is kept as it is.
pub fn unordered(v: &str) -> String {
    match ymd(v) {
        Some((y, m, d)) => format!("{y:04}{:02}{:02}", m.min(d), m.max(d)),
        None => v.to_string(),
    }
}

/// Days from 1900-01-01 to `y`-`m`-`d` in the proleptic Gregorian calendar
/// (negative before). Days past a month's end run on into the next month
/// (the reader admits days 1-31 in every month): 1985-02-30 is 1985-03-02.
/// The era arithmetic of H. Hinnant's `days_from_civil`: a year starting in
/// March puts the leap day last, so a date's day in its year is a fixed
/// function of its month.
pub fn day_number(y: u32, m: u32, d: u32) -> i64 {
    let (y, m, d) = (i64::from(y), i64::from(m), i64::from(d));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400; // [0, 399]
    let mp = (m + 9) % 12; // March 0 … February 11
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    // 693,901: days from 0000-03-01 to 1900-01-01
    era * 146_097 + doe - 693_901
}

/// The N-day cell of date `v` on grid `g`: ⌊d / N⌋ (0) or ⌊(d + ⌊N/2⌋) / N⌋
/// (1) of its day number d, as decimal text counted from the cell of
/// 0000-01-01 (so that it is digits for every readable date). A value that
/// is not 8 digits is kept as it is.
pub fn cell(v: &str, n: u32, g: usize) -> String {
    let Some((y, m, d)) = ymd(v) else { return v.to_string() };
    let n = i64::from(n.max(1));
    let shift = if g == 0 { 0 } else { n / 2 };
    let at = |day: i64| (day + shift).div_euclid(n);
    (at(day_number(y, m, d)) - at(day_number(0, 1, 1))).to_string()
}

/// Date `v`'s month and day, then its two-year cell on grid `g`: ⌊Y / 2⌋ (0)
/// or ⌊(Y + 1) / 2⌋ (1), as digits MMDD then the cell. A value that is not 8
/// digits is kept as it is.
pub fn year_cell(v: &str, g: usize) -> String {
    let Some((y, m, d)) = ymd(v) else { return v.to_string() };
    format!("{m:02}{d:02}{}", (y + u32::from(g != 0)) / 2)
}

#[cfg(test)]
mod tests;
