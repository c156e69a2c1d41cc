//! Python literals read as data (`toolparse.readers.pyliteral`), natively.
//!
//! Pythonic tool calls (`[get_weather(city="Paris", days=3)]`) write each
//! argument as a Python literal, which the engine reads with
//! `parse_literal(text, max_depth=...)`. [`parse_literal`] is its twin: the
//! same forms (strings with their prefixes, escapes and adjacent parts,
//! numbers with `_`, hex, octal and binary, the six words, lists, tuples as
//! lists, dicts, sets as lists), the same bounds and the same errors, message
//! for message (the engine writes them into the call's problem). It is a
//! transliteration of `_Reader`: the same steps in the same order, so that
//! the first error met is the same one.
//!
//! Where the answer would depend on something only the interpreter knows,
//! the reader declines ([`Failure::Decline`]) and the caller runs the Python
//! function instead: a `\N{name}` escape (the Unicode names are
//! `unicodedata`'s), a decimal integer of more than 640 digits (whether
//! `int()` reads it depends on `sys.get_int_max_str_digits()`), nesting past
//! [`NATIVE_DEPTH`] (Python's own recursion limit may answer first), a
//! hexadecimal, octal or binary integer too close to `10**4300` to tell
//! cheaply, or a Python object the builder could not make.
//!
//! The reader is generic over the text's code units and over what it builds
//! ([`Build`]); the binding's `PyBuild` builds the Python values, and
//! `_native._parse_literal` exposes it for `tests/test_native_pyliteral.py`.

use std::collections::HashSet;

use crate::json::float_repr;
use crate::lexicon::Unit;
use crate::wide;

/// Nesting read natively at most: deeper, the reader declines (Python's
/// reader recurses two frames a level, and with a `max_depth` past a few
/// hundred its `RecursionError` would answer first).
pub const NATIVE_DEPTH: usize = 200;

/// `_MAX_DIGITS`: Python's bound on the digits of an integer.
const MAX_DIGITS: usize = 4300;

/// Decimal digits `int()` reads whatever `sys.get_int_max_str_digits()`
/// says (the least limit that can be set): longer, the reader declines.
const UNLIMITED_DIGITS: usize = 640;

/// `10**4300` lies between `2**14284` and `2**14285`: an integer of at most
/// 14284 bits is below it, one of 14286 bits or more is not.
const BITS_BELOW_TOO_LARGE: u64 = 14284;

/// An integer literal's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Int {
    Small(i64),
    /// Past `i64`: its sign and its digits in `radix` (ASCII, no prefix, no
    /// `_`), which `PyLong_FromString` reads (at most 640 decimal digits, or a
    /// power-of-two radix: no limit applies to either).
    Big {
        negative: bool,
        digits: Vec<u8>,
        radix: u32,
    },
}

impl Int {
    /// `str(int)`, where `str()` writes it whatever the interpreter's digit
    /// limit (None: a big one not in decimal, past 2000 bits).
    fn decimal_text(&self) -> Option<String> {
        match self {
            Int::Small(n) => Some(n.to_string()),
            Int::Big {
                negative,
                digits,
                radix: 10,
            } => {
                let start = digits.iter().position(|&d| d != b'0')?;
                let mut text = String::with_capacity(digits.len() + 1);
                if *negative {
                    text.push('-');
                }
                text.extend(digits[start..].iter().map(|&d| char::from(d)));
                Some(text)
            }
            Int::Big {
                negative,
                digits,
                radix,
            } => {
                // (at most 2000 bits: at most 603 decimal digits, which `str()`
                // writes whatever `sys.get_int_max_str_digits()` says)
                let significant = &digits[digits.iter().position(|&d| d != b'0')?..];
                let bits = significant.len() as u64 * u64::from(radix.trailing_zeros());
                if bits > 2000 {
                    return None;
                }
                // base 10**9 limbs, least significant first
                let mut limbs: Vec<u64> = Vec::new();
                for &d in significant {
                    let mut carry = u64::from(char::from(d).to_digit(*radix)?);
                    for limb in &mut limbs {
                        let n = *limb * u64::from(*radix) + carry;
                        *limb = n % 1_000_000_000;
                        carry = n / 1_000_000_000;
                    }
                    if carry > 0 {
                        limbs.push(carry);
                    }
                }
                let mut text = String::from(if *negative { "-" } else { "" });
                let mut limbs = limbs.iter().rev();
                text.push_str(&limbs.next()?.to_string());
                for limb in limbs {
                    text.push_str(&format!("{limb:09}"));
                }
                Some(text)
            }
        }
    }
}

