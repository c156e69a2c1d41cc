//! Matching model-written keys against `patternProperties` in bounded time
//! (`toolparse.coercion.patterns`, without google-re2).
//!
//! Python checks a pattern with its `re` parser (an invalid one is reported
//! with `re`'s message). With google-re2 installed (the `toolparse[re2]`
//! extra), a pattern RE2 reads is matched by RE2, keys up to [`MAX_KEY`];
//! any other is applied by `re` only when a static check bounds its
//! backtracking (`key_limit`), to keys no longer than the limit it gives.
//! This port is Python *with* google-re2 (the `regex` crate is linear time,
//! as RE2 is):
//!
//! * the pattern is read by a port of the part of `re._parser` such patterns
//!   use: the same parse tree, with its optimizations (non-capturing groups
//!   opened, common prefixes of alternatives factored out, alternatives of
//!   single characters made one set), the same error messages;
//! * a pattern RE2 would read is written for the `regex` crate with RE2's
//!   meanings (ASCII `\d \s \w \b`, `$` the very end);
//! * any other (`\u` escapes, octal escapes, `{,n}`, counts over 1000,
//!   backreferences) goes through the same static check on that tree, and is
//!   written with `re`'s meanings: `\d`, `\s`, `\w` as the code points
//!   Python's classes hold, `$` as "the end, or before a final newline".
//!
//! What Python's `re` accepts and this reader does not (lookarounds, inline
//! flags, comments, `\N{...}`, possessive repeats, nested sets, a `$` before
//! more pattern on the second road, literal surrogates in the pattern) is
//! reported as not applied, with [`UNSUPPORTED`] as the reason: there the
//! twins differ (Python may apply the pattern). Without google-re2 Python
//! takes the second road for every pattern: its results then differ from
//! these where RE2's and `re`'s meanings differ. Keys with lone surrogates
//! are matched with each surrogate read as U+FDD0 (a noncharacter no class
//! holds either).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::unicode_tables::{DECIMAL, WORD};
use super::value::{code_points, Object, Value};
use crate::wide;

/// The longest key matched against any pattern (`MAX_KEY`).
pub const MAX_KEY: usize = 4096;
const MAX_FACTOR: u64 = 256;
const STEP_BUDGET: u64 = 1 << 14;
const MAXREPEAT: u64 = 4_294_967_295;
const CACHED: usize = 512;

/// Why a pattern Python's `re` would read is not applied here.
pub const UNSUPPORTED: &str = "the native matcher does not support this pattern";
const UNBOUNDED: &str = "it may backtrack without bound on a crafted key \
     (install google-re2, the 'toolparse[re2]' extra, to apply it)";

/// `pattern_schema(patterns, key, report)`: the schema of the first pattern
/// `key` matches, or None; `report(pattern, why)` for each pattern not applied.
pub fn pattern_schema(
    patterns: &Object,
    key: &[u8],
    report: &mut dyn FnMut(&[u8], &str),
) -> Option<Value> {
    let mut length = None;
    for (pattern, schema) in patterns.iter() {
        let compiled = compile_pattern(pattern);
        let (matcher, limit) = match &*compiled {
            Compiled::Refused(why) => {
                report(pattern, why);
                continue;
            }
            Compiled::Matcher(matcher, limit) => (matcher, *limit),
        };
        let n = *length.get_or_insert_with(|| wide::code_points(key));
        if n > limit {
            let why = format!(
                "a key longer than {limit} characters is not matched against it without google-re2"
            );
            report(pattern, &why);
            continue;
        }
        let text: String = wide::chars(key)
            .map(|c| char::from_u32(c).unwrap_or('\u{FDD0}'))
            .collect();
        if matcher.is_match(&text) {
            return Some(schema.clone());
        }
    }
    None
}

/// A pattern read: a matcher and the longest key it may be given, or why not.
#[derive(Debug)]
pub enum Compiled {
    Matcher(regex::Regex, usize),
    Refused(String),
}

/// `compile_pattern(pattern)`, cached (the same tool's schema serves every call).
pub fn compile_pattern(pattern: &[u8]) -> Arc<Compiled> {
    static CACHE: OnceLock<Mutex<HashMap<Vec<u8>, Arc<Compiled>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(found) = cache.lock().ok().and_then(|c| c.get(pattern).cloned()) {
        return found;
    }
    let compiled = Arc::new(compile(pattern));
    if let Ok(mut cache) = cache.lock() {
        if cache.len() >= CACHED {
            cache.clear();
        }
        cache.insert(pattern.to_vec(), compiled.clone());
    }
    compiled
}

