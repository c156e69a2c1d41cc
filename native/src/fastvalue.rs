//! A member's value without Python, where it is simple.
//!
//! A member that does not stream as a string (`MemberCall`'s `_BUFFER` mode:
//! an integer, a number, a boolean...) ends in three Python calls: its text
//! converted (`fragment_value` for XML blocks), the value coerced to its
//! schema (`toolparse.coercion.inline.coerce_at`, the rules of
//! `toolparse.coercion.coerce`), and its canonical JSON
//! (`toolparse.events.canonical_json`); and every call's arguments are
//! `json.loads`ed from their canonical text. Each function here gives what
//! one of those gives, for the common cases, and declines (`None`, `false`)
//! for everything else, where the caller makes the Python call as before.
//! A decline is always right; only an answer has to be exact.
//!
//! The pure parts (a text's number, the decision of `_Coercer.run` for a
//! string under a simple schema, `_describe`) are plain Rust with `cargo
//! test`s (`repr(float)` is [`crate::json::float_repr`]'s, its ties tested
//! here too); the rest reads and builds Python objects, and
//! `tests/test_native_fastvalue.py` compares all of it with the Python
//! functions through the small binding at the end of this module.

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};

use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString, PyTuple};

use crate::entities;
use crate::json::float_repr;
use crate::kept::Kept;
use crate::lexicon::Name;
use crate::pylexicon::new_str;
use crate::tags::is_python_space;
use crate::wide::{self, push_json_chars};

// -- the text of a member read as XML -----------------------------------------------

/// `toolparse.readers.xml_tree.fragment_value(text)` where the text holds no
/// `<`: then it is `decode_text(text)` (see [`entities::decoded`], its twin);
/// None where there is markup to parse.
pub fn fragment_text<T: Copy + Into<u32>>(units: &[T]) -> Option<Vec<u32>> {
    if units.iter().any(|&u| u.into() == u32::from(b'<')) {
        return None;
    }
    Some(entities::decoded(units))
}

/// [`fragment_text`] of a Rust string (the text itself when it holds no `&`,
/// as `decode_text` returns it).
pub fn fragment_str(text: &str) -> Option<Cow<'_, str>> {
    if text.contains('<') {
        return None;
    }
    if !text.contains('&') {
        return Some(Cow::Borrowed(text));
    }
    let points: Vec<u32> = text.chars().map(u32::from).collect();
    // (a reference to a surrogate stays as written: no surrogate comes out)
    let decoded = fragment_text(&points)?;
    Some(Cow::Owned(
        decoded
            .into_iter()
            .map(|c| char::from_u32(c).unwrap_or('\u{FFFD}'))
            .collect(),
    ))
}

// -- the JSON types a schema admits ------------------------------------------------

/// A set of JSON types (`types_of`'s frozenset), as bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kinds(u8);

/// One JSON type: its bit and its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Null = 1,
    Boolean = 2,
    Object = 4,
    Array = 8,
    Number = 16,
    Integer = 32,
    String = 64,
}

impl Kind {
    /// The type's name in a schema and in an issue.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Boolean => "boolean",
            Kind::Object => "object",
            Kind::Array => "array",
            Kind::Number => "number",
            Kind::Integer => "integer",
            Kind::String => "string",
        }
    }

    /// The type a name in a schema's `type` stands for: a standard name or
    /// one of `types_of`'s aliases (`float`, `int`, `bool`, `str`); None for
    /// any other name (`types_of` drops it).
    pub fn of_name(name: &[u32]) -> Option<Kind> {
        let ascii: Vec<u8> = name
            .iter()
            .map(|&c| u8::try_from(c).ok().filter(u8::is_ascii))
            .collect::<Option<_>>()?;
        Some(match &ascii[..] {
            b"null" => Kind::Null,
            b"boolean" | b"bool" => Kind::Boolean,
            b"object" => Kind::Object,
            b"array" => Kind::Array,
            b"number" | b"float" => Kind::Number,
            b"integer" | b"int" => Kind::Integer,
            b"string" | b"str" => Kind::String,
            _ => return None,
        })
    }
}

/// `_PREFERENCE`: when a value's type is not admitted, the targets tried, in this order.
const PREFERENCE: [Kind; 7] = [
    Kind::Integer,
    Kind::Number,
    Kind::Boolean,
    Kind::Null,
    Kind::Array,
    Kind::Object,
    Kind::String,
];

/// The types sorted by name (`sorted(kinds)`, for `_expected`).
const BY_NAME: [Kind; 7] = [
    Kind::Array,
    Kind::Boolean,
    Kind::Integer,
    Kind::Null,
    Kind::Number,
    Kind::Object,
    Kind::String,
];

impl Kinds {
    /// No type (a `type` that names none: `types_of` gives an empty set).
    pub const NONE: Kinds = Kinds(0);
    /// Every type (`_ANY`).
    pub const ANY: Kinds = Kinds(127);

    pub fn has(self, kind: Kind) -> bool {
        self.0 & kind as u8 != 0
    }

    #[must_use]
    pub fn with(self, kind: Kind) -> Kinds {
        Kinds(self.0 | kind as u8)
    }

    /// `_expected(kinds)`: the names sorted, joined by " or ".
    pub fn expected(self) -> String {
        BY_NAME
            .iter()
            .filter(|&&k| self.has(k))
            .map(|k| k.name())
            .collect::<Vec<_>>()
            .join(" or ")
    }
}

// -- numbers -----------------------------------------------------------------------

/// `_MAX_DIGITS`: `_parse_number` leaves longer integer texts alone.
const MAX_DIGITS: usize = 4000;

/// Digits `i64` always holds.
const SMALL_DIGITS: usize = 18;

/// An integer written in decimal: its sign and its digits, leading zeros
/// dropped (`int(text)` of `[+-]?[0-9]+`), and how many digits were written
/// (`int()`'s limit on digits counts leading zeros too).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decimal {
    pub negative: bool,
    /// ASCII digits, no leading zero (empty: zero).
    pub digits: Vec<u8>,
    /// The digits written, leading zeros included.
    pub written: usize,
}

impl Decimal {
    /// The integer of the ASCII digits `written` (leading zeros allowed).
    pub fn read(negative: bool, written: &[u8]) -> Decimal {
        let start = written
            .iter()
            .position(|&d| d != b'0')
            .unwrap_or(written.len());
        Decimal {
            negative,
            digits: written[start..].to_vec(),
            written: written.len(),
        }
    }

    /// `str(int(text))`: "-0" and "+0" are "0".
    pub fn text(&self) -> String {
        if self.digits.is_empty() {
            return "0".to_owned();
        }
        let mut out = String::with_capacity(self.digits.len() + 1);
        if self.negative {
            out.push('-');
        }
        out.extend(self.digits.iter().map(|&d| char::from(d)));
        out
    }

    /// The text as written (its leading zeros back, a `+` dropped).
    fn written_text(&self) -> String {
        let zeros = self.written.saturating_sub(self.digits.len());
        let mut out = String::with_capacity(self.written + 1);
        if self.negative {
            out.push('-');
        }
        out.extend(std::iter::repeat_n('0', zeros));
        out.extend(self.digits.iter().map(|&d| char::from(d)));
        out
    }

    /// The value, where `i64` holds it.
    pub fn small(&self) -> Option<i64> {
        if self.digits.len() > SMALL_DIGITS {
            return None;
        }
        let magnitude = self
            .digits
            .iter()
            .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
        Some(if self.negative { -magnitude } else { magnitude })
    }
}

/// A scalar coercion makes of a string.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Null,
    /// `int(text)`.
    Int(Decimal),
    /// `float(text)`, finite.
    Float(f64),
    /// `int(float(text))` of a finite, integral float.
    IntOfFloat(f64),
}

/// `_INT.fullmatch(text)` (`[+-]?[0-9]+`, ASCII digits only, as `re`'s
/// `[0-9]` is: `int()` takes other digits too, `_INT` does not).
fn int_match<T: Copy + Into<u32>>(text: &[T]) -> bool {
    let body = match text.first().map(|&c| c.into()) {
        Some(0x2B | 0x2D) => &text[1..],
        _ => text,
    };
    !body.is_empty() && body.iter().all(|&c| is_digit(c.into()))
}

fn is_digit(c: u32) -> bool {
    (0x30..=0x39).contains(&c)
}

/// `_FLOAT.fullmatch(text)`:
/// `[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?`.
fn float_match<T: Copy + Into<u32>>(text: &[T]) -> bool {
    let at = |i: usize| text.get(i).map(|&c| c.into());
    let digits = |mut i: usize| {
        while at(i).is_some_and(is_digit) {
            i += 1;
        }
        i
    };
    let mut i = usize::from(matches!(at(0), Some(0x2B | 0x2D)));
    let whole = digits(i);
    if whole > i {
        i = whole;
        if at(i) == Some(0x2E) {
            i = digits(i + 1);
        }
    } else if at(i) == Some(0x2E) {
        let fraction = digits(i + 1);
        if fraction == i + 1 {
            return false;
        }
        i = fraction;
    } else {
        return false;
    }
    if matches!(at(i), Some(0x65 | 0x45)) {
        let mut j = i + 1;
        if matches!(at(j), Some(0x2B | 0x2D)) {
            j += 1;
        }
        let end = digits(j);
        if end == j {
            return false;
        }
        i = end;
    }
    i == text.len()
}

