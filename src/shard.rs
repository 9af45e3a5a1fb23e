//! The matcher in shards, for a cluster (the Python package's Spark job,
//! python/gramlink/spark.py): each task scores the candidates of a range of A's
//! rows against all of B ([`shard_candidates`]); one step assigns pairs from
//! the union of every shard's candidates ([`assign_scored`]).
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

use crate::embed::{BatchVectors, Vectors};
use crate::error::{Error, ProtocolError};
use crate::matcher::check_pair;
use crate::matching::{self, Candidates, MatchStats, Pair, Rule, Scored};
use crate::protocol::VectorBatch;
use crate::sparse_vectors::SparseVectors;

/// Party B's batch as every task keeps it: its header, its ids, and its rows
/// as sparse vectors (a record touches a few dozen of the base's hundreds of
/// coordinates: a million rows take some 0.3 GB instead of 3.4 GB dense).
/// Built from the whole batch or piece by piece ([`Reference::push`]), so a
/// worker never holds B dense.
pub struct Reference {
    /// B's header: everything but its rows.
    head: VectorBatch,
    ids: Vec<String>,
    rows: SparseVectors,
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
        Reference { rows: SparseVectors::new(head.vectors.dim()), head, ids: Vec::new() }
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
        for r in 0..part.ids.len() {
            let mut row = Vec::new();
            part.vectors.source().nonzero(r, &mut |c, x| row.push((c, x)));
            self.rows.push_row(row);
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
/// configuration) reads B's sparse rows; the other rules, and keyed batches,
/// make B dense for the call (small batches).
///
/// A batch of party A with `ed auto` is refused: its cut-off is fitted on
/// every candidate at once ([`crate::cutoff`]), which the shards' columns do
/// not carry yet; embed party A with a fixed `ed` for the sharded matcher.
pub fn shard_candidates(
    a: &VectorBatch,
    b: &Reference,
    offset: usize,
    rule: Rule,
) -> Result<(Vec<Scored>, MatchStats), Error> {
    let ed = check_pair(a, &b.head)?;
    if a.thresholds.as_ref().is_some_and(|t| t.auto) {
        return Err(Error::Parameter(
            "party A's batch asks for ed auto, whose cut-off the sharded matcher does not fit yet: \
             embed party A with a fixed edit distance (--ed N, thresholds {\"ed\": N})"
                .into(),
        ));
    }
    if offset.checked_add(a.ids.len()).is_none_or(|end| end > u32::MAX as usize) {
        return Err(Error::Parameter(format!("A rows from {offset}: more than 2^32 rows")));
    }
    let values = a.thresholds.as_ref().map_or(&[][..], |t| t.values.as_slice());
    let shape = a.shape.as_ref().filter(|s| b.head.shape.as_ref() == Some(*s) && s.filter_length().is_some());
    let (mut scored, stats) = match shape {
        // no transform (a shape is never keyed): the thresholds are A's own
        Some(shape) if rule == Rule::Ranked => {
            matching::scored_match_rows(a.vectors.source(), &b.rows, values, ed, shape, matching::PER_ROW)?
        }
        _ => {
            // B in the form the single machine holds it: dense when keyed
            let bv = match a.vectors.dense() {
                Some(_) => BatchVectors::Dense(Vectors::from_sparse(&b.rows)),
                None => BatchVectors::Sparse(b.rows.clone()),
            };
            let th = crate::keyed::batch_thresholds(&a.vectors, &bv, values, a.transform.as_deref());
            let (c, stats) = matching::candidates(&a.vectors, &bv, &th, rule, ed, a.shape.as_ref())?;
            let scored = match c {
                Candidates::Scored(s) => s,
                Candidates::Within(p) if rule == Rule::Ranked => matching::rank_by_cosine(&a.vectors, &bv, &p),
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

/// The pairs `rule` keeps of every shard's candidates (any order), as
/// [`Matcher::link`](crate::matcher::Matcher::link) returns them, sorted by
/// (a, distance, b) (the one-to-one rules' order; [`Rule::All`]'s pairs are
/// the same, the single machine lists each A row's in its index's order).
pub fn assign_scored(scored: &[Scored], rule: Rule) -> Vec<Pair> {
    let pairs = || scored.iter().map(|s| s.pair).collect::<Vec<Pair>>();
    match rule {
        Rule::Ranked => matching::one_to_one_scored(scored),
        Rule::Greedy => matching::one_to_one(&pairs()),
        Rule::Nearest => matching::nearest(&pairs()),
        Rule::All => {
            let mut p = pairs();
            matching::sort_by_a(&mut p);
            p
        }
    }
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

    fn batches(keyed: bool) -> (VectorBatch, VectorBatch) {
        let text = std::fs::read_to_string("data/cities.txt").unwrap();
        let names: Vec<&str> = text.lines().take(400).collect();
        let typo: Vec<String> =
            names.iter().enumerate().map(|(i, n)| if i % 3 == 0 { format!("{n}x") } else { n.to_string() }).collect();
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
        // a fixed ed: the shards do not fit ed auto's cut-off (refused below)
        let config = Config::default().with_ed(1);
        let ea = EmbedOptions { key: key.clone(), ..EmbedOptions::new(Party::A, &config) };
        let eb = EmbedOptions { key, ..EmbedOptions::new(Party::B, &config) };
        (a.embed(&shared, &ea, &mut NoProgress).unwrap(), b.embed(&shared, &eb, &mut NoProgress).unwrap())
    }

    #[test]
    fn shards_in_any_order_give_the_matcher_s_pairs_for_every_rule() {
        for keyed in [false, true] {
            let (a, b) = batches(keyed);
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
                let mut expected = whole.link(rule).unwrap().pairs;
                matching::sort_by_a(&mut expected);
                assert!(!expected.is_empty());
                assert_eq!(assign_scored(&all, rule), expected, "rule {rule:?}, keyed {keyed}");
            }
        }
    }

    #[test]
    fn mismatched_batches_are_refused() {
        let (a, b) = batches(false);
        let other = Reference::from_batch(&VectorBatch { fingerprint: "cd".repeat(32), ..b.clone() }).unwrap();
        assert_eq!(shard_candidates(&a, &other, 0, Rule::Ranked).unwrap_err().code(), "FINGERPRINT_MISMATCH");
        // ed auto: its cut-off needs every candidate at once, refused by name
        let mut auto = a.clone();
        auto.thresholds.as_mut().unwrap().auto = true;
        let e = shard_candidates(&auto, &Reference::from_batch(&b).unwrap(), 0, Rule::Ranked).unwrap_err();
        assert!(e.to_string().contains("ed auto"), "{e}");
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
