//! The linkage pipeline end to end: the scenario's numbers behave, the sound
//! threshold misses no true pair, and no exported message carries record text.
#![cfg(not(target_arch = "wasm32"))]

use gramlink::alphabet::Alphabet;
use gramlink::clock::NoClock;
use gramlink::config::{Config, Preset};
use gramlink::dataset::{read_records, Dataset, InputFormat};
use gramlink::dp::Randomness;
use gramlink::eval::scenario::{run_scenario, ScenarioOptions, ScenarioResult};
use gramlink::matcher::Matcher;
use gramlink::matching::Rule;
use gramlink::mine::MineOptions;
use gramlink::party::{merge_bases, DataOwner, EmbedOptions};
use gramlink::progress::NoProgress;
use gramlink::protocol::{self, Party};
use gramlink::threshold::ThresholdMode;

fn load(name: &str) -> Dataset {
    let bytes = std::fs::read(format!("{}/data/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let raw = read_records(&bytes, &InputFormat::Text, name).unwrap();
    Dataset::normalize(raw, &Alphabet::default()).unwrap()
}

/// The evaluation scenario on `d` under `o`, without a clock or progress.
fn scenario(d: &Dataset, o: &ScenarioOptions) -> ScenarioResult {
    run_scenario(d.records(), d.alphabet(), o, &NoClock, &mut NoProgress).unwrap()
}

#[test]
fn exact_match_scenario_links_nearly_everything() {
    let cities = load("cities.txt");
    let o = ScenarioOptions::scenario(Preset::Paper, 0, 42);
    let r = scenario(&cities, &o);
    assert_eq!(r.recall, 1.0, "every record is at distance 0 from its copy");
    assert!(r.f1 > 0.95, "F1 {}", r.f1);
    assert_eq!(r.true_outside_threshold, 0);
}

#[test]
fn sound_threshold_misses_no_true_pair() {
    let cities = load("cities.txt");
    for ed in [1, 2] {
        let o = ScenarioOptions::scenario(Preset::Paper, ed, 42).with(|c| c.thresholds.mode = ThresholdMode::Sound);
        let r = scenario(&cities, &o);
        assert_eq!(r.true_outside_threshold, 0, "ed {ed}");
        assert_eq!(r.true_pairs as usize, r.n - r.b_empty, "ed {ed}: recall must be complete");
        let paper = ScenarioOptions::scenario(Preset::Paper, ed, 42);
        let p = scenario(&cities, &paper);
        assert!(p.true_outside_threshold > 0, "the paper's rule is not an upper bound (ed {ed})");
    }
}

#[test]
fn one_to_one_improves_precision_and_same_seed_same_result() {
    let cities = load("cities.txt");
    let o = ScenarioOptions::scenario(Preset::Paper, 1, 42).with(|c| c.rule = Rule::Greedy);
    let a = scenario(&cities, &o);
    let b = scenario(&cities, &o);
    assert_eq!(a, b);
    let all = scenario(&cities, &o.clone().with(|c| c.rule = Rule::All));
    assert!(a.precision >= all.precision);
    assert!(a.pairs <= a.n as u64);
    let other = scenario(&cities, &ScenarioOptions { seed: 43, ..o });
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
        assert!(
            s.len() < 4 || s.chars().all(|c| !c.is_ascii_uppercase()) || !records.iter().any(|r| s.contains(r)),
            "{what} holds {s:?}, which contains a record"
        );
    }
}

#[test]
fn no_exported_message_of_a_names_run_holds_record_text() {
    let names = load("names.txt");
    let records: std::collections::HashSet<&str> = names.records().iter().map(|s| s.as_str()).collect();
    let config = Config::paper();
    let eps = config.mine.budget();
    let mut a = DataOwner::new(names.clone(), eps, Randomness::secure().unwrap()).unwrap();
    let mut b = DataOwner::new(names.clone(), eps, Randomness::secure().unwrap()).unwrap();
    let na = a.mine(&config.mine, &mut NoProgress).unwrap();
    let nb =
        b.mine(&MineOptions { miner: gramlink::base::MinerKind::Fpm, ..config.mine.clone() }, &mut NoProgress).unwrap();
    let shared = merge_bases(&na, &nb, &config.mine).unwrap();
    let batch = a.embed(&shared, &EmbedOptions::new(Party::A, &config), &mut NoProgress).unwrap().batch;
    let other = b.embed(&shared, &EmbedOptions::new(Party::B, &config), &mut NoProgress).unwrap().batch;
    let matcher = Matcher::new(batch.clone(), other).unwrap();
    let mut linkage = matcher.link(Rule::Greedy).unwrap();
    linkage.pairs.truncate(1000);
    let result = matcher.result(&linkage);
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