/// `_parse_number(text, integer=integer)` of a stripped text: None where
/// it gives None.
pub fn parse_number<T: Copy + Into<u32>>(text: &[T], integer: bool) -> Option<Scalar> {
    if int_match(text) {
        if text.len() > MAX_DIGITS {
            return None;
        }
        let negative = text.first().map(|&c| c.into()) == Some(0x2D);
        let written: Vec<u8> = text
            .iter()
            .map(|&c| c.into())
            .filter(|&c| is_digit(c))
            .map(|c| c as u8)
            .collect();
        return Some(Scalar::Int(Decimal::read(negative, &written)));
    }
    if !float_match(text) {
        return None;
    }
    // (ASCII, by the match; Rust's parse is correctly rounded, as float() is,
    // and reads every form _FLOAT admits: "1.", ".5", "1E5", "+.5e-3")
    let ascii: String = text
        .iter()
        .map(|&c| char::from_u32(c.into()).unwrap_or('?'))
        .collect();
    let number: f64 = ascii.parse().ok()?;
    if !number.is_finite() {
        return None;
    }
    if integer {
        return (number.fract() == 0.0).then_some(Scalar::IntOfFloat(number));
    }
    Some(Scalar::Float(number))
}

// -- a string coerced to a simple schema -------------------------------------------

/// `_NULL_WORDS`.
const NULL_WORDS: [&str; 5] = ["null", "NULL", "Null", "None", "none"];

/// What `_Coercer.run` does with a string under a schema read simply.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Returned as it is, nothing reported (a string is admitted).
    AsIs,
    /// `converted(path, expected, text, new)`.
    Converted { expected: Kind, new: Scalar },
    /// An integer text too long: "kept as a string: too many digits".
    TooManyDigits { expected: Kind },
    /// Nothing admits it: "kept as is", expected `_expected(kinds)`.
    KeptAsIs,
    /// Something this module does not do (parsing JSON, splitting an array).
    Decline,
}

/// The text `str.strip()` leaves (Python's whitespace, U+001C to U+001F too).
pub fn stripped<T: Copy + Into<u32>>(text: &[T]) -> &[T] {
    let start = text
        .iter()
        .position(|&c| !is_python_space(c.into()))
        .unwrap_or(text.len());
    let end = text
        .iter()
        .rposition(|&c| !is_python_space(c.into()))
        .map_or(start, |i| i + 1);
    &text[start..end]
}

/// `stripped.lower() in ("true", "false")`: the boolean it says. (No
/// character but ASCII lowers to an ASCII letter but U+212A, KELVIN SIGN,
/// to "k", and U+0130 to two characters: a word with any other is no
/// boolean.)
fn boolean_word<T: Copy + Into<u32>>(text: &[T]) -> Option<bool> {
    let lowered: Vec<u8> = text
        .iter()
        .map(|&c| u8::try_from(c.into()).ok().filter(u8::is_ascii))
        .collect::<Option<Vec<u8>>>()?
        .to_ascii_lowercase();
    match &lowered[..] {
        b"true" => Some(true),
        b"false" => Some(false),
        _ => None,
    }
}

fn null_word<T: Copy + Into<u32>>(text: &[T]) -> bool {
    NULL_WORDS.iter().any(|word| {
        word.len() == text.len()
            && word
                .bytes()
                .zip(text)
                .all(|(b, &c)| u32::from(b) == c.into())
    })
}

/// `_Coercer.run(text, schema, ...)` for a `str` under a schema whose
/// types are `kinds` and that has no enum, const, union, `allOf` or `$ref`
/// (the caller checks): `admitted` where a string is admitted, else
/// `convert`/`from_string` for each target in `_PREFERENCE`'s order.
pub fn decide<T: Copy + Into<u32>>(text: &[T], kinds: Kinds) -> Decision {
    if kinds.has(Kind::String) {
        return Decision::AsIs;
    }
    let stripped = stripped(text);
    for target in PREFERENCE {
        if !kinds.has(target) {
            continue;
        }
        match target {
            Kind::Boolean => {
                if let Some(value) = boolean_word(stripped) {
                    return Decision::Converted {
                        expected: target,
                        new: Scalar::Bool(value),
                    };
                }
            }
            Kind::Null => {
                if null_word(stripped) {
                    return Decision::Converted {
                        expected: target,
                        new: Scalar::Null,
                    };
                }
            }
            Kind::Integer | Kind::Number => {
                if let Some(new) = parse_number(stripped, target == Kind::Integer) {
                    return Decision::Converted {
                        expected: target,
                        new,
                    };
                }
                if stripped.len() > MAX_DIGITS && int_match(stripped) {
                    return Decision::TooManyDigits { expected: target };
                }
            }
            // (JSON to parse, a list to split: Python's)
            Kind::Array | Kind::Object => return Decision::Decline,
            Kind::String => {}
        }
    }
    Decision::KeptAsIs
}

/// `_Coercer.no_schema(text, ...)`: a string is kept, unless it looks like
/// a JSON object or array (parsed: declined here).
pub fn decide_no_schema<T: Copy + Into<u32>>(text: &[T]) -> Decision {
    let stripped = stripped(text);
    let first = stripped.first().map(|&c| c.into());
    let last = stripped.last().map(|&c| c.into());
    if matches!(first, Some(0x7B | 0x5B)) && matches!(last, Some(0x7D | 0x5D)) {
        return Decision::Decline;
    }
    Decision::AsIs
}

/// [`push_json_chars`] of a Python string's code units.
fn push_json_units<T: Copy + Into<u32>>(out: &mut Vec<u8>, units: &[T]) {
    push_json_chars(out, units.iter().map(|&u| u.into()));
}

/// The longest description (`_describe`: longer JSON is cut to 57 code
/// points and "...").
const DESCRIBED: usize = 60;

/// `_describe(text)` of a `str`, as generalized UTF-8: its JSON
/// (`json.dumps(text, ensure_ascii=False)`), cut when longer than 60 code
/// points. (`_PLAIN_TEXT`'s shortcut gives the same text.) Only what the
/// cut keeps is encoded.
pub fn describe_text<T: Copy + Into<u32>>(text: &[T]) -> Vec<u8> {
    // (the usual text, short printable ASCII with nothing to escape, is its
    // own JSON: one buffer, written once)
    if text.len() + 2 <= DESCRIBED
        && text
            .iter()
            .all(|&c| matches!(c.into(), 0x20..=0x7E) && !matches!(c.into(), 0x22 | 0x5C))
    {
        let mut out = Vec::with_capacity(text.len() + 2);
        out.push(b'"');
        out.extend(text.iter().map(|&c| c.into() as u8));
        out.push(b'"');
        return out;
    }
    let mut points = vec![0x22];
    let mut escaped = Vec::new();
    let mut whole = true;
    for &c in text {
        escaped.clear();
        push_json_chars(&mut escaped, [c.into()]);
        points.extend(wide::chars(&escaped));
        if points.len() > DESCRIBED {
            whole = false; // (longer than the cut whatever follows)
            break;
        }
    }
    if whole {
        points.push(0x22);
    }
    if points.len() > DESCRIBED {
        points.truncate(DESCRIBED - 3);
        points.extend([0x2E; 3]);
    }
    let mut out = Vec::with_capacity(points.len());
    wide::push_units(&mut out, &points);
    out
}

/// `_describe` of a scalar coercion made (`str(int)`, `repr(float)`,
/// JSON's words); None for the `int` of a float, whose digits Python's
/// `str` writes.
pub fn describe_scalar(new: &Scalar) -> Option<String> {
    Some(match new {
        Scalar::Bool(true) => "true".to_owned(),
        Scalar::Bool(false) => "false".to_owned(),
        Scalar::Null => "null".to_owned(),
        Scalar::Int(decimal) => decimal.text(),
        Scalar::Float(x) => float_repr(*x),
        Scalar::IntOfFloat(_) => return None,
    })
}

/// `_SIMPLE_KEY.fullmatch(key)` (`[A-Za-z_][A-Za-z0-9_]*`).
fn simple_key(key: &[u8]) -> bool {
    let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    matches!(key.first(), Some(b) if b.is_ascii_alphabetic() || *b == b'_') && key.iter().all(word)
}

/// `_child_path("$", key)` of a generalized UTF-8 key.
pub fn child_path(key: &[u8]) -> Vec<u8> {
    if simple_key(key) {
        let mut out = Vec::with_capacity(2 + key.len());
        out.extend_from_slice(b"$.");
        out.extend_from_slice(key);
        return out;
    }
    let mut out = b"$[\"".to_vec();
    push_json_chars(&mut out, wide::chars(key));
    out.extend_from_slice(b"\"]");
    out
}

