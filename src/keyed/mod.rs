//! A keyed, distance-preserving transform of the vectors, shared by A and B and
//! unknown to the matcher C.
//!
//! # Why
//! Vectors are a public, deterministic function of a record and the shared base.
//! Without this transform, C (who knows the base, or can ask for it) embeds a
//! public name list and links each of A's vectors to its nearest dictionary
//! vector: `gramlink lab attack` re-identifies almost every record of NAMES that
//! way. With the transform, C sees `R·x` for a secret orthogonal `R`: it cannot
//! embed a dictionary in the parties' coordinate system, so the dictionary
//! attack falls to chance, while every distance — hence the matcher's answer —
//! is unchanged up to f32 rounding (bounded below, and absorbed by
//! [`matching_thresholds`]).
//!
//! # The transform
//! A 32-byte [`Key`] (random, or Argon2id of a passphrase) and the shared
//! base's fingerprint (the HKDF salt, so one key gives unrelated rotations for
//! different bases) go through HKDF-SHA256 into a ChaCha20 seed and a public
//! check value. The seed draws, over the dimension padded to a power of two
//! `n`, a random signed permutation `P` and three random sign diagonals, and
//! `R = H·D3·H·D2·H·D1·P` with `H` the normalized Walsh–Hadamard matrix
//! (`H·Hᵀ = I`). Every factor is orthogonal, so `R` is; applying it costs
//! `O(n log n)` per vector, in f64, rounded once to f32. Output vectors have
//! dimension `n` (the padded coordinates mix with the others).
//!
//! # What it does to sparsity
//! An unkeyed vector has a few dozen non-zero coordinates of hundreds, and is
//! sent as gram ids and counts ([`crate::protocol::sparse_wire`]: about 35
//! bytes a NAMES record). `R·x` has every coordinate non-zero (each is a
//! ±1/√n-weighted blend of all of x's), so a keyed batch is dense: `n` f32 a
//! record (4 KB for NAMES's 1024), about a hundred times the unkeyed batch.
//! That is the price of what the transform hides, and it is kept: a
//! transform that kept sparsity must send each non-zero of x to few
//! coordinates (a keyed signed permutation, or blocks of them), and the
//! matcher then reads each gram's own axis straight off the batch: how many
//! records use it and with which counts, the frequency profile that names it
//! among the public grams; once the axes are named, the reconstruction attack
//! (docs/THREAT_MODEL.md) reads records as from an unkeyed batch. So the
//! dense form is handled rather
//! than avoided: a keyed embedding rotates sparse rows one at a time into the
//! batch ([`Transform::apply_sparse`]), the wasm layer refuses a keyed batch
//! too large for its memory before any work, and the matchers take dense
//! and sparse batches alike.
//!
//! # What it hides, what it still leaks (to C)
//! - Hidden: the coordinate system. C cannot tell which gram a coordinate
//!   counts, nor embed its own strings comparably: the dictionary attack needs
//!   the key. Three rounds of randomized Hadamard mixing spread every gram over
//!   all coordinates (each output coordinate is a ±1/√n-weighted blend).
//! - Leaked, by design: all pairwise distances within and across the batches
//!   (that is what the matcher needs), hence all norms' differences and, with
//!   the zero vector implicit in any linear map, the **norms** themselves
//!   (‖Rx‖ = ‖x‖): a norm reveals roughly the record's length and gram content.
//!   Identical records still give identical vectors (**multiplicities**: a
//!   frequency attack stays possible, see `gramlink lab attack`). The geometry of a
//!   whole batch is preserved: with many known (record, vector) pairs C could
//!   solve for `R` (a known-plaintext attack; n linearly independent pairs
//!   suffice), so the key must be fresh per linkage and the records secret.
//! - The check value in the batch (`transform`) is an HKDF output, not the key:
//!   it lets C refuse mismatched batches. With a passphrase key C may test
//!   guesses against it offline, at one Argon2id evaluation per guess — choose a
//!   long passphrase or a random key (`gramlink keygen`).

mod key;
mod rotation;
mod source;
pub use key::{Key, MAX_DIM, MIN_PASSPHRASE_CHARS};
pub use rotation::{Transform, LABEL_PREFIX};
pub use source::{resolve, EmbedKey, KeySource, Linkage, UNKEYED_REVEALS};

use crate::embed::Vectors;
use crate::error::Error;

/// Is this `transform` label one this build writes (the rotation's or the sketch's)?
pub fn valid_label(label: &str) -> bool {
    is_rotation(label) || sketch::valid_label(label)
}

