//! What the calls of one stream share (`toolparse.engine.calls.CallContext`),
//! on the native engine's side, and the calls' [`Host`] over it.
//!
//! The Python `CallContext` stays the one record of the stream's tools, ids
//! and indices (a shadow read of unclosed reasoning, or a caller, may use
//! it too). What the native engine asks of it often is read once and kept
//! here: the tools' names, each tool's schema, whether a name is declared.
//! Each tool's property names and the members' plans are kept by the
//! identity of the tool's schema, for every parser (see [`crate::kept`]).
//! What needs Python (a call's id, coercion of a complete value, converters,
//! validation) is a call into it, once per call or value.

use std::sync::Arc as Rc;

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::calls::{Coerced, Converted, Host, Plan};
use crate::calls_json::JsonHost;
use crate::calls_py::{push_wide, py_of, refs, wide_of};
use crate::events;
use crate::fastvalue::{self, Path};
use crate::kept::Kept;
use crate::lexicon::{Name, Names, TagContext};
use crate::pylexicon::name_of;
use crate::tables::Reason;
use toolparse_core::coercion::oracle::{RustError, RustTyper};
use toolparse_core::coercion::Value;
use toolparse_core::rust_calls::{self, RustCalls, RustTool, RustTools};

/// Schemas kept at most, by the identity of the Python dict.
const MAX_SCHEMAS: usize = 4096;

/// A declared tool.
pub struct Tool {
    pub obj: PyObject,
    /// It is defined by a pydantic model (its calls are validated).
    pub model: bool,
}

/// The declared tools.
pub struct Tools {
    /// Their names, sorted (`CallContext.tool_names`), as code points.
    pub names: Vec<Vec<u32>>,
    /// By name (generalized UTF-8).
    /// (declared names: keys the model cannot choose, see `fxhash`)
    pub by_name: crate::fxhash::FxHashMap<Vec<u8>, Tool>,
    /// Their schemas, as the core reads them (and what is worked out of them).
    pub core: Rc<RustTools>,
    /// Each tool's property names, once worked out (`CallContext._property_names`).
    property_names: std::sync::Mutex<std::collections::HashMap<Vec<u8>, PropertyNames>>,
}

/// A tool's property names, sorted, as code points (None: any name).
pub type PropertyNames = Option<Rc<Vec<Vec<u32>>>>;

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
    let mut names = Vec::new();
    if let Some(sorted) = obj
        .getattr(intern!(py, "tool_names"))?
        .extract::<Option<Vec<Bound<'_, PyString>>>>()?
    {
        for name in sorted {
            names.push(name_of(&name).code_points());
        }
    }
    let core = Rc::new(RustTools::of(core));
    Ok(Tools {
        names,
        by_name,
        core,
        property_names: Default::default(),
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

/// The native side of a `CallContext` (see the module docs).
pub struct Ctx {
    ids: IdSource,
    /// The Python `CallContext`.
    pub obj: PyObject,
    /// What a call needs, answered by the core (coercion, plans, values).
    pub services: RustCalls,
    /// (shared by the parsers made from one prototype: see [`Ctx::fresh`])
    pub tools: Option<std::sync::Arc<Tools>>,
    pub coerce: bool,
    pub max_depth: usize,
}

impl Ctx {
    /// The native side of the Python `CallContext` `obj`.
    pub fn new(obj: &Bound<'_, PyAny>) -> PyResult<Ctx> {
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
        let services = RustCalls::new(
            tools.as_ref().map(|t| t.core.clone()),
            max_depth,
            coerce,
            None,
        )
        .map_err(py_error)?;
        Ok(Ctx {
            ids,
            obj: obj.clone().unbind(),
            services,
            tools,
            coerce,
            max_depth,
        })
    }

    /// The context of a parser made from a prototype (`Engine::fresh_like`):
    /// this one's tools and options, the Python context `obj` (the prototype's,
    /// copied: `CallContext.fresh`), and ids of its own.
    pub fn fresh(&self, obj: &Bound<'_, PyAny>) -> Ctx {
        Ctx {
            ids: match self.ids {
                IdSource::Native { .. } => IdSource::Native {
                    keys: std::collections::hash_map::RandomState::new(),
                    counter: 0,
                },
                IdSource::Python => IdSource::Python,
            },
            obj: obj.clone().unbind(),
            services: self.services.fresh(),
            tools: self.tools.clone(),
            coerce: self.coerce,
            max_depth: self.max_depth,
        }
    }

    /// `CallContext.is_known(name)`: with no tools declared, any name is.
    pub fn is_known(&self, name: &[u8]) -> bool {
        match &self.tools {
            None => true,
            Some(tools) => tools.by_name.contains_key(name),
        }
    }

    /// A declared tool of this name.
    pub fn tool(&self, name: &[u8]) -> Option<&Tool> {
        self.tools.as_ref()?.by_name.get(name)
    }

    /// `CallContext.schema_of(name)`.
    pub fn schema_of(&self, name: &[u8]) -> Option<&Value> {
        self.services.schema_of(name)
    }

    /// `CallContext.property_names_of(name)`, as code points (worked out once
    /// per tool, for every parser of the tools).
    pub fn property_names_of(&self, name: &[u8]) -> PropertyNames {
        let tools = self.tools.as_ref()?;
        let lock = || {
            tools
                .property_names
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if let Some(known) = lock().get(name) {
            return known.clone();
        }
        let names = self.services.property_names_of(name).map(|names| {
            Rc::new(
                names
                    .iter()
                    .map(|name| toolparse_core::wide::chars(name).collect())
                    .collect(),
            )
        });
        // (declared names only: the model cannot grow the table)
        if tools.by_name.contains_key(name) {
            lock().insert(name.to_vec(), names.clone());
        }
        names
    }

    /// `CallContext.assign()`: a new call's index and id (the caller
    /// announces it).
    pub fn assign(&mut self, py: Python<'_>) -> PyResult<(PyObject, PyObject)> {
        let IdSource::Native { keys, counter } = &mut self.ids else {
            // (a seed or the caller's factory: the Python context makes them)
            let obj = self.obj.bind(py);
            return obj.call_method0(intern!(py, "assign"))?.extract();
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
        Ok((index.unbind(), id.unbind()))
    }

    /// `CallContext.next_index`: the index the next call announced gets.
    pub fn next_index(&self, py: Python<'_>) -> PyResult<i64> {
        self.obj
            .bind(py)
            .getattr(intern!(py, "next_index"))?
            .extract()
    }
}

/// The names of a `Vec` of code points (sorted by the Python side).
pub struct PointNames<'a>(pub &'a [Vec<u32>]);

impl Names for PointNames<'_> {
    fn count(&self) -> usize {
        self.0.len()
    }
    fn get(&self, i: usize) -> Name<'_> {
        Name::U32(&self.0[i])
    }
}

/// The visible text's tag context: only the tools are known there.
pub struct TextContext<'a> {
    pub tools: Option<PointNames<'a>>,
}

