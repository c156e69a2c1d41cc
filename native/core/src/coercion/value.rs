//! JSON-like data with Python's semantics, as coercion sees it.
//!
//! [`Value`] is what `json.loads` gives a Python program: objects keep their
//! keys in the order written (a repeated key keeps its first place and takes
//! its last value, as a `dict` does), integers have any size (beyond `i64`
//! they keep their decimal digits), floats may be infinite or NaN, and
//! strings are generalized UTF-8 (see [`crate::wide`]): they may hold lone
//! surrogates, as a Python `str` may. Equality is Python's `==`
//! ([`py_eq`]: `True == 1 == 1.0`, objects equal whatever their key order).
//!
//! Containers are shared ([`Arc`]): a schema's parts are handed around, merged
//! and compared by identity (`leaves` counts a schema reached twice once, as
//! the Python code tells it by `id`) without being copied.

use std::collections::HashMap;
use std::sync::Arc;

use crate::json::float_repr;
use crate::wide;

/// Python's `sys.int_info.default_max_str_digits`: `int()` of a longer
/// digit string raises (so `json.loads` refuses such a number).
pub const MAX_INT_DIGITS: usize = 4300;

/// How deep `json.loads` and `json.dumps` nest before Python's recursion limit
/// stops them (`RecursionError`). Python's bound depends on the stack in use
/// when it is called (about 1000 frames less those in use); this is a fixed
/// stand-in for it: values nested as deep differ between the engines.
pub const PY_NESTING_LIMIT: usize = 900;

/// A JSON value as Python holds it.
#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer beyond `i64`: its canonical decimal text (`-` and digits, no leading zero).
    BigInt(Arc<str>),
    Float(f64),
    /// Generalized UTF-8 (lone surrogates allowed).
    Str(Vec<u8>),
    Array(Arc<Vec<Value>>),
    Object(Arc<Object>),
}

/// An object's members in insertion order, with an index by key once it
/// has more than a few (most objects are small: a scan costs less than a hash).
#[derive(Clone, Debug, Default)]
pub struct Object {
    entries: Vec<(Vec<u8>, Value)>,
    index: Option<HashMap<Vec<u8>, usize>>,
}

/// Members looked up by a scan up to here; an index beyond.
const SCANNED: usize = 8;

impl Object {
    pub fn new() -> Object {
        Object::default()
    }

    fn position(&self, key: &[u8]) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.entries.iter().position(|(k, _)| k.as_slice() == key),
        }
    }

    /// `dict[key] = value`: a new key goes last, a known one keeps its place.
    pub fn insert(&mut self, key: Vec<u8>, value: Value) {
        if let Some(at) = self.position(&key) {
            self.entries[at].1 = value;
            return;
        }
        if let Some(index) = &mut self.index {
            index.insert(key.clone(), self.entries.len());
        }
        self.entries.push((key, value));
        if self.index.is_none() && self.entries.len() > SCANNED {
            let index = self
                .entries
                .iter()
                .enumerate()
                .map(|(at, (k, _))| (k.clone(), at))
                .collect();
            self.index = Some(index);
        }
    }

    pub fn get(&self, key: &[u8]) -> Option<&Value> {
        self.position(key).map(|at| &self.entries[at].1)
    }

    pub fn contains(&self, key: &[u8]) -> bool {
        self.position(key).is_some()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Vec<u8>, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// A copy without `key` (`{k: v for k, v in schema.items() if k != key}`).
    pub fn without(&self, key: &[u8]) -> Object {
        let mut out = Object::new();
        for (k, v) in self.iter() {
            if k.as_slice() != key {
                out.insert(k.clone(), v.clone());
            }
        }
        out
    }
}

impl FromIterator<(Vec<u8>, Value)> for Object {
    fn from_iter<I: IntoIterator<Item = (Vec<u8>, Value)>>(iter: I) -> Object {
        let mut out = Object::new();
        for (k, v) in iter {
            out.insert(k, v);
        }
        out
    }
}

impl Value {
    /// A string value of Rust text.
    pub fn str(text: &str) -> Value {
        Value::Str(text.as_bytes().to_vec())
    }

    pub fn array(items: Vec<Value>) -> Value {
        Value::Array(Arc::new(items))
    }

    pub fn object(object: Object) -> Value {
        Value::Object(Arc::new(object))
    }

