//! Which keyed encoding a batch's vectors go through, and the one function
//! that applies it ([`encode`]), for one string and for every part of a record
//! batch alike.
//!
//! - [`Encoding::Sketch`] (the default): keyed buckets of `spread` grams per
//!   gram-length class ([`super::sketch::Sketch`]): sparse, with a shape, so the
//!   matcher keeps its q-gram filter.
//! - [`Encoding::Rotation`]: the keyed rotation ([`super::rotation::Transform`]): dense,
//!   no filter, and decoded by the matcher's exact-algebra attack
//!   (docs/THREAT_MODEL.md). Kept as a named option only.

use super::key::Key;
use super::rotation::Transform;
use super::sketch::{Sketch, DEFAULT_SPREAD, MAX_SPREAD, RECORD_SPREAD};
use crate::embed::{BatchVectors, Vectors};
use crate::error::Error;
use crate::shape::Shape;
use crate::sparse_vectors::SparseVectors;
use crate::threshold::Space;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A keyed encoding of the vectors (written `sketch`, `sketch:N` or `rotation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Keyed buckets of `spread` grams ([`super::sketch::Sketch`]).
    Sketch { spread: u32 },
    /// The keyed rotation ([`super::rotation::Transform`]); not the default: the matcher
    /// decodes it (docs/THREAT_MODEL.md).
    Rotation,
}

impl Default for Encoding {
    fn default() -> Self {
        Encoding::Sketch { spread: DEFAULT_SPREAD }
    }
}

impl Encoding {
    /// The default of a record batch: the sketch of [`RECORD_SPREAD`] grams a
    /// bucket, where one string's is [`DEFAULT_SPREAD`].
    ///
    /// **Why wider for records.** A record links on all its fields, so a
    /// coarser encoding of each costs little: on FEBRL 1–3, F1 stays 1.0000;
    /// on pseudopeople's census against SSA and W-2 (eight files, two noise
    /// levels) F1 moves by +0.0003 to −0.0065 (the largest on W-2 at doubled
    /// noise, where family members share an address). Graph matching on a
    /// keyed FEBRL 3 batch, C's list the field's own values (the worst case),
    /// falls over three seeds from 95.6–96.9 % to 47.6–68.2 % of given names,
    /// from 93.3–95.1 % to 26.8–36.5 % of surnames and from 94.3–95.8 % to
    /// 8.8–17.3 % of suburbs (docs/THREAT_MODEL.md, "Record batches"). A lone
    /// string rests on its one field: NAMES at ed 1 would lose 0.055 F1 and
    /// take twice the time, so it keeps four.
    pub fn for_records() -> Encoding {
        Encoding::Sketch { spread: RECORD_SPREAD }
    }

    /// Whether this is the default (the sketch of [`DEFAULT_SPREAD`]).
    pub fn is_default(&self) -> bool {
        *self == Encoding::default()
    }
}

impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Encoding::Sketch { spread } if *spread == DEFAULT_SPREAD => f.write_str("sketch"),
            Encoding::Sketch { spread } => write!(f, "sketch:{spread}"),
            Encoding::Rotation => f.write_str("rotation"),
        }
    }
}

impl std::str::FromStr for Encoding {
    type Err = Error;

    fn from_str(s: &str) -> Result<Encoding, Error> {
        let bad = || {
            Error::Parameter(format!(
                "unknown encoding {s:?}: use \"sketch\" (the default), \"sketch:N\" with N grams a bucket \
                 (1 to {MAX_SPREAD}), or \"rotation\""
            ))
        };
        match s.trim() {
            "sketch" => Ok(Encoding::default()),
            "rotation" => Ok(Encoding::Rotation),
            t => {
                let n = t.strip_prefix("sketch:").ok_or_else(bad)?;
                let spread: u32 = n.parse().map_err(|_| bad())?;
                if !(1..=MAX_SPREAD).contains(&spread) {
                    return Err(bad());
                }
                Ok(Encoding::Sketch { spread })
            }
        }
    }
}

impl Serialize for Encoding {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Encoding {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Encoding, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(|e: Error| serde::de::Error::custom(e.to_string()))
    }
}

/// Vectors after their keyed encoding, with what the batch says of them.
#[derive(Debug, Clone)]
pub struct Encoded {
    pub vectors: BatchVectors,
    /// The shape the matcher's filter reads (`None` for the rotation).
    pub shape: Option<Shape>,
    /// The batch's `transform` label.
    pub label: String,
    /// The coordinates of these vectors, in which A's thresholds are computed.
    pub space: Space,
}

/// Encodes one base's sparse vectors (`shape` the base's own) under `key`.
/// `context` salts the key derivation: the shared base's fingerprint for one
/// string; for a record batch also the field and part, so that no two parts
/// share buckets (the digit fields all use one public base).
pub fn encode(
    key: &Key,
    encoding: Encoding,
    context: &str,
    shape: &Shape,
    vectors: &SparseVectors,
) -> Result<Encoded, Error> {
    match encoding {
        Encoding::Sketch { spread } => {
            let sketch = Sketch::new(key, context, shape, spread)?;
            Ok(Encoded {
                vectors: BatchVectors::Sparse(sketch.apply(vectors)?),
                shape: Some(sketch.shape().clone()),
                label: sketch.label().to_string(),
                space: sketch.space(),
            })
        }
        Encoding::Rotation => {
            let t = Transform::new(key, context, vectors.dim)?;
            let dense: Vectors = t.apply_sparse(vectors)?;
            Ok(Encoded {
                vectors: BatchVectors::Dense(dense),
                shape: None,
                label: t.label().to_string(),
                // a rotation keeps every distance
                space: Space::Grams,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_read_back_as_written() {
        for (text, e) in [
            ("sketch", Encoding::default()),
            ("sketch:1", Encoding::Sketch { spread: 1 }),
            ("sketch:8", Encoding::Sketch { spread: 8 }),
            ("rotation", Encoding::Rotation),
        ] {
            let parsed: Encoding = text.parse().unwrap();
            assert_eq!(parsed, e);
            assert_eq!(parsed.to_string().parse::<Encoding>().unwrap(), e);
            let json = serde_json::to_string(&e).unwrap();
            assert_eq!(serde_json::from_str::<Encoding>(&json).unwrap(), e);
        }
        for bad in ["", "sketch:0", "sketch:65", "sketch:x", "rotate", "keyed"] {
            let e = bad.parse::<Encoding>().unwrap_err();
            assert_eq!(e.code(), "INVALID_PARAMETER");
            assert!(e.to_string().contains("unknown encoding"), "{e}");
        }
    }
}
