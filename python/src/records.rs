//! `RecordOwner` and `RecordMatcher`: whole records ([`gramlink::record`]),
//! mirroring src/wasm/records.rs. The schema is the core's (a dict, JSON text,
//! or a .json/.toml file).

use crate::convert::{data, from_json, to_json};
use crate::errors::{invalid, OrPy};
use crate::rows::{counts, rows};
use crate::signing::matcher_new;
use gramlink::dataset::ChunkReader;
use gramlink::dp::Randomness;
use gramlink::progress::NoProgress;
use gramlink::record::export::{pairs_csv, Review};
use gramlink::record::linker::Scored;
use gramlink::record::messages::{read_noisy_bases, read_shared_bases, write_noisy_bases, write_shared_bases};
use gramlink::record::owner::spaces;
use gramlink::record::{merge, Class, RecordBatch, Schema};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

/// A schema from a dict, JSON text, or a path to a .json or .toml file (TOML
/// through Python's tomllib, 3.11+).
pub(crate) fn schema_arg(v: &Bound<'_, PyAny>) -> PyResult<Schema> {
    let py = v.py();
    if v.is_instance_of::<PyDict>() {
        return Schema::parse_json(&to_json(v, "schema")?.to_string()).py();
    }
    if let Ok(s) = v.cast::<PyString>() {
        let text = s.to_cow()?;
        if text.trim_start().starts_with('{') {
            return Schema::parse_json(&text).py();
        }
    }
    let path: std::path::PathBuf =
        v.extract().map_err(|_| invalid("the schema must be a dict, JSON text or a path to a .json or .toml file"))?;
    let (bytes, _) = data(v, "schema")?;
    let text = String::from_utf8(bytes).map_err(|_| invalid(format!("{} is not UTF-8 text", path.display())))?;
    if path.extension().is_some_and(|e| e == "toml") {
        let value = py.import("tomllib")?.call_method1("loads", (text,))?;
        return Schema::parse_json(&to_json(&value, "schema")?.to_string()).py();
    }
    Schema::parse_json(&text).py()
}

fn batch_bytes<'a, 'py>(v: &'a Bound<'py, PyAny>, what: &str) -> PyResult<&'a Bound<'py, PyBytes>> {
    v.cast::<PyBytes>().map_err(|_| invalid(format!("{what} must be bytes (a record batch)")))
}

/// One party's records under a linkage schema.
#[pyclass(module = "gramlink._native")]
pub struct RecordOwner {
    owner: gramlink::record::RecordOwner,
    /// The map of the last `embed`'s pseudonyms (none: no embed yet, or ids kept).
    id_map: Option<gramlink::pseudonym::IdMap>,
}

#[pymethods]
impl RecordOwner {
    /// The party's CSV (a path, its bytes, or a pandas DataFrame) read under
    /// `schema`; `seed`: reproducible noise (NOT private); `date_formats`:
    /// this file's own date format per date field (`{"dob": "MM/DD/YYYY"}`),
    /// the schema unchanged (without it, a format found in the file is used
    /// and listed in `notes`).
    #[new]
    #[pyo3(signature = (source, schema, *, seed=None, date_formats=None))]
    fn new(
        source: &Bound<'_, PyAny>,
        schema: &Bound<'_, PyAny>,
        seed: Option<u64>,
        date_formats: Option<std::collections::BTreeMap<String, String>>,
    ) -> PyResult<Self> {
        let schema = schema_arg(schema)?;
        let rng = Randomness::from_seed_option(seed).py()?;
        let formats: Vec<(String, String)> = date_formats.unwrap_or_default().into_iter().collect();
        // a path is read a megabyte at a time, never whole
        let owner = match crate::convert::path(source) {
            Some(path) => gramlink::record::RecordOwner::read_file(&path, schema, rng, &formats, &mut |_, _| {}),
            None => {
                let (bytes, name) = data(source, "source")?;
                let what = name.unwrap_or_else(|| "the records".into());
                schema.validate().py()?;
                let mut reader = gramlink::record::TableReader::new(&schema, &what).date_formats(&formats).py()?;
                reader.push(&bytes).py()?;
                gramlink::record::RecordOwner::from_reader(reader, rng)
            }
        };
        Ok(RecordOwner { owner: owner.py()?, id_map: None })
    }

