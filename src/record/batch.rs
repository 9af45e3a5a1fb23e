//! The record batch: what a party sends the matcher for a schema. Per sent
//! field: the embedded vectors of its present values (and, from party A, the
//! sound thresholds per edit distance), the keyed hashes, or the clear values.
//! A missing value is absent (an embedded part lists the rows it has).
//!
//! Binary form `GLRB`: the magic, the version (u32 LE), the header's length
//! (u32 LE), the JSON header (`gramlink/record-batch`, no record text), then
//! per embedded part its vectors and its thresholds (f64 LE), in header order.
//! Unkeyed vectors are sparse (the part header gives `nnz`): each row's entry
//! count (u32 LE), then every coordinate (u32 LE), then every value (f32 LE);
//! keyed vectors are dense f32 LE (the rotation mixes every coordinate).
//! Nothing is read past a declared length and every length is checked before
//! it is used. Version 2 (version 1 held dense vectors only).

use super::schema::{Kind, Schema};
use crate::embed::{BatchVectors, Vectors};
use crate::error::{Error, ProtocolError};
use crate::protocol::plausible::Bounds;
use crate::protocol::{envelope, open, Party};
use crate::sparse_vectors::SparseVectors;
use serde::{Deserialize, Serialize};

pub const RECORD_BATCH: &str = "gramlink/record-batch";
const MAGIC: &[u8; 4] = b"GLRB";
/// The binary form's version.
pub const VERSION: u32 = 2;

/// One embedded part of a field (a date has three: year, month, day).
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The records (row numbers in the batch) whose value is present, ascending.
    pub rows: Vec<u32>,
    /// One vector per present row.
    pub vectors: BatchVectors,
    /// Party A's thresholds, per edit distance: one per present row.
    pub thresholds: Vec<(u32, Vec<f64>)>,
}

impl Part {
    pub fn thresholds(&self, ed: u32) -> Option<&[f64]> {
        self.thresholds.iter().find(|(e, _)| *e == ed).map(|(_, t)| t.as_slice())
    }
}

/// A sent field's data.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldData {
    /// `shape`: the gram lengths of the base's coordinates (absent when keyed:
    /// the rotation mixes them), for the q-gram bound of [`super::compare`].
    Embedded {
        base: String,
        parts: Vec<Part>,
        shape: Option<crate::shape::Shape>,
    },
    Hashed(Vec<Option<[u8; 16]>>),
    Clear(Vec<Option<String>>),
}

/// A party's record batch.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordBatch {
    pub party: Party,
    /// The schema's fingerprint.
    pub schema: String,
    pub ids: Vec<String>,
    /// The ε each gram space was mined with (0: public grams only).
    pub epsilon: Vec<(String, f64)>,
    /// False when made with seeded randomness (not private).
    pub private: bool,
    /// Whether embedded vectors went through a keyed encoding.
    pub keyed: bool,
    /// Which one, when keyed: absent for the rotation (older batches), else the
    /// encoding's name ([`crate::keyed::Encoding`], e.g. `sketch`, `sketch:4`), whose
    /// sparse parts carry the sketch's shape.
    pub encoding: Option<String>,
    /// The shared key's check value ([`super::keyed_hash::key_check`]) when the
    /// party had the key.
    pub key_check: Option<String>,
    /// Every sent field, in schema order.
    pub fields: Vec<(String, FieldData)>,
}

