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
mod shard;
mod signing;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<owner::DataOwner>()?;
    m.add_function(wrap_pyfunction!(owner::merge_bases, m)?)?;
    m.add_function(wrap_pyfunction!(owner::fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(owner::keygen, m)?)?;
    m.add_function(wrap_pyfunction!(owner::defaults, m)?)?;
    m.add_function(wrap_pyfunction!(owner::unmap, m)?)?;
    m.add_function(wrap_pyfunction!(signing::sign_keygen, m)?)?;
    m.add_function(wrap_pyfunction!(signing::sign_batch, m)?)?;
    m.add_function(wrap_pyfunction!(signing::verify_batch, m)?)?;
    m.add_class::<matcher::Matcher>()?;
    m.add_class::<matcher::Linkage>()?;
    m.add_function(wrap_pyfunction!(matcher::score, m)?)?;
    m.add_function(wrap_pyfunction!(parties::match_parties, m)?)?;
    m.add_function(wrap_pyfunction!(parties_shard::parties_check, m)?)?;
    m.add_function(wrap_pyfunction!(parties_shard::parties_one_way, m)?)?;
    m.add_function(wrap_pyfunction!(parties_shard::parties_pair, m)?)?;
    m.add_function(wrap_pyfunction!(parties_shard::parties_cluster, m)?)?;
    m.add_function(wrap_pyfunction!(parties_records::parties_record_check, m)?)?;
    m.add_function(wrap_pyfunction!(parties_records::parties_record_shard, m)?)?;
    m.add_function(wrap_pyfunction!(parties_records::parties_record_pair, m)?)?;
    m.add_class::<records::RecordOwner>()?;
    m.add_class::<records::RecordMatcher>()?;
    m.add_class::<shard::Batch>()?;
    m.add_class::<shard::Reference>()?;
    m.add_function(wrap_pyfunction!(shard::check_batches, m)?)?;
    m.add_function(wrap_pyfunction!(shard::cutoff_bound, m)?)?;
    m.add_function(wrap_pyfunction!(shard::shard_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(shard::assign, m)?)?;
    m.add_class::<record_shard::RecordBatchFile>()?;
    m.add_function(wrap_pyfunction!(record_shard::record_check, m)?)?;
    m.add_function(wrap_pyfunction!(record_shard::record_shard, m)?)?;
    m.add_function(wrap_pyfunction!(record_shard::record_link_shards, m)?)?;
    Ok(())
}
