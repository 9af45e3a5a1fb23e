//! Reading a party's records (text or CSV) and normalizing them onto Σ.
//!
//! A record's id is what the party chose: a CSV column, or the 1-based line number
//! of a text file. Records that normalize to the empty string are kept aside and
//! reported (count and ids), never silently dropped or matched.

use crate::alphabet::{Alphabet, CharCounts};
mod chunked;
use crate::error::InputError;
pub(crate) use chunked::check_pending;
pub(crate) use chunked::QuoteScan;
pub use chunked::{ChunkedReader, DetectingReader, MAX_PENDING};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The longest record accepted, in bytes of the raw text (a name or an address is
/// far shorter; a longer "record" is a sign of a wrong file or column).
pub const MAX_RECORD_BYTES: usize = 4096;

/// A record as read, before normalization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRecord {
    pub id: String,
    pub text: String,
}

/// How to read an input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "format", rename_all = "kebab-case")]
pub enum InputFormat {
    /// One record a line; the id is the line number (1-based).
    Text,
    /// CSV with a header; `column` holds the record, `id_column` (if any) the id,
    /// otherwise the id is the data row number (1-based).
    Csv { column: String, id_column: Option<String> },
}

/// What the caller says of an input's layout; [`FormatHint::Auto`] detects it
/// ([`detect_format`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(all(feature = "cli", not(target_arch = "wasm32")), derive(clap::ValueEnum))]
pub enum FormatHint {
    /// CSV for a `.csv`/`.tsv` name or a first line that reads as a header, or
    /// when a column is named; text otherwise.
    #[default]
    Auto,
    /// One record a line.
    Text,
    /// CSV (comma or tab separated) with a header.
    Csv,
}

/// The CSV delimiter of a header line: a tab when it has tabs and no comma.
pub(crate) fn delimiter(line: &str) -> u8 {
    let has = |d: u8| line.bytes().any(|b| b == d);
    if has(b'\t') && !has(b',') {
        b'\t'
    } else {
        b','
    }
}

/// Whether a first line reads as a CSV header: two or more distinct, non-empty
/// fields (comma or tab separated), none of them a number.
fn looks_like_header(line: &str) -> bool {
    let sep = delimiter(line) as char;
    let fields: Vec<&str> = line.split(sep).map(|f| f.trim().trim_matches('"')).collect();
    // a number: digits with at most a sign, a point and an exponent (no float parser: wasm size)
    let number = |f: &str| {
        f.chars().any(|c| c.is_ascii_digit())
            && f.chars().all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'))
    };
    let distinct = fields.iter().enumerate().all(|(i, f)| !fields[..i].contains(f));
    fields.len() >= 2 && distinct && fields.iter().all(|f| !f.is_empty() && !number(f))
}

/// Whether an input named `name` (a file name, for its extension) holding
/// `bytes` is CSV, from the caller's hint and whether a column is named.
pub fn is_csv(name: &str, bytes: &[u8], hint: FormatHint, column_named: bool) -> bool {
    let lower = name.to_ascii_lowercase();
    match hint {
        FormatHint::Csv => true,
        FormatHint::Text => false,
        FormatHint::Auto => {
            column_named || lower.ends_with(".csv") || lower.ends_with(".tsv") || looks_like_header(first_line(bytes))
        }
    }
}

/// The first line of `bytes` without a BOM (empty if it is not UTF-8 text).
fn first_line(bytes: &[u8]) -> &str {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let end = bytes.iter().position(|&b| b == b'\n').unwrap_or(bytes.len());
    std::str::from_utf8(&bytes[..end]).unwrap_or("").trim_end_matches('\r')
}

/// A CSV cell as gramlink writes it (every CSV output with ids: pairs,
/// links): a value a spreadsheet would read as a formula (it starts with `=`,
/// `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`, as OWASP's
/// guidance on CSV injection says, so opening the file never runs one (ids come
/// from the parties' files); the CSV writer quotes what needs quoting. Idempotent.
pub fn csv_cell(s: &str) -> std::borrow::Cow<'_, str> {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}").into()
    } else {
        s.into()
    }
}

/// Where column `name` is in a CSV header: `None` if absent, an error if the
/// header names it more than once (never the first silently).
pub fn unique_column<S: AsRef<str>>(header: &[S], name: &str) -> Result<Option<usize>, InputError> {
    let mut hits = header.iter().enumerate().filter(|(_, h)| h.as_ref() == name).map(|(i, _)| i);
    let first = hits.next();
    if hits.next().is_some() {
        return Err(InputError::Csv {
            record: 0,
            reason: format!("the header names column {name:?} more than once: rename one"),
        });
    }
    Ok(first)
}

