//! Pseudonymous ids: what a party's vector batch carries instead of its own ids.
//!
//! Ids leave a party with its vectors, and the pairs the matcher returns name
//! them. A party's own ids are often telling (row numbers in input order: the
//! first rows of a sorted or frequency-ordered file; customer numbers; or a
//! name column chosen as id by mistake). By default each record gets a fresh
//! random pseudonym, 64 bits from the secure generator ([`crate::dp`]) as
//! [`PSEUDONYM_DIGITS`] hex digits; the
//! owner keeps the [`IdMap`] (pseudonym → own id) and maps the matcher's pairs
//! back ([`unmap_pairs`], `gramlink unmap`). Pseudonyms are drawn independently
//! of the records, so they say nothing of them (only their count, which the
//! batch shows anyway).
//!
//! **One policy for every front end.** The core's embed steps
//! ([`crate::party::DataOwner::embed`], [`crate::record::RecordOwner::embed`])
//! apply the [`IdPolicy`] of their options: pseudonyms unless the caller opted
//! out ([`IdPolicy::Keep`]: the CLI's `--keep-ids`, the JS `keepIds`, the
//! Python `keep_ids`), and return the map beside the batch ([`Embedded`]).
//! Pseudonyms are always drawn from the secure generator, even for an owner
//! with seeded noise: a seed reproduces noise for experiments, it must not let
//! whoever knows it map the batch's rows back. Whole protocol runs on one
//! machine ([`crate::session`], [`crate::record::session`]) export nothing and
//! keep the ids.

use crate::dp::Randomness;
use crate::error::{Error, InputError};
use std::collections::{HashMap, HashSet};

/// Which ids a batch carries when it leaves its owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IdPolicy {
    /// Fresh random pseudonyms; the owner keeps the [`IdMap`] (the default).
    #[default]
    Pseudonyms,
    /// The owner's own ids (row numbers or its id column): the matcher sees them.
    Keep,
}

impl IdPolicy {
    /// [`IdPolicy::Keep`] when `keep_ids`, else the default.
    pub fn keep_if(keep_ids: bool) -> IdPolicy {
        if keep_ids {
            IdPolicy::Keep
        } else {
            IdPolicy::Pseudonyms
        }
    }

    /// The ids a batch of records with ids `ids` carries, and the map back
    /// (none when the ids are kept).
    pub fn apply(self, ids: &[String]) -> Result<(Vec<String>, Option<IdMap>), Error> {
        match self {
            IdPolicy::Keep => Ok((ids.to_vec(), None)),
            IdPolicy::Pseudonyms => {
                let map = pseudonymize(ids, &mut Randomness::secure()?);
                Ok((map.pseudonyms(), Some(map)))
            }
        }
    }
}

/// What an embed step makes: the batch that goes to the matcher, and the map
/// from its pseudonyms to the owner's ids, which never leaves the owner (none
/// with [`IdPolicy::Keep`]).
#[derive(Debug, Clone)]
pub struct Embedded<B> {
    pub batch: B,
    pub id_map: Option<IdMap>,
}

/// The owner's map from pseudonyms to its own ids, in record order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IdMap {
    pub pairs: Vec<(String, String)>,
}

/// Hex digits of a pseudonym: 64 random bits. Why not more: a pseudonym only
/// has to be distinct within its batch (drawn again on a repeat) and
/// independent of the records; it authenticates nothing, so its length buys
/// no privacy, while every record's batch carries it (16 digits keep NAMES's
/// binary batch under 8 MB; 32 took 4.8 MB of its 9.5).
pub const PSEUDONYM_DIGITS: usize = 16;

/// One fresh pseudonym per id: [`PSEUDONYM_DIGITS`] hex digits each, all distinct.
pub fn pseudonymize(ids: &[String], rng: &mut Randomness) -> IdMap {
    // distinct numbers are distinct pseudonyms: the set holds 8 bytes each,
    // not a string (a million records on an owner page: tens of MB less)
    let mut seen = HashSet::with_capacity(ids.len());
    let pairs = ids
        .iter()
        .map(|id| loop {
            let x = rng.next_u64();
            if seen.insert(x) {
                break (format!("{x:016x}"), id.clone());
            }
        })
        .collect();
    IdMap { pairs }
}

impl IdMap {
    /// The pseudonyms, in record order.
    pub fn pseudonyms(&self) -> Vec<String> {
        self.pairs.iter().map(|(p, _)| p.clone()).collect()
    }

    /// CSV: `pseudonym,id`, then one row a record.
    pub fn to_csv(&self) -> Result<Vec<u8>, Error> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let err = |e: csv::Error| Error::Parameter(format!("cannot write the id map: {e}"));
        w.write_record(["pseudonym", "id"]).map_err(err)?;
        for (p, id) in &self.pairs {
            w.write_record([p, id]).map_err(err)?;
        }
        w.into_inner().map_err(|e| Error::Parameter(format!("cannot write the id map: {e}")))
    }

    /// Reads [`IdMap::to_csv`]'s form; `what` names the file in errors.
    pub fn from_csv(bytes: &[u8], what: &str) -> Result<IdMap, Error> {
        let mut r = csv::ReaderBuilder::new().from_reader(bytes);
        let header = r.headers().map_err(|e| InputError::Csv { record: 0, reason: e.to_string() })?;
        if header.iter().collect::<Vec<_>>() != ["pseudonym", "id"] {
            return Err(InputError::Format(format!("{what} is not an id map (header pseudonym,id)")).into());
        }
        let mut pairs = Vec::new();
        for (i, row) in r.records().enumerate() {
            let row = row.map_err(|e| InputError::Csv { record: i + 1, reason: e.to_string() })?;
            pairs.push((row.get(0).unwrap_or_default().to_string(), row.get(1).unwrap_or_default().to_string()));
        }
        Ok(IdMap { pairs })
    }
}

