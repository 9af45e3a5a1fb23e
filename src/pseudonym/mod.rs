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
//!
//! **Shuffled rows.** A pseudonym hides an id, not a position: row 1 of a batch
//! made from a sorted file would still be its first record (for a sorted name
//! list, C would learn each record's alphabetical rank). So the embed steps
//! put the rows of every batch that leaves its owner in a uniformly random
//! order ([`Rows`], from the secure generator for the same reason as the
//! pseudonyms), with kept ids too. The id map lists the pairs in the owner's
//! own record order, so it restores the order; only runs on one machine keep
//! the rows in place ([`RowOrder::Kept`]).
//!
//! **Distinct rows.** Under pseudonyms a batch carries each distinct record
//! once ([`distinct`]): identical records would show as identical rows, whose
//! group sizes are the data's frequencies. The id map then lists one
//! pseudonym for every record of its group.

pub mod distinct;

use crate::dp::Randomness;
use crate::error::{Error, InputError};
pub use distinct::Distinct;
use std::collections::{HashMap, HashSet};
use std::hash::Hash;

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

    /// The groups of records a batch's rows stand for, from each record's
    /// key (what the matcher would see of it): under pseudonyms one row for
    /// each distinct key ([`distinct`]); with kept ids one row a record.
    pub fn groups<K: Hash + Eq>(self, keys: impl ExactSizeIterator<Item = K>) -> Distinct {
        match self {
            IdPolicy::Keep => Distinct::each(keys.len()),
            IdPolicy::Pseudonyms => Distinct::of(keys),
        }
    }

    /// The ids a batch of records with ids `ids` carries, one per group of
    /// `groups` (from [`IdPolicy::groups`]), and the map back (none when the
    /// ids are kept).
    pub fn apply(self, ids: &[String], groups: &Distinct) -> Result<(Vec<String>, Option<IdMap>), Error> {
        if groups.records() != ids.len() {
            return Err(Error::Parameter(format!("{} ids for {} records", ids.len(), groups.records())));
        }
        match self {
            IdPolicy::Keep if groups.len() == ids.len() => Ok((ids.to_vec(), None)),
            IdPolicy::Keep => Err(Error::Parameter("kept ids need one row a record".into())),
            IdPolicy::Pseudonyms => {
                let map = pseudonymize(ids, groups, &mut Randomness::secure()?);
                let rows = groups.firsts().iter().map(|&r| pseudonym_text(map.pseudonyms[r])).collect();
                Ok((rows, Some(map)))
            }
        }
    }
}

/// The order of a batch's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RowOrder {
    /// A uniform random permutation from the secure generator (the default:
    /// every batch that leaves its owner).
    #[default]
    Shuffled,
    /// The owner's record order: runs on one machine only, which export
    /// nothing (and stay reproducible under a seed).
    Kept,
}

/// The rows of one batch: batch row `i` is the owner's record
/// [`Rows::record`]`(i)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rows(Option<Vec<usize>>);

impl Rows {
    /// The rows of a batch of `n` records in `order`.
    pub fn draw(order: RowOrder, n: usize) -> Result<Rows, Error> {
        Ok(match order {
            RowOrder::Kept => Rows(None),
            RowOrder::Shuffled => Rows(Some(Randomness::secure()?.permutation(n))),
        })
    }

    /// The owner's record at batch row `i`.
    pub fn record(&self, i: usize) -> usize {
        self.0.as_ref().map_or(i, |p| p[i])
    }

    /// `items` (one per record, in record order) in batch order.
    pub fn apply<T: Clone>(&self, items: Vec<T>) -> Vec<T> {
        match &self.0 {
            None => items,
            Some(p) => p.iter().map(|&r| items[r].clone()).collect(),
        }
    }

