//! The keyed sketch: the default keyed encoding of vectors (`sketch-v2`).
//!
//! # Why not the rotation
//! The rotation of [`super::rotation::Transform`] keeps every inner product, and the
//! matcher C can compute plaintext inner products for any public name: with a
//! list that covers the data, C identifies records by their exact norms and
//! inner products, then recovers the rotation on the data's span by a
//! Procrustes fit (docs/THREAT_MODEL.md has the numbers). It also makes every
//! row dense (1,024 f32 a NAMES record), so the matcher has no filter.
//!
//! # The sketch
//! Within each gram-length class of the shared base, a keyed permutation of the
//! class's coordinates is cut into buckets of `spread` consecutive positions:
//! each gram is counted in its bucket, so a bucket counts `spread` grams
//! together and C cannot tell which. The output is sparse non-negative
//! counts again (`count as f32 / |g| as f32`, as an unkeyed vector), with a
//! public shape (each bucket's gram length; a complete class stays complete,
//! since every window lands in some bucket of its class), so the q-gram count
//! filter of [`crate::matching`] runs on it unchanged:
//! - merging coordinates of one class never raises the class's L1 distance
//!   (`|Σ_{g∈b} x_g − y_g| ≤ Σ_{g∈b} |x_g − y_g|`) and keeps its total, so the
//!   q-gram lemma's bounds still hold (the filter only prunes less);
//! - A's thresholds are proven in the sketched space itself: the sound
//!   bound's dynamic program runs on the buckets
//!   ([`crate::threshold::Thresholder::in_space`], proof there), so they are
//!   not widened by a worst case.
//!
//! With `spread = 1` the sketch is a keyed permutation of the coordinates:
//! sound and exact, and the weakest row of the frontier (docs/THREAT_MODEL.md).
//!
//! # What C cannot do, and what it still can
//! C cannot compute the sketch of a candidate string without the key (the
//! bucket of a gram is a keyed PRF of the base's order), so it cannot embed a
//! dictionary. It still sees sparse counts: their frequencies, their
//! co-occurrences, and inner products that differ from the plaintext ones only
//! where two grams share a bucket. How much that gives back is measured, not
//! argued: `gramlink lab attack` and the frontier table in docs/THREAT_MODEL.md.

use super::key::{below, Key, MAX_DIM};
use crate::error::Error;
use crate::shape::Shape;
use crate::sparse_vectors::SparseVectors;
use crate::threshold::Space;
use hkdf::Hkdf;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use sha2::Sha256;

/// Prefix of a sketched batch's `transform` label (then the spread, a colon
/// and the check value).
pub const SKETCH_PREFIX: &str = "sketch-v2:";

/// The default number of grams a bucket counts together for one string
/// (measured on the frontier: docs/THREAT_MODEL.md).
pub const DEFAULT_SPREAD: u32 = 4;

/// The default for a record batch's parts ([`super::Encoding::for_records`]).
pub const RECORD_SPREAD: u32 = 8;

/// Largest spread accepted (a bucket of more grams than this merges most of a
/// class into a few coordinates, and links nothing useful).
pub const MAX_SPREAD: u32 = 64;

/// The keyed sketch of one shared base's vectors.
#[derive(Debug, Clone)]
pub struct Sketch {
    /// Input coordinate → bucket.
    bucket: Vec<u32>,
    /// Gram length of each bucket (the output's shape), and the complete classes.
    shape: Shape,
    spread: u32,
    label: String,
}

