//! `Shell`: the native `feed` of `toolparse.engine.core.Engine`.
//!
//! The engine's Python class (the reference, `toolparse.engine.core`) runs
//! every delta through one lane test before anything else (see
//! `toolparse.engine.lanes`): a delta the armed lane takes goes to its sink,
//! and no reader runs. `Shell` is a base class of the native engine that
//! holds the lane's state and does that test and the three busiest sinks
//! (plain text, gathering inside a call, a JSON string's text) in Rust; a
//! delta the lane does not take goes to the same Python methods as in the
//! reference (`other`, `_read`), inside the same error boundary (`_latch`).

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyException, PyRuntimeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::GILProtected;
use pyo3::types::{PyInt, PyList, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use crate::entities;
use crate::events;
use crate::held::Held;
use crate::lane::{Kind, Lane, Plain};
use crate::scan::{
    json_encoded, json_escaped, json_text, value_breaker, value_split, Breaker, JsonText, StopSet,
};

/// The deltas the string lane takes before the engine joins them
/// (`toolparse.engine.core._RUN`; a test checks that they agree).
pub const STRING_RUN: usize = 256;

/// Holds what the lanes need between deltas; the engine's Python code reads
/// and sets these attributes under the names of the reference's slots.
///
/// A frozen class (see [`Lane`]: no atomic borrow flag per delta): each field
/// is a cell that only the GIL's holder touches. The objects' cells are never
/// borrowed across a call into Python: a read clones the reference out.
#[pyclass(subclass, frozen, module = "toolparse._native")]
pub struct Shell {
    lane: Held<Option<Py<Lane>>>,
    offset: GILProtected<Cell<i64>>,
    gathered: Held<Py<PyList>>,
    string_run: Held<Py<PyList>>,
    string_index: Held<PyObject>,
    string_id: Held<PyObject>,
    string_value: GILProtected<Cell<bool>>,
    kept: Held<Py<PyString>>,
    string_args: Held<Py<PyList>>,
    thought: Held<Option<Py<PyList>>>,
    thought_chars: GILProtected<Cell<i64>>,
    /// The value reader behind the string that streams (when it is a value).
    value: Held<Option<ValueString>>,
    held: Held<Py<PyString>>,
    prefix: Held<Py<PyString>>,
    text_lane: Held<Option<Py<Lane>>>,
    prefix_lane: Held<Option<Py<Lane>>>,
    /// The prefix lane was armed here, from the text lane, and nothing was read
    /// since: the text lane is armed as the scanner is (`_text_after_prefix`
    /// would arm it again as it is). Python's setting `_lane` clears it.
    from_text: GILProtected<Cell<bool>>,
}

/// What the native core knows of the value whose string streams: its string
/// record (`Engine._string`), its reader, and the reader's lexicon's `after_lt`.
struct ValueString {
    string: PyObject,
    reader: PyObject,
    xml: bool,
    listed: bool,
    after_lt: StopSet,
}

/// Reasoning kept for a call in unclosed reasoning is trimmed past twice this
/// (`toolparse.engine.thought.WINDOW`; a test checks that they agree).
pub const THOUGHT_WINDOW: i64 = 65_536;

const FINISHED: &str = "feed() called after close(): this parser is finished";

/// What became of a delta: events, or the Python method that reads it.
enum Taken {
    Events(PyObject),
    Read(bool),
}

impl Shell {
    /// The lane test and the inlined sinks; `Taken::Read` sends the delta to
    /// the full path.
    fn through_lane(
        slf: &Bound<'_, Self>,
        lane: &Bound<'_, Lane>,
        delta: &Bound<'_, PyString>,
    ) -> PyResult<Taken> {
        let py = slf.py();
        let shell = slf.get();
        let lane = lane.get();
        let n = unsafe { pyo3::ffi::PyUnicode_GET_LENGTH(delta.as_ptr()) } as i64;
        let kind = lane.kind;
        if lane.takes(delta)? {
            if kind == Kind::Text {
                shell.add_offset(py, n);
                return Ok(Taken::Events(events::text_delta(py, delta)?));
            }
            if n > lane.room(py) {
                return Ok(Taken::Read(true));
            }
            lane.set_room(py, lane.room(py) - n);
            let sink = match kind {
                Kind::Gather | Kind::String | Kind::Reasoning => None,
                _ => lane.sink(py)?,
            };
            if let Some(sink) = sink {
                return Ok(Taken::Events(sink.call1(py, (delta,))?));
            }
            if kind == Kind::Reasoning {
                return Shell::to_reasoning(slf, delta, n).map(Taken::Events);
            }
            if kind == Kind::String && shell.string_value.get(py).get() {
                return Shell::to_string(slf, delta).map(Taken::Events);
            }
            if kind == Kind::Gather {
                shell.gathered.bind(py)?.append(delta)?;
                return Ok(Taken::Events(PyList::empty(py).into_any().unbind()));
            }
            // a JSON string's text: its own JSON
            return Shell::streamed(slf, delta, None).map(Taken::Events);
        }
        if kind == Kind::String {
            let taken = if shell.string_value.get(py).get() {
                Shell::value_string_piece(slf, lane, delta)?
            } else {
                return Shell::json_string_piece(slf, lane, delta);
            };
            if let Some(taken) = taken {
                return Ok(taken);
            }
        }
        if kind == Kind::Text {
            // (a stop that begins no opener: the reference's _still_plain, natively)
            match lane.plain_up_to(delta)? {
                Plain::All => {
                    shell.add_offset(py, n);
                    return Ok(Taken::Events(events::text_delta(py, delta)?));
                }
                Plain::No => return Ok(Taken::Read(true)),
                Plain::UpTo(end) => {
                    if let Some(taken) = Shell::hold(slf, lane, delta, end)? {
                        return Ok(taken);
                    }
                }
                Plain::AskPython => {}
            }
        }
        if kind == Kind::Prefix {
            if let Some(taken) = Shell::lengthens_prefix(slf, lane, delta)? {
                return Ok(taken);
            }
        }
        if let Some(other) = lane.other(py)? {
            let taken = other.call1(py, (delta,))?;
            if !taken.is_none(py) {
                return Ok(Taken::Events(taken));
            }
        }
        Ok(Taken::Read(true))
    }

    /// (text lane) The reference's `_still_plain` for a delta whose end cuts an
    /// opener at `end`: the cut part is held, with the prefix lane armed, and
    /// the text before it is text. None (nothing changed): the reference's
    /// method must say (the held text is not one the lane's `prefixes` hold,
    /// or Python gave the lanes no set).
    fn hold(
        slf: &Bound<'_, Self>,
        lane: &Lane,
        delta: &Bound<'_, PyString>,
        end: usize,
    ) -> PyResult<Option<Taken>> {
        let py = slf.py();
        let shell = slf.get();
        let (Some(prefixes), Some(prefix_lane)) = (lane.prefixes(py)?, shell.prefix_lane.bind(py)?)
        else {
            return Ok(None);
        };
        let n = delta.len()?;
        let held = substring(delta, end, n)?;
        if !set_contains(&prefixes, &held)? {
            return Ok(None);
        }
        shell.held.set(py, held.clone().unbind())?;
        shell.prefix.set(py, held.unbind())?;
        prefix_lane.get().set_prefix_stops(py, prefixes.unbind())?;
        shell.lane.set(py, Some(prefix_lane.unbind()))?;
        shell.from_text.get(py).set(true);
        if end == 0 {
            return Ok(Some(Taken::Events(PyList::empty(py).into_any().unbind())));
        }
        let text = substring(delta, 0, end)?;
        shell.add_offset(py, end as i64);
        Ok(Some(Taken::Events(events::text_delta(py, &text)?)))
    }

    /// (prefix lane) The reference's `_lengthens_prefix`: a delta after which
    /// the held text is still one the lane's `prefixes` hold is gathered; and
    /// where the text lane was left for this one here (see `from_text`), held
    /// text and delta that begin no opener after all are text, with the text
    /// lane armed again, or are text up to an opener cut by their end, which is
    /// held instead (`_text_after_prefix`). None (nothing changed): the
    /// reference's method must say.
    fn lengthens_prefix(
        slf: &Bound<'_, Self>,
        lane: &Lane,
        delta: &Bound<'_, PyString>,
    ) -> PyResult<Option<Taken>> {
        let py = slf.py();
        let shell = slf.get();
        let Some(prefixes) = lane.prefixes(py)? else {
            return Ok(None);
        };
        let prefix = shell
            .prefix
            .bind(py)?
            .add(delta)?
            .downcast_into::<PyString>()?;
        if set_contains(&prefixes, &prefix)? {
            shell.gathered.bind(py)?.append(delta)?;
            shell.prefix.set(py, prefix.unbind())?;
            return Ok(Some(Taken::Events(PyList::empty(py).into_any().unbind())));
        }
        if !shell.from_text.get(py).get() {
            return Ok(None);
        }
        let Some(text_lane) = shell.text_lane.bind(py)? else {
            return Ok(None);
        };
        let text_lane = text_lane.get();
        let n = prefix.len()?;
        let end = match text_lane.plain_up_to(&prefix)? {
            Plain::All => n,
            Plain::UpTo(end) => end,
            Plain::No | Plain::AskPython => return Ok(None),
        };
        let held = substring(&prefix, end, n)?;
        if end < n {
            // (cut again: held again, the text lane still the scanner's)
            match text_lane.prefixes(py)? {
                Some(opener_prefixes) if set_contains(&opener_prefixes, &held)? => {
                    lane.set_prefix_stops(py, opener_prefixes.unbind())?;
                }
                _ => return Ok(None),
            }
        } else {
            shell
                .lane
                .set(py, shell.text_lane.bind(py)?.map(Bound::unbind))?;
            shell.from_text.get(py).set(false);
        }
        shell.held.set(py, held.clone().unbind())?;
        shell.prefix.set(py, held.unbind())?;
        let gathered = shell.gathered.bind(py)?;
        gathered.del_slice(0, gathered.len())?;
        if end == 0 {
            return Ok(Some(Taken::Events(PyList::empty(py).into_any().unbind())));
        }
        shell.add_offset(py, end as i64);
        let text = if end < n {
            substring(&prefix, 0, end)?
        } else {
            prefix
        };
        Ok(Some(Taken::Events(events::text_delta(py, &text)?)))
    }

    fn add_offset(&self, py: Python<'_>, n: i64) {
        let offset = self.offset.get(py);
        offset.set(offset.get() + n);
    }

    /// (reasoning lane) The reference's `Engine._to_reasoning`: reasoning with
    /// nothing that may begin its closer, kept for a call in unclosed reasoning.
    fn to_reasoning(
        slf: &Bound<'_, Self>,
        delta: &Bound<'_, PyString>,
        n: i64,
    ) -> PyResult<PyObject> {
        let py = slf.py();
        let shell = slf.get();
        shell.add_offset(py, n);
        if let Some(thought) = shell.thought.bind(py)? {
            let chars = shell.thought_chars.get(py);
            if chars.get() + n > 2 * THOUGHT_WINDOW {
                // (the rare delta that passes the bound: the reference keeps and trims it)
                slf.call_method1(intern!(py, "_keep_thought"), (delta,))?;
            } else {
                thought.append(delta)?;
                chars.set(chars.get() + n);
            }
        }
        events::reasoning_delta(py, delta, delta)
    }

    /// (string lane, a value) The reference's `Engine._to_string`: plain text
    /// inside a value that streams as a string, its JSON into the arguments.
    fn to_string(slf: &Bound<'_, Self>, delta: &Bound<'_, PyString>) -> PyResult<PyObject> {
        let escaped = unsafe { crate::with_units!(delta.as_ptr(), units => json_escaped(units)) };
        let piece = match escaped {
            None => delta.clone(),
            Some(text) => PyString::new(slf.py(), &text),
        };
        Shell::streamed(slf, delta, Some(&piece))
    }

    /// A string argument's piece streamed, as each of the reference's string
    /// sinks ends: `taken` (the text as written) into the run, `piece` (its
    /// JSON, for a value) into the arguments, and the `ToolCallDelta` of the
    /// JSON (a JSON string's text is its own). Past `STRING_RUN` deltas the
    /// run is joined (`_take_string_run`).
    fn streamed(
        slf: &Bound<'_, Self>,
        taken: &Bound<'_, PyString>,
        piece: Option<&Bound<'_, PyString>>,
    ) -> PyResult<PyObject> {
        let py = slf.py();
        let shell = slf.get();
        let run = shell.string_run.bind(py)?;
        run.append(taken)?;
        if let Some(piece) = piece {
            shell.string_args.bind(py)?.append(piece)?;
        }
        let piece = piece.unwrap_or(taken);
        let (index, id) = (shell.string_index.bind(py)?, shell.string_id.bind(py)?);
        if run.len() >= STRING_RUN {
            slf.call_method0(intern!(py, "_take_string_run"))?;
        }
        events::call_delta(py, &index, &id, piece)
    }

    /// The value behind the string that streams, looked up once per string.
    fn value_string<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, bool, bool, StopSet)> {
        let py = slf.py();
        let string = slf.getattr(intern!(py, "_string"))?;
        if let Some(value) = &*slf.get().value.borrow(py)? {
            if value.string.is(&string) {
                return Ok((
                    value.reader.bind(py).clone(),
                    value.xml,
                    value.listed,
                    value.after_lt.clone(),
                ));
            }
        }
        let reader = string
            .getattr(intern!(py, "piece"))?
            .getattr(intern!(py, "__self__"))?;
        let xml: bool = reader.getattr(intern!(py, "_xml"))?.extract()?;
        let (listed, chars): (bool, Bound<'_, PyAny>) = reader
            .getattr(intern!(py, "_lexicon"))?
            .getattr(intern!(py, "after_lt"))?
            .extract()?;
        let mut after_lt = StopSet::new();
        for c in chars.try_iter()? {
            for c in c?.downcast::<PyString>()?.to_cow()?.chars() {
                after_lt.add(c as u32);
            }
        }
        slf.get().value.set(
            py,
            Some(ValueString {
                string: string.unbind(),
                reader: reader.clone().unbind(),
                xml,
                listed,
                after_lt: after_lt.clone(),
            }),
        )?;
        Ok((reader, xml, listed, after_lt))
    }

    /// (string lane, a value) The reference's `Engine._string_piece` for a
    /// value, with `ValueReader.fast_piece` (see [`value_split`]): text that is
    /// the value's as it stands streams, JSON-encoded (for a value read as XML
    /// text, its entities decoded: see [`entities`]), and a last newline, a cut
    /// `<` or a cut entity waits for the next delta. None: the reference must
    /// look (its `_string_piece`).
    fn value_string_piece(
        slf: &Bound<'_, Self>,
        lane: &Lane,
        delta: &Bound<'_, PyString>,
    ) -> PyResult<Option<Taken>> {
        let py = slf.py();
        let shell = slf.get();
        let kept = shell.kept.bind(py)?;
        let had_kept = kept.len()? > 0;
        let text = if had_kept {
            kept.add(delta)?.downcast_into::<PyString>()?
        } else {
            delta.clone()
        };
        let length = text.len()?;
        let (reader, xml, listed, after_lt) = Shell::value_string(slf)?;
        let breaker =
            unsafe { crate::with_units!(text.as_ptr(), units => value_breaker(units, xml)) };
        let split = if breaker == Breaker::Nowhere {
            length
        } else {
            if reader.getattr(intern!(py, "_wrapped"))?.is_truthy()?
                || !reader.getattr(intern!(py, "_pending"))?.is_none()
            {
                return Ok(None);
            }
            match unsafe {
                crate::with_units!(text.as_ptr(), units => value_split(units, breaker, listed, &after_lt, xml))
            } {
                Some(split) => split,
                None => return Ok(None),
            }
        };
        let keep = length - split;
        let mut room = lane.room(py) - length as i64;
        if room < 0 {
            return Ok(None);
        }
        if keep > 0 || had_kept {
            // (while text is kept, every delta is decided here; then "<" stops
            // again, the first of a value's stops)
            lane.set_first_stop(py, if keep > 0 { "" } else { "<" })?;
            let rest = if keep > 0 {
                substring(&text, split, length)?
            } else {
                PyString::new(py, "")
            };
            shell.kept.set(py, rest.unbind())?;
            room += keep as i64;
        }
        lane.set_room(py, room);
        if split == 0 {
            return Ok(Some(Taken::Events(PyList::empty(py).into_any().unbind())));
        }
        let taken = if keep > 0 {
            substring(&text, 0, split)?
        } else {
            text.clone()
        };
        // (safe: a str, with the GIL held)
        let encoded = unsafe {
            crate::with_units!(taken.as_ptr(), units => if xml {
                json_encoded(&entities::decoded(units))
            } else {
                json_encoded(units)
            })
        };
        let piece = PyString::new(py, &encoded);
        Ok(Some(Taken::Events(Shell::streamed(
            slf,
            &taken,
            Some(&piece),
        )?)))
    }

    /// (string lane, a JSON string) The reference's `Engine._string_piece` for
    /// a JSON string: a delta that is its own JSON but for escapes, or for a last
    /// backslash kept for the next delta, streams as it stands.
    fn json_string_piece(
        slf: &Bound<'_, Self>,
        lane: &Lane,
        delta: &Bound<'_, PyString>,
    ) -> PyResult<Taken> {
        let py = slf.py();
        let shell = slf.get();
        let kept = shell.kept.bind(py)?;
        let had_kept = kept.len()? > 0;
        let text = if had_kept {
            kept.add(delta)?.downcast_into::<PyString>()?
        } else {
            delta.clone()
        };
        let length = text.len()? as i64;
        let (piece, keep) =
            match unsafe { crate::with_units!(text.as_ptr(), units => json_text(units)) } {
                JsonText::Whole => (text, false),
                JsonText::ButLastBackslash => (substring(&text, 0, (length - 1) as usize)?, true),
                JsonText::No => return Ok(Taken::Read(true)),
            };
        let mut room = lane.room(py) - length;
        if room < 0 {
            return Ok(Taken::Read(true));
        }
        if keep || had_kept {
            // (while text is kept, every delta is decided here; then the quote
            // stops again, the first of the JSON string's stops)
            lane.set_first_stop(py, if keep { "" } else { "\"" })?;
            shell
                .kept
                .set(py, PyString::new(py, if keep { "\\" } else { "" }).unbind())?;
            room += keep as i64;
        }
        lane.set_room(py, room);
        if piece.len()? == 0 {
            return Ok(Taken::Events(PyList::empty(py).into_any().unbind()));
        }
        Shell::streamed(slf, &piece, None).map(Taken::Events)
    }

    /// The busiest cases, with no Python call and no reference taken: plain
    /// text that the text lane takes as it stands (or that holds a stop but
    /// begins no opener), and a JSON string's text, its own JSON. None: the
    /// delta is not one of them.
    #[inline]
    fn as_it_stands(slf: &Bound<'_, Self>, delta: &Bound<'_, PyAny>) -> Option<PyResult<PyObject>> {
        let py = slf.py();
        let text = delta.downcast_exact::<PyString>().ok()?;
        let shell = slf.get();
        let n = unsafe { pyo3::ffi::PyUnicode_GET_LENGTH(text.as_ptr()) } as i64;
        let streams = {
            let lane = shell.lane.borrow(py).ok()?;
            let lane = lane.as_ref()?.get();
            if lane.kind == Kind::Text
                && (lane.takes_as_it_stands(py, text)
                    // (a stop that begins no opener: see through_lane)
                    || matches!(lane.plain_up_to(text), Ok(Plain::All)))
            {
                false
            } else if lane.kind != Kind::String
                || shell.string_value.get(py).get()
                || n > lane.room(py)
                || !lane.takes_as_it_stands(py, text)
            {
                return None;
            } else {
                lane.set_room(py, lane.room(py) - n);
                true
            }
        };
        if streams {
            return Some(Shell::streamed(slf, text, None));
        }
        shell.add_offset(py, n);
        Some(events::text_delta(py, text))
    }

    fn read(
        slf: &Bound<'_, Self>,
        lane: Option<Bound<'_, Lane>>,
        delta: &Bound<'_, PyAny>,
    ) -> PyResult<PyObject> {
        let taken = match (&lane, delta.downcast::<PyString>()) {
            (Some(lane), Ok(text)) => Shell::through_lane(slf, lane, text)?,
            _ => Taken::Read(lane.is_some()),
        };
        match taken {
            Taken::Events(events) => Ok(events),
            Taken::Read(after_lane) => Ok(slf
                .call_method1(intern!(slf.py(), "_read"), (delta, after_lane))?
                .unbind()),
        }
    }

    /// `feed`: the lanes' path, then the full path, inside the error boundary.
    fn feed(slf: &Bound<'_, Self>, delta: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let py = slf.py();
        let fast = catch_unwind(AssertUnwindSafe(|| Shell::as_it_stands(slf, delta)))
            .unwrap_or_else(|p| Some(Err(panicked(p))));
        if let Some(result) = fast {
            return result.map_err(|err| latched(slf, err));
        }
        let lane = slf.get().lane.bind(py)?;
        if lane.is_none() || !delta.is_exact_instance_of::<PyString>() {
            slf.call_method1(intern!(py, "_refuse"), (delta, FINISHED))?;
        }
        let result = catch_unwind(AssertUnwindSafe(|| Shell::read(slf, lane, delta)))
            .unwrap_or_else(|p| Err(panicked(p)));
        result.map_err(|err| latched(slf, err))
    }
}

/// `Shell.feed`, a `METH_O` method: PyO3's `#[pymethods]` would make it a
/// `METH_FASTCALL | METH_KEYWORDS` one, whose argument parsing and second
/// check of `self`'s type cost a sixth of a text-lane delta's instructions
/// (callgrind: 1,907 -> 1,563 a delta with the Latin-1 bitmap of `Lane`).
/// What PyO3 wraps around a method is kept as it is: the
/// call runs inside PyO3's own trampoline (`binaryfunc`, the one its slot
/// methods of one argument use: the GIL's bookkeeping, panics caught and
/// raised as `PanicException`, errors restored). `self`'s type needs no check
/// here: the method descriptor CPython calls it through (made for `Shell` by
/// [`add_feed`]) has checked that `self` is a `Shell` (or a subclass).
unsafe extern "C" fn feed_o(
    slf: *mut pyo3::ffi::PyObject,
    delta: *mut pyo3::ffi::PyObject,
) -> *mut pyo3::ffi::PyObject {
    unsafe { pyo3::impl_::trampoline::binaryfunc(slf, delta, feed_body) }
}

/// The body of [`feed_o`], with the GIL held.
unsafe fn feed_body(
    py: Python<'_>,
    slf: *mut pyo3::ffi::PyObject,
    delta: *mut pyo3::ffi::PyObject,
) -> PyResult<*mut pyo3::ffi::PyObject> {
    // (safe: both borrowed for the call; `slf` a Shell, as the descriptor checked)
    let (slf, delta) = unsafe {
        (
            pyo3::Borrowed::from_ptr(py, slf),
            pyo3::Borrowed::from_ptr(py, delta),
        )
    };
    let slf = unsafe { slf.downcast_unchecked::<Shell>() };
    Shell::feed(slf, &delta).map(PyObject::into_ptr)
}

/// A `PyMethodDef` kept for the interpreter's lifetime (CPython reads it, never
/// writes it; a `static` must be `Sync`, which raw pointers are not).
struct MethodDef(pyo3::ffi::PyMethodDef);

// (safe: never written; read by CPython with the GIL held)
unsafe impl Sync for MethodDef {}

static FEED: MethodDef = MethodDef(pyo3::ffi::PyMethodDef {
    ml_name: c"feed".as_ptr(),
    ml_meth: pyo3::ffi::PyMethodDefPointer { PyCFunction: feed_o },
    ml_flags: pyo3::ffi::METH_O,
    ml_doc: c"feed($self, delta, /)\n--\n\nParse the next piece of model output; return the events it completes.".as_ptr(),
});

/// Give `Shell` (the class `shell`) its `feed`: `feed_o`, through a method
/// descriptor of the class, as `#[pymethods]` would.
pub fn add_feed(shell: &Bound<'_, pyo3::types::PyType>) -> PyResult<()> {
    let py = shell.py();
    // (safe: the class is a type; FEED lives as long as the interpreter)
    let descriptor = unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            pyo3::ffi::PyDescr_NewMethod(
                shell.as_ptr() as *mut pyo3::ffi::PyTypeObject,
                &FEED.0 as *const pyo3::ffi::PyMethodDef as *mut pyo3::ffi::PyMethodDef,
            ),
        )?
    };
    shell.setattr(intern!(py, "feed"), descriptor)
}