/// A scalar read, not built yet (a dict key needs what it is).
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    /// A string's code points (lone surrogates possible, as Python's).
    Str(Vec<u32>),
    Int(Int),
    /// Finite.
    Float(f64),
    Bool(bool),
    None,
}

/// What the reader builds its values with.
pub trait Build {
    type Value;
    /// The value of a scalar; None to decline.
    fn scalar(&mut self, scalar: Scalar) -> Option<Self::Value>;
    /// A `list` of `items`; None to decline.
    fn list(&mut self, items: Vec<Self::Value>) -> Option<Self::Value>;
    /// A `dict` of `pairs` (keys distinct, in the order first given); None to decline.
    fn dict(&mut self, pairs: Vec<(Vec<u32>, Self::Value)>) -> Option<Self::Value>;
}

/// Why no value came back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The `LiteralError` Python raises, its message.
    Error(String),
    /// Not decided here: the Python function must run.
    Decline,
}

fn error<X>(message: impl Into<String>) -> Result<X, Failure> {
    Err(Failure::Error(message.into()))
}

/// A value read: a scalar (kept as read, for a dict key) or a built container.
enum Item<V> {
    Scalar(Scalar),
    Built(V),
}

/// `parse_literal(text, max_depth)`: the value of the Python literal `text`
/// (surrounding whitespace allowed), built with `build`.
pub fn parse_literal<T: Unit, B: Build>(
    text: &[T],
    max_depth: i64,
    build: &mut B,
) -> Result<B::Value, Failure> {
    let mut reader = Reader {
        text,
        i: 0,
        max_depth,
        build,
    };
    let item = reader.value(0)?;
    let value = reader.built(item)?;
    reader.space();
    if reader.i != text.len() {
        return error(format!(
            "unexpected {} after the value",
            repr(reader.slice20(reader.i))
        ));
    }
    Ok(value)
}

const QUOTE: u32 = b'\'' as u32;
const DQUOTE: u32 = b'"' as u32;
const BACKSLASH: u32 = b'\\' as u32;

fn is_ascii_in(c: Option<u32>, set: &[u8]) -> bool {
    c.and_then(|c| u8::try_from(c).ok())
        .is_some_and(|b| set.contains(&b))
}

fn is_digit(c: Option<u32>) -> bool {
    c.is_some_and(|c| (0x30..=0x39).contains(&c))
}

fn is_quote(c: Option<u32>) -> bool {
    matches!(c, Some(QUOTE | DQUOTE))
}

struct Reader<'a, T, B> {
    text: &'a [T],
    i: usize,
    max_depth: i64,
    build: &'a mut B,
}

