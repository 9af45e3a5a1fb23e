//! Reading a party's records from a stream of chunks (a file read a megabyte at
//! a time natively, a `File`'s stream in the web app's Worker), never holding
//! the whole input as one string. [`super::read_records`] is this
//! reader fed one chunk, so both paths give the same records and errors.
//!
//! **How.** Every byte that matters to record boundaries (`"`, the delimiter,
//! `\n`) is ASCII, and ASCII bytes never occur inside a UTF-8 sequence, so a
//! byte-level scan finds where complete records end: after a `\n` outside a
//! quoted field ([`QuoteScan`]). The bytes up to the last such end are decoded
//! and parsed (text lines, or CSV rows by the `csv` crate with the header's
//! columns); the rest waits for the next chunk. A chunk that ends inside a
//! UTF-8 sequence or a quoted field is thus never parsed early.

use super::chunk_reader::ChunkReader;
use super::format::{delimiter, detect_format, unique_column, FormatHint, InputFormat, HEAD_BYTES};
use crate::error::InputError;

/// The longest record accepted, in bytes of the raw text (a name or an address is
/// far shorter; a longer "record" is a sign of a wrong file or column).
pub const MAX_RECORD_BYTES: usize = 4096;

/// A record as read, before normalization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRecord {
    pub id: String,
    pub text: String,
}

/// Bytes gathered before complete records are parsed (a parse per chunk of the
/// caller would be as right, but a browser's stream hands out 64 KB chunks).
const PARSE_AT: usize = 1 << 20;

/// Most bytes held without a record ending: no CSV row of person records is
/// near this long, so more is an unclosed quote or a file that is no list of
/// records, and is refused before it fills memory.
pub const MAX_PENDING: usize = 64 << 20;

/// Refuses `pending` bytes without a record end past [`MAX_PENDING`] (the
/// error names the input, where the last record ended, and an open quote if
/// the scan has one, else `hint`); every chunked reader checks this.
pub(crate) fn check_pending(
    what: &str,
    pending: usize,
    at: usize,
    scan: Option<&QuoteScan>,
    hint: &str,
) -> Result<(), InputError> {
    if pending <= MAX_PENDING {
        return Ok(());
    }
    Err(InputError::Format(format!(
        "{what}: no record ends within {} MB after byte {at}{}",
        MAX_PENDING >> 20,
        match scan.and_then(QuoteScan::unclosed) {
            Some(line) => format!(" (the quoted field opened on line {line} is still open)"),
            None => format!(" ({hint})"),
        }
    )))
}

/// Where a field's quotes stand, byte by byte (the CSV convention: a quote
/// opens a field only at its start, `""` inside is a quote).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    FieldStart,
    Unquoted,
    Quoted,
    MaybeClosed,
}

/// A byte-level scan for record ends and unclosed quotes.
#[derive(Debug, Clone)]
pub(crate) struct QuoteScan {
    delimiter: u8,
    state: Quote,
    line: usize,
    opened: usize,
}

impl QuoteScan {
    pub(crate) fn new(delimiter: u8) -> QuoteScan {
        QuoteScan { delimiter, state: Quote::FieldStart, line: 1, opened: 0 }
    }

    /// Takes one byte; true when a record ends after it.
    pub(crate) fn step(&mut self, b: u8) -> bool {
        self.state = match (self.state, b) {
            (Quote::FieldStart, b'"') => {
                self.opened = self.line;
                Quote::Quoted
            }
            (Quote::Quoted, b'"') => Quote::MaybeClosed,
            (Quote::Quoted, _) => Quote::Quoted,
            (Quote::MaybeClosed, b'"') => Quote::Quoted,
            (_, b'\n') => Quote::FieldStart,
            (_, d) if d == self.delimiter => Quote::FieldStart,
            _ => Quote::Unquoted,
        };
        if b == b'\n' {
            self.line += 1;
        }
        b == b'\n' && self.state == Quote::FieldStart
    }

    /// Scans `bytes` (which follow everything scanned so far); the end, in
    /// `bytes`, of the last record that ends in them, if any.
    pub(crate) fn scan(&mut self, bytes: &[u8]) -> Option<usize> {
        let mut end = None;
        for (i, &b) in bytes.iter().enumerate() {
            if self.step(b) {
                end = Some(i + 1);
            }
        }
        end
    }

    /// The line of a quoted field still open, if any.
    pub(crate) fn unclosed(&self) -> Option<usize> {
        (self.state == Quote::Quoted).then_some(self.opened)
    }
}

/// The CSV header's columns, once read.
#[derive(Debug, Clone)]
struct Columns {
    delimiter: u8,
    width: usize,
    record: usize,
    id: Option<usize>,
}

