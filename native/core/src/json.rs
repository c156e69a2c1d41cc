//! A streaming, tolerant JSON reader that writes canonical JSON as it reads
//! (`toolparse.readers.json`, transliterated).
//!
//! [`JsonRewriter`] reads one JSON value from a stream of chunks, positions
//! only ever moving forward, and appends the same value as canonical JSON
//! (`toolparse.events.canonical_json`) to its output. Because the output is
//! canonical the moment it is written, a caller can stream it as argument
//! deltas that reconcile with the final arguments.
//!
//! Tolerated on the way, as in Python (each keeps the output canonical and
//! never takes back what was written): single-quoted strings and Python's
//! `True`/`False`/`None`; a double quote inside a string that is not followed
//! by `,`/`}`/`]`/`<` (or `:` for a key) read as a literal quote; invalid
//! escapes such as `\$` losing their backslash; raw control characters
//! escaped; trailing commas; a leading `+`, `.5` or `1.` in numbers; a
//! duplicate key keeping its first value; with routing, a doubled outer brace
//! `{{...}}}`. Anything else is a [`JsonSyntaxError`] at the offending
//! character.
//!
//! The Python module's regular expressions (`STRING_RUN`, `_PLAIN_SQ`,
//! `_WHOLE_KEY`, `_WHOLE_STRING`, `_SCALAR_RUN`, the number patterns) are
//! hand-written scanners here that give the same matches. Text is a Python
//! string's code points (`T`: see [`crate::lexicon::Unit`]), positions are
//! code-point indices; the output is generalized UTF-8 ([`crate::wide`]).
//!
//! Where the reader's output goes: the reader owns its output buffers, the
//! *slots* (slot 0 is the plain reader's output). With routing (Python's
//! `root_keys`), the root must be an object whose own punctuation and keys
//! are written nowhere: each member's value goes where a [`Router`] says (a
//! slot, or nowhere), and the router hears when it is complete. This is how
//! a call envelope sends `name` and `arguments` to different places.

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::lexicon::Unit;
use crate::tags::is_python_space;
use crate::typing::ValueTyper;
use crate::wide;

/// Longest number or literal (`_MAX_SCALAR`: below CPython's int-from-str digit limit).
pub const MAX_SCALAR: usize = 4000;
/// Whitespace looked past after a quote that may close a string (`_MAX_PENDING_WS`).
pub const MAX_PENDING_WS: usize = 256;

/// Why reading failed (`toolparse.events.ErrorReason`'s two the reader raises).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// `ErrorReason.MALFORMED_JSON`.
    MalformedJson,
    /// `ErrorReason.TOO_DEEP`.
    TooDeep,
}

/// What was wrong, as data: [`JsonSyntaxError::message`] words it as Python
/// does. (A found character is worded with Python's `repr`, which needs
/// `str.isprintable`: the caller supplies it.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// "number or literal too long"
    TooLong,
    /// "expected ':' after a key, found {c!r}"
    ExpectedColon(u32),
    /// "nesting deeper than {max_depth}"
    TooDeep(usize),
    /// "a call must be a JSON object"
    NotAnObject,
    /// "expected a value, found {c!r}"
    ExpectedValue(u32),
    /// "expected ',' or '}', found {c!r}" (an object) or "... ']' ..." (an array)
    ExpectedAfter { object: bool, found: u32 },
    /// "expected a key, found {c!r}"
    ExpectedKey(u32),
    /// "not a JSON value: {token[:40]!r}": the token's first 40 characters (ASCII).
    NotAValue(Vec<u8>),
}

/// The input is not JSON, even read tolerantly (`JsonSyntaxError`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonSyntaxError {
    pub problem: Problem,
    /// The index of the offending character in the text given to `feed`.
    pub index: usize,
}

impl JsonSyntaxError {
    fn new(problem: Problem, index: usize) -> Self {
        JsonSyntaxError { problem, index }
    }

    /// `exc.reason`.
    pub fn reason(&self) -> Reason {
        match self.problem {
            Problem::TooDeep(_) => Reason::TooDeep,
            _ => Reason::MalformedJson,
        }
    }

    /// `exc.message`, byte for byte, given Python's `str.isprintable` of one
    /// non-ASCII code point (`Py_UNICODE_ISPRINTABLE`).
    pub fn message(&self, printable: impl Fn(u32) -> bool) -> String {
        let found = |what: &str, c: u32| format!("{what}, found {}", repr_char(c, &printable));
        match &self.problem {
            Problem::TooLong => "number or literal too long".to_owned(),
            Problem::ExpectedColon(c) => found("expected ':' after a key", *c),
            Problem::TooDeep(depth) => format!("nesting deeper than {depth}"),
            Problem::NotAnObject => "a call must be a JSON object".to_owned(),
            Problem::ExpectedValue(c) => found("expected a value", *c),
            Problem::ExpectedAfter { object, found: c } => found(
                if *object {
                    "expected ',' or '}'"
                } else {
                    "expected ',' or ']'"
                },
                *c,
            ),
            Problem::ExpectedKey(c) => found("expected a key", *c),
            Problem::NotAValue(token) => {
                let chars: Vec<u32> = wide::chars(token).collect();
                format!("not a JSON value: {}", repr_str(&chars, &printable))
            }
        }
    }
}

/// Python's `repr` of the one-character string `c`.
pub fn repr_char(c: u32, printable: impl Fn(u32) -> bool) -> String {
    repr_str(&[c], printable)
}

/// Python's `repr` of a string of code points (`unicode_repr`): quoted with
/// `'`, or `"` when it holds `'` and no `"`; the quote and backslash escaped;
/// `\t \n \r`; other ASCII controls and DEL as `\xhh`; non-ASCII kept when
/// printable, else `\xhh`, `\uhhhh` or `\Uhhhhhhhh`.
pub fn repr_str(chars: &[u32], printable: impl Fn(u32) -> bool) -> String {
    let single = chars.contains(&u32::from(b'\''));
    let double = chars.contains(&u32::from(b'"'));
    let quote = if single && !double { '"' } else { '\'' };
    let mut out = String::with_capacity(chars.len() + 2);
    out.push(quote);
    for &c in chars {
        match c {
            0x5C => out.push_str("\\\\"),
            0x09 => out.push_str("\\t"),
            0x0A => out.push_str("\\n"),
            0x0D => out.push_str("\\r"),
            c if c == u32::from(quote) => {
                out.push('\\');
                out.push(quote);
            }
            c if c < 0x20 || c == 0x7F => {
                let _ = write!(out, "\\x{c:02x}");
            }
            c if c < 0x7F => out.push(char::from(c as u8)),
            c => match char::from_u32(c) {
                Some(ch) if printable(c) => out.push(ch),
                _ if c <= 0xFF => {
                    let _ = write!(out, "\\x{c:02x}");
                }
                _ if c <= 0xFFFF => {
                    let _ = write!(out, "\\u{c:04x}");
                }
                _ => {
                    let _ = write!(out, "\\U{c:08x}");
                }
            },
        }
    }
    out.push(quote);
    out
}

/// The keys seen in one object or one call's arguments (a duplicate keeps
/// its first value). Most have a few keys: a short list, searched; past that
/// a hash set (SipHash, which model-written keys cannot make collide).
#[derive(Debug, Default)]
pub struct KeySet {
    few: Vec<Vec<u8>>,
    many: Option<HashSet<Vec<u8>>>,
}

/// Keys a [`KeySet`] keeps in its list.
const FEW_KEYS: usize = 8;

impl KeySet {
    pub fn contains(&self, key: &[u8]) -> bool {
        match &self.many {
            Some(many) => many.contains(key),
            None => self.few.iter().any(|k| k == key),
        }
    }

    pub fn insert(&mut self, key: Vec<u8>) {
        if let Some(many) = &mut self.many {
            many.insert(key);
            return;
        }
        if self.few.len() < FEW_KEYS {
            self.few.push(key);
            return;
        }
        let mut many: HashSet<Vec<u8>> = self.few.drain(..).collect();
        many.insert(key);
        self.many = Some(many);
    }
}

