//! The KRIMP categorical data generator (Vreeken, van Leeuwen and Siebes,
//! "Preserving Privacy through Data Generation", ICDM 2007, Algorithm 1).
//!
//! Every code-table element's frequency is its usage plus the Laplace
//! correction (the table holds every item as a singleton, so with a correction
//! above 0 every value can be drawn and a row can always be completed). A row
//! starts empty; while a column has no value, a column `D` is picked uniformly
//! among those left, one element that defines a value for `D` and no value for a
//! column already set is drawn with probability proportional to its frequency,
//! and its items are added. The paper's line 16–17 filters from CT the sets that
//! would redefine a set column; that is the "no value for a column already set"
//! condition here.

use super::compress::CodeTable;
use super::db::CategoricalDb;
use crate::dp::Randomness;
use crate::twin::condense::unit;

/// Generates `rows` rows from `table` (made on `db`) with Laplace correction `laplace` (> 0).
pub fn generate(
    db: &CategoricalDb,
    table: &CodeTable,
    laplace: f64,
    rows: usize,
    rng: &mut Randomness,
) -> CategoricalDb {
    let columns = db.columns.len();
    // per column: the elements that define a value for it, with their column masks and frequencies
    let els: Vec<(&[u32], u64, f64)> = table
        .elements
        .iter()
        .map(|e| {
            let mask = e.items.iter().fold(0u64, |m, &i| m | 1u64 << db.column_of(i));
            (e.items.as_slice(), mask, e.usage as f64 + laplace)
        })
        .collect();
    let by_column: Vec<Vec<usize>> =
        (0..columns).map(|c| (0..els.len()).filter(|&e| els[e].1 & (1u64 << c) != 0).collect()).collect();
    let mut out = Vec::with_capacity(rows);
    let mut open: Vec<usize> = Vec::with_capacity(columns);
    for _ in 0..rows {
        let mut row = vec![u32::MAX; columns];
        let mut set = 0u64;
        open.clear();
        open.extend(0..columns);
        while !open.is_empty() {
            let d = open.swap_remove(rng.below(open.len()));
            if set & (1u64 << d) != 0 {
                continue;
            }
            let allowed = || by_column[d].iter().filter(|&&e| els[e].1 & set == 0);
            let total: f64 = allowed().map(|&e| els[e].2).sum();
            let mut u = unit(rng) * total;
            let mut chosen = None;
            for &e in allowed() {
                chosen = Some(e);
                if u < els[e].2 {
                    break;
                }
                u -= els[e].2;
            }
            // with laplace > 0 the singletons of `d` are always allowed
            let Some(e) = chosen else { continue };
            for &i in els[e].0 {
                row[db.column_of(i)] = i;
            }
            set |= els[e].1;
            open.retain(|&c| set & (1u64 << c) == 0);
        }
        out.push(row);
    }
    db.with_rows(out)
}
