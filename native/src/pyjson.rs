//! The Python face of [`crate::json`] and [`crate::calls_json`]:
//! `_native.JsonRewriter`, `_native.parse_value`, `_native.canonical_number`,
//! and `_native.EnvelopeCall` / `_native.JsonArgsCall` (subclasses of
//! `_native.JsonCall`, which has their methods).
//!
//! Thin bindings, for comparing the cores with the reference from Python
//! (`tests/test_native_json.py`); the native engine will call the cores
//! directly. A Python typer (any object with the `ValueTyper` protocol,
//! `toolparse.coercion.inline.SchemaTyper` in the engine) is called through
//! [`PyTyper`]; a call's host is `calls_py`'s, over the Python
//! `CallContext`. Syntax errors are raised as the reference's own
//! `toolparse.readers.json.JsonSyntaxError`, their messages worded with
//! CPython's `str.isprintable`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use crate::calls::Ending;
use crate::calls_json::{JsonCall, JsonHost};
use crate::calls_py::{push_wide, py_of, wide_of, PyHost};
use crate::json::{self, JsonRewriter, JsonSyntaxError, ReadError, Reason, Router, Target};
use crate::pyengine::panicked;
use crate::typing::ValueTyper;
use crate::wide;

/// `chr(c).isprintable()`, as [`JsonSyntaxError::message`] needs it.
pub fn printable(c: u32) -> bool {
    crate::printable::is_printable(c)
}

/// The Python functions and classes the bindings call, looked up once.
struct Refs {
    syntax_error: PyObject,
    malformed_json: PyObject,
    too_deep: PyObject,
    invalid_call: PyObject,
    malformed_markup: PyObject,
    unknown_tool: PyObject,
    loads: PyObject,
    coerce: PyObject,
    canonical_json: PyObject,
    outcome: PyObject,
    open_string: PyObject,
    string_run: PyObject,
}

static REFS: GILOnceCell<Refs> = GILOnceCell::new();

fn refs(py: Python<'_>) -> PyResult<&Refs> {
    REFS.get_or_try_init(py, || {
        let get = |module: &str, name: &str| -> PyResult<PyObject> {
            Ok(py.import(module)?.getattr(name)?.unbind())
        };
        let reasons = py.import("toolparse.events")?.getattr("ErrorReason")?;
        Ok(Refs {
            syntax_error: get("toolparse.readers.json", "JsonSyntaxError")?,
            malformed_json: reasons.getattr("MALFORMED_JSON")?.unbind(),
            too_deep: reasons.getattr("TOO_DEEP")?.unbind(),
            invalid_call: reasons.getattr("INVALID_CALL")?.unbind(),
            malformed_markup: reasons.getattr("MALFORMED_MARKUP")?.unbind(),
            unknown_tool: reasons.getattr("UNKNOWN_TOOL")?.unbind(),
            loads: get("json", "loads")?,
            coerce: get("toolparse.coercion.coerce", "coerce")?,
            canonical_json: get("toolparse.events", "canonical_json")?,
            outcome: get("toolparse.engine.calls", "Outcome")?,
            open_string: get("toolparse.engine.calls", "OpenString")?,
            string_run: get("toolparse.readers.json", "STRING_RUN")?,
        })
    })
}

/// The reference's `JsonSyntaxError(message, index, reason)`.
fn syntax_error(py: Python<'_>, e: &JsonSyntaxError) -> PyErr {
    let made = refs(py).and_then(|refs| {
        let reason = match e.reason() {
            Reason::MalformedJson => &refs.malformed_json,
            Reason::TooDeep => &refs.too_deep,
        };
        refs.syntax_error
            .bind(py)
            .call1((e.message(printable), e.index, reason.bind(py)))
    });
    match made {
        Ok(exc) => PyErr::from_value(exc),
        Err(err) => err,
    }
}

fn read_error(py: Python<'_>, e: ReadError<PyErr>) -> PyErr {
    match e {
        ReadError::Syntax(e) => syntax_error(py, &e),
        ReadError::Other(err) => err,
    }
}

