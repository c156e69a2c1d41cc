//! The Python events of one feed or close: where the engine's events go in
//! the binding.
//!
//! The engine says what each event holds and where its text is (a
//! [`Text`]); [`Out`] builds the `toolparse.events` object and keeps the
//! feed's list. It also keeps the two rules of the event list that the
//! reference applies after a read: a run of adjacent reasoning is one
//! `ReasoningDelta` (`_joined_reasoning`), and with `collapse` (a forced
//! answer given whole) no `ToolCallStart` or `ToolCallDelta` comes out
//! (`_collapsed`). Kept as the events come, so that no one reads the list
//! back.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use crate::calls_py::py_of;
use crate::ctx::{PyCall, PyHost};
use crate::events;
use crate::lexicon::Name;
use crate::pylexicon::new_str;
use toolparse_core::host::{Outcome, Sink};
use toolparse_core::sink::Text;

/// The events so far: most feeds give one event, or none, and a list of one
/// is made whole (`events::alone`), not grown.
enum Events<'py> {
    None,
    One(PyObject),
    Many(Bound<'py, PyList>),
}

/// The events of one feed or close (see the module docs).
pub struct Out<'py> {
    pub py: Python<'py>,
    /// The delta being fed ([`Text::Input`]), if any.
    delta: Option<Bound<'py, PyString>>,
    events: Events<'py>,
    collapse: bool,
    /// A run of reasoning not written yet: its text and raw text, joined
    /// (boxed: most feeds have none, and the sink is made for every one).
    reasoning: Option<Box<(Vec<u32>, Vec<u32>)>>,
}

impl<'py> Out<'py> {
    /// No events yet, of a feed of `delta` (None: of a close, or of text
    /// that is no delta).
    #[inline(always)] // (the lanes' path: see Engine::feed)
    pub fn new(py: Python<'py>, delta: Option<Bound<'py, PyString>>, collapse: bool) -> Self {
        Out {
            py,
            delta,
            events: Events::None,
            collapse,
            reasoning: None,
        }
    }

    /// The `str` of `text`.
    pub fn string(&self, text: Text<'_>) -> PyResult<Bound<'py, PyString>> {
        let py = self.py;
        match text {
            Text::Input => self.input().cloned(),
            Text::InputTo(end) => substring(py, self.input()?, end),
            Text::Points(points) => new_str(py, Name::U32(points)),
            Text::Latin1(bytes) => new_str(py, Name::U8(bytes)),
            Text::Joined(first, rest) => joined_latin1(py, first, rest),
            Text::Str(text) => Ok(PyString::new(py, text)),
            Text::Wide(bytes) => py_of(py, bytes),
        }
    }

    fn input(&self) -> PyResult<&Bound<'py, PyString>> {
        self.delta
            .as_ref()
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("no delta to give on"))
    }

    /// Write the run of reasoning kept, if any.
    fn flush(&mut self) -> PyResult<()> {
        if let Some(run) = self.reasoning.take() {
            let (text, raw) = *run;
            let raw = new_str(self.py, Name::U32(&raw))?;
            let text = if text.len() == raw.len()? {
                raw.clone() // (the same characters: reasoning with no markup)
            } else {
                new_str(self.py, Name::U32(&text))?
            };
            let event = events::reasoning_event(self.py, &text, &raw)?;
            self.add(event)?;
        }
        Ok(())
    }

    #[inline(always)] // (the text lane's path: one stretch of code, see Engine::feed)
    fn add(&mut self, event: PyObject) -> PyResult<()> {
        match std::mem::replace(&mut self.events, Events::None) {
            Events::None => self.events = Events::One(event),
            Events::One(first) => {
                let list = PyList::new(self.py, [first, event])?;
                self.events = Events::Many(list);
            }
            Events::Many(list) => {
                list.append(event)?;
                self.events = Events::Many(list);
            }
        }
        Ok(())
    }

    /// An event built by the caller.
    #[inline(always)] // (the text lane's path: one stretch of code, see Engine::feed)
    pub fn push(&mut self, event: PyObject) -> PyResult<()> {
        if self.reasoning.is_some() {
            self.flush()?;
        }
        self.add(event)
    }

    /// A `TextDelta`.
    #[inline(always)] // (the text lane's path: one stretch of code, see Engine::feed)
    pub fn text(&mut self, text: Text<'_>) -> PyResult<()> {
        let event = match (text, &self.delta) {
            // (the fed str itself: no reference taken for a moment)
            (Text::Input, Some(delta)) => events::text_event(self.py, delta.as_any())?,
            _ => events::text_event(self.py, self.string(text)?.as_any())?,
        };
        self.push(event)
    }

    /// Reasoning (`text`, shown, and `raw`, as written: its markup too),
    /// joined to the reasoning just before it.
    pub fn reasoning(&mut self, text: &[u32], raw: &[u32]) -> PyResult<()> {
        let (t, r) = &mut **self.reasoning.get_or_insert_with(Default::default);
        t.extend_from_slice(text);
        r.extend_from_slice(raw);
        Ok(())
    }

    /// The delta fed, all reasoning (the reasoning lane): given on as it is
    /// when it is the feed's first event (`points`: its code points).
    pub fn reasoning_input(&mut self, points: impl FnOnce() -> Vec<u32>) -> PyResult<()> {
        if self.reasoning.is_none() && matches!(self.events, Events::None) {
            let delta = self.input()?;
            let event = events::reasoning_event(self.py, delta, delta)?;
            return self.add(event);
        }
        let points = points();
        self.reasoning(&points, &points)
    }

    /// A `ToolCallStart` (none with `collapse`).
    pub fn call_start(
        &mut self,
        index: &Bound<'py, PyAny>,
        id: &Bound<'py, PyAny>,
        name: &Bound<'py, PyAny>,
    ) -> PyResult<()> {
        if self.collapse {
            return Ok(());
        }
        self.push(events::call_start(self.py, index, id, name)?)
    }

    /// A `ToolCallDelta` (none with `collapse`).
    #[inline(always)] // (the string lane's path: see Engine::feed)
    pub fn call_delta(
        &mut self,
        index: &Bound<'py, PyAny>,
        id: &Bound<'py, PyAny>,
        piece: Text<'_>,
    ) -> PyResult<()> {
        if self.collapse {
            return Ok(());
        }
        let event = match (piece, &self.delta) {
            (Text::Input, Some(delta)) => {
                events::call_delta_event(self.py, index, id, delta.as_any())?
            }
            _ => events::call_delta_event(self.py, index, id, self.string(piece)?.as_any())?,
        };
        self.push(event)
    }

    /// Events made elsewhere (the shadow read's), in order.
    pub fn extend(&mut self, made: &Bound<'py, PyAny>) -> PyResult<()> {
        let (start, delta) = events::call_classes(self.py)?;
        for event in made.try_iter()? {
            let event = event?;
            if self.collapse
                && (event.is_instance(start.bind(self.py))?
                    || event.is_instance(delta.bind(self.py))?)
            {
                continue;
            }
            self.push(event.unbind())?;
        }
        Ok(())
    }

    /// The feed's list of events.
    #[inline(always)] // (the text lane's path: one stretch of code, see Engine::feed)
    pub fn finish(mut self) -> PyResult<Bound<'py, PyList>> {
        if self.reasoning.is_some() {
            self.flush()?;
        }
        match self.events {
            Events::None => Ok(PyList::empty(self.py)),
            Events::One(event) => events::alone(self.py, event),
            Events::Many(list) => Ok(list),
        }
    }
}

