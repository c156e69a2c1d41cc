//! What a call needs, answered in Rust: [`RustCalls`] implements
//! [`calls::Host`](crate::calls::Host) and
//! [`calls_json::JsonHost`](crate::calls_json::JsonHost) with coercion's
//! [`Value`] for Python's objects, so that `MemberCall` and `JsonCall` build
//! a call's arguments with no Python: the answers the engine's `CallEnv`
//! (`native/src/ctx.rs`) gets from the Python reference, from the core's
//! ports of it (coercion, the inline coercer's [`RustOracle`], Python
//! literals, XML fragments, seeded ids). The future `RustHost` of the engine
//! delegates to it.
//!
//! * The tools come from a JSON list, as `toolparse.tools.normalize_tools`
//!   reads one ([`RustTools::from_json`]).
//! * Issues are values here: the `Host` traits carry a call's issues as
//!   their `Value` (the binding's are Python `Issue` objects), so an
//!   [`Issue`] travels as the object `{"path", "expected", "got",
//!   "action"}` ([`issue_value`], [`issue_of`]) until the traits get an
//!   `Issue` type of their own.
//! * `start` and `delta`, which the binding answers with events, are recorded
//!   ([`RecordedEvent`]): that part changes shape when the engine emits them.
//!
//! Where it differs from the reference (rare input, documented in
//! `docs/core-engine-plan.md`, section 2.6): a Python literal the core
//! reader declines (a `\N{...}` escape, a decimal integer past 640 digits,
//! nesting past 200) is refused as not a literal; `patternProperties`
//! patterns outside RE2's syntax are reported as not applied.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::calls::{Coerced, Converted, Host, MemberCall, Mode, Plan};
use crate::calls_json::JsonHost;
use crate::coercion::inline::{member_schema, text_streams, wants_array, Member};
use crate::coercion::oracle::{RustError, RustOracle, RustTyper};
use crate::coercion::value::{code_points, loads, to_wide, Loads};
use crate::coercion::{
    child_path, coerce, Coercer, Issue, Object, Value, DEFAULT_MAX_DEPTH, DROPPED_EXPECTED,
    MAX_DEPTH_LIMIT,
};
use crate::ids::{id_str, IdSource, RandomIds, SeededIds};
use crate::pyliteral::{self, Build, Failure, Int, Scalar};
use crate::wide;

// -- the tools ----------------------------------------------------------------------------------

/// A declared tool.
#[derive(Clone, Debug)]
pub struct RustTool {
    /// Its name (ASCII: `[A-Za-z0-9_.:-]{1,128}`).
    pub name: String,
    pub description: String,
    /// Its parameters schema (an object).
    pub parameters: Value,
}

/// The declared tools (`CallContext.tools`), and what is worked out from
/// their schemas, kept for every stream that shares them (`Arc<RustTools>`),
/// as the Python side keeps it by the schemas' identities: each member's
/// plan (`calls._SHARED_PLANS`) and the inline coercer's plans
/// (`inline._PLANS`).
#[derive(Default)]
pub struct RustTools {
    /// In the order declared.
    pub tools: Vec<RustTool>,
    by_name: HashMap<Vec<u8>, usize>,
    /// Members' plans, by tool and key.
    plans: Mutex<MemberPlans>,
    /// The typers' oracle (its clones share its plans).
    oracle: RustOracle,
}

impl std::fmt::Debug for RustTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RustTools")
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

/// Python's `repr` of a JSON value, for the messages of a bad tool.
fn py_repr(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Int(n) => n.to_string(),
        Value::BigInt(digits) => digits.to_string(),
        Value::Float(x) => crate::coercion::value::float_text(*x),
        Value::Str(text) => pyliteral::repr(&code_points(text)),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(py_repr).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(object) => {
            let members: Vec<String> = object
                .iter()
                .map(|(k, v)| format!("{}: {}", pyliteral::repr(&code_points(k)), py_repr(v)))
                .collect();
            format!("{{{}}}", members.join(", "))
        }
    }
}

