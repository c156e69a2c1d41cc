//! `Lane`: the native twin of `toolparse.engine.lanes.Lane`, with the same
//! constructor, attributes and `arm` methods, so that the engine's Python
//! code arms either one. The stops are also kept as a [`StopSet`], which the
//! native `feed` reads without a Python call.

use std::cell::Cell;

use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::{GILOnceCell, GILProtected};
use pyo3::types::{PyDict, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use crate::held::Held;
use crate::scan::{look, Found, Latin1Takes, Literals, Look, StopSet, Unprintable};

/// The lanes whose sinks the native `feed` runs itself (plain text, gathering,
/// a string's text, reasoning); the others call their Python sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    Gather,
    String,
    Reasoning,
    Prefix,
    Other,
}

/// What `toolparse.engine.lanes` defines that a native lane needs to know.
struct LaneModule {
    surrogates: PyObject,
    newlines_and_surrogates: PyObject,
    any: PyObject,
    more_chars: Py<PyDict>,
    unbounded: i64,
    all: PyObject,
}

static LANES: GILOnceCell<LaneModule> = GILOnceCell::new();

fn lanes(py: Python<'_>) -> PyResult<&LaneModule> {
    LANES.get_or_try_init(py, || {
        let m = py.import("toolparse.engine.lanes")?;
        Ok(LaneModule {
            surrogates: m.getattr("SURROGATES")?.unbind(),
            newlines_and_surrogates: m.getattr("NEWLINES_AND_SURROGATES")?.unbind(),
            any: m.getattr("ANY")?.unbind(),
            more_chars: m.getattr("MORE_CHARS")?.downcast_into::<PyDict>()?.unbind(),
            unbounded: m.getattr("UNBOUNDED")?.extract()?,
            all: m.getattr("ALL")?.unbind(),
        })
    })
}

/// One short path (see `toolparse.engine.lanes`).
///
/// A frozen class: the per-delta path reads it with no borrow flag to take
/// and give back (PyO3's are atomic; see [`crate::held`]). What changes lives
/// in cells that only the GIL's holder touches: the two the busiest test
/// reads (`latin1`, `room`) each in a `Cell`, the rest in one [`Held`], never
/// borrowed across a call into Python.
#[pyclass(frozen, module = "toolparse._native")]
pub struct Lane {
    #[pyo3(get)]
    name: Py<PyString>,
    #[pyo3(get)]
    unprintable: Option<PyObject>,
    pub rule: Unprintable,
    pub kind: Kind,
    /// What of the Latin-1 code points the lane takes as it stands (`stops`,
    /// `rule` and `more_is_pattern` at a glance), for the busiest test.
    latin1: GILProtected<Cell<Latin1Takes>>,
    /// How many more characters the sink may take.
    room: GILProtected<Cell<i64>>,
    state: Held<LaneState>,
}

/// What an arming sets (see [`Lane`]).
struct LaneState {
    sink: Option<PyObject>,
    other: Option<PyObject>,
    stop: Py<PyString>,
    stop2: Py<PyString>,
    stop3: Py<PyString>,
    more: Option<PyObject>,
    /// `more` is a pattern the native code cannot read: Python searches it.
    more_is_pattern: bool,
    more_stops: Option<Box<StopSet>>,
    /// `stop`, `stop2`, `stop3` and `more` (when it is a set of characters).
    stops: StopSet,
    /// (the text lane) the lexicon of literal openers looked for, and its words.
    openers: Option<PyObject>,
    literals: Option<Box<Literals>>,
    /// (the text and prefix lanes) what held text may be and stay held.
    prefixes: Option<PyObject>,
}

/// What [`Lane::plain_up_to`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plain {
    /// All of it is plain text.
    All,
    /// None of it: a reader must look.
    No,
    /// Up to here; from here an opener is cut by its end.
    UpTo(usize),
    /// Python must say (no literal openers known, or a pattern's stops).
    AskPython,
}

/// The lane's state, borrowed for a moment.
fn state<'a>(lane: &'a Lane, py: Python<'a>) -> PyResult<std::cell::Ref<'a, LaneState>> {
    lane.state.borrow(py)
}

fn state_mut<'a>(lane: &'a Lane, py: Python<'a>) -> PyResult<std::cell::RefMut<'a, LaneState>> {
    lane.state.borrow_mut(py)
}

fn single(stop: &Bound<'_, PyString>) -> PyResult<Option<u32>> {
    let text = stop.to_cow()?;
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (None, _) => Ok(None), // EVERY
        (Some(c), None) => Ok(Some(c as u32)),
        _ => Err(PyValueError::new_err(format!(
            "a lane's stop is one character, not {text:?}"
        ))),
    }
}

