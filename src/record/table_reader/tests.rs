//! The table reader gives the table (or the error) of one whole read wherever
//! the chunks are cut, the table of a reference parse by the `csv` crate, and
//! the error messages `read_table` gave before it was built on the reader.

use super::*;
use crate::dataset::{cut, MAX_PENDING};
use crate::record::read_table;
use proptest::prelude::*;

/// A FEBRL-like schema: an id column, names, a field joining two columns, a
/// date, a number, a suppressed column.
fn schema() -> Schema {
    Schema::parse_json(
        r#"{"version": 1, "epsilon": 1.0, "id": "rec_id", "field": [
            {"name": "given_name", "kind": "name"},
            {"name": "surname", "kind": "name"},
            {"name": "address", "kind": "string", "columns": ["address_1", "address_2"]},
            {"name": "date_of_birth", "kind": "date", "invalid": "missing"},
            {"name": "postcode", "kind": "number"},
            {"name": "state", "kind": "suppress"}
        ]}"#,
    )
    .unwrap()
}

const HEADER: &str = "rec_id,given_name,surname,address_1,address_2,postcode,state,date_of_birth";

/// Quoted fields with the delimiter, newlines (also `\r\n`) and doubled
/// quotes; multi-byte UTF-8 (2, 3 and 4 bytes); a blank line; a BOM; a last
/// row without its newline.
fn febrl_like() -> String {
    [
        "\u{FEFF}",
        HEADER,
        "\n",
        "rec-1-org,Zoë,\"O'Brien, Jr\",\"12 Main St\nFlat 2\",willaroo,4011,wa,19081209\n",
        "rec-2-org,李,Ελένη,\"tullaroop \"\"the long\"\" street\",,4814,qld,19990219\r\n",
        "\n",
        "rec-3-org,\"mary-ann\",smith,\"a,b,c\",\"x\r\ny\",0200,nsw,1999021\n",
        "rec-4-dup,Łukasz,,🦀 lane,,,vic,\n",
        "rec-5-org,\"\",\"\",\"\",\"\",,\"\",20000101",
    ]
    .concat()
}

/// `bytes` pushed in pieces cut at `cuts` (sorted), parsed every `every` bytes.
fn read_cut(bytes: &[u8], cuts: &[usize], every: usize) -> Result<RecordTable, String> {
    cut::read_cut(TableReader::new(&schema(), "t.csv").parse_every(every), bytes, cuts)
        .map_err(|e| format!("{} {e}", e.code()))
}

/// `bytes` pushed `size` bytes at a time.
fn read_by(bytes: &[u8], size: usize, every: usize) -> Result<RecordTable, String> {
    let cuts: Vec<usize> = (size..bytes.len()).step_by(size).collect();
    read_cut(bytes, &cuts, every)
}

fn whole(bytes: &[u8]) -> Result<RecordTable, String> {
    read_table(bytes, &schema(), "t.csv").map_err(|e| format!("{} {e}", e.code()))
}

/// The reference: the whole text through the `csv` crate at once, each sent
/// field's columns joined and normalized.
fn reference(text: &str) -> RecordTable {
    let schema = schema();
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let headers: Vec<String> = reader.headers().unwrap().iter().map(|h| h.trim().to_string()).collect();
    let col = |c: &str| headers.iter().position(|h| h == c).unwrap();
    let sent: Vec<&Field> = schema.sent().collect();
    let mut table = RecordTable {
        ids: Vec::new(),
        fields: sent
            .iter()
            .map(|f| FieldValues { name: f.name.clone(), kind: f.kind().unwrap(), values: Vec::new() })
            .collect(),
        notes: Vec::new(),
    };
    for row in reader.records() {
        let row = row.unwrap();
        table.ids.push(row[col("rec_id")].trim().to_string());
        for (f, out) in sent.iter().zip(table.fields.iter_mut()) {
            let raw: Vec<&str> = f.columns().iter().map(|c| row[col(c)].trim()).collect();
            out.values.push(normalize(f, &field_alphabet(f).unwrap(), &raw.join(" ")).unwrap_or(None));
        }
    }
    table
}

/// Every chunk size of the brief, parsed at every record and at the default.
fn same_everywhere(bytes: &[u8]) -> Result<RecordTable, String> {
    let want = whole(bytes);
    for size in [1, 2, 3, 7, 64, bytes.len().max(1)] {
        for every in [1, PARSE_AT] {
            assert_eq!(read_by(bytes, size, every), want, "chunks of {size}, parsed every {every}");
        }
    }
    want
}

