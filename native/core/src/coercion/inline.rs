//! What the streaming typer asks of a schema (`toolparse.coercion.inline`'s
//! `member_schema`, `text_streams`, `wants_array`, `_plan`), for the engine's
//! typer when it runs without Python. The value-by-value coercion itself is
//! [`Coercer::run`](super::Coercer::run) with the member's path and depth.

use std::sync::Arc;

use super::coerce::{pattern_issue, Issue};
use super::patterns::pattern_schema;
use super::schema::{branches, enum_values, leaves, merged_all_of, types_of, unwrap, Schema};
use super::value::{Object, Value};

/// A member's schema as `member_schema` gives it.
#[derive(Clone, Debug)]
pub enum Member {
    /// Coerced towards this (unresolved) schema.
    Schema(Value),
    /// `additionalProperties: false` forbids it (`DROP`).
    Drop,
    /// An unknown property: kept as the model wrote it (`UNTOUCHED`).
    Untouched,
}

/// `member_schema(schema, key, path, issues)`: the schema of member `key` (at
/// `path`) of an object schema, as coercion looks it up: a property, a
/// matching `patternProperties` pattern, the `additionalProperties` schema.
/// A pattern not applied is reported in `issues`.
pub fn member_schema(schema: &Object, key: &[u8], path: &[u8], issues: &mut Vec<Issue>) -> Member {
    if let Some(Value::Object(properties)) = schema.get(b"properties") {
        if let Some(found) = properties.get(key) {
            return Member::Schema(found.clone());
        }
    }
    if let Some(Value::Object(patterns)) = schema.get(b"patternProperties") {
        if !patterns.is_empty() {
            let found = pattern_schema(patterns, key, &mut |pattern, why| {
                issues.push(pattern_issue(path, key, pattern, why));
            });
            if let Some(found) = found {
                return Member::Schema(found);
            }
        }
    }
    match schema.get(b"additionalProperties") {
        Some(Value::Bool(false)) => Member::Drop,
        Some(additional @ Value::Object(_)) => Member::Schema(additional.clone()),
        _ => Member::Untouched,
    }
}

/// `text_streams(raw, root)`: a text value under this schema is a plain
/// string (a string schema with no enum and no union), so it can stream.
pub fn text_streams(raw: &Value, root: &Schema) -> bool {
    let Some(schema) = unwrap(raw, root) else {
        return false;
    };
    let schema = merged_all_of(&schema, root, 0);
    branches(&schema).is_none()
        && enum_values(&schema).is_none()
        && types_of(Some(&schema)).has("string")
}

/// `wants_array(raw, root)`: the schema admits an array (a repeated member collects into one).
pub fn wants_array(raw: &Value, root: &Schema) -> bool {
    let Some(schema) = unwrap(raw, root) else {
        return false;
    };
    let schema = merged_all_of(&schema, root, 0);
    if branches(&schema).is_some() {
        return leaves(&schema, root).iter().any(|leaf| {
            leaf.as_deref()
                .is_some_and(|leaf| types_of(Some(leaf)).has("array"))
        });
    }
    types_of(Some(&schema)).has("array")
}

/// How values of one schema are read (`_plan`).
#[derive(Clone, Debug)]
pub struct Plan {
    /// The resolved schema (None: no schema).
    pub schema: Option<Arc<Object>>,
    /// The first characters of a value that streams as it is (`"'`, `{`, `[`).
    pub streams: String,
    /// An integer literal stands as it is.
    pub integers: bool,
}

/// `_plan(raw, root)`.
pub fn plan(raw: &Value, root: &Schema) -> Plan {
    let mut streams = String::new();
    let mut integers = false;
    let schema = unwrap(raw, root).map(|schema| merged_all_of(&schema, root, 0));
    if let Some(schema) = &schema {
        if branches(schema).is_none() && enum_values(schema).is_none() {
            let kinds = types_of(Some(schema));
            if kinds.has("string") {
                streams.push_str("\"'");
            }
            if kinds.has("object") {
                streams.push('{');
            }
            let tuple = matches!(schema.get(b"items"), Some(Value::Array(_)));
            if kinds.has("array") && !schema.contains(b"prefixItems") && !tuple {
                streams.push('[');
            }
            integers = kinds.has("integer") || kinds.has("number");
        }
    }
    Plan {
        schema,
        streams,
        integers,
    }
}

#[cfg(test)]
mod tests {
    use super::super::value::{loads, Loads};
    use super::*;

    fn json(text: &str) -> Value {
        let chars: Vec<u32> = text.chars().map(u32::from).collect();
        loads(&chars, Loads { constants: true }).unwrap()
    }

    #[test]
    fn members_plans_and_streams() {
        let schema = json(
            r#"{"type": "object", "properties": {"a": {"type": "string"}}, "patternProperties": {"^n_": {"type": "integer"}, "(?=x)": {}}, "additionalProperties": false}"#,
        );
        let object = schema.as_object().unwrap();
        let mut issues = Vec::new();
        assert!(matches!(
            member_schema(object, b"a", b"$.a", &mut issues),
            Member::Schema(_)
        ));
        assert!(matches!(
            member_schema(object, b"n_1", b"$.n_1", &mut issues),
            Member::Schema(_)
        ));
        assert!(matches!(
            member_schema(object, b"z", b"$.z", &mut issues),
            Member::Drop
        ));
        // (the lookahead, not read here, is reported for "z" only: "n_1" matched the first pattern)
        assert_eq!(issues.len(), 1);
        let root = schema.as_object().cloned();
        let p = plan(&json(r##"{"$ref": "#/properties/a"}"##), &root);
        assert_eq!(p.streams, "\"'");
        assert!(text_streams(&json(r#"{"type": "string"}"#), &root));
        assert!(!text_streams(
            &json(r#"{"type": "string", "enum": ["x"]}"#),
            &root
        ));
        assert!(wants_array(
            &json(r#"{"anyOf": [{"type": "null"}, {"type": "array"}]}"#),
            &root
        ));
        let p = plan(
            &json(r#"{"type": ["integer", "array"], "prefixItems": []}"#),
            &root,
        );
        assert_eq!((p.streams.as_str(), p.integers), ("", true));
    }
}
