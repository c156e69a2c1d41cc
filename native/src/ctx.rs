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
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::calls::{Coerced, Converted, Host, Mode, Plan};
use crate::calls_py::{push_wide, py_of, refs, sole_string_of, wide_of};
use crate::events;
use crate::fastvalue::{self, Path};
use crate::kept::Kept;
use crate::lexicon::{Name, Names, TagContext};
use crate::pylexicon::name_of;
use crate::tables::Reason;

/// Plans kept at most (keys come from the model: bounded, as `_MAX_PLANS`).
const MAX_PLANS: usize = 4096;

/// A declared tool.
pub struct Tool {
    pub obj: PyObject,
    /// Its parameters schema.
    pub schema: PyObject,
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
}

/// A tool's property names, sorted, as code points (None: any name).
pub type PropertyNames = Option<Rc<Vec<Vec<u32>>>>;

/// A member's plan, kept: its schema, its mode, the issues it reports.
type KeptPlan = Rc<(Option<PyObject>, Mode, Vec<PyObject>)>;

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
    /// (shared by the parsers made from one prototype: see [`Ctx::fresh`])
    pub tools: Option<std::sync::Arc<Tools>>,
    pub coerce: bool,
    pub max_depth: usize,
}

/// Each tool's property names (None until worked out), by the identity of its
/// schema: shared by every parser (see [`crate::kept`]).
static PROPERTY_NAMES: Kept<Option<PropertyNames>> = Kept::new(MAX_PLANS);

/// The members' plans, by the identity of the tool's schema, then by key
/// (looked up without copying it): shared by every parser, as the Python
/// side's `_SHARED_PLANS`. (The keys come from the model: a SipHash table.)
static PLANS: Kept<std::collections::HashMap<Vec<u8>, KeptPlan>> = Kept::new(MAX_PLANS);

