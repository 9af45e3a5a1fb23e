//! Reading a party's record CSV from a stream of chunks (a file read a
//! megabyte at a time natively, a `File`'s stream in the web app's Worker),
//! never holding the whole input as one string. [`super::read_table::read_table`]
//! is this reader fed one chunk, so both paths give the same table and the
//! same errors.
//!
//! **How** (as [`crate::dataset::ChunkedReader`] for one string). Every byte
//! that matters to record boundaries (`"`, the delimiter, `\n`) is ASCII, and
//! ASCII bytes never occur inside a UTF-8 sequence, so a byte-level scan finds
//! where complete records end: after a `\n` outside a quoted field
//! (`QuoteScan`). The bytes up to the last such end are decoded and parsed by
//! the `csv` crate against the header's columns; the rest waits for the next
//! chunk. A chunk that ends inside a UTF-8 sequence or a quoted field is thus
//! never parsed early, and an input cut off there is refused at
//! [`TableReader::finish`] with a named error (not UTF-8, or the quoted field
//! never closed), never read as a shorter table.
//!
//! Each batch is parsed by its own `csv` reader; the position where the last
//! one stopped (byte, line, record) is carried over, so an error names the
//! same row, line and byte as one parse of the whole text would.

use super::dates::{self, DateFormat};
use super::schema::{Field, Kind, Schema};
use super::values::{field_alphabet, normalize, FieldValues, RecordTable};
use crate::alphabet::Alphabet;
use crate::dataset::{delimiter, ChunkReader, QuoteScan, MAX_RECORD_BYTES};
use crate::error::{Error, InputError};
use std::collections::HashMap;

/// Bytes of complete records gathered before they are parsed (a parse per
/// chunk of the caller would be as right, but a browser's stream hands out
/// 64 KB chunks, and each parse sets up a `csv` reader).
const PARSE_AT: usize = 1 << 20;

/// A sent field: the columns it joins and the alphabet it is normalized onto.
#[derive(Debug)]
struct Plan {
    field: Field,
    alphabet: Alphabet,
    cols: Vec<usize>,
    /// The party named this date field's format ([`TableReader::date_format`]).
    named: bool,
}

/// The header's columns, once read.
#[derive(Debug)]
struct Header {
    width: usize,
    id: Option<usize>,
    plans: Vec<Plan>,
}

/// Where the `csv` crate stands in the whole text (its `Position`: byte
/// offset after the BOM, 1-based line, 0-based record counting the header).
#[derive(Debug, Clone, Copy)]
struct At {
    byte: u64,
    line: u64,
    record: u64,
}

impl At {
    /// The whole text's position of `local`, a position in the batch that
    /// starts at `self`.
    fn plus(self, local: &csv::Position) -> At {
        At { byte: self.byte + local.byte(), line: self.line + local.line() - 1, record: self.record + local.record() }
    }
}

/// The rows read so far.
#[derive(Debug, Default)]
struct Rows {
    ids: Vec<String>,
    /// One per sent field, in schema order.
    values: Vec<Vec<Option<String>>>,
    /// Each id's row number, to name both rows of a duplicate.
    seen: HashMap<String, usize>,
    /// A field's columns joined (reused across rows).
    joined: String,
}

/// A record table from chunks of a CSV: [`TableReader::push`] each chunk in
/// order, then [`TableReader::finish`]. An error ends the reading: the caller
/// drops the reader, and no table is made.
#[derive(Debug)]
pub struct TableReader {
    schema: Schema,
    what: String,
    /// Bytes not parsed yet; they start at a record boundary.
    pending: Vec<u8>,
    /// Offset in the input of `pending[0]`.
    offset: usize,
    /// End (in `pending`) of the last complete record found by the scan.
    complete: usize,
    /// Bytes of `pending` known to be blank while no header is read: the
    /// header is the first non-blank line, and an input of blanks is empty.
    blank: usize,
    /// The delimiter, from the first line, once it is in.
    delimiter: Option<u8>,
    scan: Option<QuoteScan>,
    header: Option<Header>,
    /// The position of `pending[0]` in the whole text.
    at: At,
    /// The position in the whole text after the last record read.
    last_end: At,
    rows: Rows,
    total: usize,
    parse_at: usize,
    /// Date formats of this file that differ from the schema's, by field: a
    /// party reads its own file's dates, and the schema (and its fingerprint)
    /// stays the one both parties share.
    date_formats: HashMap<String, String>,
}

