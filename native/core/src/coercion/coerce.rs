//! JSON-Schema-driven coercion of argument values
//! (`toolparse.coercion.coerce`, transliterated: the same names, the same
//! order of rules, the same issue texts).

use super::patterns::pattern_schema;
use super::schema::{branches, enum_values, leaves, merged_all_of, types_of, unwrap, Schema};
use super::text::{boolean_word, casefold, is_digit, no_space, small_int, strip};
use super::value::{
    code_points, loads, loads_string_body, py_in, to_wide, valid_unicode, Loads, Object, Value,
    PY_NESTING_LIMIT,
};
use crate::json::parse_value;
use crate::printable::is_printable;

/// `DEFAULT_MAX_DEPTH`: values nested deeper are left as they are.
pub const DEFAULT_MAX_DEPTH: usize = 64;
/// `MAX_DEPTH_LIMIT`: the largest `max_depth` [`coerce`] takes.
pub const MAX_DEPTH_LIMIT: usize = 100;
/// CPython refuses `int()` of longer digit strings (`_MAX_DIGITS`).
const MAX_DIGITS: usize = 4000;
const NULL_WORDS: [&[u8]; 5] = [b"null", b"NULL", b"Null", b"None", b"none"];
/// When a value's type is not admitted, the targets tried, in this order.
const PREFERENCE: [&str; 7] = [
    "integer", "number", "boolean", "null", "array", "object", "string",
];
/// The `expected` of a member `additionalProperties: false` drops.
pub const DROPPED_EXPECTED: &str = "no such property (additionalProperties is false)";

/// One thing coercion changed, or could not fix, at a JSON path. The texts
/// are generalized UTF-8 (a key in a path may hold a lone surrogate).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub path: Vec<u8>,
    pub expected: Vec<u8>,
    pub got: Vec<u8>,
    pub action: Vec<u8>,
}

impl std::fmt::Display for Issue {
    /// `str(issue)`: `"{path}: expected {expected}, got {got}: {action}"`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = |t: &[u8]| crate::wide::lossy(t);
        write!(
            f,
            "{}: expected {}, got {}: {}",
            text(&self.path),
            text(&self.expected),
            text(&self.got),
            text(&self.action)
        )
    }
}

/// The coerced value and what was done to get it.
#[derive(Clone, Debug)]
pub struct Coerced {
    pub value: Value,
    pub issues: Vec<Issue>,
}

/// `coerce(value, schema, max_depth=...)`: `value` coerced towards `schema`
/// (an object, or anything else for no schema: then strings that hold a JSON
/// object or array are parsed). Values nested deeper than `max_depth` are
/// left as they are. Never fails on model data.
///
/// # Panics
/// When `max_depth` is 0 or over [`MAX_DEPTH_LIMIT`] (misuse, as Python's check raises).
pub fn coerce(value: &Value, schema: &Value, max_depth: usize) -> Coerced {
    assert!(
        (1..=MAX_DEPTH_LIMIT).contains(&max_depth),
        "max_depth must be a positive integer at most {MAX_DEPTH_LIMIT}, not {max_depth}"
    );
    let root = schema.as_object().cloned();
    let mut worker = Coercer::new(root, max_depth);
    let value = worker.run(value, schema, b"$", 0);
    Coerced {
        value,
        issues: worker.issues,
    }
}

/// `_Coercer`: one coercion's schema root, depth bound and issues.
pub struct Coercer {
    root: Schema,
    max_depth: usize,
    pub issues: Vec<Issue>,
}

impl Coercer {
    pub fn new(root: Schema, max_depth: usize) -> Coercer {
        Coercer {
            root,
            max_depth,
            issues: Vec::new(),
        }
    }

    fn report(&mut self, path: &[u8], expected: &str, value: &Value, action: &str) {
        self.issues.push(Issue {
            path: path.to_vec(),
            expected: expected.as_bytes().to_vec(),
            got: describe(value),
            action: action.as_bytes().to_vec(),
        });
    }