/// The characters of `more` when it is one of the patterns `MORE_CHARS`
/// knows (None: a pattern Python searches).
fn more_chars(py: Python<'_>, more: &PyObject) -> PyResult<Option<Box<StopSet>>> {
    let known = lanes(py)?.more_chars.bind(py).get_item(more)?;
    Ok(match known {
        Some(chars) => {
            let mut set = StopSet::new();
            for c in chars.downcast::<PyString>()?.to_cow()?.chars() {
                set.add(c as u32);
            }
            Some(Box::new(set))
        }
        None => None,
    })
}

impl Lane {
    /// The stops after `stop`, `stop2`, `stop3` or `more` changed.
    fn restop(&self, py: Python<'_>, state: &mut LaneState) -> PyResult<()> {
        let mut stops = state.more_stops.as_deref().cloned().unwrap_or_default();
        for stop in [&state.stop, &state.stop2, &state.stop3] {
            match single(stop.bind(py))? {
                None => stops.every = true,
                Some(c) => stops.add(c),
            }
        }
        self.latin1
            .get(py)
            .set(Latin1Takes::new(&stops, self.rule, state.more_is_pattern));
        state.stops = stops;
        Ok(())
    }

    /// Set the stops (`more` with what [`more_chars`] found of it) and the room.
    fn set_stops(
        &self,
        py: Python<'_>,
        stops: [Py<PyString>; 3],
        more: Option<PyObject>,
        room: i64,
    ) -> PyResult<()> {
        let more_stops = match &more {
            Some(pattern) => Some(more_chars(py, pattern)?),
            None => None,
        };
        let old = {
            let mut state = state_mut(self, py)?;
            let [stop, stop2, stop3] = stops;
            let old = (
                std::mem::replace(&mut state.stop, stop),
                std::mem::replace(&mut state.stop2, stop2),
                std::mem::replace(&mut state.stop3, stop3),
                std::mem::replace(&mut state.more, more),
            );
            state.more_is_pattern = matches!(more_stops, Some(None));
            state.more_stops = more_stops.flatten();
            self.restop(py, &mut state)?;
            old
        };
        self.room.get(py).set(room);
        drop(old); // (the old stops let go with no borrow held)
        Ok(())
    }

    /// Set `stop` (the first stop) to `stop`.
    pub fn set_first_stop(&self, py: Python<'_>, stop: &str) -> PyResult<()> {
        let stop = PyString::new(py, stop).unbind();
        let old = {
            let mut state = state_mut(self, py)?;
            let old = std::mem::replace(&mut state.stop, stop);
            self.restop(py, &mut state)?;
            old
        };
        drop(old);
        Ok(())
    }

    /// How many more characters the sink may take.
    #[inline]
    pub fn room(&self, py: Python<'_>) -> i64 {
        self.room.get(py).get()
    }

    #[inline]
    pub fn set_room(&self, py: Python<'_>, room: i64) {
        self.room.get(py).set(room)
    }

    /// The sink (a Python method), where the lane has one.
    pub fn sink(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        Ok(state(self, py)?.sink.as_ref().map(|s| s.clone_ref(py)))
    }

    /// The second look (a Python method), where the lane has one.
    pub fn other(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        Ok(state(self, py)?.other.as_ref().map(|o| o.clone_ref(py)))
    }

    /// (the text lane) How much of `delta`, which holds a stop, is plain text
    /// as it stands all the same (the reference's `_plain_up_to`): all of it
    /// where no literal opener begins in it, whole or cut at its end, and no
    /// newline or surrogate is in it; up to an opener cut by its end; or none.
    pub fn plain_up_to(&self, delta: &Bound<'_, PyString>) -> PyResult<Plain> {
        let state = state(self, delta.py())?;
        let Some(literals) = state.literals.as_deref() else {
            return Ok(Plain::AskPython);
        };
        if state.more_is_pattern {
            return Ok(Plain::AskPython);
        }
        let text = delta.as_ptr();
        // (safe: a str, with the GIL held)
        if unsafe { look_str(text, &StopSet::new(), Unprintable::NewlinesAndSurrogates) }
            != Look::Takes
        {
            return Ok(Plain::No);
        }
        Ok(
            match unsafe { crate::with_units!(text, units => literals.found_in(units)) } {
                Found::Nothing => Plain::All,
                Found::Whole => Plain::No,
                Found::Cut(end) => Plain::UpTo(end),
            },
        )
    }

