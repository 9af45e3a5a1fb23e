//! C's side: decrypt the blinded terms of a pair and apply the decision rule to
//! them, against the blinded threshold: Σ α·N/D (strings) + Σ α·(1 − X/R²)
//! (numbers) ≥ θ'. Exact rational arithmetic, so the decision is the one on the
//! clear similarities ([`super::bob`] explains why).

use super::super::paillier::PrivateKey;
use super::bob::BlindedPair;
use super::rule::{Attr, Frac, Rule};
use crate::error::{Error, ProtocolError};
use num_bigint::{BigInt, BigUint};

/// The decision on one blinded pair.
pub fn decide(key: &PrivateKey, rule: &Rule, pair: &BlindedPair) -> Result<bool, Error> {
    let per_pair: usize = rule.attrs.iter().map(Attr::pair_ciphertexts).sum();
    if pair.cts.len() != per_pair {
        return Err(invalid(format!("{} ciphertexts for a rule that needs {per_pair}", pair.cts.len())));
    }
    let mut sum = Frac::zero();
    let mut it = pair.cts.iter();
    for attr in &rule.attrs {
        let w = BigInt::from(attr.weight());
        match attr {
            Attr::Str { .. } => {
                let (n, d) = match (it.next(), it.next()) {
                    (Some(n), Some(d)) => (key.decrypt(n), key.decrypt(d)),
                    _ => return Err(invalid("missing ciphertexts".into())),
                };
                if d == BigUint::from(0u32) {
                    return Err(invalid("a blinded union of zero".into()));
                }
                sum = sum.add(&Frac::new(w * BigInt::from(n), d));
            }
            Attr::Num { range, .. } => {
                let x = BigInt::from(key.decrypt(it.next().ok_or_else(|| invalid("missing ciphertexts".into()))?));
                let r2 = BigInt::from(*range) * range;
                sum = sum.add(&Frac::new(w * (&r2 - x), r2.magnitude().clone()));
            }
        }
    }
    Ok(sum.ge(&pair.theta))
}

fn invalid(reason: String) -> Error {
    Error::Protocol(ProtocolError::Invalid { what: "blinded pair".into(), reason })
}
