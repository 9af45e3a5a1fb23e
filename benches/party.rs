//! The native twin of benches/wasm/pipeline-steps.mjs: the same NAMES party
//! pipeline (normalize, mine, merge, embed, thresholds) and matcher, on the same
//! inputs (party B: each name with its last letter doubled; seeds 1 and 2, ε = 0.1,
//! k = 75, thresholds for ed 1; `PRESET=paper`, the default, or `recommended`),
//! timed step by step, through the
//! core's roles (`DataOwner`, `Matcher`) as the wasm API calls them. Run it
//! single-threaded like wasm (`RAYON_NUM_THREADS=1`) to compare. Each
//! step does what the wasm API's call does: `embed` ends with the party's binary
//! vector batch (validated, encoded), and the matcher starts from the two
//! messages (decoded, validated) and ends with its pairs by ids.
//! Run: `cargo bench --bench party`.

use gramlink::alphabet::Alphabet;
use gramlink::config::Config;
use gramlink::dataset::InputFormat;
use gramlink::dp::{Epsilon, Randomness};
use gramlink::matcher::Matcher;
use gramlink::party::{merge_bases, DataOwner, EmbedOptions};
use gramlink::progress::NoProgress;
use gramlink::protocol::Party;
use std::time::Instant;

/// One run of the pipeline: each step's time in ms, and the number of pairs.
fn run_once(text: &str, doubled: &str, config: &Config) -> (Vec<(&'static str, f64)>, usize) {
    let mut times = Vec::new();
    let mut t = Instant::now();
    let mut lap = |label: &'static str| {
        times.push((label, t.elapsed().as_secs_f64() * 1e3));
        t = Instant::now();
    };
    let al = Alphabet::default();
    let budget = Epsilon::new(0.1).expect("epsilon");
    let owner = |s: &str, seed| {
        DataOwner::read(s.as_bytes(), &InputFormat::Text, "names", &al, budget, Randomness::seeded(seed))
            .expect("owner")
    };
    let (mut a, mut b) = (owner(text, 1), owner(doubled, 2));
    lap("normalize A+B");
    let na = a.mine(&config.mine, &mut NoProgress).expect("mine");
    lap("mine A");
    let nb = b.mine(&config.mine, &mut NoProgress).expect("mine");
    lap("mine B");
    let shared = merge_bases(&na, &nb, &config.mine).expect("merge");
    lap("merge");
    // the party's message, as the wasm API's `embed` returns it; the time spent on
    // encoding messages is also shown on its own
    let messages = std::cell::Cell::new(0.0);
    let message = |owner: &DataOwner, party| {
        let batch = owner.embed(&shared, &EmbedOptions::new(party, config), &mut NoProgress).expect("embed").batch;
        let t = Instant::now();
        let bytes = batch.to_binary();
        messages.set(messages.get() + t.elapsed().as_secs_f64() * 1e3);
        bytes
    };
    let ma = message(&a, Party::A);
    lap("embed+thresholds A");
    let mb = message(&b, Party::B);
    lap("embed B");
    // the matcher: both messages read and checked, the paper's rule, pairs by ids
    let t = Instant::now();
    let matcher = Matcher::read(&ma, &mb).expect("batches");
    messages.set(messages.get() + t.elapsed().as_secs_f64() * 1e3);
    lap("matcher: read");
    let linkage = matcher.link(config.rule).expect("match");
    let (ia, ib) = (&matcher.a().ids, &matcher.b().ids);
    let by_id: Vec<(&str, &str, f64)> =
        linkage.pairs.iter().map(|p| (ia[p.a as usize].as_str(), ib[p.b as usize].as_str(), p.distance)).collect();
    assert_eq!(by_id.len(), linkage.pairs.len());
    lap("matcher: match");
    let party_a = times[0].1 / 2.0 + times[1].1 + times[4].1;
    times.push(("party A total", party_a));
    times.push(("matcher total", times[6].1 + times[7].1));
    times.push(("of all, messages", messages.get()));
    (times, linkage.pairs.len())
}

fn show(label: &str, times: &[(&str, f64)], pairs: usize) {
    let parts: Vec<String> = times.iter().map(|(k, v)| format!("{k} {v:.0} ms")).collect();
    println!("{label}: {}; {pairs} pairs", parts.join(", "));
}

/// One run from a child process: its number of pairs and each step's time in ms.
type Run = (usize, Vec<(String, f64)>);

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.len() % 2 == 1 {
        v[v.len() / 2]
    } else {
        (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
    }
}

/// Like benches/wasm/pipeline.mjs: `FRESH` fresh processes (default 3), each
/// running the pipeline `RUNS` times (default 4). Shown: the median over the
/// processes of their first run, and the median of the later runs' medians. A
/// first run is one sample per process, so it is taken in several processes.
fn main() {
    let env = |k: &str, d: usize| std::env::var(k).ok().and_then(|r| r.parse::<usize>().ok()).unwrap_or(d);
    let runs = env("RUNS", 4).max(2);
    if std::env::var_os("GRAMLINK_BENCH_CHILD").is_some() {
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/names.txt")).expect("data/names.txt");
        let names: Vec<&str> = text.lines().filter(|s| !s.is_empty()).collect();
        let doubled: String = names.iter().map(|s| format!("{s}{}\n", s.chars().last().unwrap())).collect();
        // one line per run: pairs, then "label=ms" per step
        for _ in 0..runs {
            let config = match std::env::var("PRESET").as_deref() {
                Ok("recommended") => Config::default(),
                Ok("paper") | Err(_) => Config::paper(),
                Ok(other) => panic!("PRESET={other}: paper or recommended"),
            };
            let (times, pairs) = run_once(&text, &doubled, &config);
            let steps: Vec<String> = times.iter().map(|(k, v)| format!("{k}={v}")).collect();
            println!("{pairs}\t{}", steps.join("\t"));
        }
        return;
    }
    let fresh = env("FRESH", 3).max(1);
    let exe = std::env::current_exe().expect("the bench's own path");
    // per process, its runs
    let processes: Vec<Vec<Run>> = (0..fresh)
        .map(|_| {
            let out = std::process::Command::new(&exe)
                .env("GRAMLINK_BENCH_CHILD", "1")
                .output()
                .expect("run the bench in a fresh process");
            assert!(out.status.success(), "bench process failed: {}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8(out.stdout)
                .expect("utf-8")
                .lines()
                .map(|line| {
                    let mut f = line.split('\t');
                    let pairs = f.next().and_then(|p| p.parse().ok()).expect("pairs");
                    let steps = f
                        .map(|kv| {
                            kv.split_once('=').map(|(k, v)| (k.to_string(), v.parse().expect("ms"))).expect("step")
                        })
                        .collect();
                    (pairs, steps)
                })
                .collect()
        })
        .collect();
    let pairs = processes[0][0].0;
    let labels: Vec<&str> = processes[0][0].1.iter().map(|(k, _)| k.as_str()).collect();
    let first: Vec<(&str, f64)> =
        labels.iter().enumerate().map(|(k, &l)| (l, median(processes.iter().map(|p| p[0].1[k].1).collect()))).collect();
    let warm: Vec<(&str, f64)> = labels
        .iter()
        .enumerate()
        .map(|(k, &l)| {
            (l, median(processes.iter().map(|p| median(p[1..].iter().map(|r| r.1[k].1).collect())).collect()))
        })
        .collect();
    show(&format!("native, first run (median of {fresh} processes)"), &first, pairs);
    show(&format!("native, later runs (median of {fresh} processes' medians of {} runs)", runs - 1), &warm, pairs);
}
