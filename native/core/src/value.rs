//! Reading a parameter's value as it streams, up to the terminal that ends it
//! (`toolparse.engine.value.ValueReader`, transliterated).
//!
//! Model-written values are text: code, HTML and prose with raw `<`, `>` and
//! `&`, often markup of the very format being written. A terminal ends a value
//! only when its step's conditions hold (`confirm`: what follows it, after
//! whitespace, is one of the given terminals or the end of the stream;
//! `line_start`: it begins a line). One newline after the opening tag and one
//! before the ending terminal are dropped (unless `keep_newlines`); a
//! `<value>...</value>` wrapper is unwrapped; in XML values the predefined
//! entities and numeric references are decoded and CDATA unwrapped; markup
//! the grammar lets a value nest is counted.
//!
//! The reader never holds text: where it cannot decide yet it stops, and is
//! given the same characters again with more text. Each character is looked
//! at a bounded number of times. The Python module's docstring has the rules
//! in full; this one keeps its names and states, so that a difference found by
//! the differential test points at one function in each.
//!
//! Not here: `fast_piece`, the string lane's look at a plain delta (it is
//! `scan::value_split`), and `only_closes` (the gather lane's, with its stops).

use std::sync::Arc;

use crate::entities::{entity_at, entity_prefix};
use crate::lexicon::{Hit, Key, Lexicon, Name, Names, TagContext, Terminal, Unit};

const CDATA: &[u8] = b"<![CDATA[";
const WRAP_OPEN: &[u8] = b"<value>";
const WRAP_CLOSE: &[u8] = b"</value>";
const CDATA_END: &[u8] = b"]]>";
/// Whitespace looked past for a confirmation (`_MAX_SPACE_BEFORE_CONFIRM`).
const MAX_SPACE_BEFORE_CONFIRM: usize = 64;

/// Where the reader is (`_START`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Nothing read yet: a first newline is dropped, a `<value>` wrapper unwrapped.
    Start,
    Text,
    /// Inside CDATA (xml).
    CdataText,
    /// After `</value>`: only whitespace before the ending terminal.
    AfterWrap,
}

/// When a terminal ends a value (`value.Condition`).
#[derive(Clone, Debug)]
pub struct Condition {
    /// The terminal counts only when one of these follows it (after whitespace).
    pub confirm: Option<Lexicon>,
    /// (With `confirm`) the stream ending right after it confirms it too.
    pub end_of_stream: bool,
    /// The terminal counts only where it begins a line.
    pub line_start: bool,
}

const ALWAYS: Condition = Condition {
    confirm: None,
    end_of_stream: true,
    line_start: false,
};

/// A value region's tables: what every value read there shares.
#[derive(Clone, Debug)]
pub struct ValueTables {
    pub lexicon: Lexicon,
    /// The terminals that may end the value.
    pub steps: Vec<Terminal>,
    pub conditions: Vec<(Terminal, Condition)>,
    /// Markup the value may nest: opener -> closer.
    pub nest: Vec<(Terminal, Terminal)>,
    pub nest_at_line_start: bool,
    pub keep_newlines: bool,
    pub xml: bool,
}

/// Where a value's text goes (`emit`): a piece of the text given, or text the
/// reader made (a decoded entity, markup read as text), each after a newline
/// the reader held when `newline` is true (Python's `"\n" + piece`).
pub trait Emit<T> {
    fn text(&mut self, newline: bool, piece: &[T]);
    fn points(&mut self, newline: bool, piece: &[u32]);
}

/// The terminal `key` of `lexicon` is `term`.
fn is(term: &Terminal, lexicon: &Lexicon, key: Key) -> bool {
    match (term, key) {
        (Terminal::Tag(a), Key::Tag(b)) => *a == b,
        (Terminal::Literal(a), Key::Literal(k)) => lexicon.literals().get(k) == Some(a),
        _ => false,
    }
}

fn lookup<'a, V>(entries: &'a [(Terminal, V)], lexicon: &Lexicon, key: Key) -> Option<&'a V> {
    entries
        .iter()
        .find(|(t, _)| is(t, lexicon, key))
        .map(|(_, v)| v)
}

fn begins<T: Unit>(text: &[T], at: usize, prefix: &[u8]) -> bool {
    text.len() >= at + prefix.len()
        && text[at..at + prefix.len()]
            .iter()
            .zip(prefix)
            .all(|(&a, &b)| a.into() == u32::from(b))
}

