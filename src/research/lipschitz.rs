//! The baseline the paper compares against (section 2 and 7.2.5): the SparseMap /
//! Lipschitz embedding of Scannapieco et al. (SIGMOD 2007).
//!
//! A base is a list of reference sets `A_1 … A_k`, each a set of random strings;
//! string `s` maps to the vector whose coordinate `i` is `min_{x ∈ A_i} d_edit(x, s)`.
//! Each coordinate is 1-Lipschitz in the edit distance (`|d(x,A) − d(y,A)| ≤ d(x,y)`),
//! so strings within `ed` edits lie within `ed·√k` in the Euclidean embedding; the
//! matcher uses one global threshold, as the paper does for this scheme.
//!
//! As the paper describes the setup: a public *candidate set* of 1,000 random strings
//! of length 10 over the alphabet; reference sets drawn from it (Bourgain-style sizes
//! 1, 2, 4, 8); base size 12 by default; and the *greedy selection heuristic*
//! (SparseMap's greedy resampling): from a pool of candidate reference sets, pick one
//! at a time the set that most lowers the stress
//! `Σ_pairs (d'(x, y) − d_edit(x, y))²` over a sample of pairs, where `d'` is the
//! Euclidean distance over the chosen coordinates divided by `√(chosen)` (the RMS
//! coordinate difference, on the scale of the edit distance).
//!
//! **Privacy.** Random reference sets reveal nothing about the data. The greedy
//! heuristic, however, selects the base on one party's records (its sample pairs are
//! that party's own strings and corruptions of them), so the shared base depends on
//! that party's data with no differential-privacy guarantee — the weakness the paper
//! points out. This module is a *baseline for experiments*, not a private protocol.
//!
//! Edit distances are computed with the `rapidfuzz` crate (bit-parallel Levenshtein).

use crate::alphabet::Alphabet;
use crate::dp::Randomness;
use crate::embed::Vectors;
use crate::error::Error;
use crate::eval::corrupt::corrupt;
use rapidfuzz::distance::levenshtein;

/// Parameters of the baseline, with the paper's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct LipschitzOptions {
    /// Number of reference sets `k` (the paper: 12).
    pub base_size: usize,
    /// Size of the random candidate set (the paper: 1,000).
    pub candidates: usize,
    /// Length of each random candidate string (the paper: 10).
    pub string_len: usize,
    /// Reference sets have sizes `2^0 … 2^max_set_log2`, cycling.
    pub max_set_log2: u32,
    /// Candidate reference sets the greedy heuristic chooses from (≥ base_size).
    pub pool: usize,
    /// Sample pairs the heuristic scores the stress on (half random pairs of
    /// records, half a record and a 1- or 2-edit corruption of it).
    pub sample_pairs: usize,
}

impl Default for LipschitzOptions {
    fn default() -> Self {
        LipschitzOptions {
            base_size: 12,
            candidates: 1000,
            string_len: 10,
            max_set_log2: 3,
            pool: 48,
            sample_pairs: 400,
        }
    }
}

impl LipschitzOptions {
    fn validate(&self, alphabet: &Alphabet) -> Result<(), Error> {
        let bad = |m: &str| Err(Error::Parameter(format!("Lipschitz baseline: {m}")));
        if self.base_size == 0 {
            return bad("the base size must be at least 1");
        }
        if self.candidates == 0 || self.string_len == 0 {
            return bad("the candidate set and its strings must not be empty");
        }
        if self.pool < self.base_size {
            return bad("the pool of reference sets must hold at least base-size sets");
        }
        if self.max_set_log2 > 20 || (1usize << self.max_set_log2) > self.candidates {
            return bad("the largest reference set (2^max_set_log2) exceeds the candidate set");
        }
        if alphabet.is_empty() {
            return bad("the alphabet is empty");
        }
        Ok(())
    }
}

/// A Lipschitz base: the candidate strings and the chosen reference sets (indices
/// into the candidates).
#[derive(Debug, Clone, PartialEq)]
pub struct LipschitzBase {
    candidates: Vec<String>,
    sets: Vec<Vec<u32>>,
}

/// `n` random strings of `len` symbols of the alphabet, uniformly.
fn random_strings(alphabet: &Alphabet, n: usize, len: usize, rng: &mut Randomness) -> Vec<String> {
    let sym = alphabet.symbols();
    (0..n).map(|_| (0..len).map(|_| sym[rng.below(sym.len())]).collect()).collect()
}