    /// (the text and prefix lanes) What held text may be: the set of strings
    /// Python gave (None where it gave none, or something else than a set).
    pub fn prefixes<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(state(self, py)?
            .prefixes
            .as_ref()
            .map(|p| p.bind(py).clone())
            .filter(|p| unsafe { ffi::PyAnySet_Check(p.as_ptr()) } != 0))
    }

    /// (the prefix lane) The reference's `Lane.arm_prefix`.
    pub fn set_prefix_stops(&self, py: Python<'_>, prefixes: PyObject) -> PyResult<()> {
        let old = state_mut(self, py)?.prefixes.replace(prefixes);
        drop(old);
        let all = lanes(py)?.all.bind(py).downcast::<PyTuple>()?.clone();
        let (stop, stop2, stop3, more): (
            Py<PyString>,
            Py<PyString>,
            Py<PyString>,
            Option<PyObject>,
        ) = all.extract()?;
        self.set_stops(py, [stop, stop2, stop3], more, 0)
    }

    /// Whether the lane takes `delta` with no Python call: false where Python
    /// would have to say (then [`Lane::takes`] does).
    #[inline]
    pub fn takes_as_it_stands(&self, py: Python<'_>, delta: &Bound<'_, PyString>) -> bool {
        let text = delta.as_ptr();
        // (safe: a str, with the GIL held)
        unsafe {
            if ffi::PyUnicode_KIND(text) == ffi::PyUnicode_1BYTE_KIND {
                let n = ffi::PyUnicode_GET_LENGTH(text) as usize;
                let units = std::slice::from_raw_parts(ffi::PyUnicode_DATA(text) as *const u8, n);
                return self.latin1.get(py).get().takes(units);
            }
        }
        match state(self, py) {
            Ok(state) => {
                !state.more_is_pattern
                    && unsafe { look_str(text, &state.stops, self.rule) } == Look::Takes
            }
            Err(_) => false,
        }
    }

    /// Whether the lane takes `delta` (a `str`): no stop, no character it
    /// cannot take (the Python engine's test in `Engine.feed`).
    pub fn takes(&self, delta: &Bound<'_, PyString>) -> PyResult<bool> {
        let py = delta.py();
        let (found, more) = {
            let state = state(self, py)?;
            let found = unsafe { look_str(delta.as_ptr(), &state.stops, self.rule) };
            let more = match (&state.more, state.more_is_pattern) {
                (Some(more), true) => Some(more.clone_ref(py)),
                _ => None,
            };
            (found, more)
        };
        match found {
            Look::Stops => return Ok(false),
            Look::Takes => {}
            Look::AskPython => {
                let printable = if self.rule == Unprintable::Any {
                    unsafe { crate::with_units!(delta.as_ptr(), units => all_printable(units)) }
                } else {
                    delta
                        .call_method0(pyo3::intern!(py, "isprintable"))?
                        .is_truthy()?
                };
                if !printable {
                    let unprintable = match (&self.unprintable, self.rule) {
                        (Some(pattern), Unprintable::Pattern) => pattern,
                        _ => return Ok(false),
                    };
                    if !unprintable
                        .bind(py)
                        .call_method1(pyo3::intern!(py, "search"), (delta,))?
                        .is_none()
                    {
                        return Ok(false);
                    }
                }
            }
        }
        if let Some(more) = more {
            return Ok(more
                .bind(py)
                .call_method1(pyo3::intern!(py, "search"), (delta,))?
                .is_none());
        }
        Ok(true)
    }
}

extern "C" {
    /// CPython's own test behind `str.isprintable` (`Py_UNICODE_ISPRINTABLE`),
    /// from the interpreter the extension is loaded into.
    fn _PyUnicode_IsPrintable(ch: ffi::Py_UCS4) -> std::os::raw::c_int;
}

/// `str.isprintable()` of the code points `units`.
fn all_printable<T: Copy + Into<u32>>(units: &[T]) -> bool {
    units.iter().all(|&u| {
        let c: u32 = u.into();
        (0x20..0x7F).contains(&c) || (c > 0x7F && unsafe { _PyUnicode_IsPrintable(c) } != 0)
    })
}

/// [`look`] on a Python `str`'s own data.
///
/// # Safety
/// `text` must be a `str` (checked by the caller), read with the GIL held.
pub unsafe fn look_str(text: *mut ffi::PyObject, stops: &StopSet, rule: Unprintable) -> Look {
    crate::with_units!(text, units => look(units, stops, rule))
}

