//! `DataOwner`, `merge_bases`, `fingerprint`, `keygen`: a data owner's steps
//! ([`gramlink::party`]) behind Python arguments, as src/wasm/owner.rs puts
//! them behind JS ones.

use crate::convert::{data, options_over, strings};
use crate::errors::{invalid, OrPy};
use crate::rows::rows;
use gramlink::alphabet::Alphabet;
use gramlink::config::{Config, ThresholdOptions};
use gramlink::dataset::{detect_format, read_records, FormatHint, RawRecord};
use gramlink::dp::{Epsilon, Randomness};
use gramlink::keyed::Key;
use gramlink::mine::MineOptions;
use gramlink::party::{self, EmbedRequest};
use gramlink::progress::NoProgress;
use gramlink::protocol::{read_noisy_base, read_shared_base, write_noisy_base, write_shared_base};
use gramlink::pseudonym::IdMap;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

/// What KEY_REQUIRED tells a Python caller to do.
pub const KEY_REMEDY: &str = "Share a key with the other party (gramlink.keygen(); key= or passphrase=), or pass \
no_key=True to export unkeyed vectors anyway";

/// One party's records, normalized onto the public alphabet, with its budget.
#[pyclass(module = "gramlink._native")]
pub struct DataOwner {
    owner: party::DataOwner,
    /// The map of the last `embed`'s pseudonyms (none: no embed yet, or ids kept).
    id_map: Option<IdMap>,
}

fn build(raw: Vec<RawRecord>, alphabet: &str, budget: Option<f64>, seed: Option<u64>) -> PyResult<DataOwner> {
    let alphabet = Alphabet::parse(alphabet).py()?;
    let budget = Epsilon::new(budget.unwrap_or(Config::default().mine.epsilon)).py()?;
    let rng = Randomness::from_seed_option(seed).py()?;
    Ok(DataOwner { owner: party::DataOwner::from_raw(raw, &alphabet, budget, rng).py()?, id_map: None })
}

fn shared_base(json: &str) -> PyResult<gramlink::base::SharedBase> {
    read_shared_base(json).py()
}

#[pymethods]
impl DataOwner {
    /// Records from a column of strings; ids from `ids` (a column of the same
    /// length) or 1-based positions.
    #[new]
    #[pyo3(signature = (records, *, ids=None, alphabet="letters", budget=None, seed=None))]
    fn new(
        records: &Bound<'_, PyAny>,
        ids: Option<&Bound<'_, PyAny>>,
        alphabet: &str,
        budget: Option<f64>,
        seed: Option<u64>,
    ) -> PyResult<Self> {
        let records = strings(records, "records")?;
        let ids = match ids {
            Some(ids) => {
                let ids = strings(ids, "ids")?;
                if ids.len() != records.len() {
                    return Err(invalid(format!("{} ids for {} records", ids.len(), records.len())));
                }
                ids
            }
            None => (1..=records.len()).map(|i| i.to_string()).collect(),
        };
        let raw = ids.into_iter().zip(records).map(|(id, text)| RawRecord { id, text }).collect();
        build(raw, alphabet, budget, seed)
    }

    /// Records from a file (a path), its bytes, or a pandas DataFrame, read by
    /// the CLI's reader: text (one record a line) or CSV (`column` names the
    /// records' column, `id_column` the ids').
    #[staticmethod]
    #[pyo3(signature = (source, *, format="auto", column=None, id_column=None, name=None, alphabet="letters", budget=None, seed=None))]
    #[allow(clippy::too_many_arguments)]
    fn read(
        source: &Bound<'_, PyAny>,
        format: &str,
        column: Option<&str>,
        id_column: Option<&str>,
        name: Option<&str>,
        alphabet: &str,
        budget: Option<f64>,
        seed: Option<u64>,
    ) -> PyResult<Self> {
        let (bytes, file_name) = data(source, "source")?;
        let hint = match format {
            "auto" => FormatHint::Auto,
            "text" => FormatHint::Text,
            "csv" => FormatHint::Csv,
            _ => return Err(invalid(format!("unknown format {format:?} (auto, text, csv)"))),
        };
        let name = name.map(str::to_string).or(file_name).unwrap_or_else(|| "the input".into());
        let format = detect_format(&name, &bytes, hint, column, id_column).py()?;
        build(read_records(&bytes, &format, &name).py()?, alphabet, budget, seed)
    }

