//! A compiled grammar's tables, read from data.
//!
//! Grammars are Python declarations, compiled by `engine/compile.py`; the
//! compiled tables cross to Rust as plain data in one schema
//! (`toolparse.engine.grammar_data`, whose docstring is the schema's
//! reference), as JSON. [`Tables::from_json`] deserializes that (serde) and
//! checks it: every field mirrors one of the Python dataclasses' (same names,
//! the same order of steps), so that a difference between the engines points
//! at one field. Every registered grammar's data is generated into this
//! crate's `grammars/` folder ([`GRAMMARS_DIR`]), so a Rust program reads
//! every format with no Python.
//!
//! Patterns come in the tables' own syntax, which Python's `re` and the
//! `regex` crate read alike (see [`check_pattern`]); nothing here translates
//! Python's syntax.

use serde::Deserialize;

use crate::tags::is_python_space;

/// The version of the data's schema this module reads (`grammar_data.SCHEMA`).
pub const SCHEMA: u32 = 1;

/// The generated grammar files, one `<name>.json` a registered grammar and
/// `auto.json` (relative to the crate's root).
pub const GRAMMARS_DIR: &str = "grammars";

/// A tag terminal (`toolparse.engine.declare.Term`), by its name there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TagTerm {
    AnyOpen,
    AnyClose,
    AnyEmpty,
    Property,
    KeyClose,
    KeyOpen,
    CallClose,
    Tool,
    ToolEmpty,
    PropertyName,
    EndOfStream,
}

impl TagTerm {
    /// Every tag term, with the name its Python `Term` has.
    pub const ALL: [(TagTerm, &'static str); 11] = [
        (TagTerm::AnyOpen, "<any>"),
        (TagTerm::AnyClose, "</any>"),
        (TagTerm::AnyEmpty, "<any/>"),
        (TagTerm::Property, "<property>"),
        (TagTerm::KeyClose, "</key>"),
        (TagTerm::KeyOpen, "<key>"),
        (TagTerm::CallClose, "</call>"),
        (TagTerm::Tool, "<tool>"),
        (TagTerm::ToolEmpty, "<tool/>"),
        (TagTerm::PropertyName, "property>"),
        (TagTerm::EndOfStream, "end of stream"),
    ];

    /// The name of the Python `Term`.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(term, _)| *term == self)
            .map(|(_, name)| *name)
            .unwrap_or("?")
    }

    /// The tag term of that name.
    pub fn named(name: &str) -> Option<TagTerm> {
        Self::ALL
            .iter()
            .find(|(_, known)| *known == name)
            .map(|(term, _)| *term)
    }
}

/// A terminal: a literal marker, or a tag term (`TermLike`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Terminal {
    Literal(String),
    Tag(TagTerm),
}

impl Terminal {
    /// The terminal as a lexicon has it (`EndOfStream` is no lexicon's terminal).
    pub fn for_lexicon(&self) -> Option<crate::lexicon::Terminal> {
        use crate::lexicon::{TagTerm as L, Terminal as LTerminal};
        Some(match self {
            Terminal::Literal(s) => LTerminal::Literal(s.chars().map(u32::from).collect()),
            Terminal::Tag(tag) => LTerminal::Tag(match tag {
                TagTerm::AnyOpen => L::AnyOpen,
                TagTerm::AnyClose => L::AnyClose,
                TagTerm::AnyEmpty => L::AnyEmpty,
                TagTerm::Property => L::Property,
                TagTerm::KeyClose => L::KeyClose,
                TagTerm::KeyOpen => L::KeyOpen,
                TagTerm::CallClose => L::CallClose,
                TagTerm::Tool => L::Tool,
                TagTerm::ToolEmpty => L::ToolEmpty,
                TagTerm::PropertyName => L::PropertyName,
                TagTerm::EndOfStream => return None,
            }),
        })
    }
}

/// Why a piece of output is no call (`toolparse.events.ErrorReason`), by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    MalformedJson,
    MalformedMarkup,
    InvalidCall,
    UnfinishedCall,
    UnknownTool,
    TooLarge,
    TooDeep,
    CallInUnclosedReasoning,
}

impl Reason {
    /// Every reason, with its Python value.
    pub const ALL: [(Reason, &'static str); 8] = [
        (Reason::MalformedJson, "malformed_json"),
        (Reason::MalformedMarkup, "malformed_markup"),
        (Reason::InvalidCall, "invalid_call"),
        (Reason::UnfinishedCall, "unfinished_call"),
        (Reason::UnknownTool, "unknown_tool"),
        (Reason::TooLarge, "too_large"),
        (Reason::TooDeep, "too_deep"),
        (
            Reason::CallInUnclosedReasoning,
            "call_in_unclosed_reasoning",
        ),
    ];

    /// The Python enum's value.
    pub fn value(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(reason, _)| *reason == self)
            .map(|(_, value)| *value)
            .unwrap_or("?")
    }

    /// The reason of that value.
    pub fn of_value(value: &str) -> Option<Reason> {
        Self::ALL
            .iter()
            .find(|(_, known)| *known == value)
            .map(|(reason, _)| *reason)
    }
}

