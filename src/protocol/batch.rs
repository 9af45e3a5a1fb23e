//! The vector batch: a party's embedded records, in JSON or the compact binary
//! form (`GLVB`, [`super::binary`]).

use super::binary::{from_le_bytes, le_bytes, BinaryLayout};
use super::{envelope, open, VECTOR_BATCH, VERSION};
use crate::embed::Vectors;
use crate::error::ProtocolError;
use serde::{Deserialize, Serialize};

/// Which party made a batch: A sends thresholds, B does not. Options accept
/// `"a"`/`"b"` as well.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(all(feature = "cli", not(target_arch = "wasm32")), derive(clap::ValueEnum))]
pub enum Party {
    #[default]
    #[serde(alias = "a")]
    A,
    #[serde(alias = "b")]
    B,
}

impl Party {
    pub fn name(self) -> &'static str {
        match self {
            Party::A => "A",
            Party::B => "B",
        }
    }
}

/// Per-record thresholds and how they were computed.
#[derive(Debug, Clone, PartialEq)]
pub struct ThresholdSet {
    /// How they were computed; a message records its name only (`paper`,
    /// `sound`, `global`: a global value is in `values`).
    pub mode: crate::threshold::ThresholdMode,
    pub ed: u32,
    pub values: Vec<f64>,
}

/// A party's embedded records.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorBatch {
    pub party: Party,
    pub fingerprint: String,
    pub ids: Vec<String>,
    pub vectors: Vectors,
    pub thresholds: Option<ThresholdSet>,
    /// Set when the vectors went through a keyed transform (its key never leaves
    /// the parties; this is a public label so both sides can check they agree).
    pub transform: Option<String>,
    /// The gram length of each coordinate and the complete classes (a function
    /// of the shared base), for the q-gram filter of the recommended matcher
    /// ([`crate::matching::scored_match`]). Absent from keyed batches: their
    /// coordinates are mixed.
    pub shape: Option<crate::matching::Shape>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct BatchHeader {
    pub(super) party: Party,
    pub(super) fingerprint: String,
    pub(super) dim: usize,
    pub(super) count: usize,
    pub(super) ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) thresholds: Option<ThresholdHeader>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) transform: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) shape: Option<crate::matching::Shape>,
    /// The numbers, in the JSON form only (the binary form appends them). One
    /// struct for both forms instead of a flattened one: serde's `flatten` costs
    /// several KB of wasm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) vectors: Option<Vec<f32>>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct ThresholdHeader {
    mode: String,
    ed: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    values: Option<Vec<f64>>,
}