/// `prefix.startswith(text[at:])`, the rest of the text shorter than `prefix`.
fn cut_short<T: Unit>(text: &[T], at: usize, prefix: &[u8]) -> bool {
    let rest = &text[at.min(text.len())..];
    rest.len() < prefix.len()
        && rest
            .iter()
            .zip(prefix)
            .all(|(&a, &b)| a.into() == u32::from(b))
}

fn is_strip_space(c: u32) -> bool {
    matches!(c, 0x20 | 0x09 | 0x0d | 0x0a)
}

/// `piece.strip(" \t\r\n")` is not empty.
fn has_ink<T: Unit>(piece: &[T]) -> bool {
    piece.iter().any(|&c| !is_strip_space(c.into()))
}

fn rfind<T: Unit>(text: &[T], c: u32) -> Option<usize> {
    text.iter().rposition(|&u| u.into() == c)
}

/// A terminal found last time, awaiting what follows it: its text, its key,
/// and its name's place relative to its start.
#[derive(Clone, Debug)]
struct Pending {
    text: Vec<u32>,
    key: Key,
    name: (usize, usize),
}

/// Reads one value (see the module's documentation).
#[derive(Clone, Debug)]
pub struct ValueReader {
    tables: Arc<ValueTables>,
    xml: bool,
    markup: bool,
    /// `&` needs a look too (`_SPECIAL_XML`): XML that is decoded.
    amp_special: bool,
    state: State,
    /// A newline read but not yet emitted (it may be the last).
    newline: bool,
    /// Only whitespace since the value began or the last newline.
    line_start: bool,
    /// Inside a `<value>` wrapper opened at the value's start.
    wrapped: bool,
    /// `<value>` open inside it, itself included.
    wrap_depth: usize,
    /// While a wrapper is undecided: the text emitted since it opened (held).
    held: Option<Vec<u32>>,
    /// Where its `</value>` came in `held` (None: not yet), and whether a
    /// newline was held there (dropped if the wrapper is whole).
    close_at: Option<usize>,
    close_newline: bool,
    /// The whitespace read after it.
    space: usize,
    /// The next character decides.
    deciding: bool,
    /// The one newline after the opening tag is gone.
    lead_dropped: bool,
    /// Open nested markup, by its closing terminal.
    depth: Option<Vec<(Terminal, usize)>>,
    pending: Option<Pending>,
    /// A value that is not a plain string: it never holds markup, so the
    /// structure that ends it is read with any parameter name.
    typed: bool,
}

impl ValueReader {
    pub fn new(tables: Arc<ValueTables>, markup: bool, typed: bool) -> ValueReader {
        let xml = tables.xml;
        let keep_newlines = tables.keep_newlines;
        ValueReader {
            tables,
            xml,
            markup,
            amp_special: xml && !markup,
            state: State::Start,
            newline: false,
            line_start: true,
            wrapped: false,
            wrap_depth: 0,
            held: None,
            close_at: None,
            close_newline: false,
            space: 0,
            deciding: false,
            lead_dropped: keep_newlines,
            depth: None,
            pending: None,
            typed,
        }
    }

    /// Text the string lane takes would be emitted exactly as it is (`plain`).
    pub fn plain(&self) -> bool {
        self.state == State::Text && !self.newline && !self.line_start && self.held.is_none()
    }

    /// Nothing of the value is read yet (but a dropped newline after its tag).
    pub fn fresh(&self) -> bool {
        self.state == State::Start
    }

    /// `fast_piece` may look (no wrapper is held and no terminal awaits its
    /// confirmation).
    pub fn fast_ok(&self) -> bool {
        self.held.is_none() && self.pending.is_none()
    }

    /// Markup opened inside the value (`nest`) is still open.
    pub fn nested(&self) -> bool {
        self.depth
            .as_ref()
            .is_some_and(|d| d.iter().any(|(_, n)| *n > 0))
    }

