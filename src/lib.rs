//! gramlink — privacy-preserving record linkage of strings.
//!
//! Each data owner normalizes its records over a public [`alphabet`], mines a
//! differentially private gram base ([`mine`]), merges it with the partner's into
//! the shared [`base`], [`embed`]s its records as vectors and computes matching
//! [`threshold`]s; a matcher links the vectors ([`matching`]). Only the messages of
//! [`protocol`] cross between parties. The method follows Bonomi, Xiong, Chen and
//! Fung, "Frequent grams based embedding for privacy preserving record linkage"
//! (CIKM 2012); docs/DESIGN.md lists where this crate departs from the printed paper.
//!
//! The core (everything outside `wasm`) has no browser dependency and builds
//! natively and for `wasm32-unknown-unknown`; randomness comes from one place,
//! [`dp::Randomness`].

pub mod alphabet;
pub mod base;
pub mod clock;
pub mod config;
pub mod cutoff;
pub mod dataset;
pub mod dp;
pub mod em;
pub mod embed;
pub mod error;
#[cfg(feature = "eval")]
pub mod eval;
#[doc(hidden)]
pub mod fuzzing;
mod hash;
pub mod keyed;
#[cfg(feature = "kuzu")]
pub mod kuzu;
pub mod matcher;
pub mod matching;
pub mod mine;
pub mod multi;
pub mod padding;
mod par;
pub mod party;
pub mod progress;
pub mod protocol;
pub mod pseudonym;
pub mod public;
pub mod record;
#[cfg(feature = "research")]
pub mod research;
pub mod session;
pub mod shape;
pub mod shard;
mod sorting;
pub mod sparse_vectors;
pub mod threshold;
#[cfg(feature = "twin")]
pub mod twin;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::{Error, Result};
