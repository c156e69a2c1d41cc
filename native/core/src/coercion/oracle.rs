//! [`RustOracle`]: the [`SchemaOracle`] of the core's own coercion, so that
//! `Typer<RustOracle>` is `toolparse.coercion.inline.SchemaTyper` without
//! Python: schemas are [`Value`]s, issues are [`Issue`]s, and each of the
//! typer's questions is answered by the port of the function the Python
//! typer calls (`_plan`, `member_schema`, `schema.get("items")`,
//! `_Coercer.run`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::coerce::{Coercer, Issue, DROPPED_EXPECTED};
use super::inline::{member_schema, plan, Member as InlineMember};
use super::value::{code_points, loads, Loads, Value};
use crate::typer::{Member, Plan, SchemaOracle, Typer};

/// What a Rust host reports where the Python reference raises: each variant
/// is the Python exception's type, with its argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RustError {
    /// `IndexError(what)`: a reader misused the typer.
    Index(&'static str),
    /// `KeyError(key)` (generalized UTF-8): a member ended after its call closed.
    Key(Vec<u8>),
    /// `ValueError(message)`: a value the reference refuses.
    Value(String),
}

impl std::fmt::Display for RustError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RustError::Index(what) => write!(f, "IndexError: {what}"),
            RustError::Key(key) => write!(f, "KeyError: {:?}", crate::wide::lossy(key)),
            RustError::Value(message) => write!(f, "ValueError: {message}"),
        }
    }
}

impl std::error::Error for RustError {}

/// Plans kept at most (`inline._MAX_PLANS`).
const MAX_PLANS: usize = 4096;

/// A plan kept by the identities of its raw schema and root, which it holds
/// (so that neither address is reused while it is kept), as `inline._PLANS`.
type KeptPlan = (Value, Value, Arc<Plan<Value>>);

/// Plans worked out, by the identities of the raw schema and the root: one
/// tool's schema serves every call, so a plan is worked out once per schema
/// object (`inline._PLANS`). Shared by the oracles cloned from one.
#[derive(Default)]
pub struct PlanCache {
    plans: HashMap<(usize, usize), KeptPlan>,
}

/// The identity of a schema that is a container (the only ones kept).
fn identity(value: &Value) -> Option<usize> {
    match value {
        Value::Object(object) => Some(Arc::as_ptr(object) as usize),
        Value::Array(items) => Some(Arc::as_ptr(items) as usize),
        _ => None,
    }
}

/// The core coercion's answers to a [`Typer`] (see the module docs).
/// Cloning one shares its plans.
#[derive(Clone, Default)]
pub struct RustOracle {
    cache: Arc<Mutex<PlanCache>>,
}

/// `SchemaTyper` without Python.
pub type RustTyper = Typer<RustOracle>;

impl RustOracle {
    /// An oracle with plans of its own.
    pub fn new() -> RustOracle {
        RustOracle::default()
    }

    /// `SchemaTyper(schema, max_depth=max_depth)` answered by this oracle
    /// (its plans shared with it).
    pub fn typer(&self, schema: Value, max_depth: usize) -> RustTyper {
        Typer::new(self.clone(), schema, max_depth)
    }

