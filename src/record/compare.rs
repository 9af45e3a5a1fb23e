//! Comparison levels: for a pair of records, each sent field's level. Levels
//! are ordered from best to worst: exact; a date's "day and month swapped"
//! and "within N days" ([`super::date_parts`]); within each of the field's edit
//! levels by A's sound thresholds (a split date: within each band of its weighted
//! per-component distance); a name's "initial" (`PartCmp::initial`); disagree.
//! [`MISSING`] when either side has no value.
//!
//! An embedded value's edit distance is bounded from below by its vectors:
//! A's sound threshold for `ed` edits is at least the distance between the
//! vectors of any two strings within `ed` edits ([`crate::threshold`]), so a
//! pair beyond it is more than `ed` edits apart. "Exact" is distance 0 (for
//! keyed vectors: within the transform's proven rounding bound).

use super::batch::{FieldData, Part, RecordBatch};
use super::date_parts::DatePart;
use super::schema::{Kind, Schema};
use super::sparse_rows;
use crate::embed::BatchVectors;
use crate::keyed::matching_thresholds;
use crate::matching::distance;
use crate::shape::Shape;
use crate::sparse_vectors::SparseVectors;
use std::borrow::Cow;

/// The level of a missing value: counts neither for nor against a pair.
pub use crate::em::MISSING;

/// A lower bound on the edit distance of two unkeyed dense vectors (the q-gram
/// lemma; `sparse_rows` computes it on sparse rows).
pub use super::edit_bound::qgram_bound;

/// The edit distances a date's components are compared at.
pub const DATE_EDS: [u32; 2] = [1, 2];

/// One embedded part as compared: A's and B's vectors, the row of each
/// record (`u32::MAX`: missing), A's thresholds (widened when keyed).
pub(crate) struct PartCmp<'a> {
    pub a: &'a Part,
    pub b: &'a Part,
    pub a_row: Vec<u32>,
    pub b_row: Vec<u32>,
    /// The exact threshold, then one per ed of `eds`, per A row.
    pub thresholds: Vec<Cow<'a, [f64]>>,
    pub eds: Vec<u32>,
    /// Per A row, the largest of its thresholds: a pair beyond it is beyond
    /// every level, and its comparison stops there.
    limit: Vec<f64>,
    /// Gram length of each coordinate and whether its class is complete
    /// (unkeyed batches): for the q-gram bound.
    pub shape: Option<(Vec<u8>, Vec<bool>)>,
    /// A's and B's vectors as sparse rows (unkeyed batches: their vectors are
    /// mostly zeros, and batches hold them so; keyed ones are dense and
    /// compared as they are).
    sparse: Option<(Cow<'a, SparseVectors>, Cow<'a, SparseVectors>)>,
}

pub(crate) fn row_index(rows: &[u32], n: usize) -> Vec<u32> {
    let mut out = vec![u32::MAX; n];
    for (i, &r) in rows.iter().enumerate() {
        out[r as usize] = i as u32;
    }
    out
}

fn sparse_of(v: &BatchVectors) -> Cow<'_, SparseVectors> {
    match v {
        BatchVectors::Sparse(s) => Cow::Borrowed(s),
        BatchVectors::Dense(d) => Cow::Owned(d.to_sparse()),
    }
}

