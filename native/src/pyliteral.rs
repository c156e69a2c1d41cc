//! Python literals read into Python values: the core's reader
//! (`toolparse_core::pyliteral`, re-exported here) with the builder of the
//! Python objects it gives, and its functions for the tests.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString};

use crate::lexicon::Name;
use crate::pylexicon::new_str;
pub use toolparse_core::pyliteral::*;

// -- the Python values -------------------------------------------------------------

/// Builds the Python values `parse_literal` gives: `str`, `int`, `float`,
/// `bool`, None, `list` and `dict` (exactly those types).
pub struct PyBuild<'py> {
    pub py: Python<'py>,
}

impl<'py> Build for PyBuild<'py> {
    type Value = Bound<'py, PyAny>;

    fn scalar(&mut self, scalar: Scalar) -> Option<Self::Value> {
        let py = self.py;
        Some(match scalar {
            Scalar::Str(points) => new_str(py, Name::U32(&points)).ok()?.into_any(),
            Scalar::Int(Int::Small(n)) => n.into_pyobject(py).ok()?.into_any(),
            Scalar::Int(Int::Big {
                negative,
                digits,
                radix,
            }) => {
                let mut text = Vec::with_capacity(digits.len() + 2);
                if negative {
                    text.push(b'-');
                }
                text.extend_from_slice(&digits);
                let text = std::ffi::CString::new(text).ok()?;
                // SAFETY: the GIL is held (`py`); `text` is a NUL-terminated
                // string, alive for the call (`PyLong_FromString` reads it, keeps
                // nothing); `pend` may be NULL, and CPython checks the base (2,
                // 8, 10 or 16 here). The result is a new reference or NULL with
                // an exception set, which `from_owned_ptr_or_err` takes as such.
                let made = unsafe {
                    Bound::from_owned_ptr_or_err(
                        py,
                        ffi::PyLong_FromString(text.as_ptr(), std::ptr::null_mut(), radix as i32),
                    )
                };
                made.ok()?
            }
            Scalar::Float(x) => PyFloat::new(py, x).into_any(),
            Scalar::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
            Scalar::None => py.None().into_bound(py),
        })
    }

    fn list(&mut self, items: Vec<Self::Value>) -> Option<Self::Value> {
        PyList::new(self.py, items).ok().map(Bound::into_any)
    }

    fn dict(&mut self, pairs: Vec<(Vec<u32>, Self::Value)>) -> Option<Self::Value> {
        let dict = PyDict::new(self.py);
        for (key, value) in pairs {
            let key = new_str(self.py, Name::U32(&key)).ok()?;
            dict.set_item(key, value).ok()?;
        }
        Some(dict.into_any())
    }
}

/// `parse_literal(text, max_depth=max_depth)` of a Rust string, as the
/// engine's converter: `Some(Ok(value))`, `Some(Err(message))` where Python
/// raises `LiteralError(message)`, None where it declines.
pub fn convert<'py>(
    py: Python<'py>,
    text: &str,
    max_depth: i64,
) -> Option<Result<Bound<'py, PyAny>, String>> {
    let mut build = PyBuild { py };
    let read = if text.is_ascii() {
        parse_literal(text.as_bytes(), max_depth, &mut build)
    } else {
        let points: Vec<u32> = text.chars().map(u32::from).collect();
        parse_literal(&points, max_depth, &mut build)
    };
    match read {
        Ok(value) => Some(Ok(value)),
        Err(Failure::Error(message)) => Some(Err(message)),
        Err(Failure::Decline) => None,
    }
}

/// `_native._parse_literal(text, max_depth=64)`: `(value, None)`, or
/// `(None, message)` where Python raises `LiteralError(message)`, or None
/// where the native reader declines.
#[pyfunction]
#[pyo3(signature = (text, max_depth = 64))]
fn _parse_literal<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyString>,
    max_depth: i64,
) -> PyResult<Option<(PyObject, Option<String>)>> {
    let mut build = PyBuild { py };
    let read = crate::with_units!(text, units => parse_literal(units, max_depth, &mut build));
    Ok(match read {
        Ok(value) => Some((value.unbind(), None)),
        Err(Failure::Error(message)) => Some((py.None(), Some(message))),
        Err(Failure::Decline) => None,
    })
}

/// `_native._repr(text)`: `repr(text)` as [`repr`] writes it.
#[pyfunction]
fn _repr(text: &Bound<'_, PyString>) -> String {
    crate::with_units!(text, units => repr(units))
}

/// Add the binding's functions to the module.
pub fn add_functions(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_parse_literal, m)?)?;
    m.add_function(wrap_pyfunction!(_repr, m)?)?;
    Ok(())
}
