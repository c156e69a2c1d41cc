//! `toolparse._native.Core`: the native engine ([`crate::engine`]) as the base
//! of the engine's native twin classes (see `toolparse.engine.native`).
//!
//! `Engine.__init__` builds what only Python builds (the compiled grammar,
//! the call context, the text scanner, their checks) and hands them to
//! `_native_start`; from then on `feed` and `close` run here, inside one error
//! boundary: an exception a read raises latches the parser (a bug becomes an
//! `InternalParserError`, a caller's mistake noticed mid-stream stays as it
//! was raised), a panic included, and every later call raises it again.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyException, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyList, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use crate::ctx::PyHost;
use crate::engine::lanes::FirstLook;
use crate::engine::{Engine, Options, ReasoningCalls};
use crate::events;
use crate::held::Held;
use crate::pysink::Out;
use toolparse_core::grammar::Reasoning;
use toolparse_core::start_scanner::ReasoningOption;

const FINISHED: &str = "feed() called after close(): this parser is finished";
const CLOSED_TWICE: &str = "close() called twice: this parser is already closed";

struct Errors {
    closed: PyObject,
    toolparse: PyObject,
    internal: PyObject,
}

static ERRORS: GILOnceCell<Errors> = GILOnceCell::new();

fn errors(py: Python<'_>) -> PyResult<&Errors> {
    ERRORS.get_or_try_init(py, || {
        let module = py.import("toolparse.errors")?;
        Ok(Errors {
            closed: module.getattr("StreamClosedError")?.unbind(),
            toolparse: module.getattr("ToolparseError")?.unbind(),
            internal: module.getattr("InternalParserError")?.unbind(),
        })
    })
}

/// The native engine, as a base class (see the module docs).
#[pyclass(subclass, frozen, module = "toolparse._native")]
pub struct Core {
    engine: Held<Option<Engine<PyHost>>>,
}

/// The caller's mistake, if any (`Engine._refuse`): a parser broken or
/// closed (`closed` says which call came too late), or a delta not a `str`.
fn refuse(
    py: Python<'_>,
    engine: &Engine<PyHost>,
    delta: &Bound<'_, PyAny>,
    closed: &str,
) -> PyResult<()> {
    if let Some(broken) = &engine.host.broken {
        return Err(PyErr::from_value(broken.bind(py).clone()));
    }
    if engine.closed {
        return Err(PyErr::from_value(
            errors(py)?.closed.bind(py).call1((closed,))?,
        ));
    }
    if !delta.is_instance_of::<PyString>() {
        let name = delta.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "feed() takes str, not {name}"
        )));
    }
    Ok(())
}

/// `Engine._latch`: leave the parser in an error state.
fn latch(py: Python<'_>, engine: &mut Engine<PyHost>, err: PyErr) -> PyErr {
    if !err.is_instance_of::<PyException>(py) {
        return err; // (KeyboardInterrupt and its kind pass through)
    }
    engine.lane = None;
    let exc = err.into_value(py).into_bound(py);
    let Ok(errors) = errors(py) else {
        return PyErr::from_value(exc.into_any());
    };
    if exc.is_instance(errors.toolparse.bind(py)).unwrap_or(false) {
        engine.host.broken = Some(exc.clone().into_any().unbind());
        return PyErr::from_value(exc.into_any());
    }
    match errors
        .internal
        .bind(py)
        .call1((engine.grammar_name(), engine.offset, &exc))
    {
        Ok(broken) => {
            let _ = broken.setattr(intern!(py, "__cause__"), &exc);
            engine.host.broken = Some(broken.clone().unbind());
            PyErr::from_value(broken)
        }
        Err(e) => e,
    }
}

/// A panic caught at a boundary, as the exception the latch makes an
/// `InternalParserError` of.
pub(crate) fn panicked(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let message = if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic".to_owned()
    };
    PyRuntimeError::new_err(format!("panic in toolparse's native core: {message}"))
}