/// A one-character Python `str`.
fn char_str(py: Python<'_>, c: u32) -> PyResult<Bound<'_, PyString>> {
    let mut bytes = Vec::with_capacity(4);
    wide::push_code_point(&mut bytes, c);
    py_of(py, &bytes)
}

/// A Python typer (the `ValueTyper` protocol) seen as a [`ValueTyper`].
pub struct PyTyper(pub PyObject);

impl ValueTyper for PyTyper {
    type Error = PyErr;

    fn begin_value(&mut self, first: u32) -> PyResult<bool> {
        Python::with_gil(|py| {
            let first = char_str(py, first)?;
            self.0
                .bind(py)
                .call_method1(intern!(py, "begin_value"), (first,))?
                .is_truthy()
        })
    }

    fn key(&mut self, key: &[u8]) -> PyResult<bool> {
        Python::with_gil(|py| {
            let key = py_of(py, key)?;
            self.0
                .bind(py)
                .call_method1(intern!(py, "key"), (key,))?
                .is_truthy()
        })
    }

    fn array_item(&mut self) -> PyResult<()> {
        Python::with_gil(|py| {
            self.0.bind(py).call_method0(intern!(py, "array_item"))?;
            Ok(())
        })
    }

    fn end_container(&mut self) -> PyResult<()> {
        Python::with_gil(|py| {
            self.0.bind(py).call_method0(intern!(py, "end_container"))?;
            Ok(())
        })
    }

    fn finish_buffered(&mut self, canonical: &[u8], out: &mut Vec<u8>) -> PyResult<()> {
        Python::with_gil(|py| {
            let canonical = py_of(py, canonical)?;
            let written = self
                .0
                .bind(py)
                .call_method1(intern!(py, "finish_buffered"), (canonical,))?;
            push_wide(out, written.downcast::<PyString>()?);
            Ok(())
        })
    }
}

fn typer_of(typer: Option<&Bound<'_, PyAny>>) -> Option<PyTyper> {
    typer
        .filter(|t| !t.is_none())
        .map(|t| PyTyper(t.clone().unbind()))
}

// -- the reader ---------------------------------------------------------------------------

/// Python's `root_keys` and `on_member_end` as a [`Router`]: `root_keys(key)`
/// returns (the slot, or None for nowhere; the typer, or None).
struct PyRouter<'a, 'py> {
    py: Python<'py>,
    root_keys: Option<&'a Bound<'py, PyAny>>,
    on_member_end: Option<&'a Bound<'py, PyAny>>,
}

impl Router<PyTyper> for PyRouter<'_, '_> {
    fn route(&mut self, key: &[u8]) -> PyResult<(Target, Option<PyTyper>)> {
        let Some(root_keys) = self.root_keys else {
            return Ok((Target::Nowhere, None));
        };
        let routed = root_keys.call1((py_of(self.py, key)?,))?;
        let (slot, typer): (Option<usize>, Bound<'_, PyAny>) = routed.extract()?;
        let target = slot.map_or(Target::Nowhere, Target::Slot);
        Ok((target, typer_of(Some(&typer))))
    }

    fn member_end(&mut self, key: &[u8], _slots: &mut [Vec<u8>]) -> PyResult<()> {
        if let Some(on_member_end) = self.on_member_end {
            on_member_end.call1((py_of(self.py, key)?,))?;
        }
        Ok(())
    }
}

/// `toolparse.readers.json.JsonRewriter`, native: the output is the
/// reader's own (`output(slot)`, `take(slot)`); with `root_keys`, each root
/// member's value goes to the slot `root_keys(key)` names.
#[pyclass(module = "toolparse._native", name = "JsonRewriter")]
pub struct PyJsonRewriter {
    core: JsonRewriter<PyTyper>,
    root_keys: Option<PyObject>,
    on_member_end: Option<PyObject>,
}

impl PyJsonRewriter {
    fn run<R>(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&mut JsonRewriter<PyTyper>, &mut PyRouter<'_, '_>) -> Result<R, ReadError<PyErr>>,
    ) -> PyResult<R> {
        let PyJsonRewriter {
            core,
            root_keys,
            on_member_end,
        } = self;
        let mut router = PyRouter {
            py,
            root_keys: root_keys.as_ref().map(|r| r.bind(py)),
            on_member_end: on_member_end.as_ref().map(|r| r.bind(py)),
        };
        match catch_unwind(AssertUnwindSafe(|| f(core, &mut router))) {
            Ok(result) => result.map_err(|e| read_error(py, e)),
            Err(payload) => Err(panicked(payload)),
        }
    }
}

#[pymethods]
impl PyJsonRewriter {
    #[new]
    #[pyo3(signature = (max_depth = 64, typer = None, *, slots = 1, root_keys = None, on_member_end = None))]
    fn new(
        max_depth: usize,
        typer: Option<&Bound<'_, PyAny>>,
        slots: usize,
        root_keys: Option<&Bound<'_, PyAny>>,
        on_member_end: Option<&Bound<'_, PyAny>>,
    ) -> Self {
        let root_keys = root_keys.filter(|r| !r.is_none());
        PyJsonRewriter {
            core: JsonRewriter::new(max_depth, typer_of(typer), root_keys.is_some(), slots),
            root_keys: root_keys.map(|r| r.clone().unbind()),
            on_member_end: on_member_end
                .filter(|r| !r.is_none())
                .map(|r| r.clone().unbind()),
        }
    }

    #[getter]
    fn max_depth(&self) -> usize {
        self.core.max_depth
    }

    /// True once the root value is complete.
    #[getter]
    fn done(&self) -> bool {
        self.core.done()
    }

    /// The typer given (at construction, or by `root_keys`).
    #[getter]
    fn typer(&self, py: Python<'_>) -> Option<PyObject> {
        self.core.typer().map(|t| t.0.clone_ref(py))
    }

    /// Read from `text[i:]`; return the index after the root value, or `len(text)`.
    #[pyo3(signature = (text, i = 0))]
    fn feed(&mut self, py: Python<'_>, text: &Bound<'_, PyString>, i: usize) -> PyResult<usize> {
        self.run(
            py,
            |core, router| crate::with_units!(text, units => core.feed(units, i, router)),
        )
    }

    /// At end of input: complete what can be completed; True if the value is whole.
    fn finish(&mut self, py: Python<'_>) -> PyResult<bool> {
        self.run(py, |core, router| core.finish(router))
    }

    /// True while a double-quoted string written to slot `slot` is open and nothing is pending.
    #[pyo3(signature = (slot = 0))]
    fn in_plain_string(&self, slot: usize) -> bool {
        self.core.in_plain_string(slot)
    }

    /// The text written to slot `slot` so far (and not taken).
    #[pyo3(signature = (slot = 0))]
    fn output<'py>(&self, py: Python<'py>, slot: usize) -> PyResult<Bound<'py, PyString>> {
        py_of(py, self.core.slot(slot))
    }

    /// The text written to slot `slot` since it was last taken.
    #[pyo3(signature = (slot = 0))]
    fn take<'py>(&mut self, py: Python<'py>, slot: usize) -> PyResult<Bound<'py, PyString>> {
        let taken = self
            .core
            .slots_mut()
            .get_mut(slot)
            .map(std::mem::take)
            .unwrap_or_default();
        py_of(py, &taken)
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.root_keys)?;
        visit.call(&self.on_member_end)?;
        if let Some(typer) = self.core.typer() {
            visit.call(&typer.0)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.root_keys = None;
        self.on_member_end = None;
    }
}

