//! The visible text (`toolparse.engine.text.TextScanner`): where an opener
//! starts a block, and where one cannot.
//!
//! Markdown is content: a call written inside a fenced code block or on a
//! blockquote line is an example, not a call, so the scanner follows the
//! Markdown structure of the text (the parts of CommonMark that matter here)
//! and looks for openers only outside it. Reasoning is a region of the
//! visible text too: inside it only its closer is looked for. Only what could
//! still be an opener, or the beginning of a line whose kind is not known
//! yet, is held back. The states and their names are the reference's.

use std::sync::Arc;

use crate::lexicon::{Hit, Key, Lexicon, TagContext, Unit};
use crate::tags::is_python_space;

/// Where the scanner stands (`_LINE_START` to `_REASONING`, the same numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// At the start of a line (its kind not known yet).
    LineStart = 0,
    /// Inside an ordinary line: openers are looked for.
    Text = 1,
    /// Inside a blockquote line.
    Quote = 2,
    /// At the start of a line inside a code fence.
    CodeLineStart = 3,
    /// Inside a line of a code fence.
    Code = 4,
    /// Inside reasoning: only its closer is looked for.
    Reasoning = 5,
}

impl State {
    /// The state of the reference's number.
    pub fn from_number(k: i64) -> Option<State> {
        use State::*;
        [LineStart, Text, Quote, CodeLineStart, Code, Reasoning]
            .get(usize::try_from(k).ok()?)
            .copied()
    }
}

/// Whitespace held back before the answer begins.
pub const MAX_PRELUDE: usize = 4096;
/// A longer run of fence characters counts as this long.
pub const MAX_FENCE: usize = 64;
/// Spaces looked past after a closing fence.
pub const MAX_TRAIL: usize = 64;

/// Which lexicon a hit comes from (its literal keys index that lexicon's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Openers,
    Code,
    /// The answer's openers, by index.
    Answer(usize),
}

/// What the scanner found (`Hit.key`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// A terminal of one of the lexicons.
    Terminal(Source, Key),
    ReasoningOpen,
    ReasoningClose,
    /// The format's markup around channels.
    Markup,
    /// The answer begins (a forced answer).
    Answer,
}

/// A hit of the scanner: `text[start..end]`, what it is, and a tag's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanHit {
    pub start: usize,
    pub end: usize,
    pub found: Found,
    pub name: (usize, usize),
}

impl ScanHit {
    fn marker(start: usize, end: usize, found: Found) -> ScanHit {
        ScanHit {
            start,
            end,
            found,
            name: (end, end),
        }
    }
}

/// The invisible code points a model may write before `<think>`, besides
/// Python's spaces (`text.INVISIBLE`: Default_Ignorable_Code_Point, Cc, Cf and
/// the blank fillers). tests/test_hardening_three_auto.py checks these ranges
/// against the Python definition.
fn is_invisible(c: u32) -> bool {
    matches!(
        c,
        0x0..=0x1F
            | 0x7F..=0x9F
            | 0xAD
            | 0x34F
            | 0x600..=0x605
            | 0x61C
            | 0x6DD
            | 0x70F
            | 0x890..=0x891
            | 0x8E2
            | 0x115F..=0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180F
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x206F
            | 0x2800
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF0..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0000..=0xE0FFF
    )
}

/// `_NOT_SPACE.search(text, i)`: the first character from `i` that is neither
/// a space (Python's) nor an invisible character.
fn not_space<T: Unit>(text: &[T], i: usize) -> Option<usize> {
    (i..text.len()).find(|&k| {
        let c = text[k].into();
        !is_python_space(c) && !is_invisible(c)
    })
}

const NEWLINE: u32 = b'\n' as u32;

fn newline_from<T: Unit>(text: &[T], i: usize) -> Option<usize> {
    text[i..]
        .iter()
        .position(|&c| c.into() == NEWLINE)
        .map(|k| i + k)
}

fn run_length<T: Unit>(text: &[T], j: usize, c: u32) -> usize {
    let stop = text.len().min(j + MAX_FENCE);
    (j..stop).take_while(|&k| text[k].into() == c).count()
}

