//! The one lexer (`toolparse.engine.lexicon`): the terminals of a region,
//! found in one pass, held back only while partial.
//!
//! A [`Lexicon`] is built once per region of a grammar from its literal
//! markers and its tag terms. Literals are found by a trie (longest match,
//! [`crate::markers`]); tags by their generic shape ([`crate::tags`]), then
//! accepted or not by comparing the tag's name with what the parser knows at
//! that moment ([`TagContext`]). Nothing is built per name, so the cost of
//! finding a terminal depends neither on how many tools are declared nor on
//! how many distinct parameter names the model writes.
//!
//! Every question is about `text[start..]` and costs time proportional to the
//! text looked at. Texts are code points as CPython stores them (one, two or
//! four bytes each, see `with_units!`): an index is a Python `str` index.
//! Positions past the end of the text are read as its end, as `re` reads them.

use std::cmp::Ordering;

use crate::markers::Trie;
use crate::tags::{self, Tag};

/// A code unit of a text: a code point, stored in one, two or four bytes.
pub trait Unit: Copy + Into<u32> {
    /// `units` as a [`Name`].
    fn name(units: &[Self]) -> Name<'_>;
}

impl Unit for u8 {
    fn name(units: &[u8]) -> Name<'_> {
        Name::U8(units)
    }
}

impl Unit for u16 {
    fn name(units: &[u16]) -> Name<'_> {
        Name::U16(units)
    }
}

impl Unit for u32 {
    fn name(units: &[u32]) -> Name<'_> {
        Name::U32(units)
    }
}

/// A name the parser holds (a key, a tool's name): code points, stored as
/// the text that holds them stores them.
#[derive(Clone, Copy, Debug)]
pub enum Name<'a> {
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
}

/// `$body` with `$s` bound to the slice `$name` holds, whatever its width.
macro_rules! with_name {
    ($name:expr, $s:ident => $body:expr) => {
        match $name {
            Name::U8($s) => $body,
            Name::U16($s) => $body,
            Name::U32($s) => $body,
        }
    };
}

fn compare<A: Copy + Into<u32>, B: Copy + Into<u32>>(a: &[A], b: &[B]) -> Ordering {
    a.iter().map(|&c| c.into()).cmp(b.iter().map(|&c| c.into()))
}

/// `units`' code points.
fn points<T: Copy + Into<u32>>(units: &[T]) -> Vec<u32> {
    units.iter().map(|&c| c.into()).collect()
}

fn begins<A: Copy + Into<u32>, B: Copy + Into<u32>>(a: &[A], prefix: &[B]) -> bool {
    a.len() >= prefix.len() && compare(&a[..prefix.len()], prefix) == Ordering::Equal
}

impl Name<'_> {
    /// How many code points.
    pub fn len(self) -> usize {
        with_name!(self, s => s.len())
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Compared with `text` code point by code point, as Python compares `str`s.
    pub fn compare<T: Copy + Into<u32>>(self, text: &[T]) -> Ordering {
        with_name!(self, s => compare(s, text))
    }

    /// `self == text`.
    pub fn equals<T: Copy + Into<u32>>(self, text: &[T]) -> bool {
        self.len() == text.len() && self.compare(text) == Ordering::Equal
    }

    /// `self.startswith(prefix)`.
    pub fn begins_with<T: Copy + Into<u32>>(self, prefix: &[T]) -> bool {
        with_name!(self, s => begins(s, prefix))
    }

    /// The code points.
    pub fn code_points(self) -> Vec<u32> {
        with_name!(self, s => points(s))
    }
}

/// Names the parser holds, sorted (the declared tools, a schema's properties).
pub trait Names {
    /// How many.
    fn count(&self) -> usize;
    /// The `i`th (`i < count()`).
    fn get(&self, i: usize) -> Name<'_>;
}

impl Names for Vec<Vec<u32>> {
    fn count(&self) -> usize {
        self.len()
    }
    fn get(&self, i: usize) -> Name<'_> {
        Name::U32(&self[i])
    }
}