/// Why reading stopped short: the text (a [`JsonSyntaxError`]), or a typer's
/// or router's own failure (a Python exception, for Python-backed ones).
#[derive(Debug, PartialEq, Eq)]
pub enum ReadError<E> {
    Syntax(JsonSyntaxError),
    Other(E),
}

impl<E> From<JsonSyntaxError> for ReadError<E> {
    fn from(e: JsonSyntaxError) -> Self {
        ReadError::Syntax(e)
    }
}

/// Where a routed root member's value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The reader's output slot of that number.
    Slot(usize),
    /// Read and dropped (Python: a fresh list nobody keeps).
    Nowhere,
}

/// Routes the root object's members (Python's `root_keys` and
/// `on_member_end`), for a reader made with routing on.
pub trait Router<Ty: ValueTyper> {
    /// A root key (decoded): where its value is written, and the typer for
    /// that value (None: none). The reader keeps a typer it is given (see
    /// [`JsonRewriter::typer`]) and uses it for that value only.
    fn route(&mut self, key: &[u8]) -> Result<(Target, Option<Ty>), Ty::Error>;

    /// The value of root key `key` is complete; `slots` are the reader's
    /// output buffers.
    fn member_end(&mut self, key: &[u8], slots: &mut [Vec<u8>]) -> Result<(), Ty::Error>;
}

/// The router of a reader without routing (never called).
pub struct Unrouted;

impl<Ty: ValueTyper> Router<Ty> for Unrouted {
    fn route(&mut self, _key: &[u8]) -> Result<(Target, Option<Ty>), Ty::Error> {
        Ok((Target::Nowhere, None))
    }

    fn member_end(&mut self, _key: &[u8], _slots: &mut [Vec<u8>]) -> Result<(), Ty::Error> {
        Ok(())
    }
}

/// The typer of a reader without one (it cannot be made).
pub enum NoTyper {}

impl ValueTyper for NoTyper {
    type Error = std::convert::Infallible;
    fn begin_value(&mut self, _first: u32) -> Result<bool, Self::Error> {
        match *self {}
    }
    fn key(&mut self, _key: &[u8]) -> Result<bool, Self::Error> {
        match *self {}
    }
    fn array_item(&mut self) -> Result<(), Self::Error> {
        match *self {}
    }
    fn end_container(&mut self) -> Result<(), Self::Error> {
        match *self {}
    }
    fn finish_buffered(
        &mut self,
        _canonical: &[u8],
        _out: &mut Vec<u8>,
    ) -> Result<(), Self::Error> {
        match *self {}
    }
}

/// Where the reader is (`_VALUE` ... `_DONE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Expecting a value.
    Value,
    /// After `{`: a key or `}`.
    ObjFirst,
    /// After `,` in an object: a key (or `}` for a trailing comma).
    ObjKey,
    /// After a key.
    Colon,
    /// After a value inside a container: `,` or the closer.
    After,
    String,
    /// After a backslash in a string.
    Escape,
    /// After a quote that may or may not close the string.
    QuoteEnd,
    /// Inside a number or literal.
    Scalar,
    /// After a doubled root object: swallow one more `}`.
    ExtraClose,
    Done,
}

/// Where text is being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Out {
    Slot(usize),
    /// The innermost value collected whole for the typer (`temps`' last).
    Temp,
    Nowhere,
    /// The key being read.
    Key,
}

/// What a diverted value is for (`_ROUTE`, `_DISCARD`, `_BUFFER`).
#[derive(Debug)]
enum Purpose {
    /// A root member routed by the router: its (decoded) key.
    Route(Vec<u8>),
    /// A member read and dropped (a duplicate key, or one the schema forbids).
    Discard,
    /// A value collected whole, to be coerced when complete.
    Buffer,
}

#[derive(Debug)]
struct Divert {
    /// The nesting depth at which the diverted value completes.
    depth: usize,
    saved: Out,
    purpose: Purpose,
}

/// A pending escape (Python keeps it in `_pending` as text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Escape {
    /// `\` read.
    Backslash,
    /// `\u` and this many hex digits (0 to 3), in `hex`.
    U(usize),
}

const QUOTE: u32 = b'"' as u32;
const APOSTROPHE: u32 = b'\'' as u32;
const BACKSLASH: u32 = b'\\' as u32;

fn is_ws(c: u32) -> bool {
    matches!(c, 0x20 | 0x09 | 0x0D | 0x0A)
}

/// `_SCALAR_RUN`'s characters: `[A-Za-z0-9+\-.]`.
fn is_scalar(c: u32) -> bool {
    (c < 0x80 && (c as u8).is_ascii_alphanumeric()) || matches!(c, 0x2B | 0x2D | 0x2E)
}

/// `_VALUE_STARTS`: `{["'-+.0123456789tfnTFN`.
fn is_value_start(c: u32) -> bool {
    c < 0x80 && b"{[\"'-+.0123456789tfnTFN".contains(&(c as u8))
}

/// A character that a plain run stops at: `"`, `\`, a control character, a
/// surrogate (and `'` in a single-quoted string).
fn stops_run(c: u32, single: bool) -> bool {
    c == QUOTE || c == BACKSLASH || c < 0x20 || wide::is_surrogate(c) || (single && c == APOSTROPHE)
}

/// The end of `STRING_RUN` (`single`: `_PLAIN_SQ`) matched at `i`: plain
/// characters and the escapes written back as they are (`\\ \" \b \f \n \r \t`).
pub fn plain_run<T: Unit>(text: &[T], i: usize, single: bool) -> usize {
    let n = text.len();
    let mut j = i;
    loop {
        while j < n && !stops_run(text[j].into(), single) {
            j += 1;
        }
        if j + 1 < n
            && text[j].into() == BACKSLASH
            && matches!(
                text[j + 1].into(),
                0x5C | 0x22 | 0x62 | 0x66 | 0x6E | 0x72 | 0x74
            )
        {
            j += 2;
            continue;
        }
        return j;
    }
}

/// `"[^"\\\x00-\x1f\ud800-\udfff]*"` at `i`: the index of the closing quote.
fn whole_body<T: Unit>(text: &[T], i: usize) -> Option<usize> {
    if text.get(i).map(|&c| c.into()) != Some(QUOTE) {
        return None;
    }
    let mut j = i + 1;
    while j < text.len() {
        let c: u32 = text[j].into();
        if c == QUOTE {
            return Some(j);
        }
        if c == BACKSLASH || c < 0x20 || wide::is_surrogate(c) {
            return None;
        }
        j += 1;
    }
    None
}

/// `[ \t\r\n]{0,256}` then a character `follows` takes, from `k`: where that character is.
fn spaced<T: Unit>(text: &[T], mut k: usize, follows: impl Fn(u32) -> bool) -> Option<usize> {
    let mut seen = 0;
    while k < text.len() && seen < MAX_PENDING_WS && is_ws(text[k].into()) {
        k += 1;
        seen += 1;
    }
    (k < text.len() && follows(text[k].into())).then_some(k)
}

/// `_WHOLE_KEY` at `i`: (the key's text, from..to; the index after the colon).
pub fn whole_key<T: Unit>(text: &[T], i: usize) -> Option<(usize, usize, usize)> {
    let close = whole_body(text, i)?;
    let colon = spaced(text, close + 1, |c| c == u32::from(b':'))?;
    Some((i + 1, close, colon + 1))
}

/// `_WHOLE_STRING` at `i`: the index after its closing quote (what follows,
/// `,}]<` after whitespace, is looked at but not taken).
pub fn whole_string<T: Unit>(text: &[T], i: usize) -> Option<usize> {
    let close = whole_body(text, i)?;
    spaced(text, close + 1, |c| matches!(c, 0x2C | 0x7D | 0x5D | 0x3C))?;
    Some(close + 1)
}