// -- the Python side ---------------------------------------------------------------

/// The depth `coerce_at` is called at for a member, and the `max_depth` it
/// runs with (its default: the host passes none).
const MEMBER_DEPTH: usize = 1;
const COERCE_MAX_DEPTH: usize = 64;

/// Keys that make a schema more than simple: `unwrap`'s wrapper and `$ref`,
/// `merged_all_of`'s `allOf`, `branches`' unions and `enum_values`' const.
/// (An `enum` is read, but only where a string is found among its strings:
/// see [`enum_holds`].)
const NOT_SIMPLE: [&str; 6] = ["jsonSchema", "$ref", "allOf", "anyOf", "oneOf", "const"];

/// A simple schema's types, and whether it has an `enum`.
#[derive(Clone, Copy)]
struct Typed {
    kinds: Kinds,
    enumerated: bool,
}

/// `types_of(schema)` of a plain `dict` schema with none of [`NOT_SIMPLE`]'s
/// keys; None (decline) for anything else, or for a `type` of a kind whose
/// `isinstance` a subclass could answer otherwise.
/// [`kinds_of`], kept by the schema's identity (a tool's schema serves every
/// call; like the typer's plans, a schema is taken not to change once used).
fn kept_kinds(schema: &Bound<'_, PyDict>) -> PyResult<Option<Typed>> {
    static KEPT: Kept<Option<Option<Typed>>> = Kept::new(4096);
    KEPT.get_or_work(schema.as_any(), || kinds_of(schema))
}

fn kinds_of(schema: &Bound<'_, PyDict>) -> PyResult<Option<Typed>> {
    let py = schema.py();
    // (the keys as interned strings: made once, their hashes kept)
    let not_simple = [
        intern!(py, "jsonSchema"),
        intern!(py, "$ref"),
        intern!(py, "allOf"),
        intern!(py, "anyOf"),
        intern!(py, "oneOf"),
        intern!(py, "const"),
    ];
    debug_assert_eq!(not_simple.len(), NOT_SIMPLE.len());
    for key in not_simple {
        if schema.contains(key)? {
            return Ok(None);
        }
    }
    let enumerated = schema.contains(intern!(py, "enum"))?;
    let typed = |kinds| Some(Typed { kinds, enumerated });
    let declared = schema.get_item(intern!(py, "type"))?;
    if let Some(declared) = &declared {
        if declared.is_exact_instance_of::<PyString>() {
            let name = crate::pylexicon::name_of(declared.downcast::<PyString>()?);
            // (a name types_of does not know leaves no type at all)
            return Ok(typed(
                Kind::of_name(&name.code_points()).map_or(Kinds::NONE, |k| Kinds::NONE.with(k)),
            ));
        }
        if let Ok(list) = declared.downcast_exact::<PyList>() {
            if !list.is_empty() {
                let mut kinds = Kinds::NONE;
                for item in list.iter() {
                    let Ok(name) = item.downcast_exact::<PyString>() else {
                        return Ok(None);
                    };
                    if let Some(kind) =
                        Kind::of_name(&crate::pylexicon::name_of(name).code_points())
                    {
                        kinds = kinds.with(kind);
                    }
                }
                return Ok(typed(kinds));
            }
        } else if !(declared.is_none()
            || declared.is_exact_instance_of::<PyBool>()
            || declared.is_exact_instance_of::<pyo3::types::PyInt>()
            || declared.is_exact_instance_of::<PyFloat>()
            || declared.is_exact_instance_of::<PyDict>()
            || declared.is_exact_instance_of::<PyTuple>())
        {
            return Ok(None);
        }
    }
    if enumerated {
        return Ok(None); // (no type named: `types_of` reads the enum's values' types: Python's)
    }
    // no type named: told by the keywords present
    let mut kinds = Kinds::NONE;
    for key in [
        intern!(py, "properties"),
        intern!(py, "additionalProperties"),
        intern!(py, "patternProperties"),
        intern!(py, "required"),
    ] {
        if schema.contains(key)? {
            kinds = kinds.with(Kind::Object);
        }
    }
    for key in [intern!(py, "items"), intern!(py, "prefixItems")] {
        if schema.contains(key)? {
            kinds = kinds.with(Kind::Array);
        }
    }
    Ok(typed(if kinds == Kinds::NONE {
        Kinds::ANY
    } else {
        kinds
    }))
}

/// `value in schema["enum"]` for a `str` found equal to one of the enum's
/// strings (then `admitted` keeps it as it is, nothing reported); false
/// where it is not found, and where an item before it is of a type whose
/// `==` could answer otherwise, or the enum is no plain `list` (Python's).
fn enum_holds(schema: Option<&Bound<'_, PyDict>>, text: &Bound<'_, PyString>) -> PyResult<bool> {
    let Some(schema) = schema else {
        return Ok(false);
    };
    let Some(found) = schema.get_item(intern!(schema.py(), "enum"))? else {
        return Ok(false);
    };
    let Ok(values) = found.downcast_exact::<PyList>() else {
        return Ok(false);
    };
    for item in values.iter() {
        if let Ok(item) = item.downcast_exact::<PyString>() {
            if item.as_any().eq(text)? {
                return Ok(true);
            }
        } else if !(item.is_none()
            || item.is_exact_instance_of::<PyBool>()
            || item.is_exact_instance_of::<pyo3::types::PyInt>()
            || item.is_exact_instance_of::<PyFloat>()
            || item.is_exact_instance_of::<PyList>()
            || item.is_exact_instance_of::<PyDict>())
        {
            return Ok(false);
        }
    }
    Ok(false)
}

/// Digits `int()` reads whatever `sys.get_int_max_str_digits()` says
/// (`_PY_LONG_MAX_STR_DIGITS_THRESHOLD`, the least limit that can be set).
const UNLIMITED_DIGITS: usize = 640;

/// A Python `int` of a decimal: natively where `i64` holds it and no limit
/// applies, else as `int()` reads it (`PyLong_FromString`, `int()`'s own
/// reader, given the digits as written); None where that refuses it (past
/// `sys.get_int_max_str_digits()`: Python's call then raises as it would).
fn int_of_decimal<'py>(py: Python<'py>, decimal: &Decimal) -> PyResult<Option<Bound<'py, PyAny>>> {
    if decimal.written <= UNLIMITED_DIGITS {
        if let Some(small) = decimal.small() {
            return Ok(Some(small.into_pyobject(py)?.into_any()));
        }
    }
    let Ok(text) = std::ffi::CString::new(decimal.written_text()) else {
        return Ok(None);
    };
    // SAFETY: the GIL is held (`py`); `text` is a NUL-terminated string, alive
    // for the call (`PyLong_FromString` reads it, keeps nothing); `pend` may be
    // NULL and 10 is a valid base. The result is a new reference or NULL with
    // an exception set, which `from_owned_ptr_or_err` takes as such.
    let made = unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            ffi::PyLong_FromString(text.as_ptr(), std::ptr::null_mut(), 10),
        )
    };
    Ok(made.ok())
}

/// `int(x)` of an integral float.
fn int_of_float(py: Python<'_>, x: f64) -> PyResult<Bound<'_, PyAny>> {
    if x.abs() < 9.0e15 {
        return Ok((x as i64).into_pyobject(py)?.into_any());
    }
    // SAFETY: the GIL is held (`py`); `PyLong_FromDouble` takes any double (an
    // infinity or a NaN sets an exception) and returns a new reference or NULL
    // with an exception set, which `from_owned_ptr_or_err` takes as such.
    unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromDouble(x)) }
}

/// `str(value)` of an `int` (`long_to_decimal_string`); None where Python refuses.
fn int_text(value: &Bound<'_, PyAny>) -> Option<String> {
    value.str().ok().map(|s| s.to_string_lossy().into_owned())
}

/// A schema as the fast paths read it: no schema (None, True), or the types
/// a plain `dict` admits with the `dict` itself (None for False, which
/// `unwrap` reads as `{"not": {}}`: any type, no keyword).
enum Simple<'py> {
    NoSchema,
    Typed(Typed, Option<Bound<'py, PyDict>>),
}

/// `unwrap(schema)` and `types_of` of a schema read simply; None (decline)
/// for anything [`kinds_of`] declines, and for a schema of any other type
/// (`unwrap` reads a `Mapping` subclass, which could answer otherwise).
fn simple_schema<'py>(schema: Option<&Bound<'py, PyAny>>) -> PyResult<Option<Simple<'py>>> {
    let Some(schema) = schema else {
        return Ok(Some(Simple::NoSchema));
    };
    if schema.is_none() {
        return Ok(Some(Simple::NoSchema));
    }
    if let Ok(flag) = schema.downcast_exact::<PyBool>() {
        return Ok(Some(if flag.is_true() {
            Simple::NoSchema
        } else {
            Simple::Typed(
                Typed {
                    kinds: Kinds::ANY,
                    enumerated: false,
                },
                None,
            )
        }));
    }
    let Ok(dict) = schema.downcast_exact::<PyDict>() else {
        return Ok(None);
    };
    Ok(kept_kinds(dict)?.map(|typed| Simple::Typed(typed, Some(dict.clone()))))
}

