//! Kuzu et al.'s roles ([`crate::kuzu`]) behind JS arguments: C's
//! `kuzuKeygen`, `kuzuBlockModel` and `kuzuDecide`; a party's `KuzuOwner`, whose
//! `encrypt` is A's step and `compare` B's. Messages are the CLI's (JSON strings,
//! and `Uint8Array` for the binary GLKA and GLKC). Long steps take an optional
//! progress callback that can cancel (run them in a Web Worker).

use super::args::{bytes_arg, option_entries, set, string_arg, type_name};
use super::owner::seed_arg;
use super::progress::with_progress;
use crate::dp::Randomness;
use crate::kuzu::blocks::{public_values, BlockModel, PublicSource};
use crate::kuzu::compare::rule::{Rule, RuleSpec};
use crate::kuzu::paillier::{self, PrivateKey};
use crate::kuzu::release::ReleaseParams;
use crate::kuzu::roles;
use crate::kuzu::table::Table;
use sha2::{Digest, Sha256};
use wasm_bindgen::prelude::*;

fn invalid(message: String) -> JsValue {
    super::errors::invalid(message)
}

fn number(x: &JsValue, what: &str) -> Result<f64, JsValue> {
    x.as_f64().ok_or_else(|| invalid(format!("{what} must be a number, got {}", type_name(x))))
}

/// A rule from a JSON string or a plain object (the CLI's rule file, in JSON).
fn rule_arg(v: &JsValue) -> Result<Rule, JsValue> {
    let text = match v.as_string() {
        Some(s) => s,
        None => js_sys::JSON::stringify(v)
            .ok()
            .and_then(|s| s.as_string())
            .ok_or_else(|| invalid(format!("the rule must be a JSON string or an object, got {}", type_name(v))))?,
    };
    let spec: RuleSpec = serde_json::from_str(&text).map_err(|e| invalid(format!("the rule: {e}")))?;
    Ok(spec.validate()?)
}

/// C's block model and public key, which A encrypts under and B compares under
/// (as the CLI's `kuzu encrypt` and `kuzu compare` read them).
fn model_and_key(model: &JsValue, public_key: &JsValue) -> Result<(BlockModel, paillier::PublicKey), JsValue> {
    let model = BlockModel::from_json(&string_arg(model, "the block model")?)?;
    let key = paillier::read_public_key(&string_arg(public_key, "the public key")?)?;
    Ok((model, key))
}

fn seed_of(options: &[(String, JsValue)]) -> Result<Randomness, JsValue> {
    let seed = match options.iter().find(|(k, _)| k == "seed") {
        Some((_, x)) if !x.is_null() => Some(seed_arg(x)?),
        _ => None,
    };
    Ok(Randomness::from_seed_option(seed)?)
}

/// C: a Paillier key pair of `bits` (2048 by default): `{privateKey, publicKey,
/// fingerprint}`, the keys as JSON messages. `options`: `{seed}` (NOT secret).
#[wasm_bindgen(js_name = kuzuKeygen)]
pub fn kuzu_keygen(bits: JsValue, options: JsValue) -> Result<js_sys::Object, JsValue> {
    let opts = option_entries(&options, "kuzuKeygen options", &["seed"])?;
    let bits =
        if bits.is_undefined() || bits.is_null() { paillier::DEFAULT_BITS as f64 } else { number(&bits, "bits")? };
    let key = PrivateKey::generate(bits as u32, &mut seed_of(&opts)?)?;
    let out = js_sys::Object::new();
    set(&out, "privateKey", paillier::write_private_key(&key));
    set(&out, "publicKey", paillier::write_public_key(key.public()));
    set(&out, "fingerprint", key.public().fingerprint());
    Ok(out)
}

/// C: the block model of a public list (one value a line, most frequent first).
/// `options`: `{take = 2500, blocks = 500, identifier = "surname", name}`.
#[wasm_bindgen(js_name = kuzuBlockModel)]
pub fn kuzu_block_model(list: JsValue, options: JsValue) -> Result<String, JsValue> {
    let text = string_arg(&list, "the public list")?;
    let (mut take, mut blocks, mut identifier, mut name) = (2500usize, 500usize, "surname".to_string(), String::new());
    for (k, x) in option_entries(&options, "kuzuBlockModel options", &["take", "blocks", "identifier", "name"])? {
        match k.as_str() {
            "take" => take = number(&x, "take")? as usize,
            "blocks" => blocks = number(&x, "blocks")? as usize,
            "identifier" => identifier = string_arg(&x, "identifier")?,
            _ => name = string_arg(&x, "name")?,
        }
    }
    let values = public_values(&text, take);
    let source = PublicSource { name, sha256: hex::encode(Sha256::digest(text.as_bytes())), used: values.len() };
    Ok(BlockModel::build(&identifier, source, &values, blocks)?.to_json())
}

/// B's last step: the links for A (`a_handle,b_id` CSV) from C's matches
/// and B's pair map ([`crate::kuzu::resolve::links_for_a`]).
#[wasm_bindgen(js_name = kuzuLinksForA)]
pub fn kuzu_links_for_a(matches: JsValue, map: JsValue) -> Result<String, JsValue> {
    let (m, p) = (string_arg(&matches, "C's matches")?, string_arg(&map, "B's pair map")?);
    Ok(String::from_utf8_lossy(&crate::kuzu::resolve::links_for_a(&m, &p)?.csv).into_owned())
}

