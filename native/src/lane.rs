//! `Lane`: the native twin of `toolparse.engine.lanes.Lane`, with the same
//! constructor, attributes and `arm` methods, so that the engine's Python
//! code arms either one. The stops are also kept as a [`StopSet`], which the
//! native `feed` reads without a Python call.

use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use crate::scan::{look, Found, Latin1Takes, Literals, Look, StopSet, Unprintable};

/// The lanes whose sinks the native `feed` runs itself (plain text, gathering,
/// a string's text, reasoning); the others call their Python sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    Gather,
    String,
    Reasoning,
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
#[pyclass(module = "toolparse._native")]
pub struct Lane {
    #[pyo3(get)]
    name: Py<PyString>,
    #[pyo3(get)]
    pub sink: Option<PyObject>,
    #[pyo3(get)]
    pub other: Option<PyObject>,
    #[pyo3(get)]
    unprintable: Option<PyObject>,
    stop: Py<PyString>,
    stop2: Py<PyString>,
    stop3: Py<PyString>,
    more: Option<PyObject>,
    /// `more` is a pattern the native code cannot read: Python searches it.
    more_is_pattern: bool,
    more_stops: Option<Box<StopSet>>,
    /// `stop`, `stop2`, `stop3` and `more` (when it is a set of characters).
    pub stops: StopSet,
    /// What of the Latin-1 code points the lane takes as it stands (`stops`,
    /// `rule` and `more_is_pattern` at a glance), for the busiest test.
    latin1: Latin1Takes,
    pub rule: Unprintable,
    pub kind: Kind,
    /// How many more characters the sink may take.
    #[pyo3(get, set)]
    pub room: i64,
    /// (the text lane) the lexicon of literal openers looked for, and its words.
    openers: Option<PyObject>,
    pub literals: Option<Box<Literals>>,
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

impl Lane {
    fn restop(&mut self, py: Python<'_>) -> PyResult<()> {
        let mut stops = self.more_stops.as_deref().cloned().unwrap_or_default();
        for stop in [&self.stop, &self.stop2, &self.stop3] {
            match single(stop.bind(py))? {
                None => stops.every = true,
                Some(c) => stops.add(c),
            }
        }
        self.latin1 = Latin1Takes::new(&stops, self.rule, self.more_is_pattern);
        self.stops = stops;
        Ok(())
    }

    /// Set `stop` (the first stop) to `stop`.
    pub fn set_first_stop(&mut self, py: Python<'_>, stop: &str) -> PyResult<()> {
        self.stop = PyString::new(py, stop).unbind();
        self.restop(py)
    }

    fn set_more(&mut self, py: Python<'_>, more: Option<PyObject>) -> PyResult<()> {
        self.more_stops = None;
        self.more_is_pattern = false;
        if let Some(pattern) = &more {
            let known = lanes(py)?.more_chars.bind(py).get_item(pattern)?;
            match known {
                Some(chars) => {
                    let mut more = StopSet::new();
                    for c in chars.downcast::<PyString>()?.to_cow()?.chars() {
                        more.add(c as u32);
                    }
                    self.more_stops = Some(Box::new(more));
                }
                None => self.more_is_pattern = true,
            }
        }
        self.more = more;
        Ok(())
    }

    /// (the text lane) Whether `delta`, which holds a stop, is plain text as it
    /// stands all the same: no newline or surrogate, and no literal opener
    /// begins in it, whole or cut at its end. None: Python must say (no
    /// literals, or an opener cut by the delta's end, which it holds).
    pub fn still_plain(&self, delta: &Bound<'_, PyString>) -> Option<bool> {
        let literals = self.literals.as_deref()?;
        if self.more_is_pattern {
            return None;
        }
        let text = delta.as_ptr();
        // (safe: a str, with the GIL held)
        if unsafe { look_str(text, &StopSet::new(), Unprintable::NewlinesAndSurrogates) }
            != Look::Takes
        {
            return Some(false);
        }
        // (an opener cut by the delta's end: the reference's _still_plain holds it)
        match unsafe { crate::with_units!(text, units => literals.found_in(units)) } {
            Found::Nothing => Some(true),
            Found::Whole => Some(false),
            Found::Cut(_) => None,
        }
    }

    /// Whether the lane takes `delta` with no Python call: false where Python
    /// would have to say (then [`Lane::takes`] does).
    #[inline]
    pub fn takes_as_it_stands(&self, delta: &Bound<'_, PyString>) -> bool {
        let text = delta.as_ptr();
        // (safe: a str, with the GIL held)
        unsafe {
            if ffi::PyUnicode_KIND(text) == ffi::PyUnicode_1BYTE_KIND {
                let n = ffi::PyUnicode_GET_LENGTH(text) as usize;
                let units = std::slice::from_raw_parts(ffi::PyUnicode_DATA(text) as *const u8, n);
                return self.latin1.takes(units);
            }
            !self.more_is_pattern && look_str(text, &self.stops, self.rule) == Look::Takes
        }
    }

