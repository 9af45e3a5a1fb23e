//! CSV ingestion and normalization on arbitrary bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    gramlink::fuzzing::csv(data);
});
