//! The record matcher in shards ([`gramlink::record::shard`]) for the Spark
//! job's `link_records` (gramlink/spark.py): `RecordBatchFile` (a record
//! batch read once per worker), `record_check`, `record_shard`,
//! `record_link_shards`. Columns cross as little-endian bytes.

use crate::convert::from_json;
use crate::errors::{invalid, io, OrPy};
use crate::records::schema_arg;
use crate::rows::rows;
use crate::shard::le;
use gramlink::record::shard::{check, link_shards, rows, shard_levels, MakeMatcher, ShardLevels};
use gramlink::record::{Class, RecordBatch, RecordMatcher};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// A record batch (`GLRB`) read from a file, as a worker keeps it.
#[pyclass(module = "gramlink._native", frozen)]
pub struct RecordBatchFile {
    pub(crate) batch: RecordBatch,
}

#[pymethods]
impl RecordBatchFile {
    /// The batch in `path` (read whole; its values are validated against a
    /// schema by `record_check` and each shard's `record_shard`).
    #[staticmethod]
    fn open(py: Python<'_>, path: std::path::PathBuf) -> PyResult<RecordBatchFile> {
        Ok(RecordBatchFile { batch: py.detach(|| read_batch(&path))? })
    }

    #[getter]
    fn party(&self) -> &'static str {
        self.batch.party.name()
    }
}

rows!(RecordBatchFile, |s| s.batch.ids, ids);

/// The record batch in the file at `path`.
pub(crate) fn read_batch(path: &std::path::Path) -> PyResult<RecordBatch> {
    let bytes = std::fs::read(path).map_err(|e| io(path, e))?;
    RecordBatch::read(&bytes).map_err(gramlink::Error::from).py()
}

/// Checks what every shard shares (schema, parties, key, bases), as the
/// record matcher does, before any work.
#[pyfunction]
pub fn record_check(schema: &Bound<'_, PyAny>, a: &RecordBatchFile, b: &RecordBatchFile) -> PyResult<()> {
    check(&schema_arg(schema)?, &a.batch, &b.batch).py()
}

/// A `#[pyfunction]` `$name(schema, a, b, start, end)`: A's records
/// `start..end` against all of `b`, with the matcher `$make` makes of them
/// ([`MakeMatcher`]), as columns: `(a_rows u32, b_rows u32, levels (one byte
/// per sent field and candidate), swapped u8, sample patterns (one byte per
/// sent field and pair), rule counts [(rule, pairs)], the number of sent
/// fields)`. Written once for `record_shard` and `parties_record_shard`
/// (src/parties_records.rs).
macro_rules! shard_function {
    ($(#[$doc:meta])* $name:ident, $make:expr) => {
        $(#[$doc])*
        #[pyo3::pyfunction]
        pub fn $name<'py>(
            py: pyo3::Python<'py>,
            schema: &pyo3::Bound<'py, pyo3::PyAny>,
            a: &$crate::record_shard::RecordBatchFile,
            b: &$crate::record_shard::RecordBatchFile,
            start: usize,
            end: usize,
        ) -> pyo3::PyResult<$crate::record_shard::ShardColumns<'py>> {
            $crate::record_shard::shard(py, schema, &a.batch, &b.batch, start..end, $make)
        }
    };
}

pub(crate) use shard_function;

shard_function!(
    /// The two-party record matcher's shard
    /// ([`gramlink::record::shard::shard_levels`], A against B).
    record_shard,
    RecordMatcher::new
);

/// `a`'s records in `range` against the whole of `b`, with the matcher
/// `make` makes of them, as columns.
pub fn shard<'py>(
    py: Python<'py>,
    schema: &Bound<'py, PyAny>,
    a: &RecordBatch,
    b: &RecordBatch,
    range: std::ops::Range<usize>,
    make: MakeMatcher,
) -> PyResult<ShardColumns<'py>> {
    let schema = schema_arg(schema)?;
    let nf = schema.sent().count();
    let offset = range.start.min(a.ids.len());
    let s = py.detach(|| shard_levels(&schema, rows(a, range), b.clone(), offset, a.ids.len(), make)).py()?;
    Ok(shard_columns(py, s, nf))
}

/// The record shard's columns (as `record_shard` returns them).
pub type ShardColumns<'py> = (
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Vec<(String, u64, Vec<String>)>,
    usize,
);

