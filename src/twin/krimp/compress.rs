//! KRIMP (Siebes, Vreeken and van Leeuwen, "Item Sets That Compress", SDM 2006):
//! the code table that compresses the database best by MDL, found greedily.
//!
//! - The code table starts as the standard code table ST: every item alone.
//! - A cover of a row takes, in the **standard cover order** (size descending,
//!   support descending, then lexicographic), each code-table element that lies
//!   in the row and overlaps nothing covered yet; singletons close every cover.
//! - An element's usage is how many covers use it; its code length is
//!   `−log₂(usage / Σ usage)`. `L(D | CT)` sums the codes of all covers;
//!   `L(CT | D)` sums, over elements in use, the element's items in ST codes
//!   (`−log₂(supp(i) / Σ_j supp(j))`) plus its own code. KRIMP minimizes
//!   `L(D, CT) = L(D | CT) + L(CT | D)`.
//! - Candidates (frequent item sets at min_sup) are tried one by one in the
//!   **standard candidate order** (support descending, size descending,
//!   lexicographic); a candidate stays iff it lowers `L(D, CT)`.
//! - **Pruning** after each accepted candidate: the elements whose usage went
//!   down are tried for removal, lowest usage first; one stays out iff
//!   `L(D, CT)` does not grow, and its removal adds the elements whose usage
//!   then went down.
//!
//! Adding an element only changes the covers of rows that hold it, and removing
//! one only those that use it, so only those rows are covered again.

use super::candidates::Candidate;
use super::db::CategoricalDb;
use serde::{Deserialize, Serialize};

/// A code-table element: items, support in the database, usage in the covers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CtElement {
    pub items: Vec<u32>,
    pub support: u32,
    pub usage: u32,
}

/// A KRIMP code table, elements in the standard cover order (singletons last).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodeTable {
    pub elements: Vec<CtElement>,
    /// Bits: the database with this table, the table, and the database with ST alone.
    pub data_bits: f64,
    pub table_bits: f64,
    pub standard_bits: f64,
    /// Candidates tried.
    pub candidates: usize,
}

impl CodeTable {
    /// `L(D, CT) / L(D, ST)`: the compression ratio (lower compresses better).
    pub fn ratio(&self) -> f64 {
        (self.data_bits + self.table_bits) / self.standard_bits
    }

    /// Elements of two or more items in use (the code table's size beyond ST).
    pub fn non_singletons(&self) -> usize {
        self.elements.iter().filter(|e| e.items.len() > 1 && e.usage > 0).count()
    }
}

struct El {
    items: Vec<u32>,
    mask: u64,
    support: u32,
    tids: Vec<u32>,
    st_bits: f64,
}

struct Krimp<'a> {
    db: &'a CategoricalDb,
    els: Vec<El>,
    order: Vec<usize>,
    covers: Vec<Vec<usize>>,
    usage: Vec<u32>,
    full: u64,
}

fn key(e: &El) -> (std::cmp::Reverse<usize>, std::cmp::Reverse<u32>, &[u32]) {
    (std::cmp::Reverse(e.items.len()), std::cmp::Reverse(e.support), &e.items)
}

/// The cover of `row` (one item per column) by `order`, skipping `skip`.
pub(super) fn cover<'a>(
    row: &[u32],
    order: impl Iterator<Item = usize>,
    item_of: impl Fn(usize) -> (&'a [u32], u64),
    full: u64,
) -> Vec<usize> {
    let mut covered = 0u64;
    let mut out = Vec::new();
    for e in order {
        let (items, mask) = item_of(e);
        if mask & covered != 0 {
            continue;
        }
        if items.iter().zip(mask_columns(mask)).all(|(&i, c)| row[c] == i) {
            out.push(e);
            covered |= mask;
            if covered == full {
                break;
            }
        }
    }
    out
}

/// The columns of a mask, ascending (items are numbered column by column, so a
/// sorted item set lists its columns in this order).
fn mask_columns(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let c = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            c
        })
    })
}

pub(super) fn full_mask(columns: usize) -> u64 {
    if columns >= 64 {
        u64::MAX
    } else {
        (1u64 << columns) - 1
    }
}

/// `L(D, CT)` from usages and the elements' ST bits.
fn total_bits(usage: impl Iterator<Item = (u32, f64)>) -> (f64, f64) {
    let (mut u_sum, mut s1, mut table) = (0f64, 0f64, 0f64);
    let mut used = Vec::new();
    for (u, st) in usage {
        if u > 0 {
            let u = u as f64;
            u_sum += u;
            s1 += u * u.log2();
            used.push((u, st));
        }
    }
    let log_u = if u_sum > 0.0 { u_sum.log2() } else { 0.0 };
    for (u, st) in used {
        table += st + log_u - u.log2();
    }
    (u_sum * log_u - s1, table)
}

