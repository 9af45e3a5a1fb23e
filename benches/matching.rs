//! Range matching on NAMES: A = data/names.txt embedded over its 75 most frequent
//! 1–3-grams (coordinate = overlapping occurrences / gram length), B = a copy with
//! one random edit per name (seeded), constant thresholds 2.0 and 3.0.
//!
//! First prints one timed run per configuration of [`trie_match`], in parallel
//! and on one thread (wall and CPU time: the machine may be shared; pairs,
//! candidates / N²), and of the lattice index [`range_match`] up to
//! `MATCHING_BENCH_LATTICE_MAX` rows (default 20,000: it is slow beyond), then
//! runs the criterion benchmarks (parallel). A configuration whose output would
//! not fit (3.0 on all of NAMES: ~22% of N², ~5·10⁹ pairs) is reported with its
//! estimated size and skipped. Environment: `MATCHING_BENCH_REPORT_ONLY=1` stops
//! after the report; `MATCHING_BENCH_SIZES=20000,149910`,
//! `MATCHING_BENCH_THRESHOLDS=2,3`, `MATCHING_BENCH_MODES=parallel|sequential`
//! pick the configurations; `MATCHING_BENCH_DEPTH`, `MATCHING_BENCH_LEAF` tune
//! the trie index.

use criterion::{criterion_group, criterion_main, Criterion};
use gramlink::dp::Randomness;
use gramlink::embed::Vectors;
use gramlink::matching::{range_match, trie_match, MatchStats, Pair, TrieMatchOptions, MAX_PAIRS};
use std::collections::HashMap;
use std::time::Instant;

const K: usize = 75;

fn names() -> Vec<Vec<u8>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/names.txt");
    let text = std::fs::read_to_string(path).expect("data/names.txt");
    text.lines().map(|l| l.trim().as_bytes().to_vec()).filter(|l| !l.is_empty()).collect()
}

fn top_grams(names: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut counts: HashMap<&[u8], u64> = HashMap::new();
    for n in names {
        for q in 1..=3 {
            for g in n.windows(q) {
                *counts.entry(g).or_default() += 1;
            }
        }
    }
    let mut v: Vec<(&[u8], u64)> = counts.into_iter().collect();
    v.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
    v.into_iter().take(K).map(|(g, _)| g.to_vec()).collect()
}

fn embed(names: &[Vec<u8>], grams: &[Vec<u8>]) -> Vectors {
    let mut data = Vec::with_capacity(names.len() * grams.len());
    for n in names {
        for g in grams {
            let occ = n.windows(g.len()).filter(|w| *w == g.as_slice()).count();
            data.push(occ as f32 / g.len() as f32);
        }
    }
    Vectors { dim: grams.len(), data }
}

/// One uniform edit: substitute (by a different letter), insert or delete.
fn corrupt(s: &[u8], rng: &mut Randomness) -> Vec<u8> {
    let mut s = s.to_vec();
    let letter = |rng: &mut Randomness| b'A' + rng.below(26) as u8;
    match rng.below(3) {
        1 => {
            let p = rng.below(s.len() + 1);
            let c = letter(rng);
            s.insert(p, c);
        }
        2 if s.len() > 1 => {
            let p = rng.below(s.len());
            s.remove(p);
        }
        _ => {
            let p = rng.below(s.len());
            let mut c = letter(rng);
            while c == s[p] {
                c = letter(rng);
            }
            s[p] = c;
        }
    }
    s
}

struct Data {
    a: Vectors,
    b: Vectors,
}

fn data() -> Data {
    let names = names();
    let grams = top_grams(&names);
    let mut rng = Randomness::seeded(42);
    let corrupted: Vec<Vec<u8>> = names.iter().map(|n| corrupt(n, &mut rng)).collect();
    Data { a: embed(&names, &grams), b: embed(&corrupted, &grams) }
}

fn head(v: &Vectors, n: usize) -> Vectors {
    Vectors { dim: v.dim, data: v.data[..n.min(v.len()) * v.dim].to_vec() }
}

fn sizes(all: usize) -> Vec<usize> {
    match std::env::var("MATCHING_BENCH_SIZES") {
        Ok(s) => s.split(',').filter_map(|x| x.trim().parse().ok()).map(|n: usize| n.min(all)).collect(),
        Err(_) => vec![20_000, all],
    }
}

/// CPU seconds used by this process so far (Linux; 0 elsewhere): the machine
/// may be shared, so the report shows CPU time next to wall time.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let rest = s.rsplit(')').next()?.to_string();
            let f: Vec<&str> = rest.split_whitespace().collect();
            let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
            Some(ticks / 100.0)
        })
        .unwrap_or(0.0)
}

