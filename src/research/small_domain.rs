//! The record batch attacked field by field (`gramlink lab attack --schema`): C
//! holds A's record batch, the shared bases and a public frequency list, and
//! no key.
//!
//! - **Embedded fields, per base.** Every part embedded over one base shares
//!   its rotation (HKDF salted by the base's fingerprint): all digit parts
//!   (`date_of_birth`'s year, month and day, every `number`) share the public
//!   digit base. C pools those parts' rows and runs the inner-product
//!   bootstrap ([`super::algebra`]) against the base's public domain: every
//!   digit string of up to [`DIGITS`] digits (years, months, days, postcodes,
//!   street numbers), plus the public list's values. Anchors come from each
//!   part's largest groups against the public list's most frequent values of
//!   the same part. A Procrustes fit ([`super::procrustes`]) on the decoded
//!   pairs then un-rotates every row, and the Eulerian decoder
//!   ([`super::reconstruct`]) reads the rows the domain does not hold (a
//!   7-digit SSN).
//! - **Keyed-hash fields.** Equal values give equal hashes: the i-th largest
//!   group is named after the public list's i-th most frequent value.
//!
//! The public list is the other party's plain values (its frequencies stand
//! for a public frequency list of the field: the worst case for A).

use super::algebra::{bootstrap, frequency_seeds, Hypothesis, Plain, Rows, ROUNDING};
use super::digits::best_relabel;
use super::procrustes::{dense_row, fit, fit_held_out, FitReport};
use super::reconstruct::{Decoded, Decoder};
use crate::dp::Randomness;
use crate::embed::Embedder;
use crate::error::Error;
use crate::keyed::Key;
use crate::progress::{NoProgress, Progress};
use crate::protocol::Party;
use crate::record::batch::FieldData;
use crate::record::values::RecordTable;
use crate::record::{merge, Kind, RecordBatch, RecordOwner, Schema, SharedBases};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Digit strings up to this length make a digit base's domain (11,110 strings).
pub const DIGITS: usize = 4;
/// Shortest distinct rows of a digit base labelled first.
const DIGIT_SEEDS: usize = 40;
/// Groups per part matched against the public frequency ranks.
const SEED_GROUPS: usize = 8;
/// Public ranks a seed group may take.
const SEED_RANKS: usize = 64;

/// One field's re-identification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldAttack {
    pub field: String,
    pub kind: String,
    /// Records of A with the field present, and their distinct values.
    pub records: usize,
    pub distinct: usize,
    /// Share of those records whose every part the bootstrap decoded right.
    pub bootstrap_share: f64,
    /// Share named exactly (one candidate, the true value).
    pub exact_share: f64,
    /// Share whose true value is among at most 5 candidates.
    pub within5_share: f64,
    /// The exact share over distinct values.
    pub exact_distinct_share: f64,
}

/// The bootstrap on one base's pooled parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpaceAttack {
    pub fields: Vec<String>,
    pub domain: usize,
    pub distinct_rows: usize,
    pub frequency_anchors: usize,
    pub norm_anchors: usize,
    pub rounds: Vec<usize>,
    /// Distinct rows the bootstrap decoded to a wrong value.
    pub wrong_rows: usize,
    pub fit: FitReport,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordAttackReport {
    pub records: usize,
    pub fields: Vec<FieldAttack>,
    pub spaces: Vec<SpaceAttack>,
    /// Graph matching on each embedded part ([`super::graph_records`]), with
    /// the field's own values as C's list, then with the other party's.
    pub graph: Vec<super::graph_records::FieldGraph>,
}

/// An embedded part of a field: the field, the part's index, the part.
type PartRef<'b> = (String, usize, &'b crate::record::batch::Part);

/// The text part `c` of field `name` embeds of value `v` ([`crate::record::Field::part_text`]).
fn part<'v>(schema: &Schema, name: &str, c: usize, v: &'v str) -> std::borrow::Cow<'v, str> {
    schema.field(name).map_or(std::borrow::Cow::Borrowed(v), |f| f.part_text(c, v))
}

/// Values ranked by frequency (most frequent first, ties by value).
fn ranked<'v>(values: impl Iterator<Item = &'v str>) -> Vec<&'v str> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    values.for_each(|v| *count.entry(v).or_default() += 1);
    let mut r: Vec<(&str, usize)> = count.into_iter().collect();
    r.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    r.into_iter().map(|(v, _)| v).collect()
}

