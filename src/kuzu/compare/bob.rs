//! B's side (the paper's §4.3): for every pair (a, b) of the same block, the
//! encrypted similarity terms, then "Similarity Blinding".
//!
//! String attribute, b's bigram positions L: π∩ = ⊕_{ℓ∈L} π_a\[ℓ\],
//! π∪ = Enc(|b|) ⊕ π_{|a|} ⊕ (−1)⊙π∩. Numeric: π_{d²} = π_{a²} ⊕ Enc(b²) ⊕ (−2b)⊙π_a.
//!
//! Blinding, per pair, with fresh random integers from [`Randomness`] of
//! [`BLIND_BITS`] bits: a common multiplier ρ ≥ 1 and, per string attribute,
//! r₁, r₂ ≥ 1; per numeric attribute r ≥ 0. C receives
//! N = (ρr₂)⊙π∩ ⊕ (ρr₁)⊙π∪ and D = r₂⊙π∪, so N/D = ρ·(sim + r₁/r₂), and
//! X = ρ⊙π_{d²} ⊕ Enc(r), so α(1 − X/R²) = ρ·α·sim + α(1 − ρ − r/R²); B sends the
//! threshold θ' = ρθ + Σ_strings ρα·r₁/r₂ + Σ_numbers α(1 − ρ − r/R²), and
//! Σ α·(blinded terms) ≥ θ' exactly when Σ α·sim ≥ θ (ρ > 0).
//!
//! Departures from the paper, and why: (1) the paper draws r₁, r₂ from Z_n; C
//! would then decrypt values reduced mod n and the ratio would no longer be
//! sim + r₁/r₂ (the decision breaks), so they are bounded so that nothing wraps;
//! (2) the paper adds the multiplier ρ only when there is one attribute; here it
//! is always used (it hides the scale of Σ α·sim at no extra cost); (3) when b's
//! value is empty, sim = 0 is known to B, which sends fresh encryptions of ρr₁ and
//! r₂; (4) optionally every ciphertext sent to C is re-randomized, so that its
//! randomness (which C, knowing the factors of n, can recover) is not a product
//! of A's ciphertexts' randomness. Fresh encryptions and re-randomization use
//! B's own [`Encryptor`] (its h^α factors; the assumption is stated there).
//! What C can still infer from the blinded values is in docs/THREAT_MODEL.md.

use super::super::paillier::{Ciphertext, Encryptor, PublicKey};
use super::alice::{EncRecord, Handles};
use super::rule::{Attr, Frac, Rule, Value};
use super::wire::{key_fingerprint, put_frac, put_u32, put_u64, Reader, PAIRS_MAGIC, WIRE_VERSION};
use crate::dp::Randomness;
use crate::error::Error;
use num_bigint::{BigInt, BigUint};

/// B's own map from each pair id to (A's handle, B's record index).
pub type PairMap = Vec<(u64, u64, usize)>;

/// Bits of the blinding integers.
pub const BLIND_BITS: u32 = 40;

/// One blinded comparison, for C.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlindedPair {
    pub id: u64,
    pub theta: Frac,
    pub cts: Vec<Ciphertext>,
}

fn blind_int(rng: &mut Randomness, at_least: u128) -> u128 {
    at_least + rng.below_u128((1u128 << BLIND_BITS) - at_least)
}

