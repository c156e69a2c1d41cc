//! `toolparse._native.MemberCall`: the Python face of [`crate::calls`].
//!
//! A thin binding: the call's state is the Rust core's; this module is the
//! core's [`Host`] over the Python `CallContext` (ids, schemas, coercion,
//! converters, validation) and turns its results into the Python engine's
//! own objects (`ToolCallDelta` events, `OpenString`, `Outcome`). It has the
//! methods of `toolparse.engine.calls.MemberCall` and the attributes the
//! engine reads, all read-only. The call's argument text is Rust's: `args`
//! is a view of it ([`CallArgs`], what the engine's string lane appends to)
//! and `scratch` a copy (one piece: what was written since the last flush).

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use crate::calls::{Coerced, Converted, Ending, Host, MemberCall, Mode, Plan};
use crate::events::call_delta_event;
use crate::pyengine::panicked;
use crate::wide;

/// The Python functions and classes the binding calls, looked up once.
pub(crate) struct Refs {
    pub(crate) loads: PyObject,
    pub(crate) canonical_json: PyObject,
    pub(crate) coerce: PyObject,
    pub(crate) coerce_at: PyObject,
    pub(crate) child_path: PyObject,
    pub(crate) text_streams: PyObject,
    pub(crate) outcome: PyObject,
    pub(crate) open_string: PyObject,
    pub(crate) string_run: PyObject,
    pub(crate) invalid_call: PyObject,
    pub(crate) malformed_markup: PyObject,
    pub(crate) unknown_tool: PyObject,
}

static REFS: GILOnceCell<Refs> = GILOnceCell::new();

pub(crate) fn refs(py: Python<'_>) -> PyResult<&Refs> {
    REFS.get_or_try_init(py, || {
        let get = |module: &str, name: &str| -> PyResult<PyObject> {
            Ok(py.import(module)?.getattr(name)?.unbind())
        };
        let reasons = py.import("toolparse.events")?.getattr("ErrorReason")?;
        Ok(Refs {
            loads: get("json", "loads")?,
            canonical_json: get("toolparse.events", "canonical_json")?,
            coerce: get("toolparse.coercion.coerce", "coerce")?,
            coerce_at: get("toolparse.coercion.inline", "coerce_at")?,
            child_path: get("toolparse.coercion.coerce", "_child_path")?,
            text_streams: get("toolparse.coercion.inline", "text_streams")?,
            outcome: get("toolparse.engine.calls", "Outcome")?,
            open_string: get("toolparse.engine.calls", "OpenString")?,
            string_run: get("toolparse.readers.json", "STRING_RUN")?,
            invalid_call: reasons.getattr("INVALID_CALL")?.unbind(),
            malformed_markup: reasons.getattr("MALFORMED_MARKUP")?.unbind(),
            unknown_tool: reasons.getattr("UNKNOWN_TOOL")?.unbind(),
        })
    })
}

/// A Python `str` as generalized UTF-8 (lossless: see [`crate::wide`]).
pub(crate) fn wide_of(text: &Bound<'_, PyString>) -> Vec<u8> {
    let mut out = Vec::new();
    push_wide(&mut out, text);
    out
}

pub(crate) fn push_wide(out: &mut Vec<u8>, text: &Bound<'_, PyString>) {
    crate::with_units!(text, units => wide::push_units(out, units))
}

/// Generalized UTF-8 as a Python `str` (decoded with `surrogatepass`).
pub(crate) fn py_of<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyString>> {
    // SAFETY: the pointer and length describe `bytes`, alive for the call (the
    // decoder copies them; a length of at most `isize::MAX`, as any slice's);
    // the error handler's name is a NUL-terminated literal; `py` proves the GIL
    // held. The result is a new reference or NULL with an exception set, which
    // `from_owned_ptr_or_err` takes as such, and a new object of
    // `PyUnicode_DecodeUTF8` is an exact `str`.
    unsafe {
        let obj = ffi::PyUnicode_DecodeUTF8(
            bytes.as_ptr().cast(),
            bytes.len() as ffi::Py_ssize_t,
            c"surrogatepass".as_ptr(),
        );
        Ok(Bound::from_owned_ptr_or_err(py, obj)?.downcast_into_unchecked())
    }
}

/// `MemberCall.sole_string_of(schema)`.
pub(crate) fn sole_string_of<'py>(
    py: Python<'py>,
    schema: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<PyObject>> {
    let properties = match schema {
        Some(schema) => schema.call_method1(intern!(py, "get"), ("properties",))?,
        None => return Ok(None),
    };
    let Ok(properties) = properties.downcast::<PyDict>() else {
        return Ok(None);
    };
    if properties.len() != 1 {
        return Ok(None);
    }
    let Some((name, member)) = properties.iter().next() else {
        return Ok(None);
    };
    let streams = refs(py)?.text_streams.bind(py).call1((member, schema))?;
    Ok(streams.is_truthy()?.then(|| name.unbind()))
}

