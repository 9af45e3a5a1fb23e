//! The matcher in shards ([`gramlink::shard`]) for the Spark job
//! (gramlink/spark.py): `Batch` (a vector batch, or some of its rows, read
//! from a file), `Reference` (party B's rows kept sparse), `check_batches`,
//! `cutoff_bound`, `shard_candidates`, `assign`. Columns cross as little-endian bytes that
//! pyarrow wraps without a Python loop.

use crate::convert::{from_json, message, rule};
use crate::errors::{invalid, io, OrPy};
use crate::rows::rows;
use gramlink::cutoff::{Evidence, Plan};
use gramlink::matching::{Pair, Scored};
use gramlink::protocol::{read_binary_rows, BinaryLayout, VectorBatch};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::io::{Read, Seek, SeekFrom};

/// A vector batch (or rows of one), checked as the matcher checks it.
#[pyclass(module = "gramlink._native", frozen)]
pub struct Batch {
    pub(crate) batch: VectorBatch,
    /// Rows in the whole batch (the file's), of which `batch` holds some.
    total: usize,
}

#[pymethods]
impl Batch {
    /// The batch in a file, or its rows `start..end` (a binary batch reads
    /// the header and those rows only). `end` past the batch is the batch's
    /// end; `start == end` reads the header only (no rows).
    #[staticmethod]
    #[pyo3(signature = (path, start=None, end=None))]
    fn open(py: Python<'_>, path: std::path::PathBuf, start: Option<usize>, end: Option<usize>) -> PyResult<Batch> {
        let rows = match (start, end) {
            (None, None) => None,
            (s, e) => Some(s.unwrap_or(0)..e.unwrap_or(usize::MAX)),
        };
        let mut file = BatchFile::open(&path)?;
        let total = file.rows()?;
        let batch = py.detach(|| file.read(rows)).py()?;
        Ok(Batch { batch, total })
    }

    /// A batch from its message (bytes or JSON text).
    #[staticmethod]
    fn read(message: &Bound<'_, PyAny>) -> PyResult<Batch> {
        let batch = VectorBatch::read(&self::message(message, "message")?).py()?;
        let total = batch.ids.len();
        Ok(Batch { batch, total })
    }

    #[getter]
    fn party(&self) -> &'static str {
        self.batch.party.name()
    }

    #[getter]
    fn fingerprint(&self) -> String {
        self.batch.fingerprint.clone()
    }

    /// Rows in the whole batch (`size` counts the rows read).
    #[getter]
    fn total(&self) -> usize {
        self.total
    }

    #[getter]
    fn dim(&self) -> usize {
        self.batch.vectors.dim()
    }

    /// The edit distance of the batch's thresholds (party A's), if any.
    #[getter]
    fn ed(&self) -> Option<u32> {
        self.batch.thresholds.as_ref().map(|t| t.ed)
    }

    #[getter]
    fn transform(&self) -> Option<String> {
        self.batch.transform.clone()
    }

    fn __repr__(&self) -> String {
        format!("Batch(party={:?}, size={}, dim={})", self.party(), self.size(), self.dim())
    }
}

// `size` counts the rows read (`total` the whole batch's)
rows!(Batch, |s| s.batch.ids, ids);

/// A batch file: a binary one is read by rows (header and the rows asked
/// for); a JSON one whole, then sliced.
pub(crate) struct BatchFile {
    path: std::path::PathBuf,
    file: std::fs::File,
    len: u64,
    json: Option<VectorBatch>,
}

impl BatchFile {
    pub(crate) fn open(path: &std::path::Path) -> PyResult<BatchFile> {
        let mut file = std::fs::File::open(path).map_err(|e| io(path, e))?;
        let len = file.metadata().map_err(|e| io(path, e))?.len();
        let mut magic = [0u8; 4];
        let binary = len >= 4 && file.read_exact(&mut magic).is_ok() && &magic == b"GLVB";
        let json =
            if binary { None } else { Some(VectorBatch::read(&std::fs::read(path).map_err(|e| io(path, e))?).py()?) };
        Ok(BatchFile { path: path.to_path_buf(), file, len, json })
    }

    fn read_at(&mut self, at: u64, buf: &mut [u8]) -> Result<(), gramlink::Error> {
        let e = |e: std::io::Error| gramlink::error::InputError::Io {
            path: self.path.display().to_string(),
            reason: e.to_string(),
        };
        self.file.seek(SeekFrom::Start(at)).map_err(e)?;
        self.file.read_exact(buf).map_err(e)?;
        Ok(())
    }

