//! Gram bases: a party's noisy base, the shared base, merging, and the fingerprint.
//!
//! The shared base is the embedding's coordinate system: coordinate i of every
//! vector is gram i of the shared base, so both parties must hold the very same
//! ordered list. Its fingerprint (SHA-256 of the canonical form) is what they
//! compare out of band, and what every vector batch carries.

use crate::alphabet::Alphabet;
use crate::error::BaseError;
use crate::padding::Padding;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// A gram with its (noisy) count as released by a miner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GramCount {
    pub gram: String,
    pub count: f64,
}

/// Which miner produced a base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(all(feature = "clap", not(target_arch = "wasm32")), derive(clap::ValueEnum))]
pub enum MinerKind {
    /// Top-k by noisy record supports, one run per gram length (paper 5.1).
    Fpm,
    /// Private prefix tree (paper 5.2, Algorithm 1).
    PrefixTree,
    /// Exact top-k by record support: NOT private, a baseline.
    Exact,
    /// Uniformly random grams over Σ: data-independent, costs no budget.
    Random,
}

impl MinerKind {
    pub fn name(self) -> &'static str {
        match self {
            MinerKind::Fpm => "fpm",
            MinerKind::PrefixTree => "prefix-tree",
            MinerKind::Exact => "exact",
            MinerKind::Random => "random",
        }
    }
}

/// Budget allocation strategies of the prefix-tree miner (paper 5.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(all(feature = "clap", not(target_arch = "wasm32")), derive(clap::ValueEnum))]
pub enum Strategy {
    Linear,
    Exponential,
    Adaptive,
    Hybrid,
}

impl Strategy {
    pub const ALL: [Strategy; 4] = [Strategy::Linear, Strategy::Exponential, Strategy::Adaptive, Strategy::Hybrid];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Linear => "linear",
            Strategy::Exponential => "exponential",
            Strategy::Adaptive => "adaptive",
            Strategy::Hybrid => "hybrid",
        }
    }
}

/// Every parameter a miner used, recorded in the noisy base.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MineRecord {
    pub miner: MinerKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<Strategy>,
    pub k: usize,
    pub q_min: usize,
    pub q_max: usize,
    /// The party's ε for this mining (what the ledger allowed).
    pub epsilon: f64,
    /// What the mechanisms actually charged (≤ `epsilon`).
    pub epsilon_spent: f64,
    /// Per-mechanism parameters: noise scales, θ, h_max, contribution caps, …
    pub mechanism: BTreeMap<String, serde_json::Value>,
}

/// A party's mined base: grams with their noisy counts, most frequent first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoisyBase {
    pub alphabet: Alphabet,
    pub params: MineRecord,
    /// False when the noise came from a seeded generator (tests, experiments) or
    /// the miner is not private (exact): such a base must not be shared.
    pub private: bool,
    /// Set when the records were mined padded (`^record$`): `alphabet` is then Σ
    /// followed by the two padding symbols. The merge refuses to join bases that
    /// differ here, and the shared base carries it on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub padding: Option<Padding>,
    pub grams: Vec<GramCount>,
}

/// The order of grams in every base: larger count first, then shorter, then by
/// the alphabet's symbol order. Data-independent, so ties never depend on the input.
pub fn rank_order(alphabet: &Alphabet, a: (&str, f64), b: (&str, f64)) -> Ordering {
    b.1.partial_cmp(&a.1).unwrap_or(Ordering::Equal).then_with(|| gram_order(alphabet, a.0, b.0))
}

/// Shorter first, then by symbol index in Σ.
pub fn gram_order(alphabet: &Alphabet, a: &str, b: &str) -> Ordering {
    a.chars().count().cmp(&b.chars().count()).then_with(|| {
        let ia = a.chars().map(|c| alphabet.index_of(c).unwrap_or(usize::MAX));
        let ib = b.chars().map(|c| alphabet.index_of(c).unwrap_or(usize::MAX));
        ia.cmp(ib)
    })
}

/// The most grams a shared base may hold: the largest a configuration makes
/// (k ≤ 100,000 mined grams plus the public 3-grams, 21,142) fits. A base from
/// the wire past it is refused before anything is built from it: each gram is
/// a dimension of every vector, so a forged base of 531,441 grams would make the
/// embedding allocate gigabytes.
pub const MAX_BASE_GRAMS: usize = 1 << 17;

/// Past this many grams a base is legal but costly (the recommended one has
/// 858): the CLI warns ([`SharedBase::size_warning`]).
pub const WARN_BASE_GRAMS: usize = 4096;

