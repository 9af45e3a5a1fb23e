//! The bodies of the fuzz targets (fuzz/fuzz_targets/), kept in the library so
//! that `tests/fuzz_replay.rs` replays the committed corpora through exactly the
//! same code in `cargo test`. Each takes arbitrary bytes and panics only on a bug:
//! a reader must return a value or a typed error, and a message it accepts must
//! survive writing and reading again unchanged.

use crate::alphabet::Alphabet;
use crate::base::SharedBase;
use crate::dataset::{read_records, ChunkReader, Dataset, InputFormat};
use crate::dp::LedgerFile;
use crate::embed::Embedder;
use crate::protocol::{
    read_match_result, read_noisy_base, read_shared_base, write_match_result, write_noisy_base, write_shared_base,
    VectorBatch,
};
use crate::record::messages::{read_noisy_bases, read_shared_bases, write_noisy_bases, write_shared_bases};
use crate::record::read_table;
use crate::record::TableReader;
use crate::record::{Field, Kind, RecordBatch, Schema};

/// Every JSON message reader.
pub fn message_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        // the batch reader takes bytes: it must refuse non-UTF-8 cleanly
        let _ = VectorBatch::read(data);
        return;
    };
    if let Ok(b) = read_noisy_base(text) {
        let w = write_noisy_base(&b);
        let again = read_noisy_base(&w).expect("a noisy base written by this build reads back");
        assert_eq!(write_noisy_base(&again), w);
    }
    if let Ok(b) = read_shared_base(text) {
        let w = write_shared_base(&b);
        let again = read_shared_base(&w).expect("a shared base written by this build reads back");
        assert_eq!(again.fingerprint(), b.fingerprint());
    }
    if let Ok(b) = VectorBatch::from_json(text) {
        round_trip(&b);
    }
    if let Ok(r) = read_match_result(text) {
        let w = write_match_result(&r);
        assert_eq!(read_match_result(&w).expect("a match result written by this build reads back"), r);
    }
    records_json(text);
    if let Ok(l) = LedgerFile::parse(text) {
        let w = l.to_json();
        assert_eq!(LedgerFile::parse(&w).expect("a ledger written by this build reads back"), l);
    }
    kuzu_json(text);
}

/// Kuzu et al.'s JSON: a block model and a public key (feature `kuzu`).
#[cfg(feature = "kuzu")]
fn kuzu_json(text: &str) {
    use crate::kuzu::blocks::BlockModel;
    use crate::kuzu::paillier::{read_public_key, write_public_key};
    if let Ok(m) = BlockModel::from_json(text) {
        let w = m.to_json();
        assert_eq!(BlockModel::from_json(&w).expect("a block model written by this build reads back").to_json(), w);
    }
    if let Ok(k) = read_public_key(text) {
        let w = write_public_key(&k);
        assert_eq!(write_public_key(&read_public_key(&w).expect("a public key written by this build reads back")), w);
    }
}

#[cfg(not(feature = "kuzu"))]
fn kuzu_json(_: &str) {}

/// The record protocol's JSON: a schema, and noisy and shared bases under a fixed schema.
fn records_json(text: &str) {
    if let Ok(s) = Schema::parse_json(text) {
        let again = Schema::parse_json(&serde_json::to_string(&s).expect("a schema serializes"));
        assert_eq!(again.expect("a schema written by this build reads back").fingerprint(), s.fingerprint());
    }
    let schema = Schema::single("name");
    if let Ok(b) = read_noisy_bases(text, &schema) {
        let w = write_noisy_bases(&b);
        assert_eq!(write_noisy_bases(&read_noisy_bases(&w, &schema).expect("noisy bases read back")), w);
    }
    if let Ok(b) = read_shared_bases(text, &schema) {
        let w = write_shared_bases(&b);
        assert_eq!(write_shared_bases(&read_shared_bases(&w, &schema).expect("shared bases read back")), w);
    }
}