/// `toolparse.readers.json.parse_value(text, max_depth=...)`.
#[pyfunction]
#[pyo3(signature = (text, *, max_depth = 64))]
fn parse_value<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyString>,
    max_depth: usize,
) -> PyResult<Option<Bound<'py, PyString>>> {
    let parsed = catch_unwind(AssertUnwindSafe(
        || crate::with_units!(text, units => json::parse_value(units, max_depth)),
    ))
    .map_err(panicked)?;
    parsed.map(|p| py_of(py, &p)).transpose()
}

/// `toolparse.readers.json._canonical_number(token)`.
#[pyfunction]
fn canonical_number<'py>(
    py: Python<'py>,
    token: &Bound<'py, PyString>,
) -> PyResult<Option<Bound<'py, PyString>>> {
    let token = wide_of(token);
    if !token.is_ascii() {
        return Ok(None); // (the patterns' [0-9] and signs are ASCII)
    }
    json::canonical_number(&token)
        .map(|n| py_of(py, &n))
        .transpose()
}

/// Where one of the reader's patterns, matched at `i` in `text`, ends
/// (Python's `m.end()`; None: no match): `"STRING_RUN"`, `"_PLAIN_SQ"`,
/// `"_WHOLE_KEY"` or `"_WHOLE_STRING"` (for the tests: the scanners are
/// the patterns).
#[pyfunction]
fn json_match(pattern: &str, text: &Bound<'_, PyString>, i: usize) -> PyResult<Option<usize>> {
    fn scan<T: crate::lexicon::Unit>(pattern: &str, text: &[T], i: usize) -> Option<Option<usize>> {
        Some(match pattern {
            _ if i > text.len() => None,
            "STRING_RUN" => Some(json::plain_run(text, i, false)),
            "_PLAIN_SQ" => Some(json::plain_run(text, i, true)),
            "_WHOLE_KEY" => json::whole_key(text, i).map(|(_, _, end)| end),
            "_WHOLE_STRING" => json::whole_string(text, i),
            _ => return None,
        })
    }
    let found = crate::with_units!(text, units => scan(pattern, units, i));
    found.ok_or_else(|| PyValueError::new_err(format!("no pattern named {pattern}")))
}