    /// How many plans are kept.
    pub fn plans_kept(&self) -> usize {
        self.lock().plans.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PlanCache> {
        // (a plan is inserted whole or not at all: a poisoned lock holds no half-written entry)
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `_plan(raw, root)`, worked out.
fn plan_of(raw: &Value, root: &Value) -> Plan<Value> {
    let made = plan(raw, &root.as_object().cloned());
    Plan {
        schema: made.schema.map(Value::Object),
        streams: made.streams.chars().map(u32::from).collect(),
        integers: made.integers,
    }
}

impl SchemaOracle for RustOracle {
    type Schema = Value;
    type Issue = Issue;
    type Error = RustError;

    fn share(&mut self, schema: &Value) -> Value {
        schema.clone()
    }

    fn plan(&mut self, raw: &Value, root: &Value) -> Result<Arc<Plan<Value>>, RustError> {
        let Some(key) = identity(raw).zip(identity(root)) else {
            return Ok(Arc::new(plan_of(raw, root)));
        };
        if let Some((_, _, kept)) = self.lock().plans.get(&key) {
            return Ok(kept.clone());
        }
        let made = Arc::new(plan_of(raw, root));
        let mut cache = self.lock();
        if cache.plans.len() >= MAX_PLANS {
            cache.plans.clear();
        }
        cache
            .plans
            .insert(key, (raw.clone(), root.clone(), made.clone()));
        Ok(made)
    }

    fn member(
        &mut self,
        schema: &Value,
        key: &[u8],
        path: &[u8],
        issues: &mut Vec<Issue>,
    ) -> Result<Member<Value>, RustError> {
        // (a frame's schema is a plan's resolved schema: always an object)
        let Value::Object(object) = schema else {
            return Err(RustError::Value(
                "a member of a schema that is no object".into(),
            ));
        };
        Ok(match member_schema(object, key, path, issues) {
            InlineMember::Schema(raw) => Member::Raw(raw),
            InlineMember::Drop => Member::Drop,
            InlineMember::Untouched => Member::Untouched,
        })
    }

    fn dropped(&mut self, path: &[u8]) -> Result<Issue, RustError> {
        Ok(Issue {
            path: path.to_vec(),
            expected: DROPPED_EXPECTED.as_bytes().to_vec(),
            got: b"a value".to_vec(),
            action: b"dropped".to_vec(),
        })
    }

    fn items(&mut self, schema: &Value) -> Result<Option<Value>, RustError> {
        let items = match schema {
            Value::Object(object) => object.get(b"items"),
            _ => None,
        };
        Ok(match items {
            None | Some(Value::Null | Value::Bool(true)) => None,
            Some(items) => Some(items.clone()),
        })
    }

    fn coerce(
        &mut self,
        root: &Value,
        max_depth: usize,
        canonical: &[u8],
        raw: Option<&Value>,
        path: &[u8],
        depth: usize,
        issues: &mut Vec<Issue>,
        out: &mut Vec<u8>,
    ) -> Result<(), RustError> {
        // (the reader's canonical JSON of a complete value: json.loads reads it)
        let Some(value) = loads(&code_points(canonical), Loads { constants: true }) else {
            return Err(RustError::Value(format!(
                "not JSON: {}",
                crate::wide::lossy(canonical)
            )));
        };
        let mut worker = Coercer::new(root.as_object().cloned(), max_depth);
        let value = worker.run(&value, raw.unwrap_or(&Value::Null), path, depth);
        issues.append(&mut worker.issues);
        out.extend_from_slice(&value.canonical_json());
        Ok(())
    }

    fn index_error(&mut self, what: &'static str) -> RustError {
        RustError::Index(what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::typing::ValueTyper;

    fn json(text: &str) -> Value {
        let chars: Vec<u32> = text.chars().map(u32::from).collect();
        loads(&chars, Loads { constants: true }).unwrap()
    }

    #[test]
    fn a_typer_over_the_port() {
        let schema = json(
            r#"{"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}, "l": {"type": "array", "items": {"type": "boolean"}}}, "additionalProperties": false}"#,
        );
        let oracle = RustOracle::new();
        let mut typer = oracle.typer(schema, 64);
        let ch = |c: char| u32::from(c);
        assert!(!typer.begin_value(ch('{')).unwrap());
        assert!(typer.key(b"n").unwrap());
        assert!(typer.begin_value(ch('"')).unwrap());
        let mut out = Vec::new();
        typer.finish_buffered(b"\"42\"", &mut out).unwrap();
        assert_eq!(out, b"42");
        assert!(typer.key(b"s").unwrap());
        assert!(!typer.begin_value(ch('"')).unwrap()); // (a plain string streams)
        assert!(!typer.key(b"zz").unwrap()); // (dropped)
        assert!(typer.key(b"l").unwrap());
        assert!(!typer.begin_value(ch('[')).unwrap());
        typer.array_item().unwrap();
        assert!(typer.begin_value(ch('"')).unwrap());
        out.clear();
        typer.finish_buffered(b"\"true\"", &mut out).unwrap();
        assert_eq!(out, b"true");
        typer.end_container().unwrap();
        typer.end_container().unwrap();
        assert_eq!(
            typer.end_container(),
            Err(RustError::Index("pop from empty list"))
        );
        let issues: Vec<String> = typer.issues().iter().map(ToString::to_string).collect();
        assert_eq!(
            issues,
            [
                "$.n: expected integer, got \"42\": converted to 42",
                "$.zz: expected no such property (additionalProperties is false), got a value: dropped",
                "$.l[0]: expected boolean, got \"true\": converted to true",
            ]
        );
        // (one plan a schema object, kept)
        assert!(oracle.plans_kept() >= 3);
    }
}
