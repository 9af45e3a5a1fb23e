//! Records (src/record): the FEBRL schema end to end, the record batch
//! message, and every bad input the records issue names, each refused with
//! an error that names the field, column or row.
#![cfg(not(target_arch = "wasm32"))]

use gramlink::clock::NoClock;
use gramlink::dp::Randomness;
use gramlink::embed::BatchVectors;
use gramlink::keyed::{EmbedKey, Key};
use gramlink::party::EmbedOptions;
use gramlink::progress::NoProgress;
use gramlink::protocol::Party;
use gramlink::pseudonym::{unmap_pairs, IdPolicy};
use gramlink::record::batch::FieldData;
use gramlink::record::score::score;
use gramlink::record::{merge, session, Class, RecordBatch, RecordMatcher, RecordOwner, Schema};
use std::collections::HashSet;

fn febrl_schema() -> Schema {
    let text = std::fs::read_to_string("data/febrl/schema.toml").unwrap();
    let s: Schema = toml::from_str(&text).unwrap();
    s.validate().unwrap();
    s
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

fn truth(n: u32) -> HashSet<(String, String)> {
    gramlink::matching::truth::read_truth(&read(&format!("data/febrl/dataset{n}-truth.csv")), "truth").unwrap()
}

fn owners(schema: &Schema, n: u32, seed: u64) -> (RecordOwner, RecordOwner) {
    let a = RecordOwner::read(
        &read(&format!("data/febrl/dataset{n}-a.csv")),
        schema.clone(),
        "A",
        Randomness::seeded(seed),
    )
    .unwrap();
    let b = RecordOwner::read(
        &read(&format!("data/febrl/dataset{n}-b.csv")),
        schema.clone(),
        "B",
        Randomness::seeded(seed + 1),
    )
    .unwrap();
    (a, b)
}

/// Both owners and the matcher on one machine, under the key of 32 bytes `key`.
fn keyed_session(a: &mut RecordOwner, b: &mut RecordOwner, key: u8) -> session::RecordSession {
    session::run(a, b, Some(&Key::from_bytes([key; 32])), None, &NoClock, &mut NoProgress).unwrap()
}

#[test]
fn febrl_1_links_with_the_default_schema() {
    let schema = febrl_schema();
    let (mut a, mut b) = owners(&schema, 1, 3);
    let s = keyed_session(&mut a, &mut b, 7);
    let l = &s.linkage;
    let q = score(l, &s.matcher.a().ids, &s.matcher.b().ids, &truth(1));
    assert!(q.matches.f1 >= 0.99, "F1 {:?}", q);
    assert!(q.pairs_completeness >= 0.99, "{q:?}");
    assert!(l.reduction_ratio > 0.9, "{}", l.reduction_ratio);
    assert!(l.fit.converged && l.fit.iterations > 1);
    // each party spent exactly its budget, split over the mined spaces
    assert!((a.ledger().spent().as_f64() - 0.1).abs() < 1e-9, "{}", a.ledger().spent().as_f64());
    let spent: f64 = s.matcher.a().epsilon.iter().map(|(_, e)| e).sum();
    assert!((spent - 0.1).abs() < 1e-12);
    // the fit's weights order exact above disagree on every embedded field
    for f in &l.fit.fields {
        assert!(f.weights[0] > *f.weights.last().unwrap(), "{}: {:?}", f.name, f.weights);
    }
    // one-to-one: no record twice among the matches
    let m: Vec<_> = l.pairs.iter().filter(|p| p.class == Class::Match).collect();
    assert_eq!(m.len() as u64, l.matches);
    assert_eq!(m.iter().map(|p| p.a).collect::<HashSet<_>>().len(), m.len());
    assert_eq!(m.iter().map(|p| p.b).collect::<HashSet<_>>().len(), m.len());
}

/// Names salted by the year of birth (src/record/salt.rs) compare only
/// within a year, and FEBRL 1 still links on its other fields: the pairs
/// whose years differ (4.8 % of them) keep their address, postcode and number.
#[test]
fn febrl_1_links_with_its_names_salted_by_the_year_of_birth() {
    let mut schema = febrl_schema();
    for f in schema.fields.iter_mut().filter(|f| f.kind == "name") {
        f.salt = Some("date_of_birth".into());
    }
    schema.validate().unwrap();
    let (mut a, mut b) = owners(&schema, 1, 3);
    let s = keyed_session(&mut a, &mut b, 7);
    let q = score(&s.linkage, &s.matcher.a().ids, &s.matcher.b().ids, &truth(1));
    assert!(q.matches.f1 >= 0.99, "F1 {q:?}");
    assert!(s.linkage.fit.converged, "{:?}", s.linkage.fit);
}

#[test]
fn febrl_3_takes_many_to_one_and_finds_every_copy() {
    let schema = febrl_schema();
    let (mut a, mut b) = owners(&schema, 3, 5);
    let s = keyed_session(&mut a, &mut b, 9);
    assert_eq!(s.linkage.assignment, gramlink::record::Assignment::ManyToOne);
    let q = score(&s.linkage, &s.matcher.a().ids, &s.matcher.b().ids, &truth(3));
    assert!(q.matches.f1 >= 0.99, "{q:?}");
}

#[test]
fn record_batches_round_trip_and_refuse_damage() {
    let schema = febrl_schema();
    let (mut a, mut b) = owners(&schema, 1, 11);
    let na = a.mine(&mut NoProgress).unwrap();
    let nb = b.mine(&mut NoProgress).unwrap();
    let shared = merge(&na, &nb, &schema).unwrap();
    let key = Key::from_bytes([1; 32]);
    let o = |party| EmbedOptions { key: hash_only(&key), ids: IdPolicy::Keep, ..EmbedOptions::of(party) };
    let va = a.embed(&shared, &o(Party::A), &mut NoProgress).unwrap().batch;
    let vb = b.embed(&shared, &o(Party::B), &mut NoProgress).unwrap().batch;
    let bytes = va.write();
    let back = RecordBatch::read(&bytes).unwrap();
    assert_eq!(back, va);
    // cut anywhere: a named error, never a panic
    for cut in [0, 3, 11, 12, 40, bytes.len() / 2, bytes.len() - 1] {
        let e = RecordBatch::read(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(
                e,
                gramlink::error::ProtocolError::Truncated { .. } | gramlink::error::ProtocolError::Malformed { .. }
            ),
            "{cut}: {e}"
        );
    }
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert!(RecordBatch::read(&trailing).unwrap_err().to_string().contains("trailing"));
    // version 1 held dense vectors: named with both versions
    let mut old = bytes.clone();
    old[4] = 1;
    let e = gramlink::Error::from(RecordBatch::read(&old).unwrap_err());
    assert_eq!(e.code(), "UNSUPPORTED_VERSION");
    assert!(e.to_string().contains("version 1") && e.to_string().contains("reads version 2"), "{e}");
    // unkeyed vectors travel sparse; a damaged coordinate is named
    let FieldData::Embedded { parts, .. } = &va.fields[0].1 else { panic!("given_name is embedded") };
    let BatchVectors::Sparse(s) = &parts[0].vectors else { panic!("unkeyed vectors are sparse") };
    assert!(s.nnz() < s.len() * 40, "{} entries for {} names", s.nnz(), s.len());
    let mut damaged = va.clone();
    if let FieldData::Embedded { parts, .. } = &mut damaged.fields[0].1 {
        if let BatchVectors::Sparse(s) = &mut parts[0].vectors {
            s.cols[0] = s.dim as u32;
        }
    }
    let e = RecordMatcher::new(schema.clone(), damaged, vb.clone()).err().unwrap();
    assert!(e.to_string().contains("given_name") && e.to_string().contains("not ascending below"), "{e}");
    // the matcher refuses swapped parties and a batch of another schema
    let e = RecordMatcher::new(schema.clone(), vb.clone(), va.clone()).err().unwrap();
    assert!(e.to_string().contains("party A's"), "{e}");
    let mut other = schema.clone();
    other.epsilon = 0.2;
    let e = RecordMatcher::new(other, va.clone(), vb.clone()).err().unwrap();
    assert_eq!(e.code(), "FINGERPRINT_MISMATCH", "{e}");
    // B without its vectors of one field: named
    let mut broken = vb.clone();
    broken.fields.remove(0);
    let e = RecordMatcher::new(schema.clone(), va, broken).err().unwrap();
    assert!(e.to_string().contains("given_name"), "{e}");
}

/// A record batch carries random pseudonyms unless its owner keeps its ids;
/// the owner's map turns the matcher's pairs into those of its own ids.
#[test]
fn record_batches_carry_pseudonyms_and_the_maps_give_the_pairs_back() {
    let schema = febrl_schema();
    let (mut a, mut b) = owners(&schema, 1, 5);
    let shared = merge(&a.mine(&mut NoProgress).unwrap(), &b.mine(&mut NoProgress).unwrap(), &schema).unwrap();
    let key = Key::from_bytes([3; 32]);
    let embed = |o: &RecordOwner, party, ids| {
        o.embed(&shared, &EmbedOptions { key: hash_only(&key), ids, ..EmbedOptions::of(party) }, &mut NoProgress)
            .unwrap()
    };
    let pairs = |ea: &gramlink::pseudonym::Embedded<RecordBatch>, eb: &gramlink::pseudonym::Embedded<RecordBatch>| {
        let m = RecordMatcher::new(schema.clone(), ea.batch.clone(), eb.batch.clone()).unwrap();
        let l = m.link().unwrap();
        gramlink::record::export::pairs_csv(&schema, &l, &m.a().ids, &m.b().ids, None).unwrap()
    };
    let (ka, kb) = (embed(&a, Party::A, IdPolicy::Keep), embed(&b, Party::B, IdPolicy::Keep));
    // kept ids come shuffled too: the same ids, in another order
    assert!(ka.id_map.is_none() && sorted(&ka.batch.ids) == sorted(&a.table().ids));
    let (pa, pb) = (embed(&a, Party::A, IdPolicy::default()), embed(&b, Party::B, IdPolicy::default()));
    let (ma, mb) = (pa.id_map.as_ref().unwrap(), pb.id_map.as_ref().unwrap());
    assert!(
        pa.batch.ids.iter().all(|p| p.len() == gramlink::pseudonym::PSEUDONYM_DIGITS && !a.table().ids.contains(p)),
        "no own id is sent"
    );
    assert_eq!(sorted(&ma.pseudonyms()), sorted(&pa.batch.ids));
    // the rows are shuffled: the pairs are compared as sets of lines, by their
    // ids and class (u is fixed from random pairs of rows, so the weights move
    // a little with the rows' order)
    let own = sorted_pairs(&pairs(&ka, &kb));
    let sent = pairs(&pa, &pb);
    assert!(own.len() > 100, "{}", own.len());
    assert_ne!(sorted_pairs(&sent), own);
    let back = unmap_pairs(sent.as_bytes(), Some(ma), Some(mb)).unwrap();
    assert_eq!(sorted_pairs(&String::from_utf8(back).unwrap()), own, "mapped back: the pairs of the own ids");
    // an id column that is a field's column would send the field: refused
    let e = err(&schema_json(
        r#"{"name": "given", "kind": "name"}, {"name": "x", "kind": "suppress", "columns": ["id"]}"#,
        "",
    ));
    assert_eq!(e.code(), "ID_IS_LINKED_COLUMN", "{e}");
    let e = err(&schema_json(r#"{"name": "id", "kind": "name"}"#, ""));
    assert_eq!(e.code(), "ID_IS_LINKED_COLUMN", "{e}");
}

/// The key hashing the keyed fields, the vectors unrotated.
fn hash_only(key: &Key) -> EmbedKey {
    EmbedKey { key: Some(key.clone()), rotate: false }
}

fn sorted(ids: &[String]) -> Vec<String> {
    let mut v = ids.to_vec();
    v.sort();
    v
}

/// A pairs CSV's lines as `a_id,b_id,class`, sorted.
fn sorted_pairs(csv: &str) -> Vec<String> {
    let mut lines: Vec<String> = csv.lines().map(|l| l.splitn(4, ',').take(3).collect::<Vec<_>>().join(",")).collect();
    lines.sort();
    lines
}

fn schema_json(fields: &str, extra: &str) -> String {
    format!(r#"{{"version": 1, "id": "id", "field": [{fields}]{extra}}}"#)
}

fn err(text: &str) -> gramlink::Error {
    Schema::parse_json(text).unwrap_err()
}

#[test]
fn bad_schemas_are_named() {
    let e = err(&schema_json(r#"{"name": "a", "kind": "fuzzy"}"#, ""));
    assert!(e.to_string().contains("field \"a\"") && e.to_string().contains("unknown kind \"fuzzy\""), "{e}");
    let e = err(&schema_json(r#"{"name": "a", "kind": "name"}, {"name": "a", "kind": "date"}"#, ""));
    assert!(e.to_string().contains("two fields are named \"a\""), "{e}");
    // issue 31: one column named three times would count its evidence three times
    let e = err(&schema_json(r#"{"name": "s", "kind": "name", "columns": ["surname", "given", "surname"]}"#, ""));
    assert_eq!(e.code(), "REPEATED_COLUMN", "{e}");
    assert!(e.to_string().contains("field \"s\" names the column \"surname\" more than once"), "{e}");
    let e = err(&schema_json(
        r#"{"name": "a", "kind": "name", "epsilon": 0.08}, {"name": "b", "kind": "string", "epsilon": 0.05}"#,
        "",
    ));
    assert!(e.to_string().contains("add up to 0.13") && e.to_string().contains("epsilon = 0.1"), "{e}");
    let e = err(&schema_json(r#"{"name": "a", "kind": "name", "colour": "red"}"#, ""));
    assert!(e.to_string().contains("colour"), "{e}");
    let e = err(&schema_json(r#"{"name": "a", "kind": "keyed", "levels": [1]}"#, ""));
    assert!(e.to_string().contains("levels does not apply to a keyed field"), "{e}");
    let e = err(&schema_json(r#"{"name": "a", "kind": "name"}"#, r#", "block": [{"field": "b"}]"#));
    assert!(e.to_string().contains("block rule on \"b\""), "{e}");
    let conj =
        |block: &str| err(&schema_json(r#"{"name": "a", "kind": "name"}, {"name": "d", "kind": "date"}"#, block));
    let e = conj(r#", "block": [{"field": "a", "and": [{"field": "a", "ed": 0}]}]"#);
    assert!(e.to_string().contains("names field \"a\" twice"), "{e}");
    let e = conj(r#", "block": [{"field": "d", "ed": 1}]"#);
    assert!(e.to_string().contains("block rule on \"d\": a date field blocks by equality"), "{e}");
    let e = conj(r#", "block": [{"field": "d", "and": [{"field": "zz"}]}]"#);
    assert!(e.to_string().contains("block rule on \"zz\", which is not a field"), "{e}");
    let e = conj(r#", "block": [{"field": "d", "and": [{"field": "a", "within": 1}]}]"#);
    assert!(e.to_string().contains("within"), "{e}");
    let e = err(r#"{"version": 2, "field": [{"name": "a", "kind": "name"}]}"#);
    assert_eq!(e.code(), "UNSUPPORTED_VERSION");
    assert!(e.to_string().contains("version 2") && e.to_string().contains("reads version 1"), "{e}");
    let e = err(&schema_json(r#"{"name": "d", "kind": "date", "format": "DD.MM.YY"}"#, ""));
    assert!(e.to_string().contains("field \"d\"") && e.to_string().contains("DD.MM.YY"), "{e}");
}

#[test]
fn bad_files_are_named_and_nothing_is_made() {
    let schema =
        Schema::parse_json(&schema_json(r#"{"name": "given", "kind": "name"}, {"name": "dob", "kind": "date"}"#, ""))
            .unwrap();
    let owner = |csv: &str| RecordOwner::read(csv.as_bytes(), schema.clone(), "a.csv", Randomness::seeded(1));
    // a column the schema names is missing: the field and the columns found
    let e = owner("id,given\n1,MARY\n").err().unwrap();
    assert_eq!(e.code(), "MISSING_COLUMN");
    assert!(
        e.to_string().contains("\"dob\"")
            && e.to_string().contains("field \"dob\"")
            && e.to_string().contains("\"given\""),
        "{e}"
    );
    // a date that does not parse: row and id named
    let e = owner("id,given,dob\n1,MARY,19990230\n2,ANN,1999-13-03\n").err().unwrap();
    assert!(
        e.to_string().contains("row 2") && e.to_string().contains("\"2\"") && e.to_string().contains("field \"dob\""),
        "{e}"
    );
    // ... unless the schema declares such dates missing
    let lenient = Schema::parse_json(&schema_json(
        r#"{"name": "given", "kind": "name"}, {"name": "dob", "kind": "date", "invalid": "missing"}"#,
        "",
    ))
    .unwrap();
    let o = RecordOwner::read(
        b"id,given,dob\n1,MARY,19990230\n2,ANN,1999-13-03\n",
        lenient,
        "a.csv",
        Randomness::seeded(1),
    )
    .unwrap();
    assert_eq!(o.table().fields[1].values, vec![Some("19990230".to_string()), None]);
    // a field missing in every record
    let e = owner("id,given,dob\n1,MARY,\n2,ANN, \n").err().unwrap();
    assert!(e.to_string().contains("field \"dob\" is missing in every record"), "{e}");
    assert_eq!(e.code(), "EMPTY_COLUMN");
    // duplicate ids, an empty file
    assert_eq!(owner("id,given,dob\n1,MARY,19990101\n1,ANN,19990101\n").err().unwrap().code(), "DUPLICATE_ID");
    assert_eq!(owner("").err().unwrap().code(), "EMPTY_INPUT");
}

#[test]
fn a_keyed_field_needs_the_key_and_parties_must_share_the_schema() {
    let schema =
        Schema::parse_json(&schema_json(r#"{"name": "given", "kind": "name"}, {"name": "sex", "kind": "keyed"}"#, ""))
            .unwrap();
    let csv = b"id,given,sex\n1,MARY,F\n2,JOHN,M\n3,ANN,F\n";
    let mut a = RecordOwner::read(csv, schema.clone(), "a", Randomness::seeded(1)).unwrap();
    let mut b = RecordOwner::read(csv, schema.clone(), "b", Randomness::seeded(2)).unwrap();
    let (na, nb) = (a.mine(&mut NoProgress).unwrap(), b.mine(&mut NoProgress).unwrap());
    let shared = merge(&na, &nb, &schema).unwrap();
    let e = a.embed(&shared, &EmbedOptions::of(Party::A), &mut NoProgress).unwrap_err();
    assert_eq!(e.code(), "INVALID_KEY");
    assert!(e.to_string().contains("field \"sex\" is keyed"), "{e}");
    // B under another schema: its bases are refused at the merge
    let other =
        Schema::parse_json(&schema_json(r#"{"name": "given", "kind": "name"}, {"name": "sex", "kind": "clear"}"#, ""))
            .unwrap();
    let mut c = RecordOwner::read(csv, other, "c", Randomness::seeded(3)).unwrap();
    let nc = c.mine(&mut NoProgress).unwrap();
    let e = merge(&na, &nc, &schema).unwrap_err();
    assert_eq!(e.code(), "FINGERPRINT_MISMATCH");
    assert!(e.to_string().contains("party B's noisy bases"), "{e}");
    // the keyed hashes: equal values equal, another key different
    let k1 = Key::from_bytes([1; 32]);
    let fp = schema.fingerprint();
    let h = |k: &Key, v: &str| gramlink::record::keyed_hash(k, &fp, "sex", v);
    assert_eq!(h(&k1, "F"), h(&k1, "F"));
    assert_ne!(h(&k1, "F"), h(&k1, "M"));
    assert_ne!(h(&k1, "F"), h(&Key::from_bytes([2; 32]), "F"));
}

/// scripts/febrl-split.sh's files: every row of each data set in exactly one
/// party, and the truth is every (original, duplicate) pair.
#[test]
fn febrl_split_files_match_the_data_sets() {
    for n in 1..=3 {
        let all = std::fs::read_to_string(format!("data/febrl/dataset{n}.csv")).unwrap();
        let a = std::fs::read_to_string(format!("data/febrl/dataset{n}-a.csv")).unwrap();
        let b = std::fs::read_to_string(format!("data/febrl/dataset{n}-b.csv")).unwrap();
        let mut rows: Vec<&str> = a.lines().skip(1).chain(b.lines().skip(1)).collect();
        let mut want: Vec<&str> = all.lines().skip(1).collect();
        rows.sort_unstable();
        want.sort_unstable();
        assert_eq!(rows, want, "data set {n}");
        let t = truth(n);
        let dups = b.lines().skip(1).count();
        assert_eq!(t.len(), dups);
        assert!(t.iter().all(|(x, y)| y.starts_with(&x[..x.len() - 3])));
    }
}

#[test]
fn an_ed_0_block_joins_equal_values_also_across_name_fields() {
    let mut schema = febrl_schema();
    schema.blocks = vec![gramlink::record::schema::BlockRule::on("surname", Some(0))];
    schema.validate().unwrap();
    let (mut a, mut b) = owners(&schema, 1, 3);
    let values = |o: &RecordOwner, name: &str| o.table().fields.iter().find(|f| f.name == name).unwrap().values.clone();
    let (sa, sb, gb) = (values(&a, "surname"), values(&b, "surname"), values(&b, "given_name"));
    let s = keyed_session(&mut a, &mut b, 2);
    let l = &s.linkage;
    assert_eq!(l.rules[0].rule, "surname equal");
    let got: HashSet<(u32, u32)> = l.candidate_pairs.iter().copied().collect();
    let mut want = 0;
    for (i, x) in sa.iter().enumerate() {
        for (j, (y, g)) in sb.iter().zip(&gb).enumerate() {
            if x.is_some() && (x == y || x == g) {
                want += 1;
                assert!(got.contains(&(i as u32, j as u32)), "{x:?} / {y:?}, {g:?} is not a candidate");
            }
        }
    }
    assert!(want > 300, "{want} pairs with an equal surname");
}

#[test]
#[cfg(feature = "eval")] // the scenario's edit distance
fn a_conjunctive_block_checks_its_edit_term_within_the_equal_groups() {
    let mut schema = febrl_schema();
    schema.blocks = vec![serde_json::from_str(r#"{"field": "date_of_birth", "and": [{"field": "surname"}]}"#).unwrap()];
    schema.validate().unwrap();
    let (mut a, mut b) = owners(&schema, 1, 5);
    let values = |o: &RecordOwner, name: &str| o.table().fields.iter().find(|f| f.name == name).unwrap().values.clone();
    let (da, db) = (values(&a, "date_of_birth"), values(&b, "date_of_birth"));
    let (sa, sb, gb) = (values(&a, "surname"), values(&b, "surname"), values(&b, "given_name"));
    let s = keyed_session(&mut a, &mut b, 2);
    let l = &s.linkage;
    // a whole date's equality takes its day and month swapped too (swap, the default)
    assert_eq!(l.rules[0].rule, "date_of_birth equal or swapped and surname within 1 edits");
    let got: HashSet<(u32, u32)> = l.candidate_pairs.iter().copied().collect();
    let near = |x: &Option<String>, y: &Option<String>| match (x, y) {
        (Some(x), Some(y)) => gramlink::eval::corrupt::edit_distance(x, y) <= 1,
        _ => false,
    };
    // sound: every pair with an equal date and a surname within one edit
    // (or B's given name, swapped) is a candidate
    let mut want = 0;
    for i in 0..da.len() {
        for j in 0..db.len() {
            if da[i].is_some() && da[i] == db[j] && (near(&sa[i], &sb[j]) || near(&sa[i], &gb[j])) {
                want += 1;
                assert!(
                    got.contains(&(i as u32, j as u32)),
                    "{:?} {:?} / {:?} is not a candidate",
                    da[i],
                    sa[i],
                    sb[j]
                );
            }
        }
    }
    assert!(want > 200, "{want} pairs");
    // selective: every candidate has equal dates, or one is the other with day and
    // month swapped; the surname term alone finds many more
    let swapped =
        |x: &str, y: &str| x.len() == 8 && y.len() == 8 && x[..4] == y[..4] && x[4..6] == y[6..] && x[6..] == y[4..6];
    let mut crossed = 0;
    for &(i, j) in &got {
        let (x, y) = (da[i as usize].as_deref().unwrap_or(""), db[j as usize].as_deref().unwrap_or("-"));
        assert!(x == y || swapped(x, y), "pair {i}, {j}: {x} and {y}");
        crossed += usize::from(x != y);
    }
    assert!(crossed < got.len() / 10, "{crossed} swapped of {}", got.len());
    schema.blocks = vec![gramlink::record::schema::BlockRule::on("surname", None)];
    let (mut a, mut b) = owners(&schema, 1, 5);
    let s = keyed_session(&mut a, &mut b, 2);
    assert!(s.linkage.candidates > 2 * got.len() as u64, "{} and {}", s.linkage.candidates, got.len());
}

/// A record batch made from a sorted file does not keep its order (kept ids:
/// a uniform permutation of 20 rows keeps it with probability 1/20! < 5e-19),
/// and every field's data moves with its row: the clear copy of the name, and
/// the embedded name's rows.
#[test]
fn a_record_batch_from_a_sorted_file_is_shuffled_row_by_row() {
    let schema =
        Schema::parse_json(&schema_json(r#"{"name": "given", "kind": "name"}, {"name": "copy", "kind": "clear"}"#, ""))
            .unwrap();
    let names = ["ADA", "ALAN", "ANN", "BEN", "CARL", "DORA", "EMMA", "FRED", "GRACE", "HUGO"];
    let value = |i: usize| if i % 5 == 3 { String::new() } else { format!("{} {}", names[i % 10], names[i / 2]) };
    let mut csv = String::from("id,given,copy\n");
    for i in 0..20 {
        csv.push_str(&format!("{i:02},{},{}\n", value(i), value(i)));
    }
    let (mut a, mut b) = (
        RecordOwner::read(csv.as_bytes(), schema.clone(), "a", Randomness::seeded(1)).unwrap(),
        RecordOwner::read(csv.as_bytes(), schema.clone(), "b", Randomness::seeded(2)).unwrap(),
    );
    let shared = merge(&a.mine(&mut NoProgress).unwrap(), &b.mine(&mut NoProgress).unwrap(), &schema).unwrap();
    let options = EmbedOptions { ids: IdPolicy::Keep, ..EmbedOptions::of(Party::A) };
    let batch = a.embed(&shared, &options, &mut NoProgress).unwrap().batch;
    let in_file_order: Vec<String> = (0..20).map(|i| format!("{i:02}")).collect();
    assert_eq!(sorted(&batch.ids), in_file_order);
    assert_ne!(batch.ids, in_file_order, "the rows are shuffled");
    let own = |r: usize| value(batch.ids[r].parse().unwrap());
    let field = |name: &str| &batch.fields.iter().find(|(n, _)| n == name).unwrap().1;
    let FieldData::Clear(copy) = field("copy") else { panic!("copy is clear") };
    for (r, v) in copy.iter().enumerate() {
        assert_eq!(v.clone().unwrap_or_default(), own(r), "row {r}");
    }
    let FieldData::Embedded { parts, .. } = field("given") else { panic!("given is embedded") };
    let present: Vec<u32> = (0..20).filter(|&r| !own(r as usize).is_empty()).collect();
    assert_eq!(parts[0].rows, present);
}
