//! Golden values: outputs of seeded, deterministic computations that must be bit-identical
//! natively and in wasm (docs/DESIGN.md: same seed, same output, natively and in wasm).
//!
//! Each case is a name and a function computing a `serde_json::Value`; its committed value
//! is `tests/golden/<name>.json`. Two tests share this module:
//! - `tests/golden.rs` (native) compares each case with its file, read at run time, and
//!   rewrites the files when `GRAMLINK_BLESS=1`;
//! - `tests/wasm_dp.rs` (wasm, in Node and in Chromium) compares each case with the same
//!   file, embedded with `include_str!`.
//!
//! To add a case: write a `fn my_case() -> Value`, add `"my_case" => my_case` to `cases!`
//! below, run `GRAMLINK_BLESS=1 cargo test --test golden`, and commit the new JSON file.
//!
//! Values are compared as canonical JSON text (object keys sorted, pretty-printed, as the
//! bless step writes it), not as parsed values: floats print in their shortest exact
//! form, so equal text means bit-identical numbers.

#![allow(dead_code)] // each of the two test crates uses a different part

use gramlink::alphabet::Alphabet;
use gramlink::base::{MinerKind, Strategy};
use gramlink::config::Preset;
use gramlink::dataset::{read_records, Dataset, InputFormat};
use gramlink::dp::{BudgetLedger, DiscreteLaplace, Epsilon, Randomness};
use gramlink::eval::scenario::ScenarioOptions;
use gramlink::mine::{mine, MineOptions};
use gramlink::progress::NoProgress;
use serde_json::{json, Map, Value};

/// One golden case.
pub struct Case {
    /// The file stem in tests/golden/.
    pub name: &'static str,
    pub compute: fn() -> Value,
    /// The committed JSON, embedded at compile time (wasm has no file system).
    #[cfg(target_arch = "wasm32")]
    pub committed: &'static str,
}

macro_rules! cases {
    ($($name:literal => $compute:path),* $(,)?) => {
        /// Every golden case, in file-name order.
        pub const CASES: &[Case] = &[$(
            Case {
                name: $name,
                compute: $compute,
                #[cfg(target_arch = "wasm32")]
                committed: include_str!(concat!($name, ".json")),
            }
        ),*];
    };
}

cases! {
    "alphabet_normalize_default" => alphabet_normalize_default,
    "discrete_laplace_eps0.1_sens1_seed42" => discrete_laplace_eps0_1_sens1_seed42,
    "discrete_laplace_eps1_sens3_seed7" => discrete_laplace_eps1_sens3_seed7,
    "mined_cities_fpm_seed42" => mined_cities_fpm_seed42,
    "mined_cities_prefix_adaptive_eps0.5_seed3" => mined_cities_prefix_adaptive_eps0_5_seed3,
    "mined_names_prefix_hybrid_seed42" => mined_names_prefix_hybrid_seed42,
    "permutation_50_seed5" => permutation_50_seed5,
    "scenario_cities1000_ed1_seed42" => scenario_cities1000_ed1_seed42,
    "scenario_cities1000_ed1_seed42_recommended" => scenario_cities1000_ed1_seed42_recommended,
    "scenario_cities1000_ed2_sound_fpm_seed7" => scenario_cities1000_ed2_sound_fpm_seed7,
    "signature_ed25519_batch" => signature_ed25519_batch,
}

fn discrete_laplace_draws(epsilon: f64, sensitivity: u64, seed: u64, n: usize) -> Value {
    let mech = DiscreteLaplace::new(Epsilon::new(epsilon).unwrap(), sensitivity).unwrap();
    let mut rng = Randomness::seeded(seed);
    let draws: Vec<i64> = (0..n).map(|_| mech.sample(&mut rng)).collect();
    json!({
        "mechanism": "discrete Laplace",
        "epsilon": epsilon,
        "sensitivity": sensitivity,
        "seed": seed,
        "draws": draws,
    })
}

fn discrete_laplace_eps0_1_sens1_seed42() -> Value {
    discrete_laplace_draws(0.1, 1, 42, 200)
}

fn discrete_laplace_eps1_sens3_seed7() -> Value {
    discrete_laplace_draws(1.0, 3, 7, 200)
}

fn permutation_50_seed5() -> Value {
    json!({ "seed": 5, "n": 50, "permutation": Randomness::seeded(5).permutation(50) })
}

/// A seeded mined base of a bundled dataset, as its noisy-base message.
fn mined(data: &str, options: MineOptions, seed: u64) -> Value {
    let raw = read_records(data.as_bytes(), &InputFormat::Text, "data").unwrap();
    let d = Dataset::normalize(raw, &Alphabet::default()).unwrap();
    let mut ledger = BudgetLedger::new(Epsilon::new(options.epsilon).unwrap());
    let base = mine(&d, &options, &mut ledger, &mut Randomness::seeded(seed), &mut NoProgress).unwrap();
    let text = gramlink::protocol::write_noisy_base(&base);
    serde_json::from_str(&text).unwrap()
}

const CITIES: &str = include_str!("../../data/cities.txt");
const NAMES: &str = include_str!("../../data/names.txt");

fn mined_cities_fpm_seed42() -> Value {
    mined(CITIES, MineOptions { miner: MinerKind::Fpm, ..gramlink::config::Config::paper().mine }, 42)
}