/// Where a step goes besides a region (`TO_END`, ...; regions count from 0).
pub const TO_END: i32 = -1;
pub const TO_BEFORE: i32 = -2;
pub const TO_REJECT: i32 = -3;
pub const TO_STAY: i32 = -4;
pub const TO_FAIL: i32 = -5;

/// A compiled step (`CStep`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub to: i32,
    pub call: bool,
    pub json_call: bool,
    pub member: bool,
    pub sole_string: bool,
    pub end_member: bool,
    pub end_call: bool,
    pub require_sole_string: bool,
    pub again: bool,
    pub message: String,
    pub reason: Reason,
}

impl Step {
    /// The names of the flags, in the order of [`Step::flags`].
    pub const FLAGS: [&'static str; 8] = [
        "call",
        "json_call",
        "member",
        "sole_string",
        "end_member",
        "end_call",
        "require_sole_string",
        "again",
    ];

    /// The flags, in the order of [`Step::FLAGS`].
    pub fn flags(&self) -> [bool; 8] {
        [
            self.call,
            self.json_call,
            self.member,
            self.sole_string,
            self.end_member,
            self.end_call,
            self.require_sole_string,
            self.again,
        ]
    }
}

/// A set of characters, as a one-class pattern of the tables
/// (`CName.pattern`, `CLiteral.pattern`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CharClass {
    /// The characters listed, sorted (Python's spaces left out when `spaces`).
    pub chars: Vec<u32>,
    /// Every one of Python's spaces (`str.isspace`) is in the class.
    pub spaces: bool,
}

impl CharClass {
    /// The class of `chars`; `spaces`: with every one of Python's spaces.
    pub fn new(chars: impl IntoIterator<Item = char>, spaces: bool) -> CharClass {
        let mut chars: Vec<u32> = chars.into_iter().map(|c| c as u32).collect();
        chars.sort_unstable();
        chars.dedup();
        CharClass { chars, spaces }
    }

    /// `c` is in the class.
    pub fn has(&self, c: u32) -> bool {
        (self.spaces && is_python_space(c)) || self.chars.binary_search(&c).is_ok()
    }

    /// The class a pattern of one class (`[...]`, not negated) stands for.
    pub fn from_pattern(source: &str) -> Result<CharClass, String> {
        let mut reader = PatternReader::new(source);
        if reader.take()? != '[' || reader.peek() == Some('^') {
            return Err(format!("not one class: {source:?}"));
        }
        let ranges = reader.class()?;
        if reader.peek().is_some() {
            return Err(format!("not one class: {source:?}"));
        }
        let mut chars = Vec::new();
        for (low, high) in ranges {
            if high - low > 0x1000 {
                return Err(format!(
                    "a range too wide for a class of characters: {source:?}"
                ));
            }
            chars.extend(low..=high);
        }
        chars.sort_unstable();
        chars.dedup();
        // (all of Python's spaces: kept as the flag, which `has` tests first)
        let all_spaces = (0..=0x3000u32)
            .filter(|&c| is_python_space(c))
            .all(|c| chars.binary_search(&c).is_ok());
        if all_spaces {
            chars.retain(|&c| !is_python_space(c));
        }
        Ok(CharClass {
            chars,
            spaces: all_spaces,
        })
    }
}

/// What each kind of region has of its own.
#[derive(Clone, Debug, PartialEq)]
pub enum RegionKind {
    Space {
        chars: Vec<(u32, Step)>,
    },
    Name {
        max_len: i64,
        strip: bool,
        declared: bool,
        /// What may end the name or make it bad (None: anything may).
        breakers: Option<CharClass>,
        longest: i64,
        reach: i64,
    },
    JsonCalls {
        then: i32,
        separators: String,
        name_keys: Vec<String>,
        argument_keys: Vec<String>,
    },
    JsonArgs {
        then: i32,
    },
    Value {
        conditions: Vec<(Terminal, Condition)>,
        xml: bool,
        nest: Vec<(Terminal, Terminal)>,
        nest_at_line_start: bool,
        keep_newlines: bool,
        balanced: bool,
        closers: Vec<String>,
        closed_by_key: bool,
    },
    Skip,
    Literal {
        /// What needs a look outside strings.
        specials: CharClass,
    },
}

/// When a terminal ends a value (`value.Condition`).
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    pub confirm: Option<Vec<Terminal>>,
    pub end_of_stream: bool,
    pub line_start: bool,
}

/// A compiled region (`CRegion` and its kinds).
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    pub name: String,
    /// The terminals of its lexicon.
    pub terms: Vec<Terminal>,
    /// Its lexicon's characters that may begin a terminal (None: any).
    pub firsts: Option<Vec<u32>>,
    pub steps: Vec<(Terminal, Step)>,
    pub otherwise: Option<Step>,
    pub at_end: Option<Step>,
    pub kind: RegionKind,
}

/// The regions of the blocks that one closer ends (`Block`).
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub closer: Option<Terminal>,
    pub regions: Vec<Region>,
    pub skip: Region,
    pub xml: bool,
    pub literal: bool,
}

