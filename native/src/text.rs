//! The visible text: where an opener starts a block, and where one cannot
//! (`toolparse.engine.text.TextScanner`, transliterated).
//!
//! Markdown is content: a call inside a fenced code block or on a blockquote
//! line is an example, so the scanner follows the Markdown structure
//! (CommonMark's fences and quotes) and looks for openers only outside it,
//! except for openers that are special tokens. Reasoning is a region of the
//! text: inside it only its closer is looked for. Before the answer (the
//! *prelude*), whitespace is held and the reasoning opener or a forced
//! answer's openers are looked for. The Python module's docstring has the
//! rules; this one keeps its names and states.
//!
//! The scanner's tables (the lexicons for the tools declared, the reasoning
//! markers) are worked out by the Python `TextScanner`'s constructor, once per
//! parser, and read from it ([`crate::pytext`]).

use crate::lexicon::{Hit, Key, Lexicon, TagContext, Unit};
use crate::tables::is_python_space;

/// Where the scanner is (`_LINE_START`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// At the start of a line (its kind not known yet).
    LineStart,
    /// Inside an ordinary line: openers are looked for.
    Text,
    /// Inside a blockquote line.
    Quote,
    /// At the start of a line inside a code fence.
    CodeLineStart,
    /// Inside a line of a code fence.
    Code,
    /// Inside reasoning: only its closer is looked for.
    Reasoning,
}

impl State {
    /// The Python constant's value.
    pub fn number(self) -> u8 {
        self as u8
    }

    pub fn from_number(n: u8) -> Option<State> {
        [
            State::LineStart,
            State::Text,
            State::Quote,
            State::CodeLineStart,
            State::Code,
            State::Reasoning,
        ]
        .get(usize::from(n))
        .copied()
    }
}

/// What the scanner found: an opener of one of its lexicons, or one of the
/// text's own terms (`REASONING_OPEN`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// A terminal of a lexicon: `Openers` the text's, `Code` the special
    /// tokens', `Answer(k)` the `k`th of the answer's.
    Term(Source, Key),
    ReasoningOpen,
    ReasoningClose,
    Markup,
    Answer,
}

/// Which lexicon a terminal was found by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Openers,
    Code,
    Answer(usize),
}

/// A terminal found: `text[start..end]`, what it is, and its tag name's place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanHit {
    pub start: usize,
    pub end: usize,
    pub found: Found,
    pub name: (usize, usize),
}

const MAX_PRELUDE: usize = 4096;
const MAX_FENCE: usize = 64;
const MAX_TRAIL: usize = 64;

/// Unicode's format characters (category Cf, Unicode 14), as `_FORMAT_CHARS` lists them.
const FORMAT_CHARS: [(u32, u32); 20] = [
    (0xad, 0xad),
    (0x600, 0x605),
    (0x61c, 0x61c),
    (0x6dd, 0x6dd),
    (0x70f, 0x70f),
    (0x890, 0x891),
    (0x8e2, 0x8e2),
    (0x180e, 0x180e),
    (0x200b, 0x200f),
    (0x202a, 0x202e),
    (0x2060, 0x2064),
    (0x2066, 0x206f),
    (0xfeff, 0xfeff),
    (0xfff9, 0xfffb),
    (0x110bd, 0x110bd),
    (0x110cd, 0x110cd),
    (0x13430, 0x13438),
    (0x1bca0, 0x1bca3),
    (0x1d173, 0x1d17a),
    (0xe0001, 0xe0001),
];

/// Leading space before the answer (`_NOT_SPACE` refuses these): Python's
/// `\s` and the format characters.
pub fn is_prelude_space(c: u32) -> bool {
    is_python_space(c)
        || (0xe0020..=0xe007f).contains(&c)
        || FORMAT_CHARS.iter().any(|&(a, b)| (a..=b).contains(&c))
}

/// The scanner's tables: worked out once per parser.
#[derive(Clone, Debug)]
pub struct ScannerTables {
    /// The openers looked for in the text (with the reasoning markers, for
    /// reasoning that opens anywhere).
    pub openers: Lexicon,
    /// In Markdown code and quotes, the openers that are special tokens.
    pub code_openers: Option<Lexicon>,
    /// Where the answer begins, these open a block; with whether each is the
    /// text's own `openers` (Python's `openers is not anywhere`).
    pub answer_openers: Vec<(Lexicon, bool)>,
    pub r_open: Option<Vec<u32>>,
    pub r_close: Option<Vec<u32>>,
    pub markup: Vec<Vec<u32>>,
    /// Inside reasoning: its closer.
    pub inside: Option<Lexicon>,
}