fn begins_with<T: Unit>(text: &[T], at: usize, word: &[u32]) -> bool {
    text.len() - at >= word.len()
        && text[at..at + word.len()]
            .iter()
            .zip(word)
            .all(|(&u, &w)| u.into() == w)
}

/// The lexicons a scanner looks with (what the reference's constructor chose).
#[derive(Clone, Debug)]
pub struct Lexicons {
    /// The openers looked for in the text (with the reasoning markers, for
    /// reasoning that opens anywhere).
    pub openers: Arc<Lexicon>,
    /// In Markdown code and quotes, the openers that are special tokens.
    pub code: Option<Arc<Lexicon>>,
    /// Where the answer begins, these open a block; `true`: it is `openers`
    /// itself (the reference compares them by identity).
    pub answer: Vec<(Arc<Lexicon>, bool)>,
    /// Inside reasoning: its closer.
    pub inside: Option<Arc<Lexicon>>,
}

/// Finds openers in the visible text, outside code fences and quotes, and the
/// reasoning regions.
#[derive(Clone, Debug)]
pub struct TextScanner {
    pub lexicons: Lexicons,
    pub state: State,
    pub fence: Option<u32>,
    pub fence_len: usize,
    pub r_open: Option<Vec<u32>>,
    pub r_close: Option<Vec<u32>>,
    pub markup: Vec<Vec<u32>>,
    /// A forced answer: a block begins where the answer does.
    pub answer: bool,
    /// Only whitespace and reasoning so far.
    pub prelude: bool,
    /// At the start of reasoning: an opener there is markup.
    pub absorb: bool,
    /// The last newline search: (the text's address and length, where the
    /// search began, what it found). A scan of many openers on one long line
    /// would otherwise search that line to its end once per opener (quadratic).
    /// Whoever changes the text a scanner is given between calls clears it
    /// ([`TextScanner::forget_text`]).
    pub newline: Option<(usize, usize, usize, Option<usize>)>,
    /// The Markdown state (code or quote) the last special token found in it
    /// ended (`grammar="auto"`: restored when the token was only mentioned).
    pub ended: Option<State>,
}

/// Where scanning goes on, or (`Err`) where to wait for more text.
type Next = Result<usize, usize>;

impl TextScanner {
    /// The text given from now on is not the one given so far.
    pub fn forget_text(&mut self) {
        self.newline = None;
    }

    /// The first newline at or after `i` (`text.find("\n", i)`), from the last
    /// search where it still answers.
    fn newline_from<T: Unit>(&mut self, text: &[T], i: usize) -> Option<usize> {
        let here = (text.as_ptr() as usize, text.len());
        if let Some((address, len, from, found)) = self.newline {
            if (address, len) == here && from <= i && found.is_none_or(|k| k >= i) {
                return found;
            }
        }
        let found = newline_from(text, i);
        self.newline = Some((here.0, here.1, i, found));
        found
    }

