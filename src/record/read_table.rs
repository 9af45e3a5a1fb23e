//! A party's whole record input read under a schema, through the chunked
//! [`TableReader`]: bytes held at once ([`read_table`]) or a file read a
//! megabyte at a time ([`read_table_file`]).

use super::schema::Schema;
use super::table_reader::TableReader;
use super::values::RecordTable;
#[cfg(not(target_arch = "wasm32"))]
use crate::dataset::read_path;
use crate::dataset::read_whole;
use crate::error::Error;

/// Reads a CSV file (with a header) under `schema`: the id column (if the
/// schema names one) and every sent field's columns. `what` names the input
/// in errors. Errors name the field, the column or the row. This is the
/// chunked [`TableReader`] fed one chunk, so a file streamed in chunks gives
/// the same table and the same errors.
pub fn read_table(bytes: &[u8], schema: &Schema, what: &str) -> Result<RecordTable, Error> {
    read_whole(TableReader::new(schema, what), bytes)
}

/// Reads a record CSV file natively ([`read_path`]) under `schema`.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_table_file(
    path: &std::path::Path,
    schema: &Schema,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<RecordTable, Error> {
    read_path(TableReader::new(schema, &path.display().to_string()), path, progress)
}