/// `_LITERALS`.
fn literal(token: &[u8]) -> Option<&'static [u8]> {
    Some(match token {
        b"true" | b"True" => b"true",
        b"false" | b"False" => b"false",
        b"null" | b"None" => b"null",
        _ => return None,
    })
}

/// `_LOOSE_NUMBER.fullmatch(token)` (`_STRICT_NUMBER` matches nothing more):
/// `[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?`.
fn loose_number(token: &[u8]) -> bool {
    let n = token.len();
    let digits = |mut k: usize| {
        while k < n && token[k].is_ascii_digit() {
            k += 1;
        }
        k
    };
    let mut k = 0;
    if k < n && matches!(token[k], b'+' | b'-') {
        k += 1;
    }
    if k < n && token[k].is_ascii_digit() {
        k = digits(k);
        if k < n && token[k] == b'.' {
            k += 1;
        }
        k = digits(k);
    } else if k < n && token[k] == b'.' {
        let end = digits(k + 1);
        if end == k + 1 {
            return false;
        }
        k = end;
    } else {
        return false;
    }
    if k < n && matches!(token[k], b'e' | b'E') {
        k += 1;
        if k < n && matches!(token[k], b'+' | b'-') {
            k += 1;
        }
        let end = digits(k);
        if end == k {
            return false;
        }
        k = end;
    }
    k == n
}

/// `_canonical_number(token)`: the canonical JSON of a numeric token, as
/// Python writes it (`str(int(token))` for an integer, `repr(float(token))`
/// otherwise); None when it is no number, or infinite, or NaN.
pub fn canonical_number(token: &[u8]) -> Option<Vec<u8>> {
    let n = token.len();
    if n > 0 && n < 16 && token.iter().all(u8::is_ascii_digit) && (token[0] != b'0' || n == 1) {
        return Some(token.to_vec()); // (a plain integer is its own canonical form)
    }
    if !loose_number(token) {
        return None;
    }
    if !token.iter().any(|&b| matches!(b, b'.' | b'e' | b'E')) {
        // str(int(token)): no sign but a minus, no leading zeros, and no "-0"
        let negative = token[0] == b'-';
        let digits = token
            .strip_prefix(b"+")
            .or(token.strip_prefix(b"-"))
            .unwrap_or(token);
        let first = digits.iter().position(|&b| b != b'0');
        return Some(match first {
            None => b"0".to_vec(),
            Some(at) => {
                let mut out = Vec::with_capacity(digits.len() - at + 1);
                if negative {
                    out.push(b'-');
                }
                out.extend_from_slice(&digits[at..]);
                out
            }
        });
    }
    // (the token is ASCII: a str; Rust's parse is correctly rounded, as float() is)
    let value: f64 = std::str::from_utf8(token).ok()?.parse().ok()?;
    if !value.is_finite() {
        return None;
    }
    Some(float_repr(value).into_bytes())
}

/// Python's `repr(value)` of a finite float: the shortest digits that read
/// back to it (the closest such, a tie going to the even digit), positional
/// when the decimal point falls within `-4 < decpt <= 16`, else `d.ddde+XX`
/// (at least two exponent digits).
pub fn float_repr(value: f64) -> String {
    let sign = if value.is_sign_negative() { "-" } else { "" };
    if value == 0.0 {
        return format!("{sign}0.0");
    }
    let (digits, decpt) = shortest_digits(value.abs());
    let count = digits.len() as i64;
    if decpt <= -4 || decpt > 16 {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        let exponent = decpt - 1;
        let esign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{first}{dot}{rest}e{esign}{:02}", exponent.abs())
    } else if decpt <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-decpt) as usize))
    } else if decpt >= count {
        format!("{sign}{digits}{}.0", "0".repeat((decpt - count) as usize))
    } else {
        let (whole, fraction) = digits.split_at(decpt as usize);
        format!("{sign}{whole}.{fraction}")
    }
}

/// The shortest decimal digits of a positive finite `value` that read back
/// to it, and where the decimal point goes (`0.d1d2... * 10**decpt`), as
/// CPython's `_Py_dg_dtoa` (mode 0) gives them.
///
/// Rust's `{:e}` gives the shortest digits too, and the closest of them, but
/// breaks an exact tie between two equally close candidates upward where
/// David Gay's code takes the even last digit: `2**49 + 0.25` is Python's
/// `562949953421312.2`, Rust's `...312.3`. Such a tie is told exactly (with
/// integers) and undone here.
fn shortest_digits(value: f64) -> (String, i64) {
    let shortest = format!("{value:e}");
    let (mantissa, exponent) = shortest.split_once('e').unwrap_or((&shortest, "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let mut digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let decpt = exponent + 1;
    let last = digits.bytes().last().unwrap_or(b'0');
    if last & 1 == 1 && digits.len() <= 17 {
        // (at most 17 digits: the integers below fit a u64)
        let upper: u64 = digits.parse().unwrap_or(0);
        let lower = upper - 1; // (an odd last digit: no borrow)
        let place = decpt - digits.len() as i64; // the last digit's power of ten
        let lower_text = format!("{lower}e{place}");
        if lower_text.parse::<f64>() == Ok(value) && is_midpoint(value, lower, place) {
            digits.pop();
            digits.push(char::from(last - 1));
        }
    }
    (digits, decpt)
}

/// `value` is exactly `(lower + 1/2) * 10**place`.
fn is_midpoint(value: f64, lower: u64, place: i64) -> bool {
    // value = odd * 2**q exactly; the midpoint is n * 10**s with n = 10*lower + 5
    // (odd) and s = place - 1, that is n * 5**s * 2**s: equal when q == s and
    // the odd parts agree (n * 5**s == odd for s >= 0, n == odd * 5**-s else)
    let bits = value.to_bits();
    let field = ((bits >> 52) & 0x7FF) as i64;
    let fraction = bits & ((1 << 52) - 1);
    let (m, q) = if field == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), field - 1075)
    };
    if m == 0 {
        return false;
    }
    let zeros = m.trailing_zeros();
    let (odd, q) = (u128::from(m >> zeros), q + i64::from(zeros));
    let s = place - 1;
    if q != s {
        return false;
    }
    let Some(n) = u128::from(lower)
        .checked_mul(10)
        .and_then(|n| n.checked_add(5))
    else {
        return false;
    };
    let power = |k: i64| u32::try_from(k).ok().and_then(|k| 5u128.checked_pow(k));
    if s >= 0 {
        power(s).and_then(|p| n.checked_mul(p)) == Some(odd)
    } else {
        power(-s).and_then(|p| odd.checked_mul(p)) == Some(n)
    }
}

/// A key's canonical text: as written, unless it holds an escape.
fn decoded_key(key: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if key.contains(&b'\\') {
        std::borrow::Cow::Owned(decode_body(key).unwrap_or_default())
    } else {
        std::borrow::Cow::Borrowed(key)
    }
}

/// Decode a canonical JSON string body (what the reader writes between
/// quotes; any JSON escape is read, `\u` pairs joined as `json.loads` does)
/// to generalized UTF-8. None: not a valid body.
pub fn decode_body(body: &[u8]) -> Option<Vec<u8>> {
    let units: Vec<u32> = wide::chars(body).collect();
    let hex4 = |at: usize| -> Option<u32> {
        let mut v = 0;
        for k in at..at + 4 {
            v = v * 16 + char::from_u32(*units.get(k)?)?.to_digit(16)?;
        }
        Some(v)
    };
    let mut out = Vec::with_capacity(body.len());
    let mut k = 0;
    while k < units.len() {
        let c = units[k];
        k += 1;
        if c != BACKSLASH {
            wide::push_code_point(&mut out, c);
            continue;
        }
        let e = *units.get(k)?;
        k += 1;
        let decoded = match char::from_u32(e)? {
            '"' => QUOTE,
            '\\' => BACKSLASH,
            '/' => u32::from(b'/'),
            'b' => 0x08,
            'f' => 0x0C,
            'n' => 0x0A,
            'r' => 0x0D,
            't' => 0x09,
            'u' => {
                let v = hex4(k)?;
                k += 4;
                let low = (units.get(k) == Some(&BACKSLASH)
                    && units.get(k + 1) == Some(&u32::from(b'u')))
                .then(|| hex4(k + 2))
                .flatten()
                .filter(|low| (0xDC00..0xE000).contains(low));
                match low {
                    // (a high surrogate escaped, then a low one: joined, as json.loads does)
                    Some(low) if (0xD800..0xDC00).contains(&v) => {
                        k += 6;
                        0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
                    }
                    _ => v,
                }
            }
            _ => return None,
        };
        wide::push_code_point(&mut out, decoded);
    }
    Some(out)
}