fn not_started() -> PyErr {
    PyRuntimeError::new_err("the native engine was not started (Engine.__init__ was not run)")
}

/// The events of one delta. The lanes' first look, whose one event (the fed
/// `str` itself) is made here with no sink to set up (a sink costs prose a
/// tenth more instructions a delta, callgrind); else the engine reads the
/// delta into the Python sink. Out of line, so that the trampoline's GIL
/// bookkeeping stays inlined in `feed_o`.
#[inline(never)]
fn feed_events<'py>(
    engine: &mut Engine<PyHost>,
    py: Python<'py>,
    text: &Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyList>> {
    let units = crate::units(text);
    match engine.first_look(units)? {
        FirstLook::Text => events::alone(py, events::text_event(py, text.as_any())?),
        FirstLook::StringPiece => match engine.string.as_ref() {
            Some(string) if !engine.opts.collapse => {
                let (index, id) = (string.call.index_object(py), string.call.id_object(py));
                events::alone(py, events::call_delta_event(py, index, id, text.as_any())?)
            }
            _ => Ok(PyList::empty(py)),
        },
        FirstLook::Reasoning => events::alone(py, events::reasoning_event(py, text, text)?),
        FirstLook::Gathered => Ok(PyList::empty(py)),
        FirstLook::Read { refused } => {
            let mut out = Out::new(py, Some(text.clone()), engine.opts.collapse);
            engine.read_delta(units, refused, &mut out)?;
            out.finish()
        }
    }
}

impl Core {
    /// `feed`, inside the error boundary.
    #[inline(always)] // (the text lane's path: one stretch of code, see Engine::feed)
    pub fn feed_body(slf: &Bound<'_, Self>, delta: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let py = slf.py();
        let mut guard = slf.get().engine.borrow_mut(py)?;
        let engine = guard.as_mut().ok_or_else(not_started)?;
        if engine.lane.is_none() || !delta.is_exact_instance_of::<PyString>() {
            refuse(py, engine, delta, FINISHED)?;
        }
        let text = delta.downcast::<PyString>()?;
        let result = catch_unwind(AssertUnwindSafe(|| feed_events(engine, py, text)))
            .unwrap_or_else(|p| Err(panicked(p)));
        match result {
            Ok(events) => Ok(events.into_any().unbind()),
            Err(err) => Err(latch(py, engine, err)),
        }
    }
}