// -- the calls ------------------------------------------------------------------------------

impl JsonHost for PyHost<'_, '_> {
    type Typer = PyTyper;

    fn typer_for(&mut self, name: &[u8]) -> PyResult<Option<PyTyper>> {
        let py = self.py;
        let typer = self
            .ctx
            .call_method1(intern!(py, "typer_for"), (py_of(py, name)?,))?;
        Ok(typer_of(Some(&typer)))
    }

    fn coerce_held(
        &mut self,
        name: &[u8],
        held: &[u8],
        out: &mut Vec<u8>,
    ) -> PyResult<Option<PyObject>> {
        let py = self.py;
        let ctx = self.ctx;
        let name = py_of(py, name)?;
        if ctx
            .call_method1(intern!(py, "typer_for"), (&name,))?
            .is_none()
        {
            return Ok(None);
        }
        let refs = refs(py)?;
        let schema = ctx.call_method1(intern!(py, "schema_of"), (&name,))?;
        let value = refs.loads.bind(py).call1((py_of(py, held)?,))?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("max_depth", ctx.getattr(intern!(py, "max_depth"))?)?;
        let coerced = refs.coerce.bind(py).call((value, schema), Some(&kwargs))?;
        let canonical = refs
            .canonical_json
            .bind(py)
            .call1((coerced.getattr(intern!(py, "value"))?,))?;
        push_wide(out, canonical.downcast::<PyString>()?);
        Ok(Some(coerced.getattr(intern!(py, "issues"))?.unbind()))
    }

    fn issues(&mut self, typer: Option<&PyTyper>, extra: Option<&PyObject>) -> PyResult<PyObject> {
        let py = self.py;
        Ok(match (typer, extra) {
            (Some(typer), _) => {
                let issues = typer.0.bind(py).getattr(intern!(py, "issues"))?;
                py.get_type::<PyTuple>().call1((issues,))?.unbind()
            }
            (None, Some(extra)) => extra.clone_ref(py),
            (None, None) => PyTuple::empty(py).into_any().unbind(),
        })
    }
}

type Core = JsonCall<PyObject, PyTyper>;

/// The JSON calls' shared class: `_native.EnvelopeCall` and
/// `_native.JsonArgsCall` are made by their subclasses. The reader's
/// methods are the call's own here (`feed`, `finish`, `done`: the
/// reference's `call.reader.feed` ...).
#[pyclass(module = "toolparse._native", name = "JsonCall", subclass)]
pub struct PyJsonCall {
    core: Core,
    ctx: PyObject,
    ids: Option<(PyObject, PyObject)>,
    /// The call's `OpenString` (built once: its fields never change).
    opened: Option<PyObject>,
}

