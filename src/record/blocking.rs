//! Candidate pairs: the union of the schema's blocking rules, each a
//! conjunction of terms ([`BlockRule::terms`]).
//!
//! A rule runs in one of two ways. With equality terms (ed 0 on an embedded
//! field, a date, a keyed or a clear field), both sides are grouped by the
//! concatenation of those values, and only pairs in a common group are checked
//! against the rule's edit terms: a date of birth shared by a few dozen people
//! turns a million records into tens of millions of cheap checks instead of
//! the |A|·|B| ones. Without one, the first edit term finds its pairs with the
//! q-gram filter (nearest [`BLOCK_PER_ROW`] per A record) and the other terms
//! check them.
//!
//! An edit term holds when the pair is within `ed` edits by A's sound
//! thresholds and the q-gram bound (`compare::PartCmp`), so a pair
//! truly within `ed` edits on every term is never lost. A name field's term
//! also holds across the other name fields (swapped given name and surname),
//! for equality terms too: B's records join under every choice of name field.
//! A date's equality term holds for the date with its day and month swapped
//! too, when the field has that level (`swap`, on by default for a whole
//! date): it joins on the date's unordered part ([`super::date_parts`]), so a
//! swapped date stays a candidate when a name is misspelt as well.
//!
//! **Privacy.** Only what the batches hold is used (vectors, A's thresholds,
//! keyed hashes, clear values); no budget is spent.

use super::batch::{FieldData, RecordBatch};
use super::compare::{row_index, PartCmp};
use super::date_parts::DatePart;
use super::schema::{BlockRule, BlockTerm, Kind, Schema};
use crate::error::Error;
use crate::matching::{range_match, scored_match_rows, MAX_PAIRS};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// What a blocking rule found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleCount {
    pub rule: String,
    pub pairs: u64,
    /// The fields the rule's terms name: a pair agreeing exactly on all of
    /// them is a candidate ([`super::interaction`] counts on that). Carried
    /// with the count so that a designed rule (`blocking = "auto"`) is known
    /// wherever the fit runs, shards included.
    #[serde(default)]
    pub fields: Vec<String>,
}

impl RuleCount {
    /// The count of `rule` of `schema`.
    pub fn of(schema: &Schema, rule: &BlockRule, pairs: u64) -> RuleCount {
        let fields = rule.terms().iter().map(|t| t.field.clone()).collect();
        RuleCount { rule: rule_name(schema, rule), pairs, fields }
    }
}

/// The candidate pairs (a, b), ascending, and what each blocking rule found.
pub type Candidates = (Vec<(u32, u32)>, Vec<RuleCount>);

/// Most pairs a rule's equal values may join: each is only checked against
/// the rule's edit terms (a quick sparse comparison, group by group, never
/// held), so this bounds time, not memory; the candidates kept are bounded by
/// [`MAX_PAIRS`]. A million persons' records held by two registries that both
/// swap given name and surname now and then join 7.4·10⁸ pairs on "surname
/// equal" (a swapped surname is a common given name, met across the name
/// fields): benches/multi/people.sh, docs/PERFORMANCE.md.
pub const MAX_JOIN_CHECKS: u64 = 2_000_000_000;

/// Most candidates one A record gets from one edit term found by the q-gram
/// filter (the nearest by cosine): bounds a rule's candidates by 256·|A|
/// when a value is very common.
pub const BLOCK_PER_ROW: usize = 256;

/// The candidate pairs (a, b), ascending, of the union of `schema`'s rules,
/// and what each rule found.
pub fn candidates(schema: &Schema, a: &RecordBatch, b: &RecordBatch) -> Result<Candidates, Error> {
    let mut all: Vec<u64> = Vec::new();
    let mut counts = Vec::new();
    for rule in schema.block_rules() {
        let mut found = rule_pairs(schema, a, b, &rule)?;
        crate::sorting::sort_keys(&mut found);
        found.dedup();
        counts.push(RuleCount::of(schema, &rule, found.len() as u64));
        all.extend(found);
        if all.len() as u64 > MAX_PAIRS {
            return Err(Error::Parameter(format!(
                "the blocking rules give more than {MAX_PAIRS} candidate pairs: make them stricter{}",
                if schema.default_blocks() {
                    " (these are the default rules, each name within 1 edit and each date equal: write [[block]] \
                     rules, or set blocking = \"auto\")"
                } else {
                    ""
                }
            )));
        }
    }
    crate::sorting::sort_keys(&mut all);
    all.dedup();
    Ok((all.into_iter().map(|k| ((k >> 32) as u32, k as u32)).collect(), counts))
}

