//! What a Python caller passes: options as keyword arguments (read into the
//! core's option structs over their defaults, unknown names refused), columns
//! of strings (a list, a pandas Series, a pyarrow array), bytes or files.

use crate::errors::{invalid, io, type_name, OrPy};
use gramlink::error::{Error, InputError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// `q_min` → `qMin` (the core's serde names are camelCase; Python spells
/// options in snake_case; camelCase is accepted as is).
pub fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `qMin` → `q_min`, for messages.
pub fn snake(key: &str) -> String {
    let mut out = String::new();
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A Python value as JSON (dicts' keys camelCased).
pub fn to_json(v: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    if v.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        if let Ok(i) = v.extract::<i64>() {
            return Ok(Value::from(i));
        }
        return Ok(Value::from(v.extract::<u64>().map_err(|_| invalid(format!("{what}: integer out of range")))?));
    }
    if v.is_instance_of::<PyFloat>() {
        let x: f64 = v.extract()?;
        return serde_json::Number::from_f64(x)
            .map(Value::Number)
            .ok_or_else(|| invalid(format!("{what}: {x} is not a finite number")));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.to_string()));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut map = serde_json::Map::new();
        for (k, x) in d.iter() {
            let k: String = k.extract().map_err(|_| invalid(format!("{what}: keys must be strings")))?;
            map.insert(camel(&k), to_json(&x, &format!("{what}: {k}"))?);
        }
        return Ok(Value::Object(map));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for x in v.try_iter()? {
            out.push(to_json(&x?, what)?);
        }
        return Ok(Value::Array(out));
    }
    Err(invalid(format!("{what}: a {} cannot be an option value", type_name(v))))
}

/// JSON as Python values (through the json module: dicts, lists, numbers).
pub fn from_json<'py>(py: Python<'py>, value: &impl Serialize) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value).map_err(|e| invalid(format!("cannot convert the result: {e}")))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// Options given as keyword arguments, over `base`: each name (snake_case or
/// camelCase) overrides `base`'s field; a name `base` does not have is refused
/// (`INVALID_PARAMETER`, naming the known ones); a value of the wrong type too.
pub fn options_over<T: Serialize + DeserializeOwned>(
    given: Option<&Bound<'_, PyDict>>,
    what: &str,
    base: &T,
) -> PyResult<T> {
    let mut value = serde_json::to_value(base).map_err(|e| invalid(format!("{what}: {e}")))?;
    let Value::Object(map) = &mut value else {
        return Err(invalid(format!("{what}: not an options object")));
    };
    let mut given_keys = Vec::new();
    if let Some(given) = given {
        for (k, x) in given.iter() {
            let k: String = k.extract()?;
            let key = camel(&k);
            if !map.contains_key(&key) {
                let mut known: Vec<String> = map.keys().map(|k| snake(k)).collect();
                known.sort();
                return Err(invalid(format!("{what}: unknown option {k:?} (known: {})", known.join(", "))));
            }
            map.insert(key.clone(), to_json(&x, &format!("{what}: {k}"))?);
            given_keys.push((k, key));
        }
    }
    let base_value = serde_json::to_value(base).map_err(|e| invalid(format!("{what}: {e}")))?;
    serde_json::from_value::<T>(value.clone()).map_err(|e| {
        // the option at fault: the first whose value alone over `base` does not read
        let alone = |key: &str| {
            let mut v = base_value.clone();
            if let (Value::Object(m), Value::Object(given)) = (&mut v, &value) {
                m.insert(key.to_string(), given[key].clone());
            }
            serde_json::from_value::<T>(v).is_err()
        };
        match given_keys.iter().find(|(_, key)| alone(key)) {
            Some((k, _)) => invalid(format!("{what}: {k}: {e}")),
            None => invalid(format!("{what}: {e}")),
        }
    })
}

/// A column of strings: a list or tuple of str, a pandas Series, a pyarrow
/// array or chunked array, a numpy array (anything with `to_pylist`/`tolist`,
/// or iterable). A missing value or a non-string is refused, naming its
/// position; an empty column is `EMPTY_INPUT`.
pub fn strings(v: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    if v.is_instance_of::<PyString>() || v.is_instance_of::<PyBytes>() {
        return Err(invalid(format!(
            "{what} must be a column of strings (a list, a pandas Series, a pyarrow array), not one {}",
            type_name(v)
        )));
    }
    let list = if v.hasattr("to_pylist")? {
        v.call_method0("to_pylist")?
    } else if v.hasattr("tolist")? {
        v.call_method0("tolist")?
    } else {
        v.clone()
    };
    let iter =
        list.try_iter().map_err(|_| invalid(format!("{what} must be a column of strings, not a {}", type_name(v))))?;
    let mut out = Vec::new();
    for (i, x) in iter.enumerate() {
        let x = x?;
        match x.cast::<PyString>() {
            Ok(s) => out.push(s.to_cow()?.to_string()),
            Err(_) if x.is_none() => return Err(invalid(format!("{what}[{i}] is missing (None)"))),
            Err(_) => return Err(invalid(format!("{what}[{i}] is a {}, not a string", type_name(&x)))),
        }
    }
    if out.is_empty() {
        return Err(Error::Input(InputError::Empty { what: what.into() })).py();
    }
    Ok(out)
}

/// A file's bytes and a name for errors: `bytes`/`bytearray` (the content), a
/// `str` or `os.PathLike` (a path, read), or a pandas DataFrame (its CSV).
pub fn data(v: &Bound<'_, PyAny>, what: &str) -> PyResult<(Vec<u8>, Option<String>)> {
    if let Ok(b) = v.cast::<PyBytes>() {
        return Ok((b.as_bytes().to_vec(), None));
    }
    if let Ok(b) = v.cast::<PyByteArray>() {
        return Ok((b.to_vec(), None));
    }
    if v.hasattr("to_csv")? && !v.is_instance_of::<PyString>() {
        let kwargs = PyDict::new(v.py());
        kwargs.set_item("index", false)?;
        let text: String = v.call_method("to_csv", (), Some(&kwargs))?.extract()?;
        return Ok((text.into_bytes(), Some("the DataFrame.csv".into())));
    }
    if let Some(path) = path(v) {
        let bytes = std::fs::read(&path).map_err(|e| io(&path, e))?;
        return Ok((bytes, path.file_name().map(|n| n.to_string_lossy().into_owned())));
    }
    Err(invalid(format!("{what} must be bytes, a path or a pandas DataFrame, not a {}", type_name(v))))
}

/// `v` as a file's path, when it is one (`str` or `os.PathLike`) for [`data`]:
/// callers that can stream a file read it themselves instead.
pub fn path(v: &Bound<'_, PyAny>) -> Option<std::path::PathBuf> {
    if v.cast::<PyBytes>().is_ok() || v.cast::<PyByteArray>().is_ok() || v.hasattr("to_csv").unwrap_or(false) {
        return None;
    }
    v.extract::<std::path::PathBuf>().ok()
}

/// A message: `bytes` (binary or JSON) or `str` (JSON).
pub fn message(v: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(b) = v.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = v.cast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    Err(invalid(format!("{what} must be bytes or a JSON str, not a {}", type_name(v))))
}

/// A rule by name (`None`: the default configuration's).
pub fn rule(name: Option<&str>) -> PyResult<gramlink::matching::Rule> {
    use gramlink::matching::Rule;
    match name {
        None => Ok(Rule::default()),
        Some(n) => Rule::from_name(n).ok_or_else(|| {
            let names: Vec<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
            invalid(format!("unknown rule {n:?} (rules: {})", names.join(", ")))
        }),
    }
}