/// `count` reference sets drawn from `n` candidates, set `i` of size `2^(i mod (J+1))`.
fn random_sets(n: usize, count: usize, max_log2: u32, rng: &mut Randomness) -> Vec<Vec<u32>> {
    (0..count)
        .map(|i| {
            let size = 1usize << (i as u32 % (max_log2 + 1));
            // a partial Fisher–Yates shuffle draws `size` distinct candidates
            let mut idx: Vec<u32> = (0..n as u32).collect();
            for j in 0..size {
                let r = j + rng.below(n - j);
                idx.swap(j, r);
            }
            let mut s = idx[..size].to_vec();
            s.sort_unstable();
            s
        })
        .collect()
}

fn edit(a: &str, b: &str) -> usize {
    levenshtein::distance(a.chars(), b.chars())
}

impl LipschitzBase {
    /// Reference sets drawn at random, without the heuristic (the scheme's private form).
    pub fn random(alphabet: &Alphabet, options: &LipschitzOptions, rng: &mut Randomness) -> Result<Self, Error> {
        options.validate(alphabet)?;
        let candidates = random_strings(alphabet, options.candidates, options.string_len, rng);
        let sets = random_sets(candidates.len(), options.base_size, options.max_set_log2, rng);
        Ok(LipschitzBase { candidates, sets })
    }

    /// Reference sets chosen by the greedy heuristic on `records` (one party's
    /// normalized records; see the module's privacy note).
    pub fn greedy(
        records: &[String],
        alphabet: &Alphabet,
        options: &LipschitzOptions,
        rng: &mut Randomness,
    ) -> Result<Self, Error> {
        options.validate(alphabet)?;
        if records.is_empty() {
            return Err(Error::Parameter("Lipschitz baseline: the heuristic needs at least one record".into()));
        }
        let candidates = random_strings(alphabet, options.candidates, options.string_len, rng);
        let pool = random_sets(candidates.len(), options.pool, options.max_set_log2, rng);

        // the sample: random pairs of records, and records against corruptions of themselves
        let mut pairs: Vec<(String, String)> = Vec::with_capacity(options.sample_pairs);
        for p in 0..options.sample_pairs {
            let x = records[rng.below(records.len())].clone();
            let y = if p % 2 == 0 {
                records[rng.below(records.len())].clone()
            } else {
                alphabet.normalize(&corrupt(&x, 1 + (p as u32 / 2) % 2, rng))
            };
            pairs.push((x, y));
        }
        let target: Vec<f64> = pairs.iter().map(|(x, y)| edit(x, y) as f64).collect();
        // coordinate value of each pool set for both strings of each pair
        let coord = |s: &str, set: &[u32]| -> f64 {
            let cmp = levenshtein::BatchComparator::new(s.chars());
            set.iter().map(|&c| cmp.distance(candidates[c as usize].chars())).min().unwrap_or(0) as f64
        };
        let delta: Vec<Vec<f64>> =
            pool.iter().map(|set| pairs.iter().map(|(x, y)| coord(x, set) - coord(y, set)).collect()).collect();

        let mut chosen: Vec<usize> = Vec::with_capacity(options.base_size);
        let mut acc = vec![0.0f64; pairs.len()];
        for step in 0..options.base_size {
            let m = (step + 1) as f64;
            let mut best: Option<(f64, usize)> = None;
            for (c, d) in delta.iter().enumerate() {
                if chosen.contains(&c) {
                    continue;
                }
                let stress: f64 =
                    acc.iter().zip(d).zip(&target).map(|((a, d), t)| (((a + d * d) / m).sqrt() - t).powi(2)).sum();
                if best.is_none_or(|(s, _)| stress < s) {
                    best = Some((stress, c));
                }
            }
            let (_, c) = best.ok_or_else(|| Error::Parameter("Lipschitz baseline: the pool ran out".into()))?;
            for (a, d) in acc.iter_mut().zip(&delta[c]) {
                *a += d * d;
            }
            chosen.push(c);
        }
        let sets = chosen.into_iter().map(|c| pool[c].clone()).collect();
        Ok(LipschitzBase { candidates, sets })
    }

    pub fn dim(&self) -> usize {
        self.sets.len()
    }

    /// The reference sets as strings.
    pub fn sets(&self) -> Vec<Vec<&str>> {
        self.sets.iter().map(|s| s.iter().map(|&c| self.candidates[c as usize].as_str()).collect()).collect()
    }

    fn embed_into(&self, s: &str, out: &mut [f32]) {
        let cmp = levenshtein::BatchComparator::new(s.chars());
        for (o, set) in out.iter_mut().zip(&self.sets) {
            let d = set.iter().map(|&c| cmp.distance(self.candidates[c as usize].chars())).min().unwrap_or(0);
            *o = d as f32;
        }
    }