#[pymethods]
impl Core {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyAny>>) -> Self {
        Core {
            engine: Held::new(None),
        }
    }

    /// `Engine.__init__`'s native half: the engine of the compiled grammar
    /// `grammar`, the call context `ctx`, the declared tools' names, the
    /// reasoning chosen, the reasoning option as given (`grammar="auto"`:
    /// each member's reasoning is what it means for the member), a forced
    /// answer that begins where the scanner says, and the options.
    #[pyo3(signature = (grammar, ctx, tool_names, reasoning, reasoning_option, answer, *, errors_as_text, max_call_chars, collapse, unknown_on_error, lanes, reasoning_calls, thought))]
    #[allow(clippy::too_many_arguments)]
    fn _native_start(
        &self,
        py: Python<'_>,
        grammar: &Bound<'_, PyAny>,
        ctx: &Bound<'_, PyAny>,
        tool_names: Option<Vec<String>>,
        reasoning: &Bound<'_, PyAny>,
        reasoning_option: &Bound<'_, PyAny>,
        answer: bool,
        errors_as_text: bool,
        max_call_chars: i64,
        collapse: bool,
        unknown_on_error: bool,
        lanes: bool,
        reasoning_calls: &str,
        thought: bool,
    ) -> PyResult<()> {
        let reasoning_calls = match reasoning_calls {
            "salvage" => ReasoningCalls::Salvage,
            "ignore" => ReasoningCalls::Ignore,
            _ => ReasoningCalls::Report,
        };
        let opts = Options {
            errors_as_text,
            max_call_chars,
            collapse,
            unknown_on_error,
            lanes,
            reasoning_calls,
        };
        let option = reasoning_option_of(reasoning_option)?;
        let reasoning = reasoning_of(reasoning)?;
        let engine = catch_unwind(AssertUnwindSafe(|| {
            crate::ctx::engine_of(
                py,
                grammar,
                ctx,
                tool_names.as_deref(),
                reasoning.as_ref(),
                option,
                answer,
                opts,
                thought,
            )
        }))
        .unwrap_or_else(|p| Err(panicked(p)))?;
        self.engine.set(py, Some(engine))
    }

    /// The native half of a parser made from the prototype `proto` (see
    /// `toolparse.parser`): `proto`'s engine as it started, with the Python
    /// context `ctx` (`proto`'s, copied).
    fn _native_fresh(
        &self,
        py: Python<'_>,
        proto: &Bound<'_, Core>,
        ctx: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let guard = proto.get().engine.borrow(py)?;
        let prototype = guard.as_ref().ok_or_else(not_started)?;
        let engine = catch_unwind(AssertUnwindSafe(|| {
            crate::ctx::fresh_engine(py, prototype, ctx)
        }))
        .unwrap_or_else(|p| Err(panicked(p)))?;
        self.engine.set(py, Some(engine))
    }

    /// End of the stream: flush held text and finish (or fail) an open call.
    fn close(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
        let py = slf.py();
        let mut guard = slf.get().engine.borrow_mut(py)?;
        let engine = guard.as_mut().ok_or_else(not_started)?;
        if engine.host.broken.is_some() || engine.closed {
            refuse(py, engine, PyString::new(py, "").as_any(), CLOSED_TWICE)?;
        }
        let result = catch_unwind(AssertUnwindSafe(|| {
            let mut out = Out::new(py, None, engine.opts.collapse);
            engine.close(&mut out)?;
            out.finish().map(|l| l.into_any().unbind())
        }))
        .unwrap_or_else(|p| Err(panicked(p)));
        result.map_err(|err| latch(py, engine, err))
    }

    /// The grammar being read: `"auto"` until a call decides which (then its name).
    #[getter]
    fn grammar_name(&self, py: Python<'_>) -> PyResult<String> {
        let guard = self.engine.borrow(py)?;
        Ok(guard
            .as_ref()
            .ok_or_else(not_started)?
            .grammar_name()
            .to_owned())
    }

    /// (`grammar="auto"`) the grammar a call decided, or None while none has.
    #[getter]
    fn decided(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let guard = self.engine.borrow(py)?;
        Ok(guard.as_ref().ok_or_else(not_started)?.decided())
    }

    /// The lane armed for the next delta, or None (for tests and debugging).
    #[getter]
    fn lane(&self, py: Python<'_>) -> PyResult<Option<&'static str>> {
        let guard = self.engine.borrow(py)?;
        Ok(guard
            .as_ref()
            .ok_or_else(not_started)?
            .lane
            .as_ref()
            .map(|l| l.name()))
    }

    /// Stream position of the first character not yet in an event.
    #[getter]
    fn _offset(&self, py: Python<'_>) -> PyResult<i64> {
        let guard = self.engine.borrow(py)?;
        Ok(guard.as_ref().ok_or_else(not_started)?.offset)
    }

    /// The exception the parser is latched with, if any.
    #[getter]
    fn _broken(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let guard = self.engine.borrow(py)?;
        Ok(guard
            .as_ref()
            .ok_or_else(not_started)?
            .host
            .broken
            .as_ref()
            .map(|b| b.clone_ref(py)))
    }

    /// (tests) Plant a bug: from now on, the native engine raises `exc` when
    /// it reaches `place` ("read", "close", "reasoning", "prefix", "line
    /// start", "string piece", "value sink"; or "panic": a Rust panic where
    /// it reads). None takes it away. For the tests of the error boundary
    /// only: the native core has no Python method to patch.
    #[pyo3(signature = (place, exc = None))]
    fn _plant(&self, py: Python<'_>, place: &str, exc: Option<PyObject>) -> PyResult<()> {
        let mut guard = self.engine.borrow_mut(py)?;
        let engine = guard.as_mut().ok_or_else(not_started)?;
        engine.host.planted = exc
            .map(|exc| (place.to_owned(), exc))
            .or_else(|| (place == "panic").then(|| (place.to_owned(), py.None())));
        Ok(())
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(engine) = self.engine.traverse(&visit) {
            if let Some(engine) = engine.as_ref() {
                for object in crate::ctx::objects_of(engine) {
                    visit.call(object)?;
                }
            }
        }
        Ok(())
    }
}