/// The core's [`Host`] over the Python `CallContext` (and the call's converter).
pub(crate) struct PyHost<'a, 'py> {
    pub(crate) py: Python<'py>,
    pub(crate) ctx: &'a Bound<'py, PyAny>,
    pub(crate) convert: Option<&'a Bound<'py, PyAny>>,
    /// The call's index and id, once started.
    pub(crate) ids: &'a mut Option<(PyObject, PyObject)>,
}

impl Host for PyHost<'_, '_> {
    type Value = PyObject;
    type Error = PyErr;

    fn is_known(&mut self, name: &[u8]) -> PyResult<bool> {
        let name = py_of(self.py, name)?;
        self.ctx
            .call_method1(intern!(self.py, "is_known"), (name,))?
            .is_truthy()
    }

    fn start(&mut self, name: &[u8]) -> PyResult<()> {
        let name = py_of(self.py, name)?;
        let started = self.ctx.call_method1(intern!(self.py, "start"), (name,))?;
        *self.ids = Some(started.extract()?);
        Ok(())
    }

    fn delta(&mut self, piece: &[u8]) -> PyResult<()> {
        let py = self.py;
        let Some((index, id)) = self.ids.as_ref() else {
            return Err(PyTypeError::new_err("a delta of a call not started"));
        };
        let piece = py_of(py, piece)?;
        let event = call_delta_event(py, index.bind(py), id.bind(py), piece.as_any())?;
        let out = self.ctx.getattr(intern!(py, "out"))?;
        match out.downcast::<PyList>() {
            Ok(list) => list.append(event),
            Err(_) => out.call_method1(intern!(py, "append"), (event,)).map(drop),
        }
    }

