use super::*;
use crate::dp::Randomness;
use crate::party::EmbedOptions;
use crate::progress::NoProgress;
use crate::protocol::Party;
use crate::record::{merge, RecordOwner};

const CSV: &str = "id,given,surname,city,dob\n\
    1,MARY ANN,SMITH,BOSTON,19800102\n2,JOHN,DOE,SALEM,19751231\n3,ANA,LOPEZ,LYNN,20010704\n\
    4,PETER,KING,BOSTON,19690311\n5,SUE,WONG,NEWTON,19900909\n";

fn schema() -> Schema {
    Schema::parse_json(
        r#"{"version": 1, "id": "id", "epsilon": 0.4, "field": [
            {"name": "given", "kind": "name"}, {"name": "surname", "kind": "name"},
            {"name": "city", "kind": "string"}, {"name": "dob", "kind": "date"}]}"#,
    )
    .unwrap()
}

fn owner(seed: Option<u64>) -> RecordOwner {
    let rng = match seed {
        Some(s) => Randomness::seeded(s),
        None => Randomness::secure().unwrap(),
    };
    RecordOwner::read(CSV.as_bytes(), schema(), "test", rng).unwrap()
}

fn noisy(seed: Option<u64>) -> NoisyBases {
    owner(seed).mine(&mut NoProgress).unwrap()
}

#[test]
fn noisy_and_shared_bases_round_trip() {
    let s = schema();
    let (a, b) = (noisy(Some(1)), noisy(Some(2)));
    assert_eq!(a.bases.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["names", "city"]);
    let text = write_noisy_bases(&a);
    assert_eq!(read_noisy_bases(&text, &s).unwrap(), a);
    let shared = merge(&a, &b, &s).unwrap();
    // dates are public digit grams: a shared base, no noisy one
    assert_eq!(shared.bases.len(), 3);
    assert!(!shared.private, "seeded noise is not private");
    assert_eq!(read_shared_bases(&write_shared_bases(&shared), &s).unwrap(), shared);
}

#[test]
fn secure_noise_keeps_the_private_mark_and_seeded_noise_drops_it() {
    let s = schema();
    let shared = merge(&noisy(None), &noisy(None), &s).unwrap();
    assert!(shared.private);
    let batch = owner(None).embed(&shared, &EmbedOptions::of(Party::B), &mut NoProgress).unwrap().batch;
    assert!(batch.private);
    let seeded = merge(&noisy(None), &noisy(Some(3)), &s).unwrap();
    let batch = owner(None).embed(&seeded, &EmbedOptions::of(Party::B).local(), &mut NoProgress).unwrap().batch;
    assert!(!batch.private, "a batch over a seeded base must say it is not private");
}

fn damaged(text: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut v: Value = serde_json::from_str(text).unwrap();
    edit(&mut v);
    v.to_string()
}

#[test]
fn damaged_messages_are_refused_by_name() {
    let s = schema();
    let a = noisy(Some(1));
    let text = write_noisy_bases(&a);
    let msg = |t: &str| read_noisy_bases(t, &s).unwrap_err().to_string();

    let other = Schema::parse_json(&write_schema_with_epsilon(0.5)).unwrap();
    assert!(read_noisy_bases(&text, &other).unwrap_err().to_string().contains("schema fingerprint"));
    let e = msg(&damaged(&text, |v| v["bases"].as_array_mut().unwrap().pop().map(|_| ()).unwrap()));
    assert!(e.contains("no base for space \"city\""), "{e}");
    let e = msg(&damaged(&text, |v| {
        let first = v["bases"][0].clone();
        v["bases"].as_array_mut().unwrap().push(first)
    }));
    assert!(e.contains("\"names\" appears twice"), "{e}");
    let e = msg(&damaged(&text, |v| v["bases"][1]["space"] = "street".into()));
    assert!(e.contains("space \"street\" is not one of the schema's"), "{e}");
    let e = msg(&damaged(&text, |v| v["bases"][0]["base"]["params"]["epsilon"] = 0.3.into()));
    assert!(e.contains("was mined with ε 0.3"), "{e}");
    let e = msg(&damaged(&text, |v| v["bases"][0]["base"]["grams"] = "x".into()));
    assert!(e.contains("space \"names\""), "{e}");
    let e = msg(&damaged(&text, |v| v["extra"] = 1.into()));
    assert!(e.contains("extra"), "{e}");
    // a noisy-bases message is not a shared-bases one, and the reverse
    let e = read_shared_bases(&text, &s).unwrap_err().to_string();
    assert!(e.contains(SHARED_BASES), "{e}");

    let shared = merge(&a, &noisy(Some(2)), &s).unwrap();
    let text = write_shared_bases(&shared);
    let e = read_shared_bases(&damaged(&text, |v| v["bases"][2]["base"]["fingerprint"] = "00".into()), &s)
        .unwrap_err()
        .to_string();
    assert!(e.contains("space \"dob\"") && e.contains("fingerprint"), "{e}");
    assert!(read_noisy_bases(&text, &s).unwrap_err().to_string().contains(NOISY_BASES));
    assert!(read_shared_bases(&text[..text.len() / 2], &s).is_err());
}

fn write_schema_with_epsilon(eps: f64) -> String {
    let mut v: Value = serde_json::to_value(schema()).unwrap();
    v["epsilon"] = eps.into();
    v.to_string()
}
