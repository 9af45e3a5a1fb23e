//! A record linkage scored against a truth (true pairs by ids): precision,
//! recall (over every true pair) and F1 of the matches, and of the matches
//! with every possible match accepted; pairs completeness of the candidates.

use super::linker::{Class, RecordLinkage};
use crate::matching::truth::{quality_by_ids, Quality};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RecordQuality {
    /// The matches (M).
    pub matches: Quality,
    /// M and P together (every possible match accepted in review).
    pub with_possible: Quality,
    /// Share of the true pairs among the candidates.
    pub pairs_completeness: f64,
}

fn id(ids: &[String], r: u32) -> &str {
    ids[r as usize].as_str()
}

pub fn score(
    linkage: &RecordLinkage,
    a_ids: &[String],
    b_ids: &[String],
    truth: &HashSet<(String, String)>,
) -> RecordQuality {
    let m = quality_by_ids(
        linkage.pairs.iter().filter(|p| p.class == Class::Match).map(|p| (id(a_ids, p.a), id(b_ids, p.b))),
        truth,
    );
    let mp = quality_by_ids(linkage.pairs.iter().map(|p| (id(a_ids, p.a), id(b_ids, p.b))), truth);
    let found = linkage
        .candidate_pairs
        .iter()
        .filter(|(a, b)| truth.contains(&(id(a_ids, *a).to_string(), id(b_ids, *b).to_string())))
        .count();
    let pairs_completeness = if truth.is_empty() { 0.0 } else { found as f64 / truth.len() as f64 };
    RecordQuality { matches: m, with_possible: mp, pairs_completeness }
}