#[pymethods]
impl Lane {
    #[new]
    #[pyo3(signature = (name, sink, other = None, **options))]
    fn new(
        py: Python<'_>,
        name: Bound<'_, PyString>,
        sink: Option<PyObject>,
        other: Option<PyObject>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let module = lanes(py)?;
        // (keyword-only `unprintable`, SURROGATES when not given, as in Python)
        let mut unprintable = Some(module.surrogates.clone_ref(py));
        if let Some(options) = options {
            for (key, value) in options.iter() {
                if key.extract::<String>()? != "unprintable" {
                    return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                        "Lane() got an unexpected keyword argument {key}"
                    )));
                }
                unprintable = if value.is_none() {
                    None
                } else {
                    Some(value.unbind())
                };
            }
        }
        let rule = match &unprintable {
            None => Unprintable::Nothing,
            Some(p) if p.is(&module.surrogates) => Unprintable::Surrogates,
            Some(p) if p.is(&module.newlines_and_surrogates) => Unprintable::NewlinesAndSurrogates,
            Some(p) if p.is(&module.any) => Unprintable::Any,
            Some(_) => Unprintable::Pattern,
        };
        let kind = match &*name.to_cow()? {
            "text" => Kind::Text,
            "gather" => Kind::Gather,
            "string" => Kind::String,
            "reasoning" => Kind::Reasoning,
            "prefix" => Kind::Prefix,
            _ => Kind::Other,
        };
        let every = PyString::new(py, "").unbind();
        let mut stops = StopSet::new();
        stops.every = true;
        Ok(Lane {
            name: name.unbind(),
            unprintable,
            rule,
            kind,
            latin1: GILProtected::new(Cell::new(Latin1Takes::default())),
            room: GILProtected::new(Cell::new(0)),
            state: Held::new(LaneState {
                sink,
                other,
                stop: every.clone_ref(py),
                stop2: every.clone_ref(py),
                stop3: every,
                more: None,
                more_is_pattern: false,
                more_stops: None,
                stops,
                openers: None,
                literals: None,
                prefixes: None,
            }),
        })
    }

    /// Set the stops (a 4-tuple of `toolparse.engine.lanes.stops_of`) and the
    /// room; return the lane.
    #[pyo3(signature = (stops, room = None))]
    fn arm<'py>(
        slf: Bound<'py, Self>,
        stops: &Bound<'py, PyTuple>,
        room: Option<i64>,
    ) -> PyResult<Bound<'py, Self>> {
        let py = slf.py();
        let (stop, stop2, stop3, more): (
            Py<PyString>,
            Py<PyString>,
            Py<PyString>,
            Option<PyObject>,
        ) = stops.extract()?;
        let room = match room {
            Some(room) => room,
            None => lanes(py)?.unbounded,
        };
        slf.get().set_stops(py, [stop, stop2, stop3], more, room)?;
        Ok(slf)
    }

    /// Stops given as a regex found in every delta that stops.
    fn arm_pattern<'py>(
        slf: Bound<'py, Self>,
        pattern: PyObject,
        room: i64,
    ) -> PyResult<Bound<'py, Self>> {
        let py = slf.py();
        let none = PyString::new(py, "\x00").unbind();
        let stops = [none.clone_ref(py), none.clone_ref(py), none];
        slf.get().set_stops(py, stops, Some(pattern), room)?;
        Ok(slf)
    }

    /// Every delta stops: each is offered to `other`.
    fn arm_every<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, Self>> {
        let py = slf.py();
        let all = lanes(py)?.all.bind(py).downcast::<PyTuple>()?.clone();
        Lane::arm(slf, &all, Some(0))
    }

    /// (the prefix lane) Every delta stops, and is offered to `other`, which
    /// gathers it while the held text with it is one of `prefixes`.
    fn arm_prefix<'py>(slf: Bound<'py, Self>, prefixes: PyObject) -> PyResult<Bound<'py, Self>> {
        slf.get().set_prefix_stops(slf.py(), prefixes)?;
        Ok(slf)
    }

    #[getter(prefixes)]
    fn get_prefixes(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        Ok(state(self, py)?.prefixes.as_ref().map(|p| p.clone_ref(py)))
    }

    #[setter(prefixes)]
    fn set_prefixes(&self, py: Python<'_>, prefixes: Option<PyObject>) -> PyResult<()> {
        let old = std::mem::replace(&mut state_mut(self, py)?.prefixes, prefixes);
        drop(old);
        Ok(())
    }

    #[getter(sink)]
    fn get_sink(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        self.sink(py)
    }

    #[getter(other)]
    fn get_other(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        self.other(py)
    }

    #[getter(room)]
    fn get_room(&self, py: Python<'_>) -> i64 {
        self.room(py)
    }

    #[setter(room)]
    fn set_room_attr(&self, py: Python<'_>, room: i64) {
        self.set_room(py, room)
    }

    #[getter]
    fn stop(&self, py: Python<'_>) -> PyResult<Py<PyString>> {
        Ok(state(self, py)?.stop.clone_ref(py))
    }

    #[setter]
    fn set_stop(&self, py: Python<'_>, stop: Py<PyString>) -> PyResult<()> {
        let old = {
            let mut state = state_mut(self, py)?;
            let old = std::mem::replace(&mut state.stop, stop);
            self.restop(py, &mut state)?;
            old
        };
        drop(old);
        Ok(())
    }

    #[getter]
    fn stop2(&self, py: Python<'_>) -> PyResult<Py<PyString>> {
        Ok(state(self, py)?.stop2.clone_ref(py))
    }

    #[setter]
    fn set_stop2(&self, py: Python<'_>, stop: Py<PyString>) -> PyResult<()> {
        let old = {
            let mut state = state_mut(self, py)?;
            let old = std::mem::replace(&mut state.stop2, stop);
            self.restop(py, &mut state)?;
            old
        };
        drop(old);
        Ok(())
    }

    #[getter]
    fn stop3(&self, py: Python<'_>) -> PyResult<Py<PyString>> {
        Ok(state(self, py)?.stop3.clone_ref(py))
    }

    #[setter]
    fn set_stop3(&self, py: Python<'_>, stop: Py<PyString>) -> PyResult<()> {
        let old = {
            let mut state = state_mut(self, py)?;
            let old = std::mem::replace(&mut state.stop3, stop);
            self.restop(py, &mut state)?;
            old
        };
        drop(old);
        Ok(())
    }

    #[getter]
    fn more(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        Ok(state(self, py)?.more.as_ref().map(|m| m.clone_ref(py)))
    }

    #[setter(more)]
    fn set_more_attr(&self, py: Python<'_>, more: Option<PyObject>) -> PyResult<()> {
        let more_stops = match &more {
            Some(pattern) => Some(more_chars(py, pattern)?),
            None => None,
        };
        let old = {
            let mut state = state_mut(self, py)?;
            let old = std::mem::replace(&mut state.more, more);
            state.more_is_pattern = matches!(more_stops, Some(None));
            state.more_stops = more_stops.flatten();
            self.restop(py, &mut state)?;
            old
        };
        drop(old);
        Ok(())
    }

    #[getter]
    fn openers(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        Ok(state(self, py)?.openers.as_ref().map(|o| o.clone_ref(py)))
    }

    #[setter]
    fn set_openers(&self, py: Python<'_>, openers: Option<PyObject>) -> PyResult<()> {
        let same = match (&state(self, py)?.openers, &openers) {
            (Some(a), Some(b)) => a.is(b),
            (None, None) => true,
            _ => false,
        };
        if same {
            return Ok(());
        }
        let literals = match &openers {
            None => None,
            Some(lexicon) => {
                let mut words = Vec::new();
                for word in lexicon
                    .bind(py)
                    .getattr(pyo3::intern!(py, "literals"))?
                    .try_iter()?
                {
                    words.push(
                        word?
                            .downcast::<PyString>()?
                            .to_cow()?
                            .chars()
                            .map(|c| c as u32)
                            .collect(),
                    );
                }
                Some(Box::new(Literals::new(words)))
            }
        };
        let old = {
            let mut state = state_mut(self, py)?;
            state.literals = literals;
            std::mem::replace(&mut state.openers, openers)
        };
        drop(old);
        Ok(())
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(unprintable) = &self.unprintable {
            visit.call(unprintable)?;
        }
        // (a state being changed is not visited: what it holds stays alive)
        let Some(state) = self.state.traverse(&visit) else {
            return Ok(());
        };
        for object in [
            &state.sink,
            &state.other,
            &state.more,
            &state.openers,
            &state.prefixes,
        ]
        .into_iter()
        .flatten()
        {
            visit.call(object)?;
        }
        Ok(())
    }

    fn __clear__(&self) {
        // (safe: tp_clear runs with the GIL held)
        let py = unsafe { Python::assume_gil_acquired() };
        let old = match self.state.borrow_mut(py) {
            Ok(mut state) => (state.sink.take(), state.other.take()),
            Err(_) => (None, None),
        };
        drop(old);
    }
}

/// CPython's `Py_UNICODE_ISPRINTABLE(c)`.
pub fn is_printable(c: u32) -> bool {
    // (safe: a pure function of the code point)
    unsafe { _PyUnicode_IsPrintable(c) != 0 }
}