/// A rule as reports show it: "date_of_birth equal and surname within 1 edits".
pub fn rule_name(schema: &Schema, rule: &BlockRule) -> String {
    let term = |t: &BlockTerm| match (schema.field(&t.field).and_then(|f| f.kind()), t.ed) {
        (Some(k), ed) if k.is_embedded() && k != Kind::Date && ed != Some(0) => {
            format!("{} within {} edits", t.field, ed.unwrap_or(1))
        }
        _ if schema.field(&t.field).is_some_and(|f| f.swaps()) => format!("{} equal or swapped", t.field),
        _ => format!("{} equal", t.field),
    };
    rule.terms().iter().map(term).collect::<Vec<_>>().join(" and ")
}

/// A term, resolved against the batches: the sent field's index and the B
/// fields it is compared with (itself, and the other name fields for a name).
struct Term<'t> {
    term: &'t BlockTerm,
    field: usize,
    targets: Vec<usize>,
    /// `Some(ed)`: an edit term; `None`: an equality term.
    ed: Option<u32>,
    /// The embedded parts an equality term compares (every part, or a
    /// swapping date's unordered part alone).
    parts: Vec<usize>,
}

fn resolve<'t>(schema: &Schema, a: &RecordBatch, t: &'t BlockTerm) -> Result<Term<'t>, Error> {
    let sent: Vec<_> = schema.sent().collect();
    let field = sent
        .iter()
        .position(|f| f.name == t.field)
        .ok_or_else(|| Error::Parameter(format!("block rule on {:?}, which is not a sent field", t.field)))?;
    let kind = sent[field].kind();
    let mut targets = vec![field];
    if kind == Some(Kind::Name) {
        targets.extend((0..sent.len()).filter(|&j| j != field && sent[j].kind() == Some(Kind::Name)));
    }
    let ed = match (&a.fields[field].1, kind) {
        (FieldData::Embedded { .. }, Some(k)) if k != Kind::Date => Some(t.ed.unwrap_or(1)).filter(|&e| e > 0),
        _ => None,
    };
    // a date's unordered part agrees exactly when the dates are equal or
    // swapped: joining on it alone takes both
    let parts = match sent[field].date_parts().iter().position(|&p| p == DatePart::Unordered) {
        Some(c) if sent[field].swaps() => vec![c],
        _ => (0..sent[field].parts()).collect(),
    };
    Ok(Term { term: t, field, targets, ed, parts })
}

/// The pairs (as `a << 32 | b`) one rule finds, unsorted, possibly repeated.
fn rule_pairs(schema: &Schema, a: &RecordBatch, b: &RecordBatch, rule: &BlockRule) -> Result<Vec<u64>, Error> {
    match rule_pairs_within(schema, a, b, rule, MAX_JOIN_CHECKS)? {
        Found::Pairs(p) => Ok(p),
        Found::Over(joined) => Err(Error::Parameter(format!(
            "block rule {:?}: its equal values join {joined} pairs, more than {MAX_JOIN_CHECKS}: add a more selective equality term",
            rule_name(schema, rule)
        ))),
    }
}

/// What [`rule_pairs_within`] found.
pub(crate) enum Found {
    /// The pairs (as `a << 32 | b`), unsorted, possibly repeated.
    Pairs(Vec<u64>),
    /// The rule's equal values join this many pairs, more than the cap
    /// (counted before any is checked; for a rule of equality terms only,
    /// its candidates).
    Over(u64),
}

/// [`rule_pairs`], or [`Found::Over`] when the rule's equal values join more
/// than `cap` pairs. An edit rule's pairs are bounded by the q-gram filter's
/// [`BLOCK_PER_ROW`] per A record instead.
pub(crate) fn rule_pairs_within(
    schema: &Schema,
    a: &RecordBatch,
    b: &RecordBatch,
    rule: &BlockRule,
    cap: u64,
) -> Result<Found, Error> {
    let terms = rule.terms();
    let terms: Vec<Term> = terms.iter().map(|t| resolve(schema, a, t)).collect::<Result<_, _>>()?;
    let (edits, equal): (Vec<&Term>, Vec<&Term>) = terms.iter().partition(|t| t.ed.is_some());
    if equal.is_empty() {
        let (first, rest) = edits.split_first().ok_or_else(|| Error::Parameter("a block rule without terms".into()))?;
        let found = edit_pairs(a, b, first)?;
        if rest.is_empty() {
            return Ok(Found::Pairs(found));
        }
        let check = Checks::new(a, b, rest)?;
        let kept = crate::par::chunks(found.len(), 1 << 16, |r| {
            let mut check = check.checker();
            found[r].iter().copied().filter(|&k| check.hold((k >> 32) as u32, k as u32)).collect::<Vec<u64>>()
        });
        return Ok(Found::Pairs(kept.concat()));
    }
    let check = Checks::new(a, b, &edits)?;
    join(a, b, &equal, &check, cap)
}