    /// `run(value, raw_schema, path, depth)`: `value` coerced towards the
    /// (unresolved) schema `raw` at `path`, `depth` levels down.
    pub fn run(&mut self, value: &Value, raw: &Value, path: &[u8], depth: usize) -> Value {
        let schema = unwrap(raw, &self.root);
        if depth > self.max_depth {
            let action = format!("left as is past depth {}", self.max_depth);
            self.report(path, "a shallower value", value, &action);
            return value.clone();
        }
        let Some(schema) = schema else {
            return self.no_schema(value, path, depth);
        };
        let mut schema = merged_all_of(&schema, &self.root, 0);
        if branches(&schema).is_some() {
            // a union: the first branch that admits the value as it is goes on here
            let alternatives = leaves(&schema, &self.root);
            match alternatives
                .iter()
                .find(|leaf| admits_leaf(leaf.as_deref(), value))
            {
                Some(None) => return self.no_schema(value, path, depth),
                Some(Some(leaf)) => schema = leaf.clone(),
                None => return self.any_of(value, &alternatives, path, depth),
            }
        }
        let kinds = types_of(Some(&schema));
        let kind = value.json_type();
        if kinds.admits(kind) {
            return match value {
                Value::Object(o) => self.object(o, &schema, path, depth),
                Value::Array(items) => self.array(items, &schema, path, depth),
                _ => self.admitted(value, &schema, path),
            };
        }
        if let Value::Float(f) = value {
            if kinds.has("integer") && f.is_finite() && f.fract() == 0.0 {
                return self.converted(path, "integer", value, Value::int_from_float(*f));
            }
        }
        for target in PREFERENCE {
            if kinds.has(target) {
                if let Some(result) = self.convert(value, target, &schema, path, depth) {
                    return result;
                }
            }
        }
        self.report(path, &kinds.expected(), value, "kept as is");
        value.clone()
    }

    fn converted(&mut self, path: &[u8], expected: &str, old: &Value, new: Value) -> Value {
        let action = [b"converted to ".as_slice(), &describe(&new)].concat();
        self.issues.push(Issue {
            path: path.to_vec(),
            expected: expected.as_bytes().to_vec(),
            got: describe(old),
            action,
        });
        new
    }

    /// A scalar of an admitted type: an enum string fixed if it needs it.
    fn admitted(&mut self, value: &Value, schema: &Object, path: &[u8]) -> Value {
        if let (Some(values), Value::Str(text)) = (enum_values(schema), value) {
            if !py_in(value, values) {
                if let Some(found) = enum_match(text, values) {
                    return self.converted(path, "one of the enum values", value, found);
                }
                self.report(path, "one of the enum values", value, "kept as is");
            }
        }
        value.clone()
    }

    /// No branch of a union admits the value as it is: the first that admits
    /// it after coercion, else the value unchanged.
    fn any_of(
        &mut self,
        value: &Value,
        alternatives: &[Schema],
        path: &[u8],
        depth: usize,
    ) -> Value {
        for branch in alternatives {
            let mut trial = Coercer::new(self.root.clone(), self.max_depth);
            let raw = branch.clone().map_or(Value::Null, Value::Object);
            let result = trial.run(value, &raw, path, depth);
            if admits_leaf(branch.as_deref(), &result) {
                self.issues.append(&mut trial.issues);
                return result;
            }
        }
        self.report(
            path,
            "a value one of the anyOf/oneOf branches admits",
            value,
            "kept as is",
        );
        value.clone()
    }

    // -- conversions ------------------------------------------------------------------

    fn convert(
        &mut self,
        value: &Value,
        target: &str,
        schema: &Object,
        path: &[u8],
        depth: usize,
    ) -> Option<Value> {
        if let Value::Str(text) = value {
            return self.of_string(value, text, target, schema, path, depth);
        }
        if target == "string" && !matches!(value, Value::Null) {
            return Some(self.converted(path, "string", value, Value::Str(value.dumps())));
        }
        if target == "array" {
            if let Value::Object(o) = value {
                let items = xml_list(o)?;
                self.report(
                    path,
                    "array",
                    value,
                    "an XML-shaped object read as its list",
                );
                return Some(self.array(&items, schema, path, depth));
            }
            self.report(path, "array", value, "wrapped in a one-element array");
            return Some(self.array(std::slice::from_ref(value), schema, path, depth));
        }
        None
    }

