//! Which format a party's dates are read in: found and said, kept, or refused.

use super::*;

fn field(format: &str, named: bool) -> DateField<'static> {
    DateField {
        name: "date_of_birth",
        format: Some(DateFormat::parse(format).unwrap()),
        named,
        missing_if_invalid: true,
    }
}

fn values(v: &[&str]) -> Vec<Option<String>> {
    v.iter().map(|s| (!s.is_empty()).then(|| s.to_string())).collect()
}

fn ids(n: usize) -> Vec<String> {
    (1..=n).map(|i| i.to_string()).collect()
}

fn settled(f: &DateField, v: &[&str]) -> Result<(Vec<Option<String>>, Vec<String>), String> {
    settle(f, values(v), &ids(v.len()), "b.csv").map_err(|e| format!("{} {e}", e.code()))
}

fn some(v: &[&str]) -> Vec<Option<String>> {
    values(v)
}

/// Reads `file` under `f`: what it reads (`read`, "" missing) and its notes,
/// each saying its entry of `notes` (none: no note).
fn reads(f: &DateField, file: &[&str], read: &[&str], notes: &[&str]) {
    let (got, said) = settled(f, file).unwrap();
    assert_eq!(got, some(read), "{file:?}");
    assert_eq!(said.len(), notes.len(), "{file:?}: {said:?}");
    for (s, n) in said.iter().zip(notes) {
        assert!(s.contains(n), "{file:?}: {said:?}");
    }
}

#[test]
fn a_month_first_file_under_a_compact_schema_is_read_month_first_and_said_so() {
    // one day-first value (a swapped day and month) and one that no format reads
    let file = ["12/31/1980", "01/15/1975", "", "07/04/1990", "31/12/1980", "1980"];
    let (read, note) = settled(&field("YYYYMMDD", false), &file).unwrap();
    assert_eq!(read, some(&["19801231", "19750115", "", "19900704", "", ""]));
    assert_eq!(
        note,
        [
            "field date_of_birth: the file's dates are MM/DD/YYYY (3 of 5 values), not the schema's YYYYMMDD",
            "field date_of_birth: 2 of 5 values are not dates of format MM/DD/YYYY and are taken as missing \
             (invalid = \"missing\"); the first, row 5: \"31/12/1980\""
        ]
    );
}

#[test]
fn day_first_and_month_first_are_told_apart_by_a_part_above_12_or_refused() {
    // 13/02 is no month: the file is day first, though 01/02 reads both ways
    let said = "the file's dates are DD/MM/YYYY (2 of 2 values)";
    reads(&field("YYYYMMDD", false), &["01/02/2000", "13/02/2000"], &["20000201", "20000213"], &[said]);
    // every part at most 12: no value tells them apart, so nothing is guessed
    let e = settled(&field("YYYYMMDD", false), &["01/02/2000", "11/12/1999", ""]).unwrap_err();
    assert_eq!(
        e,
        "INVALID_FORMAT b.csv: field \"date_of_birth\": the dates read as DD/MM/YYYY (2 of 2 values) and as \
         MM/DD/YYYY (2 of 2 values): no value tells them apart (a day above 12), and the schema's YYYYMMDD \
         reads 0; choose the file's date format"
    );
    // the schema's own format among them reads as many: it is kept, silently
    reads(&field("MM/DD/YYYY", false), &["01/02/2000", "11/12/1999"], &["20000102", "19991112"], &[]);
}

#[test]
fn evidence_for_both_layouts_is_refused_unless_one_has_twice_the_other() {
    // 3 values only month first, 2 only day first: not clearly either
    let file = ["12/31/1980", "12/30/1980", "12/29/1980", "31/12/1980", "30/12/1980"];
    let e = settled(&field("YYYYMMDD", false), &file).unwrap_err();
    assert!(e.contains("3 values read only as MM/DD/YYYY, 2 only as DD/MM/YYYY"), "{e}");
    // 4 against 2: month first, the two swapped values missing
    let file = ["12/31/1980", "12/30/1980", "12/29/1980", "12/28/1980", "31/12/1980", "30/12/1980"];
    let read = ["19801231", "19801230", "19801229", "19801228", "", ""];
    let unread = "2 of 6 values are not dates of format MM/DD/YYYY";
    reads(&field("YYYYMMDD", false), &file, &read, &["MM/DD/YYYY (4 of 6 values)", unread]);
}

