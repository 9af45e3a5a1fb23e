//! JS progress callbacks and the wasm clock.

use crate::clock::Clock;
use crate::error::Error;
use crate::progress::{NoProgress, Progress};
use wasm_bindgen::prelude::*;

/// A JS progress callback `(phase, done, total) => boolean | void`; returning
/// `false` cancels the work (code `CANCELLED`); throwing stops it too.
pub struct JsProgress<'a>(pub &'a js_sys::Function);

impl Progress for JsProgress<'_> {
    fn tick(&mut self, phase: &str, done: u64, total: u64) -> Result<(), Error> {
        let r = self
            .0
            .call3(
                &JsValue::NULL,
                &JsValue::from_str(phase),
                &JsValue::from_f64(done as f64),
                &JsValue::from_f64(total as f64),
            )
            .map_err(|e| {
                let why = match e.dyn_ref::<js_sys::Error>() {
                    Some(err) => String::from(err.message()),
                    None => e.as_string().unwrap_or_else(|| "a non-Error value".into()),
                };
                Error::Parameter(format!("the progress callback threw: {why}"))
            })?;
        if r == JsValue::FALSE {
            return Err(Error::Cancelled);
        }
        Ok(())
    }
}

/// The optional callback as a [`Progress`].
pub fn with_progress<T>(f: Option<&js_sys::Function>, run: impl FnOnce(&mut dyn Progress) -> T) -> T {
    match f {
        Some(f) => run(&mut JsProgress(f)),
        None => run(&mut NoProgress),
    }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = performance, js_name = now)]
    fn performance_now() -> Result<f64, JsValue>;
}

/// `performance.now()` (browsers, workers, Node), else `Date.now()`.
pub struct JsClock;

impl Clock for JsClock {
    fn now_ms(&self) -> f64 {
        performance_now().unwrap_or_else(|_| js_sys::Date::now())
    }
}
