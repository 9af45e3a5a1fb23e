//! `gramlink lab kuzu-eval` and `gramlink lab kuzu-bench`: every role of Kuzu et al.'s
//! protocol on local files ([`gramlink::kuzu::session`]), with its quality
//! (precision, recall, F1; the blocking's RR and PC), time and bytes per role;
//! and the speed of each role's cryptographic operations per key size, with the
//! whole protocol's time projected from them (docs/KUZU.md).

use crate::io::{self, CliError, Result};
use crate::kuzu::{OptionalPublic, ReleaseFlags, RuleArgs};
use clap::Args;
use gramlink::alphabet::Alphabet;
use gramlink::clock::{Clock, SystemClock};
use gramlink::config::Config;
use gramlink::dataset::RawRecord;
use gramlink::dp::Randomness;
use gramlink::kuzu::blocks::BlockModel;
use gramlink::kuzu::compare::alice::{encrypt_block, encrypt_record, Handles};
use gramlink::kuzu::compare::bob::compare_pair;
use gramlink::kuzu::compare::charlie::decide;
use gramlink::kuzu::compare::rule::{AttrKind, AttributeSpec, Rule, RuleSpec};
use gramlink::kuzu::paillier::{Encryptor, PrivateKey};
use gramlink::kuzu::release::{ReleaseParams, Slot};
use gramlink::kuzu::session::{run, score, Mode, Outcome};
use gramlink::kuzu::table::Table;
use gramlink::party::DataOwner;
use gramlink::progress::NoProgress;
use std::collections::HashSet;
use std::path::PathBuf;

#[derive(Args)]
pub struct EvalArgs {
    /// A's and B's records (CSV with a header); not with --names.
    files: Vec<PathBuf>,
    /// The true pairs (CSV: a_id,b_id).
    #[arg(long)]
    truth: Option<PathBuf>,
    /// The decision rule (TOML or JSON); --names builds a one-attribute rule.
    #[arg(long)]
    rule: Option<PathBuf>,
    /// A block model from `kuzu blocks`; else one is built from --public.
    #[arg(long)]
    model: Option<PathBuf>,
    #[command(flatten)]
    public: OptionalPublic,
    #[command(flatten)]
    release: ReleaseFlags,
    /// Run the real encrypted protocol with a fresh key of this size (else decisions
    /// in the clear, identical by construction, and bytes counted for --bytes-bits).
    #[arg(long)]
    key_bits: Option<u32>,
    /// Without --key-bits: the key size the bytes per role are counted for.
    #[arg(long, default_value_t = 2048)]
    bytes_bits: u32,
    /// With --key-bits: skip re-randomizing the ciphertexts sent to C (faster; see
    /// docs/THREAT_MODEL.md).
    #[arg(long)]
    no_rerandomize: bool,
    /// The single-string scenario: A is --n strings of this list, B a copy with --ed edits each.
    #[arg(long, conflicts_with_all = ["files", "rule"])]
    names: Option<PathBuf>,
    /// With --names: how many strings A holds (a seeded random sample of the list).
    #[arg(long, default_value_t = 5000)]
    n: usize,
    /// With --names: exact number of random edits per B string.
    #[arg(long, default_value_t = 1)]
    ed: u32,
    /// θ of the single-string rule (its only weight is 1).
    #[arg(long, default_value_t = 0.5)]
    theta: f64,
    /// Also run gramlink's own record linkage on the same files with this schema.
    #[arg(long)]
    gramlink_schema: Option<PathBuf>,
    /// Seed of the data, the noise and the keys (an experiment, not a private run).
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Print JSON instead of the text report.
    #[arg(long)]
    json: bool,
}

/// The data of a run: rule, tables, truth.
struct Data {
    rule: Rule,
    a: Table,
    b: Table,
    truth: Option<HashSet<(String, String)>>,
    /// The single-string scenario's records (id, string) of A and B, for
    /// gramlink's own linkage of the same strings in the same run.
    strings: Option<(Vec<RawRecord>, Vec<RawRecord>)>,
}