/// `type(value).__name__` of a JSON value as Python reads it.
fn py_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::BigInt(_) => "int",
        Value::Float(_) => "float",
        Value::Str(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// `_NAME.fullmatch(name)`: `[A-Za-z0-9_.:\-]{1,128}`.
fn valid_name(name: &[u8]) -> bool {
    (1..=128).contains(&name.len())
        && name
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

/// Python's truth of a JSON value (`x or ""`).
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Int(n) => *n != 0,
        Value::BigInt(_) => true,
        Value::Float(x) => *x != 0.0,
        Value::Str(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(object) => !object.is_empty(),
    }
}

impl RustTools {
    /// The tools of a JSON list, each OpenAI's `{"type": "function",
    /// "function": {"name", "description", "parameters"}}` or a bare
    /// `{"name", "description", "parameters"}` (the schema may also be
    /// named `input_schema` or `schema`; none: an object with no
    /// properties), checked as `toolparse.tools.normalize_tools` checks them,
    /// with its messages (`InvalidToolError`'s). A list of `Tool`s or of
    /// pydantic models is Python's alone.
    pub fn from_json(text: &str) -> Result<RustTools, String> {
        let chars: Vec<u32> = text.chars().map(u32::from).collect();
        let value = loads(&chars, Loads { constants: true })
            .ok_or_else(|| "the tools are not JSON".to_owned())?;
        RustTools::from_value(&value)
    }

    /// [`RustTools::from_json`] of a value already read.
    pub fn from_value(value: &Value) -> Result<RustTools, String> {
        let Value::Array(specs) = value else {
            return Err("tools must be a list of tool definitions".into());
        };
        let mut tools = RustTools::default();
        for spec in specs.iter() {
            let tool = to_tool(spec)?;
            let name = tool.name.as_bytes().to_vec();
            if tools.by_name.contains_key(&name) {
                return Err(format!(
                    "two tools are named {}",
                    py_repr(&Value::str(&tool.name))
                ));
            }
            tools.by_name.insert(name, tools.tools.len());
            tools.tools.push(tool);
        }
        Ok(tools)
    }

    /// Tools already checked (the binding's, read from Python's
    /// `CallContext.tools`: `normalize_tools` checked them). A name given
    /// twice: the last one is the tool, as a dict keeps it.
    pub fn of(tools: Vec<RustTool>) -> RustTools {
        let mut known = RustTools::default();
        for tool in tools {
            let name = tool.name.as_bytes().to_vec();
            match known.by_name.get(&name) {
                Some(&at) => known.tools[at] = tool,
                None => {
                    known.by_name.insert(name, known.tools.len());
                    known.tools.push(tool);
                }
            }
        }
        known
    }

    /// The tool named `name` (generalized UTF-8).
    pub fn get(&self, name: &[u8]) -> Option<&RustTool> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    /// `CallContext.member_plan(name, key, root)`: worked out once per tool
    /// and key (bounded: the keys come from the model).
    fn member_plan(&self, name: &[u8], key: &[u8], root: &Value) -> KeptPlan {
        // (a plan is inserted whole or not at all: a poisoned lock holds no half-written one)
        let lock = || self.plans.lock().unwrap_or_else(PoisonError::into_inner);
        // (looked up by borrowed name and key: no allocation once planned)
        if let Some(kept) = lock().by_tool.get(name).and_then(|keys| keys.get(key)) {
            return kept.clone();
        }
        let made = plan_of(root, key);
        PLANS_WORKED_OUT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut plans = lock();
        if plans.count >= MAX_PLANS {
            plans.by_tool.clear();
            plans.count = 0;
        }
        plans.count += 1;
        plans
            .by_tool
            .entry(name.to_vec())
            .or_default()
            .insert(key.to_vec(), made.clone());
        made
    }

    /// `CallContext.tool_names`: the names, sorted.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.tools.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        names
    }
}

