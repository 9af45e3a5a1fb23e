//! The roles' steps as the core offers them (src/party/, src/matcher.rs,
//! src/session.rs): each checks what it is given and refuses, with a stable
//! code, what the next step could not use.
#![cfg(not(target_arch = "wasm32"))]

use gramlink::alphabet::Alphabet;
use gramlink::base::SharedBase;
use gramlink::clock::NoClock;
use gramlink::config::{Config, Preset};
use gramlink::dataset::{InputFormat, RawRecord};
use gramlink::dp::{Epsilon, Randomness};
use gramlink::keyed::{EmbedKey, Key};
use gramlink::matcher::Matcher;
use gramlink::matching::Rule;
use gramlink::party::{merge_bases, DataOwner, EmbedOptions};
use gramlink::progress::NoProgress;
use gramlink::protocol::{Party, VectorBatch};
use gramlink::pseudonym::{unmap_pairs, IdPolicy, RowOrder};

const NAMES: &str =
    "SMITH\nJOHNSON\nWILLIAMS\nBROWN\nJONES\nGARCIA\nMILLER\nDAVIS\nRODRIGUEZ\nMARTINEZ\nHERNANDEZ\nLOPEZ\n";
const NAMES_B: &str =
    "SMYTH\nJOHNSON\nWILIAMS\nBROWNE\nJONES\nGARCIA\nMILLER\nDAVIES\nRODRIGUES\nMARTINEZ\nHERNANDES\nLOPES\n";

fn owner(text: &str, seed: u64) -> DataOwner {
    DataOwner::read(
        text.as_bytes(),
        &InputFormat::Text,
        "names",
        &Alphabet::default(),
        Epsilon::new(1.0).unwrap(),
        Randomness::seeded(seed),
    )
    .unwrap()
}

/// Both parties' batches under `config` (each mining with ε 1.0 of its budget).
fn batches(config: &Config, key: Option<Key>) -> (VectorBatch, VectorBatch) {
    let (mut a, mut b) = (owner(NAMES, 1), owner(NAMES_B, 2));
    let mine = gramlink::mine::MineOptions { epsilon: 1.0, ..config.mine.clone() };
    let shared =
        merge_bases(&a.mine(&mine, &mut NoProgress).unwrap(), &b.mine(&mine, &mut NoProgress).unwrap(), &mine).unwrap();
    // own ids: compared with the session's batches (one machine keeps them)
    let key = key.map_or_else(EmbedKey::default, EmbedKey::rotated);
    let opts = |party| EmbedOptions { key: key.clone(), ..EmbedOptions::new(party, config).local() };
    (
        a.embed(&shared, &opts(Party::A), &mut NoProgress).unwrap().batch,
        b.embed(&shared, &opts(Party::B), &mut NoProgress).unwrap().batch,
    )
}

#[test]
fn a_data_owner_refuses_what_it_cannot_use() {
    let budget = Epsilon::new(0.1).unwrap();
    let empty = DataOwner::read(
        b"123\n!!\n",
        &InputFormat::Text,
        "digits",
        &Alphabet::default(),
        budget,
        Randomness::seeded(1),
    );
    assert_eq!(empty.err().unwrap().code(), "EMPTY_INPUT");
    let long = vec![RawRecord { id: "1".into(), text: "A".repeat(5000) }];
    assert_eq!(
        DataOwner::from_raw(long, &Alphabet::default(), budget, Randomness::seeded(1)).err().unwrap().code(),
        "RECORD_TOO_LONG"
    );
    let csv = DataOwner::read(
        b"id,name\n1,SMITH\n",
        &InputFormat::Csv { column: "surname".into(), id_column: None },
        "a.csv",
        &Alphabet::default(),
        budget,
        Randomness::seeded(1),
    );
    let e = csv.err().unwrap();
    assert_eq!(e.code(), "MISSING_COLUMN");
    assert!(e.to_string().contains("name"), "{e}");
}

#[test]
fn mining_charges_the_owners_one_ledger() {
    let mut a = DataOwner::read(
        NAMES.as_bytes(),
        &InputFormat::Text,
        "names",
        &Alphabet::default(),
        Epsilon::new(0.1).unwrap(),
        Randomness::seeded(3),
    )
    .unwrap();
    assert!(!a.is_private(), "a seeded owner is not private");
    let o = Config::default().mine;
    let base = a.mine(&o, &mut NoProgress).unwrap();
    assert_eq!(base.padding.is_some(), o.padding);
    assert!(a.ledger().spent().as_f64() > 0.09);
    let e = a.mine(&o, &mut NoProgress).unwrap_err();
    assert_eq!(e.code(), "BUDGET_EXCEEDED", "{e}");
}

