//! Which format an input is in (one record a line, or CSV with a header),
//! detected from the caller's hint, the name's extension and the first line;
//! and the CSV header's columns.

use crate::error::InputError;
use serde::{Deserialize, Serialize};

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
#[cfg_attr(all(feature = "clap", not(target_arch = "wasm32")), derive(clap::ValueEnum))]
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
