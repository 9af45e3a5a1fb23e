use super::*;

fn model() -> BlockModel {
    let list = "SMITH\nsmyth\nJOHNSON\nJONSON\nWILLIAMS\nWILLIAMSON\nBROWN\nBRAUN\nSMITH\n";
    let values = public_values(list, 100);
    assert_eq!(values.len(), 8, "normalized and de-duplicated");
    let source = PublicSource { name: "test".into(), sha256: hex::encode(Sha256::digest(list)), used: values.len() };
    BlockModel::build("surname", source, &values, 4).unwrap()
}

#[test]
fn records_go_to_the_block_of_the_nearest_public_value() {
    let m = model();
    assert_eq!(m.n_blocks(), 5);
    let a = m.assigner();
    assert_eq!(a.block_of("Smith"), a.block_of("smithe"));
    assert_eq!(a.block_of("JOHNSTON"), a.block_of("jonson"));
    assert_ne!(a.block_of("smith"), a.block_of("johnson"));
    assert_eq!(a.block_of(""), m.empty_block());
    assert_eq!(a.block_of(" - "), m.empty_block());
}

#[test]
fn the_model_round_trips_and_its_fingerprint_is_checked() {
    let m = model();
    let text = m.to_json();
    assert_eq!(BlockModel::from_json(&text).unwrap(), m);
    let tampered = text.replacen("BROWN", "BROWNE", 1);
    let e = BlockModel::from_json(&tampered).unwrap_err();
    assert_eq!(e.code(), "FINGERPRINT_MISMATCH", "{e}");
    let e = m.check_fingerprint("encrypted blocks", "00ff").unwrap_err();
    assert_eq!(e.code(), "FINGERPRINT_MISMATCH");
    let e = BlockModel::from_json(&text[..text.len() - 3]).unwrap_err();
    assert_eq!(e.code(), "TRUNCATED_MESSAGE");
    let unnormalized = text.replacen("BROWN", "brown", 1);
    assert_eq!(BlockModel::from_json(&unnormalized).unwrap_err().code(), "INVALID_MESSAGE");
}

#[test]
fn bad_parameters_are_refused() {
    let values = vec!["A".to_string(), "B".to_string()];
    let s = PublicSource { name: "t".into(), sha256: String::new(), used: 2 };
    assert!(BlockModel::build("x", s.clone(), &values, 3).is_err());
    assert!(BlockModel::build("x", s.clone(), &values, 0).is_err());
    assert!(BlockModel::build("x", s, &[], 1).is_err());
}