    /// `text[i..stop]` is text, and at `stop` begins the returned hit, or (with
    /// none) what must wait for more text (`scan`).
    pub fn scan<T: Unit, C: TagContext + ?Sized>(
        &mut self,
        text: &[T],
        mut i: usize,
        last: bool,
        ctx: &C,
    ) -> (usize, Option<ScanHit>) {
        let n = text.len();
        while i < n {
            let state = self.state;
            if state == State::Reasoning {
                return self.scan_reasoning(text, i, last, ctx);
            }
            if self.prelude {
                let (at, hit, wait) = self.scan_prelude(text, i, last, ctx);
                if hit.is_some() || wait {
                    return (at, hit);
                }
                i = at;
                continue;
            }
            if state == State::Text {
                let newline = self.newline_from(text, i);
                let openers = &self.lexicons.openers;
                if openers.literals_only() {
                    // (the hot path: the lexicon's own literal searches)
                    if let Some(m) = openers.find(text, i, ctx, newline.map(|k| k + 1)) {
                        if !last && openers.undecided(text, m.start, m.key) {
                            return (m.start, None);
                        }
                        return (m.start, Some(self.hit(m, Source::Openers)));
                    }
                    if let Some(k) = newline {
                        i = k + 1;
                        self.state = State::LineStart;
                        continue;
                    }
                    if last {
                        return (n, None);
                    }
                    return (openers.partial_start(text, i, ctx), None);
                }
                // (this line only: an opener ends by its newline, and a search of
                // the whole rest on every line would be quadratic)
                let hit = if openers.max_len() > 0 {
                    openers.find(text, i, ctx, newline.map(|k| k + 1))
                } else {
                    None
                };
                if let Some(hit) = hit.filter(|h| newline.is_none_or(|k| h.start < k)) {
                    if !last && openers.undecided(text, hit.start, hit.key) {
                        return (hit.start, None); // (a longer opener may still match here)
                    }
                    return (hit.start, Some(self.hit(hit, Source::Openers)));
                }
                if let Some(k) = newline {
                    i = k + 1;
                    self.state = State::LineStart;
                    continue;
                }
                if last || openers.max_len() == 0 {
                    return (n, None);
                }
                return (openers.partial_start(text, i, ctx), None);
            }
            if state == State::Quote || state == State::Code {
                let newline = self.newline_from(text, i);
                if let Some(tokens) = self.lexicons.code.as_ref().filter(|t| t.literals_only()) {
                    // (special tokens end the Markdown around them)
                    let end = newline.map_or(n, |k| k + 1);
                    if let Some(m) = tokens.find(text, i, ctx, Some(end)) {
                        if !last && tokens.undecided(text, m.start, m.key) {
                            return (m.start, None);
                        }
                        self.ended = Some(state);
                        self.state = State::Text;
                        return (m.start, Some(self.hit(m, Source::Code)));
                    }
                    if newline.is_none() && !last {
                        return (tokens.partial_start(text, i, ctx), None);
                    }
                }
                let Some(k) = newline else {
                    return (n, None);
                };
                i = k + 1;
                self.state = if state == State::Quote {
                    State::LineStart
                } else {
                    State::CodeLineStart
                };
                continue;
            }
            let mut j = i;
            while j < n && j - i < 3 && text[j].into() == u32::from(b' ') {
                j += 1;
            }
            if j == n {
                return (if last { n } else { i }, None);
            }
            let next = if state == State::LineStart {
                self.line_start(text, i, j, last, ctx)
            } else {
                self.code_line_start(text, i, j, last)
            };
            match next {
                Ok(at) => i = at,
                Err(at) => return (at, None),
            }
        }
        (n, None)
    }

    /// A reasoning marker found among the openers, named as such (`_hit`).
    fn hit(&self, hit: Hit, source: Source) -> ScanHit {
        let lexicon = match source {
            Source::Openers => Some(&*self.lexicons.openers),
            Source::Code => self.lexicons.code.as_deref(),
            Source::Answer(k) => self.lexicons.answer.get(k).map(|(l, _)| &**l),
        };
        let literal = match (hit.key, lexicon) {
            (Key::Literal(k), Some(lexicon)) => lexicon.literals().get(k),
            _ => None,
        };
        let is = |marker: &Option<Vec<u32>>| literal.is_some_and(|l| marker.as_ref() == Some(l));
        let marker = |found| ScanHit::marker(hit.start, hit.end, found);
        if is(&self.r_close) {
            return marker(Found::ReasoningClose);
        }
        if is(&self.r_open) {
            return marker(Found::ReasoningOpen);
        }
        if literal.is_some_and(|l| self.markup.contains(l)) {
            return marker(Found::Markup);
        }
        ScanHit {
            start: hit.start,
            end: hit.end,
            found: Found::Terminal(source, hit.key),
            name: hit.name,
        }
    }