/// A value's JSON type (`json_type`), for the exact types the fast paths
/// read; None for any other (a subclass could answer `isinstance` otherwise).
fn kind_of(value: &Bound<'_, PyAny>) -> Option<Kind> {
    Some(if value.is_none() {
        Kind::Null
    } else if value.is_exact_instance_of::<PyBool>() {
        Kind::Boolean
    } else if value.is_exact_instance_of::<pyo3::types::PyInt>() {
        Kind::Integer
    } else if value.is_exact_instance_of::<PyFloat>() {
        Kind::Number
    } else if value.is_exact_instance_of::<PyString>() {
        Kind::String
    } else if value.is_exact_instance_of::<PyList>() {
        Kind::Array
    } else if value.is_exact_instance_of::<PyDict>() {
        Kind::Object
    } else {
        return None;
    })
}

/// A keyword of an object or array schema as `isinstance(x, Mapping)` or
/// `isinstance(x, list)` would tell it.
enum Keyword<'py> {
    /// Absent, or of a type that is neither a `Mapping` nor a `list`.
    Other,
    /// True itself (`items is True`).
    True,
    /// False itself (`additionalProperties is False`).
    False,
    Dict(Bound<'py, PyDict>),
    List,
}

/// `schema.get(name)`, told apart as [`Keyword`]; None (decline) for a value
/// of a type whose `isinstance` a subclass could answer otherwise.
fn keyword<'py>(
    schema: Option<&Bound<'py, PyDict>>,
    name: &Bound<'py, PyString>,
) -> PyResult<Option<Keyword<'py>>> {
    let Some(found) = schema.map(|s| s.get_item(name)).transpose()?.flatten() else {
        return Ok(Some(Keyword::Other));
    };
    if let Ok(flag) = found.downcast_exact::<PyBool>() {
        return Ok(Some(if flag.is_true() {
            Keyword::True
        } else {
            Keyword::False
        }));
    }
    if let Ok(dict) = found.downcast_exact::<PyDict>() {
        return Ok(Some(Keyword::Dict(dict.clone())));
    }
    if found.is_exact_instance_of::<PyList>() {
        return Ok(Some(Keyword::List));
    }
    let other = found.is_none()
        || found.is_exact_instance_of::<PyString>()
        || found.is_exact_instance_of::<pyo3::types::PyInt>()
        || found.is_exact_instance_of::<PyFloat>()
        || found.is_exact_instance_of::<PyTuple>();
    Ok(other.then_some(Keyword::Other))
}

/// What a coercion step gives: the value, or None where it declines.
type Coercion<'py> = PyResult<Option<Bound<'py, PyAny>>>;

/// `_Coercer` over the simple schemas (see [`coerce_value`]): the issues it
/// reports, in order, built with the Python class.
struct Coercer<'py> {
    py: Python<'py>,
    issues: Vec<PyObject>,
}

impl<'py> Coercer<'py> {
    /// `report(path, expected, value, action)`, `got` already described.
    fn report(&mut self, path: &[u8], expected: &str, got: &[u8], action: &str) -> PyResult<()> {
        self.report_wide(path, expected, got, action.as_bytes())
    }

    /// [`Coercer::report`] of an action in generalized UTF-8.
    fn report_wide(
        &mut self,
        path: &[u8],
        expected: &str,
        got: &[u8],
        action: &[u8],
    ) -> PyResult<()> {
        let py = self.py;
        let path = crate::calls_py::py_of(py, path)?;
        let got = crate::calls_py::py_of(py, got)?;
        let action = crate::calls_py::py_of(py, action)?;
        let expected = PyString::new(py, expected);
        self.issues.push(crate::events::issue(
            py,
            &[
                path.as_any(),
                expected.as_any(),
                got.as_any(),
                action.as_any(),
            ],
        )?);
        Ok(())
    }