    /// `from_string`: a string converted towards `target`, or None.
    fn of_string(
        &mut self,
        value: &Value,
        text: &[u8],
        target: &str,
        schema: &Object,
        path: &[u8],
        depth: usize,
    ) -> Option<Value> {
        let chars = code_points(text);
        let stripped = strip(&chars);
        match target {
            "boolean" => {
                let found = boolean_word(stripped)?;
                Some(self.converted(path, "boolean", value, Value::Bool(found)))
            }
            "null" => {
                // (reached only where the schema admits null but not a string;
                // Qwen3.5 templates write Python's None)
                let word = to_wide(stripped);
                NULL_WORDS
                    .contains(&word.as_slice())
                    .then(|| self.converted(path, "null", value, Value::Null))
            }
            "integer" | "number" => {
                if let Some(number) = parse_number(stripped, target == "integer") {
                    return Some(self.converted(path, target, value, number));
                }
                if stripped.len() > MAX_DIGITS && is_int(stripped) {
                    self.report(path, target, value, "kept as a string: too many digits");
                    return Some(value.clone());
                }
                None
            }
            "object" => match parse_json(stripped, true) {
                Some(Value::Object(o)) => {
                    self.report(path, "object", value, "parsed as JSON");
                    Some(self.object(&o, schema, path, depth))
                }
                _ => None,
            },
            "array" => {
                match parse_json(stripped, true) {
                    Some(Value::Array(items)) => {
                        self.report(path, "array", value, "parsed as JSON");
                        return Some(self.array(&items, schema, path, depth));
                    }
                    Some(Value::Object(o)) => {
                        if let Some(items) = xml_list(&o) {
                            self.report(
                                path,
                                "array",
                                value,
                                "parsed as JSON, an XML-shaped object",
                            );
                            return Some(self.array(&items, schema, path, depth));
                        }
                    }
                    _ => {}
                }
                if unsplit(stripped) {
                    // (markup, or a JSON container JSON refused: its lines or commas
                    // are not the items the model meant; kept a string, and reported)
                    return None;
                }
                let parts = split(stripped);
                self.report(
                    path,
                    "array",
                    value,
                    &format!("split into {} element(s)", parts.len()),
                );
                Some(self.array(&parts, schema, path, depth))
            }
            _ => None,
        }
    }

    // -- containers -------------------------------------------------------------------

    fn object(&mut self, value: &Object, schema: &Object, path: &[u8], depth: usize) -> Value {
        let empty = Object::new();
        let properties = match schema.get(b"properties") {
            Some(Value::Object(p)) => p.as_ref(),
            _ => &empty,
        };
        let patterns = match schema.get(b"patternProperties") {
            Some(Value::Object(p)) => p.as_ref(),
            _ => &empty,
        };
        let additional = schema.get(b"additionalProperties");
        let mut result = Object::new();
        for (key, item) in value.iter() {
            let here = child_path(path, key);
            if let Some(sub) = properties.get(key) {
                let coerced = self.run(item, sub, &here, depth + 1);
                result.insert(key.clone(), coerced);
                continue;
            }
            let found = pattern_schema(patterns, key, &mut |pattern, why| {
                self.issues.push(pattern_issue(&here, key, pattern, why));
            });
            if let Some(sub) = found {
                let coerced = self.run(item, &sub, &here, depth + 1);
                result.insert(key.clone(), coerced);
            } else if let Some(Value::Bool(false)) = additional {
                self.report(&here, DROPPED_EXPECTED, item, "dropped");
            } else if let Some(sub @ Value::Object(_)) = additional {
                let coerced = self.run(item, sub, &here, depth + 1);
                result.insert(key.clone(), coerced);
            } else {
                result.insert(key.clone(), item.clone()); // (unknown properties: kept untouched)
            }
        }
        Value::object(result)
    }

