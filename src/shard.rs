//! The matcher in shards, for a cluster (the Python package's Spark job,
//! python/gramlink/spark.py): each task scores the candidates of a range of A's
//! rows against all of B ([`shard_candidates`]); one step assigns pairs from
//! the union of every shard's candidates ([`assign_scored`]). With `ed auto`
//! the shards score their candidates at A's generous bound and the same step
//! fits the cut-off on the union ([`crate::cutoff::fit`], the single machine's
//! function) before it assigns: the fit's patterns compare a candidate with
//! the others of its A row and of its B row, so it needs every shard's.
//!
//! **Why the result equals [`Matcher::link`](crate::matcher::Matcher::link)'s, pair for pair.** A row's
//! candidates and scores depend on that row and on the whole of B only: the
//! q-gram filter's index and its coordinate order are built from B
//! ([`crate::matching::scored_match`]), the range match keeps exactly the pairs
//! within A's threshold, and a keyed batch's widened thresholds use the A row's
//! norm and B's largest ([`crate::keyed::matching_thresholds`]). So the union of
//! the shards' candidates is the whole matcher's, with A rows numbered in the
//! whole batch; each rule's assignment sorts its input (ties by rows), so it
//! does not depend on the order the shards arrive in. Tests check both.

use crate::cutoff::{Cutoff, Evidence, Plan};
use crate::embed::{BatchVectors, Vectors};
use crate::error::{Error, ProtocolError};
use crate::matcher::check_pair;
use crate::matching::{self, Candidates, MatchStats, Pair, Rule, Scored};
use crate::protocol::VectorBatch;
use crate::sparse_vectors::SparseVectors;

/// Party B's batch as every task keeps it: its header, its ids, and its rows
/// in the batch's own form: sparse for an unkeyed batch (a record touches a
/// few dozen of the base's hundreds of coordinates: a million rows take some
/// 0.3 GB instead of 3.4 GB dense), dense for a keyed one (the rotation fills
/// every coordinate; the single machine holds it dense too). Built from the
/// whole batch or piece by piece ([`Reference::push`]), so a worker never
/// holds an unkeyed B dense.
pub struct Reference {
    /// B's header: everything but its rows.
    head: VectorBatch,
    ids: Vec<String>,
    rows: BatchVectors,
}

impl Reference {
    /// An empty reference with `batch`'s header; then [`Reference::push`] its rows.
    pub fn new(batch: &VectorBatch) -> Reference {
        let head = VectorBatch {
            party: batch.party,
            fingerprint: batch.fingerprint.clone(),
            ids: Vec::new(),
            vectors: BatchVectors::Sparse(SparseVectors::new(batch.vectors.dim())),
            thresholds: None,
            transform: batch.transform.clone(),
            shape: batch.shape.clone(),
            private: batch.private,
        };
        let dim = head.vectors.dim();
        let rows = match batch.vectors.dense() {
            Some(_) => BatchVectors::Dense(Vectors { dim, data: Vec::new() }),
            None => BatchVectors::Sparse(SparseVectors::new(dim)),
        };
        Reference { rows, head, ids: Vec::new() }
    }

    /// The whole of `batch`.
    pub fn from_batch(batch: &VectorBatch) -> Result<Reference, Error> {
        let mut r = Reference::new(batch);
        r.push(batch)?;
        Ok(r)
    }

    /// Appends `part`'s rows (the next rows of the same batch, as
    /// [`crate::protocol::read_binary_rows`] reads them).
    pub fn push(&mut self, part: &VectorBatch) -> Result<(), Error> {
        let h = &self.head;
        if part.fingerprint != h.fingerprint || part.vectors.dim() != h.vectors.dim() || part.transform != h.transform {
            return Err(ProtocolError::Invalid {
                what: "vector batch".into(),
                reason: "a piece of it has another header than its first".into(),
            }
            .into());
        }
        self.ids.extend(part.ids.iter().cloned());
        match &mut self.rows {
            BatchVectors::Dense(v) => v.data.extend_from_slice(&part.vectors.to_dense().data),
            BatchVectors::Sparse(v) => {
                for r in 0..part.ids.len() {
                    let mut row = Vec::new();
                    part.vectors.source().nonzero(r, &mut |c, x| row.push((c, x)));
                    v.push_row(row);
                }
            }
        }
        Ok(())
    }

    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// B's header (no rows): for the checks made before any work.
    pub fn head(&self) -> &VectorBatch {
        &self.head
    }
}

