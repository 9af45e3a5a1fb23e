//! Signed batches in Python: `sign_keygen`, `sign_batch`, `verify_batch`, and
//! the matchers' keywords `verify_a`, `signature_a`, `verify_b`,
//! `signature_b`: the core's [`gramlink::protocol::signature`], mirroring
//! src/wasm/signing.rs. Keys and signatures are the texts of the CLI's files
//! (`sign-keygen`, `<batch>.sig`), so either side reads the other's.

use crate::convert::message;
use crate::errors::{invalid, type_name, OrPy};
use gramlink::protocol::signature::{check_batch, keygen_texts, sign_bytes, BatchDigest};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

/// A key's or a signature's text: `str`, or a file's `bytes` (UTF-8; anything
/// else in it fails as a key or signature would).
fn text(v: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(s.to_cow()?.into_owned());
    }
    if let Ok(b) = v.cast::<PyBytes>() {
        return Ok(String::from_utf8_lossy(b.as_bytes()).into_owned());
    }
    if let Ok(b) = v.cast::<PyByteArray>() {
        return Ok(String::from_utf8_lossy(&b.to_vec()).into_owned());
    }
    Err(invalid(format!("{what} must be str or bytes (its file's content), not a {}", type_name(v))))
}

fn optional_text(v: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<String>> {
    v.filter(|v| !v.is_none()).map(|v| text(v, what)).transpose()
}

/// A new Ed25519 signing key from the operating system's secure generator:
/// `(signing_key, public_key)`, the texts `gramlink sign-keygen` writes to its
/// two files. Keep the first; give the second to the matcher out of band.
#[pyfunction]
pub fn sign_keygen() -> PyResult<(String, String)> {
    keygen_texts().py()
}

/// The signature of `batch` (a vector batch or a record batch: bytes, or JSON
/// text signed as its UTF-8 bytes) with `signing_key`: the text of the CLI's
/// `<batch>.sig`. Send it with the batch.
#[pyfunction]
pub fn sign_batch(signing_key: &Bound<'_, PyAny>, batch: &Bound<'_, PyAny>) -> PyResult<String> {
    let key = text(signing_key, "signing_key")?;
    sign_bytes(&key, &message(batch, "batch")?).py()
}

/// Checks that `signature` (`None`: none came) is `batch`'s signature by the
/// key of `public_key`; returns `None`, or raises `GramlinkError` with code
/// `SIGNATURE_MISSING`, `SIGNATURE_INVALID` or `INVALID_KEY`, as `match
/// --verify-a` does.
#[pyfunction]
#[pyo3(signature = (public_key, batch, signature=None))]
pub fn verify_batch(
    public_key: &Bound<'_, PyAny>,
    batch: &Bound<'_, PyAny>,
    signature: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let public = text(public_key, "public_key")?;
    let signature = optional_text(signature, "signature")?;
    let bytes = message(batch, "batch")?;
    check_batch("the batch", Some(&public), signature.as_deref(), || BatchDigest::of(&bytes)).py()
}

/// The constructor (`#[new]`) of a matcher class `$class`: `py`, its own
/// leading arguments, then `batch_a`, `batch_b` and the keywords `verify_a`,
/// `signature_a`, `verify_b`, `signature_b`. The body sees the batches as
/// given and the keywords as one [`Verify`], which checks each batch before
/// it is read. Written once for `Matcher` and `RecordMatcher` (a second
/// `#[pymethods]` block, as src/rows.rs's).
macro_rules! matcher_new {
    (
        $(#[$doc:meta])*
        $class:ty, ($py:ident $(, $arg:ident: $ty:ty)*),
        |$batch_a:ident, $batch_b:ident, $verify:ident| $body:block
    ) => {
        #[pyo3::pymethods]
        impl $class {
            $(#[$doc])*
            #[new]
            #[pyo3(signature = ($($arg,)* batch_a, batch_b, *, verify_a=None, signature_a=None, verify_b=None, signature_b=None))]
            #[allow(clippy::too_many_arguments)] // the keywords of Python's signature
            fn new(
                $py: pyo3::Python<'_>,
                $($arg: $ty,)*
                batch_a: &pyo3::Bound<'_, pyo3::PyAny>,
                batch_b: &pyo3::Bound<'_, pyo3::PyAny>,
                verify_a: Option<&pyo3::Bound<'_, pyo3::PyAny>>,
                signature_a: Option<&pyo3::Bound<'_, pyo3::PyAny>>,
                verify_b: Option<&pyo3::Bound<'_, pyo3::PyAny>>,
                signature_b: Option<&pyo3::Bound<'_, pyo3::PyAny>>,
            ) -> pyo3::PyResult<Self> {
                let ($batch_a, $batch_b) = (batch_a, batch_b);
                let $verify = $crate::signing::Verify { verify_a, signature_a, verify_b, signature_b };
                $body
            }
        }
    };
}

pub(crate) use matcher_new;

/// The matchers' keywords: each party's public key and its batch's signature.
pub struct Verify<'a, 'py> {
    pub verify_a: Option<&'a Bound<'py, PyAny>>,
    pub signature_a: Option<&'a Bound<'py, PyAny>>,
    pub verify_b: Option<&'a Bound<'py, PyAny>>,
    pub signature_b: Option<&'a Bound<'py, PyAny>>,
}

impl Verify<'_, '_> {
    /// Checks A's batch bytes and B's (each named by `what` in errors),
    /// before either is read: without a party's key, its batch is not checked.
    pub fn check(&self, a: (&[u8], &str), b: (&[u8], &str)) -> PyResult<()> {
        let parties = [
            (self.verify_a, self.signature_a, "verify_a", "signature_a", a),
            (self.verify_b, self.signature_b, "verify_b", "signature_b", b),
        ];
        for (public, signature, public_name, signature_name, (bytes, what)) in parties {
            let public = optional_text(public, public_name)?;
            let signature = optional_text(signature, signature_name)?;
            check_batch(what, public.as_deref(), signature.as_deref(), || BatchDigest::of(bytes)).py()?;
        }
        Ok(())
    }
}
