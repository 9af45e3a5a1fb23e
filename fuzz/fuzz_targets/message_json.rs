//! Every JSON message reader on arbitrary bytes: an error or a value, never a
//! panic; a message that reads back is written and read again identically.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    gramlink::fuzzing::message_json(data);
});
