//! `Matcher`: links party A's vector batch with party B's.

use super::batch::read_batch;
use super::errors::{bool_arg, invalid, option_entries, set, to_js_error, type_name};
use crate::matching::{link, Rule};
use crate::protocol::{write_match_result, LinkedPair, MatchResult, VectorBatch};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// Options of `Matcher.match`: `rule` is `"ranked"` (the default, the
/// recommended: the q-gram count filter, ranked by cosine distance, greedy
/// one-to-one), `"greedy"` (one-to-one by increasing distance), `"nearest"`
/// (mutual unique nearest neighbours) or `"all"` (every B within A's threshold:
/// the paper's rule). `oneToOne`, the older option, says the same as a rule:
/// `true` is `"greedy"`, `false` is `"all"`; given with `rule`, it must agree
/// with it (`true` with a one-to-one rule, `false` with `"all"`). Read by hand
/// ([`MatchOptions::read`]); serialized for `defaults()`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct MatchOptions {
    /// `None` when the caller gives none (not the default's `ranked`), so that
    /// `oneToOne` alone keeps its meaning.
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<Rule>,
    #[serde(skip_serializing_if = "Option::is_none")]
    one_to_one: Option<bool>,
}

impl Default for MatchOptions {
    /// What `defaults()` reports: the recommended rule.
    fn default() -> Self {
        MatchOptions { rule: Some(Rule::Ranked), one_to_one: None }
    }
}

impl MatchOptions {
    /// The paper's rule: every B within A's threshold.
    pub(super) fn all() -> Self {
        MatchOptions { rule: Some(Rule::All), one_to_one: None }
    }

    /// The options a caller gave (`null` for either key: not given).
    fn read(v: &JsValue) -> Result<MatchOptions, JsValue> {
        let mut o = MatchOptions { rule: None, one_to_one: None };
        for (key, x) in option_entries(v, "match options", &["oneToOne", "rule"])? {
            if x.is_null() {
                continue;
            }
            if key == "rule" {
                let name = x.as_string().ok_or_else(|| invalid(format!("match options: rule must be a string, got {}", type_name(&x))))?;
                o.rule = Some(Rule::from_option(&name).ok_or_else(|| {
                    invalid(format!("match options: unknown rule {name:?} (the rules: \"all\", \"greedy\", \"nearest\", \"ranked\")"))
                })?);
            } else {
                o.one_to_one = Some(bool_arg(&x, "match options: oneToOne")?);
            }
        }
        Ok(o)
    }

    /// The rule asked for, from `rule` and `oneToOne`.
    fn rule(&self) -> Result<Rule, JsValue> {
        match (self.rule, self.one_to_one) {
            (None, None) => Ok(Rule::Ranked),
            (None, Some(true)) => Ok(Rule::Greedy),
            (None, Some(false)) => Ok(Rule::All),
            (Some(r), None) => Ok(r),
            (Some(Rule::All), Some(false)) => Ok(Rule::All),
            (Some(r @ (Rule::Greedy | Rule::Nearest | Rule::Ranked)), Some(true)) => Ok(r),
            (Some(r), Some(o)) => Err(invalid(format!(
                "match options: oneToOne: {o} contradicts rule {:?} (give rule alone: \"all\", \"greedy\", \"nearest\" or \"ranked\")",
                r.option()
            ))),
        }
    }
}

/// Both parties' vector batches, checked against each other.
#[wasm_bindgen]
pub struct Matcher {
    a: VectorBatch,
    b: VectorBatch,
    /// Each party's ids as JS strings, made on the first `match` and kept: a
    /// result's `aIds`/`bIds` then pick from them instead of decoding one string
    /// per pair (365,000 pairs for NAMES at ed 1).
    js_ids: std::cell::OnceCell<(js_sys::Array, js_sys::Array)>,
}

#[wasm_bindgen]
impl Matcher {
    /// Party A's batch (with thresholds) and party B's, each a JSON string or a
    /// `Uint8Array`. Throws `FINGERPRINT_MISMATCH` if they were made with
    /// different shared bases.
    #[wasm_bindgen(constructor)]
    pub fn new(batch_a: JsValue, batch_b: JsValue) -> Result<Matcher, JsValue> {
        let a = read_batch(&batch_a, "party A's vector batch")?;
        let b = read_batch(&batch_b, "party B's vector batch")?;
        b.check_base(&a.fingerprint).map_err(|e| to_js_error(e.into()))?;
        if a.thresholds.is_none() {
            return Err(invalid("party A's vector batch has no thresholds: embed it as party A with thresholds".into()));
        }
        crate::keyed::check_transforms(a.transform.as_deref(), b.transform.as_deref()).map_err(to_js_error)?;
        if a.vectors.dim != b.vectors.dim {
            return Err(invalid(format!("dimension mismatch: A's vectors have {} components, B's {}", a.vectors.dim, b.vectors.dim)));
        }
        Ok(Matcher { a, b, js_ids: std::cell::OnceCell::new() })
    }