/// A JSON string literal (`"..."`, canonical) decoded; None when `text` is no string.
pub fn decode_string(text: &[u8]) -> Option<Vec<u8>> {
    let body = text.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    decode_body(body)
}

/// Reads one JSON value incrementally and writes it out as canonical JSON
/// (`toolparse.readers.json.JsonRewriter`; see the module docs).
pub struct JsonRewriter<Ty> {
    pub max_depth: usize,
    state: State,
    /// `{` or `[` per open container.
    kinds: Vec<u8>,
    /// Members written so far per container.
    counts: Vec<usize>,
    /// Keys seen per container (empty for arrays), as canonical text.
    keysets: Vec<KeySet>,
    /// Per open container: does the typer have a frame for it.
    typed: Vec<bool>,
    divert: Vec<Divert>,
    typer: Option<Ty>,
    /// The typer reads the values (Python's `_typer is not None`): cleared
    /// when a routed member ends, though the typer is kept for its owner.
    typer_on: bool,
    /// >0 while inside a value the typer does not see (buffered or dropped).
    mute: usize,
    /// Python's `root_keys is not None`.
    routed: bool,
    doubled: bool,
    quote: u32,
    in_key: bool,
    out: Out,
    str_out: Out,
    slots: Vec<Vec<u8>>,
    /// Values collected whole for the typer, innermost last.
    temps: Vec<Vec<u8>>,
    /// The key being read, as canonical text (`_key_parts`).
    key: Vec<u8>,
    escape: Escape,
    hex: [u32; 3],
    /// Whitespace after a quote that may close the string.
    pending_ws: Vec<u32>,
    /// The number or literal being read (its first `MAX_SCALAR + 1` characters).
    scalar: Vec<u8>,
    scalar_len: usize,
    /// A high surrogate waiting for its low half.
    high: Option<u32>,
}

impl<Ty: ValueTyper> JsonRewriter<Ty> {
    /// `JsonRewriter(out, max_depth=..., typer=...)` with `slots` output
    /// buffers (at least one). With `routed` (Python's `root_keys`), the root
    /// must be an object and its members are routed (see [`Router`]); its own
    /// punctuation and keys are written nowhere.
    pub fn new(max_depth: usize, typer: Option<Ty>, routed: bool, slots: usize) -> Self {
        JsonRewriter {
            max_depth,
            state: State::Value,
            kinds: Vec::new(),
            counts: Vec::new(),
            keysets: Vec::new(),
            typed: Vec::new(),
            divert: Vec::new(),
            typer_on: typer.is_some(),
            typer,
            mute: 0,
            routed,
            doubled: false,
            quote: QUOTE,
            in_key: false,
            out: if routed { Out::Nowhere } else { Out::Slot(0) },
            str_out: Out::Slot(0),
            slots: vec![Vec::new(); slots.max(1)],
            temps: Vec::new(),
            key: Vec::new(),
            escape: Escape::Backslash,
            hex: [0; 3],
            pending_ws: Vec::new(),
            scalar: Vec::new(),
            scalar_len: 0,
            high: None,
        }
    }

    /// True once the root value is complete.
    pub fn done(&self) -> bool {
        self.state == State::Done
    }

    /// True while a double-quoted string being written to slot `slot` is
    /// open and nothing is pending: printable text free of `"` and `\` is
    /// then plain content that the caller may write there itself.
    pub fn in_plain_string(&self, slot: usize) -> bool {
        self.state == State::String
            && self.str_out == Out::Slot(slot)
            && self.quote == QUOTE
            && self.high.is_none()
    }

    /// The typer given (at construction, or by the router), kept after its value ends.
    pub fn typer(&self) -> Option<&Ty> {
        self.typer.as_ref()
    }

    /// The text written to slot `slot` so far (and not taken).
    pub fn slot(&self, slot: usize) -> &[u8] {
        self.slots.get(slot).map_or(&[], |s| &s[..])
    }

    /// The output slots, to read, take from or write to.
    pub fn slots_mut(&mut self) -> &mut [Vec<u8>] {
        &mut self.slots
    }

    /// Read from `text[i..]`; return the index after the root value, or the
    /// text's length. Fails at the first character that cannot be read.
    pub fn feed<T: Unit, R: Router<Ty>>(
        &mut self,
        text: &[T],
        mut i: usize,
        router: &mut R,
    ) -> Result<usize, ReadError<Ty::Error>> {
        let n = text.len();
        while i < n {
            let st = self.state;
            if st == State::String {
                let j = plain_run(text, i, self.quote == APOSTROPHE);
                if j > i {
                    if self.high.is_some() {
                        self.flush_high();
                    }
                    let target = self.str_out;
                    self.write_units(target, &text[i..j]);
                    i = j;
                    if i == n {
                        break;
                    }
                }
                let c: u32 = text[i].into();
                i += 1;
                if c == self.quote {
                    if self.kinds.is_empty() {
                        // (as in Python, a root string ends at its first quote:
                        // a quote is read as text only inside a container)
                        self.end_string(router)?;
                    } else {
                        self.pending_ws.clear();
                        self.state = State::QuoteEnd;
                    }
                } else if c == BACKSLASH {
                    self.escape = Escape::Backslash;
                    self.state = State::Escape;
                } else {
                    // a control character, a surrogate, or '"' inside a single-quoted string
                    self.emit_char(c);
                }
                continue;
            }
            if st == State::Done {
                return Ok(i);
            }
            let c: u32 = text[i].into();
            match st {
                State::Escape => {
                    i = self.escape_char(c, i);
                    continue;
                }
                State::QuoteEnd => {
                    if is_ws(c) {
                        self.pending_ws.push(c);
                        i += 1;
                        if self.pending_ws.len() > MAX_PENDING_WS {
                            self.end_string(router)?;
                        }
                        continue;
                    }
                    let closes = if self.in_key {
                        c == u32::from(b':')
                    } else {
                        matches!(c, 0x2C | 0x7D | 0x5D | 0x3C)
                    };
                    if closes {
                        self.end_string(router)?;
                    } else {
                        // not a closing quote after all: it was part of the text
                        self.emit_char(self.quote);
                        for w in std::mem::take(&mut self.pending_ws) {
                            self.emit_char(w);
                        }
                        self.state = State::String;
                    }
                    continue; // (re-read c in the new state)
                }
                State::Scalar => {
                    let mut j = i;
                    while j < n && is_scalar(text[j].into()) {
                        j += 1;
                    }
                    if j > i {
                        // (only what can still be a token is kept: past MAX_SCALAR it fails here)
                        let room = (MAX_SCALAR + 1).saturating_sub(self.scalar.len());
                        let kept = &text[i..j.min(i + room)];
                        self.scalar.extend(kept.iter().map(|&u| u.into() as u8));
                        self.scalar_len += j - i;
                        i = j;
                        if self.scalar_len > MAX_SCALAR {
                            // (at the end of the run in this text, as Python's: where
                            // the error is said to be depends on where the text was cut)
                            return Err(JsonSyntaxError::new(Problem::TooLong, i - 1).into());
                        }
                        if i == n {
                            break;
                        }
                    }
                    self.end_scalar(i.saturating_sub(1), router)?;
                    continue;
                }
                _ => {}
            }
            if is_ws(c) {
                i += 1;
                continue;
            }
            match st {
                State::Value => i = self.start_value(c, i, text, router)?,
                State::After => i = self.after_value(c, i, router)?,
                State::ObjFirst | State::ObjKey => {
                    match if c == QUOTE { whole_key(text, i) } else { None } {
                        Some((from, to, end)) => {
                            // (the usual key: its steps in one)
                            self.key.clear();
                            self.write_units(Out::Key, &text[from..to]);
                            self.begin_string(QUOTE, true);
                            self.end_string(router)?;
                            self.state = State::Value; // (past the colon)
                            i = end;
                        }
                        None => i = self.key_position(c, i, st, router)?,
                    }
                }
                State::Colon => {
                    if c != u32::from(b':') {
                        return Err(JsonSyntaxError::new(Problem::ExpectedColon(c), i).into());
                    }
                    self.state = State::Value;
                    i += 1;
                }
                _ => {
                    // ExtraClose
                    self.state = State::Done;
                    return Ok(if c == u32::from(b'}') { i + 1 } else { i });
                }
            }
        }
        Ok(n)
    }