#[test]
fn the_schemas_format_reading_the_most_values_is_kept() {
    let compact = field("YYYYMMDD", false);
    // a few ISO dates among compact ones are invalid, not a reason to switch; they are counted
    let unread = "1 of 3 values are not dates of format YYYYMMDD and are taken as missing";
    reads(&compact, &["19801231", "19750115", "1990-07-04"], &["19801231", "19750115", ""], &[unread]);
    // a file of ISO dates under a compact schema is read as ISO
    let said = "YYYY-MM-DD (2 of 3 values), not the schema's YYYYMMDD";
    let unread = "1 of 3 values are not dates of format YYYY-MM-DD";
    reads(&compact, &["1980-12-31", "19750115", "1990-07-04"], &["19801231", "", "19900704"], &[said, unread]);
}

#[test]
fn a_format_the_party_named_is_never_replaced() {
    let file = ["12/31/1980", "01/15/1975", "07/04/1990"];
    // named day first: what it reads is read, the rest is invalid (missing here), and counted
    let unread = "2 of 3 values are not dates of format DD/MM/YYYY and are taken as missing";
    reads(&field("DD/MM/YYYY", true), &file, &["", "", "19900407"], &[unread]);
    // named compact: nothing reads, and the error says what was found
    let e = settled(&field("YYYYMMDD", true), &file).unwrap_err();
    assert_eq!(
        e,
        "INVALID_FORMAT b.csv: field \"date_of_birth\": no value is a date of format YYYYMMDD (row 1 has \
         \"12/31/1980\"); choose the file's date format"
    );
    // strict (no invalid = "missing"): the first value not read is refused by row and id
    let strict = DateField { missing_if_invalid: false, ..field("DD/MM/YYYY", true) };
    let e = settled(&strict, &file).unwrap_err();
    assert!(e.contains("b.csv, row 1 (id \"1\"): field \"date_of_birth\" is not a date of format DD/MM/YYYY"), "{e}");
}

#[test]
fn a_field_without_a_format_reads_each_value_in_its_own_layout() {
    let f = DateField { format: None, ..field("YYYYMMDD", false) };
    let file = ["1980-12-31", "19750115", "13/02/2000", "01/02/2000"];
    reads(&f, &file, &["19801231", "19750115", "20000213", "20000102"], &[]);
}

#[test]
fn eight_digits_month_or_day_first_are_found_in_the_file_and_said_so() {
    // a WIC-style file: MMDDYYYY, one value OCR-damaged. Read as YYYYMMDD (the
    // shape's default), every value but the damaged one would be missing
    let f = DateField { format: None, ..field("YYYYMMDD", false) };
    let file = ["12042018", "10221985", "07052005", "12041018", "1980-12-31", ""];
    let said = "the file's dates are MMDDYYYY (4 of 4 values), not YYYYMMDD";
    reads(&f, &file, &["20181204", "19851022", "20050705", "10181204", "19801231", ""], &[said]);
    // the same layout named by the schema, and day first (13 is no month)
    let mmdd = field("MMDDYYYY", false);
    reads(&mmdd, &["12042018", "10221985"], &["20181204", "19851022"], &[]);
    let said = "the file's dates are DDMMYYYY (2 of 2 values)";
    reads(&f, &["13022000", "01022000"], &["20000213", "20000201"], &[said]);
    // every part at most 12: month first and day first are not guessed
    let e = settled(&f, &["01022000", "11121999"]).unwrap_err();
    assert!(e.contains("the dates read as MMDDYYYY (2 of 2 values) and as DDMMYYYY (2 of 2 values)"), "{e}");
    // compact dates stay compact
    reads(&f, &["19801231", "20000102"], &["19801231", "20000102"], &[]);
}