    fn array(&mut self, value: &[Value], schema: &Object, path: &[u8], depth: usize) -> Value {
        let items = schema.get(b"items");
        let per_item: Vec<&Value> = match (schema.get(b"prefixItems"), items) {
            (Some(Value::Array(prefix)), _) if prefix.len() == value.len() => {
                prefix.iter().collect()
            }
            (_, Some(Value::Array(tuple))) => {
                // (the older tuple form of items)
                if tuple.len() != value.len() {
                    return Value::array(value.to_vec());
                }
                tuple.iter().collect()
            }
            (_, None | Some(Value::Null) | Some(Value::Bool(true))) => {
                return Value::array(value.to_vec())
            }
            (_, Some(each)) => vec![each; value.len()],
        };
        let mut result = Vec::with_capacity(value.len());
        for (k, item) in value.iter().enumerate() {
            let here = [path, format!("[{k}]").as_bytes()].concat();
            result.push(self.run(item, per_item[k], &here, depth + 1));
        }
        Value::array(result)
    }

    /// No schema at all: strings holding a JSON object or array are parsed.
    fn no_schema(&mut self, value: &Value, path: &[u8], depth: usize) -> Value {
        match value {
            Value::Str(text) => {
                let chars = code_points(text);
                let stripped = strip(&chars);
                let (Some(&first), Some(&last)) = (stripped.first(), stripped.last()) else {
                    return value.clone();
                };
                if (first == 0x7B || first == 0x5B) && (last == 0x7D || last == 0x5D) {
                    if let Some(parsed @ (Value::Object(_) | Value::Array(_))) =
                        parse_json(stripped, true)
                    {
                        self.report(path, "any JSON", value, "parsed as JSON");
                        return self.no_schema(&parsed, path, depth + 1);
                    }
                }
                value.clone()
            }
            _ if depth > self.max_depth => value.clone(),
            Value::Object(o) => {
                let mut result = Object::new();
                for (key, item) in o.iter() {
                    let coerced = self.no_schema(item, &child_path(path, key), depth + 1);
                    result.insert(key.clone(), coerced);
                }
                Value::object(result)
            }
            Value::Array(items) => {
                let mut result = Vec::with_capacity(items.len());
                for (k, item) in items.iter().enumerate() {
                    let here = [path, format!("[{k}]").as_bytes()].concat();
                    result.push(self.no_schema(item, &here, depth + 1));
                }
                Value::array(result)
            }
            _ => value.clone(),
        }
    }
}

// -- helpers ------------------------------------------------------------------------------

/// `_admits_leaf`: a shallow check against a resolved schema with no union:
/// the value's type is admitted, and so is it by enum/const.
pub fn admits_leaf(schema: Option<&Object>, value: &Value) -> bool {
    let Some(schema) = schema else {
        return true;
    };
    if !types_of(Some(schema)).admits(value.json_type()) {
        return false;
    }
    enum_values(schema).is_none_or(|values| py_in(value, values))
}

/// `_INT.fullmatch(text)`: `[+-]?[0-9]+`.
fn is_int(text: &[u32]) -> bool {
    let digits = match text.first() {
        Some(0x2B | 0x2D) => &text[1..],
        _ => text,
    };
    !digits.is_empty() && digits.iter().all(|&c| (0x30..=0x39).contains(&c))
}

/// `_FLOAT.fullmatch(text)`: `[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?`.
fn is_float(text: &[u32]) -> bool {
    let digit = |c: &u32| (0x30..=0x39).contains(c);
    let mut k = usize::from(matches!(text.first(), Some(0x2B | 0x2D)));
    let run = |k: usize| text[k..].iter().take_while(|c| digit(c)).count();
    let whole = run(k);
    k += whole;
    if whole > 0 {
        if text.get(k) == Some(&0x2E) {
            k += 1;
            k += run(k);
        }
    } else {
        if text.get(k) != Some(&0x2E) {
            return false;
        }
        let fraction = run(k + 1);
        if fraction == 0 {
            return false;
        }
        k += 1 + fraction;
    }
    if matches!(text.get(k), Some(0x45 | 0x65)) {
        k += 1;
        if matches!(text.get(k), Some(0x2B | 0x2D)) {
            k += 1;
        }
        let exponent = run(k);
        if exponent == 0 {
            return false;
        }
        k += exponent;
    }
    k == text.len()
}

