//! Core errors as real JS `Error` objects with a stable `code` property.

use crate::error::Error;
use wasm_bindgen::JsValue;

/// A JS `Error` whose message names the problem and whose `code` is
/// [`Error::code`] (for example `INVALID_EPSILON`, `BUDGET_EXCEEDED`).
pub fn to_js_error(e: Error) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    // setting a property on a fresh Error object cannot fail
    let _ = js_sys::Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(e.code()));
    err.into()
}

/// An options object that did not deserialize.
pub fn bad_options(what: &str, e: serde_wasm_bindgen::Error) -> JsValue {
    to_js_error(Error::Parameter(format!("{what}: {e}")))
}
