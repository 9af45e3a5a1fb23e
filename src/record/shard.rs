//! The record matcher in shards, for a cluster (the Python package's Spark
//! job, python/gramlink/spark.py `link_records`): each task takes a range of
//! A's records against all of B and returns their candidates with each one's
//! levels, and the levels of the u sample's pairs in its range
//! ([`shard_levels`]); one step fits and decides on the union ([`link_shards`]),
//! with the single machine's functions ([`super::linker::fit_scored`],
//! [`super::linker::decide`]).
//!
//! **Why the result equals [`RecordMatcher::link`]'s, pair for pair.** An A
//! record's candidates depend on that record and on the whole of B only: an
//! equality term groups B by value and looks A's value up; an edit term's
//! q-gram filter (index and coordinate order from B) or range match keeps the
//! B records within A's threshold for that record (widened, when keyed, by
//! that record's norm and B's largest). A pair's levels are those of the two
//! records. The u sample's pairs are drawn from the whole batches' sizes
//! ([`super::linker::u_sample`]) and each shard compares the ones whose A
//! record it holds, so the union of the shards' patterns is the single
//! machine's; the fit counts patterns (integer counts, summed in any order),
//! and the decision sorts totally. So, sorted by (a, b), the union of the
//! shards' candidates with their levels is the single machine's, and so are
//! the fit, the weights, the thresholds and the assignment. A test checks it.
//!
//! A shard's records are validated when it is made ([`RecordMatcher::new`] on
//! the shard): a corrupt number in one shard fails that shard's task with the
//! core's code; [`check`] (the driver's, before any work) reads what every
//! shard shares: the schema, the parties, the key, the bases.

use super::batch::{FieldData, Part, RecordBatch};
use super::compare::Comparer;
use super::linker::{decide, fit_scored, u_sample, RecordLinkage, RecordMatcher, RuleCount};
use super::schema::Schema;
use crate::error::Error;

/// A's records `rows` (clamped to the batch), renumbered from 0: what one
/// task holds of A.
pub fn rows(batch: &RecordBatch, rows: std::ops::Range<usize>) -> RecordBatch {
    let n = batch.ids.len();
    let (start, end) = (rows.start.min(n), rows.end.min(n).max(rows.start.min(n)));
    let fields = batch
        .fields
        .iter()
        .map(|(name, data)| {
            let data = match data {
                FieldData::Embedded { base, parts, shape } => FieldData::Embedded {
                    base: base.clone(),
                    shape: shape.clone(),
                    parts: parts
                        .iter()
                        .map(|p| {
                            let lo = p.rows.partition_point(|&r| (r as usize) < start);
                            let hi = p.rows.partition_point(|&r| (r as usize) < end);
                            Part {
                                rows: p.rows[lo..hi].iter().map(|&r| r - start as u32).collect(),
                                vectors: p.vectors.slice(lo..hi),
                                thresholds: p.thresholds.iter().map(|(e, t)| (*e, t[lo..hi].to_vec())).collect(),
                            }
                        })
                        .collect(),
                },
                FieldData::Hashed(v) => FieldData::Hashed(v[start.min(v.len())..end.min(v.len())].to_vec()),
                FieldData::Clear(v) => FieldData::Clear(v[start.min(v.len())..end.min(v.len())].to_vec()),
            };
            (name.clone(), data)
        })
        .collect();
    RecordBatch {
        party: batch.party,
        schema: batch.schema.clone(),
        ids: batch.ids[start..end].to_vec(),
        epsilon: batch.epsilon.clone(),
        private: batch.private,
        keyed: batch.keyed,
        encoding: batch.encoding.clone(),
        key_check: batch.key_check.clone(),
        fields,
    }
}

/// Checks what every shard shares before any work: `a` and `b` under
/// `schema` as [`RecordMatcher::new`] checks them, on A's first record only
/// (each task validates its own records).
pub fn check(schema: &Schema, a: &RecordBatch, b: &RecordBatch) -> Result<(), Error> {
    RecordMatcher::new(schema.clone(), rows(a, 0..1), b.clone()).map(|_| ())
}

/// One shard's work: its candidates (rows of the whole A), each one's levels
/// and whether the names matched swapped, what each rule found, and the
/// patterns of the u sample's pairs whose A record it holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ShardLevels {
    pub candidates: Vec<(u32, u32)>,
    pub levels: Vec<(Vec<u8>, bool)>,
    pub rules: Vec<RuleCount>,
    pub sample: Vec<Vec<u8>>,
}