impl<'a> PartCmp<'a> {
    pub fn new(
        a: &'a Part,
        b: &'a Part,
        na: usize,
        nb: usize,
        eds: &[u32],
        keyed: bool,
        shape: Option<&Shape>,
    ) -> Result<PartCmp<'a>, String> {
        // keyed vectors are dense: their thresholds widen by the rotation's
        // rounding bound; unkeyed (sparse) ones are used as sent
        let widen = |t: &'a [f64]| -> Cow<'a, [f64]> {
            match (keyed, a.vectors.dense(), b.vectors.dense()) {
                (true, Some(va), Some(vb)) => Cow::Owned(matching_thresholds(va, vb, t, Some("keyed"))),
                _ => Cow::Borrowed(t),
            }
        };
        let zeros = vec![0.0; a.rows.len()];
        let exact: Cow<'a, [f64]> = match (keyed, a.vectors.dense(), b.vectors.dense()) {
            (true, Some(va), Some(vb)) => Cow::Owned(matching_thresholds(va, vb, &zeros, Some("keyed"))),
            _ => Cow::Owned(zeros),
        };
        let mut thresholds = vec![exact];
        for &ed in eds {
            let t = a.thresholds(ed).ok_or_else(|| format!("party A sent no thresholds for {ed} edits"))?;
            thresholds.push(widen(t));
        }
        let limit = (0..a.rows.len()).map(|r| thresholds.iter().map(|t| t[r]).fold(0.0, f64::max)).collect();
        let shape = shape.map(|s| (s.lengths.clone(), s.lengths.iter().map(|l| s.complete.contains(l)).collect()));
        let sparse = shape.as_ref().map(|_| (sparse_of(&a.vectors), sparse_of(&b.vectors)));
        Ok(PartCmp {
            a,
            b,
            a_row: row_index(&a.rows, na),
            b_row: row_index(&b.rows, nb),
            thresholds,
            eds: eds.to_vec(),
            limit,
            shape,
            sparse,
        })
    }

    /// The smallest of 0 and the `eds` the pair is within, `Some(None)`
    /// beyond all; `None` when either is missing.
    pub fn edits(&self, a: u32, b: u32) -> Option<Option<u32>> {
        let (ra, rb) = (self.a_row[a as usize], self.b_row[b as usize]);
        if ra == u32::MAX || rb == u32::MAX {
            return None;
        }
        Some(self.edits_rows(ra as usize, rb as usize))
    }

    /// A scratch row for [`PartCmp::edits_quick`] (unkeyed, sparse parts).
    pub fn scratch(&self) -> Option<sparse_rows::Scattered> {
        self.sparse.as_ref().map(|(sa, _)| sparse_rows::Scattered::new(sa.dim))
    }

    /// [`PartCmp::edits`], for many B records against one A record in a row:
    /// pairs certainly beyond every threshold are rejected from `scratch`
    /// (A's row spread out) before the exact comparison.
    pub fn edits_quick(&self, scratch: &mut Option<sparse_rows::Scattered>, a: u32, b: u32) -> Option<Option<u32>> {
        let (ra, rb) = (self.a_row[a as usize], self.b_row[b as usize]);
        if ra == u32::MAX || rb == u32::MAX {
            return None;
        }
        if let (Some(sc), Some((sa, sb))) = (scratch.as_mut(), &self.sparse) {
            sc.load(sa, ra as usize);
            if sc.beyond(sb, rb as usize, self.limit[ra as usize]) {
                return Some(None);
            }
        }
        Some(self.edits_rows(ra as usize, rb as usize))
    }

    /// Whether the pair agrees exactly (the exact level's test, keyed
    /// rounding bound included); false when either is missing.
    pub fn exact(&self, a: u32, b: u32) -> bool {
        self.edits(a, b) == Some(Some(0))
    }

    /// Whether one side's value is a single letter that begins, or ends, the
    /// other's: "J" against "JOHN" (a form's initial against the whole name).
    ///
    /// A record space is padded (`^J$`, src/record/owner.rs), so a value of n
    /// letters has n + 1 bigram windows, and its bigram class (complete: every
    /// padded bigram is a coordinate) counts 2 exactly when n = 1. The other
    /// value then holds `^J` if it begins with J. The matcher does not know
    /// which of the letter's two buckets (`^J`, `J$`) is which, nor what else
    /// shares them (a sketch bucket counts several grams), so the test is
    /// whether the other row is non-zero on either: a random other name passes
    /// it by a shared bucket too, and the fit's u, from random pairs, weighs
    /// that. It reads nothing the matcher does not already see: a row's class
    /// totals and which coordinates two rows share.
    ///
    /// False for a missing value, and for dense (rotated) vectors, whose
    /// coordinates are mixed: there the level never occurs and weighs 0.
    pub fn initial(&self, a: u32, b: u32) -> bool {
        let (ra, rb) = (self.a_row[a as usize], self.b_row[b as usize]);
        let (Some((sa, sb)), Some((lengths, complete))) = (&self.sparse, &self.shape) else { return false };
        if ra == u32::MAX || rb == u32::MAX {
            return false;
        }
        let (x, y) = (sa.row(ra as usize), sb.row(rb as usize));
        sparse_rows::letter_in(x, y.0, lengths, complete) || sparse_rows::letter_in(y, x.0, lengths, complete)
    }

    pub fn edits_rows(&self, ra: usize, rb: usize) -> Option<u32> {
        let (d, bound) = match (&self.sparse, &self.shape) {
            (Some((sa, sb)), Some((lengths, complete))) => {
                sparse_rows::compare(sa, ra, sb, rb, lengths, complete, self.limit[ra])?
            }
            _ => match (self.a.vectors.dense(), self.b.vectors.dense()) {
                (Some(va), Some(vb)) => (distance(va.row(ra), vb.row(rb)), 0),
                // a batch's validation pairs sparse vectors with a shape
                _ => return None,
            },
        };
        if d <= self.thresholds[0][ra] {
            return Some(0);
        }
        let bound = bound.max(1);
        self.eds.iter().zip(&self.thresholds[1..]).find(|(e, t)| **e >= bound && d <= t[ra]).map(|(e, _)| *e)
    }
}

