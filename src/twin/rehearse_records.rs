//! A record rehearsal on twins: choose the schema's decision configuration —
//! the field weights, the upper threshold (the weight above which a pair is a
//! match) and the lower one (below which it is a non-match) — on synthetic
//! data, and measure on the real files what that choice costs.
//!
//! The twins must be in FEBRL's columns ([`crate::eval::people::COLUMNS`]; a
//! missing column is an empty value, a missing `rec_id` is refused), because B's
//! duplicates come from that generator's error model.
//!
//! Each twin plays party A; party B holds one duplicate of each of its records
//! with 1 to 3 of FEBRL's kinds of error ([`crate::eval::people::add_errors`]),
//! so the truth is known. Both parties and the matcher run as in `eval
//! --schema` (seeded). Then, on the twins' truth:
//! - **weights**: the schema's EM fit, or the m probabilities counted on the
//!   twins' true pairs among the candidates (one pseudo-count per level; u
//!   stays the EM's, started from random pairs, which needs no truth) — fixed
//!   in the schema as `m`; the one with the better F1 is kept (EM on ties);
//! - **upper**: the threshold of a grid of weights with the best mean F1 of
//!   the matches (the middle of the best plateau);
//! - **lower**: the schema's own rule for it (`decision.recall`: matches plus
//!   possible matches hold that share of the true pairs), with the truth
//!   instead of the fit's estimate: the highest grid weight at or below the
//!   upper one where M ∪ P holds `recall` of the true pairs the candidates hold.
//!
//! The evaluation chooses the same way on the real files with their truth
//! (the m probabilities counted on the real truth), and compares the twins'
//! configuration on the real files with that one: the F1 of the matches, and
//! the recall, size of P and F1 of M ∪ P at each lower threshold.

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
        let s = crate::record::session::run(&mut oa, &mut ob, Some(&key), None, &NoClock, &mut NoProgress)?;
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
/// F1: the highest of the thresholds that reach it. F1 is often flat over a
/// wide plateau; the twins' plateau reaches much lower than the real one,
/// because a twin's fields are generated independently, so its non-matching
/// pairs agree by chance less often than real ones (FEBRL 1 with every pair
/// kept: the twins' plateau is [−95, 26.5], the real one [−8, 18]), while its
/// true pairs carry the error model's duplicates as real ones do. The top of
/// the plateau is where the true pairs decide, which the twins model (the
/// middle, tried first, lost 0.06 F1 on FEBRL 1; docs/TWINS.md).
pub fn best_threshold(scorings: &[&Scoring], grid: &[f64]) -> Option<(f64, f64)> {
    let f1 = f1_curve(scorings, grid);
    let top = f1.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let at_top: Vec<usize> = (0..grid.len()).filter(|&i| f1[i] >= top - 1e-12).collect();
    at_top.last().map(|&i| (grid[i], top))
}

/// The mean F1 of the matches over `scorings` at each threshold of `grid`.
pub fn f1_curve(scorings: &[&Scoring], grid: &[f64]) -> Vec<f64> {
    grid.iter().map(|&t| scorings.iter().map(|s| s.f1(Some(t))).sum::<f64>() / scorings.len().max(1) as f64).collect()
}

/// A decision configuration: the weights, and the two thresholds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionChoice {
    /// `em` (the schema's fit) or `counted-m` (m counted on a truth, in `m`).
    pub weights: String,
    /// Per sent field, the fixed m (with `counted-m`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub m: Vec<(String, Vec<f64>)>,
    pub upper: f64,
    pub lower: f64,
    /// Mean F1 of the matches there, and recall of M ∪ P at `lower`.
    pub f1: f64,
    pub recall_with_possible: f64,
    /// The F1 of the matches over the grid of upper thresholds, `(threshold, F1)`.
    pub curve: Vec<(f64, f64)>,
}

/// What the record rehearsal chose and what it costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordRehearsal {
    /// The configuration chosen on the twins (its F1 there).
    pub twin: DecisionChoice,
    /// The upper threshold chosen on the twins, and its mean F1 there (as `twin`).
    pub twin_upper: f64,
    pub twin_f1: f64,
    /// On the real files (when given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub real: Option<RealCheck>,
}

/// The twins' configuration on the real files, beside the real files' own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RealCheck {
    /// The configuration chosen on the real files with their truth.
    pub best: DecisionChoice,
    /// F1 of the matches with the twins' weights and upper threshold.
    pub twin_upper_f1: f64,
    pub best_upper: f64,
    pub best_f1: f64,
    pub proposed_upper: f64,
    pub proposed_f1: f64,
    /// `best_f1 − twin_upper_f1`.
    pub f1_loss: f64,
    /// M ∪ P at the twins' lower threshold and at the best one: recall, possible pairs, F1.
    pub twin_lower_recall: f64,
    pub twin_lower_possible: u64,
    pub twin_lower_f1: f64,
    pub best_lower_possible: u64,
    pub best_lower_f1: f64,
}

