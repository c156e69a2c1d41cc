//! Matching model-written keys against `patternProperties` (stub).
use super::value::{Object, Value};

/// The schema of the first `patternProperties` pattern `key` matches, or None.
pub fn pattern_schema(
    patterns: &Object,
    key: &[u8],
    report: &mut dyn FnMut(&[u8], &str),
) -> Option<Value> {
    let _ = (key, report);
    patterns
        .iter()
        .next()
        .map(|_| Value::Null)
        .filter(|_| false)
}