/// A compiled opener (`COpener`); `block` indexes [`Tables::blocks`].
#[derive(Clone, Debug, PartialEq)]
pub struct Opener {
    pub block: usize,
    pub region: i32,
    pub lenient: bool,
    pub step: Option<Step>,
    pub again: bool,
}

/// A grammar's tables (`CompiledGrammar`).
#[derive(Clone, Debug, PartialEq)]
pub struct Tables {
    pub name: String,
    pub openers: Vec<Terminal>,
    pub start_openers: Option<Vec<Terminal>>,
    pub opener_steps: Vec<(Terminal, Opener)>,
    pub start: Option<Opener>,
    pub tokens: bool,
    pub call_ends: String,
    pub opener_prefixes: Vec<String>,
    pub markup_prefixes: Vec<String>,
    pub token_openers: Option<Vec<Terminal>>,
    /// `grammar="auto"`: the union of several grammars' openers, and what
    /// decides between them.
    pub auto: Option<Box<Auto>>,
    /// Every block an opener opens, in the order first met (the openers, then
    /// auto's claims and owners).
    pub blocks: Vec<Block>,
    /// The declaration's own reasoning markers: what the `reasoning` option
    /// `"auto"` means for this grammar (`CompiledGrammar.reasoning`).
    pub reasoning: Option<Reasoning>,
}

/// How a model marks its reasoning (`toolparse.engine.declare.Reasoning`):
/// a region of the visible text where no call is read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reasoning {
    /// The opening marker; None when only the prompt opens it.
    pub open: Option<String>,
    pub close: String,
    /// The prompt opened it: the output begins inside reasoning.
    pub starts_open: bool,
    /// The opener opens reasoning anywhere in the visible text (false: only
    /// where the answer begins).
    pub anywhere: bool,
    /// The format's other markers around its channels (never visible text).
    pub markup: Vec<String>,
    /// Markers that also end reasoning, before them.
    pub ended_by: Vec<String>,
}

impl Reasoning {
    /// The reasoning of its data (`grammar_data.reasoning_data`), checked as
    /// the Python declaration checks it.
    pub fn from_json(json: &str) -> Result<Reasoning, String> {
        reasoning(serde_json::from_str(json).map_err(|e| e.to_string())?)
    }

    /// The opener, closer and markup: the markers the visible text's
    /// terminals must not hold already.
    pub fn markers(&self) -> impl Iterator<Item = &str> {
        self.open
            .as_deref()
            .into_iter()
            .chain([self.close.as_str()])
            .chain(self.markup.iter().map(String::as_str))
    }
}

/// A member's claim on an opener several grammars share (`auto.Claim`).
#[derive(Clone, Debug)]
pub struct Claim {
    pub member: String,
    pub opener: Opener,
    /// Matched at the text right after the opener (anchored, within
    /// `LOOKAHEAD` characters); None: no pattern, or one that never matches
    /// (`never`).
    pub pattern: Option<regex::Regex>,
    /// The pattern as the data has it (the tables' syntax).
    pub source: Option<String>,
    pub never: bool,
    pub takes_rest: bool,
}

impl PartialEq for Claim {
    fn eq(&self, other: &Claim) -> bool {
        self.member == other.member
            && self.opener == other.opener
            && self.source == other.source
            && self.takes_rest == other.takes_rest
    }
}

impl Claim {
    /// The claim holds for `window`, the text right after the opener (at most
    /// [`LOOKAHEAD`] characters).
    pub fn matches(&self, window: &str) -> bool {
        self.pattern
            .as_ref()
            .is_some_and(|pattern| pattern.is_match(window))
    }
}

/// `grammar="auto"`'s tables (`auto.AutoTables`).
#[derive(Clone, Debug, PartialEq)]
pub struct Auto {
    /// Each member's own tables, by name (shared: a member's start scanner
    /// is kept by its tables' identity, `start_scanner::start_scanner`).
    pub members: Vec<(String, std::sync::Arc<Tables>)>,
    /// The member each block belongs to, by index in [`Tables::blocks`].
    pub owners: Vec<Option<String>>,
    pub claims: Vec<(Terminal, Vec<Claim>)>,
    /// Markers that decide their member on sight.
    pub deciders: Vec<(String, String)>,
}

impl Auto {
    /// The index, in its owner's own [`Tables::blocks`], of the block `k` of
    /// `tables` (auto's): the owner's block with the same data. The Python
    /// union shares its members' block objects; the data names a block once
    /// in each table, and this finds the one again.
    pub fn owner_block(&self, tables: &Tables, k: usize) -> Option<(usize, usize)> {
        let owner = self.owners.get(k)?.as_deref()?;
        let member = self.members.iter().position(|(name, _)| name == owner)?;
        let block = tables.blocks.get(k)?;
        let index = self.members[member]
            .1
            .blocks
            .iter()
            .position(|b| b == block)?;
        Some((member, index))
    }
}