impl TableReader {
    /// A reader of a CSV (with a header) under `schema`: the id column (if the
    /// schema names one) and every sent field's columns. `what` names the
    /// input in errors.
    pub fn new(schema: &Schema, what: &str) -> TableReader {
        TableReader {
            schema: schema.clone(),
            what: what.to_string(),
            pending: Vec::new(),
            offset: 0,
            complete: 0,
            blank: 0,
            delimiter: None,
            scan: None,
            header: None,
            at: At { byte: 0, line: 1, record: 0 },
            last_end: At { byte: 0, line: 1, record: 0 },
            rows: Rows::default(),
            total: 0,
            parse_at: PARSE_AT,
            date_formats: HashMap::new(),
        }
    }

    /// Reads the date field `field` of this file in `format` (a layout
    /// [`DateFormat::parse`] reads: `YYYYMMDD`, `DD.MM.YYYY`, `MM/DD/YYYY`, …) instead of the schema's;
    /// the schema, and so its fingerprint, is unchanged. Refused: a field that
    /// is not a sent date field of the schema, a format not in that list.
    pub fn date_format(mut self, field: &str, format: &str) -> Result<TableReader, Error> {
        let bad = |m: String| Error::Input(InputError::Format(m));
        match self.schema.sent().find(|f| f.name == field) {
            Some(f) if f.kind() == Some(Kind::Date) => {}
            Some(_) => return Err(bad(format!("date format for field {field:?}, which is not a date field"))),
            None => return Err(bad(format!("date format for field {field:?}, which is not a field of the schema"))),
        }
        DateFormat::parse(format).map_err(|e| bad(format!("date format for field {field:?}: {e}")))?;
        self.date_formats.insert(field.to_string(), format.to_string());
        Ok(self)
    }

    /// [`TableReader::date_format`] for each (field, format).
    pub fn date_formats(self, formats: &[(String, String)]) -> Result<TableReader, Error> {
        formats.iter().try_fold(self, |r, (field, format)| r.date_format(field, format))
    }

    /// Parses complete records whenever `n` bytes of them are pending (tests
    /// use tiny values to cross every chunk boundary).
    pub fn parse_every(mut self, n: usize) -> TableReader {
        self.parse_at = n.max(1);
        self
    }

    /// The schema the table is read under.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// Bytes taken so far.
    pub fn bytes_read(&self) -> usize {
        self.total
    }

    /// Records read so far (complete records are parsed a megabyte at a time).
    pub fn records_read(&self) -> usize {
        self.rows.ids.len()
    }

    /// Starts the quote scan with the delimiter of the first line
    /// `pending[..line_end]` (a BOM dropped), and scans everything pending.
    fn begin_scan(&mut self, line_end: usize) {
        let line = String::from_utf8_lossy(&self.pending[..line_end]);
        let d = delimiter(line.trim_start_matches('\u{FEFF}'));
        self.delimiter = Some(d);
        self.scan = Some(QuoteScan::new(d));
        self.scan_from(0);
    }

    fn scan_from(&mut self, from: usize) {
        if let Some(end) = self.scan.as_mut().and_then(|scan| scan.scan(&self.pending[from..])) {
            self.complete = from + end;
        }
    }

    /// Parses `pending[..complete]` and keeps the rest.
    fn parse_complete(&mut self) -> Result<(), Error> {
        let end = self.complete;
        let pending = std::mem::take(&mut self.pending);
        let parsed = self.parse(&pending[..end]);
        self.pending = pending;
        match parsed? {
            true => {
                self.pending.drain(..end);
                self.offset += end;
                self.complete = 0;
                self.blank = 0;
            }
            false => self.blank = end,
        }
        Ok(())
    }