impl TagContext for TextContext<'_> {
    fn key(&self) -> Option<Name<'_>> {
        None
    }
    fn call_name(&self) -> Option<Name<'_>> {
        None
    }
    fn tool_names(&self) -> Option<&dyn Names> {
        self.tools.as_ref().map(|t| t as &dyn Names)
    }
    fn property_names(&self) -> Option<&dyn Names> {
        None
    }
    fn given(&self, _name: Name<'_>) -> bool {
        false
    }
}

impl Ctx {
    /// The visible text's tag context.
    pub fn text_context(&self) -> TextContext<'_> {
        TextContext {
            tools: self.tools.as_ref().map(|t| PointNames(&t.names)),
        }
    }
}

/// How a member call reads a collected member's text (`Machine._python_literal`,
/// `Machine._fragment`, or as it is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convert {
    Text,
    Literal,
    Fragment,
}

/// The index and id of the call being read, once started.
pub type Ids = Option<(PyObject, PyObject)>;

/// The calls' [`Host`]: the native context, the call's ids, its converter.
pub struct CallHost<'a, 'py> {
    pub py: Python<'py>,
    pub ctx: &'a mut Ctx,
    /// The events of the read in progress.
    pub out: &'a mut crate::pysink::Out<'py>,
    pub ids: &'a mut Ids,
    pub convert: Convert,
}

impl CallHost<'_, '_> {
    /// The core's answers (see [`Ctx::services`]), converting as this call does.
    fn services(&mut self) -> &mut RustCalls {
        self.ctx.services.convert = match self.convert {
            Convert::Text => rust_calls::Convert::Text,
            Convert::Literal => rust_calls::Convert::Literal,
            Convert::Fragment => rust_calls::Convert::Fragment,
        };
        &mut self.ctx.services
    }
}

impl Host for CallHost<'_, '_> {
    type Value = Value;
    type Error = PyErr;

    fn is_known(&mut self, name: &[u8]) -> PyResult<bool> {
        Ok(self.ctx.is_known(name))
    }

    fn start(&mut self, name: &[u8]) -> PyResult<()> {
        let py = self.py;
        let name = py_of(py, name)?;
        let (index, id) = self.ctx.assign(py)?;
        self.out.call_start(index.bind(py), id.bind(py), &name)?;
        *self.ids = Some((index, id));
        Ok(())
    }