    /// An integer from its decimal text (`[+-]?[0-9]+`, as `int()` reads it).
    pub fn int_from_digits(text: &[u8]) -> Value {
        let negative = text.first() == Some(&b'-');
        let digits = text
            .strip_prefix(b"+")
            .or(text.strip_prefix(b"-"))
            .unwrap_or(text);
        let digits = match digits.iter().position(|&b| b != b'0') {
            None => return Value::Int(0),
            Some(at) => &digits[at..],
        };
        let mut canonical = String::with_capacity(digits.len() + 1);
        if negative {
            canonical.push('-');
        }
        canonical.extend(digits.iter().map(|&b| char::from(b)));
        match canonical.parse::<i64>() {
            Ok(small) => Value::Int(small),
            Err(_) => Value::BigInt(canonical.into()),
        }
    }

    /// `int(value)` of an integral finite float, exactly.
    pub fn int_from_float(value: f64) -> Value {
        if value.abs() < 9.2e18 {
            return Value::Int(value as i64);
        }
        // (value = m * 2**e with e > 0 here: the digits of m doubled e times)
        let bits = value.abs().to_bits();
        let exponent = ((bits >> 52) & 0x7FF) as i64 - 1075;
        let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
        let mut limbs: Vec<u32> = Vec::new(); // base 10**9, least significant first
        let mut m = mantissa;
        while m > 0 {
            limbs.push((m % 1_000_000_000) as u32);
            m /= 1_000_000_000;
        }
        for _ in 0..exponent {
            let mut carry = 0u64;
            for limb in &mut limbs {
                let doubled = u64::from(*limb) * 2 + carry;
                *limb = (doubled % 1_000_000_000) as u32;
                carry = doubled / 1_000_000_000;
            }
            if carry > 0 {
                limbs.push(carry as u32);
            }
        }
        let mut text = String::new();
        if value < 0.0 {
            text.push('-');
        }
        let mut iter = limbs.iter().rev();
        if let Some(top) = iter.next() {
            text.push_str(&top.to_string());
        }
        for limb in iter {
            text.push_str(&format!("{limb:09}"));
        }
        Value::BigInt(text.into())
    }

    /// `json_type(value)`: the JSON type's name.
    pub fn json_type(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) | Value::BigInt(_) => "integer",
            Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    pub fn as_object(&self) -> Option<&Arc<Object>> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Arc<Vec<Value>>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&[u8]> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// How deeply containers nest in it (a scalar: 0).
    pub fn nesting(&self) -> usize {
        match self {
            Value::Array(items) => 1 + items.iter().map(Value::nesting).max().unwrap_or(0),
            Value::Object(o) => 1 + o.iter().map(|(_, v)| v.nesting()).max().unwrap_or(0),
            _ => 0,
        }
    }

    /// `toolparse.events.canonical_json(value)`: compact separators, non-ASCII
    /// (and lone surrogates) kept, keys in order, Python's float repr.
    pub fn canonical_json(&self) -> Vec<u8> {
        let mut out = Vec::new();
        write_json(&mut out, self, b",", b":");
        out
    }

    /// `json.dumps(value, ensure_ascii=False)`: as [`Value::canonical_json`],
    /// with Python's default separators `", "` and `": "`.
    pub fn dumps(&self) -> Vec<u8> {
        let mut out = Vec::new();
        write_json(&mut out, self, b", ", b": ");
        out
    }
}

/// Append `json.encoder.encode_basestring(text)` (quotes included): lone surrogates kept.
pub fn push_json_string(out: &mut Vec<u8>, text: &[u8]) {
    out.push(b'"');
    wide::push_json_chars(out, wide::chars(text));
    out.push(b'"');
}

/// Python's `float.__repr__` as the JSON encoder writes it (`NaN`, `Infinity`).
pub fn float_text(value: f64) -> String {
    if value.is_nan() {
        "NaN".into()
    } else if value.is_infinite() {
        if value > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        float_repr(value)
    }
}

fn write_json(out: &mut Vec<u8>, value: &Value, comma: &[u8], colon: &[u8]) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Int(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::BigInt(digits) => out.extend_from_slice(digits.as_bytes()),
        Value::Float(f) => out.extend_from_slice(float_text(*f).as_bytes()),
        Value::Str(s) => push_json_string(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.extend_from_slice(comma);
                }
                write_json(out, item, comma, colon);
            }
            out.push(b']');
        }
        Value::Object(o) => {
            out.push(b'{');
            for (k, (key, item)) in o.iter().enumerate() {
                if k > 0 {
                    out.extend_from_slice(comma);
                }
                push_json_string(out, key);
                out.extend_from_slice(colon);
                write_json(out, item, comma, colon);
            }
            out.push(b'}');
        }
    }
}

/// A number as Python compares it: an exact integer, or a float.
enum Number<'a> {
    Small(i64),
    Big(&'a str),
    Float(f64),
}

