//! One batch row for each distinct record: identical records must not show as
//! identical rows.
//!
//! **Why.** Any deterministic encoding (the keyed sketch included) gives
//! identical records identical rows, and the sizes of the groups of identical
//! rows are the data's frequencies. With a public list of the values and their
//! frequencies, C names the largest groups (the frequency attack) and uses
//! them as the seeds of the graph-matching attack, which then names most of
//! the batch (docs/THREAT_MODEL.md has the figures with and without).
//!
//! **What.** A batch that leaves its owner under pseudonyms carries each
//! distinct record once, under one pseudonym; the owner's id map lists that
//! pseudonym for every record of the group, so the matcher's pairs map back
//! to all of them ([`super::unmap_pairs`]: a pair of groups gives every pair
//! of their records, which no encoding could have told apart). A batch with
//! kept ids keeps one row a record (the ids must reach the matcher).
//!
//! Records are grouped by what the matcher would see of them (a key per
//! record, e.g. its embedded row or its fields' values), so two records that
//! would give identical rows are one group whatever their spelling.

use std::collections::HashMap;
use std::hash::Hash;

/// The groups of a party's records: record `r` belongs to group
/// `group[r]`; group `g`'s first record is `first[g]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Distinct {
    group: Vec<u32>,
    first: Vec<usize>,
}

impl Distinct {
    /// Every record its own group (kept ids, runs on one machine).
    pub fn each(n: usize) -> Distinct {
        Distinct { group: (0..n as u32).collect(), first: (0..n).collect() }
    }

    /// Records with equal keys in one group, groups in order of their first
    /// record.
    pub fn of<K: Hash + Eq>(keys: impl IntoIterator<Item = K>) -> Distinct {
        let mut seen: HashMap<K, u32> = HashMap::new();
        let (mut group, mut first) = (Vec::new(), Vec::new());
        for (r, k) in keys.into_iter().enumerate() {
            let g = *seen.entry(k).or_insert_with(|| {
                first.push(r);
                (first.len() - 1) as u32
            });
            group.push(g);
        }
        Distinct { group, first }
    }

    /// Number of groups (the batch's rows).
    pub fn len(&self) -> usize {
        self.first.len()
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }

    /// Number of records.
    pub fn records(&self) -> usize {
        self.group.len()
    }

    /// The group of record `r`.
    pub fn group(&self, r: usize) -> usize {
        self.group[r] as usize
    }

    /// The first record of group `g` (the one whose encoding the row carries).
    pub fn first(&self, g: usize) -> usize {
        self.first[g]
    }

    /// The first records of every group, in group order.
    pub fn firsts(&self) -> &[usize] {
        &self.first
    }

    /// One value per group: the largest of its records' `values` (a
    /// threshold sound for each record is sound for the group).
    pub fn max_per_group(&self, values: &[f64]) -> Vec<f64> {
        let mut out = vec![f64::NEG_INFINITY; self.len()];
        for (r, &v) in values.iter().enumerate() {
            let g = self.group(r);
            out[g] = out[g].max(v);
        }
        out
    }

    /// How many records each group holds.
    pub fn sizes(&self) -> Vec<u32> {
        let mut out = vec![0u32; self.len()];
        for &g in &self.group {
            out[g as usize] += 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_share_a_group_in_order_of_their_first_record() {
        let d = Distinct::of(["SMITH", "JONES", "SMITH", "BROWN", "JONES", "SMITH"]);
        assert_eq!((d.len(), d.records()), (3, 6));
        assert_eq!(d.firsts(), &[0, 1, 3]);
        assert_eq!((0..6).map(|r| d.group(r)).collect::<Vec<_>>(), vec![0, 1, 0, 2, 1, 0]);
        assert_eq!(d.sizes(), vec![3, 2, 1]);
        assert_eq!(d.max_per_group(&[1.0, 2.0, 3.0, 0.5, 1.5, 2.5]), vec![3.0, 2.0, 0.5]);
        assert_eq!(Distinct::each(3), Distinct::of([1, 2, 3]));
        assert!(Distinct::of(Vec::<u8>::new()).is_empty());
    }
}