#[test]
fn embed_makes_a_checked_batch_for_each_party() {
    for preset in Preset::ALL {
        let config = preset.config();
        let (a, b) = batches(&config, None);
        let t = a.thresholds.as_ref().expect("party A sends thresholds");
        assert_eq!(
            (t.ed, t.auto, &t.mode),
            (config.thresholds.ed.bound(), config.thresholds.ed.is_auto(), &config.thresholds.mode)
        );
        assert!(b.thresholds.is_none(), "party B sends none");
        assert!(a.shape.is_some() && a.transform.is_none());
        assert_eq!(a.fingerprint, b.fingerprint);
        // the default encoding (the sketch): sparse, with the sketch's own shape
        let (ka, kb) = batches(&config, Some(Key::from_bytes([7; 32])));
        assert!(ka.transform.as_deref().is_some_and(|t| t.starts_with("sketch-v2:4:")));
        assert!(ka.shape.is_some() && ka.shape != a.shape, "a sketched batch carries its buckets' shape");
        assert!(matches!(ka.vectors, gramlink::embed::BatchVectors::Sparse(_)));
        assert_eq!((&ka.transform, &ka.shape), (&kb.transform, &kb.shape));
        // the rotation: its label, no shape
        let rotation = Config { encoding: gramlink::keyed::Encoding::Rotation, ..config.clone() };
        let (ka, kb) = batches(&rotation, Some(Key::from_bytes([7; 32])));
        assert!(ka.shape.is_none() && ka.transform.is_some(), "a rotated batch carries its label, not the shape");
        assert_eq!(ka.transform, kb.transform);
    }
}

#[test]
fn embed_sends_pseudonyms_unless_the_owner_keeps_its_ids() {
    let config = Config::default();
    let (a, b) = (owner(NAMES, 1), owner(NAMES_B, 2));
    let shared = SharedBase::new(Alphabet::default(), 1, 2, vec!["A".into(), "SM".into(), "TH".into()]).unwrap();
    let embed = |o: &DataOwner, options: EmbedOptions| o.embed(&shared, &options, &mut NoProgress).unwrap();
    let with = |party, ids| EmbedOptions { ids, ..EmbedOptions::new(party, &config) };
    let kept = embed(&a, with(Party::A, IdPolicy::Keep));
    assert_eq!((sorted(&kept.batch.ids), kept.id_map), (sorted(a.dataset().ids()), None));
    let (ea, eb) = (embed(&a, with(Party::A, IdPolicy::default())), embed(&b, with(Party::B, IdPolicy::default())));
    let (ma, mb) = (ea.id_map.unwrap(), eb.id_map.unwrap());
    assert!(ea
        .batch
        .ids
        .iter()
        .all(|p| p.len() == gramlink::pseudonym::PSEUDONYM_DIGITS && !a.dataset().ids().contains(p)));
    // one row for each distinct vector: the map lists its pseudonym for each record
    let mut distinct = sorted(&ma.pseudonyms());
    distinct.dedup();
    assert_eq!(distinct, sorted(&ea.batch.ids));
    let again = embed(&a, with(Party::A, IdPolicy::default())).batch.ids;
    assert_ne!(sorted(&ea.batch.ids), sorted(&again), "fresh pseudonyms each time");
    // in record order: each record's vector is its pseudonym's row; no two rows
    // are identical, though this three-gram base gives several records one vector
    let in_order = |ids| EmbedOptions { rows: RowOrder::Kept, ..with(Party::A, ids) };
    let (kept, sent) = (embed(&a, in_order(IdPolicy::Keep)), embed(&a, in_order(IdPolicy::default())));
    let map = sent.id_map.unwrap();
    let row_of: std::collections::HashMap<&String, usize> =
        sent.batch.ids.iter().enumerate().map(|(i, p)| (p, i)).collect();
    let (kv, sv) = (kept.batch.vectors.to_dense(), sent.batch.vectors.to_dense());
    for (r, p) in map.pseudonyms().iter().enumerate() {
        assert_eq!(kv.row(r), sv.row(row_of[p]));
    }
    let rows: std::collections::HashSet<Vec<u32>> =
        (0..sv.len()).map(|i| sv.row(i).iter().map(|x| x.to_bits()).collect()).collect();
    assert_eq!(rows.len(), sv.len());
    assert!(sv.len() < kv.len(), "some records share a vector over this base");
    // the map lists the owner's records in its own order: a pair of rows maps
    // back to every pair of their records
    let own = |m: &gramlink::pseudonym::IdMap, owner: &DataOwner, p: &str| -> Vec<String> {
        let ps = m.pseudonyms();
        (0..ps.len()).filter(|&i| ps[i] == p).map(|i| owner.dataset().ids()[i].clone()).collect()
    };
    let (pa, pb) = (&ea.batch.ids[1], &eb.batch.ids[0]);
    let pairs = format!("a_id,b_id,distance\n{pa},{pb},0.5\n");
    let back = String::from_utf8(unmap_pairs(pairs.as_bytes(), Some(&ma), Some(&mb)).unwrap()).unwrap();
    let mut want = String::from("a_id,b_id,distance\n");
    for x in own(&ma, &a, pa) {
        for y in own(&mb, &b, pb) {
            want.push_str(&format!("{x},{y},0.5\n"));
        }
    }
    assert_eq!(back, want);
}

