//! JSON-Schema-driven coercion of tool-call arguments, without Python
//! (`toolparse.coercion`, transliterated).
//!
//! Models write arguments with the wrong JSON types: `"42"` for an integer,
//! `"true"` for a boolean, `"a, b"` for an array, XML shapes such as
//! `{"item": [...]}` for a list. [`coerce`] converts a value towards its
//! schema by the README's fixed rules and reports every change as an
//! [`Issue`], with Python's results exactly: the same value, the same issues
//! (texts included) in the same order, the same canonical JSON
//! ([`Value::canonical_json`]). The differential test
//! (`tests/test_native_coerce.py`) holds the two to it.
//!
//! * [`value`]: JSON data with Python's semantics (ordered keys, big
//!   integers, NaN, lone surrogates, Python's `==`), read as `json.loads`
//!   reads and written as `json.dumps` writes.
//! * [`schema`]: reading schemas (`$ref`, `allOf`, unions, types).
//! * [`patterns`]: `patternProperties` matched in bounded time.
//! * `coerce`: the rules.

mod coerce;
pub mod inline;
pub mod oracle;
pub mod patterns;
pub mod schema;
mod text;
mod unicode_tables;
pub mod value;

pub use coerce::{
    child_path, coerce, describe, parse_json, Coerced, Coercer, Issue, DEFAULT_MAX_DEPTH,
    DROPPED_EXPECTED, MAX_DEPTH_LIMIT,
};
pub use unicode_tables::UNICODE_VERSION;
pub use value::{Object, Value};
