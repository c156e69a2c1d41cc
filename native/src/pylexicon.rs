//! `_native.Lexicon`: the lexicon's core ([`crate::lexicon`]) behind the
//! Python interface of `toolparse.engine.lexicon.Lexicon`.
//!
//! A thin binding: it reads the terminals (strings and the `declare.Term`
//! constants), hands texts to the core in place (`with_units!`), reads the
//! parser's context from any object with `TagContext`'s attributes, and
//! answers with the reference's own `Hit` named tuples, whose keys are the
//! very `Term` objects. It exists so that the core can be compared with the
//! reference from Python (`tests/test_native_lexicon.py`); the native engine
//! calls the core directly.

use std::cell::{Cell, OnceCell, RefCell};

use pyo3::exceptions::{PyAssertionError, PyIndexError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyFrozenSet, PyList, PySet, PyString, PyTuple, PyType};

use crate::lexicon::{
    Hit, Key, Lexicon, LexiconError, Name, Names, TagContext, TagTerm, Terminal, Unit,
};

/// The reference's names for the tag terms, in [`TagTerm`]'s order.
const TERM_NAMES: [&str; 10] = [
    "KEY_CLOSE_TAG",
    "CALL_CLOSE_TAG",
    "KEY_OPEN_TAG",
    "TOOL_TAG",
    "TOOL_EMPTY_TAG",
    "PROPERTY_TAG",
    "ANY_OPEN_TAG",
    "ANY_CLOSE_TAG",
    "ANY_EMPTY_TAG",
    "PROPERTY_NAME",
];

const TERMS: [TagTerm; 10] = [
    TagTerm::KeyClose,
    TagTerm::CallClose,
    TagTerm::KeyOpen,
    TagTerm::Tool,
    TagTerm::ToolEmpty,
    TagTerm::Property,
    TagTerm::AnyOpen,
    TagTerm::AnyClose,
    TagTerm::AnyEmpty,
    TagTerm::PropertyName,
];

/// What the binding takes from the reference, looked up once.
struct Reference {
    term_class: Py<PyType>,
    /// The `Term` constants, in [`TERMS`]' order.
    terms: Vec<PyObject>,
    hit: Py<PyType>,
    /// `lexicon._SHAPES` (for the message of a term that is not a tag term).
    shapes: PyObject,
}

static REFERENCE: GILOnceCell<Reference> = GILOnceCell::new();

fn reference(py: Python<'_>) -> PyResult<&Reference> {
    REFERENCE.get_or_try_init(py, || {
        let declare = py.import("toolparse.engine.declare")?;
        let lexicon = py.import("toolparse.engine.lexicon")?;
        let terms = TERM_NAMES
            .iter()
            .map(|name| declare.getattr(*name).map(Bound::unbind))
            .collect::<PyResult<_>>()?;
        Ok(Reference {
            term_class: declare.getattr("Term")?.downcast_into::<PyType>()?.unbind(),
            terms,
            // (a subclass of tuple, as `new_hit` needs it: checked)
            hit: {
                let hit = lexicon.getattr("Hit")?.downcast_into::<PyType>()?;
                if !hit.is_subclass_of::<PyTuple>()? {
                    return Err(PyTypeError::new_err("lexicon.Hit is not a tuple"));
                }
                hit.unbind()
            },
            shapes: lexicon.getattr("_SHAPES")?.unbind(),
        })
    })
}

/// A `str`'s code points, in place.
pub(crate) fn name_of<'a>(s: &'a Bound<'_, PyString>) -> Name<'a> {
    crate::units(s)
}

/// A new `str` of `name`'s code points.
pub(crate) fn new_str<'py>(py: Python<'py>, name: Name<'_>) -> PyResult<Bound<'py, PyString>> {
    let (kind, data, n) = match name {
        Name::U8(s) => (ffi::PyUnicode_1BYTE_KIND, s.as_ptr().cast(), s.len()),
        Name::U16(s) => (ffi::PyUnicode_2BYTE_KIND, s.as_ptr().cast(), s.len()),
        Name::U32(s) => (ffi::PyUnicode_4BYTE_KIND, s.as_ptr().cast(), s.len()),
    };
    // SAFETY: the GIL is held (`py`); `data` points at `n` code points of the
    // width `kind` names (a slice, alive for the call: CPython copies it and
    // checks each code point is below 0x110000). The result is a new reference
    // to an exact `str`, or NULL with an exception set, which
    // `from_owned_ptr_or_err` takes as such.
    unsafe {
        let obj = ffi::PyUnicode_FromKindAndData(kind as i32, data, n as ffi::Py_ssize_t);
        Bound::from_owned_ptr_or_err(py, obj).map(|o| o.downcast_into_unchecked())
    }
}