fn sorted(ids: &[String]) -> Vec<String> {
    let mut v = ids.to_vec();
    v.sort();
    v
}

/// A batch made from a sorted file does not keep its order, with kept ids as
/// with pseudonyms, and the id maps give the matcher's pairs back. The rows
/// are a uniform permutation of 20 records: each order check fails falsely
/// with probability 1/20! < 5e-19, the three together below 2e-18.
#[test]
fn a_batch_from_a_sorted_file_is_shuffled_and_unmap_restores_the_pairs() {
    let mut names: Vec<&str> = NAMES.lines().chain(NAMES_B.lines()).chain(["ZIMMERMAN"]).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 20);
    let text = names.join("\n");
    let (a, b) = (owner(&text, 1), owner(&text, 2));
    let config = Config::default().with_ed(1);
    let shared = merge_bases(
        &owner(&text, 3).mine(&config.mine, &mut NoProgress).unwrap(),
        &owner(&text, 4).mine(&config.mine, &mut NoProgress).unwrap(),
        &config.mine,
    )
    .unwrap();
    let embed = |o: &DataOwner, options| o.embed(&shared, &options, &mut NoProgress).unwrap();
    let in_file_order: Vec<String> = (1..=20).map(|i| i.to_string()).collect();
    assert_eq!(a.dataset().ids(), &in_file_order[..]);
    let kept = embed(&a, EmbedOptions { ids: IdPolicy::Keep, ..EmbedOptions::new(Party::A, &config) });
    assert_ne!(kept.batch.ids, in_file_order, "kept ids are shuffled too");
    let (ea, eb) = (embed(&a, EmbedOptions::new(Party::A, &config)), embed(&b, EmbedOptions::new(Party::B, &config)));
    let (ma, mb) = (ea.id_map.unwrap(), eb.id_map.unwrap());
    // the batch's rows as the owner's records: not the file's order
    let rows: Vec<usize> = ea.batch.ids.iter().map(|p| ma.pseudonyms().iter().position(|q| q == p).unwrap()).collect();
    assert_ne!(rows, (0..20).collect::<Vec<_>>(), "{rows:?}");
    assert_ne!(ea.batch.ids, ma.pseudonyms(), "the map's order is the file's, the batch's is not");
    // every name is in both files once: the matcher pairs each with itself,
    // and the maps give the pairs back as the files' ids
    let m = Matcher::new(ea.batch, eb.batch).unwrap();
    let result = m.result(&m.link(Rule::Ranked).unwrap());
    let mut csv = String::from("a_id,b_id\n");
    for p in &result.pairs {
        csv.push_str(&format!("{},{}\n", p.a, p.b));
    }
    let back = String::from_utf8(unmap_pairs(csv.as_bytes(), Some(&ma), Some(&mb)).unwrap()).unwrap();
    let mut pairs: Vec<(usize, usize)> = back
        .lines()
        .skip(1)
        .map(|l| {
            let (x, y) = l.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect();
    pairs.sort();
    assert_eq!(pairs, (1..=20).map(|i| (i, i)).collect::<Vec<_>>());
}

#[test]
fn the_matcher_checks_both_batches_against_each_other() {
    let config = Config::default();
    let (a, b) = batches(&config, None);
    assert_eq!(
        Matcher::new(b.clone(), a.clone()).err().unwrap().code(),
        "INVALID_PARAMETER",
        "B's batch has no thresholds"
    );
    let mut other = b.clone();
    other.fingerprint = "ab".repeat(32);
    assert_eq!(Matcher::new(a.clone(), other).err().unwrap().code(), "FINGERPRINT_MISMATCH");
    let (ka, _) = batches(&config, Some(Key::from_bytes([7; 32])));
    assert_eq!(Matcher::new(ka, b.clone()).err().unwrap().code(), "TRANSFORM_MISMATCH");
    let mut cut = a.to_binary();
    cut.truncate(cut.len() - 3);
    let e = Matcher::read(&cut, &b.to_binary()).err().unwrap();
    assert_eq!(e.code(), "TRUNCATED_MESSAGE");
    assert!(e.to_string().contains("party A"), "{e}");
    // read from bytes or built from batches: the same linkage
    let m = Matcher::read(&a.to_binary(), &b.to_json().into_bytes()).unwrap();
    let direct = Matcher::new(a, b).unwrap();
    for rule in Rule::ALL {
        assert_eq!(m.link(rule).unwrap(), direct.link(rule).unwrap(), "{rule:?}");
    }
    let result = m.result(&m.link(Rule::Ranked).unwrap());
    assert_eq!(result.rule, Rule::Ranked);
    assert!(result.pairs.iter().any(|p| p.a == "2" && p.b == "2"), "JOHNSON links to JOHNSON");
}

#[test]
fn a_session_is_the_roles_steps_in_order() {
    let config = Config::default();
    let (mut a, mut b) = (owner(NAMES, 1), owner(NAMES_B, 2));
    let mine = gramlink::mine::MineOptions { epsilon: 1.0, ..config.mine.clone() };
    let config = Config { mine, ..config };
    let s = gramlink::session::run(&mut a, &mut b, &config, None, &NoClock, &mut NoProgress).unwrap();
    let (ba, bb) = batches(&config, None);
    assert_eq!(s.matcher.a(), &ba, "the session's party A made what its own steps make");
    assert_eq!(s.matcher.b(), &bb);
    assert_eq!(s.pairs, Matcher::new(ba, bb).unwrap().link(config.rule).unwrap().pairs);
    assert!(s.pairs.len() >= 8, "{} pairs", s.pairs.len());
    let keys: Vec<&str> = s.timings_ms.keys().map(String::as_str).collect();
    assert_eq!(keys, ["embed A", "embed B", "match", "merge", "mine A", "mine B", "one-to-one"]);
}

/// Unkeyed batches are sparse and travel as gram ids and counts (message
/// version 2); keyed ones are dense. The matcher gives the same pairs, in the
/// same order, for every rule, whichever form it is handed.
#[test]
fn sparse_batches_travel_small_and_link_as_their_dense_form() {
    use gramlink::embed::BatchVectors;
    for preset in [Preset::Recommended, Preset::Paper] {
        let config = preset.config();
        let (a, b) = batches(&config, None);
        assert!(matches!(a.vectors, BatchVectors::Sparse(_)), "{preset:?}: unkeyed A is sparse");
        assert!(matches!(b.vectors, BatchVectors::Sparse(_)), "{preset:?}: unkeyed B is sparse");
        for batch in [&a, &b] {
            assert_eq!(&VectorBatch::read(&batch.to_binary()).unwrap(), batch);
            assert_eq!(&VectorBatch::read(batch.to_json().as_bytes()).unwrap(), batch);
        }
        let dense = |v: &VectorBatch| VectorBatch {
            vectors: BatchVectors::Dense(v.vectors.to_dense().into_owned()),
            ..v.clone()
        };
        let (da, db) = (dense(&a), dense(&b));
        // the recommended base is wide (858 grams); the paper's 12-record base narrow
        let factor = if preset == Preset::Recommended { 4 } else { 1 };
        assert!(
            a.to_binary().len() * factor < da.to_binary().len(),
            "{preset:?}: sparse {} B, dense {} B",
            a.to_binary().len(),
            da.to_binary().len()
        );
        let sparse_m = Matcher::new(a.clone(), b.clone()).unwrap();
        let dense_m = Matcher::new(da, db).unwrap();
        for rule in Rule::ALL {
            let (s, d) = (sparse_m.link(rule).unwrap(), dense_m.link(rule).unwrap());
            assert_eq!(s.pairs, d.pairs, "{preset:?} {rule:?}");
            assert_eq!(s.stats, d.stats, "{preset:?} {rule:?}");
            assert!(!s.pairs.is_empty(), "{preset:?} {rule:?}");
        }
    }
    let key = Key::from_bytes([7; 32]);
    let rotation = Config { encoding: gramlink::keyed::Encoding::Rotation, ..Config::default() };
    let (ka, kb) = batches(&rotation, Some(key.clone()));
    assert!(matches!(ka.vectors, BatchVectors::Dense(_)) && matches!(kb.vectors, BatchVectors::Dense(_)));
    assert_eq!(VectorBatch::read(&ka.to_binary()).unwrap(), ka);
    // the sketch travels sparse, and reads back equal
    let (ka, kb) = batches(&Config::default(), Some(key));
    assert!(matches!(ka.vectors, BatchVectors::Sparse(_)) && matches!(kb.vectors, BatchVectors::Sparse(_)));
    assert_eq!(VectorBatch::read(&ka.to_binary()).unwrap(), ka);
}
