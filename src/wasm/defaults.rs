//! `defaults()`, `normalize()` and `batchInfo()`: what the web pages need to
//! follow the core instead of repeating it. The pages fill their forms from
//! `defaults()`, so a change of a core default reaches them without an edit;
//! `normalize()` previews the normalization a data owner is about to apply, before
//! any mining; `batchInfo()` checks one vector batch on its own, so the matcher page
//! can name the file that is wrong.

use super::args::{string_arg, to_plain};
use super::owner::{string_array, EmbedJsOptions, OwnerOptions};
use crate::alphabet::{Alphabet, CharCounts};
use crate::config::{Config, Preset};
#[cfg(feature = "eval")]
use crate::eval::scenario::ScenarioOptions;
use crate::party::EmbedRequest;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Every options object's defaults, from the core's `Default`s.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Defaults {
    owner: OwnerOptions,
    /// The default configuration (the recommended preset).
    config: Config,
    /// Every preset's configuration, by name.
    presets: Presets,
    embed: EmbedJsOptions,
    /// `runScenario`'s (feature `eval`).
    #[cfg(feature = "eval")]
    scenario: ScenarioOptions,
}

/// Each preset's configuration ([`Preset::name`]s as keys).
#[derive(Serialize)]
struct Presets {
    recommended: Config,
    paper: Config,
}

/// The defaults of `DataOwner` (alphabet and budget filled in), `mine` and
/// `mergeBases` (`config.mine`), `embed` (party A's thresholds: `config.thresholds`),
/// `Matcher.match` (`config.rule`) and `runScenario`, as plain objects in the
/// camelCase the functions accept; `presets.recommended` and `presets.paper`
/// hold each whole configuration.
#[wasm_bindgen]
pub fn defaults() -> Result<JsValue, JsValue> {
    let config = Config::default();
    let request = EmbedRequest { thresholds: Some(config.thresholds.clone()), ..EmbedRequest::default() };
    let embed = EmbedJsOptions { request, binary: false };
    to_plain(&Defaults {
        owner: OwnerOptions::filled(),
        presets: Presets { recommended: Preset::Recommended.config(), paper: Preset::Paper.config() },
        config,
        embed,
        #[cfg(feature = "eval")]
        scenario: ScenarioOptions::default(),
    })
}

/// A preview of normalization.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Preview {
    /// The records as normalized onto Σ, index for index (empty strings included).
    normalized: Vec<String>,
    /// 1-based positions of the records that normalize to the empty string (the
    /// ones `DataOwner` sets aside).
    empty: Vec<usize>,
    /// Set when more than 1 % of the characters would be dropped: which, and an
    /// alphabet that keeps them (the counts by class are in the owner's report).
    warning: Option<String>,
}

/// Normalizes `records` (strings) onto `alphabet` (`"letters"`, the default,
/// `"letters+digits"` or its symbols) exactly as `DataOwner` does, for a preview:
/// `{normalized, empty, warning}`. Local only: nothing here leaves
/// the page, and nothing is mined.
#[wasm_bindgen]
pub fn normalize(records: JsValue, alphabet: JsValue) -> Result<JsValue, JsValue> {
    let records = string_array(&records, "the records array")?;
    let alphabet = if alphabet.is_undefined() || alphabet.is_null() {
        Alphabet::default()
    } else {
        Alphabet::parse(&string_arg(&alphabet, "the alphabet")?)?
    };
    let mut characters = CharCounts::default();
    let normalized: Vec<String> = records.iter().map(|r| alphabet.normalize_counting(r, &mut characters)).collect();
    let empty = normalized.iter().enumerate().filter(|(_, n)| n.is_empty()).map(|(i, _)| i + 1).collect();
    let warning = characters.warning(&alphabet);
    to_plain(&Preview { normalized, empty, warning })
}

/// A first look at a file's bytes.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Peek {
    /// `"text"` or `"csv"`, as `DataOwner.fromBytes` would read it.
    format: &'static str,
    /// The CSV header's columns (CSV only).
    columns: Option<Vec<String>>,
    /// The raw text of the first records (of `column` for CSV; none when CSV
    /// without a column).
    head: Vec<String>,
}

/// A first look at a file's bytes (a `Uint8Array`) through the core's reader,
/// for a page's column picker and preview: `{format, columns, head}` with the
/// first `n` records (default 12). `input` as `DataOwner.fromBytes`'s. A
/// file's first 64 KiB will do (`file.slice(0, 65536)`): a cut last line is left out.
#[wasm_bindgen(js_name = peekInput)]
pub fn peek_input(bytes: JsValue, input: JsValue, n: JsValue) -> Result<JsValue, JsValue> {
    use crate::dataset::{csv_columns, is_csv, read_records, InputFormat};
    let mut bytes = super::args::bytes_arg(&bytes)?;
    // a file's head (HEAD_BYTES, as a page slices it) may end inside a record
    // or a character: only its complete lines are looked at
    if bytes.len() >= crate::dataset::HEAD_BYTES {
        if let Some(end) = bytes.iter().rposition(|&b| b == b'\n') {
            bytes.truncate(end + 1);
        }
    }
    let i = super::args::InputOptions::read(input)?;
    let n = n.as_f64().map_or(12, |x| x.max(0.0) as usize);
    let name = i.name.as_deref().unwrap_or("the input");
    let csv = is_csv(name, &bytes, i.format, i.column.is_some());
    let (columns, format) = if csv {
        (Some(csv_columns(&bytes, name)?), i.column.clone().map(|column| InputFormat::Csv { column, id_column: None }))
    } else {
        (None, Some(InputFormat::Text))
    };
    let head = match format {
        Some(f) => read_records(&bytes, &f, name)?.into_iter().take(n).map(|r| r.text).collect(),
        None => Vec::new(),
    };
    to_plain(&Peek { format: if csv { "csv" } else { "text" }, columns, head })
}

/// What a vector batch holds (no vector, no id: only its shape).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BatchInfo {
    party: &'static str,
    fingerprint: String,
    size: usize,
    dim: usize,
    /// The threshold mode and edit distance, when the batch carries thresholds.
    threshold_mode: Option<&'static str>,
    ed: Option<u32>,
    /// A asked for `ed auto` (`ed` is then the bound; the matcher fits the cut-off).
    auto: bool,
    transform: Option<String>,
}

/// Reads and validates one vector batch (a JSON string or a `Uint8Array`):
/// `{party, fingerprint, size, dim, thresholdMode, ed, transform}`, or the error
/// `new Matcher` would throw for it.
#[wasm_bindgen(js_name = batchInfo)]
pub fn batch_info(batch: JsValue) -> Result<JsValue, JsValue> {
    let b = super::batch::read_batch(&batch, "the vector batch")?;
    to_plain(&BatchInfo {
        party: b.party.name(),
        fingerprint: b.fingerprint.clone(),
        size: b.ids.len(),
        dim: b.vectors.dim(),
        threshold_mode: b.thresholds.as_ref().map(|t| t.mode.name()),
        ed: b.thresholds.as_ref().map(|t| t.ed),
        auto: b.thresholds.as_ref().is_some_and(|t| t.auto),
        transform: b.transform.clone(),
    })
}
