//! Inline coercion's typer (`toolparse.coercion.inline.SchemaTyper`), native.
//!
//! A [`SchemaTyper`] follows one call's JSON arguments alongside the JSON
//! reader and decides, as each value begins, whether it streams as it is or
//! is collected whole and coerced when complete. Its state is Rust's: the
//! open containers' frames, the schema and path of the next value, the
//! values being collected, and the issues reported. Its per-value work is
//! Rust's too, and Python is called only where the schema must be read with
//! the reference's own functions, and rarely:
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
//!
//! Paths (`$.a[0]["b c"]`) and keys are generalized UTF-8 (see
//! [`crate::wide`]): a key may hold a lone surrogate, which a Rust `String`
//! cannot.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::exceptions::PyIndexError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBool, PyDict, PyList, PyModule, PyString};

use crate::calls_py::{push_wide, py_of, wide_of};
use crate::typing::ValueTyper;
use crate::wide;

/// Plans cached at most (the reference's `inline._MAX_PLANS`).
pub const MAX_PLANS: usize = 4096;
/// Member lookups cached at most, over all object schemas (keys come from
/// the model: the cache must not grow with what it writes).
pub const MAX_MEMBERS: usize = 4096;
/// The longest key (in bytes) whose lookup is cached; a longer one is looked
/// up each time it is met (a model's stray text as a key, not a schema's name).
pub const MAX_CACHED_KEY: usize = 256;

/// `coerce._child_path(path, key)`: `path.key` for a key that
/// `_SIMPLE_KEY` (`[A-Za-z_][A-Za-z0-9_]*`) matches whole, else
/// `path[<json.dumps(key, ensure_ascii=False)>]`.
pub fn child_path(path: &[u8], key: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(path.len() + key.len() + 4);
    child_path_into(&mut out, path, key);
    out
}

/// [`child_path`] written into `out` (cleared first: its buffer reused).
pub fn child_path_into(out: &mut Vec<u8>, path: &[u8], key: &[u8]) {
    out.clear();
    out.extend_from_slice(path);
    if is_simple_key(key) {
        out.push(b'.');
        out.extend_from_slice(key);
    } else {
        out.extend_from_slice(b"[\"");
        push_dumped_body(out, key);
        out.extend_from_slice(b"\"]");
    }
}

/// `_SIMPLE_KEY.fullmatch(key)` (the ranges are ASCII in Python's `re` too).
fn is_simple_key(key: &[u8]) -> bool {
    match key.split_first() {
        Some((&first, rest)) => {
            (first.is_ascii_alphabetic() || first == b'_')
                && rest.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
        }
        None => false,
    }
}

/// The body of `json.dumps(key, ensure_ascii=False)`: what
/// [`wide::push_json_body`] writes, except that a lone surrogate is kept as
/// it is (`json.dumps` keeps it; only the engine's own JSON replaces it).
fn push_dumped_body(out: &mut Vec<u8>, key: &[u8]) {
    for c in wide::chars(key) {
        if wide::is_surrogate(c) {
            wide::push_code_point(out, c);
        } else {
            wide::push_json_body(out, [c]);
        }
    }
}