#[test]
fn a_file_whose_format_reads_under_half_its_dates_is_refused_unless_named() {
    // one compact value among unreadable ones: before, 1 read and 3 went missing silently
    let file = ["19801231", "31.12.1980", "1980/12/31", "31-12-80"];
    let e = settled(&field("YYYYMMDD", false), &file).unwrap_err();
    assert_eq!(
        e,
        "INVALID_FORMAT b.csv: field \"date_of_birth\": 3 of 4 values are not dates of format YYYYMMDD (row 2 has \
         \"31.12.1980\"); choose the file's date format"
    );
    // half is not most: read, and the missing counted
    let read = ["19801231", "19750115", "", ""];
    let unread = "2 of 4 values are not dates of format YYYYMMDD and are taken as missing (invalid = \"missing\"); \
                  the first, row 3: \"1980/12/31\"";
    reads(&field("YYYYMMDD", false), &["19801231", "19750115", "1980/12/31", "31-12-80"], &read, &[unread]);
    // named by the party: its word stands
    let unread = "3 of 4 values are not dates of format YYYYMMDD";
    reads(&field("YYYYMMDD", true), &file, &["19801231", "", "", ""], &[unread]);
}

#[test]
fn counts_are_grouped_by_thousands() {
    assert_eq!(
        (count(0), count(999), count(9812), count(1_234_567)),
        ("0".into(), "999".into(), "9,812".into(), "1,234,567".into())
    );
}

#[test]
fn dots_dashes_and_year_first_slashes_read_by_their_shape() {
    let f = DateField { format: None, ..field("YYYYMMDD", false) };
    // European dots and dashes day first, slashes month first, unless a part above 12 says
    // otherwise; four digits first: year first; one-digit days and months when separated
    let file = ["31.12.1980", "01.02.2000", "12.31.1980", "31-12-1980", "1980/12/31", "1980.12.31", "1/2/2000"];
    let read = ["19801231", "20000201", "19801231", "19801231", "19801231", "19801231", "20000102"];
    reads(&f, &file, &read, &[]);
    // the same layouts named by a schema
    reads(&field("DD.MM.YYYY", false), &["01.02.2000", "3.4.1999"], &["20000201", "19990403"], &[]);
    reads(&field("YYYY/MM/DD", false), &["2000/02/01"], &["20000201"], &[]);
    // and found in a file under another schema format
    let said = "the file's dates are DD.MM.YYYY (2 of 2 values), not the schema's YYYYMMDD";
    reads(&field("YYYYMMDD", false), &["13.02.2000", "31.12.1980"], &["20000213", "19801231"], &[said]);
}

#[test]
fn every_layout_reads_what_it_writes_and_names_itself() {
    assert_eq!(ALL.len(), NAMED.len());
    for (format, name) in NAMED {
        assert_eq!(DateFormat::parse(name), Ok(format));
        assert_eq!(format.name(), name);
        let written = format.write("1980", "02", "13");
        assert_eq!(format.read(&written), Ok((1980, 2, 13)), "{name}: {written}");
        assert_eq!(written.len(), 10 - 2 * usize::from(format.sep.is_none()), "{name}: {written}");
    }
    let e = DateFormat::parse("DD MM YYYY").unwrap_err();
    assert!(e.starts_with("date format \"DD MM YYYY\" is not one of YYYYMMDD, YYYY-MM-DD, DD/MM/YYYY"), "{e}");
    // a year has four digits, a separated day or month one or two
    assert!(DateFormat::DAY_FIRST.read("1/2/80").is_err());
    assert!(DateFormat::DAY_FIRST.read("001/2/1980").is_err());
}
