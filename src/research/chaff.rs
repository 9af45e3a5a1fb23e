//! Fake rows ("chaff") in party A's batch, an experiment of the frontier:
//! whether rows that stand for no record disturb the graph-matching attack
//! ([`super::graph`]) enough to bring it under 5 %, and what they cost the
//! linkage. A knows its fakes and drops every pair that names one when it
//! maps the matcher's pairs back, so the only loss is a B record whose
//! closest A row is a fake.
//!
//! Two sources:
//! - **edits**: each fake is one of A's own distinct values with one random
//!   edit (a decoy beside a real value, so the real value's neighbourhood in
//!   the similarity graph is no longer the public value's);
//! - **population**: names of the public population that A does not hold.
//!
//! The attack is run twice: as it is (C does not know of the fakes), and
//! adaptively, C adding to its list fakes of its own made the same way
//! (Kerckhoffs: C knows the scheme and its rate, never A's draws).

use crate::dp::Randomness;
use crate::eval::corrupt::corrupt;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Where fake values come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FakeSource {
    Edits,
    Population,
}

impl std::str::FromStr for FakeSource {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "edits" => Ok(FakeSource::Edits),
            "population" => Ok(FakeSource::Population),
            o => Err(format!("fake source {o:?} is not one of edits, population")),
        }
    }
}

/// The truth of a fake row: a value no list holds, so naming it never counts.
pub const FAKE_MARK: char = '\u{1}';

/// `rate` × |distinct `values`| fake values, none of them in `values` nor
/// repeated: one-edit variants of `values` (normalized by `normalize`), or
/// names of `population` outside `values`.
pub fn fakes(
    values: &[String],
    population: &[String],
    source: FakeSource,
    rate: f64,
    normalize: impl Fn(&str) -> String,
    rng: &mut Randomness,
) -> Vec<String> {
    let mut distinct: Vec<&String> = values.iter().collect::<HashSet<_>>().into_iter().collect();
    distinct.sort();
    let taken: HashSet<&str> = distinct.iter().map(|s| s.as_str()).collect();
    let want = (rate * distinct.len() as f64).round() as usize;
    let mut out: Vec<String> = Vec::with_capacity(want);
    let mut seen: HashSet<String> = HashSet::new();
    match source {
        FakeSource::Edits => {
            // a bounded number of tries: a value may have few new variants
            let mut tries = 0usize;
            while out.len() < want && tries < 50 * want.max(1) {
                tries += 1;
                let s = distinct[rng.below(distinct.len())];
                let f = normalize(&corrupt(s, 1, rng));
                if !f.is_empty() && !taken.contains(f.as_str()) && seen.insert(f.clone()) {
                    out.push(f);
                }
            }
        }
        FakeSource::Population => {
            let free: Vec<&String> = population.iter().filter(|s| !taken.contains(s.as_str())).collect();
            for i in rng.permutation(free.len()) {
                if out.len() == want {
                    break;
                }
                if seen.insert(free[i].clone()) {
                    out.push(free[i].clone());
                }
            }
        }
    }
    out
}

/// C's pruning of fakes it cannot name: a one-edit fake sits beside the
/// real value it was made from, so a real row is the centre of a star of
/// close rows and a fake a leaf. Keeps the `keep` rows with the most
/// neighbours at cosine ≥ `tau` (ties by row), in row order.
pub fn suspected_real(rows: &crate::sparse_vectors::SparseVectors, keep: usize, tau: f32) -> Vec<usize> {
    let n = rows.len();
    let norm: Vec<f32> = (0..n).map(|r| rows.row(r).1.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12)).collect();
    let mut postings: Vec<Vec<(u32, f32)>> = vec![Vec::new(); rows.dim];
    for r in 0..n {
        let (c, x) = rows.row(r);
        for (&c, &x) in c.iter().zip(x) {
            postings[c as usize].push((r as u32, x / norm[r]));
        }
    }
    // rows in chunks, each with its own dense accumulator
    let chunks: Vec<(usize, usize)> = (0..n).step_by(512).map(|s| (s, (s + 512).min(n))).collect();
    let degree: Vec<usize> = crate::par::map(&chunks, |&(lo, hi)| {
        let mut dot = vec![0f32; n];
        let mut touched: Vec<u32> = Vec::new();
        (lo..hi)
            .map(|i| {
                let (c, x) = rows.row(i);
                for (&c, &x) in c.iter().zip(x) {
                    for &(j, y) in &postings[c as usize] {
                        if dot[j as usize] == 0.0 {
                            touched.push(j);
                        }
                        dot[j as usize] += x / norm[i] * y;
                    }
                }
                let d = touched.iter().filter(|&&j| j as usize != i && dot[j as usize] >= tau).count();
                for &j in &touched {
                    dot[j as usize] = 0.0;
                }
                touched.clear();
                d
            })
            .collect::<Vec<usize>>()
    })
    .into_iter()
    .flatten()
    .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| degree[b].cmp(&degree[a]).then(a.cmp(&b)));
    order.truncate(keep);
    order.sort_unstable();
    order
}

