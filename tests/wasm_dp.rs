//! wasm tests of the DP primitives, run in Node and in headless Chromium (scripts/test.sh;
//! the environment, WASM_BINDGEN_USE_BROWSER, picks which: do not add
//! `wasm_bindgen_test_configure!(run_in_browser)` here).
#![cfg(target_arch = "wasm32")]

#[path = "golden/mod.rs"]
mod golden;

use gramlink::dp::{DiscreteLaplace, Epsilon, Randomness};
use wasm_bindgen_test::*;

/// Seeded samplers, permutations and normalization give exactly the committed native values.
#[wasm_bindgen_test]
fn golden_values_match_native() {
    let mut failures = Vec::new();
    for case in golden::CASES {
        let actual = golden::canonical_text(&(case.compute)());
        if let Some(diff) = golden::difference(case.committed, &actual) {
            failures.push(format!("{}: {diff}", case.name));
        }
    }
    assert!(failures.is_empty(), "wasm results differ from the native golden files:\n  {}", failures.join("\n  "));
}

/// The secure generator gets its seed from crypto.getRandomValues (getrandom's wasm_js).
#[wasm_bindgen_test]
fn secure_randomness_works_and_generators_differ() {
    let mut a = Randomness::secure().expect("crypto.getRandomValues is available");
    let mut b = Randomness::secure().expect("crypto.getRandomValues is available");
    assert!(a.is_private() && b.is_private());
    let xs: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
    let ys: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
    assert_ne!(xs, ys, "two secure generators gave the same stream");

    let mut bytes = [0u8; 64];
    a.fill_bytes(&mut bytes);
    assert!(bytes.iter().any(|&x| x != 0));
    assert!(a.fork().is_private());
}

/// A secure generator drives the sampler in wasm too (the draw is not checked: it is noise).
#[wasm_bindgen_test]
fn secure_sampler_runs() {
    let mech = DiscreteLaplace::new(Epsilon::new(0.5).unwrap(), 1).unwrap();
    let mut rng = Randomness::secure().unwrap();
    let draws: Vec<i64> = (0..1000).map(|_| mech.sample(&mut rng)).collect();
    // P(all 1000 draws equal) is astronomically small for a working generator
    assert!(draws.iter().any(|&d| d != draws[0]));
}