/// `text[start:end]`.
fn substring<'py>(
    text: &Bound<'py, PyString>,
    start: usize,
    end: usize,
) -> PyResult<Bound<'py, PyString>> {
    // (safe: a str, and a range within it; a new reference or NULL)
    let cut =
        unsafe { pyo3::ffi::PyUnicode_Substring(text.as_ptr(), start as isize, end as isize) };
    Ok(unsafe { Bound::from_owned_ptr_or_err(text.py(), cut)? }.downcast_into::<PyString>()?)
}

/// `text in set` (`set` a set or a frozenset; hashing a str calls no Python).
fn set_contains(set: &Bound<'_, PyAny>, text: &Bound<'_, PyString>) -> PyResult<bool> {
    // (safe: a set, checked by Lane::prefixes, and a str)
    match unsafe { pyo3::ffi::PySet_Contains(set.as_ptr(), text.as_ptr()) } {
        -1 => Err(PyErr::fetch(set.py())),
        found => Ok(found == 1),
    }
}

/// The error boundary (the reference's `except Exception: raise self._latch(exc)`):
/// the parser is latched in an error state; a bug becomes `InternalParserError`.
fn latched(slf: &Bound<'_, Shell>, err: PyErr) -> PyErr {
    let py = slf.py();
    if !err.is_instance_of::<PyException>(py) {
        return err;
    }
    let exc = err.into_value(py).into_bound(py);
    match slf.call_method1(intern!(py, "_latch"), (&exc,)) {
        Ok(raised) => {
            if !raised.is(&exc) && raised.setattr(intern!(py, "__context__"), &exc).is_err() {
                return PyErr::from_value(exc.into_any());
            }
            PyErr::from_value(raised)
        }
        Err(err) => err,
    }
}

