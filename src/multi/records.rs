//! Record batches of more than two parties: every pair of parties linked by
//! the record linker ([`crate::record::RecordMatcher::pair`]: blocking,
//! levels, its own EM fit and decision; every party but B sends thresholds,
//! so each pair is linked from a side that has them, [`orient`]), its matches
//! (class M, after the schema's assignment) the candidate pairs of the one
//! solver ([`super::greedy::solve`]), the strongest first. The CLI's `match
//! --schema s.toml a b c …` calls [`link`]; the Spark job
//! (python/gramlink/spark_parties.py) cuts each pair's first records into
//! shards ([`crate::record::shard::shard_levels`] with
//! [`RecordMatcher::pair`]) and makes each pair's edges from their union with
//! the same [`pair_edges`] (src/record/shard.rs says why the union is the
//! whole batch's).
//!
//! **Privacy.** As the two-party record matcher ([`crate::record`]): each pair
//! of parties is a two-party linkage; the matcher learns which records of
//! different parties cluster together.

use super::greedy::Edge;
use super::{check_parties, cluster, Clusters};
use crate::error::Error;
use crate::protocol::Party;
use crate::record::shard::{link_shards, shard_levels, ShardLevels};
use crate::record::{Class, RecordBatch, RecordMatcher, Schema};

/// Checks the parties' record batches ([`check_parties`]; each under `schema`,
/// and every pair as [`crate::record::RecordMatcher::pair`] checks it), links every pair of
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
    let (mut edges, mut compared, mut warnings) = (Vec::new(), 0, Vec::new());
    let party: Vec<Party> = batches.iter().map(|b| b.party).collect();
    for i in 0..batches.len() {
        for j in i + 1..batches.len() {
            let (i, j) = orient(&party, i, j);
            let (na, nb) = (batches[i].ids.len(), batches[j].ids.len());
            // the whole of i's records: one shard
            let shard = shard_levels(schema, batches[i].clone(), batches[j].clone(), 0, na, RecordMatcher::pair)?;
            let pair = pair_edges(schema, (na, nb), (offsets[i], offsets[j]), vec![shard])?;
            edges.extend(pair.edges);
            compared += pair.compared;
            let named = format!("parties {} and {}", party[i].name(), party[j].name());
            warnings.extend(pair.warnings.into_iter().map(|w| format!("{named}: {w}")));
        }
    }
    let party: Vec<u8> = batches.iter().flat_map(|b| std::iter::repeat_n(b.party.index() as u8, b.ids.len())).collect();
    Ok(Clusters { warnings, ..cluster(&party, edges, compared, merge_threshold) })
}

/// The order a pair of batches `i`, `j` (of parties `party`) is linked in:
/// the first side sends thresholds, so B, the one party that does not, is
/// always second. A shard is of the first's records
/// ([`crate::record::shard::shard_levels`] with [`RecordMatcher::pair`]).
pub fn orient(party: &[Party], i: usize, j: usize) -> (usize, usize) {
    if party[i] == Party::B {
        (j, i)
    } else {
        (i, j)
    }
}

/// One pair of parties' part of the clustering ([`pair_edges`]).
pub struct PairEdges {
    /// Its matches by global index, the heavier the nearer.
    pub edges: Vec<Edge>,
    /// The candidate pairs compared.
    pub compared: u64,
    /// What its fit said (repairs, a field that never agrees).
    pub warnings: Vec<String>,
}

/// The solver's edges of a pair of parties linked as [`orient`] orders them
/// (`rows`: both batches' sizes; `offsets`: where their records start in the
/// global numbering) from every shard's levels (any order): the record
/// linker's fit and decision on their union ([`link_shards`], as
/// [`crate::record::RecordMatcher::link`] decides), its matches (class M, after the
/// schema's assignment) by global index, the heavier the nearer; the
/// candidate pairs compared, and the fit's warnings.
pub fn pair_edges(
    schema: &Schema,
    rows: (usize, usize),
    offsets: (u32, u32),
    shards: Vec<ShardLevels>,
) -> Result<PairEdges, Error> {
    let linkage = link_shards(schema, rows.0, rows.1, shards)?;
    let (oi, oj) = offsets;
    let edges = linkage
        .pairs
        .iter()
        .filter(|p| p.class == Class::Match)
        .map(|p| Edge { x: oi + p.a, y: oj + p.b, score: -p.weight })
        .collect();
    Ok(PairEdges { edges, compared: linkage.candidates, warnings: linkage.fit.repairs })
}