/// Finds openers in the visible text (see the module's documentation).
#[derive(Clone, Debug)]
pub struct TextScanner {
    pub tables: ScannerTables,
    pub state: State,
    pub fence: u32,
    pub fence_len: usize,
    /// Only whitespace and reasoning so far.
    pub prelude: bool,
    /// At the start of reasoning: an opener there is markup.
    pub absorb: bool,
    /// A forced answer: a block begins where the answer does.
    pub answer: bool,
}

fn find_char<T: Unit>(text: &[T], from: usize, c: u32) -> Option<usize> {
    text.get(from..)?
        .iter()
        .position(|&u| u.into() == c)
        .map(|k| k + from)
}

fn begins_with<T: Unit>(text: &[T], at: usize, word: &[u32]) -> bool {
    text.len() >= at + word.len()
        && text[at..at + word.len()]
            .iter()
            .zip(word)
            .all(|(&a, &b)| a.into() == b)
}

fn run_length<T: Unit>(text: &[T], j: usize, c: u32) -> usize {
    let end = text.len().min(j + MAX_FENCE);
    (j..end).take_while(|&k| text[k].into() == c).count()
}

const NEWLINE: u32 = b'\n' as u32;

impl TextScanner {
    pub fn in_reasoning(&self) -> bool {
        self.state == State::Reasoning
    }

    /// Inside reasoning, the first character of the closer (what a delta must
    /// not hold to be reasoning as it stands); None: every delta needs a look.
    pub fn reasoning_stop(&self) -> Option<u32> {
        if self.state != State::Reasoning || self.absorb {
            return None;
        }
        self.tables
            .r_close
            .as_ref()
            .and_then(|c| c.first().copied())
    }

    /// The lexicon whose first characters are the text lane's stops in the
    /// current state (`text_stops`); None: every delta needs a look. (`Some(None)`:
    /// no lexicon, so no stop.)
    pub fn text_stops(&self) -> Option<Option<&Lexicon>> {
        if self.prelude {
            return None;
        }
        match self.state {
            State::Text => Some(Some(&self.tables.openers)),
            State::Quote | State::Code => Some(self.tables.code_openers.as_ref()),
            _ => None,
        }
    }

    /// With `text_stops`, the lexicon of the openers looked for there when all
    /// of them are literal (`plain_openers`).
    pub fn plain_openers(&self) -> Option<&Lexicon> {
        let lexicon = match self.state {
            State::Text => Some(&self.tables.openers),
            State::Quote | State::Code => self.tables.code_openers.as_ref(),
            _ => None,
        };
        lexicon.filter(|l| l.literals_only())
    }

    /// At the start of an ordinary line, its kind not known yet.
    pub fn at_line_start(&self) -> bool {
        self.state == State::LineStart && !self.prelude
    }

    /// At a line start, true (and the line is ordinary text from now on) when
    /// `first` (the delta's first character) begins no fence or quote.
    pub fn starts_ordinary_line(&mut self, first: Option<u32>) -> bool {
        let Some(c) = first else {
            return false;
        };
        if self.state != State::LineStart || self.prelude || matches!(c, 0x20 | 0x60 | 0x7e | 0x3e)
        {
            return false;
        }
        self.state = State::Text;
        true
    }

    /// A block (or a rejected opener, now text) ended with the character `last`.
    pub fn after_block(&mut self, last: Option<u32>) {
        self.state = if last == Some(NEWLINE) {
            State::LineStart
        } else {
            State::Text
        };
    }

    pub fn answer_begins_again(&mut self) {
        self.prelude = true;
    }

    pub fn enter_reasoning(&mut self) {
        self.state = State::Reasoning;
        self.absorb = false;
    }

    pub fn leave_reasoning(&mut self) {
        self.state = State::Text;
    }

    /// A reasoning marker found among the openers, named as such (`_hit`).
    fn named(&self, source: Source, lexicon: &Lexicon, hit: Hit) -> ScanHit {
        let found = match hit.key {
            Key::Literal(k) => {
                let literal = &lexicon.literals()[k];
                if self.tables.r_close.as_ref() == Some(literal) {
                    Found::ReasoningClose
                } else if self.tables.r_open.as_ref() == Some(literal) {
                    Found::ReasoningOpen
                } else if self.tables.markup.contains(literal) {
                    Found::Markup
                } else {
                    Found::Term(source, hit.key)
                }
            }
            Key::Tag(_) => Found::Term(source, hit.key),
        };
        let name = if matches!(found, Found::Term(..)) {
            hit.name
        } else {
            (hit.start, hit.start)
        };
        ScanHit {
            start: hit.start,
            end: hit.end,
            found,
            name,
        }
    }

    fn plain(found: Found, start: usize, end: usize) -> ScanHit {
        ScanHit {
            start,
            end,
            found,
            name: (start, start),
        }
    }