impl VectorBatch {
    /// Checks the batch's own consistency.
    pub fn validate(&self) -> Result<(), ProtocolError> {
        let invalid = |reason: String| ProtocolError::Invalid { what: "vector batch".into(), reason };
        if self.fingerprint.len() != 64 || !self.fingerprint.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(invalid(format!("fingerprint {:?} is not a SHA-256 hex digest", self.fingerprint)));
        }
        let n = self.ids.len();
        if self.vectors.dim == 0 {
            return Err(invalid("dimension 0".into()));
        }
        if let Some(t) = &self.transform {
            if !crate::keyed::valid_label(t) {
                return Err(invalid(format!(
                    "unknown transform {t:?} (this build knows \"{}<32 hex digits>\")",
                    crate::keyed::LABEL_PREFIX
                )));
            }
            if !self.vectors.dim.is_power_of_two() {
                return Err(invalid(format!("a keyed batch has a power-of-two dimension, not {}", self.vectors.dim)));
            }
        }
        // checked: a forged header may announce any dimension
        if n.checked_mul(self.vectors.dim) != Some(self.vectors.data.len()) {
            return Err(invalid(format!(
                "{} ids but {} numbers, which is not {} vectors of dimension {}",
                n,
                self.vectors.data.len(),
                n,
                self.vectors.dim
            )));
        }
        if let Some(shape) = &self.shape {
            if self.transform.is_some() {
                return Err(invalid("a keyed batch cannot carry a shape (its coordinates are mixed)".into()));
            }
            shape.validate(self.vectors.dim).map_err(invalid)?;
        }
        if let Some(i) = self.vectors.first_non_finite() {
            return Err(invalid(format!(
                "vector {} has a non-finite component ({})",
                i / self.vectors.dim,
                self.vectors.data[i]
            )));
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

    fn header(&self, with_threshold_values: bool) -> BatchHeader {
        BatchHeader {
            party: self.party,
            fingerprint: self.fingerprint.clone(),
            dim: self.vectors.dim,
            count: self.ids.len(),
            ids: self.ids.clone(),
            thresholds: self.thresholds.as_ref().map(|t| ThresholdHeader {
                mode: t.mode.name().to_string(),
                ed: t.ed,
                values: with_threshold_values.then(|| t.values.clone()),
            }),
            transform: self.transform.clone(),
            shape: self.shape.clone(),
            vectors: None,
        }
    }

    pub(super) fn from_header(h: BatchHeader, data: Vec<f32>, values: Option<Vec<f64>>) -> Result<Self, ProtocolError> {
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
                values: values.or(t.values).ok_or_else(|| ProtocolError::Invalid {
                    what: "vector batch".into(),
                    reason: "thresholds are announced but have no values".into(),
                })?,
            }),
        };
        let batch = VectorBatch {
            party: h.party,
            fingerprint: h.fingerprint,
            ids: h.ids,
            vectors: Vectors { dim: h.dim, data },
            thresholds,
            transform: h.transform,
            shape: h.shape,
        };
        batch.validate()?;
        Ok(batch)
    }

    pub fn to_json(&self) -> String {
        envelope(VECTOR_BATCH, &BatchHeader { vectors: Some(self.vectors.data.clone()), ..self.header(true) })
    }

    pub fn from_json(text: &str) -> Result<Self, ProtocolError> {
        let mut h: BatchHeader = open(text, VECTOR_BATCH)?;
        let data = h.vectors.take().ok_or_else(|| ProtocolError::Malformed {
            expected: VECTOR_BATCH,
            reason: "missing field `vectors`".into(),
        })?;
        Self::from_header(h, data, None)
    }

    /// The compact binary form: `GLVB`, u32 LE version, u32 LE header length, the
    /// JSON header (format, version, party, fingerprint, dim, count, ids, threshold
    /// mode), then count·dim f32 LE, then count f64 LE thresholds if announced.
    pub fn to_binary(&self) -> Vec<u8> {
        self.binary_parts().concat()
    }

    /// [`Self::to_binary`]'s bytes in three parts, to be written one after the
    /// other (the wasm API writes them straight into a JS array): preamble and
    /// header, the vectors' numbers, the thresholds' (empty without thresholds).
    /// The numbers are their own memory on little-endian machines, not a copy.
    pub fn binary_parts(&self) -> [std::borrow::Cow<'_, [u8]>; 3] {
        let thresholds = self.thresholds.as_ref().map_or(std::borrow::Cow::Borrowed(&[][..]), |t| le_bytes(&t.values));
        [std::borrow::Cow::Owned(self.binary_prefix()), le_bytes(&self.vectors.data), thresholds]
    }

    /// The binary form's bytes before the numbers: preamble and JSON header.
    pub fn binary_prefix(&self) -> Vec<u8> {
        let header = envelope(VECTOR_BATCH, &self.header(false));
        let mut out = Vec::with_capacity(12 + header.len());
        out.extend_from_slice(b"GLVB");
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out
    }

    pub fn from_binary(bytes: &[u8]) -> Result<Self, ProtocolError> {
        let layout = BinaryLayout::read(bytes, bytes.len())?;
        let data = from_le_bytes(&bytes[layout.vectors.clone()]);
        let values = layout.thresholds.clone().map(|r| from_le_bytes(&bytes[r]));
        layout.into_batch(data, values)
    }

    /// Reads either form (binary if it starts with the magic).
    pub fn read(bytes: &[u8]) -> Result<Self, ProtocolError> {
        if bytes.starts_with(b"GLVB") {
            return Self::from_binary(bytes);
        }
        let text = std::str::from_utf8(bytes).map_err(|_| ProtocolError::Malformed {
            expected: VECTOR_BATCH,
            reason: "neither a binary batch nor UTF-8 JSON".into(),
        })?;
        Self::from_json(text)
    }
}
