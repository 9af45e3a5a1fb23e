//! Records, not strings: multi-field linkage with a private transform per
//! field and Fellegi–Sunter scoring (LinkIT's integrated system with FRIL).
//!
//! - [`schema`]: the linkage schema (fields, kinds, budget split, blocking,
//!   decision), validated and fingerprinted;
//! - [`values`]: reading a party's CSV under the schema, normalization per kind;
//!   [`dates`]: date layouts, and the one a party's file is written in;
//!   [`date_parts`]: what a date's parts embed (swapped day and month, N-day cells);
//!   [`table_reader`]: the same read from a stream of chunks (a file a
//!   megabyte at a time, a browser `File`'s stream), never the whole file at once;
//! - [`owner`]: a data owner's steps (mine per gram space, merge, embed);
//! - [`messages`]: the noisy and shared bases messages (JSON);
//! - [`batch`]: the record batch message (`GLRB`);
//! - [`compare`]: comparison levels per field; [`em`]: the Fellegi–Sunter fit,
//!   [`fit`]: bounded for records (u fixed, expected matches at most min(|A|, |B|));
//!   [`decide`]: thresholds and assignment; [`linker`]: the matcher;
//! - [`session`]: both parties and the matcher on one machine.
//!
//! The one-string commands are a one-field schema ([`Schema::single`]) in
//! spirit; they keep their own, faster path ([`crate::party`]).

pub mod batch;
pub mod block_design;
pub mod blocking;
mod check;
pub mod compare;
pub mod date_parts;
pub mod dates;
pub mod decide;
mod edit_bound;
/// The Fellegi–Sunter EM fit (a leaf module, shared with [`crate::cutoff`]).
pub use crate::em;
pub mod export;
pub mod field;
pub mod fit;
pub mod interaction;
pub mod joint;
pub mod keyed_hash;
pub mod linker;
pub mod messages;
pub mod names;
pub mod owner;
mod read_table;
pub mod salt;
pub mod schema;
pub mod score;
pub mod session;
pub mod shard;
mod sparse_rows;
pub mod table_reader;
#[cfg(test)]
mod test_batches;
pub mod values;

pub use batch::RecordBatch;
pub use keyed_hash::{key_check, keyed_hash};
pub use linker::{Class, RecordLinkage, RecordMatcher, ScoredPair};
pub use owner::{merge, merge_parties, NoisyBases, RecordOwner, SharedBases};
pub use read_table::read_table;
#[cfg(not(target_arch = "wasm32"))]
pub use read_table::read_table_file;
pub use schema::{Assignment, Field, Kind, Schema};
pub use table_reader::TableReader;