impl PyJsonCall {
    /// Run `f` on the core with its host; a panic becomes a Python error.
    fn run<R>(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&mut Core, &mut PyHost<'_, '_>) -> PyResult<R>,
    ) -> PyResult<R> {
        let PyJsonCall { core, ctx, ids, .. } = self;
        let mut host = PyHost {
            py,
            ctx: ctx.bind(py),
            convert: None,
            ids,
        };
        catch_unwind(AssertUnwindSafe(|| f(core, &mut host))).unwrap_or_else(|p| Err(panicked(p)))
    }

    fn index_and_id(&self, py: Python<'_>) -> (PyObject, PyObject) {
        match &self.ids {
            Some((index, id)) => (index.clone_ref(py), id.clone_ref(py)),
            None => (py.None(), py.None()),
        }
    }

    fn name_of<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyString>>> {
        self.core
            .state
            .name
            .as_deref()
            .map(|n| py_of(py, n))
            .transpose()
    }

    /// A call made from a `CallContext`, by `make` (given the host and `ctx.max_depth`).
    fn made(
        py: Python<'_>,
        ctx: &Bound<'_, PyAny>,
        make: impl FnOnce(&mut PyHost<'_, '_>, usize) -> PyResult<Core>,
    ) -> PyResult<Self> {
        let max_depth: usize = ctx.getattr(intern!(py, "max_depth"))?.extract()?;
        let mut ids = None;
        let mut host = PyHost {
            py,
            ctx,
            convert: None,
            ids: &mut ids,
        };
        let core = catch_unwind(AssertUnwindSafe(|| make(&mut host, max_depth)))
            .unwrap_or_else(|p| Err(panicked(p)))?;
        Ok(PyJsonCall {
            core,
            ctx: ctx.clone().unbind(),
            ids,
            opened: None,
        })
    }
}

#[pymethods]
impl PyJsonCall {
    #[getter]
    fn ctx(&self, py: Python<'_>) -> PyObject {
        self.ctx.clone_ref(py)
    }

    #[getter]
    fn name<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyString>>> {
        self.name_of(py)
    }

    #[getter]
    fn started(&self) -> bool {
        self.core.state.started
    }

    #[getter]
    fn streaming(&self) -> bool {
        self.core.state.streaming
    }

    #[getter]
    fn index(&self, py: Python<'_>) -> PyObject {
        self.index_and_id(py).0
    }

    #[getter]
    fn id(&self, py: Python<'_>) -> PyObject {
        self.index_and_id(py).1
    }

    #[getter]
    fn problem<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyString>>> {
        self.core
            .state
            .problem
            .as_deref()
            .map(|p| py_of(py, p))
            .transpose()
    }

    /// The call's inline coercer (the Python typer object), if any.
    #[getter]
    fn typer(&self, py: Python<'_>) -> Option<PyObject> {
        self.core.typer().map(|t| t.0.clone_ref(py))
    }

    #[getter]
    fn extra_issues(&self, py: Python<'_>) -> PyObject {
        match &self.core.state.extra_issues {
            Some(issues) => issues.clone_ref(py),
            None => PyTuple::empty(py).into_any().unbind(),
        }
    }

