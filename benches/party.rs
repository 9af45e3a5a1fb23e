//! The native twin of benches/wasm/pipeline-steps.mjs: the same NAMES party
//! pipeline (normalize, mine, merge, embed, thresholds) and matcher, on the same
//! inputs (party B: each name with its last letter doubled; seeds 1 and 2, ε = 0.1,
//! k = 75, the paper's thresholds for ed 1), timed step by step once, single-threaded
//! like wasm (`range_match_sequential`), to compare with the wasm numbers.
//! Run: `cargo bench --bench party`.

use gramlink::alphabet::Alphabet;
use gramlink::base::merge;
use gramlink::dataset::{read_records, Dataset, InputFormat};
use gramlink::dp::{BudgetLedger, Epsilon, Randomness};
use gramlink::embed::Embedder;
use gramlink::matching::range_match_sequential;
use gramlink::mine::{mine, MineOptions};
use gramlink::progress::NoProgress;
use gramlink::threshold::{thresholds, ThresholdMode};
use std::time::Instant;

fn main() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/names.txt")).expect("data/names.txt");
    let names: Vec<&str> = text.lines().filter(|s| !s.is_empty()).collect();
    let doubled: String = names.iter().map(|s| format!("{s}{}\n", s.chars().last().unwrap())).collect();
    let mut t = Instant::now();
    let mut lap = |label: &str| {
        println!("{label}: {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
        t = Instant::now();
    };
    let al = Alphabet::default();
    let read = |s: &str| Dataset::normalize(read_records(s.as_bytes(), &InputFormat::Text, "names").expect("read"), &al).expect("normalize");
    let (a, b) = (read(&text), read(&doubled));
    lap("normalize A+B");
    let o = MineOptions { epsilon: 0.1, ..MineOptions::default() };
    let run = |d: &Dataset, seed| {
        let mut ledger = BudgetLedger::new(Epsilon::new(0.1).expect("epsilon"));
        mine(d, &o, &mut ledger, &mut Randomness::seeded(seed), &mut NoProgress).expect("mine")
    };
    let na = run(&a, 1);
    lap("mine A");
    let nb = run(&b, 2);
    lap("mine B");
    let shared = merge(&na, &nb, 75).expect("merge");
    lap("merge");
    let e = Embedder::new(&shared).expect("embedder");
    let va = e.embed_all(a.records(), &mut NoProgress).expect("embed");
    let th = thresholds(&shared, a.records(), 1, &ThresholdMode::Paper).expect("thresholds");
    lap("embed+thresholds A");
    let vb = Embedder::new(&shared).expect("embedder").embed_all(b.records(), &mut NoProgress).expect("embed");
    lap("embed B");
    let (pairs, _) = range_match_sequential(&va, &vb, &th).expect("match");
    lap("match");
    println!("{} pairs", pairs.len());
}
