//! The vector batch: a party's embedded records, and their JSON form (the
//! compact binary form is [`super::binary`]'s).

use super::envelope::{envelope_streamed, open, VECTOR_BATCH};
use super::sparse_wire;
use crate::embed::{BatchVectors, Vectors};
use crate::error::ProtocolError;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Which party made a batch: a letter, `A` to `Z`. Two parties are A (sends
/// thresholds) and B (does not, unless asked); a linkage of more parties
/// names them C, D, … and every one sends thresholds
/// ([`crate::multi`]). Twenty-six letters: a cluster's parties fit one `u32`
/// mask there. Read by one parser ([`Party::from_str`](std::str::FromStr)),
/// which serde (messages, JS and Python options) and the CLI share; lower case
/// is accepted as well.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Party(u8);

/// Every party's name, so that [`Party::name`] borrows nothing.
const NAMES: [&str; 26] = [
    "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "Q", "R", "S", "T", "U", "V", "W",
    "X", "Y", "Z",
];

impl Party {
    pub const A: Party = Party(0);
    pub const B: Party = Party(1);
    /// How many parties there can be.
    pub const MAX: usize = NAMES.len();

    /// The `index`-th party (0 is A), if there is one.
    pub fn nth(index: usize) -> Option<Party> {
        (index < Party::MAX).then_some(Party(index as u8))
    }

    /// The party's place in the alphabet (A is 0).
    pub fn index(self) -> usize {
        self.0 as usize
    }

    pub fn name(self) -> &'static str {
        NAMES[self.index()]
    }

    /// How errors name the `index`-th of several parties' inputs: its party's
    /// letter (A, B, C, …), or its number past the last party.
    pub fn label(index: usize) -> String {
        Party::nth(index).map_or_else(|| (index + 1).to_string(), |p| p.name().into())
    }
}

impl std::fmt::Debug for Party {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::fmt::Display for Party {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Party {
    type Err = UnknownParty;

    fn from_str(name: &str) -> Result<Party, UnknownParty> {
        let upper = name.to_ascii_uppercase();
        NAMES.iter().position(|n| *n == upper).map(|i| Party(i as u8)).ok_or_else(|| UnknownParty(name.to_string()))
    }
}

impl TryFrom<String> for Party {
    type Error = UnknownParty;

    fn try_from(name: String) -> Result<Party, UnknownParty> {
        name.parse()
    }
}

impl From<Party> for String {
    fn from(p: Party) -> String {
        p.name().to_string()
    }
}

/// A party name that is not one letter A to Z (in a message: inside the message's
/// own error; in options: `INVALID_PARAMETER`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownParty(pub String);

impl std::fmt::Display for UnknownParty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "party must be one letter, \"A\" to \"Z\", not {:?}", self.0)
    }
}

impl std::error::Error for UnknownParty {}

impl From<UnknownParty> for crate::error::Error {
    fn from(e: UnknownParty) -> Self {
        crate::error::Error::Parameter(e.to_string())
    }
}

/// Per-record thresholds and how they were computed.
#[derive(Debug, Clone, PartialEq)]
pub struct ThresholdSet {
    /// How they were computed; a message records its name only (`paper`,
    /// `sound`, `global`: a global value is in `values`).
    pub mode: crate::threshold::ThresholdMode,
    /// The edits the thresholds (and the matcher's q-gram filter) cover.
    pub ed: u32,
    /// Party A asks the matcher to choose the pairs from the data (`ed auto`):
    /// `ed` is then a generous bound, and the matcher keeps the candidates a
    /// cut-off fitted without labels calls matches ([`crate::cutoff`]).
    pub auto: bool,
    pub values: Vec<f64>,
}