impl<'a> Krimp<'a> {
    fn new(db: &'a CategoricalDb) -> Krimp<'a> {
        let supports = db.item_supports();
        let total: f64 = supports.iter().map(|&s| s as f64).sum();
        let st: Vec<f64> = supports.iter().map(|&s| if s == 0 { 0.0 } else { -(s as f64 / total).log2() }).collect();
        let mut tids: Vec<Vec<u32>> = vec![Vec::new(); db.items.len()];
        for (r, row) in db.rows.iter().enumerate() {
            for &i in row {
                tids[i as usize].push(r as u32);
            }
        }
        let els: Vec<El> = tids
            .into_iter()
            .enumerate()
            .map(|(i, t)| El {
                items: vec![i as u32],
                mask: 1u64 << db.column_of(i as u32),
                support: t.len() as u32,
                st_bits: st[i],
                tids: t,
            })
            .collect();
        let mut order: Vec<usize> = (0..els.len()).collect();
        order.sort_by(|&a, &b| key(&els[a]).cmp(&key(&els[b])));
        let covers: Vec<Vec<usize>> = db.rows.iter().map(|r| r.iter().map(|&i| i as usize).collect()).collect();
        let usage = els.iter().map(|e| e.support).collect();
        Krimp { db, els, order, covers, usage, full: full_mask(db.columns.len()) }
    }

    fn bits(&self, usage: &[u32]) -> f64 {
        let (d, t) = total_bits(usage.iter().zip(&self.els).map(|(&u, e)| (u, e.st_bits)));
        d + t
    }

    fn cover_row(&self, r: usize, skip: Option<usize>) -> Vec<usize> {
        let els = &self.els;
        cover(
            &self.db.rows[r],
            self.order.iter().copied().filter(|&e| Some(e) != skip),
            |e| (&els[e].items, els[e].mask),
            self.full,
        )
    }

    /// New covers of `rows` (skipping `skip`), and the usages they would give.
    fn trial(&self, rows: &[u32], skip: Option<usize>) -> (Vec<(usize, Vec<usize>)>, Vec<u32>) {
        let mut usage = self.usage.clone();
        let mut changed = Vec::new();
        for &r in rows {
            let r = r as usize;
            let new = self.cover_row(r, skip);
            if new != self.covers[r] {
                for &e in &self.covers[r] {
                    usage[e] -= 1;
                }
                for &e in &new {
                    usage[e] += 1;
                }
                changed.push((r, new));
            }
        }
        (changed, usage)
    }

    fn run(&mut self, candidates: Vec<Candidate>) -> f64 {
        let mut best = self.bits(&self.usage);
        for c in candidates {
            let id = self.els.len();
            let mask = c.items.iter().fold(0u64, |m, &i| m | 1u64 << self.db.column_of(i));
            let st_bits = c.items.iter().map(|&i| self.els[i as usize].st_bits).sum();
            self.els.push(El { items: c.items, mask, support: c.tids.len() as u32, tids: c.tids, st_bits });
            self.usage.push(0);
            let els = &self.els;
            let pos = self.order.partition_point(|&e| key(&els[e]) < key(&els[id]));
            self.order.insert(pos, id);
            let tids = std::mem::take(&mut self.els[id].tids);
            let (changed, usage) = self.trial(&tids, None);
            self.els[id].tids = tids;
            let bits = self.bits(&usage);
            if bits < best {
                let before = std::mem::replace(&mut self.usage, usage);
                for (r, cov) in changed {
                    self.covers[r] = cov;
                }
                best = bits;
                let decreased = (0..before.len()).filter(|&e| e != id && self.usage[e] < before[e]).collect();
                best = self.prune(decreased, best);
            } else {
                self.order.remove(pos);
                self.els.pop();
                self.usage.pop();
            }
        }
        best
    }

    fn prune(&mut self, mut set: Vec<usize>, mut best: f64) -> f64 {
        set.retain(|&e| self.els[e].items.len() > 1);
        while let Some(at) = (0..set.len()).min_by_key(|&i| (self.usage[set[i]], set[i])) {
            let x = set.swap_remove(at);
            let rows: Vec<u32> =
                self.els[x].tids.iter().copied().filter(|&r| self.covers[r as usize].contains(&x)).collect();
            let (changed, usage) = self.trial(&rows, Some(x));
            let bits = self.bits(&usage);
            if bits <= best {
                let before = std::mem::replace(&mut self.usage, usage);
                for (r, cov) in changed {
                    self.covers[r] = cov;
                }
                self.order.retain(|&e| e != x);
                best = bits;
                for (e, &was) in before.iter().enumerate() {
                    if self.usage[e] < was && self.els[e].items.len() > 1 && !set.contains(&e) && e != x {
                        set.push(e);
                    }
                }
            }
        }
        best
    }
}

/// Runs KRIMP on `db` with `candidates` (in the standard candidate order).
pub fn krimp(db: &CategoricalDb, candidates: Vec<Candidate>) -> CodeTable {
    let mut k = Krimp::new(db);
    let standard = k.bits(&k.usage);
    let tried = candidates.len();
    k.run(candidates);
    let (data_bits, table_bits) = total_bits(k.usage.iter().zip(&k.els).map(|(&u, e)| (u, e.st_bits)));
    let elements = k
        .order
        .iter()
        .map(|&e| CtElement { items: k.els[e].items.clone(), support: k.els[e].support, usage: k.usage[e] })
        .collect();
    CodeTable { elements, data_bits, table_bits, standard_bits: standard, candidates: tried }
}