fn names_data(path: &std::path::Path, n: usize, ed: u32, theta: f64, rng: &mut Randomness) -> Result<Data> {
    let text = io::read_text(path)?;
    let all: Vec<String> = text.lines().map(gramlink::kuzu::bigrams::normalize).filter(|s| !s.is_empty()).collect();
    if all.is_empty() {
        return Err(CliError::usage(format!("{} holds no strings", path.display())));
    }
    let pick = rng.permutation(all.len());
    let a: Vec<String> = pick.iter().take(n).map(|&i| all[i].clone()).collect();
    let b: Vec<String> = a.iter().map(|s| gramlink::eval::corrupt::corrupt(s, ed, rng)).collect();
    let rule = RuleSpec {
        id: "id".into(),
        block: "value".into(),
        threshold: theta,
        attributes: vec![AttributeSpec {
            column: "value".into(),
            kind: AttrKind::String,
            weight: 1.0,
            min: None,
            max: None,
        }],
    }
    .validate()?;
    let ids: Vec<String> = (0..a.len()).map(|i| format!("r{i}")).collect();
    let truth = ids.iter().map(|i| (i.clone(), i.clone())).collect();
    // B's records in a random order (docs/SCENARIO.md)
    let order = rng.permutation(b.len());
    let (b, b_ids): (Vec<String>, Vec<String>) = order.iter().map(|&i| (b[i].clone(), ids[i].clone())).unzip();
    let raw = |v: &[String], ids: &[String]| -> Vec<RawRecord> {
        v.iter().zip(ids).map(|(t, id)| RawRecord { id: id.clone(), text: t.clone() }).collect()
    };
    let strings = Some((raw(&a, &ids), raw(&b, &b_ids)));
    Ok(Data {
        a: Table::from_strings(&a, ids, &rule)?,
        b: Table::from_strings(&b, b_ids, &rule)?,
        rule,
        truth: Some(truth),
        strings,
    })
}

fn load(a: &EvalArgs, rng: &mut Randomness) -> Result<Data> {
    if let Some(names) = &a.names {
        return names_data(names, a.n, a.ed, a.theta, rng);
    }
    let [fa, fb] = a.files.as_slice() else {
        return Err(CliError::usage("give A's and B's files, or --names"));
    };
    let rule =
        RuleArgs { rule: a.rule.clone().ok_or_else(|| CliError::usage("--rule is required with files"))? }.load()?;
    let read =
        |p: &PathBuf| -> Result<Table> { Ok(Table::read_csv(&io::read_bytes(p)?, &p.display().to_string(), &rule)?) };
    let (ta, tb) = (read(fa)?, read(fb)?);
    let truth = match &a.truth {
        Some(p) => Some(gramlink::matching::truth::read_truth(&io::read_bytes(p)?, &p.display().to_string())?),
        None => None,
    };
    Ok(Data { rule, a: ta, b: tb, truth, strings: None })
}

fn model(a: &EvalArgs, rule: &Rule) -> Result<BlockModel> {
    match &a.model {
        Some(p) => Ok(BlockModel::from_json(&io::read_text(p)?)?),
        None => a.public.model(&rule.block)?.ok_or_else(|| CliError::usage("give --model or --public")),
    }
}

