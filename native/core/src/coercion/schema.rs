//! Reading JSON Schemas the way coercion needs them
//! (`toolparse.coercion.schema`, transliterated): which JSON types a schema
//! admits, enum and const values, the branches of `anyOf`/`oneOf`, `$ref`
//! into `$defs`/`definitions` followed (cycles included), `allOf` merged,
//! `{"jsonSchema": ...}` wrappers unwrapped.

use std::collections::HashSet;
use std::sync::Arc;

use super::value::{Object, Value};

/// A resolved schema (an object), or None: no schema.
pub type Schema = Option<Arc<Object>>;

/// The JSON type names, in `TYPES` order.
pub const TYPES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "integer", "string",
];
const MAX_REF_HOPS: usize = 32;
const MAX_BRANCH_NESTING: usize = 8;
const MAX_LEAVES: usize = 256;

/// A set of JSON type names (`frozenset[str]` of [`TYPES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kinds(u8);

impl Kinds {
    pub const ANY: Kinds = Kinds(0x7F);

    fn bit(name: &str) -> Option<u8> {
        TYPES.iter().position(|&t| t == name).map(|k| 1 << k)
    }

    /// `name in kinds`.
    pub fn has(self, name: &str) -> bool {
        Kinds::bit(name).is_some_and(|b| self.0 & b != 0)
    }

    /// `kind in kinds or (kind == "integer" and "number" in kinds)`.
    pub fn admits(self, kind: &str) -> bool {
        self.has(kind) || (kind == "integer" && self.has("number"))
    }

    /// `" or ".join(sorted(kinds))`.
    pub fn expected(self) -> String {
        let mut names: Vec<&str> = TYPES.iter().copied().filter(|t| self.has(t)).collect();
        names.sort_unstable();
        names.join(" or ")
    }

    fn add(&mut self, name: &str) {
        // (non-standard names seen in real tool schemas)
        let name = match name {
            "float" => "number",
            "int" => "integer",
            "bool" => "boolean",
            "str" => "string",
            other => other,
        };
        if let Some(b) = Kinds::bit(name) {
            self.0 |= b;
        }
    }
}

/// `unwrap(schema, root)`: `jsonSchema` wrappers removed, `$ref` followed.
/// None for "no schema"; `false` is `{"not": {}}`.
pub fn unwrap(schema: &Value, root: &Schema) -> Schema {
    let mut schema = schema.clone();
    for _ in 0..MAX_REF_HOPS {
        let object = match &schema {
            Value::Bool(false) => {
                let mut nothing = Object::new();
                nothing.insert(b"not".to_vec(), Value::object(Object::new()));
                return Some(Arc::new(nothing));
            }
            Value::Object(o) => o.clone(),
            _ => return None, // (None, True, or not a schema)
        };
        if object.len() <= 2 {
            if let Some(inner) = object.get(b"jsonSchema") {
                schema = inner.clone();
                continue;
            }
        }
        if let (Some(Value::Str(reference)), Some(root)) = (object.get(b"$ref"), root) {
            let Some(target) = resolve_ref(reference, root) else {
                return Some(Arc::new(object.without(b"$ref")));
            };
            if object.len() > 1 {
                // sibling keywords beside $ref: merged in
                let mut merged = (*target).clone();
                for (k, v) in object.iter() {
                    if k.as_slice() != b"$ref" {
                        merged.insert(k.clone(), v.clone());
                    }
                }
                schema = Value::object(merged);
            } else {
                schema = Value::Object(target);
            }
            continue;
        }
        return Some(object);
    }
    None // a chain of $refs that does not end: no schema
}

/// `resolve_ref(ref, root)`: a local `#/...` reference inside `root`.
pub fn resolve_ref(reference: &[u8], root: &Arc<Object>) -> Option<Arc<Object>> {
    let rest = reference.strip_prefix(b"#")?;
    let mut node = Value::Object(root.clone());
    for part in rest.split(|&b| b == b'/') {
        if part.is_empty() {
            continue;
        }
        let part = replace(&replace(part, b"~1", b"/"), b"~0", b"~");
        let next = node.as_object()?.get(&part)?.clone();
        node = next;
    }
    node.as_object().cloned()
}

fn replace(text: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut k = 0;
    while k < text.len() {
        if text[k..].starts_with(from) {
            out.extend_from_slice(to);
            k += from.len();
        } else {
            out.push(text[k]);
            k += 1;
        }
    }
    out
}

