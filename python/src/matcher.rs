//! `Matcher`, `Linkage` and `score`: the matcher's steps
//! ([`gramlink::matcher`]) and scoring against a truth
//! ([`gramlink::matching::truth`]).

use crate::convert::{data, message, rule};
use crate::errors::{invalid, OrPy};
use crate::rows::counts;
use crate::signing::matcher_new;
use gramlink::matching::truth::{quality_by_ids, read_truth};
use gramlink::protocol::write_match_result;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyString};
use std::collections::HashSet;

/// Party A's vector batch (with thresholds) and party B's, checked against
/// each other (same shared base, same key or none, same dimension).
#[pyclass(module = "gramlink._native", frozen)]
pub struct Matcher {
    matcher: gramlink::matcher::Matcher,
}

/// A linkage: the rule, its pairs (rows and ids of A and B, distances), and
/// the number of candidates compared.
#[pyclass(module = "gramlink._native", frozen)]
pub struct Linkage {
    #[pyo3(get)]
    rule: String,
    #[pyo3(get)]
    candidates: u64,
    #[pyo3(get)]
    a: Vec<u32>,
    #[pyo3(get)]
    b: Vec<u32>,
    #[pyo3(get)]
    distances: Vec<f64>,
    #[pyo3(get)]
    a_ids: Vec<String>,
    #[pyo3(get)]
    b_ids: Vec<String>,
}

matcher_new!(
    /// The two batches: bytes (binary or JSON) or JSON text each. With a
    /// party's public signing key (`verify_a`, `verify_b`: `sign_keygen`'s or
    /// the CLI's `.pub`), its batch must come with a signature that verifies
    /// (`signature_a`, `signature_b`: `sign_batch`'s or the CLI's `.sig`),
    /// checked first: `SIGNATURE_MISSING`, `SIGNATURE_INVALID`, as `match
    /// --verify-a`.
    Matcher,
    (py),
    |batch_a, batch_b, verify| {
        let (a, b) = (message(batch_a, "batch_a")?, message(batch_b, "batch_b")?);
        verify.check((&a, "party A's vector batch"), (&b, "party B's vector batch"))?;
        let matcher = py.detach(|| gramlink::matcher::Matcher::read(&a, &b)).py()?;
        Ok(Matcher { matcher })
    }
);

counts!(Matcher, |s| size_a: s.matcher.a().ids, size_b: s.matcher.b().ids);

#[pymethods]
impl Matcher {
    /// The edit distance of A's thresholds (the q-gram filter's).
    #[getter]
    fn ed(&self) -> u32 {
        self.matcher.ed()
    }

    /// The shared base's fingerprint both batches carry.
    #[getter]
    fn fingerprint(&self) -> String {
        self.matcher.a().fingerprint.clone()
    }

    /// Links the batches under `rule` ("ranked", the default; "all", "greedy",
    /// "nearest").
    #[pyo3(signature = (rule=None))]
    fn link(&self, py: Python<'_>, rule: Option<&str>) -> PyResult<Linkage> {
        let rule = self::rule(rule)?;
        let m = &self.matcher;
        let l = py.detach(|| m.link(rule)).py()?;
        let id = |ids: &[String], r: u32| ids[r as usize].clone();
        Ok(Linkage {
            rule: l.rule.name().to_string(),
            candidates: l.stats.candidates,
            a: l.pairs.iter().map(|p| p.a).collect(),
            b: l.pairs.iter().map(|p| p.b).collect(),
            distances: l.pairs.iter().map(|p| p.distance).collect(),
            a_ids: l.pairs.iter().map(|p| id(&m.a().ids, p.a)).collect(),
            b_ids: l.pairs.iter().map(|p| id(&m.b().ids, p.b)).collect(),
        })
    }

    /// The same pairs as the match-result message (JSON, pairs by ids).
    #[pyo3(signature = (rule=None))]
    fn match_result(&self, py: Python<'_>, rule: Option<&str>) -> PyResult<String> {
        let rule = self::rule(rule)?;
        let m = &self.matcher;
        let l = py.detach(|| m.link(rule)).py()?;
        Ok(write_match_result(&m.result(&l)))
    }

    fn __repr__(&self) -> String {
        format!("Matcher(size_a={}, size_b={}, ed={})", self.size_a(), self.size_b(), self.ed())
    }
}

#[pymethods]
impl Linkage {
    fn __len__(&self) -> usize {
        self.a.len()
    }

    /// `(a_id, b_id, distance)` for each pair.
    fn pairs(&self) -> Vec<(String, String, f64)> {
        (0..self.a.len()).map(|i| (self.a_ids[i].clone(), self.b_ids[i].clone(), self.distances[i])).collect()
    }

    /// The pairs as a pandas DataFrame (columns a_id, b_id, distance, a, b).
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let d = self.columns(py)?;
        py.import("pandas")?.call_method1("DataFrame", (d,))
    }

    /// The pairs as a pyarrow Table (columns as `to_pandas`).
    fn to_arrow<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let d = self.columns(py)?;
        py.import("pyarrow")?.call_method1("table", (d,))
    }

    fn __repr__(&self) -> String {
        format!("Linkage(rule={:?}, pairs={}, candidates={})", self.rule, self.a.len(), self.candidates)
    }
}

impl Linkage {
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("a_id", self.a_ids.clone())?;
        d.set_item("b_id", self.b_ids.clone())?;
        d.set_item("distance", self.distances.clone())?;
        d.set_item("a", self.a.clone())?;
        d.set_item("b", self.b.clone())?;
        Ok(d)
    }
}

/// Id pairs from a `Linkage` or any iterable of `(a_id, b_id, ...)`.
fn id_pairs(v: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<(String, String)>> {
    if let Ok(l) = v.cast::<Linkage>() {
        let l = l.get();
        return Ok(l.a_ids.iter().cloned().zip(l.b_ids.iter().cloned()).collect());
    }
    let mut out = Vec::new();
    let iter = v.try_iter().map_err(|_| invalid(format!("{what} must be a Linkage or an iterable of (a_id, b_id)")))?;
    for (i, x) in iter.enumerate() {
        let x = x?;
        let a = x.get_item(0).and_then(|a| a.extract::<String>());
        let b = x.get_item(1).and_then(|b| b.extract::<String>());
        match (a, b) {
            (Ok(a), Ok(b)) => out.push((a, b)),
            _ => return Err(invalid(format!("{what}[{i}] is not an (a_id, b_id) pair of strings"))),
        }
    }
    Ok(out)
}

/// Precision, recall and F1 of `pairs` (a `Linkage` or `(a_id, b_id)` pairs)
/// against `truth`: a truth CSV (`a_id,b_id`; a path, or its bytes) or
/// `(a_id, b_id)` pairs. Recall is over every true pair.
#[pyfunction]
pub fn score<'py>(
    py: Python<'py>,
    pairs: &Bound<'py, PyAny>,
    truth: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let pairs = id_pairs(pairs, "pairs")?;
    let file = truth.is_instance_of::<PyBytes>()
        || truth.is_instance_of::<PyByteArray>()
        || truth.is_instance_of::<PyString>()
        || truth.hasattr("__fspath__")?;
    let truth: HashSet<(String, String)> = if file {
        let (bytes, name) = data(truth, "truth")?;
        read_truth(&bytes, name.as_deref().unwrap_or("the truth")).py()?
    } else {
        id_pairs(truth, "truth")?.into_iter().collect()
    };
    let q = quality_by_ids(pairs.iter().map(|(a, b)| (a.as_str(), b.as_str())), &truth);
    crate::convert::from_json(py, &q)
}