// a few per schema: the size difference between variants does not matter
#[allow(clippy::large_enum_variant)]
pub(crate) enum FieldCmp<'a> {
    /// string, name, number: one part; levels = its eds; a name's B records
    /// whose value is common ([`common_values`]); whether it has the level
    /// "initial" ([`PartCmp::initial`]).
    Text {
        part: PartCmp<'a>,
        levels: Vec<u32>,
        common: Option<Vec<bool>>,
        initials: bool,
    },
    /// date: its text parts (one whole, or a split date's three), their
    /// weights, bands; its unordered part (the swapped level), its two
    /// year cells (year ± 1) and its two N-day cells (the within-days
    /// level), compared exactly.
    Date {
        parts: Vec<PartCmp<'a>>,
        weights: Vec<f64>,
        bands: Vec<f64>,
        unordered: Option<PartCmp<'a>>,
        years: Option<[PartCmp<'a>; 2]>,
        cells: Option<[PartCmp<'a>; 2]>,
    },
    Hashed(&'a [Option<[u8; 16]>], &'a [Option<[u8; 16]>]),
    Clear(&'a [Option<String>], &'a [Option<String>]),
}

/// Level of an edit estimate against ascending levels: 0 exact, i+1 within
/// `levels[i]`, `levels.len()+1` beyond; with `common` (a field that splits
/// its exact level, whether B's value is common), exact on a common value is
/// 1 and every farther level one more. `initial`: `None` for a field without
/// the level "initial", else whether the pair shows it ([`PartCmp::initial`]),
/// which counts only beyond every edit level (and comes before disagree).
fn text_level(e: Option<u32>, levels: &[u32], common: Option<bool>, initial: Option<bool>) -> u8 {
    let split = usize::from(common.is_some());
    let beyond = levels.len() + 1 + split;
    let disagree = beyond + usize::from(initial.is_some());
    match e {
        Some(0) => u8::from(common == Some(true)),
        Some(e) => levels.iter().position(|&l| e <= l).map_or(disagree, |i| i + 1 + split) as u8,
        None if initial == Some(true) => beyond as u8,
        None => disagree as u8,
    }
}

/// A text part's level of pair (a, b) ([`text_level`]), [`MISSING`] when
/// either is missing; the initial test runs only where every edit level fails.
fn text_pair(part: &PartCmp, a: u32, b: u32, levels: &[u32], common: Option<bool>, initials: bool) -> u8 {
    match part.edits(a, b) {
        None => MISSING,
        Some(e) => text_level(e, levels, common, initials.then(|| e.is_none() && part.initial(a, b))),
    }
}

/// A date's level after its text parts were not exact (`total`: their
/// weighted edit estimate): the first of `hits` that holds, in order "day and
/// month swapped", "year ± 1", "within N days" (`None`: the field has no
/// such level), then `bands` as for a date without them, each one further
/// down.
///
/// The order is the closeness order the fit's monotone repair keeps (a
/// closer level never weighs less, [`super::fit::monotone`]). Swapped comes
/// first: it is the same day written in the other order, and random pairs of
/// different people almost never show it (u well below 1/365). Year ± 1
/// keeps the day and month (u about 1/365 times the chance of adjacent
/// years, ~5·10⁻⁵ over 80 years of births): as rare, but the year is the
/// part people get wrong by a whole unit (an age misremembered). Within N
/// days comes before the edit levels: among random pairs it is rarer than one
/// digit off (u about 2N over the span of birth dates, ~0.2 % for N = 30 over
/// 80 years, where one edit away lands on the same year and month, or the
/// same month and day, far more often), and a near date differs by a day's
/// digit or a late registration, where an edit in the year or month puts
/// the date months or decades away.
fn date_level(total: f64, bands: &[f64], hits: [Option<bool>; 3]) -> u8 {
    let mut level = 1;
    for hit in hits.into_iter().flatten() {
        if hit {
            return level;
        }
        level += 1;
    }
    (bands.iter().position(|&b| total <= b).map_or(bands.len() + 1, |i| i + 1) + usize::from(level) - 1) as u8
}

/// Per B record, whether its value of `part` is common: its share of B's
/// values is above the chance that two of B's values agree (the sum of the
/// squared shares, what an exact agreement's u is near). Equal values have
/// equal vectors within one party, so the matcher counts them without the
/// text: it already sees which of B's records agree exactly.
pub(crate) fn common_values(part: &Part, nb: usize) -> Vec<bool> {
    let key = |r: usize| -> Vec<u32> {
        match &part.vectors {
            BatchVectors::Dense(d) => d.row(r).iter().map(|x| x.to_bits()).collect(),
            BatchVectors::Sparse(s) => {
                let (cols, vals) = s.row(r);
                cols.iter().copied().chain(vals.iter().map(|x| x.to_bits())).collect()
            }
        }
    };
    let keys: Vec<Vec<u32>> = (0..part.rows.len()).map(key).collect();
    let mut counts: std::collections::HashMap<&[u32], u64> = std::collections::HashMap::new();
    for k in &keys {
        *counts.entry(k.as_slice()).or_default() += 1;
    }
    let n = keys.len().max(1) as f64;
    let agree: f64 = counts.values().map(|&c| (c as f64 / n).powi(2)).sum();
    let mut out = vec![false; nb];
    for (k, &r) in keys.iter().zip(&part.rows) {
        out[r as usize] = counts[k.as_slice()] as f64 / n > agree;
    }
    out
}

impl FieldCmp<'_> {
    pub fn level(&self, a: u32, b: u32) -> u8 {
        match self {
            FieldCmp::Text { part, levels, common, initials } => {
                text_pair(part, a, b, levels, common.as_ref().map(|c| c[b as usize]), *initials)
            }
            FieldCmp::Date { parts, weights, bands, unordered, years, cells } => {
                let mut total = 0.0;
                for (p, w) in parts.iter().zip(weights) {
                    match p.edits(a, b) {
                        None => return MISSING,
                        Some(e) => total += w * e.unwrap_or(DATE_EDS[DATE_EDS.len() - 1] + 1) as f64,
                    }
                }
                if total == 0.0 {
                    return 0;
                }
                // the levels in closeness order (see date_level)
                let swapped = unordered.as_ref().map(|p| p.exact(a, b));
                let either = |g: &Option<[PartCmp; 2]>| g.as_ref().map(|[g0, g1]| g0.exact(a, b) || g1.exact(a, b));
                date_level(total, bands, [swapped, either(years), either(cells)])
            }
            FieldCmp::Hashed(x, y) => match (&x[a as usize], &y[b as usize]) {
                (Some(p), Some(q)) => u8::from(p != q),
                _ => MISSING,
            },
            FieldCmp::Clear(x, y) => match (&x[a as usize], &y[b as usize]) {
                (Some(p), Some(q)) => u8::from(p != q),
                _ => MISSING,
            },
        }
    }
}