/// Names from a Python sequence of `str`s (a tuple, as the reference's contexts
/// give them; another sequence is made one). A name that is not a `str` is
/// remembered, and the call that read it raises as `bisect` would.
struct PyNames<'py> {
    tuple: Bound<'py, PyTuple>,
    bad: Cell<Option<usize>>,
}

impl Names for PyNames<'_> {
    fn count(&self) -> usize {
        self.tuple.len()
    }

    fn get(&self, i: usize) -> Name<'_> {
        // (a borrowed item: the tuple holds it; past the end, as a non-str)
        let item = match self.tuple.get_borrowed_item(i) {
            Ok(item) if item.is_instance_of::<PyString>() => item,
            _ => {
                self.bad.set(Some(i));
                return Name::U8(&[]);
            }
        };
        // SAFETY: `item` is a `str` (checked) and the GIL is held (the tuple's
        // token); the tuple, borrowed from `self` for the name's lifetime,
        // holds a reference to it all that time (a tuple's items never change).
        unsafe { crate::units_at(item.as_ptr()) }
    }
}

/// Any Python object with `TagContext`'s attributes, each read once per call
/// (when first asked). The first error is kept and raised when the call
/// returns; after it, nothing more is asked of the object.
pub(crate) struct PyContext<'a, 'py> {
    ctx: &'a Bound<'py, PyAny>,
    key: OnceCell<Option<Bound<'py, PyString>>>,
    call_name: OnceCell<Option<Bound<'py, PyString>>>,
    tool_names: OnceCell<Option<PyNames<'py>>>,
    property_names: OnceCell<Option<PyNames<'py>>>,
    error: RefCell<Option<PyErr>>,
}

impl<'a, 'py> PyContext<'a, 'py> {
    pub(crate) fn new(ctx: &'a Bound<'py, PyAny>) -> Self {
        PyContext {
            ctx,
            key: OnceCell::new(),
            call_name: OnceCell::new(),
            tool_names: OnceCell::new(),
            property_names: OnceCell::new(),
            error: RefCell::new(None),
        }
    }

    fn failed(&self) -> bool {
        self.error.borrow().is_some()
    }

    fn fail(&self, error: PyErr) {
        let mut kept = self.error.borrow_mut();
        if kept.is_none() {
            *kept = Some(error);
        }
    }

    fn string(&self, attribute: &str) -> Option<Bound<'py, PyString>> {
        if self.failed() {
            return None;
        }
        match self.ctx.getattr(attribute) {
            Ok(v) if v.is_none() => None,
            Ok(v) => match v.downcast_into::<PyString>() {
                Ok(s) => Some(s),
                Err(_) => {
                    self.fail(PyTypeError::new_err(format!(
                        "{attribute} must be a str or None"
                    )));
                    None
                }
            },
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }

    fn names(&self, attribute: &str) -> Option<PyNames<'py>> {
        if self.failed() {
            return None;
        }
        let tuple = self.ctx.getattr(attribute).and_then(|v| {
            if v.is_none() {
                return Ok(None);
            }
            let tuple = match v.downcast_into::<PyTuple>() {
                Ok(t) => t,
                Err(e) => {
                    let v = e.into_inner();
                    // SAFETY: the GIL is held (`v`'s token) and `v` is a live
                    // object; `PySequence_Tuple` (`tuple(v)`) returns a new
                    // reference or NULL with an exception set, which
                    // `from_owned_ptr_or_err` takes as such.
                    unsafe {
                        Bound::from_owned_ptr_or_err(v.py(), ffi::PySequence_Tuple(v.as_ptr()))?
                    }
                    .downcast_into::<PyTuple>()?
                }
            };
            Ok(Some(tuple))
        });
        match tuple {
            Ok(t) => t.map(|tuple| PyNames {
                tuple,
                bad: Cell::new(None),
            }),
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }

    /// The first error of the call, if any.
    pub(crate) fn check(self) -> PyResult<()> {
        if let Some(e) = self.error.into_inner() {
            return Err(e);
        }
        for names in [self.tool_names.get(), self.property_names.get()] {
            if let Some(Some(names)) = names {
                if let Some(i) = names.bad.get() {
                    let item = names.tuple.get_item(i)?;
                    return Err(PyTypeError::new_err(format!(
                        "'<' not supported between instances of '{}' and 'str'",
                        item.get_type().name()?
                    )));
                }
            }
        }
        Ok(())
    }
}

impl TagContext for PyContext<'_, '_> {
    fn key(&self) -> Option<Name<'_>> {
        self.key
            .get_or_init(|| self.string("key"))
            .as_ref()
            .map(name_of)
    }

    fn call_name(&self) -> Option<Name<'_>> {
        self.call_name
            .get_or_init(|| self.string("call_name"))
            .as_ref()
            .map(name_of)
    }

    fn tool_names(&self) -> Option<&dyn Names> {
        let names = self.tool_names.get_or_init(|| self.names("tool_names"));
        names.as_ref().map(|n| n as &dyn Names)
    }

    fn property_names(&self) -> Option<&dyn Names> {
        let names = self
            .property_names
            .get_or_init(|| self.names("property_names"));
        names.as_ref().map(|n| n as &dyn Names)
    }

    fn given(&self, name: Name<'_>) -> bool {
        if self.failed() {
            return false;
        }
        let py = self.ctx.py();
        let asked =
            new_str(py, name).and_then(|s| self.ctx.call_method1("given", (s,))?.is_truthy());
        asked.unwrap_or_else(|e| {
            self.fail(e);
            false
        })
    }
}

/// The terminals of one region (`toolparse.engine.lexicon.Lexicon`).
#[pyclass(frozen, module = "toolparse._native", name = "Lexicon")]
pub struct PyLexicon {
    core: Lexicon,
    /// The terminals, as given.
    #[pyo3(get)]
    terms: Py<PyTuple>,
    /// The literals as `str`s, in the core's order (the keys of literal hits).
    literal_strs: Vec<Py<PyString>>,
    #[pyo3(get)]
    literals: Py<PyFrozenSet>,
    /// The literals that begin a longer one (`_extended`).
    extended: Py<PyFrozenSet>,
    #[pyo3(get)]
    firsts: PyObject,
    #[pyo3(get)]
    after_lt: Py<PyTuple>,
    #[pyo3(get)]
    max_len: usize,
    literal_patterns: GILOnceCell<PyObject>,
}

/// `Hit(start, end, key, name)`, built as `tuple.__new__` builds it.
pub(crate) fn new_hit(
    py: Python<'_>,
    start: usize,
    end: usize,
    key: PyObject,
    name: Bound<'_, PyString>,
) -> PyResult<PyObject> {
    let refs = reference(py)?;
    let items = [
        start.into_pyobject(py)?.into_any().unbind(),
        end.into_pyobject(py)?.into_any().unbind(),
        key,
        name.into_any().unbind(),
    ];
    // SAFETY: the GIL is held (`py`). `Hit` is a subclass of `tuple` (checked
    // when looked up), alive while `REFERENCE` holds it: its allocator
    // returns a new reference to a zeroed instance with room for 4 items
    // (`ob_size` 4), or NULL with an exception set. Each of the 4 items is set
    // once, in bounds, while empty (NULL, so nothing leaks), stealing a new
    // reference to a live object, before anything could see the tuple (nothing
    // runs in between that could: the items were made beforehand). The tuple
    // is then owned by the returned `PyObject`.
    unsafe {
        let tp = refs.hit.as_ptr() as *mut ffi::PyTypeObject;
        let alloc = (*tp).tp_alloc.unwrap_or(ffi::PyType_GenericAlloc);
        let obj = alloc(tp, 4);
        if obj.is_null() {
            return Err(PyErr::fetch(py));
        }
        for (i, item) in items.into_iter().enumerate() {
            ffi::PyTuple_SET_ITEM(obj, i as ffi::Py_ssize_t, item.into_ptr()); // (steals)
        }
        Ok(PyObject::from_owned_ptr(py, obj))
    }
}

/// A frozenset of one-character `str`s.
fn char_set<'py>(py: Python<'py>, chars: &[u32]) -> PyResult<Bound<'py, PyFrozenSet>> {
    let strs = chars
        .iter()
        .map(|&c| new_str(py, Name::U32(std::slice::from_ref(&c))))
        .collect::<PyResult<Vec<_>>>()?;
    PyFrozenSet::new(py, &strs)
}

