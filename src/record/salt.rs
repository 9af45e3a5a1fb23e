//! Salting a field's keyed encoding by another field's value (`salt =
//! "date_of_birth"`), as Bloom-filter encodings are salted by a year of birth.
//!
//! **Why.** Under the sketch a field's equal values are equal rows and close
//! values close rows, within a record batch and across it. With a list that
//! covers the data, C aligns that similarity graph with the list's and reads
//! the frequencies of the values off the equal rows (docs/THREAT_MODEL.md,
//! "Salted fields" has the measured figures). Salted, a value is encoded by a
//! sketch keyed by the parties' key *and* the salt's value: rows of different
//! salts share buckets only by chance, so C's graph falls apart into one small
//! graph per salt value that it cannot tell apart, and equal values are equal
//! rows only within one salt.
//!
//! **How.** The part's rows are encoded group by group: the sketch's key
//! derivation context gains the salt's value ([`context`]), so each group has
//! its own keyed bucket permutation. A's thresholds are computed in each
//! group's own space, so they are as sound as unsalted ones. The shape is a
//! function of the base and the spread alone, the same for every group: the
//! matcher's filter, index and levels run unchanged, and a pair of rows whose
//! salts differ compares as two unrelated values do.
//!
//! **What it costs.** A true pair whose salts differ (a typo in the year of
//! birth, a date missing on one side) loses its salted fields' agreement, and
//! a block rule on a salted field finds pairs within one salt only; where the
//! matcher sees that the salts may differ, a salted field's disagreement counts
//! as missing (`Neutral`). It suits records with other fields to link on; an
//! unkeyed batch (`--no-key`) is not salted (nothing in it is keyed).

use super::batch::Part;
use super::field::{Field, Kind};
use super::schema::Schema;
use super::values::RecordTable;
use crate::embed::BatchVectors;
use crate::error::Error;
use crate::keyed::Encoding;
use crate::progress::Progress;
use crate::shape::Shape;
use crate::sparse_vectors::SparseVectors;

