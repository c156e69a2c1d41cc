//! `_native._coerce`: the core's coercion (`toolparse_core::coercion`) on
//! Python values, for the differential test against `toolparse.coercion`
//! (tests/test_native_coerce.py), and the conversions the engine's call
//! services and events make between core and Python values.

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::calls_py::{py_of, wide_of};
use toolparse_core::coercion::{coerce, Object, Value, MAX_DEPTH_LIMIT};

/// Dicts of at least this many members are kept converted, by their
/// identity (see [`crate::kept`]): a schema taken not to change once used.
const LARGE_DICT: usize = 64;

/// The large dicts converted (see [`LARGE_DICT`]).
static LARGE: crate::kept::Kept<Option<Value>> = crate::kept::Kept::new(1024);

/// The deepest Python value converted (a deeper one is refused, not a crash).
const MAX_NESTING: usize = 2000;

/// Python values to core values; a dict met twice (a schema part shared by
/// reference) becomes one shared object, as coercion tells schema parts by identity.
struct ToCore {
    dicts: HashMap<usize, Arc<Object>>,
}

impl ToCore {
    fn value(&mut self, obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
        if depth > MAX_NESTING {
            return Err(PyValueError::new_err("nested too deeply"));
        }
        if obj.is_none() {
            return Ok(Value::Null);
        }
        if let Ok(b) = obj.downcast::<PyBool>() {
            return Ok(Value::Bool(b.is_true()));
        }
        if let Ok(n) = obj.downcast::<PyInt>() {
            return Ok(match n.extract::<i64>() {
                Ok(small) => Value::Int(small),
                Err(_) => Value::int_from_digits(n.str()?.to_str()?.as_bytes()),
            });
        }
        if let Ok(f) = obj.downcast::<PyFloat>() {
            return Ok(Value::Float(f.value()));
        }
        if let Ok(s) = obj.downcast::<PyString>() {
            return Ok(Value::Str(wide_of(s)));
        }
        if let Ok(list) = obj.downcast::<PyList>() {
            let items = list
                .iter()
                .map(|item| self.value(&item, depth + 1))
                .collect::<PyResult<_>>()?;
            return Ok(Value::array(items));
        }
        if let Ok(tuple) = obj.downcast::<PyTuple>() {
            let items = tuple
                .iter()
                .map(|item| self.value(&item, depth + 1))
                .collect::<PyResult<_>>()?;
            return Ok(Value::array(items));
        }
        if let Ok(dict) = obj.downcast::<PyDict>() {
            let id = obj.as_ptr() as usize;
            if let Some(known) = self.dicts.get(&id) {
                return Ok(Value::Object(known.clone()));
            }
            if dict.len() >= LARGE_DICT {
                // (a large part of a schema, as a tool's `properties`: the same
                // object in every request's copy of the tool's root)
                if let Some(Value::Object(known)) = LARGE.read(obj, Clone::clone) {
                    self.dicts.insert(id, known.clone());
                    return Ok(Value::Object(known));
                }
            }
            let mut object = Object::new();
            for (key, item) in dict.iter() {
                let key = key
                    .downcast::<PyString>()
                    .map_err(|_| PyTypeError::new_err("keys must be str"))?;
                object.insert(wide_of(key), self.value(&item, depth + 1)?);
            }
            let object = Arc::new(object);
            self.dicts.insert(id, object.clone());
            if dict.len() >= LARGE_DICT {
                let value = Value::Object(object.clone());
                LARGE.write(obj, |kept| match kept {
                    Some(_) => 0,
                    None => {
                        *kept = Some(value);
                        1
                    }
                });
            }
            return Ok(Value::Object(object));
        }
        Err(PyTypeError::new_err(format!(
            "not a JSON value: {}",
            obj.get_type().name()?
        )))
    }
}

/// A core value as Python's `json.loads` would give it.
pub fn to_python(py: Python<'_>, value: &Value) -> PyResult<PyObject> {
    Ok(match value {
        Value::Null => py.None(),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
        Value::Int(n) => n.into_pyobject(py)?.into_any().unbind(),
        Value::BigInt(digits) => py.get_type::<PyInt>().call1((&**digits,))?.unbind(),
        Value::Float(f) => PyFloat::new(py, *f).into_any().unbind(),
        Value::Str(s) => py_of(py, s)?.into_any().unbind(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items.iter() {
                list.append(to_python(py, item)?)?;
            }
            list.into_any().unbind()
        }
        Value::Object(o) => {
            let dict = PyDict::new(py);
            for (key, item) in o.iter() {
                dict.set_item(py_of(py, key)?, to_python(py, item)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// A Python JSON value as a core value (a dict met twice: one shared object).
pub fn to_core(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    ToCore {
        dicts: HashMap::new(),
    }
    .value(value, 0)
}

/// `_coerce(value, schema, max_depth=64)`: (the coerced value, its canonical
/// JSON, the issues as (path, expected, got, action) tuples).
#[pyfunction]
#[pyo3(signature = (value, schema, max_depth = 64))]
fn _coerce(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    schema: &Bound<'_, PyAny>,
    max_depth: usize,
) -> PyResult<PyObject> {
    if max_depth == 0 || max_depth > MAX_DEPTH_LIMIT {
        return Err(PyValueError::new_err(format!(
            "max_depth must be a positive integer at most {MAX_DEPTH_LIMIT}"
        )));
    }
    let mut convert = ToCore {
        dicts: HashMap::new(),
    };
    let schema = convert.value(schema, 0)?;
    let value = convert.value(value, 0)?;
    let coerced = coerce(&value, &schema, max_depth);
    let issues = PyList::empty(py);
    for issue in &coerced.issues {
        let fields = [&issue.path, &issue.expected, &issue.got, &issue.action];
        let texts = fields
            .iter()
            .map(|t| py_of(py, t))
            .collect::<PyResult<Vec<_>>>()?;
        issues.append(PyTuple::new(py, texts)?)?;
    }
    let canonical = py_of(py, &coerced.value.canonical_json())?;
    Ok((to_python(py, &coerced.value)?, canonical, issues)
        .into_pyobject(py)?
        .into_any()
        .unbind())
}

pub fn add_functions(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_coerce, m)?)
}
