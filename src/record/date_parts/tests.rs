use super::*;
use crate::record::field::{Field, Kind};

/// The date `n` days after 1900-01-01, by counting days month by month (an
/// independent check of [`day_number`]'s arithmetic).
fn date_of(n: i64) -> String {
    let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let (mut y, mut m, mut left) = (1900i64, 1i64, n);
    assert!(n >= 0);
    loop {
        let len = match m {
            2 if leap(y) => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        if left < len {
            return format!("{y:04}{m:02}{:02}", left + 1);
        }
        left -= len;
        m += 1;
        if m == 13 {
            (y, m) = (y + 1, 1);
        }
    }
}

fn day(v: &str) -> i64 {
    day_number(v[0..4].parse().unwrap(), v[4..6].parse().unwrap(), v[6..8].parse().unwrap())
}

#[test]
fn the_day_number_counts_days_since_1900_leap_years_included() {
    // known dates: 1900 is not a leap year, 2000 is
    for (v, n) in [
        ("19000101", 0),
        ("19000228", 58),
        ("19000301", 59),
        ("19700101", 25_567),
        ("20000101", 36_524),
        ("20000229", 36_583),
        ("20000301", 36_584),
        ("20240229", 45_349),
        ("20240301", 45_350),
    ] {
        assert_eq!(day(v), n, "{v}");
    }
    assert_eq!(day("18991231"), -1);
    assert_eq!(day("16000301") - day("16000228"), 2, "1600 is a leap year");
    // every day from 1900 to 2100 against counting month by month
    for n in 0..73_051 {
        assert_eq!(day(&date_of(n)), n, "{}", date_of(n));
    }
    // a day past its month's end runs on into the next month
    assert_eq!(day("19850230"), day("19850302"));
}

#[test]
fn dates_agree_unordered_when_equal_or_day_and_month_swapped() {
    assert_eq!(unordered("19850306"), "19850306");
    assert_eq!(unordered("19850603"), "19850306");
    assert_eq!(unordered("19851212"), "19851212");
    assert_ne!(unordered("19850306"), unordered("19860603"), "another year");
    assert_ne!(unordered("19850306"), unordered("19850307"));
    assert_eq!(unordered("1985"), "1985", "not a date: kept");
}

#[test]
fn cells_of_two_grids_hold_every_pair_within_half_a_cell_and_none_a_cell_apart() {
    let cells = |n: u32, v: &str| [cell(v, n, 0), cell(v, n, 1)];
    let share = |n: u32, x: i64, y: i64| {
        let (a, b) = (cells(n, &date_of(x)), cells(n, &date_of(y)));
        a[0] == b[0] || a[1] == b[1]
    };
    // 30-day cells: grid 0 breaks at day 30, grid 1 (15 days on) at day 15 and 45
    let n = 30;
    assert_eq!(cells(n, &date_of(29))[0], (cells(n, &date_of(0))[0]));
    assert_ne!(cells(n, &date_of(29))[0], cells(n, &date_of(30))[0], "grid 0 breaks at 30");
    assert_eq!(cells(n, &date_of(29))[1], cells(n, &date_of(30))[1], "grid 1 does not");
    assert_ne!(cells(n, &date_of(14))[1], cells(n, &date_of(15))[1], "grid 1 breaks at 15");
    assert!(share(n, 15, 30), "15 days apart across grid 0's break: grid 1");
    assert!(!share(n, 14, 30), "16 days apart across both breaks");
    for n in [2, 7, 30, 31, 366] {
        for x in 0..800 {
            for gap in 0..=i64::from(n) + 1 {
                let s = share(n, x, x + gap);
                if gap <= i64::from(n / 2) {
                    assert!(s, "n {n}: {x} and {} must share a cell", x + gap);
                }
                if gap >= i64::from(n) {
                    assert!(!s, "n {n}: {x} and {} must not", x + gap);
                }
            }
        }
    }
    // the texts are digits, also before 1900
    assert!(cells(30, "00010101").iter().chain(&cells(30, "18000101")).all(|t| t.bytes().all(|b| b.is_ascii_digit())));
    assert_eq!(cell("1985", 30, 0), "1985", "not a date: kept");
}

fn date(split: bool, swap: Option<bool>, days: Option<u32>) -> Field {
    Field { split: split.then_some(true), swap, days, ..Field::new("d", Kind::Date) }
}

#[test]
fn a_date_s_parts_and_levels_follow_swap_and_days() {
    let whole = date(false, None, None);
    assert_eq!(whole.date_parts(), [DatePart::Text(0), DatePart::Unordered], "swap on by default");
    assert_eq!(whole.level_names(), ["exact", "day and month swapped", "ed<=1", "ed<=2", "disagree"]);
    assert_eq!(whole.level_count(), 5);
    assert_eq!(whole.part_text(1, "19851203"), "19850312");
    assert_eq!(whole.part_name(1).as_deref(), Some("day and month unordered"));
    let off = date(false, Some(false), None);
    assert_eq!(
        (off.parts(), off.level_names()),
        (1, vec!["exact".into(), "ed<=1".into(), "ed<=2".into(), "disagree".into()])
    );
    let both = date(false, None, Some(30));
    both.validate().unwrap();
    assert_eq!(both.parts(), 4);
    assert_eq!(both.level_names(), ["exact", "day and month swapped", "within 30 days", "ed<=1", "ed<=2", "disagree"]);
    assert_eq!(both.part_name(3).as_deref(), Some("30-day cell, offset"));
    assert_eq!(both.part_text(2, "19000131"), cell("19000131", 30, 0));
    let split = date(true, None, Some(7));
    assert_eq!(split.date_parts()[3..], [DatePart::Cell(0), DatePart::Cell(1)], "split: swap off by default");
    assert_eq!(split.level_names(), ["exact", "within 7 days", "within 1", "within 2", "disagree"]);
    assert_eq!(split.text_parts(), 3);
    let m = Field { m: Some(vec![0.8, 0.1, 0.05, 0.03, 0.02]), ..date(false, None, None) };
    m.validate().unwrap();
    let all = Field { year_off: Some(true), ..date(false, None, Some(30)) };
    all.validate().unwrap();
    assert_eq!(all.date_parts()[2..], [DatePart::Cell(0), DatePart::Cell(1), DatePart::Year(0), DatePart::Year(1)]);
    assert_eq!(
        all.level_names(),
        ["exact", "day and month swapped", "year ± 1", "within 30 days", "ed<=1", "ed<=2", "disagree"]
    );
    assert_eq!(all.level_count(), 7);
    assert_eq!(all.part_text(4, "19851203"), "1203992");
    assert_eq!(all.part_text(5, "19851203"), "1203993");
    assert_eq!(all.part_name(5).as_deref(), Some("day, month and two-year cell, offset"));
}

#[test]
fn swap_and_days_are_refused_by_name_where_they_do_not_apply() {
    let err = |f: Field| f.validate().unwrap_err();
    for bad in [0, 1, 367] {
        let e = err(date(false, None, Some(bad)));
        assert_eq!(e.code(), "INVALID_FORMAT");
        assert!(e.to_string().contains(&format!("field \"d\": days = {bad}: a number of days from 2 to 366")), "{e}");
    }
    let e = err(Field { swap: Some(true), ..Field::new("n", Kind::Name) });
    assert!(e.to_string().contains("option swap does not apply to a name field"), "{e}");
    let e = err(Field { days: Some(30), ..Field::new("c", Kind::Clear) });
    assert!(e.to_string().contains("option days does not apply to a clear field"), "{e}");
    let e = err(Field { year_off: Some(true), ..Field::new("s", Kind::String) });
    assert!(e.to_string().contains("option year_off does not apply to a string field"), "{e}");
    // m and u list the date's levels, the new ones included
    let e = err(Field { m: Some(vec![0.7, 0.1, 0.1, 0.1]), ..date(false, None, None) });
    assert!(e.to_string().contains("m lists 4 probabilities, the field has 5 levels"), "{e}");
    date(true, Some(true), Some(366)).validate().unwrap();
    date(false, Some(false), Some(2)).validate().unwrap();
}

/// The two parties' batches of a one-date schema (`options`: the field's
/// options as JSON, `blocks`: the schema's blocking rules; `key`: keyed with
/// `encoding`).
fn batches(
    options: &str,
    blocks: &str,
    key: Option<crate::keyed::Encoding>,
) -> (crate::record::Schema, crate::record::RecordBatch, crate::record::RecordBatch) {
    let schema = crate::record::Schema::parse_json(&format!(
        r#"{{"version": 1, "id": "id", "field": [{{"name": "dob", "kind": "date"{options}}}]{blocks}}}"#
    ))
    .unwrap();
    // A: swapped of B1, day = month, New Year's Eve, plain; B adds A1 itself and
    // A2 three months on (and A5 with B8, and A1 with B7: the same day and
    // month, one year on)
    let a_csv = "id,dob\na1,19850306\na2,19850606\na3,19851231\na4,19850115\na5,19891120\n";
    let b_csv = "id,dob\nb1,19850603\nb2,19850606\nb3,19860101\nb4,19850115\nb5,19850306\nb6,19850906\n\
                 b7,19860306\nb8,19901120\n";
    let (va, vb) = crate::record::test_batches::batches(&schema, a_csv, b_csv, key);
    (schema, va, vb)
}

/// The date levels of A's records against B's, as the matcher computes them
/// on the two parties' batches (`key`: keyed with `encoding`).
fn levels(options: &str, key: Option<crate::keyed::Encoding>) -> Vec<Vec<u8>> {
    let (schema, va, vb) = batches(options, "", key);
    let cmp = crate::record::compare::Comparer::new(&schema, &va, &vb).unwrap();
    (0..5).map(|i| (0..8).map(|j| cmp.fields[0].level(i, j)).collect()).collect()
}

#[test]
fn a_date_equality_block_takes_the_swapped_date_too() {
    use crate::keyed::Encoding;
    let block = r#", "block": [{"field": "dob"}]"#;
    for key in [None, Some(Encoding::default()), Some(Encoding::Rotation)] {
        // equal: a1-b5, a2-b2, a4-b4; swapped: a1-b1
        let (schema, va, vb) = batches("", block, key);
        let (pairs, counts) = crate::record::blocking::candidates(&schema, &va, &vb).unwrap();
        assert_eq!(pairs, [(0, 0), (0, 4), (1, 1), (3, 3)], "{key:?}");
        assert_eq!(counts[0].rule, "dob equal or swapped");
        // without the swap level, equal dates only
        let (schema, va, vb) = batches(r#", "swap": false"#, block, key);
        let (pairs, counts) = crate::record::blocking::candidates(&schema, &va, &vb).unwrap();
        assert_eq!(pairs, [(0, 4), (1, 1), (3, 3)], "{key:?}");
        assert_eq!(counts[0].rule, "dob equal");
    }
}

#[test]
fn the_matcher_finds_swapped_and_near_dates_on_the_parties_encodings() {
    use crate::keyed::Encoding;
    let keyed = [None, Some(Encoding::default()), Some(Encoding::Rotation)];
    for key in keyed {
        // exact 0, swapped 1, ed<=1 2, ed<=2 3, disagree 4
        let l = levels("", key);
        assert_eq!(l[0][0], 1, "{key:?}: 1985-03-06 against 1985-06-03 is swapped");
        assert_eq!(l[0][4], 0, "{key:?}: an equal pair stays exact");
        assert_eq!(l[1][1], 0, "{key:?}: a day equal to its month stays exact");
        assert_eq!(l[3][3], 0, "{key:?}");
        assert_eq!((l[1][0], l[1][5]), (2, 2), "{key:?}: 1985-06-06 against 1985-06-03 and 1985-09-06: one digit off");
        // edits as A's sound thresholds bound them (keyed ones more loosely)
        assert!(l[2][2] >= 3, "{key:?}: 1985-12-31 against 1986-01-01 is 4 edits off");
        assert!(l[0][3] >= 2, "{key:?}: 19850306 against 19850115: two edits");
        // with days = 30: exact 0, swapped 1, within 30 days 2, ed<=1 3, ed<=2 4, disagree 5
        let l = levels(r#", "days": 30"#, key);
        assert_eq!((l[0][0], l[0][4], l[1][1]), (1, 0, 0), "{key:?}");
        assert_eq!(l[2][2], 2, "{key:?}: one day apart across a year's end is within 30 days");
        assert_eq!(l[1][0], 2, "{key:?}: 1985-06-06 against 1985-06-03: 3 days apart");
        assert_eq!(l[1][5], 3, "{key:?}: 1985-06-06 against 1985-09-06: one digit off, three months apart");
        // three edits, which A's sound thresholds may take for two
        assert!(l[3][0] > 2, "{key:?}: 1985-01-15 against 1985-06-03 is neither swapped nor near");
        assert!(l[0][3] >= 3, "{key:?}: 1985-03-06 against 1985-01-15 is 50 days off");
        // a split date with swap and days: exact 0, swapped 1, within 7 days 2, bands
        let l = levels(r#", "split": true, "swap": true, "days": 7"#, key);
        assert_eq!((l[0][0], l[0][4], l[1][1], l[2][2], l[1][0]), (1, 0, 0, 2, 2), "{key:?}: split");
        assert!(l[1][5] > 2, "{key:?}: split, three months apart");
        // with year_off: exact 0, swapped 1, year ± 1 2, ed<=1 3, ed<=2 4, disagree 5
        let l = levels(r#", "year_off": true"#, key);
        assert_eq!((l[0][0], l[0][4], l[1][1]), (1, 0, 0), "{key:?}");
        assert_eq!(l[0][6], 2, "{key:?}: 1985-03-06 against 1986-03-06 is year ± 1");
        assert_eq!(l[4][7], 2, "{key:?}: 1989-11-20 against 1990-11-20 (two digits) is year ± 1");
        assert_eq!(l[1][0], 3, "{key:?}: 1985-06-06 against 1985-06-03: one digit off, not the year");
        assert!(l[2][2] >= 4, "{key:?}: 1985-12-31 against 1986-01-01 is not the same day and month");
        // without it the year one on is an edit level
        let l = levels("", key);
        assert_eq!(l[0][6], 2, "{key:?}: without year_off, 1985 against 1986 is one digit off");
        assert!(l[4][7] >= 2, "{key:?}: without year_off, 1989 against 1990 is an edit level (two digits)");
    }
}

#[test]
fn year_cells_agree_exactly_for_the_same_day_and_month_one_year_apart() {
    let cells = |v: &str| [year_cell(v, 0), year_cell(v, 1)];
    let share = |x: &str, y: &str| {
        let (a, b) = (cells(x), cells(y));
        a[0] == b[0] || a[1] == b[1]
    };
    for y in 1800..2100u32 {
        for (md, other) in [("0306", "0306"), ("1231", "1231"), ("0306", "0603"), ("0115", "0116")] {
            for gap in 0..4u32 {
                let (x, z) = (format!("{y}{md}"), format!("{}{other}", y + gap));
                let expect = md == other && gap <= 1;
                assert_eq!(share(&x, &z), expect, "{x} against {z}");
                // exactly one grid when one year apart
                if md == other && gap == 1 {
                    let (a, b) = (cells(&x), cells(&z));
                    assert!((a[0] == b[0]) != (a[1] == b[1]), "{x} against {z}: one grid only");
                }
            }
        }
    }
    assert!(cells("00010101").iter().all(|t| t.bytes().all(|b| b.is_ascii_digit())));
    assert_eq!(year_cell("1985", 0), "1985", "not a date: kept");
}