/// `to_tool(spec)` of a dict (see [`RustTools::from_json`]).
fn to_tool(spec: &Value) -> Result<RustTool, String> {
    let Value::Object(spec) = spec else {
        return Err(format!(
            "a tool must be a Tool or a dict, not {}",
            py_type(spec)
        ));
    };
    let mut body = spec;
    if let Some(inner) = spec.get(b"function") {
        let kind = spec.get(b"type").cloned().unwrap_or(Value::str("function"));
        if !matches!(&kind, Value::Str(k) if k == b"function") {
            return Err(format!(
                "tool of type {} is not a function tool",
                py_repr(&kind)
            ));
        }
        let Value::Object(inner) = inner else {
            return Err("'function' must be an object with name and parameters".into());
        };
        body = inner;
    }
    let Some(name) = body.get(b"name") else {
        return Err(format!(
            "tool definition has no 'name': {}",
            py_repr(&Value::Object(body.clone()))
        ));
    };
    let parameters = match [&b"parameters"[..], b"input_schema", b"schema"]
        .iter()
        .find_map(|key| body.get(key))
    {
        None | Some(Value::Null) => {
            let mut empty = Object::new();
            empty.insert(b"type".to_vec(), Value::str("object"));
            empty.insert(b"properties".to_vec(), Value::object(Object::new()));
            Value::object(empty)
        }
        Some(parameters) => parameters.clone(),
    };
    let description = match body.get(b"description") {
        Some(d) if truthy(d) => d.clone(),
        _ => Value::str(""),
    };
    let named = || py_repr(name);
    let Value::Str(name_text) = name else {
        return Err(format!(
            "tool name {} is not valid: use 1 to 128 letters, digits, '_', '.', ':' or '-'",
            named()
        ));
    };
    if !valid_name(name_text) {
        return Err(format!(
            "tool name {} is not valid: use 1 to 128 letters, digits, '_', '.', ':' or '-'",
            named()
        ));
    }
    let Value::Str(description) = description else {
        return Err(format!("tool {}: description must be a string", named()));
    };
    let Value::Object(schema) = &parameters else {
        return Err(format!(
            "tool {}: parameters must be a JSON Schema object (a dict)",
            named()
        ));
    };
    let kind = schema.get(b"type").cloned().unwrap_or(Value::str("object"));
    if !matches!(&kind, Value::Str(k) if k == b"object") {
        return Err(format!(
            "tool {}: parameters must describe an object (type 'object'), not {}",
            named(),
            py_repr(&kind)
        ));
    }
    if !matches!(schema.get(b"properties"), None | Some(Value::Object(_))) {
        return Err(format!("tool {}: 'properties' must be an object", named()));
    }
    let required_ok = match schema.get(b"required") {
        None => true,
        Some(Value::Array(items)) => items.iter().all(|i| matches!(i, Value::Str(_))),
        Some(_) => false,
    };
    if !required_ok {
        return Err(format!(
            "tool {}: 'required' must be a list of property names",
            named()
        ));
    }
    Ok(RustTool {
        // (valid_name: ASCII)
        name: String::from_utf8_lossy(name_text).into_owned(),
        description: wide::lossy(&description),
        parameters,
    })
}

// -- issues as values ---------------------------------------------------------------------------

/// An issue as the value the `Host` traits carry: `{"path", "expected",
/// "got", "action"}`.
pub fn issue_value(issue: &Issue) -> Value {
    let mut object = Object::new();
    for (key, text) in [
        ("path", &issue.path),
        ("expected", &issue.expected),
        ("got", &issue.got),
        ("action", &issue.action),
    ] {
        object.insert(key.as_bytes().to_vec(), Value::Str(text.clone()));
    }
    Value::object(object)
}

/// The issue an [`issue_value`] stands for.
pub fn issue_of(value: &Value) -> Option<Issue> {
    let object = value.as_object()?;
    let field = |key: &[u8]| object.get(key).and_then(Value::as_str).map(<[u8]>::to_vec);
    Some(Issue {
        path: field(b"path")?,
        expected: field(b"expected")?,
        got: field(b"got")?,
        action: field(b"action")?,
    })
}

