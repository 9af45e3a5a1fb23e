//! A record rehearsal on twins: choose the schema's upper decision threshold
//! (the weight above which a pair is a match) on synthetic data, and measure on
//! the real files what that choice costs.
//!
//! The twins must be in FEBRL's columns ([`crate::eval::people::COLUMNS`]; a
//! missing column is an empty value, a missing `rec_id` is refused), because B's
//! duplicates come from that generator's error model.
//!
//! Each twin plays party A; party B holds one duplicate of each of its records
//! with 1 to 3 of FEBRL's kinds of error ([`crate::eval::people::add_errors`]),
//! so the truth is known. Both parties and the matcher run as in `eval
//! --schema` (seeded), and the upper threshold with the best mean F1 of the
//! matches over the two rehearsals is chosen from a grid of weights. The
//! evaluation runs the real files the same way (A's and B's with their truth),
//! and compares the F1 of the matches at the twins' threshold with the F1 at
//! the best threshold of the same grid on the real data, and at the proposed one.

use crate::clock::NoClock;
use crate::dp::Randomness;
use crate::error::{Error, InputError};
use crate::eval::people::{add_errors, Person, COLUMNS};
use crate::keyed::Key;
use crate::progress::NoProgress;
use crate::record::linker::{RecordMatcher, Scored};
use crate::record::score::score;
use crate::record::{RecordOwner, Schema};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// A scored linkage and its truth.
pub struct Scoring {
    pub matcher: RecordMatcher,
    pub scored: Scored,
    pub truth: HashSet<(String, String)>,
}

impl Scoring {
    /// Links `a` and `b` (CSV) under `schema` with seeded parties and a seeded key.
    pub fn run(
        a: &[u8],
        b: &[u8],
        schema: &Schema,
        truth: HashSet<(String, String)>,
        seed: u64,
    ) -> Result<Scoring, Error> {
        let mut rng = Randomness::seeded(seed);
        let mut oa = RecordOwner::read(a, schema.clone(), "party A", rng.fork())?;
        let mut ob = RecordOwner::read(b, schema.clone(), "party B", rng.fork())?;
        let mut k = [0u8; 32];
        rng.fill_bytes(&mut k);
        let key = Key::from_bytes(k);
        let s = crate::record::session::run(&mut oa, &mut ob, Some(&key), false, &NoClock, &mut NoProgress)?;
        let scored = s.matcher.score()?;
        Ok(Scoring { matcher: s.matcher, scored, truth })
    }

    /// F1 of the matches at `upper` (`None`: the proposed threshold).
    pub fn f1(&self, upper: Option<f64>) -> f64 {
        let l = self.matcher.decide(&self.scored, upper, None);
        score(&l, &self.matcher.a().ids, &self.matcher.b().ids, &self.truth).matches.f1
    }

    /// The proposed upper threshold.
    pub fn proposed(&self) -> f64 {
        self.matcher.decide(&self.scored, None, None).upper
    }
}

/// Party A's CSV, party B's CSV, and the true pairs by ids.
pub type LinkageFiles = (Vec<u8>, Vec<u8>, HashSet<(String, String)>);

/// Real files to check a rehearsal on: A's CSV, B's CSV, the true pairs.
pub type RealFiles<'a> = (&'a [u8], &'a [u8], HashSet<(String, String)>);

/// A twin (CSV in FEBRL's columns) as party A, and party B's duplicates of
/// its records with their truth: `(a, b, truth)`.
pub fn rehearsal_pair(twin: &[u8], seed: u64) -> Result<LinkageFiles, Error> {
    let text = crate::dataset::decode_text(twin, "twin")?;
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
    let csv_err = |e: csv::Error| InputError::Csv { record: 0, reason: e.to_string() };
    let header: Vec<String> = reader.headers().map_err(csv_err)?.iter().map(|h| h.trim().to_string()).collect();
    let at: Vec<Option<usize>> =
        COLUMNS.iter().map(|c| crate::dataset::unique_column(&header, c)).collect::<Result<_, _>>()?;
    if at[0].is_none() {
        return Err(InputError::MissingColumn { column: COLUMNS[0].into(), available: header.join(", ") }.into());
    }
    let mut rng = Randomness::seeded(seed);
    let (mut wa, mut wb) = (csv::Writer::from_writer(Vec::new()), csv::Writer::from_writer(Vec::new()));
    let fail = |e: csv::Error| Error::Parameter(format!("cannot write CSV: {e}"));
    wa.write_record(COLUMNS).map_err(fail)?;
    wb.write_record(COLUMNS).map_err(fail)?;
    let mut truth = HashSet::new();
    let mut dups = Vec::new();
    for row in reader.records() {
        let row = row.map_err(csv_err)?;
        let p: Person = std::array::from_fn(|c| at[c].and_then(|i| row.get(i)).unwrap_or("").trim().to_string());
        wa.write_record(&p).map_err(fail)?;
        let mut d = p.clone();
        d[0] = format!("{}-dup", p[0]);
        add_errors(&mut d, &mut rng);
        truth.insert((p[0].clone(), d[0].clone()));
        dups.push(d);
    }
    rng.shuffle(&mut dups);
    for d in &dups {
        wb.write_record(d).map_err(fail)?;
    }
    let into = |w: csv::Writer<Vec<u8>>| w.into_inner().map_err(|e| Error::Parameter(e.to_string()));
    Ok((into(wa)?, into(wb)?, truth))
}

