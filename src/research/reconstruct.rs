//! The reconstruction attack: a record rebuilt from its vector alone, with no
//! dictionary and no key, by an Eulerian-path decoder over the bigram multiset
//! the vector carries.
//!
//! When the shared base holds every 2-gram of Σ and the boundary grams `^a`,
//! `a$` (the recommended preset's public part) and records are embedded padded
//! (`^record$`), the 2-gram coordinates of a vector are the exact multiset of
//! the padded record's bigrams. Read as a directed multigraph over Σ ∪ {^, $}
//! (one edge X→Y per occurrence of XY), the padded record is an Eulerian trail
//! from `^` to `$`. The decoder enumerates the distinct trails (up to a cap),
//! keeps those whose whole embedding equals the vector (the mined 3-grams
//! prune further), and answers the candidates: one candidate is a unique
//! reconstruction; k candidates that hold the record give a guess right with
//! probability 1/k.
//!
//! A base without a complete, padded 2-gram class (the paper's preset) gives the
//! decoder no multiset: it answers nothing. A keyed vector's coordinates are
//! rotated (non-integer mixtures of every gram), so the decoder answers nothing
//! unless the rotation is undone first (see [`super::axes`]).

use crate::embed::Embedder;
use std::collections::BTreeMap;

/// The most candidates the decoder lists (past it: "too many", no guess).
pub const MAX_CANDIDATES: usize = 64;
/// The most search steps per vector (a long record of repeated letters has
/// exponentially many trails; past the budget the decoder gives up).
pub const MAX_STEPS: usize = 200_000;

/// Decodes what the base lets C decode: the 2-gram coordinates, read as edges.
pub struct Decoder<'e> {
    embedder: &'e Embedder,
    /// `(from, to, coordinate)` of each complete 2-gram coordinate.
    edges: Vec<(char, char, usize)>,
    start: char,
    end: char,
}

/// The decoder's answer for one vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// The distinct records (unpadded) consistent with the whole vector.
    Candidates(Vec<String>),
    /// More than [`MAX_CANDIDATES`] trails, or the step budget ran out.
    TooMany,
}

impl<'e> Decoder<'e> {
    /// A decoder for vectors over `base`'s grams (as `embedder` embeds them), or
    /// `None` when the base has no padding or no complete class of 2-grams with
    /// the boundary grams (nothing to decode).
    pub fn new(base: &crate::base::SharedBase, embedder: &'e Embedder) -> Option<Decoder<'e>> {
        let p = base.padding()?;
        let sigma: Vec<char> = p.strip(base.alphabet()).ok()?.symbols().to_vec();
        let mut index: BTreeMap<(char, char), usize> = BTreeMap::new();
        for (i, g) in base.grams().iter().enumerate() {
            let cs: Vec<char> = g.chars().collect();
            if let [x, y] = cs[..] {
                index.insert((x, y), i);
            }
        }
        let mut edges = Vec::new();
        let froms = sigma.iter().copied().chain([p.start]);
        for x in froms {
            for y in sigma.iter().copied().chain([p.end]) {
                if (x, y) == (p.start, p.end) {
                    continue; // the empty record: not a public gram
                }
                edges.push((x, y, *index.get(&(x, y))?));
            }
        }
        Some(Decoder { embedder, edges, start: p.start, end: p.end })
    }

    /// The candidates for one vector, given as its non-zero coordinates.
    pub fn decode(&self, cols: &[u32], vals: &[f32]) -> Decoded {
        let value: BTreeMap<usize, f32> = cols.iter().map(|&c| c as usize).zip(vals.iter().copied()).collect();
        // edge multiplicities: a 2-gram's coordinate is count / 2
        let mut out: BTreeMap<char, Vec<(char, u32)>> = BTreeMap::new();
        let mut total = 0u32;
        for &(x, y, i) in &self.edges {
            let c = value.get(&i).map_or(0, |v| (v * 2.0).round() as u32);
            if c > 0 {
                out.entry(x).or_default().push((y, c));
                total += c;
            }
        }
        if total == 0 {
            return Decoded::Candidates(Vec::new());
        }
        let mut found = Vec::new();
        let mut path = vec![self.start];
        let mut steps = 0usize;
        if !self.trails(&mut out, &mut path, total, &mut found, &mut steps) {
            return Decoded::TooMany;
        }
        let want: Vec<(usize, f32)> = value.into_iter().filter(|&(_, v)| v != 0.0).collect();
        let consistent = found.into_iter().filter(|s| self.embedder.embed_sparse(s) == want).collect();
        Decoded::Candidates(consistent)
    }

    /// Depth-first search of the trails using every remaining edge; false when
    /// a cap is reached.
    fn trails(
        &self,
        out: &mut BTreeMap<char, Vec<(char, u32)>>,
        path: &mut Vec<char>,
        left: u32,
        found: &mut Vec<String>,
        steps: &mut usize,
    ) -> bool {
        *steps += 1;
        if *steps > MAX_STEPS {
            return false;
        }
        let at = *path.last().unwrap_or(&self.start);
        if left == 0 {
            if at == self.end {
                found.push(path[1..path.len() - 1].iter().collect());
                return found.len() <= MAX_CANDIDATES;
            }
            return true;
        }
        let n = out.get(&at).map_or(0, |v| v.len());
        for k in 0..n {
            let (y, c) = out[&at][k];
            if c == 0 || (y == self.end && left > 1) {
                continue;
            }
            if let Some(e) = out.get_mut(&at) {
                e[k].1 -= 1;
            }
            path.push(y);
            let ok = self.trails(out, path, left - 1, found, steps);
            path.pop();
            if let Some(e) = out.get_mut(&at) {
                e[k].1 += 1;
            }
            if !ok {
                return false;
            }
        }
        true
    }
}

/// What the decoder got back of a batch whose true records are known.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Reconstruction {
    /// Share of records that are the decoder's one candidate.
    pub unique: f64,
    /// Expected share right when C guesses uniformly among the candidates.
    pub guessing: f64,
    /// Share of records with more than [`MAX_CANDIDATES`] trails (given up).
    pub too_many: f64,
}

