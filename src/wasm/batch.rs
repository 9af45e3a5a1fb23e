//! Vector batches across the JS boundary. A NAMES batch is 45 MB of numbers: a
//! binary batch is written straight into the JS `Uint8Array` it is returned in,
//! and read straight out of one into the batch's vectors, so no whole copy of
//! the message is ever made in wasm memory (fewer fresh pages for the engine to
//! map, and one pass over the numbers instead of three).

use super::args::message_bytes;
use super::errors::invalid;
use crate::embed::{BatchVectors, Vectors};
use crate::protocol::{read_numbers, BinaryLayout, Number, VectorBatch};
use std::ops::Range;
use wasm_bindgen::{JsCast, JsValue};

/// A batch from a JSON string or a `Uint8Array` (binary or JSON bytes); `what`
/// names it in errors.
pub(super) fn read_batch(v: &JsValue, what: &str) -> Result<VectorBatch, JsValue> {
    let protocol = JsValue::from;
    if let Some(bytes) = v.dyn_ref::<js_sys::Uint8Array>() {
        let len = bytes.length() as usize;
        let preamble = bytes.subarray(0, len.min(12) as u32).to_vec();
        if preamble.starts_with(b"GLVB") {
            let prefix_len = BinaryLayout::prefix_len(&preamble).map_err(protocol)?;
            let prefix = bytes.subarray(0, len.min(prefix_len) as u32).to_vec();
            let layout = BinaryLayout::read(&prefix, len).map_err(protocol)?;
            let vectors = if layout.is_sparse() {
                // gram ids and counts: a few bytes a record, decoded from one copy
                let raw = bytes.subarray(layout.vectors.start as u32, layout.vectors.end as u32).to_vec();
                layout.decode_vectors(&raw).map_err(protocol)?
            } else {
                BatchVectors::Dense(Vectors { dim: layout.dim(), data: numbers::<f32>(bytes, &layout.vectors) })
            };
            let thresholds = layout.thresholds.clone().map(|r| numbers::<f64>(bytes, &r));
            return layout.into_batch(vectors, thresholds).map_err(protocol);
        }
    }
    VectorBatch::read(&message_bytes(v, what)?).map_err(protocol)
}

/// The numbers in `range` of a JS byte array (a range of whole numbers, as
/// [`BinaryLayout`] gives it), copied once, into their final vector.
fn numbers<T: Number>(bytes: &js_sys::Uint8Array, range: &Range<usize>) -> Vec<T> {
    read_numbers(range.len() / std::mem::size_of::<T>(), |dst| {
        bytes.subarray(range.start as u32, range.end as u32).copy_to(dst)
    })
}

/// The binary form of a batch ([`VectorBatch::to_binary`]'s bytes), written
/// into a new JS `Uint8Array` part by part.
pub(super) fn binary_batch(batch: &VectorBatch) -> Result<js_sys::Uint8Array, JsValue> {
    let parts = batch.binary_parts();
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let total = u32::try_from(total).map_err(|_| {
        invalid(format!("the binary batch would be {total} bytes, more than a JS Uint8Array holds here"))
    })?;
    let out = js_sys::Uint8Array::new_with_length(total);
    let mut at = 0u32;
    for part in &parts {
        // part lengths sum to `total`, which fits in u32
        let end = at + part.len() as u32;
        out.subarray(at, end).copy_from(part);
        at = end;
    }
    Ok(out)
}