/// Attacks `batch` (as C receives it) field by field; `public` is C's public
/// list (plain values per field), `truth` A's table (only to score).
pub fn record_attack(
    batch: &RecordBatch,
    schema: &Schema,
    shared: &SharedBases,
    public: &RecordTable,
    truth: &RecordTable,
) -> Result<RecordAttackReport, Error> {
    batch.validate(schema)?;
    let kind_of = |name: &str| schema.field(name).and_then(|f| f.kind()).unwrap_or(Kind::String);
    // per base: (field, part index, part)
    let mut by_base: Vec<(String, Vec<PartRef>)> = Vec::new();
    for (name, data) in &batch.fields {
        if let FieldData::Embedded { base, parts, .. } = data {
            let slot = match by_base.iter().position(|(b, _)| b == base) {
                Some(i) => i,
                None => {
                    by_base.push((base.clone(), Vec::new()));
                    by_base.len() - 1
                }
            };
            by_base[slot].1.extend(parts.iter().enumerate().map(|(c, p)| (name.clone(), c, p)));
        }
    }
    // candidates per (field, part, row of the batch)
    let mut cands: HashMap<(String, usize, u32), (Vec<String>, bool)> = HashMap::new();
    let mut spaces = Vec::new();
    for (fp, parts) in &by_base {
        let base = shared.by_fingerprint(fp)?;
        let digits = parts.iter().all(|(f, _, _)| matches!(kind_of(f), Kind::Number | Kind::Date));
        let mut domain: Vec<String> = Vec::new();
        if digits {
            let mut words = vec![String::new()];
            for _ in 0..DIGITS {
                words = words.iter().flat_map(|w| ('0'..='9').map(move |d| format!("{w}{d}"))).collect();
                domain.extend(words.iter().cloned());
            }
        }
        let public_texts: Vec<Vec<String>> = parts
            .iter()
            .map(|(f, c, _)| public.column(f).iter().flatten().map(|v| part(schema, f, *c, v).into_owned()).collect())
            .collect();
        let public_ranks: Vec<Vec<&str>> = public_texts.iter().map(|t| ranked(t.iter().map(String::as_str))).collect();
        let mut seen: std::collections::HashSet<String> = domain.iter().cloned().collect();
        for v in public_ranks.iter().flatten() {
            if seen.insert(v.to_string()) {
                domain.push(v.to_string());
            }
        }
        let index: HashMap<&str, u32> = domain.iter().enumerate().map(|(i, s)| (s.as_str(), i as u32)).collect();
        let embedder = Embedder::new(base)?;
        let plain = Plain::new(&embedder.embed_all_sparse(&domain, &mut NoProgress)?);
        let rows = Rows::new(&parts.iter().map(|(_, _, p)| &p.vectors).collect::<Vec<_>>());
        // anchors: each part's largest groups against its public ranks
        let mut part_sizes: Vec<HashMap<u32, u32>> = Vec::new();
        let mut start = 0;
        for (_, _, p) in parts {
            let mut size: HashMap<u32, u32> = HashMap::new();
            for &g in &rows.group_of[start..start + p.vectors.len()] {
                *size.entry(g).or_default() += 1;
            }
            start += p.vectors.len();
            part_sizes.push(size);
        }
        let mut hyps: Vec<(u32, Hypothesis)> = Vec::new();
        for (size, ranks) in part_sizes.iter().zip(&public_ranks) {
            let mut order: Vec<(u32, u32)> = size.iter().map(|(&g, &n)| (g, n)).filter(|&(_, n)| n > 1).collect();
            order.sort_by_key(|&(g, n)| (std::cmp::Reverse(n), g));
            let top: Vec<u32> = ranks.iter().take(SEED_RANKS).map(|v| plain.group_of[index[v] as usize]).collect();
            for (i, &(g, n)) in order.iter().take(SEED_GROUPS).enumerate() {
                let mut c: Vec<(usize, u32)> = top.iter().enumerate().map(|(r, &p)| (r.abs_diff(i), p)).collect();
                c.sort_unstable();
                if !hyps.iter().any(|(_, h)| h.row == g) {
                    hyps.push((n, Hypothesis { row: g, candidates: c.into_iter().map(|(_, p)| p).collect() }));
                }
            }
        }
        hyps.sort_by_key(|(n, h)| (std::cmp::Reverse(*n), h.row));
        let mut hyps: Vec<Hypothesis> = hyps.into_iter().map(|(_, h)| h).collect();
        if digits {
            // the shortest values first, any labels: the first rows fix the
            // digits' labels (up to the relabelling fixed below), the next
            // ones follow from their inner products with them
            let mut order: Vec<usize> = (0..rows.len()).collect();
            order.sort_by(|&a, &b| rows.norms2[a].total_cmp(&rows.norms2[b]).then(rows.size[b].cmp(&rows.size[a])));
            hyps = order
                .into_iter()
                .take(DIGIT_SEEDS)
                .map(|g| Hypothesis {
                    row: g as u32,
                    candidates: plain.of_norm(rows.norms2[g], ROUNDING * rows.norms2[g] + 1e-9).collect(),
                })
                .collect();
        }
        let seeds = frequency_seeds(&rows, &plain, &hyps);
        let mut b = bootstrap(&rows, &plain, &seeds);
        if digits {
            // inner products name digits up to a relabelling: the public frequencies fix it
            let counts: Vec<HashMap<&str, usize>> = public_texts
                .iter()
                .map(|texts| {
                    let mut m = HashMap::new();
                    for v in texts {
                        *m.entry(v.as_str()).or_default() += 1;
                    }
                    m
                })
                .collect();
            let value = |p: u32| domain[plain.members[p as usize][0] as usize].clone();
            let mut found: Vec<(usize, String, u32)> = part_sizes
                .iter()
                .enumerate()
                .flat_map(|(k, sizes)| sizes.iter().map(move |(&g, &n)| (k, g, n)))
                .filter_map(|(k, g, n)| b.decoded[g as usize].map(|p| (k, value(p), n)))
                .collect();
            found.sort();
            let r = best_relabel(&found, &counts);
            for d in b.decoded.iter_mut() {
                *d = d.and_then(|p| index.get(r.apply(&value(p)).as_str()).map(|&i| plain.group_of[i as usize]));
            }
        }
        // the fit, checked on held-out rows, then on every decoded pair
        let mut first_value: Vec<Option<String>> = vec![None; rows.len()];
        let mut start = 0;
        for (f, c, p) in parts {
            let values = truth.column(f);
            for (k, &r) in p.rows.iter().enumerate() {
                let g = rows.group_of[start + k] as usize;
                if first_value[g].is_none() {
                    first_value[g] =
                        values.get(r as usize).cloned().flatten().map(|v| part(schema, f, *c, &v).into_owned());
                }
            }
            start += p.vectors.len();
        }
        let wrong_rows = (0..rows.len())
            .filter(|&g| {
                b.decoded[g].is_some_and(|p| {
                    !plain.members[p as usize]
                        .iter()
                        .any(|&i| first_value[g].as_deref() == Some(domain[i as usize].as_str()))
                })
            })
            .count();
        let truth_vec = |g: usize| first_value[g].as_deref().map_or(Vec::new(), |v| embedder.embed_sparse(v));
        let (_, fit_report) = fit_held_out(&rows, &plain, &b.decoded, &truth_vec, &mut Randomness::seeded(1));
        let pairs: Vec<(u32, u32)> =
            b.decoded.iter().enumerate().filter_map(|(g, d)| d.map(|p| (g as u32, p))).collect();
        let full = fit(&rows, &plain, &pairs);
        let decoder = Decoder::new(base, &embedder);
        let groups: Vec<usize> = (0..rows.len()).collect();
        let per_group: Vec<(Vec<String>, bool)> = crate::par::map(&groups, |&g| match b.decoded[g] {
            Some(p) => (plain.members[p as usize].iter().map(|&i| domain[i as usize].clone()).collect(), true),
            None => {
                let (Some(f), Some(d)) = (&full, &decoder) else { return (Vec::new(), false) };
                let x = f.unrotate(&dense_row(&rows, g));
                let (mut cols, mut vals) = (Vec::new(), Vec::new());
                for (c, &v) in x.iter().enumerate() {
                    let len = embedder.gram_len(c) as f64;
                    let count = (v * len).round();
                    if count > 0.0 {
                        cols.push(c as u32);
                        vals.push((count / len) as f32);
                    }
                }
                match d.decode(&cols, &vals) {
                    Decoded::Candidates(c) => (c, false),
                    Decoded::TooMany => (Vec::new(), false),
                }
            }
        });
        let mut start = 0;
        for (f, c, p) in parts {
            for (k, &r) in p.rows.iter().enumerate() {
                cands.insert((f.clone(), *c, r), per_group[rows.group_of[start + k] as usize].clone());
            }
            start += p.vectors.len();
        }
        let mut fields: Vec<String> = parts.iter().map(|(f, _, _)| f.clone()).collect();
        fields.dedup();
        spaces.push(SpaceAttack {
            fields,
            domain: domain.len(),
            distinct_rows: rows.len(),
            frequency_anchors: b.frequency_anchors,
            norm_anchors: b.norm_anchors,
            rounds: b.rounds,
            wrong_rows,
            fit: fit_report,
        });
    }
    let text_parts = |name: &str| schema.field(name).map_or(1, |f| f.text_parts());
    let mut fields = Vec::new();
    for (name, data) in &batch.fields {
        let kind = kind_of(name);
        let values = truth.column(name);
        let present: Vec<(usize, &str)> =
            values.iter().enumerate().filter_map(|(r, v)| v.as_deref().map(|v| (r, v))).collect();
        // per present record: (bootstrap right, exact, within 5)
        let score: Vec<(bool, bool, bool)> = match data {
            FieldData::Embedded { parts, .. } => present
                .iter()
                .map(|&(r, v)| {
                    let (mut boot, mut exact, mut product, mut all) = (true, true, 1usize, true);
                    // a date is read back with its text parts (the whole date, or a split
                    // one's year, month and day); its swapped and within-days parts are
                    // functions of it, each attacked by graph matching on its own
                    for c in 0..text_parts(name).min(parts.len()) {
                        let want = part(schema, name, c, v);
                        let (cs, by_bootstrap) =
                            cands.get(&(name.clone(), c, r as u32)).cloned().unwrap_or((Vec::new(), false));
                        let hit = cs.iter().any(|s| s.as_str() == want.as_ref());
                        boot &= by_bootstrap && hit && cs.len() == 1;
                        exact &= hit && cs.len() == 1;
                        all &= hit;
                        product = product.saturating_mul(cs.len().max(1));
                    }
                    (boot, exact, all && product <= 5)
                })
                .collect(),
            FieldData::Hashed(hashes) => {
                // (size, first row) per hash: the largest first, ties by first seen
                let mut count: HashMap<[u8; 16], (usize, usize)> = HashMap::new();
                for (r, h) in hashes.iter().enumerate() {
                    if let Some(h) = h {
                        count.entry(*h).or_insert((0, r)).0 += 1;
                    }
                }
                let mut groups: Vec<([u8; 16], (usize, usize))> = count.into_iter().collect();
                groups.sort_by_key(|&(_, (n, first))| (std::cmp::Reverse(n), first));
                let rank: HashMap<[u8; 16], usize> = groups.iter().enumerate().map(|(i, (h, _))| (*h, i)).collect();
                let names = ranked(public.column(name).iter().flatten().map(|v| v.as_str()));
                present
                    .iter()
                    .map(|&(r, v)| {
                        let i = hashes[r].and_then(|h| rank.get(&h).copied()).unwrap_or(usize::MAX);
                        let near = |k: usize| names.get(k).is_some_and(|&n| n == v);
                        let within = (i.saturating_sub(2)..i.saturating_add(3)).any(near);
                        (false, near(i), within)
                    })
                    .collect()
            }
            FieldData::Clear(_) => present.iter().map(|_| (false, true, true)).collect(),
        };
        let n = present.len().max(1) as f64;
        let share = |k: usize| score.iter().filter(|s| [s.0, s.1, s.2][k]).count() as f64 / n;
        let mut exact_values: HashMap<&str, bool> = HashMap::new();
        for (&(_, v), s) in present.iter().zip(&score) {
            *exact_values.entry(v).or_insert(true) &= s.1;
        }
        fields.push(FieldAttack {
            field: name.clone(),
            kind: kind.name().to_string(),
            records: present.len(),
            distinct: exact_values.len(),
            bootstrap_share: share(0),
            exact_share: share(1),
            within5_share: share(2),
            exact_distinct_share: exact_values.values().filter(|&&e| e).count() as f64
                / exact_values.len().max(1) as f64,
        });
    }
    let mut graph = super::graph_records::graph_fields(batch, schema, shared, truth, None, 1)?;
    graph.extend(super::graph_records::graph_fields(batch, schema, shared, truth, Some(public), 1)?);
    Ok(RecordAttackReport { records: batch.ids.len(), fields, spaces, graph })
}