fn mined_cities_prefix_adaptive_eps0_5_seed3() -> Value {
    let o = MineOptions {
        strategy: Strategy::Adaptive,
        epsilon: 0.5,
        h_max: 8,
        k: 40,
        ..gramlink::config::Config::paper().mine
    };
    mined(CITIES, o, 3)
}

fn mined_names_prefix_hybrid_seed42() -> Value {
    mined(NAMES, gramlink::config::Config::paper().mine, 42)
}

/// The whole docs/SCENARIO.md protocol (corrupt, mine both parties, merge, embed,
/// thresholds, match, score) on the first 1,000 cities: identical natively (rayon)
/// and in wasm (sequential). Timings are left out (NoClock).
fn scenario(options: ScenarioOptions) -> Value {
    let raw = read_records(CITIES.as_bytes(), &InputFormat::Text, "cities").unwrap();
    let d = Dataset::normalize(raw, &Alphabet::default()).unwrap();
    let records = &d.records()[..1000];
    let r = gramlink::eval::scenario::run_scenario(
        records,
        d.alphabet(),
        &options,
        &gramlink::clock::NoClock,
        &mut NoProgress,
    )
    .unwrap();
    serde_json::to_value(&r).unwrap()
}

fn scenario_cities1000_ed1_seed42() -> Value {
    scenario(ScenarioOptions::scenario(Preset::Paper, 1, 42))
}

/// The recommended configuration (the wasm API's default, `runScenario` with no
/// options but these): public 2-grams, padding, mined 3-grams, sound thresholds,
/// the ranked rule.
fn scenario_cities1000_ed1_seed42_recommended() -> Value {
    scenario(ScenarioOptions::scenario(Preset::Recommended, 1, 42))
}

fn scenario_cities1000_ed2_sound_fpm_seed7() -> Value {
    scenario(ScenarioOptions::scenario(Preset::Paper, 2, 7).with(|c| {
        c.mine.miner = MinerKind::Fpm;
        c.thresholds.mode = gramlink::threshold::ThresholdMode::Sound;
        c.rule = gramlink::matching::Rule::Greedy;
    }))
}

/// The key of [`signature_ed25519_batch`]: a fixed seed (0, 1, …, 31), as the
/// CLI's key file writes it. Public: tests/wasm_signing.rs signs with it through
/// the JS API.
pub const GOLDEN_SIGNING_KEY: &str =
    "gramlink signing key v1 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n";
/// The bytes it signs (any bytes sign alike; a batch's are what `embed` wrote).
pub const GOLDEN_SIGNED_BYTES: &[u8] = b"gramlink golden batch: Ed25519 signs these bytes alike everywhere\n";

/// A batch signature (src/protocol/signature.rs): Ed25519 is deterministic, so
/// the same key and bytes give the same signature file natively and in wasm.
fn signature_ed25519_batch() -> Value {
    use gramlink::protocol::signature::{sign_bytes, SigningKey};
    let public = SigningKey::from_text(GOLDEN_SIGNING_KEY).unwrap().verifying_key().to_text();
    json!({
        "signingKey": GOLDEN_SIGNING_KEY,
        "publicKey": public,
        "bytes": String::from_utf8_lossy(GOLDEN_SIGNED_BYTES),
        "signature": sign_bytes(GOLDEN_SIGNING_KEY, GOLDEN_SIGNED_BYTES).unwrap(),
    })
}

fn alphabet_normalize_default() -> Value {
    let alphabet = Alphabet::default();
    let inputs = [
        "Kīhei",
        "Cañon City",
        "‘Ewa Beach",
        "Müller",
        "Иванов",
        "straße",
        "Łódź",
        "ﬁnn",
        "Ｔｏｋｙｏ",
        "Zoe\u{0308}",
        "  o'brien \t jr. ",
        "王",
    ];
    let pairs: Vec<Value> = inputs.iter().map(|s| json!({ "input": s, "normalized": alphabet.normalize(s) })).collect();
    json!({ "alphabet": alphabet.as_string(), "cases": pairs })
}

/// The canonical text of a value: object keys sorted (whatever serde_json's map type),
/// two-space indentation, one trailing newline.
pub fn canonical_text(value: &Value) -> String {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                let mut out = Map::new();
                for k in keys {
                    out.insert(k.clone(), sorted(&m[k]));
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    let mut text = serde_json::to_string_pretty(&sorted(value)).expect("a Value always serializes");
    text.push('\n');
    text
}

/// `None` if `actual` equals `committed` (line endings aside), else a short description
/// of the first difference.
pub fn difference(committed: &str, actual: &str) -> Option<String> {
    let committed = committed.replace("\r\n", "\n");
    if committed == actual {
        return None;
    }
    let (c_lines, a_lines): (Vec<&str>, Vec<&str>) = (committed.lines().collect(), actual.lines().collect());
    let line = (0..c_lines.len().max(a_lines.len())).find(|&i| c_lines.get(i) != a_lines.get(i)).unwrap_or(0);
    Some(format!(
        "first difference at line {}: committed {:?}, computed {:?}",
        line + 1,
        c_lines.get(line).copied().unwrap_or("<end of file>"),
        a_lines.get(line).copied().unwrap_or("<end of output>"),
    ))
}
