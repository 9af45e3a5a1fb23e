//! A's side of the comparison: encode the released records, fakes included, and
//! encrypt them under C's key (the paper's §4.3): for a string attribute every bit
//! of the 729-bit bigram vector and the number of ones; for a number its value and
//! its square. Each released record gets a random 64-bit handle; which handle is
//! which record (or a fake) stays with A.

use super::super::paillier::{Ciphertext, Encryptor, PublicKey};
use super::super::release::Slot;
use super::rule::{Rule, Value};
use super::wire::{key_fingerprint, put_u32, put_u64, Reader, BLOCKS_MAGIC, WIRE_VERSION};
use crate::dp::Randomness;
use crate::error::Error;
use num_bigint::BigUint;
use std::collections::HashSet;

/// One released record, encrypted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncRecord {
    pub handle: u64,
    pub cts: Vec<Ciphertext>,
}

/// Encrypts one encoded record (the paper's π_{r.R}) with A's [`Encryptor`].
pub fn encrypt_record(enc: &Encryptor, values: &[Value], rng: &mut Randomness) -> Vec<Ciphertext> {
    let key = enc.key();
    let mut cts = Vec::new();
    for v in values {
        match v {
            Value::Str(set) => {
                for i in 0..super::super::bigrams::BIGRAMS {
                    cts.push(enc.encrypt_u64(u64::from(set.contains(i)), rng));
                }
                cts.push(enc.encrypt_u64(set.len() as u64, rng));
            }
            Value::Num(x) => {
                cts.push(enc.encrypt(&key.encode_i64(*x), rng));
                cts.push(enc.encrypt(&(BigUint::from(x.unsigned_abs()) * x.unsigned_abs()), rng));
            }
        }
    }
    cts
}

/// The handles A gives its released records: random and distinct.
#[derive(Default)]
pub struct Handles(HashSet<u64>);

impl Handles {
    pub fn fresh(&mut self, rng: &mut Randomness) -> u64 {
        loop {
            let h = rng.next_u64();
            if self.0.insert(h) {
                return h;
            }
        }
    }
}

/// Encrypts one released block (`slots` from the release, `records` A's encoded
/// data); returns the encrypted records and, for A alone, each handle's record
/// (None: a fake). Natively the records are encrypted in parallel.
pub fn encrypt_block(
    key: &Encryptor,
    rule: &Rule,
    slots: &[Slot],
    records: &[Vec<Value>],
    handles: &mut Handles,
    rng: &mut Randomness,
) -> (Vec<EncRecord>, Vec<(u64, Option<usize>)>) {
    let fake = rule.fake();
    let jobs: Vec<(u64, Option<usize>, Randomness)> = slots
        .iter()
        .map(|s| {
            let h = handles.fresh(rng);
            let real = match s {
                Slot::Real(i) => Some(*i),
                Slot::Fake => None,
            };
            (h, real, rng.fork())
        })
        .collect();
    let enc = crate::par::map(&jobs, |(h, real, r)| {
        let mut r = r.clone();
        let values = real.map_or(&fake, |i| &records[i]);
        EncRecord { handle: *h, cts: encrypt_record(key, values, &mut r) }
    });
    (enc, jobs.into_iter().map(|(h, real, _)| (h, real)).collect())
}

/// The header of A's encrypted blocks.
pub fn write_header(key: &PublicKey, model_fp: &[u8; 32], rule: &Rule, n_blocks: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(BLOCKS_MAGIC);
    put_u32(out, WIRE_VERSION);
    out.extend_from_slice(&key_fingerprint(key));
    out.extend_from_slice(model_fp);
    out.extend_from_slice(&rule.fingerprint);
    put_u32(out, n_blocks as u32);
}

/// One block: its size, then each record's handle and ciphertexts.
pub fn write_block(key: &PublicKey, block: &[EncRecord], out: &mut Vec<u8>) {
    put_u32(out, block.len() as u32);
    for r in block {
        put_u64(out, r.handle);
        for c in &r.cts {
            c.write_to(key, out);
        }
    }
}

/// Reads A's encrypted blocks as B: checks the key, model and rule it was made
/// under, and every ciphertext (in range, a unit mod n²). Streams block by block.
pub struct BlocksReader<'a> {
    r: Reader<'a>,
    left: usize,
    per_record: usize,
}

impl<'a> BlocksReader<'a> {
    pub fn open(
        bytes: &'a [u8],
        key: &PublicKey,
        model_fp: &[u8; 32],
        rule: &Rule,
        n_blocks: usize,
    ) -> Result<Self, Error> {
        let mut r = Reader::new(bytes, "encrypted blocks");
        r.start(BLOCKS_MAGIC)?;
        r.fingerprint("Paillier key", &key_fingerprint(key))?;
        r.fingerprint("block model", model_fp)?;
        r.fingerprint("decision rule", &rule.fingerprint)?;
        let n = r.u32()? as usize;
        if n != n_blocks {
            return Err(r.invalid(format!("{n} blocks, but the block model has {n_blocks}")));
        }
        Ok(BlocksReader { r, left: n, per_record: rule.attrs.iter().map(|a| a.ciphertexts()).sum() })
    }

    /// The next block, or None after the last (then the message must end).
    pub fn next_block(&mut self, key: &PublicKey) -> Result<Option<Vec<EncRecord>>, Error> {
        if self.left == 0 {
            if !self.r.is_done() {
                return Err(self.r.invalid("bytes after the last block".into()));
            }
            return Ok(None);
        }
        self.left -= 1;
        let count = self.r.u32()? as usize;
        let width = 8 + self.per_record * key.ciphertext_bytes();
        if count.saturating_mul(width) > self.r.bytes.len() - self.r.at {
            return Err(Error::Protocol(crate::error::ProtocolError::Truncated {
                what: self.r.what.into(),
                reason: format!("a block of {count} records does not fit in the bytes left"),
            }));
        }
        let mut out = Vec::with_capacity(count);
        for _ in 0..count {
            let handle = self.r.u64()?;
            let cts = (0..self.per_record).map(|_| self.r.ciphertext(key)).collect::<Result<Vec<_>, _>>()?;
            super::super::paillier::check_units(key, &cts, self.r.what)?;
            out.push(EncRecord { handle, cts });
        }
        Ok(Some(out))
    }
}