/// Runs the decoder on every row of `rows` (sparse: non-zero columns and values)
/// against the true records `truth` (normalized, unpadded).
pub fn score<'a>(
    decoder: &Decoder<'_>,
    rows: impl Iterator<Item = (&'a [u32], &'a [f32])>,
    truth: &[String],
) -> Reconstruction {
    let mut r = Reconstruction::default();
    let mut n = 0usize;
    for ((cols, vals), t) in rows.zip(truth) {
        n += 1;
        match decoder.decode(cols, vals) {
            Decoded::Candidates(c) if c.iter().any(|s| s == t) => {
                r.guessing += 1.0 / c.len() as f64;
                if c.len() == 1 {
                    r.unique += 1.0;
                }
            }
            Decoded::Candidates(_) => {}
            Decoded::TooMany => r.too_many += 1.0,
        }
    }
    let n = n.max(1) as f64;
    Reconstruction { unique: r.unique / n, guessing: r.guessing / n, too_many: r.too_many / n }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alphabet::Alphabet;
    use crate::padding::Padding;

    fn base(mined: &[&str]) -> crate::base::SharedBase {
        let al = Padding::default().extend(&Alphabet::default()).unwrap();
        let m = crate::base::SharedBase::new(al, 3, 3, mined.iter().map(|s| s.to_string()).collect()).unwrap();
        crate::public::extend_base(&m, &Alphabet::default(), Some(2), Some(Padding::default())).unwrap()
    }

    fn decode(b: &crate::base::SharedBase, s: &str) -> Decoded {
        let e = Embedder::new(b).unwrap();
        let d = Decoder::new(b, &e).unwrap();
        let v = e.embed_sparse(s);
        let cols: Vec<u32> = v.iter().map(|&(c, _)| c as u32).collect();
        let vals: Vec<f32> = v.iter().map(|&(_, x)| x).collect();
        d.decode(&cols, &vals)
    }

    #[test]
    fn rebuilds_a_name_from_its_padded_bigram_multiset() {
        let b = base(&["^SM"]);
        assert_eq!(decode(&b, "SMITH"), Decoded::Candidates(vec!["SMITH".into()]));
        assert_eq!(decode(&b, "WILLIAMS"), Decoded::Candidates(vec!["WILLIAMS".into()]));
        // one bigram multiset, two trails
        assert_eq!(decode(&b, "JOHNSON"), Decoded::Candidates(vec!["JOHNSON".into(), "JONSOHN".into()]));
    }

    #[test]
    fn ambiguous_multisets_give_every_trail_and_3_grams_prune_them() {
        // "ABXACXA": the trails ^A→(B…|C…) give ABXACXA and ACXABXA
        let plain = base(&["^SM"]);
        let Decoded::Candidates(c) = decode(&plain, "ABXACXA") else { panic!("too many") };
        assert_eq!(c, vec!["ABXACXA".to_string(), "ACXABXA".to_string()]);
        // a mined 3-gram that one trail holds and the other not: unique again
        let pruned = base(&["XAC"]);
        assert_eq!(decode(&pruned, "ABXACXA"), Decoded::Candidates(vec!["ABXACXA".into()]));
    }

    #[test]
    fn no_complete_padded_bigrams_no_decoder() {
        let b = crate::base::SharedBase::new(Alphabet::default(), 1, 2, vec!["A".into(), "AB".into()]).unwrap();
        let e = Embedder::new(&b).unwrap();
        assert!(Decoder::new(&b, &e).is_none());
    }
}