    fn delta(&mut self, piece: &[u8]) -> PyResult<()> {
        let py = self.py;
        let Some((index, id)) = self.ids.as_ref() else {
            return Err(PyValueError::new_err("a delta of a call not started"));
        };
        self.out.call_delta(
            index.bind(py),
            id.bind(py),
            toolparse_core::sink::Text::Wide(piece),
        )
    }

    fn member_plan(&mut self, name: &[u8], key: &[u8], root: &Value) -> PyResult<Plan<Value>> {
        self.services()
            .member_plan(name, key, root)
            .map_err(py_error)
    }

    fn convert(&mut self, text: &str, key: &[u8]) -> PyResult<Converted<Value>> {
        if self.convert == Convert::Literal {
            // (what the core's reader declines, Python's reads: a `\N{...}` escape,
            // a very long integer, deep nesting)
            let max_depth = i64::try_from(self.ctx.max_depth).unwrap_or(i64::MAX);
            let points: Vec<u32> = text.chars().map(u32::from).collect();
            let mut build = rust_calls::ValueBuild;
            match toolparse_core::pyliteral::parse_literal(&points, max_depth, &mut build) {
                Ok(value) => return Ok(Converted::Value(value)),
                Err(toolparse_core::pyliteral::Failure::Error(message)) => {
                    return Ok(Converted::Invalid(literal_problem(key, message.as_bytes())));
                }
                Err(toolparse_core::pyliteral::Failure::Decline) => {
                    return self.python_literal(text, key);
                }
            }
        }
        self.services().convert(text, key).map_err(py_error)
    }

    fn coerce_at(
        &mut self,
        value: Value,
        schema: Option<&Value>,
        root: Option<&Value>,
        key: &[u8],
    ) -> PyResult<Coerced<Value>> {
        self.services()
            .coerce_at(value, schema, root, key)
            .map_err(py_error)
    }

    fn list(&mut self, values: Vec<Value>) -> PyResult<Value> {
        Ok(Value::array(values))
    }

    fn canonical_json(&mut self, value: &Value, out: &mut Vec<u8>) -> PyResult<()> {
        out.extend_from_slice(&value.canonical_json());
        Ok(())
    }

    fn coerce_json(&mut self, text: &str, out: &mut Vec<u8>) -> PyResult<()> {
        self.services().coerce_json(text, out).map_err(py_error)
    }

    fn key_error(&mut self, key: &[u8]) -> PyErr {
        match py_of(self.py, key) {
            Ok(key) => PyKeyError::new_err(key.unbind()),
            Err(err) => err,
        }
    }

    fn none(&mut self) -> Value {
        Value::Null
    }

    fn sole_string_of(&mut self, root: Option<&Value>) -> PyResult<Option<Value>> {
        self.services().sole_string_of(root).map_err(py_error)
    }
}

impl CallHost<'_, '_> {
    /// A Python literal the core's reader declines, read by Python's
    /// (`parse_literal`), its value as the core's.
    fn python_literal(&mut self, text: &str, key: &[u8]) -> PyResult<Converted<Value>> {
        let py = self.py;
        let kwargs = PyDict::new(py);
        kwargs.set_item(intern!(py, "max_depth"), self.ctx.max_depth)?;
        match converters(py)?.0.bind(py).call((text,), Some(&kwargs)) {
            Ok(value) => Ok(Converted::Value(crate::pycoerce::to_core(&value)?)),
            Err(err) if err.is_instance_of::<PyValueError>(py) => {
                let mut message = Vec::new();
                push_wide(&mut message, &err.value(py).str()?);
                Ok(Converted::Invalid(literal_problem(key, &message)))
            }
            Err(err) => Err(err),
        }
    }
}

/// The core's inline coercer, failing as Python does.
pub struct Typer(pub RustTyper);

impl toolparse_core::typing::ValueTyper for Typer {
    type Error = PyErr;

    fn begin_value(&mut self, first: u32) -> PyResult<bool> {
        self.0.begin_value(first).map_err(py_error)
    }
    fn key(&mut self, key: &[u8]) -> PyResult<bool> {
        self.0.key(key).map_err(py_error)
    }
    fn array_item(&mut self) -> PyResult<()> {
        self.0.array_item().map_err(py_error)
    }
    fn end_container(&mut self) -> PyResult<()> {
        self.0.end_container().map_err(py_error)
    }
    fn finish_buffered(&mut self, canonical: &[u8], out: &mut Vec<u8>) -> PyResult<()> {
        self.0.finish_buffered(canonical, out).map_err(py_error)
    }
}

impl JsonHost for CallHost<'_, '_> {
    type Typer = Typer;

    fn typer_for(&mut self, name: &[u8]) -> PyResult<Option<Typer>> {
        Ok(self
            .services()
            .typer_for(name)
            .map_err(py_error)?
            .map(Typer))
    }