    /// At end of input: complete what can be completed; true if the value is whole.
    pub fn finish<R: Router<Ty>>(&mut self, router: &mut R) -> Result<bool, ReadError<Ty::Error>> {
        if self.state == State::Scalar && self.kinds.is_empty() {
            self.end_scalar(0, router)?; // (Python's max(-1 - 1, 0))
        } else if self.state == State::ExtraClose {
            self.state = State::Done;
        }
        Ok(self.state == State::Done)
    }

    // -- output -------------------------------------------------------------

    fn target(&mut self, out: Out) -> Option<&mut Vec<u8>> {
        match out {
            Out::Slot(k) => self.slots.get_mut(k),
            Out::Temp => self.temps.last_mut(),
            Out::Nowhere => None,
            Out::Key => Some(&mut self.key),
        }
    }

    fn write(&mut self, out: Out, piece: &[u8]) {
        if let Some(target) = self.target(out) {
            target.extend_from_slice(piece);
        }
    }

    fn write_units<T: Unit>(&mut self, out: Out, units: &[T]) {
        if let Some(target) = self.target(out) {
            wide::push_units(target, units);
        }
    }

    fn typer_here(&self) -> bool {
        self.typer_on && self.mute == 0 && self.typer.is_some()
    }

    // -- values -------------------------------------------------------------

    fn start_value<T: Unit, R: Router<Ty>>(
        &mut self,
        c: u32,
        i: usize,
        text: &[T],
        router: &mut R,
    ) -> Result<usize, ReadError<Ty::Error>> {
        let mut typed = self.typer_here();
        if self.kinds.last() == Some(&b'[') {
            if c == u32::from(b']') {
                // empty array or trailing comma
                self.close_container(b'[', router)?;
                return Ok(i + 1);
            }
            if let Some(count) = self.counts.last_mut() {
                *count += 1;
                if *count > 1 {
                    self.write(self.out, b",");
                }
            }
            if typed {
                self.typer_do(|t| t.array_item())?;
            }
        }
        if typed && is_value_start(c) && self.typer_do(|t| t.begin_value(c))? {
            self.divert.push(Divert {
                depth: self.kinds.len(),
                saved: self.out,
                purpose: Purpose::Buffer,
            });
            self.temps.push(Vec::new());
            self.out = Out::Temp;
            self.mute += 1;
            typed = false;
        }
        if c == u32::from(b'{') || c == u32::from(b'[') {
            if self.routed && self.kinds.is_empty() && c != u32::from(b'{') {
                return Err(JsonSyntaxError::new(Problem::NotAnObject, i).into());
            }
            // (a call envelope routed by root_keys is not counted: max_depth is
            // the arguments' own nesting, as in every grammar)
            if self.kinds.len() >= self.max_depth.saturating_add(usize::from(self.routed)) {
                return Err(JsonSyntaxError::new(Problem::TooDeep(self.max_depth), i).into());
            }
            let kind = c as u8;
            self.kinds.push(kind);
            self.counts.push(0);
            self.keysets.push(KeySet::default());
            self.typed.push(typed);
            self.write(self.out, &[kind]);
            self.state = if kind == b'{' {
                State::ObjFirst
            } else {
                State::Value
            };
            return Ok(i + 1);
        }
        if self.routed && self.kinds.is_empty() {
            return Err(JsonSyntaxError::new(Problem::NotAnObject, i).into());
        }
        if c == QUOTE || c == APOSTROPHE {
            if c == QUOTE && !self.kinds.is_empty() {
                if let Some(end) = whole_string(text, i) {
                    // (the usual string: its steps in one)
                    self.write_units(self.out, &text[i..end]);
                    self.value_done(router)?;
                    return Ok(end);
                }
            }
            self.begin_string(c, false);
            self.write(self.out, b"\"");
            return Ok(i + 1);
        }
        if is_scalar(c) {
            self.scalar.clear();
            self.scalar_len = 0;
            self.state = State::Scalar;
            return Ok(i);
        }
        Err(JsonSyntaxError::new(Problem::ExpectedValue(c), i).into())
    }

    /// Call the typer (there is one: callers check [`Self::typer_here`] or a frame's flag).
    fn typer_do<V: Default>(
        &mut self,
        f: impl FnOnce(&mut Ty) -> Result<V, Ty::Error>,
    ) -> Result<V, ReadError<Ty::Error>> {
        match self.typer.as_mut() {
            Some(typer) => f(typer).map_err(ReadError::Other),
            None => Ok(V::default()),
        }
    }

    fn after_value<R: Router<Ty>>(
        &mut self,
        c: u32,
        i: usize,
        router: &mut R,
    ) -> Result<usize, ReadError<Ty::Error>> {
        let object = self.kinds.last() == Some(&b'{');
        if c == u32::from(b',') {
            self.state = if object { State::ObjKey } else { State::Value };
            return Ok(i + 1);
        }
        if c == u32::from(if object { b'}' } else { b']' }) {
            self.close_container(if object { b'{' } else { b'[' }, router)?;
            return Ok(i + 1);
        }
        Err(JsonSyntaxError::new(Problem::ExpectedAfter { object, found: c }, i).into())
    }

    fn key_position<R: Router<Ty>>(
        &mut self,
        c: u32,
        i: usize,
        st: State,
        router: &mut R,
    ) -> Result<usize, ReadError<Ty::Error>> {
        if c == u32::from(b'}') {
            self.close_container(b'{', router)?;
            return Ok(i + 1);
        }
        if c == QUOTE || c == APOSTROPHE {
            self.key.clear();
            self.begin_string(c, true);
            return Ok(i + 1);
        }
        if c == u32::from(b'{') && st == State::ObjFirst && self.routed && self.kinds.len() == 1 {
            if self.doubled {
                return Err(JsonSyntaxError::new(Problem::ExpectedKey(c), i).into());
            }
            self.doubled = true; // '{{' written for '{' (a template's escaped brace)
            return Ok(i + 1);
        }
        Err(JsonSyntaxError::new(Problem::ExpectedKey(c), i).into())
    }

    fn close_container<R: Router<Ty>>(
        &mut self,
        kind: u8,
        router: &mut R,
    ) -> Result<(), ReadError<Ty::Error>> {
        self.kinds.pop();
        self.counts.pop();
        self.keysets.pop();
        if self.typed.pop() == Some(true) {
            self.typer_do(|t| t.end_container())?;
        }
        self.write(self.out, if kind == b'{' { b"}" } else { b"]" });
        self.value_done(router)
    }