/// What a tag term is compared with while parsing (`lexicon.TagContext`).
pub trait TagContext {
    /// The member being read.
    fn key(&self) -> Option<Name<'_>>;
    /// The call being read.
    fn call_name(&self) -> Option<Name<'_>>;
    /// The declared tools' names, sorted (None: no tools declared).
    fn tool_names(&self) -> Option<&dyn Names>;
    /// The called tool's schema properties, sorted (None: any name).
    fn property_names(&self) -> Option<&dyn Names>;
    /// A member of this name was already given in the call being read (asked
    /// only where the tool's schema is known: without one, a repeated name
    /// may be an array's).
    fn given(&self, name: Name<'_>) -> bool;
}

/// A tag term (`declare.py`): a family of tags matched by their shape and
/// accepted by what the parser knows at that moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TagTerm {
    /// `</key>`: closes the member being read.
    KeyClose,
    /// `</call>`: closes the call being read.
    CallClose,
    /// `<key>`: the member being read, opened inside itself.
    KeyOpen,
    /// `<tool>`: opens a call of a declared tool.
    Tool,
    /// `<tool/>`: a call of a declared tool with no arguments.
    ToolEmpty,
    /// `<property>`: a property of the called tool's schema (any without one).
    Property,
    /// `<any>`.
    AnyOpen,
    /// `</any>`.
    AnyClose,
    /// `<any/>`.
    AnyEmpty,
    /// `property>`, the rest of `<parameter=name>` (asked only `match_at` and `prefix_at`).
    PropertyName,
}

/// The tag terms with a shape, in the order they are tried (`_SHAPES`).
pub const SHAPED: [TagTerm; 9] = [
    TagTerm::KeyClose,
    TagTerm::CallClose,
    TagTerm::KeyOpen,
    TagTerm::Tool,
    TagTerm::ToolEmpty,
    TagTerm::Property,
    TagTerm::AnyOpen,
    TagTerm::AnyClose,
    TagTerm::AnyEmpty,
];

impl TagTerm {
    /// (closing, self-closing), for the terms with a shape.
    pub fn shape(self) -> Option<(bool, bool)> {
        use TagTerm::*;
        match self {
            KeyClose | CallClose | AnyClose => Some((true, false)),
            KeyOpen | Tool | Property | AnyOpen => Some((false, false)),
            ToolEmpty | AnyEmpty => Some((false, true)),
            PropertyName => None,
        }
    }

    fn any(self) -> bool {
        matches!(
            self,
            TagTerm::AnyOpen | TagTerm::AnyClose | TagTerm::AnyEmpty
        )
    }
}

/// A terminal as declared: a literal (code points) or a tag term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Terminal {
    Literal(Vec<u32>),
    Tag(TagTerm),
}

impl Terminal {
    /// A literal from a Rust string.
    pub fn literal(s: &str) -> Terminal {
        Terminal::Literal(s.chars().map(u32::from).collect())
    }
}

/// Why a set of terminals makes no lexicon (the Python constructor's errors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LexiconError {
    /// An empty literal where its first character is asked (Python: an IndexError).
    Empty,
    /// The literal `a` inside `b` would be found before `b` is complete (indices
    /// into [`Lexicon::literals`]).
    Inside { a: usize, b: usize },
}

/// What a found terminal is: a literal (its index in [`Lexicon::literals`]) or
/// a tag term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Literal(usize),
    Tag(TagTerm),
}

/// A terminal found: `text[start..end]`, what it is, and where the tag's name
/// lies (empty for a literal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    pub start: usize,
    pub end: usize,
    pub key: Key,
    pub name: (usize, usize),
}

/// `_NEVER_IN_TAG_NAMES` (nor "/": closing tags begin with it).
const NEVER_IN_TAG_NAMES: &str = " \t\n=\"'>";

const LT: u32 = b'<' as u32;
const SLASH: u32 = b'/' as u32;

/// The index of a tag's shape in the tables by shape.
fn shape_index(closing: bool, empty: bool) -> usize {
    usize::from(closing) * 2 + usize::from(empty)
}