    fn member_plan(
        &mut self,
        name: &[u8],
        key: &[u8],
        root: &PyObject,
    ) -> PyResult<Plan<PyObject>> {
        let py = self.py;
        let plan = self.ctx.call_method1(
            intern!(py, "member_plan"),
            (py_of(py, name)?, py_of(py, key)?, root.bind(py)),
        )?;
        let (schema, mode, issues): (PyObject, i64, Bound<'_, PyAny>) = plan.extract()?;
        let mode = Mode::from_number(mode)
            .ok_or_else(|| PyValueError::new_err(format!("no member mode numbered {mode}")))?;
        let issues = issues
            .try_iter()?
            .map(|issue| issue.map(Bound::unbind))
            .collect::<PyResult<_>>()?;
        let schema = (!schema.is_none(py)).then_some(schema);
        Ok(Plan {
            schema,
            mode,
            issues,
        })
    }

    fn convert(&mut self, text: &str, key: &[u8]) -> PyResult<Converted<PyObject>> {
        let py = self.py;
        let Some(convert) = self.convert else {
            return Ok(Converted::Value(
                PyString::new(py, text).into_any().unbind(),
            ));
        };
        match convert.call1((text,)) {
            Ok(value) => Ok(Converted::Value(value.unbind())),
            Err(err) if err.is_instance_of::<PyValueError>(py) => {
                // f"argument {key!r} is not a literal: {exc}"
                let mut problem = b"argument ".to_vec();
                push_wide(&mut problem, &py_of(py, key)?.repr()?);
                problem.extend_from_slice(b" is not a literal: ");
                push_wide(&mut problem, &err.value(py).str()?);
                Ok(Converted::Invalid(problem))
            }
            Err(err) => Err(err),
        }
    }

    fn coerce_at(
        &mut self,
        value: PyObject,
        schema: Option<&PyObject>,
        root: Option<&PyObject>,
        key: &[u8],
    ) -> PyResult<Coerced<PyObject>> {
        let py = self.py;
        let refs = refs(py)?;
        let path = refs.child_path.bind(py).call1(("$", py_of(py, key)?))?;
        let coerced = refs
            .coerce_at
            .bind(py)
            .call1((value, schema, root, path, 1))?;
        let (value, issues): (PyObject, Bound<'_, PyAny>) = coerced.extract()?;
        let issues = issues
            .try_iter()?
            .map(|issue| issue.map(Bound::unbind))
            .collect::<PyResult<_>>()?;
        Ok(Coerced { value, issues })
    }

    fn list(&mut self, values: Vec<PyObject>) -> PyResult<PyObject> {
        Ok(PyList::new(self.py, values)?.into_any().unbind())
    }

    fn canonical_json(&mut self, value: &PyObject, out: &mut Vec<u8>) -> PyResult<()> {
        let py = self.py;
        let text = refs(py)?.canonical_json.bind(py).call1((value,))?;
        push_wide(out, text.downcast::<PyString>()?);
        Ok(())
    }

    fn coerce_json(&mut self, text: &str, out: &mut Vec<u8>) -> PyResult<()> {
        let py = self.py;
        let coerced = refs(py)?.coerce.bind(py).call1((text, py.None()))?;
        let value = coerced.getattr(intern!(py, "value"))?.unbind();
        self.canonical_json(&value, out)
    }

    fn key_error(&mut self, key: &[u8]) -> PyErr {
        match py_of(self.py, key) {
            Ok(key) => PyKeyError::new_err(key.unbind()),
            Err(err) => err,
        }
    }

    fn none(&mut self) -> PyObject {
        self.py.None()
    }

    fn sole_string_of(&mut self, root: Option<&PyObject>) -> PyResult<Option<PyObject>> {
        sole_string_of(self.py, root.map(|root| root.bind(self.py)))
    }
}

/// `toolparse.engine.calls.MemberCall`, native (see the module docs).
#[pyclass(module = "toolparse._native", name = "MemberCall")]
pub struct PyMemberCall {
    core: MemberCall<PyObject>,
    ctx: PyObject,
    convert: Option<PyObject>,
    ids: Option<(PyObject, PyObject)>,
    /// The call's `OpenString` (built once: its fields never change).
    opened: Option<PyObject>,
}

type Core = MemberCall<PyObject>;

impl PyMemberCall {
    /// Run `f` on the core with its host; a panic becomes a Python error.
    fn run<R>(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&mut Core, &mut PyHost<'_, '_>) -> PyResult<R>,
    ) -> PyResult<R> {
        let PyMemberCall {
            core,
            ctx,
            convert,
            ids,
            ..
        } = self;
        let mut host = PyHost {
            py,
            ctx: ctx.bind(py),
            convert: convert.as_ref().map(|c| c.bind(py)),
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

    /// `Outcome(end, name, index, id, **fields)`.
    fn new_outcome<'py>(
        &self,
        py: Python<'py>,
        end: &Bound<'py, PyAny>,
        arguments: Option<PyObject>,
        fields: &Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (index, id) = self.index_and_id(py);
        let name = py_of(py, &self.core.name)?;
        fields.set_item("arguments", arguments)?;
        refs(py)?
            .outcome
            .bind(py)
            .call((end, name, index, id), Some(fields))
    }
}

#[pymethods]
impl PyMemberCall {
    #[new]
    #[pyo3(signature = (ctx, name, convert = None, *, literal = false))]
    fn new(
        py: Python<'_>,
        ctx: &Bound<'_, PyAny>,
        name: &Bound<'_, PyString>,
        convert: Option<&Bound<'_, PyAny>>,
        literal: bool,
    ) -> PyResult<Self> {
        let convert = convert.filter(|c| !c.is_none());
        let schema = ctx.call_method1(intern!(py, "schema_of"), (name,))?;
        let coerce = ctx.getattr(intern!(py, "coerce"))?.is_truthy()?;
        let root = (!schema.is_none() && coerce).then(|| schema.unbind());
        let schemaless = ctx.getattr(intern!(py, "tools"))?.is_none() && coerce;
        let mut ids = None;
        let mut host = PyHost {
            py,
            ctx,
            convert,
            ids: &mut ids,
        };
        let core = catch_unwind(AssertUnwindSafe(|| {
            MemberCall::new(&mut host, wide_of(name), root, schemaless, literal)
        }))
        .unwrap_or_else(|p| Err(panicked(p)))?;
        Ok(PyMemberCall {
            core,
            ctx: ctx.clone().unbind(),
            convert: convert.map(|c| c.clone().unbind()),
            ids,
            opened: None,
        })
    }

    #[getter]
    fn ctx(&self, py: Python<'_>) -> PyObject {
        self.ctx.clone_ref(py)
    }

    #[getter]
    fn name<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        py_of(py, &self.core.name)
    }

    #[getter]
    fn started(&self) -> bool {
        self.core.started
    }

    #[getter]
    fn streaming(&self) -> bool {
        self.core.streaming
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
            .problem
            .as_deref()
            .map(|p| py_of(py, p))
            .transpose()
    }

    /// (Inline coercion of JSON arguments: a member call has none.)
    #[getter]
    fn typer(&self, py: Python<'_>) -> PyObject {
        py.None()
    }

    #[getter]
    fn extra_issues<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.core.extra_issues().iter().map(|i| i.clone_ref(py)))
    }

    /// What was written since the last flush, as one piece (a copy).
    #[getter]
    fn scratch<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        match self.core.scratch() {
            Some(text) => PyList::new(py, [py_of(py, text)?]),
            None => Ok(PyList::empty(py)),
        }
    }

    /// The call's argument text flushed (a view of it).
    #[getter]
    fn args(slf: PyRef<'_, Self>) -> CallArgs {
        CallArgs { call: slf.into() }
    }

    fn announce(&mut self, py: Python<'_>, name: &Bound<'_, PyString>) -> PyResult<()> {
        let name = wide_of(name);
        self.run(py, |core, host| core.announce(host, name))
    }

    fn before_first_delta(&self) {}

    fn holding(&self) -> bool {
        false
    }

    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        self.run(py, |core, host| core.flush(host))
    }

    /// While a string member streams: the engine may append plain text itself.
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
            CallArgs {
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

    fn begin(&mut self, py: Python<'_>, key: &Bound<'_, PyString>) -> PyResult<bool> {
        let key = wide_of(key);
        self.run(py, |core, host| core.begin(host, key))
    }

    fn has(&self, key: &Bound<'_, PyString>) -> bool {
        self.core.has(&wide_of(key))
    }

    fn sole_string_property(&mut self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        self.run(py, |core, host| core.sole_string_property(host))
    }

    #[staticmethod]
    #[pyo3(name = "sole_string_of")]
    fn sole_string_of_schema(
        py: Python<'_>,
        schema: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<PyObject>> {
        sole_string_of(py, schema.filter(|s| !s.is_none()))
    }

    /// The next decoded text of the current member.
    fn text(&mut self, py: Python<'_>, piece: &Bound<'_, PyString>) -> PyResult<()> {
        self.run(py, |core, _| {
            crate::with_units!(piece, units => core.text(units));
            Ok(())
        })
    }

    fn streams(&self) -> bool {
        self.core.streams()
    }

    fn end(&mut self, py: Python<'_>) -> PyResult<()> {
        self.run(py, |core, host| core.end(host))
    }

    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        self.run(py, |core, host| core.close(host))
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
        let name = py_of(py, &self.core.name)?;
        refs(py)?
            .outcome
            .bind(py)
            .call((end, name, index, id), Some(&fields))
    }

    /// The call's markup is complete: a call, or an error saying why not.
    fn outcome<'py>(
        &mut self,
        py: Python<'py>,
        end: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let refs = refs(py)?;
        let fields = PyDict::new(py);
        match self.run(py, |core, host| core.outcome(host))? {
            Ending::Invalid(problem) => {
                let reason = refs.invalid_call.bind(py);
                self.error(py, end, reason, py_of(py, &problem)?.as_any())
            }
            Ending::Malformed(problem) => {
                let reason = refs.malformed_markup.bind(py);
                self.error(py, end, reason, py_of(py, &problem)?.as_any())
            }
            Ending::Unknown(arguments) => {
                let arguments = crate::ctx::arguments_of(py, arguments)?;
                let name = py_of(py, &self.core.name)?;
                let message = format!("no tool named {} was declared", name.repr()?);
                fields.set_item("reason", refs.unknown_tool.bind(py))?;
                fields.set_item("message", message)?;
                fields.set_item("arguments", arguments)?;
                refs.outcome.bind(py).call((end, name), Some(&fields))
            }
            Ending::Call(arguments) => {
                let arguments = crate::ctx::arguments_of(py, arguments)?;
                fields.set_item("issues", self.extra_issues(py)?)?;
                let outcome = self.new_outcome(py, end, arguments, &fields)?;
                let tools = self.ctx.bind(py).getattr(intern!(py, "tools"))?;
                if !tools.is_none() {
                    let name = py_of(py, &self.core.name)?;
                    let tool = tools.call_method1(intern!(py, "get"), (name,))?;
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
        visit.call(&self.convert)?;
        visit.call(&self.opened)?;
        if let Some((index, id)) = &self.ids {
            visit.call(index)?;
            visit.call(id)?;
        }
        for value in self.core.values() {
            visit.call(value)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.convert = None;
        self.opened = None;
    }
}

/// A call's argument text (`Call.args`, a `Pieces` in Python): read whole, or
/// appended to by the engine's string lane.
#[pyclass(module = "toolparse._native")]
pub struct CallArgs {
    call: Py<PyMemberCall>,
}

#[pymethods]
impl CallArgs {
    fn text<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        py_of(py, self.call.bind(py).borrow().core.args.text())
    }

    fn append(&self, py: Python<'_>, piece: &Bound<'_, PyString>) {
        let piece = wide_of(piece);
        self.call.bind(py).borrow_mut().core.args.append(&piece);
    }

    fn clear(&self, py: Python<'_>) {
        self.call.bind(py).borrow_mut().core.args.clear();
    }

    #[getter]
    fn length(&self, py: Python<'_>) -> usize {
        self.call.bind(py).borrow().core.args.length
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.call)
    }
}