    /// Parses complete records `bytes` (at `self.offset`); false when they
    /// were left pending: blanks before the header.
    fn parse(&mut self, bytes: &[u8]) -> Result<bool, Error> {
        let not_text = |from: usize, e: std::str::Utf8Error| InputError::NotText {
            what: self.what.clone(),
            offset: self.offset + from + e.valid_up_to(),
        };
        if self.header.is_none() {
            // blanks known so far are not decoded again
            let fresh = std::str::from_utf8(&bytes[self.blank..]).map_err(|e| not_text(self.blank, e))?;
            let fresh =
                if self.offset + self.blank == 0 { fresh.strip_prefix('\u{FEFF}').unwrap_or(fresh) } else { fresh };
            if fresh.trim().is_empty() {
                return Ok(false);
            }
        }
        let text = std::str::from_utf8(bytes).map_err(|e| not_text(0, e))?;
        let text = if self.offset == 0 { text.strip_prefix('\u{FEFF}').unwrap_or(text) } else { text };
        let delimiter = self.delimiter.unwrap_or(b',');
        // flexible: the field count is checked against the header here, as
        // the csv crate checks it against the first record of its reader,
        // which for a later batch is not the header
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(delimiter)
            .from_reader(text.as_bytes());
        let mut row = csv::StringRecord::new();
        loop {
            match reader.read_record(&mut row) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    let (record, reason) = match self.header {
                        None => (0, e.to_string()),
                        Some(_) => (self.rows.ids.len() + 1, format!("{}: {e}", self.what)),
                    };
                    return Err(InputError::Csv { record, reason }.into());
                }
            }
            let Some(header) = self.header.as_ref() else {
                let header = self.read_header(&row)?;
                self.rows.values = vec![Vec::new(); header.plans.len()];
                self.header = Some(header);
                self.last_end = self.at.plus(reader.position());
                continue;
            };
            // the csv crate places a record where the previous one ended,
            // blank lines between them included: for the first record of a
            // batch, that is in an earlier batch
            let local = row.position().unwrap_or(reader.position());
            let at = if local.record() == 0 { self.last_end } else { self.at.plus(local) };
            header.row(&mut self.rows, &row, at, &self.what)?;
            self.last_end = self.at.plus(reader.position());
        }
        self.at = self.at.plus(reader.position());
        Ok(true)
    }

    /// The header's columns: the id's and every sent field's, each named once.
    fn read_header(&self, headers: &csv::StringRecord) -> Result<Header, Error> {
        let what = &self.what;
        let names: Vec<&str> = headers.iter().map(|h| h.trim()).collect();
        let available = || names.iter().map(|h| format!("{h:?}")).collect::<Vec<_>>().join(", ");
        let find = |col: &str, field: &str| -> Result<usize, Error> {
            let hits: Vec<usize> = names.iter().enumerate().filter(|(_, h)| **h == col).map(|(i, _)| i).collect();
            match hits.len() {
                0 => Err(InputError::MissingColumn {
                    column: col.to_string(),
                    available: format!("{} (field {field:?} of the schema reads it; in {what})", available()),
                }
                .into()),
                1 => Ok(hits[0]),
                _ => Err(InputError::Csv {
                    record: 0,
                    reason: format!("{what}: the header names column {col:?} more than once: rename one"),
                }
                .into()),
            }
        };
        let id = match &self.schema.id {
            Some(c) => Some(find(c, "id")?),
            None => None,
        };
        let mut plans = Vec::new();
        for f in self.schema.sent() {
            let cols = f.columns().iter().map(|c| find(c, &f.name)).collect::<Result<Vec<_>, _>>()?;
            let mut field = f.clone();
            let named = self.date_formats.get(&f.name);
            if let Some(format) = named {
                field.format = Some(format.clone());
            }
            plans.push(Plan { alphabet: field_alphabet(&field)?, field, cols, named: named.is_some() });
        }
        Ok(Header { width: names.len(), id, plans })
    }
}

impl ChunkReader for TableReader {
    type Output = RecordTable;
    type Error = Error;

    /// Takes the next chunk of the input.
    fn push(&mut self, chunk: &[u8]) -> Result<(), Error> {
        if let Some(at) = chunk.iter().position(|&b| b == 0) {
            return Err(InputError::Binary { what: self.what.clone(), offset: self.total + at }.into());
        }
        self.total += chunk.len();
        let from = self.pending.len();
        self.pending.extend_from_slice(chunk);
        if self.scan.is_none() {
            // the delimiter is the first line's: wait for that line
            let Some(end) = self.pending.iter().position(|&b| b == b'\n') else {
                return Ok(());
            };
            self.begin_scan(end);
        } else {
            self.scan_from(from);
        }
        if self.complete >= self.parse_at {
            self.parse_complete()?;
        }
        crate::dataset::check_pending(
            &self.what,
            self.pending.len() - self.complete,
            self.offset + self.complete,
            self.scan.as_ref(),
            "is it a CSV file, one record a line?",
        )
        .map_err(Error::from)
    }