/// A party's embedded records.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorBatch {
    pub party: Party,
    pub fingerprint: String,
    pub ids: Vec<String>,
    /// Sparse when unkeyed (and sent as gram ids and counts), dense when keyed.
    pub vectors: BatchVectors,
    pub thresholds: Option<ThresholdSet>,
    /// Set when the vectors went through a keyed transform (its key never leaves
    /// the parties; this is a public label so both sides can check they agree).
    pub transform: Option<String>,
    /// The gram length of each coordinate and the complete classes (a function
    /// of the shared base), for the q-gram filter of the recommended matcher
    /// ([`crate::matching::scored_match`]). Absent from keyed batches: their
    /// coordinates are mixed.
    pub shape: Option<crate::matching::Shape>,
    /// False when the batch was embedded over a shared base made from a seeded
    /// (not private) run: tests and experiments only. The matcher warns.
    pub private: bool,
}

/// A batch's header. Written, it borrows the batch's ids and thresholds (a
/// million pseudonyms are tens of MB: no copy of them only to serialize);
/// read, it owns them.
#[derive(Serialize, Deserialize)]
pub(super) struct BatchHeader<'a> {
    pub(super) party: Party,
    pub(super) fingerprint: String,
    pub(super) dim: usize,
    pub(super) count: usize,
    pub(super) ids: Cow<'a, [String]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) thresholds: Option<ThresholdHeader<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) transform: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) shape: Option<crate::matching::Shape>,
    /// `false` when not private; absent (private) otherwise, so private batches'
    /// bytes are unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) private: Option<bool>,
    /// The numbers, in the JSON form only (the binary form appends them). One
    /// struct for both forms instead of a flattened one: serde's `flatten` costs
    /// several KB of wasm. Dense vectors, row-major.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) vectors: Option<Vec<f32>>,
    /// Sparse vectors in the JSON form: per row, gram ids and counts alternating
    /// ([`sparse_wire::to_json_rows`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) grams: Option<Vec<Vec<u32>>>,
    /// In the binary form: the byte length of the sparse rows appended after
    /// the header ([`sparse_wire::encode`]); absent for dense vectors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) sparse_bytes: Option<usize>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct ThresholdHeader<'a> {
    mode: String,
    ed: u32,
    /// Absent when false, so a batch with a fixed `ed` reads as before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    auto: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    values: Option<Cow<'a, [f64]>>,
}

