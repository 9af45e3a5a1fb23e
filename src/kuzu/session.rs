//! The whole protocol between two local tables, every role in turn, for the
//! CLI's `kuzu eval` and the measurements of docs/KUZU.md: blocking, the DP
//! release, then per block A's encryption, B's blinded comparisons and C's
//! decisions. Block by block, so memory holds one block's ciphertexts at a time.
//!
//! In [`Mode::Clear`] the same steps run without encryption: each pair is decided
//! by [`Rule::decide_plain`], which is exactly C's decision on the blinded
//! ciphertexts (the property test of [`super::compare`] checks it); the byte
//! counts are then those the encrypted run would send at the given key size. It
//! is for linkage-quality measurements on data too large to encrypt in a test run.

use super::blocks::BlockModel;
use super::compare::alice::{encrypt_block, write_block, write_header, Handles};
use super::compare::bob::{compare_block, write_pair, write_pairs_header};
use super::compare::charlie::decide;
use super::compare::rule::{Attr, Rule, Value};
use super::paillier::{Encryptor, PrivateKey};
use super::release::{release, ReleaseParams, ReleaseReport, Slot};
use super::table::Table;
use crate::clock::Clock;
use crate::dp::{BudgetLedger, Randomness};
use crate::error::Error;
use serde::Serialize;
use std::collections::HashMap;

/// How pairs are compared.
pub enum Mode<'a> {
    /// Decisions in the clear; bytes counted for a key of `key_bits`.
    Clear { key_bits: u32 },
    /// The real protocol under `key` (C's key pair; A and B use its public half).
    Encrypted { key: &'a PrivateKey, rerandomize: bool },
}

/// Milliseconds spent by each role.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RoleTimes {
    pub a: f64,
    pub b: f64,
    pub c: f64,
}

/// Bytes sent by each role (A → B encrypted blocks, B → C blinded pairs, C → B match ids).
#[derive(Debug, Clone, Default, Serialize)]
pub struct RoleBytes {
    pub a_to_b: u64,
    pub b_to_c: u64,
    pub c_to_b: u64,
}

/// What a run produced.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// Matched pairs as (A index, B index).
    pub links: Vec<(usize, usize)>,
    /// Pairs compared, fakes included (the paper's c).
    pub candidates: u64,
    /// Pairs compared whose A side is a real record.
    pub real_candidates: u64,
    /// Pairs (a, b) of real records in the same block (before the release).
    pub same_block: Vec<(usize, usize)>,
    pub released: u64,
    pub release: ReleaseReport,
    pub time_ms: RoleTimes,
    pub bytes: RoleBytes,
    /// Paillier encryptions A made.
    pub encryptions: u64,
    /// Encrypted runs: C's decisions checked against the rule in the clear, and
    /// how many differed (0 unless something is wrong).
    pub checked: u64,
    pub disagreements: u64,
}