    #[getter]
    fn epsilon_budget(&self) -> f64 {
        self.owner.ledger().budget().as_f64()
    }

    #[getter]
    fn epsilon_spent(&self) -> f64 {
        self.owner.ledger().spent().as_f64()
    }

    /// Whether what this owner makes is private (no seed was given).
    #[getter]
    fn private(&self) -> bool {
        self.owner.is_private()
    }

    /// What normalization kept, changed and dropped (a dict).
    fn normalization_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::convert::from_json(py, &self.owner.dataset().report())
    }

    /// Mines a noisy base (the core's mining options as keywords: epsilon, k,
    /// q_min, q_max, h_max, miner, strategy, max_grams_per_record, padding,
    /// public_q; over the default configuration's), charging the budget.
    /// Returns the noisy-base message (JSON).
    #[pyo3(signature = (**options))]
    fn mine(&mut self, py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<String> {
        let o: MineOptions = options_over(options, "mine options", &MineOptions::default())?;
        let owner = &mut self.owner;
        let base = py.detach(|| owner.mine(&o, &mut NoProgress)).py()?;
        Ok(write_noisy_base(&base))
    }

    /// The party's vector batch over the shared base (its JSON message): bytes
    /// (the binary form) or, with `binary=False`, JSON text. The other
    /// keywords are the core's embed options ([`gramlink::party::EmbedRequest`],
    /// the same for `RecordOwner.embed`): `party` ("A" or "B"), `thresholds`
    /// (`{"ed", "mode"}` over the default configuration's; party A's default),
    /// `key` (64 hex digits) or `passphrase` (salted with the shared base) for
    /// the keyed transform, or `no_key=True` to let unkeyed vectors leave (the
    /// core's export policy, else KEY_REQUIRED), `keep_ids=True` to send the
    /// own ids instead of random pseudonyms (`id_map_csv()` is then the map
    /// back). The rows are shuffled.
    #[pyo3(signature = (shared, *, binary=true, **options))]
    fn embed<'py>(
        &mut self,
        py: Python<'py>,
        shared: &str,
        binary: bool,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let base = shared_base(shared)?;
        let request: EmbedRequest = options_over(options, "embed options", &EmbedRequest::default())?;
        let o = request.one_string(&base, &Config::default(), KEY_REMEDY).py()?;
        let owner = &self.owner;
        let embedded = py.detach(|| owner.embed(&base, &o, &mut NoProgress)).py()?;
        let batch = &embedded.batch;
        let out = if binary {
            PyBytes::new(py, &batch.to_binary()).into_any()
        } else {
            batch.to_json().into_pyobject(py)?.into_any()
        };
        self.id_map = embedded.id_map;
        Ok(out)
    }

    /// The map of the last `embed`'s pseudonyms to this owner's ids, as CSV
    /// (`pseudonym,id`): keep it, never send it; `gramlink.unmap` maps the
    /// matcher's pairs back with it. None before an embed or after one with
    /// `keep_ids=True`.
    fn id_map_csv(&self) -> PyResult<Option<String>> {
        id_map_csv(self.id_map.as_ref())
    }

    /// The records' vectors over the shared base, one list a record (local
    /// use: what goes to the matcher is `embed`'s batch).
    fn vectors(&self, shared: &str) -> PyResult<Vec<Vec<f32>>> {
        let v = self.owner.vectors(&shared_base(shared)?, &mut NoProgress).py()?;
        Ok((0..v.len()).map(|r| v.row(r).to_vec()).collect())
    }

    /// The records' thresholds for `ed` edits and `mode` ("sound", "paper" or
    /// {"global": value or None}), each over the default configuration's.
    #[pyo3(signature = (shared, **options))]
    fn thresholds(&self, shared: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<f64>> {
        let t: ThresholdOptions = options_over(options, "threshold options", &ThresholdOptions::default())?;
        Ok(self.owner.thresholds(&shared_base(shared)?, &t).py()?.values)
    }

    fn __repr__(&self) -> String {
        format!("DataOwner(size={}, private={})", self.size(), self.private())
    }
}

