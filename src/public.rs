//! The data-independent part of a richer base: public grams, and the merge that
//! joins them with the mined grams.
//!
//! **Privacy.** Everything in this module is a function of public parameters
//! only (the alphabet Σ, the padding symbols, a gram length): it never reads a
//! record, so it spends no privacy budget, and a base made of these grams plus an
//! ε-DP mined base is still ε-DP (post-processing of the mined part joined with a
//! constant). Only the mined part ([`crate::mine`]) spends ε.
//!
//! - padding ([`crate::padding`]): records embedded as `^record$`;
//! - [`public_grams`]: every gram of length q over Σ, plus the boundary grams
//!   `^` + Σ^(q−1) and Σ^(q−1) + `$`. With q = 2 and the 27-symbol Σ that is
//!   729 + 27 + 27 = 783 coordinates, of which a name touches about |s| + 1.

use crate::alphabet::Alphabet;
use crate::base::{gram_order, SharedBase};
use crate::error::BaseError;
use crate::padding::Padding;

/// The most public grams accepted (|Σ|^q grows fast).
pub const MAX_PUBLIC_GRAMS: usize = 20_000;

/// Every gram of length `q` over Σ and, with padding, the boundary grams
/// `start + Σ^(q−1)` and `Σ^(q−1) + end`, in the base's gram order. Data-independent.
pub fn public_grams(alphabet: &Alphabet, q: usize, padding: Option<Padding>) -> Result<Vec<String>, BaseError> {
    if q == 0 {
        return Err(BaseError::Invalid("public grams need a length of at least 1".into()));
    }
    let sigma = alphabet.symbols();
    let inner = crate::mine::encode::universe_size(sigma.len(), q).unwrap_or(u64::MAX);
    if inner > MAX_PUBLIC_GRAMS as u64 {
        return Err(BaseError::Invalid(format!(
            "{} public grams of length {q} over {} symbols is more than {MAX_PUBLIC_GRAMS}",
            inner,
            sigma.len()
        )));
    }
    let words = |len: usize| -> Vec<String> {
        let mut out = vec![String::new()];
        for _ in 0..len {
            out = out.iter().flat_map(|w| sigma.iter().map(move |&c| format!("{w}{c}"))).collect();
        }
        out
    };
    let mut grams = words(q);
    if let Some(p) = padding {
        p.check(alphabet)?;
        for w in words(q - 1) {
            grams.push(format!("{}{w}", p.start));
            grams.push(format!("{w}{}", p.end));
        }
        let full = p.extend(alphabet)?;
        crate::sorting::sort_by(&mut grams, |a, b| gram_order(&full, a, b));
    } else {
        crate::sorting::sort_by(&mut grams, |a, b| gram_order(alphabet, a, b));
    }
    grams.dedup();
    Ok(grams)
}

/// The shared base of the richer configuration: the public grams of length
/// `public_q` (if any) first, then the grams of `mined` not already among them,
/// with `padding` recorded in the base (so every embedding pads).
///
/// `mined` is over Σ, or over Σ plus the padding symbols when `padding` is set.
pub fn extend_base(
    mined: &SharedBase,
    alphabet: &Alphabet,
    public_q: Option<usize>,
    padding: Option<Padding>,
) -> Result<SharedBase, BaseError> {
    let mut grams = match public_q {
        Some(q) => public_grams(alphabet, q, padding)?,
        None => Vec::new(),
    };
    let public: std::collections::HashSet<String> = grams.iter().cloned().collect();
    grams.extend(mined.grams().iter().filter(|g| !public.contains(*g)).cloned());
    let q_min = public_q.map_or(mined.q_min(), |q| q.min(mined.q_min()));
    let q_max = public_q.map_or(mined.q_max(), |q| q.max(mined.q_max()));
    SharedBase::with_padding(alphabet.clone(), q_min, q_max, grams, padding)
}

/// The shared base of the parties' noisy bases under the richer configuration:
/// [`crate::base::merge_all`] of the mined grams (top `k`), then [`extend_base`]
/// with the public grams of length `public_q`, padded if `padding`. With neither,
/// exactly the merge (the paper's shared base).
///
/// `padding` is the configuration's: every noisy base must have been mined so
/// (each records it), else [`BaseError::Incompatible`] names the base that
/// differs (a, b, c, … in the order given).
pub fn merge_shared(
    bases: &[&crate::base::NoisyBase],
    k: usize,
    public_q: Option<usize>,
    padding: bool,
) -> Result<SharedBase, BaseError> {
    let padding = padding.then(Padding::default);
    let Some(first) = bases.first() else {
        return Err(BaseError::Invalid("no noisy base to merge".into()));
    };
    for (i, base) in bases.iter().enumerate() {
        if base.padding != padding {
            let how = |p: Option<Padding>| {
                if p.is_some() {
                    "with padding"
                } else {
                    "without padding"
                }
            };
            let name = crate::protocol::Party::label(i).to_lowercase();
            return Err(BaseError::Incompatible(format!(
                "noisy base {name} was mined {} but the shared base is asked {} (mine every party with the same configuration)",
                how(base.padding),
                how(padding)
            )));
        }
    }
    if public_q.is_some() && bases.iter().all(|b| b.grams.is_empty()) {
        // Nothing was mined (little data, small ε): the public grams alone.
        let sigma = match padding {
            Some(p) => p.strip(&first.alphabet)?,
            None => first.alphabet.clone(),
        };
        let q = public_q.unwrap_or(1);
        let grams = public_grams(&sigma, q, padding)?;
        return SharedBase::with_padding(sigma, q, q, grams, padding);
    }
    let mined = crate::base::merge_all(bases, k)?;
    if public_q.is_none() && padding.is_none() {
        return Ok(mined);
    }
    // Mined over padded records, the noisy bases' alphabet is Σ plus the padding.
    let sigma = match padding {
        Some(p) => p.strip(mined.alphabet())?,
        None => mined.alphabet().clone(),
    };
    extend_base(&mined, &sigma, public_q, padding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_order() {
        let al = Alphabet::new("AB").unwrap();
        assert_eq!(public_grams(&al, 2, None).unwrap(), vec!["AA", "AB", "BA", "BB"]);
        let g = public_grams(&al, 2, Some(Padding::default())).unwrap();
        assert_eq!(g, vec!["AA", "AB", "A$", "BA", "BB", "B$", "^A", "^B"]);
        assert_eq!(public_grams(&Alphabet::default(), 2, Some(Padding::default())).unwrap().len(), 783);
        assert!(public_grams(&Alphabet::default(), 4, None).is_err());
    }
}