    fn coerce_held(
        &mut self,
        name: &[u8],
        held: &[u8],
        out: &mut Vec<u8>,
    ) -> PyResult<Option<Value>> {
        self.services()
            .coerce_held(name, held, out)
            .map_err(py_error)
    }

    fn issues(&mut self, typer: Option<&Typer>, extra: Option<&Value>) -> PyResult<Value> {
        self.services()
            .issues(typer.map(|t| &t.0), extra)
            .map_err(py_error)
    }
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

/// `f"argument {key!r} is not a literal: {exc}"`, the problem a member the
/// converter refused makes (`message` generalized UTF-8).
fn literal_problem(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut problem = b"argument ".to_vec();
    let key: Vec<u32> = toolparse_core::wide::chars(key).collect();
    problem.extend_from_slice(toolparse_core::pyliteral::repr(&key).as_bytes());
    problem.extend_from_slice(b" is not a literal: ");
    problem.extend_from_slice(message);
    problem
}

/// `(parse_literal, fragment_value)`.
fn converters(py: Python<'_>) -> PyResult<&(PyObject, PyObject)> {
    static CONVERTERS: pyo3::sync::GILOnceCell<(PyObject, PyObject)> =
        pyo3::sync::GILOnceCell::new();
    CONVERTERS.get_or_try_init(py, || {
        Ok((
            py.import("toolparse.readers.pyliteral")?
                .getattr("parse_literal")?
                .unbind(),
            py.import("toolparse.readers.xml_tree")?
                .getattr("fragment_value")?
                .unbind(),
        ))
    })
}

/// One call or error inside a block (`toolparse.engine.calls.Outcome`).
pub struct Outcome {
    /// Where its raw text ends (None: at the block's end).
    pub end: Option<i64>,
    /// The call's name (generalized UTF-8).
    pub name: Option<Vec<u8>>,
    pub index: Option<PyObject>,
    pub id: Option<PyObject>,
    /// Its arguments' JSON text (generalized UTF-8).
    pub arguments: Option<Vec<u8>>,
    /// None: a call.
    pub reason: Option<Reason>,
    /// Generalized UTF-8.
    pub message: Vec<u8>,
    /// What coercion changed or could not fix (see `rust_calls::issue_value`).
    pub issues: Vec<Value>,
    pub parsed: Option<PyObject>,
    pub validation_error: Option<PyObject>,
}

impl Outcome {
    /// An error with no call behind it.
    pub fn error(
        end: Option<i64>,
        name: Option<Vec<u8>>,
        reason: Reason,
        message: Vec<u8>,
    ) -> Outcome {
        Outcome {
            end,
            name,
            index: None,
            id: None,
            arguments: None,
            reason: Some(reason),
            message,
            issues: Vec::new(),
            parsed: None,
            validation_error: None,
        }
    }

    /// Let go of the Python objects now, with the GIL's token at hand (a
    /// `PyObject` dropped without one costs pyo3's check for the GIL, a
    /// thread-local read, each).
    pub fn release(&mut self, py: Python<'_>) {
        for field in [
            &mut self.index,
            &mut self.id,
            &mut self.parsed,
            &mut self.validation_error,
        ] {
            if let Some(object) = field.take() {
                drop(object.into_bound(py));
            }
        }
    }

    /// `Outcome.to_event(raw, offset)`: a `ToolCall` or a `ToolCallError`.
    pub fn to_event(
        &self,
        py: Python<'_>,
        raw: &Bound<'_, PyString>,
        offset: i64,
    ) -> PyResult<PyObject> {
        // (borrowed, not cloned: a PyObject let go costs pyo3's check for the GIL)
        let none = py.None().into_bound(py);
        let opt = |o: &Option<PyObject>| -> Bound<'_, PyAny> {
            o.as_ref()
                .map_or_else(|| none.clone(), |o| o.bind(py).clone())
        };
        let name = match &self.name {
            Some(name) => py_of(py, name)?.into_any(),
            None => none.clone(),
        };
        let arguments = match &self.arguments {
            Some(arguments) => loads(py, arguments)?.into_bound(py),
            None => none.clone(),
        };
        match self.reason {
            None => {
                let issues = self
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
                        &opt(&self.index),
                        &opt(&self.id),
                        &name,
                        &arguments,
                        raw.as_any(),
                        issues.as_any(),
                        &opt(&self.parsed),
                        &opt(&self.validation_error),
                    ],
                )
            }
            Some(reason) => {
                let message = py_of(py, &self.message)?;
                Ok(events::error_class(py)?
                    .bind(py)
                    .call1((
                        reason.value(),
                        message,
                        raw,
                        offset,
                        name,
                        opt(&self.index),
                        opt(&self.id),
                        arguments,
                    ))?
                    .unbind())
            }
        }
    }
}
