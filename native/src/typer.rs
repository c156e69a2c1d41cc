//! Inline coercion's typer (`toolparse.coercion.inline.SchemaTyper`), native:
//! the core's machine ([`toolparse_core::typer`]) answered by [`PyOracle`],
//! which asks the reference's own functions, and rarely:
//!
//! - a schema's *plan* (`inline._plan`: the resolved schema, the first
//!   characters of a value that streams, whether integer literals stand) is
//!   asked of Python once per (schema object, root) and cached here;
//! - a member's schema (`inline.member_schema`) once per (object schema, key),
//!   cached unless the lookup reported an issue (a `patternProperties` report
//!   names the member's path, which differs from call to call);
//! - an array's `items` is looked up in the schema dict from Rust;
//! - a collected value is coerced by Python (`_Coercer.run` and
//!   `canonical_json`) unless it is an integer literal where the schema
//!   takes an integer.
//!
//! So the calls to one tool whose arguments are strings and integers make no
//! Python call at all once the first has filled the caches. The caches are
//! module-level, shared by all typers (the same tool's schema serves every
//! call), keyed by object identity and holding a reference to each object
//! keyed, so that an identity is never reused while cached; each is bounded
//! and emptied when full, as the reference's `_PLANS` is.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::exceptions::PyIndexError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBool, PyDict, PyList, PyModule, PyString};

use crate::calls_py::{push_wide, py_of, wide_of};
use crate::wide;
pub use toolparse_core::typer::{
    child_path, child_path_into, is_int_literal, Member, Plan, SchemaOracle, Scope, State, Typer,
};

/// The native `SchemaTyper`: the core's machine, Python's answers.
pub type SchemaTyper = Typer<PyOracle>;

/// Plans cached at most (the reference's `inline._MAX_PLANS`).
pub const MAX_PLANS: usize = 4096;
/// Member lookups cached at most, over all object schemas (keys come from
/// the model: the cache must not grow with what it writes).
pub const MAX_MEMBERS: usize = 4096;
/// The longest key (in bytes) whose lookup is cached; a longer one is looked
/// up each time it is met (a model's stray text as a key, not a schema's name).
pub const MAX_CACHED_KEY: usize = 256;

/// A cached plan and the objects it is keyed by (kept alive, so that their
/// identities are not reused while the entry lives).
struct PlanEntry {
    _raw: PyObject,
    _root: PyObject,
    plan: Arc<Plan<PyObject>>,
}

/// The cached member lookups of one object schema (kept alive, as above).
struct Members {
    _schema: PyObject,
    by_key: HashMap<Vec<u8>, Member<PyObject>>,
}

/// The module-level caches (see the module docs).
#[derive(Default)]
struct Caches {
    plans: crate::fxhash::FxHashMap<(usize, usize), PlanEntry>,
    members: crate::fxhash::FxHashMap<usize, Members>,
    /// Lookups in `members`, over all schemas.
    member_count: usize,
}

/// The caches behind a lock (typers on other threads share them). The lock
/// is never held across a call into Python, nor while a Python object is
/// released (either may run Python code, which may come back here or
/// release the GIL to a thread that does): what is evicted is dropped after
/// the lock is.
static CACHES: Mutex<Option<Caches>> = Mutex::new(None);

fn caches() -> MutexGuard<'static, Option<Caches>> {
    // (a poisoned lock holds no broken state: every change is one insert)
    CACHES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Empty the module-level caches (for tests, and to let schemas go).
pub fn clear_caches() {
    let old = caches().take();
    drop(old);
}

/// How many plans and member lookups are cached.
pub fn cache_sizes() -> (usize, usize) {
    caches()
        .as_ref()
        .map_or((0, 0), |c| (c.plans.len(), c.member_count))
}

/// The reference module and its constants, looked up once. Its functions
/// (`_plan`, `member_schema`, `_Coercer`, `canonical_json`) are looked up on
/// the module at each use, so that a test can replace them.
struct Refs {
    inline: Py<PyModule>,
    drop: PyObject,
    untouched: PyObject,
    dropped_expected: PyObject,
    issue: PyObject,
    loads: PyObject,
}

static REFS: GILOnceCell<Refs> = GILOnceCell::new();

fn refs(py: Python<'_>) -> PyResult<&Refs> {
    REFS.get_or_try_init(py, || {
        let inline = py.import("toolparse.coercion.inline")?;
        Ok(Refs {
            drop: inline.getattr("DROP")?.unbind(),
            untouched: inline.getattr("UNTOUCHED")?.unbind(),
            dropped_expected: inline.getattr("DROPPED_EXPECTED")?.unbind(),
            issue: inline.getattr("Issue")?.unbind(),
            loads: py.import("json")?.getattr("loads")?.unbind(),
            inline: inline.unbind(),
        })
    })
}

/// Python's answers to the typer's questions (see the module docs), read
/// from and kept in the module-level caches.
pub struct PyOracle {
    /// Whether the module-level caches are read and filled (off: every plan
    /// and member lookup asks Python, for tests that the caches change nothing).
    pub caching: bool,
}