pub fn cmd_eval(a: EvalArgs) -> Result<()> {
    let mut rng = Randomness::seeded(a.seed);
    let d = load(&a, &mut rng)?;
    let model = model(&a, &d.rule)?;
    let params = ReleaseParams::new(a.release.epsilon, a.release.wn, d.b.len() as u64)?;
    let clock = SystemClock::default();
    let key = match a.key_bits {
        // from its own stream, so the release is the same as a clear run's with this seed
        Some(bits) => Some(PrivateKey::generate(bits, &mut Randomness::seeded(a.seed ^ 0x6b6579))?),
        None => None,
    };
    let mode = match &key {
        Some(k) => Mode::Encrypted { key: k, rerandomize: !a.no_rerandomize },
        None => Mode::Clear { key_bits: a.bytes_bits },
    };
    let t = clock.now_ms();
    let out = run(&model, &d.rule, &d.a, &d.b, &params, mode, &clock, &mut rng)?;
    let total_ms = clock.now_ms() - t;
    let scores = d.truth.as_ref().map(|t| score(&out, &d.a, &d.b, t));
    // the single-string scenario: gramlink's own linkage of the same strings, beside
    let own = match (&d.strings, &d.truth) {
        (Some((ra, rb)), Some(truth)) => Some(one_string(ra, rb, truth, a.seed)?),
        _ => None,
    };
    if a.json {
        let v = serde_json::json!({
            "a": d.a.len(), "b": d.b.len(), "blocks": model.n_blocks(), "epsilon": a.release.epsilon, "wn": a.release.wn,
            "encrypted": key.as_ref().map(|k| k.public().bits()), "scores": scores, "candidates": out.candidates,
            "released": out.released, "fakes": out.release.fakes, "suppressed": out.release.suppressed.len(),
            "shift": out.release.shift, "mu": out.release.mu, "time_ms": out.time_ms, "bytes": out.bytes,
            "encryptions": out.encryptions, "total_ms": total_ms, "checked": out.checked,
            "disagreements": out.disagreements,
            "gramlink": own.as_ref().map(|(q, ms)| serde_json::json!({
                "precision": q.precision, "recall": q.recall, "f1": q.f1, "pairs": q.pairs, "total_ms": ms,
            })),
        });
        println!("{v}");
    } else {
        print_outcome(&a, &d, &model, &out, key.as_ref().map(|k| k.public().bits()), scores.as_ref(), total_ms);
        if let Some((q, ms)) = &own {
            println!(
                "gramlink on the same strings (recommended configuration, unkeyed, ε {} per party, seed {}): \
                 precision {:.4}  recall {:.4}  F1 {:.4}  ({} pairs, {:.0} ms)",
                Config::recommended().mine.epsilon,
                a.seed,
                q.precision,
                q.recall,
                q.f1,
                q.pairs,
                ms
            );
        }
    }
    if let Some(schema) = &a.gramlink_schema {
        let [fa, fb] = a.files.as_slice() else {
            return Err(CliError::usage("--gramlink-schema needs A's and B's files"));
        };
        println!("gramlink's own record linkage on the same files:");
        crate::records::run(crate::records::RecordRun {
            date_formats: [&[], &[]],
            schema,
            a: fa,
            b: fb,
            truth: a.truth.as_deref(),
            seed: Some(a.seed),
            keyed: false,
            encoding: None,
            key: None,
            out: None,
            json: a.json,
        })?;
    }
    Ok(())
}

/// gramlink's grams-projection linkage of the single-string scenario's strings
/// (every role in this process, [`gramlink::session::run`], the recommended
/// configuration as `link` runs it), scored against the same truth as Kuzu's.
fn one_string(
    a: &[RawRecord],
    b: &[RawRecord],
    truth: &HashSet<(String, String)>,
    seed: u64,
) -> Result<(gramlink::matching::truth::Quality, f64)> {
    let config = Config::recommended();
    let alphabet = Alphabet::default();
    let mut rng = Randomness::seeded(seed ^ 0x6f6e65);
    let budget = config.mine.budget();
    let mut owner_a = DataOwner::from_raw(a.to_vec(), &alphabet, budget, rng.fork())?;
    let mut owner_b = DataOwner::from_raw(b.to_vec(), &alphabet, budget, rng.fork())?;
    let clock = SystemClock::default();
    let t = clock.now_ms();
    let s = gramlink::session::run(&mut owner_a, &mut owner_b, &config, None, &clock, &mut NoProgress)?;
    let (ia, ib) = (s.matcher.a().ids.as_slice(), s.matcher.b().ids.as_slice());
    let pairs = s.pairs.iter().map(|p| (ia[p.a as usize].as_str(), ib[p.b as usize].as_str()));
    Ok((gramlink::matching::truth::quality_by_ids(pairs, truth), clock.now_ms() - t))
}