impl Ctx {
    /// The native side of the Python `CallContext` `obj`.
    pub fn new(obj: &Bound<'_, PyAny>) -> PyResult<Ctx> {
        let py = obj.py();
        let tools = obj.getattr(intern!(py, "tools"))?;
        let tools = if tools.is_none() {
            None
        } else {
            let mut by_name = crate::fxhash::FxHashMap::default();
            for (name, tool) in tools.downcast::<PyDict>()?.iter() {
                let schema = tool.getattr(intern!(py, "parameters"))?.unbind();
                let model = !tool.getattr(intern!(py, "model"))?.is_none();
                by_name.insert(
                    wide_of(name.downcast::<PyString>()?),
                    Tool {
                        obj: tool.unbind(),
                        schema,
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
            Some(std::sync::Arc::new(Tools { names, by_name }))
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
        Ok(Ctx {
            ids,
            obj: obj.clone().unbind(),
            tools,
            coerce: obj.getattr(intern!(py, "coerce"))?.is_truthy()?,
            max_depth: obj.getattr(intern!(py, "max_depth"))?.extract()?,
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
    pub fn schema_of(&self, name: &[u8]) -> Option<&PyObject> {
        self.tool(name).map(|t| &t.schema)
    }

    /// `CallContext.property_names_of(name)`, as code points (kept by the
    /// tool's schema).
    pub fn property_names_of(&self, py: Python<'_>, name: &[u8]) -> PyResult<PropertyNames> {
        let Some(tool) = self.tool(name) else {
            return Ok(None);
        };
        PROPERTY_NAMES.get_or_work(tool.schema.bind(py), || {
            let names = self
                .obj
                .bind(py)
                .call_method1(intern!(py, "property_names_of"), (py_of(py, name)?,))?;
            if names.is_none() {
                return Ok(None);
            }
            let mut points = Vec::new();
            for item in names.try_iter()? {
                points.push(name_of(item?.downcast::<PyString>()?).code_points());
            }
            Ok(Some(Rc::new(points)))
        })
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

    /// `CallContext.member_plan(name, key, root)` (kept by the schema `root`
    /// and the key).
    fn member_plan(
        &mut self,
        py: Python<'_>,
        name: &[u8],
        key: &[u8],
        root: &PyObject,
    ) -> PyResult<Plan<PyObject>> {
        let root = root.bind(py);
        let plan = match PLANS.read(root, |by_key| by_key.get(key).cloned()) {
            Some(plan) => plan,
            None => {
                let plan = self.obj.bind(py).call_method1(
                    intern!(py, "member_plan"),
                    (py_of(py, name)?, py_of(py, key)?, root),
                )?;
                let (schema, mode, issues): (PyObject, i64, Bound<'_, PyAny>) = plan.extract()?;
                let mode = Mode::from_number(mode).ok_or_else(|| {
                    PyValueError::new_err(format!("no member mode numbered {mode}"))
                })?;
                let issues = issues
                    .try_iter()?
                    .map(|issue| issue.map(Bound::unbind))
                    .collect::<PyResult<Vec<_>>>()?;
                let schema = (!schema.is_none(py)).then_some(schema);
                let plan = Rc::new((schema, mode, issues));
                PLANS.write(root, |by_key| {
                    if by_key.contains_key(key) {
                        return 0;
                    }
                    by_key.insert(key.to_vec(), plan.clone());
                    1
                });
                plan
            }
        };
        Ok(Plan {
            schema: plan.0.as_ref().map(|s| s.clone_ref(py)),
            mode: plan.1,
            issues: plan.2.iter().map(|i| i.clone_ref(py)).collect(),
        })
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

impl Host for CallHost<'_, '_> {
    type Value = PyObject;
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

    fn member_plan(
        &mut self,
        name: &[u8],
        key: &[u8],
        root: &PyObject,
    ) -> PyResult<Plan<PyObject>> {
        self.ctx.member_plan(self.py, name, key, root)
    }

    fn convert(&mut self, text: &str, key: &[u8]) -> PyResult<Converted<PyObject>> {
        let py = self.py;
        let function = match self.convert {
            Convert::Text => {
                return Ok(Converted::Value(
                    PyString::new(py, text).into_any().unbind(),
                ))
            }
            Convert::Literal => {
                let max_depth = i64::try_from(self.ctx.max_depth).unwrap_or(i64::MAX);
                match crate::pyliteral::convert(py, text, max_depth) {
                    Some(Ok(value)) => {
                        fastvalue::count(Path::Convert, true);
                        return Ok(Converted::Value(value.unbind()));
                    }
                    Some(Err(message)) => {
                        fastvalue::count(Path::Convert, true);
                        return Ok(Converted::Invalid(literal_problem(
                            py,
                            key,
                            message.as_bytes(),
                        )?));
                    }
                    None => {
                        fastvalue::count(Path::Convert, false);
                        converters(py)?.0.bind(py)
                    }
                }
            }
            Convert::Fragment => {
                // (plain text, the usual number or word: no markup to parse)
                if let Some(value) = fastvalue::fragment_str(text) {
                    fastvalue::count(Path::Convert, true);
                    return Ok(Converted::Value(
                        PyString::new(py, &value).into_any().unbind(),
                    ));
                }
                fastvalue::count(Path::Convert, false);
                converters(py)?.1.bind(py)
            }
        };
        let kwargs = PyDict::new(py);
        kwargs.set_item(intern!(py, "max_depth"), self.ctx.max_depth)?;
        match function.call((text,), Some(&kwargs)) {
            Ok(value) => Ok(Converted::Value(value.unbind())),
            Err(err) if err.is_instance_of::<PyValueError>(py) => {
                let mut message = Vec::new();
                push_wide(&mut message, &err.value(py).str()?);
                Ok(Converted::Invalid(literal_problem(py, key, &message)?))
            }
            Err(err) => Err(err),
        }
    }

    fn coerce_at(
        &mut self,
        value: PyObject,
        schema: Option<&PyObject>,
        root: Option<&PyObject>,
        key: &[u8],
    ) -> PyResult<Coerced<PyObject>> {
        let py = self.py;
        let fast = fastvalue::coerce_value(
            py,
            value.bind(py),
            schema.map(|s| s.bind(py)),
            root.map(|r| r.bind(py)),
            key,
        )?;
        if let Some((value, issues)) = fast {
            fastvalue::count(Path::Coerce, true);
            return Ok(Coerced { value, issues });
        }
        fastvalue::count(Path::Coerce, false);
        let refs = refs(py)?;
        let path = refs.child_path.bind(py).call1(("$", py_of(py, key)?))?;
        let coerced = refs
            .coerce_at
            .bind(py)
            .call1((value, schema, root, path, 1))?;
        let (value, issues): (PyObject, Bound<'_, PyAny>) = coerced.extract()?;
        let issues = issues
            .try_iter()?
            .map(|issue| issue.map(Bound::unbind))
            .collect::<PyResult<_>>()?;
        Ok(Coerced { value, issues })
    }

    fn list(&mut self, values: Vec<PyObject>) -> PyResult<PyObject> {
        Ok(PyList::new(self.py, values)?.into_any().unbind())
    }

    fn canonical_json(&mut self, value: &PyObject, out: &mut Vec<u8>) -> PyResult<()> {
        let py = self.py;
        if fastvalue::canonical_value(py, value.bind(py), out)? {
            fastvalue::count(Path::Canonical, true);
            return Ok(());
        }
        fastvalue::count(Path::Canonical, false);
        let text = refs(py)?.canonical_json.bind(py).call1((value,))?;
        push_wide(out, text.downcast::<PyString>()?);
        Ok(())
    }

    fn coerce_json(&mut self, text: &str, out: &mut Vec<u8>) -> PyResult<()> {
        let py = self.py;
        let coerced = refs(py)?.coerce.bind(py).call1((text, py.None()))?;
        let value = coerced.getattr(intern!(py, "value"))?.unbind();
        self.canonical_json(&value, out)
    }

    fn key_error(&mut self, key: &[u8]) -> PyErr {
        match py_of(self.py, key) {
            Ok(key) => PyKeyError::new_err(key.unbind()),
            Err(err) => err,
        }
    }

    fn none(&mut self) -> PyObject {
        self.py.None()
    }

    fn loads(&mut self, text: &[u8]) -> PyResult<PyObject> {
        loads(self.py, text)
    }

    fn is_object(&mut self, value: &PyObject) -> bool {
        value.bind(self.py).downcast::<PyDict>().is_ok()
    }

    fn sole_string_of(&mut self, root: Option<&PyObject>) -> PyResult<Option<PyObject>> {
        sole_string_of(self.py, root.map(|root| root.bind(self.py)))
    }
}

impl crate::calls_json::JsonHost for CallHost<'_, '_> {
    type Typer = crate::typer::SchemaTyper;

    fn typer_for(&mut self, name: &[u8]) -> PyResult<Option<Self::Typer>> {
        // (`CallContext.typer_for`)
        if !self.ctx.coerce {
            return Ok(None);
        }
        let py = self.py;
        let max_depth = self.ctx.max_depth;
        Ok(self
            .ctx
            .schema_of(name)
            .map(|schema| crate::typer::new_typer(schema.clone_ref(py), max_depth)))
    }

    fn coerce_held(
        &mut self,
        name: &[u8],
        held: &[u8],
        out: &mut Vec<u8>,
    ) -> PyResult<Option<PyObject>> {
        let py = self.py;
        if !self.ctx.coerce {
            return Ok(None);
        }
        let Some(schema) = self.ctx.schema_of(name).map(|s| s.clone_ref(py)) else {
            return Ok(None);
        };
        let refs = refs(py)?;
        let value = loads(py, held)?;
        let kwargs = PyDict::new(py);
        kwargs.set_item(intern!(py, "max_depth"), self.ctx.max_depth)?;
        let coerced = refs.coerce.bind(py).call((value, schema), Some(&kwargs))?;
        let canonical = refs
            .canonical_json
            .bind(py)
            .call1((coerced.getattr(intern!(py, "value"))?,))?;
        push_wide(out, canonical.downcast::<PyString>()?);
        Ok(Some(coerced.getattr(intern!(py, "issues"))?.unbind()))
    }

    fn issues(
        &mut self,
        typer: Option<&Self::Typer>,
        extra: Option<&PyObject>,
    ) -> PyResult<PyObject> {
        let py = self.py;
        Ok(match (typer, extra) {
            (Some(typer), _) => PyTuple::new(py, typer.issues().iter().map(|i| i.clone_ref(py)))?
                .into_any()
                .unbind(),
            (None, Some(extra)) => extra.clone_ref(py),
            (None, None) => PyTuple::empty(py).into_any().unbind(),
        })
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

/// `f"argument {key!r} is not a literal: {exc}"`, the problem a member the
/// converter refused makes (`message` generalized UTF-8).
fn literal_problem(py: Python<'_>, key: &[u8], message: &[u8]) -> PyResult<Vec<u8>> {
    let mut problem = b"argument ".to_vec();
    push_wide(&mut problem, &py_of(py, key)?.repr()?);
    problem.extend_from_slice(b" is not a literal: ");
    problem.extend_from_slice(message);
    Ok(problem)
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
    /// The call's name (a Python `str`).
    pub name: Option<PyObject>,
    pub index: Option<PyObject>,
    pub id: Option<PyObject>,
    pub arguments: Option<PyObject>,
    /// None: a call.
    pub reason: Option<Reason>,
    /// Generalized UTF-8.
    pub message: Vec<u8>,
    pub issues: Vec<PyObject>,
    pub parsed: Option<PyObject>,
    pub validation_error: Option<PyObject>,
}

impl Outcome {
    /// An error with no call behind it.
    pub fn error(
        end: Option<i64>,
        name: Option<PyObject>,
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
            &mut self.name,
            &mut self.index,
            &mut self.id,
            &mut self.arguments,
            &mut self.parsed,
            &mut self.validation_error,
        ] {
            if let Some(object) = field.take() {
                drop(object.into_bound(py));
            }
        }
        for issue in self.issues.drain(..) {
            drop(issue.into_bound(py));
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
        match self.reason {
            None => {
                let issues = PyTuple::new(py, self.issues.iter().map(|i| i.clone_ref(py)))?;
                events::tool_call(
                    py,
                    &[
                        &opt(&self.index),
                        &opt(&self.id),
                        &opt(&self.name),
                        &opt(&self.arguments),
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
                        opt(&self.name),
                        opt(&self.index),
                        opt(&self.id),
                        opt(&self.arguments),
                    ))?
                    .unbind())
            }
        }
    }
}
