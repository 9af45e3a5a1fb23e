//! The messages that cross between parties: versioned, self-describing, validated
//! on read. Reading never panics: every problem is a [`ProtocolError`] that names it.
//!
//! | message | format name | JSON | binary |
//! |---|---|---|---|
//! | a party's noisy base | `gramlink/noisy-base` | yes | |
//! | the shared base | `gramlink/shared-base` | yes | |
//! | a vector batch | `gramlink/vector-batch` | yes | yes (`GLVB`) |
//! | a match result | `gramlink/match-result` | yes | |
//!
//! No message holds record text: ids are what the party chose, vectors and
//! thresholds are numbers, bases hold grams and noisy counts only.

use crate::alphabet::Alphabet;
use crate::base::{NoisyBase, SharedBase};
use crate::embed::Vectors;
use crate::error::ProtocolError;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const NOISY_BASE: &str = "gramlink/noisy-base";
pub const SHARED_BASE: &str = "gramlink/shared-base";
pub const VECTOR_BATCH: &str = "gramlink/vector-batch";
pub const MATCH_RESULT: &str = "gramlink/match-result";
/// The version this build writes and reads, for every message.
pub const VERSION: u32 = 1;
/// Largest message accepted (bytes): a NAMES batch is about 45 MB in JSON.
pub const MAX_MESSAGE_BYTES: usize = 1 << 30;

/// Wraps a payload with its format name and version.
fn envelope<T: Serialize>(format: &str, body: &T) -> String {
    let mut v = serde_json::to_value(body).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut v {
        map.insert("version".into(), Value::from(VERSION));
        map.insert("format".into(), Value::from(format));
    }
    // serde_json writes object keys in insertion order only with preserve_order;
    // readers do not care about order
    serde_json::to_string(&v).unwrap_or_default()
}

/// Checks format and version, then decodes the payload.
fn open<T: DeserializeOwned>(text: &str, format: &'static str) -> Result<T, ProtocolError> {
    if text.len() > MAX_MESSAGE_BYTES {
        return Err(ProtocolError::Invalid { what: format.into(), reason: format!("larger than {MAX_MESSAGE_BYTES} bytes") });
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        if e.is_eof() {
            ProtocolError::Truncated { what: format.into(), reason: e.to_string() }
        } else {
            ProtocolError::Malformed { expected: format, reason: e.to_string() }
        }
    })?;
    let obj = value
        .as_object()
        .ok_or_else(|| ProtocolError::Malformed { expected: format, reason: "not a JSON object".into() })?;
    let found = obj
        .get("format")
        .and_then(Value::as_str)
        .ok_or_else(|| ProtocolError::Malformed { expected: format, reason: "no \"format\" field".into() })?;
    if found != format {
        return Err(ProtocolError::WrongFormat { expected: format.into(), found: found.into() });
    }
    let version = obj
        .get("version")
        .and_then(Value::as_u64)
        .ok_or_else(|| ProtocolError::Malformed { expected: format, reason: "no numeric \"version\" field".into() })?;
    if version != VERSION as u64 {
        return Err(ProtocolError::Version { format: format.into(), found: version.min(u32::MAX as u64) as u32, supported: VERSION });
    }
    serde_json::from_value(value).map_err(|e| ProtocolError::Malformed { expected: format, reason: e.to_string() })
}

// ---------------------------------------------------------------- noisy base

pub fn write_noisy_base(base: &NoisyBase) -> String {
    envelope(NOISY_BASE, base)
}

