//! Identical records must not show as identical rows (src/pseudonym/distinct.rs):
//! a record batch sent under pseudonyms carries each distinct record once,
//! and the owner's map gives the matcher's pairs back for every record.
#![cfg(not(target_arch = "wasm32"))]

use gramlink::dp::Randomness;
use gramlink::party::EmbedOptions;
use gramlink::progress::NoProgress;
use gramlink::protocol::Party;
use gramlink::pseudonym::{unmap_pairs, IdPolicy};
use gramlink::record::{merge, RecordMatcher, RecordOwner, Schema};
use std::collections::HashSet;

const SCHEMA: &str = r#"{"version": 1, "id": "id", "field": [
    {"name": "given", "kind": "name"}, {"name": "dob", "kind": "date"},
    {"name": "note", "kind": "suppress"}]}"#;

/// Party A holds MARY twice (once with another suppressed note: the matcher
/// would see the same record) and JOHN once; B holds each once.
const A: &str = "id,given,dob,note\na1,MARY,19990101,x\na2,JOHN,19800505,y\na3,MARY,19990101,z\n";
const B: &str = "id,given,dob,note\nb1,MARY,19990101,q\nb2,JOHN,19800505,r\n";

#[test]
fn identical_records_are_one_row_and_every_one_comes_back() {
    let schema = Schema::parse_json(SCHEMA).unwrap();
    let owner =
        |csv: &str, seed| RecordOwner::read(csv.as_bytes(), schema.clone(), "x", Randomness::seeded(seed)).unwrap();
    let (mut a, mut b) = (owner(A, 1), owner(B, 2));
    let shared = merge(&a.mine(&mut NoProgress).unwrap(), &b.mine(&mut NoProgress).unwrap(), &schema).unwrap();
    let embed = |o: &RecordOwner, party, ids| {
        o.embed(&shared, &EmbedOptions { ids, ..EmbedOptions::of(party) }, &mut NoProgress).unwrap()
    };
    // kept ids: one row a record
    assert_eq!(embed(&a, Party::A, IdPolicy::Keep).batch.ids.len(), 3);
    let (ea, eb) = (embed(&a, Party::A, IdPolicy::default()), embed(&b, Party::B, IdPolicy::default()));
    assert_eq!(ea.batch.ids.len(), 2, "MARY's two records are one row");
    let (ma, mb) = (ea.id_map.unwrap(), eb.id_map.unwrap());
    let ps = ma.pseudonyms();
    assert_eq!((ps.len(), ps[0] == ps[2], ps[0] == ps[1]), (3, true, false));
    assert_eq!(ps.iter().collect::<HashSet<_>>(), ea.batch.ids.iter().collect::<HashSet<_>>());
    // the matcher links rows; the map gives MARY's pair back for both of A's records
    let m = RecordMatcher::new(schema.clone(), ea.batch, eb.batch).unwrap();
    let l = m.link().unwrap();
    let csv = gramlink::record::export::pairs_csv(&schema, &l, &m.a().ids, &m.b().ids, None).unwrap();
    let back = String::from_utf8(unmap_pairs(csv.as_bytes(), Some(&ma), Some(&mb)).unwrap()).unwrap();
    let mut pairs: Vec<&str> = back.lines().skip(1).map(|l| &l[..l.match_indices(',').nth(1).unwrap().0]).collect();
    pairs.sort();
    assert_eq!(pairs, ["a1,b1", "a2,b2", "a3,b1"]);
}
