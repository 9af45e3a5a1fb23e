//! The digits' labels on a decoded digit base. The public digit base (every
//! 2-gram of the ten digits and the boundary grams) looks the same under any
//! relabelling of the digits and under reversal of the strings, so exact
//! inner products decode digit parts only up to such a map. The public
//! frequencies of each part (months hold 01–12, years 19xx and 20xx,
//! postcodes their states' leading digits) fix it: the relabelling kept is
//! the one under which the decoded values are most likely.

use std::collections::HashMap;

/// A relabelling of the digits, after an optional reversal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relabel {
    pub map: [u8; 10],
    pub reverse: bool,
}

impl Relabel {
    pub const IDENTITY: Relabel = Relabel { map: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], reverse: false };

    pub fn apply(&self, v: &str) -> String {
        let mapped =
            v.bytes()
                .map(|b| if b.is_ascii_digit() { (b'0' + self.map[(b - b'0') as usize]) as char } else { b as char });
        if self.reverse {
            mapped.rev().collect()
        } else {
            mapped.collect()
        }
    }
}

/// Log-likelihood of the decoded `(part, value, rows)` under the public
/// counts of each part (add-0.01 smoothing).
fn score(decoded: &[(usize, String, u32)], public: &[HashMap<&str, usize>], r: &Relabel) -> f64 {
    let totals: Vec<f64> = public.iter().map(|p| p.values().sum::<usize>() as f64 + 1.0).collect();
    decoded
        .iter()
        .map(|(part, v, n)| {
            let c = public[*part].get(r.apply(v).as_str()).copied().unwrap_or(0) as f64;
            *n as f64 * ((c + 0.01) / totals[*part]).ln()
        })
        .sum()
}

/// The most likely relabelling: hill climbing over digit transpositions from
/// the identity and from the reversal.
pub fn best_relabel(decoded: &[(usize, String, u32)], public: &[HashMap<&str, usize>]) -> Relabel {
    let mut best: Option<(f64, Relabel)> = None;
    for reverse in [false, true] {
        let mut r = Relabel { reverse, ..Relabel::IDENTITY };
        let mut s = score(decoded, public, &r);
        loop {
            let mut step: Option<(f64, Relabel)> = None;
            for i in 0..10 {
                for j in i + 1..10 {
                    let mut t = r;
                    t.map.swap(i, j);
                    let u = score(decoded, public, &t);
                    if u > s + 1e-9 && step.is_none_or(|(v, _)| u > v) {
                        step = Some((u, t));
                    }
                }
            }
            match step {
                Some((u, t)) => (s, r) = (u, t),
                None => break,
            }
        }
        if best.is_none_or(|(b, _)| s > b) {
            best = Some((s, r));
        }
    }
    best.map_or(Relabel::IDENTITY, |(_, r)| r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_swap_that_makes_months_months() {
        // decoded months with 0 and 7 swapped, reversed
        let public: HashMap<&str, usize> =
            [("01", 5), ("02", 4), ("10", 3), ("12", 3), ("07", 2)].into_iter().collect();
        let decoded: Vec<(usize, String, u32)> =
            ["17", "27", "71", "21", "07"].iter().map(|v| (0, v.to_string(), 3)).collect();
        let r = best_relabel(&decoded, &[public]);
        assert_eq!(decoded.iter().map(|(_, v, _)| r.apply(v)).collect::<Vec<_>>(), ["01", "02", "10", "12", "07"]);
    }
}
