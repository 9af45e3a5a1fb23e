//! The paper's personalized threshold (Algorithm 2), implemented faithfully and
//! named so: not an upper bound (the module docs of [`super`] say why).

use super::scratch::Scratch;
use super::Thresholder;

impl Thresholder {
    /// The paper's personalized threshold (Algorithm 2), NOT an upper bound.
    ///
    /// `D[i] = Σ_{g∈B} (δ_s(i,g)/|g|)²`, where `δ_s(i,g) = 1` if some occurrence of
    /// g covers position i (several occurrences of the same gram count once).
    ///
    /// Reading of the misprints (docs/DESIGN.md): equation 13 disagrees with its prose;
    /// we follow the prose and VGRAM's recurrence: `P[i]` is the largest position
    /// `j < i` such that no base-gram occurrence covers both j and i (an edit at j
    /// and one at i touch disjoint occurrences), i.e. the smallest start of an
    /// occurrence covering i, minus one (`i − 1` if none covers i; −1 possibly).
    /// Rows count edits: `T[0][·] = 0` is the row the printed loop reads as
    /// `T[−1]`, `T[k][−1] = 0`, and for k = 1..ed, j = 0..|s|−1,
    /// `T[k][j] = max(T[k][j−1], T[k−1][P[j]] + D[j])`; the result is
    /// `th = √T[ed][|s|−1]` (the printed `T[ed][j]` with j at its last value), so
    /// at most ed positions are chosen (the printed indices would allow ed + 1).
    /// Only positions 0..|s|−1 exist, so insertions at the end are not modelled.
    ///
    /// Not an upper bound (module docs): on NAMES with the 75 most frequent 1–3
    /// grams, every one of 1,000 sampled names has a single substitution that
    /// lands outside it.
    pub fn paper(&self, s: &str) -> f64 {
        self.paper_with(s, &mut Scratch::default())
    }

    pub(super) fn paper_with(&self, s: &str, sc: &mut Scratch) -> f64 {
        let ed = self.ed;
        self.scan(s, sc);
        let n = sc.codes.len();
        if n == 0 || ed == 0 {
            return 0.0;
        }
        sc.covered.clear();
        sc.first_start.clear();
        sc.first_start.extend(0..n);
        for &(g, p) in &sc.occurrences {
            let len = self.len[g as usize];
            for i in p..p + len {
                sc.covered.push((i as u32, g));
                sc.first_start[i] = sc.first_start[i].min(p);
            }
        }
        crate::sorting::sort_keys(&mut sc.covered);
        sc.covered.dedup();
        sc.position_weight.clear();
        sc.position_weight.resize(n, 0.0);
        for &(i, g) in &sc.covered {
            let len = self.len[g as usize] as f64;
            sc.position_weight[i as usize] += 1.0 / (len * len);
        }
        // Row k lives in rows[k*(n+1) ..]; entry j+1 is T[k][j], entry 0 is T[k][−1].
        let w = n + 1;
        sc.table.clear();
        sc.table.resize(w * (ed as usize + 1), 0.0);
        for k in 1..=ed as usize {
            for j in 0..n {
                // P[j] + 1 = first[j]: index of T[k−1][P[j]] in the shifted row.
                let take = sc.table[(k - 1) * w + sc.first_start[j]] + sc.position_weight[j];
                let skip = sc.table[k * w + j];
                sc.table[k * w + j + 1] = skip.max(take);
            }
        }
        sc.table[ed as usize * w + n].sqrt()
    }
}