impl Sketch {
    /// The sketch of `key` for vectors of the shared base with this
    /// `fingerprint` and `shape` (the base's own, [`Shape::of`]), counting
    /// `spread` grams per bucket.
    pub fn new(key: &Key, fingerprint: &str, shape: &Shape, spread: u32) -> Result<Sketch, Error> {
        if spread == 0 || spread > MAX_SPREAD {
            return Err(Error::Parameter(format!("the sketch's spread is {spread}; it must be 1 to {MAX_SPREAD}")));
        }
        let dim = shape.lengths.len();
        if dim == 0 || dim > MAX_DIM {
            return Err(Error::Parameter(format!("cannot sketch vectors of dimension {dim} (1..={})", MAX_DIM)));
        }
        let hk = Hkdf::<Sha256>::new(Some(fingerprint.as_bytes()), key.bytes());
        let mut seed = [0u8; 32];
        let mut check = [0u8; 16];
        // the spread is in both infos: parties with different spreads get different
        // labels, refused as a mismatch before any work
        let info = |what: &str| format!("gramlink keyed sketch v2 / spread {spread} / {what}");
        hk.expand(info("bucket seed").as_bytes(), &mut seed)
            .and_then(|_| hk.expand(info("check value").as_bytes(), &mut check))
            .map_err(|e| Error::InvalidKey(format!("HKDF: {e}")))?;
        let mut rng = ChaCha20Rng::from_seed(seed);
        let mut classes: Vec<u8> = shape.lengths.clone();
        crate::sorting::sort_keys(&mut classes);
        classes.dedup();
        let mut bucket = vec![0u32; dim];
        let mut lengths = Vec::new();
        for &l in &classes {
            let mut coords: Vec<u32> = (0..dim as u32).filter(|&i| shape.lengths[i as usize] == l).collect();
            // Fisher–Yates with rejection sampling (no modulo bias)
            for i in (1..coords.len()).rev() {
                let j = below(&mut rng, i as u32 + 1) as usize;
                coords.swap(i, j);
            }
            let first = lengths.len() as u32;
            for (p, &c) in coords.iter().enumerate() {
                bucket[c as usize] = first + p as u32 / spread;
            }
            lengths.extend(std::iter::repeat_n(l, coords.len().div_ceil(spread as usize)));
        }
        let shape = Shape { lengths, complete: shape.complete.clone() };
        Ok(Sketch { bucket, shape, spread, label: format!("{SKETCH_PREFIX}{spread}:{}", hex::encode(check)) })
    }

    /// The public label written in the batch's `transform` field.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The shape of the sketched vectors (public: a function of the base's
    /// shape and the spread).
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    pub fn spread(&self) -> u32 {
        self.spread
    }

    /// The coordinates of the sketched vectors, for A's thresholds
    /// ([`crate::threshold::thresholds_in`]: sound in the sketched space).
    pub fn space(&self) -> Space {
        Space::Buckets { bucket: self.bucket.clone(), spread: self.spread }
    }

    /// The sketch of every row: counts summed per bucket, written as an
    /// unkeyed vector's values.
    pub fn apply(&self, v: &SparseVectors) -> Result<SparseVectors, Error> {
        if v.dim != self.bucket.len() {
            return Err(Error::Parameter(format!(
                "the sketch is for dimension {}, the vectors have {}",
                self.bucket.len(),
                v.dim
            )));
        }
        let mut out = SparseVectors::new(self.shape.lengths.len());
        out.cols.reserve(v.nnz());
        out.vals.reserve(v.nnz());
        let mut row: Vec<(u32, u64)> = Vec::new();
        for r in 0..v.len() {
            let (cols, vals) = v.row(r);
            row.clear();
            for (&c, &x) in cols.iter().zip(vals) {
                let b = self.bucket[c as usize];
                let len = self.shape.lengths[b as usize] as f64;
                // the exact count behind the value (count as f32 / len as f32)
                row.push((b, (x as f64 * len).round() as u64));
            }
            // ties (a bucket twice) are summed below, so the full key order is as good
            crate::sorting::sort_keys(&mut row);
            let mut merged: Vec<(u32, u64)> = Vec::with_capacity(row.len());
            for &(b, n) in &row {
                match merged.last_mut() {
                    Some((lb, ln)) if *lb == b => *ln += n,
                    _ => merged.push((b, n)),
                }
            }
            out.push_row(merged.iter().map(|&(b, n)| (b, n as f32 / self.shape.lengths[b as usize] as f32)));
        }
        Ok(out)
    }
}

