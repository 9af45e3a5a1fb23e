//! The checks on what a JS caller passes: options objects (unknown keys refused,
//! at every level), strings, counts, byte messages and their size caps; and the
//! plain objects returned.

use super::errors::{bad_options, invalid};
use crate::dataset::FormatHint;
use crate::error::Error;
use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};

/// Reads an options object over `base` instead of `T::default()`: `undefined`/`null`
/// give `base`; a key given (and not `undefined`) overrides `base`'s, so `null`
/// turns an optional field off. Unknown keys (not in `base`'s serialized form)
/// are refused as by [`options`].
pub fn options_over<T: DeserializeOwned + Serialize>(value: JsValue, what: &str, base: &T) -> Result<T, JsValue> {
    let base_plain = to_plain(base)?;
    let known: Vec<String> = js_sys::Object::keys(base_plain.unchecked_ref::<js_sys::Object>())
        .iter()
        .filter_map(|k| k.as_string())
        .collect();
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    for (name, v) in option_entries(&value, what, &known)? {
        let _ = js_sys::Reflect::set(&base_plain, &JsValue::from_str(&name), &v);
    }
    serde_wasm_bindgen::from_value(base_plain).map_err(|e| bad_options(what, e))
}

/// Reads an options object into `T` by serde: keys left out, `undefined` or
/// `null` take `T`'s serde defaults; a key not in `T::default()`'s serialized
/// form is refused as by [`option_entries`]; a value of the wrong type is
/// refused naming its key.
pub fn options_given<T: DeserializeOwned + Serialize + Default>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    let known = keys(&to_plain(&T::default())?);
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    let given: Vec<(String, JsValue)> =
        option_entries(value, what, &known)?.into_iter().filter(|(_, v)| !v.is_null()).collect();
    let object = |entries: &[(String, JsValue)]| {
        let o = js_sys::Object::new();
        for (name, v) in entries {
            set(&o, name, v.clone());
        }
        JsValue::from(o)
    };
    serde_wasm_bindgen::from_value(object(&given)).map_err(|e| {
        // the key at fault: the first whose value alone does not read
        let one = |entry: &(String, JsValue)| serde_wasm_bindgen::from_value::<T>(object(std::slice::from_ref(entry)));
        match given.iter().find(|entry| one(entry).is_err()) {
            Some((name, _)) => bad_options(&format!("{what}: {name}"), e),
            None => bad_options(what, e),
        }
    })
}

/// An object's own keys.
fn keys(object: &JsValue) -> Vec<String> {
    js_sys::Object::keys(object.unchecked_ref::<js_sys::Object>()).iter().filter_map(|k| k.as_string()).collect()
}

/// Reads a nested options object: keys left out take `T`'s serde defaults
/// (object by object, so `{config: {thresholds: {ed: 2}}}` changes one field);
/// unknown keys are refused at every level, against `T::default()`'s form,
/// except inside the keys of `whole` (values such as a threshold `mode`).
/// (`runScenario`'s and `makeTwin`'s options.)
#[cfg(any(feature = "eval", feature = "twin"))]
pub fn nested_options<T: DeserializeOwned + Serialize + Default>(
    value: JsValue,
    what: &str,
    whole: &[&str],
) -> Result<T, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    check_keys(&value, &to_plain(&T::default())?, what, whole)?;
    serde_wasm_bindgen::from_value(value).map_err(|e| bad_options(what, e))
}

#[cfg(any(feature = "eval", feature = "twin"))]
fn check_keys(given: &JsValue, reference: &JsValue, what: &str, whole: &[&str]) -> Result<(), JsValue> {
    let known: Vec<String> = js_sys::Object::keys(reference.unchecked_ref::<js_sys::Object>())
        .iter()
        .filter_map(|k| k.as_string())
        .collect();
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    for (name, v) in option_entries(given, what, &known)? {
        let r = js_sys::Reflect::get(reference, &JsValue::from_str(&name)).unwrap_or(JsValue::UNDEFINED);
        let plain_object = |x: &JsValue| x.is_object() && !js_sys::Array::is_array(x);
        if plain_object(&r) && plain_object(&v) && !whole.contains(&name.as_str()) {
            check_keys(&v, &r, &format!("{what}: {name}"), whole)?;
        }
    }
    Ok(())
}

/// The entries of an options object read by hand (no serde: small in wasm):
/// `undefined`/`null` give none; anything but a plain object, or a key not in
/// `known` (a typo), is refused; keys whose value is `undefined` are left out.
pub fn option_entries(value: &JsValue, what: &str, known: &[&str]) -> Result<Vec<(String, JsValue)>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    if !value.is_object() || js_sys::Array::is_array(value) {
        return Err(invalid(format!("{what} must be an object, got {}", type_name(value))));
    }
    let mut out = Vec::new();
    for key in js_sys::Object::keys(value.unchecked_ref::<js_sys::Object>()).iter() {
        let name = key.as_string().unwrap_or_default();
        if !known.contains(&name.as_str()) {
            return Err(invalid(format!("{what}: unknown option {name:?} (known: {})", known.join(", "))));
        }
        let v = js_sys::Reflect::get(value, &key).unwrap_or(JsValue::UNDEFINED);
        if !v.is_undefined() {
            out.push((name, v));
        }
    }
    Ok(out)
}

/// A JS value's type, for messages.
pub fn type_name(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if js_sys::Array::is_array(v) {
        "an array".into()
    } else {
        v.js_typeof().as_string().unwrap_or_else(|| "a value".into())
    }
}

/// A string argument, or an `INVALID_PARAMETER` error naming it.
pub fn string_arg(v: &JsValue, what: &str) -> Result<String, JsValue> {
    v.as_string().ok_or_else(|| invalid(format!("{what} must be a string, got {}", type_name(v))))
}