    /// What was written since the last flush, as one piece (a copy).
    #[getter]
    fn scratch<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let scratch = self.core.scratch();
        if scratch.is_empty() {
            return Ok(PyList::empty(py));
        }
        PyList::new(py, [py_of(py, scratch)?])
    }

    /// The call's argument text flushed (a view of it).
    #[getter]
    fn args(slf: &Bound<'_, Self>) -> JsonCallArgs {
        JsonCallArgs {
            call: slf.clone().unbind(),
        }
    }

    /// `call.reader.done`: the JSON is complete.
    #[getter]
    fn done(&self) -> bool {
        self.core.done()
    }

    /// `call.reader.feed(text, i)`.
    #[pyo3(signature = (text, i = 0))]
    fn feed(&mut self, py: Python<'_>, text: &Bound<'_, PyString>, i: usize) -> PyResult<usize> {
        self.run(py, |core, host| {
            let read = crate::with_units!(text, units => core.feed(host, units, i));
            read.map_err(|e| read_error(py, e))
        })
    }

    /// `call.reader.finish()`.
    fn finish(&mut self, py: Python<'_>) -> PyResult<bool> {
        self.run(py, |core, host| {
            core.finish(host).map_err(|e| read_error(py, e))
        })
    }

    fn announce(&mut self, py: Python<'_>, name: &Bound<'_, PyString>) -> PyResult<()> {
        let name = wide_of(name);
        self.run(py, |core, host| core.announce(host, name))
    }

    fn holding(&mut self) -> bool {
        self.core.holding()
    }

    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        self.run(py, |core, host| core.flush(host))
    }

    /// (The markup is complete: nothing is owed.)
    fn close(&self) {}

    /// Inside a plain string of streaming arguments: the engine may append plain text itself.
    fn open_string(slf: &Bound<'_, Self>) -> PyResult<Option<PyObject>> {
        let py = slf.py();
        let this = slf.borrow();
        if !this.core.string_opens() {
            return Ok(None);
        }
        if let Some(opened) = &this.opened {
            return Ok(Some(opened.clone_ref(py)));
        }
        let (index, id) = this.index_and_id(py);
        drop(this);
        let refs = refs(py)?;
        let args = Bound::new(
            py,
            JsonCallArgs {
                call: slf.clone().unbind(),
            },
        )?;
        let opened = refs
            .open_string
            .bind(py)
            .call1((args, index, id, refs.string_run.bind(py)))?
            .unbind();
        slf.borrow_mut().opened = Some(opened.clone_ref(py));
        Ok(Some(opened))
    }

    fn error<'py>(
        &self,
        py: Python<'py>,
        end: &Bound<'py, PyAny>,
        reason: &Bound<'py, PyAny>,
        message: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let fields = PyDict::new(py);
        fields.set_item("reason", reason)?;
        fields.set_item("message", message)?;
        let (index, id) = self.index_and_id(py);
        refs(py)?
            .outcome
            .bind(py)
            .call((end, self.name_of(py)?, index, id), Some(&fields))
    }

    /// The call's markup is complete: a call, or an error saying why not.
    fn outcome<'py>(
        &mut self,
        py: Python<'py>,
        end: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let refs = refs(py)?;
        let fields = PyDict::new(py);
        let (ending, issues) = self.run(py, |core, host| core.outcome(host))?;
        let name = self.name_of(py)?;
        match ending {
            Ending::Invalid(problem) => {
                let reason = refs.invalid_call.bind(py);
                self.error(py, end, reason, py_of(py, &problem)?.as_any())
            }
            Ending::Malformed(problem) => {
                let reason = refs.malformed_markup.bind(py);
                self.error(py, end, reason, py_of(py, &problem)?.as_any())
            }
            Ending::Unknown(arguments) => {
                let message = match &name {
                    Some(name) => format!("no tool named {} was declared", name.repr()?),
                    None => "no tool named None was declared".to_owned(),
                };
                fields.set_item("reason", refs.unknown_tool.bind(py))?;
                fields.set_item("message", message)?;
                fields.set_item("arguments", crate::ctx::arguments_of(py, arguments)?)?;
                refs.outcome.bind(py).call((end, name), Some(&fields))
            }
            Ending::Call(arguments) => {
                let (index, id) = self.index_and_id(py);
                fields.set_item("arguments", crate::ctx::arguments_of(py, arguments)?)?;
                fields.set_item("issues", issues)?;
                let outcome = refs
                    .outcome
                    .bind(py)
                    .call((end, &name, index, id), Some(&fields))?;
                let tools = self.ctx.bind(py).getattr(intern!(py, "tools"))?;
                if !tools.is_none() {
                    let tool = tools.call_method1(intern!(py, "get"), (&name,))?;
                    if !tool.is_none() && !tool.getattr(intern!(py, "model"))?.is_none() {
                        let arguments = outcome.getattr(intern!(py, "arguments"))?;
                        let validated = tool.call_method1(intern!(py, "validate"), (arguments,))?;
                        let (parsed, error): (PyObject, PyObject) = validated.extract()?;
                        outcome.setattr(intern!(py, "parsed"), parsed)?;
                        outcome.setattr(intern!(py, "validation_error"), error)?;
                    }
                }
                Ok(outcome)
            }
        }
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.ctx)?;
        visit.call(&self.opened)?;
        if let Some((index, id)) = &self.ids {
            visit.call(index)?;
            visit.call(id)?;
        }
        visit.call(&self.core.state.extra_issues)?;
        if let Some(typer) = self.core.typer() {
            visit.call(&typer.0)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.opened = None;
        self.core.state.extra_issues = None;
    }
}

/// `toolparse.engine.calls.EnvelopeCall`, native: one call object being
/// read, its root keys routed to the name and the arguments.
#[pyclass(module = "toolparse._native", name = "EnvelopeCall", extends = PyJsonCall)]
pub struct PyEnvelopeCall;