/// The issues of a list of [`issue_value`]s (what `JsonHost::issues` and
/// `coerce_held` give).
pub fn issues_of(value: &Value) -> Vec<Issue> {
    value
        .as_array()
        .map(|items| items.iter().filter_map(issue_of).collect())
        .unwrap_or_default()
}

fn issue_list(issues: &[Issue]) -> Value {
    Value::array(issues.iter().map(issue_value).collect())
}

// -- Python literals ----------------------------------------------------------------------------

/// Builds coercion's values from a Python literal (`parse_literal`'s
/// `str`, `int`, `float`, `bool`, None, `list`, `dict`).
pub struct ValueBuild;

/// The decimal text of a big integer's digits in `radix` (no limit: the
/// reader declines the numbers Python would refuse).
fn decimal_digits(negative: bool, digits: &[u8], radix: u32) -> Option<String> {
    if radix == 10 {
        let mut text = String::from(if negative { "-" } else { "" });
        text.extend(digits.iter().map(|&d| char::from(d)));
        return Some(text);
    }
    let mut limbs: Vec<u64> = Vec::new(); // base 10**9, least significant first
    for &d in digits {
        let mut carry = u64::from(char::from(d).to_digit(radix)?);
        for limb in &mut limbs {
            let n = *limb * u64::from(radix) + carry;
            *limb = n % 1_000_000_000;
            carry = n / 1_000_000_000;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    let mut text = String::from(if negative { "-" } else { "" });
    let mut limbs = limbs.iter().rev();
    text.push_str(&limbs.next().map_or_else(|| "0".into(), u64::to_string));
    for limb in limbs {
        text.push_str(&format!("{limb:09}"));
    }
    Some(text)
}

impl Build for ValueBuild {
    type Value = Value;

    fn scalar(&mut self, scalar: Scalar) -> Option<Value> {
        Some(match scalar {
            Scalar::Str(points) => Value::Str(to_wide(&points)),
            Scalar::Int(Int::Small(n)) => Value::Int(n),
            Scalar::Int(Int::Big {
                negative,
                digits,
                radix,
            }) => Value::int_from_digits(decimal_digits(negative, &digits, radix)?.as_bytes()),
            Scalar::Float(x) => Value::Float(x),
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::None => Value::Null,
        })
    }

    fn list(&mut self, items: Vec<Value>) -> Option<Value> {
        Some(Value::array(items))
    }

    fn dict(&mut self, pairs: Vec<(Vec<u32>, Value)>) -> Option<Value> {
        Some(Value::object(
            pairs
                .into_iter()
                .map(|(key, value)| (to_wide(&key), value))
                .collect(),
        ))
    }
}

/// What the core literal reader says where it declines (Python would read on).
pub const LITERAL_DECLINED: &str =
    "not read without Python (a \\N{...} escape, a very long integer, or deep nesting)";

// -- the calls' host ----------------------------------------------------------------------------

/// How a member call reads a collected member's text (the engine's
/// `Machine._python_literal`, `Machine._fragment`, or as it is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convert {
    Text,
    Literal,
    Fragment,
}

/// What `start` and `delta` recorded: a call announced (its index, id and
/// name), a piece of its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordedEvent {
    Start {
        index: i64,
        id: String,
        name: Vec<u8>,
    },
    Delta {
        index: i64,
        id: String,
        piece: Vec<u8>,
    },
}

/// How many members' plans were worked out (not found kept), in this
/// process: tests check that tools shared by streams are planned once.
pub static PLANS_WORKED_OUT: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

/// Member plans kept at most (`calls._MAX_PLANS`).
const MAX_PLANS: usize = 4096;

/// A member's plan, kept: its schema (None: Python's None, or `UNTOUCHED`,
/// which a member call reads alike), its mode, the issues it reports.
type KeptPlan = (Option<Value>, Mode, Vec<Value>);