/// How a shard's matcher is made from its two batches:
/// [`RecordMatcher::new`] (A against B, the two-party linkage) or
/// [`RecordMatcher::pair`] (any two parties' batches, `a`'s party sending
/// thresholds: a shard of one pair of a linkage of more than two parties,
/// [`crate::multi::records`]).
pub type MakeMatcher = fn(Schema, RecordBatch, RecordBatch) -> Result<RecordMatcher, Error>;

/// The candidates of A's records `offset..offset + a.ids.len()` (`a`: those
/// records, [`rows`]) of a batch of `a_rows` records, against the whole of
/// `b`, with their levels, as the matcher `make` makes of them; and the u
/// sample's patterns in that range.
pub fn shard_levels(
    schema: &Schema,
    a: RecordBatch,
    b: RecordBatch,
    offset: usize,
    a_rows: usize,
    make: MakeMatcher,
) -> Result<ShardLevels, Error> {
    // a shard that sees a slice of A: rules designed on it would differ from
    // shard to shard and from the single machine's (a shard of all of A, as
    // a linkage of more parties runs each pair on one machine, designs them
    // as the single machine does)
    if schema.designs_blocks() && (offset != 0 || a.ids.len() != a_rows) {
        return Err(Error::Parameter(
            "blocking = \"auto\" designs the rules on the whole batches, which a shard does not see: link on one \
             machine, or write the rules `gramlink blocks` designs into the schema (the owners then embed again)"
                .into(),
        ));
    }
    if offset.checked_add(a.ids.len()).is_none_or(|end| end > a_rows || end > u32::MAX as usize) {
        return Err(Error::Parameter(format!(
            "A records {offset}..{}: past the batch's {a_rows}",
            offset.saturating_add(a.ids.len())
        )));
    }
    let nb = b.ids.len();
    let m = make(schema.clone(), a, b)?;
    let (local, rules) = m.candidates()?;
    let cmp = Comparer::new(schema, m.a(), m.b()).map_err(Error::Parameter)?;
    let nf = cmp.fields.len();
    let levels = crate::par::map(&local, |&(a, b)| {
        let mut out = vec![0u8; nf];
        let swapped = cmp.levels(a, b, &mut out);
        (out, swapped)
    });
    let end = offset + m.a().ids.len();
    let sample = u_sample(a_rows, nb)
        .into_iter()
        .filter(|&(a, _)| (offset..end).contains(&(a as usize)))
        .map(|(a, b)| {
            let mut out = vec![0u8; nf];
            cmp.levels(a - offset as u32, b, &mut out);
            out
        })
        .collect();
    let candidates = local.into_iter().map(|(a, b)| (a + offset as u32, b)).collect();
    Ok(ShardLevels { candidates, levels, rules, sample })
}

/// A candidate (a, b) with its levels and whether the names matched swapped.
type Levelled = ((u32, u32), (Vec<u8>, bool));