fn compile(pattern: &[u8]) -> Compiled {
    let chars = code_points(pattern);
    let (tree, re2, ignore_case) = match parse(&chars) {
        Ok(tree) => tree,
        Err(Problem::Error(message)) => {
            return Compiled::Refused(format!("not a valid regular expression ({message})"))
        }
        Err(Problem::Unsupported) => return Compiled::Refused(UNSUPPORTED.into()),
    };
    if re2 {
        // (Python's coercion matches a pattern RE2 reads with RE2, keys up to MAX_KEY)
        let mut out = String::from(if ignore_case { "(?i)" } else { "" });
        if write_seq(&mut out, &tree, true, true).is_ok() {
            if let Ok(matcher) = regex::Regex::new(&out) {
                return Compiled::Matcher(matcher, MAX_KEY);
            }
        }
    }
    let limit = match cost(&tree) {
        Some((degree, factor)) if degree <= 1 && factor <= MAX_FACTOR => {
            if degree == 1 {
                (MAX_KEY as u64).min(isqrt(STEP_BUDGET / factor)) as usize
            } else {
                (MAX_KEY as u64).min(STEP_BUDGET / factor) as usize
            }
        }
        _ => return Compiled::Refused(UNBOUNDED.into()),
    };
    let mut out = String::new();
    if write_seq(&mut out, &tree, true, false).is_err() {
        return Compiled::Refused(UNSUPPORTED.into());
    }
    match regex::Regex::new(&out) {
        Ok(matcher) => Compiled::Matcher(matcher, limit),
        Err(_) => Compiled::Refused(UNSUPPORTED.into()),
    }
}