    /// How the file was read where it differs from the schema: a date format
    /// found in the file instead of the schema's, one sentence each.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.owner.table().notes.clone()
    }

    /// The schema's fingerprint (every message carries it).
    #[getter]
    fn schema_fingerprint(&self) -> String {
        self.owner.schema().fingerprint()
    }

    /// Each sent field: `{"name", "kind", "present"}` (rows with a value).
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f: Vec<serde_json::Value> = self
            .owner
            .table()
            .fields
            .iter()
            .map(|f| serde_json::json!({"name": f.name, "kind": f.kind.name(), "present": f.present()}))
            .collect();
        from_json(py, &f)
    }

    /// The budget split: `[{"space", "epsilon", "fields"}]`, one per gram space.
    fn budget_split<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let schema = self.owner.schema();
        let split: Vec<serde_json::Value> = spaces(schema)
            .py()?
            .into_iter()
            .map(|s| {
                let fields: Vec<&str> = s.fields.iter().map(|&i| schema.fields[i].name.as_str()).collect();
                serde_json::json!({"space": s.name, "epsilon": s.epsilon, "fields": fields})
            })
            .collect();
        from_json(py, &split)
    }

    /// Mines a noisy base per space with the schema's split of ε (charged
    /// once). Returns the noisy bases message (JSON).
    fn mine(&mut self, py: Python<'_>) -> PyResult<String> {
        let owner = &mut self.owner;
        Ok(write_noisy_bases(&py.detach(|| owner.mine(&mut NoProgress)).py()?))
    }

    /// The shared bases (JSON) of both parties' noisy bases under `schema`.
    #[staticmethod]
    fn merge_bases(a: &str, b: &str, schema: &Bound<'_, PyAny>) -> PyResult<String> {
        let schema = schema_arg(schema)?;
        let na = read_noisy_bases(a, &schema).py()?;
        let nb = read_noisy_bases(b, &schema).py()?;
        Ok(write_shared_bases(&merge(&na, &nb, &schema).py()?))
    }

    /// The party's record batch (bytes) over the shared bases. The keywords
    /// are the core's embed options ([`gramlink::party::EmbedRequest`], as
    /// `DataOwner.embed` takes them, without thresholds): `party`, `key` (hex,
    /// the parties' shared key) or `passphrase` (salted with the schema): it
    /// hashes the keyed fields and rotates every embedded field's vectors;
    /// `no_key=True` sends the vectors unrotated, the key (if any) then only
    /// hashing the keyed fields (the core's export policy, else
    /// KEY_REQUIRED). The batch carries random pseudonyms unless
    /// `keep_ids=True` (`id_map_csv()` is then the map back), its rows
    /// shuffled.
    #[pyo3(signature = (shared, **options))]
    fn embed<'py>(
        &mut self,
        py: Python<'py>,
        shared: &str,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let shared = read_shared_bases(shared, self.owner.schema()).py()?;
        let request: gramlink::party::EmbedRequest =
            crate::convert::options_over(options, "embed options", &Default::default())?;
        let linkage = gramlink::record::owner::linkage(self.owner.schema());
        let o = request.records(&linkage, crate::owner::KEY_REMEDY).py()?;
        let owner = &self.owner;
        let embedded = py.detach(|| owner.embed(&shared, &o, &mut NoProgress)).py()?;
        let out = PyBytes::new(py, &embedded.batch.write());
        self.id_map = embedded.id_map;
        Ok(out)
    }

    /// The map of the last `embed`'s pseudonyms to this owner's ids, as CSV
    /// (`pseudonym,id`; `gramlink.unmap`). None before an embed or after one
    /// with `keep_ids=True`.
    fn id_map_csv(&self) -> PyResult<Option<String>> {
        crate::owner::id_map_csv(self.id_map.as_ref())
    }
}

rows!(RecordOwner, |s| s.owner.table().ids);

/// The matcher of record batches: candidates, levels and the EM fit are made
/// once (the constructor); `link` decides with any thresholds.
#[pyclass(module = "gramlink._native", frozen)]
pub struct RecordMatcher {
    matcher: gramlink::record::RecordMatcher,
    scored: Scored,
}

