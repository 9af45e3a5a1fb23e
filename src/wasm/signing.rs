//! Signed batches in JS: `signKeygen()`, `signBatch(key, batch)`,
//! `verifyBatch(publicKey, batch, signature)`, and the matchers' options
//! `{verifyA, signatureA, verifyB, signatureB}`: the core's
//! [`crate::protocol::signature`] behind JS arguments. Keys and signatures are
//! the texts of the CLI's files (`sign-keygen`, `<batch>.sig`), so either side
//! reads the other's. A batch is any batch's bytes, one string's or records':
//! what is signed is the bytes the matcher is given.

use super::args::{option_entries, set, type_name, MAX_WASM_MESSAGE_BYTES};
use super::errors::invalid;
use crate::error::ProtocolError;
use crate::protocol::signature::{check_batch, keygen_texts, BatchDigest, SigningKey};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A key's or a signature's text: a string, or a file's bytes (a `Uint8Array`
/// of UTF-8; anything else in it fails as a key or signature would).
fn text_arg(v: &JsValue, what: &str) -> Result<String, JsValue> {
    if let Some(s) = v.as_string() {
        return Ok(s);
    }
    match v.dyn_ref::<js_sys::Uint8Array>() {
        Some(a) => Ok(String::from_utf8_lossy(&a.to_vec()).into_owned()),
        None => {
            Err(invalid(format!("{what} must be a string or a Uint8Array (its file's bytes), got {}", type_name(v))))
        }
    }
}

/// The digest of a batch given as a JSON string (its UTF-8 bytes: what a file
/// written from it holds) or a `Uint8Array` (hashed a piece at a time, never
/// copied whole into wasm memory).
fn batch_digest(v: &JsValue, what: &str) -> Result<BatchDigest, JsValue> {
    if let Some(s) = v.as_string() {
        return Ok(BatchDigest::of(s.as_bytes()));
    }
    let Some(bytes) = v.dyn_ref::<js_sys::Uint8Array>() else {
        return Err(invalid(format!("{what} must be a JSON string or a Uint8Array, got {}", type_name(v))));
    };
    let len = bytes.length();
    if len as usize > MAX_WASM_MESSAGE_BYTES {
        return Err(JsValue::from(ProtocolError::Invalid {
            what: what.into(),
            reason: format!("{len} bytes, more than the {MAX_WASM_MESSAGE_BYTES} a message may have in wasm"),
        }));
    }
    let mut d = BatchDigest::new();
    let mut piece = vec![0u8; 1 << 16];
    let mut at = 0u32;
    while at < len {
        let end = len.min(at + piece.len() as u32);
        let n = (end - at) as usize;
        bytes.subarray(at, end).copy_to(&mut piece[..n]);
        d.update(&piece[..n]);
        at = end;
    }
    Ok(d)
}

/// A new Ed25519 signing key, from the secure generator (`crypto.getRandomValues`):
/// `{signingKey, publicKey}`, the texts `gramlink sign-keygen` writes to its two
/// files. Keep `signingKey`; give `publicKey` to the matcher out of band.
#[wasm_bindgen(js_name = signKeygen)]
pub fn sign_keygen() -> Result<js_sys::Object, JsValue> {
    let (key, public) = keygen_texts()?;
    let out = js_sys::Object::new();
    set(&out, "signingKey", key);
    set(&out, "publicKey", public);
    Ok(out)
}

/// The signature of a batch (a one-string vector batch or a record batch,
/// exactly as it will be sent) with `signingKey`: the text of the CLI's
/// `<batch>.sig` file. Send it with the batch.
#[wasm_bindgen(js_name = signBatch)]
pub fn sign_batch(signing_key: JsValue, batch: JsValue) -> Result<String, JsValue> {
    let key = SigningKey::from_text(&text_arg(&signing_key, "the signing key")?)?;
    Ok(key.sign(batch_digest(&batch, "the batch")?))
}

/// Checks that `signature` (`null`/`undefined`: none came) is the signature of
/// `batch` by the key whose public key is `publicKey`. Throws
/// `SIGNATURE_MISSING`, `SIGNATURE_INVALID` or `INVALID_KEY`, as `match
/// --verify-a` does.
#[wasm_bindgen(js_name = verifyBatch)]
pub fn verify_batch(public_key: JsValue, batch: JsValue, signature: JsValue) -> Result<(), JsValue> {
    let public = text_arg(&public_key, "the public key")?;
    let signature = optional_text(&signature, "the signature")?;
    let digest = batch_digest(&batch, "the batch")?;
    Ok(check_batch("the batch", Some(&public), signature.as_deref(), || digest)?)
}

fn optional_text(v: &JsValue, what: &str) -> Result<Option<String>, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    text_arg(v, what).map(Some)
}

/// A matcher's options `{verifyA, signatureA, verifyB, signatureB}`: each
/// party's public key and its batch's signature.
pub(super) struct Verify {
    /// A's (public key, signature), then B's.
    parties: [(Option<String>, Option<String>); 2],
}

impl Verify {
    /// Reads the options of `what` (a matcher's name, for errors).
    pub(super) fn read(options: &JsValue, what: &str) -> Result<Verify, JsValue> {
        let mut parties: [(Option<String>, Option<String>); 2] = Default::default();
        let known = ["verifyA", "signatureA", "verifyB", "signatureB"];
        for (name, v) in option_entries(options, what, &known)? {
            let party = usize::from(name.ends_with('B'));
            let text = optional_text(&v, &format!("{what}: {name}"))?;
            if name.starts_with("verify") {
                parties[party].0 = text;
            } else {
                parties[party].1 = text;
            }
        }
        Ok(Verify { parties })
    }

    /// Checks A's batch and B's (`what` names each in errors) before either
    /// is read, as `match` checks the signatures first.
    pub(super) fn check(&self, batches: [(&JsValue, &str); 2]) -> Result<(), JsValue> {
        for ((public, signature), (batch, what)) in self.parties.iter().zip(batches) {
            // hashed only when a key asks for it
            let digest = match public {
                Some(_) => Some(batch_digest(batch, what)?),
                None => None,
            };
            check_batch(what, public.as_deref(), signature.as_deref(), || digest.unwrap_or_default())?;
        }
        Ok(())
    }
}