    /// The end of the input: parses what is left, and the table.
    fn finish(mut self) -> Result<RecordTable, Error> {
        let what = self.what.clone();
        if self.total == 0 {
            return Err(InputError::Empty { what }.into());
        }
        if self.scan.is_none() {
            self.begin_scan(self.pending.len());
        }
        // text first, as one whole read checks it: an input cut off inside a
        // UTF-8 sequence is named so, not parsed without its last character;
        // all that is pending, so the first invalid byte is the one named
        if let Err(e) = std::str::from_utf8(&self.pending[self.blank..]) {
            return Err(InputError::NotText { what, offset: self.offset + self.blank + e.valid_up_to() }.into());
        }
        if let Some(line) = self.scan.as_ref().and_then(QuoteScan::unclosed) {
            // the csv crate would read an open quote to the end as one field
            return Err(InputError::Csv {
                record: line.saturating_sub(1),
                reason: format!("{what}: the quoted field opened on line {line} is never closed"),
            }
            .into());
        }
        self.complete = self.pending.len();
        self.parse_complete()?;
        let Some(header) = self.header else {
            // nothing but blanks
            return Err(InputError::Empty { what }.into());
        };
        if self.rows.ids.is_empty() {
            return Err(InputError::Empty { what }.into());
        }
        let (mut fields, mut notes) = (Vec::new(), Vec::new());
        for (p, mut values) in header.plans.iter().zip(self.rows.values) {
            let kind = p.field.kind().unwrap_or(Kind::String);
            if kind == Kind::Date {
                let (read, note) = dates::settle(&p.date_field()?, values, &self.rows.ids, &what)?;
                values = read;
                notes.extend(note);
            }
            fields.push(FieldValues { name: p.field.name.clone(), kind, values });
        }
        if let Some(f) = fields.iter().find(|f| f.present() == 0) {
            return Err(InputError::EmptyField {
                what,
                field: f.name.clone(),
                columns: self.schema.field(&f.name).map(|x| x.columns().join(" + ")).unwrap_or_default(),
            }
            .into());
        }
        Ok(RecordTable { ids: self.rows.ids, fields, notes })
    }
}

impl Plan {
    /// This date field as [`dates::settle`] reads it.
    fn date_field(&self) -> Result<dates::DateField<'_>, Error> {
        let bad = |e: String| InputError::Format(format!("field {:?}: {e}", self.field.name));
        let format = self.field.format.as_deref().map(DateFormat::parse).transpose().map_err(bad)?;
        Ok(dates::DateField {
            name: &self.field.name,
            format,
            named: self.named,
            missing_if_invalid: self.field.invalid.as_deref() == Some("missing"),
        })
    }
}

impl Header {
    /// Reads one data row (`at`: its position in the whole text) into `rows`.
    fn row(&self, rows: &mut Rows, row: &csv::StringRecord, at: At, what: &str) -> Result<(), Error> {
        let row_no = rows.ids.len() + 1;
        if row.len() != self.width {
            // the csv crate's own message (rows are read flexible, see `parse`)
            return Err(InputError::Csv {
                record: row_no,
                reason: format!(
                    "{what}: CSV error: record {} (line: {}, byte: {}): found record with {} fields, but the previous record has {} fields",
                    at.record,
                    at.line,
                    at.byte,
                    row.len(),
                    self.width
                ),
            }
            .into());
        }
        let id = match self.id {
            Some(c) => row.get(c).unwrap_or("").trim().to_string(),
            None => row_no.to_string(),
        };
        if id.is_empty() {
            return Err(InputError::Csv { record: row_no, reason: format!("{what}: the id column is empty") }.into());
        }
        if let Some(first) = rows.seen.insert(id.clone(), row_no) {
            return Err(InputError::DuplicateId { id, first, second: row_no }.into());
        }
        for (p, out) in self.plans.iter().zip(rows.values.iter_mut()) {
            let joined = &mut rows.joined;
            joined.clear();
            for (k, c) in p.cols.iter().enumerate() {
                if k > 0 {
                    joined.push(' ');
                }
                joined.push_str(row.get(*c).unwrap_or("").trim());
            }
            if joined.len() > MAX_RECORD_BYTES {
                return Err(InputError::Format(format!(
                    "{what}, row {row_no}: field {:?} is {} bytes long (the limit is {MAX_RECORD_BYTES})",
                    p.field.name,
                    joined.len()
                ))
                .into());
            }
            // dates are read at the end, in the file's format (`dates::settle`)
            let v = if p.field.kind() == Some(Kind::Date) {
                let t = joined.trim();
                (!t.is_empty()).then(|| t.to_string())
            } else {
                normalize(&p.field, &p.alphabet, joined).unwrap_or(None)
            };
            out.push(v);
        }
        rows.ids.push(id);
        Ok(())
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