    /// Read `text[i:]`: `(position, terminal)` when a terminal ends the value at
    /// `position`; `(position, None)` when the text up to `position` is read and
    /// the rest (if any) cannot be decided before more text comes.
    pub fn read<T: Unit, C: TagContext + ?Sized, E: Emit<T> + ?Sized>(
        &mut self,
        text: &[T],
        mut i: usize,
        is_final: bool,
        ctx: &C,
        emit: &mut E,
    ) -> (usize, Option<Hit>) {
        let n = text.len();
        while i < n {
            match self.state {
                State::Start => {
                    let (next, wait) = self.start(text, i, is_final);
                    i = next;
                    if wait {
                        return (i, None);
                    }
                    continue;
                }
                State::CdataText => {
                    i = self.cdata(text, i, is_final, emit);
                    if self.state == State::CdataText {
                        return (i, None);
                    }
                    continue;
                }
                State::AfterWrap => {
                    // (after </value>: whitespace, held)
                    let found = text[i..].iter().position(|&c| !is_strip_space(c.into()));
                    let stop = found.map_or(n, |k| i + k);
                    self.space += stop - i;
                    if stop > i {
                        self.lines(&text[i..stop], emit);
                    }
                    i = stop;
                    if self.space > MAX_SPACE_BEFORE_CONFIRM {
                        self.unwrap(false, emit); // (a long run of whitespace: not a wrapper's end)
                        self.state = State::Text;
                        continue;
                    }
                    if found.is_none() {
                        return (n, None);
                    }
                    self.state = State::Text;
                    self.deciding = true; // (what comes next decides)
                    continue;
                }
                State::Text => {}
            }
            if self.deciding && text[i].into() != u32::from(b'<') {
                self.unwrap(false, emit); // text after the wrapper: it was not the whole value
            }
            let amp = self.amp_special;
            let stop = text[i..]
                .iter()
                .position(|&c| {
                    let c: u32 = c.into();
                    c == u32::from(b'<') || (amp && c == u32::from(b'&'))
                })
                .map_or(n, |k| k + i);
            if stop > i {
                self.lines(&text[i..stop], emit);
                i = stop;
                if i == n {
                    return (n, None);
                }
            }
            if text[i].into() == u32::from(b'&') {
                if let Some((length, decoded)) = entity_at(&text[i..]) {
                    let end = i + length;
                    match decoded {
                        Some(c) => self.points(&[c], emit),
                        None => self.text(&text[i..end], emit),
                    }
                    i = end;
                } else if !is_final && entity_prefix(&text[i..]) {
                    return (i, None);
                } else {
                    self.points(&[u32::from(b'&')], emit);
                    i += 1;
                }
            } else {
                let (j, hit) = self.at_markup(text, i, is_final, ctx, emit);
                if hit.is_some() || j == i {
                    return (j, hit);
                }
                if self.deciding {
                    self.unwrap(false, emit); // markup after the wrapper read as text
                }
                i = j;
            }
        }
        (n, None)
    }

    /// The stream ended inside the value: emit a newline still held (and a
    /// wrapper held: whole if it was closed, only whitespace after it).
    pub fn finish<T, E: Emit<T> + ?Sized>(&mut self, emit: &mut E) {
        if self.held.is_some() {
            let whole = self.close_at.is_some();
            if whole {
                self.newline = false;
            }
            self.unwrap(whole, emit);
        }
        if self.newline {
            emit.points(false, &[u32::from(b'\n')]);
            self.newline = false;
        }
    }

    /// Emit `piece` (after a newline when `newline`), or hold it.
    fn out_text<T: Unit, E: Emit<T> + ?Sized>(&mut self, newline: bool, piece: &[T], emit: &mut E) {
        match self.held.as_mut() {
            None => emit.text(newline, piece),
            Some(held) => {
                if newline {
                    held.push(u32::from(b'\n'));
                }
                held.extend(piece.iter().map(|&c| c.into()));
            }
        }
    }

    fn out_points<T, E: Emit<T> + ?Sized>(&mut self, newline: bool, piece: &[u32], emit: &mut E) {
        match self.held.as_mut() {
            None => emit.points(newline, piece),
            Some(held) => {
                if newline {
                    held.push(u32::from(b'\n'));
                }
                held.extend_from_slice(piece);
            }
        }
    }

    /// The wrapper is decided: emit what it held, unwrapped when it is the
    /// whole value, else with its tags as the text they then are.
    fn unwrap<T, E: Emit<T> + ?Sized>(&mut self, whole: bool, emit: &mut E) {
        let Some(held) = self.held.take() else {
            return;
        };
        self.wrapped = false;
        self.deciding = false;
        let ascii = |bytes: &[u8]| bytes.iter().map(|&b| u32::from(b)).collect::<Vec<u32>>();
        let piece: Vec<u32> = match self.close_at {
            Some(close) if whole => held[..close].to_vec(),
            None if whole => held,
            None => {
                let mut piece = ascii(WRAP_OPEN);
                piece.extend_from_slice(&held);
                piece
            }
            Some(close) => {
                let mut piece = ascii(WRAP_OPEN);
                piece.extend_from_slice(&held[..close]);
                if self.close_newline {
                    piece.push(u32::from(b'\n'));
                }
                piece.extend(ascii(WRAP_CLOSE));
                piece.extend_from_slice(&held[close..]);
                piece
            }
        };
        if !piece.is_empty() {
            emit.points(false, &piece);
        }
    }