/// Records from chunks of an input: [`ChunkedReader::push`] each chunk in
/// order, then [`ChunkedReader::finish`]. An error leaves nothing behind: the
/// reader is dropped and no record is returned.
#[derive(Debug)]
pub struct ChunkedReader {
    what: String,
    format: InputFormat,
    /// Bytes not parsed yet; they start at a record boundary.
    pending: Vec<u8>,
    /// Offset in the input of `pending[0]`.
    offset: usize,
    /// End (in `pending`) of the last complete record found by the scan.
    complete: usize,
    scan: Option<QuoteScan>,
    columns: Option<Columns>,
    /// CSV data rows (or text lines) read so far.
    rows: usize,
    total: usize,
    records: Vec<RawRecord>,
    parse_at: usize,
}

impl ChunkedReader {
    /// A reader of `format`; `what` names the input in errors.
    pub fn new(format: &InputFormat, what: &str) -> ChunkedReader {
        ChunkedReader {
            what: what.to_string(),
            format: format.clone(),
            pending: Vec::new(),
            offset: 0,
            complete: 0,
            scan: None,
            columns: None,
            rows: 0,
            total: 0,
            records: Vec::new(),
            parse_at: PARSE_AT,
        }
    }

    /// Parses complete records whenever `n` bytes of them are pending (tests
    /// use tiny values to cross every chunk boundary).
    pub fn parse_every(mut self, n: usize) -> ChunkedReader {
        self.parse_at = n.max(1);
        self
    }

    /// Bytes taken so far.
    pub fn bytes_read(&self) -> usize {
        self.total
    }

    /// Records read so far.
    pub fn records_read(&self) -> usize {
        self.records.len()
    }

    /// Starts the quote scan with the delimiter of the header line
    /// `pending[..line_end]`, and scans everything pending.
    fn begin_scan(&mut self, line_end: usize) {
        let line = String::from_utf8_lossy(&self.pending[..line_end]);
        self.scan = Some(QuoteScan::new(delimiter(line.trim_start_matches('\u{FEFF}'))));
        self.scan_from(0);
    }

    fn parse_if_due(&mut self) -> Result<(), InputError> {
        if self.complete >= self.parse_at {
            self.parse_complete()?;
        }
        check_pending(
            &self.what,
            self.pending.len() - self.complete,
            self.offset + self.complete,
            self.scan.as_ref(),
            "is it a list of records, one a line?",
        )
    }

    fn scan_from(&mut self, from: usize) {
        if let Some(end) = self.scan.as_mut().and_then(|scan| scan.scan(&self.pending[from..])) {
            self.complete = from + end;
        }
    }

    /// Parses `pending[..complete]` and keeps the rest.
    fn parse_complete(&mut self) -> Result<(), InputError> {
        let end = self.complete;
        let mut pending = std::mem::take(&mut self.pending);
        let parsed = self.parse(&pending[..end]);
        pending.drain(..end);
        self.pending = pending;
        self.offset += end;
        self.complete = 0;
        parsed
    }

    fn parse(&mut self, bytes: &[u8]) -> Result<(), InputError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| InputError::NotText { what: self.what.clone(), offset: self.offset + e.valid_up_to() })?;
        let text = if self.offset == 0 { text.strip_prefix('\u{FEFF}').unwrap_or(text) } else { text };
        let before = self.records.len();
        match self.format.clone() {
            InputFormat::Text => {
                for line in text.lines() {
                    self.rows += 1;
                    self.records.push(RawRecord { id: self.rows.to_string(), text: line.to_string() });
                }
            }
            InputFormat::Csv { column, id_column } => self.parse_csv(text, &column, id_column.as_deref())?,
        }
        for (k, r) in self.records[before..].iter().enumerate() {
            if r.text.len() > MAX_RECORD_BYTES {
                return Err(InputError::RecordTooLong {
                    index: before + k + 1,
                    len: r.text.len(),
                    limit: MAX_RECORD_BYTES,
                });
            }
        }
        Ok(())
    }

    fn parse_csv(&mut self, text: &str, column: &str, id_column: Option<&str>) -> Result<(), InputError> {
        if text.is_empty() {
            return Ok(());
        }
        let first = self.columns.is_none();
        let delimiter = match &self.columns {
            Some(c) => c.delimiter,
            None => delimiter(text.lines().next().unwrap_or("")),
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(first)
            .flexible(true)
            .delimiter(delimiter)
            .from_reader(text.as_bytes());
        if first {
            let headers = reader.headers().map_err(|e| InputError::Csv { record: 0, reason: e.to_string() })?.clone();
            let names: Vec<&str> = headers.iter().map(|h| h.trim()).collect();
            let find = |name: &str| {
                unique_column(&names, name)?.ok_or_else(|| InputError::MissingColumn {
                    column: name.to_string(),
                    available: names.iter().map(|h| format!("{h:?}")).collect::<Vec<_>>().join(", "),
                })
            };
            if id_column == Some(column) {
                // the ids would carry the linked values themselves out of the owner's hands
                return Err(InputError::IdIsLinkedColumn { column: column.to_string() });
            }
            let record = find(column)?;
            let id = id_column.map(find).transpose()?;
            self.columns = Some(Columns { delimiter, width: names.len(), record, id });
        }
        let Some(cols) = self.columns.clone() else {
            return Ok(());
        };
        for row in reader.records() {
            let n = self.rows + 1;
            let row = row.map_err(|e| InputError::Csv { record: n, reason: e.to_string() })?;
            if row.len() != cols.width {
                return Err(InputError::Csv {
                    record: n,
                    reason: format!("found record with {} fields, but the header has {}", row.len(), cols.width),
                });
            }
            let text = row.get(cols.record).unwrap_or("").to_string();
            let id = match cols.id {
                Some(c) => row.get(c).unwrap_or("").trim().to_string(),
                None => n.to_string(),
            };
            if id.is_empty() {
                return Err(InputError::Csv { record: n, reason: "the id column is empty".into() });
            }
            self.rows = n;
            self.records.push(RawRecord { id, text });
        }
        Ok(())
    }
}

