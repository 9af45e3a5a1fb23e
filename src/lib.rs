//! gramlink — privacy-preserving record linkage of strings and whole records.
//!
//! Each data owner normalizes its records over a public [`alphabet`], mines a
//! differentially private gram base ([`mine`]), merges it with the partner's into
//! the shared [`base`], [`embed`]s its records as vectors (under the parties'
//! [`keyed`] encoding) and computes matching [`threshold`]s; a matcher links the
//! vectors ([`matching`]). Only the messages of [`protocol`] cross between
//! parties. Strings are the one-field case; [`record`] runs the same steps per
//! field of a linkage schema. The method follows Bonomi, Xiong, Chen and Fung,
//! "Frequent grams based embedding for privacy preserving record linkage" (CIKM
//! 2012); docs/DESIGN.md lists where this crate departs from the printed paper.
//!
//! The core (everything outside `wasm`) has no browser dependency and builds
//! natively and for `wasm32-unknown-unknown`; randomness comes from one place,
//! [`dp::Randomness`].
//!
//! # The map
//!
//! | group | modules |
//! |---|---|
//! | foundations | [`error`], [`dp`] (the one secure randomness and every mechanism), [`alphabet`], [`dataset`], [`config`] (the presets), [`progress`], [`clock`], [`shape`], [`sparse_vectors`], [`padding`] |
//! | grams | [`mine`] (the DP miners), [`public`] (the data-independent grams), [`base`] (the shared base), [`embed`], [`keyed`] (the parties' encoding), [`threshold`] |
//! | protocol | [`protocol`] (every message), [`pseudonym`], [`party`] (a data owner's steps), [`matcher`] (the matcher's), [`session`] (all roles on one machine), [`shard`] (the matcher in shards), [`multi`] (more than two parties) |
//! | linkage | [`matching`] (candidates and match rules), [`em`] (the Fellegi–Sunter fit), [`cutoff`] (`ed auto`), [`record`] (whole records: schema, owner, linker, session, shard) |
//! | opt-in products (features of the same names) | `kuzu` (Kuzu et al.'s blocking and Paillier comparison), `twin` (synthetic twins), `eval` (evaluation), `research` (the lab: attacks and experiments) |
//! | bindings | `wasm` (wasm32 only: the npm package); the CLI is its own crate (cli/), as is the Python package (python/) |

// foundations
pub mod alphabet;
pub mod clock;
pub mod config;
pub mod dataset;
pub mod dp;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
mod hash;
pub mod padding;
mod par;
pub mod progress;
pub mod shape;
mod sorting;
pub mod sparse_vectors;

// grams
pub mod base;
pub mod embed;
pub mod keyed;
pub mod mine;
pub mod public;
pub mod threshold;

// protocol
pub mod matcher;
pub mod multi;
pub mod party;
pub mod protocol;
pub mod pseudonym;
pub mod session;
pub mod shard;

// linkage
pub mod cutoff;
pub mod em;
pub mod matching;
pub mod record;

// opt-in products
#[cfg(feature = "eval")]
pub mod eval;
#[cfg(feature = "kuzu")]
pub mod kuzu;
#[cfg(feature = "research")]
pub mod research;
#[cfg(feature = "twin")]
pub mod twin;

// bindings
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::{Error, Result};
