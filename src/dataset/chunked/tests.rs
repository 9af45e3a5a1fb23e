//! The chunked reader gives the records (or the error) of one whole read,
//! wherever the chunks are cut, and the reference parse of the `csv` crate.

use super::*;
use crate::dataset::cut::{layout, read_cut};
use proptest::prelude::*;

fn read_in(bytes: &[u8], format: &InputFormat, cuts: &[usize], parse_every: usize) -> Result<Vec<RawRecord>, String> {
    read_cut(ChunkedReader::new(format, "t").parse_every(parse_every), bytes, cuts).map_err(|e| e.to_string())
}

/// The reference: the whole text through the `csv` crate at once.
fn csv_reference(text: &str, column: &str) -> Vec<RawRecord> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    let at = reader.headers().unwrap().iter().position(|h| h.trim() == column).unwrap();
    reader
        .records()
        .enumerate()
        .map(|(i, r)| RawRecord { id: (i + 1).to_string(), text: r.unwrap().get(at).unwrap().to_string() })
        .collect()
}

fn field() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Zé ]{0,6}",
        "[a-z]{0,3}".prop_map(|s| format!("\"{s},\n{s}\"\"x\"")),
        Just("Ελένη".to_string()),
        Just("李".to_string()),
    ]
    .prop_map(|f| {
        if f.starts_with('"') || !f.contains(['"', ',', '\n']) {
            f
        } else {
            f.replace(['"', ',', '\n'], "")
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn csv_cut_anywhere_reads_as_a_whole(
        rows in prop::collection::vec((field(), field()), 1..30),
        layout in layout(400),
    ) {
        let text = layout.text("name,city", rows.iter().map(|(a, b)| format!("{a},{b}")));
        let format = InputFormat::Csv { column: "city".into(), id_column: None };
        let want = csv_reference(&text, "city");
        let got = read_in(text.as_bytes(), &format, &layout.cuts, layout.every);
        prop_assert_eq!(got.clone(), read_in(text.as_bytes(), &format, &[], usize::MAX));
        // the reference skips nothing the reader keeps (blank rows are the crate's to skip)
        prop_assert_eq!(got.unwrap(), want);
    }

    #[test]
    fn text_cut_anywhere_reads_as_lines(
        lines in prop::collection::vec("[a-zA-Zé李 ,\"]{0,8}", 1..40),
        crlf in any::<bool>(),
        cuts in prop::collection::vec(0usize..300, 0..12),
        every in 1usize..64,
    ) {
        let text = lines.join(if crlf { "\r\n" } else { "\n" });
        prop_assume!(!text.is_empty());
        let mut cuts = cuts;
        cuts.sort_unstable();
        let got = read_in(text.as_bytes(), &InputFormat::Text, &cuts, every).unwrap();
        let want: Vec<RawRecord> =
            text.lines().enumerate().map(|(i, l)| RawRecord { id: (i + 1).to_string(), text: l.to_string() }).collect();
        prop_assert_eq!(got, want);
    }
}

#[test]
fn errors_carry_offsets_and_rows_across_chunks() {
    let csv = InputFormat::Csv { column: "a".into(), id_column: None };
    // invalid UTF-8 in a later chunk: the offset is the input's, not the chunk's
    let mut bytes = b"a,b\nx,y\nz,w\n".to_vec();
    bytes.extend_from_slice(b"q,\xff\n");
    let e = read_in(&bytes, &csv, &[4, 8, 12], 1).unwrap_err();
    assert!(e.contains("offset 14"), "{e}");
    // a ragged row in a later part is still checked against the header
    let e = read_in(b"a,b\n1,2\n3,4\n5\n", &csv, &[8, 12], 1).unwrap_err();
    assert!(e.contains("record 3") && e.contains("header has 2"), "{e}");
    // an unclosed quote: named, with its line
    let e = read_in(b"a,b\n1,\"2\n3,4\n", &csv, &[5], 1).unwrap_err();
    assert!(e.contains("line 2") && e.contains("never closed"), "{e}");
    // a NUL in the second chunk, at its place in the input
    let e = read_in(b"ab\ncd\0", &InputFormat::Text, &[3], 1).unwrap_err();
    assert!(e.contains("offset 5"), "{e}");
    // a record too long, counted over the whole input
    let long = format!("a\nb\n{}\n", "x".repeat(MAX_RECORD_BYTES + 1));
    let e = read_in(long.as_bytes(), &InputFormat::Text, &[2, 4], 1).unwrap_err();
    assert!(e.contains("record 3"), "{e}");
}

#[test]
fn a_quote_left_open_is_refused_before_it_fills_memory() {
    let mut r = ChunkedReader::new(&InputFormat::Csv { column: "a".into(), id_column: None }, "big");
    r.push(b"a,b\n1,\"open\n").unwrap();
    let line = vec![b'x'; 1 << 20];
    let mut err = None;
    for _ in 0..(MAX_PENDING >> 20) + 2 {
        if let Err(e) = r.push(&line) {
            err = Some(e.to_string());
            break;
        }
    }
    let e = err.expect("refused");
    assert!(e.contains("line 2 is still open"), "{e}");
}

#[test]
fn tab_separated_quotes_are_scanned_with_the_tab() {
    let tsv = b"id\tname\n7\t\"O'Neil\nJr\"\n8\tB\n";
    let f = InputFormat::Csv { column: "name".into(), id_column: Some("id".into()) };
    let got = read_in(tsv, &f, &[10, 14], 1).unwrap();
    assert_eq!(got[0], RawRecord { id: "7".into(), text: "O'Neil\nJr".into() });
    assert_eq!(got[1].id, "8");
}

#[test]
fn the_format_is_detected_from_the_first_line_however_it_arrives() {
    let febrl = b"rec_id, given_name, surname\nrec-1-org, MARY, SMITH\nrec-2-org, JO, BROWN\n";
    for cut in [1, 5, 27, 28, 40] {
        let mut r = DetectingReader::new("a.txt", FormatHint::Auto, Some("surname"), Some("rec_id"));
        r.push(&febrl[..cut]).unwrap();
        r.push(&febrl[cut..]).unwrap();
        assert!(matches!(r.format(), Some(InputFormat::Csv { .. })));
        let got = r.finish().unwrap();
        assert_eq!(got[1], RawRecord { id: "rec-2-org".into(), text: " BROWN".into() });
    }
    // CSV without a column: the error lists the header, wherever the first chunk ends
    let mut r = DetectingReader::new("a.txt", FormatHint::Auto, None, None);
    r.push(&febrl[..10]).unwrap();
    let e = r.push(&febrl[10..]).unwrap_err();
    assert!(matches!(&e, InputError::ColumnNotGiven { available, .. } if available.contains("\"surname\"")), "{e}");
    // no newline at all: detected at the end
    let r = DetectingReader::new("n.txt", FormatHint::Auto, None, None);
    assert!(matches!(r.finish(), Err(InputError::Empty { .. })));
    let mut r = DetectingReader::new("n.txt", FormatHint::Auto, None, None);
    r.push(b"SMITH").unwrap();
    assert_eq!(r.finish().unwrap()[0].text, "SMITH");
}

#[test]
fn a_file_cut_off_mid_stream_is_named_and_gives_no_records() {
    // cut inside a character: no record is returned, the offset is where the cut character starts
    let cut = &"PARIS\nZÜRICH\n".as_bytes()[..8];
    let e = read_in(cut, &InputFormat::Text, &[3, 7], 1).unwrap_err();
    assert!(e.contains("not UTF-8") && e.contains("offset 7"), "{e}");
    // cut inside a quoted field
    let csv = InputFormat::Csv { column: "name".into(), id_column: None };
    let e = read_in(b"name\n\"O'Neil, J", &csv, &[6], 1).unwrap_err();
    assert!(e.contains("never closed"), "{e}");
}