fn parse_number(text: &[u32], integer: bool) -> Option<Value> {
    let ascii = || -> String { text.iter().map(|&c| char::from(c as u8)).collect() };
    if is_int(text) {
        if text.len() > MAX_DIGITS {
            return None;
        }
        return Some(Value::int_from_digits(ascii().as_bytes()));
    }
    if !is_float(text) {
        return None;
    }
    let number: f64 = ascii().parse().ok()?;
    if !number.is_finite() {
        return None;
    }
    if integer {
        return (number.fract() == 0.0).then(|| Value::int_from_float(number));
    }
    Some(Value::Float(number))
}

/// `_loads`: strict JSON (no NaN, infinities, or floats beyond a double's
/// range), its strings valid Unicode when it escapes a surrogate.
fn strict_loads(text: &[u32]) -> Option<Value> {
    let value = loads(text, Loads { constants: false })?;
    let escapes_surrogate = text.windows(4).any(|w| {
        w[0] == 0x5C
            && w[1] == u32::from(b'u')
            && (w[2] == 0x64 || w[2] == 0x44)
            && char::from_u32(w[3]).is_some_and(|c| matches!(c, '8'..='9' | 'a'..='f' | 'A'..='F'))
    });
    Some(if escapes_surrogate {
        made_valid(&value)
    } else {
        value
    })
}

