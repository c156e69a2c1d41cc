//! `_native.ValueReader`: the value reader's core ([`crate::value`]) behind
//! the Python interface of `toolparse.engine.value.ValueReader`.
//!
//! A thin binding, for comparing the core with the reference from Python
//! (`tests/test_native_value.py`); the native engine will call the core
//! directly. It reads the region's lexicons from the reference's `Lexicon`s
//! (their terminals), the parser's context from any object with
//! `TagContext`'s attributes, and hands each piece of text to `emit` as a
//! `str`, as the reference does.

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::lexicon::{Lexicon, Name, Terminal, Unit};
use crate::pylexicon::{name_of, new_str, PyContext, PyLexicon};
use crate::value::{Condition, Emit, ValueReader, ValueTables};

/// The terminals of a reference `Lexicon` (or of any iterable of terminals),
/// read by the native `Lexicon`'s own constructor.
fn lexicon_of(py: Python<'_>, lexicon: &Bound<'_, PyAny>) -> PyResult<PyLexicon> {
    let terms = lexicon.getattr("terms").unwrap_or_else(|_| lexicon.clone());
    PyLexicon::new(py, &terms)
}

/// A terminal as the native lexicon has it.
fn terminal_of(py: Python<'_>, term: &Bound<'_, PyAny>) -> PyResult<Terminal> {
    if let Ok(s) = term.downcast::<PyString>() {
        return Ok(Terminal::Literal(name_of(s).code_points()));
    }
    // (a tag term: the one-term lexicon says which)
    let one = PyLexicon::new(py, PyTuple::new(py, [term])?.as_any())?;
    match one.core().tags().first() {
        Some(&tag) => Ok(Terminal::Tag(tag)),
        None => Err(PyValueError::new_err(format!(
            "not a terminal: {}",
            term.repr()?
        ))),
    }
}

/// `emit`, called with `str`s; its first error stops the calls and is raised
/// when the read returns.
struct PyEmit<'py> {
    emit: Bound<'py, PyAny>,
    error: Option<PyErr>,
}

impl PyEmit<'_> {
    fn call(&mut self, piece: PyResult<Bound<'_, PyString>>) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = piece.and_then(|p| self.emit.call1((p,))) {
            self.error = Some(e);
        }
    }

    fn done(self) -> PyResult<()> {
        self.error.map_or(Ok(()), Err)
    }
}

impl<T: Unit> Emit<T> for PyEmit<'_> {
    fn text(&mut self, newline: bool, piece: &[T]) {
        let py = self.emit.py();
        let made = if newline {
            let mut points = vec![u32::from(b'\n')];
            points.extend(piece.iter().map(|&c| c.into()));
            new_str(py, Name::U32(&points))
        } else {
            new_str(py, T::name(piece))
        };
        self.call(made);
    }

    fn points(&mut self, newline: bool, piece: &[u32]) {
        let py = self.emit.py();
        let mut points = Vec::with_capacity(piece.len() + 1);
        if newline {
            points.push(u32::from(b'\n'));
        }
        points.extend_from_slice(piece);
        self.call(new_str(py, Name::U32(&points)));
    }
}

/// Reads one value (`toolparse.engine.value.ValueReader`).
#[pyclass(module = "toolparse._native", name = "ValueReader")]
pub struct PyValueReader {
    core: ValueReader,
    /// The region's lexicon, for the hits' keys as the reference gives them.
    lexicon: PyLexicon,
    ctx: PyObject,
    emit: PyObject,
    /// (the engine's string lane record; kept for the engine, as the reference keeps it)
    #[pyo3(get, set)]
    opened: PyObject,
}

#[pymethods]
impl PyValueReader {
    #[new]
    #[pyo3(signature = (lexicon, steps, conditions, ctx, emit, *, xml, markup, nest=None, nest_at_line_start=false, keep_newlines=false, typed=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        lexicon: &Bound<'_, PyAny>,
        steps: &Bound<'_, PyAny>,
        conditions: &Bound<'_, PyAny>,
        ctx: PyObject,
        emit: PyObject,
        xml: bool,
        markup: bool,
        nest: Option<&Bound<'_, PyAny>>,
        nest_at_line_start: bool,
        keep_newlines: bool,
        typed: bool,
    ) -> PyResult<Self> {
        let lexicon = lexicon_of(py, lexicon)?;
        let steps = steps
            .try_iter()?
            .map(|t| terminal_of(py, &t?))
            .collect::<PyResult<Vec<_>>>()?;
        let mut read = Vec::new();
        for (term, condition) in conditions.downcast::<PyDict>()?.iter() {
            let confirm = condition.getattr("confirm")?;
            let confirm: Option<Lexicon> = if confirm.is_none() {
                None
            } else {
                Some(lexicon_of(py, &confirm)?.core().clone())
            };
            read.push((
                terminal_of(py, &term)?,
                Condition {
                    confirm,
                    end_of_stream: condition.getattr("end_of_stream")?.extract()?,
                    line_start: condition.getattr("line_start")?.extract()?,
                },
            ));
        }
        let mut nested = Vec::new();
        if let Some(nest) = nest {
            for (open, close) in nest.downcast::<PyDict>()?.iter() {
                nested.push((terminal_of(py, &open)?, terminal_of(py, &close)?));
            }
        }
        let tables = ValueTables {
            lexicon: lexicon.core().clone(),
            steps,
            conditions: read,
            nest: nested,
            nest_at_line_start,
            keep_newlines,
            xml,
        };
        Ok(PyValueReader {
            core: ValueReader::new(Arc::new(tables), markup, typed),
            lexicon,
            ctx,
            emit,
            opened: py.None(),
        })
    }

    #[getter]
    fn plain(&self) -> bool {
        self.core.plain()
    }

    #[getter]
    fn fresh(&self) -> bool {
        self.core.fresh()
    }

    #[getter]
    fn nested(&self) -> bool {
        self.core.nested()
    }

    /// Read `text[i:]`: `(position, terminal)` when a terminal ends the value
    /// there; `(position, None)` when the rest cannot be decided yet.
    #[pyo3(name = "read")]
    fn read_value(
        &mut self,
        py: Python<'_>,
        text: &Bound<'_, PyString>,
        i: usize,
        r#final: bool,
    ) -> PyResult<(usize, PyObject)> {
        let ctx = self.ctx.bind(py).clone();
        let context = PyContext::new(&ctx);
        let mut emit = PyEmit {
            emit: self.emit.bind(py).clone(),
            error: None,
        };
        let core = &mut self.core;
        let lexicon = &self.lexicon;
        let answer = with_units!(text, units => {
            let (at, hit) = core.read(units, i, r#final, &context, &mut emit);
            match hit {
                Some(hit) => lexicon.hit(py, units, hit).map(|h| (at, h)),
                None => Ok((at, py.None())),
            }
        });
        emit.done()?;
        context.check()?;
        answer
    }

    /// The stream ended inside the value: emit a newline still held.
    fn finish(&mut self, py: Python<'_>) -> PyResult<()> {
        let mut emit = PyEmit {
            emit: self.emit.bind(py).clone(),
            error: None,
        };
        self.core.finish::<u32, _>(&mut emit);
        emit.done()
    }

    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        visit.call(&self.ctx)?;
        visit.call(&self.emit)?;
        visit.call(&self.opened)?;
        Ok(())
    }
}