matcher_new!(
    /// Party A's and party B's record batches (bytes) under `schema`; the
    /// signature keywords as `Matcher`'s.
    RecordMatcher,
    (py, schema: &Bound<'_, PyAny>),
    |batch_a, batch_b, verify| {
        let schema = schema_arg(schema)?;
        let (a, b) = (batch_bytes(batch_a, "batch_a")?.as_bytes(), batch_bytes(batch_b, "batch_b")?.as_bytes());
        verify.check((a, "party A's record batch"), (b, "party B's record batch"))?;
        let (a, b) = (RecordBatch::read(a).py()?, RecordBatch::read(b).py()?);
        let (matcher, scored) = py
            .detach(|| {
                let m = gramlink::record::RecordMatcher::new(schema, a, b)?;
                let s = m.score()?;
                Ok::<_, gramlink::Error>((m, s))
            })
            .py()?;
        Ok(RecordMatcher { matcher, scored })
    }
);

counts!(RecordMatcher, |s| size_a: s.matcher.a().ids, size_b: s.matcher.b().ids);

#[pymethods]
impl RecordMatcher {
    /// Whether both batches were made with secure noise.
    #[getter]
    fn private(&self) -> bool {
        self.matcher.a().private && self.matcher.b().private
    }

    /// Every candidate's weight, in candidate order.
    fn weights(&self) -> Vec<f64> {
        self.scored.weights.clone()
    }

    /// The decision with `upper` and `lower` (each absent: the schema's, else
    /// the proposed one): a dict as the JS API's `link` (pairs as columns).
    #[pyo3(signature = (*, upper=None, lower=None))]
    fn link<'py>(&self, py: Python<'py>, upper: Option<f64>, lower: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
        let l = self.matcher.decide(&self.scored, finite(upper)?, finite(lower)?);
        let (ids_a, ids_b) = (&self.matcher.a().ids, &self.matcher.b().ids);
        let p = &l.pairs;
        let sent: Vec<serde_json::Value> = self
            .matcher
            .schema()
            .sent()
            .map(|f| serde_json::json!({"name": f.name, "levels": f.level_names()}))
            .collect();
        let mut out = summary(&l);
        let rest = serde_json::json!({
            "fit": l.fit,
            "fields": sent,
            "pairs": {
                "a": p.iter().map(|x| x.a).collect::<Vec<_>>(),
                "b": p.iter().map(|x| x.b).collect::<Vec<_>>(),
                "a_ids": p.iter().map(|x| &ids_a[x.a as usize]).collect::<Vec<_>>(),
                "b_ids": p.iter().map(|x| &ids_b[x.b as usize]).collect::<Vec<_>>(),
                "weight": p.iter().map(|x| x.weight).collect::<Vec<_>>(),
                "probability": p.iter().map(|x| x.probability).collect::<Vec<_>>(),
                "class": p.iter().map(|x| if x.class == Class::Match { "M" } else { "P" }).collect::<Vec<_>>(),
                "swapped": p.iter().map(|x| x.swapped).collect::<Vec<_>>(),
                "levels": p.iter().map(|x| &x.levels).collect::<Vec<_>>(),
            },
        });
        if let (Some(o), serde_json::Value::Object(r)) = (out.as_object_mut(), rest) {
            o.extend(r);
        }
        from_json(py, &out)
    }

    /// The pairs of `link(upper, lower)` as CSV (the CLI's columns); `review`:
    /// one character per pair, `a` accepted, `r` rejected (a `review` column).
    #[pyo3(signature = (*, upper=None, lower=None, review=None))]
    fn pairs_csv(&self, upper: Option<f64>, lower: Option<f64>, review: Option<&str>) -> PyResult<String> {
        let l = self.matcher.decide(&self.scored, finite(upper)?, finite(lower)?);
        let review = review.map(Review::from_chars);
        pairs_csv(self.matcher.schema(), &l, &self.matcher.a().ids, &self.matcher.b().ids, review.as_deref()).py()
    }
}

/// A linkage's decision in numbers (thresholds, counts, rules): one place
/// for the matcher's `link` and the Spark job's `record_link_shards`.
pub(crate) fn summary(l: &gramlink::record::RecordLinkage) -> serde_json::Value {
    serde_json::json!({
        "upper": l.upper,
        "lower": l.lower,
        "upper_probability": l.upper_probability,
        "assignment": l.assignment.name(),
        "candidates": l.candidates,
        "matches": l.matches,
        "possible": l.possible,
        "non_matches": l.non_matches,
        "reduction_ratio": l.reduction_ratio,
        "rules": l.rules,
    })
}

fn finite(x: Option<f64>) -> PyResult<Option<f64>> {
    match x {
        Some(v) if !v.is_finite() => Err(invalid(format!("a threshold must be a finite number, not {v}"))),
        _ => Ok(x),
    }
}