    /// Before the answer: whitespace (held back) and reasoning. Returns (where,
    /// a hit there, wait there); no hit and no wait: the answer began, read on.
    fn scan_prelude<T: Unit, C: TagContext + ?Sized>(
        &mut self,
        text: &[T],
        i: usize,
        last: bool,
        ctx: &C,
    ) -> (usize, Option<ScanHit>, bool) {
        let (hit, wait) = self.opener_after_space(text, i, last);
        if hit.is_some() || wait {
            return (i, hit, wait);
        }
        if let Some(j) = not_space(text, i) {
            let anywhere = &self.lexicons.openers;
            for (k, (openers, is_anywhere)) in self.lexicons.answer.iter().enumerate() {
                if !last && openers.prefix_at(text, j, ctx) {
                    return (i, None, true);
                }
                let opener = openers.match_at(text, j, ctx);
                if let Some(opener) = opener {
                    if anywhere.max_len() > 0 && !is_anywhere {
                        // (grammar="auto": "[" opens a pythonic list where the answer
                        // begins, and "[TOOL_CALLS]" is Mistral's opener anywhere: the
                        // longer one is read)
                        if !last && anywhere.prefix_at(text, j, ctx) {
                            return (i, None, true);
                        }
                        let longer = anywhere.match_at(text, j, ctx);
                        if longer.is_some_and(|l| l.end > opener.end) {
                            break;
                        }
                    }
                    // (a forced answer then is the grammar's output)
                    self.prelude = false;
                    self.answer = false;
                    let found = Found::Terminal(Source::Answer(k), opener.key);
                    let hit = ScanHit {
                        start: opener.start,
                        end: opener.end,
                        found,
                        name: opener.name,
                    };
                    return (j, Some(hit), false);
                }
            }
        }
        self.prelude = false; // the answer begins here
        if self.answer {
            return (i, Some(ScanHit::marker(i, i, Found::Answer)), false);
        }
        (i, None, false)
    }

    /// (The reasoning opener after the whitespace at `i`, the whitespace with
    /// it; wait for more text): both empty when something else is there.
    fn opener_after_space<T: Unit>(
        &self,
        text: &[T],
        i: usize,
        last: bool,
    ) -> (Option<ScanHit>, bool) {
        let n = text.len();
        let Some(j) = not_space(text, i) else {
            // (whitespace so far: held back, within a bound)
            return (None, !last && n - i <= MAX_PRELUDE);
        };
        if let Some(opener) = self.r_open.as_deref() {
            if j - i <= MAX_PRELUDE {
                if begins_with(text, j, opener) {
                    let hit = ScanHit::marker(i, j + opener.len(), Found::ReasoningOpen);
                    return (Some(hit), false);
                }
                let rest = &text[j..];
                let begun = rest.iter().zip(opener).all(|(&u, &w)| u.into() == w);
                if !last && n - j < opener.len() && begun {
                    return (None, true);
                }
            }
        }
        (None, false)
    }

    /// Inside reasoning: up to its closer (or, at the very start of reasoning
    /// the prompt opened, an opener after whitespace: markup).
    fn scan_reasoning<T: Unit, C: TagContext + ?Sized>(
        &mut self,
        text: &[T],
        i: usize,
        last: bool,
        ctx: &C,
    ) -> (usize, Option<ScanHit>) {
        let n = text.len();
        if self.absorb {
            let (hit, wait) = self.opener_after_space(text, i, last);
            if wait {
                return (i, None);
            }
            self.absorb = false;
            if hit.is_some() {
                return (i, hit);
            }
        }
        let Some(inside) = &self.lexicons.inside else {
            return (n, None); // (unreachable: a scanner in reasoning has its lexicons)
        };
        if let Some(m) = inside.find(text, i, ctx, None) {
            let closer = match m.key {
                Key::Literal(k) => inside.literals().get(k) == self.r_close.as_ref(),
                _ => true,
            };
            // (a marker that ends reasoning before it: the reasoning closes with no
            // closer of its own, and the marker is read on as the visible text's)
            let end = if closer { m.end } else { m.start };
            return (
                m.start,
                Some(ScanHit::marker(m.start, end, Found::ReasoningClose)),
            );
        }
        if last {
            return (n, None);
        }
        (inside.partial_start(text, i, ctx), None)
    }