/// A warning for a base of `grams` grams past [`WARN_BASE_GRAMS`].
pub fn size_warning(grams: usize) -> Option<String> {
    (grams > WARN_BASE_GRAMS).then(|| {
        format!(
            "{grams} grams make every vector {grams} dimensions (the recommended base has 858): embedding, \
             thresholds and matching cost about {}x as much, and a dense (keyed) vector takes {} bytes",
            grams / 858,
            grams * 4
        )
    })
}

/// The shared base: the ordered grams that define the embedding's coordinates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedBase {
    alphabet: Alphabet,
    q_min: usize,
    q_max: usize,
    grams: Vec<String>,
    fingerprint: String,
    /// Records are embedded as `start + record + end` when set ([`crate::padding`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    padding: Option<Padding>,
    /// False when made from a noisy base of a seeded run (not private); not
    /// part of the fingerprint (the coordinates are the same either way).
    #[serde(default = "private_default", skip_serializing_if = "is_private_default")]
    private: bool,
}

fn private_default() -> bool {
    true
}

fn is_private_default(p: &bool) -> bool {
    *p
}

impl SharedBase {
    /// A shared base from an ordered list of grams, validated: non-empty, distinct,
    /// every gram non-empty, over Σ, of a length in `[q_min, q_max]`.
    pub fn new(alphabet: Alphabet, q_min: usize, q_max: usize, grams: Vec<String>) -> Result<Self, BaseError> {
        SharedBase::with_padding(alphabet, q_min, q_max, grams, None)
    }

    /// As [`SharedBase::new`], with optional padding: grams are then over Σ plus
    /// the two padding symbols, and records are padded before embedding.
    pub fn with_padding(
        alphabet: Alphabet,
        q_min: usize,
        q_max: usize,
        grams: Vec<String>,
        padding: Option<Padding>,
    ) -> Result<Self, BaseError> {
        let gram_alphabet = match padding {
            Some(p) => p.extend(&alphabet)?,
            None => alphabet.clone(),
        };
        if grams.is_empty() {
            return Err(BaseError::Invalid("it has no grams".into()));
        }
        if grams.len() > MAX_BASE_GRAMS {
            return Err(BaseError::Invalid(format!(
                "it has {} grams, more than the {MAX_BASE_GRAMS} a base may hold (each gram is a dimension of every vector)",
                grams.len()
            )));
        }
        if q_min == 0 || q_min > q_max {
            return Err(BaseError::Invalid(format!("gram lengths [{q_min}, {q_max}] are not a valid range")));
        }
        let mut seen = std::collections::HashSet::new();
        for g in &grams {
            let len = g.chars().count();
            if len < q_min || len > q_max {
                return Err(BaseError::Invalid(format!("gram {g:?} has length {len}, outside [{q_min}, {q_max}]")));
            }
            if !gram_alphabet.covers(g) {
                return Err(BaseError::Invalid(format!("gram {g:?} has a symbol outside the alphabet")));
            }
            if !seen.insert(g.as_str()) {
                return Err(BaseError::Invalid(format!("gram {g:?} appears twice")));
            }
        }
        let mut fingerprint = fingerprint(&alphabet, q_min, q_max, &grams);
        if let Some(p) = padding {
            // The padded form's fingerprint covers the padding too; unpadded bases
            // keep the v1 canonical form (and their fingerprints) unchanged.
            let mut h = Sha256::new();
            h.update(b"gramlink-shared-base-padded\n");
            h.update(format!("{fingerprint}\n{}\n{}\n", p.start, p.end).as_bytes());
            fingerprint = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        }
        Ok(SharedBase { alphabet, q_min, q_max, grams, fingerprint, padding, private: true })
    }

    /// False when the base was made from a seeded (not private) run.
    pub fn is_private(&self) -> bool {
        self.private
    }

    /// The base with its privacy mark set to `private` (a base made from any
    /// not-private input stays marked).
    pub fn with_private(mut self, private: bool) -> SharedBase {
        self.private = self.private && private;
        self
    }

    /// A warning for a base past [`WARN_BASE_GRAMS`] grams, in words.
    pub fn size_warning(&self) -> Option<String> {
        size_warning(self.grams.len())
    }

    /// The padding of records, if any.
    pub fn padding(&self) -> Option<Padding> {
        self.padding
    }

    /// The alphabet of the grams: Σ, plus the padding symbols if any.
    pub fn gram_alphabet(&self) -> Alphabet {
        match self.padding {
            // checked by the constructor
            Some(p) => p.extend(&self.alphabet).unwrap_or_else(|_| self.alphabet.clone()),
            None => self.alphabet.clone(),
        }
    }