/// `Core.feed`, a `METH_O` method: PyO3's `#[pymethods]` would make it a
/// `METH_FASTCALL | METH_KEYWORDS` one, whose argument parsing and second
/// check of `self`'s type cost a sixth of a text-lane delta's instructions.
/// The call runs inside PyO3's own trampoline (the GIL's bookkeeping, panics
/// caught, errors restored); the method descriptor CPython calls it through
/// (made for `Core` by [`add_feed`]) has checked `self`'s type.
///
/// # Safety
///
/// Only CPython calls it, through that descriptor, as a `METH_O` function:
/// with the GIL held, `slf` a live `Core` (an instance of the class or of a
/// subclass: the descriptor's `descr_check` raised a `TypeError` for anything
/// else) and `delta` a live object, both borrowed for the call.
unsafe extern "C" fn feed_o(
    slf: *mut pyo3::ffi::PyObject,
    delta: *mut pyo3::ffi::PyObject,
) -> *mut pyo3::ffi::PyObject {
    // SAFETY: the GIL is held, as the trampoline requires, and `feed_entry`'s
    // contract is this function's own (above).
    //
    // PyO3's private API (`pyo3::impl_`, the version pinned at =0.25.1): the
    // trampoline every `#[pymethods]` slot of that version runs through, with
    // the same contract (the GIL held): PyO3's GIL count and its pool of
    // deferred decrefs, panics caught and raised as `PanicException`, the
    // error restored and NULL returned. Nothing in it depends on the CPython
    // version (3.11 to 3.13). Measured against the public ways (callgrind,
    // instructions a delta of `toolparse bench`'s scenarios in 4-character
    // deltas, the installed build's flags, `hermes`; `xml` and `pythonic`
    // alike): a `#[pymethods] fn feed` (METH_FASTCALL | METH_KEYWORDS, its
    // argument parsing and second type check) took prose 1,351 -> 1,531
    // (+13%), three calls +11%, fifty calls +7%, the 100 KB argument +3%;
    // this `METH_O` function under `Python::with_gil` instead of the
    // trampoline (`PyGILState_Ensure` and `_Release` a call) prose 1,351 ->
    // 1,470 (+9%), three calls +7%, fifty calls +4.5%. `impl_` promises no
    // stability: check this trampoline's contract on any upgrade of PyO3.
    unsafe { pyo3::impl_::trampoline::binaryfunc(slf, delta, feed_entry) }
}

/// `feed_o`'s body, inside the trampoline.
///
/// # Safety
///
/// As [`feed_o`]: `slf` a live `Core`, `delta` a live object, both borrowed
/// for the call, and the GIL held (`py`).
unsafe fn feed_entry(
    py: Python<'_>,
    slf: *mut pyo3::ffi::PyObject,
    delta: *mut pyo3::ffi::PyObject,
) -> PyResult<*mut pyo3::ffi::PyObject> {
    // SAFETY: both are live, non-NULL objects (CPython never passes NULL to a
    // `METH_O` function) borrowed for the call, which these borrows do not
    // outlive; the GIL is held (`py`). `feed_entry`'s contract.
    let (slf, delta) = unsafe {
        (
            pyo3::Borrowed::from_ptr(py, slf),
            pyo3::Borrowed::from_ptr(py, delta),
        )
    };
    // SAFETY: `slf` is a `Core` or an instance of a subclass, which PyO3 lays
    // out with `Core`'s cell first: the descriptor checked its type.
    let slf = unsafe { slf.downcast_unchecked::<Core>() };
    Core::feed_body(slf, &delta).map(PyObject::into_ptr)
}