    /// Sparse rows (one per record, in record order) in batch order.
    pub fn apply_sparse(&self, v: crate::sparse_vectors::SparseVectors) -> crate::sparse_vectors::SparseVectors {
        match &self.0 {
            None => v,
            Some(p) => v.select(p),
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

/// The owner's map from pseudonyms to its own ids, in record order. A
/// pseudonym is kept as its 64-bit number, written as [`PSEUDONYM_DIGITS`]
/// hex digits: a million records' map is 8 MB of numbers beside the ids, not
/// a second million strings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IdMap {
    pseudonyms: Vec<u64>,
    ids: Vec<String>,
}

/// Hex digits of a pseudonym: 64 random bits. Why not more: a pseudonym only
/// has to be distinct within its batch (drawn again on a repeat) and
/// independent of the records; it authenticates nothing, so its length buys
/// no privacy, while every record's batch carries it (16 digits keep NAMES's
/// binary batch under 8 MB; 32 took 4.8 MB of its 9.5).
pub const PSEUDONYM_DIGITS: usize = 16;

/// A pseudonym's text.
fn pseudonym_text(x: u64) -> String {
    let mut text = String::with_capacity(PSEUDONYM_DIGITS);
    write_pseudonym(&mut text, x);
    text
}

/// Appends a pseudonym's text ([`PSEUDONYM_DIGITS`] lowercase hex digits).
fn write_pseudonym(out: &mut String, x: u64) {
    // a String's fmt::Write never fails
    let _ = std::fmt::Write::write_fmt(out, format_args!("{x:016x}"));
}

/// A pseudonym's number, if `text` is one ([`PSEUDONYM_DIGITS`] lowercase
/// hex digits, as [`pseudonym_text`] writes them).
fn pseudonym_number(text: &str) -> Option<u64> {
    let hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if text.len() != PSEUDONYM_DIGITS || !text.bytes().all(hex) {
        return None;
    }
    u64::from_str_radix(text, 16).ok()
}

/// One fresh pseudonym per group of `groups` ([`PSEUDONYM_DIGITS`] hex
/// digits each, all distinct), listed for each of its records' `ids`.
pub fn pseudonymize(ids: &[String], groups: &Distinct, rng: &mut Randomness) -> IdMap {
    // distinct numbers are distinct pseudonyms: the set holds 8 bytes each
    let mut seen = HashSet::with_capacity(groups.len());
    let per_group: Vec<u64> = (0..groups.len())
        .map(|_| loop {
            let x = rng.next_u64();
            if seen.insert(x) {
                break x;
            }
        })
        .collect();
    let pseudonyms = (0..ids.len()).map(|r| per_group[groups.group(r)]).collect();
    IdMap { pseudonyms, ids: ids.to_vec() }
}

impl IdMap {
    /// The map of `pairs` (pseudonym, own id), in record order; `what` names
    /// it in errors. Each pseudonym must be one this module writes; one that
    /// repeats stands for a group of identical records ([`distinct`]).
    pub fn from_pairs<P: AsRef<str>, I: Into<String>>(
        pairs: impl IntoIterator<Item = (P, I)>,
        what: &str,
    ) -> Result<IdMap, Error> {
        let mut map = IdMap::default();
        for (i, (p, id)) in pairs.into_iter().enumerate() {
            map.push(i + 1, p.as_ref(), id.into(), what)?;
        }
        Ok(map)
    }

    /// Appends row `row`'s pair, refusing what is not a pseudonym.
    fn push(&mut self, row: usize, p: &str, id: String, what: &str) -> Result<(), Error> {
        let x = pseudonym_number(p).ok_or_else(|| {
            InputError::Format(format!(
                "{what}, row {row}: {p:?} is not a pseudonym ({PSEUDONYM_DIGITS} lowercase hex digits)"
            ))
        })?;
        self.pseudonyms.push(x);
        self.ids.push(id);
        Ok(())
    }

    /// Number of records mapped.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The pseudonyms, in record order.
    pub fn pseudonyms(&self) -> Vec<String> {
        self.pseudonyms.iter().map(|&x| pseudonym_text(x)).collect()
    }

    /// CSV: `pseudonym,id`, then one row a record.
    pub fn to_csv(&self) -> Result<Vec<u8>, Error> {
        // about 20 bytes a row beside the id: one allocation, not doubling
        let size = 16 + self.ids.iter().map(|id| PSEUDONYM_DIGITS + 4 + id.len()).sum::<usize>();
        let mut w = csv::Writer::from_writer(Vec::with_capacity(size));
        let err = |e: csv::Error| Error::Parameter(format!("cannot write the id map: {e}"));
        w.write_record(["pseudonym", "id"]).map_err(err)?;
        let mut p = String::with_capacity(PSEUDONYM_DIGITS);
        for (&x, id) in self.pseudonyms.iter().zip(&self.ids) {
            p.clear();
            write_pseudonym(&mut p, x);
            w.write_record([p.as_str(), id]).map_err(err)?;
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
        // row by row into the map: no second copy of a million rows as strings
        let mut map = IdMap::default();
        for (i, row) in r.records().enumerate() {
            let row = row.map_err(|e| InputError::Csv { record: i + 1, reason: e.to_string() })?;
            map.push(i + 1, row.get(0).unwrap_or_default(), row.get(1).unwrap_or_default().into(), what)?;
        }
        Ok(map)
    }

    /// Pseudonym → own ids (several for a group of identical records), in
    /// record order.
    fn index(&self) -> HashMap<u64, Vec<&str>> {
        let mut out: HashMap<u64, Vec<&str>> = HashMap::with_capacity(self.ids.len());
        for (&x, id) in self.pseudonyms.iter().zip(&self.ids) {
            out.entry(x).or_default().push(id);
        }
        out
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
    let (a, b) = (a.map(IdMap::index), b.map(IdMap::index));
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
        let mut mapped = Vec::new();
        for (col, map, party) in [(0, &a, "A"), (1, &b, "B")] {
            if let (Some(m), Some(p)) = (map, row.get(col)) {
                let ids = pseudonym_number(p).and_then(|x| m.get(&x)).ok_or_else(|| {
                    InputError::Format(format!("pair {}: {party}'s pseudonym {p:?} is not in its id map", i + 1))
                })?;
                mapped.push((col, ids.as_slice()));
            }
        }
        write_expanded(&mut w, &row, &mapped).map_err(err)?;
    }
    w.into_inner().map_err(|e| Error::Parameter(format!("cannot write the pairs: {e}")))
}

/// The multi-party matcher's clusters CSV (`party,id,cluster`) or pairs CSV
/// (`party_a,id_a,party_b,id_b`; [`crate::multi`]) with the pseudonyms of
/// `party`'s rows replaced by the owner's ids (as [`unmap_pairs`] writes
/// them); the other parties' rows and the other columns unchanged. A column
/// `party` or `party_X` names the party of the column `id` or `id_X`.
pub fn unmap_clusters(csv_bytes: &[u8], party: &str, map: &IdMap) -> Result<Vec<u8>, Error> {
    let index = map.index();
    let mut r = csv::ReaderBuilder::new().from_reader(csv_bytes);
    let header = r.headers().map_err(|e| InputError::Csv { record: 0, reason: e.to_string() })?.clone();
    let column = |name: &str| header.iter().position(|h| h == name);
    let sides: Vec<(usize, usize)> = header
        .iter()
        .enumerate()
        .filter_map(|(i, h)| {
            let suffix = h.strip_prefix("party")?;
            (suffix.is_empty() || suffix.starts_with('_')).then(|| column(&format!("id{suffix}")).map(|j| (i, j)))?
        })
        .collect();
    if sides.is_empty() {
        return Err(InputError::Format(
            "the clusters file has no party,id columns (from gramlink match with three parties or --clusters)".into(),
        )
        .into());
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| Error::Parameter(format!("cannot write the clusters: {e}"));
    w.write_record(&header).map_err(err)?;
    let mut mapped = 0usize;
    for (i, row) in r.records().enumerate() {
        let row = row.map_err(|e| InputError::Csv { record: i + 1, reason: e.to_string() })?;
        let mut columns = Vec::new();
        for &(pc, ic) in &sides {
            if !row.get(pc).is_some_and(|p| p.eq_ignore_ascii_case(party)) {
                continue;
            }
            let p = row.get(ic).unwrap_or_default();
            let ids = pseudonym_number(p).and_then(|x| index.get(&x)).ok_or_else(|| {
                InputError::Format(format!("row {}: party {party}'s pseudonym {p:?} is not in its id map", i + 1))
            })?;
            columns.push((ic, ids.as_slice()));
            mapped += 1;
        }
        write_expanded(&mut w, &row, &columns).map_err(err)?;
    }
    if mapped == 0 {
        return Err(InputError::Format(format!("no row of the clusters file is party {party}'s")).into());
    }
    w.into_inner().map_err(|e| Error::Parameter(format!("cannot write the clusters: {e}")))
}

/// Writes `row` with each of `mapped`'s columns replaced by its owner's ids
/// (escaped as the matcher escapes kept ids, [`crate::dataset::csv_cell`]):
/// one row for every combination, since a pseudonym of a group of identical
/// records ([`distinct`]) stands for each of them.
fn write_expanded(
    w: &mut csv::Writer<Vec<u8>>,
    row: &csv::StringRecord,
    mapped: &[(usize, &[&str])],
) -> Result<(), csv::Error> {
    let mut out: Vec<String> = row.iter().map(str::to_string).collect();
    let mut at = vec![0usize; mapped.len()];
    loop {
        for (k, &(col, ids)) in mapped.iter().enumerate() {
            out[col] = crate::dataset::csv_cell(ids[at[k]]).into_owned();
        }
        w.write_record(&out)?;
        // the next combination, the last column fastest
        let mut k = mapped.len();
        loop {
            if k == 0 {
                return Ok(());
            }
            k -= 1;
            at[k] += 1;
            if at[k] < mapped[k].1.len() {
                break;
            }
            at[k] = 0;
        }
    }
}

#[cfg(test)]
mod tests;