impl PyLexicon {
    /// The core's hit as the reference's `Hit`.
    pub(crate) fn hit<T: Unit>(&self, py: Python<'_>, text: &[T], hit: Hit) -> PyResult<PyObject> {
        let key = self.key(py, hit.key)?;
        let name = new_str(py, T::name(&text[hit.name.0..hit.name.1]))?;
        new_hit(py, hit.start, hit.end, key, name)
    }

    /// A hit's key: the literal's `str`, or the very `Term` constant.
    pub(crate) fn key(&self, py: Python<'_>, key: Key) -> PyResult<PyObject> {
        Ok(match key {
            Key::Literal(k) => self.literal_strs[k].clone_ref(py).into_any(),
            Key::Tag(term) => reference(py)?.terms[term as usize].clone_ref(py),
        })
    }

    /// The core.
    pub(crate) fn core(&self) -> &Lexicon {
        &self.core
    }

    fn answer<T: Unit>(&self, py: Python<'_>, text: &[T], hit: Option<Hit>) -> PyResult<PyObject> {
        match hit {
            Some(hit) => self.hit(py, text, hit),
            None => Ok(py.None()),
        }
    }
}

#[pymethods]
impl PyLexicon {
    #[new]
    pub(crate) fn new(py: Python<'_>, terminals: &Bound<'_, PyAny>) -> PyResult<Self> {
        let refs = reference(py)?;
        // SAFETY: the GIL is held (`py`) and `terminals` is a live object;
        // `PySequence_Tuple` (`tuple(terminals)`) returns a new reference or
        // NULL with an exception set, which `from_owned_ptr_or_err` takes as such.
        let terms =
            unsafe { Bound::from_owned_ptr_or_err(py, ffi::PySequence_Tuple(terminals.as_ptr()))? }
                .downcast_into::<PyTuple>()?;
        let mut literals: Vec<(Vec<u32>, Bound<'_, PyString>)> = Vec::new();
        let mut core_terms = Vec::new();
        let mut unknown = false;
        let term_class = refs.term_class.bind(py);
        for t in terms.iter() {
            if let Ok(s) = t.downcast::<PyString>() {
                let units = name_of(s).code_points();
                // (a str subclass is read as the str it holds, as a match would give it)
                let s = new_str(py, Name::U32(&units))?;
                core_terms.push(Terminal::Literal(units.clone()));
                literals.push((units, s));
            } else if t.is_instance(term_class)? {
                match refs.terms.iter().position(|c| c.as_ptr() == t.as_ptr()) {
                    Some(k) => core_terms.push(Terminal::Tag(TERMS[k])),
                    None => unknown = true,
                }
            }
        }
        if unknown {
            // (the reference's message, from the reference's own sets)
            let tags = PySet::empty(py)?;
            for t in terms.iter() {
                if t.is_instance(term_class)? {
                    tags.add(t)?;
                }
            }
            tags.discard(refs.terms[TagTerm::PropertyName as usize].bind(py))?;
            let shapes = PySet::new(
                py,
                refs.shapes
                    .bind(py)
                    .try_iter()?
                    .collect::<PyResult<Vec<_>>>()?,
            )?;
            let unknown = tags.call_method1("__sub__", (shapes,))?;
            return Err(PyValueError::new_err(format!(
                "not a tag term: {}",
                unknown.str()?
            )));
        }
        literals.sort_by(|a, b| a.0.cmp(&b.0));
        literals.dedup_by(|a, b| a.0 == b.0);
        let core = Lexicon::new(&core_terms).map_err(|e| match e {
            LexiconError::Empty => PyIndexError::new_err("string index out of range"),
            LexiconError::Inside { a, b } => {
                let repr = |k: usize| literals[k].1.repr().map(|r| r.to_string());
                match (repr(a), repr(b)) {
                    (Ok(a), Ok(b)) => PyValueError::new_err(format!(
                        "terminal {a} inside {b} would be found before {b} is complete"
                    )),
                    (Err(e), _) | (_, Err(e)) => e,
                }
            }
        })?;
        let literal_strs: Vec<Py<PyString>> =
            literals.into_iter().map(|(_, s)| s.unbind()).collect();
        let literal_set = PyFrozenSet::new(py, literal_strs.iter().map(|s| s.bind(py)))?;
        let extended = literal_strs
            .iter()
            .enumerate()
            .filter(|&(k, _)| core.extended(k))
            .map(|(_, s)| s.bind(py));
        let extended = PyFrozenSet::new(py, extended)?.unbind();
        let firsts = match core.firsts() {
            Some(chars) => char_set(py, chars)?.into_any().unbind(),
            None => py.None(),
        };
        let (listed, chars) = core.after_lt();
        let after_lt = PyTuple::new(
            py,
            [
                listed.into_pyobject(py)?.to_owned().into_any(),
                char_set(py, chars)?.into_any(),
            ],
        )?;
        Ok(PyLexicon {
            max_len: core.max_len(),
            core,
            terms: terms.unbind(),
            literal_strs,
            literals: literal_set.unbind(),
            extended,
            firsts,
            after_lt: after_lt.unbind(),
            literal_patterns: GILOnceCell::new(),
        })
    }

    /// Literals only: (the search of the longest literal, the search of a
    /// proper prefix of one reaching the end), the reference's regexes.
    #[getter]
    fn literal_patterns(&self, py: Python<'_>) -> PyResult<PyObject> {
        self.literal_patterns
            .get_or_try_init(py, || {
                if !self.core.literals_only() {
                    return Ok(py.None());
                }
                let markers = py.import("toolparse.readers.markers")?;
                let literals = PyList::new(py, self.literal_strs.iter().map(|s| s.bind(py)))?;
                let full = markers.getattr("full_pattern")?.call1((&literals,))?;
                let search = py.import("re")?.getattr("compile")?.call1((full,))?;
                let partial = markers
                    .getattr("trie_patterns")?
                    .call1((literals.to_tuple(),))?
                    .get_item(1)?;
                Ok(PyTuple::new(py, [search, partial])?.into_any().unbind())
            })
            .map(|p| p.clone_ref(py))
    }

    /// The first terminal at or after `start` (and ending by `end`).
    #[pyo3(signature = (text, start, ctx, end=None))]
    fn find(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyString>,
        start: usize,
        ctx: &Bound<'_, PyAny>,
        end: Option<usize>,
    ) -> PyResult<PyObject> {
        let context = PyContext::new(ctx);
        with_units!(text, units => {
            let hit = self.core.find(units, start, &context, end);
            context.check()?;
            self.answer(py, units, hit)
        })
    }

    /// True when the terminal `found` at `start` may still be the beginning
    /// of a longer one.
    fn undecided(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyString>,
        start: usize,
        found: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        // (`found not in self._extended`: the question most calls end at)
        if !self.extended.bind(py).contains(found)? {
            return Ok(false);
        }
        let Ok(found) = found.downcast::<PyString>() else {
            return Ok(false);
        };
        let Some(k) = self.core.literal_index_of(name_of(found)) else {
            return Ok(false);
        };
        Ok(with_units!(text, units => self.core.undecided(units, start, Key::Literal(k))))
    }

    /// Every character a terminal of the visible text may begin with.
    fn first_chars(&self, py: Python<'_>) -> PyResult<PyObject> {
        if self.firsts.is_none(py) {
            return Err(PyAssertionError::new_err(()));
        }
        Ok(self.firsts.clone_ref(py))
    }

    /// The terminal that begins exactly at `pos`.
    fn match_at(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyString>,
        pos: usize,
        ctx: &Bound<'_, PyAny>,
    ) -> PyResult<PyObject> {
        let context = PyContext::new(ctx);
        with_units!(text, units => {
            let hit = self.core.match_at(units, pos, &context);
            context.check()?;
            self.answer(py, units, hit)
        })
    }

    /// Where the longest suffix of `text[start:]` begins that could still grow
    /// into a terminal (`len(text)` when none could).
    fn partial_start(
        &self,
        text: &Bound<'_, PyString>,
        start: usize,
        ctx: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let context = PyContext::new(ctx);
        let at = with_units!(text, units => self.core.partial_start(units, start, &context));
        context.check()?;
        Ok(at)
    }

    /// True when `text[pos:]` (reaching its end) could still grow into a
    /// terminal, or into a longer one than matches there now.
    fn prefix_at(
        &self,
        text: &Bound<'_, PyString>,
        pos: usize,
        ctx: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let context = PyContext::new(ctx);
        let grows = with_units!(text, units => self.core.prefix_at(units, pos, &context));
        context.check()?;
        Ok(grows)
    }
}