/// Members' plans, by tool name and key.
#[derive(Default)]
struct MemberPlans {
    /// By tool, then by key.
    by_tool: HashMap<Vec<u8>, HashMap<Vec<u8>, KeptPlan>>,
    /// Plans kept (bounded: the keys come from the model).
    count: usize,
}

/// The calls of one stream, answered in Rust (see the module docs): the
/// pure-Rust `CallContext` and the calls' `Host`.
pub struct RustCalls {
    /// The declared tools (None: none declared, any name is known).
    pub tools: Option<Arc<RustTools>>,
    pub coerce: bool,
    pub max_depth: usize,
    /// How the next member call converts its members.
    pub convert: Convert,
    ids: IdSource,
    /// The index the next call announced gets.
    pub next_index: i64,
    /// The call being read, once started: its index and id.
    current: Option<(i64, String)>,
    /// What `start` and `delta` were asked, in order.
    pub events: Vec<RecordedEvent>,
    /// The seed of the ids (None: random ones).
    seed: Option<i128>,
}

impl RustCalls {
    /// `CallContext(tools, max_depth=max_depth, coerce=coerce, seed=seed)`:
    /// random ids, or `random.Random(seed)`'s. Fails where `max_depth` is not
    /// in 1 to 100, as `StreamParser` does.
    pub fn new(
        tools: Option<Arc<RustTools>>,
        max_depth: usize,
        coerce: bool,
        seed: Option<i128>,
    ) -> Result<RustCalls, RustError> {
        if !(1..=MAX_DEPTH_LIMIT).contains(&max_depth) {
            return Err(RustError::Value(format!(
                "max_depth must be a positive integer at most {MAX_DEPTH_LIMIT}, not {max_depth}"
            )));
        }
        Ok(RustCalls {
            tools,
            coerce,
            max_depth,
            convert: Convert::Text,
            ids: match seed {
                None => IdSource::Random(RandomIds::new()),
                Some(seed) => IdSource::Seeded(SeededIds::new(seed)),
            },
            next_index: 0,
            current: None,
            events: Vec::new(),
            seed,
        })
    }

    /// `CallContext.fresh()`: a context for another stream like this one (a
    /// shadow read, a parser made from a prototype): the same tools (their
    /// plans shared) and options, no call yet, ids of its own (seeded alike).
    pub fn fresh(&self) -> RustCalls {
        RustCalls {
            tools: self.tools.clone(),
            coerce: self.coerce,
            max_depth: self.max_depth,
            convert: Convert::Text,
            ids: match self.seed {
                None => IdSource::Random(RandomIds::new()),
                Some(seed) => IdSource::Seeded(SeededIds::new(seed)),
            },
            next_index: 0,
            current: None,
            events: Vec::new(),
            seed: self.seed,
        }
    }

    /// `CallContext.schema_of(name)`.
    pub fn schema_of(&self, name: &[u8]) -> Option<&Value> {
        Some(&self.tools.as_ref()?.get(name)?.parameters)
    }

    /// `CallContext.property_names_of(name)`: the tool's properties, sorted
    /// (None: no such tool, or a schema that names none).
    pub fn property_names_of(&self, name: &[u8]) -> Option<Vec<Vec<u8>>> {
        let properties = self.schema_of(name)?.as_object()?.get(b"properties")?;
        let properties = properties.as_object()?;
        if properties.is_empty() {
            return None;
        }
        // (generalized UTF-8 sorts as its code points: Python's order)
        let mut names: Vec<Vec<u8>> = properties.iter().map(|(k, _)| k.clone()).collect();
        names.sort_unstable();
        Some(names)
    }

    /// `MemberCall(ctx, name, convert, literal=literal)` with this context:
    /// the tool's schema when coercion applies, JSON sniffed when no tools
    /// are declared. Its members convert as `self.convert` says.
    pub fn member_call(
        &mut self,
        name: &[u8],
        literal: bool,
    ) -> Result<MemberCall<Value>, RustError> {
        let root = if self.coerce {
            self.schema_of(name).cloned()
        } else {
            None
        };
        let schemaless = self.tools.is_none() && self.coerce;
        MemberCall::new(self, name.to_vec(), root, schemaless, literal)
    }
}