    fn value_done<R: Router<Ty>>(&mut self, router: &mut R) -> Result<(), ReadError<Ty::Error>> {
        let depth = self.kinds.len();
        while self.divert.last().is_some_and(|d| d.depth == depth) {
            let Some(divert) = self.divert.pop() else {
                break;
            };
            self.out = divert.saved;
            match divert.purpose {
                Purpose::Buffer => {
                    self.mute = self.mute.saturating_sub(1);
                    let done = self.temps.pop().unwrap_or_default();
                    let mut piece = Vec::new();
                    self.typer_do(|t| t.finish_buffered(&done, &mut piece))?;
                    self.write(self.out, &piece);
                }
                Purpose::Discard => self.mute = self.mute.saturating_sub(1),
                Purpose::Route(key) => {
                    // a root member is complete
                    self.typer_on = false;
                    router
                        .member_end(&key, &mut self.slots)
                        .map_err(ReadError::Other)?;
                }
            }
        }
        self.state = if depth > 0 {
            State::After
        } else if self.doubled {
            State::ExtraClose
        } else {
            State::Done
        };
        Ok(())
    }

    // -- strings ------------------------------------------------------------

    fn begin_string(&mut self, quote: u32, key: bool) {
        self.quote = quote;
        self.in_key = key;
        self.str_out = if key { Out::Key } else { self.out };
        self.state = State::String;
    }

    /// Write one decoded character of string content, escaped canonically.
    /// A UTF-16 surrogate pair is joined into its character; a lone
    /// surrogate becomes U+FFFD.
    fn emit_char(&mut self, mut c: u32) {
        if let Some(high) = self.high {
            if (0xDC00..=0xDFFF).contains(&c) {
                c = 0x10000 + ((high - 0xD800) << 10) + (c - 0xDC00);
                self.high = None;
            } else {
                self.flush_high();
            }
        }
        if wide::is_surrogate(c) {
            if c <= 0xDBFF {
                self.high = Some(c);
                return;
            }
            c = 0xFFFD;
        }
        if let Some(target) = self.target(self.str_out) {
            wide::push_json_body(target, [c]);
        }
    }

    fn flush_high(&mut self) {
        self.high = None;
        self.write(self.str_out, "\u{FFFD}".as_bytes());
    }

    fn escape_char(&mut self, c: u32, i: usize) -> usize {
        match self.escape {
            Escape::Backslash => {
                if c == u32::from(b'u') {
                    self.escape = Escape::U(0);
                    return i + 1;
                }
                self.state = State::String;
                let simple: Option<&[u8]> = match char::from_u32(c) {
                    Some('"') => Some(b"\\\""),
                    Some('\\') => Some(b"\\\\"),
                    Some('b') => Some(b"\\b"),
                    Some('f') => Some(b"\\f"),
                    Some('n') => Some(b"\\n"),
                    Some('r') => Some(b"\\r"),
                    Some('t') => Some(b"\\t"),
                    _ => None,
                };
                match simple {
                    // ('/' and "'" are characters like any other; an invalid
                    // escape such as '\$' keeps its character)
                    None => self.emit_char(c),
                    Some(simple) => {
                        if self.high.is_some() {
                            self.flush_high();
                        }
                        self.write(self.str_out, simple);
                    }
                }
                i + 1
            }
            Escape::U(k) => {
                if let Some(digit) = char::from_u32(c).filter(char::is_ascii_hexdigit) {
                    if k < 3 {
                        self.hex[k] = c;
                        self.escape = Escape::U(k + 1);
                        return i + 1;
                    }
                    self.state = State::String;
                    let mut v = 0;
                    for &h in &self.hex {
                        v = v * 16 + char::from_u32(h).and_then(|h| h.to_digit(16)).unwrap_or(0);
                    }
                    v = v * 16 + digit.to_digit(16).unwrap_or(0);
                    self.emit_char(v);
                    return i + 1;
                }
                // a broken \u escape: keep its characters, then re-read c as string content
                self.state = State::String;
                self.emit_char(u32::from(b'u'));
                for h in 0..k {
                    self.emit_char(self.hex[h]);
                }
                i
            }
        }
    }

    fn end_string<R: Router<Ty>>(&mut self, router: &mut R) -> Result<(), ReadError<Ty::Error>> {
        if self.high.is_some() {
            self.flush_high();
        }
        self.pending_ws.clear();
        if !self.in_key {
            self.write(self.out, b"\"");
            return self.value_done(router);
        }
        let mut key = std::mem::take(&mut self.key);
        self.state = State::Colon;
        // (keys are compared as canonical text, as in Python: two lone
        // surrogates, both written U+FFFD, are the same key)
        let duplicate = self.keysets.last().is_some_and(|keys| keys.contains(&key));
        let dropped =
            duplicate || (self.typer_here() && !self.typer_do(|t| t.key(&decoded_key(&key)))?);
        if dropped {
            // a duplicate key, or a member the schema forbids: read it, write it nowhere
            self.divert.push(Divert {
                depth: self.kinds.len(),
                saved: self.out,
                purpose: Purpose::Discard,
            });
            self.out = Out::Nowhere;
            self.mute += 1;
            key.clear();
            self.key = key; // (its buffer serves the next key)
            return Ok(());
        }
        if let Some(count) = self.counts.last_mut() {
            *count += 1;
            if *count > 1 {
                self.write(self.out, b",");
            }
        }
        self.write(self.out, b"\"");
        self.write(self.out, &key);
        self.write(self.out, b"\":");
        let route = if self.routed && self.kinds.len() == 1 {
            let decoded = decoded_key(&key).into_owned(); // (canonical text)
            Some((router.route(&decoded).map_err(ReadError::Other)?, decoded))
        } else {
            None
        };
        match self.keysets.last_mut() {
            Some(keys) => keys.insert(key),
            None => {
                key.clear();
                self.key = key; // (its buffer serves the next key)
            }
        }
        if let Some(((target, typer), decoded)) = route {
            self.divert.push(Divert {
                depth: 1,
                saved: self.out,
                purpose: Purpose::Route(decoded),
            });
            self.out = match target {
                Target::Slot(k) => Out::Slot(k),
                Target::Nowhere => Out::Nowhere,
            };
            self.typer_on = typer.is_some();
            if typer.is_some() {
                self.typer = typer;
            }
        }
        Ok(())
    }

    // -- scalars ------------------------------------------------------------

    fn end_scalar<R: Router<Ty>>(
        &mut self,
        at: usize,
        router: &mut R,
    ) -> Result<(), ReadError<Ty::Error>> {
        let mut token = std::mem::take(&mut self.scalar);
        self.scalar_len = 0;
        match literal(&token) {
            Some(literal) => self.write(self.out, literal),
            None => match canonical_number(&token) {
                Some(number) => self.write(self.out, &number),
                None => {
                    let head = token[..token.len().min(40)].to_vec();
                    return Err(JsonSyntaxError::new(Problem::NotAValue(head), at).into());
                }
            },
        }
        token.clear();
        self.scalar = token; // (its buffer serves the next scalar)
        self.value_done(router)
    }
}

/// `parse_value(text, max_depth=...)`: a whole text read as one tolerant
/// JSON value; its canonical JSON, or None.
pub fn parse_value<T: Unit>(text: &[T], max_depth: usize) -> Option<Vec<u8>> {
    let mut reader = JsonRewriter::<NoTyper>::new(max_depth, None, false, 1);
    let end = reader.feed(text, 0, &mut Unrouted).ok()?;
    if !reader.finish(&mut Unrouted).ok()? {
        return None;
    }
    if text[end..].iter().any(|&c| !is_python_space(c.into())) {
        return None;
    }
    Some(std::mem::take(&mut reader.slots[0]))
}

#[cfg(test)]
mod tests {
    use super::*;

    type Plain = JsonRewriter<NoTyper>;

    fn units(text: &str) -> Vec<u32> {
        text.chars().map(u32::from).collect()
    }

    fn printable(c: u32) -> bool {
        c != 0x85 && c != 0xA0 && !wide::is_surrogate(c)
    }