/// The grid's step on the weight scale (bits).
pub const STEP: f64 = 0.5;

/// M ∪ P at `(upper, lower)`: mean recall, mean possible pairs, mean F1.
fn with_possible(scorings: &[&Scoring], upper: f64, lower: f64) -> (f64, f64, f64) {
    let n = scorings.len().max(1) as f64;
    let (mut r, mut p, mut f) = (0.0, 0.0, 0.0);
    for s in scorings {
        let l = s.matcher.decide(&s.scored, Some(upper), Some(lower));
        let q = score(&l, &s.matcher.a().ids, &s.matcher.b().ids, &s.truth);
        r += q.with_possible.recall;
        p += l.possible as f64;
        f += q.with_possible.f1;
    }
    (r / n, p / n, f / n)
}

/// The highest threshold of `grid` at or below `upper` where M ∪ P holds
/// `recall` of the true pairs the candidates hold (mean over `scorings`); the
/// lowest of the grid if none does.
pub fn best_lower(scorings: &[&Scoring], grid: &[f64], upper: f64, recall: f64) -> f64 {
    let reachable = scorings
        .iter()
        .map(|s| {
            score(&s.matcher.decide(&s.scored, Some(upper), None), &s.matcher.a().ids, &s.matcher.b().ids, &s.truth)
        })
        .map(|q| q.pairs_completeness)
        .sum::<f64>()
        / scorings.len().max(1) as f64;
    let lowest = grid.first().copied().unwrap_or(upper).min(upper);
    grid.iter()
        .rev()
        .copied()
        .filter(|&t| t <= upper)
        .find(|&t| with_possible(scorings, upper, t).0 >= recall * reachable - 1e-12)
        .unwrap_or(lowest)
}

/// The m probabilities of each sent field counted on the true pairs among the
/// candidates (one pseudo-count per level, so each is in (0, 1)).
pub fn counted_m(scorings: &[&Scoring], schema: &Schema) -> Vec<(String, Vec<f64>)> {
    let sent: Vec<_> = schema.sent().collect();
    let mut counts: Vec<Vec<f64>> = sent.iter().map(|f| vec![1.0; f.level_count()]).collect();
    for s in scorings {
        let (ia, ib) = (&s.matcher.a().ids, &s.matcher.b().ids);
        for (i, &(a, b)) in s.scored.candidates.iter().enumerate() {
            if !s.truth.contains(&(ia[a as usize].clone(), ib[b as usize].clone())) {
                continue;
            }
            for (f, &l) in s.scored.levels[i].0.iter().enumerate() {
                if l != crate::em::MISSING && (l as usize) < counts[f].len() {
                    counts[f][l as usize] += 1.0;
                }
            }
        }
    }
    sent.iter()
        .zip(counts)
        .map(|(f, c)| {
            let t: f64 = c.iter().sum();
            (f.name.clone(), c.iter().map(|x| x / t).collect())
        })
        .collect()
}

/// `schema` with the fixed m of `m` on each field that does not fix its own.
pub fn with_m(schema: &Schema, m: &[(String, Vec<f64>)]) -> Schema {
    let mut s = schema.clone();
    for f in s.fields.iter_mut() {
        if f.m.is_none() {
            if let Some((_, p)) = m.iter().find(|(n, _)| *n == f.name) {
                f.m = Some(p.clone());
            }
        }
    }
    s
}

/// Chooses the weights and both thresholds on `pairs` (each A, B, truth) with
/// the truth, as the module docs say.
pub fn choose(pairs: &[LinkageFiles], schema: &Schema, seed: u64) -> Result<(DecisionChoice, Vec<Scoring>), Error> {
    let run = |schema: &Schema| -> Result<Vec<Scoring>, Error> {
        pairs
            .iter()
            .enumerate()
            .map(|(i, (a, b, t))| Scoring::run(a, b, schema, t.clone(), seed + 100 + i as u64))
            .collect()
    };
    let em = run(schema)?;
    let m = counted_m(&em.iter().collect::<Vec<_>>(), schema);
    // m counted on few true pairs can weigh a closer level below a farther one:
    // the fit refuses such fixed weights (FIT_REFUSED), and the EM weights stand
    let counted = match run(&with_m(schema, &m)) {
        Ok(c) => Some(c),
        Err(Error::Fit(_)) => None,
        Err(e) => return Err(e),
    };
    let mut best: Option<(DecisionChoice, Vec<Scoring>)> = None;
    let candidates = std::iter::once(("em", em)).chain(counted.map(|c| ("counted-m", c)));
    for (name, scorings) in candidates {
        let refs: Vec<&Scoring> = scorings.iter().collect();
        let grid = threshold_grid(&refs, STEP);
        let Some((upper, f1)) = best_threshold(&refs, &grid) else { continue };
        if best.as_ref().is_some_and(|(b, _)| b.f1 >= f1) {
            continue;
        }
        let lower = best_lower(&refs, &grid, upper, schema.decision.recall);
        let recall_with_possible = with_possible(&refs, upper, lower).0;
        let m = if name == "em" { Vec::new() } else { m.clone() };
        let curve = grid.iter().copied().zip(f1_curve(&refs, &grid)).collect();
        let choice = DecisionChoice { weights: name.into(), m, upper, lower, f1, recall_with_possible, curve };
        best = Some((choice, scorings));
    }
    best.ok_or_else(|| Error::Parameter("rehearsal: no candidate pair to choose thresholds on".into()))
}