/// `_member_plan(root, key)`, worked out.
fn plan_of(root: &Value, key: &[u8]) -> KeptPlan {
    let mut issues = Vec::new();
    let path = child_path(b"$", key);
    let root_schema = root.as_object().cloned();
    let Some(object) = &root_schema else {
        // (a tool's schema is an object: checked when the tools were read)
        return (None, Mode::Stream, Vec::new());
    };
    let (schema, mode) = match member_schema(object, key, &path, &mut issues) {
        Member::Drop => {
            issues.push(Issue {
                path,
                expected: DROPPED_EXPECTED.as_bytes().to_vec(),
                got: b"a value".to_vec(),
                action: b"dropped".to_vec(),
            });
            (None, Mode::Drop)
        }
        // (`UNTOUCHED` streams, and is never coerced: a member call reads it as None)
        Member::Untouched => (None, Mode::Stream),
        Member::Schema(schema) => {
            let mode = if wants_array(&schema, &root_schema) {
                Mode::Defer
            } else if text_streams(&schema, &root_schema) {
                Mode::Stream
            } else {
                Mode::Buffer
            };
            // (a JSON null is Python's None)
            ((!matches!(schema, Value::Null)).then_some(schema), mode)
        }
    };
    (schema, mode, issues.iter().map(issue_value).collect())
}

/// `f"argument {key!r} is not a literal: {message}"` (`message`
/// generalized UTF-8).
pub fn literal_problem(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut problem = b"argument ".to_vec();
    problem.extend_from_slice(pyliteral::repr(&code_points(key)).as_bytes());
    problem.extend_from_slice(b" is not a literal: ");
    problem.extend_from_slice(message);
    problem
}

/// `_python_literal(text)` as the core reads it: the value, or why it is no
/// literal; None where the core's reader declines (a `\N{...}` escape, a
/// very long integer, deep nesting: see [`LITERAL_DECLINED`]).
pub fn literal_of(text: &str, key: &[u8], max_depth: usize) -> Option<Converted<Value>> {
    let points: Vec<u32> = text.chars().map(u32::from).collect();
    let max_depth = i64::try_from(max_depth).unwrap_or(i64::MAX);
    match pyliteral::parse_literal(&points, max_depth, &mut ValueBuild) {
        Ok(value) => Some(Converted::Value(value)),
        Err(Failure::Error(message)) => {
            Some(Converted::Invalid(literal_problem(key, message.as_bytes())))
        }
        Err(Failure::Decline) => None,
    }
}

/// `json.loads(text)` of generalized UTF-8.
fn json_loads(text: &[u8]) -> Result<Value, RustError> {
    loads(&code_points(text), Loads { constants: true })
        .ok_or_else(|| RustError::Value(format!("not JSON: {}", wide::lossy(wide::head(text, 80)))))
}

impl Host for RustCalls {
    type Value = Value;
    type Error = RustError;

    fn is_known(&mut self, name: &[u8]) -> Result<bool, RustError> {
        Ok(self.tools.as_ref().is_none_or(|t| t.get(name).is_some()))
    }

    fn start(&mut self, name: &[u8]) -> Result<(), RustError> {
        let index = self.next_index;
        self.next_index += 1;
        let id = id_str(&self.ids.next_id()).to_owned();
        self.events.push(RecordedEvent::Start {
            index,
            id: id.clone(),
            name: name.to_vec(),
        });
        self.current = Some((index, id));
        Ok(())
    }

    fn delta(&mut self, piece: &[u8]) -> Result<(), RustError> {
        let Some((index, id)) = &self.current else {
            return Err(RustError::Value("a delta of a call not started".into()));
        };
        self.events.push(RecordedEvent::Delta {
            index: *index,
            id: id.clone(),
            piece: piece.to_vec(),
        });
        Ok(())
    }