/// The terminals of one region.
#[derive(Clone, Debug)]
pub struct Lexicon {
    literals: Vec<Vec<u32>>,
    trie: Option<Trie>,
    /// Per literal: it is the beginning of a longer one (`_extended`).
    extended: Vec<bool>,
    tags: Vec<TagTerm>,
    by_shape: [Vec<TagTerm>; 4],
    /// The terms a tag begun so far may still become: `<name` may end in `/>`.
    may_grow: [Vec<TagTerm>; 4],
    name_end: bool,
    opening_tags: bool,
    firsts: Option<Vec<u32>>,
    /// What `find` stops at: a character a literal or a tag begins with.
    starts_low: [bool; 256],
    starts_high: Vec<u32>,
    empty_literal: bool,
    after_lt: (bool, Vec<u32>),
    max_len: usize,
}

impl Lexicon {
    /// The lexicon of `terminals`, checked as the Python constructor checks them.
    pub fn new(terminals: &[Terminal]) -> Result<Lexicon, LexiconError> {
        let mut literals: Vec<Vec<u32>> = terminals
            .iter()
            .filter_map(|t| match t {
                Terminal::Literal(s) => Some(s.clone()),
                Terminal::Tag(_) => None,
            })
            .collect();
        literals.sort();
        literals.dedup();
        let has = |term: TagTerm| terminals.contains(&Terminal::Tag(term));
        let name_end = has(TagTerm::PropertyName);
        let tags: Vec<TagTerm> = SHAPED.into_iter().filter(|&t| has(t)).collect();
        let firsts = if name_end {
            None
        } else {
            let mut firsts = Vec::with_capacity(literals.len() + 1);
            for literal in &literals {
                firsts.push(*literal.first().ok_or(LexiconError::Empty)?);
            }
            if !tags.is_empty() {
                firsts.push(LT);
            }
            firsts.sort_unstable();
            firsts.dedup();
            Some(firsts)
        };
        let by_shape: [Vec<TagTerm>; 4] = std::array::from_fn(|k| {
            let shape = (k / 2 == 1, k % 2 == 1);
            tags.iter()
                .copied()
                .filter(|t| t.shape() == Some(shape))
                .collect()
        });
        let may_grow: [Vec<TagTerm>; 4] = std::array::from_fn(|k| {
            let mut terms = by_shape[k].clone();
            if k % 2 == 0 {
                terms.extend(&by_shape[k + 1]);
            }
            terms
        });
        let extended = literals
            .iter()
            .map(|a| literals.iter().any(|b| b != a && b.starts_with(a)))
            .collect();
        // (a set where that would be wrong is a declaration's mistake)
        for (ia, a) in literals.iter().enumerate() {
            for (ib, b) in literals.iter().enumerate() {
                if let Some(at) = find_from(b, a, 1) {
                    let cut = &b[..at + a.len()];
                    if a != b
                        && at > 0
                        && cut.len() < b.len()
                        && !literals.iter().any(|c| cut.starts_with(c))
                    {
                        return Err(LexiconError::Inside { a: ia, b: ib });
                    }
                }
            }
        }
        let opening_tags = tags.iter().any(|t| t.shape().is_some_and(|(c, _)| !c));
        // after_lt: which characters, right after a "<", may begin one of these
        // terminals: (true, chars): only those; (false, chars): any but those.
        let lt_literal = literals.iter().any(|l| l.as_slice() == [LT]);
        let mut seconds: Vec<u32> = literals
            .iter()
            .filter(|l| l.len() > 1 && l[0] == LT)
            .map(|l| l[1])
            .collect();
        let after_lt = if opening_tags || lt_literal {
            // an opening tag may begin with any name character (and "<" alone: with anything)
            let never = if lt_literal {
                Vec::new()
            } else {
                NEVER_IN_TAG_NAMES
                    .chars()
                    .map(u32::from)
                    .filter(|c| !seconds.contains(c))
                    .collect()
            };
            (false, never)
        } else {
            if !tags.is_empty() {
                seconds.push(SLASH);
            }
            (true, seconds)
        };
        let after_lt = (after_lt.0, sorted(after_lt.1));
        let tagged = !tags.is_empty() || name_end;
        let max_len = literals
            .iter()
            .map(Vec::len)
            .chain(tagged.then_some(tags::TAG_LONGEST))
            .max()
            .unwrap_or(0);
        let mut starts_low = [false; 256];
        let mut starts_high = Vec::new();
        let begins = literals.iter().filter_map(|l| l.first().copied());
        for c in begins.chain((!tags.is_empty()).then_some(LT)) {
            match usize::try_from(c) {
                Ok(low) if low < 256 => starts_low[low] = true,
                _ => starts_high.push(c),
            }
        }
        let empty_literal = literals.first().is_some_and(Vec::is_empty);
        let trie = (!literals.is_empty()).then(|| Trie::new(&literals));
        Ok(Lexicon {
            literals,
            trie,
            extended,
            tags,
            by_shape,
            may_grow,
            name_end,
            opening_tags,
            firsts,
            starts_low,
            starts_high: sorted(starts_high),
            empty_literal,
            after_lt,
            max_len,
        })
    }

