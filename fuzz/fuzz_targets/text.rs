//! Text ingestion (one record a line), normalization and embedding on arbitrary bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    gramlink::fuzzing::text(data);
});