fn print_outcome(
    a: &EvalArgs,
    d: &Data,
    model: &BlockModel,
    out: &Outcome,
    bits: Option<u32>,
    s: Option<&gramlink::kuzu::session::Scores>,
    total_ms: f64,
) {
    println!(
        "kuzu: {} x {} records, {} blocks ({} public values of {}), ε {}, w_n {}, shift {} (μ {:.2}), {}, seed {} (an experiment: NOT private)",
        d.a.len(),
        d.b.len(),
        model.n_blocks(),
        model.source.used,
        model.source.name,
        a.release.epsilon,
        a.release.wn,
        out.release.shift,
        out.release.mu,
        match bits {
            Some(b) => format!("encrypted ({b}-bit Paillier)"),
            None => format!("decisions in the clear (bytes for {}-bit keys)", a.bytes_bits),
        },
        a.seed
    );
    println!(
        "released {} ({} fakes, {} suppressed); candidates {} ({} with a real A record)",
        out.released,
        out.release.fakes,
        out.release.suppressed.len(),
        out.candidates,
        out.real_candidates
    );
    if let Some(s) = s {
        println!(
            "precision {:.4}  recall {:.4}  F1 {:.4}  RR {:.4}  PC {:.4}  ({} links, {} true, {} true pairs)",
            s.precision, s.recall, s.f1, s.rr, s.pc, s.links, s.true_links, s.true_pairs
        );
    }
    println!(
        "time ms: A {:.0}, B {:.0}, C {:.0} (total {:.0}); bytes: A->B {}, B->C {}, C->B {}; encryptions {}",
        out.time_ms.a,
        out.time_ms.b,
        out.time_ms.c,
        total_ms,
        out.bytes.a_to_b,
        out.bytes.b_to_c,
        out.bytes.c_to_b,
        out.encryptions
    );
    if bits.is_some() {
        println!(
            "C's decisions equal the rule's in the clear on {} of {} pairs",
            out.checked - out.disagreements,
            out.checked
        );
    }
}

#[derive(Args)]
pub struct BenchArgs {
    /// A's and B's records: sample records to time, and (with --public) the counts to project.
    files: Vec<PathBuf>,
    #[command(flatten)]
    rule: RuleArgs,
    /// Comma-separated Paillier key sizes in bits.
    #[arg(long, value_delimiter = ',', default_values_t = vec![512, 1024, 2048])]
    bits: Vec<u32>,
    /// A records encrypted per key size.
    #[arg(long, default_value_t = 2)]
    records: usize,
    /// Pairs compared and decided per key size.
    #[arg(long, default_value_t = 40)]
    pairs: usize,
    #[command(flatten)]
    public: OptionalPublic,
    #[command(flatten)]
    release: ReleaseFlags,
    /// Seed of the sample and of the keys (an experiment, not a private run).
    #[arg(long, default_value_t = 42)]
    seed: u64,
}

