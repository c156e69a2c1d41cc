//! `toolparse._native.SchemaTyper`: the Python face of [`crate::typer`].
//!
//! A thin binding with the interface of
//! `toolparse.coercion.inline.SchemaTyper` (the `ValueTyper` protocol of
//! `toolparse.readers.json`), so that the Python JSON reader can drive
//! either and `tests/test_native_typer.py` can compare them; the native
//! reader calls the core directly. `issues` is a copy of the core's list,
//! equal to the reference's; `root` and `max_depth` are read-only.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use crate::calls_py::{push_wide, py_of, wide_of};
use crate::pyengine::panicked;
use crate::typer::{self, PyOracle, SchemaTyper, Scope, Typer};
use crate::wide;
use toolparse_core::typing::ValueTyper;

/// `toolparse.coercion.inline.SchemaTyper`, native (see [`crate::typer`]).
#[pyclass(module = "toolparse._native", name = "SchemaTyper")]
pub struct PySchemaTyper {
    core: SchemaTyper,
}

impl PySchemaTyper {
    /// Run `f` on the core; a panic becomes a Python error.
    fn run<R>(&mut self, f: impl FnOnce(&mut SchemaTyper) -> PyResult<R>) -> PyResult<R> {
        let core = &mut self.core;
        catch_unwind(AssertUnwindSafe(|| f(core))).unwrap_or_else(|p| Err(panicked(p)))
    }
}

#[pymethods]
impl PySchemaTyper {
    /// `SchemaTyper(schema, *, max_depth=64)`; `cache=False` makes this typer
    /// neither read nor fill the module-level caches (for tests).
    #[new]
    #[pyo3(signature = (schema, *, max_depth = 64, cache = true))]
    fn new(schema: PyObject, max_depth: usize, cache: bool) -> Self {
        let core = Typer::new(PyOracle { caching: cache }, schema, max_depth);
        PySchemaTyper { core }
    }

    #[getter]
    fn root(&self, py: Python<'_>) -> PyObject {
        self.core.root().clone_ref(py)
    }

    #[getter]
    fn max_depth(&self) -> usize {
        self.core.max_depth()
    }

    /// The issues reported so far (a new list each time).
    #[getter]
    fn issues<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.core.issues().iter().map(|i| i.clone_ref(py)))
    }

    /// A value begins with `first` (one character); True to receive it
    /// whole in `finish_buffered`.
    fn begin_value(&mut self, first: &Bound<'_, PyString>) -> PyResult<bool> {
        let first = wide_of(first);
        let mut points = wide::chars(&first);
        let (Some(c), None) = (points.next(), points.next()) else {
            return Err(PyTypeError::new_err(
                "begin_value takes one character (a value's first)",
            ));
        };
        self.run(|core| core.begin_value(c))
    }

    /// An object key; False to drop that member.
    fn key(&mut self, key: &Bound<'_, PyString>) -> PyResult<bool> {
        let key = wide_of(key);
        self.run(|core| core.key(&key))
    }

    /// The next value is an item of the innermost array.
    fn array_item(&mut self) -> PyResult<()> {
        self.run(|core| core.array_item())
    }

    /// The innermost container that `begin_value` let stream has closed.
    fn end_container(&mut self) -> PyResult<()> {
        self.run(|core| core.end_container())
    }

    /// The canonical JSON of a value asked for whole; returns what to write instead.
    fn finish_buffered<'py>(
        &mut self,
        py: Python<'py>,
        canonical: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyString>> {
        let mut text = Vec::new();
        push_wide(&mut text, canonical);
        let mut out = Vec::new();
        self.run(|core| core.finish_buffered(&text, &mut out))?;
        if out == text {
            return Ok(canonical.clone()); // (an integer literal, as it is)
        }
        py_of(py, &out)
    }

    /// Empty the caches shared by all native typers.
    #[staticmethod]
    fn clear_caches() {
        typer::clear_caches();
    }

    /// (plans cached, member lookups cached)
    #[staticmethod]
    fn cache_sizes() -> (usize, usize) {
        typer::cache_sizes()
    }

    /// The typer's state, for the differential test: (frames as
    /// `(kind, schema, path, count)`, the next value's `(kind, raw schema)`,
    /// its path, the collected values as `(raw schema, path, integers)`),
    /// kinds being "untouched", "none" or "schema" ("raw" for the next value).
    fn _state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let state = self.core.state();
        let mut frames = Vec::new();
        for (scope, path, count) in state.frames {
            let (kind, schema) = match scope {
                Scope::Untouched => ("untouched", py.None()),
                Scope::Absent => ("none", py.None()),
                Scope::Schema(schema) => ("schema", schema.clone_ref(py)),
            };
            frames.push((kind, schema, py_of(py, path)?, count).into_pyobject(py)?);
        }
        let next = match state.next {
            None => ("untouched", py.None()),
            Some(raw) => ("raw", raw.map_or_else(|| py.None(), |r| r.clone_ref(py))),
        };
        let mut buffered = Vec::new();
        for (raw, path, integers) in state.buffered {
            let raw = raw.map_or_else(|| py.None(), |r| r.clone_ref(py));
            buffered.push((raw, py_of(py, path)?, integers).into_pyobject(py)?);
        }
        (
            PyList::new(py, frames)?,
            next,
            py_of(py, state.next_path)?,
            PyList::new(py, buffered)?,
        )
            .into_pyobject(py)
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        for object in self.core.schemas().chain(self.core.issues()) {
            visit.call(object)?;
        }
        Ok(())
    }
}