/// `SchemaTyper(schema, max_depth=max_depth)`: the tool's parameters schema.
pub fn new_typer(schema: PyObject, max_depth: usize) -> SchemaTyper {
    Typer::new(PyOracle { caching: true }, schema, max_depth)
}

fn clone_member(py: Python<'_>, member: &Member<PyObject>) -> Member<PyObject> {
    match member {
        Member::Drop => Member::Drop,
        Member::Untouched => Member::Untouched,
        Member::Raw(raw) => Member::Raw(raw.clone_ref(py)),
    }
}

impl PyOracle {
    fn plan_with(
        &self,
        py: Python<'_>,
        raw: &PyObject,
        root: &PyObject,
    ) -> PyResult<Arc<Plan<PyObject>>> {
        let id = (raw.as_ptr() as usize, root.as_ptr() as usize);
        if self.caching {
            if let Some(entry) = caches().as_ref().and_then(|c| c.plans.get(&id)) {
                return Ok(entry.plan.clone());
            }
        }
        let inline = refs(py)?.inline.bind(py);
        let made = inline
            .getattr(intern!(py, "_plan"))?
            .call1((raw.bind(py), root.bind(py)))?;
        let schema = made.get_item(2)?;
        let streams = made.get_item(3)?;
        let streams = streams.downcast::<PyString>()?;
        let plan = Arc::new(Plan {
            schema: (!schema.is_none()).then(|| schema.unbind()),
            streams: wide::chars(&wide_of(streams)).collect(),
            integers: made.get_item(4)?.is_truthy()?,
        });
        if self.caching {
            let entry = PlanEntry {
                _raw: raw.clone_ref(py),
                _root: root.clone_ref(py),
                plan: plan.clone(),
            };
            let mut guard = caches();
            let caches = guard.get_or_insert_with(Caches::default);
            let evicted = if caches.plans.len() >= MAX_PLANS {
                std::mem::take(&mut caches.plans)
            } else {
                Default::default()
            };
            let replaced = caches.plans.insert(id, entry);
            drop(guard);
            drop((evicted, replaced));
        }
        Ok(plan)
    }

    fn member_with(
        &self,
        py: Python<'_>,
        schema: &PyObject,
        key: &[u8],
        path: &[u8],
        issues: &mut Vec<PyObject>,
    ) -> PyResult<Member<PyObject>> {
        let id = schema.as_ptr() as usize;
        if self.caching {
            let guard = caches();
            let found = guard
                .as_ref()
                .and_then(|c| c.members.get(&id))
                .and_then(|m| m.by_key.get(key));
            if let Some(member) = found {
                return Ok(clone_member(py, member));
            }
        }
        let refs = refs(py)?;
        let reported = PyList::empty(py);
        let found = refs
            .inline
            .bind(py)
            .getattr(intern!(py, "member_schema"))?
            .call1((
                schema.bind(py),
                py_of(py, key)?,
                py_of(py, path)?,
                &reported,
            ));
        // (what was reported before a failure stays reported, as in Python,
        // which appends to the typer's own list)
        issues.extend(reported.iter().map(Bound::unbind));
        let found = found?;
        let member = if found.is(refs.drop.bind(py)) {
            Member::Drop
        } else if found.is(refs.untouched.bind(py)) {
            Member::Untouched
        } else {
            Member::Raw(found.unbind())
        };
        if self.caching && reported.is_empty() && key.len() <= MAX_CACHED_KEY {
            let mut guard = caches();
            let caches = guard.get_or_insert_with(Caches::default);
            let evicted = if caches.member_count >= MAX_MEMBERS {
                caches.member_count = 0;
                std::mem::take(&mut caches.members)
            } else {
                Default::default()
            };
            let members = caches.members.entry(id).or_insert_with(|| Members {
                _schema: schema.clone_ref(py),
                by_key: HashMap::new(),
            });
            let replaced = members
                .by_key
                .insert(key.to_vec(), clone_member(py, &member));
            if replaced.is_none() {
                caches.member_count += 1;
            }
            drop(guard);
            drop((evicted, replaced));
        }
        Ok(member)
    }
}

impl SchemaOracle for PyOracle {
    type Schema = PyObject;
    type Issue = PyObject;
    type Error = PyErr;

    fn share(&mut self, schema: &PyObject) -> PyObject {
        Python::with_gil(|py| schema.clone_ref(py))
    }

    fn plan(&mut self, raw: &PyObject, root: &PyObject) -> PyResult<Arc<Plan<PyObject>>> {
        Python::with_gil(|py| self.plan_with(py, raw, root))
    }

    fn member(
        &mut self,
        schema: &PyObject,
        key: &[u8],
        path: &[u8],
        issues: &mut Vec<PyObject>,
    ) -> PyResult<Member<PyObject>> {
        Python::with_gil(|py| self.member_with(py, schema, key, path, issues))
    }

    fn dropped(&mut self, path: &[u8]) -> PyResult<PyObject> {
        Python::with_gil(|py| {
            let refs = refs(py)?;
            let issue = refs.issue.bind(py).call1((
                py_of(py, path)?,
                refs.dropped_expected.bind(py),
                "a value",
                "dropped",
            ))?;
            Ok(issue.unbind())
        })
    }