    pub fn alphabet(&self) -> &Alphabet {
        &self.alphabet
    }
    pub fn grams(&self) -> &[String] {
        &self.grams
    }
    pub fn len(&self) -> usize {
        self.grams.len()
    }
    pub fn is_empty(&self) -> bool {
        self.grams.is_empty()
    }
    pub fn q_min(&self) -> usize {
        self.q_min
    }
    pub fn q_max(&self) -> usize {
        self.q_max
    }
    /// Lowercase hex SHA-256 of the canonical form.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The shared base of one party's own noisy base: its top `k` grams in order.
    pub fn from_noisy(base: &NoisyBase, k: usize) -> Result<Self, BaseError> {
        let grams = base.grams.iter().take(k).map(|g| g.gram.clone()).collect();
        SharedBase::new(base.alphabet.clone(), base.params.q_min, base.params.q_max, grams)
    }
}

/// SHA-256 over the canonical form: a header line, the alphabet, the gram-length
/// range, then the grams in coordinate order, each on its own line (a gram never
/// holds a newline: Σ has no control characters).
pub fn fingerprint(alphabet: &Alphabet, q_min: usize, q_max: usize, grams: &[String]) -> String {
    let mut h = Sha256::new();
    h.update(b"gramlink-shared-base-v1\n");
    h.update(alphabet.as_string().as_bytes());
    h.update(format!("\n{q_min}\n{q_max}\n{}\n", grams.len()).as_bytes());
    for g in grams {
        h.update(g.as_bytes());
        h.update(b"\n");
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Merges two parties' noisy bases into the shared base of `k` grams: [`merge_all`]
/// of the two.
pub fn merge(a: &NoisyBase, b: &NoisyBase, k: usize) -> Result<SharedBase, BaseError> {
    merge_all(&[a, b], k)
}

/// Merges the parties' noisy bases (one or more) into the shared base of `k` grams.
///
/// The rule (deterministic, symmetric in the bases, so any party or all can run
/// it): over the union of the gram lists, score each gram by the sum of its noisy
/// counts in the bases that hold it (a base that does not list a gram adds
/// nothing; the counts are summed smallest first, so the order of the bases does
/// not change a bit of the score); order by [`rank_order`] (score descending, then
/// shorter, then by Σ's order); keep the first `k`. Only noisy, already-released
/// values are used, so the merge is post-processing and costs no privacy.
///
/// The bases must agree on the alphabet and the gram-length range.
pub fn merge_all(bases: &[&NoisyBase], k: usize) -> Result<SharedBase, BaseError> {
    if k == 0 {
        return Err(BaseError::Invalid("k must be at least 1".into()));
    }
    let Some(first) = bases.first() else {
        return Err(BaseError::Invalid("no noisy base to merge".into()));
    };
    for b in &bases[1..] {
        if first.alphabet != b.alphabet {
            return Err(BaseError::Incompatible(format!(
                "alphabets differ ({:?} vs {:?})",
                first.alphabet.as_string(),
                b.alphabet.as_string()
            )));
        }
        if (first.params.q_min, first.params.q_max) != (b.params.q_min, b.params.q_max) {
            return Err(BaseError::Incompatible(format!(
                "gram lengths differ ([{}, {}] vs [{}, {}])",
                first.params.q_min, first.params.q_max, b.params.q_min, b.params.q_max
            )));
        }
    }
    let mut counts: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for g in bases.iter().flat_map(|b| b.grams.iter()) {
        if !g.count.is_finite() {
            return Err(BaseError::Invalid(format!("gram {:?} has a non-finite count", g.gram)));
        }
        counts.entry(g.gram.as_str()).or_default().push(g.count);
    }
    let mut ranked: Vec<(&str, f64)> = counts
        .into_iter()
        .map(|(g, mut c)| {
            crate::sorting::sort_by(&mut c, f64::total_cmp);
            (g, c.iter().sum())
        })
        .collect();
    let alphabet = &first.alphabet;
    crate::sorting::sort_by(&mut ranked, |x, y| rank_order(alphabet, *x, *y));
    let grams = ranked.into_iter().take(k).map(|(g, _)| g.to_string()).collect();
    SharedBase::new(alphabet.clone(), first.params.q_min, first.params.q_max, grams)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noisy(grams: &[(&str, f64)]) -> NoisyBase {
        NoisyBase {
            alphabet: Alphabet::default(),
            params: MineRecord {
                miner: MinerKind::Fpm,
                strategy: None,
                k: grams.len(),
                q_min: 1,
                q_max: 3,
                epsilon: 0.1,
                epsilon_spent: 0.1,
                mechanism: BTreeMap::new(),
            },
            private: true,
            padding: None,
            grams: grams.iter().map(|(g, c)| GramCount { gram: g.to_string(), count: *c }).collect(),
        }
    }

    #[test]
    fn a_base_past_the_limit_is_refused_before_it_is_checked_or_built() {
        // the forged base of the review: every 4-gram over 27 symbols (531,441)
        let sigma: Vec<char> = "ABCDEFGHIJKLMNOPQRSTUVWXYZ ".chars().collect();
        let grams: Vec<String> =
            (0..MAX_BASE_GRAMS + 1).map(|i| (0..4).map(|d| sigma[i / 27usize.pow(d) % 27]).collect()).collect();
        let e = SharedBase::new(Alphabet::default(), 4, 4, grams).unwrap_err();
        assert!(e.to_string().contains("131073 grams, more than the 131072"), "{e}");
        assert!(size_warning(WARN_BASE_GRAMS).is_none());
        assert!(size_warning(21_142).unwrap().contains("21142 dimensions"), "{:?}", size_warning(21_142));
    }

    #[test]
    fn merge_is_symmetric_and_sums_counts() {
        let a = noisy(&[("A", 100.0), ("AN", 50.0), ("E", 40.0)]);
        let b = noisy(&[("E", 90.0), ("A", 10.0), ("ER", 45.0)]);
        let ab = merge(&a, &b, 3).unwrap();
        let ba = merge(&b, &a, 3).unwrap();
        assert_eq!(ab, ba);
        assert_eq!(ab.grams(), ["E", "A", "AN"]);
        assert_eq!(ab.fingerprint().len(), 64);
    }

    #[test]
    fn a_merge_of_more_bases_sums_every_count_in_any_order() {
        let a = noisy(&[("A", 100.0), ("AN", 50.0), ("E", 40.0)]);
        let b = noisy(&[("E", 90.0), ("A", 10.0), ("ER", 45.0)]);
        let c = noisy(&[("ER", 60.0), ("AN", 0.1), ("Z", 1e-17)]);
        let abc = merge_all(&[&a, &b, &c], 4).unwrap();
        // A 110, E 130, ER 105, AN 50.1
        assert_eq!(abc.grams(), ["E", "A", "ER", "AN"]);
        for order in [[&c, &b, &a], [&b, &c, &a], [&c, &a, &b]] {
            assert_eq!(merge_all(&order, 4).unwrap(), abc);
        }
        assert_eq!(merge_all(&[&a, &b], 3).unwrap(), merge(&a, &b, 3).unwrap());
        assert!(matches!(merge_all(&[], 3), Err(BaseError::Invalid(_))));
    }

    #[test]
    fn ties_break_by_length_then_alphabet() {
        let a = noisy(&[("B", 5.0), ("AB", 5.0), ("A", 5.0)]);
        let b = noisy(&[]);
        assert_eq!(merge(&a, &b, 3).unwrap().grams(), ["A", "B", "AB"]);
    }

    #[test]
    fn fingerprint_depends_on_order_and_content() {
        let al = Alphabet::default();
        let f1 = fingerprint(&al, 1, 3, &["A".into(), "B".into()]);
        let f2 = fingerprint(&al, 1, 3, &["B".into(), "A".into()]);
        let f3 = fingerprint(&al, 1, 2, &["A".into(), "B".into()]);
        assert_ne!(f1, f2);
        assert_ne!(f1, f3);
    }

    #[test]
    fn incompatible_bases_are_refused() {
        let a = noisy(&[("A", 1.0)]);
        let mut b = noisy(&[("A", 1.0)]);
        b.params.q_max = 4;
        assert!(matches!(merge(&a, &b, 2), Err(BaseError::Incompatible(_))));
        let mut c = noisy(&[("A", 1.0)]);
        c.alphabet = Alphabet::new("AB").unwrap();
        assert!(matches!(merge(&a, &c, 2), Err(BaseError::Incompatible(_))));
        assert!(merge(&a, &a, 0).is_err());
    }

    #[test]
    fn shared_base_validation() {
        let al = Alphabet::default();
        assert!(SharedBase::new(al.clone(), 1, 3, vec![]).is_err());
        assert!(SharedBase::new(al.clone(), 1, 3, vec!["ABCD".into()]).is_err());
        assert!(SharedBase::new(al.clone(), 1, 3, vec!["a".into()]).is_err());
        assert!(SharedBase::new(al.clone(), 1, 3, vec!["A".into(), "A".into()]).is_err());
        assert!(SharedBase::new(al, 2, 1, vec!["A".into()]).is_err());
    }
}