    /// The literal terminals, sorted by code point (a [`Key::Literal`] indexes them).
    pub fn literals(&self) -> &[Vec<u32>] {
        &self.literals
    }

    /// The index of the literal `text` is, if it is one.
    pub fn literal_index<T: Copy + Into<u32>>(&self, text: &[T]) -> Option<usize> {
        self.literals.binary_search_by(|l| compare(l, text)).ok()
    }

    /// The index of the literal `name` is, if it is one.
    pub fn literal_index_of(&self, name: Name<'_>) -> Option<usize> {
        with_name!(name, s => self.literal_index(s))
    }

    /// The literal of index `k` is the beginning of a longer one: only such a
    /// literal is ever [`Lexicon::undecided`].
    pub fn extended(&self, k: usize) -> bool {
        self.extended.get(k).copied().unwrap_or(false)
    }

    /// The tag terms (`PropertyName` left out), in the order they are tried.
    pub fn tags(&self) -> &[TagTerm] {
        &self.tags
    }

    /// Every character a terminal may begin with, sorted (None: any, as a
    /// property name may).
    pub fn firsts(&self) -> Option<&[u32]> {
        self.firsts.as_deref()
    }

    /// Which characters, right after a `<`, may begin one of these terminals:
    /// (true, chars): only those; (false, chars): any but those. (A `<`
    /// followed by no such character is plain text: `x < 4`, `a <b`.)
    pub fn after_lt(&self) -> (bool, &[u32]) {
        (self.after_lt.0, &self.after_lt.1)
    }

    /// The longest a terminal may be.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// Literals only: `find` and `partial_start` are then the searches of
    /// `literal_patterns` (`_search`, and `_partial` from the window's start).
    pub fn literals_only(&self) -> bool {
        !self.literals.is_empty() && self.tags.is_empty()
    }

    fn may_begin(&self, c: u32) -> bool {
        match usize::try_from(c) {
            Ok(low) if low < 256 => self.starts_low[low],
            _ => self.starts_high.binary_search(&c).is_ok(),
        }
    }

    /// The first terminal at or after `start` (and ending by `end`).
    pub fn find<T: Unit, C: TagContext + ?Sized>(
        &self,
        text: &[T],
        start: usize,
        ctx: &C,
        end: Option<usize>,
    ) -> Option<Hit> {
        if self.trie.is_none() && self.tags.is_empty() {
            return None;
        }
        let n = text.len();
        let stop = end.map_or(n, |e| e.min(n));
        let mut p = start.min(n);
        if p > stop {
            return None;
        }
        let text = &text[..stop];
        loop {
            if !self.empty_literal {
                while p < stop && !self.may_begin(text[p].into()) {
                    p += 1;
                }
            }
            if let Some(trie) = &self.trie {
                if let Some((k, e)) = trie.longest_at(text, p) {
                    return Some(literal_hit(p, e, k));
                }
            }
            if p >= stop {
                return None;
            }
            if !self.tags.is_empty() && text[p].into() == LT {
                // (a tag rejected here is looked past: the next '<' is after its
                // beginning, and each look ends at the next '<', so the tags
                // looked at never overlap)
                if let Some(tag) = tags::tag_at(text, p) {
                    if let Some(hit) = self.tag_hit(text, p, tag, ctx) {
                        return Some(hit);
                    }
                }
            }
            p += 1;
        }
    }