    /// Read `text` cut at `cuts` (what a read leaves is given again in front of the next chunk).
    fn read(text: &str, cuts: &[usize]) -> Result<(String, bool), String> {
        let text = units(text);
        let mut reader = Plain::new(64, None, false, 1);
        let mut bounds = vec![0];
        bounds.extend(cuts.iter().map(|&c| c.min(text.len())));
        bounds.push(text.len());
        bounds.sort_unstable();
        let mut held: Vec<u32> = Vec::new();
        for pair in bounds.windows(2) {
            held.extend_from_slice(&text[pair[0]..pair[1]]);
            match reader.feed(&held, 0, &mut Unrouted) {
                Ok(end) => held.drain(..end),
                Err(ReadError::Syntax(e)) => return Err(e.message(printable)),
                Err(ReadError::Other(never)) => match never {},
            };
        }
        let whole = reader.finish(&mut Unrouted).map_err(|e| match e {
            ReadError::Syntax(e) => e.message(printable),
            ReadError::Other(never) => match never {},
        })?;
        Ok((String::from_utf8(reader.slot(0).to_vec()).unwrap(), whole))
    }

    fn parsed(text: &str) -> Option<String> {
        parse_value(&units(text), 64).map(|v| String::from_utf8(v).unwrap())
    }