/// The salt of a record whose salt field holds `v` (normalized): a date's
/// year, any other field's whole value; empty when missing (the records
/// without a value are one group of their own).
pub fn salt_text(salt_field: &Field, v: Option<&str>) -> String {
    match v {
        // a normalized date is YYYYMMDD
        Some(v) if salt_field.kind() == Some(Kind::Date) => v.chars().take(4).collect(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

/// Each batch row's salt for field `f` (`None` when it is not salted):
/// row `r` holds the record `record(r)` of `table`.
pub(super) fn row_salts(
    schema: &Schema,
    f: &Field,
    table: &RecordTable,
    rows: usize,
    record: impl Fn(usize) -> usize,
) -> Option<Vec<String>> {
    let by = schema.field(f.salt.as_deref()?)?;
    let v = table.column(&by.name);
    Some((0..rows).map(|r| salt_text(by, v.get(record(r)).and_then(|v| v.as_deref()))).collect())
}

/// The key derivation context of a salted part: the unsalted context and
/// the salt, its length first (so no two salts give one context).
pub fn context(unsalted: &str, salt: &str) -> String {
    format!("{unsalted}/salt {}:{salt}", salt.len())
}

/// Embeds one part whose present rows `values` (batch row, text) carry the
/// salts `salts` (by batch row): each salt's rows by `embed` under their own
/// key derivation context ([`context`] of the `unsalted` one), merged back
/// in row order.
pub(super) fn embed_salted(
    values: &[(u32, String)],
    salts: &[String],
    encoding: Encoding,
    unsalted: &str,
    progress: &mut dyn Progress,
    embed: &mut dyn FnMut(&[(u32, String)], String, &mut dyn Progress) -> Result<(Part, Option<Shape>), Error>,
) -> Result<(Part, Option<Shape>), Error> {
    if encoding == Encoding::Rotation {
        return Err(Error::Parameter("a salted field needs the sketch encoding, not the rotation".into()));
    }
    if values.is_empty() {
        // no value to salt: the part is empty, of the base's dimension and shape
        return embed(values, context(unsalted, ""), progress);
    }
    let mut groups: std::collections::BTreeMap<&str, Vec<(u32, String)>> = Default::default();
    for (r, v) in values {
        groups.entry(salts[*r as usize].as_str()).or_default().push((*r, v.clone()));
    }
    // (group, row within the group) by batch row: rows are below `salts.len()`
    let mut at: Vec<Option<(usize, usize)>> = vec![None; salts.len()];
    let mut parts = Vec::with_capacity(groups.len());
    let (mut shape, mut done) = (None, 0u64);
    for (g, (salt, rows)) in groups.iter().enumerate() {
        // the groups' progress as one part's: each group's records after the last's
        let mut whole = Offset { inner: &mut *progress, before: done, total: values.len() as u64 };
        let (part, s) = embed(rows, context(unsalted, salt), &mut whole)?;
        done += rows.len() as u64;
        for (k, (r, _)) in rows.iter().enumerate() {
            at[*r as usize] = Some((g, k));
        }
        shape = s;
        parts.push(part);
    }
    let order: Vec<(u32, usize, usize)> =
        at.iter().enumerate().filter_map(|(r, x)| x.map(|(g, k)| (r as u32, g, k))).collect();
    let dim = parts.first().map_or(0, |p| p.vectors.dim());
    let mut vectors = SparseVectors::new(dim);
    for &(_, g, k) in &order {
        let BatchVectors::Sparse(v) = &parts[g].vectors else {
            return Err(Error::Parameter("a salted field needs the sketch encoding, not the rotation".into()));
        };
        let (c, x) = v.row(k);
        vectors.push_row(c.iter().copied().zip(x.iter().copied()));
    }
    let eds: Vec<u32> = parts.first().map(|p| p.thresholds.iter().map(|(ed, _)| *ed).collect()).unwrap_or_default();
    let thresholds = eds
        .iter()
        .enumerate()
        .map(|(i, &ed)| (ed, order.iter().map(|&(_, g, k)| parts[g].thresholds[i].1[k]).collect()))
        .collect();
    let rows = order.iter().map(|&(r, _, _)| r).collect();
    Ok((Part { rows, vectors: BatchVectors::Sparse(vectors), thresholds }, shape))
}

/// A group's progress ticks as ticks of the whole part: `before` records
/// done before the group, `total` in the part.
struct Offset<'p> {
    inner: &'p mut dyn Progress,
    before: u64,
    total: u64,
}

impl Progress for Offset<'_> {
    fn tick(&mut self, phase: &str, done: u64, total: u64) -> Result<(), Error> {
        // a phase counted in other units than the group's records passes as it is
        if total == 0 || self.total < total {
            return self.inner.tick(phase, done, total);
        }
        self.inner.tick(phase, self.before + done, self.total)
    }
}

/// Where a salted field's disagreement says nothing: two values under
/// different salts are encoded by unrelated sketches, so they disagree
/// whether or not they are equal. Where the salt field is sent, the matcher
/// sees whether the salts can differ: its level is not exact (nor, for a
/// date salting by its year, day and month swapped). There the salted
/// field's level "disagree" becomes missing, so that one wrong postcode does
/// not count as four address fields against the pair; its agreement levels
/// stand (unrelated sketches agree by chance only).
pub(crate) struct Neutral {
    /// The salted field and its salt, as indices of the sent fields.
    field: usize,
    salt: usize,
    /// The salted field's level "disagree".
    disagree: u8,
    /// The salt field's levels that keep the salt: exact (a name's exact
    /// levels on a rare and a common value; a date's swapped day and month).
    same: Vec<u8>,
}

/// The rules of `schema`'s salted fields whose salt is sent.
pub(crate) fn neutral(schema: &Schema) -> Vec<Neutral> {
    let sent: Vec<&Field> = schema.sent().collect();
    let rule = |(i, f): (usize, &&Field)| {
        let salt = sent.iter().position(|g| Some(g.name.as_str()) == f.salt.as_deref())?;
        let by = sent[salt];
        let keeps = by.splits_exact() || by.swaps();
        let same = if keeps { vec![0, 1] } else { vec![0] };
        Some(Neutral { field: i, salt, disagree: (f.level_count() - 1) as u8, same })
    };
    sent.iter().enumerate().filter_map(rule).collect()
}

/// Applies the `rules` to one pair's levels ([`Neutral`]).
pub(crate) fn neutralize(rules: &[Neutral], levels: &mut [u8]) {
    for r in rules {
        if levels[r.field] == r.disagree && !r.same.contains(&levels[r.salt]) {
            levels[r.field] = crate::em::MISSING;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyed::Encoding;
    use crate::matching::row_distance;
    use crate::progress::Progress;
    use crate::record::batch::FieldData;
    use crate::record::RecordBatch;

    fn schema(first: &str, last: &str) -> Result<Schema, Error> {
        Schema::parse_json(&format!(
            r#"{{"version": 1, "id": "id", "field": [{{"name": "first", "kind": "name"{first}}},
                {{"name": "last", "kind": "name"{last}}}, {{"name": "dob", "kind": "date"}}]}}"#
        ))
    }

    #[test]
    fn a_salt_is_another_unsalted_field_shared_by_a_space() {
        let by = r#", "salt": "dob""#;
        assert!(schema(by, by).is_ok());
        for (first, last, says) in [
            (r#", "salt": "height""#, r#", "salt": "height""#, "which is not a field"),
            (r#", "salt": "first""#, r#", "salt": "first""#, "salted by itself"),
            (r#", "salt": "last""#, r#", "salt": "dob""#, "which is salted itself"),
            (by, "", "share a gram space"),
        ] {
            let e = schema(first, last).unwrap_err();
            assert!(e.to_string().contains(says), "{e}");
            assert_eq!(e.code(), "INVALID_FORMAT", "{e}");
        }
        let keyed = Schema::parse_json(
            r#"{"version": 1, "id": "id", "field": [{"name": "sex", "kind": "keyed", "salt": "dob"},
                {"name": "dob", "kind": "date"}]}"#,
        );
        assert!(keyed.unwrap_err().to_string().contains("no keyed encoding to salt"));
    }

    /// Row `r`'s first-name vector and A's threshold at one edit.
    fn first(batch: &RecordBatch) -> (&BatchVectors, Vec<f64>) {
        let Some((_, FieldData::Embedded { parts, .. })) = batch.fields.iter().find(|(n, _)| n == "first") else {
            panic!("no first name in {:?}", batch.fields)
        };
        (&parts[0].vectors, parts[0].thresholds(1).map(<[f64]>::to_vec).unwrap_or_default())
    }

    #[test]
    fn salted_rows_are_equal_within_a_year_unrelated_across_and_thresholds_stay_sound() {
        let by = r#", "salt": "dob""#;
        let s = schema(by, by).unwrap();
        // A: JOHN born in 1970 twice (other days: two rows), and in 1980
        let a = "id,first,last,dob\na1,JOHN,SMITH,19700101\na2,JOHN,SMITH,19700505\na3,JOHN,SMITH,19800101\n";
        // B: JOHM (one edit) born in 1970, JOHN born in 1980
        let b = "id,first,last,dob\nb1,JOHM,SMITH,19700101\nb2,JOHN,SMITH,19800101\n";
        let (va, vb) = crate::record::test_batches::batches(&s, a, b, Some(Encoding::for_records()));
        let ((ra, th), (rb, _)) = (first(&va), first(&vb));
        let d = |i, j| row_distance(ra, i, ra, j);
        assert_eq!(d(0, 1), 0.0, "one name in one year: one row");
        assert!(d(0, 2) > 0.0, "one name in two years: unrelated rows");
        // A's thresholds are sound in each year's own space: the one-edit pair
        // of 1970 is within A's threshold, and the 1980 pair is equal
        assert!(row_distance(ra, 0, rb, 0) <= th[0], "{} > {}", row_distance(ra, 0, rb, 0), th[0]);
        assert_eq!(row_distance(ra, 2, rb, 1), 0.0);
        // unkeyed, nothing is salted: every JOHN is one row
        let (ua, _) = crate::record::test_batches::batches(&s, a, b, None);
        let (u, _) = first(&ua);
        assert_eq!((row_distance(u, 0, u, 2), row_distance(u, 1, u, 2)), (0.0, 0.0));
    }

    #[test]
    fn a_salted_field_s_disagreement_is_missing_where_the_salts_may_differ() {
        let by = r#", "salt": "dob""#;
        let s = Schema::parse_json(&format!(
            r#"{{"version": 1, "id": "id", "field": [{{"name": "first", "kind": "name"{by}}},
                {{"name": "last", "kind": "name"{by}}}, {{"name": "dob", "kind": "date"}},
                {{"name": "postcode", "kind": "number"}}, {{"name": "town", "kind": "string", "salt": "postcode"}},
                {{"name": "street", "kind": "string", "salt": "state"}}, {{"name": "state", "kind": "suppress"}}]}}"#
        ))
        .unwrap();
        let rules = neutral(&s);
        // a name: exact (rare, common), ed<=1, ed<=2, initial, disagree (5); a
        // date: exact, swapped, ed<=1, ed<=2, disagree; a string: exact, ed<=1,
        // ed<=2, disagree (3); the street's salt is not sent: no rule
        assert_eq!(rules.len(), 3);
        let run = |mut levels: Vec<u8>| {
            neutralize(&rules, &mut levels);
            levels
        };
        let m = crate::em::MISSING;
        // the year may differ (date ed<=1): the first name's disagreement is
        // missing, the surname's ed<=1 stands; the postcode is equal: the town's
        // disagreement counts, and so does the street's (its salt unseen)
        assert_eq!(run(vec![5, 2, 2, 0, 3, 3]), vec![m, 2, 2, 0, 3, 3]);
        // the same year (equal dates, or day and month swapped): it counts
        assert_eq!(run(vec![5, 5, 0, 0, 3, 3]), vec![5, 5, 0, 0, 3, 3]);
        assert_eq!(run(vec![5, 5, 1, 0, 3, 3]), vec![5, 5, 1, 0, 3, 3]);
        // another postcode, or none on one side
        assert_eq!(run(vec![0, 0, 0, 2, 3, 3]), vec![0, 0, 0, 2, m, 3]);
        assert_eq!(run(vec![0, 0, 0, m, 3, 3]), vec![0, 0, 0, m, m, 3]);
    }

    #[test]
    fn salted_groups_merge_back_in_row_order_with_one_progress() {
        // rows 0..5, salts by row; each group's vectors carry the row number
        let values: Vec<(u32, String)> = (0..5).map(|r| (r, format!("v{r}"))).collect();
        let salts: Vec<String> = ["1970", "1980", "1970", "", "1980"].map(String::from).to_vec();
        let mut contexts = Vec::new();
        let mut embed = |rows: &[(u32, String)], context: String, p: &mut dyn Progress| {
            contexts.push(context);
            let mut v = SparseVectors::new(8);
            for (r, _) in rows {
                v.push_row([(*r, 1.0)]);
            }
            p.tick("embed", 0, rows.len() as u64)?;
            p.tick("embed", rows.len() as u64, rows.len() as u64)?;
            let th = rows.iter().map(|(r, _)| *r as f64 / 10.0).collect();
            Ok((Part { rows: vec![], vectors: BatchVectors::Sparse(v), thresholds: vec![(1, th)] }, None))
        };
        struct Ticks(Vec<(u64, u64)>);
        impl Progress for Ticks {
            fn tick(&mut self, _: &str, done: u64, total: u64) -> Result<(), Error> {
                self.0.push((done, total));
                Ok(())
            }
        }
        let mut ticks = Ticks(Vec::new());
        let (part, _) = embed_salted(&values, &salts, Encoding::for_records(), "c", &mut ticks, &mut embed).unwrap();
        assert_eq!(part.rows, vec![0, 1, 2, 3, 4]);
        let BatchVectors::Sparse(v) = &part.vectors else { panic!("sparse") };
        assert_eq!((0..5).map(|r| v.row(r).0[0]).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
        assert_eq!(part.thresholds(1).unwrap(), &[0.0, 0.1, 0.2, 0.3, 0.4]);
        // the groups' ticks count the part's records, never backwards
        assert_eq!(ticks.0, vec![(0, 5), (1, 5), (1, 5), (3, 5), (3, 5), (5, 5)]);
        // the rotation is dense: no salt
        assert!(embed_salted(&values, &salts, Encoding::Rotation, "c", &mut ticks, &mut embed).is_err());
        // no value at all: one empty part, as the unsalted path gives
        let (empty, _) = embed_salted(&[], &salts, Encoding::for_records(), "c", &mut ticks, &mut embed).unwrap();
        assert_eq!(empty.vectors.len(), 0);
        // one context per salt, the missing salt a group of its own
        assert_eq!(contexts, ["c/salt 0:", "c/salt 4:1970", "c/salt 4:1980", "c/salt 0:"]);
    }
}