    /// True when the literal `found` at `start` may still be the beginning of a
    /// longer one: what follows it so far reaches the end of the text and
    /// could grow into that longer one.
    pub fn undecided<T: Copy + Into<u32>>(&self, text: &[T], start: usize, found: Key) -> bool {
        let (Key::Literal(k), Some(trie)) = (found, &self.trie) else {
            return false;
        };
        let at = start.min(text.len());
        self.extended(k) && text.len() - at < self.max_len && trie.prefix_at(text, at)
    }

    /// The terminal that begins exactly at `pos`.
    pub fn match_at<T: Unit, C: TagContext + ?Sized>(
        &self,
        text: &[T],
        pos: usize,
        ctx: &C,
    ) -> Option<Hit> {
        let at = pos.min(text.len());
        if let Some(trie) = &self.trie {
            if let Some((k, e)) = trie.longest_at(text, at) {
                return Some(literal_hit(pos, e, k));
            }
        }
        if !self.tags.is_empty() {
            if let Some(tag) = tags::tag_at(text, at) {
                return self.tag_hit(text, at, tag, ctx);
            }
        }
        if self.name_end {
            if let Some(j) = tags::name_end_at(text, at) {
                // (a member that begins: any, with no schema; else one the tool
                // has and the call has not been given)
                let name = &text[at..j];
                let fits = match ctx.property_names() {
                    None => true,
                    Some(properties) => has(properties, name, true) && !ctx.given(T::name(name)),
                };
                if fits {
                    return Some(Hit {
                        start: pos,
                        end: j + 1,
                        key: Key::Tag(TagTerm::PropertyName),
                        name: (at, j),
                    });
                }
            }
        }
        None
    }

    /// Where the longest suffix of `text[start..]` begins that could still grow
    /// into a terminal (`text.len()` when none could).
    pub fn partial_start<T: Unit, C: TagContext + ?Sized>(
        &self,
        text: &[T],
        start: usize,
        ctx: &C,
    ) -> usize {
        let n = text.len();
        let mut best = n;
        let lo = start.max((n + 1).saturating_sub(self.max_len));
        if let Some(trie) = &self.trie {
            if let Some(at) = trie.prefix_from(text, lo) {
                best = at;
            }
        }
        if !self.tags.is_empty() && lo < n {
            // a tag holds no '<' after its first character: only the last '<' can begin one
            let last = text[lo..].iter().rposition(|&c| c.into() == LT);
            if let Some(at) = last.map(|k| lo + k) {
                if at < best && self.tag_may_grow(text, at, ctx) {
                    best = at;
                }
            }
        }
        best
    }

    /// True when `text[pos..]` (reaching its end) could still grow into a
    /// terminal, or into a longer one than matches there now.
    pub fn prefix_at<T: Unit, C: TagContext + ?Sized>(
        &self,
        text: &[T],
        pos: usize,
        ctx: &C,
    ) -> bool {
        let n = text.len();
        let at = pos.min(n);
        if n - at >= self.max_len {
            return false;
        }
        if self.trie.as_ref().is_some_and(|t| t.prefix_at(text, at)) {
            return true;
        }
        if self.name_end && tags::name_so_far(text, at) {
            let name = &text[at..];
            if name.is_empty() || may_become(TagTerm::Property, name, false, ctx) {
                return true;
            }
        }
        !self.tags.is_empty() && at < n && text[at].into() == LT && self.tag_may_grow(text, at, ctx)
    }

    fn tag_hit<T: Unit, C: TagContext + ?Sized>(
        &self,
        text: &[T],
        at: usize,
        tag: Tag,
        ctx: &C,
    ) -> Option<Hit> {
        let name = &text[tag.name.0..tag.name.1];
        let terms = &self.by_shape[shape_index(tag.closing, tag.empty)];
        let term = terms.iter().find(|t| t.any() || accepts(**t, name, ctx))?;
        Some(Hit {
            start: at,
            end: tag.end,
            key: Key::Tag(*term),
            name: tag.name,
        })
    }

