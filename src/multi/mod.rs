//! Linkage of more than two parties: every party's one-string batch, each
//! pair of parties linked by the matcher's candidate machinery (the q-gram
//! filter and the indexes: the work grows with the pairs of parties, never
//! with all pairs of records), then clusters with at most one record per
//! party ([`greedy`]). The CLI's `match a.vec b.vec c.vec …` and the JS
//! API's `linkParties` call [`link`] and write its rows by [`export`].
//!
//! Every party sends thresholds ([`crate::party::EmbedOptions::new`]): a pair
//! of parties is linked both ways, each side's candidates within its own
//! records' thresholds, so each party bounds its own records' errors. Both
//! ways come from one pass where the q-gram filter runs
//! ([`edges::both_ways`]: the filter is symmetric, so one index over one
//! party, probed by the other's rows, gives both).
//!
//! **Privacy.** As [`crate::matcher`]: the matcher sees vectors, thresholds,
//! the base's shape and the parties' ids (pseudonyms), never a record or the
//! key; it learns which records of different parties cluster together.

pub mod edges;
pub mod export;
pub mod greedy;
pub mod records;
pub mod score;

use crate::error::{Error, ProtocolError};
use crate::protocol::{Party, VectorBatch};
use edges::{both_ways, pair_edges, Way};
use std::collections::HashMap;

/// anonlink's default share of candidate pairs two clusters need to merge
/// ([`greedy::solve`]).
pub const MERGE_THRESHOLD: f64 = 0.5;

/// The parties' batches, checked against each other: named by `what[i]`
/// (a file name) in errors.
pub struct Parties<'a> {
    batches: &'a [VectorBatch],
    /// Where each party's records start in the global numbering.
    offsets: Vec<u32>,
}

/// A record of a linkage: which batch, which row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    pub batch: usize,
    pub row: u32,
}

/// What a multi-party linkage made.
#[derive(Debug, Clone, PartialEq)]
pub struct Clusters {
    /// The cluster of every record, batch after batch, row after row.
    pub cluster: Vec<u32>,
    /// Pairs the matcher verified (over every pair of parties; once for both
    /// ways of a pair where one pass gives them, [`edges::both_ways`]).
    pub compared: u64,
    /// Candidate pairs the solver read.
    pub candidates: u64,
    /// How many clusters there are.
    pub count: u32,
    /// What the pairs' fits said, each named by its pair of parties (record
    /// batches: [`records::link`]; the fit's repairs and a field that never
    /// agrees, as the two-party linker says them).
    pub warnings: Vec<String>,
}