/// Compares A's encrypted record with B's encoded one and blinds the result.
pub fn compare_pair(
    enc: &Encryptor,
    rule: &Rule,
    a: &EncRecord,
    b: &[Value],
    rerandomize: bool,
    rng: &mut Randomness,
) -> Result<(Frac, Vec<Ciphertext>), Error> {
    let key = enc.key();
    let rho = blind_int(rng, 1);
    let big = |x: u128| BigUint::from(x);
    let mut theta = Frac::new(BigInt::from(rule.threshold) * rho, big(1));
    let mut out = Vec::new();
    let mut at = 0;
    for (z, attr) in rule.attrs.iter().enumerate() {
        let cts = &a.cts[at..at + attr.ciphertexts()];
        at += attr.ciphertexts();
        let w = BigInt::from(attr.weight());
        match (attr, &b[z]) {
            (Attr::Str { .. }, Value::Str(set)) => {
                let (r1, r2) = (blind_int(rng, 1), blind_int(rng, 1));
                theta = theta.add(&Frac::new(&w * rho * r1, big(r2)));
                if set.is_empty() {
                    out.push(enc.encrypt(&big(rho * r1), rng));
                    out.push(enc.encrypt(&big(r2), rng));
                    continue;
                }
                let mut inter: Option<Ciphertext> = None;
                for i in set.ones() {
                    inter = Some(match inter {
                        None => cts[i].clone(),
                        Some(acc) => key.add(&acc, &cts[i]),
                    });
                }
                let inter = inter.unwrap_or_else(|| key.encrypt_trivial(&big(0)));
                let card_a = &cts[super::super::bigrams::BIGRAMS];
                let sum = key.add(&key.encrypt_trivial(&big(set.len() as u128)), card_a);
                let union = key.add(&sum, &key.negate(&inter)?);
                let n = key.add(&key.mul(&inter, &big(rho * r2)), &key.mul(&union, &big(rho * r1)));
                out.push(n);
                out.push(key.mul(&union, &big(r2)));
            }
            (Attr::Num { range, .. }, Value::Num(vb)) => {
                let (vb, range) = (*vb as i128, *range as u128);
                let r2 = range * range;
                let r = rng.below_u128((1u128 << BLIND_BITS) * r2.max(1));
                let two_b = key.mul(&cts[0], &big(2 * vb.unsigned_abs()));
                let cross = if vb >= 0 { key.negate(&two_b)? } else { two_b };
                let d2 = key.add(&key.add(&cts[1], &key.encrypt_trivial(&big((vb * vb) as u128))), &cross);
                out.push(key.add(&key.mul(&d2, &big(rho)), &key.encrypt_trivial(&big(r))));
                let shift = BigInt::from(r2) * (1 - rho as i128) - BigInt::from(r);
                theta = theta.add(&Frac::new(w * shift, big(r2)));
            }
            _ => return Err(Error::Parameter("B's record does not fit the rule".into())),
        }
    }
    if rerandomize {
        for c in &mut out {
            *c = enc.rerandomize(c, rng);
        }
    }
    Ok((theta, out))
}

/// Compares every pair of one block: A's encrypted records with B's encoded
/// ones. Returns the blinded pairs (random ids) and, for B alone, each id's
/// (A handle, B record). Natively the pairs are computed in parallel.
pub fn compare_block(
    key: &Encryptor,
    rule: &Rule,
    a: &[EncRecord],
    b: &[(usize, &[Value])],
    rerandomize: bool,
    ids: &mut Handles,
    rng: &mut Randomness,
) -> Result<(Vec<BlindedPair>, PairMap), Error> {
    let mut jobs = Vec::with_capacity(a.len() * b.len());
    for ra in a {
        for (ib, vb) in b {
            jobs.push((ids.fresh(rng), ra, *ib, *vb, rng.fork()));
        }
    }
    let pairs = crate::par::map(&jobs, |(id, ra, _, vb, r)| {
        let mut r = r.clone();
        compare_pair(key, rule, ra, vb, rerandomize, &mut r).map(|(theta, cts)| BlindedPair { id: *id, theta, cts })
    })
    .into_iter()
    .collect::<Result<Vec<_>, _>>()?;
    let map = jobs.iter().map(|(id, ra, ib, _, _)| (*id, ra.handle, *ib)).collect();
    Ok((pairs, map))
}

/// The header of B's message to C.
pub fn write_pairs_header(key: &PublicKey, rule: &Rule, count: u64, out: &mut Vec<u8>) {
    out.extend_from_slice(PAIRS_MAGIC);
    put_u32(out, WIRE_VERSION);
    out.extend_from_slice(&key_fingerprint(key));
    out.extend_from_slice(&rule.fingerprint);
    put_u64(out, count);
}

pub fn write_pair(key: &PublicKey, p: &BlindedPair, out: &mut Vec<u8>) {
    put_u64(out, p.id);
    put_frac(out, &p.theta);
    for c in &p.cts {
        c.write_to(key, out);
    }
}

/// Reads B's blinded pairs as C: checks key and rule, every threshold and ciphertext.
pub fn read_pairs(bytes: &[u8], key: &PublicKey, rule: &Rule) -> Result<Vec<BlindedPair>, Error> {
    let mut r = Reader::new(bytes, "blinded pairs");
    r.start(PAIRS_MAGIC)?;
    r.fingerprint("Paillier key", &key_fingerprint(key))?;
    r.fingerprint("decision rule", &rule.fingerprint)?;
    let count = r.u64()?;
    let per_pair: usize = rule.attrs.iter().map(Attr::pair_ciphertexts).sum();
    if count.saturating_mul((per_pair * key.ciphertext_bytes()) as u64) > (bytes.len() - r.at) as u64 {
        return Err(Error::Protocol(crate::error::ProtocolError::Truncated {
            what: r.what.into(),
            reason: format!("{count} pairs do not fit in the bytes left"),
        }));
    }
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let id = r.u64()?;
        let theta = r.frac()?;
        let cts = (0..per_pair).map(|_| r.ciphertext(key)).collect::<Result<Vec<_>, _>>()?;
        out.push(BlindedPair { id, theta, cts });
    }
    if !r.is_done() {
        return Err(r.invalid("bytes after the last pair".into()));
    }
    Ok(out)
}