    // -- pieces ----------------------------------------------------------------------

    /// Text without markup, newlines included, read in one piece. A newline
    /// that ends it is held: it may be the last before the ending terminal.
    fn lines<T: Unit, E: Emit<T> + ?Sized>(&mut self, run: &[T], emit: &mut E) {
        let Some(last) = rfind(run, u32::from(b'\n')) else {
            self.text(run, emit);
            return;
        };
        let newline = std::mem::replace(&mut self.newline, false);
        let held = last + 1 == run.len() && !self.tables.keep_newlines;
        let body = if held { &run[..run.len() - 1] } else { run };
        if newline || !body.is_empty() {
            self.out_text(newline, body, emit);
        }
        if held {
            self.newline = true;
            self.line_start = true;
        } else {
            // (a line starts after the last newline, and lasts while it is whitespace)
            self.line_start = !has_ink(&run[last + 1..]);
        }
    }

    fn text<T: Unit, E: Emit<T> + ?Sized>(&mut self, piece: &[T], emit: &mut E) {
        let newline = std::mem::replace(&mut self.newline, false);
        if self.line_start && has_ink(piece) {
            self.line_start = false;
        }
        self.out_text(newline, piece, emit);
    }

    fn points<T: Unit, E: Emit<T> + ?Sized>(&mut self, piece: &[u32], emit: &mut E) {
        let newline = std::mem::replace(&mut self.newline, false);
        if self.line_start && piece.iter().any(|&c| !is_strip_space(c)) {
            self.line_start = false;
        }
        self.out_points(newline, piece, emit);
    }

    fn ascii<T: Unit, E: Emit<T> + ?Sized>(&mut self, piece: &[u8], emit: &mut E) {
        let points: Vec<u32> = piece.iter().map(|&b| u32::from(b)).collect();
        self.points(&points, emit);
    }

    /// At the value's start: drop one newline, unwrap `<value>`. Returns the
    /// next position, and true to wait there for more text.
    fn start<T: Unit>(&mut self, text: &[T], i: usize, is_final: bool) -> (usize, bool) {
        if text[i].into() == u32::from(b'\n') && !self.lead_dropped {
            self.lead_dropped = true;
            return (i + 1, false);
        }
        if !self.markup {
            if begins(text, i, WRAP_OPEN) {
                self.wrapped = true;
                self.wrap_depth = 1;
                self.held = Some(Vec::new());
                self.state = State::Text;
                self.line_start = false; // (as the text it may turn out to be)
                return (i + WRAP_OPEN.len(), false);
            }
            if !is_final && cut_short(text, i, WRAP_OPEN) {
                return (i, true);
            }
        }
        self.state = State::Text;
        (i, false)
    }

    /// Inside CDATA (xml): text up to `]]>`; returns where reading stopped.
    fn cdata<T: Unit, E: Emit<T> + ?Sized>(
        &mut self,
        text: &[T],
        i: usize,
        is_final: bool,
        emit: &mut E,
    ) -> usize {
        let n = text.len();
        let found = (i..n.saturating_sub(2)).find(|&k| begins(text, k, CDATA_END));
        let Some(k) = found else {
            let ends_with =
                |suffix: &[u8]| n >= suffix.len() && begins(text, n - suffix.len(), suffix);
            let keep = if is_final {
                0
            } else if ends_with(b"]]") {
                2
            } else if ends_with(b"]") {
                1
            } else {
                0
            };
            if n - keep > i {
                self.text(&text[i..n - keep], emit);
            }
            return n - keep;
        };
        if k > i {
            self.text(&text[i..k], emit);
        }
        if self.markup {
            self.ascii(CDATA_END, emit);
        }
        self.state = State::Text;
        k + 3
    }