/// The string of `first` then `rest` (code points below 256).
pub fn joined_latin1<'py>(
    py: Python<'py>,
    first: u8,
    rest: &[u8],
) -> PyResult<Bound<'py, PyString>> {
    let n = rest.len() + 1;
    let widest = rest.iter().fold(first, |a, &b| a | b);
    let most = if widest < 0x80 { 0x7F } else { 0xFF };
    // SAFETY: the GIL is held (`py`). `PyUnicode_New(n, most)` returns a new
    // compact `str` of `n` code points stored a byte each (`most` below 256),
    // or NULL with an exception set (taken as an error). Its data, `n` bytes
    // (and a NUL), is written whole before anyone sees the string: `first`,
    // then the `n - 1` bytes of `rest`, a slice that cannot overlap a new
    // object. Every byte is at most `most` (their OR is), as a canonical
    // string must be: ASCII when `most` is 0x7F.
    unsafe {
        let obj = pyo3::ffi::PyUnicode_New(n as pyo3::ffi::Py_ssize_t, most);
        let text = Bound::from_owned_ptr_or_err(py, obj)?;
        let data = pyo3::ffi::PyUnicode_DATA(obj) as *mut u8;
        *data = first;
        std::ptr::copy_nonoverlapping(rest.as_ptr(), data.add(1), rest.len());
        Ok(text.downcast_into_unchecked())
    }
}

/// The first `end` code points of `text`, as a new string.
pub fn substring<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyString>,
    end: usize,
) -> PyResult<Bound<'py, PyString>> {
    // SAFETY: the GIL is held (`py`) and `text` is a live `str`;
    // `PyUnicode_Substring` checks its bounds and returns a new reference to
    // an exact `str` (or `text` itself when it is one and `end` is its
    // length: `downcast_into_unchecked` then only restates it is a `str`), or
    // NULL with an exception set.
    unsafe {
        let piece = pyo3::ffi::PyUnicode_Substring(text.as_ptr(), 0, end as pyo3::ffi::Py_ssize_t);
        Ok(Bound::from_owned_ptr_or_err(py, piece)?.downcast_into_unchecked())
    }
}

impl<'py> Sink<PyHost> for Out<'py> {
    #[inline(always)]
    fn text(&mut self, text: Text<'_>) -> PyResult<()> {
        Out::text(self, text)
    }

    fn reasoning(&mut self, text: &[u32], raw: &[u32]) -> PyResult<()> {
        Out::reasoning(self, text, raw)
    }

    fn reasoning_input(&mut self, points: impl FnOnce() -> Vec<u32>) -> PyResult<()> {
        Out::reasoning_input(self, points)
    }

    fn call_start(&mut self, call: &PyCall, name: &[u8]) -> PyResult<()> {
        if self.collapse {
            return Ok(());
        }
        let py = self.py;
        let name = py_of(py, name)?;
        Out::call_start(
            self,
            call.index_object(py),
            call.id_object(py),
            name.as_any(),
        )
    }

    #[inline(always)]
    fn call_delta(&mut self, call: &PyCall, piece: Text<'_>) -> PyResult<()> {
        let py = self.py;
        Out::call_delta(self, call.index_object(py), call.id_object(py), piece)
    }

    fn outcome(&mut self, outcome: Outcome<PyHost>, raw: Text<'_>, offset: i64) -> PyResult<()> {
        let raw = self.string(raw)?;
        let event = crate::ctx::outcome_event(self.py, &outcome, &raw, offset)?;
        self.push(event)
    }
}