/// Is this a sketch label this build writes (`sketch-v2:<spread>:<32 hex>`)?
pub fn valid_label(label: &str) -> bool {
    let Some(rest) = label.strip_prefix(SKETCH_PREFIX) else { return false };
    let Some((spread, check)) = rest.split_once(':') else { return false };
    spread.parse::<u32>().is_ok_and(|s| (1..=MAX_SPREAD).contains(&s))
        && !spread.starts_with('0')
        && check.len() == 32
        && check.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> Shape {
        // 30 grams of length 2 (complete), 9 of length 3
        let mut lengths = vec![2u8; 30];
        lengths.extend([3u8; 9]);
        Shape { lengths, complete: vec![2] }
    }

    fn rows(v: &[&[(u32, u32)]], shape: &Shape) -> SparseVectors {
        let mut s = SparseVectors::new(shape.lengths.len());
        for r in v {
            s.push_row(r.iter().map(|&(c, n)| (c, n as f32 / shape.lengths[c as usize] as f32)));
        }
        s
    }

    #[test]
    fn buckets_merge_counts_within_a_class_and_keep_totals() {
        let sh = shape();
        let k = Key::from_bytes([7; 32]);
        let s = Sketch::new(&k, "fp", &sh, 4).unwrap();
        assert_eq!(s.shape().lengths.len(), 8 + 3);
        assert_eq!(s.shape().lengths.iter().filter(|&&l| l == 2).count(), 8);
        assert_eq!(s.shape().complete, vec![2]);
        // every bucket holds at most `spread` grams of one length
        for b in 0..s.shape().lengths.len() as u32 {
            let members: Vec<usize> = (0..sh.lengths.len()).filter(|&c| s.bucket[c] == b).collect();
            assert!(!members.is_empty() && members.len() <= 4);
            assert!(members.iter().all(|&c| sh.lengths[c] == s.shape().lengths[b as usize]));
        }
        let v = rows(&[&[(0, 1), (1, 2), (5, 1), (31, 3)], &[]], &sh);
        let out = s.apply(&v).unwrap();
        let count = |r: usize| -> Vec<u64> {
            let (c, x) = out.row(r);
            c.iter().zip(x).map(|(&b, &x)| (x as f64 * s.shape().lengths[b as usize] as f64).round() as u64).collect()
        };
        assert_eq!(count(0).iter().sum::<u64>(), 7);
        assert!(count(1).is_empty());
        out.validate().unwrap();
    }

    #[test]
    fn the_key_the_base_and_the_spread_each_change_the_sketch() {
        let sh = shape();
        let (k1, k2) = (Key::from_bytes([1; 32]), Key::from_bytes([2; 32]));
        let a = Sketch::new(&k1, "fp", &sh, 2).unwrap();
        assert_eq!(a.bucket, Sketch::new(&k1, "fp", &sh, 2).unwrap().bucket);
        assert_eq!(a.label(), Sketch::new(&k1, "fp", &sh, 2).unwrap().label());
        for other in [
            Sketch::new(&k2, "fp", &sh, 2).unwrap(),
            Sketch::new(&k1, "other", &sh, 2).unwrap(),
            Sketch::new(&k1, "fp", &sh, 3).unwrap(),
        ] {
            assert_ne!(a.label(), other.label());
        }
        assert_ne!(a.bucket, Sketch::new(&k2, "fp", &sh, 2).unwrap().bucket);
        assert!(valid_label(a.label()) && a.label().starts_with("sketch-v2:2:"));
        for bad in ["sketch-v2:0:00000000000000000000000000000000", "sketch-v2:2:zz", "keyed-v1:00", "sketch-v2:02:"] {
            assert!(!valid_label(bad), "{bad}");
        }
        assert_eq!(Sketch::new(&k1, "fp", &sh, 0).unwrap_err().code(), "INVALID_PARAMETER");
    }

    /// Every string within `ed` edits of `word`: all of them for one edit, a
    /// seeded sample for two.
    fn edits(word: &str, symbols: &[char], ed: u32, r: &mut crate::dp::Randomness) -> Vec<String> {
        let one = |w: &str| {
            let w: Vec<char> = w.chars().collect();
            let mut out = Vec::new();
            for i in 0..=w.len() {
                for &c in symbols {
                    out.push(w[..i].iter().chain([&c]).chain(&w[i..]).collect::<String>());
                    if i < w.len() {
                        out.push(w[..i].iter().chain([&c]).chain(&w[i + 1..]).collect::<String>());
                    }
                }
                if i < w.len() {
                    out.push(w[..i].iter().chain(&w[i + 1..]).collect::<String>());
                }
            }
            out
        };
        let first = one(word);
        if ed == 1 {
            return first;
        }
        (0..3000)
            .map(|_| {
                let o = one(&first[r.below(first.len())]);
                o[r.below(o.len())].clone()
            })
            .collect()
    }

    #[test]
    fn thresholds_in_the_sketched_space_bound_every_sketched_distance_of_an_edit() {
        // ‖S(v(s) − v(t))‖ ≤ the sound threshold computed on the buckets, for
        // every single edit and sampled double edits, on a padded base with
        // 1- to 3-grams (long grams overlap themselves: AAA, ANA)
        use crate::alphabet::Alphabet;
        use crate::base::SharedBase;
        use crate::embed::Embedder;
        use crate::padding::Padding;
        use crate::threshold::{thresholds_in, ThresholdMode};
        let al = Alphabet::default();
        let mut grams = crate::public::public_grams(&al, 2, Some(Padding::default())).unwrap();
        grams.extend(["AAA", "ANA", "NAN", "SMI", "ITH", "OTT", "TTO", "ANN", "NNA"].map(String::from));
        let base = SharedBase::with_padding(al.clone(), 1, 3, grams, Some(Padding::default())).unwrap();
        let e = Embedder::new(&base).unwrap();
        let sym: Vec<char> = al.symbols().iter().copied().filter(|c| "ANSMITHOB ".contains(*c)).collect();
        let mut r = crate::dp::Randomness::seeded(5);
        let words: Vec<String> = ["ANNA", "SMITH", "OTTO", "AAAA", "NANA"].map(String::from).to_vec();
        for ed in [1, 2] {
            let plain = thresholds_in(&base, &words, ed, &ThresholdMode::Sound, &Space::Grams).unwrap();
            for spread in [1, 2, 4, 8] {
                let s = Sketch::new(&Key::from_bytes([3; 32]), base.fingerprint(), &Shape::of(&base), spread).unwrap();
                let bounds = thresholds_in(&base, &words, ed, &ThresholdMode::Sound, &s.space()).unwrap();
                for (w, word) in words.iter().enumerate() {
                    if spread == 1 {
                        // a permutation of the coordinates: the same bound
                        assert_eq!(bounds[w], plain[w], "{word}");
                    }
                    let others = edits(word, &sym, ed, &mut r);
                    let mut v = SparseVectors::new(e.dim());
                    for t in std::iter::once(word).chain(&others) {
                        v.push_row(e.embed_sparse(t).into_iter().map(|(c, x)| (c as u32, x)));
                    }
                    let dense = crate::embed::Vectors::from_sparse(&s.apply(&v).unwrap());
                    for (k, o) in others.iter().enumerate() {
                        let d = crate::matching::distance(dense.row(0), dense.row(k + 1));
                        assert!(d <= bounds[w], "{word} → {o}: {d} > {} (spread {spread}, ed {ed})", bounds[w]);
                    }
                }
            }
        }
    }
}
