//! A group's condensed statistics (section 2, equations 2.1 and 2.2) and the
//! generation of pseudo-strings from them (section 2.3).

use super::template::Template;
use crate::dp::Randomness;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the paper keeps of a group: the template length `L`, the number of
/// strings `n(G)`, the first-order statistics `Fs_rp = Σ_j f_pr(T_j)` and the
/// second-order statistics `Sc_rpq = Σ_j f_pr(T_j)·f_q(r+1)(T_j)`, both sparse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupStats {
    pub len: usize,
    pub n: usize,
    /// Per position `r`: `(p, Fs_rp)` for the symbols present, by symbol.
    pub first: Vec<Vec<(u16, f64)>>,
    /// Per position `r < L − 1`: `(p, q, Sc_rpq)`, sorted by `(p, q)`.
    pub second: Vec<Vec<(u16, u16, f64)>>,
}

impl GroupStats {
    /// The statistics of the group's templates (all of length `len`).
    pub fn of(templates: &[&Template], len: usize) -> GroupStats {
        let mut first: Vec<BTreeMap<u16, f64>> = vec![BTreeMap::new(); len];
        let mut second: Vec<BTreeMap<(u16, u16), f64>> = vec![BTreeMap::new(); len.saturating_sub(1)];
        for t in templates {
            for r in 0..len {
                for &(p, w) in t.position(r) {
                    *first[r].entry(p).or_default() += w as f64;
                    if r + 1 < len {
                        for &(q, v) in t.position(r + 1) {
                            *second[r].entry((p, q)).or_default() += w as f64 * v as f64;
                        }
                    }
                }
            }
        }
        GroupStats {
            len,
            n: templates.len(),
            first: first.into_iter().map(|m| m.into_iter().collect()).collect(),
            second: second.into_iter().map(|m| m.into_iter().map(|((p, q), w)| (p, q, w)).collect()).collect(),
        }
    }

    /// One pseudo-string (symbol indices) of length `L`: the first symbol with
    /// probability `Fs_1p / n(G)`, each next one with `Sc_ipq / Fs_ip` given the
    /// previous symbol `p`. Because `Σ_q Sc_ipq = Fs_ip` (each template's
    /// position sums to 1), these are exact conditional distributions, and a
    /// symbol drawn at position `i + 1` always has `Fs_(i+1)q > 0`.
    pub fn generate(&self, rng: &mut Randomness) -> Vec<u16> {
        let mut out = Vec::with_capacity(self.len);
        let mut p = pick(rng, self.first[0].iter().map(|e| (e.0, e.1)));
        out.push(p);
        for r in 0..self.len.saturating_sub(1) {
            let row = &self.second[r];
            let lo = row.partition_point(|e| e.0 < p);
            let hi = row.partition_point(|e| e.0 <= p);
            p = pick(rng, row[lo..hi].iter().map(|e| (e.1, e.2)));
            out.push(p);
        }
        out
    }
}

/// A uniform number in `[0, 1)` from 53 random bits.
pub(crate) fn unit(rng: &mut Randomness) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A draw from `weights` (non-negative, not all zero) in proportion to them.
fn pick(rng: &mut Randomness, weights: impl Iterator<Item = (u16, f64)> + Clone) -> u16 {
    let total: f64 = weights.clone().map(|w| w.1).sum();
    let mut u = unit(rng) * total;
    let mut last = 0;
    for (s, w) in weights {
        if w <= 0.0 {
            continue;
        }
        last = s;
        if u < w {
            return s;
        }
        u -= w;
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_match_equations_and_conditionals_sum_to_one() {
        let ts = [Template::convert(&[0, 1, 2], 3), Template::convert(&[0, 2, 2], 3), Template::convert(&[1, 1], 3)];
        let refs: Vec<&Template> = ts.iter().collect();
        let g = GroupStats::of(&refs, 3);
        assert_eq!(g.n, 3);
        assert_eq!(g.first[0], vec![(0, 2.0), (1, 1.0)]);
        for r in 0..2 {
            for &(p, fs) in &g.first[r] {
                let sc: f64 = g.second[r].iter().filter(|e| e.0 == p).map(|e| e.2).sum();
                assert!((sc - fs).abs() < 1e-9, "position {r} symbol {p}: {sc} vs {fs}");
            }
        }
    }

    #[test]
    fn a_group_of_identical_strings_regenerates_them() {
        let ts = vec![Template::convert(&[3, 1, 4, 1, 5], 5); 4];
        let refs: Vec<&Template> = ts.iter().collect();
        let g = GroupStats::of(&refs, 5);
        let mut rng = Randomness::seeded(9);
        for _ in 0..20 {
            assert_eq!(g.generate(&mut rng), vec![3, 1, 4, 1, 5]);
        }
    }

    #[test]
    fn first_symbol_follows_first_order_statistics() {
        let ts = [Template::convert(&[0, 0], 2), Template::convert(&[1, 0], 2), Template::convert(&[1, 0], 2)];
        let refs: Vec<&Template> = ts.iter().collect();
        let g = GroupStats::of(&refs, 2);
        let mut rng = Randomness::seeded(2);
        let ones = (0..30_000).filter(|_| g.generate(&mut rng)[0] == 1).count();
        // expected 20,000 of 30,000; 6 standard deviations is about 490
        assert!((19_500..20_500).contains(&ones), "{ones}");
    }
}