    /// At a `<`: `(i, terminal)` when a terminal ends the value here; `(i,
    /// None)` when it cannot be decided yet; otherwise `(j, None)` with `j > i`
    /// the position to read on from.
    fn at_markup<T: Unit, C: TagContext + ?Sized, E: Emit<T> + ?Sized>(
        &mut self,
        text: &[T],
        i: usize,
        is_final: bool,
        ctx: &C,
        emit: &mut E,
    ) -> (usize, Option<Hit>) {
        if self.xml {
            if begins(text, i, CDATA) {
                if self.markup {
                    self.ascii(CDATA, emit);
                }
                self.state = State::CdataText;
                return (i + CDATA.len(), None);
            }
            if !is_final && cut_short(text, i, CDATA) {
                return (i, None);
            }
        }
        if self.wrapped {
            if begins(text, i, WRAP_CLOSE) {
                self.wrap_depth -= 1;
                if self.wrap_depth > 0 {
                    // (closes a <value> written inside the wrapper)
                    self.ascii(WRAP_CLOSE, emit);
                    return (i + WRAP_CLOSE.len(), None);
                }
                self.close_at = self.held.as_ref().map(Vec::len);
                self.close_newline = self.newline;
                self.newline = false;
                self.line_start = false; // (as the text it may turn out to be)
                self.wrapped = false;
                self.state = State::AfterWrap;
                return (i + WRAP_CLOSE.len(), None);
            }
            if begins(text, i, WRAP_OPEN) {
                self.wrap_depth += 1;
                self.ascii(WRAP_OPEN, emit);
                return (i + WRAP_OPEN.len(), None);
            }
            if !is_final && (cut_short(text, i, WRAP_CLOSE) || cut_short(text, i, WRAP_OPEN)) {
                return (i, None);
            }
        }
        let tables = Arc::clone(&self.tables);
        let lexicon = &tables.lexicon;
        let pending = self.pending.take();
        let hit = match pending {
            Some(p)
                if text.len() >= i + p.text.len()
                    && text[i..i + p.text.len()]
                        .iter()
                        .zip(&p.text)
                        .all(|(&a, &b)| a.into() == b) =>
            {
                let name = if p.name.1 > p.name.0 {
                    (i + p.name.0, i + p.name.1)
                } else {
                    p.name
                };
                Some(Hit {
                    start: i,
                    end: i + p.text.len(),
                    key: p.key,
                    name,
                })
            }
            _ => lexicon.match_at(text, i, ctx),
        };
        let Some(hit) = hit else {
            if !is_final && lexicon.prefix_at(text, i, ctx) {
                return (i, None); // a terminal may still begin here
            }
            self.ascii(b"<", emit);
            return (i + 1, None);
        };
        if !is_final && lexicon.undecided(text, i, hit.key) {
            return (i, None); // (a longer terminal may still match here)
        }
        let key = hit.key;
        let open = |depth: &Option<Vec<(Terminal, usize)>>| -> usize {
            depth
                .as_ref()
                .and_then(|d| lookup(d, lexicon, key).copied())
                .unwrap_or(0)
        };
        let closes = open(&self.depth) > 0; // it closes markup nested in the value
        let in_steps = tables.steps.iter().any(|t| is(t, lexicon, key));
        let condition = lookup(&tables.conditions, lexicon, key).unwrap_or(&ALWAYS);
        let verdict: Option<bool> = if closes {
            // (text; but where it would close the only markup open, an example on lines
            // of its own, and the structure goes on after it, it is the value's own end)
            let total: usize = self
                .depth
                .as_ref()
                .map_or(0, |d| d.iter().map(|(_, n)| n).sum());
            let only = tables.nest_at_line_start && in_steps && total == 1;
            if only {
                self.confirmed(condition, text, hit.end, is_final, ctx)
            } else {
                Some(false)
            }
        } else if self.nested() && lookup(&tables.nest, lexicon, key).is_some() {
            Some(false) // (markup the value nests, opened inside open nested markup)
        } else if in_steps {
            self.confirmed(condition, text, hit.end, is_final, ctx)
        } else {
            Some(false)
        };
        let Some(verdict) = verdict else {
            // (the name's place from the terminal's start: the same text comes again)
            let name = (hit.name.0.saturating_sub(i), hit.name.1.saturating_sub(i));
            self.pending = Some(Pending {
                text: text[i..hit.end].iter().map(|&c| c.into()).collect(),
                key,
                name,
            });
            return (i, None);
        };
        if closes {
            if let Some(depth) = self.depth.as_mut() {
                if let Some(entry) = depth.iter_mut().find(|(t, _)| is(t, lexicon, key)) {
                    entry.1 -= 1;
                }
            }
        } else if !verdict {
            if let Some(closing) = lookup(&tables.nest, lexicon, key) {
                if self.line_start || !tables.nest_at_line_start {
                    let depth = self.depth.get_or_insert_with(Vec::new);
                    match depth.iter_mut().find(|(t, _)| t == closing) {
                        Some(entry) => entry.1 += 1,
                        None => depth.push((closing.clone(), 1)),
                    }
                }
            }
        }
        if !verdict {
            self.text(&text[i..hit.end], emit); // markup written inside the value
            return (hit.end, None);
        }
        self.newline = false; // the newline before the ending terminal is dropped
        if self.held.is_some() {
            // (after the wrapper's own </value> and whitespace: it was the whole value)
            let whole = self.deciding;
            self.unwrap(whole, emit);
        }
        (i, Some(hit))
    }

