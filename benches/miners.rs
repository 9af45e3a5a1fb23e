//! Each miner on all of NAMES (149,910 surnames) at the paper's defaults
//! (ε = 0.1, k = 75, q ∈ [1, 3], h_max = 7). Run: `cargo bench --bench miners`.

use criterion::{criterion_group, criterion_main, Criterion};
use gramlink::alphabet::Alphabet;
use gramlink::base::{MinerKind, Strategy};
use gramlink::dataset::{read_records, Dataset, InputFormat};
use gramlink::dp::{BudgetLedger, Epsilon, Randomness};
use gramlink::mine::{mine, MineOptions};
use gramlink::progress::NoProgress;
use std::hint::black_box;

fn names() -> Dataset {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/names.txt")).expect("data/names.txt");
    let raw = read_records(&bytes, &InputFormat::Text, "names").expect("names parse");
    Dataset::normalize(raw, &Alphabet::default()).expect("names normalize")
}

fn bench(c: &mut Criterion) {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/names.txt")).expect("data/names.txt");
    let mut g = c.benchmark_group("names");
    g.sample_size(10);
    g.bench_function("read+normalize", |b| {
        b.iter(|| {
            let raw = read_records(black_box(&bytes), &InputFormat::Text, "names").expect("parse");
            Dataset::normalize(raw, &Alphabet::default()).expect("normalize")
        })
    });
    let d = names();
    let mut cases: Vec<(String, MineOptions)> = vec![
        ("fpm".into(), MineOptions { miner: MinerKind::Fpm, ..gramlink::config::Config::paper().mine }),
        ("exact".into(), MineOptions { miner: MinerKind::Exact, ..gramlink::config::Config::paper().mine }),
        ("random".into(), MineOptions { miner: MinerKind::Random, ..gramlink::config::Config::paper().mine }),
    ];
    for s in Strategy::ALL {
        cases.push((
            format!("prefix-tree {}", s.name()),
            MineOptions { strategy: s, ..gramlink::config::Config::paper().mine },
        ));
    }
    cases.push((
        "prefix-tree hybrid eps=1".into(),
        MineOptions { epsilon: 1.0, ..gramlink::config::Config::paper().mine },
    ));
    for (name, o) in cases {
        g.bench_function(name.as_str(), |b| {
            b.iter(|| {
                let mut ledger = BudgetLedger::new(Epsilon::new(o.epsilon).expect("eps"));
                let mut rng = Randomness::seeded(42);
                mine(black_box(&d), &o, &mut ledger, &mut rng, &mut NoProgress).expect("mine")
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
