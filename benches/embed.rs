//! Embedding and thresholds on all of NAMES (149,910 surnames) over a base of the
//! 75 most frequent 1–3 grams (by record support, counted here with a HashMap: a
//! benchmark, so privacy is irrelevant). Run: `cargo bench --bench embed`.
//! Also prints the mean paper and sound thresholds at ed 1 and 2.

use criterion::{criterion_group, criterion_main, Criterion};
use gramlink::alphabet::Alphabet;
use gramlink::base::{gram_order, SharedBase};
use gramlink::embed::Embedder;
use gramlink::progress::NoProgress;
use gramlink::threshold::{thresholds, ThresholdMode};
use std::collections::{HashMap, HashSet};
use std::hint::black_box;

fn names(alphabet: &Alphabet) -> Vec<String> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/names.txt")).expect("data/names.txt");
    text.lines().map(|l| alphabet.normalize(l)).filter(|s| !s.is_empty()).collect()
}

/// The k grams of length 1..=3 held by the most records (ties: shorter, then Σ order).
fn frequent_base(alphabet: &Alphabet, records: &[String], k: usize) -> SharedBase {
    let mut support: HashMap<String, u32> = HashMap::new();
    let mut seen: HashSet<String> = HashSet::new();
    for r in records {
        let c: Vec<char> = r.chars().collect();
        seen.clear();
        for q in 1..=3 {
            for w in c.windows(q) {
                seen.insert(w.iter().collect());
            }
        }
        for g in seen.drain() {
            *support.entry(g).or_default() += 1;
        }
    }
    let mut ranked: Vec<(String, u32)> = support.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| gram_order(alphabet, &a.0, &b.0)));
    let grams = ranked.into_iter().take(k).map(|(g, _)| g).collect();
    SharedBase::new(alphabet.clone(), 1, 3, grams).expect("base")
}

fn bench(c: &mut Criterion) {
    let alphabet = Alphabet::default();
    let records = names(&alphabet);
    let base = frequent_base(&alphabet, &records, 75);
    let embedder = Embedder::new(&base).expect("embedder");
    for ed in [1, 2] {
        for mode in [ThresholdMode::Paper, ThresholdMode::Sound] {
            let th = thresholds(&base, &records, ed, &mode).expect("thresholds");
            let mean = th.iter().sum::<f64>() / th.len() as f64;
            println!("mean threshold {mode:?} ed {ed}: {mean:.4} over {} names", th.len());
        }
    }
    let mut g = c.benchmark_group("names");
    g.sample_size(10);
    g.bench_function("embed_all", |b| {
        b.iter(|| embedder.embed_all(black_box(&records), &mut NoProgress).expect("embed"))
    });
    for ed in [1, 2] {
        for (name, mode) in [("paper", ThresholdMode::Paper), ("sound", ThresholdMode::Sound)] {
            g.bench_function(format!("thresholds {name} ed {ed}"), |b| {
                b.iter(|| thresholds(&base, black_box(&records), ed, &mode).expect("thresholds"))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