    /// `_Coercer.run(value, schema, path, depth)`.
    fn run(
        &mut self,
        value: &Bound<'py, PyAny>,
        schema: Option<&Bound<'py, PyAny>>,
        path: &[u8],
        depth: usize,
    ) -> Coercion<'py> {
        // (`run`'s first rule: past max_depth a value is left as is, reported: Python's)
        if depth > COERCE_MAX_DEPTH {
            return Ok(None);
        }
        let (Typed { kinds, enumerated }, schema) = match simple_schema(schema)? {
            None => return Ok(None),
            Some(Simple::NoSchema) => return self.no_schema(value, path, depth),
            Some(Simple::Typed(typed, schema)) => (typed, schema),
        };
        let Some(kind) = kind_of(value) else {
            return Ok(None);
        };
        if enumerated {
            // (only a string admitted as one of the enum's: `admitted` keeps it)
            let held = kind == Kind::String
                && kinds.has(Kind::String)
                && enum_holds(schema.as_ref(), value.downcast::<PyString>()?)?;
            return Ok(held.then(|| value.clone()));
        }
        if kind == Kind::String {
            let text = value.downcast::<PyString>()?;
            let decision = crate::with_units!(text, units => decide(units, kinds));
            if decision == Decision::Decline && kinds.has(Kind::Object) && !kinds.has(Kind::Array) {
                // (declined at the object: `from_string` parses it as JSON)
                return self.object_of_json(text, schema.as_ref(), path, depth);
            }
            return self.decided(text, decision, kinds, path);
        }
        if kinds.has(kind) || (kind == Kind::Integer && kinds.has(Kind::Number)) {
            return match kind {
                Kind::Object => {
                    self.object(value.downcast::<PyDict>()?, schema.as_ref(), path, depth)
                }
                Kind::Array => {
                    let items: Vec<_> = value.downcast::<PyList>()?.iter().collect();
                    self.array(items, schema.as_ref(), path, depth)
                }
                // (`admitted`: no enum in a simple schema)
                _ => Ok(Some(value.clone())),
            };
        }
        if kind == Kind::Number && kinds.has(Kind::Integer) {
            let x = value.downcast::<PyFloat>()?.value();
            if x.is_finite() && x.fract() == 0.0 {
                let new = int_of_float(self.py, x)?;
                let Some(text) = int_text(&new) else {
                    return Ok(None);
                };
                let Some(got) = describe(value)? else {
                    return Ok(None);
                };
                self.report(path, "integer", &got, &format!("converted to {text}"))?;
                return Ok(Some(new));
            }
        }
        for target in PREFERENCE {
            if !kinds.has(target) {
                continue;
            }
            match target {
                Kind::Array => {
                    if kind == Kind::Object {
                        return Ok(None); // (`_xml_list`: Python's)
                    }
                    let Some(got) = describe(value)? else {
                        return Ok(None);
                    };
                    self.report(path, "array", &got, "wrapped in a one-element array")?;
                    return self.array(vec![value.clone()], schema.as_ref(), path, depth);
                }
                Kind::String if kind != Kind::Null => {
                    // json.dumps(value, ensure_ascii=False)
                    let mut dumped = Vec::new();
                    if !encode(value, &mut dumped, &SPACED, 0)? {
                        return Ok(None);
                    }
                    let Some(got) = describe(value)? else {
                        return Ok(None);
                    };
                    let mut action = b"converted to ".to_vec();
                    action.extend(describe_text(&wide::chars(&dumped).collect::<Vec<u32>>()));
                    self.report_wide(path, "string", &got, &action)?;
                    return Ok(Some(crate::calls_py::py_of(self.py, &dumped)?.into_any()));
                }
                _ => {}
            }
        }
        let Some(got) = describe(value)? else {
            return Ok(None);
        };
        self.report(path, &kinds.expected(), &got, "kept as is")?;
        Ok(Some(value.clone()))
    }

    /// What `run` does with a `str`, as [`decide`] or [`decide_no_schema`]
    /// decided it (`kinds`: the schema's types, for "kept as is").
    fn decided(
        &mut self,
        text: &Bound<'py, PyString>,
        decision: Decision,
        kinds: Kinds,
        path: &[u8],
    ) -> Coercion<'py> {
        let py = self.py;
        let got = || crate::with_units!(text, units => describe_text(units));
        let same = || Some(text.clone().into_any());
        Ok(match decision {
            Decision::AsIs => same(),
            Decision::Decline => None,
            Decision::KeptAsIs => {
                self.report(path, &kinds.expected(), &got(), "kept as is")?;
                same()
            }
            Decision::TooManyDigits { expected } => {
                self.report(
                    path,
                    expected.name(),
                    &got(),
                    "kept as a string: too many digits",
                )?;
                same()
            }
            Decision::Converted { expected, new } => {
                let (value, described) = match &new {
                    Scalar::Bool(b) => (PyBool::new(py, *b).to_owned().into_any(), None),
                    Scalar::Null => (py.None().into_bound(py), None),
                    Scalar::Int(decimal) => match int_of_decimal(py, decimal)? {
                        Some(value) => (value, None),
                        None => return Ok(None),
                    },
                    Scalar::Float(x) => (PyFloat::new(py, *x).into_any(), None),
                    Scalar::IntOfFloat(x) => {
                        let value = int_of_float(py, *x)?;
                        let Some(text) = int_text(&value) else {
                            return Ok(None);
                        };
                        (value, Some(text))
                    }
                };
                let Some(described) = described.or_else(|| describe_scalar(&new)) else {
                    return Ok(None);
                };
                const CONVERTED: &str = "converted to ";
                let mut action = String::with_capacity(CONVERTED.len() + described.len());
                action.push_str(CONVERTED);
                action.push_str(&described);
                self.report(path, expected.name(), &got(), &action)?;
                Some(value)
            }
        })
    }

    /// `from_string(text, "object", ...)` where `json.loads` of the stripped
    /// text gives a `dict`: reported "parsed as JSON", then read as an
    /// object. Anything else (not JSON as `json` reads it, not an object) is
    /// declined: Python's tolerant readers take it from there.
    fn object_of_json(
        &mut self,
        text: &Bound<'py, PyString>,
        schema: Option<&Bound<'py, PyDict>>,
        path: &[u8],
        depth: usize,
    ) -> Coercion<'py> {
        let mut written = Vec::new();
        crate::with_units!(text, units => wide::push_units(&mut written, stripped(units)));
        let Some(parsed) = loads_native(self.py, &written)? else {
            return Ok(None);
        };
        let Ok(parsed) = parsed.into_bound(self.py).downcast_into_exact::<PyDict>() else {
            return Ok(None);
        };
        let got = crate::with_units!(text, units => describe_text(units));
        self.report(path, "object", &got, "parsed as JSON")?;
        self.object(&parsed, schema, path, depth)
    }

    /// `_Coercer.no_schema(value, path, depth)`.
    fn no_schema(&mut self, value: &Bound<'py, PyAny>, path: &[u8], depth: usize) -> Coercion<'py> {
        let Some(kind) = kind_of(value) else {
            return Ok(None);
        };
        if kind == Kind::String {
            let text = value.downcast::<PyString>()?;
            let decision = crate::with_units!(text, units => decide_no_schema(units));
            return self.decided(text, decision, Kinds::ANY, path);
        }
        if depth > COERCE_MAX_DEPTH {
            return Ok(Some(value.clone()));
        }
        match kind {
            Kind::Object => {
                let result = PyDict::new(self.py);
                for (key, item) in value.downcast::<PyDict>()?.iter() {
                    let Ok(name) = key.downcast_exact::<PyString>() else {
                        return Ok(None);
                    };
                    let path = crate::typer::child_path(path, &crate::calls_py::wide_of(name));
                    let Some(item) = self.no_schema(&item, &path, depth + 1)? else {
                        return Ok(None);
                    };
                    result.set_item(key, item)?;
                }
                Ok(Some(result.into_any()))
            }
            Kind::Array => {
                let mut items = Vec::new();
                for (k, item) in value.downcast::<PyList>()?.iter().enumerate() {
                    let path = item_path(path, k);
                    let Some(item) = self.no_schema(&item, &path, depth + 1)? else {
                        return Ok(None);
                    };
                    items.push(item);
                }
                Ok(Some(PyList::new(self.py, items)?.into_any()))
            }
            _ => Ok(Some(value.clone())),
        }
    }

    /// `_Coercer.object(value, schema, path, depth)`, with no
    /// `patternProperties` (declined) and a plain `dict` of properties.
    fn object(
        &mut self,
        value: &Bound<'py, PyDict>,
        schema: Option<&Bound<'py, PyDict>>,
        path: &[u8],
        depth: usize,
    ) -> Coercion<'py> {
        let properties = match keyword(schema, intern!(self.py, "properties"))? {
            None => return Ok(None),
            Some(Keyword::Dict(dict)) => Some(dict),
            Some(_) => None,
        };
        match keyword(schema, intern!(self.py, "patternProperties"))? {
            Some(Keyword::Dict(patterns)) if patterns.is_empty() => {}
            Some(Keyword::Dict(_)) | None => return Ok(None), // (patterns: Python's)
            Some(_) => {}
        }
        let additional = match keyword(schema, intern!(self.py, "additionalProperties"))? {
            None => return Ok(None),
            Some(additional) => additional,
        };
        let result = PyDict::new(self.py);
        for (key, item) in value.iter() {
            let Ok(name) = key.downcast_exact::<PyString>() else {
                return Ok(None);
            };
            let path = crate::typer::child_path(path, &crate::calls_py::wide_of(name));
            let found = match &properties {
                Some(properties) => properties.get_item(&key)?,
                None => None,
            };
            let coerced = match (&found, &additional) {
                (Some(schema), _) => self.run(&item, Some(schema), &path, depth + 1)?,
                (None, Keyword::False) => {
                    let Some(got) = describe(&item)? else {
                        return Ok(None);
                    };
                    self.report(
                        &path,
                        "no such property (additionalProperties is false)",
                        &got,
                        "dropped",
                    )?;
                    continue;
                }
                (None, Keyword::Dict(schema)) => {
                    self.run(&item, Some(schema.as_any()), &path, depth + 1)?
                }
                // (JSON Schema allows unknown properties: kept untouched)
                (None, _) => Some(item),
            };
            let Some(coerced) = coerced else {
                return Ok(None);
            };
            result.set_item(key, coerced)?;
        }
        Ok(Some(result.into_any()))
    }

    /// `_Coercer.array(value, schema, path, depth)`, with no `prefixItems`
    /// and no list of `items` (both declined).
    fn array(
        &mut self,
        value: Vec<Bound<'py, PyAny>>,
        schema: Option<&Bound<'py, PyDict>>,
        path: &[u8],
        depth: usize,
    ) -> Coercion<'py> {
        if schema.map_or(Ok(false), |s| s.contains(intern!(self.py, "prefixItems")))? {
            return Ok(None);
        }
        let items = match keyword(schema, intern!(self.py, "items"))? {
            None | Some(Keyword::List) => return Ok(None),
            Some(items) => items,
        };
        let per_item = match items {
            Keyword::True => None,
            Keyword::Other => {
                // (`items is None`, or absent: the list as it is; another type
                // is a schema `run` reads as none: declined there)
                match schema
                    .map(|s| s.get_item(intern!(self.py, "items")))
                    .transpose()?
                    .flatten()
                {
                    Some(found) if !found.is_none() => Some(found),
                    _ => None,
                }
            }
            Keyword::False => schema
                .map(|s| s.get_item(intern!(self.py, "items")))
                .transpose()?
                .flatten(),
            Keyword::Dict(dict) => Some(dict.into_any()),
            Keyword::List => return Ok(None),
        };
        let Some(per_item) = per_item else {
            return Ok(Some(PyList::new(self.py, value)?.into_any()));
        };
        let mut result = Vec::with_capacity(value.len());
        for (k, item) in value.iter().enumerate() {
            let Some(item) = self.run(item, Some(&per_item), &item_path(path, k), depth + 1)?
            else {
                return Ok(None);
            };
            result.push(item);
        }
        Ok(Some(PyList::new(self.py, result)?.into_any()))
    }
}

/// `f"{path}[{k}]"`.
fn item_path(path: &[u8], k: usize) -> Vec<u8> {
    let mut out = path.to_vec();
    out.extend_from_slice(format!("[{k}]").as_bytes());
    out
}

/// `_describe(value)` of a value the fast paths read, as generalized
/// UTF-8: a `str`'s JSON, `str(int)`, JSON's words, else
/// `json.dumps(value, ensure_ascii=False)` (its default separators), cut
/// when longer than 60 code points. None (decline) where Python's would
/// raise or write something else (an int `str()` refuses).
fn describe(value: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u8>>> {
    if let Ok(text) = value.downcast_exact::<PyString>() {
        return Ok(Some(
            crate::with_units!(text, units => describe_text(units)),
        ));
    }
    if value.is_exact_instance_of::<pyo3::types::PyInt>() {
        return Ok(int_text(value).map(String::into_bytes));
    }
    let mut out = Vec::new();
    if !encode(value, &mut out, &SPACED, 0)? {
        return Ok(None);
    }
    if wide::code_points(&out) > DESCRIBED {
        let mut cut = wide::head(&out, DESCRIBED - 3).to_vec();
        cut.extend_from_slice(b"...");
        return Ok(Some(cut));
    }
    Ok(Some(out))
}

/// `coerce_at(value, schema, root, _child_path("$", key), 1)` natively,
/// where the schema is read simply (None, True, False, or a plain `dict`
/// with no `$ref`, `allOf`, union, enum, const or wrapper, at every level
/// the value reaches) and the value is made of `str`, `int`, `float`,
/// `bool`, None, `list` and `dict` (exact types): its value and its issues
/// (`Issue`s, built with the Python class). None where the caller must ask
/// Python: JSON to parse in a string, an XML-shaped object read as a list,
/// `patternProperties`, `prefixItems` or a list of `items`, nesting past
/// coercion's `max_depth`, an int Python would not write. `root` only
/// matters through `$ref` and `allOf`, both declined.
pub fn coerce_value<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
    schema: Option<&Bound<'py, PyAny>>,
    _root: Option<&Bound<'py, PyAny>>,
    key: &[u8],
) -> PyResult<Option<(PyObject, Vec<PyObject>)>> {
    let mut coercer = Coercer {
        py,
        issues: Vec::new(),
    };
    let coerced = coercer.run(value, schema, &child_path(key), MEMBER_DEPTH)?;
    Ok(coerced.map(|value| (value.unbind(), coercer.issues)))
}