#[test]
fn the_same_table_for_every_chunk_size() {
    let text = febrl_like();
    let mut table = same_everywhere(text.as_bytes()).unwrap();
    // the reference reads value by value: the count of unread dates is the reader's own
    let unread = "field date_of_birth: 1 of 4 values are not dates and are taken as missing \
                  (invalid = \"missing\"); the first, row 3: \"1999021\"";
    assert_eq!(std::mem::take(&mut table.notes), [unread]);
    assert_eq!(table, reference(&text));
    assert_eq!(table.ids, ["rec-1-org", "rec-2-org", "rec-3-org", "rec-4-dup", "rec-5-org"]);
    // the quoted newline, the doubled quote, the 4-byte character survive
    let address = &table.fields[2].values;
    assert_eq!(address[0].as_deref(), Some("MAIN ST FLAT WILLAROO"));
    assert_eq!(address[1].as_deref(), Some("TULLAROOP THE LONG STREET"));
    assert_eq!(table.fields[0].values[1], None, "李 is not a letter of the default alphabet");
    assert_eq!(table.fields[1].values[0].as_deref(), Some("JR OBRIEN"));
    // the date of 7 digits is missing (invalid = "missing"), not an error
    assert_eq!(table.fields[3].values[2], None);
    assert_eq!(table.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().len(), 5, "suppress is not sent");
}

#[test]
fn progress_counts_bytes_and_parsed_records() {
    let text = febrl_like();
    let mut r = TableReader::new(&schema(), "t.csv").parse_every(1);
    let (head, tail) = text.as_bytes().split_at(text.find("rec-3").unwrap());
    r.push(head).unwrap();
    assert_eq!((r.bytes_read(), r.records_read()), (head.len(), 2));
    r.push(tail).unwrap();
    assert_eq!(r.bytes_read(), text.len());
    assert_eq!(r.finish().unwrap().ids.len(), 5);
}

/// The error of `csv`, cut anywhere, with its code: the same as one read, and
/// the message `read_table` gave before it was built on the reader.
fn error_everywhere(csv: &[u8], want: &str) {
    let got = same_everywhere(csv).unwrap_err();
    assert_eq!(got, want);
}

#[test]
fn every_error_is_the_one_of_a_whole_read() {
    let h = "rec_id,given_name,surname,address_1,address_2,postcode,date_of_birth";
    error_everywhere(
        b"rec_id,given_name\n1,MARY\n",
        "MISSING_COLUMN CSV column \"surname\" not found; the header has: \"rec_id\", \"given_name\" \
         (field \"surname\" of the schema reads it; in t.csv)",
    );
    error_everywhere(
        format!("{h},surname\n1,A,B,C,D,1,19990101,E\n").as_bytes(),
        "MALFORMED_CSV malformed CSV at record 0: t.csv: the header names column \"surname\" more than once: rename one",
    );
    error_everywhere(
        format!("{h}\n1,A,B,C,D,1,19990101\n ,A,B,C,D,1,19990101\n").as_bytes(),
        "MALFORMED_CSV malformed CSV at record 2: t.csv: the id column is empty",
    );
    error_everywhere(
        format!("{h}\n1,A,B,C,D,1,19990101\n2,A,B,C,D,1,19990101\n1,A,B,C,D,1,19990101\n").as_bytes(),
        "DUPLICATE_ID duplicate record id \"1\" (records 1 and 3)",
    );
    let long = "x".repeat(MAX_RECORD_BYTES);
    error_everywhere(
        format!("{h}\n1,A,B,C,D,1,19990101\n2,A,B,{long},D,1,19990101\n").as_bytes(),
        &format!(
            "INVALID_FORMAT t.csv, row 2: field \"address\" is {} bytes long (the limit is {MAX_RECORD_BYTES})",
            MAX_RECORD_BYTES + 2
        ),
    );
    let strict = Schema::parse_json(
        r#"{"version": 1, "epsilon": 1.0, "id": "id", "field": [{"name": "given", "kind": "name"}, {"name": "dob", "kind": "date"}]}"#,
    )
    .unwrap();
    let bad_date = b"id,given,dob\n1,MARY,19990101\n\n2,ANN,1999\n";
    let e = read_table(bad_date, &strict, "a.csv").unwrap_err();
    assert_eq!(
        format!("{} {e}", e.code()),
        "INVALID_FORMAT a.csv, row 2 (id \"2\"): field \"dob\" is not a date of format YYYYMMDD (not 8 digits); \
         fix it, or declare such dates missing with invalid = \"missing\""
    );
    for size in [1, 2, 3, 7] {
        let mut r = TableReader::new(&strict, "a.csv").parse_every(1);
        let pushed = bad_date.chunks(size).try_for_each(|c| r.push(c));
        let e = pushed.and_then(|()| r.finish().map(|_| ())).unwrap_err();
        assert_eq!(e.to_string(), read_table(bad_date, &strict, "a.csv").unwrap_err().to_string());
    }
    for empty in [&b""[..], b" \n\r\n\n", b"\xEF\xBB\xBF\n", format!("{h}\n").as_bytes()] {
        error_everywhere(empty, "EMPTY_INPUT t.csv is empty: it holds no records");
    }
    error_everywhere(
        format!("{h}\n1,A,B,C,D,1,19990101\n2,\"A,B,C,D,1,19990101\n3,A,B,C,D,1,19990101\n").as_bytes(),
        "MALFORMED_CSV malformed CSV at record 2: t.csv: the quoted field opened on line 3 is never closed",
    );
    error_everywhere(
        format!("{h}\n1,A,B,C\0,D,1,19990101\n").as_bytes(),
        &format!("NOT_TEXT t.csv looks like a binary file (it contains a NUL byte at offset {})", h.len() + 8),
    );
    error_everywhere(
        &[format!("{h}\n1,A").as_bytes(), b"\xFF", b",B,C,D,1,19990101\n"].concat(),
        &format!(
            "NOT_TEXT t.csv is not UTF-8 text (first invalid byte at offset {}); is it a binary file?",
            h.len() + 4
        ),
    );
    // two invalid bytes: the first is named, however the input is cut
    error_everywhere(
        &[format!("{h}\n1,A").as_bytes(), b"\xFF", b",B,C,D,1,19990101\n2,A,B", b"\xFF"].concat(),
        &format!(
            "NOT_TEXT t.csv is not UTF-8 text (first invalid byte at offset {}); is it a binary file?",
            h.len() + 4
        ),
    );
    error_everywhere(
        format!("{h}\n1,,,C,D,1,19990101\n").as_bytes(),
        "EMPTY_COLUMN t.csv: field \"given_name\" is missing in every record (column given_name): suppress it or fix the column",
    );
}