/// Every sent field's comparison, and the name fields compared across.
pub(crate) struct Comparer<'a> {
    pub fields: Vec<FieldCmp<'a>>,
    /// Indices (in `fields`) of the first two name fields, if there are two:
    /// compared straight and swapped, the better alignment kept.
    pub swap: Option<(usize, usize)>,
    /// A's name part of field i against B's of field j, for the swap.
    pub cross: Vec<PartCmp<'a>>,
    /// Where a salted field's disagreement counts ([`super::salt::Neutral`]).
    neutral: Vec<super::salt::Neutral>,
}

fn embedded(d: &FieldData) -> Option<&[Part]> {
    match d {
        FieldData::Embedded { parts, .. } => Some(parts),
        _ => None,
    }
}

impl<'a> Comparer<'a> {
    pub fn new(schema: &Schema, a: &'a RecordBatch, b: &'a RecordBatch) -> Result<Comparer<'a>, String> {
        let (na, nb) = (a.ids.len(), b.ids.len());
        let keyed = a.keyed;
        let mut fields = Vec::new();
        let mut names = Vec::new();
        let mut name_shape = None;
        for (i, f) in schema.sent().enumerate() {
            let (da, db) = (&a.fields[i].1, &b.fields[i].1);
            let kind = f.kind().unwrap_or(Kind::Suppress);
            let cmp = match (da, db) {
                (FieldData::Hashed(x), FieldData::Hashed(y)) => FieldCmp::Hashed(x, y),
                (FieldData::Clear(x), FieldData::Clear(y)) => FieldCmp::Clear(x, y),
                (FieldData::Embedded { parts: pa, shape, .. }, FieldData::Embedded { parts: pb, .. })
                    if kind == Kind::Date =>
                {
                    let layout = f.date_parts();
                    let exact = |part: DatePart| -> Result<Option<PartCmp<'a>>, String> {
                        let Some(c) = layout.iter().position(|&p| p == part) else { return Ok(None) };
                        let (x, y) =
                            pa.get(c).zip(pb.get(c)).ok_or_else(|| format!("field {:?} lacks a part", f.name))?;
                        PartCmp::new(x, y, na, nb, &[], keyed, shape.as_ref()).map(Some)
                    };
                    let grids = |g0: DatePart, g1: DatePart| -> Result<Option<[PartCmp<'a>; 2]>, String> {
                        Ok(match (exact(g0)?, exact(g1)?) {
                            (Some(g0), Some(g1)) => Some([g0, g1]),
                            _ => None,
                        })
                    };
                    let cells = grids(DatePart::Cell(0), DatePart::Cell(1))?;
                    let years = grids(DatePart::Year(0), DatePart::Year(1))?;
                    FieldCmp::Date {
                        parts: pa
                            .iter()
                            .zip(pb)
                            .take(f.text_parts())
                            .map(|(x, y)| PartCmp::new(x, y, na, nb, &DATE_EDS, keyed, shape.as_ref()))
                            .collect::<Result<_, _>>()?,
                        weights: f.part_weights(),
                        bands: f.levels(),
                        unordered: exact(DatePart::Unordered)?,
                        years,
                        cells,
                    }
                }
                (FieldData::Embedded { parts: pa, shape, .. }, FieldData::Embedded { parts: pb, .. }) => {
                    let levels: Vec<u32> = f.levels().iter().map(|l| *l as u32).collect();
                    if kind == Kind::Name {
                        names.push(i);
                        name_shape = shape.as_ref();
                    }
                    FieldCmp::Text {
                        part: PartCmp::new(&pa[0], &pb[0], na, nb, &levels, keyed, shape.as_ref())?,
                        levels,
                        common: f.splits_exact().then(|| common_values(&pb[0], nb)),
                        initials: f.initials(),
                    }
                }
                _ => return Err(format!("field {:?} has different forms in the two batches", f.name)),
            };
            fields.push(cmp);
        }
        let mut cross = Vec::new();
        let swap = if names.len() >= 2 { Some((names[0], names[1])) } else { None };
        if let Some((i, j)) = swap {
            let levels = match &fields[i] {
                FieldCmp::Text { levels, .. } => levels.clone(),
                _ => Vec::new(),
            };
            let levels_j = match &fields[j] {
                FieldCmp::Text { levels, .. } => levels.clone(),
                _ => Vec::new(),
            };
            let (ai, aj) = (embedded(&a.fields[i].1).unwrap_or(&[]), embedded(&a.fields[j].1).unwrap_or(&[]));
            let (bi, bj) = (embedded(&b.fields[i].1).unwrap_or(&[]), embedded(&b.fields[j].1).unwrap_or(&[]));
            cross.push(PartCmp::new(&ai[0], &bj[0], na, nb, &levels, keyed, name_shape)?);
            cross.push(PartCmp::new(&aj[0], &bi[0], na, nb, &levels_j, keyed, name_shape)?);
        }
        Ok(Comparer { fields, swap, cross, neutral: super::salt::neutral(schema) })
    }

    /// The levels of pair (a, b) into `out`; true when the name fields
    /// matched better swapped. A salted field's disagreement is missing where
    /// the salts may differ ([`super::salt::Neutral`]).
    pub fn levels(&self, a: u32, b: u32, out: &mut [u8]) -> bool {
        let swapped = self.unsalted_levels(a, b, out);
        super::salt::neutralize(&self.neutral, out);
        swapped
    }

    fn unsalted_levels(&self, a: u32, b: u32, out: &mut [u8]) -> bool {
        for (o, f) in out.iter_mut().zip(&self.fields) {
            *o = f.level(a, b);
        }
        let Some((i, j)) = self.swap else {
            return false;
        };
        let (
            FieldCmp::Text { levels: li, common: ci, initials: ii, .. },
            FieldCmp::Text { levels: lj, common: cj, initials: ij, .. },
        ) = (&self.fields[i], &self.fields[j])
        else {
            return false;
        };
        // a swapped name's value is B's other field's
        let (ci, cj) = (cj.as_ref().map(|c| c[b as usize]), ci.as_ref().map(|c| c[b as usize]));
        let rank = |l: u8, worst: usize| if l == MISSING { worst as u32 } else { l as u32 };
        // a missing value ranks as disagree
        let worst = |l: &[u32], c: Option<bool>, init: bool| l.len() + 1 + usize::from(c.is_some()) + usize::from(init);
        let (wi, wj) = (worst(li, ci, *ii), worst(lj, cj, *ij));
        let straight = rank(out[i], wi) + rank(out[j], wj);
        let xi = text_pair(&self.cross[0], a, b, li, ci, *ii);
        let xj = text_pair(&self.cross[1], a, b, lj, cj, *ij);
        let swapped = rank(xi, wi) + rank(xj, wj);
        if swapped < straight {
            out[i] = xi;
            out[j] = xj;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests;