/// The messages of several parties (an array of strings), each named `what`
/// and its number in errors; returns the texts and those names.
pub fn string_list(v: &JsValue, what: &str) -> Result<(Vec<String>, Vec<String>), JsValue> {
    use wasm_bindgen::JsCast;
    let list = v
        .dyn_ref::<js_sys::Array>()
        .ok_or_else(|| invalid(format!("the {what}s must be an array of strings, got {}", type_name(v))))?;
    let names: Vec<String> = (1..=list.length()).map(|i| format!("{what} {i}")).collect();
    let texts = list.iter().zip(&names).map(|(x, n)| string_arg(&x, n)).collect::<Result<Vec<_>, _>>()?;
    Ok((texts, names))
}

/// A file's bytes: a `Uint8Array`, copied into wasm memory.
pub fn bytes_arg(v: &JsValue) -> Result<Vec<u8>, JsValue> {
    v.dyn_ref::<js_sys::Uint8Array>()
        .map(|a| a.to_vec())
        .ok_or_else(|| invalid(format!("the bytes must be a Uint8Array, got {}", type_name(v))))
}

/// A message as a JSON string or a `Uint8Array`.
pub fn message_bytes(v: &JsValue, what: &str) -> Result<Vec<u8>, JsValue> {
    // measured before the copy into wasm memory: a message past the limit is a
    // named error (INVALID_MESSAGE), not an allocation that traps
    let too_large = |len: usize| -> Result<(), JsValue> {
        if len > MAX_WASM_MESSAGE_BYTES {
            return Err(Error::from(crate::error::ProtocolError::Invalid {
                what: what.into(),
                reason: format!(
                    "{len} bytes, more than the {MAX_WASM_MESSAGE_BYTES} a message may have in wasm: \
                     use the binary form of a batch (binary: true), or the native CLI"
                ),
            })
            .into());
        }
        Ok(())
    };
    if let Some(s) = v.dyn_ref::<js_sys::JsString>() {
        // UTF-16 units: each is at most 3 UTF-8 bytes
        too_large(s.length() as usize)?;
        return Ok(String::from(s).into_bytes());
    }
    if let Some(a) = v.dyn_ref::<js_sys::Uint8Array>() {
        too_large(a.length() as usize)?;
        return Ok(a.to_vec());
    }
    Err(invalid(format!("{what} must be a JSON string or a Uint8Array, got {}", type_name(v))))
}

/// The largest message read into wasm memory (its text, then what it parses
/// into, share the 4 GiB of wasm32): a NAMES batch is 12 MB in JSON (sparse).
pub const MAX_WASM_MESSAGE_BYTES: usize = 512 << 20;

/// The most bytes one embedding may need in wasm memory (the batch's vectors,
/// and its JSON text when asked for JSON); checked before it starts.
pub const MAX_WASM_BATCH_BYTES: usize = 1 << 30;

/// A whole number in `min..=u32::MAX` (JS numbers are doubles: NaN, fractions and
/// negatives are refused instead of being truncated).
pub fn count_arg(v: &JsValue, what: &str, min: u32) -> Result<u32, JsValue> {
    match v.as_f64() {
        Some(x) if x.fract() == 0.0 && x >= min as f64 && x <= u32::MAX as f64 => Ok(x as u32),
        Some(x) => Err(invalid(format!("{what} must be a whole number ≥ {min}, got {x}"))),
        None => Err(invalid(format!("{what} must be a number, got {}", type_name(v)))),
    }
}

/// A result as a plain JS object (maps as objects, not `Map`s).
pub fn to_plain<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| invalid(format!("cannot convert the result: {e}")))
}

/// Sets a property of a fresh object (cannot fail).
pub fn set(obj: &js_sys::Object, key: &str, value: impl Into<JsValue>) {
    let _ = js_sys::Reflect::set(obj, &JsValue::from_str(key), &value.into());
}

/// A file's bytes: a string or a `Uint8Array`.
pub fn text_or_bytes(v: &JsValue, what: &str) -> Result<Vec<u8>, JsValue> {
    if let Some(s) = v.as_string() {
        return Ok(s.into_bytes());
    }
    v.dyn_ref::<js_sys::Uint8Array>()
        .map(|a| a.to_vec())
        .ok_or_else(|| invalid(format!("{what} must be a string or a Uint8Array, got {}", type_name(v))))
}

/// How `fromBytes` reads its bytes. Read by hand ([`InputOptions::read`]).
#[derive(Debug, Default)]
pub(super) struct InputOptions {
    /// `"auto"` (the default: CSV for a `.csv`/`.tsv` name, a header-like first
    /// line, or a named column), `"text"` or `"csv"`.
    pub(super) format: FormatHint,
    pub(super) column: Option<String>,
    pub(super) id_column: Option<String>,
    /// The input's name (a file name: its extension helps detection; errors name it).
    pub(super) name: Option<String>,
}

impl InputOptions {
    pub(super) fn read(v: JsValue) -> Result<InputOptions, JsValue> {
        let mut o = InputOptions::default();
        for (key, x) in option_entries(&v, "input options", &["column", "format", "idColumn", "name"])? {
            if x.is_null() {
                continue;
            }
            let text = string_arg(&x, "an input option")?;
            match key.as_str() {
                "format" => {
                    o.format = match text.as_str() {
                        "auto" => FormatHint::Auto,
                        "text" => FormatHint::Text,
                        "csv" => FormatHint::Csv,
                        _ => return Err(invalid(format!("input options: unknown format {text:?} (auto, text, csv)"))),
                    }
                }
                "column" => o.column = Some(text),
                "idColumn" => o.id_column = Some(text),
                _ => o.name = Some(text),
            }
        }
        Ok(o)
    }
}