#[test]
fn a_row_of_the_wrong_width_is_named_as_the_csv_crate_names_it() {
    // after a blank line and a quoted newline, so the position carried from
    // batch to batch (byte, line, record) is tested across every cut
    let h = "rec_id,given_name,surname,address_1,address_2,postcode,date_of_birth";
    let text = format!("\u{FEFF}{h}\n1,A,\"B\nC\",C,D,1,19990101\n\n2,Ä,B,C,D,1,19990101,extra\n");
    let got = same_everywhere(text.as_bytes()).unwrap_err();
    let body = text.strip_prefix('\u{FEFF}').unwrap();
    let mut reader = csv::ReaderBuilder::new().from_reader(body.as_bytes());
    let e = reader.records().find_map(Result::err).unwrap();
    // the crate places the row where the previous one ended: on the blank line 4
    assert!(e.to_string().contains("record 2 (line: 4, byte: 94)"), "{e}");
    assert_eq!(got, format!("MALFORMED_CSV malformed CSV at record 2: t.csv: {e}"));
}

#[test]
fn an_input_cut_off_mid_stream_is_refused_at_finish() {
    let text = febrl_like();
    let bytes = text.as_bytes();
    // inside the quoted address of row 1 (opened on line 2)
    let cut = text.find("Flat").unwrap();
    let e = same_everywhere(&bytes[..cut]).unwrap_err();
    assert_eq!(e, "MALFORMED_CSV malformed CSV at record 1: t.csv: the quoted field opened on line 2 is never closed");
    // inside the 4-byte crab: the incomplete character at its offset
    let crab = text.find('🦀').unwrap();
    for end in crab + 1..crab + 4 {
        let e = same_everywhere(&bytes[..end]).unwrap_err();
        assert_eq!(
            e,
            format!("NOT_TEXT t.csv is not UTF-8 text (first invalid byte at offset {crab}); is it a binary file?")
        );
    }
    // the pushes took every byte; only finish knows the input ended there
    let mut r = TableReader::new(&schema(), "t.csv").parse_every(1);
    r.push(&bytes[..crab + 2]).unwrap();
    assert!(r.finish().is_err());
}