    /// Decide the kind of the line starting at `i` (`j` after its indent).
    fn line_start<T: Unit, C: TagContext + ?Sized>(
        &mut self,
        text: &[T],
        i: usize,
        j: usize,
        last: bool,
        ctx: &C,
    ) -> Next {
        let c = text[j].into();
        if c == u32::from(b'>') {
            self.state = State::Quote;
            return Ok(j + 1);
        }
        if c != u32::from(b'`') && c != u32::from(b'~') {
            self.state = State::Text;
            return Ok(i);
        }
        let openers = &self.lexicons.openers;
        if openers.max_len() > 0 && openers.match_at(text, j, ctx).is_some() {
            self.state = State::Text; // an opener that looks like a fence (```tool_call)
            return Ok(i);
        }
        if !last && openers.max_len() > 0 && openers.prefix_at(text, j, ctx) {
            return Err(i);
        }
        let run = run_length(text, j, c);
        if j + run == text.len() && run < MAX_FENCE && !last {
            return Err(i);
        }
        if run < 3 {
            self.state = State::Text;
            return Ok(i);
        }
        self.fence = Some(c);
        self.fence_len = run.min(MAX_FENCE);
        self.state = State::Code;
        Ok(j + run)
    }

    /// A line inside a code fence: is it the closing fence?
    fn code_line_start<T: Unit>(&mut self, text: &[T], i: usize, j: usize, last: bool) -> Next {
        let n = text.len();
        let run = match self.fence {
            Some(f) if text[j].into() == f => run_length(text, j, f),
            _ => 0,
        };
        if run >= self.fence_len || (run > 0 && j + run == n) {
            if j + run == n && run < MAX_FENCE && !last {
                return Err(i);
            }
            let after = j + run;
            let mut k = after;
            while k < n && k - after < MAX_TRAIL && matches!(text[k].into(), 0x20 | 0x09) {
                k += 1;
            }
            if k == n && !last && k - after < MAX_TRAIL {
                return Err(i);
            }
            if run >= self.fence_len && (k == n || text[k].into() == NEWLINE) {
                self.state = State::LineStart;
                return Ok(if k < n { k + 1 } else { k });
            }
        }
        self.state = State::Code;
        Ok(i)
    }

    /// At a line start, true (and the line is ordinary text from now on) when a
    /// delta beginning with `first` begins with a character no fence or quote
    /// begins with.
    pub fn starts_ordinary_line(&mut self, first: Option<u32>) -> bool {
        let Some(c) = first else {
            return false;
        };
        if self.state != State::LineStart || self.prelude || matches!(c, 0x20 | 0x60 | 0x7E | 0x3E)
        {
            return false;
        }
        self.state = State::Text;
        true
    }

    /// A block (or a rejected opener, now text) ended with a newline or not.
    /// `resume`: (`grammar="auto"`) a special token that ended the Markdown
    /// state `state` was only mentioned: the code or quote goes on.
    pub fn resume(&mut self, state: State) {
        self.state = state;
    }

    pub fn after_block(&mut self, newline: bool) {
        self.state = if newline {
            State::LineStart
        } else {
            State::Text
        };
    }

    /// The answer's first opener is read again with more text: the answer has
    /// not begun yet.
    pub fn answer_begins_again(&mut self) {
        self.prelude = true;
    }

    pub fn enter_reasoning(&mut self) {
        self.state = State::Reasoning;
        self.absorb = false;
    }

    /// The closer was read: the visible text goes on, mid-line.
    pub fn leave_reasoning(&mut self) {
        self.state = State::Text;
    }

    pub fn in_reasoning(&self) -> bool {
        self.state == State::Reasoning
    }