impl<T: Unit, B: Build> Reader<'_, T, B> {
    fn at(&self, i: usize) -> Option<u32> {
        self.text.get(i).map(|&c| c.into())
    }

    /// `text[i : i + 20]`.
    fn slice20(&self, i: usize) -> &[T] {
        let start = i.min(self.text.len());
        &self.text[start..(start + 20).min(self.text.len())]
    }

    fn built(&mut self, item: Item<B::Value>) -> Result<B::Value, Failure> {
        match item {
            Item::Built(value) => Ok(value),
            Item::Scalar(scalar) => self.build.scalar(scalar).ok_or(Failure::Decline),
        }
    }

    /// `_SPACE`: `[ \t\r\n]*`.
    fn space(&mut self) {
        while matches!(self.at(self.i), Some(0x20 | 0x09 | 0x0D | 0x0A)) {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Item<B::Value>, Failure> {
        if i64::try_from(depth).map_or(true, |d| d >= self.max_depth) {
            return error(format!("nested deeper than {}", self.max_depth));
        }
        if depth >= NATIVE_DEPTH {
            return Err(Failure::Decline);
        }
        self.space();
        let i = self.i;
        let Some(c) = self.at(i) else {
            return error("a value is missing");
        };
        match c {
            0x5B => return self.sequence(0x5D, depth),
            0x28 => return self.sequence(0x29, depth),
            0x7B => return self.mapping(depth),
            _ => {}
        }
        if self.string_prefix(i).is_some() {
            return self.strings().map(|s| Item::Scalar(Scalar::Str(s)));
        }
        if let Some(end) = self.number_end(i) {
            // (`any(ch.isdigit() ...)`: every text `_NUMBER` matches has one)
            if end > i && (i..end).any(|k| is_digit(self.at(k))) {
                self.i = end;
                return number(&self.text[i..end]).map(Item::Scalar);
            }
        }
        if let Some(end) = self.word_end(i) {
            self.i = end;
            let word: String = self.text[i..end]
                .iter()
                .map(|&c| char::from_u32(c.into()).unwrap_or('?'))
                .collect();
            let scalar = match word.as_str() {
                "True" | "true" => Scalar::Bool(true),
                "False" | "false" => Scalar::Bool(false),
                "None" | "null" => Scalar::None,
                _ => {
                    self.space();
                    if self.at(self.i) == Some(0x28) {
                        return error(format!(
                            "a call ({word}(...)) is not a literal: nested calls are not read"
                        ));
                    }
                    return error(format!("a name ({word}) is not a literal"));
                }
            };
            return Ok(Item::Scalar(scalar));
        }
        error(format!("unexpected {}", repr(self.slice20(i))))
    }

    fn sequence(&mut self, close: u32, depth: usize) -> Result<Item<B::Value>, Failure> {
        self.i += 1;
        let mut items = Vec::new();
        let mut comma = false;
        loop {
            self.space();
            if self.at(self.i) == Some(close) {
                self.i += 1;
                if close == 0x29 && items.len() == 1 && !comma {
                    // (parentheses around one value group it: ("Paris") is "Paris")
                    return Ok(items.pop().unwrap_or(Item::Scalar(Scalar::None)));
                }
                let mut values = Vec::with_capacity(items.len());
                for item in items {
                    values.push(self.built(item)?);
                }
                return self
                    .build
                    .list(values)
                    .map(Item::Built)
                    .ok_or(Failure::Decline);
            }
            items.push(self.value(depth + 1)?);
            self.space();
            if self.at(self.i) == Some(0x2C) {
                self.i += 1;
                comma = true;
            } else if self.at(self.i) != Some(close) {
                let close = if close == 0x29 { "')'" } else { "']'" };
                return error(format!("expected ',' or {close}"));
            }
        }
    }

    fn mapping(&mut self, depth: usize) -> Result<Item<B::Value>, Failure> {
        self.i += 1;
        let mut pairs: Vec<(Vec<u32>, B::Value)> = Vec::new();
        // (the keys, once there are enough that a scan would cost)
        let mut seen: Option<HashSet<Vec<u32>>> = None;
        let mut members = Vec::new(); // (a set: {1, 2})
        loop {
            self.space();
            if self.at(self.i) == Some(0x7D) {
                self.i += 1;
                if members.is_empty() {
                    return self
                        .build
                        .dict(pairs)
                        .map(Item::Built)
                        .ok_or(Failure::Decline);
                }
                return self
                    .build
                    .list(members)
                    .map(Item::Built)
                    .ok_or(Failure::Decline);
            }
            let key = self.value(depth + 1)?;
            self.space();
            if self.at(self.i) == Some(0x3A) && members.is_empty() {
                self.i += 1;
                let name = match key {
                    Item::Scalar(scalar) => key_text(scalar)?,
                    Item::Built(_) => {
                        return error("a dict key must be a string, a number, a bool or None")
                    }
                };
                let item = self.value(depth + 1)?;
                let value = self.built(item)?;
                // (`pairs.setdefault(name, value)`: the first value of a key stays)
                let known = match &mut seen {
                    Some(seen) => !seen.insert(name.clone()),
                    None => pairs.iter().any(|(k, _)| *k == name),
                };
                if !known {
                    if seen.is_none() && pairs.len() >= 16 {
                        let mut keys: HashSet<Vec<u32>> =
                            pairs.iter().map(|(k, _)| k.clone()).collect();
                        keys.insert(name.clone());
                        seen = Some(keys);
                    }
                    pairs.push((name, value));
                }
            } else if pairs.is_empty() {
                let member = self.built(key)?;
                members.push(member);
            } else {
                return error("expected ':' in a dict");
            }
            self.space();
            if self.at(self.i) == Some(0x2C) {
                self.i += 1;
            } else if self.at(self.i) != Some(0x7D) {
                return error("expected ',' or '}'");
            }
        }
    }

    /// `_STRING_PREFIX.match(text, i)`: the prefix's length, where a string
    /// begins (`(?:[rRbBuU]|[rR][bB]|[bB][rR])?(?=['"])`).
    fn string_prefix(&self, i: usize) -> Option<usize> {
        let (a, b) = (self.at(i), self.at(i + 1));
        if is_quote(a) {
            return Some(0);
        }
        if is_ascii_in(a, b"rRbBuU") && is_quote(b) {
            return Some(1);
        }
        let pair = (is_ascii_in(a, b"rR") && is_ascii_in(b, b"bB"))
            || (is_ascii_in(a, b"bB") && is_ascii_in(b, b"rR"));
        (pair && is_quote(self.at(i + 2))).then_some(2)
    }

    /// One string, or adjacent ones joined (`"a" 'b'`); a surrogate pair
    /// (two escapes, which Python keeps apart) joined into its character, a
    /// lone surrogate U+FFFD (`valid_unicode`): a value is valid Unicode.
    fn strings(&mut self) -> Result<Vec<u32>, Failure> {
        let mut out = Vec::new();
        self.string(&mut out)?;
        loop {
            self.space();
            if self.string_prefix(self.i).is_none() {
                crate::wide::join_surrogate_pairs(&mut out);
                out.iter_mut().for_each(|c| *c = wide::replaced(*c));
                return Ok(out);
            }
            self.string(&mut out)?;
        }
    }

    /// `text.find(quote, from)` of a quote one or three `q`s long.
    fn find_quote(&self, q: u32, len: usize, from: usize) -> Option<usize> {
        let text = self.text;
        let mut i = from;
        while i + len <= text.len() {
            let at = text[i..].iter().position(|&c| c.into() == q)?;
            i += at;
            if i + len > text.len() {
                return None;
            }
            match (1..len).find(|&k| text[i + k].into() != q) {
                None => return Some(i),
                // (no run of `len` quotes begins before the unit that broke this one)
                Some(k) => i += k + 1,
            }
        }
        None
    }

    fn string(&mut self, out: &mut Vec<u32>) -> Result<(), Failure> {
        let text = self.text;
        let prefix = self.string_prefix(self.i).ok_or(Failure::Decline)?;
        let raw = (self.i..self.i + prefix).any(|k| is_ascii_in(self.at(k), b"rR"));
        let mut i = self.i + prefix;
        let q = self.at(i).ok_or(Failure::Decline)?;
        let quote = if self.at(i + 1) == Some(q) && self.at(i + 2) == Some(q) {
            3
        } else {
            1
        };
        i += quote;
        let mut end = self.find_quote(q, quote, i);
        loop {
            if end.is_some_and(|end| end < i) {
                // (the quote found was escaped: look past it, once)
                end = self.find_quote(q, quote, i);
            }
            let limit = end.unwrap_or(text.len());
            let Some(rest) = text.get(i..limit) else {
                return Err(Failure::Decline); // (never: `end` is past `i`)
            };
            let slash = rest
                .iter()
                .position(|&c| c.into() == BACKSLASH)
                .map(|k| i + k);
            let Some(slash) = slash else {
                let Some(end) = end else {
                    return error("a string is not closed");
                };
                let Some(chunk) = text.get(i..end) else {
                    return Err(Failure::Decline); // (never: `end` is past `i`)
                };
                if quote == 1 && chunk.iter().any(|&c| c.into() == 0x0A) {
                    return error("a newline inside a one-line string");
                }
                out.extend(chunk.iter().map(|&c| c.into()));
                self.i = end + quote;
                return Ok(());
            };
            out.extend(text[i..slash].iter().map(|&c| c.into()));
            if slash + 1 >= text.len() {
                return error("a string is not closed");
            }
            if raw {
                out.extend(text[slash..slash + 2].iter().map(|&c| c.into()));
                i = slash + 2;
                continue;
            }
            i = escape(text, slash + 1, out)?;
        }
    }

    /// Where `_NUMBER` matched at `i` ends:
    /// `[+-]?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|
    /// (?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9_]+)?)`,
    /// alternatives tried in order, each greedy (nothing follows the group,
    /// so the first alternative that matches is the match).
    fn number_end(&self, i: usize) -> Option<usize> {
        let run = |mut k: usize, set: &[u8]| {
            while is_ascii_in(self.at(k), set) {
                k += 1;
            }
            k
        };
        const DEC: &[u8] = b"0123456789_";
        // (a sign, or none: with none, no alternative matches at a sign anyway)
        let j = i + usize::from(is_ascii_in(self.at(i), b"+-"));
        if self.at(j) == Some(0x30) {
            for (marks, set) in [
                (&b"xX"[..], &b"0123456789abcdefABCDEF_"[..]),
                (b"oO", b"01234567_"),
                (b"bB", b"01_"),
            ] {
                if is_ascii_in(self.at(j + 1), marks) && is_ascii_in(self.at(j + 2), set) {
                    return Some(run(j + 2, set));
                }
            }
        }
        let mut k = if is_digit(self.at(j)) {
            let mut k = run(j + 1, DEC);
            if self.at(k) == Some(0x2E) {
                k += 1;
            }
            run(k, DEC)
        } else if self.at(j) == Some(0x2E) && is_digit(self.at(j + 1)) {
            run(j + 2, DEC)
        } else {
            return None;
        };
        if is_ascii_in(self.at(k), b"eE") {
            let mut e = k + 1;
            if is_ascii_in(self.at(e), b"+-") {
                e += 1;
            }
            if is_ascii_in(self.at(e), DEC) {
                k = run(e, DEC);
            }
        }
        Some(k)
    }

    /// Where `_WORD` (`[A-Za-z_][A-Za-z0-9_]*`) matched at `i` ends.
    fn word_end(&self, i: usize) -> Option<usize> {
        let letter = |c: Option<u32>| {
            c.and_then(|c| u8::try_from(c).ok())
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        };
        if !letter(self.at(i)) {
            return None;
        }
        let mut k = i + 1;
        while letter(self.at(k)) || is_digit(self.at(k)) {
            k += 1;
        }
        Some(k)
    }
}

/// `_escape(text, i)`: the escape after the backslash at `i - 1`, appended
/// to `out`; where the text goes on.
fn escape<T: Unit>(text: &[T], i: usize, out: &mut Vec<u32>) -> Result<usize, Failure> {
    let Some(c) = text.get(i).map(|&c| c.into()) else {
        return Err(Failure::Decline); // (the caller checked: never)
    };
    let simple = match u8::try_from(c).ok() {
        Some(b'\\') => Some(Some(0x5C)),
        Some(b'\'') => Some(Some(0x27)),
        Some(b'"') => Some(Some(0x22)),
        Some(b'a') => Some(Some(0x07)),
        Some(b'b') => Some(Some(0x08)),
        Some(b'f') => Some(Some(0x0C)),
        Some(b'n') => Some(Some(0x0A)),
        Some(b'r') => Some(Some(0x0D)),
        Some(b't') => Some(Some(0x09)),
        Some(b'v') => Some(Some(0x0B)),
        Some(b'\n') => Some(None), // (a line continued: nothing)
        _ => None,
    };
    if let Some(simple) = simple {
        out.extend(simple);
        return Ok(i + 1);
    }
    let hex_length = match c {
        0x78 => Some(2), // x
        0x75 => Some(4), // u
        0x55 => Some(8), // U
        _ => None,
    };
    if let Some(n) = hex_length {
        let digits = &text[(i + 1).min(text.len())..(i + 1 + n).min(text.len())];
        if digits.len() == n {
            let code = digits.iter().try_fold(0u32, |code, &d| {
                let d = char::from_u32(d.into())?;
                // (ASCII hex digits only, as the Python's set of them)
                d.is_ascii_hexdigit()
                    .then(|| d.to_digit(16))
                    .flatten()
                    .map(|v| code * 16 + v)
            });
            if let Some(code) = code.filter(|&code| code <= 0x10FFFF) {
                out.push(code);
                return Ok(i + 1 + n);
            }
        }
        let c = char::from_u32(c).unwrap_or('?');
        return error(format!("a bad \\{c} escape"));
    }
    if c == 0x4E {
        // N: `\N{name}` needs the Unicode names `unicodedata` holds: Python reads it
        return Err(Failure::Decline);
    }
    let octal = |k: usize| {
        text.get(k)
            .map(|&d| d.into())
            .filter(|d| (0x30..=0x37).contains(d))
    };
    if octal(i).is_some() {
        let mut j = i;
        let mut code = 0;
        while j < i + 3 {
            let Some(d) = octal(j) else { break };
            code = code * 8 + (d - 0x30);
            j += 1;
        }
        out.push(code);
        return Ok(j);
    }
    // (Python keeps an unknown escape as written)
    out.extend([BACKSLASH, c]);
    Ok(i + 1)
}

/// `_number(text)` of the ASCII text `_NUMBER` matched.
fn number<T: Unit>(text: &[T]) -> Result<Scalar, Failure> {
    let written: String = text
        .iter()
        .map(|&c| char::from_u32(c.into()).unwrap_or('?'))
        .collect();
    let digits: String = written.chars().filter(|&c| c != '_').collect();
    let body = digits.trim_start_matches(['+', '-']);
    let negative = digits.starts_with('-');
    let prefix = body.get(..2).unwrap_or(body).to_ascii_lowercase();
    let not_a_number = || error(format!("{} is not a number", repr_str(&written)));
    if digits.contains(['.', 'e', 'E']) && prefix != "0x" {
        // float(digits): it refuses only an exponent with no digit
        let exponent = body
            .find(['e', 'E'])
            .map(|at| body[at + 1..].trim_start_matches(['+', '-']));
        if exponent.is_some_and(str::is_empty) {
            return not_a_number();
        }
        // (correctly rounded, as float() is; "1.", ".5", "1.e5" read alike)
        let Ok(value) = digits.parse::<f64>() else {
            return Err(Failure::Decline);
        };
        if !value.is_finite() {
            return error(format!("{written} is not a finite number"));
        }
        return Ok(Scalar::Float(value));
    }
    if digits.len() > MAX_DIGITS + 3 {
        // (a decimal past the bound, or a longer hex, octal or binary one)
        return error("a number with too many digits");
    }
    let (radix, numerals) = match prefix.as_str() {
        "0x" => (16, &body[2..]),
        "0o" => (8, &body[2..]),
        "0b" => (2, &body[2..]),
        _ => (10, body),
    };
    if numerals.is_empty() {
        return not_a_number(); // (int("0x", 0))
    }
    let significant = numerals.trim_start_matches('0');
    if radix == 10 {
        if numerals.len() > UNLIMITED_DIGITS {
            // (int() reads it or not as sys.get_int_max_str_digits() says)
            return Err(Failure::Decline);
        }
    } else if let Some(first) = significant.chars().next() {
        let first_bits = u64::from(32 - first.to_digit(radix).unwrap_or(1).leading_zeros());
        let bits = first_bits + (significant.len() as u64 - 1) * u64::from(radix.trailing_zeros());
        if bits > BITS_BELOW_TOO_LARGE + 1 {
            return error("a number with too many digits");
        }
        if bits > BITS_BELOW_TOO_LARGE {
            return Err(Failure::Decline); // (too close to 10**4300 to tell here)
        }
    }
    let magnitude = significant.chars().try_fold(0u64, |n, d| {
        n.checked_mul(u64::from(radix))?
            .checked_add(u64::from(d.to_digit(radix)?))
    });
    let small = magnitude.and_then(|m| {
        if negative {
            0i64.checked_sub_unsigned(m)
        } else {
            i64::try_from(m).ok()
        }
    });
    Ok(Scalar::Int(match small {
        Some(n) => Int::Small(n),
        None => Int::Big {
            negative,
            digits: numerals.bytes().collect(),
            radix,
        },
    }))
}

/// `key if isinstance(key, str) else _key_text(key)`: a dict key's text.
fn key_text(key: Scalar) -> Result<Vec<u32>, Failure> {
    let text = match key {
        Scalar::Str(points) => return Ok(points),
        Scalar::Bool(true) => "true".to_owned(),
        Scalar::Bool(false) => "false".to_owned(),
        Scalar::None => "null".to_owned(),
        // (`str(float)` is its repr)
        Scalar::Float(x) => float_repr(x),
        Scalar::Int(int) => int.decimal_text().ok_or(Failure::Decline)?,
    };
    Ok(text.chars().map(u32::from).collect())
}

/// `repr(text)` of a Python `str` (CPython's `unicode_repr`): single quotes
/// unless the text holds one and no double quote; `\\`, the quote, `\t`,
/// `\n`, `\r` escaped, other control characters and DEL as `\xhh`, and any
/// other character `str.isprintable` refuses as `\xhh`, `\uhhhh` or
/// `\Uhhhhhhhh`.
pub fn repr<T: Unit>(text: &[T]) -> String {
    let points = || text.iter().map(|&c| c.into());
    let quote = if points().any(|c| c == QUOTE) && !points().any(|c| c == DQUOTE) {
        DQUOTE
    } else {
        QUOTE
    };
    let mut out = String::with_capacity(text.len() + 2);
    let q = char::from_u32(quote).unwrap_or('\'');
    out.push(q);
    for c in points() {
        match c {
            _ if c == quote || c == BACKSLASH => {
                out.push('\\');
                out.push(char::from_u32(c).unwrap_or('?'));
            }
            0x09 => out.push_str("\\t"),
            0x0A => out.push_str("\\n"),
            0x0D => out.push_str("\\r"),
            _ if c < 0x20 || c == 0x7F => out.push_str(&format!("\\x{c:02x}")),
            _ if c < 0x7F => out.push(char::from_u32(c).unwrap_or('?')),
            _ => match char::from_u32(c) {
                Some(ch) if crate::printable::is_printable(c) => out.push(ch),
                _ if c <= 0xFF => out.push_str(&format!("\\x{c:02x}")),
                _ if c <= 0xFFFF => out.push_str(&format!("\\u{c:04x}")),
                _ => out.push_str(&format!("\\U{c:08x}")),
            },
        }
    }
    out.push(q);
    out
}

fn repr_str(text: &str) -> String {
    let points: Vec<u32> = text.chars().map(u32::from).collect();
    repr(&points)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values as a tree, for the tests.
    #[derive(Clone, Debug, PartialEq)]
    enum Tree {
        Scalar(Scalar),
        List(Vec<Tree>),
        Dict(Vec<(String, Tree)>),
    }

    struct TreeBuild;

    impl Build for TreeBuild {
        type Value = Tree;
        fn scalar(&mut self, scalar: Scalar) -> Option<Tree> {
            Some(Tree::Scalar(scalar))
        }
        fn list(&mut self, items: Vec<Tree>) -> Option<Tree> {
            Some(Tree::List(items))
        }
        fn dict(&mut self, pairs: Vec<(Vec<u32>, Tree)>) -> Option<Tree> {
            Some(Tree::Dict(
                pairs
                    .into_iter()
                    .map(|(k, v)| (k.iter().filter_map(|&c| char::from_u32(c)).collect(), v))
                    .collect(),
            ))
        }
    }

    fn parse(text: &str) -> Result<Tree, Failure> {
        let points: Vec<u32> = text.chars().map(u32::from).collect();
        parse_literal(&points, 64, &mut TreeBuild)
    }

    fn s(text: &str) -> Tree {
        Tree::Scalar(Scalar::Str(text.chars().map(u32::from).collect()))
    }

    fn int(n: i64) -> Tree {
        Tree::Scalar(Scalar::Int(Int::Small(n)))
    }

    fn float(x: f64) -> Tree {
        Tree::Scalar(Scalar::Float(x))
    }

    fn err(message: &str) -> Result<Tree, Failure> {
        Err(Failure::Error(message.to_owned()))
    }

    #[test]
    fn scalars() {
        assert_eq!(parse(" 'Paris' "), Ok(s("Paris")));
        assert_eq!(parse("3"), Ok(int(3)));
        assert_eq!(parse("-0x_1F"), Ok(int(-31)));
        assert_eq!(parse("0o17"), Ok(int(15)));
        assert_eq!(parse("0b1_01"), Ok(int(5)));
        assert_eq!(parse("1_000"), Ok(int(1000)));
        assert_eq!(parse("007"), Ok(int(7)));
        assert_eq!(parse("1e5"), Ok(float(1e5)));
        assert_eq!(parse("1.e5"), Ok(float(1e5)));
        assert_eq!(parse("1."), Ok(float(1.0)));
        assert_eq!(parse("+.5"), Ok(float(0.5)));
        assert_eq!(parse("1_0.5_0e-1_0"), Ok(float(10.50e-10)));
        assert!(
            matches!(parse("-0.0"), Ok(Tree::Scalar(Scalar::Float(x))) if x == 0.0 && x.is_sign_negative())
        );
        assert_eq!(parse("True"), Ok(Tree::Scalar(Scalar::Bool(true))));
        assert_eq!(parse("null"), Ok(Tree::Scalar(Scalar::None)));
        assert_eq!(parse("-9223372036854775808"), Ok(int(i64::MIN)),);
        assert_eq!(
            parse("9223372036854775808"),
            Ok(Tree::Scalar(Scalar::Int(Int::Big {
                negative: false,
                digits: b"9223372036854775808".to_vec(),
                radix: 10
            })))
        );
    }

    #[test]
    fn number_errors() {
        assert_eq!(parse("1e_"), err("'1e_' is not a number"));
        assert_eq!(parse("0x_"), err("'0x_' is not a number"));
        assert_eq!(parse("1e999"), err("1e999 is not a finite number"));
        assert_eq!(
            parse(&"1".repeat(4304)),
            err("a number with too many digits")
        );
        assert_eq!(parse(&"1".repeat(700)), Err(Failure::Decline));
        assert_eq!(
            parse(&format!("0x{}", "f".repeat(3600))),
            err("a number with too many digits")
        );
        assert!(matches!(
            parse(&format!("0x{}", "f".repeat(3571))),
            Ok(Tree::Scalar(Scalar::Int(Int::Big { radix: 16, .. })))
        ));
        assert_eq!(parse("0xg"), err("unexpected 'xg' after the value"));
        assert_eq!(parse("inf"), err("a name (inf) is not a literal"));
        assert_eq!(
            parse("f (1)"),
            err("a call (f(...)) is not a literal: nested calls are not read")
        );
    }

    #[test]
    fn strings() {
        assert_eq!(
            parse(r#""a\n\x41\u00e9\U0001F600\101\q""#),
            Ok(s("a\nAé😀A\\q"))
        );
        assert_eq!(parse(r#"r"a\n\"""#), Ok(s("a\\n\\\"")));
        assert_eq!(parse(r#"b'x' "y" rb'\z'"#), Ok(s("xy\\z")));
        assert_eq!(parse("'''a\nb'''"), Ok(s("a\nb")));
        assert_eq!(parse("\"a\\\nb\""), Ok(s("ab")));
        assert_eq!(parse("'a\nb'"), err("a newline inside a one-line string"));
        assert_eq!(parse("'abc"), err("a string is not closed"));
        assert_eq!(parse("'ab\\"), err("a string is not closed"));
        assert_eq!(parse(r"'\x4'"), err("a bad \\x escape"));
        assert_eq!(parse(r"'\U00110000'"), err("a bad \\U escape"));
        // (a named character: Python reads it; raw, it is kept as written)
        assert_eq!(parse(r#"["a", "\N{BEL}"]"#), Err(Failure::Decline));
        assert_eq!(parse(r#"r"\N{BEL}""#), Ok(s("\\N{BEL}")));
        assert_eq!(parse(r"'\x4' '\N{BEL}'"), err("a bad \\x escape"));
        assert_eq!(parse("ur'x'"), err("a name (ur) is not a literal"));
        // (a lone surrogate is U+FFFD; a pair, two escapes, is its character)
        assert_eq!(
            parse(r#""\ud800""#),
            Ok(Tree::Scalar(Scalar::Str(vec![0xFFFD])))
        );
        assert_eq!(parse(r#""\ud83d" "\ude00""#), Ok(s("😀")));
    }

    #[test]
    fn containers() {
        assert_eq!(
            parse("[1, (2,), (3), ()]"),
            Ok(Tree::List(vec![
                int(1),
                Tree::List(vec![int(2)]),
                int(3),
                Tree::List(vec![])
            ]))
        );
        assert_eq!(
            parse("{'a': 1, 'a': 2, 1: 3, True: 4, None: 5, 1.5: 6}"),
            Ok(Tree::Dict(vec![
                ("a".into(), int(1)),
                ("1".into(), int(3)),
                ("true".into(), int(4)),
                ("null".into(), int(5)),
                ("1.5".into(), int(6)),
            ]))
        );
        assert_eq!(
            parse(&format!(
                "{{0x1_0000_0000_0000_0000: 1, -0b1{}: 2}}",
                "0".repeat(200)
            )),
            Ok(Tree::Dict(vec![
                ("18446744073709551616".into(), int(1)),
                (
                    "-1606938044258990275541962092341162602522202993782792835301376".into(),
                    int(2)
                ),
            ]))
        );
        assert_eq!(
            parse(&format!("{{0x{}: 1}}", "f".repeat(501))),
            Err(Failure::Decline)
        );
        assert_eq!(parse("{1, 2,}"), Ok(Tree::List(vec![int(1), int(2)])));
        assert_eq!(parse("{}"), Ok(Tree::Dict(vec![])));
        assert_eq!(parse("{1: 2, 3}"), err("expected ':' in a dict"));
        assert_eq!(parse("{1, 2: 3}"), err("expected ',' or '}'"));
        assert_eq!(
            parse("{[1]: 2}"),
            err("a dict key must be a string, a number, a bool or None")
        );
        assert_eq!(parse("[1 2]"), err("expected ',' or ']'"));
        assert_eq!(parse("(1 2)"), err("expected ',' or ')'"));
        assert_eq!(parse("[1,,]"), err("unexpected ',]'"));
        assert_eq!(parse(""), err("a value is missing"));
        assert!(parse("[[[1]]]").is_ok());
        let points: Vec<u32> = "[[1]]".chars().map(u32::from).collect();
        assert_eq!(
            parse_literal(&points, 2, &mut TreeBuild),
            err("nested deeper than 2")
        );
        let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
        let points: Vec<u32> = deep.chars().map(u32::from).collect();
        assert_eq!(
            parse_literal(&points, 1000, &mut TreeBuild),
            Err(Failure::Decline)
        );
        assert_eq!(
            parse_literal(&points, 0, &mut TreeBuild),
            err("nested deeper than 0")
        );
    }

    #[test]
    fn many_keys_keep_the_first() {
        let text = format!(
            "{{{}}}",
            (0..40)
                .chain(0..40)
                .map(|k| format!("{k}: {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let Ok(Tree::Dict(pairs)) = parse(&text) else {
            panic!("not a dict")
        };
        assert_eq!(pairs.len(), 40);
        assert_eq!(pairs[39], ("39".to_owned(), int(39)));
    }

    #[test]
    fn reprs() {
        assert_eq!(repr(&[0x61u32, 0x27]), "\"a'\"");
        assert_eq!(repr(&[0x27u32, 0x22]), "'\\'\"'");
        assert_eq!(
            repr(&[0x0Au32, 0x7F, 0xA0, 0xE9, 0xD800, 0x1F600, 0x10FFFF]),
            "'\\n\\x7f\\xa0é\\ud800😀\\U0010ffff'"
        );
    }
}
