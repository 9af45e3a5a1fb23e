//! Each role's step as one call on messages, for the CLI and the wasm bindings
//! alike: A's [`encrypt`] (block, DP release, encryption → `GLKA` bytes and A's
//! own report), B's [`compare`] (`GLKA` → blinded `GLKC` bytes and B's own pair
//! map) and C's [`decide`] (`GLKC` → matching pair ids).

use super::blocks::BlockModel;
use super::compare::alice::{encrypt_block, write_block, write_header, BlocksReader, Handles};
use super::compare::bob::{compare_block, read_pairs, write_pair, write_pairs_header, PairMap};
use super::compare::charlie;
use super::compare::rule::{Rule, Value};
use super::paillier::{Encryptor, PrivateKey, PublicKey};
use super::release::{release, ReleaseParams, ReleaseReport};
use super::table::Table;
use crate::dp::{BudgetLedger, Randomness};
use crate::error::Error;
use crate::progress::Progress;

/// What A keeps: the release report and each handle's record (None: a fake).
pub struct AliceSecrets {
    pub report: ReleaseReport,
    pub handles: Vec<(u64, Option<usize>)>,
}

fn model_fingerprint(model: &BlockModel) -> [u8; 32] {
    let mut f = [0u8; 32];
    let _ = hex::decode_to_slice(&model.fingerprint, &mut f);
    f
}

/// Released records A encrypts between two progress reports.
const ENCRYPT_CHUNK: usize = 16;

/// A: blocks its records, releases them with ε-DP sizes and encrypts them.
pub fn encrypt(
    table: &Table,
    rule: &Rule,
    model: &BlockModel,
    key: &PublicKey,
    params: &ReleaseParams,
    rng: &mut Randomness,
    progress: &mut dyn Progress,
) -> Result<(Vec<u8>, AliceSecrets), Error> {
    let assigner = model.assigner();
    let blocks: Vec<usize> = table.block_values.iter().map(|v| assigner.block_of(v)).collect();
    let mut ledger = BudgetLedger::new(params.epsilon);
    let rel = release(&blocks, model.n_blocks(), params, &mut ledger, rng)?;
    let enc = Encryptor::new(key, rng);
    let mut out = Vec::new();
    write_header(key, &model_fingerprint(model), rule, model.n_blocks(), &mut out);
    let (mut handles, mut owned) = (Handles::default(), Vec::new());
    let total = rel.blocks.iter().map(Vec::len).sum::<usize>() as u64;
    let mut done = 0u64;
    progress.tick("encrypt", 0, total)?;
    for slots in &rel.blocks {
        // in chunks of records, so that progress (and a cancel) comes often even when blocks are large
        let mut block = Vec::with_capacity(slots.len());
        for chunk in slots.chunks(ENCRYPT_CHUNK) {
            let (part, owner) = encrypt_block(&enc, rule, chunk, &table.records, &mut handles, rng);
            block.extend(part);
            owned.extend(owner);
            done += chunk.len() as u64;
            progress.tick("encrypt", done, total)?;
        }
        write_block(key, &block, &mut out);
    }
    Ok((out, AliceSecrets { report: rel.report, handles: owned }))
}

/// B: compares its records with A's encrypted blocks and blinds. Returns the
/// message for C (pairs in the order of their random ids, so it says nothing of
/// the blocks) and B's map from pair id to (A handle, B record).
#[allow(clippy::too_many_arguments)]
pub fn compare(
    table: &Table,
    rule: &Rule,
    model: &BlockModel,
    key: &PublicKey,
    blocks: &[u8],
    rerandomize: bool,
    rng: &mut Randomness,
    progress: &mut dyn Progress,
) -> Result<(Vec<u8>, PairMap), Error> {
    let mut reader = BlocksReader::open(blocks, key, &model_fingerprint(model), rule, model.n_blocks())?;
    let assigner = model.assigner();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); model.n_blocks()];
    for (j, v) in table.block_values.iter().enumerate() {
        members[assigner.block_of(v)].push(j);
    }
    let (mut ids, mut all, mut map) = (Handles::default(), Vec::new(), Vec::new());
    let encryptor = Encryptor::for_key_holder(key, rng);
    let mut blk = 0;
    while let Some(enc) = reader.next_block(key)? {
        let b_side: Vec<(usize, &[Value])> = members[blk].iter().map(|&j| (j, table.records[j].as_slice())).collect();
        blk += 1;
        progress.tick("compare", blk as u64, model.n_blocks() as u64)?;
        if enc.is_empty() || b_side.is_empty() {
            continue;
        }
        let (pairs, m) = compare_block(&encryptor, rule, &enc, &b_side, rerandomize, &mut ids, rng)?;
        all.extend(pairs);
        map.extend(m);
    }
    all.sort_by_key(|p| p.id);
    let mut out = Vec::new();
    write_pairs_header(key, rule, all.len() as u64, &mut out);
    for p in &all {
        write_pair(key, p, &mut out);
    }
    Ok((out, map))
}

/// C: the ids of the pairs that match, and the number of pairs read.
pub fn decide(
    pairs: &[u8],
    rule: &Rule,
    key: &PrivateKey,
    progress: &mut dyn Progress,
) -> Result<(Vec<u64>, usize), Error> {
    let pairs = read_pairs(pairs, key.public(), rule)?;
    let mut matched = Vec::new();
    for (i, p) in pairs.iter().enumerate() {
        if charlie::decide(key, rule, p)? {
            matched.push(p.id);
        }
        if i % 256 == 255 {
            progress.tick("decide", i as u64 + 1, pairs.len() as u64)?;
        }
    }
    Ok((matched, pairs.len()))
}

/// A's report as JSON (`gramlink/kuzu-release-report`): the release and each
/// handle's record id (null: a fake). A keeps it.
pub fn report_json(secrets: &AliceSecrets, ids: &[String]) -> String {
    let owned: Vec<(String, Option<&String>)> =
        secrets.handles.iter().map(|(h, i)| (format!("{h:016x}"), i.map(|i| &ids[i]))).collect();
    serde_json::json!({
        "format": "gramlink/kuzu-release-report", "version": 1, "release": secrets.report, "handles": owned,
    })
    .to_string()
}

/// B's pair map as JSON (`gramlink/kuzu-pair-map`): [pair id, A handle, B id]. B keeps it.
pub fn map_json(map: &[(u64, u64, usize)], ids: &[String]) -> String {
    let rows: Vec<(String, String, &String)> =
        map.iter().map(|(id, h, j)| (format!("{id:016x}"), format!("{h:016x}"), &ids[*j])).collect();
    serde_json::json!({ "format": "gramlink/kuzu-pair-map", "version": 1, "pairs": rows }).to_string()
}

/// C's answer as JSON (`gramlink/kuzu-matches`): the matching pair ids.
pub fn matches_json(key: &PublicKey, matched: &[u64]) -> String {
    let ids: Vec<String> = matched.iter().map(|id| format!("{id:016x}")).collect();
    serde_json::json!({ "format": "gramlink/kuzu-matches", "version": 1, "key": key.fingerprint(), "pairs": ids })
        .to_string()
}