    /// At the start of an ordinary line, its kind not known yet.
    pub fn at_line_start(&self) -> bool {
        self.state == State::LineStart && !self.prelude
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexicon::{Name, Names, Terminal};

    struct NoContext;

    impl TagContext for NoContext {
        fn key(&self) -> Option<Name<'_>> {
            None
        }
        fn call_name(&self) -> Option<Name<'_>> {
            None
        }
        fn tool_names(&self) -> Option<&dyn Names> {
            None
        }
        fn property_names(&self) -> Option<&dyn Names> {
            None
        }
        fn given(&self, _: Name<'_>) -> bool {
            false
        }
    }

    fn units(s: &str) -> Vec<u32> {
        s.chars().map(u32::from).collect()
    }

    fn lexicon(literals: &[&str]) -> Lexicon {
        let terminals: Vec<Terminal> = literals.iter().map(|l| Terminal::literal(l)).collect();
        Lexicon::new(&terminals).expect("a lexicon")
    }

    fn scanner(reasoning: Option<(&str, &str)>) -> TextScanner {
        let mut openers = vec!["<tool_call>"];
        if let Some((open, close)) = reasoning {
            openers.extend([open, close]);
        }
        TextScanner {
            lexicons: Lexicons {
                openers: Arc::new(lexicon(&openers)),
                code: None,
                answer: Vec::new(),
                inside: reasoning.map(|(_, close)| Arc::new(lexicon(&[close]))),
            },
            state: State::LineStart,
            fence: None,
            fence_len: 0,
            r_open: reasoning.map(|(open, _)| units(open)),
            r_close: reasoning.map(|(_, close)| units(close)),
            markup: Vec::new(),
            answer: false,
            prelude: reasoning.is_some(),
            absorb: false,
            newline: None,
            ended: None,
        }
    }

    #[test]
    fn an_opener_in_text_and_none_in_code() {
        let mut s = scanner(None);
        let text = units("Hi\n```\n<tool_call>\n```\nthen <tool_call>");
        let (at, hit) = s.scan(&text, 0, false, &NoContext);
        assert_eq!(at, 28);
        let hit = hit.unwrap();
        assert_eq!((hit.start, hit.end), (28, 39));
        assert_eq!(hit.found, Found::Terminal(Source::Openers, Key::Literal(0)));
        assert_eq!(s.state, State::Text);
    }

    #[test]
    fn a_cut_opener_and_an_undecided_line_wait() {
        let mut s = scanner(None);
        assert_eq!(
            s.scan(&units("Hi <tool_c"), 0, false, &NoContext),
            (3, None)
        );
        let mut s = scanner(None);
        assert_eq!(s.scan(&units("Hi\n``"), 0, false, &NoContext), (3, None));
        assert_eq!(s.state, State::LineStart);
        assert_eq!(s.scan(&units("Hi\n``"), 3, true, &NoContext), (5, None));
    }

    #[test]
    fn a_quote_line_holds_no_opener() {
        let mut s = scanner(None);
        let (at, hit) = s.scan(&units("> <tool_call>\n"), 0, false, &NoContext);
        assert_eq!((at, hit), (14, None));
        assert_eq!(s.state, State::LineStart);
    }

    #[test]
    fn reasoning_before_the_answer() {
        let mut s = scanner(Some(("<think>", "</think>")));
        let text = units("\n <think>why</think>ok");
        let (at, hit) = s.scan(&text, 0, false, &NoContext);
        let hit = hit.unwrap();
        assert_eq!(
            (at, hit.start, hit.end, hit.found),
            (0, 0, 9, Found::ReasoningOpen)
        );
        s.enter_reasoning();
        let (at, hit) = s.scan(&text, 9, false, &NoContext);
        assert_eq!(
            (at, hit.map(|h| h.found)),
            (12, Some(Found::ReasoningClose))
        );
        s.leave_reasoning();
        assert_eq!(s.scan(&text, 20, false, &NoContext), (22, None));
        // (whitespace alone is held back while the answer has not begun)
        let mut s = scanner(Some(("<think>", "</think>")));
        assert_eq!(
            s.scan(&units(" \u{200b}\u{1c} "), 0, false, &NoContext),
            (0, None)
        );
        assert!(s.prelude);
    }
}
