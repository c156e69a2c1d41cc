//! `_native.TextScanner`: the text scanner's core ([`crate::text`]) behind
//! the Python interface of `toolparse.engine.text.TextScanner`.
//!
//! A thin binding for the differential test (`tests/test_native_text.py`): a
//! native scanner is made from a reference scanner, as it stands (its
//! lexicons, reasoning markers and state), and then answers the same calls;
//! the native engine is to call the core directly.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyString, PyTuple};

use crate::lexicon::{Lexicon, Name};
use crate::pylexicon::{name_of, new_hit, new_str, PyContext, PyLexicon};
use crate::text::{Found, Lexicons, ScanHit, Source, State, TextScanner};

/// The reference's own keys for what is not a terminal of a lexicon.
struct Markers {
    reasoning_open: PyObject,
    reasoning_close: PyObject,
    markup: PyObject,
    answer: PyObject,
}

static MARKERS: GILOnceCell<Markers> = GILOnceCell::new();

fn markers(py: Python<'_>) -> PyResult<&Markers> {
    MARKERS.get_or_try_init(py, || {
        let text = py.import("toolparse.engine.text")?;
        Ok(Markers {
            reasoning_open: text.getattr("REASONING_OPEN")?.unbind(),
            reasoning_close: text.getattr("REASONING_CLOSE")?.unbind(),
            markup: text.getattr("MARKUP")?.unbind(),
            answer: text.getattr("ANSWER")?.unbind(),
        })
    })
}

/// The native lexicon of a reference lexicon (the same terminals).
fn twin(lexicon: &Bound<'_, PyAny>) -> PyResult<PyLexicon> {
    PyLexicon::new(lexicon.py(), &lexicon.getattr("terms")?)
}