/// The column names of a CSV input's header, as the reader sees them.
pub fn csv_columns(bytes: &[u8], what: &str) -> Result<Vec<String>, InputError> {
    let text = decode_text(bytes, what)?;
    let header_line = text.lines().next().unwrap_or("");
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .delimiter(delimiter(header_line))
        .from_reader(header_line.as_bytes());
    let headers = reader.headers().map_err(|e| InputError::Csv { record: 0, reason: e.to_string() })?;
    Ok(headers.iter().map(|h| h.trim().to_string()).collect())
}

/// The format of an input named `name` (a file name, for its extension) holding
/// `bytes`, from the caller's hint and columns ([`is_csv`]). CSV without a
/// `column` is an error that lists the header's columns; a column for text
/// input is an error.
pub fn detect_format(
    name: &str,
    bytes: &[u8],
    hint: FormatHint,
    column: Option<&str>,
    id_column: Option<&str>,
) -> Result<InputFormat, InputError> {
    if hint == FormatHint::Text && (column.is_some() || id_column.is_some()) {
        return Err(InputError::Format(format!(
            "{name} is read as text (one record a line): a column applies to CSV input only"
        )));
    }
    if !is_csv(name, bytes, hint, column.is_some()) {
        if id_column.is_some() {
            return Err(InputError::Format(format!(
                "{name} is read as text: an id column applies to CSV input (name the record column too)"
            )));
        }
        return Ok(InputFormat::Text);
    }
    match column {
        Some(c) => Ok(InputFormat::Csv { column: c.to_string(), id_column: id_column.map(str::to_string) }),
        None => {
            let available = csv_columns(bytes, name)?.iter().map(|c| format!("{c:?}")).collect::<Vec<_>>().join(", ");
            Err(InputError::ColumnNotGiven { what: name.to_string(), available })
        }
    }
}

/// Checks that `bytes` is text: no NUL byte, valid UTF-8 (a leading BOM is dropped).
pub fn decode_text<'a>(bytes: &'a [u8], what: &str) -> Result<&'a str, InputError> {
    if bytes.is_empty() {
        return Err(InputError::Empty { what: what.to_string() });
    }
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err(InputError::Binary { what: what.to_string(), offset });
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|e| InputError::NotText { what: what.to_string(), offset: e.valid_up_to() })?;
    Ok(text.strip_prefix('\u{FEFF}').unwrap_or(text))
}

/// Reads `bytes` in the given format: the [`ChunkedReader`] fed one chunk.
pub fn read_records(bytes: &[u8], format: &InputFormat, what: &str) -> Result<Vec<RawRecord>, InputError> {
    let mut reader = ChunkedReader::new(format, what);
    reader.push(bytes)?;
    reader.finish()
}

/// Reads a file natively, a megabyte at a time (never the whole file as one
/// string); `progress` gets the bytes read and the file's size.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_file(
    path: &std::path::Path,
    format: &InputFormat,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Vec<RawRecord>, InputError> {
    let mut reader = ChunkedReader::new(format, &path.display().to_string());
    for_each_chunk::<InputError, _>(path, |chunk, size| {
        reader.push(chunk)?;
        progress(reader.bytes_read() as u64, size);
        Ok(())
    })?;
    reader.finish()
}

/// Hands a file to `push` a megabyte at a time, with the file's size: the
/// reading loop of [`read_file`] and of the record table's reader
/// ([`crate::record::read_table_file`]).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn for_each_chunk<E, F>(path: &std::path::Path, mut push: F) -> Result<(), E>
where
    E: From<InputError>,
    F: FnMut(&[u8], u64) -> Result<(), E>,
{
    use std::io::Read;
    let io = |e: std::io::Error| InputError::Io { path: path.display().to_string(), reason: e.to_string() };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    let mut chunk = vec![0u8; 1 << 20];
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e).into()),
        };
        push(&chunk[..n], size)?;
    }
}