impl ChunkReader for ChunkedReader {
    type Output = Vec<RawRecord>;
    type Error = InputError;

    /// Takes the next chunk of the input.
    fn push(&mut self, chunk: &[u8]) -> Result<(), InputError> {
        if let Some(at) = chunk.iter().position(|&b| b == 0) {
            return Err(InputError::Binary { what: self.what.clone(), offset: self.total + at });
        }
        self.total += chunk.len();
        let from = self.pending.len();
        self.pending.extend_from_slice(chunk);
        if matches!(self.format, InputFormat::Text) {
            if let Some(p) = chunk.iter().rposition(|&b| b == b'\n') {
                self.complete = from + p + 1;
            }
        } else {
            if self.scan.is_none() {
                // the delimiter is the header line's: wait for that line
                let Some(end) = self.pending.iter().position(|&b| b == b'\n') else {
                    return Ok(());
                };
                self.begin_scan(end);
                return self.parse_if_due();
            }
            self.scan_from(from);
        }
        self.parse_if_due()
    }

    /// The end of the input: parses what is left.
    fn finish(mut self) -> Result<Vec<RawRecord>, InputError> {
        if self.total == 0 {
            return Err(InputError::Empty { what: self.what });
        }
        if !matches!(self.format, InputFormat::Text) {
            if self.scan.is_none() {
                self.begin_scan(self.pending.len());
            }
            if let Some(line) = self.scan.as_ref().and_then(QuoteScan::unclosed) {
                return Err(InputError::Csv {
                    record: line.saturating_sub(1),
                    reason: format!("the quoted field opened on line {line} is never closed (unbalanced '\"')"),
                });
            }
        }
        self.complete = self.pending.len();
        self.parse_complete()?;
        if self.records.is_empty() {
            return Err(InputError::Empty { what: self.what });
        }
        Ok(self.records)
    }
}

/// A [`ChunkedReader`] whose format is detected from the input's first line
/// ([`detect_format`]: the caller's hint, the name's extension, a header-like
/// first line), for a stream whose head is not known in advance (a `File` in
/// the web app's Worker).
#[derive(Debug)]
pub struct DetectingReader {
    what: String,
    hint: FormatHint,
    column: Option<String>,
    id_column: Option<String>,
    head: Vec<u8>,
    reader: Option<ChunkedReader>,
}

impl DetectingReader {
    /// `what` names the input (a file name: its extension counts).
    pub fn new(what: &str, hint: FormatHint, column: Option<&str>, id_column: Option<&str>) -> DetectingReader {
        DetectingReader {
            what: what.to_string(),
            hint,
            column: column.map(str::to_string),
            id_column: id_column.map(str::to_string),
            head: Vec::new(),
            reader: None,
        }
    }

    /// The reader of the detected format, fed the head gathered so far.
    fn begin(&mut self) -> Result<ChunkedReader, InputError> {
        let format =
            detect_format(&self.what, &self.head, self.hint, self.column.as_deref(), self.id_column.as_deref())?;
        let mut r = ChunkedReader::new(&format, &self.what);
        r.push(&std::mem::take(&mut self.head))?;
        Ok(r)
    }

    /// The format settled on, once it is.
    pub fn format(&self) -> Option<&InputFormat> {
        self.reader.as_ref().map(|r| &r.format)
    }

    /// Bytes taken so far.
    pub fn bytes_read(&self) -> usize {
        self.reader.as_ref().map_or(self.head.len(), ChunkedReader::bytes_read)
    }

    /// Records read so far.
    pub fn records_read(&self) -> usize {
        self.reader.as_ref().map_or(0, ChunkedReader::records_read)
    }
}

impl ChunkReader for DetectingReader {
    type Output = Vec<RawRecord>;
    type Error = InputError;

    /// Takes the next chunk; the format is settled once the first line is in.
    fn push(&mut self, chunk: &[u8]) -> Result<(), InputError> {
        if let Some(r) = self.reader.as_mut() {
            return r.push(chunk);
        }
        self.head.extend_from_slice(chunk);
        if self.head.contains(&b'\n') || self.head.len() >= HEAD_BYTES {
            self.reader = Some(self.begin()?);
        }
        Ok(())
    }

    /// The end of the input.
    fn finish(mut self) -> Result<Vec<RawRecord>, InputError> {
        match self.reader.take() {
            Some(r) => r,
            None => self.begin()?,
        }
        .finish()
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
