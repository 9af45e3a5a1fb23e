//! Reading a party's records (text or CSV) and normalizing them onto Σ.
//!
//! A record's id is what the party chose: a CSV column, or the 1-based line number
//! of a text file. Records that normalize to the empty string are kept aside and
//! reported (count and ids), never silently dropped or matched.

use crate::alphabet::{Alphabet, CharCounts};
mod chunk_reader;
mod chunked;
mod format;
use crate::error::InputError;
#[cfg(all(test, not(target_arch = "wasm32")))]
pub(crate) use chunk_reader::cut;
#[cfg(not(target_arch = "wasm32"))]
pub use chunk_reader::read_path;
pub use chunk_reader::{read_whole, ChunkReader};
pub(crate) use chunked::check_pending;
pub(crate) use chunked::QuoteScan;
pub use chunked::{ChunkedReader, DetectingReader, RawRecord, MAX_PENDING, MAX_RECORD_BYTES};
pub(crate) use format::delimiter;
#[cfg(not(target_arch = "wasm32"))]
pub use format::file_head;
pub use format::{csv_columns, decode_text, detect_format, is_csv, unique_column, FormatHint, InputFormat, HEAD_BYTES};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

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

/// Reads `bytes` in the given format: the [`ChunkedReader`] fed one chunk.
pub fn read_records(bytes: &[u8], format: &InputFormat, what: &str) -> Result<Vec<RawRecord>, InputError> {
    read_whole(ChunkedReader::new(format, what), bytes)
}

/// Reads a file natively ([`read_path`]) in the given format.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_file(
    path: &std::path::Path,
    format: &InputFormat,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Vec<RawRecord>, InputError> {
    read_path(ChunkedReader::new(format, &path.display().to_string()), path, progress)
}

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