/// The candidates of `rule` for the rows of `a` (rows `offset..` of party A's
/// batch, as [`crate::protocol::read_binary_rows`] reads them) against the
/// whole of `b`, with A rows numbered from `offset`. Each carries the score
/// the rule ranks by: the cosine distance for [`Rule::Ranked`], the distance
/// otherwise. Refuses batches [`Matcher::new`](crate::matcher::Matcher::new)
/// refuses. The ranked rule with the q-gram filter (the default
/// configuration) reads B's sparse rows; the other rules on an unkeyed batch
/// make B dense for the call (small batches); a keyed B is kept dense.
///
/// With `ed auto` the candidates are those within A's generous bound, each
/// with its filter bound on edits ([`Scored::edits`]), or for keyed batches
/// its distance level ([`crate::cutoff::set_distance_levels`], from the same
/// thresholds the single machine compares): [`assign_scored`] fits the
/// cut-off on the union of the shards' ([`cutoff_bound`]).
pub fn shard_candidates(
    a: &VectorBatch,
    b: &Reference,
    offset: usize,
    rule: Rule,
) -> Result<(Vec<Scored>, MatchStats), Error> {
    let ed = check_pair(a, &b.head)?;
    if offset.checked_add(a.ids.len()).is_none_or(|end| end > u32::MAX as usize) {
        return Err(Error::Parameter(format!("A rows from {offset}: more than 2^32 rows")));
    }
    let values = a.thresholds.as_ref().map_or(&[][..], |t| t.values.as_slice());
    let shape = a.shape.as_ref().filter(|s| b.head.shape.as_ref() == Some(*s) && s.filter_length().is_some());
    let (mut scored, stats) = match shape {
        // no transform (a shape is never keyed): the thresholds are A's own
        Some(shape) if rule == Rule::Ranked => {
            matching::scored_match_rows(a.vectors.source(), b.rows.source(), values, ed, shape, matching::PER_ROW)?
        }
        _ => {
            // B in the form the single machine holds it (dense when keyed)
            let dense;
            let bv = match (&b.rows, a.vectors.dense()) {
                (BatchVectors::Sparse(rows), Some(_)) => {
                    dense = BatchVectors::Dense(Vectors::from_sparse(rows));
                    &dense
                }
                (rows, _) => rows,
            };
            let th = crate::keyed::batch_thresholds(&a.vectors, bv, values, a.transform.as_deref());
            let (c, stats) = matching::candidates(&a.vectors, bv, &th, rule, ed, a.shape.as_ref())?;
            let scored = match c {
                Candidates::Scored(s) => s,
                Candidates::Within(p) if rule == Rule::Ranked => {
                    let plan = crate::matcher::cutoff_bound(a, &b.head, rule);
                    if plan.is_some_and(|p| p.evidence == Evidence::Distance) {
                        crate::cutoff::scored_by_distance(&a.vectors, bv, &p, &th)
                    } else {
                        matching::rank_by_cosine(&a.vectors, bv, &p)
                    }
                }
                Candidates::Within(p) => {
                    p.into_iter().map(|pair| Scored { pair, score: pair.distance, edits: 0 }).collect()
                }
            };
            (scored, stats)
        }
    };
    for s in &mut scored {
        s.pair.a += offset as u32;
    }
    Ok((scored, stats))
}

/// What the cut-off of `ed auto` needs besides the candidates: the bound
/// ([`cutoff_bound`]) and the whole batches' sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Auto {
    pub plan: Plan,
    pub a_rows: usize,
    pub b_rows: usize,
}

/// The cut-off the single machine fits for `a` and `b` (headers suffice)
/// under `rule`, if any ([`crate::matcher::cutoff_bound`]), with the sizes
/// `a_rows` and `b_rows` of the whole batches.
pub fn cutoff_bound(a: &VectorBatch, b: &Reference, rule: Rule, a_rows: usize) -> Option<Auto> {
    crate::matcher::cutoff_bound(a, &b.head, rule).map(|plan| Auto { plan, a_rows, b_rows: b.ids.len() })
}