/// The first bytes of a file (for [`detect_format`]: the first line decides).
#[cfg(not(target_arch = "wasm32"))]
pub fn file_head(path: &std::path::Path) -> Result<Vec<u8>, InputError> {
    use std::io::Read;
    let what = path.display().to_string();
    let io = |e: std::io::Error| InputError::Io { path: what.clone(), reason: e.to_string() };
    let mut head = Vec::new();
    std::fs::File::open(path).map_err(io)?.take(HEAD_BYTES as u64).read_to_end(&mut head).map_err(io)?;
    Ok(head)
}

/// Bytes of an input enough to detect its format (its first line).
pub const HEAD_BYTES: usize = 64 << 10;

/// A party's records after normalization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dataset {
    alphabet: Alphabet,
    ids: Vec<String>,
    records: Vec<String>,
    empty_ids: Vec<String>,
    changed: usize,
    characters: CharCounts,
}

/// What normalization did, for the user: nothing here is record text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NormalizationReport {
    pub total: usize,
    pub kept: usize,
    /// Records whose text normalization changed other than by letter case
    /// (accents, punctuation, spaces, …): upper-casing alone is not worth
    /// telling a user about.
    pub changed: usize,
    pub empty: usize,
    /// Ids of the records that normalized to the empty string.
    pub empty_ids: Vec<String>,
    /// Characters kept and dropped, by class.
    pub characters: CharCounts,
    /// Set when more than 1 % of the characters were dropped: says which, and
    /// names an alphabet that keeps them ([`CharCounts::warning`]).
    pub warning: Option<String>,
}

impl Dataset {
    /// Normalizes `raw` onto `alphabet`. Ids must be distinct; records that
    /// normalize to empty are set aside and reported.
    pub fn normalize(raw: Vec<RawRecord>, alphabet: &Alphabet) -> Result<Self, InputError> {
        let mut seen: HashMap<&str, usize> = HashMap::with_capacity(raw.len());
        for (i, r) in raw.iter().enumerate() {
            if let Some(first) = seen.insert(r.id.as_str(), i + 1) {
                return Err(InputError::DuplicateId { id: r.id.clone(), first, second: i + 1 });
            }
        }
        let mut ids = Vec::with_capacity(raw.len());
        let mut records = Vec::with_capacity(raw.len());
        let mut empty_ids = Vec::new();
        let mut changed = 0;
        let mut characters = CharCounts::default();
        for r in raw {
            let n = alphabet.normalize_counting(&r.text, &mut characters);
            if n != r.text && n != r.text.to_uppercase() {
                changed += 1;
            }
            if n.is_empty() {
                empty_ids.push(r.id);
            } else {
                ids.push(r.id);
                records.push(n);
            }
        }
        Ok(Dataset { alphabet: alphabet.clone(), ids, records, empty_ids, changed, characters })
    }

    /// A dataset from already-normalized strings with ids `0..n` (experiments).
    pub fn from_normalized(records: Vec<String>, alphabet: &Alphabet) -> Self {
        let ids = (0..records.len()).map(|i| i.to_string()).collect();
        Dataset {
            alphabet: alphabet.clone(),
            ids,
            records,
            empty_ids: Vec::new(),
            changed: 0,
            characters: CharCounts::default(),
        }
    }

    pub fn alphabet(&self) -> &Alphabet {
        &self.alphabet
    }
    /// The normalized, non-empty records.
    pub fn records(&self) -> &[String] {
        &self.records
    }
    /// Ids of [`Dataset::records`], index for index.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
    pub fn empty_ids(&self) -> &[String] {
        &self.empty_ids
    }