/// A's keyed record batch by the default two-party flow (both read their
/// CSV under `schema`, mine, merge; A embeds with a key and `encoding`),
/// attacked with B's plain values as the public list.
pub fn run_record_attack(
    schema: &Schema,
    a_csv: &[u8],
    b_csv: &[u8],
    seed: u64,
    encoding: crate::keyed::Encoding,
    progress: &mut dyn Progress,
) -> Result<RecordAttackReport, Error> {
    let mut rng = Randomness::seeded(seed);
    let (ra, rb) = (rng.fork(), rng.fork());
    let mut a = RecordOwner::read(a_csv, schema.clone(), "party A's records", ra)?;
    let mut b = RecordOwner::read(b_csv, schema.clone(), "party B's records", rb)?;
    let (na, nb) = (a.mine(progress)?, b.mine(progress)?);
    let shared = merge(&na, &nb, schema)?;
    let mut key = [0u8; 32];
    rng.fill_bytes(&mut key);
    // the rows in record order: the truth is A's table
    let options = crate::party::EmbedOptions {
        key: crate::keyed::EmbedKey::rotated(Key::from_bytes(key)),
        encoding,
        ..crate::party::EmbedOptions::of(Party::A).local()
    };
    let batch = a.embed(&shared, &options, progress)?.batch;
    record_attack(&batch, schema, &shared, b.table(), a.table())
}