/// `_valid`: every string (keys included) made valid Unicode.
fn made_valid(value: &Value) -> Value {
    match value {
        Value::Str(s) => Value::Str(valid_unicode(s)),
        Value::Array(items) => Value::array(items.iter().map(made_valid).collect()),
        Value::Object(o) => Value::object(
            o.iter()
                .map(|(k, v)| (valid_unicode(k), made_valid(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `_parse_json`: strict JSON first, then the tolerant reader (quotes, Python
/// literals, commas), then JSON escaped once more; None where none reads it.
pub fn parse_json(text: &[u32], escaped_once: bool) -> Option<Value> {
    if let Some(value) = strict_loads(text) {
        return Some(value);
    }
    if let Some(canonical) = parse_value(text, DEFAULT_MAX_DEPTH) {
        return loads(&code_points(&canonical), Loads { constants: true });
    }
    if escaped_once && text.windows(2).any(|w| w == [0x5C, 0x22]) {
        let unescaped = loads_string_body(text)?;
        // (its \u escapes are decoded now: a lone surrogate among them is one)
        let valid = code_points(&valid_unicode(&to_wide(&unescaped)));
        return parse_json(&valid, false);
    }
    None
}

/// `_UNSPLIT.search(text)`: a tag (`<[/!?|\uff5cA-Za-z][^<>]*>`), or the
/// whole text a JSON container's brackets (`\A[\[{].*[\]}]\Z`).
fn unsplit(text: &[u32]) -> bool {
    if text.len() >= 2
        && matches!(text[0], 0x5B | 0x7B)
        && matches!(text[text.len() - 1], 0x5D | 0x7D)
    {
        return true;
    }
    let opener = |c: u32| {
        matches!(c, 0x2F | 0x21 | 0x3F | 0x7C | 0xFF5C)
            || char::from_u32(c).is_some_and(|c| c.is_ascii_alphabetic())
    };
    let mut k = 0;
    while k < text.len() {
        if text[k] == 0x3C && text.get(k + 1).is_some_and(|&c| opener(c)) {
            // (the run after it stops at the next `<` or `>`: each character is looked at once)
            match text[k + 2..].iter().position(|&c| c == 0x3C || c == 0x3E) {
                Some(at) if text[k + 2 + at] == 0x3E => return true,
                Some(at) => k += 2 + at,
                None => return false,
            }
        } else {
            k += 1;
        }
    }
    false
}

/// `_split`: an array written as lines or as a comma-separated list.
fn split(text: &[u32]) -> Vec<Value> {
    let separator = if text.contains(&0x0A) {
        0x0A
    } else if text.contains(&0x2C) {
        0x2C
    } else {
        u32::MAX
    };
    text.split(|&c| c == separator)
        .map(strip)
        .filter(|part| !part.is_empty())
        .map(|part| Value::Str(to_wide(part)))
        .collect()
}

/// `_xml_list`: the list an XML-shaped object stands for: `{"item": [...]}`
/// or any single key holding a list; `{"item": x}`; `{"0": a, "1": b}`
/// (all-digit keys, ordered by index).
fn xml_list(value: &Object) -> Option<Vec<Value>> {
    if value.len() == 1 {
        let (key, inner) = value.iter().next()?;
        if let Value::Array(items) = inner {
            return Some(items.to_vec());
        }
        if key.as_slice() == b"item" {
            return Some(vec![inner.clone()]);
        }
    }
    let mut indexed = Vec::with_capacity(value.len());
    for (key, item) in value.iter() {
        let chars = code_points(key);
        if chars.is_empty() || chars.len() >= 10 || !chars.iter().all(|&c| is_digit(c)) {
            return None;
        }
        // (a digit that is no decimal, `"²"`: Python's int() raises there; here no list)
        indexed.push((small_int(&chars)?, item));
    }
    if indexed.is_empty() {
        return None;
    }
    indexed.sort_by_key(|&(index, _)| index); // (stable, as sorted() is)
    Some(indexed.into_iter().map(|(_, item)| item.clone()).collect())
}

/// `_enum_match`: an enum member the string means: without surrounding quotes,
/// then ignoring whitespace, then case; only an unambiguous match counts.
fn enum_match(text: &[u8], values: &[Value]) -> Option<Value> {
    let chars = code_points(text);
    let mut stripped = strip(&chars);
    let n = stripped.len();
    if n >= 2 && stripped[0] == stripped[n - 1] && matches!(stripped[0], 0x22 | 0x27) {
        let unquoted = Value::Str(to_wide(&stripped[1..n - 1]));
        if py_in(&unquoted, values) {
            return Some(unquoted);
        }
        stripped = strip(&stripped[1..n - 1]);
    }
    let candidate = Value::Str(to_wide(stripped));
    if py_in(&candidate, values) {
        return Some(candidate);
    }
    let strings: Vec<(&Value, Vec<u32>)> = values
        .iter()
        .filter_map(|v| v.as_str().map(|s| (v, code_points(s))))
        .collect();
    type Fold = fn(&[u32]) -> Vec<u32>;
    let folds: [Fold; 2] = [no_space, |t| casefold(&no_space(t))];
    for fold in folds {
        let target = fold(stripped);
        let mut found = strings.iter().filter(|(_, s)| fold(s) == target);
        if let (Some((v, _)), None) = (found.next(), found.next()) {
            return Some((*v).clone());
        }
    }
    None
}

/// The issue of a `patternProperties` pattern not applied to `key` (`pattern_reporter`).
pub fn pattern_issue(path: &[u8], key: &[u8], pattern: &[u8], why: &str) -> Issue {
    let expected = format!(
        "a key matched against the pattern {}",
        crate::json::repr_str(&code_points(pattern), is_printable)
    );
    Issue {
        path: path.to_vec(),
        expected: expected.into_bytes(),
        got: describe(&Value::Str(key.to_vec())),
        action: format!("not matched: {why}").into_bytes(),
    }
}

/// `_child_path(path, key)`: `path.key` for an identifier, else `path["key"]`.
pub fn child_path(path: &[u8], key: &[u8]) -> Vec<u8> {
    let simple = key
        .first()
        .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_')
        && key.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_');
    let mut out = path.to_vec();
    if simple {
        out.push(b'.');
        out.extend_from_slice(key);
    } else {
        out.push(b'[');
        super::value::push_json_string(&mut out, key);
        out.push(b']');
    }
    out
}

/// `_describe(value)`: a value as short JSON, for an issue (an integer whole,
/// anything else cut to 60 characters).
pub fn describe(value: &Value) -> Vec<u8> {
    match value {
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) | Value::Null => {
            return value.canonical_json()
        }
        Value::Array(_) | Value::Object(_) if value.nesting() > PY_NESTING_LIMIT => {
            return format!("a deeply nested {}", value.json_type()).into_bytes();
        }
        _ => {}
    }
    let text = value.dumps();
    let chars = code_points(&text);
    if chars.len() <= 60 {
        return text;
    }
    let mut out = to_wide(&chars[..57]);
    out.extend_from_slice(b"...");
    out
}