/// [`coerce_value`] of a `str`.
pub fn coerce_text(
    py: Python<'_>,
    text: &Bound<'_, PyString>,
    schema: Option<&Bound<'_, PyAny>>,
    root: Option<&Bound<'_, PyAny>>,
    key: &[u8],
) -> PyResult<Option<(PyObject, Vec<PyObject>)>> {
    coerce_value(py, text.as_any(), schema, root, key)
}

/// JSON's separators: an item's and a key's.
struct Separators {
    item: &'static [u8],
    key: &'static [u8],
}

/// `canonical_json`'s.
const COMPACT: Separators = Separators {
    item: b",",
    key: b":",
};

/// `json.dumps`'s default.
const SPACED: Separators = Separators {
    item: b", ",
    key: b": ",
};

/// Nesting written natively at most (deeper: Python's encoder, whose answer,
/// or error, stands).
const MAX_ENCODED_DEPTH: usize = 100;

/// Append the JSON `json`'s C encoder writes for `value` (`ensure_ascii=False`,
/// `separators`, keys in order) where every part of it is a `str`, `int`,
/// `float`, `bool`, None, `list` or `dict` with `str` keys (exact types):
/// `encode_basestring`, `int.__repr__`, `float.__repr__` (`NaN`,
/// `Infinity`, `-Infinity` where not finite), `true`/`false`/`null`.
/// False for anything else (out then holds a part of it), and for an int
/// Python refuses to write (past `sys.get_int_max_str_digits()`).
fn encode(
    value: &Bound<'_, PyAny>,
    out: &mut Vec<u8>,
    separators: &Separators,
    depth: usize,
) -> PyResult<bool> {
    if let Ok(text) = value.downcast_exact::<PyString>() {
        out.push(b'"');
        crate::with_units!(text, units => push_json_units(out, units));
        out.push(b'"');
        return Ok(true);
    }
    if value.is_none() {
        out.extend_from_slice(b"null");
        return Ok(true);
    }
    if let Ok(flag) = value.downcast_exact::<PyBool>() {
        out.extend_from_slice(if flag.is_true() { b"true" } else { b"false" });
        return Ok(true);
    }
    if value.is_exact_instance_of::<pyo3::types::PyInt>() {
        if let Ok(small) = value.extract::<i64>() {
            // (written in place: no String made for it)
            use std::io::Write as _;
            let _ = write!(out, "{small}");
            return Ok(true);
        }
        // (`int.__repr__`: `repr` is `PyObject_Repr`)
        return Ok(match value.repr() {
            Ok(text) => {
                crate::calls_py::push_wide(out, &text);
                true
            }
            Err(_) => false,
        });
    }
    if let Ok(number) = value.downcast_exact::<PyFloat>() {
        let x = number.value();
        let text = if x.is_nan() {
            "NaN".to_owned()
        } else if x.is_infinite() {
            if x > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
        } else {
            float_repr(x)
        };
        out.extend_from_slice(text.as_bytes());
        return Ok(true);
    }
    if depth >= MAX_ENCODED_DEPTH {
        return Ok(false);
    }
    if let Ok(list) = value.downcast_exact::<PyList>() {
        out.push(b'[');
        for (k, item) in list.iter().enumerate() {
            if k > 0 {
                out.extend_from_slice(separators.item);
            }
            if !encode(&item, out, separators, depth + 1)? {
                return Ok(false);
            }
        }
        out.push(b']');
        return Ok(true);
    }
    if let Ok(dict) = value.downcast_exact::<PyDict>() {
        out.push(b'{');
        for (k, (key, item)) in dict.iter().enumerate() {
            if k > 0 {
                out.extend_from_slice(separators.item);
            }
            let Ok(key) = key.downcast_exact::<PyString>() else {
                return Ok(false);
            };
            encode(key.as_any(), out, separators, depth + 1)?;
            out.extend_from_slice(separators.key);
            if !encode(&item, out, separators, depth + 1)? {
                return Ok(false);
            }
        }
        out.push(b'}');
        return Ok(true);
    }
    Ok(false)
}

/// Append `canonical_json(value)` natively (see [`encode`]: exact scalars,
/// and lists and dicts of them, `str` keys); false, with nothing appended,
/// where Python's must write it (or raise).
pub fn canonical_value(
    _py: Python<'_>,
    value: &Bound<'_, PyAny>,
    out: &mut Vec<u8>,
) -> PyResult<bool> {
    let start = out.len();
    if encode(value, out, &COMPACT, 0)? {
        return Ok(true);
    }
    out.truncate(start);
    Ok(false)
}

// -- json.loads of canonical JSON --------------------------------------------------

/// Nesting read natively at most (deeper: `json.loads`, whose answer, or
/// `RecursionError`, stands).
const MAX_NESTING: usize = 100;

/// `json.loads(text)` (`text` generalized UTF-8), built natively where the
/// text is read exactly as `json`'s scanner reads it; None where it is not
/// (anything invalid, NaN and the infinities, a number past a double's
/// range (`1e400`), a `\u` escape of a
/// surrogate, nesting past [`MAX_NESTING`], an integer `int()` refuses):
/// the caller then calls `json.loads`, which gives the answer or the error.
pub fn loads_native(py: Python<'_>, text: &[u8]) -> PyResult<Option<PyObject>> {
    let mut reader = Reader { py, text, at: 0 };
    reader.skip_space();
    let Some(value) = reader.value(0)? else {
        return Ok(None);
    };
    reader.skip_space();
    Ok((reader.at == text.len()).then(|| value.unbind()))
}

struct Reader<'a, 'py> {
    py: Python<'py>,
    text: &'a [u8],
    at: usize,
}

/// What a read gives: a value, or None where the native reader declines.
type Read<'py> = PyResult<Option<Bound<'py, PyAny>>>;