    /// The shared base's fingerprint both batches carry.
    #[wasm_bindgen(getter)]
    pub fn fingerprint(&self) -> String {
        self.a.fingerprint.clone()
    }

    #[wasm_bindgen(getter, js_name = sizeA)]
    pub fn size_a(&self) -> usize {
        self.a.ids.len()
    }

    #[wasm_bindgen(getter, js_name = sizeB)]
    pub fn size_b(&self) -> usize {
        self.b.ids.len()
    }

    #[wasm_bindgen(getter)]
    pub fn dim(&self) -> usize {
        self.a.vectors.dim
    }

    /// Links the batches. Returns `{rule, fingerprint, candidates, count, a:
    /// Uint32Array, b: Uint32Array, distances: Float64Array, aIds: string[], bIds:
    /// string[]}`: pair i is row `a[i]` of A and row `b[i]` of B.
    #[wasm_bindgen(js_name = "match")]
    pub fn run(&self, options: JsValue) -> Result<js_sys::Object, JsValue> {
        let (rule, pairs, candidates) = self.pairs(options)?;
        let out = js_sys::Object::new();
        set(&out, "rule", rule);
        set(&out, "fingerprint", self.a.fingerprint.as_str());
        set(&out, "candidates", candidates as f64);
        set(&out, "count", pairs.len() as f64);
        let ia: Vec<u32> = pairs.iter().map(|p| p.a).collect();
        let ib: Vec<u32> = pairs.iter().map(|p| p.b).collect();
        let d: Vec<f64> = pairs.iter().map(|p| p.distance).collect();
        set(&out, "a", js_sys::Uint32Array::from(&ia[..]));
        set(&out, "b", js_sys::Uint32Array::from(&ib[..]));
        set(&out, "distances", js_sys::Float64Array::from(&d[..]));
        let (ids_a, ids_b) = self.js_ids.get_or_init(|| (js_strings(&self.a.ids), js_strings(&self.b.ids)));
        set(&out, "aIds", pick(ids_a, &ia));
        set(&out, "bIds", pick(ids_b, &ib));
        Ok(out)
    }

    /// The same pairs as the match-result message (JSON, pairs by ids).
    #[wasm_bindgen(js_name = matchResult)]
    pub fn match_result(&self, options: JsValue) -> Result<String, JsValue> {
        let (rule, pairs, candidates) = self.pairs(options)?;
        let id = |ids: &[String], r: u32| ids.get(r as usize).cloned().unwrap_or_default();
        Ok(write_match_result(&MatchResult {
            fingerprint: self.a.fingerprint.clone(),
            rule: rule.into(),
            candidates,
            pairs: pairs.iter().map(|p| LinkedPair { a: id(&self.a.ids, p.a), b: id(&self.b.ids, p.b), distance: p.distance }).collect(),
        }))
    }
}

/// The strings as a JS array.
fn js_strings(ids: &[String]) -> js_sys::Array {
    ids.iter().map(|s| JsValue::from_str(s)).collect()
}

/// `rows.map(r => all[r])` (rows index `all`: they are the matcher's own pairs).
fn pick(all: &js_sys::Array, rows: &[u32]) -> js_sys::Array {
    let out = js_sys::Array::new_with_length(rows.len() as u32);
    for (i, &r) in rows.iter().enumerate() {
        out.set(i as u32, all.get(r));
    }
    out
}

impl Matcher {
    fn pairs(&self, opts: JsValue) -> Result<(&'static str, Vec<crate::matching::Pair>, u64), JsValue> {
        let o = MatchOptions::read(&opts)?;
        let rule = o.rule()?;
        let (th, ed) = match &self.a.thresholds {
            Some(t) => (t.values.as_slice(), t.ed),
            None => (&[][..], 1),
        };
        // keyed batches: thresholds widened by the transform's proven rounding bound
        let th = crate::keyed::matching_thresholds(&self.a.vectors, &self.b.vectors, th, self.a.transform.as_deref());
        // the q-gram filter needs the base's shape, which both batches must agree on
        let shape = match (&self.a.shape, &self.b.shape) {
            (Some(sa), Some(sb)) if sa == sb => Some(sa),
            _ => None,
        };
        let (pairs, stats) = link(&self.a.vectors, &self.b.vectors, &th, rule, ed, shape).map_err(to_js_error)?;
        Ok((rule.name(), pairs, stats.candidates))
    }
}
