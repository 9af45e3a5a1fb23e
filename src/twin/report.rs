//! The report that goes with every twin: marked synthetic, its parameters, and
//! its measured privacy and quality.

use super::condense::{Condensation, CondenseOptions};
use super::krimp::{Evaluation, KrimpModel, KrimpOptions};
use super::measure::{composition, composition_l1, equal_share, nearest_neighbour, NearestNeighbour};
use serde::{Deserialize, Serialize};

/// The report's format name and version.
pub const REPORT_FORMAT: &str = "gramlink-twin-report";
pub const REPORT_VERSION: u32 = 1;

/// A twin's report (JSON, camelCase).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TwinReport {
    pub format: String,
    pub version: u32,
    /// Always true: these records are made up.
    pub synthetic: bool,
    /// Always false: no step adds calibrated noise (see `guarantees`).
    pub differentially_private: bool,
    /// Made with a seeded generator (reproducible; anyone with the seed can redo it).
    pub seeded: bool,
    /// What does hold, in words.
    pub guarantees: Vec<String>,
    pub source_rows: usize,
    pub twin_rows: usize,
    pub condense: CondenseOptions,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub krimp: Option<KrimpOptions>,
    pub fields: Vec<FieldReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub categorical: Option<CategoricalReport>,
    /// Records: the share of twin rows whose every field equals a real row's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows_equal_to_real: Option<f64>,
}

/// One condensed string field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldReport {
    pub name: String,
    pub method: String,
    /// Non-empty values in the source, and released pseudo-values.
    pub values: usize,
    pub released: usize,
    /// Values suppressed by HomogenizeLength (missing in the twin).
    pub suppressed: usize,
    pub groups: usize,
    pub min_group: usize,
    /// `Σ_σ |p(σ) − q(σ)|` between the symbol histograms (0 = same composition).
    pub composition_l1: f64,
    pub mean_length_source: f64,
    pub mean_length_twin: f64,
    /// Share of pseudo-values equal to a real value of the field.
    pub equal_to_real: f64,
    pub nearest_neighbour: NearestNeighbour,
    /// Dates only: pseudo-dates that are no calendar date (left missing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid_dates: Option<usize>,
}

impl FieldReport {
    /// Measures `twin` (the released pseudo-values) against `real` (the non-empty source values).
    pub fn measure(name: &str, real: &[String], twin: &[String], c: &Condensation, nn_sample: usize) -> FieldReport {
        let mean_len = |v: &[String]| v.iter().map(|s| s.chars().count()).sum::<usize>() as f64 / v.len().max(1) as f64;
        FieldReport {
            name: name.to_string(),
            method: "condensation".into(),
            values: real.len(),
            released: twin.len(),
            suppressed: c.suppressed,
            groups: c.groups.len(),
            min_group: c.min_group(),
            composition_l1: composition_l1(&composition(real), &composition(twin)),
            mean_length_source: mean_len(real),
            mean_length_twin: mean_len(twin),
            equal_to_real: equal_share(twin, real),
            nearest_neighbour: nearest_neighbour(twin, real, nn_sample),
            invalid_dates: None,
        }
    }
}

/// The categorical fields' KRIMP model and generated columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CategoricalReport {
    pub columns: Vec<String>,
    pub candidates: usize,
    /// Code-table elements of two or more values in use.
    pub code_table_size: usize,
    /// `L(D, CT) / L(D, ST)`.
    pub compression_ratio: f64,
    #[serde(flatten)]
    pub evaluation: Evaluation,
}

impl CategoricalReport {
    pub fn new(model: &KrimpModel, evaluation: Evaluation) -> CategoricalReport {
        CategoricalReport {
            columns: model.db.columns.clone(),
            candidates: model.table.candidates,
            code_table_size: model.table.non_singletons(),
            compression_ratio: model.table.ratio(),
            evaluation,
        }
    }
}

/// The guarantees that hold, in words, for condensation at `k` and KRIMP at `min_sup`.
pub fn guarantees(k: usize, min_sup: Option<usize>) -> Vec<String> {
    let mut g = vec![
        "synthetic: every value is generated; a row equals a real record only by chance (records: see rowsEqualToReal)".to_string(),
        "not differentially private: no calibrated noise is added, and a group or pattern of identical real values can reappear; see equalToReal and the anonymity scores".to_string(),
        format!(
            "strings (condensation, Aggarwal and Yu): every pseudo-string is drawn from the first- and second-order symbol statistics of a group of at least k = {k} real strings (k-indistinguishability); strings whose length fits no range of k are suppressed"
        ),
        "fields are generated independently of each other (except the categorical fields, jointly by KRIMP): correlations across fields are not kept".to_string(),
    ];
    if let Some(m) = min_sup {
        g.push(format!(
            "categorical fields (KRIMP, Vreeken et al.): a combination of values enters the model only if at least min_sup = {m} real rows hold it; rarer combinations arise only by chance from frequent parts (measured by AS and NAS); single values present in the data can all reappear"
        ));
    }
    g
}
