use super::alice::{encrypt_block, write_block, write_header, BlocksReader, EncRecord, Handles};
use super::bob::{compare_block, read_pairs, write_pair, write_pairs_header};
use super::charlie::decide;
use super::rule::{AttrKind, AttributeSpec, Rule, RuleSpec, Value};
use crate::dp::Randomness;
use crate::kuzu::paillier::{Encryptor, PrivateKey};
use crate::kuzu::release::Slot;
use proptest::prelude::*;
use std::sync::OnceLock;

/// A 512-bit test key (seeded: NOT secure; the default is 2048).
fn key() -> &'static PrivateKey {
    static KEY: OnceLock<PrivateKey> = OnceLock::new();
    KEY.get_or_init(|| PrivateKey::generate(512, &mut Randomness::seeded(23)).unwrap())
}

fn attr(column: &str, kind: AttrKind, weight: f64, range: Option<(i64, i64)>) -> AttributeSpec {
    AttributeSpec { column: column.into(), kind, weight, min: range.map(|r| r.0), max: range.map(|r| r.1) }
}

fn rule(threshold: f64, with_string: bool) -> Rule {
    let mut attributes = vec![attr("year", AttrKind::Year, 0.4, Some((1900, 2010)))];
    if with_string {
        attributes.insert(0, attr("name", AttrKind::String, 0.6, None));
    }
    RuleSpec { id: "id".into(), block: "name".into(), threshold, attributes }.validate().unwrap()
}

/// Runs A's, B's and C's steps on one block and returns C's decision for each
/// (A slot, B record) pair, in order.
fn protocol(rule: &Rule, a: &[Vec<Value>], slots: &[Slot], b: &[Vec<Value>], seed: u64) -> Vec<bool> {
    let k = key();
    let mut rng = Randomness::seeded(seed);
    let (ea, eb) = (Encryptor::new(k.public(), &mut rng), Encryptor::for_key_holder(k.public(), &mut rng));
    let (enc, _) = encrypt_block(&ea, rule, slots, a, &mut Handles::default(), &mut rng);
    let bs: Vec<(usize, &[Value])> = b.iter().enumerate().map(|(i, v)| (i, v.as_slice())).collect();
    let (pairs, map) = compare_block(&eb, rule, &enc, &bs, seed % 2 == 0, &mut Handles::default(), &mut rng).unwrap();
    assert_eq!(map.len(), slots.len() * b.len());
    pairs.iter().map(|p| decide(k, rule, p).unwrap()).collect()
}

fn name_strategy() -> impl Strategy<Value = String> {
    prop::string::string_regex("[A-Z]{0,7}( [A-Z]{1,4})?").unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// Blinding leaves every decision unchanged, and a fake never matches.
    #[test]
    fn blinded_decisions_equal_clear_ones(
        a_name in name_strategy(), a_year in 1890i64..2020, theta in 0.05f64..1.0,
        bs in prop::collection::vec((name_strategy(), 1890i64..2020, any::<bool>()), 3), seed in any::<u64>()
    ) {
        let rule = rule(theta, true);
        let a = vec![vec![rule.encode(0, &a_name), rule.encode(1, &a_year.to_string())]];
        // half of B's records are near copies of A's, so both decisions occur
        let b: Vec<Vec<Value>> = bs.iter().map(|(n, y, copy)| {
            let (n, y) = if *copy { (format!("{a_name}X"), a_year + 1) } else { (n.clone(), *y) };
            vec![rule.encode(0, &n), rule.encode(1, &y.to_string())]
        }).collect();
        let got = protocol(&rule, &a, &[Slot::Real(0), Slot::Fake], &b, seed);
        let fake = rule.fake();
        for (j, vb) in b.iter().enumerate() {
            prop_assert_eq!(got[j], rule.decide_plain(&a[0], vb), "pair with B record {}", j);
            prop_assert!(!rule.decide_plain(&fake, vb));
            prop_assert!(!got[b.len() + j], "a fake matched B record {}", j);
        }
    }
}

#[test]
fn identical_records_match_and_distant_ones_do_not() {
    let rule = rule(0.8, true);
    let enc = |n: &str, y: &str| vec![rule.encode(0, n), rule.encode(1, y)];
    let a = vec![enc("JOHN SMITH", "19800101")];
    let b = vec![enc("JOHN SMITH", "19800101"), enc("MARY JONES", "19200101"), enc("", "")];
    assert_eq!(protocol(&rule, &a, &[Slot::Real(0)], &b, 5), vec![true, false, false]);
}