    fn member_plan(
        &mut self,
        name: &[u8],
        key: &[u8],
        root: &Value,
    ) -> Result<Plan<Value>, RustError> {
        let (schema, mode, issues) = match &self.tools {
            Some(tools) => tools.member_plan(name, key, root),
            None => plan_of(root, key),
        };
        Ok(Plan {
            schema,
            mode,
            issues,
        })
    }

    fn convert(&mut self, text: &str, key: &[u8]) -> Result<Converted<Value>, RustError> {
        Ok(match self.convert {
            Convert::Text => Converted::Value(Value::str(text)),
            Convert::Fragment => {
                let points: Vec<u32> = text.chars().map(u32::from).collect();
                Converted::Value(crate::fragment::fragment_value(&points, self.max_depth))
            }
            Convert::Literal => literal_of(text, key, self.max_depth).unwrap_or_else(|| {
                Converted::Invalid(literal_problem(key, LITERAL_DECLINED.as_bytes()))
            }),
        })
    }

    fn coerce_at(
        &mut self,
        value: Value,
        schema: Option<&Value>,
        root: Option<&Value>,
        key: &[u8],
    ) -> Result<Coerced<Value>, RustError> {
        // (`inline.coerce_at` at its default depth bound, as the reference calls it)
        let mut worker = Coercer::new(root.and_then(|r| r.as_object().cloned()), DEFAULT_MAX_DEPTH);
        let path = child_path(b"$", key);
        let value = worker.run(&value, schema.unwrap_or(&Value::Null), &path, 1);
        Ok(Coerced {
            value,
            issues: worker.issues.iter().map(issue_value).collect(),
        })
    }

    fn list(&mut self, values: Vec<Value>) -> Result<Value, RustError> {
        Ok(Value::array(values))
    }

    fn canonical_json(&mut self, value: &Value, out: &mut Vec<u8>) -> Result<(), RustError> {
        out.extend_from_slice(&value.canonical_json());
        Ok(())
    }

    fn coerce_json(&mut self, text: &str, out: &mut Vec<u8>) -> Result<(), RustError> {
        let coerced = coerce(&Value::str(text), &Value::Null, DEFAULT_MAX_DEPTH);
        out.extend_from_slice(&coerced.value.canonical_json());
        Ok(())
    }

    fn key_error(&mut self, key: &[u8]) -> RustError {
        RustError::Key(key.to_vec())
    }

    fn none(&mut self) -> Value {
        Value::Null
    }

    fn sole_string_of(&mut self, root: Option<&Value>) -> Result<Option<Value>, RustError> {
        let Some(root) = root.and_then(Value::as_object) else {
            return Ok(None);
        };
        let Some(Value::Object(properties)) = root.get(b"properties") else {
            return Ok(None);
        };
        if properties.len() != 1 {
            return Ok(None);
        }
        let Some((name, schema)) = properties.iter().next() else {
            return Ok(None);
        };
        Ok(text_streams(schema, &Some(root.clone())).then(|| Value::Str(name.clone())))
    }
}

impl JsonHost for RustCalls {
    type Typer = RustTyper;

    fn typer_for(&mut self, name: &[u8]) -> Result<Option<RustTyper>, RustError> {
        if !self.coerce {
            return Ok(None);
        }
        let Some(tools) = &self.tools else {
            return Ok(None);
        };
        let schema = tools.get(name).map(|tool| tool.parameters.clone());
        Ok(schema.map(|schema| tools.oracle.typer(schema, self.max_depth)))
    }