fn isqrt(n: u64) -> u64 {
    let mut r = (n as f64).sqrt() as u64;
    while r * r > n {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= n {
        r += 1;
    }
    r
}

// -- the parse tree (re._parser's, for the parts read here) -------------------------------

#[derive(Clone, Debug, PartialEq, Eq)]
enum Category {
    Digit,
    NotDigit,
    Space,
    NotSpace,
    Word,
    NotWord,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum SetItem {
    Literal(u32),
    Range(u32, u32),
    Category(Category),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum At {
    Beginning,
    BeginningString,
    End,
    EndString,
    Boundary,
    NotBoundary,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Item {
    Literal(u32),
    NotLiteral(u32),
    Any,
    In {
        negate: bool,
        items: Vec<SetItem>,
    },
    At(At),
    /// A capturing group (its number), or a group Python keeps (never here).
    Subpattern(usize, Vec<Item>),
    Branch(Vec<Vec<Item>>),
    Repeat {
        low: u64,
        high: u64,
        body: Vec<Item>,
        /// `{,n}`'s text, which RE2 reads as text.
        brace: Option<Vec<u32>>,
    },
    /// A backreference: Python's check refuses it.
    GroupRef,
}

enum Problem {
    /// Python's `re.error`, its message as `str(error)` gives it.
    Error(String),
    /// Valid for Python's `re`, not read here.
    Unsupported,
}

struct Source<'a> {
    chars: &'a [u32],
    index: usize,
    /// The lookahead token: one character, or a backslash and the next.
    next: Option<Vec<u32>>,
    groups: usize,
    names: HashMap<Vec<u32>, usize>,
    open: Vec<usize>,
    /// `(?i)` began the pattern.
    ignore_case: bool,
    /// No construct RE2 refuses (`\\u`, `\\Z`, octal escapes, `{,n}`, counts over 1000...) met.
    re2: bool,
}

const SPECIAL: &str = ".\\[{()*+?^$|";

fn ch(c: char) -> u32 {
    u32::from(c)
}

impl Source<'_> {
    fn advance(&mut self) -> Result<(), Problem> {
        let Some(&c) = self.chars.get(self.index) else {
            self.next = None;
            return Ok(());
        };
        if c == ch('\\') {
            let Some(&d) = self.chars.get(self.index + 1) else {
                return Err(self.error_at("bad escape (end of pattern)", self.chars.len() - 1));
            };
            self.next = Some(vec![c, d]);
            self.index += 2;
        } else {
            self.next = Some(vec![c]);
            self.index += 1;
        }
        Ok(())
    }

    fn get(&mut self) -> Result<Option<Vec<u32>>, Problem> {
        let this = self.next.take();
        self.advance()?;
        Ok(this)
    }

    fn is_next(&self, c: char) -> bool {
        self.next.as_deref() == Some(&[ch(c)])
    }

    fn matches(&mut self, c: char) -> Result<bool, Problem> {
        if self.is_next(c) {
            self.advance()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn tell(&self) -> usize {
        self.index - self.next.as_ref().map_or(0, Vec::len)
    }

    fn seek(&mut self, index: usize) -> Result<(), Problem> {
        self.index = index;
        self.advance()
    }

    fn error_at(&self, message: &str, pos: usize) -> Problem {
        let mut text = format!("{message} at position {pos}");
        let newline = ch('\n');
        if self.chars.contains(&newline) {
            let line = self.chars[..pos].iter().filter(|&&c| c == newline).count() + 1;
            let column = pos
                - self.chars[..pos]
                    .iter()
                    .rposition(|&c| c == newline)
                    .map_or(0, |k| k + 1)
                + 1;
            let column = if line == 1 { pos + 1 } else { column };
            text = format!("{text} (line {line}, column {column})");
        }
        Problem::Error(text)
    }

    /// `source.error(message, offset)`.
    fn error(&self, message: &str, offset: usize) -> Problem {
        self.error_at(message, self.tell().saturating_sub(offset))
    }

    /// Up to `n` characters of `allowed` (`getwhile`).
    fn get_while(&mut self, n: usize, allowed: impl Fn(u32) -> bool) -> Result<Vec<u32>, Problem> {
        let mut out = Vec::new();
        for _ in 0..n {
            match self.next.as_deref() {
                Some(&[c]) if allowed(c) => {
                    out.push(c);
                    self.advance()?;
                }
                _ => break,
            }
        }
        Ok(out)
    }
}

fn text_of(chars: &[u32]) -> String {
    chars
        .iter()
        .map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}'))
        .collect()
}

fn is_hex(c: u32) -> bool {
    char::from_u32(c).is_some_and(|c| c.is_ascii_hexdigit())
}

fn is_oct(c: u32) -> bool {
    (ch('0')..=ch('7')).contains(&c)
}

fn is_ascii_digit(c: u32) -> bool {
    (ch('0')..=ch('9')).contains(&c)
}

fn parse(chars: &[u32]) -> Result<(Vec<Item>, bool, bool), Problem> {
    let mut source = Source {
        chars,
        index: 0,
        next: None,
        groups: 1,
        names: HashMap::new(),
        open: Vec::new(),
        re2: true,
        ignore_case: false,
    };
    source.advance()?;
    let tree = parse_sub(&mut source, 0)?;
    if source.next.is_some() {
        return Err(source.error("unbalanced parenthesis", 0));
    }
    if source.ignore_case && !source.re2 {
        return Err(Problem::Unsupported); // (Python's case-insensitive matching: not ported)
    }
    Ok((tree, source.re2, source.ignore_case))
}

fn parse_sub(source: &mut Source<'_>, nested: usize) -> Result<Vec<Item>, Problem> {
    let mut items = vec![parse_seq(source, nested + 1, nested == 0)?];
    while source.matches('|')? {
        items.push(parse_seq(source, nested + 1, false)?);
    }
    if items.len() == 1 {
        return Ok(items.pop().unwrap_or_default());
    }
    let mut out = Vec::new();
    // a prefix all the alternatives share, moved out
    while let Some(prefix) = items[0].first().cloned() {
        if !items.iter().all(|item| item.first() == Some(&prefix)) {
            break;
        }
        for item in &mut items {
            item.remove(0);
        }
        out.push(prefix);
    }
    // alternatives of one character each: a set
    let mut set = Vec::new();
    let single = items.iter().all(|item| match item.as_slice() {
        [Item::Literal(c)] => {
            set.push(SetItem::Literal(*c));
            true
        }
        [Item::In {
            negate: false,
            items,
        }] => {
            set.extend(items.iter().cloned());
            true
        }
        _ => false,
    });
    if single {
        out.push(Item::In {
            negate: false,
            items: uniq(set),
        });
    } else {
        out.push(Item::Branch(items));
    }
    Ok(out)
}

/// A group's name up to `terminator` (`getuntil`), checked as Python checks it.
fn group_name(source: &mut Source<'_>, terminator: char) -> Result<Vec<u32>, Problem> {
    let mut found = Vec::new();
    loop {
        match source.get()? {
            None if found.is_empty() => return Err(source.error("missing group name", 0)),
            None => {
                let message = format!("missing {terminator}, unterminated name");
                return Err(source.error(&message, found.len()));
            }
            Some(t) if t == [ch(terminator)] => break,
            Some(t) => found.extend(t),
        }
    }
    if found.is_empty() {
        return Err(source.error("missing group name", 1));
    }
    if !found.iter().all(|&c| c < 0x80) {
        return Err(Problem::Unsupported); // (str.isidentifier of non-ASCII: not ported)
    }
    let identifier = found
        .iter()
        .all(|&c| char::from_u32(c).is_some_and(|c| c.is_ascii_alphanumeric() || c == '_'))
        && !is_ascii_digit(found[0]);
    if !identifier {
        let message = format!(
            "bad character in group name {}",
            crate::json::repr_str(&found, |_| true)
        );
        return Err(source.error(&message, found.len() + 1));
    }
    Ok(found)
}

fn uniq(items: Vec<SetItem>) -> Vec<SetItem> {
    let mut out: Vec<SetItem> = Vec::with_capacity(items.len());
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

fn parse_seq(source: &mut Source<'_>, nested: usize, first: bool) -> Result<Vec<Item>, Problem> {
    let mut seq: Vec<Item> = Vec::new();
    while let Some(this) = source.next.clone() {
        if this == [ch('|')] || this == [ch(')')] {
            break;
        }
        source.get()?;
        if this[0] == ch('\\') {
            seq.push(escape(source, &this)?);
            continue;
        }
        let c = this[0];
        let special = char::from_u32(c).is_some_and(|c| SPECIAL.contains(c));
        if !special {
            seq.push(Item::Literal(c));
        } else if c == ch('[') {
            seq.push(parse_set(source)?);
        } else if "*+?{".contains(char::from_u32(c).unwrap_or(' ')) {
            let here = source.tell();
            let mut brace = None;
            let (low, high) = match char::from_u32(c) {
                Some('?') => (0, 1),
                Some('*') => (0, MAXREPEAT),
                Some('+') => (1, MAXREPEAT),
                _ => {
                    if source.is_next('}') {
                        seq.push(Item::Literal(c));
                        continue;
                    }
                    let lo = source.get_while(usize::MAX, is_ascii_digit)?;
                    let hi = if source.matches(',')? {
                        source.get_while(usize::MAX, is_ascii_digit)?
                    } else {
                        lo.clone()
                    };
                    if !source.matches('}')? {
                        seq.push(Item::Literal(c));
                        source.seek(here)?;
                        continue;
                    }
                    let number = |digits: &[u32]| -> Result<u64, Problem> {
                        let text = text_of(digits);
                        match text.parse::<u64>() {
                            Ok(n) if n < MAXREPEAT => Ok(n),
                            _ => Err(Problem::Error("the repetition number is too large".into())),
                        }
                    };
                    if lo.is_empty() && !hi.is_empty() {
                        // (RE2 reads `{,n}` as text: kept for the RE2 road)
                        brace = Some(source.chars[here - 1..source.tell()].to_vec());
                    }
                    let low = if lo.is_empty() { 0 } else { number(&lo)? };
                    let high = if hi.is_empty() {
                        MAXREPEAT
                    } else {
                        number(&hi)?
                    };
                    if high < low {
                        return Err(source
                            .error("min repeat greater than max repeat", source.tell() - here));
                    }
                    if low > 1000 || (high != MAXREPEAT && high > 1000) {
                        source.re2 = false; // (RE2's most)
                    }
                    (low, high)
                }
            };
            let offset = source.tell() - here + 1;
            let item = match seq.last() {
                None | Some(Item::At(_)) => return Err(source.error("nothing to repeat", offset)),
                Some(Item::Repeat { .. }) => return Err(source.error("multiple repeat", offset)),
                Some(_) => seq.pop().unwrap_or(Item::Any),
            };
            if source.is_next('+') {
                return Err(Problem::Unsupported); // (a possessive repeat)
            }
            source.matches('?')?; // (lazy or greedy: the same answer to "is there a match")
            let body = vec![item];
            seq.push(Item::Repeat {
                low,
                high,
                body,
                brace,
            });
        } else if c == ch('.') {
            seq.push(Item::Any);
        } else if c == ch('(') {
            let start = source.tell() - 1;
            let mut capture = true;
            let mut name = None;
            if source.matches('?')? {
                let Some(kind) = source.get()? else {
                    return Err(source.error("unexpected end of pattern", 0));
                };
                let kind = text_of(&kind);
                if kind == "P" && source.matches('<')? {
                    name = Some(group_name(source, '>')?);
                } else if kind == "P" && source.matches('=')? {
                    let found = group_name(source, ')')?;
                    let Some(&group) = source.names.get(&found) else {
                        let message = format!(
                            "unknown group name {}",
                            crate::json::repr_str(&found, |_| true)
                        );
                        return Err(source.error(&message, found.len() + 1));
                    };
                    if source.open.contains(&group) {
                        return Err(source.error("cannot refer to an open group", found.len() + 1));
                    }
                    seq.push(Item::GroupRef);
                    continue;
                } else if kind == "P" {
                    let Some(next) = source.get()? else {
                        return Err(source.error("unexpected end of pattern", 0));
                    };
                    let message = format!("unknown extension ?P{}", text_of(&next));
                    return Err(source.error(&message, next.len() + 2));
                } else if kind == ":" {
                    capture = false;
                } else if kind == "#" {
                    source.re2 = false; // (RE2 has no comments)
                    loop {
                        if source.next.is_none() {
                            return Err(source
                                .error("missing ), unterminated comment", source.tell() - start));
                        }
                        if source.get()? == Some(vec![ch(')')]) {
                            break;
                        }
                    }
                    continue;
                } else if kind == "<" && !source.is_next('=') && !source.is_next('!') {
                    let Some(next) = source.get()? else {
                        return Err(source.error("unexpected end of pattern", 0));
                    };
                    let message = format!("unknown extension ?<{}", text_of(&next));
                    return Err(source.error(&message, next.len() + 2));
                } else if "aiLmsux".contains(kind.as_str()) {
                    let mut flags = kind.clone();
                    while let Some(next) = source.next.clone() {
                        match char::from_u32(next[0]) {
                            Some(f) if next.len() == 1 && "aiLmsux".contains(f) => {
                                flags.push(f);
                                source.advance()?;
                            }
                            _ => break,
                        }
                    }
                    if !source.matches(')')? {
                        return Err(Problem::Unsupported); // (flags for a group, or removed)
                    }
                    if !first || !seq.is_empty() {
                        let message = "global flags not at the start of the expression";
                        return Err(source.error(message, source.tell() - start));
                    }
                    if flags.chars().any(|f| f != 'i') {
                        return Err(Problem::Unsupported);
                    }
                    // (the one global flag read here: RE2 reads it too)
                    source.ignore_case = true;
                    continue;
                } else if "=!<(>-".contains(kind.as_str()) {
                    return Err(Problem::Unsupported); // (lookarounds, conditionals, atomic groups, flags)
                } else {
                    let message = format!("unknown extension ?{kind}");
                    return Err(source.error(&message, kind.chars().count() + 1));
                }
            }
            let group = if capture {
                let group = source.groups;
                source.groups += 1;
                if let Some(name) = &name {
                    if let Some(&was) = source.names.get(name) {
                        let message = format!(
                            "redefinition of group name {} as group {group}; was group {was}",
                            crate::json::repr_str(name, |_| true)
                        );
                        return Err(source.error(&message, name.len() + 1));
                    }
                    source.names.insert(name.clone(), group);
                }
                source.open.push(group);
                Some(group)
            } else {
                None
            };
            let body = parse_sub(source, nested + 1)?;
            if !source.matches(')')? {
                return Err(
                    source.error("missing ), unterminated subpattern", source.tell() - start)
                );
            }
            match group {
                Some(group) => {
                    source.open.retain(|&g| g != group);
                    seq.push(Item::Subpattern(group, body));
                }
                None => seq.push(Item::Subpattern(0, body)),
            }
        } else if c == ch('^') {
            seq.push(Item::At(At::Beginning));
        } else if c == ch('$') {
            seq.push(Item::At(At::End));
        } else {
            return Err(Problem::Unsupported);
        }
    }
    // non-capturing groups opened into the sequence
    let mut out = Vec::with_capacity(seq.len());
    for item in seq {
        match item {
            Item::Subpattern(0, body) => out.extend(body),
            other => out.push(other),
        }
    }
    Ok(out)
}

fn category(escape: u32) -> Option<Category> {
    Some(match char::from_u32(escape)? {
        'd' => Category::Digit,
        'D' => Category::NotDigit,
        's' => Category::Space,
        'S' => Category::NotSpace,
        'w' => Category::Word,
        'W' => Category::NotWord,
        _ => return None,
    })
}

fn simple_escape(escape: u32) -> Option<u32> {
    Some(match char::from_u32(escape)? {
        'a' => 7,
        'f' => 0x0C,
        'n' => 0x0A,
        'r' => 0x0D,
        't' => 0x09,
        'v' => 0x0B,
        '\\' => 0x5C,
        _ => return None,
    })
}

/// `\x..`, `\u....`, `\U........`: Some(the code point) or None (not such an escape).
fn hex_escape(source: &mut Source<'_>, this: &[u32]) -> Result<Option<u32>, Problem> {
    let digits = match char::from_u32(this[1]) {
        Some('x') => 2,
        Some('u') => 4,
        Some('U') => 8,
        _ => return Ok(None),
    };
    if digits > 2 {
        source.re2 = false;
    }
    let found = source.get_while(digits, is_hex)?;
    let mut escape = this.to_vec();
    escape.extend_from_slice(&found);
    if found.len() != digits {
        let message = format!("incomplete escape {}", text_of(&escape));
        return Err(source.error(&message, escape.len()));
    }
    let value = u32::from_str_radix(&text_of(&found), 16).unwrap_or(u32::MAX);
    if value > 0x10FFFF {
        let message = format!("bad escape {}", text_of(&escape));
        return Err(source.error(&message, escape.len()));
    }
    Ok(Some(value))
}

/// `_escape`: an escape outside a set.
fn escape(source: &mut Source<'_>, this: &[u32]) -> Result<Item, Problem> {
    let c = this[1];
    match char::from_u32(c) {
        Some('A') => return Ok(Item::At(At::BeginningString)),
        Some('Z') => {
            source.re2 = false;
            return Ok(Item::At(At::EndString));
        }
        Some('b') => return Ok(Item::At(At::Boundary)),
        Some('B') => return Ok(Item::At(At::NotBoundary)),
        Some('N') => return Err(Problem::Unsupported),
        _ => {}
    }
    if let Some(category) = category(c) {
        return Ok(Item::In {
            negate: false,
            items: vec![SetItem::Category(category)],
        });
    }
    if let Some(literal) = simple_escape(c) {
        return Ok(Item::Literal(literal));
    }
    if let Some(value) = hex_escape(source, this)? {
        return literal_item(value);
    }
    if is_ascii_digit(c) {
        source.re2 = false;
    }
    if c == ch('0') {
        let more = source.get_while(2, is_oct)?;
        let value = more.iter().fold(0, |n, &d| n * 8 + (d - ch('0')));
        return Ok(Item::Literal(value));
    }
    if is_ascii_digit(c) {
        let mut escape = this.to_vec();
        if source
            .next
            .as_deref()
            .is_some_and(|n| n.len() == 1 && is_ascii_digit(n[0]))
        {
            let d = source.get()?.unwrap_or_default();
            escape.extend(d);
            if is_oct(escape[1])
                && is_oct(escape[2])
                && source
                    .next
                    .as_deref()
                    .is_some_and(|n| n.len() == 1 && is_oct(n[0]))
            {
                escape.extend(source.get()?.unwrap_or_default());
                let value = escape[1..].iter().fold(0, |n, &d| n * 8 + (d - ch('0')));
                if value > 0o377 {
                    let message = format!(
                        "octal escape value {} outside of range 0-0o377",
                        text_of(&escape)
                    );
                    return Err(source.error(&message, escape.len()));
                }
                return Ok(Item::Literal(value));
            }
        }
        let group: usize = text_of(&escape[1..]).parse().unwrap_or(usize::MAX);
        if group < source.groups {
            if source.open.contains(&group) {
                return Err(source.error("cannot refer to an open group", escape.len()));
            }
            return Ok(Item::GroupRef);
        }
        let message = format!("invalid group reference {group}");
        return Err(source.error(&message, escape.len() - 1));
    }
    if char::from_u32(c).is_some_and(|c| c.is_ascii_alphabetic()) {
        let message = format!("bad escape {}", text_of(this));
        return Err(source.error(&message, this.len()));
    }
    if c >= 0x80 {
        source.re2 = false;
    }
    literal_item(c)
}

fn literal_item(c: u32) -> Result<Item, Problem> {
    if wide::is_surrogate(c) {
        return Err(Problem::Unsupported);
    }
    Ok(Item::Literal(c))
}

/// `_class_escape`: an escape inside a set (a literal, or a category).
fn class_escape(source: &mut Source<'_>, this: &[u32]) -> Result<SetItem, Problem> {
    let c = this[1];
    if c == ch('b') {
        source.re2 = false; // (a backspace in a set: not RE2's)
        return Ok(SetItem::Literal(8));
    }
    if let Some(literal) = simple_escape(c) {
        return Ok(SetItem::Literal(literal));
    }
    if let Some(category) = category(c) {
        return Ok(SetItem::Category(category));
    }
    if c == ch('N') {
        return Err(Problem::Unsupported);
    }
    let bad = |source: &Source<'_>| {
        let message = format!("bad escape {}", text_of(this));
        source.error(&message, this.len())
    };
    if let Some(value) = hex_escape(source, this)? {
        if wide::is_surrogate(value) {
            return Err(Problem::Unsupported);
        }
        return Ok(SetItem::Literal(value));
    }
    if is_oct(c) {
        source.re2 = false;
        let more = source.get_while(2, is_oct)?;
        let mut escape = this.to_vec();
        escape.extend_from_slice(&more);
        let value = escape[1..].iter().fold(0, |n, &d| n * 8 + (d - ch('0')));
        if value > 0o377 {
            let message = format!(
                "octal escape value {} outside of range 0-0o377",
                text_of(&escape)
            );
            return Err(source.error(&message, escape.len()));
        }
        return Ok(SetItem::Literal(value));
    }
    if is_ascii_digit(c) || char::from_u32(c).is_some_and(|c| c.is_ascii_alphabetic()) {
        return Err(bad(source));
    }
    if c >= 0x80 || c == 8 {
        source.re2 = false;
    }
    Ok(SetItem::Literal(c))
}

fn parse_set(source: &mut Source<'_>) -> Result<Item, Problem> {
    let here = source.tell() - 1;
    let mut set: Vec<SetItem> = Vec::new();
    let negate = source.matches('^')?;
    let unterminated =
        |source: &Source<'_>| source.error("unterminated character set", source.tell() - here);
    loop {
        let Some(this) = source.get()? else {
            return Err(unterminated(source));
        };
        if this == [ch(']')] && !set.is_empty() {
            break;
        }
        let code1 = if this[0] == ch('\\') {
            class_escape(source, &this)?
        } else {
            if wide::is_surrogate(this[0]) {
                return Err(Problem::Unsupported);
            }
            SetItem::Literal(this[0])
        };
        if source.matches('-')? {
            let Some(that) = source.get()? else {
                return Err(unterminated(source));
            };
            if that == [ch(']')] {
                set.push(code1);
                set.push(SetItem::Literal(ch('-')));
                break;
            }
            let code2 = if that[0] == ch('\\') {
                class_escape(source, &that)?
            } else {
                SetItem::Literal(that[0])
            };
            let message = format!("bad character range {}-{}", text_of(&this), text_of(&that));
            let (SetItem::Literal(lo), SetItem::Literal(hi)) = (&code1, &code2) else {
                return Err(source.error(&message, this.len() + 1 + that.len()));
            };
            if hi < lo {
                return Err(source.error(&message, this.len() + 1 + that.len()));
            }
            if wide::is_surrogate(*hi) || (*lo < 0xD800 && *hi > 0xDFFF) {
                return Err(Problem::Unsupported); // (a range over surrogates: keys' surrogates are read as U+FDD0)
            }
            set.push(SetItem::Range(*lo, *hi));
        } else {
            set.push(code1);
        }
    }
    let set = uniq(set);
    if let [SetItem::Literal(c)] = set.as_slice() {
        return Ok(if negate {
            Item::NotLiteral(*c)
        } else {
            Item::Literal(*c)
        });
    }
    Ok(Item::In { negate, items: set })
}

// -- the static check (`_cost`) --------------------------------------------------------------

fn one_character(item: &Item) -> bool {
    matches!(
        item,
        Item::Literal(_) | Item::NotLiteral(_) | Item::Any | Item::In { .. }
    )
}

/// (unbounded repeats along the worst path, the product of the choices), or
/// None where the pattern may backtrack without bound.
fn cost(items: &[Item]) -> Option<(u64, u64)> {
    let (mut degree, mut factor) = (0u64, 1u64);
    for item in items {
        let (d, f) = match item {
            i if one_character(i) => continue,
            Item::At(_) => continue,
            Item::Subpattern(_, body) => cost(body)?,
            Item::Branch(alternatives) => {
                let costs = alternatives
                    .iter()
                    .map(|a| cost(a))
                    .collect::<Option<Vec<_>>>()?;
                let d = costs.iter().map(|c| c.0).max().unwrap_or(0);
                let f = costs
                    .iter()
                    .map(|c| c.1)
                    .fold(0u64, |a, b| a.saturating_add(b));
                (d, f)
            }
            Item::Repeat {
                low, high, body, ..
            } => {
                if !flatten(body).iter().all(|i| one_character(i)) {
                    return None; // a repeat of anything but characters
                }
                if *high == MAXREPEAT {
                    (1, 1)
                } else {
                    (0, high - low + 1)
                }
            }
            _ => return None, // (backreferences)
        };
        degree += d;
        factor = factor.saturating_mul(f).min(MAX_FACTOR + 1);
    }
    Some((degree, factor))
}

fn flatten(items: &[Item]) -> Vec<&Item> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Subpattern(_, body) => out.extend(flatten(body)),
            other => out.push(other),
        }
    }
    out
}

