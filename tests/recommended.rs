//! The recommended configuration (src/config.rs): padded records, public 2-grams plus
//! mined 3-grams, sound threshold, greedy one-to-one; its base travels with its
//! padding, and unpadded bases are unchanged.
#![cfg(not(target_arch = "wasm32"))]

use gramlink::alphabet::Alphabet;
use gramlink::clock::NoClock;
use gramlink::config::{Config, Preset};
use gramlink::dataset::{read_records, Dataset, InputFormat};
use gramlink::dp::Randomness;
use gramlink::embed::Embedder;
use gramlink::eval::scenario::{run_scenario, ScenarioOptions, ScenarioResult};
use gramlink::matching::Rule;
use gramlink::mine::MineOptions;
use gramlink::padding::Padding;
use gramlink::party::{merge_bases, DataOwner};
use gramlink::progress::NoProgress;
use gramlink::protocol::{read_shared_base, write_shared_base};

fn cities(n: usize) -> Dataset {
    let bytes = std::fs::read(format!("{}/data/cities.txt", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let raw = read_records(&bytes, &InputFormat::Text, "cities").unwrap();
    let d = Dataset::normalize(raw, &Alphabet::default()).unwrap();
    Dataset::from_normalized(d.records()[..n].to_vec(), &Alphabet::default())
}

/// The evaluation scenario on `d` under `o`, without a clock or progress.
fn scenario(d: &Dataset, o: &ScenarioOptions) -> ScenarioResult {
    run_scenario(d.records(), d.alphabet(), o, &NoClock, &mut NoProgress).unwrap()
}

#[test]
fn recommended_scenario_misses_no_true_pair_and_links_well() {
    let d = cities(600);
    let o = ScenarioOptions::scenario(Preset::Recommended, 1, 42);
    let r = scenario(&d, &o);
    assert_eq!(r.true_outside_threshold, 0, "the sound threshold covers every true pair");
    assert!(r.base.len() >= 783 && r.base.len() <= 783 + 75, "{} grams", r.base.len());
    assert!(r.f1 > 0.9, "F1 {}", r.f1);
    let paper = scenario(&d, &ScenarioOptions::scenario(Preset::Paper, 1, 42));
    assert!(r.f1 > paper.f1, "recommended {} vs paper {}", r.f1, paper.f1);
}

#[test]
fn padded_base_round_trips_and_pads_embeddings() {
    let d = cities(300);
    let o = Config::recommended().mine;
    let mut rng = Randomness::seeded(5);
    let owner = |rng| DataOwner::new(d.clone(), o.budget(), rng).unwrap();
    let na = owner(rng.fork()).mine(&o, &mut NoProgress).unwrap();
    let nb = owner(rng.fork()).mine(&o, &mut NoProgress).unwrap();
    assert_eq!(
        (na.padding, nb.padding),
        (Some(Padding::default()), Some(Padding::default())),
        "each noisy base records its padding"
    );
    let shared = merge_bases(&na, &nb, &o).unwrap();
    let unpadded = MineOptions { padding: false, ..o.clone() };
    let e = merge_bases(&na, &nb, &unpadded).unwrap_err();
    assert_eq!(e.code(), "INCOMPATIBLE_BASES");
    assert!(e.to_string().contains("mined with padding"), "{e}");
    assert_eq!(shared.alphabet(), &Alphabet::default(), "records are normalized over Σ, not Σ + padding");
    let text = write_shared_base(&shared);
    assert!(text.contains("\"padding\""));
    let back = read_shared_base(&text).unwrap();
    assert_eq!(back, shared);
    // Dropping the padding field breaks the fingerprint: it covers the padding.
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut m = v.as_object().unwrap().clone();
    m.remove("padding");
    assert!(read_shared_base(&serde_json::Value::Object(m).to_string()).is_err());
    // "AB" padded is ^AB$: the boundary grams ^A and B$ are counted.
    let e = Embedder::new(&shared).unwrap();
    let idx = |g: &str| shared.grams().iter().position(|x| x == g).unwrap();
    let v = e.embed_one("AB");
    assert_eq!((v[idx("^A")], v[idx("AB")], v[idx("B$")]), (0.5, 0.5, 0.5));
}

/// ed 2 on CITIES: the q-gram filter keeps every true pair within 2 edits, prunes
/// most pairs, and ranking by cosine beats ranking by distance on the same
/// candidates (every rule draws them from the filter; only the ranked rule caps
/// a row's).
#[test]
fn qgram_filter_prunes_keeps_true_pairs_and_cosine_ranks_better() {
    let d = cities(1500);
    let rec = ScenarioOptions::scenario(Preset::Recommended, 2, 42);
    let r = scenario(&d, &rec);
    let n2 = (r.n * r.n) as u64;
    assert!(r.candidates * 20 < n2, "{} candidates of {n2}", r.candidates);
    let by_distance = scenario(&d, &rec.clone().with(|c| c.rule = Rule::Greedy));
    assert!(by_distance.candidates * 20 < n2, "{} candidates of {n2} for the greedy rule", by_distance.candidates);
    assert!(by_distance.candidates >= r.candidates, "{} vs {}", by_distance.candidates, r.candidates);
    assert!(r.f1 > by_distance.f1, "cosine after the filter {} vs distance {}", r.f1, by_distance.f1);
    // every pair the range match found is true-or-not; the true pairs the filter
    // dropped can only be those more than 2 edits apart after normalization
    assert!(r.recall >= by_distance.recall - 0.01, "{} vs {}", r.recall, by_distance.recall);
    // keyed: no shape, the same cosine ranking on the pairs within threshold
    let keyed = scenario(&d, &ScenarioOptions { keyed: true, ..ScenarioOptions::scenario(Preset::Recommended, 1, 42) });
    let plain = scenario(&d, &ScenarioOptions::scenario(Preset::Recommended, 1, 42));
    assert!((keyed.f1 - plain.f1).abs() < 0.01, "keyed {} vs unkeyed {}", keyed.f1, plain.f1);
}