    /// Rows in the whole batch (a binary batch's layout, checked against the
    /// file's length).
    pub(crate) fn rows(&mut self) -> PyResult<usize> {
        if let Some(b) = &self.json {
            return Ok(b.ids.len());
        }
        let len = self.len;
        let mut pre = [0u8; 12];
        let n = (|| {
            let got = (len as usize).min(12);
            self.read_at(0, &mut pre[..got])?;
            let mut prefix = vec![0u8; BinaryLayout::prefix_len(&pre[..got])?.min(len as usize)];
            self.read_at(0, &mut prefix)?;
            let layout = BinaryLayout::read(&prefix, len as usize)?;
            Ok::<_, gramlink::Error>(layout.count())
        })();
        n.py()
    }

    /// Rows `rows` (all with `None`), clamped to the batch.
    pub(crate) fn read(&mut self, rows: Option<std::ops::Range<usize>>) -> Result<VectorBatch, gramlink::Error> {
        if let Some(b) = &self.json {
            return Ok(rows.map_or_else(|| b.clone(), |r| b.rows(r)));
        }
        let len = self.len;
        read_binary_rows(len, rows, &mut |at, buf| self.read_at(at, buf))
    }
}

/// Party B's batch as each task keeps it: sparse rows, read from its file in
/// pieces (never whole and dense), once per worker.
#[pyclass(module = "gramlink._native", frozen)]
pub struct Reference {
    reference: gramlink::shard::Reference,
}

#[pymethods]
impl Reference {
    /// The batch in `path`, read `chunk` rows at a time.
    #[staticmethod]
    #[pyo3(signature = (path, chunk=65536))]
    fn open(py: Python<'_>, path: std::path::PathBuf, chunk: usize) -> PyResult<Reference> {
        let mut file = BatchFile::open(&path)?;
        let n = file.rows()?;
        let chunk = chunk.max(1);
        let reference = py
            .detach(|| {
                let mut r = gramlink::shard::Reference::new(&file.read(Some(0..0))?);
                let mut s = 0;
                while s < n {
                    r.push(&file.read(Some(s..s + chunk))?)?;
                    s += chunk;
                }
                Ok::<_, gramlink::Error>(r)
            })
            .py()?;
        Ok(Reference { reference })
    }
}

rows!(Reference, |s| s.reference.ids(), ids);

/// Checks that two batches (headers suffice) can be linked, as the matcher
/// does before any work; returns the edit distance of A's thresholds.
#[pyfunction]
pub fn check_batches(a: &Batch, b: &Batch) -> PyResult<u32> {
    gramlink::matcher::check_pair(&a.batch, &b.batch).py()
}

/// How the cut-off of `ed auto` is fitted when `a` and `b` (headers suffice)
/// are linked under `rule`: `(bound, evidence)`, evidence "edits" (the q-gram
/// filter's bounds) or "distance" (keyed batches: distances relative to A's
/// thresholds), or `None` (a fixed `ed`; a rule without the fit): the single
/// machine's decision.
#[pyfunction]
#[pyo3(signature = (a, b, rule=None))]
pub fn cutoff_bound(a: &Batch, b: &Batch, rule: Option<&str>) -> PyResult<Option<(u32, &'static str)>> {
    gramlink::matcher::check_pair(&a.batch, &b.batch).py()?;
    let plan = gramlink::matcher::cutoff_bound(&a.batch, &b.batch, self::rule(rule)?);
    Ok(plan.map(|p| (p.bound, evidence_name(p.evidence))))
}

fn evidence_name(e: Evidence) -> &'static str {
    match e {
        Evidence::Edits => "edits",
        Evidence::Distance => "distance",
    }
}

pub(crate) fn le<T: Copy, const N: usize>(xs: impl Iterator<Item = T>, bytes: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    xs.flat_map(bytes).collect()
}

/// The candidates of `a` (rows `offset..` of party A's batch) against all of
/// `b` (B's `Reference`) under `rule`: `(a_rows u32, b_rows u32, distances
/// f64, scores f64, edits u32)` as little-endian bytes (edits: the q-gram
/// filter's bound, or a keyed candidate's distance level, which `ed auto`'s
/// cut-off reads), and the number of pairs
/// compared.
#[pyfunction]
#[pyo3(signature = (a, b, offset, rule=None))]
pub fn shard_candidates<'py>(
    py: Python<'py>,
    a: &Batch,
    b: &Reference,
    offset: usize,
    rule: Option<&str>,
) -> PyResult<ScoredColumns<'py>> {
    let rule = self::rule(rule)?;
    let (sa, sb) = (&a.batch, &b.reference);
    let (scored, stats) = py.detach(|| gramlink::shard::shard_candidates(sa, sb, offset, rule)).py()?;
    Ok(scored_columns(py, &scored, stats.candidates))
}

/// Scored candidates as columns of little-endian numbers: rows of A and of B
/// (u32), distances and scores (f64), edits (u32); and a count beside them.
pub(crate) type ScoredColumns<'py> =
    (Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, u64);

