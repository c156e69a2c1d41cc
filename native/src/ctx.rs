//! The Python host of the engine ([`PyHost`]): what only Python knows of a
//! stream's calls (`toolparse.engine.calls.CallContext`: ids from a seed or
//! a caller's factory, the next index, pydantic checks, the literals the
//! core's reader declines), and the Python side of the stream's call context.
//!
//! The Python `CallContext` stays the one record of the stream's tools, ids
//! and indices (a shadow read of unclosed reasoning, or a caller, may use
//! it too). What the engine reads of it often is the core's
//! [`Context`] (the tools' names, schemas and property names, and the
//! calls' services), read once per set of tools and shared by every parser
//! of them.

use std::sync::Arc as Rc;

use pyo3::exceptions::{PyAssertionError, PyKeyError, PyRuntimeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::calls_py::{push_wide, py_of, refs, wide_of};
use crate::engine::{start_error, Engine, Options, Start};
use crate::events;
use crate::fastvalue::{self, Path};
use crate::kept::Kept;
use crate::pysink::Out;
use crate::rt::{compiled_of, GrammarRt};
use toolparse_core::coercion::oracle::RustError;
use toolparse_core::coercion::Value;
use toolparse_core::context::{self, Context};
use toolparse_core::host::{Bug, BugKind, Host, Outcome};
use toolparse_core::rust_calls::{self, RustTool, RustTools};
use toolparse_core::start_scanner::{start_scanner, ReasoningOption};

/// Schemas kept at most, by the identity of the Python dict.
const MAX_SCHEMAS: usize = 4096;

/// A declared tool.
pub struct Tool {
    pub obj: PyObject,
    /// It is defined by a pydantic model (its calls are validated).
    pub model: bool,
}

/// The declared tools: their Python objects, and the core's reading of them.
pub struct Tools {
    /// By name (generalized UTF-8).
    /// (declared names: keys the model cannot choose, see `fxhash`)
    pub by_name: crate::fxhash::FxHashMap<Vec<u8>, Tool>,
    /// Their names, schemas and property names, as the core reads them.
    pub core: Rc<context::Tools>,
}

/// Each tool's parameters schema as a core value, by the identity of the
/// Python dict: converted once, whatever the parsers made with it.
static SCHEMAS: Kept<Option<Value>> = Kept::new(MAX_SCHEMAS);

/// The core value of the schema `schema` (kept: see [`SCHEMAS`]).
fn schema_value(schema: &Bound<'_, PyAny>) -> PyResult<Value> {
    SCHEMAS.get_or_work(schema, || crate::pycoerce::to_core(schema))
}

/// The declared tools of a `CallContext`, `obj`, whose `tools` are `tools`:
/// kept by the identity of the first `Tool` (`normalize_tools` gives the same
/// `Tool`s to every request that brings equal tools), so that every parser of
/// them shares what their schemas give (members' plans, the typers' plans).
fn tools_of(tools: &Bound<'_, PyDict>, obj: &Bound<'_, PyAny>) -> PyResult<Rc<Tools>> {
    static TOOLS: Kept<Option<Rc<Tools>>> = Kept::new(MAX_SCHEMAS);
    let same = |kept: &Tools| {
        kept.by_name.len() == tools.len()
            && tools.iter().all(|(name, tool)| {
                name.downcast::<PyString>().is_ok_and(|name| {
                    kept.by_name
                        .get(&wide_of(name))
                        .is_some_and(|known| known.obj.is(&tool))
                })
            })
    };
    let first = tools.values().get_item(0).ok();
    if let Some(first) = &first {
        if let Some(kept) = TOOLS.read(first, |kept| kept.clone()) {
            if same(&kept) {
                return Ok(kept);
            }
        }
    }
    let made = Rc::new(read_tools(tools, obj)?);
    if let Some(first) = &first {
        TOOLS.write(first, |kept| match kept {
            Some(_) => 0,
            None => {
                *kept = Some(made.clone());
                1
            }
        });
    }
    Ok(made)
}

/// [`tools_of`], read.
fn read_tools(tools: &Bound<'_, PyDict>, obj: &Bound<'_, PyAny>) -> PyResult<Tools> {
    let py = obj.py();
    let mut by_name = crate::fxhash::FxHashMap::default();
    let mut core = Vec::new();
    for (name, tool) in tools.iter() {
        let parameters = schema_value(&tool.getattr(intern!(py, "parameters"))?)?;
        let model = !tool.getattr(intern!(py, "model"))?.is_none();
        let name = name.downcast::<PyString>()?;
        core.push(RustTool {
            name: name.to_str()?.to_owned(),
            description: String::new(),
            parameters,
        });
        by_name.insert(
            wide_of(name),
            Tool {
                obj: tool.unbind(),
                model,
            },
        );
    }
    Ok(Tools {
        by_name,
        core: Rc::new(context::Tools::new(Rc::new(RustTools::of(core)))),
    })
}

/// A core call service's error, as Python's.
pub fn py_error(err: RustError) -> PyErr {
    match err {
        RustError::Index(what) => pyo3::exceptions::PyIndexError::new_err(what),
        RustError::Key(key) => Python::with_gil(|py| match py_of(py, &key) {
            Ok(key) => PyKeyError::new_err(key.unbind()),
            Err(err) => err,
        }),
        RustError::Value(message) => PyValueError::new_err(message),
    }
}

/// Where calls' ids come from.
enum IdSource {
    /// `CallContext`'s default (`_random_ids`): random ids made here, from a
    /// keyed SipHash of a counter (std's `RandomState` keys come from the
    /// operating system's randomness): unpredictable, unique, no Python call.
    Native {
        keys: std::collections::hash_map::RandomState,
        counter: u64,
    },
    /// A seed or an `id_factory`: the Python context makes them.
    Python,
}

/// A started call, as its events name it: its index and id (the Python
/// objects, made once and given to each of its events).
#[derive(Clone)]
pub struct PyCall(Rc<(PyObject, PyObject)>);

impl PyCall {
    pub fn index_object<'py>(&self, py: Python<'py>) -> &Bound<'py, PyAny> {
        self.0 .0.bind(py)
    }

    pub fn id_object<'py>(&self, py: Python<'py>) -> &Bound<'py, PyAny> {
        self.0 .1.bind(py)
    }

    /// Its Python objects (for the garbage collector).
    pub fn objects(&self) -> [&PyObject; 2] {
        [&self.0 .0, &self.0 .1]
    }
}

