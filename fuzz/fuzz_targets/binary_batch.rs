//! The binary vector-batch reader (`GLVB`) on arbitrary bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    gramlink::fuzzing::binary_batch(data);
});