/// Characters after a shared opener that a claim may look at (`auto.LOOKAHEAD`).
pub const LOOKAHEAD: usize = 256;

/// The pattern of a claim that never matches (`grammar_data.NEVER`).
pub const NEVER: &str = "(?!)";

// -- the tables' pattern syntax ---------------------------------------------------------------

/// The characters that are escaped with a backslash to be literal.
const META: &str = "\\.^$|?*+()[]{}#&-~";

/// The most a counted repetition may count.
const MAX_REPEAT: u32 = 1000;

struct PatternReader<'a> {
    source: &'a str,
    chars: Vec<char>,
    k: usize,
}

impl<'a> PatternReader<'a> {
    fn new(source: &'a str) -> Self {
        PatternReader {
            source,
            chars: source.chars().collect(),
            k: 0,
        }
    }

    fn fail(&self, why: &str) -> String {
        format!(
            "{why} at {} of {:?}: not in the tables' pattern syntax",
            self.k, self.source
        )
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.k).copied()
    }

    fn take(&mut self) -> Result<char, String> {
        let c = self
            .peek()
            .ok_or_else(|| self.fail("the pattern ends too soon"))?;
        self.k += 1;
        Ok(c)
    }

    fn alternation(&mut self) -> Result<(), String> {
        self.sequence()?;
        while self.peek() == Some('|') {
            self.k += 1;
            self.sequence()?;
        }
        Ok(())
    }

    fn sequence(&mut self) -> Result<(), String> {
        while !matches!(self.peek(), None | Some('|') | Some(')')) {
            self.atom()?;
            self.repeat()?;
        }
        Ok(())
    }

    fn atom(&mut self) -> Result<(), String> {
        match self.take()? {
            '(' => {
                if self.take()? != '?' || self.take()? != ':' {
                    return Err(self.fail("a group other than (?:...)"));
                }
                self.alternation()?;
                if self.take()? != ')' {
                    return Err(self.fail("a group not closed"));
                }
            }
            '[' => {
                if self.peek() == Some('^') {
                    self.k += 1;
                }
                self.class()?;
            }
            '.' => {}
            '\\' => {
                self.escaped()?;
            }
            c => {
                self.plain(c)?;
            }
        }
        Ok(())
    }

    /// A literal character written as itself.
    fn plain(&self, c: char) -> Result<char, String> {
        if META.contains(c) {
            return Err(self.fail(&format!("a bare {c:?}")));
        }
        if c.is_control() || (c != ' ' && is_python_space(c as u32)) {
            return Err(self.fail(&format!("{c:?} unescaped")));
        }
        Ok(c)
    }

    /// The character an escape stands for (its backslash read).
    fn escaped(&mut self) -> Result<char, String> {
        let e = self.take()?;
        let digits = match e {
            'n' => return Ok('\n'),
            't' => return Ok('\t'),
            'r' => return Ok('\r'),
            'u' => 4,
            'U' => 8,
            e if META.contains(e) => return Ok(e),
            e => return Err(self.fail(&format!("\\{e}"))),
        };
        let hex: String = self.chars.iter().skip(self.k).take(digits).collect();
        if hex.len() != digits || !hex.chars().all(|h| h.is_ascii_hexdigit()) {
            return Err(self.fail(&format!("a bad \\{e} escape")));
        }
        self.k += digits;
        u32::from_str_radix(&hex, 16)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| self.fail(&format!("\\{e}{hex} is no character")))
    }

    fn count(&mut self) -> Result<Option<u32>, String> {
        let start = self.k;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.k += 1;
        }
        if self.k == start {
            return Ok(None);
        }
        let digits: String = self.chars[start..self.k].iter().collect();
        match digits.parse::<u32>() {
            Ok(n) if n <= MAX_REPEAT => Ok(Some(n)),
            _ => Err(self.fail("a repetition out of bounds")),
        }
    }

    fn repeat(&mut self) -> Result<(), String> {
        match self.peek() {
            Some('*' | '+' | '?') => self.k += 1,
            Some('{') => {
                self.k += 1;
                let low = self
                    .count()?
                    .ok_or_else(|| self.fail("a repetition with no least count"))?;
                if self.peek() == Some(',') {
                    self.k += 1;
                    if let Some(high) = self.count()? {
                        if high < low {
                            return Err(self.fail("a repetition out of bounds"));
                        }
                    }
                }
                if self.take()? != '}' {
                    return Err(self.fail("a repetition not closed"));
                }
            }
            _ => return Ok(()),
        }
        if matches!(self.peek(), Some('*' | '+' | '?' | '{')) {
            return Err(self.fail("a lazy, possessive or repeated repetition"));
        }
        Ok(())
    }

    /// A class's items up to its `]` (its `[` and `^` read): its ranges.
    fn class(&mut self) -> Result<Vec<(u32, u32)>, String> {
        let mut ranges = Vec::new();
        loop {
            let c = self.take()?;
            if c == ']' && !ranges.is_empty() {
                return Ok(ranges);
            }
            let low = self.class_char(c)?;
            let next = self.chars.get(self.k + 1).copied();
            if self.peek() == Some('-') && !matches!(next, None | Some(']')) {
                self.k += 1;
                let c = self.take()?;
                let high = self.class_char(c)?;
                if high < low {
                    return Err(self.fail("a range backwards"));
                }
                ranges.push((low as u32, high as u32));
            } else {
                ranges.push((low as u32, low as u32));
            }
        }
    }

    fn class_char(&mut self, c: char) -> Result<char, String> {
        if c == '\\' {
            self.escaped()
        } else {
            self.plain(c)
        }
    }
}