/// The engine's Python host (see the module docs).
pub struct PyHost {
    ids: IdSource,
    /// The Python `CallContext`.
    pub obj: PyObject,
    /// The declared tools (shared by the parsers of the same tools).
    pub tools: Option<Rc<Tools>>,
    /// The stream's `max_depth` (Python's literal reader is told it).
    max_depth: usize,
    /// What the kept reasoning let go, read (`_thought_reader`: a `ThoughtReader`).
    thought_reader: Option<PyObject>,
    /// The exception the parser is latched with.
    pub broken: Option<PyObject>,
    /// (tests) a bug planted at a named place: the exception it raises there
    /// (see `Core._plant`).
    pub planted: Option<(String, PyObject)>,
}

impl PyHost {
    /// The host of the Python `CallContext` `obj`, and the context the engine
    /// reads of it.
    pub fn new(obj: &Bound<'_, PyAny>) -> PyResult<(PyHost, Context)> {
        let py = obj.py();
        let tools = obj.getattr(intern!(py, "tools"))?;
        let tools = if tools.is_none() {
            None
        } else {
            Some(tools_of(tools.downcast::<PyDict>()?, obj)?)
        };
        let factory = obj.getattr(intern!(py, "_id_factory"))?;
        // (the default factory, looked up once: a parser is built per request)
        static RANDOM_IDS: pyo3::sync::GILOnceCell<PyObject> = pyo3::sync::GILOnceCell::new();
        let default = RANDOM_IDS.get_or_try_init(py, || {
            py.import("toolparse.engine.calls")?
                .getattr("_random_ids")
                .map(Bound::unbind)
        })?;
        let ids = if factory.is(default) {
            IdSource::Native {
                keys: std::collections::hash_map::RandomState::new(),
                counter: 0,
            }
        } else {
            IdSource::Python
        };
        let coerce = obj.getattr(intern!(py, "coerce"))?.is_truthy()?;
        let max_depth = obj.getattr(intern!(py, "max_depth"))?.extract()?;
        let context = Context::new(tools.as_ref().map(|t| t.core.clone()), max_depth, coerce)
            .map_err(py_error)?;
        let host = PyHost {
            ids,
            obj: obj.clone().unbind(),
            tools,
            max_depth,
            thought_reader: None,
            broken: None,
            planted: None,
        };
        Ok((host, context))
    }

    /// The host of a parser made from a prototype (`Engine::fresh_like`):
    /// this one's tools, the Python context `obj` (the prototype's, copied:
    /// `CallContext.fresh`), and ids of its own.
    pub fn fresh(&self, obj: &Bound<'_, PyAny>) -> PyHost {
        PyHost {
            ids: match self.ids {
                IdSource::Native { .. } => IdSource::Native {
                    keys: std::collections::hash_map::RandomState::new(),
                    counter: 0,
                },
                IdSource::Python => IdSource::Python,
            },
            obj: obj.clone().unbind(),
            tools: self.tools.clone(),
            max_depth: self.max_depth,
            thought_reader: None,
            broken: None,
            planted: None,
        }
    }