    #[test]
    fn tolerated_inputs_are_canonical() {
        for (text, expected) in [
            (
                "{'a': 'b', 'c': True, 'd': None, 'e': False}",
                r#"{"a":"b","c":true,"d":null,"e":false}"#,
            ),
            (r#"{"a": 1,}"#, r#"{"a":1}"#),
            ("[1, 2, ]", "[1,2]"),
            (r#"{"a": "x\$y"}"#, r#"{"a":"x$y"}"#),
            ("{\"a\": \"line\nbreak\"}", r#"{"a":"line\nbreak"}"#),
            (
                r#"{"a": "He said "hi" to me"}"#,
                r#"{"a":"He said \"hi\" to me"}"#,
            ),
            ("{'a': 'it's fine'}", r#"{"a":"it's fine"}"#),
            (r#"{"a": 1, "a": 2}"#, r#"{"a":1}"#),
            (
                r#"{"a": +1, "b": .5, "c": 1., "d": 007}"#,
                r#"{"a":1,"b":0.5,"c":1.0,"d":7}"#,
            ),
            (
                r#"{"s": "\ud83d\ude80 \u00e9"}"#,
                "{\"s\":\"\u{1F680} \u{e9}\"}",
            ),
            (r#"{"s": "\ud83d alone"}"#, "{\"s\":\"\u{FFFD} alone\"}"),
            (r#"{"s": "\u12g4"}"#, r#"{"s":"u12g4"}"#),
            (r#"{"s": "a\/b\'c"}"#, r#"{"s":"a/b'c"}"#),
            ("\"root \\\" string\"", r#""root \" string""#),
            ("  -0 ", "0"),
            ("1e16", "1e+16"),
            ("[1.5e-5, -0.0, 1e400e]", ""),
        ] {
            let got = parsed(text);
            if expected.is_empty() {
                assert_eq!(got, None, "{text}");
            } else {
                assert_eq!(got.as_deref(), Some(expected), "{text}");
            }
        }
    }

    #[test]
    fn rejected_inputs_say_why_as_python_does() {
        let spaced = format!("{{\"a\"{}1}}", " ".repeat(MAX_PENDING_WS + 1));
        for (text, expected) in [
            ("{invalid}", "expected a key, found 'i'"),
            (&spaced[..], "expected ':' after a key, found '1'"),
            ("[1 2]", "expected ',' or ']', found '2'"),
            ("{\"a\": 1 ]", "expected ',' or '}', found ']'"),
            (r#"{"a": NaN}"#, "not a JSON value: 'NaN'"),
            (r#"{"a": 1e999}"#, "not a JSON value: '1e999'"),
            ("[\u{85}]", "expected a value, found '\\x85'"),
            ("[\u{e9}]", "expected a value, found '\u{e9}'"),
            ("[1 ']", "expected ',' or ']', found \"'\""),
            ("[\\]", "expected a value, found '\\\\'"),
            ("[\u{7f}]", "expected a value, found '\\x7f'"),
            ("[\u{1}]", "expected a value, found '\\x01'"),
            ("[\t}]", "expected a value, found '}'"),
            ("[\u{2028}]", "expected a value, found '\u{2028}'"),
        ] {
            assert_eq!(read(text, &[]), Err(expected.to_owned()), "{text}");
        }
        let long = "1".repeat(5000);
        assert_eq!(
            read(&long, &[]),
            Err("number or literal too long".to_owned())
        );
        assert_eq!(read("tru", &[]), Err("not a JSON value: 'tru'".to_owned()));
        let deep = "[".repeat(65);
        assert_eq!(read(&deep, &[]), Err("nesting deeper than 64".to_owned()));
        assert_eq!(read(&"[".repeat(64), &[]), Ok(("[".repeat(64), false)));
    }

    #[test]
    fn reprs_are_pythons() {
        let r = |c: u32| repr_char(c, printable);
        assert_eq!(r(u32::from(b'\'')), "\"'\"");
        assert_eq!(r(u32::from(b'"')), "'\"'");
        assert_eq!(r(0xD800), "'\\ud800'");
        assert_eq!(r(0xA0), "'\\xa0'");
        assert_eq!(r(0x1F600), "'\u{1F600}'");
        assert_eq!(repr_str(&units("a'b\"c"), printable), "'a\\'b\"c'");
        let never = |_: u32| false;
        assert_eq!(repr_char(0x10FFFF, never), "'\\U0010ffff'");
        assert_eq!(repr_char(0x2028, never), "'\\u2028'");
    }

    #[test]
    fn any_chunking_reads_alike() {
        let texts = [
            "{\"a\": [1, 2.5, \"x\\u00e9\\ud83d\\ude80y\", {\"b\": null}], 'c': 'q\"', \"d\": \"He said \"hi\"  there\"}",
            "[\"a\\\\b\\n\", true, False, -12e3, +.5, \"\\ud800\\u0041\", \"tab\there\"]",
            "{\"k\\u0022\": \"v\"  , \"e\":\"\" }",
        ];
        for text in texts {
            let whole = read(text, &[]);
            assert!(
                whole.as_ref().is_ok_and(|(_, done)| *done),
                "{text}: {whole:?}"
            );
            for a in 0..text.chars().count() {
                for b in [a, a + 1, a + 3, a + 7] {
                    assert_eq!(read(text, &[a, b]), whole, "{text} cut at {a}, {b}");
                }
            }
        }
    }

    #[test]
    fn a_quote_followed_by_much_space_ends_the_string() {
        let spaces = " ".repeat(MAX_PENDING_WS + 1);
        let text = format!("[\"a\"{spaces}x]");
        assert_eq!(
            read(&text, &[]),
            Err("expected ',' or ']', found 'x'".to_owned())
        );
        let text = format!("[\"a\"{}x\"]", " ".repeat(MAX_PENDING_WS));
        let expected = format!("[\"a\\\"{}x\"]", " ".repeat(MAX_PENDING_WS));
        assert_eq!(read(&text, &[]), Ok((expected.clone(), true)));
        assert_eq!(read(&text, &[3]), Ok((expected, true)));
    }

    #[test]
    fn numbers_are_pythons() {
        let n = |t: &str| canonical_number(t.as_bytes()).map(|v| String::from_utf8(v).unwrap());
        for (token, expected) in [
            ("0", Some("0")),
            ("007", Some("7")),
            ("-0", Some("0")),
            ("+0", Some("0")),
            ("-007", Some("-7")),
            ("123456789012345678901", Some("123456789012345678901")),
            ("1.", Some("1.0")),
            (".5", Some("0.5")),
            ("+.5e1", Some("5.0")),
            ("1e16", Some("1e+16")),
            ("1e15", Some("1000000000000000.0")),
            ("1.5e-05", Some("1.5e-05")),
            ("0.0001", Some("0.0001")),
            ("-0.0", Some("-0.0")),
            ("1e-400", Some("0.0")),
            ("-1e-400", Some("-0.0")),
            ("123456789012345678.0", Some("1.2345678901234568e+17")),
            ("0.1", Some("0.1")),
            ("1E5", Some("100000.0")),
            ("1.e5", Some("100000.0")),
            ("562949953421312.2", Some("562949953421312.2")),
            ("562949953421312.25", Some("562949953421312.2")),
            ("562949953421312.75", Some("562949953421312.8")),
            ("1125899906842625.5", Some("1125899906842625.5")),
            ("4503599627370496.5", Some("4503599627370496.0")),
            ("9007199254740994", Some("9007199254740994")),
            ("9007199254740994.0", Some("9007199254740994.0")),
            ("1.8014398509481988e16", Some("1.8014398509481988e+16")),
            ("5e-324", Some("5e-324")),
            ("1.7976931348623157e308", Some("1.7976931348623157e+308")),
            ("1e400", None),
            ("", None),
            ("-", None),
            (".", None),
            ("1e", None),
            ("e5", None),
            ("1.2.3", None),
            ("0x10", None),
            ("inf", None),
            ("nan", None),
            ("--1", None),
        ] {
            assert_eq!(n(token).as_deref(), expected, "{token}");
        }
    }

    /// A typer that buffers numbers, drops keys beginning with `x`, and logs its calls.
    #[derive(Default)]
    struct Log(Vec<String>);

    impl ValueTyper for Log {
        type Error = String;
        fn begin_value(&mut self, first: u32) -> Result<bool, String> {
            self.0
                .push(format!("begin {}", char::from_u32(first).unwrap()));
            Ok(char::from_u32(first).unwrap().is_ascii_digit())
        }
        fn key(&mut self, key: &[u8]) -> Result<bool, String> {
            self.0.push(format!("key {}", String::from_utf8_lossy(key)));
            if key == b"boom" {
                return Err("boom".into());
            }
            Ok(!key.starts_with(b"x"))
        }
        fn array_item(&mut self) -> Result<(), String> {
            self.0.push("item".into());
            Ok(())
        }
        fn end_container(&mut self) -> Result<(), String> {
            self.0.push("end".into());
            Ok(())
        }
        fn finish_buffered(&mut self, canonical: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
            out.push(b'"');
            out.extend_from_slice(canonical);
            out.push(b'"');
            Ok(())
        }
    }

    #[test]
    fn a_typer_is_asked_at_structural_points() {
        let mut reader = JsonRewriter::new(64, Some(Log::default()), false, 1);
        let text = units("{\"a\": [1, \"s\"], \"x\\u0031\": {\"q\": 2}, \"a\": 3, \"b\": {}}");
        let end = reader.feed(&text, 0, &mut Unrouted).unwrap();
        assert_eq!(end, text.len());
        assert!(reader.done());
        assert_eq!(reader.slot(0), br#"{"a":["1","s"],"b":{}}"#);
        let log = &reader.typer().unwrap().0;
        assert_eq!(
            log.join("|"),
            "begin {|key a|begin [|item|begin 1|item|begin \"|end|key x1|key b|begin {|end|end"
        );
        let mut reader = JsonRewriter::new(64, Some(Log::default()), false, 1);
        let failed = reader.feed(&units("{\"boom\": 1}"), 0, &mut Unrouted);
        assert_eq!(failed, Err(ReadError::Other("boom".to_owned())));
    }

    /// Routes `name` to slot 1, `args` to slot 0 with a typer, anything else nowhere.
    #[derive(Default)]
    struct Envelope {
        ended: Vec<String>,
    }

    impl Router<Log> for Envelope {
        fn route(&mut self, key: &[u8]) -> Result<(Target, Option<Log>), String> {
            Ok(match key {
                b"name" => (Target::Slot(1), None),
                b"args" => (Target::Slot(0), Some(Log::default())),
                _ => (Target::Nowhere, None),
            })
        }
        fn member_end(&mut self, key: &[u8], slots: &mut [Vec<u8>]) -> Result<(), String> {
            let text = String::from_utf8_lossy(&slots[1]);
            self.ended
                .push(format!("{}={text}", String::from_utf8_lossy(key)));
            Ok(())
        }
    }

    #[test]
    fn a_routed_reader_sends_members_to_their_slots() {
        let mut router = Envelope::default();
        let mut reader = JsonRewriter::new(1, None, true, 2);
        let text =
            units("{{\"args\": {\"n\": 5, \"x\": 1}, 'na\\u006de': \"f\", \"o\": [1]}} tail");
        let end = reader.feed(&text, 0, &mut router).unwrap();
        assert_eq!(&text[end..], &units(" tail")[..]);
        assert!(reader.done());
        assert_eq!(reader.slot(0), br#"{"n":"5"}"#);
        assert_eq!(reader.slot(1), br#""f""#);
        assert_eq!(router.ended, ["args=", "name=\"f\"", "o=\"f\""]);
        assert!(reader.typer().is_some());
        for (text, message) in [
            ("[]", "a call must be a JSON object"),
            ("\"s\"", "a call must be a JSON object"),
            ("{{{", "expected a key, found '{'"),
            ("{\"o\": [[1]]}", "nesting deeper than 1"),
        ] {
            let mut reader = JsonRewriter::new(1, None, true, 2);
            let Err(ReadError::Syntax(e)) = reader.feed(&units(text), 0, &mut Envelope::default())
            else {
                panic!("{text} read")
            };
            assert_eq!(e.message(printable), message);
            assert_eq!(
                e.reason() == Reason::TooDeep,
                message.starts_with("nesting")
            );
        }
    }

    #[test]
    fn a_plain_string_may_be_written_by_the_caller() {
        let mut reader = Plain::new(64, None, false, 1);
        let text = units("{\"a\": \"xy");
        reader.feed(&text, 0, &mut Unrouted).unwrap();
        assert!(reader.in_plain_string(0) && !reader.in_plain_string(1));
        reader.feed(&units("\\"), 0, &mut Unrouted).unwrap();
        assert!(!reader.in_plain_string(0));
        reader.feed(&units("ud83d"), 0, &mut Unrouted).unwrap();
        assert!(!reader.in_plain_string(0)); // (a high surrogate waits)
        reader.feed(&units("z'"), 0, &mut Unrouted).unwrap();
        assert!(reader.in_plain_string(0));
        let mut single = Plain::new(64, None, false, 1);
        single.feed(&units("['x"), 0, &mut Unrouted).unwrap();
        assert!(!single.in_plain_string(0));
    }

    #[test]
    fn root_scalars_end_with_the_stream() {
        let mut reader = Plain::new(64, None, false, 1);
        assert_eq!(reader.feed(&units(" 12"), 0, &mut Unrouted), Ok(3));
        assert!(!reader.done());
        assert_eq!(reader.finish(&mut Unrouted), Ok(true));
        assert_eq!(reader.slot(0), b"12");
        let mut reader = Plain::new(64, None, false, 1);
        reader.feed(&units("nul"), 0, &mut Unrouted).unwrap();
        let Err(ReadError::Syntax(e)) = reader.finish(&mut Unrouted) else {
            panic!("finished")
        };
        assert_eq!(
            (e.index, e.message(printable)),
            (0, "not a JSON value: 'nul'".to_owned())
        );
        assert_eq!(parsed(" [1] \u{3000}"), Some("[1]".to_owned()));
        assert_eq!(parsed("[1] x"), None);
    }

    #[test]
    fn strings_decode_as_json_loads_does() {
        let d = |t: &str| decode_string(t.as_bytes());
        assert_eq!(
            d(r#""a\"b\\c\/\n\u0001""#),
            Some(b"a\"b\\c/\n\x01".to_vec())
        );
        assert_eq!(
            d(r#""\ud83d\ude00""#),
            Some("\u{1F600}".as_bytes().to_vec())
        );
        assert_eq!(d(r#""\ud83d\u0041""#), Some(b"\xed\xa0\xbdA".to_vec()));
        assert_eq!(d("[1]"), None);
        assert_eq!(d(r#""\x""#), None);
    }
}