/// `inline._INT_LITERAL.fullmatch(text)`: `-?(?:0|[1-9][0-9]{0,15})`.
pub fn is_int_literal(text: &[u8]) -> bool {
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    match digits.split_first() {
        Some((b'0', rest)) => rest.is_empty(),
        Some((b'1'..=b'9', rest)) => rest.len() <= 15 && rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// How values of one schema are read (`inline._plan`'s result, less the
/// keys it is cached under).
pub struct Plan {
    /// The resolved schema (`unwrap`, then `merged_all_of`); None: no schema.
    pub schema: Option<PyObject>,
    /// The first characters of a value that streams as it is.
    pub streams: Vec<u32>,
    /// Whether an integer literal stands as it is (the schema takes integers).
    pub integers: bool,
}

/// What a member's key leads to (`inline.member_schema`'s result).
enum Member {
    /// `DROP`: `additionalProperties: false` forbids it.
    Drop,
    /// `UNTOUCHED`: kept as the model wrote it.
    Untouched,
    /// Its raw schema.
    Raw(PyObject),
}

impl Member {
    fn clone_ref(&self, py: Python<'_>) -> Member {
        match self {
            Member::Drop => Member::Drop,
            Member::Untouched => Member::Untouched,
            Member::Raw(raw) => Member::Raw(raw.clone_ref(py)),
        }
    }
}

/// A cached plan and the objects it is keyed by (kept alive, so that their
/// identities are not reused while the entry lives).
struct PlanEntry {
    _raw: PyObject,
    _root: PyObject,
    plan: Arc<Plan>,
}

/// The cached member lookups of one object schema (kept alive, as above).
struct Members {
    _schema: PyObject,
    by_key: HashMap<Vec<u8>, Member>,
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

/// What the members of an open container are read against (`_Frame.schema`).
pub enum Scope {
    /// `UNTOUCHED`: below an unknown property, everything is kept as it is.
    Untouched,
    /// Python's None: no schema (only JSON-looking strings may change).
    Absent,
    /// A resolved schema.
    Schema(PyObject),
}

/// An open container that streams (`_Frame`).
struct Frame {
    scope: Scope,
    path: Vec<u8>,
    /// Items begun so far (arrays).
    count: usize,
}

/// What the next value is read against (`_next_schema`).
enum Next {
    /// `UNTOUCHED`.
    Untouched,
    /// Python's None, set by a container with no schema (its plan is known:
    /// no schema, nothing streams but containers).
    Absent,
    /// A raw schema: any Python object, read through its plan.
    Raw(PyObject),
}

/// A value being collected whole: its raw schema (None: Python's None), its
/// path, and whether an integer literal stands as it is.
struct Buffered {
    raw: Option<PyObject>,
    path: Vec<u8>,
    integers: bool,
}

/// A view of a [`SchemaTyper`]'s state (see [`SchemaTyper::state`]).
pub struct State<'a> {
    /// Each open container's scope, path and items begun, outermost first.
    pub frames: Vec<(&'a Scope, &'a [u8], usize)>,
    /// The next value's raw schema: None for `UNTOUCHED`, `Some(None)` for
    /// Python's None.
    pub next: Option<Option<&'a PyObject>>,
    /// The next value's path.
    pub next_path: &'a [u8],
    /// Each value being collected: its raw schema (None: Python's None), its
    /// path, and whether an integer literal stands as it is.
    pub buffered: Vec<(Option<&'a PyObject>, &'a [u8], bool)>,
}

/// `toolparse.coercion.inline.SchemaTyper`: coerces one call's arguments
/// inline, against the tool's parameters schema (see the module docs).
///
/// Its [`ValueTyper`] methods take the GIL (a counter's increment when the
/// caller holds it, as the reader's caller always does); the `*_with`
/// methods are the same with the caller's token.
pub struct SchemaTyper {
    root: PyObject,
    max_depth: usize,
    issues: Vec<PyObject>,
    frames: Vec<Frame>,
    next_schema: Next,
    next_path: Vec<u8>,
    buffered: Vec<Buffered>,
    /// Whether the module-level caches are read and filled (off: every plan
    /// and member lookup asks Python, for tests that the caches change nothing).
    caching: bool,
}

fn index_error(what: &'static str) -> PyErr {
    PyIndexError::new_err(what)
}

impl SchemaTyper {
    /// `SchemaTyper(schema, max_depth=max_depth)`: the tool's parameters schema.
    pub fn new(py: Python<'_>, schema: PyObject, max_depth: usize) -> SchemaTyper {
        SchemaTyper {
            next_schema: Next::Raw(schema.clone_ref(py)),
            root: schema,
            max_depth,
            issues: Vec::new(),
            frames: Vec::new(),
            next_path: b"$".to_vec(),
            buffered: Vec::new(),
            caching: true,
        }
    }

    /// Read and fill the module-level caches (the default), or not.
    pub fn set_caching(&mut self, on: bool) {
        self.caching = on;
    }

    /// The tool's parameters schema.
    pub fn root(&self) -> &PyObject {
        &self.root
    }

    /// Values nested deeper than this are left as they are by coercion.
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// What coercion changed or could not fix, in order (Python `Issue`s).
    pub fn issues(&self) -> &[PyObject] {
        &self.issues
    }

    /// Every Python object the typer holds (for a binding's `__traverse__`).
    pub fn objects(&self) -> impl Iterator<Item = &PyObject> {
        let next = match &self.next_schema {
            Next::Raw(raw) => Some(raw),
            _ => None,
        };
        let frames = self.frames.iter().filter_map(|f| match &f.scope {
            Scope::Schema(schema) => Some(schema),
            _ => None,
        });
        std::iter::once(&self.root)
            .chain(self.issues.iter())
            .chain(next)
            .chain(frames)
            .chain(self.buffered.iter().filter_map(|b| b.raw.as_ref()))
    }

    /// The typer's state, for comparing it with the reference's (tests):
    /// each frame's scope, path and item count; the next value's raw schema
    /// and path; each collected value's raw schema, path, and whether
    /// integers stand.
    pub fn state(&self) -> State<'_> {
        State {
            frames: self
                .frames
                .iter()
                .map(|f| (&f.scope, f.path.as_slice(), f.count))
                .collect(),
            next: match &self.next_schema {
                Next::Untouched => None,
                Next::Absent => Some(None),
                Next::Raw(raw) => Some(Some(raw)),
            },
            next_path: &self.next_path,
            buffered: self
                .buffered
                .iter()
                .map(|b| (b.raw.as_ref(), b.path.as_slice(), b.integers))
                .collect(),
        }
    }

    /// The plan of `raw` under this typer's root: cached, or asked of
    /// `inline._plan` (and cached).
    fn plan(&self, py: Python<'_>, raw: &PyObject) -> PyResult<Arc<Plan>> {
        let id = (raw.as_ptr() as usize, self.root.as_ptr() as usize);
        if self.caching {
            if let Some(entry) = caches().as_ref().and_then(|c| c.plans.get(&id)) {
                return Ok(entry.plan.clone());
            }
        }
        let inline = refs(py)?.inline.bind(py);
        let made = inline
            .getattr(intern!(py, "_plan"))?
            .call1((raw.bind(py), self.root.bind(py)))?;
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
                _root: self.root.clone_ref(py),
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

    /// `member_schema(schema, key, self._next_path, self.issues)`: cached,
    /// or asked of Python (and cached when it reported nothing).
    fn member(&mut self, py: Python<'_>, schema: &PyObject, key: &[u8]) -> PyResult<Member> {
        let id = schema.as_ptr() as usize;
        if self.caching {
            let guard = caches();
            let found = guard
                .as_ref()
                .and_then(|c| c.members.get(&id))
                .and_then(|m| m.by_key.get(key));
            if let Some(member) = found {
                return Ok(member.clone_ref(py));
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
                py_of(py, &self.next_path)?,
                &reported,
            ));
        // (what was reported before a failure stays reported, as in Python,
        // which appends to the typer's own list)
        self.issues.extend(reported.iter().map(Bound::unbind));
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
            let replaced = members.by_key.insert(key.to_vec(), member.clone_ref(py));
            if replaced.is_none() {
                caches.member_count += 1;
            }
            drop(guard);
            drop((evicted, replaced));
        }
        Ok(member)
    }

    fn buffer(&mut self, raw: Option<PyObject>, path: Vec<u8>, integers: bool) -> bool {
        self.buffered.push(Buffered {
            raw,
            path,
            integers,
        });
        true
    }

    /// [`ValueTyper::begin_value`] with the caller's token.
    pub fn begin_value_with(&mut self, py: Python<'_>, first: u32) -> PyResult<bool> {
        let container = first == u32::from(b'{') || first == u32::from(b'[');
        let quote = first == u32::from(b'"') || first == u32::from(b'\'');
        let path = self.next_path.clone();
        let raw = match &self.next_schema {
            Next::Untouched => {
                if container {
                    self.frames.push(Frame {
                        scope: Scope::Untouched,
                        path,
                        count: 0,
                    });
                }
                return Ok(false);
            }
            Next::Absent => None,
            Next::Raw(raw) => Some(raw.clone_ref(py)),
        };
        let plan = match &raw {
            Some(raw) => Some(self.plan(py, raw)?),
            None => None, // (the plan of None: no schema)
        };
        let Some(Plan {
            schema: Some(schema),
            streams,
            integers,
        }) = plan.as_deref()
        else {
            // no schema: only strings may change (JSON-looking ones)
            if container {
                self.frames.push(Frame {
                    scope: Scope::Absent,
                    path,
                    count: 0,
                });
                return Ok(false);
            }
            return Ok(quote && self.buffer(raw, path, false));
        };
        if streams.contains(&first) {
            if container {
                self.frames.push(Frame {
                    scope: Scope::Schema(schema.clone_ref(py)),
                    path,
                    count: 0,
                });
            }
            return Ok(false);
        }
        Ok(self.buffer(raw, path, *integers))
    }

    /// [`ValueTyper::key`] with the caller's token.
    pub fn key_with(&mut self, py: Python<'_>, key: &[u8]) -> PyResult<bool> {
        let frame = self
            .frames
            .last()
            .ok_or_else(|| index_error("list index out of range"))?;
        child_path_into(&mut self.next_path, &frame.path, key);
        let schema = match &frame.scope {
            Scope::Untouched => {
                self.next_schema = Next::Untouched;
                return Ok(true);
            }
            Scope::Absent => {
                self.next_schema = Next::Absent;
                return Ok(true);
            }
            // (a Bound: let go without pyo3's check for the GIL, a thread-local read)
            Scope::Schema(schema) => schema.bind(py).clone(),
        };
        match self.member(py, schema.as_unbound(), key)? {
            Member::Drop => {
                let refs = refs(py)?;
                let issue = refs.issue.bind(py).call1((
                    py_of(py, &self.next_path)?,
                    refs.dropped_expected.bind(py),
                    "a value",
                    "dropped",
                ))?;
                self.issues.push(issue.unbind());
                return Ok(false);
            }
            Member::Untouched => self.next_schema = Next::Untouched,
            Member::Raw(raw) => self.next_schema = Next::Raw(raw),
        }
        Ok(true)
    }

    /// [`ValueTyper::array_item`] with the caller's token.
    pub fn array_item_with(&mut self, py: Python<'_>) -> PyResult<()> {
        let frame = self
            .frames
            .last_mut()
            .ok_or_else(|| index_error("list index out of range"))?;
        let mut path = Vec::with_capacity(frame.path.len() + 8);
        path.extend_from_slice(&frame.path);
        path.push(b'[');
        path.extend_from_slice(frame.count.to_string().as_bytes());
        path.push(b']');
        self.next_path = path;
        frame.count += 1;
        let schema = match &frame.scope {
            Scope::Untouched => {
                self.next_schema = Next::Untouched;
                return Ok(());
            }
            Scope::Absent => {
                self.next_schema = Next::Absent;
                return Ok(());
            }
            Scope::Schema(schema) => schema.bind(py),
        };
        // schema.get("items"), in the dict itself when it is one
        let key = intern!(py, "items");
        let items = match schema.downcast_exact::<PyDict>() {
            Ok(dict) => dict.get_item(key)?,
            Err(_) => Some(schema.call_method1(intern!(py, "get"), (key,))?),
        };
        self.next_schema = match items {
            Some(items) if !items.is_none() && !items.is(&*PyBool::new(py, true)) => {
                Next::Raw(items.unbind())
            }
            _ => Next::Untouched,
        };
        Ok(())
    }

    /// [`ValueTyper::end_container`].
    pub fn end_container_with(&mut self) -> PyResult<()> {
        self.frames
            .pop()
            .map(drop)
            .ok_or_else(|| index_error("pop from empty list"))
    }

    /// [`ValueTyper::finish_buffered`] with the caller's token.
    pub fn finish_buffered_with(
        &mut self,
        py: Python<'_>,
        canonical: &[u8],
        out: &mut Vec<u8>,
    ) -> PyResult<()> {
        let Buffered {
            raw,
            path,
            integers,
        } = self
            .buffered
            .pop()
            .ok_or_else(|| index_error("pop from empty list"))?;
        if integers && is_int_literal(canonical) {
            // (an integer where the schema takes one: nothing to coerce)
            out.extend_from_slice(canonical);
            return Ok(());
        }
        let refs = refs(py)?;
        let inline = refs.inline.bind(py);
        let worker = inline
            .getattr(intern!(py, "_Coercer"))?
            .call1((self.root.bind(py), self.max_depth))?;
        let value = refs.loads.bind(py).call1((py_of(py, canonical)?,))?;
        let value = worker.call_method1(
            intern!(py, "run"),
            (value, raw, py_of(py, &path)?, self.frames.len()),
        )?;
        for issue in worker.getattr(intern!(py, "issues"))?.try_iter()? {
            self.issues.push(issue?.unbind());
        }
        let text = inline
            .getattr(intern!(py, "canonical_json"))?
            .call1((value,))?;
        push_wide(out, text.downcast::<PyString>()?);
        Ok(())
    }
}

impl ValueTyper for SchemaTyper {
    type Error = PyErr;

    fn begin_value(&mut self, first: u32) -> PyResult<bool> {
        Python::with_gil(|py| self.begin_value_with(py, first))
    }

    fn key(&mut self, key: &[u8]) -> PyResult<bool> {
        Python::with_gil(|py| self.key_with(py, key))
    }

    fn array_item(&mut self) -> PyResult<()> {
        Python::with_gil(|py| self.array_item_with(py))
    }

    fn end_container(&mut self) -> PyResult<()> {
        // (the frame's schema released with the GIL held, not deferred)
        Python::with_gil(|_| self.end_container_with())
    }

    fn finish_buffered(&mut self, canonical: &[u8], out: &mut Vec<u8>) -> PyResult<()> {
        Python::with_gil(|py| self.finish_buffered_with(py, canonical, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(parent: &str, key: &[u8]) -> Vec<u8> {
        child_path(parent.as_bytes(), key)
    }

    #[test]
    fn simple_keys_are_dotted() {
        assert_eq!(path("$", b"a"), b"$.a");
        assert_eq!(path("$.x", b"_a1_B"), b"$.x._a1_B");
        assert_eq!(path("$", b"Z9"), b"$.Z9");
    }

    #[test]
    fn other_keys_are_json_dumped() {
        assert_eq!(path("$", b""), b"$[\"\"]");
        assert_eq!(path("$", b"1a"), b"$[\"1a\"]");
        assert_eq!(path("$", b"a b"), b"$[\"a b\"]");
        assert_eq!(path("$", b"a-b"), b"$[\"a-b\"]");
        assert_eq!(path("$", "\u{e9}".as_bytes()), "$[\"\u{e9}\"]".as_bytes());
        assert_eq!(path("$", "a\u{e9}".as_bytes()), "$[\"a\u{e9}\"]".as_bytes());
        assert_eq!(path("$", b"q\"\\"), b"$[\"q\\\"\\\\\"]");
        assert_eq!(
            path("$", b"\n\t\x00\x1f\x7f"),
            b"$[\"\\n\\t\\u0000\\u001f\x7f\"]"
        );
        // a lone surrogate is kept (json.dumps with ensure_ascii=False keeps it)
        assert_eq!(path("$", b"\xed\xa0\x80"), b"$[\"\xed\xa0\x80\"]");
    }

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
        let mut typer = Python::with_gil(|py| SchemaTyper::new(py, schema, 64));
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

    #[test]
    fn integer_literals() {
        for yes in [
            "0",
            "-0",
            "7",
            "-12",
            "1234567890123456",
            "-1234567890123456",
        ] {
            assert!(is_int_literal(yes.as_bytes()), "{yes}");
        }
        for no in [
            "",
            "-",
            "00",
            "01",
            "+1",
            "1.0",
            "1e3",
            "12345678901234567",
            "--1",
            " 1",
            "1 ",
            "\"1\"",
            "true",
        ] {
            assert!(!is_int_literal(no.as_bytes()), "{no}");
        }
    }
}