// -- written for the regex crate ----------------------------------------------------------------

struct Unsupported;

fn push_char(out: &mut String, c: u32) {
    out.push_str(&format!("\\x{{{c:X}}}"));
}

fn push_ranges(out: &mut String, ranges: impl Iterator<Item = (u32, u32)>) {
    for (lo, hi) in ranges {
        push_char(out, lo);
        if hi > lo {
            out.push('-');
            push_char(out, hi);
        }
    }
}

fn push_category(out: &mut String, category: &Category, re2: bool) {
    let negate = matches!(
        category,
        Category::NotDigit | Category::NotSpace | Category::NotWord
    );
    out.push('[');
    if negate {
        out.push('^');
    }
    if re2 {
        // (RE2's classes are ASCII)
        out.push_str(match category {
            Category::Digit | Category::NotDigit => "0-9",
            Category::Space | Category::NotSpace => "\\t\\n\\f\\r ",
            Category::Word | Category::NotWord => "0-9A-Za-z_",
        });
        out.push(']');
        return;
    }
    match category {
        Category::Digit | Category::NotDigit => {
            push_ranges(out, DECIMAL.iter().map(|&(lo, hi, _)| (lo, hi)))
        }
        Category::Space | Category::NotSpace => {
            let spaces = (0..0x3001u32).filter(|&c| crate::tags::is_python_space(c));
            let mut ranges: Vec<(u32, u32)> = Vec::new();
            for c in spaces {
                match ranges.last_mut() {
                    Some(last) if last.1 + 1 == c => last.1 = c,
                    _ => ranges.push((c, c)),
                }
            }
            push_ranges(out, ranges.into_iter());
        }
        Category::Word | Category::NotWord => push_ranges(out, WORD.iter().copied()),
    }
    out.push(']');
}

