//! The matcher and the whole evaluation scenario (docs/SCENARIO.md) on all of
//! NAMES (ed 1, seed 42), in both presets.
//! Run: `cargo bench --bench pipeline`.

use criterion::{criterion_group, criterion_main, Criterion};
use gramlink::alphabet::Alphabet;
use gramlink::base::SharedBase;
use gramlink::clock::NoClock;
use gramlink::config::Preset;
use gramlink::dataset::{read_records, Dataset, InputFormat};
use gramlink::dp::Randomness;
use gramlink::embed::Embedder;
use gramlink::eval::scenario::{corrupted_copy, run_scenario, ScenarioOptions};
use gramlink::matching::range_match;
use gramlink::mine::exact;
use gramlink::progress::NoProgress;
use gramlink::threshold::{thresholds, ThresholdMode};
use std::hint::black_box;

fn names() -> Dataset {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/names.txt")).expect("data/names.txt");
    let raw = read_records(&bytes, &InputFormat::Text, "names").expect("names parse");
    Dataset::normalize(raw, &Alphabet::default()).expect("names normalize")
}

fn bench(c: &mut Criterion) {
    let d = names();
    let a = d.alphabet();
    let mut g = c.benchmark_group("names");
    g.sample_size(10);

    // the matcher alone, on the exact top-75 base
    let grams = exact::top_k(d.records(), a, 75, 1, 3).into_iter().map(|g| g.gram).collect();
    let base = SharedBase::new(a.clone(), 1, 3, grams).expect("base");
    let (b_records, _) = corrupted_copy(d.records(), 1, a, &mut Randomness::seeded(42));
    let b_records: Vec<String> = b_records.into_iter().filter(|s| !s.is_empty()).collect();
    let e = Embedder::new(&base).expect("embedder");
    let va = e.embed_all(d.records(), &mut NoProgress).expect("embed");
    let vb = e.embed_all(&b_records, &mut NoProgress).expect("embed");
    for (label, mode) in
        [("match paper ed1", ThresholdMode::Paper), ("match global 1.0", ThresholdMode::Global(Some(1.0)))]
    {
        let th = thresholds(&base, d.records(), 1, &mode).expect("thresholds");
        g.bench_function(label, |bch| bch.iter(|| range_match(black_box(&va), &vb, &th).expect("match")));
    }

    for preset in Preset::ALL {
        let o = ScenarioOptions::scenario(preset, 1, 42);
        g.bench_function(format!("eval ed1 {} (both parties and the matcher)", preset.name()), |bch| {
            bch.iter(|| run_scenario(black_box(d.records()), a, &o, &NoClock, &mut NoProgress).expect("scenario"))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
