//! The matcher's attacks (src/eval/attack.rs) on a small NAMES sample: the
//! dictionary attack re-identifies most of A's records without the key and none
//! with it; the frequency and norm attacks do exactly as well with the key (the
//! transform keeps multiplicities and norms: a documented residual risk).
#![cfg(not(target_arch = "wasm32"))]

use gramlink::alphabet::Alphabet;
use gramlink::dataset::{read_records, Dataset, InputFormat};
use gramlink::progress::NoProgress;
use gramlink::research::attack::{run_attack, AttackOptions};

fn load(name: &str) -> Dataset {
    let bytes = std::fs::read(format!("{}/data/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    Dataset::normalize(read_records(&bytes, &InputFormat::Text, name).unwrap(), &Alphabet::default()).unwrap()
}

#[test]
fn the_key_defeats_the_dictionary_attack_only() {
    let (names, dict) = (load("names.txt"), load("names_all.txt"));
    let o = AttackOptions {
        sample: 5_000,
        targets: 60,
        axis_vectors: 0,
        // the rotation: this experiment measures what it hides and what it keeps
        config: gramlink::config::Config {
            encoding: gramlink::keyed::Encoding::Rotation,
            ..gramlink::config::Config::paper()
        },
        ..AttackOptions::default()
    };
    let r = run_attack(names.records(), dict.records(), &Alphabet::default(), &o, &mut NoProgress).unwrap();
    eprintln!("{r:?}");
    assert!(r.unkeyed.dictionary > 0.5, "unkeyed dictionary attack {}", r.unkeyed.dictionary);
    assert!(r.keyed.dictionary < 0.02, "keyed dictionary attack {}", r.keyed.dictionary);
    assert_eq!(r.unkeyed.frequency, r.keyed.frequency);
    assert!(r.unkeyed.frequency > 0.1, "frequency attack {}", r.unkeyed.frequency);
    assert!((r.unkeyed.norm - r.keyed.norm).abs() < 0.01);
    // deterministic for a seed
    let again = run_attack(names.records(), dict.records(), &Alphabet::default(), &o, &mut NoProgress).unwrap();
    assert_eq!(again, r);
}