/// The linkage cost of fakes: the scenario of docs/SCENARIO.md (B a copy of
/// `a` with `ed` edits each, the whole keyed protocol) with A holding its
/// records and `fakes`; pairs naming a fake are dropped (A knows them), the
/// rest scored against the truth. Returns the quality and the fakes' count.
pub fn linkage_with_fakes(
    a: &[String],
    population: &[String],
    alphabet: &crate::alphabet::Alphabet,
    config: &crate::config::Config,
    (rate, source): (f64, FakeSource),
    seed: u64,
    progress: &mut dyn crate::progress::Progress,
) -> Result<(crate::matching::truth::Quality, usize), crate::error::Error> {
    use crate::dataset::Dataset;
    use crate::party::DataOwner;
    let ed = match config.thresholds.ed {
        crate::config::Ed::Fixed(n) => n,
        crate::config::Ed::Auto => 1,
    };
    let mut rng = Randomness::seeded(seed);
    let (mut r_corrupt, r_a, r_b, mut r_fake, mut r_key) = (rng.fork(), rng.fork(), rng.fork(), rng.fork(), rng.fork());
    let (b_all, truth_all) = crate::eval::scenario::corrupted_copy(a, ed, alphabet, &mut r_corrupt);
    let (b, truth) = crate::eval::scenario::without_empty(&b_all, &truth_all);
    let fake = fakes(a, population, source, rate, |s| alphabet.normalize(s), &mut r_fake);
    let all: Vec<String> = a.iter().cloned().chain(fake.iter().cloned()).collect();
    let budget = config.mine.budget();
    let mut owner_a = DataOwner::new(Dataset::from_normalized(all, alphabet), budget, r_a)?;
    let mut owner_b = DataOwner::new(Dataset::from_normalized(b, alphabet), budget, r_b)?;
    let mut key = [0u8; 32];
    r_key.fill_bytes(&mut key);
    let key = crate::keyed::Key::from_bytes(key);
    let clock = crate::clock::NoClock;
    let run = crate::session::run(&mut owner_a, &mut owner_b, config, Some(&key), &clock, progress)?;
    let n = a.len();
    let real = run.pairs.iter().filter(|p| (p.a as usize) < n).map(|p| (p.a, p.b));
    Ok((crate::matching::truth::quality(real, &truth, n), fake.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fakes_are_new_distinct_and_as_many_as_asked() {
        let values: Vec<String> = ["SMITH", "JONES", "BROWN", "SMITH", "TAYLOR"].map(String::from).to_vec();
        let pop: Vec<String> = ["SMITH", "WHITE", "GREEN", "JONES", "BLACK"].map(String::from).to_vec();
        let mut rng = Randomness::seeded(1);
        let e = fakes(&values, &pop, FakeSource::Edits, 2.0, |s| s.to_string(), &mut rng);
        assert_eq!(e.len(), 8);
        assert!(e.iter().all(|f| !values.contains(f)));
        assert_eq!(e.iter().collect::<HashSet<_>>().len(), e.len());
        let p = fakes(&values, &pop, FakeSource::Population, 0.75, |s| s.to_string(), &mut rng);
        assert_eq!(p.len(), 3);
        assert!(p.iter().all(|f| ["WHITE", "GREEN", "BLACK"].contains(&f.as_str())));
        // more than the population holds: all of it, no more
        let all = fakes(&values, &pop, FakeSource::Population, 5.0, |s| s.to_string(), &mut rng);
        assert_eq!(all.len(), 3);
    }
}