    /// A declared tool of this name.
    pub fn tool(&self, name: &[u8]) -> Option<&Tool> {
        self.tools.as_ref()?.by_name.get(name)
    }

    /// `CallContext.assign()`: a new call's index and id (the caller
    /// announces it).
    pub fn assign_py(&mut self, py: Python<'_>) -> PyResult<PyCall> {
        let IdSource::Native { keys, counter } = &mut self.ids else {
            // (a seed or the caller's factory: the Python context makes them)
            let obj = self.obj.bind(py);
            return Ok(PyCall(Rc::new(
                obj.call_method0(intern!(py, "assign"))?.extract()?,
            )));
        };
        let obj = self.obj.bind(py);
        let index = obj.getattr(intern!(py, "next_index"))?;
        obj.setattr(intern!(py, "next_index"), index.add(1)?)?;
        // "call_" + 24 hex digits (96 bits), as `_random_ids` writes them
        let id = toolparse_core::ids::random_id(keys, *counter);
        *counter += 1;
        // (ASCII, so UTF-8: the check of 29 bytes costs nothing a call can measure)
        let id = std::str::from_utf8(&id).expect("call_id writes ASCII");
        let id = PyString::new(py, id).into_any();
        Ok(PyCall(Rc::new((index.unbind(), id.unbind()))))
    }

    /// `CallContext.next_index`: the index the next call announced gets.
    pub fn next_index_py(&self, py: Python<'_>) -> PyResult<i64> {
        self.obj
            .bind(py)
            .getattr(intern!(py, "next_index"))?
            .extract()
    }
}

/// An internal inconsistency, as the Python exception the reference raises.
pub fn py_bug(bug: Bug) -> PyErr {
    match bug.kind {
        BugKind::Value => PyValueError::new_err(bug.what),
        BugKind::Assertion => PyAssertionError::new_err(bug.what),
        BugKind::Runtime => PyRuntimeError::new_err(bug.what),
        BugKind::Option => Python::with_gil(|py| {
            let class = py
                .import(intern!(py, "toolparse.errors"))
                .and_then(|m| m.getattr(intern!(py, "InvalidOptionError")))
                .and_then(|c| Ok(c.downcast_into::<pyo3::types::PyType>()?));
            match class {
                Ok(class) => PyErr::from_type(class, bug.what),
                Err(err) => err,
            }
        }),
    }
}

impl Host for PyHost {
    type Call = PyCall;
    /// A pydantic model's validation: `(parsed, validation_error)`.
    type Checked = (PyObject, PyObject);
    type Error = PyErr;
    type Out<'o> = Out<'o>;

    fn bug(bug: Bug) -> PyErr {
        py_bug(bug)
    }

    fn core_error(err: RustError) -> PyErr {
        py_error(err)
    }

    fn assign(&mut self, out: &mut Out<'_>) -> PyResult<PyCall> {
        self.assign_py(out.py)
    }

    fn next_index(&self, out: &mut Out<'_>) -> PyResult<i64> {
        self.next_index_py(out.py)
    }

    fn literal(
        &mut self,
        out: &mut Out<'_>,
        text: &str,
        max_depth: usize,
    ) -> PyResult<Option<Result<Value, Vec<u8>>>> {
        // (Python's reader, which the reference uses: `parse_literal`)
        let py = out.py;
        let kwargs = PyDict::new(py);
        kwargs.set_item(intern!(py, "max_depth"), max_depth)?;
        match parse_literal(py)?.bind(py).call((text,), Some(&kwargs)) {
            Ok(value) => Ok(Some(Ok(crate::pycoerce::to_core(&value)?))),
            Err(err) if err.is_instance_of::<PyValueError>(py) => {
                let mut message = Vec::new();
                push_wide(&mut message, &err.value(py).str()?);
                Ok(Some(Err(message)))
            }
            Err(err) => Err(err),
        }
    }

    fn check(
        &mut self,
        out: &mut Out<'_>,
        name: &[u8],
        arguments: Option<&[u8]>,
    ) -> PyResult<Option<(PyObject, PyObject)>> {
        let py = out.py;
        let Some(tool) = self.tool(name).filter(|tool| tool.model) else {
            return Ok(None);
        };
        let arguments = match arguments {
            Some(arguments) => loads(py, arguments)?,
            None => py.None(),
        };
        let validated = tool.obj.bind(py).call_method1("validate", (arguments,))?;
        Ok(Some(validated.extract()?))
    }