    /// Whether the lane takes `delta` (a `str`): no stop, no character it
    /// cannot take (the Python engine's test in `Engine.feed`).
    pub fn takes(&self, delta: &Bound<'_, PyString>) -> PyResult<bool> {
        let py = delta.py();
        let found = unsafe { look_str(delta.as_ptr(), &self.stops, self.rule) };
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
        if self.more_is_pattern {
            if let Some(more) = &self.more {
                return Ok(more
                    .bind(py)
                    .call_method1(pyo3::intern!(py, "search"), (delta,))?
                    .is_none());
            }
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
            _ => Kind::Other,
        };
        let every = PyString::new(py, "").unbind();
        let mut stops = StopSet::new();
        stops.every = true;
        Ok(Lane {
            name: name.unbind(),
            sink,
            other,
            unprintable,
            stop: every.clone_ref(py),
            stop2: every.clone_ref(py),
            stop3: every,
            more: None,
            more_is_pattern: false,
            more_stops: None,
            stops,
            latin1: Latin1Takes::default(),
            rule,
            kind,
            room: 0,
            openers: None,
            literals: None,
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
        {
            let mut lane = slf.borrow_mut();
            lane.stop = stop;
            lane.stop2 = stop2;
            lane.stop3 = stop3;
            lane.set_more(py, more)?;
            lane.restop(py)?;
            lane.room = match room {
                Some(room) => room,
                None => lanes(py)?.unbounded,
            };
        }
        Ok(slf)
    }

    /// Stops given as a regex found in every delta that stops.
    fn arm_pattern<'py>(
        slf: Bound<'py, Self>,
        pattern: PyObject,
        room: i64,
    ) -> PyResult<Bound<'py, Self>> {
        let py = slf.py();
        {
            let mut lane = slf.borrow_mut();
            let none = PyString::new(py, "\x00").unbind();
            lane.stop = none.clone_ref(py);
            lane.stop2 = none.clone_ref(py);
            lane.stop3 = none;
            lane.set_more(py, Some(pattern))?;
            lane.restop(py)?;
            lane.room = room;
        }
        Ok(slf)
    }

    /// Every delta stops: each is offered to `other`.
    fn arm_every<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, Self>> {
        let py = slf.py();
        let all = lanes(py)?.all.bind(py).downcast::<PyTuple>()?.clone();
        Lane::arm(slf, &all, Some(0))
    }

    #[getter]
    fn stop(&self, py: Python<'_>) -> Py<PyString> {
        self.stop.clone_ref(py)
    }

    #[setter]
    fn set_stop(&mut self, py: Python<'_>, stop: Py<PyString>) -> PyResult<()> {
        self.stop = stop;
        self.restop(py)
    }

    #[getter]
    fn stop2(&self, py: Python<'_>) -> Py<PyString> {
        self.stop2.clone_ref(py)
    }

    #[setter]
    fn set_stop2(&mut self, py: Python<'_>, stop: Py<PyString>) -> PyResult<()> {
        self.stop2 = stop;
        self.restop(py)
    }

    #[getter]
    fn stop3(&self, py: Python<'_>) -> Py<PyString> {
        self.stop3.clone_ref(py)
    }

    #[setter]
    fn set_stop3(&mut self, py: Python<'_>, stop: Py<PyString>) -> PyResult<()> {
        self.stop3 = stop;
        self.restop(py)
    }

    #[getter]
    fn more(&self, py: Python<'_>) -> Option<PyObject> {
        self.more.as_ref().map(|m| m.clone_ref(py))
    }

    #[setter(more)]
    fn set_more_attr(&mut self, py: Python<'_>, more: Option<PyObject>) -> PyResult<()> {
        self.set_more(py, more)?;
        self.restop(py)
    }

    #[getter]
    fn openers(&self, py: Python<'_>) -> Option<PyObject> {
        self.openers.as_ref().map(|o| o.clone_ref(py))
    }

    #[setter]
    fn set_openers(&mut self, py: Python<'_>, openers: Option<PyObject>) -> PyResult<()> {
        let same = match (&self.openers, &openers) {
            (Some(a), Some(b)) => a.is(b),
            (None, None) => true,
            _ => false,
        };
        if same {
            return Ok(());
        }
        self.literals = match &openers {
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
        self.openers = openers;
        Ok(())
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        for object in [
            &self.sink,
            &self.other,
            &self.unprintable,
            &self.more,
            &self.openers,
        ]
        .into_iter()
        .flatten()
        {
            visit.call(object)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.sink = None;
        self.other = None;
    }
}