/// The edit terms of a rule, checked on a pair: each holds for some target.
struct Checks<'a> {
    terms: Vec<Vec<PartCmp<'a>>>,
}

impl<'a> Checks<'a> {
    fn new(a: &'a RecordBatch, b: &'a RecordBatch, terms: &[&Term]) -> Result<Checks<'a>, Error> {
        let (na, nb) = (a.ids.len(), b.ids.len());
        let mut out = Vec::new();
        for t in terms {
            let FieldData::Embedded { parts: pa, shape, .. } = &a.fields[t.field].1 else { continue };
            let ed = t.ed.unwrap_or(1);
            let mut parts = Vec::new();
            for &j in &t.targets {
                let FieldData::Embedded { parts: pb, .. } = &b.fields[j].1 else { continue };
                parts.push(
                    PartCmp::new(&pa[0], &pb[0], na, nb, &[ed], a.keyed, shape.as_ref()).map_err(Error::Parameter)?,
                );
            }
            out.push(parts);
        }
        Ok(Checks { terms: out })
    }

    /// One worker's checker (with its scratch rows).
    fn checker(&self) -> Checker<'_, 'a> {
        Checker {
            checks: self,
            scratch: self.terms.iter().map(|ps| ps.iter().map(PartCmp::scratch).collect()).collect(),
        }
    }
}

/// [`Checks`] with one worker's scratch rows: quick for many B records
/// against one A record in a row.
struct Checker<'c, 'a> {
    checks: &'c Checks<'a>,
    scratch: Vec<Vec<Option<super::sparse_rows::Scattered>>>,
}

impl Checker<'_, '_> {
    fn hold(&mut self, a: u32, b: u32) -> bool {
        self.checks.terms.iter().zip(&mut self.scratch).all(|(parts, scratch)| {
            parts.iter().zip(scratch.iter_mut()).any(|(p, s)| matches!(p.edits_quick(s, a, b), Some(Some(_))))
        })
    }
}

/// One side's values of a field, by record: what an equality term compares.
struct Values<'a> {
    data: &'a FieldData,
    /// The embedded parts compared ([`Term::parts`]).
    parts: Vec<&'a super::batch::Part>,
    /// Per compared part: each record's row (`u32::MAX`: missing).
    rows: Vec<Vec<u32>>,
}