fn code_points(s: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u32>>> {
    if s.is_none() {
        return Ok(None);
    }
    Ok(Some(name_of(s.downcast::<PyString>()?).code_points()))
}

/// Finds openers in the visible text (`toolparse.engine.text.TextScanner`).
#[pyclass(module = "toolparse._native", name = "TextScanner")]
pub struct PyTextScanner {
    core: TextScanner,
    ctx: PyObject,
    openers: PyLexicon,
    code: Option<PyLexicon>,
    answer: Vec<PyLexicon>,
}

impl PyTextScanner {
    fn lexicon(&self, source: Source) -> Option<&PyLexicon> {
        match source {
            Source::Openers => Some(&self.openers),
            Source::Code => self.code.as_ref(),
            Source::Answer(k) => self.answer.get(k),
        }
    }

    fn hit<T: crate::lexicon::Unit>(
        &self,
        py: Python<'_>,
        text: &[T],
        hit: ScanHit,
    ) -> PyResult<PyObject> {
        let m = markers(py)?;
        let key = match hit.found {
            Found::Terminal(source, key) => match self.lexicon(source) {
                Some(lexicon) => lexicon.key(py, key)?,
                None => return Err(PyValueError::new_err("a hit of no lexicon")),
            },
            Found::ReasoningOpen => m.reasoning_open.clone_ref(py),
            Found::ReasoningClose => m.reasoning_close.clone_ref(py),
            Found::Markup => m.markup.clone_ref(py),
            Found::Answer => m.answer.clone_ref(py),
        };
        let name = new_str(py, T::name(&text[hit.name.0..hit.name.1]))?;
        new_hit(py, hit.start, hit.end, key, name)
    }
}

#[pymethods]
impl PyTextScanner {
    /// The native scanner of the reference scanner `scanner`, where it stands.
    #[new]
    fn new(scanner: &Bound<'_, PyAny>) -> PyResult<Self> {
        let openers_obj = scanner.getattr("_openers")?;
        let openers = twin(&openers_obj)?;
        let code_obj = scanner.getattr("_code_openers")?;
        let code = if code_obj.is_none() {
            None
        } else {
            Some(twin(&code_obj)?)
        };
        let mut answer = Vec::new();
        let mut answer_cores: Vec<(Lexicon, bool)> = Vec::new();
        for lexicon in scanner.getattr("_answer_openers")?.try_iter()? {
            let lexicon = lexicon?;
            let native = twin(&lexicon)?;
            answer_cores.push((native.core().clone(), lexicon.is(&openers_obj)));
            answer.push(native);
        }
        // (no reasoning: the slot is never set)
        let inside = match scanner.getattr("_reasoning_lexicons") {
            Ok(pair) => Some(
                twin(&pair.downcast::<PyTuple>()?.get_item(1)?)?
                    .core()
                    .clone(),
            ),
            Err(_) => None,
        };
        let state = State::from_number(scanner.getattr("_state")?.extract()?)
            .ok_or_else(|| PyValueError::new_err("not a scanner's state"))?;
        let fence: String = scanner.getattr("_fence")?.extract()?;
        let markup = scanner
            .getattr("_markup")?
            .try_iter()?
            .map(|m| Ok(name_of(m?.downcast::<PyString>()?).code_points()))
            .collect::<PyResult<Vec<_>>>()?;
        let core = TextScanner {
            lexicons: Lexicons {
                openers: std::sync::Arc::new(openers.core().clone()),
                code: code.as_ref().map(|c| std::sync::Arc::new(c.core().clone())),
                answer: answer_cores
                    .into_iter()
                    .map(|(l, same)| (std::sync::Arc::new(l), same))
                    .collect(),
                inside: inside.map(std::sync::Arc::new),
            },
            state,
            fence: fence.chars().next().map(u32::from),
            fence_len: scanner.getattr("_fence_len")?.extract()?,
            r_open: code_points(&scanner.getattr("_r_open")?)?,
            r_close: code_points(&scanner.getattr("_r_close")?)?,
            markup,
            answer: scanner.getattr("_answer")?.is_truthy()?,
            prelude: scanner.getattr("_prelude")?.is_truthy()?,
            absorb: scanner.getattr("_absorb")?.is_truthy()?,
            newline: None,
            ended: None,
        };
        Ok(PyTextScanner {
            core,
            ctx: scanner.getattr("_ctx")?.unbind(),
            openers,
            code,
            answer,
        })
    }

    /// Read `text[i:]`: `text[i:stop]` is text, and at `stop` begins the
    /// returned opener, or (with no opener) what must wait for more text.
    fn scan(
        &mut self,
        py: Python<'_>,
        text: &Bound<'_, PyString>,
        i: usize,
        r#final: bool,
    ) -> PyResult<(usize, PyObject)> {
        let ctx = self.ctx.clone_ref(py).into_bound(py);
        let context = PyContext::new(&ctx);
        self.core.forget_text(); // (a new str each call)
        crate::with_units!(text, units => {
            let (at, hit) = self.core.scan(units, i, r#final, &context);
            context.check()?;
            let hit = match hit {
                Some(hit) => self.hit(py, units, hit)?,
                None => py.None(),
            };
            Ok((at, hit))
        })
    }

    fn starts_ordinary_line(&mut self, delta: &Bound<'_, PyAny>) -> bool {
        let first = delta
            .downcast::<PyString>()
            .ok()
            .and_then(|s| match name_of(s) {
                Name::U8(u) => u.first().map(|&c| u32::from(c)),
                Name::U16(u) => u.first().map(|&c| u32::from(c)),
                Name::U32(u) => u.first().copied(),
            });
        self.core.starts_ordinary_line(first)
    }

    fn after_block(&mut self, last: &Bound<'_, PyAny>) -> PyResult<()> {
        self.core.after_block(last.eq("\n")?);
        Ok(())
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

    #[getter]
    fn in_reasoning(&self) -> bool {
        self.core.in_reasoning()
    }

    #[getter]
    fn at_line_start(&self) -> bool {
        self.core.at_line_start()
    }

    /// Where it stands, as the reference's slots say it: (`_state`, `_fence`,
    /// `_fence_len`, `_prelude`, `_absorb`, `_answer`).
    #[getter]
    fn standing(&self, py: Python<'_>) -> PyResult<(i64, PyObject, usize, bool, bool, bool)> {
        let c = &self.core;
        let fence = match c.fence {
            Some(f) => new_str(py, Name::U32(&[f]))?.into_any().unbind(),
            None => PyString::new(py, "").into_any().unbind(),
        };
        Ok((
            c.state as i64,
            fence,
            c.fence_len,
            c.prelude,
            c.absorb,
            c.answer,
        ))
    }
}