    pub fn embed_one(&self, s: &str) -> Vec<f32> {
        let mut v = vec![0.0; self.dim()];
        self.embed_into(s, &mut v);
        v
    }

    /// Embeds every record (natively in parallel; rows are independent).
    pub fn embed_all(&self, records: &[String]) -> Vectors {
        let dim = self.dim();
        let mut data = vec![0.0f32; records.len() * dim];
        crate::par::fill_rows(&mut data, dim, records, || (), |_, row, s| self.embed_into(s, row));
        Vectors { dim, data }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::corrupt::edit_distance;
    use crate::matching::distance;

    fn small() -> LipschitzOptions {
        LipschitzOptions { candidates: 100, pool: 16, sample_pairs: 60, ..LipschitzOptions::default() }
    }

    fn names() -> Vec<String> {
        ["SMITH", "JOHNSON", "WILLIAMS", "BROWN", "JONES", "MILLER", "DAVIS", "GARCIA", "RODRIGUEZ", "WILSON"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    #[test]
    fn defaults_are_the_papers() {
        let o = LipschitzOptions::default();
        assert_eq!((o.base_size, o.candidates, o.string_len), (12, 1000, 10));
    }

    #[test]
    fn coordinate_is_min_edit_distance_to_the_set() {
        let base = LipschitzBase {
            candidates: vec!["ABC".into(), "XYZW".into(), "SMYTH".into()],
            sets: vec![vec![0], vec![0, 1, 2]],
        };
        assert_eq!(base.embed_one("SMITH"), vec![5.0, 1.0]);
        assert_eq!(base.embed_one("ABD"), vec![1.0, 1.0]);
        assert_eq!(base.sets()[1], vec!["ABC", "XYZW", "SMYTH"]);
    }

    #[test]
    fn embedding_is_lipschitz_in_edit_distance() {
        let a = Alphabet::default();
        let base = LipschitzBase::greedy(&names(), &a, &small(), &mut Randomness::seeded(7)).unwrap();
        assert_eq!(base.dim(), 12);
        let v = base.embed_all(&names());
        let n = names();
        for i in 0..n.len() {
            for j in 0..n.len() {
                let d = edit_distance(&n[i], &n[j]) as f64;
                for (x, y) in v.row(i).iter().zip(v.row(j)) {
                    assert!(((x - y).abs() as f64) <= d, "{} {}", n[i], n[j]);
                }
                assert!(distance(v.row(i), v.row(j)) <= d * (base.dim() as f64).sqrt() + 1e-9);
            }
        }
    }

    #[test]
    fn seeded_and_shaped_as_asked() {
        let a = Alphabet::default();
        let o = small();
        let b1 = LipschitzBase::greedy(&names(), &a, &o, &mut Randomness::seeded(3)).unwrap();
        let b2 = LipschitzBase::greedy(&names(), &a, &o, &mut Randomness::seeded(3)).unwrap();
        assert_eq!(b1, b2);
        for s in b1.sets() {
            assert!([1, 2, 4, 8].contains(&s.len()));
            assert!(s.iter().all(|x| x.chars().count() == 10 && a.covers(x)));
        }
        let r = LipschitzBase::random(&a, &o, &mut Randomness::seeded(3)).unwrap();
        assert_eq!(r.dim(), 12);
    }

    #[test]
    fn greedy_lowers_the_stress_against_random_sets() {
        // the heuristic's purpose: coordinates that separate the data's strings
        let a = Alphabet::default();
        let o = small();
        let recs = names();
        let spread = |b: &LipschitzBase| {
            let v = b.embed_all(&recs);
            let mut s = 0.0;
            for i in 0..recs.len() {
                for j in 0..recs.len() {
                    s += distance(v.row(i), v.row(j));
                }
            }
            s
        };
        let g = LipschitzBase::greedy(&recs, &a, &o, &mut Randomness::seeded(11)).unwrap();
        let r = LipschitzBase::random(&a, &o, &mut Randomness::seeded(11)).unwrap();
        assert!(spread(&g) >= spread(&r), "{} < {}", spread(&g), spread(&r));
    }

    #[test]
    fn bad_parameters_are_errors() {
        let a = Alphabet::default();
        let mut rng = Randomness::seeded(1);
        for o in [
            LipschitzOptions { base_size: 0, ..small() },
            LipschitzOptions { pool: 4, ..small() },
            LipschitzOptions { candidates: 4, ..small() },
            LipschitzOptions { string_len: 0, ..small() },
        ] {
            assert!(matches!(LipschitzBase::greedy(&names(), &a, &o, &mut rng), Err(Error::Parameter(_))));
        }
        assert!(LipschitzBase::greedy(&[], &a, &small(), &mut rng).is_err());
    }
}
