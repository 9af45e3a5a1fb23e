//! Two parties' record batches from CSV text, for the tests: both owners'
//! steps on one machine, with fixed seeds (not private) and a fixed key.

use super::{merge, RecordBatch, RecordOwner, Schema};
use crate::dp::Randomness;
use crate::keyed::{EmbedKey, Encoding, Key};
use crate::party::EmbedOptions;
use crate::progress::NoProgress;
use crate::protocol::Party;

/// A's and B's batches of `a_csv` and `b_csv` under `schema`; `key`: keyed
/// with that encoding, else unkeyed.
pub(crate) fn batches(schema: &Schema, a_csv: &str, b_csv: &str, key: Option<Encoding>) -> (RecordBatch, RecordBatch) {
    let owner = |csv: &str, seed| RecordOwner::read(csv.as_bytes(), schema.clone(), "t", Randomness::seeded(seed));
    let (mut a, mut b) = (owner(a_csv, 1).unwrap(), owner(b_csv, 2).unwrap());
    let shared = merge(&a.mine(&mut NoProgress).unwrap(), &b.mine(&mut NoProgress).unwrap(), schema).unwrap();
    let options = |party| EmbedOptions {
        key: EmbedKey { key: key.map(|_| Key::from_bytes([7; 32])), rotate: key.is_some() },
        encoding: key.unwrap_or_default(),
        ..EmbedOptions::of(party).local()
    };
    let va = a.embed(&shared, &options(Party::A), &mut NoProgress).unwrap().batch;
    let vb = b.embed(&shared, &options(Party::B), &mut NoProgress).unwrap().batch;
    assert_eq!(va.keyed, key.is_some());
    (va, vb)
}