impl<'py> Reader<'_, 'py> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// `json`'s whitespace: `[ \t\n\r]*`.
    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn literal(&mut self, word: &[u8]) -> bool {
        if self.text[self.at..].starts_with(word) {
            self.at += word.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Read<'py> {
        let py = self.py;
        match self.peek() {
            Some(b'"') => self.string(),
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'n') if self.literal(b"null") => Ok(Some(py.None().into_bound(py))),
            Some(b't') if self.literal(b"true") => {
                Ok(Some(PyBool::new(py, true).to_owned().into_any()))
            }
            Some(b'f') if self.literal(b"false") => {
                Ok(Some(PyBool::new(py, false).to_owned().into_any()))
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Ok(None),
        }
    }

    /// The scanner's number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`
    /// (a `.` or an exponent with no digit is not read: what follows is then
    /// no delimiter, and the whole read declines, as `json.loads` fails).
    fn number(&mut self) -> Read<'py> {
        let start = self.at;
        let digits = |r: &mut Self| {
            let from = r.at;
            while r.peek().is_some_and(|b| b.is_ascii_digit()) {
                r.at += 1;
            }
            r.at - from
        };
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Ok(None),
        }
        let mut float = false;
        if self.peek() == Some(b'.')
            && self
                .text
                .get(self.at + 1)
                .is_some_and(|b| b.is_ascii_digit())
        {
            self.at += 1;
            digits(self);
            float = true;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let mark = self.at;
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if digits(self) == 0 {
                self.at = mark;
            } else {
                float = true;
            }
        }
        // (ASCII by construction)
        let Ok(number) = std::str::from_utf8(&self.text[start..self.at]) else {
            return Ok(None);
        };
        if float {
            // (correctly rounded, as float() is; overflow is inf in both, and
            // declined: JSON has no infinity, the caller's rules decide)
            let Ok(x) = number.parse::<f64>() else {
                return Ok(None);
            };
            if !x.is_finite() {
                return Ok(None);
            }
            return Ok(Some(PyFloat::new(self.py, x).into_any()));
        }
        let written: Vec<u8> = number.bytes().filter(u8::is_ascii_digit).collect();
        let decimal = Decimal::read(number.starts_with('-'), &written);
        int_of_decimal(self.py, &decimal)
    }

    /// A string (the reader is at its `"`): `json`'s strict scanner, escapes
    /// decoded; a raw control character, a bad escape or a `\u` escape of a
    /// surrogate (joined with the next one or not: the scanner's rule) declines.
    fn string(&mut self) -> Read<'py> {
        let start = self.at + 1;
        let mut end = start;
        let mut escaped = false;
        loop {
            match self.text.get(end) {
                None => return Ok(None),
                Some(b'"') => break,
                Some(b'\\') => {
                    escaped = true;
                    end += 2;
                }
                Some(&b) if b < 0x20 => return Ok(None),
                Some(_) => end += 1,
            }
        }
        let body = &self.text[start..end];
        self.at = end + 1;
        if !escaped {
            if let Ok(plain) = std::str::from_utf8(body) {
                return Ok(Some(PyString::new(self.py, plain).into_any()));
            }
        }
        if let Some(text) = unescaped(body) {
            // (the usual case: valid UTF-8, escapes of no surrogate)
            return Ok(Some(PyString::new(self.py, &text).into_any()));
        }
        let mut points = Vec::with_capacity(body.len());
        let mut i = 0;
        while i < body.len() {
            if body[i] == b'\\' {
                let c = match body.get(i + 1) {
                    Some(b'"') => 0x22,
                    Some(b'\\') => 0x5C,
                    Some(b'/') => 0x2F,
                    Some(b'b') => 0x08,
                    Some(b'f') => 0x0C,
                    Some(b'n') => 0x0A,
                    Some(b'r') => 0x0D,
                    Some(b't') => 0x09,
                    Some(b'u') => {
                        let Some(hex) = body.get(i + 2..i + 6) else {
                            return Ok(None);
                        };
                        let Some(c) = hex_value(hex) else {
                            return Ok(None);
                        };
                        if wide::is_surrogate(c) {
                            return Ok(None);
                        }
                        points.push(c);
                        i += 6;
                        continue;
                    }
                    _ => return Ok(None),
                };
                points.push(c);
                i += 2;
                continue;
            }
            let Some((c, len)) = decode_point(&body[i..]) else {
                return Ok(None);
            };
            points.push(c);
            i += len;
        }
        Ok(Some(new_str(self.py, Name::U32(&points))?.into_any()))
    }

    fn object(&mut self, depth: usize) -> Read<'py> {
        if depth > MAX_NESTING {
            return Ok(None);
        }
        self.at += 1;
        let dict = PyDict::new(self.py);
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Some(dict.into_any()));
        }
        loop {
            if self.peek() != Some(b'"') {
                return Ok(None);
            }
            let Some(key) = self.string()? else {
                return Ok(None);
            };
            self.skip_space();
            if self.peek() != Some(b':') {
                return Ok(None);
            }
            self.at += 1;
            self.skip_space();
            let Some(value) = self.value(depth)? else {
                return Ok(None);
            };
            // (a repeated key keeps its first place and takes the last value, as in json)
            dict.set_item(key, value)?;
            self.skip_space();
            match self.peek() {
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Some(dict.into_any()));
                }
                Some(b',') => {
                    self.at += 1;
                    self.skip_space();
                }
                _ => return Ok(None),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Read<'py> {
        if depth > MAX_NESTING {
            return Ok(None);
        }
        self.at += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Some(PyList::empty(self.py).into_any()));
        }
        loop {
            let Some(value) = self.value(depth)? else {
                return Ok(None);
            };
            items.push(value);
            self.skip_space();
            match self.peek() {
                Some(b']') => {
                    self.at += 1;
                    return Ok(Some(PyList::new(self.py, items)?.into_any()));
                }
                Some(b',') => {
                    self.at += 1;
                    self.skip_space();
                }
                _ => return Ok(None),
            }
        }
    }
}

/// Four hex digits (either case), as the scanner reads a `\u` escape.
fn hex_value(hex: &[u8]) -> Option<u32> {
    hex.iter().try_fold(0u32, |n, &b| {
        let digit = char::from(b).to_digit(16)?;
        Some(n * 16 + digit)
    })
}

/// The code point generalized UTF-8 `bytes` begin with, and its length:
/// UTF-8, surrogates in three bytes allowed (what `surrogatepass` reads);
/// None for anything else (overlong, cut, past U+10FFFF).
/// The text of a JSON string's body with escapes (`"\\..."`), when it is valid
/// UTF-8 and escapes no surrogate: the runs between escapes copied whole.
/// None: [`Reader::string`] decodes it a code point at a time.
fn unescaped(body: &[u8]) -> Option<String> {
    let mut out: Vec<u8> = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let run = body[i..]
            .iter()
            .position(|&b| b == b'\\')
            .map_or(body.len(), |k| i + k);
        out.extend_from_slice(&body[i..run]);
        i = run;
        if i >= body.len() {
            break;
        }
        let c = match body.get(i + 1)? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let c = hex_value(body.get(i + 2..i + 6)?)?;
                if wide::is_surrogate(c) {
                    return None;
                }
                i += 4;
                char::from_u32(c)?
            }
            _ => return None,
        };
        let mut buffer = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
        i += 2;
    }
    String::from_utf8(out).ok()
}

fn decode_point(bytes: &[u8]) -> Option<(u32, usize)> {
    let lead = *bytes.first()?;
    let cont = |i: usize, low: u8, high: u8| -> Option<u32> {
        let b = *bytes.get(i)?;
        (low..=high).contains(&b).then_some(u32::from(b & 0x3F))
    };
    Some(match lead {
        0x00..=0x7F => (u32::from(lead), 1),
        0xC2..=0xDF => ((u32::from(lead & 0x1F) << 6) | cont(1, 0x80, 0xBF)?, 2),
        0xE0..=0xEF => {
            let low = if lead == 0xE0 { 0xA0 } else { 0x80 };
            let c =
                (u32::from(lead & 0x0F) << 12) | (cont(1, low, 0xBF)? << 6) | cont(2, 0x80, 0xBF)?;
            (c, 3)
        }
        0xF0..=0xF4 => {
            let (low, high) = match lead {
                0xF0 => (0x90, 0xBF),
                0xF4 => (0x80, 0x8F),
                _ => (0x80, 0xBF),
            };
            let c = (u32::from(lead & 0x07) << 18)
                | (cont(1, low, high)? << 12)
                | (cont(2, 0x80, 0xBF)? << 6)
                | cont(3, 0x80, 0xBF)?;
            (c, 4)
        }
        _ => return None,
    })
}

// -- counts, for the tests ----------------------------------------------------------

/// The host's fast paths, counted (for the tests: which were taken).
#[derive(Clone, Copy, Debug)]
pub enum Path {
    Convert = 0,
    Coerce = 1,
    Canonical = 2,
    Loads = 3,
}

const PATHS: [&str; 4] = ["convert", "coerce", "canonical", "loads"];

/// Per path: taken, declined.
static COUNTS: [[AtomicUsize; 2]; 4] = [const { [const { AtomicUsize::new(0) }; 2] }; 4];

/// Count one use of `path`: taken natively, or declined (Python called).
pub fn count(path: Path, taken: bool) {
    COUNTS[path as usize][usize::from(!taken)].fetch_add(1, Ordering::Relaxed);
}

// -- the binding, for the differential tests --------------------------------------

/// `_native._fragment_text(text)`: `fragment_value(text)`, or None where declined.
#[pyfunction]
fn _fragment_text<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyString>,
) -> PyResult<Option<Bound<'py, PyString>>> {
    let decoded = crate::with_units!(text, units => fragment_text(units));
    decoded
        .map(|points| new_str(py, Name::U32(&points)))
        .transpose()
}

/// `_native._coerce_text(text, schema, root, key)`: `coerce_at(text, schema,
/// root, _child_path("$", key), 1)` as `(value, [issues])`, or None where declined.
#[pyfunction]
fn _coerce_text(
    py: Python<'_>,
    text: &Bound<'_, PyString>,
    schema: &Bound<'_, PyAny>,
    root: &Bound<'_, PyAny>,
    key: &Bound<'_, PyString>,
) -> PyResult<Option<(PyObject, Vec<PyObject>)>> {
    let key = crate::calls_py::wide_of(key);
    coerce_text(py, text, Some(schema), Some(root), &key)
}

/// `_native._coerce_value(value, schema, root, key)`: `coerce_at(value,
/// schema, root, _child_path("$", key), 1)` as `(value, [issues])`, or None where declined.
#[pyfunction]
fn _coerce_value(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    schema: &Bound<'_, PyAny>,
    root: &Bound<'_, PyAny>,
    key: &Bound<'_, PyString>,
) -> PyResult<Option<(PyObject, Vec<PyObject>)>> {
    let key = crate::calls_py::wide_of(key);
    coerce_value(py, value, Some(schema), Some(root), &key)
}

/// `_native._canonical_value(value)`: `canonical_json(value)`, or None where declined.
#[pyfunction]
fn _canonical_value<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyString>>> {
    let mut out = Vec::new();
    if !canonical_value(py, value, &mut out)? {
        return Ok(None);
    }
    crate::calls_py::py_of(py, &out).map(Some)
}

