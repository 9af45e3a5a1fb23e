//! Pseudonymous ids: what a party's vector batch carries instead of its own ids.
//!
//! Ids leave a party with its vectors, and the pairs the matcher returns name
//! them. A party's own ids are often telling (row numbers in input order: the
//! first rows of a sorted or frequency-ordered file; customer numbers; or a
//! name column chosen as id by mistake). By default each record gets a fresh
//! random pseudonym, 128 bits from the secure generator ([`crate::dp`]); the
//! owner keeps the [`IdMap`] (pseudonym → own id) and maps the matcher's pairs
//! back ([`unmap_pairs`], `gramlink unmap`). Pseudonyms are drawn independently
//! of the records, so they say nothing of them (only their count, which the
//! batch shows anyway).

use crate::dp::Randomness;
use crate::error::{Error, InputError};
use std::collections::{HashMap, HashSet};

/// The owner's map from pseudonyms to its own ids, in record order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IdMap {
    pub pairs: Vec<(String, String)>,
}

/// One fresh pseudonym per id: 32 hex digits each, all distinct.
pub fn pseudonymize(ids: &[String], rng: &mut Randomness) -> IdMap {
    let mut seen = HashSet::with_capacity(ids.len());
    let pairs = ids
        .iter()
        .map(|id| loop {
            let p = format!("{:016x}{:016x}", rng.next_u64(), rng.next_u64());
            if seen.insert(p.clone()) {
                break (p, id.clone());
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

/// The matcher's pairs CSV (header with `a_id` and `b_id` first) with each
/// side's pseudonyms replaced by the owner's ids, for the sides whose map is
/// given. A pseudonym missing from a given map is an error.
pub fn unmap_pairs(pairs_csv: &[u8], a: Option<&IdMap>, b: Option<&IdMap>) -> Result<Vec<u8>, Error> {
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
                out[col] = id.clone();
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
        assert!(ps.iter().all(|p| p.len() == 32 && !ids.contains(p)));
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
}