/// The pairs `rule` keeps of every shard's candidates (any order), as
/// [`Matcher::link`](crate::matcher::Matcher::link) returns them, sorted by
/// (a, distance, b) (the one-to-one rules' order; [`Rule::All`]'s pairs are
/// the same, the single machine lists each A row's in its index's order).
/// With `auto` ([`cutoff_bound`]) the cut-off is fitted on all of them first,
/// by the single machine's function, and returned (the fit depends on the
/// candidates as a set: its patterns are counted, not listed).
pub fn assign_scored(scored: &[Scored], rule: Rule, auto: Option<Auto>) -> (Vec<Pair>, Option<Cutoff>) {
    let (kept, cutoff) = match auto {
        Some(w) => {
            let (kept, fit) = crate::cutoff::fit(scored, w.plan, w.a_rows, w.b_rows);
            (std::borrow::Cow::Owned(kept), Some(fit))
        }
        None => (std::borrow::Cow::Borrowed(scored), None),
    };
    let pairs = || kept.iter().map(|s| s.pair).collect::<Vec<Pair>>();
    let assigned = match rule {
        Rule::Ranked => matching::one_to_one_scored(&kept),
        Rule::Greedy => matching::one_to_one(&pairs()),
        Rule::Nearest => matching::nearest(&pairs()),
        Rule::All => {
            let mut p = pairs();
            matching::sort_by_a(&mut p);
            p
        }
    };
    (assigned, cutoff)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::dp::{Epsilon, Randomness};
    use crate::embed::Vectors;
    use crate::matcher::Matcher;
    use crate::party::{merge_bases, DataOwner, EmbedOptions};
    use crate::progress::NoProgress;
    use crate::protocol::{read_binary_rows, Party};

    fn batches(keyed: bool, auto: bool) -> (VectorBatch, VectorBatch) {
        let text = std::fs::read_to_string("data/cities.txt").unwrap();
        let names: Vec<&str> = text.lines().take(400).collect();
        // one edit on a third of the names, two on a sixth: ed auto has both to weigh
        let typo: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(i, n)| match i % 6 {
                0 | 3 => format!("{n}x"),
                1 => format!("{n}xy"),
                _ => n.to_string(),
            })
            .collect();
        let owner = |records: Vec<String>, seed| {
            let raw = records
                .into_iter()
                .enumerate()
                .map(|(i, text)| crate::dataset::RawRecord { id: format!("r{i}"), text })
                .collect();
            DataOwner::from_raw(raw, &Default::default(), Epsilon::new(1.0).unwrap(), Randomness::seeded(seed)).unwrap()
        };
        let (mut a, mut b) = (owner(names.iter().map(|s| s.to_string()).collect(), 1), owner(typo, 2));
        let o = Config::default().mine;
        let shared = merge_bases(&a.mine(&o, &mut NoProgress).unwrap(), &b.mine(&o, &mut NoProgress).unwrap(), &o);
        let shared = shared.unwrap();
        let key = keyed.then(|| crate::keyed::Key::from_bytes([7; 32]));
        let config = if auto { Config::default() } else { Config::default().with_ed(1) };
        assert_eq!(config.thresholds.ed.is_auto(), auto);
        let key = key.map_or_else(crate::keyed::EmbedKey::default, crate::keyed::EmbedKey::rotated);
        let ea = EmbedOptions { key: key.clone(), ..EmbedOptions::new(Party::A, &config) };
        let eb = EmbedOptions { key, ..EmbedOptions::new(Party::B, &config) };
        (a.embed(&shared, &ea, &mut NoProgress).unwrap().batch, b.embed(&shared, &eb, &mut NoProgress).unwrap().batch)
    }

    #[test]
    fn shards_in_any_order_give_the_matcher_s_pairs_for_every_rule() {
        for (keyed, auto) in [(false, false), (true, false), (false, true), (true, true)] {
            let (a, b) = batches(keyed, auto);
            let bytes = a.to_binary();
            let whole = Matcher::new(a.clone(), b.clone()).unwrap();
            // B pushed in two pieces, as a worker reads it
            let half = b.ids.len() / 2;
            let piece = |r: std::ops::Range<usize>| b.rows(r);
            let mut reference = Reference::new(&b);
            reference.push(&piece(0..half)).unwrap();
            reference.push(&piece(half..b.ids.len())).unwrap();
            assert_eq!(reference.ids(), &b.ids[..]);
            for rule in Rule::ALL {
                let mut all = Vec::new();
                let fit = cutoff_bound(&a.rows(0..0), &reference, rule, a.ids.len());
                // shards of 150 rows, the last shard first
                for start in [300, 0, 150] {
                    let end = (start + 150).min(a.ids.len());
                    let shard = read_binary_rows(bytes.len() as u64, Some(start..end), &mut |at, buf| {
                        buf.copy_from_slice(&bytes[at as usize..at as usize + buf.len()]);
                        Ok(())
                    })
                    .unwrap();
                    all.extend(shard_candidates(&shard, &reference, start, rule).unwrap().0);
                }
                let linkage = whole.link(rule).unwrap();
                let mut expected = linkage.pairs;
                matching::sort_by_a(&mut expected);
                assert!(!expected.is_empty());
                let (pairs, cutoff) = assign_scored(&all, rule, fit);
                assert_eq!(pairs, expected, "rule {rule:?}, keyed {keyed}, auto {auto}");
                assert_eq!(cutoff, linkage.cutoff, "rule {rule:?}, keyed {keyed}, auto {auto}");
                // the fit is made where the single machine makes it: ranked
                assert_eq!(cutoff.is_some(), auto && rule == Rule::Ranked);
            }
        }
    }

    #[test]
    fn mismatched_batches_are_refused() {
        let (a, b) = batches(false, false);
        let other = Reference::from_batch(&VectorBatch { fingerprint: "cd".repeat(32), ..b.clone() }).unwrap();
        assert_eq!(shard_candidates(&a, &other, 0, Rule::Ranked).unwrap_err().code(), "FINGERPRINT_MISMATCH");
        let mut reference = Reference::from_batch(&b).unwrap();
        let wider = VectorBatch {
            vectors: BatchVectors::Dense(Vectors { dim: b.vectors.dim() + 1, data: Vec::new() }),
            ids: Vec::new(),
            thresholds: None,
            ..b
        };
        assert_eq!(reference.push(&wider).unwrap_err().code(), "INVALID_MESSAGE");
    }
}