/// A panic caught at the boundary, as the exception `_latch` makes an
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

#[pymethods]
impl Shell {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(py: Python<'_>, _args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyAny>>) -> Self {
        Shell {
            lane: Held::new(None),
            offset: GILProtected::new(Cell::new(0)),
            gathered: Held::new(PyList::empty(py).unbind()),
            string_run: Held::new(PyList::empty(py).unbind()),
            string_index: Held::new(PyInt::new(py, 0).into_any().unbind()),
            string_id: Held::new(PyString::new(py, "").into_any().unbind()),
            string_value: GILProtected::new(Cell::new(false)),
            kept: Held::new(PyString::new(py, "").unbind()),
            string_args: Held::new(PyList::empty(py).unbind()),
            thought: Held::new(None),
            thought_chars: GILProtected::new(Cell::new(0)),
            value: Held::new(None),
            held: Held::new(PyString::new(py, "").unbind()),
            prefix: Held::new(PyString::new(py, "").unbind()),
            text_lane: Held::new(None),
            prefix_lane: Held::new(None),
            from_text: GILProtected::new(Cell::new(false)),
        }
    }

    #[getter(_lane)]
    fn get_lane<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, Lane>>> {
        self.lane.bind(py)
    }

    #[setter(_lane)]
    fn set_lane(&self, py: Python<'_>, lane: Option<Py<Lane>>) -> PyResult<()> {
        self.from_text.get(py).set(false);
        self.lane.set(py, lane)
    }