struct MethodDef(pyo3::ffi::PyMethodDef);

// SAFETY: `FEED` is never written (an immutable static of `'static` C strings
// and a function pointer), and CPython only reads a method definition (it
// keeps the pointer in the descriptor): every thread sees the same bytes.
unsafe impl Sync for MethodDef {}

static FEED: MethodDef = MethodDef(pyo3::ffi::PyMethodDef {
    ml_name: c"feed".as_ptr(),
    ml_meth: pyo3::ffi::PyMethodDefPointer { PyCFunction: feed_o },
    ml_flags: pyo3::ffi::METH_O,
    ml_doc: c"feed($self, delta, /)\n--\n\nParse the next piece of model output; return the events it completes.".as_ptr(),
});

/// Give `Core` its `feed` (a method descriptor of the class, as `#[pymethods]` would).
pub fn add_feed(core: &Bound<'_, pyo3::types::PyType>) -> PyResult<()> {
    let py = core.py();
    // SAFETY: the GIL is held (`py`); `core` is a live type object (a
    // `Bound<PyType>`); `FEED` is a `'static` definition of a `METH_O`
    // function whose pointer matches `PyCFunction`'s signature, so it outlives
    // the descriptor that keeps a pointer to it, and CPython never writes
    // through that pointer (its `*mut` is C's). The result is a new reference
    // or NULL with an exception set, which `from_owned_ptr_or_err` takes as
    // such.
    let descriptor = unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            pyo3::ffi::PyDescr_NewMethod(
                core.as_ptr() as *mut pyo3::ffi::PyTypeObject,
                &FEED.0 as *const pyo3::ffi::PyMethodDef as *mut pyo3::ffi::PyMethodDef,
            ),
        )?
    };
    core.setattr(intern!(py, "feed"), descriptor)
}

/// (tests) Append the text of every read the native engine makes (its
/// `_run`) to the list `reads`, in order; None stops.
#[pyfunction]
#[pyo3(signature = (reads))]
pub fn _record_reads(reads: Option<PyObject>) {
    crate::ctx::record_reads(reads);
}

/// `_native._plans_worked_out()`: (tests) how many members' plans the core
/// worked out (each tool and key once, for every parser sharing the tools).
#[pyfunction]
pub fn _plans_worked_out() -> usize {
    toolparse_core::rust_calls::PLANS_WORKED_OUT.load(std::sync::atomic::Ordering::Relaxed)
}

/// A reasoning declaration (`toolparse.engine.declare.Reasoning`, checked
/// when it was made) as the core's, or None.
fn reasoning_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<Reasoning>> {
    if obj.is_none() {
        return Ok(None);
    }
    Ok(Some(Reasoning {
        open: obj.getattr("open")?.extract()?,
        close: obj.getattr("close")?.extract()?,
        starts_open: obj.getattr("starts_open")?.extract()?,
        anywhere: obj.getattr("anywhere")?.extract()?,
        markup: obj.getattr("markup")?.extract()?,
        ended_by: obj.getattr("ended_by")?.extract()?,
    }))
}

/// The `reasoning` option as given (a name, a declaration or None; the
/// parser checked it).
fn reasoning_option_of(obj: &Bound<'_, PyAny>) -> PyResult<ReasoningOption> {
    if let Ok(name) = obj.extract::<String>() {
        return ReasoningOption::named(&name).map_err(PyValueError::new_err);
    }
    Ok(ReasoningOption::Given(reasoning_of(obj)?))
}