#[allow(clippy::too_many_arguments)]
/// Runs the protocol; A's release spends `params.epsilon` of a fresh ledger.
pub fn run(
    model: &BlockModel,
    rule: &Rule,
    a: &Table,
    b: &Table,
    params: &ReleaseParams,
    mode: Mode,
    clock: &dyn Clock,
    rng: &mut Randomness,
) -> Result<Outcome, Error> {
    let mut times = RoleTimes::default();
    let t = clock.now_ms();
    let assigner = model.assigner();
    let a_blocks: Vec<usize> = a.block_values.iter().map(|v| assigner.block_of(v)).collect();
    let mut ledger = BudgetLedger::new(params.epsilon);
    let rel = release(&a_blocks, model.n_blocks(), params, &mut ledger, rng)?;
    times.a += clock.now_ms() - t;
    let t = clock.now_ms();
    let mut b_members: Vec<Vec<usize>> = vec![Vec::new(); model.n_blocks()];
    for (j, v) in b.block_values.iter().enumerate() {
        b_members[assigner.block_of(v)].push(j);
    }
    times.b += clock.now_ms() - t;

    let per_record: u64 = rule.attrs.iter().map(|x| x.ciphertexts() as u64).sum();
    let per_pair: u64 = rule.attrs.iter().map(|x| Attr::pair_ciphertexts(x) as u64).sum();
    let width = |bits: u32| 2 * bits.div_ceil(8) as u64;
    let mut out = Outcome {
        links: Vec::new(),
        candidates: 0,
        real_candidates: 0,
        same_block: Vec::new(),
        released: 0,
        release: rel.report.clone(),
        time_ms: RoleTimes::default(),
        bytes: RoleBytes::default(),
        encryptions: 0,
        checked: 0,
        disagreements: 0,
    };
    for (i, &blk) in a_blocks.iter().enumerate() {
        out.same_block.extend(b_members[blk].iter().map(|&j| (i, j)));
    }
    let (mut handles, mut pair_ids) = (Handles::default(), Handles::default());
    // A's and B's encryptors (each party's own h), built once: their tables count in each role's time
    let encryptors = match &mode {
        Mode::Encrypted { key, .. } => {
            let t = clock.now_ms();
            let a_enc = Encryptor::new(key.public(), rng);
            times.a += clock.now_ms() - t;
            let t = clock.now_ms();
            let b_enc = Encryptor::for_key_holder(key.public(), rng);
            times.b += clock.now_ms() - t;
            Some((a_enc, b_enc))
        }
        Mode::Clear { .. } => None,
    };
    let mut header = Vec::new();
    match &mode {
        Mode::Clear { key_bits } => {
            out.bytes.a_to_b = 4 + 4 + 96 + 4;
            out.bytes.b_to_c = 4 + 4 + 64 + 8;
            let _ = key_bits;
        }
        Mode::Encrypted { key, .. } => {
            let fp: [u8; 32] = hex::decode(&model.fingerprint).ok().and_then(|v| v.try_into().ok()).unwrap_or([0; 32]);
            write_header(key.public(), &fp, rule, model.n_blocks(), &mut header);
            out.bytes.a_to_b = header.len() as u64;
            header.clear();
            write_pairs_header(key.public(), rule, 0, &mut header);
            out.bytes.b_to_c = header.len() as u64;
        }
    }
    for (blk, slots) in rel.blocks.iter().enumerate() {
        let bs = &b_members[blk];
        out.released += slots.len() as u64;
        out.candidates += (slots.len() * bs.len()) as u64;
        out.real_candidates += (slots.iter().filter(|s| matches!(s, Slot::Real(_))).count() * bs.len()) as u64;
        match &mode {
            Mode::Clear { key_bits } => {
                let t = clock.now_ms();
                out.bytes.a_to_b += 4 + slots.len() as u64 * (8 + per_record * width(*key_bits));
                // the blinded threshold is about 16 bytes per attribute
                out.bytes.b_to_c += (slots.len() * bs.len()) as u64
                    * (8 + 9 + 16 * rule.attrs.len() as u64 + per_pair * width(*key_bits));
                let fake = rule.fake();
                for s in slots {
                    let va: &[Value] = match s {
                        Slot::Real(i) => &a.records[*i],
                        Slot::Fake => &fake,
                    };
                    for &j in bs {
                        if rule.decide_plain(va, &b.records[j]) {
                            match s {
                                Slot::Real(i) => out.links.push((*i, j)),
                                Slot::Fake => return Err(Error::Parameter("a fake record matched".into())),
                            }
                            out.bytes.c_to_b += 8;
                        }
                    }
                }
                times.c += clock.now_ms() - t;
            }
            Mode::Encrypted { key, rerandomize } => {
                let pk = key.public();
                let (a_enc, b_enc) = encryptors.as_ref().expect("built for the encrypted mode");
                let t = clock.now_ms();
                let (enc, owner) = encrypt_block(a_enc, rule, slots, &a.records, &mut handles, rng);
                let mut buf = Vec::new();
                write_block(pk, &enc, &mut buf);
                out.bytes.a_to_b += buf.len() as u64;
                out.encryptions += slots.len() as u64 * per_record;
                times.a += clock.now_ms() - t;
                if bs.is_empty() {
                    continue;
                }
                let t = clock.now_ms();
                let b_side: Vec<(usize, &[Value])> = bs.iter().map(|&j| (j, b.records[j].as_slice())).collect();
                let (pairs, map) = compare_block(b_enc, rule, &enc, &b_side, *rerandomize, &mut pair_ids, rng)?;
                let mut buf = Vec::new();
                for p in &pairs {
                    write_pair(pk, p, &mut buf);
                }
                out.bytes.b_to_c += buf.len() as u64;
                times.b += clock.now_ms() - t;
                let t = clock.now_ms();
                let decisions =
                    crate::par::map(&pairs, |p| decide(key, rule, p)).into_iter().collect::<Result<Vec<_>, _>>()?;
                let matched: Vec<u64> = pairs.iter().zip(&decisions).filter(|(_, &d)| d).map(|(p, _)| p.id).collect();
                out.bytes.c_to_b += 8 * matched.len() as u64;
                times.c += clock.now_ms() - t;
                // B maps pair ids to (handle, B record); A maps handles to its records
                let by_id: HashMap<u64, (u64, usize)> = map.into_iter().map(|(id, h, j)| (id, (h, j))).collect();
                let by_handle: HashMap<u64, Option<usize>> = owner.into_iter().collect();
                // the evaluation's own check (no role could do it): C's decision is the clear rule's
                let fake = rule.fake();
                for (p, &d) in pairs.iter().zip(&decisions) {
                    let found = by_id.get(&p.id).and_then(|&(h, j)| Some((*by_handle.get(&h)?, j)));
                    if let Some((real, j)) = found {
                        let va: &[Value] = real.map_or(&fake, |i| &a.records[i]);
                        out.checked += 1;
                        out.disagreements += u64::from(rule.decide_plain(va, &b.records[j]) != d);
                    }
                }
                for id in matched {
                    let found = by_id.get(&id).and_then(|&(h, j)| Some((*by_handle.get(&h)?, j)));
                    match found {
                        Some((Some(i), j)) => out.links.push((i, j)),
                        Some((None, _)) => return Err(Error::Parameter("a fake record matched".into())),
                        None => return Err(Error::Parameter(format!("C returned an unknown pair id {id}"))),
                    }
                }
            }
        }
    }
    out.time_ms = times;
    out.links.sort_unstable();
    Ok(out)
}