    fn planted(&self, place: &str) -> PyResult<()> {
        match &self.planted {
            // (tests only: the lock is taken where a bug is planted)
            Some((at, exc)) if at == place => Err(Python::with_gil(|py| {
                PyErr::from_value(exc.bind(py).clone())
            })),
            Some((at, _)) if at == "panic" && place == "read" => {
                panic!("a panic planted by a test")
            }
            _ => Ok(()),
        }
    }

    fn record_read(&self, out: &mut Out<'_>, text: &[u32]) -> PyResult<()> {
        recorded(out.py, text)
    }

    fn thought_read(
        &mut self,
        out: &mut Out<'_>,
        grammar: &GrammarRt,
        head: &[u32],
        max_call_chars: i64,
    ) -> PyResult<()> {
        // (the reference's own reader, on a shadow engine of its own)
        let py = out.py;
        let reader = self.thought_reader.take();
        let reader = py
            .import("toolparse.engine.core")?
            .getattr("thought_read")?
            .call1((
                reader,
                compiled_of(py, grammar)?,
                self.obj.bind(py),
                max_call_chars,
                "native",
                pystr(py, head)?,
            ))?;
        self.thought_reader = Some(reader.unbind());
        Ok(())
    }

    fn thought_reset(&mut self) {
        self.thought_reader = None;
    }

    fn shadow_calls(
        &mut self,
        out: &mut Out<'_>,
        grammar: &GrammarRt,
        thought: &[u32],
        max_call_chars: i64,
        salvage: bool,
        offset: i64,
    ) -> PyResult<()> {
        let py = out.py;
        let reader = self.thought_reader.take();
        let found = py
            .import("toolparse.engine.core")?
            .getattr("shadow_calls")?
            .call1((
                compiled_of(py, grammar)?,
                self.obj.bind(py),
                max_call_chars,
                "native",
                pystr(py, thought)?,
                salvage,
                offset,
                reader,
            ))?;
        out.extend(&found)
    }
}

/// (tests) A Python list that every read's text is appended to (see
/// `_native._record_reads`): the reference's tests count reads by patching
/// `Engine._run`, which the native engine never calls.
static READS: std::sync::Mutex<Option<PyObject>> = std::sync::Mutex::new(None);
static RECORDING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Record every read's text in `reads` (None: stop).
pub fn record_reads(reads: Option<PyObject>) {
    RECORDING.store(reads.is_some(), std::sync::atomic::Ordering::Relaxed);
    let old = std::mem::replace(&mut *READS.lock().unwrap_or_else(|e| e.into_inner()), reads);
    drop(old);
}

fn recorded(py: Python<'_>, text: &[u32]) -> PyResult<()> {
    if !RECORDING.load(std::sync::atomic::Ordering::Relaxed) {
        return Ok(());
    }
    let reads = READS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|r| r.clone_ref(py));
    if let Some(reads) = reads {
        reads.bind(py).call_method1("append", (pystr(py, text)?,))?;
    }
    Ok(())
}

/// A Python `str` of code points.
pub fn pystr<'py>(py: Python<'py>, points: &[u32]) -> PyResult<Bound<'py, PyString>> {
    crate::pylexicon::new_str(py, crate::lexicon::Name::U32(points))
}

/// The engine of a Python `Engine`'s parts (see `Engine.__init__`: the
/// compiled grammar, the call context, the declared tools, the reasoning
/// chosen, the reasoning option (`grammar="auto"`: each member's is what it
/// means for that member), a forced answer that begins where the scanner
/// says, the options, whether calls in unclosed reasoning are looked for).
#[allow(clippy::too_many_arguments)]
pub fn engine_of(
    py: Python<'_>,
    compiled: &Bound<'_, PyAny>,
    ctx: &Bound<'_, PyAny>,
    tools: Option<&[String]>,
    reasoning: Option<&toolparse_core::grammar::Reasoning>,
    option: ReasoningOption,
    answer: bool,
    opts: Options,
    thought: bool,
) -> PyResult<Engine<PyHost>> {
    let grammar = crate::rt::grammar_of(compiled)?;
    let parts =
        start_scanner(&grammar.tables, tools, reasoning, answer).map_err(start_error::<PyHost>)?;
    let start = Start {
        grammar,
        parts,
        reasoning: option,
        opts,
        thought,
    };
    let (host, context) = PyHost::new(ctx)?;
    let mut out = Out::new(py, None, opts.collapse);
    Engine::new(start, host, context, &mut out)
}