/// [`ScoredColumns`] of `scored`, with `count`.
pub(crate) fn scored_columns<'py>(py: Python<'py>, scored: &[Scored], count: u64) -> ScoredColumns<'py> {
    let bytes = |v: Vec<u8>| PyBytes::new(py, &v);
    (
        bytes(le(scored.iter().map(|s| s.pair.a), u32::to_le_bytes)),
        bytes(le(scored.iter().map(|s| s.pair.b), u32::to_le_bytes)),
        bytes(le(scored.iter().map(|s| s.pair.distance), f64::to_le_bytes)),
        bytes(le(scored.iter().map(|s| s.score), f64::to_le_bytes)),
        bytes(le(scored.iter().map(|s| s.edits), u32::to_le_bytes)),
        count,
    )
}

pub(crate) fn numbers<const N: usize, T>(bytes: &[u8], what: &str, from: impl Fn([u8; N]) -> T) -> PyResult<Vec<T>> {
    if bytes.len() % N != 0 {
        return Err(invalid(format!("{what}: {} bytes is not a whole number of {N}-byte numbers", bytes.len())));
    }
    Ok(bytes.chunks_exact(N).map(|c| from(c.try_into().unwrap_or([0; N]))).collect())
}

/// The pairs `rule` keeps of every shard's candidates (columns as
/// `shard_candidates` gives them, concatenated in any order): the positions
/// of the kept candidates (u64 little-endian bytes), in the single-machine
/// matcher's order of pairs, and the fitted cut-off (a dict, with
/// `description`) or `None`. `auto`: `(plan, rows of A, rows of B)` of the
/// whole batches when `cutoff_bound` gave a plan (then `edits` is needed).
#[pyfunction]
#[pyo3(signature = (a_rows, b_rows, distances, scores, rule=None, *, edits=None, auto=None))]
#[allow(clippy::too_many_arguments)]
pub fn assign<'py>(
    py: Python<'py>,
    a_rows: &[u8],
    b_rows: &[u8],
    distances: &[u8],
    scores: &[u8],
    rule: Option<&str>,
    edits: Option<&[u8]>,
    auto: Option<((u32, String), usize, usize)>,
) -> PyResult<(Bound<'py, PyBytes>, Option<Bound<'py, PyAny>>)> {
    let rule = self::rule(rule)?;
    let ra = numbers(a_rows, "a_rows", u32::from_le_bytes)?;
    let rb = numbers(b_rows, "b_rows", u32::from_le_bytes)?;
    let d = numbers(distances, "distances", f64::from_le_bytes)?;
    let s = numbers(scores, "scores", f64::from_le_bytes)?;
    let e = match edits {
        Some(e) => numbers(e, "edits", u32::from_le_bytes)?,
        None if auto.is_some() => return Err(invalid("the cut-off of ed auto needs the candidates' edits")),
        None => vec![0; ra.len()],
    };
    if rb.len() != ra.len() || d.len() != ra.len() || s.len() != ra.len() || e.len() != ra.len() {
        return Err(invalid("the candidate columns have different lengths"));
    }
    let auto = match auto {
        Some(((bound, evidence), a_rows, b_rows)) => {
            let evidence = [Evidence::Edits, Evidence::Distance]
                .into_iter()
                .find(|e| evidence_name(*e) == evidence)
                .ok_or_else(|| invalid(format!("unknown cut-off evidence {evidence:?}: edits or distance")))?;
            Some(gramlink::shard::Auto { plan: Plan { bound, evidence }, a_rows, b_rows })
        }
        None => None,
    };
    let result = py.detach(|| {
        let scored: Vec<Scored> = (0..ra.len())
            .map(|i| Scored { pair: Pair { a: ra[i], b: rb[i], distance: d[i] }, score: s[i], edits: e[i] })
            .collect();
        let (kept, cutoff) = gramlink::shard::assign_scored(&scored, rule, auto);
        let mut at = std::collections::HashMap::with_capacity(ra.len());
        for i in 0..ra.len() {
            if at.insert((ra[i], rb[i]), i as u64).is_some() {
                return Err(format!("the pair ({}, {}) is twice among the candidates", ra[i], rb[i]));
            }
        }
        Ok((kept.iter().flat_map(|p| at[&(p.a, p.b)].to_le_bytes()).collect::<Vec<u8>>(), cutoff))
    });
    let (positions, cutoff) = result.map_err(invalid)?;
    let cutoff = match cutoff {
        Some(c) => {
            let mut v = serde_json::to_value(&c).map_err(|e| invalid(e.to_string()))?;
            v["description"] = c.describe().into();
            v["chosenEd"] = c.chosen_ed().into();
            Some(from_json(py, &v)?)
        }
        None => None,
    };
    Ok((PyBytes::new(py, &positions), cutoff))
}