    fn items(&mut self, schema: &PyObject) -> PyResult<Option<PyObject>> {
        Python::with_gil(|py| {
            let schema = schema.bind(py);
            // schema.get("items"), in the dict itself when it is one
            let key = intern!(py, "items");
            let items = match schema.downcast_exact::<PyDict>() {
                Ok(dict) => dict.get_item(key)?,
                Err(_) => Some(schema.call_method1(intern!(py, "get"), (key,))?),
            };
            Ok(match items {
                Some(items) if !items.is_none() && !items.is(&*PyBool::new(py, true)) => {
                    Some(items.unbind())
                }
                _ => None,
            })
        })
    }

    fn coerce(
        &mut self,
        root: &PyObject,
        max_depth: usize,
        canonical: &[u8],
        raw: Option<&PyObject>,
        path: &[u8],
        depth: usize,
        issues: &mut Vec<PyObject>,
        out: &mut Vec<u8>,
    ) -> PyResult<()> {
        Python::with_gil(|py| {
            let refs = refs(py)?;
            let inline = refs.inline.bind(py);
            let worker = inline
                .getattr(intern!(py, "_Coercer"))?
                .call1((root.bind(py), max_depth))?;
            let value = refs.loads.bind(py).call1((py_of(py, canonical)?,))?;
            let value = worker.call_method1(
                intern!(py, "run"),
                (value, raw.map(|r| r.bind(py)), py_of(py, path)?, depth),
            )?;
            for issue in worker.getattr(intern!(py, "issues"))?.try_iter()? {
                issues.push(issue?.unbind());
            }
            let text = inline
                .getattr(intern!(py, "canonical_json"))?
                .call1((value,))?;
            push_wide(out, text.downcast::<PyString>()?);
            Ok(())
        })
    }

    fn release(&mut self, schema: PyObject) {
        // (let go with the GIL held, not deferred to pyo3's pool)
        Python::with_gil(|_| drop(schema));
    }

    fn index_error(&mut self, what: &'static str) -> PyErr {
        PyIndexError::new_err(what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolparse_core::typing::ValueTyper;

    /// The Python interpreter with `toolparse` importable from this
    /// checkout, or None (then the test is skipped: the crate's own units
    /// need no Python).
    fn python_with_toolparse() -> Option<()> {
        pyo3::prepare_freethreaded_python();
        Python::with_gil(|py| -> PyResult<()> {
            let src = concat!(env!("CARGO_MANIFEST_DIR"), "/../src");
            py.import("sys")?
                .getattr("path")?
                .call_method1("insert", (0, src))?;
            py.import("toolparse.coercion.inline").map(drop)
        })
        .map_err(|e| eprintln!("skipped: toolparse is not importable ({e})"))
        .ok()
    }

    #[test]
    fn drives_through_the_trait() {
        if python_with_toolparse().is_none() {
            return;
        }
        let schema = Python::with_gil(|py| {
            py.eval(
                c"{'type': 'object', 'properties': {'a': {'type': 'integer'}, \
                   'b': {'type': 'string'}, 'c': {'type': 'array', 'items': True}}, \
                   'additionalProperties': False}",
                None,
                None,
            )
            .map(Bound::unbind)
        })
        .expect("a schema");
        let mut typer = new_typer(schema, 64);
        let ch = |c: char| u32::from(c);
        assert!(!typer.begin_value(ch('{')).unwrap());
        assert!(typer.key(b"a").unwrap());
        assert!(typer.begin_value(ch('"')).unwrap()); // (a string where an integer goes)
        let mut out = Vec::new();
        typer.finish_buffered(b"\"12\"", &mut out).unwrap();
        assert_eq!(out, b"12");
        assert!(typer.key(b"a").unwrap());
        assert!(typer.begin_value(ch('7')).unwrap());
        out.clear();
        typer.finish_buffered(b"7", &mut out).unwrap(); // (an integer literal stands)
        assert_eq!(out, b"7");
        assert!(typer.key(b"b").unwrap());
        assert!(!typer.begin_value(ch('"')).unwrap()); // (a plain string streams)
        assert!(!typer.key(b"z z").unwrap()); // (forbidden: dropped)
        assert!(typer.key(b"c").unwrap());
        assert!(!typer.begin_value(ch('[')).unwrap());
        typer.array_item().unwrap();
        assert!(!typer.begin_value(ch('"')).unwrap()); // (items: true, untouched)
        typer.end_container().unwrap();
        assert_eq!(typer.state().next_path, b"$.c[0]");
        typer.end_container().unwrap();
        assert!(typer.end_container().is_err()); // (misuse: an IndexError, no panic)
        let paths: Vec<String> = Python::with_gil(|py| {
            typer
                .issues()
                .iter()
                .map(|issue| issue.bind(py).getattr("path")?.extract::<String>())
                .collect::<PyResult<_>>()
        })
        .unwrap();
        assert_eq!(paths, ["$.a", "$[\"z z\"]"]);
    }
}