pub fn cmd_bench(a: BenchArgs) -> Result<()> {
    let rule = a.rule.load()?;
    let [fa, fb] = a.files.as_slice() else {
        return Err(CliError::usage("give A's and B's files"));
    };
    let read =
        |p: &PathBuf| -> Result<Table> { Ok(Table::read_csv(&io::read_bytes(p)?, &p.display().to_string(), &rule)?) };
    let (ta, tb) = (read(fa)?, read(fb)?);
    let mut rng = Randomness::seeded(a.seed);
    let clock = SystemClock::default();
    // the counts of a whole run, in the clear
    let counts = match a.public.model(&rule.block)? {
        Some(model) => {
            let params = ReleaseParams::new(a.release.epsilon, a.release.wn, tb.len() as u64)?;
            let out = run(&model, &rule, &ta, &tb, &params, Mode::Clear { key_bits: 2048 }, &clock, &mut rng)?;
            println!(
                "whole run ({} x {}, {} blocks, ε {}, w_n {}): {} released records ({} fakes), {} candidate pairs",
                ta.len(),
                tb.len(),
                model.n_blocks(),
                a.release.epsilon,
                a.release.wn,
                out.released,
                out.release.fakes,
                out.candidates
            );
            Some(out)
        }
        None => None,
    };
    let per_record: usize = rule.attrs.iter().map(|x| x.ciphertexts()).sum();
    println!("| key bits | keygen s | table s | enc/s (1 thread) | enc/s (all threads) | compare pairs/s | compare+rerand pairs/s | decide pairs/s | A s | B s | C s | A->B GB | B->C GB |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for &bits in &a.bits {
        let t = clock.now_ms();
        let key = PrivateKey::generate(bits, &mut rng)?;
        let keygen = (clock.now_ms() - t) / 1e3;
        let pk = key.public();
        let t = clock.now_ms();
        let encryptor = Encryptor::new(pk, &mut rng);
        let table_s = (clock.now_ms() - t) / 1e3;
        let b_encryptor = Encryptor::for_key_holder(pk, &mut rng);
        let t = clock.now_ms();
        let enc: Vec<_> =
            (0..a.records).map(|i| encrypt_record(&encryptor, &ta.records[i % ta.len()], &mut rng)).collect();
        let enc1 = (a.records * per_record) as f64 / ((clock.now_ms() - t) / 1e3);
        let slots: Vec<Slot> = (0..a.records.max(2)).map(|i| Slot::Real(i % ta.len())).collect();
        let t = clock.now_ms();
        let (blk, _) = encrypt_block(&encryptor, &rule, &slots, &ta.records, &mut Handles::default(), &mut rng);
        let enc_all = (slots.len() * per_record) as f64 / ((clock.now_ms() - t) / 1e3);
        let recs: Vec<_> = enc
            .into_iter()
            .zip(&blk)
            .map(|(cts, r)| gramlink::kuzu::compare::alice::EncRecord { handle: r.handle, cts })
            .collect();
        let time_pairs = |rerand: bool, rng: &mut Randomness| -> Result<(f64, Vec<_>)> {
            let t = clock.now_ms();
            let mut out = Vec::new();
            for i in 0..a.pairs {
                let (theta, cts) =
                    compare_pair(&b_encryptor, &rule, &recs[i % recs.len()], &tb.records[i % tb.len()], rerand, rng)?;
                out.push(gramlink::kuzu::compare::bob::BlindedPair { id: i as u64, theta, cts });
            }
            Ok((a.pairs as f64 / ((clock.now_ms() - t) / 1e3), out))
        };
        let (cmp, pairs) = time_pairs(false, &mut rng)?;
        let (cmp_r, _) = time_pairs(true, &mut rng)?;
        let t = clock.now_ms();
        for p in &pairs {
            decide(&key, &rule, p)?;
        }
        let dec = a.pairs as f64 / ((clock.now_ms() - t) / 1e3);
        let (ta_s, tb_s, tc_s, ab, bc) = match &counts {
            Some(o) => {
                let width = pk.ciphertext_bytes() as f64;
                let per_pair: usize = rule.attrs.iter().map(|x| x.pair_ciphertexts()).sum();
                (
                    format!("{:.0}", o.released as f64 * per_record as f64 / enc1),
                    format!("{:.0}", o.candidates as f64 / cmp_r),
                    format!("{:.0}", o.candidates as f64 / dec),
                    format!("{:.2}", o.released as f64 * (8.0 + per_record as f64 * width) / 1e9),
                    format!(
                        "{:.2}",
                        o.candidates as f64 * (8.0 + 9.0 + 16.0 * rule.attrs.len() as f64 + per_pair as f64 * width)
                            / 1e9
                    ),
                )
            }
            None => Default::default(),
        };
        println!(
            "| {bits} | {keygen:.2} | {table_s:.3} | {enc1:.0} | {enc_all:.0} | {cmp:.1} | {cmp_r:.1} | {dec:.1} | {ta_s} | {tb_s} | {tc_s} | {ab} | {bc} |"
        );
    }
    println!("(A, B, C seconds: one thread each, projected from the rates above and the whole run's counts; B re-randomizes)");
    Ok(())
}