    fn tag_may_grow<T: Unit, C: TagContext + ?Sized>(
        &self,
        text: &[T],
        at: usize,
        ctx: &C,
    ) -> bool {
        let closing = at + 1 < text.len() && text[at + 1].into() == SLASH;
        if !self.opening_tags && !closing {
            return false; // (only closing tags: the shape below has no term)
        }
        let Some(tag) = tags::tag_so_far(text, at) else {
            return false;
        };
        let name = &text[tag.name.0..tag.name.1];
        let complete = tag.empty || tag.spaced; // (a space ends the name)
        self.may_grow[shape_index(tag.closing, tag.empty)]
            .iter()
            .any(|&t| name.is_empty() || t.any() || may_become(t, name, complete, ctx))
    }
}

fn literal_hit(start: usize, end: usize, k: usize) -> Hit {
    Hit {
        start,
        end,
        key: Key::Literal(k),
        name: (end, end), // (within the text: `start` may be past its end)
    }
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v.dedup();
    v
}

/// `hay.find(needle, from)` (Python's: an empty needle is found at `from`).
fn find_from(hay: &[u32], needle: &[u32], from: usize) -> Option<usize> {
    if from > hay.len() || needle.len() > hay.len() - from {
        return None;
    }
    (from..=hay.len() - needle.len()).find(|&i| hay[i..i + needle.len()] == *needle)
}

fn accepts<T: Unit, C: TagContext + ?Sized>(term: TagTerm, name: &[T], ctx: &C) -> bool {
    use TagTerm::*;
    match term {
        AnyOpen | AnyClose | AnyEmpty => true,
        KeyClose | KeyOpen => ctx.key().is_some_and(|k| k.equals(name)),
        CallClose => ctx.call_name().is_some_and(|k| k.equals(name)),
        Property => ctx.property_names().is_none_or(|p| has(p, name, true)),
        Tool | ToolEmpty | PropertyName => ctx.tool_names().is_some_and(|t| has(t, name, true)),
    }
}

/// Could a tag name that begins with `partial` (or is exactly it, when the
/// name is `complete`) still be accepted by `term`?
fn may_become<T: Unit, C: TagContext + ?Sized>(
    term: TagTerm,
    partial: &[T],
    complete: bool,
    ctx: &C,
) -> bool {
    use TagTerm::*;
    let target = |target: Option<Name<'_>>| {
        target.is_some_and(|t| {
            if complete {
                t.equals(partial)
            } else {
                t.begins_with(partial)
            }
        })
    };
    match term {
        AnyOpen | AnyClose | AnyEmpty => true,
        KeyClose | KeyOpen => target(ctx.key()),
        CallClose => target(ctx.call_name()),
        Property => ctx
            .property_names()
            .is_none_or(|p| has(p, partial, complete)),
        Tool | ToolEmpty | PropertyName => {
            ctx.tool_names().is_some_and(|t| has(t, partial, complete))
        }
    }
}