/// `_native._loads_native(text)`: `(json.loads(text),)`, or None where declined.
#[pyfunction]
fn _loads_native<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyString>,
) -> PyResult<Option<(PyObject,)>> {
    let text = crate::calls_py::wide_of(text);
    Ok(loads_native(py, &text)?.map(|value| (value,)))
}

/// `_native._loads_canonical(text)`: `json.loads(text)` as the native
/// engine makes it ([`crate::ctx::loads`]: natively where it can be).
#[pyfunction]
fn _loads_canonical(py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<PyObject> {
    crate::ctx::loads(py, &crate::calls_py::wide_of(text))
}

/// `_native._fast_counts(reset=False)`: `{path: (taken, declined)}` of the
/// host's fast paths since the last reset.
#[pyfunction]
#[pyo3(signature = (reset = false))]
fn _fast_counts(py: Python<'_>, reset: bool) -> PyResult<Bound<'_, PyDict>> {
    let counts = PyDict::new(py);
    for (name, slots) in PATHS.iter().zip(COUNTS.iter()) {
        let read = |slot: &AtomicUsize| {
            if reset {
                slot.swap(0, Ordering::Relaxed)
            } else {
                slot.load(Ordering::Relaxed)
            }
        };
        counts.set_item(*name, (read(&slots[0]), read(&slots[1])))?;
    }
    Ok(counts)
}

/// Add the binding's functions to the module.
pub fn add_functions(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_fragment_text, m)?)?;
    m.add_function(wrap_pyfunction!(_coerce_text, m)?)?;
    m.add_function(wrap_pyfunction!(_coerce_value, m)?)?;
    m.add_function(wrap_pyfunction!(_canonical_value, m)?)?;
    m.add_function(wrap_pyfunction!(_loads_native, m)?)?;
    m.add_function(wrap_pyfunction!(_loads_canonical, m)?)?;
    m.add_function(wrap_pyfunction!(_fast_counts, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(text: &str) -> Vec<u32> {
        text.chars().map(u32::from).collect()
    }

    // (the halfway values are written out exactly, on purpose: clippy's
    // shorter spelling is Rust's tie, not Python's)
    #[allow(clippy::excessive_precision)]
    #[test]
    fn floats_are_written_as_python_writes_them() {
        for (x, text) in [
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (0.00012345, "0.00012345"),
            (1e22, "1e+22"),
            (1e100, "1e+100"),
            (5e-324, "5e-324"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (123.456, "123.456"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (9999999999999998.0, "9999999999999998.0"),
            (575820270870527.25, "575820270870527.2"),
            (575820270870527.375, "575820270870527.4"),
            (1286065912525275.25, "1286065912525275.2"),
            (0.30000000000000004, "0.30000000000000004"),
        ] {
            assert_eq!(float_repr(x), text, "{x}");
        }
    }

    #[test]
    fn numbers_as_parse_number_reads_them() {
        let int = |negative: bool, written: &str| {
            Some(Scalar::Int(Decimal::read(negative, written.as_bytes())))
        };
        assert_eq!(parse_number(&units("42"), true), int(false, "42"));
        assert_eq!(parse_number(&units("-007"), false), int(true, "007"));
        assert_eq!(parse_number(&units("+0"), true), int(false, "0"));
        let zeros = Decimal::read(true, b"007");
        assert_eq!(
            (zeros.text(), zeros.written_text(), zeros.small()),
            ("-7".to_owned(), "-007".to_owned(), Some(-7))
        );
        let zero = Decimal::read(false, b"00");
        assert_eq!(
            (zero.text(), zero.written_text(), zero.small()),
            ("0".to_owned(), "00".to_owned(), Some(0))
        );
        assert_eq!(parse_number(&units("1.5"), false), Some(Scalar::Float(1.5)));
        assert_eq!(parse_number(&units("1.5"), true), None);
        assert_eq!(
            parse_number(&units("2.0"), true),
            Some(Scalar::IntOfFloat(2.0))
        );
        assert_eq!(parse_number(&units("1."), false), Some(Scalar::Float(1.0)));
        assert_eq!(
            parse_number(&units(".5e1"), false),
            Some(Scalar::Float(5.0))
        );
        assert_eq!(
            parse_number(&units("1E+2"), false),
            Some(Scalar::Float(100.0))
        );
        for text in [
            "1e999", "-1e400", "", ".", "1e", "e5", "1.2.3", "١", "1_0", " 1", "inf", "nan", "0x10",
        ] {
            assert_eq!(parse_number(&units(text), false), None, "{text}");
        }
        assert_eq!(parse_number(&units(&"9".repeat(4001)), true), None);
        assert!(matches!(
            parse_number(&units(&"9".repeat(4000)), true),
            Some(Scalar::Int(_))
        ));
    }

    #[test]
    fn decisions_follow_the_preference() {
        let kinds = |ks: &[Kind]| ks.iter().fold(Kinds::NONE, |k, &x| k.with(x));
        let int_bool = kinds(&[Kind::Integer, Kind::Boolean]);
        assert_eq!(
            decide(&units(" TRUE\u{3000}"), int_bool),
            Decision::Converted {
                expected: Kind::Boolean,
                new: Scalar::Bool(true)
            }
        );
        assert_eq!(decide(&units("x"), int_bool), Decision::KeptAsIs);
        assert_eq!(
            decide(&units("x"), kinds(&[Kind::String, Kind::Integer])),
            Decision::AsIs
        );
        assert_eq!(
            decide(&units("None"), kinds(&[Kind::Null])),
            Decision::Converted {
                expected: Kind::Null,
                new: Scalar::Null
            }
        );
        assert_eq!(
            decide(&units("nil"), kinds(&[Kind::Null, Kind::Array])),
            Decision::Decline
        );
        assert_eq!(
            decide(&units("3"), kinds(&[Kind::Null, Kind::Array, Kind::Number])),
            Decision::Converted {
                expected: Kind::Number,
                new: Scalar::Int(Decimal::read(false, b"3"))
            }
        );
        assert_eq!(
            decide(&units(&"1".repeat(4001)), int_bool),
            Decision::TooManyDigits {
                expected: Kind::Integer
            }
        );
        assert_eq!(
            decide(&units("\u{212A}"), kinds(&[Kind::Boolean])),
            Decision::KeptAsIs
        );
        assert_eq!(
            kinds(&[Kind::String, Kind::Array, Kind::Null]).expected(),
            "array or null or string"
        );
        assert_eq!(Kinds::NONE.expected(), "");
        assert_eq!(decide_no_schema(&units(" [1] ")), Decision::Decline);
        assert_eq!(decide_no_schema(&units("[1")), Decision::AsIs);
    }

    #[test]
    fn descriptions_are_short_json() {
        let describe = |text: &str| String::from_utf8(describe_text(&units(text))).unwrap();
        assert_eq!(describe("abc"), "\"abc\"");
        assert_eq!(describe("a\"b\n"), "\"a\\\"b\\n\"");
        assert_eq!(describe("a\\b\u{7f}~ "), "\"a\\\\b\u{7f}~ \"");
        assert_eq!(describe(&"x".repeat(58)), format!("\"{}\"", "x".repeat(58)));
        assert_eq!(
            describe(&"x".repeat(59)),
            format!("\"{}...", "x".repeat(56))
        );
        assert_eq!(
            describe(&"é".repeat(100)),
            format!("\"{}...", "é".repeat(56))
        );
        let cut = describe(&format!("{}\u{1}", "x".repeat(54)));
        assert_eq!(cut, format!("\"{}\\u...", "x".repeat(54)));
        assert_eq!(child_path(b"city"), b"$.city");
        assert_eq!(
            child_path(b"a b\"\xed\xa0\x80"),
            b"$[\"a b\\\"\xed\xa0\x80\"]"
        );
        assert_eq!(child_path(b"9a"), b"$[\"9a\"]");
    }

    #[test]
    fn fragments_without_markup_are_decoded() {
        assert_eq!(fragment_str("1 &lt; 2").as_deref(), Some("1 < 2"));
        assert_eq!(
            fragment_str("&#xD800; &#0;").as_deref(),
            Some("&#xD800; &#0;")
        );
        assert!(fragment_str("<a>1</a>").is_none());
        assert!(matches!(
            fragment_str("plain"),
            Some(Cow::Borrowed("plain"))
        ));
    }

    #[test]
    fn generalized_utf8_is_read_strictly() {
        assert_eq!(decode_point(b"\xed\xa0\x80"), Some((0xD800, 3)));
        assert_eq!(decode_point("é".as_bytes()), Some((0xE9, 2)));
        assert_eq!(decode_point("😀".as_bytes()), Some((0x1F600, 4)));
        for bad in [
            &b"\xc0\x80"[..],
            b"\xe0\x80\x80",
            b"\xf4\x90\x80\x80",
            b"\x80",
            b"\xe2\x82",
        ] {
            assert_eq!(decode_point(bad), None);
        }
    }
}
