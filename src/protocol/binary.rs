//! The vector batch's compact binary form ([`VectorBatch::to_binary`]), its
//! layout and its numbers (little-endian f32 vectors and f64 thresholds after a
//! JSON header).

use super::batch::{BatchHeader, VectorBatch};
use super::envelope::{open, write_envelope, VECTOR_BATCH, VECTOR_BATCH_VERSION};
use super::sparse_wire;
use crate::embed::{BatchVectors, Vectors};
use crate::error::ProtocolError;

/// A binary vector batch whose preamble and header were read and checked: where
/// its numbers lie. Lets a reader copy the numbers straight into their final
/// vectors (the wasm API copies them out of a JS array without a whole copy of
/// the message in between).
pub struct BinaryLayout {
    header: BatchHeader<'static>,
    /// Byte range of the vectors: count·dim f32 LE components, or the sparse
    /// rows when [`Self::is_sparse`].
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
            return Err(trunc(format!(
                "header of {hlen} bytes announced, {} present",
                total.min(prefix.len()).saturating_sub(12)
            )));
        }
        let header_text = std::str::from_utf8(&prefix[12..12 + hlen])
            .map_err(|_| ProtocolError::Malformed { expected: VECTOR_BATCH, reason: "header is not UTF-8".into() })?;
        let h: BatchHeader = open(header_text, VECTOR_BATCH)?;
        if h.vectors.is_some() || h.grams.is_some() {
            return Err(ProtocolError::Invalid {
                what: "binary vector batch".into(),
                reason: "the header carries vectors (only the JSON form does)".into(),
            });
        }
        let rest = total - 12 - hlen;
        let n = h.count;
        let need_vec = match h.sparse_bytes {
            Some(b) => b,
            None => n.checked_mul(h.dim).and_then(|x| x.checked_mul(4)).ok_or_else(|| trunc("size overflow".into()))?,
        };
        let need_th =
            if h.thresholds.is_some() { n.checked_mul(8).ok_or_else(|| trunc("size overflow".into()))? } else { 0 };
        let need = need_vec.checked_add(need_th).ok_or_else(|| trunc("size overflow".into()))?;
        if rest < need {
            return Err(trunc(format!(
                "{} bytes of numbers, {} expected for {} vectors of dimension {}{}",
                rest,
                need,
                n,
                h.dim,
                if h.sparse_bytes.is_some() { " (sparse)" } else { "" }
            )));
        }
        if rest > need {
            return Err(ProtocolError::Invalid {
                what: "binary vector batch".into(),
                reason: format!("{} trailing bytes", rest - need),
            });
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
            return Err(ProtocolError::Malformed {
                expected: VECTOR_BATCH,
                reason: "no GLVB magic: not a binary vector batch".into(),
            });
        }
        let version = u32::from_le_bytes([preamble[4], preamble[5], preamble[6], preamble[7]]);
        if version != VECTOR_BATCH_VERSION {
            return Err(ProtocolError::Version {
                format: VECTOR_BATCH.into(),
                found: version,
                supported: VECTOR_BATCH_VERSION,
            });
        }
        let hlen = u32::from_le_bytes([preamble[8], preamble[9], preamble[10], preamble[11]]) as usize;
        Ok(12 + hlen)
    }

    /// The header read (for [`super::rows`], which reads some rows only).
    pub(super) fn into_header(self) -> BatchHeader<'static> {
        self.header
    }

    /// The number of records the header announces.
    pub fn count(&self) -> usize {
        self.header.count
    }

    /// The vectors' dimension.
    pub fn dim(&self) -> usize {
        self.header.dim
    }

    /// Whether the vectors are sparse rows ([`sparse_wire`]), not f32 numbers.
    pub fn is_sparse(&self) -> bool {
        self.header.sparse_bytes.is_some()
    }

    /// The vectors from the bytes of [`Self::vectors`].
    pub fn decode_vectors(&self, bytes: &[u8]) -> Result<BatchVectors, ProtocolError> {
        let h = &self.header;
        if h.sparse_bytes.is_none() {
            return Ok(BatchVectors::Dense(Vectors { dim: h.dim, data: from_le_bytes(bytes) }));
        }
        let lengths = h.shape.as_ref().map(|s| s.lengths.as_slice()).ok_or_else(|| ProtocolError::Invalid {
            what: "binary vector batch".into(),
            reason: "sparse vectors need the base's shape for their gram lengths".into(),
        })?;
        Ok(BatchVectors::Sparse(sparse_wire::decode(bytes, h.count, h.dim, lengths)?))
    }

    /// The batch, from the vectors read out of [`Self::vectors`] and the
    /// numbers of [`Self::thresholds`]; validated like every batch read.
    pub fn into_batch(self, vectors: BatchVectors, values: Option<Vec<f64>>) -> Result<VectorBatch, ProtocolError> {
        VectorBatch::from_header(self.header, vectors, values)
    }
}

impl VectorBatch {
    /// The compact binary form: `GLVB`, u32 LE version, u32 LE header length, the
    /// JSON header (format, version, party, fingerprint, dim, count, ids, threshold
    /// mode, shape, `sparse_bytes`), then the vectors, then count f64 LE
    /// thresholds if announced. The vectors are `sparse_bytes` of sparse rows
    /// ([`sparse_wire`]) when the header has it, else count·dim f32 LE.
    pub fn to_binary(&self) -> Vec<u8> {
        self.binary_parts().concat()
    }

    /// [`Self::to_binary`]'s bytes in three parts, to be written one after the
    /// other (the wasm API writes them straight into a JS array): preamble and
    /// header, the vectors' numbers, the thresholds' (empty without thresholds).
    /// The numbers are their own memory on little-endian machines, not a copy.
    pub fn binary_parts(&self) -> [std::borrow::Cow<'_, [u8]>; 3] {
        use std::borrow::Cow;
        let thresholds = self.thresholds.as_ref().map_or(Cow::Borrowed(&[][..]), |t| le_bytes(&t.values));
        let rows = self.wire_sparse().and_then(|(v, lengths)| sparse_wire::encode(v, lengths));
        let (header, vectors) = match (rows, &self.vectors) {
            (Some(rows), _) => (BatchHeader { sparse_bytes: Some(rows.len()), ..self.header(false) }, Cow::Owned(rows)),
            (None, BatchVectors::Dense(v)) => (self.header(false), le_bytes(&v.data)),
            (None, BatchVectors::Sparse(s)) => {
                (self.header(false), Cow::Owned(le_bytes(&Vectors::from_sparse(s).data).into_owned()))
            }
        };
        [Cow::Owned(Self::binary_prefix(&header)), vectors, thresholds]
    }

    /// The binary form's bytes before the numbers: preamble and JSON header.
    /// The header is written straight after the preamble and its length
    /// filled in after: no copy of it (its ids are most of it).
    fn binary_prefix(header: &BatchHeader) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(b"GLVB");
        out.extend_from_slice(&VECTOR_BATCH_VERSION.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        write_envelope(&mut out, VECTOR_BATCH, header);
        let len = (out.len() - 12) as u32;
        out[8..12].copy_from_slice(&len.to_le_bytes());
        out
    }

    pub fn from_binary(bytes: &[u8]) -> Result<Self, ProtocolError> {
        let layout = BinaryLayout::read(bytes, bytes.len())?;
        let vectors = layout.decode_vectors(&bytes[layout.vectors.clone()])?;
        let values = layout.thresholds.clone().map(|r| from_le_bytes(&bytes[r]));
        layout.into_batch(vectors, values)
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
