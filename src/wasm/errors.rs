//! Core errors as real JS `Error` objects with a stable `code` property; the
//! checks on what a JS caller passes are in args.rs.

use crate::error::Error;
use wasm_bindgen::JsValue;

/// A core error is a JS `Error` whose message names the problem and whose
/// `code` is [`Error::code`] (for example `INVALID_EPSILON`, `BUDGET_EXCEEDED`),
/// so `?` works at the JS edge.
impl From<Error> for JsValue {
    fn from(e: Error) -> JsValue {
        let err = js_sys::Error::new(&e.to_string());
        // setting a property on a fresh Error object cannot fail
        let _ = js_sys::Reflect::set(&err, &JsValue::from_str("code"), &JsValue::from_str(e.code()));
        err.into()
    }
}

macro_rules! js_error_from {
    ($($t:ty),*) => {$(
        impl From<$t> for JsValue {
            fn from(e: $t) -> JsValue {
                Error::from(e).into()
            }
        }
    )*};
}
js_error_from!(crate::error::InputError, crate::error::ProtocolError, crate::error::BaseError, crate::error::DpError);

/// An `INVALID_PARAMETER` JS error.
pub fn invalid(message: String) -> JsValue {
    Error::Parameter(message).into()
}

/// An options object that did not deserialize.
pub fn bad_options(what: &str, e: serde_wasm_bindgen::Error) -> JsValue {
    invalid(format!("{what}: {e}"))
}