/// `name` is one of the sorted `names` (`complete`), or begins one: a binary
/// search (`bisect_left`'s, step for step), so the cost does not grow with
/// the schema.
fn has<T: Copy + Into<u32>>(names: &dyn Names, name: &[T], complete: bool) -> bool {
    let (mut lo, mut hi) = (0, names.count());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if names.get(mid).compare(name) == Ordering::Less {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo < names.count() && {
        let found = names.get(lo);
        if complete {
            found.equals(name)
        } else {
            found.begins_with(name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(s: &str) -> Vec<u32> {
        s.chars().map(u32::from).collect()
    }

    /// A context of Rust strings.
    #[derive(Default)]
    struct Ctx {
        key: Option<Vec<u32>>,
        call_name: Option<Vec<u32>>,
        tools: Option<Vec<Vec<u32>>>,
        properties: Option<Vec<Vec<u32>>>,
        given: Vec<Vec<u32>>,
    }

    fn some(s: &str) -> Option<Vec<u32>> {
        Some(units(s))
    }

    fn list(names: &[&str]) -> Option<Vec<Vec<u32>>> {
        Some(names.iter().map(|n| units(n)).collect())
    }

    impl TagContext for Ctx {
        fn key(&self) -> Option<Name<'_>> {
            self.key.as_deref().map(Name::U32)
        }
        fn call_name(&self) -> Option<Name<'_>> {
            self.call_name.as_deref().map(Name::U32)
        }
        fn tool_names(&self) -> Option<&dyn Names> {
            self.tools.as_ref().map(|t| t as &dyn Names)
        }
        fn property_names(&self) -> Option<&dyn Names> {
            self.properties.as_ref().map(|t| t as &dyn Names)
        }
        fn given(&self, name: Name<'_>) -> bool {
            self.given.contains(&name.code_points())
        }
    }

    fn lexicon(terminals: &[Terminal]) -> Lexicon {
        Lexicon::new(terminals).expect("a lexicon")
    }

    fn lit(s: &str) -> Terminal {
        Terminal::literal(s)
    }

    use TagTerm::*;

    #[test]
    fn the_longest_literal_first_and_a_rejected_tag_is_passed() {
        let lex = lexicon(&[lit("<a"), lit("<a=\""), Terminal::Tag(CallClose)]);
        let ctx = Ctx {
            call_name: some("f"),
            ..Ctx::default()
        };
        let text = units("x </g> <a=\"y </f>");
        let hit = lex.find(&text, 0, &ctx, None).unwrap();
        assert_eq!((hit.start, hit.end, hit.key), (7, 11, Key::Literal(1)));
        let hit = lex.find(&text, 8, &ctx, None).unwrap();
        assert_eq!((hit.start, hit.end, hit.key), (13, 17, Key::Tag(CallClose)));
        assert_eq!(hit.name, (15, 16));
        // (the search ends by `end`: the longer literal does not fit)
        let hit = lex.find(&text, 0, &ctx, Some(10)).unwrap();
        assert_eq!((hit.start, hit.end, hit.key), (7, 9, Key::Literal(0)));
        assert_eq!(lex.find(&text, 8, &ctx, Some(16)), None);
        assert_eq!(lex.find(&text, 9, &ctx, Some(3)), None);
    }

    #[test]
    fn tags_by_shape_and_context() {
        let lex = lexicon(&[
            Terminal::Tag(AnyClose),
            Terminal::Tag(KeyClose),
            Terminal::Tag(Tool),
            Terminal::Tag(ToolEmpty),
            Terminal::Tag(Property),
        ]);
        let ctx = Ctx {
            key: some("k"),
            tools: list(&["a", "write"]),
            properties: list(&["path"]),
            ..Ctx::default()
        };
        let key = |s: &str| lex.match_at(&units(s), 0, &ctx).map(|h| h.key);
        assert_eq!(key("</k>"), Some(Key::Tag(KeyClose)));
        assert_eq!(key("</ j >"), Some(Key::Tag(AnyClose)));
        assert_eq!(key("<write>"), Some(Key::Tag(Tool)));
        assert_eq!(key("<write/>"), Some(Key::Tag(ToolEmpty)));
        assert_eq!(key("<path>"), Some(Key::Tag(Property)));
        assert_eq!(key("<other>"), None);
        assert_eq!(key("<other/>"), None);
        assert_eq!(key("</k/>"), None);
    }

    #[test]
    fn what_may_still_grow() {
        let lex = lexicon(&[lit("<tool_call>"), Terminal::Tag(Tool)]);
        let ctx = Ctx {
            tools: list(&["write"]),
            ..Ctx::default()
        };
        let text = units("a <to");
        assert_eq!(lex.partial_start(&text, 0, &ctx), 2); // (a literal begun)
        assert_eq!(lex.partial_start(&units("a <wr"), 0, &ctx), 2);
        assert_eq!(lex.partial_start(&units("a <wx"), 0, &ctx), 5);
        assert_eq!(lex.partial_start(&units("a <write "), 0, &ctx), 2);
        assert_eq!(lex.partial_start(&units("a <writ "), 0, &ctx), 8);
        assert!(lex.prefix_at(&units("<"), 0, &ctx));
        assert!(!lex.prefix_at(&units("<write/"), 0, &ctx)); // (no `<tool/>` term)
        let empty = lexicon(&[Terminal::Tag(Tool), Terminal::Tag(ToolEmpty)]);
        assert!(empty.prefix_at(&units("<write/"), 0, &ctx));
        assert!(!lex.prefix_at(&units("<tool_call>"), 0, &ctx));
        let closing = lexicon(&[Terminal::Tag(KeyClose)]);
        assert!(!closing.prefix_at(&units("<k"), 0, &ctx)); // (only closing tags)
    }

    #[test]
    fn a_literal_undecided_while_a_longer_one_may_follow() {
        let lex = lexicon(&[lit("<a"), lit("<a=\"")]);
        let a = Key::Literal(0);
        assert!(lex.undecided(&units("x<a="), 1, a));
        assert!(!lex.undecided(&units("x<a=y"), 1, a));
        assert!(!lex.undecided(&units("x<a=\""), 1, Key::Literal(1)));
        assert!(!lex.undecided(&units("x<a="), 1, Key::Tag(Tool)));
    }

    #[test]
    fn a_property_name_after_its_marker() {
        let lex = lexicon(&[lit("</parameter>"), Terminal::Tag(PropertyName)]);
        assert_eq!(lex.firsts(), None);
        let mut ctx = Ctx {
            properties: list(&["path", "text"]),
            given: vec![units("text")],
            ..Ctx::default()
        };
        let hit = lex.match_at(&units("=path>"), 1, &ctx).unwrap();
        assert_eq!(
            (hit.end, hit.key, hit.name),
            (6, Key::Tag(PropertyName), (1, 5))
        );
        assert_eq!(lex.match_at(&units("=text>"), 1, &ctx), None); // (given already)
        assert!(lex.prefix_at(&units("=pa"), 1, &ctx));
        assert!(!lex.prefix_at(&units("=px"), 1, &ctx));
        ctx.properties = None;
        assert!(lex.match_at(&units("=text>"), 1, &ctx).is_some());
    }

    #[test]
    fn the_tables() {
        let lex = lexicon(&[lit("<|a|>"), lit("</b>"), Terminal::Tag(KeyClose)]);
        assert_eq!(lex.after_lt(), (true, &units("/|")[..]));
        assert_eq!(lex.firsts(), Some(&units("<")[..]));
        assert_eq!(lex.max_len(), tags::TAG_LONGEST);
        assert!(!lex.literals_only());
        let open = lexicon(&[lit("<=x"), Terminal::Tag(AnyOpen)]);
        assert_eq!(open.after_lt(), (false, &units("\t\n \"'>")[..]));
        let lt = lexicon(&[lit("<"), lit("ab")]);
        assert_eq!(lt.after_lt(), (false, &[][..]));
        assert!(lt.literals_only());
        assert_eq!(lt.max_len(), 2);
    }

    #[test]
    fn the_constructors_checks() {
        assert_eq!(
            Lexicon::new(&[lit("a"), lit("xab")]).err(),
            Some(LexiconError::Inside { a: 0, b: 1 })
        );
        assert!(Lexicon::new(&[lit("a"), lit("xa")]).is_ok()); // (found when complete)
        assert!(Lexicon::new(&[lit("a"), lit("xab"), lit("xa")]).is_ok());
        assert_eq!(Lexicon::new(&[lit("")]).err(), Some(LexiconError::Empty));
        assert!(Lexicon::new(&[lit(""), Terminal::Tag(PropertyName)]).is_ok());
    }

    #[test]
    fn many_rejected_tags_are_looked_at_once() {
        // (each rejected tag ends at the next '<': the search stays linear)
        let lex = lexicon(&[Terminal::Tag(CallClose)]);
        let ctx = Ctx {
            call_name: some("f"),
            ..Ctx::default()
        };
        let mut text = "</g>".repeat(200_000);
        text.push_str("</f>");
        let text: Vec<u8> = text.into_bytes();
        let hit = lex.find(&text, 0, &ctx, None).unwrap();
        assert_eq!(hit.start, 800_000);
    }
}