/// The matcher's pairs CSV (header with `a_id` and `b_id` first: the one-string
/// pairs and the record pairs of [`crate::record::export::pairs_csv`]) with
/// each side's pseudonyms replaced by the owner's ids, for the sides whose map
/// is given; the other columns unchanged. The ids are written as the matcher
/// writes kept ids ([`crate::dataset::csv_cell`]: one a spreadsheet would run
/// as a formula is escaped), so the pairs read as if the ids had been sent. A
/// pseudonym missing from a given map is an error, and so is no map at all.
pub fn unmap_pairs(pairs_csv: &[u8], a: Option<&IdMap>, b: Option<&IdMap>) -> Result<Vec<u8>, Error> {
    if a.is_none() && b.is_none() {
        return Err(Error::Parameter("give party A's id map, party B's or both".into()));
    }
    let index = |m: Option<&IdMap>| m.map(|m| m.pairs.iter().cloned().collect::<HashMap<String, String>>());
    let (a, b) = (index(a), index(b));
    let mut r = csv::ReaderBuilder::new().from_reader(pairs_csv);
    let header = r.headers().map_err(|e| InputError::Csv { record: 0, reason: e.to_string() })?.clone();
    if header.get(0) != Some("a_id") || header.get(1) != Some("b_id") {
        return Err(InputError::Format("the pairs file does not start with columns a_id,b_id".into()).into());
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| Error::Parameter(format!("cannot write the pairs: {e}"));
    w.write_record(&header).map_err(err)?;
    for (i, row) in r.records().enumerate() {
        let row = row.map_err(|e| InputError::Csv { record: i + 1, reason: e.to_string() })?;
        let mut out: Vec<String> = row.iter().map(str::to_string).collect();
        for (col, map, party) in [(0, &a, "A"), (1, &b, "B")] {
            if let (Some(m), Some(p)) = (map, out.get(col)) {
                let id = m.get(p).ok_or_else(|| {
                    InputError::Format(format!("pair {}: {party}'s pseudonym {p:?} is not in its id map", i + 1))
                })?;
                out[col] = crate::dataset::csv_cell(id).into_owned();
            }
        }
        w.write_record(&out).map_err(err)?;
    }
    w.into_inner().map_err(|e| Error::Parameter(format!("cannot write the pairs: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pseudonyms_are_random_distinct_and_map_back() {
        let ids: Vec<String> = ["1", "2", "SMITH"].iter().map(|s| s.to_string()).collect();
        let m = pseudonymize(&ids, &mut Randomness::seeded(1));
        let ps = m.pseudonyms();
        assert_eq!(ps.len(), 3);
        assert!(ps.iter().all(|p| p.len() == PSEUDONYM_DIGITS && !ids.contains(p)));
        assert_ne!(ps, pseudonymize(&ids, &mut Randomness::seeded(2)).pseudonyms());
        let back = IdMap::from_csv(&m.to_csv().unwrap(), "map").unwrap();
        assert_eq!(back, m);
        // the matcher's pairs, unmapped on A's side only, then on both
        let pairs = format!("a_id,b_id,distance,cosine\n{},q1,0.5,0.1\n{},q2,0.0,0.0\n", ps[2], ps[0]);
        let b = IdMap { pairs: vec![("q1".into(), "b-one".into()), ("q2".into(), "b-two".into())] };
        let only_a = String::from_utf8(unmap_pairs(pairs.as_bytes(), Some(&m), None).unwrap()).unwrap();
        assert_eq!(only_a, "a_id,b_id,distance,cosine\nSMITH,q1,0.5,0.1\n1,q2,0.0,0.0\n");
        let both = String::from_utf8(unmap_pairs(pairs.as_bytes(), Some(&m), Some(&b)).unwrap()).unwrap();
        assert_eq!(both, "a_id,b_id,distance,cosine\nSMITH,b-one,0.5,0.1\n1,b-two,0.0,0.0\n");
        // a pseudonym of another map
        let e = unmap_pairs(pairs.as_bytes(), Some(&b), None).unwrap_err();
        assert_eq!(e.code(), "INVALID_FORMAT");
        assert!(IdMap::from_csv(b"a,b\n", "x").is_err());
    }

    #[test]
    fn the_policy_sends_pseudonyms_unless_told_to_keep_the_ids() {
        let ids: Vec<String> = ["7", "=SUM(A1)"].iter().map(|s| s.to_string()).collect();
        assert_eq!(IdPolicy::default(), IdPolicy::Pseudonyms);
        assert_eq!(IdPolicy::keep_if(true).apply(&ids).unwrap(), (ids.clone(), None));
        let (sent, map) = IdPolicy::keep_if(false).apply(&ids).unwrap();
        let map = map.unwrap();
        assert_eq!(sent, map.pseudonyms());
        assert!(sent.iter().all(|p| p.len() == PSEUDONYM_DIGITS && !ids.contains(p)));
        // a record pairs file (class, weight, ... after the ids), B kept its ids:
        // A's ids come back escaped as the matcher escapes kept ids
        let pairs = format!("a_id,b_id,class,weight\n{},'-3,M,9.5\n", sent[1]);
        let out = String::from_utf8(unmap_pairs(pairs.as_bytes(), Some(&map), None).unwrap()).unwrap();
        assert_eq!(out, "a_id,b_id,class,weight\n'=SUM(A1),'-3,M,9.5\n");
        let e = unmap_pairs(b"b_id,a_id\n", Some(&map), None).unwrap_err();
        assert_eq!(e.code(), "INVALID_FORMAT");
        assert_eq!(unmap_pairs(pairs.as_bytes(), None, None).unwrap_err().code(), "INVALID_PARAMETER");
    }
}