// the records kept after normalization, in order (the rows of `embed`)
rows!(DataOwner, |s| s.owner.dataset().ids(), ids);

/// The shared base (JSON) of two noisy-base messages or more (one a party:
/// A, B, then C, … for three parties or more), under the mining options every
/// party used (keywords as `mine`'s: k, public_q and padding matter). One
/// party's base given twice is `BASE_TWICE`.
#[pyfunction]
#[pyo3(signature = (a, b, *more, **options))]
pub fn merge_bases(
    a: &str,
    b: &str,
    more: &Bound<'_, pyo3::types::PyTuple>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let mut bases = vec![read_noisy_base(a).py()?, read_noisy_base(b).py()?];
    for m in more.iter() {
        let text: String = m.extract().map_err(|_| invalid("every base after b must be a noisy-base message (str)"))?;
        bases.push(read_noisy_base(&text).py()?);
    }
    let o: MineOptions = options_over(options, "merge options", &MineOptions::default())?;
    let names: Vec<String> = (0..bases.len()).map(|i| format!("base {}", i + 1)).collect();
    let refs: Vec<_> = bases.iter().collect();
    Ok(write_shared_base(&party::merge_parties(&refs, &names, &o).py()?))
}

/// The fingerprint of a shared-base message, for the parties to compare.
#[pyfunction]
pub fn fingerprint(shared: &str) -> PyResult<String> {
    Ok(shared_base(shared)?.fingerprint().to_string())
}

/// A new random key for the keyed transform (64 hex digits).
#[pyfunction]
pub fn keygen() -> PyResult<String> {
    Ok(Key::random().py()?.to_hex())
}

/// The default configuration and every preset's, from the core's one
/// definition (src/config.rs), as dicts in the core's (camelCase) names.
#[pyfunction]
pub fn defaults(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    use gramlink::config::Preset;
    let presets: serde_json::Map<String, serde_json::Value> = Preset::ALL
        .iter()
        .map(|p| (p.name().to_string(), serde_json::to_value(p.config()).unwrap_or_default()))
        .collect();
    crate::convert::from_json(py, &serde_json::json!({"config": Config::default(), "presets": presets}))
}

/// An id map as its CSV text; none when the ids were kept.
pub fn id_map_csv(map: Option<&IdMap>) -> PyResult<Option<String>> {
    let Some(map) = map else { return Ok(None) };
    // written from strings: always UTF-8
    Ok(Some(String::from_utf8_lossy(&map.to_csv().py()?).into_owned()))
}

/// The matcher's pairs CSV (one string's or records': `a_id,b_id,...`; str or
/// bytes) with party A's pseudonyms replaced by its own ids (`a_map`: its
/// `id_map_csv()`) and party B's likewise; either map may be None, not both.
/// The other columns are kept (the core's `pseudonym::unmap_pairs`).
#[pyfunction]
#[pyo3(signature = (pairs, a_map=None, b_map=None))]
pub fn unmap(pairs: &Bound<'_, PyAny>, a_map: Option<&str>, b_map: Option<&str>) -> PyResult<String> {
    let pairs: Vec<u8> = match pairs.extract::<String>() {
        Ok(s) => s.into_bytes(),
        Err(_) => pairs.extract::<Vec<u8>>().map_err(|_| invalid("pairs must be str or bytes (CSV)"))?,
    };
    let read = |m: Option<&str>, what: &str| m.map(|m| IdMap::from_csv(m.as_bytes(), what)).transpose().py();
    let (a, b) = (read(a_map, "party A's id map")?, read(b_map, "party B's id map")?);
    let out = gramlink::pseudonym::unmap_pairs(&pairs, a.as_ref(), b.as_ref()).py()?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}
