//! `_native.TextScanner`: the text scanner's core ([`crate::text`]) behind
//! the Python interface of `toolparse.engine.text.TextScanner`.
//!
//! Built from a reference `TextScanner`, whose constructor works out the
//! tables once (the openers for the tools declared, the reasoning markers,
//! and the errors of a bad combination): the native one reads them and its
//! starting state from it. For comparing the core with the reference from
//! Python (`tests/test_native_text.py`); the native engine will hold the core.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use crate::lexicon::{Lexicon, Name};
use crate::pylexicon::{name_of, new_str, PyContext, PyLexicon};
use crate::text::{Found, ScanHit, ScannerTables, Source, State, TextScanner};

fn lexicon_of(py: Python<'_>, lexicon: &Bound<'_, PyAny>) -> PyResult<PyLexicon> {
    PyLexicon::new(py, &lexicon.getattr("terms")?)
}

fn optional_lexicon(py: Python<'_>, lexicon: &Bound<'_, PyAny>) -> PyResult<Option<PyLexicon>> {
    if lexicon.is_none() {
        Ok(None)
    } else {
        lexicon_of(py, lexicon).map(Some)
    }
}

fn optional_points(text: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u32>>> {
    if text.is_none() {
        return Ok(None);
    }
    Ok(Some(name_of(text.downcast::<PyString>()?).code_points()))
}

/// The text scanner (`toolparse.engine.text.TextScanner`).
#[pyclass(module = "toolparse._native", name = "TextScanner")]
pub struct PyTextScanner {
    core: TextScanner,
    openers: PyLexicon,
    code_openers: Option<PyLexicon>,
    answer_openers: Vec<PyLexicon>,
    ctx: PyObject,
    /// `REASONING_OPEN`, `REASONING_CLOSE`, `MARKUP`, `ANSWER` of `toolparse.engine.text`.
    terms: [PyObject; 4],
    hit_class: PyObject,
}

#[pymethods]
impl PyTextScanner {
    #[new]
    fn new(py: Python<'_>, scanner: &Bound<'_, PyAny>) -> PyResult<Self> {
        let openers_object = scanner.getattr("_openers")?;
        let openers = lexicon_of(py, &openers_object)?;
        let code_openers = optional_lexicon(py, &scanner.getattr("_code_openers")?)?;
        let mut answer_openers = Vec::new();
        let mut answer_tables = Vec::new();
        for lexicon in scanner.getattr("_answer_openers")?.try_iter()? {
            let lexicon = lexicon?;
            let read = lexicon_of(py, &lexicon)?;
            answer_tables.push((read.core.clone(), lexicon.is(&openers_object)));
            answer_openers.push(read);
        }
        let inside = match scanner.getattr("_reasoning_lexicons") {
            Ok(pair) => Some(lexicon_of(py, &pair.get_item(1)?)?.core),
            Err(_) => None, // (no reasoning: the slot is never set)
        };
        let markup = scanner
            .getattr("_markup")?
            .try_iter()?
            .map(|m| Ok(name_of(m?.downcast::<PyString>()?).code_points()))
            .collect::<PyResult<Vec<_>>>()?;
        let fence: String = scanner.getattr("_fence")?.extract()?;
        let state: u8 = scanner.getattr("_state")?.extract()?;
        let tables = ScannerTables {
            openers: openers.core.clone(),
            code_openers: code_openers.as_ref().map(|l| l.core.clone()),
            answer_openers: answer_tables,
            r_open: optional_points(&scanner.getattr("_r_open")?)?,
            r_close: optional_points(&scanner.getattr("_r_close")?)?,
            markup,
            inside,
        };
        let text = py.import("toolparse.engine.text")?;
        let terms = [
            text.getattr("REASONING_OPEN")?.unbind(),
            text.getattr("REASONING_CLOSE")?.unbind(),
            text.getattr("MARKUP")?.unbind(),
            text.getattr("ANSWER")?.unbind(),
        ];
        Ok(PyTextScanner {
            core: TextScanner {
                tables,
                state: State::from_number(state)
                    .ok_or_else(|| PyValueError::new_err("not a scanner state"))?,
                fence: fence.chars().next().map_or(0, u32::from),
                fence_len: scanner.getattr("_fence_len")?.extract()?,
                prelude: scanner.getattr("_prelude")?.extract()?,
                absorb: scanner.getattr("_absorb")?.extract()?,
                answer: scanner.getattr("_answer")?.extract()?,
            },
            openers,
            code_openers,
            answer_openers,
            ctx: scanner.getattr("_ctx")?.unbind(),
            terms,
            hit_class: py
                .import("toolparse.engine.lexicon")?
                .getattr("Hit")?
                .unbind(),
        })
    }

    /// `(state, fence, fence length, prelude, absorb, answer)`, as the
    /// reference's slots hold them (for the differential test).
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let c = &self.core;
        let fence = if c.fence == 0 {
            String::new()
        } else {
            char::from_u32(c.fence)
                .map(String::from)
                .unwrap_or_default()
        };
        (
            c.state.number(),
            fence,
            c.fence_len,
            c.prelude,
            c.absorb,
            c.answer,
        )
            .into_pyobject(py)
    }

    #[getter]
    fn in_reasoning(&self) -> bool {
        self.core.in_reasoning()
    }

    #[getter]
    fn at_line_start(&self) -> bool {
        self.core.at_line_start()
    }

    /// The reasoning lane's stop (None: every delta needs a look).
    #[getter]
    fn reasoning_stop(&self) -> Option<String> {
        self.core
            .reasoning_stop()
            .and_then(char::from_u32)
            .map(String::from)
    }

    /// The text lane's stops, sorted (None: every delta needs a look).
    #[getter]
    fn text_stop_chars(&self) -> Option<String> {
        self.core.text_stops().map(|lexicon| {
            lexicon
                .and_then(Lexicon::firsts)
                .unwrap_or(&[])
                .iter()
                .filter_map(|&c| char::from_u32(c))
                .collect()
        })
    }

    /// The terminals of `plain_openers` (None where it is None).
    #[getter]
    fn plain_openers_literals(&self, py: Python<'_>) -> PyResult<Option<Vec<Py<PyString>>>> {
        let Some(lexicon) = self.core.plain_openers() else {
            return Ok(None);
        };
        let literals = lexicon
            .literals()
            .iter()
            .map(|l| new_str(py, Name::U32(l)).map(Bound::unbind))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Some(literals))
    }

    fn starts_ordinary_line(&mut self, delta: &Bound<'_, PyAny>) -> PyResult<bool> {
        let first = match delta.downcast::<PyString>() {
            Ok(s) => name_of(s).code_points().first().copied(),
            Err(_) => None,
        };
        Ok(self.core.starts_ordinary_line(first))
    }

    fn after_block(&mut self, last: &Bound<'_, PyString>) {
        self.core
            .after_block(name_of(last).code_points().first().copied());
    }

    fn answer_begins_again(&mut self) {
        self.core.answer_begins_again();
    }

    fn enter_reasoning(&mut self) {
        self.core.enter_reasoning();
    }

    fn leave_reasoning(&mut self) {
        self.core.leave_reasoning();
    }

    /// Read `text[i:]`: `(stop, opener or None)` as the reference's `scan`.
    fn scan(
        &mut self,
        py: Python<'_>,
        text: &Bound<'_, PyString>,
        i: usize,
        r#final: bool,
    ) -> PyResult<(usize, PyObject)> {
        let ctx = self.ctx.bind(py).clone();
        let context = PyContext::new(&ctx);
        let core = &mut self.core;
        let found: (usize, Option<ScanHit>) =
            unsafe { with_units!(text.as_ptr(), units => core.scan(units, i, r#final, &context)) };
        context.check()?;
        let (at, hit) = found;
        let Some(hit) = hit else {
            return Ok((at, py.None()));
        };
        let special = |k: usize| -> PyResult<PyObject> {
            let items = (hit.start, hit.end, self.terms[k].clone_ref(py), "");
            Ok(self.hit_class.bind(py).call1(items)?.unbind())
        };
        let made = match hit.found {
            Found::ReasoningOpen => special(0)?,
            Found::ReasoningClose => special(1)?,
            Found::Markup => special(2)?,
            Found::Answer => special(3)?,
            Found::Term(source, key) => {
                let lexicon = match source {
                    Source::Openers => &self.openers,
                    Source::Code => self
                        .code_openers
                        .as_ref()
                        .expect("a hit of the code openers"),
                    Source::Answer(k) => &self.answer_openers[k],
                };
                let found = crate::lexicon::Hit {
                    start: hit.start,
                    end: hit.end,
                    key,
                    name: hit.name,
                };
                unsafe { with_units!(text.as_ptr(), units => lexicon.hit(py, units, found))? }
            }
        };
        Ok((at, made))
    }

    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        visit.call(&self.ctx)?;
        Ok(())
    }
}