fn number(value: &Value) -> Option<Number<'_>> {
    match value {
        Value::Bool(b) => Some(Number::Small(i64::from(*b))),
        Value::Int(n) => Some(Number::Small(*n)),
        Value::BigInt(d) => Some(Number::Big(d)),
        Value::Float(f) => Some(Number::Float(*f)),
        _ => None,
    }
}

fn int_eq_float(int: &Number<'_>, f: f64) -> bool {
    if !f.is_finite() || f.fract() != 0.0 {
        return false;
    }
    match (int, Value::int_from_float(f)) {
        (Number::Small(n), Value::Int(m)) => *n == m,
        (Number::Big(d), Value::BigInt(e)) => **d == *e,
        _ => false,
    }
}

/// Python's `a == b` for JSON values.
pub fn py_eq(a: &Value, b: &Value) -> bool {
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return match (&x, &y) {
            (Number::Float(f), Number::Float(g)) => f == g,
            (Number::Float(f), int) | (int, Number::Float(f)) => int_eq_float(int, *f),
            (Number::Small(n), Number::Small(m)) => n == m,
            (Number::Big(d), Number::Big(e)) => d == e,
            _ => false,
        };
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Str(s), Value::Str(t)) => s == t,
        (Value::Array(x), Value::Array(y)) => {
            Arc::ptr_eq(x, y)
                || (x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| py_eq(p, q)))
        }
        (Value::Object(x), Value::Object(y)) => {
            Arc::ptr_eq(x, y)
                || (x.len() == y.len()
                    && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w))))
        }
        _ => false,
    }
}

/// `value in values` (Python's list membership).
pub fn py_in(value: &Value, values: &[Value]) -> bool {
    values.iter().any(|v| py_eq(value, v))
}

// -- reading JSON as json.loads does -----------------------------------------------------

/// How [`loads`] reads.
#[derive(Clone, Copy, Debug)]
pub struct Loads {
    /// `NaN`, `Infinity` and `-Infinity` are values (json.loads), or refused
    /// (coercion's strict decoder); a float beyond a double's range is refused too then.
    pub constants: bool,
}

struct Reader<'a> {
    text: &'a [u32],
    at: usize,
    mode: Loads,
    depth: usize,
}

fn is_json_space(c: u32) -> bool {
    matches!(c, 0x20 | 0x09 | 0x0A | 0x0D)
}

/// `json.loads(text)` of the code points `text`, or None where it raises
/// (`ValueError` or `RecursionError`).
pub fn loads(text: &[u32], mode: Loads) -> Option<Value> {
    let mut reader = Reader {
        text,
        at: 0,
        mode,
        depth: 0,
    };
    reader.space();
    let value = reader.value()?;
    reader.space();
    (reader.at == text.len()).then_some(value)
}

/// The body of a JSON string (what lies between its quotes) decoded as
/// `json.loads('"' + body + '"', strict=False)` does (control characters
/// allowed); None where it raises.
pub fn loads_string_body(body: &[u32]) -> Option<Vec<u32>> {
    let mut text = Vec::with_capacity(body.len() + 2);
    text.push(u32::from(b'"'));
    text.extend_from_slice(body);
    text.push(u32::from(b'"'));
    let mut reader = Reader {
        text: &text,
        at: 1,
        mode: Loads { constants: true },
        depth: 0,
    };
    let decoded = reader.string(false)?;
    (reader.at == text.len()).then_some(decoded)
}