    /// Read `text[i:]`: `text[i:stop]` is text, and at `stop` begins the
    /// returned opener, or (with no opener) what must wait for more text.
    pub fn scan<T: Unit, C: TagContext + ?Sized>(
        &mut self,
        text: &[T],
        mut i: usize,
        is_final: bool,
        ctx: &C,
    ) -> (usize, Option<ScanHit>) {
        let n = text.len();
        while i < n {
            let state = self.state;
            if state == State::Reasoning {
                return self.scan_reasoning(text, i, is_final, ctx);
            }
            if self.prelude {
                let (at, hit, wait) = self.scan_prelude(text, i, is_final, ctx);
                if hit.is_some() || wait {
                    return (at, hit);
                }
                i = at;
                continue;
            }
            if state == State::Text {
                let openers = &self.tables.openers;
                let literal = openers.literals_only();
                let newline = find_char(text, i, NEWLINE);
                let end = newline.map(|k| k + 1);
                let hit = if openers.max_len() > 0 {
                    openers.find(text, i, ctx, end)
                } else {
                    None
                };
                if let Some(hit) = hit.filter(|h| literal || newline.is_none_or(|k| h.start < k)) {
                    if !is_final && openers.undecided(text, hit.start, hit.key) {
                        return (hit.start, None); // (a longer opener may still match here)
                    }
                    return (hit.start, Some(self.named(Source::Openers, openers, hit)));
                }
                if let Some(k) = newline {
                    i = k + 1;
                    self.state = State::LineStart;
                    continue;
                }
                if is_final || openers.max_len() == 0 {
                    return (n, None);
                }
                return (openers.partial_start(text, i, ctx), None);
            }
            if state == State::Quote || state == State::Code {
                let newline = find_char(text, i, NEWLINE);
                if let Some(tokens) = self
                    .tables
                    .code_openers
                    .as_ref()
                    .filter(|t| t.literals_only())
                {
                    // (special tokens end the Markdown around them)
                    if let Some(hit) = tokens.find(text, i, ctx, Some(newline.map_or(n, |k| k + 1)))
                    {
                        if !is_final && tokens.undecided(text, hit.start, hit.key) {
                            return (hit.start, None);
                        }
                        self.state = State::Text;
                        let hit = self.named(Source::Code, tokens, hit);
                        return (hit.start, Some(hit));
                    }
                    if newline.is_none() && !is_final {
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
            while j < n && j - i < 3 && text[j].into() == 0x20 {
                j += 1;
            }
            if j == n {
                return (if is_final { n } else { i }, None);
            }
            let next = if state == State::LineStart {
                self.line_start(text, i, j, is_final, ctx)
            } else {
                self.code_line_start(text, i, j, is_final)
            };
            match next {
                Ok(at) => i = at,
                Err(wait) => return (wait, None),
            }
        }
        (n, None)
    }

    /// Before the answer: whitespace (held back) and reasoning. Returns (where,
    /// a hit there, wait there); no hit and no wait: the answer began, read on.
    fn scan_prelude<T: Unit, C: TagContext + ?Sized>(
        &mut self,
        text: &[T],
        i: usize,
        is_final: bool,
        ctx: &C,
    ) -> (usize, Option<ScanHit>, bool) {
        let (hit, wait) = self.opener_after_space(text, i, is_final);
        if hit.is_some() || wait {
            return (i, hit, wait);
        }
        if let Some(j) = text[i..]
            .iter()
            .position(|&c| !is_prelude_space(c.into()))
            .map(|k| k + i)
        {
            let anywhere = &self.tables.openers;
            for (k, (openers, is_anywhere)) in self.tables.answer_openers.iter().enumerate() {
                if !is_final && openers.prefix_at(text, j, ctx) {
                    return (i, None, true);
                }
                let opener = openers.match_at(text, j, ctx);
                if let Some(found) = opener {
                    if anywhere.max_len() > 0 && !is_anywhere {
                        // (grammar="auto": "[" opens a pythonic list where the answer
                        // begins, and "[TOOL_CALLS]" is Mistral's opener anywhere: the
                        // longer one is read)
                        if !is_final && anywhere.prefix_at(text, j, ctx) {
                            return (i, None, true);
                        }
                        if anywhere
                            .match_at(text, j, ctx)
                            .is_some_and(|longer| longer.end > found.end)
                        {
                            break;
                        }
                    }
                    // (a forced answer then is the grammar's output; the opener as
                    // found, never read as a reasoning marker)
                    self.prelude = false;
                    self.answer = false;
                    let hit = ScanHit {
                        start: found.start,
                        end: found.end,
                        found: Found::Term(Source::Answer(k), found.key),
                        name: found.name,
                    };
                    return (j, Some(hit), false);
                }
            }
        }
        self.prelude = false; // the answer begins here
        if self.answer {
            return (i, Some(Self::plain(Found::Answer, i, i)), false);
        }
        (i, None, false)
    }

    /// (the reasoning opener after the whitespace at `i`, the whitespace with
    /// it; wait for more text): both empty when something else is there.
    fn opener_after_space<T: Unit>(
        &self,
        text: &[T],
        i: usize,
        is_final: bool,
    ) -> (Option<ScanHit>, bool) {
        let n = text.len();
        let Some(j) = text[i..]
            .iter()
            .position(|&c| !is_prelude_space(c.into()))
            .map(|k| k + i)
        else {
            // (whitespace so far: held back, within a bound)
            return (None, !is_final && n - i <= MAX_PRELUDE);
        };
        if let Some(opener) = &self.tables.r_open {
            if j - i <= MAX_PRELUDE {
                if begins_with(text, j, opener) {
                    return (
                        Some(Self::plain(Found::ReasoningOpen, i, j + opener.len())),
                        false,
                    );
                }
                if !is_final
                    && n - j < opener.len()
                    && opener.iter().zip(&text[j..]).all(|(&a, &b)| a == b.into())
                {
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
        is_final: bool,
        ctx: &C,
    ) -> (usize, Option<ScanHit>) {
        let n = text.len();
        if self.absorb {
            let (hit, wait) = self.opener_after_space(text, i, is_final);
            if wait {
                return (i, None);
            }
            self.absorb = false;
            if hit.is_some() {
                return (i, hit);
            }
        }
        let inside = self
            .tables
            .inside
            .as_ref()
            .expect("reasoning without a closer is never entered");
        if let Some(hit) = inside.find(text, i, ctx, None) {
            return (
                hit.start,
                Some(Self::plain(Found::ReasoningClose, hit.start, hit.end)),
            );
        }
        if is_final {
            return (n, None);
        }
        (inside.partial_start(text, i, ctx), None)
    }

    /// Decide the kind of the line starting at `i` (`j` after its indent).
    /// Returns where scanning goes on, or `Err(i)` to wait for more text there.
    fn line_start<T: Unit, C: TagContext + ?Sized>(
        &mut self,
        text: &[T],
        i: usize,
        j: usize,
        is_final: bool,
        ctx: &C,
    ) -> Result<usize, usize> {
        let c: u32 = text[j].into();
        if c == u32::from(b'>') {
            self.state = State::Quote;
            return Ok(j + 1);
        }
        if c != u32::from(b'`') && c != u32::from(b'~') {
            self.state = State::Text;
            return Ok(i);
        }
        let openers = &self.tables.openers;
        if openers.max_len() > 0 && openers.match_at(text, j, ctx).is_some() {
            self.state = State::Text; // an opener that looks like a fence (```tool_call)
            return Ok(i);
        }
        if !is_final && openers.max_len() > 0 && openers.prefix_at(text, j, ctx) {
            return Err(i);
        }
        let run = run_length(text, j, c);
        if j + run == text.len() && run < MAX_FENCE && !is_final {
            return Err(i);
        }
        if run < 3 {
            self.state = State::Text;
            return Ok(i);
        }
        self.fence = c;
        self.fence_len = run.min(MAX_FENCE);
        self.state = State::Code;
        Ok(j + run)
    }

    /// A line inside a code fence: is it the closing fence?
    fn code_line_start<T: Unit>(
        &mut self,
        text: &[T],
        i: usize,
        j: usize,
        is_final: bool,
    ) -> Result<usize, usize> {
        let n = text.len();
        let run = if text[j].into() == self.fence {
            run_length(text, j, self.fence)
        } else {
            0
        };
        if run >= self.fence_len || (run > 0 && j + run == n) {
            if j + run == n && run < MAX_FENCE && !is_final {
                return Err(i);
            }
            let mut k = j + run;
            while k < n && k - (j + run) < MAX_TRAIL && matches!(text[k].into(), 0x20 | 0x09) {
                k += 1;
            }
            if k == n && !is_final && k - (j + run) < MAX_TRAIL {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prelude_space_is_python_space_and_format_characters() {
        for c in [
            0x20, 0x0b, 0x1c, 0x85, 0xa0, 0x3000, 0xfeff, 0x200b, 0x2066, 0xe0020, 0xe007f, 0x110bd,
        ] {
            assert!(is_prelude_space(c), "{c:x}");
        }
        for c in [
            u32::from(b'a'),
            u32::from(b'<'),
            0x200a + 0x10,
            0xe0080,
            0x2065,
        ] {
            assert!(!is_prelude_space(c), "{c:x}");
        }
    }

    #[test]
    fn states_number_as_the_python_constants() {
        for n in 0..6 {
            assert_eq!(State::from_number(n).map(State::number), Some(n));
        }
        assert_eq!(State::from_number(6), None);
    }
}
