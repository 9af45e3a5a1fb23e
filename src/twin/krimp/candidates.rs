//! Candidate item sets for KRIMP: every item set of at least two items with
//! support ≥ min_sup (all frequent item sets, as the KRIMP paper's candidates),
//! mined depth first with tid lists (Eclat), with their tid lists (KRIMP only
//! re-covers the rows that hold a candidate).

use super::db::CategoricalDb;
use crate::error::Error;

/// A frequent item set: sorted items, support, the rows that hold it.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub items: Vec<u32>,
    pub tids: Vec<u32>,
}

impl Candidate {
    pub fn support(&self) -> usize {
        self.tids.len()
    }
}

/// Every item set of ≥ 2 items with support ≥ `min_sup`, in KRIMP's standard
/// candidate order: support descending, size descending, then lexicographic.
/// More than `max` candidates is refused (raise min_sup).
pub fn frequent_item_sets(db: &CategoricalDb, min_sup: usize, max: usize) -> Result<Vec<Candidate>, Error> {
    let mut tids: Vec<Vec<u32>> = vec![Vec::new(); db.items.len()];
    for (r, row) in db.rows.iter().enumerate() {
        for &i in row {
            tids[i as usize].push(r as u32);
        }
    }
    let frequent: Vec<(u32, Vec<u32>)> =
        tids.into_iter().enumerate().filter(|(_, t)| t.len() >= min_sup).map(|(i, t)| (i as u32, t)).collect();
    let mut out = Vec::new();
    let mut prefix = Vec::new();
    extend(db, &frequent, &mut prefix, min_sup, max, &mut out)?;
    out.sort_by(|a, b| {
        b.support().cmp(&a.support()).then(b.items.len().cmp(&a.items.len())).then(a.items.cmp(&b.items))
    });
    Ok(out)
}

/// Eclat: extends `prefix` by each item of `class` and recurses on the
/// intersections with the items after it (items of one column never co-occur).
fn extend(
    db: &CategoricalDb,
    class: &[(u32, Vec<u32>)],
    prefix: &mut Vec<u32>,
    min_sup: usize,
    max: usize,
    out: &mut Vec<Candidate>,
) -> Result<(), Error> {
    for (a, (item, tids)) in class.iter().enumerate() {
        prefix.push(*item);
        if prefix.len() >= 2 {
            if out.len() >= max {
                return Err(Error::Parameter(format!(
                    "KRIMP: more than {max} candidate item sets at this min_sup; raise min_sup"
                )));
            }
            out.push(Candidate { items: prefix.clone(), tids: tids.clone() });
        }
        let col = db.column_of(*item);
        let next: Vec<(u32, Vec<u32>)> = class[a + 1..]
            .iter()
            .filter(|(j, _)| db.column_of(*j) != col)
            .map(|(j, t)| (*j, crate::sorting::intersect_sorted(tids, t)))
            .filter(|(_, t)| t.len() >= min_sup)
            .collect();
        if !next.is_empty() {
            extend(db, &next, prefix, min_sup, max, out)?;
        }
        prefix.pop();
    }
    Ok(())
}