/// `Ok` when `source` is in the tables' pattern syntax, which Python's `re`
/// and the `regex` crate read alike: literal characters (a metacharacter
/// escaped: `\ . ^ $ | ? * + ( ) [ ] { } # & - ~`), `\n`, `\t`, `\r`,
/// `\uXXXX`, `\UXXXXXXXX`, `.`, classes of such characters and ranges,
/// `(?:...)`, `|`, and greedy `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`; or the
/// whole pattern [`NEVER`]. Anything else (`\s`, whose meaning differs,
/// anchors, lookaround, backreferences, capturing groups) is refused rather
/// than read differently.
pub fn check_pattern(source: &str) -> Result<(), String> {
    if source == NEVER {
        return Ok(());
    }
    let mut reader = PatternReader::new(source);
    reader.alternation()?;
    match reader.peek() {
        None => Ok(()),
        Some(c) => Err(reader.fail(&format!("an unexpected {c:?}"))),
    }
}

/// A claim's pattern compiled to match at the start of a window, or None for
/// [`NEVER`].
pub fn claim_regex(source: &str) -> Result<Option<regex::Regex>, String> {
    check_pattern(source)?;
    if source == NEVER {
        return Ok(None);
    }
    regex::Regex::new(&format!("^(?:{source})"))
        .map(Some)
        .map_err(|e| format!("{source:?}: {e}"))
}

// -- the data, as serde reads it --------------------------------------------------------------