/// A shard's levels as columns of little-endian bytes; `nf` sent fields.
fn shard_columns(py: Python<'_>, s: ShardLevels, nf: usize) -> ShardColumns<'_> {
    let ca = le(s.candidates.iter().map(|c| c.0), u32::to_le_bytes);
    let cb = le(s.candidates.iter().map(|c| c.1), u32::to_le_bytes);
    let levels: Vec<u8> = s.levels.iter().flat_map(|(l, _)| l.iter().copied()).collect();
    let swapped: Vec<u8> = s.levels.iter().map(|(_, w)| *w as u8).collect();
    let sample: Vec<u8> = s.sample.concat();
    let rules = s.rules.into_iter().map(|r| (r.rule, r.pairs, r.fields)).collect();
    (
        PyBytes::new(py, &ca),
        PyBytes::new(py, &cb),
        PyBytes::new(py, &levels),
        PyBytes::new(py, &swapped),
        PyBytes::new(py, &sample),
        rules,
        nf,
    )
}

pub(crate) fn u32s(bytes: &[u8], what: &str) -> PyResult<Vec<u32>> {
    if bytes.len() % 4 != 0 {
        return Err(invalid(format!("{what}: {} bytes is not a whole number of u32", bytes.len())));
    }
    Ok(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// A `#[pyfunction]` taking every shard's columns, as `record_shard` returns
/// them (concatenated in any order), after `schema` and its own arguments:
/// `a_rows`, `b_rows` (u32 bytes), `levels`, `swapped`, `sample` (the u
/// sample's patterns; bytes) and `rules` (`[(rule, pairs, fields)]`). Its body
/// sees the schema read (`$schema`) and the columns, checked, as one shard's
/// levels (`$shard`, [`ShardLevels`]). Written once for `record_link_shards`
/// and `parties_record_pair` (src/parties_records.rs).
macro_rules! on_shard_columns {
    (
        $(#[$doc:meta])*
        fn $name:ident<$lt:lifetime>($py:ident $(, $arg:ident: $ty:ty)*) -> $ret:ty,
        |$schema:ident, $shard:ident| $body:block
    ) => {
        $(#[$doc])*
        #[pyo3::pyfunction]
        #[pyo3(signature = (schema, $($arg,)* a_rows, b_rows, levels, swapped, sample, rules))]
        #[allow(clippy::too_many_arguments)]
        pub fn $name<$lt>(
            $py: pyo3::Python<$lt>,
            schema: &pyo3::Bound<$lt, pyo3::PyAny>,
            $($arg: $ty,)*
            a_rows: &[u8],
            b_rows: &[u8],
            levels: &[u8],
            swapped: &[u8],
            sample: &[u8],
            rules: Vec<(String, u64, Vec<String>)>,
        ) -> pyo3::PyResult<$ret> {
            use $crate::record_shard::u32s;
            let $schema = $crate::records::schema_arg(schema)?;
            let nf = $schema.sent().count().max(1);
            let (ra, rb) = (u32s(a_rows, "a_rows")?, u32s(b_rows, "b_rows")?);
            let n = ra.len();
            if rb.len() != n || levels.len() != n * nf || swapped.len() != n || sample.len() % nf != 0 {
                return Err($crate::errors::invalid("the shards' columns have different lengths"));
            }
            let $shard = gramlink::record::shard::ShardLevels {
                candidates: ra.into_iter().zip(rb).collect(),
                levels: levels.chunks_exact(nf).zip(swapped).map(|(l, &w)| (l.to_vec(), w != 0)).collect(),
                rules: rules
                    .into_iter()
                    .map(|(rule, pairs, fields)| gramlink::record::linker::RuleCount { rule, pairs, fields })
                    .collect(),
                sample: sample.chunks_exact(nf).map(<[u8]>::to_vec).collect(),
            };
            $body
        }
    };
}

pub(crate) use on_shard_columns;

on_shard_columns! {
    /// The linkage of every shard's columns for `rows_a` A and `rows_b` B
    /// records: the record matcher's decision on the union. Returns
    /// `{"positions": u64 bytes (the kept candidates, in the linkage's order:
    /// M then P, by weight), "weight", "probability": f64 bytes, "match": u8
    /// bytes (1 for M), "summary": {...}}`.
    fn record_link_shards<'py>(py, rows_a: usize, rows_b: usize) -> Bound<'py, PyAny>,
    |schema, shard| {
        let result = py.detach(|| {
            let mut at = std::collections::HashMap::with_capacity(shard.candidates.len());
            for (i, &(a, b)) in shard.candidates.iter().enumerate() {
                if at.insert((a, b), i as u64).is_some() {
                    return Err(invalid(format!("the pair ({a}, {b}) is twice among the candidates")));
                }
            }
            // a fit the bounds cannot repair is refused by its code (FIT_REFUSED)
            let l = link_shards(&schema, rows_a, rows_b, vec![shard]).map_err(|e| crate::errors::py_err(&e))?;
            let positions: Vec<u8> = l.pairs.iter().flat_map(|p| at[&(p.a, p.b)].to_le_bytes()).collect();
            Ok((l, positions))
        });
        let (l, positions) = result?;
        let p = &l.pairs;
        let summary = crate::records::summary(&l);
        let out = pyo3::types::PyDict::new(py);
        out.set_item("positions", PyBytes::new(py, &positions))?;
        out.set_item("weight", PyBytes::new(py, &le(p.iter().map(|x| x.weight), f64::to_le_bytes)))?;
        out.set_item("probability", PyBytes::new(py, &le(p.iter().map(|x| x.probability), f64::to_le_bytes)))?;
        let classes: Vec<u8> = p.iter().map(|x| (x.class == Class::Match) as u8).collect();
        out.set_item("match", PyBytes::new(py, &classes))?;
        out.set_item("summary", from_json(py, &summary)?)?;
        Ok(out.into_any())
    }
}