/// Rehearses on `twins` (CSV), and checks on `real` (`(a, b, truth)`) if given.
pub fn rehearse(
    twins: &[&[u8]],
    schema: &Schema,
    real: Option<RealFiles<'_>>,
    seed: u64,
) -> Result<RecordRehearsal, Error> {
    let pairs: Vec<LinkageFiles> =
        twins.iter().enumerate().map(|(i, t)| rehearsal_pair(t, seed + i as u64)).collect::<Result<_, _>>()?;
    let (twin, _) = choose(&pairs, schema, seed)?;
    let real = match real {
        None => None,
        Some((a, b, truth)) => {
            let files = [(a.to_vec(), b.to_vec(), truth)];
            let (best, real_scorings) = choose(&files, schema, seed + 200)?;
            let sbest =
                real_scorings.into_iter().next().ok_or_else(|| Error::Parameter("rehearsal: no scoring".into()))?;
            let (_, best_lower_possible, best_lower_f1) = with_possible(&[&sbest], best.upper, best.lower);
            // the twins' weights on the real files
            let twin_run;
            let s = if twin.weights == "em" && best.weights == "em" {
                &sbest
            } else {
                let twin_schema = if twin.weights == "em" { schema.clone() } else { with_m(schema, &twin.m) };
                let (a, b, t) = &files[0];
                twin_run = Scoring::run(a, b, &twin_schema, t.clone(), seed + 300)?;
                &twin_run
            };
            let twin_upper_f1 = s.f1(Some(twin.upper));
            let (twin_lower_recall, twin_lower_possible, twin_lower_f1) = with_possible(&[s], twin.upper, twin.lower);
            Some(RealCheck {
                twin_upper_f1,
                best_upper: best.upper,
                best_f1: best.f1,
                proposed_upper: s.proposed(),
                proposed_f1: s.f1(None),
                f1_loss: best.f1 - twin_upper_f1,
                twin_lower_recall,
                twin_lower_possible: twin_lower_possible as u64,
                twin_lower_f1,
                best_lower_possible: best_lower_possible as u64,
                best_lower_f1,
                best,
            })
        }
    };
    Ok(RecordRehearsal { twin_upper: twin.upper, twin_f1: twin.f1, twin, real })
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

// reads the FEBRL schema's TOML (a native dev-dependency)
#[cfg(all(test, not(target_arch = "wasm32")))]
mod choice_tests {
    use super::*;

    #[test]
    fn weights_and_both_thresholds_are_chosen_and_checked() {
        // 150 FEBRL records as the "twin", and as the real files with their truth (the
        // weights counted on the truth are fixed in a schema every party then validates)
        let text: String =
            include_str!("../../data/febrl/dataset1-a.csv").lines().take(151).map(|l| format!("{l}\n")).collect();
        let v: toml::Value = toml::from_str(include_str!("../../data/febrl/schema.toml")).unwrap();
        let schema = Schema::parse_json(&serde_json::to_string(&v).unwrap()).unwrap();
        let (a, b, truth) = rehearsal_pair(text.as_bytes(), 9).unwrap();
        let r = rehearse(&[text.as_bytes()], &schema, Some((&a, &b, truth)), 5).unwrap();
        let (t, c) = (&r.twin, r.real.as_ref().unwrap());
        assert!(t.lower <= t.upper && t.recall_with_possible >= schema.decision.recall * 0.9, "{t:?}");
        assert!(t.weights == "em" || (t.weights == "counted-m" && !t.m.is_empty()), "{t:?}");
        assert!(c.f1_loss >= -1e-12 && c.best_f1 >= c.twin_upper_f1 && c.best.lower <= c.best.upper, "{c:?}");
        assert!(t.curve.iter().any(|&(u, f)| u == t.upper && f == t.f1));
        // a fixed m on every sent field that has none, valid under the schema's rules
        let m: Vec<(String, Vec<f64>)> = schema
            .sent()
            .map(|f| (f.name.clone(), (0..f.level_count()).map(|_| 1.0 / f.level_count() as f64).collect()))
            .collect();
        let fixed = with_m(&schema, &m);
        fixed.validate().unwrap();
        assert!(fixed.sent().all(|f| f.m.is_some()));
    }
}