/// A's blocks and B's pairs as bytes, for the bad-input tests (numbers only: cheap).
fn messages() -> (Rule, Vec<u8>, Vec<u8>) {
    let k = key();
    let pk = k.public();
    let rule = rule(0.39, false);
    let mut rng = Randomness::seeded(8);
    let a = vec![vec![rule.encode(0, "1970")], vec![rule.encode(0, "1990")]];
    let e = Encryptor::new(pk, &mut rng);
    let (enc, _) =
        encrypt_block(&e, &rule, &[Slot::Real(0), Slot::Fake, Slot::Real(1)], &a, &mut Handles::default(), &mut rng);
    let mut blocks = Vec::new();
    write_header(pk, &[7; 32], &rule, 2, &mut blocks);
    write_block(pk, &enc, &mut blocks);
    write_block(pk, &[], &mut blocks);
    let b = [rule.encode(0, "1971")];
    let (pairs, _) = compare_block(&e, &rule, &enc, &[(0, &b[..])], false, &mut Handles::default(), &mut rng).unwrap();
    let mut out = Vec::new();
    write_pairs_header(pk, &rule, pairs.len() as u64, &mut out);
    for p in &pairs {
        write_pair(pk, p, &mut out);
    }
    (rule, blocks, out)
}

fn read_all(bytes: &[u8], rule: &Rule, model: &[u8; 32]) -> Result<Vec<Vec<EncRecord>>, crate::Error> {
    let pk = key().public();
    let mut r = BlocksReader::open(bytes, pk, model, rule, 2)?;
    let mut out = Vec::new();
    while let Some(b) = r.next_block(pk)? {
        out.push(b);
    }
    Ok(out)
}

#[test]
fn messages_round_trip_and_bad_ones_are_named_errors() {
    let (rule, blocks, pairs) = messages();
    let got = read_all(&blocks, &rule, &[7; 32]).unwrap();
    assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), vec![3, 0]);
    let code = |r: Result<Vec<Vec<EncRecord>>, crate::Error>| r.unwrap_err().code();
    assert_eq!(code(read_all(&blocks, &rule, &[8; 32])), "FINGERPRINT_MISMATCH");
    assert_eq!(code(read_all(&blocks[..blocks.len() - 10], &rule, &[7; 32])), "TRUNCATED_MESSAGE");
    assert_eq!(code(read_all(&blocks[..20], &rule, &[7; 32])), "TRUNCATED_MESSAGE");
    let other = RuleSpec {
        id: "id".into(),
        block: "name".into(),
        threshold: 0.6,
        attributes: vec![attr("year", AttrKind::Year, 0.4, Some((1900, 2010)))],
    }
    .validate()
    .unwrap();
    assert_eq!(code(read_all(&blocks, &other, &[7; 32])), "FINGERPRINT_MISMATCH");
    // a forged ciphertext: all 0xff is above n²
    let mut forged = blocks.clone();
    let start = 4 + 4 + 96 + 4 + 4 + 8;
    forged[start..start + 8].fill(0xff);
    assert_eq!(code(read_all(&forged, &rule, &[7; 32])), "INVALID_MESSAGE");
    let mut wrong_magic = blocks.clone();
    wrong_magic[0] = b'X';
    assert_eq!(code(read_all(&wrong_magic, &rule, &[7; 32])), "WRONG_MESSAGE_KIND");
    // another key
    let other_key = PrivateKey::generate(512, &mut Randomness::seeded(24)).unwrap();
    let e = BlocksReader::open(&blocks, other_key.public(), &[7; 32], &rule, 2).err().unwrap();
    assert_eq!(e.code(), "FINGERPRINT_MISMATCH");
    // C's side
    let k = key();
    let ps = read_pairs(&pairs, k.public(), &rule).unwrap();
    assert_eq!(ps.len(), 3);
    let decisions: Vec<bool> = ps.iter().map(|p| decide(k, &rule, p).unwrap()).collect();
    assert_eq!(decisions, vec![true, false, false], "1970 vs 1971 matches; a fake and 1990 do not");
    assert_eq!(read_pairs(&pairs[..pairs.len() - 1], k.public(), &rule).unwrap_err().code(), "TRUNCATED_MESSAGE");
    assert_eq!(read_pairs(&pairs, other_key.public(), &rule).unwrap_err().code(), "FINGERPRINT_MISMATCH");
    let mut extra = pairs.clone();
    extra.push(0);
    assert_eq!(read_pairs(&extra, k.public(), &rule).unwrap_err().code(), "INVALID_MESSAGE");
}

#[test]
fn bad_rules_are_refused() {
    let ok = |t: f64, a: Vec<AttributeSpec>| {
        RuleSpec { id: "i".into(), block: "b".into(), threshold: t, attributes: a }.validate()
    };
    assert!(ok(0.0, vec![attr("x", AttrKind::String, 1.0, None)]).is_err());
    assert!(ok(0.5, vec![]).is_err());
    assert!(ok(0.5, vec![attr("x", AttrKind::Number, 1.0, None)]).is_err());
    assert!(ok(0.5, vec![attr("x", AttrKind::Number, 1.0, Some((5, 5)))]).is_err());
    assert!(ok(0.5, vec![attr("x", AttrKind::String, f64::NAN, None)]).is_err());
    assert!(ok(0.5, vec![attr("x", AttrKind::String, 1.0, Some((0, 1)))]).is_err());
}