// the envelope adds `format` and `version` (checked by `open`)
#[derive(Serialize, Deserialize)]
struct Header {
    party: Party,
    schema: String,
    ids: Vec<String>,
    epsilon: Vec<(String, f64)>,
    private: bool,
    keyed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    encoding: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    key_check: Option<String>,
    fields: Vec<FieldHeader>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldHeader {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    base: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    parts: Option<Vec<PartHeader>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shape: Option<crate::shape::Shape>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hashed: Option<Vec<Option<String>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    clear: Option<Vec<Option<String>>>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PartHeader {
    rows: Vec<u32>,
    dim: usize,
    eds: Vec<u32>,
    /// Non-zero entries of sparse vectors; absent: dense.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    nnz: Option<usize>,
}

fn u32_le(c: &[u8]) -> u32 {
    u32::from_le_bytes([c[0], c[1], c[2], c[3]])
}

fn f32_le(c: &[u8]) -> f32 {
    f32::from_le_bytes([c[0], c[1], c[2], c[3]])
}

fn invalid(reason: String) -> ProtocolError {
    ProtocolError::Invalid { what: "record batch".into(), reason }
}

impl RecordBatch {
    /// Checks the batch against itself and the schema: the sent fields in
    /// order, each of the right form, rows ascending and in range, one vector
    /// and one threshold per present row, thresholds finite and ≥ 0.
    pub fn validate(&self, schema: &Schema) -> Result<(), Error> {
        super::check::check_schema(
            &schema.fingerprint(),
            &self.schema,
            &format!("party {}'s record batch", self.party.name()),
        )?;
        let n = self.ids.len();
        if n == 0 {
            return Err(invalid("it has no records".into()).into());
        }
        // rotated: dense parts without a shape; any other encoding (or none):
        // sparse parts with their shape
        let rotated = self.keyed && self.encoding.is_none();
        if let Some(e) = &self.encoding {
            let known = e.parse::<crate::keyed::Encoding>().is_ok_and(|e| e != crate::keyed::Encoding::Rotation);
            if !self.keyed || !known {
                return Err(invalid(format!("encoding {e:?} in a batch that is not keyed, or not a sketch")).into());
            }
        }
        if n > u32::MAX as usize {
            return Err(invalid("more than 2^32 records".into()).into());
        }
        let mut seen = std::collections::HashMap::with_capacity(n);
        for (i, id) in self.ids.iter().enumerate() {
            if let Some(first) = seen.insert(id.as_str(), i) {
                return Err(invalid(format!("id {id:?} is used twice (records {} and {})", first + 1, i + 1)).into());
            }
        }
        let sent: Vec<_> = schema.sent().collect();
        if sent.len() != self.fields.len() {
            let names: Vec<&str> = self.fields.iter().map(|(n, _)| n.as_str()).collect();
            let want: Vec<&str> = sent.iter().map(|f| f.name.as_str()).collect();
            return Err(invalid(format!("it has fields {names:?}, the schema sends {want:?}")).into());
        }
        for (f, (name, data)) in sent.iter().zip(&self.fields) {
            if f.name != *name {
                return Err(invalid(format!("field {name:?} where the schema has {:?}", f.name)).into());
            }
            let at = |m: String| invalid(format!("field {name:?}: {m}"));
            let kind = f.kind().unwrap_or(Kind::Suppress);
            match data {
                FieldData::Embedded { base, parts, shape } => {
                    if let Some(sh) = shape {
                        if rotated {
                            return Err(
                                at("a keyed batch cannot carry a shape (its coordinates are mixed)".into()).into()
                            );
                        }
                        sh.validate(parts.first().map_or(0, |p| p.vectors.dim())).map_err(at)?;
                    }
                    if !kind.is_embedded() {
                        return Err(at(format!("embedded vectors for a {} field", kind.name())).into());
                    }
                    if base.len() != 64 || !base.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return Err(at("the base fingerprint is not a SHA-256 hex digest".into()).into());
                    }
                    let want = f.parts();
                    if parts.len() != want {
                        return Err(at(format!("{} parts, a {} field has {want}", parts.len(), kind.name())).into());
                    }
                    for p in parts {
                        if p.rows.windows(2).any(|w| w[0] >= w[1]) || p.rows.last().is_some_and(|&r| r as usize >= n) {
                            return Err(at("its rows are not ascending row numbers of the batch".into()).into());
                        }
                        match &p.vectors {
                            BatchVectors::Dense(v) => {
                                if !rotated {
                                    return Err(at(
                                        "dense vectors in a batch that is not rotated (they are sparse)".into()
                                    )
                                    .into());
                                }
                                if v.dim == 0 || p.rows.len().checked_mul(v.dim) != Some(v.data.len()) {
                                    return Err(at(format!(
                                        "{} rows but {} numbers of dimension {}",
                                        p.rows.len(),
                                        v.data.len(),
                                        v.dim
                                    ))
                                    .into());
                                }
                                if let Some(i) = v.first_non_finite() {
                                    return Err(at(format!("vector {} has a non-finite component", i / v.dim)).into());
                                }
                            }
                            BatchVectors::Sparse(s) => {
                                if rotated || shape.is_none() {
                                    return Err(at(
                                        "sparse vectors need a batch that is not rotated, with a shape".into()
                                    )
                                    .into());
                                }
                                if s.dim == 0 || s.len() != p.rows.len() {
                                    return Err(
                                        at(format!("{} rows but {} sparse vectors", p.rows.len(), s.len())).into()
                                    );
                                }
                                s.validate().map_err(at)?;
                            }
                        }
                        for (ed, t) in &p.thresholds {
                            if t.len() != p.rows.len() || t.iter().any(|x| !x.is_finite() || *x < 0.0) {
                                return Err(at(format!(
                                    "the thresholds of ed {ed} are not one finite number >= 0 per row"
                                ))
                                .into());
                            }
                        }
                        // what C can check without the key (src/protocol/plausible.rs)
                        let implausible = |m: String| ProtocolError::Implausible {
                            what: format!("party {}'s record batch", self.party.name()),
                            reason: format!("field {name:?}: {m}"),
                        };
                        let bounds = Bounds::of(shape.as_ref());
                        bounds.check_vectors(&p.vectors, shape.as_ref()).map_err(implausible)?;
                        for (ed, t) in &p.thresholds {
                            bounds.check_thresholds(*ed, t).map_err(implausible)?;
                        }
                    }
                    if parts.iter().any(|p| p.rows != parts[0].rows || p.vectors.dim() != parts[0].vectors.dim()) {
                        return Err(at("its parts differ in rows or dimension".into()).into());
                    }
                }
                FieldData::Hashed(h) => {
                    if kind != Kind::Keyed {
                        return Err(at(format!("keyed hashes for a {} field", kind.name())).into());
                    }
                    if h.len() != n {
                        return Err(at(format!("{} hashes for {n} records", h.len())).into());
                    }
                }
                FieldData::Clear(v) => {
                    if kind != Kind::Clear {
                        return Err(at(format!("clear values for a {} field", kind.name())).into());
                    }
                    if v.len() != n {
                        return Err(at(format!("{} values for {n} records", v.len())).into());
                    }
                }
            }
        }
        Ok(())
    }

    /// The data of field `name`.
    pub fn field(&self, name: &str) -> Option<&FieldData> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, d)| d)
    }

    /// The binary form (`GLRB`).
    pub fn write(&self) -> Vec<u8> {
        let mut numbers: Vec<u8> = Vec::new();
        let fields = self
            .fields
            .iter()
            .map(|(name, data)| {
                let mut h =
                    FieldHeader { name: name.clone(), base: None, parts: None, shape: None, hashed: None, clear: None };
                match data {
                    FieldData::Embedded { base, parts, shape } => {
                        h.base = Some(base.clone());
                        h.shape = shape.clone();
                        h.parts = Some(
                            parts
                                .iter()
                                .map(|p| {
                                    let nnz = match &p.vectors {
                                        BatchVectors::Dense(v) => {
                                            numbers.extend(v.data.iter().flat_map(|x| x.to_le_bytes()));
                                            None
                                        }
                                        BatchVectors::Sparse(s) => {
                                            for w in s.starts.windows(2) {
                                                numbers.extend(((w[1] - w[0]) as u32).to_le_bytes());
                                            }
                                            numbers.extend(s.cols.iter().flat_map(|x| x.to_le_bytes()));
                                            numbers.extend(s.vals.iter().flat_map(|x| x.to_le_bytes()));
                                            Some(s.nnz())
                                        }
                                    };
                                    for (_, t) in &p.thresholds {
                                        numbers.extend(t.iter().flat_map(|x| x.to_le_bytes()));
                                    }
                                    PartHeader {
                                        rows: p.rows.clone(),
                                        dim: p.vectors.dim(),
                                        eds: p.thresholds.iter().map(|(e, _)| *e).collect(),
                                        nnz,
                                    }
                                })
                                .collect(),
                        );
                    }
                    FieldData::Hashed(v) => h.hashed = Some(v.iter().map(|x| x.map(hex::encode)).collect()),
                    FieldData::Clear(v) => h.clear = Some(v.clone()),
                }
                h
            })
            .collect();
        let header = Header {
            party: self.party,
            schema: self.schema.clone(),
            ids: self.ids.clone(),
            epsilon: self.epsilon.clone(),
            private: self.private,
            keyed: self.keyed,
            encoding: self.encoding.clone(),
            key_check: self.key_check.clone(),
            fields,
        };
        let text = envelope(RECORD_BATCH, &header);
        let mut out = Vec::with_capacity(12 + text.len() + numbers.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
        out.extend_from_slice(&numbers);
        out
    }

    /// Reads the binary form; checks lengths (not the schema: [`Self::validate`]).
    pub fn read(bytes: &[u8]) -> Result<RecordBatch, ProtocolError> {
        let trunc = |reason: String| ProtocolError::Truncated { what: "record batch".into(), reason };
        if bytes.len() < 12 {
            return Err(trunc(format!("{} bytes, shorter than the 12-byte preamble", bytes.len())));
        }
        if &bytes[0..4] != MAGIC {
            let what = if bytes.starts_with(b"GLVB") {
                "a one-string vector batch (GLVB), not a record batch: embed with the schema"
            } else {
                "no GLRB magic"
            };
            return Err(ProtocolError::Malformed { expected: RECORD_BATCH, reason: what.into() });
        }
        let u32_at = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let version = u32_at(4);
        if version != VERSION {
            return Err(ProtocolError::Version { format: RECORD_BATCH.into(), found: version, supported: VERSION });
        }
        let hlen = u32_at(8) as usize;
        if bytes.len() - 12 < hlen {
            return Err(trunc(format!("header of {hlen} bytes announced, {} present", bytes.len() - 12)));
        }
        let text = std::str::from_utf8(&bytes[12..12 + hlen])
            .map_err(|_| ProtocolError::Malformed { expected: RECORD_BATCH, reason: "header is not UTF-8".into() })?;
        let h: Header = open(text, RECORD_BATCH)?;
        let mut at = 12 + hlen;
        let mut take = |len: Option<usize>| -> Result<&[u8], ProtocolError> {
            let len = len.ok_or_else(|| trunc("size overflow".into()))?;
            let end = at
                .checked_add(len)
                .filter(|&e| e <= bytes.len())
                .ok_or_else(|| trunc(format!("{} bytes of numbers announced past the end", len)))?;
            let s = &bytes[at..end];
            at = end;
            Ok(s)
        };
        let mut fields = Vec::new();
        for f in h.fields {
            let shape = f.shape;
            let data = match (f.base, f.parts, f.hashed, f.clear) {
                (Some(base), Some(parts), None, None) => {
                    let mut out = Vec::new();
                    for p in parts {
                        let n = p.rows.len();
                        let vectors = match p.nnz {
                            None => {
                                let raw = take(n.checked_mul(p.dim).and_then(|x| x.checked_mul(4)))?;
                                let data = raw.chunks_exact(4).map(f32_le).collect();
                                BatchVectors::Dense(Vectors { dim: p.dim, data })
                            }
                            Some(nnz) => {
                                let mut starts = Vec::with_capacity(n + 1);
                                starts.push(0usize);
                                for c in take(n.checked_mul(4))?.chunks_exact(4) {
                                    let next = starts[starts.len() - 1].saturating_add(u32_le(c) as usize);
                                    starts.push(next);
                                }
                                if starts[n] != nnz {
                                    return Err(invalid(format!(
                                        "field {:?}: its rows hold {} entries, the header says {nnz}",
                                        f.name, starts[n]
                                    )));
                                }
                                let cols = take(nnz.checked_mul(4))?.chunks_exact(4).map(u32_le).collect();
                                let vals = take(nnz.checked_mul(4))?.chunks_exact(4).map(f32_le).collect();
                                BatchVectors::Sparse(SparseVectors { dim: p.dim, starts, cols, vals })
                            }
                        };
                        let mut thresholds = Vec::new();
                        for ed in p.eds {
                            let raw = take(n.checked_mul(8))?;
                            thresholds.push((
                                ed,
                                raw.chunks_exact(8)
                                    .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                                    .collect(),
                            ));
                        }
                        out.push(Part { rows: p.rows, vectors, thresholds });
                    }
                    FieldData::Embedded { base, parts: out, shape }
                }
                (None, None, Some(h), None) if shape.is_none() => {
                    let mut v = Vec::with_capacity(h.len());
                    for x in h {
                        v.push(match x {
                            None => None,
                            Some(s) => {
                                let mut b = [0u8; 16];
                                hex::decode_to_slice(&s, &mut b).map_err(|_| {
                                    invalid(format!("field {:?}: a keyed hash is not 32 hex digits", f.name))
                                })?;
                                Some(b)
                            }
                        });
                    }
                    FieldData::Hashed(v)
                }
                (None, None, None, Some(c)) if shape.is_none() => FieldData::Clear(c),
                _ => return Err(invalid(format!("field {:?} is not exactly one of embedded, hashed, clear", f.name))),
            };
            fields.push((f.name, data));
        }
        if at != bytes.len() {
            return Err(invalid(format!("{} trailing bytes", bytes.len() - at)));
        }
        Ok(RecordBatch {
            party: h.party,
            schema: h.schema,
            ids: h.ids,
            epsilon: h.epsilon,
            private: h.private,
            keyed: h.keyed,
            encoding: h.encoding,
            key_check: h.key_check,
            fields,
        })
    }
}