impl<'a> Parties<'a> {
    /// Checks the batches of one linkage: at least two; one party each; no
    /// batch twice; every one with records and thresholds; one base, one key
    /// and one dimension ([`crate::matcher::check_pair`] on each pair); no id
    /// in two parties. `what[i]` names batch `i` in errors.
    pub fn new(batches: &'a [VectorBatch], what: &[String]) -> Result<Parties<'a>, Error> {
        let parties: Vec<(Party, &[String])> = batches.iter().map(|b| (b.party, b.ids.as_slice())).collect();
        // the same records, under one party name or two: the same ids and vectors
        let same = |i: usize, j: usize| batches[i].ids == batches[j].ids && batches[i].vectors == batches[j].vectors;
        let heads: Vec<&VectorBatch> = batches.iter().collect();
        let offsets = check_batches(&heads, &parties, same, what)?;
        Ok(Parties { batches, offsets })
    }

    pub fn batches(&self) -> &[VectorBatch] {
        self.batches
    }

    /// Every record's party index (A is 0), batch after batch.
    pub fn parties(&self) -> Vec<u8> {
        self.batches.iter().flat_map(|b| std::iter::repeat(b.party.index() as u8).take(b.ids.len())).collect()
    }

    /// The record of global index `r`.
    pub fn member(&self, r: u32) -> Member {
        let batch = self.offsets.partition_point(|&o| o <= r) - 1;
        Member { batch, row: r - self.offsets[batch] }
    }
}

/// [`Parties::new`]'s checks, on the batches' headers (`heads[i]`: batch
/// `i`, its rows not needed) and their parties and ids (`parties`, `same` as
/// [`check_parties`] takes them): [`check_parties`]; every batch with
/// thresholds; every pair linkable ([`crate::matcher::check_pair`]). The
/// Spark job checks its files with it before any work. Returns where each
/// party's records start in the global numbering.
pub fn check_batches(
    heads: &[&VectorBatch],
    parties: &[(Party, &[String])],
    same: impl Fn(usize, usize) -> bool,
    what: &[String],
) -> Result<Vec<u32>, Error> {
    let name = |i: usize| what.get(i).cloned().unwrap_or_else(|| format!("batch {}", i + 1));
    let offsets = check_parties(parties, same, what)?;
    for (i, b) in heads.iter().enumerate() {
        if b.thresholds.is_none() {
            return Err(Error::Parameter(format!(
                "party {}'s batch ({}) has no thresholds: in a linkage of more than two parties every party \
                 sends them (embed --send-thresholds for party b)",
                b.party,
                name(i)
            )));
        }
    }
    for i in 0..heads.len() {
        for j in i + 1..heads.len() {
            crate::matcher::check_pair(heads[i], heads[j])?;
        }
    }
    Ok(offsets)
}

/// The checks of every linkage of parties, each given by its party and its
/// ids (`same(i, j)`: whether batches `i` and `j` hold the same records): at least two;
/// one batch per party; no batch twice; none without records; no id in two
/// parties. `what[i]` names batch `i` in errors. Returns where each party's
/// records start in the global numbering.
pub fn check_parties(
    parties: &[(Party, &[String])],
    same: impl Fn(usize, usize) -> bool,
    what: &[String],
) -> Result<Vec<u32>, Error> {
    let name = |i: usize| what.get(i).cloned().unwrap_or_else(|| format!("batch {}", i + 1));
    if parties.len() < 2 {
        return Err(Error::Parameter(format!("{} batch given: a linkage needs two parties at least", parties.len())));
    }
    let mut by_party: HashMap<Party, usize> = HashMap::new();
    for (i, &(party, ids)) in parties.iter().enumerate() {
        if let Some(first) = by_party.insert(party, i) {
            if same(first, i) {
                return Err(ProtocolError::BatchTwice { first: name(first), second: name(i) }.into());
            }
            return Err(
                ProtocolError::PartyTwice { party: party.name().into(), first: name(first), second: name(i) }.into()
            );
        }
        if ids.is_empty() {
            return Err(ProtocolError::NoRecords { what: format!("party {party}'s batch ({})", name(i)) }.into());
        }
    }
    for i in 0..parties.len() {
        for j in i + 1..parties.len() {
            if same(i, j) {
                return Err(ProtocolError::BatchTwice { first: name(i), second: name(j) }.into());
            }
        }
    }
    let mut owner: HashMap<&str, usize> = HashMap::new();
    for (i, &(party, ids)) in parties.iter().enumerate() {
        for id in ids {
            if let Some(first) = owner.insert(id.as_str(), i) {
                return Err(ProtocolError::IdClash {
                    id: id.clone(),
                    first: format!("party {}'s batch ({})", parties[first].0, name(first)),
                    second: format!("party {party}'s batch ({})", name(i)),
                }
                .into());
            }
        }
    }
    let mut offsets = Vec::with_capacity(parties.len());
    let mut total = 0u64;
    for (_, ids) in parties {
        offsets.push(total as u32);
        total += ids.len() as u64;
    }
    if total > u32::MAX as u64 {
        return Err(Error::Parameter(format!("{total} records in all: a linkage takes at most {}", u32::MAX)));
    }
    Ok(offsets)
}

/// Links every pair of parties and clusters the records ([`greedy::solve`]
/// with `merge_threshold`, [`MERGE_THRESHOLD`] by default).
pub fn link(parties: &Parties<'_>, merge_threshold: f64) -> Result<Clusters, Error> {
    check_merge_threshold(merge_threshold)?;
    let (batches, n) = (parties.batches, parties.batches.len());
    let mut edges = Vec::new();
    let mut compared = 0;
    let way = |i: usize, candidates| Way {
        head: &batches[i],
        rows: batches[i].ids.len(),
        offset: parties.offsets[i],
        candidates,
    };
    for i in 0..n {
        for j in i + 1..n {
            // both ways on the whole batches (one shard of every row)
            let (ij, ji, c) = both_ways(&batches[i], &batches[j], 0)?;
            compared += c;
            edges.extend(pair_edges(way(i, ij), way(j, ji)));
        }
    }
    Ok(cluster(&parties.parties(), edges, compared, merge_threshold))
}

/// Refuses a merge threshold outside (0, 1] ([`greedy::solve`]'s share).
pub fn check_merge_threshold(merge_threshold: f64) -> Result<(), Error> {
    if !(merge_threshold > 0.0 && merge_threshold <= 1.0) {
        return Err(Error::Parameter(format!("the merge threshold is {merge_threshold}: it must be in (0, 1]")));
    }
    Ok(())
}

/// Clusters the records (`party[r]`: record `r`'s party index) from every
/// pair's edges ([`pair_edges`]) by [`greedy::solve`]; `compared`, the pairs
/// compared, is reported as given.
pub fn cluster(party: &[u8], mut edges: Vec<greedy::Edge>, compared: u64, merge_threshold: f64) -> Clusters {
    let candidates = edges.len() as u64;
    let cluster = greedy::solve(party, &mut edges, merge_threshold);
    let count = cluster.iter().max().map_or(0, |m| m + 1);
    Clusters { cluster, compared, candidates, count, warnings: Vec::new() }
}

impl Clusters {
    /// How many clusters hold `k` records, for `k` in `0..=parties` (entry 0
    /// is 0; entry 1 counts records linked to none): at most one record per
    /// party in a cluster, so a cluster of `k` records spans `k` parties.
    pub fn spans(&self, parties: usize) -> Vec<u64> {
        let mut size = vec![0usize; self.count as usize];
        for &k in &self.cluster {
            size[k as usize] += 1;
        }
        let mut out = vec![0u64; parties + 1];
        for s in size {
            // a cluster never holds more records than there are parties (greedy::solve)
            out[s.min(parties)] += 1;
        }
        out
    }

    /// The pairs of records that share a cluster (global indexes, the smaller
    /// first), cluster by cluster.
    pub fn pairs(&self) -> Vec<(u32, u32)> {
        let mut by: Vec<Vec<u32>> = vec![Vec::new(); self.count as usize];
        for (r, &c) in self.cluster.iter().enumerate() {
            by[c as usize].push(r as u32);
        }
        let mut out = Vec::new();
        for m in by {
            for (k, &x) in m.iter().enumerate() {
                out.extend(m[k + 1..].iter().map(|&y| (x, y)));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