    pub fn report(&self) -> NormalizationReport {
        NormalizationReport {
            total: self.records.len() + self.empty_ids.len(),
            kept: self.records.len(),
            changed: self.changed,
            empty: self.empty_ids.len(),
            empty_ids: self.empty_ids.clone(),
            characters: self.characters.clone(),
            warning: self.characters.warning(&self.alphabet),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_ids_are_line_numbers_and_empties_are_reported() {
        let raw = read_records("Smith\n\nИванов\r\nKīhei\n".as_bytes(), &InputFormat::Text, "t").unwrap();
        let d = Dataset::normalize(raw, &Alphabet::default()).unwrap();
        assert_eq!(d.records(), ["SMITH", "KIHEI"]);
        assert_eq!(d.ids(), ["1", "4"]);
        let r = d.report();
        assert_eq!((r.total, r.kept, r.empty), (4, 2, 2));
        assert_eq!(r.empty_ids, ["2", "3"]);
        // Иванов and Kīhei; Smith only changed case
        assert_eq!(r.changed, 2);
    }

    #[test]
    fn csv_columns() {
        let csv = "id,name,city\n7,Smith,Boston\n9,\"O'Neil, Jr\",Kīhei\n";
        let raw = read_records(
            csv.as_bytes(),
            &InputFormat::Csv { column: "city".into(), id_column: Some("id".into()) },
            "c",
        )
        .unwrap();
        assert_eq!(raw[1], RawRecord { id: "9".into(), text: "Kīhei".into() });
        let err = read_records(csv.as_bytes(), &InputFormat::Csv { column: "surname".into(), id_column: None }, "c")
            .unwrap_err();
        assert!(matches!(err, InputError::MissingColumn { .. }));
        assert!(err.to_string().contains("\"name\""));
    }

    #[test]
    fn bad_inputs() {
        assert!(matches!(read_records(b"", &InputFormat::Text, "f"), Err(InputError::Empty { .. })));
        assert!(matches!(read_records(b"ab\0cd", &InputFormat::Text, "f"), Err(InputError::Binary { .. })));
        assert!(matches!(read_records(b"ab\xff\xfe", &InputFormat::Text, "f"), Err(InputError::NotText { .. })));
        let long = "A".repeat(MAX_RECORD_BYTES + 1);
        assert!(matches!(
            read_records(long.as_bytes(), &InputFormat::Text, "f"),
            Err(InputError::RecordTooLong { .. })
        ));
        let ragged = "a,b\n1,2\n3\n";
        assert!(matches!(
            read_records(ragged.as_bytes(), &InputFormat::Csv { column: "a".into(), id_column: None }, "f"),
            Err(InputError::Csv { .. })
        ));
        let header_only = "a,b\n";
        assert!(matches!(
            read_records(header_only.as_bytes(), &InputFormat::Csv { column: "a".into(), id_column: None }, "f"),
            Err(InputError::Empty { .. })
        ));
    }

    #[test]
    fn formats_are_detected_and_csv_needs_a_column() {
        let febrl = b"rec_id, given_name, surname\nrec-1-org, MARY, SMITH\n";
        let e = detect_format("a.txt", febrl, FormatHint::Auto, None, None).unwrap_err();
        assert!(matches!(&e, InputError::ColumnNotGiven { available, .. } if available.contains("\"surname\"")), "{e}");
        assert_eq!(detect_format("a.txt", febrl, FormatHint::Text, None, None).unwrap(), InputFormat::Text);
        let csv = detect_format("a.txt", febrl, FormatHint::Auto, Some("surname"), None).unwrap();
        let raw = read_records(febrl, &csv, "a").unwrap();
        assert_eq!(raw[0].text, " SMITH");
        assert_eq!(
            detect_format("names.txt", b"SMITH\nJONES\n", FormatHint::Auto, None, None).unwrap(),
            InputFormat::Text
        );
        assert_eq!(
            detect_format("n.txt", b"1970,1982\n", FormatHint::Auto, None, None).unwrap(),
            InputFormat::Text,
            "numbers are no header"
        );
        assert!(matches!(
            detect_format("b.CSV", b"SMITH\n", FormatHint::Auto, None, None),
            Err(InputError::ColumnNotGiven { .. })
        ));
        assert!(matches!(
            detect_format("n.txt", b"SMITH\n", FormatHint::Text, Some("x"), None),
            Err(InputError::Format(_))
        ));
        assert!(matches!(
            detect_format("n.txt", b"SMITH\n", FormatHint::Auto, None, Some("id")),
            Err(InputError::Format(_))
        ));
        let tsv = read_records(
            b"id\tname\n7\tO'Neil, Jr\n",
            &InputFormat::Csv { column: "name".into(), id_column: Some("id".into()) },
            "t",
        )
        .unwrap();
        assert_eq!(tsv[0], RawRecord { id: "7".into(), text: "O'Neil, Jr".into() });
        let dup = read_records(b"name,name\na,b\n", &InputFormat::Csv { column: "name".into(), id_column: None }, "d")
            .unwrap_err();
        assert!(dup.to_string().contains("more than once"), "{dup}");
    }

    #[test]
    fn duplicate_ids_are_refused() {
        let raw = vec![RawRecord { id: "1".into(), text: "A".into() }, RawRecord { id: "1".into(), text: "B".into() }];
        assert!(matches!(Dataset::normalize(raw, &Alphabet::default()), Err(InputError::DuplicateId { .. })));
    }
}