/// A's last step: the links (`a_id,b_id` CSV) from B's links and A's release
/// report ([`crate::kuzu::resolve::final_links`]).
#[wasm_bindgen(js_name = kuzuFinalLinks)]
pub fn kuzu_final_links(links: JsValue, report: JsValue) -> Result<String, JsValue> {
    let (l, r) = (string_arg(&links, "B's links")?, string_arg(&report, "A's release report")?);
    Ok(String::from_utf8_lossy(&crate::kuzu::resolve::final_links(&l, &r)?.csv).into_owned())
}

/// C: decrypts B's blinded pairs and decides; returns the matching pair ids (JSON).
#[wasm_bindgen(js_name = kuzuDecide)]
pub fn kuzu_decide(
    pairs: JsValue,
    rule: JsValue,
    private_key: JsValue,
    on_progress: Option<js_sys::Function>,
) -> Result<String, JsValue> {
    let rule = rule_arg(&rule)?;
    let key = paillier::read_private_key(&string_arg(&private_key, "the private key")?)?;
    let bytes = bytes_arg(&pairs)?;
    let (ids, _) = with_progress(on_progress.as_ref(), |p| roles::decide(&bytes, &rule, &key, p))?;
    Ok(roles::matches_json(key.public(), &ids))
}

/// A party's records (A or B) under a rule.
#[wasm_bindgen]
pub struct KuzuOwner {
    table: Table,
    rule: Rule,
}

#[wasm_bindgen]
impl KuzuOwner {
    /// The party's CSV (a string, with a header) read under `rule`.
    #[wasm_bindgen(constructor)]
    pub fn new(csv: JsValue, rule: JsValue) -> Result<KuzuOwner, JsValue> {
        let rule = rule_arg(&rule)?;
        let text = string_arg(&csv, "the records")?;
        Ok(KuzuOwner { table: Table::read_csv(text.as_bytes(), "the records", &rule)?, rule })
    }

    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.table.len()
    }

    /// A's step: blocks, ε-DP release, encryption under C's public key.
    /// `options`: `{epsilon = 0.3, wn = 5000, bRecords (required), seed}`.
    /// Returns `{blocks: Uint8Array (for B), report: string (A keeps it)}`.
    pub fn encrypt(
        &self,
        model: JsValue,
        public_key: JsValue,
        options: JsValue,
        on_progress: Option<js_sys::Function>,
    ) -> Result<js_sys::Object, JsValue> {
        let (model, key) = model_and_key(&model, &public_key)?;
        let opts = option_entries(&options, "encrypt options", &["epsilon", "wn", "bRecords", "seed"])?;
        let (mut eps, mut wn, mut b_records) = (0.3, 5000.0, None);
        for (k, x) in &opts {
            match k.as_str() {
                "epsilon" => eps = number(x, "epsilon")?,
                "wn" => wn = number(x, "wn")?,
                "bRecords" => b_records = Some(number(x, "bRecords")?),
                _ => {}
            }
        }
        let b_records =
            b_records.ok_or_else(|| invalid("encrypt options: bRecords (B's record count) is required".into()))?;
        if !(b_records.fract() == 0.0 && b_records >= 1.0 && b_records <= 9e15) {
            return Err(invalid(format!("bRecords must be a whole number ≥ 1, got {b_records}")));
        }
        let params = ReleaseParams::new(eps, wn, b_records as u64)?;
        let mut rng = seed_of(&opts)?;
        let (bytes, secrets) = with_progress(on_progress.as_ref(), |p| {
            roles::encrypt(&self.table, &self.rule, &model, &key, &params, &mut rng, p)
        })?;
        let out = js_sys::Object::new();
        set(&out, "blocks", js_sys::Uint8Array::from(bytes.as_slice()));
        set(&out, "report", roles::report_json(&secrets, &self.table.ids));
        Ok(out)
    }

    /// B's step: compares with A's encrypted blocks and blinds.
    /// `options`: `{rerandomize = true, seed}`. Returns `{pairs: Uint8Array (for C),
    /// map: string (B keeps it)}`.
    pub fn compare(
        &self,
        model: JsValue,
        public_key: JsValue,
        blocks: JsValue,
        options: JsValue,
        on_progress: Option<js_sys::Function>,
    ) -> Result<js_sys::Object, JsValue> {
        let (model, key) = model_and_key(&model, &public_key)?;
        let blocks = bytes_arg(&blocks)?;
        let opts = option_entries(&options, "compare options", &["rerandomize", "seed"])?;
        let mut rerandomize = true;
        for (k, x) in &opts {
            if k == "rerandomize" {
                rerandomize = x.as_bool().ok_or_else(|| invalid("rerandomize must be a boolean".into()))?;
            }
        }
        let mut rng = seed_of(&opts)?;
        let (bytes, map) = with_progress(on_progress.as_ref(), |p| {
            roles::compare(&self.table, &self.rule, &model, &key, &blocks, rerandomize, &mut rng, p)
        })?;
        let out = js_sys::Object::new();
        set(&out, "pairs", js_sys::Uint8Array::from(bytes.as_slice()));
        set(&out, "map", roles::map_json(&map, &self.table.ids));
        Ok(out)
    }
}
