//! A categorical database as item sets: each (column, value) pair is an item,
//! each row the set of its columns' items (one per column). An empty value is
//! the column's own "missing" value, so every row has exactly one item per
//! column and the generator reproduces missingness with the rest.

use crate::error::{Error, InputError, TwinError};
use std::collections::BTreeMap;

/// The most columns (a row's columns are a 64-bit mask in the cover and the generator).
pub const MAX_COLUMNS: usize = 64;

/// Rows of categorical values as transactions over items.
#[derive(Debug, Clone, PartialEq)]
pub struct CategoricalDb {
    pub columns: Vec<String>,
    /// Item id → (column, value); items are numbered column by column, values in order.
    pub items: Vec<(u16, String)>,
    /// Per row, its item of each column (`rows[r][c]` belongs to column `c`).
    pub rows: Vec<Vec<u32>>,
}

impl CategoricalDb {
    /// A database from `columns` (names) and `rows` (one value per column).
    /// Errors: no rows or no columns (`EMPTY_INPUT`), a row of another width
    /// (`INVALID_FORMAT`), a column empty in every row (`EMPTY_COLUMN`), a
    /// column with one value (`CONSTANT_COLUMN`).
    pub fn new(columns: &[String], rows: &[Vec<String>], what: &str) -> Result<CategoricalDb, Error> {
        if rows.is_empty() || columns.is_empty() {
            return Err(InputError::Empty { what: what.to_string() }.into());
        }
        if columns.len() > MAX_COLUMNS {
            return Err(Error::Parameter(format!("{what}: at most {MAX_COLUMNS} categorical columns")));
        }
        let mut values: Vec<BTreeMap<&str, u32>> = vec![BTreeMap::new(); columns.len()];
        for (r, row) in rows.iter().enumerate() {
            if row.len() != columns.len() {
                return Err(InputError::Format(format!(
                    "{what}: row {} has {} values, the columns are {}",
                    r + 1,
                    row.len(),
                    columns.len()
                ))
                .into());
            }
            for (c, v) in row.iter().enumerate() {
                values[c].insert(v.as_str(), 0);
            }
        }
        let mut items = Vec::new();
        for (c, vals) in values.iter_mut().enumerate() {
            if vals.keys().all(|v| v.is_empty()) {
                return Err(TwinError::EmptyColumn { column: columns[c].clone() }.into());
            }
            if vals.len() == 1 {
                let value = vals.keys().next().map(|v| v.to_string()).unwrap_or_default();
                return Err(TwinError::ConstantColumn { column: columns[c].clone(), value }.into());
            }
            for (v, id) in vals.iter_mut() {
                *id = items.len() as u32;
                items.push((c as u16, v.to_string()));
            }
        }
        let rows =
            rows.iter().map(|row| row.iter().enumerate().map(|(c, v)| values[c][v.as_str()]).collect()).collect();
        Ok(CategoricalDb { columns: columns.to_vec(), items, rows })
    }

    /// A database over the same columns and items (a generated one).
    pub fn with_rows(&self, rows: Vec<Vec<u32>>) -> CategoricalDb {
        CategoricalDb { columns: self.columns.clone(), items: self.items.clone(), rows }
    }

    /// The column of item `i`.
    pub fn column_of(&self, i: u32) -> usize {
        self.items[i as usize].0 as usize
    }

    /// The rows as values.
    pub fn values(&self) -> Vec<Vec<String>> {
        self.rows.iter().map(|r| r.iter().map(|&i| self.items[i as usize].1.clone()).collect()).collect()
    }

    /// Each item's support (rows holding it).
    pub fn item_supports(&self) -> Vec<u32> {
        let mut s = vec![0u32; self.items.len()];
        for r in &self.rows {
            for &i in r {
                s[i as usize] += 1;
            }
        }
        s
    }
}