/// The linkage of every shard's [`ShardLevels`] (any order) for `na` A and
/// `nb` B records: what [`RecordMatcher::link`] returns for the whole batches
/// (or its refusal of the fit).
pub fn link_shards(schema: &Schema, na: usize, nb: usize, shards: Vec<ShardLevels>) -> Result<RecordLinkage, Error> {
    let mut rules: Vec<RuleCount> = Vec::new();
    let mut all: Vec<Levelled> = Vec::new();
    let mut random = std::collections::HashMap::<Vec<u8>, u64>::new();
    for s in shards {
        for r in s.rules {
            match rules.iter_mut().find(|x| x.rule == r.rule) {
                Some(x) => x.pairs += r.pairs,
                None => rules.push(r),
            }
        }
        all.extend(s.candidates.into_iter().zip(s.levels));
        for p in s.sample {
            *random.entry(p).or_default() += 1;
        }
    }
    // the rules in the schema's order, whichever shard came first
    let order: Vec<String> = schema.block_rules().iter().map(|r| super::blocking::rule_name(schema, r)).collect();
    crate::sorting::sort_by(&mut rules, |x, y| {
        let at = |r: &String| order.iter().position(|o| o == r);
        at(&x.rule).cmp(&at(&y.rule))
    });
    crate::sorting::sort_by(&mut all, |x, y| x.0.cmp(&y.0));
    let (candidates, levels) = all.into_iter().unzip();
    let scored = fit_scored(schema, na, nb, candidates, rules, levels, random.into_iter().collect())?;
    Ok(decide(schema, na, nb, &scored, None, None))
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::dp::Randomness;
    use crate::keyed::EmbedKey;
    use crate::party::EmbedOptions;
    use crate::progress::NoProgress;
    use crate::protocol::Party;
    use crate::record::{merge, RecordOwner};

    fn febrl() -> (Schema, RecordBatch, RecordBatch) {
        let text = std::fs::read_to_string("data/febrl/schema.toml").unwrap();
        let v: toml::Value = toml::from_str(&text).unwrap();
        let schema = Schema::parse_json(&serde_json::to_string(&v).unwrap()).unwrap();
        let owner = |file: &str, seed| {
            let bytes = std::fs::read(format!("data/febrl/{file}")).unwrap();
            RecordOwner::read(&bytes, schema.clone(), file, Randomness::seeded(seed)).unwrap()
        };
        let (mut a, mut b) = (owner("dataset1-a.csv", 1), owner("dataset1-b.csv", 2));
        let shared = merge(&a.mine(&mut NoProgress).unwrap(), &b.mine(&mut NoProgress).unwrap(), &schema).unwrap();
        let key = crate::keyed::Key::from_bytes([9; 32]);
        // the key hashes the keyed fields; the vectors go unrotated
        let o =
            |party| EmbedOptions { key: EmbedKey { key: Some(key.clone()), rotate: false }, ..EmbedOptions::of(party) };
        let ba = a.embed(&shared, &o(Party::A), &mut NoProgress).unwrap().batch;
        let bb = b.embed(&shared, &o(Party::B), &mut NoProgress).unwrap().batch;
        (schema, ba, bb)
    }

    #[test]
    fn shards_in_any_order_give_the_record_matcher_s_linkage() {
        let (schema, a, b) = febrl();
        let whole = RecordMatcher::new(schema.clone(), a.clone(), b.clone()).unwrap().link().unwrap();
        assert!(whole.matches > 400, "{}", whole.matches);
        let n = a.ids.len();
        let mut shards = Vec::new();
        // shards of 130 records, the last first
        for start in [390, 0, 260, 130] {
            shards.push(
                shard_levels(&schema, rows(&a, start..start + 130), b.clone(), start, n, RecordMatcher::new).unwrap(),
            );
        }
        let linkage = link_shards(&schema, n, b.ids.len(), shards).unwrap();
        assert_eq!(linkage, whole);
    }

    #[test]
    fn a_corrupt_shard_and_mismatched_batches_are_refused() {
        let (schema, a, b) = febrl();
        check(&schema, &a, &b).unwrap();
        // a NaN threshold in record 300's name: only the shard holding it fails
        let mut bad = a.clone();
        if let FieldData::Embedded { parts, .. } = &mut bad.fields[0].1 {
            let i = parts[0].rows.iter().position(|&r| r >= 300).unwrap();
            parts[0].thresholds[0].1[i] = f64::NAN;
        }
        check(&schema, &bad, &b).unwrap();
        assert!(shard_levels(&schema, rows(&bad, 0..250), b.clone(), 0, 500, RecordMatcher::new).is_ok());
        let e = shard_levels(&schema, rows(&bad, 250..500), b.clone(), 250, 500, RecordMatcher::new).unwrap_err();
        assert_eq!(e.code(), "INVALID_MESSAGE", "{e}");
        // B given as A; a range past the batch
        assert_eq!(check(&schema, &b, &a).unwrap_err().code(), "INVALID_PARAMETER");
        assert!(shard_levels(&schema, rows(&a, 400..500), b.clone(), 450, 500, RecordMatcher::new).is_err());
        // rules designed per shard would differ from the single machine's
        let mut auto = schema.clone();
        auto.blocks.clear();
        auto.blocking = Some("auto".into());
        let e = shard_levels(&auto, rows(&a, 0..250), b, 0, 500, RecordMatcher::new).unwrap_err();
        assert!(e.to_string().contains("whole batches"), "{e}");
    }
}