/// `items` written for the regex crate with Python's `re` meanings, or RE2's (`re2`).
fn write_seq(out: &mut String, items: &[Item], at_end: bool, re2: bool) -> Result<(), Unsupported> {
    for (k, item) in items.iter().enumerate() {
        let last = at_end && k + 1 == items.len();
        write_item(out, item, last, re2)?;
    }
    Ok(())
}

fn write_item(out: &mut String, item: &Item, at_end: bool, re2: bool) -> Result<(), Unsupported> {
    match item {
        Item::Literal(c) => push_char(out, *c),
        Item::NotLiteral(c) => {
            out.push_str("[^");
            push_char(out, *c);
            out.push(']');
        }
        Item::Any => out.push_str("[^\\n]"),
        Item::In { negate, items } => {
            out.push('[');
            if *negate {
                out.push('^');
            }
            for item in items {
                match item {
                    SetItem::Literal(c) => push_char(out, *c),
                    SetItem::Range(lo, hi) => push_ranges(out, std::iter::once((*lo, *hi))),
                    SetItem::Category(category) => push_category(out, category, re2),
                }
            }
            out.push(']');
        }
        Item::At(At::Beginning | At::BeginningString) => out.push_str("\\A"),
        Item::At(At::EndString) => out.push_str("\\z"),
        // (Python's `$`: the end, or before a newline that ends the text; read
        // as consuming that newline, which changes nothing where no more
        // pattern follows)
        Item::At(At::End) if re2 => out.push_str("\\z"),
        Item::At(At::End) if at_end => out.push_str("(?:\\n?\\z)"),
        Item::At(At::End) => return Err(Unsupported),
        Item::At(At::Boundary) if re2 => out.push_str("(?-u:\\b)"),
        Item::At(At::NotBoundary) if re2 => out.push_str("(?-u:\\B)"),
        Item::At(At::Boundary | At::NotBoundary) => return Err(Unsupported),
        Item::Subpattern(_, body) => {
            out.push_str("(?:");
            write_seq(out, body, at_end, re2)?;
            out.push(')');
        }
        Item::Branch(alternatives) => {
            out.push_str("(?:");
            for (k, alternative) in alternatives.iter().enumerate() {
                if k > 0 {
                    out.push('|');
                }
                write_seq(out, alternative, at_end, re2)?;
            }
            out.push(')');
        }
        Item::Repeat {
            body,
            brace: Some(text),
            ..
        } if re2 => {
            write_seq(out, body, false, re2)?;
            for &c in text {
                push_char(out, c);
            }
        }
        Item::Repeat {
            low, high, body, ..
        } => {
            out.push_str("(?:");
            write_seq(out, body, false, re2)?;
            if *high == MAXREPEAT {
                out.push_str(&format!("){{{low},}}"));
            } else {
                out.push_str(&format!("){{{low},{high}}}"));
            }
        }
        Item::GroupRef => return Err(Unsupported),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(pattern: &str) -> String {
        match &*compile_pattern(pattern.as_bytes()) {
            Compiled::Refused(why) => why.clone(),
            Compiled::Matcher(_, limit) => format!("limit {limit}"),
        }
    }

    #[test]
    fn python_errors_and_limits() {
        assert_eq!(
            refused("("),
            "not a valid regular expression (missing ), unterminated subpattern at position 0)"
        );
        assert_eq!(
            refused("a**"),
            "not a valid regular expression (multiple repeat at position 2)"
        );
        assert_eq!(
            refused("[z-a]"),
            "not a valid regular expression (bad character range z-a at position 1)"
        );
        assert_eq!(refused("a\nb("), "not a valid regular expression (missing ), unterminated subpattern at position 3 (line 2, column 2))");
        assert_eq!(refused("^(a+)+$"), "limit 4096");
        assert_eq!(refused("(a)\\1"), UNBOUNDED);
        assert_eq!(refused("^\\u0061(a+)+$"), UNBOUNDED);
        assert_eq!(refused("^\\u006e_[a-z]+$"), "limit 128");
        assert_eq!(refused("^\\u006e_"), "limit 4096");
        assert_eq!(refused("^\\u0061{0,99}b?$"), "limit 81");
        assert_eq!(refused("\\u0061(ab|ac)*"), "limit 128");
        assert_eq!(refused("(?=a)"), UNSUPPORTED);
    }

    #[test]
    fn the_meanings_python_gives_them() {
        let matches = |pattern: &str, key: &str| match &*compile_pattern(pattern.as_bytes()) {
            Compiled::Matcher(m, _) => m.is_match(key),
            Compiled::Refused(why) => panic!("{pattern}: {why}"),
        };
        // (what RE2 reads, as RE2 does: ASCII classes, `$` the very end)
        assert!(!matches("^a$", "a\n"));
        assert!(!matches("^\\d+$", "\u{661}2"));
        assert!(!matches("^\\w+$", "a_\u{e9}"));
        assert!(matches("\\bx", "x"));
        // (what only Python's re reads, as it does: Unicode classes, `$` before a final newline)
        assert!(matches("\\u0061$", "a\n"));
        assert!(!matches("\\u0061$", "a\n\n"));
        assert!(matches("^\\u0061\\d+$", "a\u{661}2"));
        assert!(!matches("^\\u0061\\s$", "a\u{200B}"));
        assert!(matches("^\\u0061\\s$", "a\u{1C}"));
        assert!(matches("^\\u0061\\w+$", "a_\u{e9}\u{b2}"));
        assert!(matches("a|b{", "b{"));
        assert!(matches("^(?:ab|ac)$", "ac"));
        assert!(matches("a{1001}", &"a".repeat(1001)));
    }
}