/// `types_of(schema)`: the JSON types a schema admits, detected when `type` is missing.
pub fn types_of(schema: Option<&Object>) -> Kinds {
    let Some(schema) = schema else {
        return Kinds::ANY;
    };
    let mut kinds = Kinds(0);
    match schema.get(b"type") {
        Some(Value::Str(name)) => kinds.add(std::str::from_utf8(name).unwrap_or("")),
        Some(Value::Array(names)) if !names.is_empty() => {
            for name in names.iter() {
                if let Value::Str(name) = name {
                    kinds.add(std::str::from_utf8(name).unwrap_or(""));
                }
            }
        }
        _ => {
            let has = |keys: &[&[u8]]| keys.iter().any(|k| schema.contains(k));
            if has(&[
                b"properties",
                b"additionalProperties",
                b"patternProperties",
                b"required",
            ]) {
                kinds.add("object");
            }
            if has(&[b"items", b"prefixItems"]) {
                kinds.add("array");
            }
            if has(&[b"enum", b"const"]) {
                let values = match schema.get(b"enum") {
                    Some(Value::Array(values)) => Some(values.as_slice()),
                    Some(_) => None,
                    None => schema.get(b"const").map(std::slice::from_ref),
                };
                for value in values.unwrap_or_default() {
                    kinds.add(value.json_type());
                }
            }
            if kinds.0 == 0 {
                return Kinds::ANY;
            }
        }
    }
    kinds
}

/// `branches(schema)`: the alternatives of an `anyOf`/`oneOf` schema.
pub fn branches(schema: &Object) -> Option<&[Value]> {
    for key in [&b"anyOf"[..], b"oneOf"] {
        if let Some(Value::Array(alternatives)) = schema.get(key) {
            if !alternatives.is_empty() {
                return Some(alternatives);
            }
        }
    }
    None
}

/// `merged_all_of(schema, root)`: `allOf` parts merged in (properties united).
pub fn merged_all_of(schema: &Arc<Object>, root: &Schema, depth: usize) -> Arc<Object> {
    let Some(Value::Array(parts)) = schema.get(b"allOf") else {
        return schema.clone();
    };
    if depth > 8 {
        return schema.clone();
    }
    let mut merged = schema.without(b"allOf");
    // (`dict(merged.get("properties") or {})`: a mapping's members, else none)
    let mut properties = match merged.get(b"properties") {
        Some(Value::Object(p)) => (**p).clone(),
        _ => Object::new(),
    };
    for part in parts.iter() {
        let Some(sub) = unwrap(part, root) else {
            continue;
        };
        let sub = merged_all_of(&sub, root, depth + 1);
        for (key, value) in sub.iter() {
            match value {
                Value::Object(more) if key.as_slice() == b"properties" => {
                    for (k, v) in more.iter() {
                        properties.insert(k.clone(), v.clone());
                    }
                }
                _ if !merged.contains(key) => merged.insert(key.clone(), value.clone()),
                _ => {}
            }
        }
    }
    if !properties.is_empty() {
        merged.insert(b"properties".to_vec(), Value::object(properties));
    }
    Arc::new(merged)
}

/// `enum_values(schema)`: the `const` value, or the `enum` list.
pub fn enum_values(schema: &Object) -> Option<&[Value]> {
    if let Some(value) = schema.get(b"const") {
        return Some(std::slice::from_ref(value));
    }
    match schema.get(b"enum") {
        Some(Value::Array(values)) => Some(values),
        _ => None,
    }
}

/// `leaves(schema, root)`: the alternatives of a union with nested unions
/// opened, depth first, each resolved; at most 8 levels and 256 leaves, a
/// leaf reached twice counted once.
pub fn leaves(schema: &Arc<Object>, root: &Schema) -> Vec<Schema> {
    let mut found: Vec<Schema> = Vec::new();
    let mut seen: HashSet<*const Object> = HashSet::new();
    walk(schema, 0, root, &mut found, &mut seen);
    found
}

fn walk(
    node: &Arc<Object>,
    nesting: usize,
    root: &Schema,
    found: &mut Vec<Schema>,
    seen: &mut HashSet<*const Object>,
) {
    let Some(alternatives) = branches(node) else {
        if seen.insert(Arc::as_ptr(node)) {
            found.push(Some(node.clone()));
        }
        return;
    };
    if nesting >= MAX_BRANCH_NESTING {
        return; // (deeper than any real schema nests unions: a cycle)
    }
    for branch in alternatives {
        if found.len() >= MAX_LEAVES {
            return;
        }
        match unwrap(branch, root) {
            None => found.push(None),
            Some(resolved) => walk(
                &merged_all_of(&resolved, root, 0),
                nesting + 1,
                root,
                found,
                seen,
            ),
        }
    }
}