fn round_trip(b: &VectorBatch) {
    assert_eq!(VectorBatch::from_json(&b.to_json()).as_ref(), Ok(b), "JSON round trip");
    assert_eq!(VectorBatch::from_binary(&b.to_binary()).as_ref(), Ok(b), "binary round trip");
}

/// The binary (and auto-detecting) vector-batch reader, and the record batch
/// (`GLRB`) reader: a record batch it accepts is written back byte for byte.
pub fn binary_batch(data: &[u8]) {
    if let Ok(b) = VectorBatch::read(data) {
        round_trip(&b);
    }
    if let Ok(b) = RecordBatch::read(data) {
        let w = b.write();
        assert_eq!(RecordBatch::read(&w).as_ref(), Ok(&b), "record batch round trip");
    }
}

/// CSV ingestion, with and without an id column, then normalization.
pub fn csv(data: &[u8]) {
    for id in [None, Some("id")] {
        let format = InputFormat::Csv { column: "name".into(), id_column: id.map(str::to_string) };
        if let Ok(raw) = read_records(data, &format, "fuzz input") {
            assert!(!raw.is_empty());
            if let Ok(d) = Dataset::normalize(raw, &Alphabet::default()) {
                assert!(d.records().iter().all(|r| !r.is_empty() && Alphabet::default().covers(r)));
            }
        }
    }
    // the multi-field reader, under a schema with one field of each kind that reads a column
    let mut schema = Schema::single("name");
    schema.id = Some("id".into());
    for (col, kind) in [("dob", Kind::Date), ("zip", Kind::Number), ("ssn", Kind::Keyed), ("sex", Kind::Clear)] {
        schema.fields.push(Field::new(col, kind));
    }
    // streamed in three chunks (cut where the input says). Parsed only at the end, as one
    // whole read of an input this small is: the same table or the same error. Parsed at
    // every record end: the same table, or an error too (with several errors in the
    // input, a stream names the first it meets, maybe not the one a whole read names)
    let whole = read_table(data, &schema, "fuzz input").map_err(|e| e.to_string());
    let cut = |k: usize| data.first().map_or(0, |&b| (b as usize * k) % (data.len() + 1));
    let (i, j) = (cut(1).min(cut(7)), cut(1).max(cut(7)));
    let streamed = |every: usize| {
        let mut reader = TableReader::new(&schema, "fuzz input").parse_every(every);
        [&data[..i], &data[i..j], &data[j..]]
            .iter()
            .try_for_each(|c| reader.push(c))
            .and_then(|()| reader.finish())
            .map_err(|e| e.to_string())
    };
    assert_eq!(streamed(usize::MAX), whole, "cut at {i} and {j}");
    match (streamed(1), &whole) {
        (Ok(a), Ok(b)) => assert_eq!(&a, b, "cut at {i} and {j}"),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("cut at {i} and {j}, parsed at every record: {a:?}, whole: {b:?}"),
    }
}

/// Text ingestion, normalization, and embedding over a small fixed base.
pub fn text(data: &[u8]) {
    let Ok(raw) = read_records(data, &InputFormat::Text, "fuzz input") else {
        return;
    };
    let alphabet = Alphabet::default();
    let Ok(d) = Dataset::normalize(raw, &alphabet) else {
        return;
    };
    let grams = ["A", "E", " ", "AN", "ER", "ON", "ING"].iter().map(|s| s.to_string()).collect();
    let base = SharedBase::new(alphabet, 1, 3, grams).expect("a valid base");
    let e = Embedder::new(&base).expect("an automaton");
    for r in d.records().iter().take(64) {
        assert!(e.embed_one(r).iter().all(|x| x.is_finite() && *x >= 0.0));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_record_seeds_read_under_the_fixed_schema() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/seeds/message_json/");
        let schema = crate::record::Schema::single("name");
        let noisy = std::fs::read_to_string(format!("{dir}record-noisy-bases.json")).unwrap();
        crate::record::messages::read_noisy_bases(&noisy, &schema).unwrap();
        let shared = std::fs::read_to_string(format!("{dir}record-shared-bases.json")).unwrap();
        crate::record::messages::read_shared_bases(&shared, &schema).unwrap();
    }
}