/// The threshold grid: every multiple of `step` between the lowest and the
/// highest weight of the scorings.
pub fn threshold_grid(scorings: &[&Scoring], step: f64) -> Vec<f64> {
    let ws = scorings.iter().flat_map(|s| s.scored.weights.iter().copied());
    let (lo, hi) = ws.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), w| (l.min(w), h.max(w)));
    if !lo.is_finite() {
        return Vec::new();
    }
    let (a, b) = ((lo / step).floor() as i64, (hi / step).ceil() as i64);
    (a..=b).map(|i| i as f64 * step).collect()
}

/// The threshold of `grid` with the best mean F1 over `scorings`, and that
/// F1: the middle of the thresholds that reach it (a one-to-one assignment
/// often makes a wide plateau of equal F1; its middle is the robust choice).
pub fn best_threshold(scorings: &[&Scoring], grid: &[f64]) -> Option<(f64, f64)> {
    let f1: Vec<f64> = grid
        .iter()
        .map(|&t| scorings.iter().map(|s| s.f1(Some(t))).sum::<f64>() / scorings.len().max(1) as f64)
        .collect();
    let top = f1.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let at_top: Vec<usize> = (0..grid.len()).filter(|&i| f1[i] >= top - 1e-12).collect();
    at_top.get(at_top.len() / 2).map(|&i| (grid[i], top))
}

/// What the record rehearsal chose and what it costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordRehearsal {
    /// The upper threshold chosen on the twins, and its mean F1 there.
    pub twin_upper: f64,
    pub twin_f1: f64,
    /// On the real files (when given): F1 at the twins' threshold, the best
    /// threshold of the grid and its F1, the proposed threshold and its F1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub real: Option<RealCheck>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RealCheck {
    pub twin_upper_f1: f64,
    pub best_upper: f64,
    pub best_f1: f64,
    pub proposed_upper: f64,
    pub proposed_f1: f64,
    /// `best_f1 − twin_upper_f1`.
    pub f1_loss: f64,
}

/// The grid's step on the weight scale (bits).
pub const STEP: f64 = 0.5;

/// Rehearses on `twins` (CSV), and checks on `real` (`(a, b, truth)`) if given.
pub fn rehearse(
    twins: &[&[u8]],
    schema: &Schema,
    real: Option<RealFiles<'_>>,
    seed: u64,
) -> Result<RecordRehearsal, Error> {
    let mut scorings = Vec::new();
    for (i, t) in twins.iter().enumerate() {
        let (a, b, truth) = rehearsal_pair(t, seed + i as u64)?;
        scorings.push(Scoring::run(&a, &b, schema, truth, seed + 100 + i as u64)?);
    }
    let refs: Vec<&Scoring> = scorings.iter().collect();
    let grid = threshold_grid(&refs, STEP);
    let (twin_upper, twin_f1) = best_threshold(&refs, &grid)
        .ok_or_else(|| Error::Parameter("rehearsal: no candidate pair on the twins".into()))?;
    let real = match real {
        None => None,
        Some((a, b, truth)) => {
            let s = Scoring::run(a, b, schema, truth, seed + 200)?;
            let g = threshold_grid(&[&s], STEP);
            let (best_upper, best_f1) = best_threshold(&[&s], &g).unwrap_or((f64::NAN, 0.0));
            let twin_upper_f1 = s.f1(Some(twin_upper));
            Some(RealCheck {
                twin_upper_f1,
                best_upper,
                best_f1,
                proposed_upper: s.proposed(),
                proposed_f1: s.f1(None),
                f1_loss: best_f1 - twin_upper_f1,
            })
        }
    };
    Ok(RecordRehearsal { twin_upper, twin_f1, real })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rehearsal_pair_duplicates_every_record_with_its_truth() {
        let twin = b"rec_id,given_name,surname,date_of_birth\nsynthetic-1,ANNA,SMITH,19800101\nsynthetic-2,BOB,JONES,19700505\n";
        let (a, b, truth) = rehearsal_pair(twin, 3).unwrap();
        let (a, b) = (String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap());
        assert!(a.starts_with("rec_id,given_name,surname,street_number") && a.contains("synthetic-2,BOB,JONES,,"));
        assert_eq!(b.lines().count(), 3);
        assert_eq!(truth.len(), 2);
        assert!(truth.contains(&("synthetic-1".into(), "synthetic-1-dup".into())));
        assert!(rehearsal_pair(b"name\nX\n", 1).unwrap_err().to_string().contains("rec_id"));
    }
}