impl<'a> Values<'a> {
    fn new(data: &'a FieldData, chosen: &[usize], n: usize) -> Values<'a> {
        let parts: Vec<&super::batch::Part> = match data {
            FieldData::Embedded { parts, .. } => chosen.iter().filter_map(|&c| parts.get(c)).collect(),
            _ => Vec::new(),
        };
        let rows = parts.iter().map(|p| row_index(&p.rows, n)).collect();
        Values { data, parts, rows }
    }

    /// Appends record `r`'s value, length-prefixed so that concatenations are
    /// unambiguous; false when it is missing. Embedded values are their
    /// non-zero coordinates and the values' bits: equal values embed equally.
    fn append(&self, r: usize, out: &mut Vec<u8>) -> bool {
        let start = out.len();
        out.extend([0u8; 4]);
        let ok = match self.data {
            FieldData::Embedded { .. } => self.parts.iter().zip(&self.rows).all(|(p, rows)| {
                let row = rows[r];
                if row == u32::MAX {
                    return false;
                }
                out.push(0xff);
                p.vectors.source().nonzero(row as usize, &mut |c, x| {
                    out.extend(c.to_le_bytes());
                    out.extend(x.to_bits().to_le_bytes());
                });
                true
            }),
            FieldData::Hashed(v) => v[r].map(|h| out.extend(h)).is_some(),
            FieldData::Clear(v) => v[r].as_ref().map(|s| out.extend(s.as_bytes())).is_some(),
        };
        let len = (out.len() - start - 4) as u32;
        out[start..start + 4].copy_from_slice(&len.to_le_bytes());
        ok
    }
}

/// Groups both sides by the equality terms' values (B under every choice of
/// name field), then checks each pair of a common group.
/// [`Found::Over`] when they join more than `cap` pairs.
fn join(a: &RecordBatch, b: &RecordBatch, equal: &[&Term], check: &Checks, cap: u64) -> Result<Found, Error> {
    let (na, nb) = (a.ids.len(), b.ids.len());
    let a_values: Vec<Values> = equal.iter().map(|t| Values::new(&a.fields[t.field].1, &t.parts, na)).collect();
    let key_a = |r: usize, out: &mut Vec<u8>| {
        out.clear();
        a_values.iter().all(|v| v.append(r, out))
    };
    let b_values: Vec<Vec<Values>> =
        equal.iter().map(|t| t.targets.iter().map(|&j| Values::new(&b.fields[j].1, &t.parts, nb)).collect()).collect();
    // every choice of target per term: a mixed-radix counter
    let choices: usize = b_values.iter().map(Vec::len).product();
    let mut groups: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut lists: Vec<Vec<u32>> = Vec::new();
    let mut key = Vec::new();
    for r in 0..nb {
        for mut c in 0..choices {
            key.clear();
            let present = b_values.iter().all(|vs| {
                let v = &vs[c % vs.len()];
                c /= vs.len();
                v.append(r, &mut key)
            });
            if present {
                let g = match groups.get(&key) {
                    Some(&g) => g,
                    None => {
                        lists.push(Vec::new());
                        groups.insert(key.clone(), (lists.len() - 1) as u32);
                        (lists.len() - 1) as u32
                    }
                };
                let list = &mut lists[g as usize];
                if list.last() != Some(&(r as u32)) {
                    list.push(r as u32);
                }
            }
        }
    }
    // A's rows by group; the pairs to check, counted before any is checked
    let mut a_lists: Vec<Vec<u32>> = vec![Vec::new(); lists.len()];
    let mut joined = 0u64;
    for r in 0..na {
        if key_a(r, &mut key) {
            if let Some(&g) = groups.get(&key) {
                a_lists[g as usize].push(r as u32);
                joined += lists[g as usize].len() as u64;
            }
        }
    }
    if joined > cap {
        return Ok(Found::Over(joined));
    }
    // group by group: a group's B rows stay in cache while each of its A rows
    // is checked against them (A-row order would fetch them anew per A row)
    let parts = crate::par::chunks(lists.len(), 1024, |range| {
        let mut out = Vec::new();
        let mut check = check.checker();
        for g in range {
            for &r in &a_lists[g] {
                out.extend(lists[g].iter().filter(|&&j| check.hold(r, j)).map(|&j| ((r as u64) << 32) | j as u64));
            }
        }
        out
    });
    Ok(Found::Pairs(parts.concat()))
}

/// The pairs within `t.ed` edits on one embedded field (and across name
/// fields), by the q-gram filter where the base's shape allows it, else by
/// range matching on A's thresholds.
fn edit_pairs(a: &RecordBatch, b: &RecordBatch, t: &Term) -> Result<Vec<u64>, Error> {
    let FieldData::Embedded { parts: pa, shape, .. } = &a.fields[t.field].1 else {
        return Err(Error::Parameter(format!("block rule on {:?}: the field cannot block", t.term.field)));
    };
    let ed = t.ed.unwrap_or(1);
    let mut found = Vec::new();
    for &j in &t.targets {
        let FieldData::Embedded { parts: pb, .. } = &b.fields[j].1 else { continue };
        let (pa, pb) = (&pa[0], &pb[0]);
        let th = pa.thresholds(ed).ok_or_else(|| {
            Error::Parameter(format!("party A sent no thresholds for {ed} edits on field {:?}", t.term.field))
        })?;
        let th = crate::keyed::batch_thresholds(&pa.vectors, &pb.vectors, th, a.keyed.then_some("keyed"));
        let key = |p: &crate::matching::Pair| ((pa.rows[p.a as usize] as u64) << 32) | pb.rows[p.b as usize] as u64;
        match shape.as_ref().filter(|s| s.filter_length().is_some()) {
            // the q-gram count filter: much tighter than the Euclidean bound
            // for short values (crate::matching::qgram)
            Some(sh) => {
                let (scored, _) =
                    scored_match_rows(pa.vectors.source(), pb.vectors.source(), &th, ed, sh, BLOCK_PER_ROW)?;
                found.extend(scored.iter().map(|s| key(&s.pair)));
            }
            None => {
                let (Some(va), Some(vb)) = (pa.vectors.dense(), pb.vectors.dense()) else {
                    return Err(Error::Parameter(format!(
                        "field {:?}: sparse vectors without the base's shape",
                        t.term.field
                    )));
                };
                let (pairs, _) = range_match(va, vb, &th)?;
                found.extend(pairs.iter().map(key));
            }
        }
    }
    Ok(found)
}
