//! Record batches of more than two parties: every pair of parties linked by
//! the record linker ([`RecordMatcher::pair`]: blocking, levels, its own EM
//! fit and decision; every party but B sends thresholds, so each pair is
//! linked from a side that has them), its matches (class M, after the schema's assignment)
//! the candidate pairs of the one solver ([`super::greedy::solve`]), the
//! strongest first. The CLI's `match --schema s.toml a b c …` calls [`link`].
//!
//! **Privacy.** As the two-party record matcher ([`crate::record`]): each pair
//! of parties is a two-party linkage; the matcher learns which records of
//! different parties cluster together.

use super::greedy::Edge;
use super::{check_parties, Clusters};
use crate::error::Error;
use crate::protocol::Party;
use crate::record::{Class, RecordBatch, RecordMatcher, Schema};

/// Checks the parties' record batches ([`check_parties`]; each under `schema`,
/// and every pair as [`RecordMatcher::pair`] checks it), links every pair of
/// parties and clusters the records (`merge_threshold` as [`super::link`]).
/// `what[i]` names batch `i` in errors. The clusters number the records batch
/// after batch, row after row.
pub fn link(
    schema: &Schema,
    batches: &[RecordBatch],
    what: &[String],
    merge_threshold: f64,
) -> Result<Clusters, Error> {
    super::check_merge_threshold(merge_threshold)?;
    let parties: Vec<(Party, &[String])> = batches.iter().map(|b| (b.party, b.ids.as_slice())).collect();
    let same = |i: usize, j: usize| batches[i].ids == batches[j].ids && batches[i].fields == batches[j].fields;
    let offsets = check_parties(&parties, same, what)?;
    let mut edges = Vec::new();
    let mut compared = 0;
    for i in 0..batches.len() {
        for j in i + 1..batches.len() {
            // the first side sends thresholds: B, the one party that does not,
            // is always second
            let (i, j) = if batches[i].party == Party::B { (j, i) } else { (i, j) };
            let m = RecordMatcher::pair(schema.clone(), batches[i].clone(), batches[j].clone())?;
            let linkage = m.link()?;
            compared += linkage.candidates;
            let (oi, oj) = (offsets[i], offsets[j]);
            // the solver reads distances: the heavier the weight, the nearer
            edges.extend(linkage.pairs.iter().filter(|p| p.class == Class::Match).map(|p| Edge {
                x: oi + p.a,
                y: oj + p.b,
                score: -p.weight,
            }));
        }
    }
    let candidates = edges.len() as u64;
    let party: Vec<u8> =
        batches.iter().flat_map(|b| std::iter::repeat(b.party.index() as u8).take(b.ids.len())).collect();
    let cluster = super::greedy::solve(&party, &mut edges, merge_threshold);
    let count = cluster.iter().max().map_or(0, |m| m + 1);
    Ok(Clusters { cluster, compared, candidates, count })
}