#[test]
fn a_quote_left_open_is_refused_before_it_fills_memory() {
    let mut r = TableReader::new(&schema(), "big.csv");
    r.push(format!("{HEADER}\n1,\"open\n").as_bytes()).unwrap();
    let line = vec![b'x'; 1 << 20];
    let mut err = None;
    for _ in 0..(MAX_PENDING >> 20) + 2 {
        if let Err(e) = r.push(&line) {
            err = Some(e);
            break;
        }
    }
    let e = err.expect("refused");
    assert_eq!(e.code(), "INVALID_FORMAT");
    assert!(e.to_string().contains("line 2 is still open"), "{e}");
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Zé0-9 -]{0,8}",
        "[a-z]{0,3}".prop_map(|s| format!("\"{s},\n{s}\"\"é\"")),
        "[a-z]{1,3}".prop_map(|s| format!("\"{s}\r\n李\"")),
        Just("Ελένη".to_string()),
        Just("🦀".to_string()),
        Just("1999-02-30".to_string()),
        Just("19990219".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn cut_anywhere_reads_as_a_whole(
        rows in prop::collection::vec(prop::collection::vec(value(), 6), 1..20),
        layout in cut::layout(600),
    ) {
        // a distinct id and a given name, so ids and one field are valid
        let text = layout.text(HEADER, rows.iter().enumerate().map(|(i, r)| format!("{i},Ann,{}", r.join(","))));
        let got = read_cut(text.as_bytes(), &layout.cuts, layout.every);
        prop_assert_eq!(&got, &whole(text.as_bytes()));
        // the empty-column error (or, for dates none or most of which do not parse, the
        // one naming what was found) is the reference's too; otherwise its table (the
        // reader's notes aside: the reference reads value by value)
        match got {
            Ok(table) => prop_assert_eq!(RecordTable { notes: Vec::new(), ..table }, reference(&text)),
            Err(e) => prop_assert!(
                e.starts_with("EMPTY_COLUMN") || e.contains("no value is a date of format") || e.contains("values are not dates"),
                "{}",
                e
            ),
        }
    }
}

#[test]
fn a_file_reads_its_own_date_format_and_unparsed_dates_are_named_not_missing() {
    let h = "rec_id,given_name,surname,address_1,address_2,postcode,date_of_birth";
    let iso = format!("{h}\n1,A,B,C,D,1,1983-09-17\n2,E,F,G,H,2,\n");
    // without a format, each date is read in its own layout
    let t = read_table(iso.as_bytes(), &schema(), "t.csv").unwrap();
    let dob = t.fields.iter().find(|f| f.name == "date_of_birth").unwrap();
    assert_eq!(dob.values, vec![Some("19830917".to_string()), None]);
    // a schema's format (YYYYMMDD) reads none of them: the file's (ISO) is
    // found, used and said
    let text = serde_json::to_string(&schema()).unwrap().replace(
        r#""name":"date_of_birth","kind":"date""#,
        r#""name":"date_of_birth","kind":"date","format":"YYYYMMDD""#,
    );
    let schema = || Schema::parse_json(&text).unwrap();
    assert_eq!(schema().field("date_of_birth").unwrap().format.as_deref(), Some("YYYYMMDD"));
    let t = read_table(iso.as_bytes(), &schema(), "t.csv").unwrap();
    assert_eq!(
        t.fields.iter().find(|f| f.name == "date_of_birth").unwrap().values,
        vec![Some("19830917".to_string()), None]
    );
    assert_eq!(
        t.notes,
        ["field date_of_birth: the file's dates are YYYY-MM-DD (1 of 1 values), not the schema's YYYYMMDD"]
    );
    // a format the party names is kept: none reads, and the error says what was found
    let mut r =
        TableReader::new(&schema(), "t.csv").date_formats(&[("date_of_birth".into(), "YYYYMMDD".into())]).unwrap();
    r.push(iso.as_bytes()).unwrap();
    let e = r.finish().unwrap_err();
    assert_eq!(e.code(), "INVALID_FORMAT");
    assert_eq!(
        e.to_string(),
        "t.csv: field \"date_of_birth\": no value is a date of format YYYYMMDD (row 1 has \"1983-09-17\"); choose the file's date format"
    );
    // this file's own format: read, and the schema (its fingerprint) unchanged
    let mut r = TableReader::new(&schema(), "t.csv").date_format("date_of_birth", "YYYY-MM-DD").unwrap();
    r.push(iso.as_bytes()).unwrap();
    assert_eq!(r.schema().fingerprint(), schema().fingerprint());
    let t = r.finish().unwrap();
    let dob = t.fields.iter().find(|f| f.name == "date_of_birth").unwrap();
    assert_eq!(dob.values, vec![Some("19830917".to_string()), None]);
    // refused by name: a field that is no date, a format not in the list
    let e = TableReader::new(&schema(), "t.csv").date_format("surname", "YYYY-MM-DD").unwrap_err();
    assert!(e.to_string().contains("\"surname\", which is not a date field"), "{e}");
    let e = TableReader::new(&schema(), "t.csv").date_format("date_of_birth", "DD MM YYYY").unwrap_err();
    assert!(e.to_string().contains("is not one of YYYYMMDD"), "{e}");
}