pub fn read_noisy_base(text: &str) -> Result<NoisyBase, ProtocolError> {
    let base: NoisyBase = open(text, NOISY_BASE)?;
    let invalid = |reason: String| ProtocolError::Invalid { what: "noisy base".into(), reason };
    let p = &base.params;
    if p.q_min == 0 || p.q_min > p.q_max {
        return Err(invalid(format!("gram lengths [{}, {}] are not a valid range", p.q_min, p.q_max)));
    }
    if !(p.epsilon.is_finite() && p.epsilon >= 0.0 && p.epsilon_spent.is_finite() && p.epsilon_spent >= 0.0) {
        return Err(invalid("epsilon values must be finite and non-negative".into()));
    }
    if p.epsilon_spent > p.epsilon + 1e-12 {
        return Err(invalid(format!("it claims to spend {} of a budget of {}", p.epsilon_spent, p.epsilon)));
    }
    if let Some(pad) = base.padding {
        let sym = base.alphabet.symbols();
        if sym.len() < 2 || sym[sym.len() - 2..] != [pad.start, pad.end] {
            return Err(invalid(format!(
                "it says it was mined padded with {:?} and {:?}, but its alphabet does not end with them",
                pad.start, pad.end
            )));
        }
    }
    let mut seen = std::collections::HashSet::new();
    for g in &base.grams {
        let len = g.gram.chars().count();
        if len < p.q_min || len > p.q_max || !base.alphabet.covers(&g.gram) {
            return Err(invalid(format!("gram {:?} is not a gram of lengths [{}, {}] over the alphabet", g.gram, p.q_min, p.q_max)));
        }
        if !g.count.is_finite() {
            return Err(invalid(format!("gram {:?} has a non-finite count", g.gram)));
        }
        if !seen.insert(g.gram.as_str()) {
            return Err(invalid(format!("gram {:?} appears twice", g.gram)));
        }
    }
    Ok(base)
}

// --------------------------------------------------------------- shared base

#[derive(Serialize, Deserialize)]
struct SharedBaseBody {
    alphabet: Alphabet,
    q_min: usize,
    q_max: usize,
    grams: Vec<String>,
    fingerprint: String,
    /// Optional (additive): padding symbols put around every record before
    /// embedding; absent for unpadded bases, whose messages are unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    padding: Option<crate::padding::Padding>,
}

pub fn write_shared_base(base: &SharedBase) -> String {
    envelope(
        SHARED_BASE,
        &SharedBaseBody {
            alphabet: base.alphabet().clone(),
            q_min: base.q_min(),
            q_max: base.q_max(),
            grams: base.grams().to_vec(),
            fingerprint: base.fingerprint().to_string(),
            padding: base.padding(),
        },
    )
}

/// Reads a shared base and checks its fingerprint against its content.
pub fn read_shared_base(text: &str) -> Result<SharedBase, ProtocolError> {
    let body: SharedBaseBody = open(text, SHARED_BASE)?;
    let base = SharedBase::with_padding(body.alphabet, body.q_min, body.q_max, body.grams, body.padding)
        .map_err(|e| ProtocolError::Invalid { what: "shared base".into(), reason: e.to_string() })?;
    if base.fingerprint() != body.fingerprint {
        return Err(ProtocolError::Fingerprint {
            what: "the shared base's content".into(),
            found: base.fingerprint().into(),
            expected: body.fingerprint,
        });
    }
    Ok(base)
}

// -------------------------------------------------------------- vector batch

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
struct BatchHeader {
    party: Party,
    fingerprint: String,
    dim: usize,
    count: usize,
    ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    thresholds: Option<ThresholdHeader>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    transform: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shape: Option<crate::matching::Shape>,
    /// The numbers, in the JSON form only (the binary form appends them). One
    /// struct for both forms instead of a flattened one: serde's `flatten` costs
    /// several KB of wasm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    vectors: Option<Vec<f32>>,
}

#[derive(Serialize, Deserialize)]
struct ThresholdHeader {
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
                return Err(invalid(format!("unknown transform {t:?} (this build knows \"{}<32 hex digits>\")", crate::keyed::LABEL_PREFIX)));
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
            return Err(invalid(format!("vector {} has a non-finite component ({})", i / self.vectors.dim, self.vectors.data[i])));
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
                return Err(invalid(format!("threshold of record {} is {} (must be finite and >= 0)", i + 1, t.values[i])));
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