    fn coerce_held(
        &mut self,
        name: &[u8],
        held: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<Option<Value>, RustError> {
        if !self.coerce {
            return Ok(None);
        }
        let Some(schema) = self.schema_of(name).cloned() else {
            return Ok(None);
        };
        let value = json_loads(held)?;
        let coerced = coerce(&value, &schema, self.max_depth);
        out.extend_from_slice(&coerced.value.canonical_json());
        Ok(Some(issue_list(&coerced.issues)))
    }

    fn issues(
        &mut self,
        typer: Option<&RustTyper>,
        extra: Option<&Value>,
    ) -> Result<Value, RustError> {
        Ok(match (typer, extra) {
            (Some(typer), _) => issue_list(typer.issues()),
            (None, Some(extra)) => extra.clone(),
            (None, None) => Value::array(Vec::new()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_as_python_reads_them() {
        let tools = RustTools::from_json(
            r#"[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
                {"name": "b.x", "description": null, "input_schema": {"properties": {}}},
                {"name": "c"}]"#,
        )
        .unwrap();
        assert_eq!(tools.names(), ["b.x", "c", "get_weather"]);
        assert_eq!(
            tools.get(b"c").unwrap().parameters.canonical_json(),
            br#"{"type":"object","properties":{}}"#
        );
        // (each message recorded from toolparse.tools.normalize_tools)
        for (text, message) in [
            (r#"{}"#, "tools must be a list of tool definitions"),
            (r#"[3]"#, "a tool must be a Tool or a dict, not int"),
            (
                r#"[{"type": "x", "function": {}}]"#,
                "tool of type 'x' is not a function tool",
            ),
            (
                r#"[{"description": "d"}]"#,
                "tool definition has no 'name': {'description': 'd'}",
            ),
            (
                r#"[{"name": "a b"}]"#,
                "tool name 'a b' is not valid: use 1 to 128 letters, digits, '_', '.', ':' or '-'",
            ),
            (
                r#"[{"name": "a", "parameters": {"type": "array"}}]"#,
                "tool 'a': parameters must describe an object (type 'object'), not 'array'",
            ),
            (
                r#"[{"name": "a", "parameters": {"required": "x"}}]"#,
                "tool 'a': 'required' must be a list of property names",
            ),
            (
                r#"[{"name": "a"}, {"name": "a"}]"#,
                "two tools are named 'a'",
            ),
        ] {
            assert_eq!(RustTools::from_json(text).unwrap_err(), message, "{text}");
        }
    }

    #[test]
    fn literals_and_issues_as_values() {
        let mut calls = RustCalls::new(None, 64, true, Some(0)).unwrap();
        calls.convert = Convert::Literal;
        let Converted::Value(value) = calls
            .convert("{'a': [1, 0x1_0000_0000_0000_0000, None]}", b"k")
            .unwrap()
        else {
            panic!("not read")
        };
        assert_eq!(
            value.canonical_json(),
            br#"{"a":[1,18446744073709551616,null]}"#
        );
        let Converted::Invalid(problem) = calls.convert("[1,", b"k").unwrap() else {
            panic!("read")
        };
        assert!(problem.starts_with(b"argument 'k' is not a literal: "));
        let issue = Issue {
            path: b"$.a".to_vec(),
            expected: b"integer".to_vec(),
            got: b"\"x\"".to_vec(),
            action: b"kept as is".to_vec(),
        };
        assert_eq!(issue_of(&issue_value(&issue)), Some(issue));
        assert!(RustCalls::new(None, 101, true, None).is_err());
    }

    #[test]
    fn a_fresh_context_shares_the_tools_and_is_seeded_alike() {
        let tools = RustTools::from_json(
            r#"[{"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}]"#,
        )
        .unwrap();
        let mut calls = RustCalls::new(Some(Arc::new(tools)), 8, true, Some(42)).unwrap();
        let root = calls.schema_of(b"f").cloned().unwrap();
        let plan = calls.member_plan(b"f", b"n", &root).unwrap();
        assert_eq!((plan.mode, plan.schema.is_some()), (Mode::Buffer, true));
        calls.start(b"f").unwrap();
        let mut fresh = calls.fresh();
        fresh.start(b"f").unwrap();
        assert_eq!(fresh.events, calls.events); // (index 0, the seed's first id)
        assert_eq!(fresh.max_depth, 8);
        let tools = fresh.tools.as_ref().unwrap();
        assert_eq!(tools.plans.lock().unwrap().count, 1); // (the plan worked out above)
        assert!(fresh.typer_for(b"f").unwrap().is_some());
        assert!(fresh.typer_for(b"g").unwrap().is_none());
    }
}