    /// Does the terminal ending at `after` end the value? None: not known yet.
    fn confirmed<T: Unit, C: TagContext + ?Sized>(
        &self,
        condition: &Condition,
        text: &[T],
        after: usize,
        is_final: bool,
        ctx: &C,
    ) -> Option<bool> {
        if condition.line_start && !self.line_start {
            return Some(false);
        }
        if condition.confirm.is_none() {
            return Some(true);
        }
        self.follows(condition, text, after, is_final, false, ctx)
    }

    /// Does one of `condition.confirm` follow `after` (past whitespace)? A
    /// terminal that confirms and has a confirmation of its own confirms only
    /// when that holds too (`nested`: that second look; it goes no deeper).
    fn follows<T: Unit, C: TagContext + ?Sized>(
        &self,
        condition: &Condition,
        text: &[T],
        after: usize,
        is_final: bool,
        nested: bool,
        ctx: &C,
    ) -> Option<bool> {
        let confirm = condition.confirm.as_ref()?;
        let n = text.len();
        let window_end = (after + MAX_SPACE_BEFORE_CONFIRM + 1).min(n);
        let found = text
            .get(after..window_end)
            .and_then(|w| w.iter().position(|&c| !is_strip_space(c.into())));
        let Some(k) = found else {
            if n.saturating_sub(after) > MAX_SPACE_BEFORE_CONFIRM {
                return Some(false); // a long run of whitespace: not the structure that ends a value
            }
            if !is_final {
                return None;
            }
            return Some(if nested {
                true
            } else {
                condition.end_of_stream
            });
        };
        let j = after + k;
        if let Some(firsts) = confirm.firsts() {
            if !firsts.contains(&text[j].into()) {
                return Some(false);
            }
        }
        let loose = Loose {
            ctx,
            on: nested || self.typed,
            any_name: self.typed,
        };
        if let Some(hit) = confirm.match_at(text, j, &loose) {
            let inner = lookup_term(&self.tables.conditions, confirm, hit.key);
            return match inner {
                Some(inner) if !nested && inner.confirm.is_some() => {
                    self.follows(inner, text, hit.end, is_final, true, ctx)
                }
                _ => Some(true),
            };
        }
        if !is_final && confirm.prefix_at(text, j, &loose) {
            return None;
        }
        Some(false)
    }
}

/// The tag context of a look past a closing tag, at the parameter that may
/// follow it (`value._Loose`; `on`: that look, else `ctx` as it is): a
/// parameter the call was given counts there too (the call then has it
/// twice, an error), and after a typed value (`any_name`) any name does.
struct Loose<'a, C: ?Sized> {
    ctx: &'a C,
    on: bool,
    any_name: bool,
}

impl<C: TagContext + ?Sized> TagContext for Loose<'_, C> {
    fn key(&self) -> Option<Name<'_>> {
        self.ctx.key()
    }

    fn call_name(&self) -> Option<Name<'_>> {
        self.ctx.call_name()
    }

    fn tool_names(&self) -> Option<&dyn Names> {
        self.ctx.tool_names()
    }

    fn property_names(&self) -> Option<&dyn Names> {
        if self.on && self.any_name {
            None
        } else {
            self.ctx.property_names()
        }
    }

    fn given(&self, name: Name<'_>) -> bool {
        !self.on && self.ctx.given(name)
    }
}

/// The condition of the terminal `key` of the lexicon `confirm` (a confirming
/// terminal's own condition, looked up by the terminal it is).
fn lookup_term<'a>(
    conditions: &'a [(Terminal, Condition)],
    confirm: &Lexicon,
    key: Key,
) -> Option<&'a Condition> {
    conditions
        .iter()
        .find(|(t, _)| is(t, confirm, key))
        .map(|(_, c)| c)
}
