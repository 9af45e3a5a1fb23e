//! Core errors as `gramlink.GramlinkError` (defined in gramlink/_errors.py, so
//! it pickles and prints its code), with the core's stable `code`.

use gramlink::error::{Error, InputError};
use pyo3::prelude::*;

/// The Python exception for a core error: `GramlinkError(message, code)`.
pub fn py_err(e: &Error) -> PyErr {
    Python::attach(|py| {
        let made = py
            .import("gramlink._errors")
            .and_then(|m| m.getattr("GramlinkError"))
            .and_then(|cls| cls.call1((e.to_string(), e.code())));
        match made {
            Ok(value) => PyErr::from_value(value),
            Err(err) => err,
        }
    })
}

/// `?` for core results: `.py()?`.
pub trait OrPy<T> {
    fn py(self) -> PyResult<T>;
}

impl<T, E: Into<Error>> OrPy<T> for Result<T, E> {
    fn py(self) -> PyResult<T> {
        self.map_err(|e| py_err(&e.into()))
    }
}

/// An `INVALID_PARAMETER` error.
pub fn invalid(message: impl Into<String>) -> PyErr {
    py_err(&Error::Parameter(message.into()))
}

/// An `IO` error reading `path`.
pub fn io(path: &std::path::Path, e: std::io::Error) -> PyErr {
    py_err(&Error::Input(InputError::Io { path: path.display().to_string(), reason: e.to_string() }))
}

/// A Python value's type name, for messages.
pub fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "a value".into())
}