/// Is this the rotation's label (`keyed-v1:<32 hex>`)? Its batches are dense and
/// carry no shape; the sketch's are sparse with a shape.
pub fn is_rotation(label: &str) -> bool {
    label
        .strip_prefix(LABEL_PREFIX)
        .is_some_and(|h| h.len() == 32 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
}

/// The matcher's check: both batches unkeyed, or both keyed with the same key
/// (same check value). Anything else is `TRANSFORM_MISMATCH`.
pub fn check_transforms(a: Option<&str>, b: Option<&str>) -> Result<(), Error> {
    match (a, b) {
        (None, None) => Ok(()),
        (Some(x), Some(y)) if x == y => Ok(()),
        (Some(_), None) => Err(Error::TransformMismatch(
            "party A's batch is keyed but party B's is not: both parties must embed with the same key (or neither)"
                .into(),
        )),
        (None, Some(_)) => Err(Error::TransformMismatch(
            "party B's batch is keyed but party A's is not: both parties must embed with the same key (or neither)"
                .into(),
        )),
        (Some(_), Some(_)) => Err(Error::TransformMismatch(
            "the batches were transformed with different keys (their check values differ)".into(),
        )),
    }
}

/// Relative f32 rounding bound of a rotated vector, with room for the f64
/// rotation error (see [`matching_thresholds`]).
const KAPPA: f64 = 1.0 / 16_777_216.0 + 1.0 / 549_755_813_888.0; // 2^-24 + 2^-39

/// The thresholds the matcher compares keyed distances with: A's thresholds
/// widened by a proven bound of the rounding the transform adds, so that every
/// pair the unkeyed matcher links is linked (identical results except for pairs
/// within that bound of a threshold, i.e. near-exact ties). Unkeyed batches get
/// their thresholds back unchanged.
///
/// Proof sketch. Let `a`, `b` be the unkeyed f32 vectors, `R` the rotation, and
/// `a' = fl32(ŷ)` with `ŷ` the f64 evaluation of `R·a`. The f64 evaluation (three
/// rounds of `log2 n` exact-sign butterflies and one scaling each) has relative
/// error below `3(log2 n + 3)·2^-53 < 2^-40` in norm for `n ≤ 2^20`, and the
/// final rounding to f32 adds at most `2^-24·|ŷ_i|` per coordinate, so
/// `‖a' − R a‖ ≤ η‖a‖` with `η < 2^-24 + 2^-40`, and `‖a‖ ≤ ‖a'‖/(1 − η)`,
/// whence `‖a' − R a‖ ≤ κ‖a'‖` with `κ = 2^-24 + 2^-39`. As `R` is orthogonal,
/// `|d(a', b') − d(a, b)| ≤ κ(‖a'‖ + ‖b'‖)`. Both the unkeyed and the keyed
/// matcher compute distances in f64 with relative error `γ ≤ (n + 2)·2^-53`; so if
/// the unkeyed matcher links (a, b) at threshold `t`, the keyed one computes at
/// most `(1 + γ)/(1 − γ)·(t + κ(‖a'‖ + max‖b'‖))`, which is below the widened
/// threshold returned here (norms are computed in f64 and padded by a further
/// relative `2^-40`).
/// [`matching_thresholds`] for a batch's vectors: keyed batches are dense
/// (validated); unkeyed ones, sparse or not, get their thresholds unchanged.
pub fn batch_thresholds(
    a: &crate::embed::BatchVectors,
    b: &crate::embed::BatchVectors,
    thresholds: &[f64],
    transform: Option<&str>,
) -> Vec<f64> {
    match (a.dense(), b.dense(), transform) {
        (Some(va), Some(vb), t @ Some(_)) => matching_thresholds(va, vb, thresholds, t),
        _ => thresholds.to_vec(),
    }
}

pub fn matching_thresholds(a: &Vectors, b: &Vectors, thresholds: &[f64], transform: Option<&str>) -> Vec<f64> {
    if transform.is_none() {
        return thresholds.to_vec();
    }
    let norm = |row: &[f32]| {
        row.iter().map(|&x| (x as f64) * (x as f64)).sum::<f64>().sqrt() * (1.0 + 1.0 / 1_099_511_627_776.0)
    };
    let max_b = (0..b.len()).map(|j| norm(b.row(j))).fold(0.0f64, f64::max);
    let n = a.dim.max(b.dim) as f64;
    let gamma = (n + 2.0) * f64::EPSILON / 2.0;
    let widen = (1.0 + gamma) / (1.0 - gamma) * (1.0 + f64::EPSILON);
    thresholds
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            let na = if i < a.len() { norm(a.row(i)) } else { 0.0 };
            (t + KAPPA * (na + max_b)) * widen
        })
        .collect()
}

mod encoding;
mod sketch;
pub use encoding::{encode, Encoded, Encoding};
pub use sketch::{Sketch, DEFAULT_SPREAD, MAX_SPREAD, RECORD_SPREAD, SKETCH_PREFIX};

#[cfg(test)]
mod tests;
