//! `Matcher`: links party A's vector batch with party B's: the core's
//! [`crate::matcher::Matcher`] behind JS arguments.

use super::args::{option_entries, set, type_name};
use super::batch::read_batch;
use super::errors::invalid;
use super::signing::Verify;
use crate::config::Config;
use crate::matcher::Linkage;
use crate::matching::Rule;
use crate::protocol::write_match_result;
use wasm_bindgen::prelude::*;

/// The rule of `Matcher.match({rule})`: `"ranked"`, `"greedy"`, `"nearest"` or
/// `"all"` ([`Rule::name`]); default the default configuration's. Read by hand
/// (small in wasm).
fn rule_option(v: &JsValue) -> Result<Rule, JsValue> {
    let mut rule = Config::default().rule;
    for (_, x) in option_entries(v, "match options", &["rule"])? {
        if x.is_null() {
            continue;
        }
        let name = x
            .as_string()
            .ok_or_else(|| invalid(format!("match options: rule must be a string, got {}", type_name(&x))))?;
        rule = Rule::from_name(&name).ok_or_else(|| {
            invalid(format!(
                "match options: unknown rule {name:?} (the rules: {})",
                Rule::ALL.map(Rule::name).join(", ")
            ))
        })?;
    }
    Ok(rule)
}

/// `sizeA` and `sizeB` on a matcher class (`Matcher`, `RecordMatcher`) whose
/// `matcher` holds both parties' batches (`a()`, `b()`).
macro_rules! batch_sizes {
    ($matcher:ident) => {
        #[wasm_bindgen]
        impl $matcher {
            /// Party A's records (rows of its batch).
            #[wasm_bindgen(getter, js_name = sizeA)]
            pub fn size_a(&self) -> usize {
                self.matcher.a().ids.len()
            }

            /// Party B's records.
            #[wasm_bindgen(getter, js_name = sizeB)]
            pub fn size_b(&self) -> usize {
                self.matcher.b().ids.len()
            }
        }
    };
}
pub(super) use batch_sizes;

/// Both parties' vector batches, checked against each other.
#[wasm_bindgen]
pub struct Matcher {
    matcher: crate::matcher::Matcher,
    /// Each party's ids as JS strings, made on the first `match` and kept: a
    /// result's `aIds`/`bIds` then pick from them instead of decoding one string
    /// per pair (365,000 pairs for NAMES at ed 1).
    js_ids: std::cell::OnceCell<(js_sys::Array, js_sys::Array)>,
}

batch_sizes!(Matcher);

#[wasm_bindgen]
impl Matcher {
    /// Party A's batch (with thresholds) and party B's, each a JSON string or a
    /// `Uint8Array`. Throws `FINGERPRINT_MISMATCH` if they were made with
    /// different shared bases. `options`: `{verifyA, signatureA, verifyB,
    /// signatureB}`, each party's public signing key and its batch's
    /// signature (`signBatch`): with a party's key, its batch must carry a
    /// valid signature (`SIGNATURE_MISSING`, `SIGNATURE_INVALID`), checked
    /// before the batch is read, as by `match --verify-a`.
    #[wasm_bindgen(constructor)]
    pub fn new(batch_a: JsValue, batch_b: JsValue, options: JsValue) -> Result<Matcher, JsValue> {
        let (what_a, what_b) = ("party A's vector batch", "party B's vector batch");
        Verify::read(&options, "Matcher options")?.check([(&batch_a, what_a), (&batch_b, what_b)])?;
        let a = read_batch(&batch_a, what_a)?;
        let b = read_batch(&batch_b, what_b)?;
        Ok(Matcher { matcher: crate::matcher::Matcher::new(a, b)?, js_ids: std::cell::OnceCell::new() })
    }

    /// The shared base's fingerprint both batches carry.
    #[wasm_bindgen(getter)]
    pub fn fingerprint(&self) -> String {
        self.matcher.a().fingerprint.clone()
    }

    #[wasm_bindgen(getter)]
    pub fn dim(&self) -> usize {
        self.matcher.a().vectors.dim()
    }

    /// Links the batches. Returns `{rule, fingerprint, candidates, count, cutoff?, a:
    /// Uint32Array, b: Uint32Array, distances: Float64Array, aIds: string[], bIds:
    /// string[]}`: pair i is row `a[i]` of A and row `b[i]` of B.
    #[wasm_bindgen(js_name = "match")]
    pub fn run(&self, options: JsValue) -> Result<js_sys::Object, JsValue> {
        let linkage = self.link(options)?;
        let pairs = &linkage.pairs;
        let out = js_sys::Object::new();
        set(&out, "rule", linkage.rule.name());
        set(&out, "fingerprint", self.matcher.a().fingerprint.as_str());
        set(&out, "candidates", linkage.stats.candidates as f64);
        set(&out, "count", pairs.len() as f64);
        // with `ed auto`: what the fitted cut-off chose, and why (one sentence)
        if let Some(c) = &linkage.cutoff {
            set(&out, "cutoff", c.describe().as_str());
        }
        let ia: Vec<u32> = pairs.iter().map(|p| p.a).collect();
        let ib: Vec<u32> = pairs.iter().map(|p| p.b).collect();
        let d: Vec<f64> = pairs.iter().map(|p| p.distance).collect();
        set(&out, "a", js_sys::Uint32Array::from(&ia[..]));
        set(&out, "b", js_sys::Uint32Array::from(&ib[..]));
        set(&out, "distances", js_sys::Float64Array::from(&d[..]));
        let (ids_a, ids_b) =
            self.js_ids.get_or_init(|| (js_strings(&self.matcher.a().ids), js_strings(&self.matcher.b().ids)));
        set(&out, "aIds", pick(ids_a, &ia));
        set(&out, "bIds", pick(ids_b, &ib));
        Ok(out)
    }

    /// The same pairs as the match-result message (JSON, pairs by ids).
    #[wasm_bindgen(js_name = matchResult)]
    pub fn match_result(&self, options: JsValue) -> Result<String, JsValue> {
        let linkage = self.link(options)?;
        Ok(write_match_result(&self.matcher.result(&linkage)))
    }
}

impl Matcher {
    fn link(&self, options: JsValue) -> Result<Linkage, JsValue> {
        Ok(self.matcher.link(rule_option(&options)?)?)
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
