//! The linkage pipeline end to end: the scenario's numbers behave, the sound
//! threshold misses no true pair, and no exported message carries record text.
#![cfg(not(target_arch = "wasm32"))]

use gramlink::alphabet::Alphabet;
use gramlink::base::merge;
use gramlink::dataset::{read_records, Dataset, InputFormat};
use gramlink::dp::{BudgetLedger, Epsilon, Randomness};
use gramlink::embed::Embedder;
use gramlink::eval::clock::NoClock;
use gramlink::eval::scenario::{run_scenario, ScenarioOptions};
use gramlink::matching::{one_to_one, range_match, Pair};
use gramlink::mine::{mine, MineOptions};
use gramlink::progress::NoProgress;
use gramlink::protocol::{self, LinkedPair, MatchResult, Party, ThresholdSet, VectorBatch};
use gramlink::threshold::{thresholds, ThresholdMode};

fn load(name: &str) -> Dataset {
    let bytes = std::fs::read(format!("{}/data/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let raw = read_records(&bytes, &InputFormat::Text, name).unwrap();
    Dataset::normalize(raw, &Alphabet::default()).unwrap()
}

#[test]
fn exact_match_scenario_links_nearly_everything() {
    let cities = load("cities.txt");
    let o = ScenarioOptions { ed: 0, ..ScenarioOptions::default() };
    let r = run_scenario(cities.records(), cities.alphabet(), &o, &NoClock, &mut NoProgress).unwrap();
    assert_eq!(r.recall, 1.0, "every record is at distance 0 from its copy");
    assert!(r.f1 > 0.95, "F1 {}", r.f1);
    assert_eq!(r.true_outside_threshold, 0);
}

#[test]
fn sound_threshold_misses_no_true_pair() {
    let cities = load("cities.txt");
    for ed in [1, 2] {
        let o = ScenarioOptions { ed, threshold: ThresholdMode::Sound, ..ScenarioOptions::default() };
        let r = run_scenario(cities.records(), cities.alphabet(), &o, &NoClock, &mut NoProgress).unwrap();
        assert_eq!(r.true_outside_threshold, 0, "ed {ed}");
        assert_eq!(r.true_pairs as usize, r.n - r.b_empty, "ed {ed}: recall must be complete");
        let paper = ScenarioOptions { ed, ..ScenarioOptions::default() };
        let p = run_scenario(cities.records(), cities.alphabet(), &paper, &NoClock, &mut NoProgress).unwrap();
        assert!(p.true_outside_threshold > 0, "the paper's rule is not an upper bound (ed {ed})");
    }
}

#[test]
fn one_to_one_improves_precision_and_same_seed_same_result() {
    let cities = load("cities.txt");
    let o = ScenarioOptions { ed: 1, one_to_one: true, ..ScenarioOptions::default() };
    let a = run_scenario(cities.records(), cities.alphabet(), &o, &NoClock, &mut NoProgress).unwrap();
    let b = run_scenario(cities.records(), cities.alphabet(), &o, &NoClock, &mut NoProgress).unwrap();
    assert_eq!(a, b);
    let all = run_scenario(cities.records(), cities.alphabet(), &ScenarioOptions { one_to_one: false, ..o.clone() }, &NoClock, &mut NoProgress).unwrap();
    assert!(a.precision >= all.precision);
    assert!(a.pairs <= a.n as u64);
    let other = run_scenario(cities.records(), cities.alphabet(), &ScenarioOptions { seed: 43, ..o }, &NoClock, &mut NoProgress).unwrap();
    assert_ne!(a.fingerprint, other.fingerprint, "another seed, another noisy base");
}

/// Every string value of a JSON message, outside the public alphabet field.
fn strings(v: &serde_json::Value, key: &str, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) if key != "alphabet" => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, key, out)),
        serde_json::Value::Object(m) => m.iter().for_each(|(k, x)| strings(x, k, out)),
        _ => {}
    }
}

fn assert_no_record_text(what: &str, message: &str, records: &std::collections::HashSet<&str>) {
    let v: serde_json::Value = serde_json::from_str(message).unwrap();
    let mut found = Vec::new();
    strings(&v, "", &mut found);
    for s in found {
        assert!(!records.contains(s.as_str()), "{what} holds the record text {s:?}");
        // grams are at most q_max long, far shorter than a surname (>= 4)
        assert!(s.len() < 4 || s.chars().all(|c| !c.is_ascii_uppercase()) || !records.iter().any(|r| s.contains(r)),
            "{what} holds {s:?}, which contains a record");
    }
}

#[test]
fn no_exported_message_of_a_names_run_holds_record_text() {
    let names = load("names.txt");
    let records: std::collections::HashSet<&str> = names.records().iter().map(|s| s.as_str()).collect();
    let o = MineOptions::default();
    let eps = Epsilon::new(o.epsilon).unwrap();
    let mut rng = Randomness::secure().unwrap();
    let na = mine(&names, &o, &mut BudgetLedger::new(eps), &mut rng, &mut NoProgress).unwrap();
    let nb = mine(&names, &MineOptions { miner: gramlink::base::MinerKind::Fpm, ..o.clone() }, &mut BudgetLedger::new(eps), &mut rng, &mut NoProgress).unwrap();
    let shared = merge(&na, &nb, o.k).unwrap();
    let vectors = Embedder::new(&shared).unwrap().embed_all(names.records(), &mut NoProgress).unwrap();
    let th = thresholds(&shared, names.records(), 1, &ThresholdMode::Paper).unwrap();
    let batch = VectorBatch {
        party: Party::A,
        fingerprint: shared.fingerprint().into(),
        ids: names.ids().to_vec(),
        vectors: vectors.clone(),
        thresholds: Some(ThresholdSet { mode: "paper".into(), ed: 1, values: th.clone() }),
        transform: None,
        shape: Some(gramlink::matching::Shape::of(&shared)),
    };
    let (pairs, stats) = range_match(&vectors, &vectors, &th).unwrap();
    let result = MatchResult {
        fingerprint: shared.fingerprint().into(),
        rule: "one-to-one".into(),
        candidates: stats.candidates,
        pairs: one_to_one(&pairs).iter().take(1000).map(|p: &Pair| LinkedPair { a: names.ids()[p.a as usize].clone(), b: names.ids()[p.b as usize].clone(), distance: p.distance }).collect(),
    };
    let binary = batch.to_binary();
    let header_len = u32::from_le_bytes(binary[8..12].try_into().unwrap()) as usize;
    let binary_header = std::str::from_utf8(&binary[12..12 + header_len]).unwrap().to_string();
    let messages = [
        ("noisy base A", protocol::write_noisy_base(&na)),
        ("noisy base B", protocol::write_noisy_base(&nb)),
        ("shared base", protocol::write_shared_base(&shared)),
        ("vector batch (JSON)", batch.to_json()),
        ("vector batch (binary header)", binary_header),
        ("match result", protocol::write_match_result(&result)),
    ];
    for (what, m) in &messages {
        assert_no_record_text(what, m, &records);
    }
    // and the numbers of the binary body are just numbers: no record text as bytes
    let body = &binary[12 + header_len..];
    for probe in ["SMITH", "JOHNSON", "WILLIAMS"] {
        assert!(!body.windows(probe.len()).any(|w| w == probe.as_bytes()));
    }
}