fn thresholds() -> Vec<f64> {
    match std::env::var("MATCHING_BENCH_THRESHOLDS") {
        Ok(s) => s.split(',').filter_map(|x| x.trim().parse().ok()).collect(),
        Err(_) => vec![2.0, 3.0],
    }
}

/// Pairs of `a` × `b` within `th`, estimated from the first rows of A.
fn estimate_pairs(a: &Vectors, b: &Vectors, th: f64) -> f64 {
    let k = a.len().min(1000);
    let sample = head(a, k);
    match trie_match(&sample, b, &vec![th; k], &TrieMatchOptions::default()) {
        Ok((p, _)) => p.len() as f64 * a.len() as f64 / k.max(1) as f64,
        Err(_) => f64::NAN,
    }
}

fn env<T: std::str::FromStr>(k: &str) -> Option<T> {
    std::env::var(k).ok().and_then(|s| s.parse().ok())
}

fn options() -> TrieMatchOptions {
    let d = TrieMatchOptions::default();
    TrieMatchOptions { depth: env("MATCHING_BENCH_DEPTH").unwrap_or(d.depth), leaf: env("MATCHING_BENCH_LEAF").unwrap_or(d.leaf), parallel: true }
}

fn line(what: &str, n: usize, th: f64, secs: f64, cpu: f64, r: Result<(Vec<Pair>, MatchStats), gramlink::Error>) {
    let n2 = n as f64 * n as f64;
    match r {
        Ok((pairs, s)) => println!(
            "{what:<20} n={n:>6} th={th}  {secs:>7.3} s (cpu {cpu:>6.2} s)  pairs {:>10} ({:.4}% of N²)  candidates {:>11} ({:.4}% of N²)",
            pairs.len(),
            100.0 * pairs.len() as f64 / n2,
            s.candidates,
            100.0 * s.candidates as f64 / n2
        ),
        Err(e) => println!("{what:<20} n={n:>6} th={th}  {secs:>7.3} s  failed: {e}"),
    }
}

/// Whether a configuration is run: its output must fit in memory.
fn feasible(a: &Vectors, b: &Vectors, th: f64) -> Result<(), f64> {
    let est = estimate_pairs(a, b, th);
    if est.is_finite() && est < 0.8 * MAX_PAIRS as f64 {
        Ok(())
    } else {
        Err(est)
    }
}

fn report(d: &Data) {
    let modes: Vec<bool> = match std::env::var("MATCHING_BENCH_MODES").as_deref() {
        Ok("parallel") => vec![true],
        Ok("sequential") => vec![false],
        _ => vec![true, false],
    };
    for n in sizes(d.a.len()) {
        let (a, b) = (head(&d.a, n), head(&d.b, n));
        for th in thresholds() {
            let ths = vec![th; a.len()];
            if let Err(est) = feasible(&a, &b, th) {
                println!("n={n:>6} th={th} not run: about {est:.3e} pairs ({:.1}% of N²) would be within the threshold, more than MAX_PAIRS = {MAX_PAIRS}", 100.0 * est / (n as f64 * n as f64));
                continue;
            }
            for &parallel in &modes {
                let opts = TrieMatchOptions { parallel, ..options() };
                let (t, c) = (Instant::now(), cpu_seconds());
                let r = trie_match(&a, &b, &ths, &opts);
                let (secs, cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c);
                line(if parallel { "trie_match parallel" } else { "trie_match 1 thread" }, n, th, secs, cpu, r);
            }
            if n <= env("MATCHING_BENCH_LATTICE_MAX").unwrap_or(20_000) {
                let (t, c) = (Instant::now(), cpu_seconds());
                let r = range_match(&a, &b, &ths);
                let (secs, cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c);
                line("range_match", n, th, secs, cpu, r);
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let d = data();
    report(&d);
    if std::env::var("MATCHING_BENCH_REPORT_ONLY").is_ok() {
        return;
    }
    let mut g = c.benchmark_group("matching");
    g.sample_size(10);
    for n in sizes(d.a.len()) {
        let (a, b) = (head(&d.a, n), head(&d.b, n));
        for th in thresholds() {
            if feasible(&a, &b, th).is_err() {
                continue;
            }
            let ths = vec![th; a.len()];
            let opts = options();
            g.bench_function(format!("trie_match_n{n}_th{th}"), |bench| bench.iter(|| trie_match(&a, &b, &ths, &opts)));
            // the lattice index takes ~35 s a run at 3.0: compared at 2.0 and below
            if n <= env("MATCHING_BENCH_LATTICE_MAX").unwrap_or(20_000) && th <= 2.0 {
                g.bench_function(format!("range_match_n{n}_th{th}"), |bench| bench.iter(|| range_match(&a, &b, &ths)));
            }
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