#[derive(Deserialize)]
#[serde(untagged)]
enum TermData {
    Literal(String),
    Tag { term: String },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LexiconData {
    terms: Vec<TermData>,
    firsts: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepData {
    to: i32,
    #[serde(default)]
    call: bool,
    #[serde(default)]
    json_call: bool,
    #[serde(default)]
    member: bool,
    #[serde(default)]
    sole_string: bool,
    #[serde(default)]
    end_member: bool,
    #[serde(default)]
    end_call: bool,
    #[serde(default)]
    require_sole_string: bool,
    #[serde(default)]
    again: bool,
    #[serde(default)]
    message: String,
    #[serde(default)]
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenerData {
    block: usize,
    region: i32,
    lenient: bool,
    step: Option<StepData>,
    again: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConditionData {
    confirm: Option<LexiconData>,
    end_of_stream: bool,
    line_start: bool,
}

/// A region of any kind: the fields of its kind are there, the others not.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegionData {
    kind: String,
    name: String,
    lexicon: LexiconData,
    steps: Vec<(TermData, StepData)>,
    otherwise: Option<StepData>,
    at_end: Option<StepData>,
    chars: Option<Vec<(String, StepData)>>,
    max_len: Option<i64>,
    strip: Option<bool>,
    declared: Option<bool>,
    // (a Name's pattern may be null; a Literal's is there)
    #[serde(default)]
    pattern: Option<String>,
    longest: Option<i64>,
    reach: Option<i64>,
    then: Option<i32>,
    separators: Option<String>,
    keys: Option<(Vec<String>, Vec<String>)>,
    conditions: Option<Vec<(TermData, ConditionData)>>,
    xml: Option<bool>,
    nest: Option<Vec<(TermData, TermData)>>,
    nest_at_line_start: Option<bool>,
    keep_newlines: Option<bool>,
    balanced: Option<bool>,
    closers: Option<Vec<String>>,
    closed_by_key: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BlockData {
    closer: Option<TermData>,
    regions: Vec<RegionData>,
    skip: RegionData,
    xml: bool,
    literal: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaimData {
    member: String,
    opener: OpenerData,
    pattern: Option<String>,
    takes_rest: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AutoData {
    members: Vec<(String, GrammarData)>,
    owners: Vec<Option<String>>,
    claims: Vec<(TermData, Vec<ClaimData>)>,
    deciders: Vec<(String, String)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GrammarData {
    #[serde(default)]
    schema: Option<u32>,
    name: String,
    openers: LexiconData,
    start_openers: Option<LexiconData>,
    opener_steps: Vec<(TermData, OpenerData)>,
    start: Option<OpenerData>,
    tokens: bool,
    call_ends: String,
    opener_prefixes: Vec<String>,
    markup_prefixes: Vec<String>,
    token_openers: Option<LexiconData>,
    auto: Option<Box<AutoData>>,
    blocks: Vec<BlockData>,
    reasoning: Option<ReasoningData>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReasoningData {
    open: Option<String>,
    close: String,
    starts_open: bool,
    anywhere: bool,
    markup: Vec<String>,
    ended_by: Vec<String>,
}

/// The longest reasoning marker (`declare.MAX_MARKER`).
pub const MAX_MARKER: usize = 128;

/// A reasoning of its data, checked as `Reasoning.__post_init__` checks it.
pub(crate) fn reasoning(data: ReasoningData) -> Result<Reasoning, String> {
    let r = Reasoning {
        open: data.open,
        close: data.close,
        starts_open: data.starts_open,
        anywhere: data.anywhere,
        markup: data.markup,
        ended_by: data.ended_by,
    };
    let all = r
        .open
        .iter()
        .chain([&r.close])
        .chain(&r.markup)
        .chain(&r.ended_by);
    for marker in all {
        let first = marker.chars().next();
        if first.is_none_or(|c| is_python_space(c as u32)) {
            return Err(format!(
                "a reasoning marker must be a string not starting with whitespace, not {marker:?}"
            ));
        }
        if marker.chars().count() > MAX_MARKER {
            return Err(format!(
                "a reasoning marker is at most {MAX_MARKER} characters, not {}",
                marker.chars().count()
            ));
        }
    }
    if r.open.as_deref() == Some(r.close.as_str()) {
        return Err(format!(
            "the reasoning opener and closer must differ, not both {:?}",
            r.close
        ));
    }
    if r.ended_by.contains(&r.close) {
        return Err(format!(
            "the reasoning closer {:?} cannot also be in ended_by",
            r.close
        ));
    }
    if r.open.is_none() && !r.starts_open {
        return Err("reasoning with no opener must start open (starts_open=True)".into());
    }
    Ok(r)
}

// -- the data made tables ---------------------------------------------------------------------

fn terminal(term: TermData) -> Result<Terminal, String> {
    match term {
        TermData::Literal(text) => Ok(Terminal::Literal(text)),
        TermData::Tag { term } => TagTerm::named(&term)
            .map(Terminal::Tag)
            .ok_or_else(|| format!("not a terminal the native core knows: {term:?}")),
    }
}

fn terminals(lexicon: LexiconData) -> Result<Vec<Terminal>, String> {
    lexicon.terms.into_iter().map(terminal).collect()
}

fn optional_terminals(lexicon: Option<LexiconData>) -> Result<Option<Vec<Terminal>>, String> {
    lexicon.map(terminals).transpose()
}

fn step(data: StepData) -> Result<Step, String> {
    let reason = match data.reason {
        None => Reason::MalformedMarkup,
        Some(value) => {
            Reason::of_value(&value).ok_or_else(|| format!("not an error reason: {value:?}"))?
        }
    };
    Ok(Step {
        to: data.to,
        call: data.call,
        json_call: data.json_call,
        member: data.member,
        sole_string: data.sole_string,
        end_member: data.end_member,
        end_call: data.end_call,
        require_sole_string: data.require_sole_string,
        again: data.again,
        message: data.message,
        reason,
    })
}

fn optional_step(data: Option<StepData>) -> Result<Option<Step>, String> {
    data.map(step).transpose()
}

fn steps<K>(
    data: Vec<(K, StepData)>,
    key: impl Fn(K) -> Result<Terminal, String>,
) -> Result<Vec<(Terminal, Step)>, String> {
    data.into_iter()
        .map(|(term, s)| Ok((key(term)?, step(s)?)))
        .collect()
}

fn chars_of(text: &str) -> Vec<u32> {
    let mut chars: Vec<u32> = text.chars().map(|c| c as u32).collect();
    chars.sort_unstable();
    chars.dedup();
    chars
}

fn need<T>(value: Option<T>, region: &str, field: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("region {region:?}: no {field:?}"))
}

fn region(data: RegionData) -> Result<Region, String> {
    let name = data.name;
    let n = name.as_str();
    let kind = match data.kind.as_str() {
        "CSpace" => {
            let mut chars = Vec::new();
            for (c, s) in need(data.chars, n, "chars")? {
                let mut each = c.chars();
                let (Some(c), None) = (each.next(), each.next()) else {
                    return Err(format!("region {n:?}: {c:?} is not one character"));
                };
                chars.push((c as u32, step(s)?));
            }
            RegionKind::Space { chars }
        }
        "CName" => RegionKind::Name {
            max_len: need(data.max_len, n, "max_len")?,
            strip: need(data.strip, n, "strip")?,
            declared: need(data.declared, n, "declared")?,
            breakers: data
                .pattern
                .as_deref()
                .map(CharClass::from_pattern)
                .transpose()?,
            longest: need(data.longest, n, "longest")?,
            reach: need(data.reach, n, "reach")?,
        },
        "CJsonCalls" => {
            let (name_keys, argument_keys) = need(data.keys, n, "keys")?;
            RegionKind::JsonCalls {
                then: need(data.then, n, "then")?,
                separators: need(data.separators, n, "separators")?,
                name_keys,
                argument_keys,
            }
        }
        "CJsonArgs" => RegionKind::JsonArgs {
            then: need(data.then, n, "then")?,
        },
        "CValue" => {
            let mut conditions = Vec::new();
            for (term, c) in need(data.conditions, n, "conditions")? {
                conditions.push((
                    terminal(term)?,
                    Condition {
                        confirm: optional_terminals(c.confirm)?,
                        end_of_stream: c.end_of_stream,
                        line_start: c.line_start,
                    },
                ));
            }
            RegionKind::Value {
                conditions,
                xml: need(data.xml, n, "xml")?,
                nest: need(data.nest, n, "nest")?
                    .into_iter()
                    .map(|(a, b)| Ok((terminal(a)?, terminal(b)?)))
                    .collect::<Result<_, String>>()?,
                nest_at_line_start: need(data.nest_at_line_start, n, "nest_at_line_start")?,
                keep_newlines: need(data.keep_newlines, n, "keep_newlines")?,
                balanced: need(data.balanced, n, "balanced")?,
                closers: need(data.closers, n, "closers")?,
                closed_by_key: need(data.closed_by_key, n, "closed_by_key")?,
            }
        }
        "CSkip" => RegionKind::Skip,
        "CLiteral" => RegionKind::Literal {
            specials: CharClass::from_pattern(&need(data.pattern, n, "pattern")?)?,
        },
        other => return Err(format!("not a region the native core reads: {other}")),
    };
    let firsts = data.lexicon.firsts.as_deref().map(chars_of);
    Ok(Region {
        terms: terminals(data.lexicon)?,
        firsts,
        steps: steps(data.steps, terminal)?,
        otherwise: optional_step(data.otherwise)?,
        at_end: optional_step(data.at_end)?,
        kind,
        name,
    })
}

fn block(data: BlockData) -> Result<Block, String> {
    Ok(Block {
        closer: data.closer.map(terminal).transpose()?,
        regions: data
            .regions
            .into_iter()
            .map(region)
            .collect::<Result<_, _>>()?,
        skip: region(data.skip)?,
        xml: data.xml,
        literal: data.literal,
    })
}

fn opener(data: OpenerData, blocks: usize) -> Result<Opener, String> {
    if data.block >= blocks {
        return Err(format!(
            "an opener's block {} is not in the tables",
            data.block
        ));
    }
    Ok(Opener {
        block: data.block,
        region: data.region,
        lenient: data.lenient,
        step: optional_step(data.step)?,
        again: data.again,
    })
}

fn claim(data: ClaimData, blocks: usize) -> Result<Claim, String> {
    let (pattern, never) = match &data.pattern {
        None => (None, false),
        Some(source) => {
            let pattern = claim_regex(source)?;
            let never = pattern.is_none();
            (pattern, never)
        }
    };
    Ok(Claim {
        member: data.member,
        opener: opener(data.opener, blocks)?,
        pattern,
        source: data.pattern,
        never,
        takes_rest: data.takes_rest,
    })
}

fn tables(data: GrammarData) -> Result<Tables, String> {
    let count = data.blocks.len();
    let blocks = data
        .blocks
        .into_iter()
        .map(block)
        .collect::<Result<Vec<_>, _>>()?;
    let auto = match data.auto {
        None => None,
        Some(auto) => {
            if auto.owners.len() != count {
                return Err(format!(
                    "auto: {} owners of {count} blocks",
                    auto.owners.len()
                ));
            }
            let mut claims = Vec::new();
            for (term, owned) in auto.claims {
                let owned = owned
                    .into_iter()
                    .map(|c| claim(c, count))
                    .collect::<Result<Vec<_>, _>>()?;
                claims.push((terminal(term)?, owned));
            }
            let members = auto
                .members
                .into_iter()
                .map(|(name, member)| Ok((name, std::sync::Arc::new(tables(member)?))))
                .collect::<Result<Vec<_>, String>>()?;
            Some(Box::new(Auto {
                members,
                owners: auto.owners,
                claims,
                deciders: auto.deciders,
            }))
        }
    };
    let tables = Tables {
        name: data.name,
        openers: terminals(data.openers)?,
        start_openers: optional_terminals(data.start_openers)?,
        opener_steps: data
            .opener_steps
            .into_iter()
            .map(|(term, spec)| Ok((terminal(term)?, opener(spec, count)?)))
            .collect::<Result<_, String>>()?,
        start: data.start.map(|spec| opener(spec, count)).transpose()?,
        tokens: data.tokens,
        call_ends: data.call_ends,
        opener_prefixes: data.opener_prefixes,
        markup_prefixes: data.markup_prefixes,
        token_openers: optional_terminals(data.token_openers)?,
        auto,
        blocks,
        reasoning: data.reasoning.map(reasoning).transpose()?,
    };
    if let Some(auto) = &tables.auto {
        for k in 0..tables.blocks.len() {
            if auto.owner_block(&tables, k).is_none() {
                return Err(format!(
                    "auto: block {k} is no block of its owner {:?}",
                    auto.owners[k]
                ));
            }
        }
    }
    Ok(tables)
}

impl Tables {
    /// The tables of a grammar's data (JSON in the schema of
    /// `toolparse.engine.grammar_data`), checked: an unknown field, terminal,
    /// region kind or reason, a block out of range or a pattern outside the
    /// tables' syntax is an error, as is another schema version.
    pub fn from_json(json: &str) -> Result<Tables, String> {
        let data: GrammarData = serde_json::from_str(json).map_err(|e| e.to_string())?;
        match data.schema {
            Some(SCHEMA) => tables(data),
            Some(other) => Err(format!(
                "grammar data of schema {other}; this core reads {SCHEMA}"
            )),
            None => Err("grammar data with no schema version".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_char_class_has_its_chars_and_maybe_spaces() {
        let class = CharClass::new("<>&".chars(), true);
        assert!(class.has('<' as u32) && class.has('&' as u32) && class.has(0x3000));
        assert!(!class.has('a' as u32));
        let class = CharClass::new("<".chars(), false);
        assert!(!class.has(' ' as u32));
    }

    const SPACES: &str = r"\t\n\u000b\u000c\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";

    #[test]
    fn a_one_class_pattern_is_a_char_class() {
        let class = CharClass::from_pattern(&format!(r#"[<>"'=\&/\\{SPACES}]"#)).unwrap();
        assert!(class.spaces);
        assert_eq!(class.chars, chars_of("<>\"'=&/\\"));
        let class = CharClass::from_pattern(r#"[\(\)\[\]\{\}"',]"#).unwrap();
        assert!(!class.spaces && class.has(',' as u32) && !class.has(' ' as u32));
        for refused in ["[^a]", "[a]b", "a", "[a", r"[\s]"] {
            assert!(CharClass::from_pattern(refused).is_err(), "{refused}");
        }
    }

    fn claim(source: &str) -> regex::Regex {
        claim_regex(source).unwrap().unwrap()
    }

    #[test]
    fn patterns_of_the_tables_syntax_read_as_python_reads_them() {
        assert_eq!(claim_regex(NEVER).unwrap().map(|r| r.to_string()), None);
        // (Python's \s: str.isspace, with the separators U+001C to U+001F)
        let spaces = claim(&format!(r"[{SPACES}]*[\[\{{]"));
        assert!(spaces.is_match("\u{1c}\u{85}\u{3000} {"));
        assert!(!spaces.is_match("x{"));
        let name = claim(&format!(r#"[^{SPACES}<>=/"']{{1,128}}>[{SPACES}]*\{{"#));
        assert!(name.is_match("get_weather>\n{"));
        assert!(!name.is_match("get weather>{"));
        assert!(!name.is_match(&format!("{}>{{", "x".repeat(129))));
        assert!(
            claim(r"<\uff5ctool_call_begin\uff5c>").is_match("<\u{ff5c}tool_call_begin\u{ff5c}>")
        );
        assert!(claim("<｜x").is_match("<\u{ff5c}x"));
        assert!(claim(r"(?:<|function=)").is_match("function=f"));
        assert!(claim(r"\- \#\&\~").is_match("- #&~"));
        // (Rust reads \< as a word boundary; the syntax has no such escape)
        for refused in [
            r"\s*x",
            r"(?=x)",
            r"(?<=x)",
            r"(x)",
            r"\w",
            r"\d+",
            r"\<",
            r"\x41",
            r"^x",
            r"x$",
            r"\Z",
            r"(?P<a>x)",
            r"[a",
            r"[a&&b]",
            r"[a--b]",
            r"a*?",
            r"a{,3}",
            r"a{2000}",
            "a\u{3000}",
        ] {
            assert!(check_pattern(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn tag_terms_and_reasons_round_trip_their_names() {
        for (term, name) in TagTerm::ALL {
            assert_eq!(TagTerm::named(name), Some(term));
            assert_eq!(term.name(), name);
        }
        for (reason, value) in Reason::ALL {
            assert_eq!(Reason::of_value(value), Some(reason));
            assert_eq!(reason.value(), value);
        }
    }

    #[test]
    fn bad_data_is_refused() {
        assert!(Tables::from_json("{").is_err());
        let minimal = r#"{"schema": 1, "name": "x", "openers": {"terms": [], "firsts": ""},
            "start_openers": null, "opener_steps": [], "start": null, "tokens": false,
            "call_ends": ">", "opener_prefixes": [], "markup_prefixes": [],
            "token_openers": null, "auto": null, "blocks": [], "reasoning": null}"#;
        assert_eq!(Tables::from_json(minimal).unwrap().name, "x");
        let other = minimal.replace("\"schema\": 1", "\"schema\": 2");
        assert!(Tables::from_json(&other).unwrap_err().contains("schema 2"));
        let unknown = minimal.replace("\"tokens\"", "\"tokenz\"");
        assert!(Tables::from_json(&unknown).is_err());
        let out_of_range = minimal.replace(
            "\"opener_steps\": []",
            r#""opener_steps": [["<x>", {"block": 0, "region": 0, "lenient": false, "step": null, "again": false}]]"#,
        );
        assert!(Tables::from_json(&out_of_range)
            .unwrap_err()
            .contains("not in the tables"));
    }
}