    fn from_header(h: BatchHeader, data: Vec<f32>, values: Option<Vec<f64>>) -> Result<Self, ProtocolError> {
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
                    reason: format!("unknown threshold mode {:?} (this build knows \"paper\", \"sound\", \"global\")", t.mode),
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
        let data = h.vectors.take().ok_or_else(|| ProtocolError::Malformed { expected: VECTOR_BATCH, reason: "missing field `vectors`".into() })?;
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
        let text = std::str::from_utf8(bytes)
            .map_err(|_| ProtocolError::Malformed { expected: VECTOR_BATCH, reason: "neither a binary batch nor UTF-8 JSON".into() })?;
        Self::from_json(text)
    }
}

/// A binary vector batch whose preamble and header were read and checked: where
/// its numbers lie. Lets a reader copy the numbers straight into their final
/// vectors (the wasm API copies them out of a JS array without a whole copy of
/// the message in between).
pub struct BinaryLayout {
    header: BatchHeader,
    /// Byte range of the count·dim f32 LE vector components.
    pub vectors: std::ops::Range<usize>,
    /// Byte range of the count f64 LE thresholds, if the header announces them.
    pub thresholds: Option<std::ops::Range<usize>>,
}

impl BinaryLayout {
    /// Reads the layout of a binary batch of `total` bytes from its first bytes
    /// (`prefix`: at least the preamble and header, or all of the message);
    /// [`Self::prefix_len`] says how many that is.
    pub fn read(prefix: &[u8], total: usize) -> Result<Self, ProtocolError> {
        let hlen = Self::prefix_len(prefix)? - 12;
        let trunc = |reason: String| ProtocolError::Truncated { what: "binary vector batch".into(), reason };
        if total < 12 + hlen || prefix.len() < 12 + hlen {
            return Err(trunc(format!("header of {hlen} bytes announced, {} present", total.min(prefix.len()).saturating_sub(12))));
        }
        let header_text = std::str::from_utf8(&prefix[12..12 + hlen])
            .map_err(|_| ProtocolError::Malformed { expected: VECTOR_BATCH, reason: "header is not UTF-8".into() })?;
        let h: BatchHeader = open(header_text, VECTOR_BATCH)?;
        if h.vectors.is_some() {
            return Err(ProtocolError::Invalid { what: "binary vector batch".into(), reason: "the header carries vectors (only the JSON form does)".into() });
        }
        let rest = total - 12 - hlen;
        let n = h.count;
        let need_vec = n.checked_mul(h.dim).and_then(|x| x.checked_mul(4)).ok_or_else(|| trunc("size overflow".into()))?;
        let need_th = if h.thresholds.is_some() { n.checked_mul(8).ok_or_else(|| trunc("size overflow".into()))? } else { 0 };
        let need = need_vec.checked_add(need_th).ok_or_else(|| trunc("size overflow".into()))?;
        if rest < need {
            return Err(trunc(format!("{} bytes of numbers, {} expected for {} vectors of dimension {}", rest, need, n, h.dim)));
        }
        if rest > need {
            return Err(ProtocolError::Invalid { what: "binary vector batch".into(), reason: format!("{} trailing bytes", rest - need) });
        }
        let start = 12 + hlen;
        let thresholds = h.thresholds.is_some().then(|| start + need_vec..start + need);
        Ok(BinaryLayout { header: h, vectors: start..start + need_vec, thresholds })
    }