/// A new engine as the prototype `engine` was when it started, with the
/// Python context `ctx` (see `toolparse.parser`'s prototypes).
pub fn fresh_engine(
    py: Python<'_>,
    engine: &Engine<PyHost>,
    ctx: &Bound<'_, PyAny>,
) -> PyResult<Engine<PyHost>> {
    let start = engine
        .start()
        .filter(|_| engine.host.broken.is_none())
        .ok_or_else(|| PyRuntimeError::new_err("a prototype parser was fed"))?;
    let mut out = Out::new(py, None, start.opts.collapse);
    Engine::new(start, engine.host.fresh(ctx), engine.ctx.fresh(), &mut out)
}

/// The Python objects an engine holds (for the garbage collector).
pub fn objects_of(engine: &Engine<PyHost>) -> Vec<&PyObject> {
    let host = &engine.host;
    let mut objects = vec![&host.obj];
    objects.extend(host.broken.iter());
    objects.extend(host.thought_reader.iter());
    if let Some(string) = &engine.string {
        objects.extend(string.call.objects());
    }
    objects
}

/// `json.loads(text)` (`text` generalized UTF-8): natively where
/// [`fastvalue::loads_native`] reads it, else Python's.
pub fn loads(py: Python<'_>, text: &[u8]) -> PyResult<PyObject> {
    if let Some(value) = fastvalue::loads_native(py, text)? {
        fastvalue::count(Path::Loads, true);
        return Ok(value);
    }
    fastvalue::count(Path::Loads, false);
    Ok(refs(py)?
        .loads
        .bind(py)
        .call1((py_of(py, text)?,))?
        .unbind())
}

/// `json.loads` of a call's arguments' text (None: no arguments).
pub fn arguments_of(py: Python<'_>, text: Option<Vec<u8>>) -> PyResult<Option<PyObject>> {
    text.map(|text| loads(py, &text)).transpose()
}

/// Python's `parse_literal` (the reader of the literals the core declines).
fn parse_literal(py: Python<'_>) -> PyResult<&PyObject> {
    static PARSE_LITERAL: pyo3::sync::GILOnceCell<PyObject> = pyo3::sync::GILOnceCell::new();
    PARSE_LITERAL.get_or_try_init(py, || {
        Ok(py
            .import("toolparse.readers.pyliteral")?
            .getattr("parse_literal")?
            .unbind())
    })
}

/// `Outcome.to_event(raw, offset)`: a `ToolCall` or a `ToolCallError`.
pub fn outcome_event(
    py: Python<'_>,
    outcome: &Outcome<PyHost>,
    raw: &Bound<'_, PyString>,
    offset: i64,
) -> PyResult<PyObject> {
    // (borrowed, not cloned: a PyObject let go costs pyo3's check for the GIL)
    let none = py.None().into_bound(py);
    let (index, id) = match &outcome.call {
        Some(call) => (call.index_object(py).clone(), call.id_object(py).clone()),
        None => (none.clone(), none.clone()),
    };
    let (parsed, validation_error) = match &outcome.checked {
        Some((parsed, error)) => (parsed.bind(py).clone(), error.bind(py).clone()),
        None => (none.clone(), none.clone()),
    };
    let name = match &outcome.name {
        Some(name) => py_of(py, name)?.into_any(),
        None => none.clone(),
    };
    let arguments = match &outcome.arguments {
        Some(arguments) => loads(py, arguments)?.into_bound(py),
        None => none.clone(),
    };
    match outcome.reason {
        None => {
            let issues = outcome
                .issues
                .iter()
                .filter_map(rust_calls::issue_of)
                .map(|issue| {
                    let fields = [&issue.path, &issue.expected, &issue.got, &issue.action]
                        .map(|field| py_of(py, field));
                    let [path, expected, got, action] = fields;
                    events::issue(
                        py,
                        &[
                            &path?.into_any(),
                            &expected?.into_any(),
                            &got?.into_any(),
                            &action?.into_any(),
                        ],
                    )
                })
                .collect::<PyResult<Vec<_>>>()?;
            let issues = PyTuple::new(py, issues)?;
            events::tool_call(
                py,
                &[
                    &index,
                    &id,
                    &name,
                    &arguments,
                    raw.as_any(),
                    issues.as_any(),
                    &parsed,
                    &validation_error,
                ],
            )
        }
        Some(reason) => {
            let message = py_of(py, &outcome.message)?;
            Ok(events::error_class(py)?
                .bind(py)
                .call1((
                    reason.value(),
                    message,
                    raw,
                    offset,
                    name,
                    index,
                    id,
                    arguments,
                ))?
                .unbind())
        }
    }
}
