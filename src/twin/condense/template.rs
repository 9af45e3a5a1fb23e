//! The paper's *ConvertLength* (section 2): a string of length `L_j` as a
//! probabilistic template of length `L`, and the distance of equation (2.3).
//!
//! Reading taken where the paper is loose: the string occupies the interval
//! `[0, L_j)`, symbol `m` the unit interval `[m, m + 1)`; template position `i`
//! (0-based here) covers `[i·L_j/L, (i+1)·L_j/L)`. A symbol's weight at position
//! `i` is the length of the overlap of the two intervals, divided by the
//! position's width `L_j/L`, so each position's frequencies sum to 1 (the paper's
//! "start and end points inclusive" with "the contribution of the floating point
//! portions"). When `L_j = L` each position is exactly one symbol.

/// A template: per position, the symbols present and their normalized frequencies.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    /// `(symbol, frequency)` entries; position `i` is `entries[starts[i]..starts[i + 1]]`.
    entries: Vec<(u16, f32)>,
    starts: Vec<u32>,
}

impl Template {
    /// *ConvertLength*(`symbols`, `len`); `symbols` non-empty, `len > 0`.
    pub fn convert(symbols: &[u16], len: usize) -> Template {
        let lj = symbols.len() as f64;
        let width = lj / len as f64;
        let mut entries: Vec<(u16, f32)> = Vec::with_capacity(len * 2);
        let mut starts = Vec::with_capacity(len + 1);
        for i in 0..len {
            starts.push(entries.len() as u32);
            let (p, q) = (i as f64 * width, (i + 1) as f64 * width);
            let first = p.floor() as usize;
            let last = ((q.ceil() as usize).max(first + 1)).min(symbols.len());
            let here = entries.len();
            for (m, &s) in symbols.iter().enumerate().take(last).skip(first) {
                let overlap = (q.min(m as f64 + 1.0) - p.max(m as f64)).max(0.0);
                if overlap <= 0.0 {
                    continue;
                }
                let w = (overlap / width) as f32;
                match entries[here..].iter_mut().find(|e| e.0 == s) {
                    Some(e) => e.1 += w,
                    None => entries.push((s, w)),
                }
            }
        }
        starts.push(entries.len() as u32);
        Template { entries, starts }
    }

    /// The template's length `L`.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Position `i`'s `(symbol, frequency)` entries.
    pub fn position(&self, i: usize) -> &[(u16, f32)] {
        &self.entries[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Adds this template's frequencies to a dense `L × l` array (a centroid's sum).
    pub fn add_to(&self, dense: &mut [f32], l: usize) {
        for i in 0..self.len() {
            for &(s, w) in self.position(i) {
                dense[i * l + s as usize] += w;
            }
        }
    }

    /// Equation (2.3) against a dense `L × l` array whose rows each sum to 1 (a
    /// centroid or another template): `Σ_i Σ_r |f_ir − c_ir|`. With both rows
    /// summing to 1, `Σ_r |f − c| = 2 − 2 Σ_r min(f, c)`, and only the
    /// template's few non-zero symbols contribute to the minimum.
    pub fn distance(&self, dense: &[f32], l: usize) -> f32 {
        let mut overlap = 0.0f32;
        for i in 0..self.len() {
            let row = &dense[i * l..(i + 1) * l];
            for &(s, w) in self.position(i) {
                overlap += w.min(row[s as usize]);
            }
        }
        (2.0 * (self.len() as f32 - overlap)).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dense(t: &Template, l: usize) -> Vec<f32> {
        let mut d = vec![0.0; t.len() * l];
        t.add_to(&mut d, l);
        d
    }

    #[test]
    fn same_length_is_one_symbol_per_position() {
        let t = Template::convert(&[0, 1, 2], 3);
        assert_eq!(t.position(1), &[(1, 1.0)]);
        assert_eq!(t.distance(&dense(&t, 3), 3), 0.0);
    }

    #[test]
    fn stretching_splits_frequencies_that_sum_to_one() {
        // "ab" over 3 positions: a, (a ½ b ½), b
        let t = Template::convert(&[0, 1], 3);
        assert_eq!(t.position(0), &[(0, 1.0)]);
        assert_eq!(t.position(1), &[(0, 0.5), (1, 0.5)]);
        assert_eq!(t.position(2), &[(1, 1.0)]);
        // "abc" over 2 positions: (a ⅔ b ⅓), (b ⅓ c ⅔)
        let u = Template::convert(&[0, 1, 2], 2);
        for i in 0..2 {
            let s: f32 = u.position(i).iter().map(|e| e.1).sum();
            assert!((s - 1.0).abs() < 1e-6);
        }
        assert!((u.position(0)[0].1 - 2.0 / 3.0).abs() < 1e-6);
    }

    #[test]
    fn distance_is_the_l1_of_equation_2_3() {
        let (a, b) = (Template::convert(&[0, 1, 2], 3), Template::convert(&[0, 2, 2], 3));
        // one position differs wholly: |1-0| + |0-1| = 2
        assert!((a.distance(&dense(&b, 3), 3) - 2.0).abs() < 1e-6);
        assert!((b.distance(&dense(&a, 3), 3) - 2.0).abs() < 1e-6);
    }
}