/// Linkage and blocking quality against the truth.
#[derive(Debug, Clone, Serialize)]
pub struct Scores {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    /// Reduction ratio 1 − c/(|A|·|B|), c counting fakes.
    pub rr: f64,
    /// Pairs completeness: true pairs compared (same block, A's record not suppressed) / true pairs.
    pub pc: f64,
    pub links: usize,
    pub true_links: usize,
    pub true_pairs: usize,
}

/// Scores an outcome; `truth` holds (A id, B id) pairs.
pub fn score(out: &Outcome, a: &Table, b: &Table, truth: &std::collections::HashSet<(String, String)>) -> Scores {
    let is_true = |&(i, j): &(usize, usize)| truth.contains(&(a.ids[i].clone(), b.ids[j].clone()));
    let true_links = out.links.iter().filter(|p| is_true(p)).count();
    let suppressed: std::collections::HashSet<usize> = out.release.suppressed.iter().copied().collect();
    let compared = out.same_block.iter().filter(|p| is_true(p) && !suppressed.contains(&p.0)).count();
    let ratio = |x: usize, y: usize| if y == 0 { 0.0 } else { x as f64 / y as f64 };
    let precision = ratio(true_links, out.links.len());
    let recall = ratio(true_links, truth.len());
    let f1 = if precision + recall > 0.0 { 2.0 * precision * recall / (precision + recall) } else { 0.0 };
    Scores {
        precision,
        recall,
        f1,
        rr: 1.0 - out.candidates as f64 / (a.len() as f64 * b.len() as f64),
        pc: ratio(compared, truth.len()),
        links: out.links.len(),
        true_links,
        true_pairs: truth.len(),
    }
}