    #[getter(_held)]
    fn get_held<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        self.held.bind(py)
    }

    #[setter(_held)]
    fn set_held(&self, py: Python<'_>, held: Py<PyString>) -> PyResult<()> {
        self.held.set(py, held)
    }

    #[getter(_prefix)]
    fn get_prefix<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        self.prefix.bind(py)
    }

    #[setter(_prefix)]
    fn set_prefix(&self, py: Python<'_>, prefix: Py<PyString>) -> PyResult<()> {
        self.prefix.set(py, prefix)
    }

    #[getter(_text_lane)]
    fn get_text_lane<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, Lane>>> {
        self.text_lane.bind(py)
    }

    #[setter(_text_lane)]
    fn set_text_lane(&self, py: Python<'_>, lane: Option<Py<Lane>>) -> PyResult<()> {
        self.text_lane.set(py, lane)
    }

    #[getter(_prefix_lane)]
    fn get_prefix_lane<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, Lane>>> {
        self.prefix_lane.bind(py)
    }

    #[setter(_prefix_lane)]
    fn set_prefix_lane(&self, py: Python<'_>, lane: Option<Py<Lane>>) -> PyResult<()> {
        self.prefix_lane.set(py, lane)
    }

    #[getter(_offset)]
    fn get_offset(&self, py: Python<'_>) -> i64 {
        self.offset.get(py).get()
    }

    #[setter(_offset)]
    fn set_offset(&self, py: Python<'_>, offset: i64) {
        self.offset.get(py).set(offset)
    }

    #[getter(_gathered)]
    fn get_gathered<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.gathered.bind(py)
    }

    #[setter(_gathered)]
    fn set_gathered(&self, py: Python<'_>, gathered: Py<PyList>) -> PyResult<()> {
        self.gathered.set(py, gathered)
    }

    #[getter(_string_run)]
    fn get_string_run<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.string_run.bind(py)
    }

    #[setter(_string_run)]
    fn set_string_run(&self, py: Python<'_>, run: Py<PyList>) -> PyResult<()> {
        self.string_run.set(py, run)
    }

    #[getter(_string_index)]
    fn get_string_index<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.string_index.bind(py)
    }

    #[setter(_string_index)]
    fn set_string_index(&self, py: Python<'_>, index: PyObject) -> PyResult<()> {
        self.string_index.set(py, index)
    }

    #[getter(_string_id)]
    fn get_string_id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.string_id.bind(py)
    }

    #[setter(_string_id)]
    fn set_string_id(&self, py: Python<'_>, id: PyObject) -> PyResult<()> {
        self.string_id.set(py, id)
    }

    #[getter(_string_value)]
    fn get_string_value(&self, py: Python<'_>) -> bool {
        self.string_value.get(py).get()
    }

    #[setter(_string_value)]
    fn set_string_value(&self, py: Python<'_>, value: bool) {
        self.string_value.get(py).set(value)
    }

    #[getter(_kept)]
    fn get_kept<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        self.kept.bind(py)
    }

    #[setter(_kept)]
    fn set_kept(&self, py: Python<'_>, kept: Py<PyString>) -> PyResult<()> {
        self.kept.set(py, kept)
    }

    #[getter(_string_args)]
    fn get_string_args<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.string_args.bind(py)
    }

    #[setter(_string_args)]
    fn set_string_args(&self, py: Python<'_>, args: Py<PyList>) -> PyResult<()> {
        self.string_args.set(py, args)
    }

    #[getter(_thought)]
    fn get_thought<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        self.thought.bind(py)
    }

    #[setter(_thought)]
    fn set_thought(&self, py: Python<'_>, thought: Option<Py<PyList>>) -> PyResult<()> {
        self.thought.set(py, thought)
    }

    #[getter(_thought_chars)]
    fn get_thought_chars(&self, py: Python<'_>) -> i64 {
        self.thought_chars.get(py).get()
    }

    #[setter(_thought_chars)]
    fn set_thought_chars(&self, py: Python<'_>, chars: i64) {
        self.thought_chars.get(py).set(chars)
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        // (a field being replaced is not visited: what it holds stays alive)
        for lane in [&self.lane, &self.text_lane, &self.prefix_lane] {
            if let Some(lane) = lane.traverse(&visit) {
                if let Some(lane) = &*lane {
                    visit.call(lane)?;
                }
            }
        }
        for text in [&self.kept, &self.held, &self.prefix] {
            if let Some(text) = text.traverse(&visit) {
                visit.call(&*text)?;
            }
        }
        for list in [&self.gathered, &self.string_run, &self.string_args] {
            if let Some(list) = list.traverse(&visit) {
                visit.call(&*list)?;
            }
        }
        for object in [&self.string_index, &self.string_id] {
            if let Some(object) = object.traverse(&visit) {
                visit.call(&*object)?;
            }
        }
        if let Some(thought) = self.thought.traverse(&visit) {
            if let Some(thought) = &*thought {
                visit.call(thought)?;
            }
        }
        if let Some(value) = self.value.traverse(&visit) {
            if let Some(value) = &*value {
                visit.call(&value.string)?;
                visit.call(&value.reader)?;
            }
        }
        Ok(())
    }

    fn __clear__(&self) {
        // (safe: tp_clear runs with the GIL held)
        let py = unsafe { Python::assume_gil_acquired() };
        let lanes = [&self.lane, &self.text_lane, &self.prefix_lane]
            .map(|lane| lane.borrow_mut(py).map(|mut l| l.take()));
        let value = self.value.borrow_mut(py).map(|mut v| v.take());
        drop((lanes, value));
    }
}