    /// The length of the preamble and header, from the first 12 bytes (the magic,
    /// the version and the header length are checked here).
    pub fn prefix_len(preamble: &[u8]) -> Result<usize, ProtocolError> {
        if preamble.len() < 12 {
            return Err(ProtocolError::Truncated {
                what: "binary vector batch".into(),
                reason: format!("{} bytes, shorter than the 12-byte preamble", preamble.len()),
            });
        }
        if &preamble[..4] != b"GLVB" {
            return Err(ProtocolError::Malformed { expected: VECTOR_BATCH, reason: "no GLVB magic: not a binary vector batch".into() });
        }
        let version = u32::from_le_bytes([preamble[4], preamble[5], preamble[6], preamble[7]]);
        if version != VERSION {
            return Err(ProtocolError::Version { format: VECTOR_BATCH.into(), found: version, supported: VERSION });
        }
        let hlen = u32::from_le_bytes([preamble[8], preamble[9], preamble[10], preamble[11]]) as usize;
        Ok(12 + hlen)
    }

    /// The batch, from the numbers read out of [`Self::vectors`] and
    /// [`Self::thresholds`]; validated like every batch read.
    pub fn into_batch(self, data: Vec<f32>, values: Option<Vec<f64>>) -> Result<VectorBatch, ProtocolError> {
        VectorBatch::from_header(self.header, data, values)
    }
}

/// The little-endian bytes of numbers, as the binary batch stores them: the
/// numbers' own memory on little-endian machines (wasm, x86, ARM), no copy.
fn le_bytes<T: Number>(xs: &[T]) -> std::borrow::Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        std::borrow::Cow::Borrowed(bytemuck::cast_slice(xs))
    } else {
        let mut swapped = xs.to_vec();
        to_native_order(&mut swapped);
        std::borrow::Cow::Owned(bytemuck::cast_slice(&swapped).to_vec())
    }
}

/// Numbers from their little-endian bytes (a trailing partial number is ignored;
/// [`BinaryLayout`]'s ranges hold whole ones).
pub fn from_le_bytes<T: Number>(bytes: &[u8]) -> Vec<T> {
    let n = bytes.len() / std::mem::size_of::<T>();
    read_numbers(n, |dst| dst.copy_from_slice(&bytes[..dst.len()]))
}

/// `n` numbers whose little-endian bytes `copy` writes into the buffer it is
/// given (`n` numbers' worth), wherever they come from (a slice, a JS array).
pub fn read_numbers<T: Number>(n: usize, copy: impl FnOnce(&mut [u8])) -> Vec<T> {
    let mut out = vec![T::zeroed(); n];
    copy(bytemuck::cast_slice_mut::<T, u8>(&mut out));
    to_native_order(&mut out);
    out
}

/// Turns numbers whose bytes were copied from the little-endian form into this
/// machine's order, and back (nothing to do on little-endian machines).
fn to_native_order<T: Number>(xs: &mut [T]) {
    if cfg!(target_endian = "big") {
        for x in xs {
            *x = x.swapped();
        }
    }
}

/// The two number types of a binary batch.
pub trait Number: bytemuck::Pod {
    fn swapped(self) -> Self;
}

impl Number for f32 {
    fn swapped(self) -> Self {
        f32::from_bits(self.to_bits().swap_bytes())
    }
}

impl Number for f64 {
    fn swapped(self) -> Self {
        f64::from_bits(self.to_bits().swap_bytes())
    }
}

// -------------------------------------------------------------- match result

/// One linked pair, by the parties' ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkedPair {
    pub a: String,
    pub b: String,
    pub distance: f64,
}

/// The matcher's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    pub fingerprint: String,
    /// The rule the pairs were chosen by.
    pub rule: crate::matching::Rule,
    pub candidates: u64,
    pub pairs: Vec<LinkedPair>,
}

pub fn write_match_result(r: &MatchResult) -> String {
    envelope(MATCH_RESULT, r)
}

pub fn read_match_result(text: &str) -> Result<MatchResult, ProtocolError> {
    let r: MatchResult = open(text, MATCH_RESULT)?;
    if let Some(p) = r.pairs.iter().find(|p| !p.distance.is_finite() || p.distance < 0.0) {
        return Err(ProtocolError::Invalid { what: "match result".into(), reason: format!("pair ({}, {}) has distance {}", p.a, p.b, p.distance) });
    }
    Ok(r)
}