impl Reader<'_> {
    fn peek(&self) -> Option<u32> {
        self.text.get(self.at).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(is_json_space) {
            self.at += 1;
        }
    }

    fn word(&mut self, word: &str) -> bool {
        let n = word.len();
        if self.text.len() - self.at >= n
            && self.text[self.at..self.at + n]
                .iter()
                .zip(word.bytes())
                .all(|(&c, b)| c == u32::from(b))
        {
            self.at += n;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Option<Value> {
        let c = char::from_u32(self.peek()?)?;
        match c {
            '"' => {
                self.at += 1;
                let chars = self.string(true)?;
                Some(Value::Str(to_wide(&chars)))
            }
            '{' | '[' => {
                self.depth += 1;
                if self.depth > PY_NESTING_LIMIT {
                    return None;
                }
                let value = if c == '{' {
                    self.object()
                } else {
                    self.array()
                };
                self.depth -= 1;
                value
            }
            'n' if self.word("null") => Some(Value::Null),
            't' if self.word("true") => Some(Value::Bool(true)),
            'f' if self.word("false") => Some(Value::Bool(false)),
            'N' if self.word("NaN") => self.constant(f64::NAN),
            'I' if self.word("Infinity") => self.constant(f64::INFINITY),
            '-' if self.text.get(self.at + 1) == Some(&u32::from(b'I')) => {
                self.at += 1;
                if self.word("Infinity") {
                    self.constant(f64::NEG_INFINITY)
                } else {
                    None
                }
            }
            _ => self.number(),
        }
    }

    fn constant(&self, value: f64) -> Option<Value> {
        self.mode.constants.then_some(Value::Float(value))
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.peek().is_some_and(|c| (0x30..=0x39).contains(&c)) {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.at;
        let digit = |c: Option<u32>| c.is_some_and(|c| (0x30..=0x39).contains(&c));
        if self.peek() == Some(u32::from(b'-')) {
            self.at += 1;
        }
        match self.peek() {
            Some(0x30) => self.at += 1,
            Some(0x31..=0x39) => {
                self.digits();
            }
            _ => return None,
        }
        let mut float = false;
        if self.peek() == Some(u32::from(b'.')) && digit(self.text.get(self.at + 1).copied()) {
            self.at += 1;
            self.digits();
            float = true;
        }
        if matches!(self.peek(), Some(0x45 | 0x65)) {
            let back = self.at;
            self.at += 1;
            if matches!(self.peek(), Some(0x2B | 0x2D)) {
                self.at += 1;
            }
            if self.digits() == 0 {
                self.at = back;
            } else {
                float = true;
            }
        }
        let token: Vec<u8> = self.text[start..self.at].iter().map(|&c| c as u8).collect();
        if float {
            let value: f64 = std::str::from_utf8(&token).ok()?.parse().ok()?;
            if !value.is_finite() && !self.mode.constants {
                return None;
            }
            return Some(Value::Float(value));
        }
        let digits = token.len() - usize::from(token[0] == b'-');
        if digits > MAX_INT_DIGITS {
            return None;
        }
        Some(Value::int_from_digits(&token))
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let mut v = 0;
        for k in at..at + 4 {
            v = v * 16 + char::from_u32(*self.text.get(k)?)?.to_digit(16)?;
        }
        Some(v)
    }

    /// After the opening quote: the string's code points; `self.at` after its closing quote.
    fn string(&mut self, strict: bool) -> Option<Vec<u32>> {
        let mut out = Vec::new();
        loop {
            let c = self.peek()?;
            self.at += 1;
            match c {
                0x22 => return Some(out),
                0x5C => {
                    let e = char::from_u32(self.peek()?)?;
                    self.at += 1;
                    out.push(match e {
                        '"' => 0x22,
                        '\\' => 0x5C,
                        '/' => 0x2F,
                        'b' => 0x08,
                        'f' => 0x0C,
                        'n' => 0x0A,
                        'r' => 0x0D,
                        't' => 0x09,
                        'u' => {
                            let v = self.hex4(self.at)?;
                            self.at += 4;
                            if wide::is_high(v)
                                && self.text.get(self.at) == Some(&0x5C)
                                && self.text.get(self.at + 1) == Some(&u32::from(b'u'))
                            {
                                let low = self.hex4(self.at + 2)?;
                                if wide::is_low(low) {
                                    self.at += 6;
                                    0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
                                } else {
                                    v
                                }
                            } else {
                                v
                            }
                        }
                        _ => return None,
                    });
                }
                c if c < 0x20 && strict => return None,
                c => out.push(c),
            }
        }
    }

    fn array(&mut self) -> Option<Value> {
        self.at += 1;
        let mut items = Vec::new();
        self.space();
        if self.peek() == Some(u32::from(b']')) {
            self.at += 1;
            return Some(Value::array(items));
        }
        loop {
            items.push(self.value()?);
            self.space();
            match self.peek()? {
                0x5D => {
                    self.at += 1;
                    return Some(Value::array(items));
                }
                0x2C => {
                    self.at += 1;
                    self.space();
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self) -> Option<Value> {
        self.at += 1;
        let mut object = Object::new();
        self.space();
        if self.peek() == Some(u32::from(b'}')) {
            self.at += 1;
            return Some(Value::object(object));
        }
        loop {
            if self.peek()? != 0x22 {
                return None;
            }
            self.at += 1;
            let key = to_wide(&self.string(true)?);
            self.space();
            if self.peek()? != u32::from(b':') {
                return None;
            }
            self.at += 1;
            self.space();
            let value = self.value()?;
            object.insert(key, value);
            self.space();
            match self.peek()? {
                0x7D => {
                    self.at += 1;
                    return Some(Value::object(object));
                }
                0x2C => {
                    self.at += 1;
                    self.space();
                }
                _ => return None,
            }
        }
    }
}

/// Code points as generalized UTF-8.
pub fn to_wide(chars: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(chars.len());
    wide::push_units(&mut out, chars);
    out
}

/// Generalized UTF-8 as code points.
pub fn code_points(text: &[u8]) -> Vec<u32> {
    wide::chars(text).collect()
}

/// `toolparse.events.valid_unicode(text)`: surrogate pairs joined, every
/// surrogate left U+FFFD.
pub fn valid_unicode(text: &[u8]) -> Vec<u8> {
    if text.is_ascii() || !text.windows(2).any(|w| w[0] == 0xED && w[1] >= 0xA0) {
        return text.to_vec();
    }
    let mut chars = code_points(text);
    wide::join_surrogate_pairs(&mut chars);
    to_wide(&chars.into_iter().map(wide::replaced).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str, constants: bool) -> Option<Value> {
        let chars: Vec<u32> = text.chars().map(u32::from).collect();
        loads(&chars, Loads { constants })
    }

    fn canon(text: &str) -> String {
        String::from_utf8(load(text, true).unwrap().canonical_json()).unwrap()
    }

    #[test]
    fn loads_as_python_does() {
        assert_eq!(
            canon(r#" {"b": 1, "a": [1.0, -0.0, 1e5, 12345678901234567890123], "b": "é\u00e9"} "#),
            r#"{"b":"éé","a":[1.0,-0.0,100000.0,12345678901234567890123]}"#
        );
        assert_eq!(
            canon("[NaN, Infinity, -Infinity, 1e400]"),
            "[NaN,Infinity,-Infinity,Infinity]"
        );
        assert!(load("[NaN]", false).is_none());
        assert!(load("1e400", false).is_none());
        assert!(load("01", true).is_none());
        assert!(load("1.", true).is_none());
        assert!(load("[1,]", true).is_none());
        assert!(load("\"a\nb\"", true).is_none());
        let pair = load(r#""\ud83d\ude00\ud800x""#, true).unwrap();
        assert_eq!(
            pair.as_str().unwrap(),
            "\u{1F600}"
                .bytes()
                .chain(*b"\xed\xa0\x80x")
                .collect::<Vec<u8>>()
        );
        let lone = load(r#""\ud800""#, true).unwrap();
        assert_eq!(lone.as_str().unwrap(), b"\xed\xa0\x80");
        assert_eq!(canon("1E+2"), "100.0");
        assert_eq!(canon("-0"), "0");
    }

    #[test]
    fn objects_keep_first_places_and_last_values_small_or_large() {
        for n in [3, 8, 9, 40] {
            let mut object = Object::new();
            for k in 0..n {
                object.insert(format!("k{k}").into_bytes(), Value::Int(k));
            }
            object.insert(b"k1".to_vec(), Value::Int(-1));
            object.insert(format!("k{}", n - 1).into_bytes(), Value::Int(-2));
            assert_eq!(object.len(), n as usize);
            assert!(py_eq(object.get(b"k1").unwrap(), &Value::Int(-1)));
            assert!(object.contains(format!("k{}", n - 1).as_bytes()) && !object.contains(b"k"));
            let order: Vec<_> = object.iter().map(|(k, _)| k.clone()).collect();
            assert_eq!(
                order,
                (0..n)
                    .map(|k| format!("k{k}").into_bytes())
                    .collect::<Vec<_>>()
            );
            assert_eq!(object.without(b"k0").len(), n as usize - 1);
        }
    }

    #[test]
    fn dumps_and_equality() {
        let v = load(r#"{"a": [1, 2.5, "x\"\u0001"], "b": null}"#, true).unwrap();
        assert_eq!(
            String::from_utf8(v.dumps()).unwrap(),
            r#"{"a": [1, 2.5, "x\"\u0001"], "b": null}"#
        );
        let w = load(r#"{"b": null, "a": [true, 2.5, "x\"\u0001"]}"#, true).unwrap();
        assert!(py_eq(&v, &w));
        assert!(py_eq(&Value::Int(1), &Value::Float(1.0)));
        assert!(!py_eq(&Value::Float(f64::NAN), &Value::Float(f64::NAN)));
        let big = Value::int_from_float(1e20);
        assert_eq!(
            String::from_utf8(big.canonical_json()).unwrap(),
            "100000000000000000000"
        );
        assert!(py_eq(&big, &Value::Float(1e20)));
        assert!(py_eq(
            &big,
            &Value::int_from_digits(b"+000100000000000000000000")
        ));
        assert_eq!(
            String::from_utf8(Value::int_from_float(-2f64.powi(70)).canonical_json()).unwrap(),
            "-1180591620717411303424"
        );
    }
}
