//! `gramlink._native`: the core's roles behind Python arguments, as src/wasm/
//! puts them behind JS ones. Every protocol step is the core's; this crate
//! only converts arguments and results (gramlink/__init__.py re-exports it).

mod convert;
mod errors;
mod matcher;
mod owner;
mod parties;
mod parties_records;
mod parties_shard;
mod record_shard;
mod records;
mod rows;
mod shard;
mod signing;

use pyo3::prelude::*;

/// The module: each `#[pymodule_export] use` adds those classes and functions.
#[pymodule]
mod _native {
    #[pymodule_export]
    use super::matcher::{score, Linkage, Matcher};
    #[pymodule_export]
    use super::owner::{defaults, fingerprint, keygen, merge_bases, unmap, DataOwner};
    #[pymodule_export]
    use super::parties::match_parties;
    #[pymodule_export]
    use super::parties_records::{parties_record_check, parties_record_pair, parties_record_shard};
    #[pymodule_export]
    use super::parties_shard::{parties_both_ways, parties_check, parties_cluster, parties_pair};
    #[pymodule_export]
    use super::record_shard::{record_check, record_link_shards, record_shard, RecordBatchFile};
    #[pymodule_export]
    use super::records::{RecordMatcher, RecordOwner};
    #[pymodule_export]
    use super::shard::{assign, check_batches, cutoff_bound, shard_candidates, Batch, Reference};
    #[pymodule_export]
    use super::signing::{sign_batch, sign_keygen, verify_batch};
}