fn strings(keys: Option<&Bound<'_, PyAny>>, default: &[&str]) -> PyResult<Vec<Vec<u8>>> {
    match keys {
        None => Ok(default.iter().map(|k| k.as_bytes().to_vec()).collect()),
        Some(keys) => keys
            .try_iter()?
            .map(|k| Ok(wide_of(k?.downcast::<PyString>()?)))
            .collect(),
    }
}

#[pymethods]
impl PyEnvelopeCall {
    #[new]
    #[pyo3(signature = (ctx, name_keys = None, argument_keys = None))]
    fn new(
        py: Python<'_>,
        ctx: &Bound<'_, PyAny>,
        name_keys: Option<&Bound<'_, PyAny>>,
        argument_keys: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(Self, PyJsonCall)> {
        let name_keys = strings(name_keys, &["name"])?;
        let argument_keys = strings(argument_keys, &["arguments", "parameters"])?;
        let call = PyJsonCall::made(py, ctx, |_, max_depth| {
            Ok(JsonCall::envelope(max_depth, name_keys, argument_keys))
        })?;
        Ok((PyEnvelopeCall, call))
    }

    /// The root key that took the name (`name_key`).
    #[getter]
    fn name_key<'py>(slf: PyRef<'py, Self>) -> PyResult<Option<Bound<'py, PyString>>> {
        let py = slf.py();
        let key = slf.as_super().core.name_key().map(|k| py_of(py, k));
        key.transpose()
    }

    /// The root key that took the arguments (`args_key`).
    #[getter]
    fn args_key<'py>(slf: PyRef<'py, Self>) -> PyResult<Option<Bound<'py, PyString>>> {
        let py = slf.py();
        let key = slf.as_super().core.args_key().map(|k| py_of(py, k));
        key.transpose()
    }

    /// The arguments' first character (`args_kind`: "" until known).
    #[getter]
    fn args_kind(slf: PyRef<'_, Self>) -> String {
        match slf.as_super().core.args_kind() {
            0 => String::new(),
            kind => char::from(kind).to_string(),
        }
    }
}

/// `toolparse.engine.calls.JsonArgsCall`, native: a call named by its
/// markup (announced at once) whose body is its arguments object.
#[pyclass(module = "toolparse._native", name = "JsonArgsCall", extends = PyJsonCall)]
pub struct PyJsonArgsCall;

#[pymethods]
impl PyJsonArgsCall {
    #[new]
    fn new(
        py: Python<'_>,
        ctx: &Bound<'_, PyAny>,
        name: &Bound<'_, PyString>,
    ) -> PyResult<(Self, PyJsonCall)> {
        let name = wide_of(name);
        let call = PyJsonCall::made(py, ctx, |host, max_depth| {
            JsonCall::json_args(host, max_depth, name)
        })?;
        Ok((PyJsonArgsCall, call))
    }
}

/// A JSON call's argument text (`Call.args`, a `Pieces` in Python): read
/// whole, or appended to by the engine's string lane.
#[pyclass(module = "toolparse._native")]
pub struct JsonCallArgs {
    call: Py<PyJsonCall>,
}

#[pymethods]
impl JsonCallArgs {
    fn text<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        py_of(py, self.call.bind(py).borrow().core.state.args.text())
    }

    fn append(&self, py: Python<'_>, piece: &Bound<'_, PyString>) {
        let piece = wide_of(piece);
        self.call
            .bind(py)
            .borrow_mut()
            .core
            .state
            .args
            .append(&piece);
    }

    fn clear(&self, py: Python<'_>) {
        self.call.bind(py).borrow_mut().core.state.args.clear();
    }

    #[getter]
    fn length(&self, py: Python<'_>) -> usize {
        self.call.bind(py).borrow().core.state.args.length
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.call)
    }
}

/// Add this module's classes and functions to `_native`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyJsonRewriter>()?;
    m.add_class::<PyJsonCall>()?;
    m.add_class::<PyEnvelopeCall>()?;
    m.add_class::<PyJsonArgsCall>()?;
    m.add_class::<JsonCallArgs>()?;
    m.add_function(wrap_pyfunction!(parse_value, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_number, m)?)?;
    m.add_function(wrap_pyfunction!(json_match, m)?)?;
    Ok(())
}