impl VectorBatch {
    /// Checks the batch's own consistency.
    pub fn validate(&self) -> Result<(), ProtocolError> {
        let invalid = |reason: String| ProtocolError::Invalid { what: "vector batch".into(), reason };
        if self.fingerprint.len() != 64 || !self.fingerprint.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(invalid(format!("fingerprint {:?} is not a SHA-256 hex digest", self.fingerprint)));
        }
        let n = self.ids.len();
        let dim = self.vectors.dim();
        if dim == 0 {
            return Err(invalid("dimension 0".into()));
        }
        // the rotation's batches are dense, of a power-of-two dimension, without
        // a shape; the sketch's are sparse counts with the sketch's shape
        let rotated = self.transform.as_deref().is_some_and(crate::keyed::is_rotation);
        if let Some(t) = &self.transform {
            if !crate::keyed::valid_label(t) {
                return Err(invalid(format!(
                    "unknown transform {t:?} (this build knows \"{}<spread>:<32 hex digits>\" and \"{}<32 hex digits>\")",
                    crate::keyed::SKETCH_PREFIX,
                    crate::keyed::LABEL_PREFIX
                )));
            }
            if rotated && !dim.is_power_of_two() {
                return Err(invalid(format!("a rotated batch has a power-of-two dimension, not {dim}")));
            }
            if !rotated && self.shape.is_none() {
                return Err(invalid("a sketched batch carries the sketch's shape, and this one has none".into()));
            }
        }
        if let Some(shape) = &self.shape {
            if rotated {
                return Err(invalid("a rotated batch cannot carry a shape (its coordinates are mixed)".into()));
            }
            shape.validate(dim).map_err(invalid)?;
        }
        match &self.vectors {
            BatchVectors::Dense(v) => {
                // checked: a forged header may announce any dimension
                if n.checked_mul(dim) != Some(v.data.len()) {
                    return Err(invalid(format!(
                        "{} ids but {} numbers, which is not {} vectors of dimension {}",
                        n,
                        v.data.len(),
                        n,
                        dim
                    )));
                }
                if let Some(i) = v.first_non_finite() {
                    return Err(invalid(format!("vector {} has a non-finite component ({})", i / dim, v.data[i])));
                }
            }
            BatchVectors::Sparse(v) => {
                if rotated {
                    return Err(invalid("a rotated batch is dense (the rotation mixes every coordinate)".into()));
                }
                if v.len() != n {
                    return Err(invalid(format!("{n} ids but {} sparse rows", v.len())));
                }
                v.validate().map_err(invalid)?;
            }
        }
        let mut seen = std::collections::HashMap::with_capacity(n);
        for (i, id) in self.ids.iter().enumerate() {
            if let Some(first) = seen.insert(id.as_str(), i) {
                return Err(invalid(format!("id {id:?} is used twice (records {} and {})", first + 1, i + 1)));
            }
        }
        if let Some(t) = &self.thresholds {
            if t.values.len() != n {
                return Err(invalid(format!("{} thresholds for {} vectors", t.values.len(), n)));
            }
            if let Some(i) = t.values.iter().position(|x| !x.is_finite() || *x < 0.0) {
                return Err(invalid(format!(
                    "threshold of record {} is {} (must be finite and >= 0)",
                    i + 1,
                    t.values[i]
                )));
            }
        }
        // what C can check without the key: numbers real records could give
        let implausible = super::plausible::implausible("vector batch");
        let bounds = super::plausible::Bounds::of(self.shape.as_ref());
        bounds.check_vectors(&self.vectors, self.shape.as_ref()).map_err(&implausible)?;
        if let Some(t) = &self.thresholds {
            bounds.check_thresholds(t.ed, &t.values).map_err(&implausible)?;
        }
        Ok(())
    }

    /// Refuses a batch made with another base.
    pub fn check_base(&self, fingerprint: &str) -> Result<(), ProtocolError> {
        if self.fingerprint != fingerprint {
            return Err(ProtocolError::Fingerprint {
                what: format!("party {:?}'s vector batch", self.party),
                found: self.fingerprint.clone(),
                expected: fingerprint.into(),
            });
        }
        Ok(())
    }

    pub(super) fn header(&self, with_threshold_values: bool) -> BatchHeader<'_> {
        BatchHeader {
            party: self.party,
            fingerprint: self.fingerprint.clone(),
            dim: self.vectors.dim(),
            count: self.ids.len(),
            ids: Cow::Borrowed(&self.ids),
            thresholds: self.thresholds.as_ref().map(|t| ThresholdHeader {
                mode: t.mode.name().to_string(),
                ed: t.ed,
                auto: t.auto,
                values: with_threshold_values.then_some(Cow::Borrowed(&t.values[..])),
            }),
            transform: self.transform.clone(),
            shape: self.shape.clone(),
            private: (!self.private).then_some(false),
            vectors: None,
            grams: None,
            sparse_bytes: None,
        }
    }

    /// The sparse vectors and the gram lengths of their coordinates, when the
    /// wire may carry them as gram ids and counts (unkeyed, with a shape);
    /// [`sparse_wire::encode`] then checks that every value is a count over its
    /// gram's length, else the batch is sent dense.
    pub(super) fn wire_sparse(&self) -> Option<(&crate::sparse_vectors::SparseVectors, &[u8])> {
        match (&self.vectors, &self.shape) {
            (BatchVectors::Sparse(v), Some(shape)) => Some((v, &shape.lengths[..])),
            _ => None,
        }
    }

    /// Records `rows` (clamped to the batch) as a batch of their own: ids,
    /// vectors and thresholds (a shard of a cluster job).
    pub fn rows(&self, rows: std::ops::Range<usize>) -> VectorBatch {
        let end = rows.end.min(self.ids.len());
        let r = rows.start.min(end)..end;
        VectorBatch {
            ids: self.ids[r.clone()].to_vec(),
            vectors: self.vectors.slice(r.clone()),
            thresholds: self
                .thresholds
                .as_ref()
                .map(|t| ThresholdSet { values: t.values[r.clone()].to_vec(), ..t.clone() }),
            ..self.clone_header()
        }
    }

    /// Everything but the records (no ids, no vectors, no thresholds' values).
    fn clone_header(&self) -> VectorBatch {
        VectorBatch {
            party: self.party,
            fingerprint: self.fingerprint.clone(),
            ids: Vec::new(),
            vectors: self.vectors.slice(0..0),
            thresholds: None,
            transform: self.transform.clone(),
            shape: self.shape.clone(),
            private: self.private,
        }
    }

    pub(super) fn from_header(
        h: BatchHeader,
        vectors: BatchVectors,
        values: Option<Vec<f64>>,
    ) -> Result<Self, ProtocolError> {
        if h.count != h.ids.len() {
            return Err(ProtocolError::Invalid {
                what: "vector batch".into(),
                reason: format!("count says {} but there are {} ids", h.count, h.ids.len()),
            });
        }
        let thresholds = match h.thresholds {
            None => None,
            Some(t) => Some(ThresholdSet {
                mode: crate::threshold::ThresholdMode::from_name(&t.mode).ok_or_else(|| ProtocolError::Invalid {
                    what: "vector batch".into(),
                    reason: format!(
                        "unknown threshold mode {:?} (this build knows \"paper\", \"sound\", \"global\")",
                        t.mode
                    ),
                })?,
                ed: t.ed,
                auto: t.auto,
                values: values.or(t.values.map(Cow::into_owned)).ok_or_else(|| ProtocolError::Invalid {
                    what: "vector batch".into(),
                    reason: "thresholds are announced but have no values".into(),
                })?,
            }),
        };
        let batch = VectorBatch {
            party: h.party,
            fingerprint: h.fingerprint,
            ids: h.ids.into_owned(),
            vectors,
            thresholds,
            transform: h.transform,
            shape: h.shape,
            private: h.private.unwrap_or(true),
        };
        batch.validate()?;
        Ok(batch)
    }

    pub fn to_json(&self) -> String {
        let grams = self.wire_sparse().and_then(|(v, lengths)| sparse_wire::to_json_rows(v, lengths));
        let h = match grams {
            Some(rows) => BatchHeader { grams: Some(rows), ..self.header(true) },
            None => BatchHeader { vectors: Some(self.vectors.to_dense().data.clone()), ..self.header(true) },
        };
        envelope_streamed(VECTOR_BATCH, &h)
    }

    pub fn from_json(text: &str) -> Result<Self, ProtocolError> {
        let mut h: BatchHeader = open(text, VECTOR_BATCH)?;
        let malformed = |reason: &str| ProtocolError::Malformed { expected: VECTOR_BATCH, reason: reason.into() };
        let vectors = match (h.vectors.take(), h.grams.take()) {
            (Some(data), None) => BatchVectors::Dense(Vectors { dim: h.dim, data }),
            (None, Some(rows)) => {
                let lengths = h.shape.as_ref().map(|s| s.lengths.as_slice()).ok_or_else(|| {
                    malformed("sparse vectors (`grams`) need the base's shape for their gram lengths")
                })?;
                BatchVectors::Sparse(sparse_wire::from_json_rows(&rows, h.dim, lengths)?)
            }
            (Some(_), Some(_)) => return Err(malformed("both `vectors` and `grams`: a batch has one of them")),
            (None, None) => return Err(malformed("missing field `vectors` (or `grams`)")),
        };
        Self::from_header(h, vectors, None)
    }
}
