//! `RecordReader`: a party's input read chunk by chunk (a `File`'s stream in
//! the web app's Worker), so the file is never one string in JS or in wasm:
//! the core's [`crate::dataset::DetectingReader`] behind JS arguments. Its
//! records go to `DataOwner.fromReader`. Its JS methods are those of every
//! chunked reader (`RecordTableReader` too): [`chunk_reader_methods`].

use super::args::InputOptions;
use crate::dataset::RawRecord;
use crate::dataset::{ChunkReader, DetectingReader};
use crate::error::InputError;
use wasm_bindgen::prelude::*;

/// `push(chunk)`, `bytesRead` and `recordsRead` on a JS reader class (this
/// `RecordReader`, `RecordTableReader`) whose `inner: Option<$core>` holds
/// the core's chunked reader until the input ends or fails, and `take()`,
/// which ends it; `what` names the input in the error of a used-up reader.
macro_rules! chunk_reader_methods {
    ($class:ident, $core:ident) => {
        #[wasm_bindgen]
        impl $class {
            /// Takes the next chunk (a `Uint8Array`).
            pub fn push(&mut self, chunk: JsValue) -> Result<(), JsValue> {
                let bytes = super::args::bytes_arg(&chunk)?;
                let r = self.inner.as_mut().ok_or_else(|| super::reader::used(&self.what))?;
                // an error ends the reading: nothing half-read is kept
                r.push(&bytes).inspect_err(|_| self.inner = None)?;
                Ok(())
            }

            /// Bytes taken so far.
            #[wasm_bindgen(getter, js_name = bytesRead)]
            pub fn bytes_read(&self) -> f64 {
                self.inner.as_ref().map_or(0, $core::bytes_read) as f64
            }

            /// Records read so far (complete records are parsed a megabyte at a time).
            #[wasm_bindgen(getter, js_name = recordsRead)]
            pub fn records_read(&self) -> f64 {
                self.inner.as_ref().map_or(0, $core::records_read) as f64
            }
        }

        impl $class {
            /// The core's reader, once the input has ended (this one is used up after).
            fn take(&mut self) -> Result<$core, JsValue> {
                self.inner.take().ok_or_else(|| super::reader::used(&self.what))
            }
        }
    };
}
pub(super) use chunk_reader_methods;

#[wasm_bindgen]
pub struct RecordReader {
    inner: Option<DetectingReader>,
    what: String,
}

#[wasm_bindgen]
impl RecordReader {
    /// A reader of one input; `input` as `DataOwner.fromBytes`'s (`format`
    /// `"auto"` is settled from the first line).
    #[wasm_bindgen(constructor)]
    pub fn new(input: JsValue) -> Result<RecordReader, JsValue> {
        let i = InputOptions::read(input)?;
        let what = i.name.unwrap_or_else(|| "the input".into());
        let inner = DetectingReader::new(&what, i.format, i.column.as_deref(), i.id_column.as_deref());
        Ok(RecordReader { inner: Some(inner), what })
    }
}

chunk_reader_methods!(RecordReader, DetectingReader);

impl RecordReader {
    /// The records, once the input has ended (the reader is then used up).
    pub(super) fn finish(&mut self) -> Result<Vec<RawRecord>, JsValue> {
        Ok(self.take()?.finish()?)
    }
}

pub(super) fn used(what: &str) -> JsValue {
    InputError::Format(format!("the reader of {what} is used up (finished, or stopped by an error): make a new one"))
        .into()
}
