//! A compiled grammar's tables (`toolparse.engine.compile.CompiledGrammar`),
//! read once into Rust.
//!
//! Grammars stay Python declarations, compiled once by `engine/compile.py`;
//! the native structure path runs these same tables. This module only reads
//! them: every field mirrors one of the Python dataclasses' (same names, the
//! same order of steps), so that a difference between the engines points at
//! one field. Lexicons are kept as their terminals; the lexer builds its
//! matchers from them.
//!
//! `_native.Tables(compiled).describe()` gives the tables back as plain Python
//! values, and `tests/test_native_tables.py` compares that with the Python
//! tables of every grammar.

use pyo3::exceptions::PyValueError;

use crate::tags::is_python_space;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFrozenSet, PyList, PyString, PyTuple};

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

    fn named(name: &str) -> Option<TagTerm> {
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
    pub(crate) fn read(term: &Bound<'_, PyAny>) -> PyResult<Terminal> {
        if let Ok(text) = term.downcast::<PyString>() {
            return Ok(Terminal::Literal(text.to_cow()?.into_owned()));
        }
        let name: String = term.getattr("name")?.extract()?;
        TagTerm::named(&name).map(Terminal::Tag).ok_or_else(|| {
            PyValueError::new_err(format!("not a terminal the native core knows: {name:?}"))
        })
    }

    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Terminal::Literal(text) => PyString::new(py, text).into_any(),
            Terminal::Tag(term) => PyTuple::new(py, ["term", term.name()])?.into_any(),
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
    const ALL: [(Reason, &'static str); 8] = [
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

    pub(crate) fn read(reason: &Bound<'_, PyAny>) -> PyResult<Reason> {
        let value: String = reason.str()?.to_cow()?.into_owned();
        Self::ALL
            .iter()
            .find(|(_, known)| *known == value)
            .map(|(reason, _)| *reason)
            .ok_or_else(|| PyValueError::new_err(format!("not an error reason: {value:?}")))
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

const STEP_FLAGS: [&str; 8] = [
    "call",
    "json_call",
    "member",
    "sole_string",
    "end_member",
    "end_call",
    "require_sole_string",
    "again",
];

impl Step {
    pub(crate) fn read(step: &Bound<'_, PyAny>) -> PyResult<Step> {
        let flag = |name: &str| -> PyResult<bool> { step.getattr(name)?.extract() };
        Ok(Step {
            to: step.getattr("to")?.extract()?,
            call: flag("call")?,
            json_call: flag("json_call")?,
            member: flag("member")?,
            sole_string: flag("sole_string")?,
            end_member: flag("end_member")?,
            end_call: flag("end_call")?,
            require_sole_string: flag("require_sole_string")?,
            again: flag("again")?,
            message: step.getattr("message")?.extract()?,
            reason: Reason::read(&step.getattr("reason")?)?,
        })
    }

    pub(crate) fn read_optional(step: &Bound<'_, PyAny>) -> PyResult<Option<Step>> {
        if step.is_none() {
            Ok(None)
        } else {
            Step::read(step).map(Some)
        }
    }

    fn flags(&self) -> [bool; 8] {
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

    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let flags: Vec<&str> = STEP_FLAGS
            .iter()
            .zip(self.flags())
            .filter(|(_, on)| *on)
            .map(|(name, _)| *name)
            .collect();
        Ok(PyTuple::new(
            py,
            [
                self.to.into_pyobject(py)?.into_any(),
                PyTuple::new(py, flags)?.into_any(),
                PyString::new(py, &self.message).into_any(),
                PyString::new(py, self.reason.value()).into_any(),
            ],
        )?
        .into_any())
    }
}

fn describe_optional<'py>(py: Python<'py>, step: &Option<Step>) -> PyResult<Bound<'py, PyAny>> {
    match step {
        Some(step) => step.describe(py),
        None => Ok(py.None().into_bound(py)),
    }
}

/// A set of characters, as a regex character class of the tables
/// (`[...]`, with Python's `\s` when `spaces`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CharClass {
    /// The characters listed, sorted.
    pub chars: Vec<u32>,
    /// `\s` is in the class.
    pub spaces: bool,
}

impl CharClass {
    fn new(chars: impl IntoIterator<Item = char>, spaces: bool) -> CharClass {
        let mut chars: Vec<u32> = chars.into_iter().map(|c| c as u32).collect();
        chars.sort_unstable();
        chars.dedup();
        CharClass { chars, spaces }
    }

    /// `c` is in the class.
    pub fn has(&self, c: u32) -> bool {
        (self.spaces && is_python_space(c)) || self.chars.binary_search(&c).is_ok()
    }
}

/// What no name holds (`compile._NOT_IN_NAMES`).
const NOT_IN_NAMES: &str = "<>\"'=&/\\";

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

pub(crate) fn terms_of(lexicon: &Bound<'_, PyAny>) -> PyResult<Vec<Terminal>> {
    lexicon
        .getattr("terms")?
        .try_iter()?
        .map(|term| Terminal::read(&term?))
        .collect()
}

fn chars_of(text: &str) -> Vec<u32> {
    let mut chars: Vec<u32> = text.chars().map(|c| c as u32).collect();
    chars.sort_unstable();
    chars.dedup();
    chars
}

fn firsts_of(lexicon: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u32>>> {
    let firsts = lexicon.getattr("firsts")?;
    if firsts.is_none() {
        return Ok(None);
    }
    let mut chars = String::new();
    for c in firsts.try_iter()? {
        chars.push_str(&c?.extract::<String>()?);
    }
    Ok(Some(chars_of(&chars)))
}

fn steps_of(steps: &Bound<'_, PyAny>) -> PyResult<Vec<(Terminal, Step)>> {
    let steps = steps.downcast::<PyDict>()?;
    steps
        .iter()
        .map(|(term, step)| Ok((Terminal::read(&term)?, Step::read(&step)?)))
        .collect()
}

fn strings_of(items: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    items.try_iter()?.map(|item| item?.extract()).collect()
}

impl Region {
    pub(crate) fn read(region: &Bound<'_, PyAny>) -> PyResult<Region> {
        let lexicon = region.getattr("lexicon")?;
        let firsts = firsts_of(&lexicon)?;
        let kind = match region.get_type().name()?.to_cow()?.as_ref() {
            "CSpace" => {
                let chars = region.getattr("chars")?;
                let chars = chars.downcast::<PyDict>()?;
                let mut read = Vec::with_capacity(chars.len());
                for (c, step) in chars.iter() {
                    let c: char = c.extract()?;
                    read.push((c as u32, Step::read(&step)?));
                }
                RegionKind::Space { chars: read }
            }
            "CName" => {
                let strip: bool = region.getattr("strip")?.extract()?;
                let breakers = firsts.as_ref().map(|firsts| {
                    let mut chars: Vec<char> =
                        firsts.iter().filter_map(|&c| char::from_u32(c)).collect();
                    chars.extend(NOT_IN_NAMES.chars());
                    CharClass::new(chars, !strip)
                });
                RegionKind::Name {
                    max_len: region.getattr("max_len")?.extract()?,
                    strip,
                    declared: region.getattr("declared")?.extract()?,
                    breakers,
                    longest: region.getattr("longest")?.extract()?,
                    reach: region.getattr("reach")?.extract()?,
                }
            }
            "CJsonCalls" => {
                let keys = region.getattr("keys")?;
                RegionKind::JsonCalls {
                    then: region.getattr("then")?.extract()?,
                    separators: region.getattr("separators")?.extract()?,
                    name_keys: strings_of(&keys.get_item(0)?)?,
                    argument_keys: strings_of(&keys.get_item(1)?)?,
                }
            }
            "CJsonArgs" => RegionKind::JsonArgs {
                then: region.getattr("then")?.extract()?,
            },
            "CValue" => {
                let conditions = region.getattr("conditions")?;
                let mut read = Vec::new();
                for (term, condition) in conditions.downcast::<PyDict>()?.iter() {
                    let confirm = condition.getattr("confirm")?;
                    read.push((
                        Terminal::read(&term)?,
                        Condition {
                            confirm: if confirm.is_none() {
                                None
                            } else {
                                Some(terms_of(&confirm)?)
                            },
                            end_of_stream: condition.getattr("end_of_stream")?.extract()?,
                            line_start: condition.getattr("line_start")?.extract()?,
                        },
                    ));
                }
                let nest = region.getattr("nest")?;
                let mut nested = Vec::new();
                for (open, close) in nest.downcast::<PyDict>()?.iter() {
                    nested.push((Terminal::read(&open)?, Terminal::read(&close)?));
                }
                RegionKind::Value {
                    conditions: read,
                    xml: region.getattr("xml")?.extract()?,
                    nest: nested,
                    nest_at_line_start: region.getattr("nest_at_line_start")?.extract()?,
                    keep_newlines: region.getattr("keep_newlines")?.extract()?,
                    balanced: region.getattr("balanced")?.extract()?,
                    closers: strings_of(&region.getattr("closers")?)?,
                    closed_by_key: region.getattr("closed_by_key")?.extract()?,
                }
            }
            "CSkip" => RegionKind::Skip,
            "CLiteral" => {
                let mut specials = String::from("\"'()[]{}");
                for (term, _) in steps_of(&region.getattr("steps")?)? {
                    if let Terminal::Literal(c) = term {
                        specials.push_str(&c);
                    }
                }
                RegionKind::Literal {
                    specials: CharClass::new(specials.chars(), false),
                }
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "not a region the native core reads: {other}"
                )))
            }
        };
        Ok(Region {
            name: region.getattr("name")?.extract()?,
            terms: terms_of(&lexicon)?,
            firsts,
            steps: steps_of(&region.getattr("steps")?)?,
            otherwise: Step::read_optional(&region.getattr("otherwise")?)?,
            at_end: Step::read_optional(&region.getattr("at_end")?)?,
            kind,
        })
    }
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
    /// The Python pattern's source.
    pub source: Option<String>,
    pub never: bool,
    pub takes_rest: bool,
}

impl PartialEq for Claim {
    fn eq(&self, other: &Claim) -> bool {
        self.member == other.member
            && self.opener == other.opener
            && self.pattern.as_ref().map(|p| p.as_str())
                == other.pattern.as_ref().map(|p| p.as_str())
            && self.never == other.never
            && self.takes_rest == other.takes_rest
    }
}

/// `grammar="auto"`'s tables (`auto.AutoTables`).
#[derive(Clone, Debug, PartialEq)]
pub struct Auto {
    /// Each member's own tables, by name.
    pub members: Vec<(String, Tables)>,
    /// The member each block belongs to, by index in [`Tables::blocks`].
    pub owners: Vec<Option<String>>,
    pub claims: Vec<(Terminal, Vec<Claim>)>,
    /// Markers that decide their member on sight.
    pub deciders: Vec<(String, String)>,
}

/// Characters after a shared opener that a claim may look at (`auto.LOOKAHEAD`).
pub const LOOKAHEAD: usize = 256;

/// Python's `\s` as the body of a character class.
const PYTHON_SPACES: &str = r"\t\n\x0B\x0C\r\x1C-\x20\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}";

/// A Python `re` pattern of the tables in the `regex` crate's syntax, or None
/// for `(?!)` (never matches). Only what the tables use is accepted: literals,
/// classes, groups, alternation, repetition, `\s` (Python's: `str.isspace`),
/// `\uXXXX` and escaped punctuation; anything else (lookaround, anchors,
/// `\w`, `\d`, backreferences) is refused rather than read differently.
pub fn python_pattern(source: &str) -> Result<Option<String>, String> {
    if source == "(?!)" {
        return Ok(None);
    }
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len() + 16);
    let mut in_class = false;
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        k += 1;
        match c {
            '\\' => {
                let Some(&e) = chars.get(k) else {
                    return Err("a pattern ends in a backslash".into());
                };
                k += 1;
                match e {
                    's' if in_class => out.push_str(PYTHON_SPACES),
                    's' => {
                        out.push('[');
                        out.push_str(PYTHON_SPACES);
                        out.push(']');
                    }
                    'u' | 'U' | 'x' => {
                        let digits = match e {
                            'u' => 4,
                            'U' => 8,
                            _ => 2,
                        };
                        let hex: String = chars.iter().skip(k).take(digits).collect();
                        let code = u32::from_str_radix(&hex, 16)
                            .map_err(|_| format!("a bad \\{e} escape in {source:?}"))?;
                        if hex.len() != digits {
                            return Err(format!("a bad \\{e} escape in {source:?}"));
                        }
                        k += digits;
                        out.push_str(&format!("\\x{{{code:X}}}"));
                    }
                    'n' => out.push_str("\\n"),
                    't' => out.push_str("\\t"),
                    'r' => out.push_str("\\r"),
                    e if e.is_ascii_punctuation() || e == ' ' => {
                        out.push_str(&format!("\\x{{{:X}}}", e as u32))
                    }
                    e => {
                        return Err(format!(
                            "\\{e} is not read alike by the native core: {source:?}"
                        ))
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                if chars.get(k) == Some(&'^') {
                    out.push('^');
                    k += 1;
                }
                if chars.get(k) == Some(&']') {
                    out.push_str("\\]");
                    k += 1;
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '(' if !in_class && chars.get(k) == Some(&'?') => {
                if chars.get(k + 1) != Some(&':') {
                    return Err(format!("only (?: groups are read alike: {source:?}"));
                }
                out.push_str("(?:");
                k += 2;
            }
            '^' | '$' if !in_class => {
                return Err(format!("anchors are not read alike: {source:?}"))
            }
            '[' | '&' | '~' | '-' if in_class => {
                // (the regex crate gives these meanings inside a class: a nested
                // class, and set operations)
                if c == '-'
                    && chars.get(k) != Some(&']')
                    && !out.ends_with('[')
                    && !out.ends_with('^')
                {
                    out.push('-');
                } else {
                    out.push_str(&format!("\\x{{{:X}}}", c as u32));
                }
            }
            c => out.push(c),
        }
    }
    if in_class {
        return Err(format!("a class is not closed: {source:?}"));
    }
    Ok(Some(out))
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

pub(crate) fn sorted_strings(set: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let set = set.downcast::<PyFrozenSet>()?;
    let mut strings: Vec<String> = set.iter().map(|s| s.extract()).collect::<PyResult<_>>()?;
    strings.sort_unstable();
    Ok(strings)
}

fn optional_terms(lexicon: &Bound<'_, PyAny>) -> PyResult<Option<Vec<Terminal>>> {
    if lexicon.is_none() {
        Ok(None)
    } else {
        terms_of(lexicon).map(Some)
    }
}

/// The blocks read so far, with the Python `Block` each was read from.
type Blocks<'py> = Vec<(Bound<'py, PyAny>, Block)>;

/// The index of `block` in `blocks`, read and added when first met.
fn block_index<'py>(blocks: &mut Blocks<'py>, block: &Bound<'py, PyAny>) -> PyResult<usize> {
    if let Some(index) = blocks.iter().position(|(known, _)| known.is(block)) {
        return Ok(index);
    }
    let closer = block.getattr("closer")?;
    let regions = block
        .getattr("regions")?
        .try_iter()?
        .map(|region| Region::read(&region?))
        .collect::<PyResult<Vec<_>>>()?;
    let read = Block {
        closer: if closer.is_none() {
            None
        } else {
            Some(Terminal::read(&closer)?)
        },
        regions,
        skip: Region::read(&block.getattr("skip")?)?,
        xml: block.getattr("xml")?.extract()?,
        literal: block.getattr("literal")?.extract()?,
    };
    blocks.push((block.clone(), read));
    Ok(blocks.len() - 1)
}

fn read_opener<'py>(blocks: &mut Blocks<'py>, spec: &Bound<'py, PyAny>) -> PyResult<Opener> {
    Ok(Opener {
        block: block_index(blocks, &spec.getattr("block")?)?,
        region: spec.getattr("region")?.extract()?,
        lenient: spec.getattr("lenient")?.extract()?,
        step: Step::read_optional(&spec.getattr("step")?)?,
        again: spec.getattr("again")?.extract()?,
    })
}

fn read_claim<'py>(blocks: &mut Blocks<'py>, claim: &Bound<'py, PyAny>) -> PyResult<Claim> {
    let pattern = claim.getattr("pattern")?;
    let source: Option<String> = if pattern.is_none() {
        None
    } else {
        Some(pattern.getattr("pattern")?.extract()?)
    };
    let (pattern, never) = match &source {
        None => (None, false),
        Some(source) => match python_pattern(source).map_err(PyValueError::new_err)? {
            None => (None, true),
            Some(translated) => {
                let anchored = format!("^(?:{translated})");
                let compiled = regex::Regex::new(&anchored)
                    .map_err(|e| PyValueError::new_err(format!("{source:?}: {e}")))?;
                (Some(compiled), false)
            }
        },
    };
    Ok(Claim {
        member: claim.getattr("member")?.extract()?,
        opener: read_opener(blocks, &claim.getattr("opener")?)?,
        pattern,
        source,
        never,
        takes_rest: claim.getattr("takes_rest")?.extract()?,
    })
}

fn read_auto<'py>(blocks: &mut Blocks<'py>, auto: &Bound<'py, PyAny>) -> PyResult<Auto> {
    let mut claims = Vec::new();
    for (term, owned) in auto.getattr("claims")?.downcast::<PyDict>()?.iter() {
        let owned = owned
            .try_iter()?
            .map(|claim| read_claim(blocks, &claim?))
            .collect::<PyResult<Vec<_>>>()?;
        claims.push((Terminal::read(&term)?, owned));
    }
    let mut owners: Vec<Option<String>> = Vec::new();
    for (block, member) in auto.getattr("owners")?.downcast::<PyDict>()?.iter() {
        let index = block_index(blocks, &block)?;
        owners.resize(blocks.len(), None);
        owners[index] = Some(member.extract()?);
    }
    owners.resize(blocks.len(), None);
    let members = auto
        .getattr("members")?
        .downcast::<PyDict>()?
        .iter()
        .map(|(name, member)| Ok((name.extract()?, Tables::read(&member)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let deciders = auto
        .getattr("deciders")?
        .downcast::<PyDict>()?
        .iter()
        .map(|(marker, member)| Ok((marker.extract()?, member.extract()?)))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Auto {
        members,
        owners,
        claims,
        deciders,
    })
}

impl Tables {
    /// Read the tables of a `CompiledGrammar`.
    pub fn read<'py>(compiled: &Bound<'py, PyAny>) -> PyResult<Tables> {
        let mut blocks: Blocks<'py> = Vec::new();
        let mut opener_steps = Vec::new();
        for (term, spec) in compiled
            .getattr("opener_steps")?
            .downcast::<PyDict>()?
            .iter()
        {
            opener_steps.push((Terminal::read(&term)?, read_opener(&mut blocks, &spec)?));
        }
        let start = compiled.getattr("start")?;
        let start = if start.is_none() {
            None
        } else {
            Some(read_opener(&mut blocks, &start)?)
        };
        let auto = compiled.getattr("auto")?;
        let auto = if auto.is_none() {
            None
        } else {
            Some(Box::new(read_auto(&mut blocks, &auto)?))
        };
        Ok(Tables {
            name: compiled.getattr("name")?.extract()?,
            openers: terms_of(&compiled.getattr("openers")?)?,
            start_openers: optional_terms(&compiled.getattr("start_openers")?)?,
            opener_steps,
            start,
            tokens: compiled.getattr("tokens")?.extract()?,
            call_ends: compiled.getattr("call_ends")?.extract()?,
            opener_prefixes: sorted_strings(&compiled.getattr("opener_prefixes")?)?,
            markup_prefixes: sorted_strings(&compiled.getattr("markup_prefixes")?)?,
            token_openers: optional_terms(&compiled.getattr("token_openers")?)?,
            auto,
            blocks: blocks.into_iter().map(|(_, block)| block).collect(),
        })
    }
}

// -- the Python view, for the differential test --------------------------------------------

fn terms_list<'py>(py: Python<'py>, terms: &[Terminal]) -> PyResult<Bound<'py, PyAny>> {
    let items = terms
        .iter()
        .map(|t| t.describe(py))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, items)?.into_any())
}

fn optional_terms_list<'py>(
    py: Python<'py>,
    terms: &Option<Vec<Terminal>>,
) -> PyResult<Bound<'py, PyAny>> {
    match terms {
        Some(terms) => terms_list(py, terms),
        None => Ok(py.None().into_bound(py)),
    }
}

fn chars_text(chars: &[u32]) -> String {
    chars.iter().filter_map(|&c| char::from_u32(c)).collect()
}

fn pairs<'py>(
    py: Python<'py>,
    items: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
) -> PyResult<Bound<'py, PyAny>> {
    let items = items
        .into_iter()
        .map(|(a, b)| PyTuple::new(py, [a, b]))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, items)?.into_any())
}

impl Region {
    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let view = PyDict::new(py);
        view.set_item("name", &self.name)?;
        view.set_item("terms", terms_list(py, &self.terms)?)?;
        view.set_item("firsts", self.firsts.as_ref().map(|f| chars_text(f)))?;
        let steps = self
            .steps
            .iter()
            .map(|(t, s)| Ok((t.describe(py)?, s.describe(py)?)))
            .collect::<PyResult<Vec<_>>>()?;
        view.set_item("steps", pairs(py, steps)?)?;
        view.set_item("otherwise", describe_optional(py, &self.otherwise)?)?;
        view.set_item("at_end", describe_optional(py, &self.at_end)?)?;
        match &self.kind {
            RegionKind::Space { chars } => {
                view.set_item("kind", "CSpace")?;
                let chars = chars
                    .iter()
                    .map(|(c, s)| {
                        Ok((
                            chars_text(&[*c]).into_pyobject(py)?.into_any(),
                            s.describe(py)?,
                        ))
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                view.set_item("chars", pairs(py, chars)?)?;
            }
            RegionKind::Name {
                max_len,
                strip,
                declared,
                breakers,
                longest,
                reach,
            } => {
                view.set_item("kind", "CName")?;
                view.set_item("max_len", max_len)?;
                view.set_item("strip", strip)?;
                view.set_item("declared", declared)?;
                view.set_item(
                    "breakers",
                    breakers.as_ref().map(|b| (chars_text(&b.chars), b.spaces)),
                )?;
                view.set_item("longest", longest)?;
                view.set_item("reach", reach)?;
            }
            RegionKind::JsonCalls {
                then,
                separators,
                name_keys,
                argument_keys,
            } => {
                view.set_item("kind", "CJsonCalls")?;
                view.set_item("then", then)?;
                view.set_item("separators", separators)?;
                view.set_item(
                    "keys",
                    (
                        PyTuple::new(py, name_keys)?,
                        PyTuple::new(py, argument_keys)?,
                    ),
                )?;
            }
            RegionKind::JsonArgs { then } => {
                view.set_item("kind", "CJsonArgs")?;
                view.set_item("then", then)?;
            }
            RegionKind::Value {
                conditions,
                xml,
                nest,
                nest_at_line_start,
                keep_newlines,
                balanced,
                closers,
                closed_by_key,
            } => {
                view.set_item("kind", "CValue")?;
                let conditions = conditions
                    .iter()
                    .map(|(t, c)| {
                        let condition = (
                            optional_terms_list(py, &c.confirm)?,
                            c.end_of_stream,
                            c.line_start,
                        );
                        Ok((t.describe(py)?, condition.into_pyobject(py)?.into_any()))
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                view.set_item("conditions", pairs(py, conditions)?)?;
                view.set_item("xml", xml)?;
                let nest = nest
                    .iter()
                    .map(|(a, b)| Ok((a.describe(py)?, b.describe(py)?)))
                    .collect::<PyResult<Vec<_>>>()?;
                view.set_item("nest", pairs(py, nest)?)?;
                view.set_item("nest_at_line_start", nest_at_line_start)?;
                view.set_item("keep_newlines", keep_newlines)?;
                view.set_item("balanced", balanced)?;
                view.set_item("closers", closers.clone())?;
                view.set_item("closed_by_key", closed_by_key)?;
            }
            RegionKind::Skip => view.set_item("kind", "CSkip")?,
            RegionKind::Literal { specials } => {
                view.set_item("kind", "CLiteral")?;
                view.set_item("specials", chars_text(&specials.chars))?;
            }
        }
        Ok(view.into_any())
    }
}

impl Opener {
    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok((
            self.block,
            self.region,
            self.lenient,
            describe_optional(py, &self.step)?,
            self.again,
        )
            .into_pyobject(py)?
            .into_any())
    }
}

fn describe_tables<'py>(py: Python<'py>, t: &Tables) -> PyResult<Bound<'py, PyAny>> {
    let view = PyDict::new(py);
    view.set_item("name", &t.name)?;
    view.set_item("openers", terms_list(py, &t.openers)?)?;
    view.set_item("start_openers", optional_terms_list(py, &t.start_openers)?)?;
    let opener_steps = t
        .opener_steps
        .iter()
        .map(|(term, opener)| Ok((term.describe(py)?, opener.describe(py)?)))
        .collect::<PyResult<Vec<_>>>()?;
    view.set_item("opener_steps", pairs(py, opener_steps)?)?;
    view.set_item(
        "start",
        match &t.start {
            Some(opener) => opener.describe(py)?,
            None => py.None().into_bound(py),
        },
    )?;
    view.set_item("tokens", t.tokens)?;
    view.set_item("call_ends", &t.call_ends)?;
    view.set_item("opener_prefixes", t.opener_prefixes.clone())?;
    view.set_item("markup_prefixes", t.markup_prefixes.clone())?;
    view.set_item("token_openers", optional_terms_list(py, &t.token_openers)?)?;
    view.set_item(
        "auto",
        match &t.auto {
            Some(auto) => describe_auto(py, auto)?,
            None => py.None().into_bound(py),
        },
    )?;
    let blocks = t
        .blocks
        .iter()
        .map(|block| {
            let view = PyDict::new(py);
            view.set_item(
                "closer",
                match &block.closer {
                    Some(closer) => closer.describe(py)?,
                    None => py.None().into_bound(py),
                },
            )?;
            let regions = block
                .regions
                .iter()
                .map(|r| r.describe(py))
                .collect::<PyResult<Vec<_>>>()?;
            view.set_item("regions", regions)?;
            view.set_item("skip", block.skip.describe(py)?)?;
            view.set_item("xml", block.xml)?;
            view.set_item("literal", block.literal)?;
            Ok(view.into_any())
        })
        .collect::<PyResult<Vec<_>>>()?;
    view.set_item("blocks", blocks)?;
    Ok(view.into_any())
}

fn describe_auto<'py>(py: Python<'py>, auto: &Auto) -> PyResult<Bound<'py, PyAny>> {
    let view = PyDict::new(py);
    let members = auto
        .members
        .iter()
        .map(|(name, tables)| {
            Ok((
                PyString::new(py, name).into_any(),
                describe_tables(py, tables)?,
            ))
        })
        .collect::<PyResult<Vec<_>>>()?;
    view.set_item("members", pairs(py, members)?)?;
    view.set_item("owners", auto.owners.clone())?;
    let claims = auto
        .claims
        .iter()
        .map(|(term, claims)| {
            let claims = claims
                .iter()
                .map(|c| {
                    Ok((
                        c.member.clone(),
                        c.opener.describe(py)?,
                        c.source.clone(),
                        c.never,
                        c.takes_rest,
                    )
                        .into_pyobject(py)?
                        .into_any())
                })
                .collect::<PyResult<Vec<_>>>()?;
            Ok((term.describe(py)?, PyList::new(py, claims)?.into_any()))
        })
        .collect::<PyResult<Vec<_>>>()?;
    view.set_item("claims", pairs(py, claims)?)?;
    view.set_item("deciders", auto.deciders.clone())?;
    Ok(view.into_any())
}

/// `_native.Tables(compiled)`: a `CompiledGrammar` read into the native core.
#[pyclass(module = "toolparse._native", name = "Tables", frozen)]
pub struct PyTables {
    pub tables: Tables,
}

#[pymethods]
impl PyTables {
    #[new]
    fn new(compiled: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyTables {
            tables: Tables::read(compiled)?,
        })
    }

    /// The tables as plain Python values (lists, tuples, dicts, strings and
    /// numbers), for comparing with the Python tables they were read from.
    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        describe_tables(py, &self.tables)
    }

    /// Whether claim `k` of the shared opener `term` (auto's tables) holds
    /// for `window`, the text right after the opener (`LOOKAHEAD` characters
    /// at most; a lone surrogate is read as U+FFFD, which no claim names).
    fn claim_matches(
        &self,
        term: &Bound<'_, PyAny>,
        k: usize,
        window: &Bound<'_, PyString>,
    ) -> PyResult<bool> {
        let term = Terminal::read(term)?;
        let auto = self
            .tables
            .auto
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("these tables are not auto's"))?;
        let (_, claims) = auto
            .claims
            .iter()
            .find(|(known, _)| *known == term)
            .ok_or_else(|| PyValueError::new_err("no claim on that opener"))?;
        let claim = claims
            .get(k)
            .ok_or_else(|| PyValueError::new_err("no such claim"))?;
        Ok(claim.matches(&window.to_string_lossy()))
    }

    /// How many blocks the tables hold.
    #[getter]
    fn blocks(&self) -> usize {
        self.tables.blocks.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_spaces_are_str_isspace() {
        // (the characters CPython's str.isspace() is true for)
        let spaces: Vec<u32> = (0..0x3001).filter(|&c| is_python_space(c)).collect();
        let mut expected: Vec<u32> = (0x09..=0x0d).chain(0x1c..=0x20).collect();
        expected.extend([0x85, 0xa0, 0x1680]);
        expected.extend(0x2000..=0x200a);
        expected.extend([0x2028, 0x2029, 0x202f, 0x205f, 0x3000]);
        assert_eq!(spaces, expected);
    }

    #[test]
    fn a_char_class_has_its_chars_and_maybe_spaces() {
        let class = CharClass::new("<>&".chars(), true);
        assert!(class.has('<' as u32) && class.has('&' as u32) && class.has(0x3000));
        assert!(!class.has('a' as u32));
        let class = CharClass::new("<".chars(), false);
        assert!(!class.has(' ' as u32));
    }

    fn claim(source: &str) -> regex::Regex {
        let translated = python_pattern(source).unwrap().unwrap();
        regex::Regex::new(&format!("^(?:{translated})")).unwrap()
    }

    #[test]
    fn python_patterns_read_alike() {
        assert_eq!(python_pattern("(?!)"), Ok(None));
        // (Python's \s: str.isspace, with the separators U+001C to U+001F)
        let spaces = claim(r"\s*[\[{]");
        assert!(spaces.is_match("\u{1c}\u{85}\u{3000} {"));
        assert!(!spaces.is_match("x{"));
        let name = claim(r#"[^\s<>=/\"']{1,128}>\s*\{"#);
        assert!(name.is_match("get_weather>\n{"));
        assert!(!name.is_match("get weather>{"));
        assert!(!name.is_match(&format!("{}>{{", "x".repeat(129))));
        assert!(claim(r"\s*<\uff5ctool_call_begin\uff5c>")
            .is_match(" <\u{ff5c}tool_call_begin\u{ff5c}>"));
        assert!(claim(r"\s*(?:<|function=)").is_match("function=f"));
        assert!(claim(r"\-\ \#").is_match("- #"));
        for refused in [
            r"(?=x)",
            r"(?<=x)",
            r"\w",
            r"\d+",
            r"^x",
            r"x$",
            r"\Z",
            r"(?P<a>x)",
            r"[a",
        ] {
            assert!(python_pattern(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn tag_terms_and_reasons_round_trip_their_names() {
        for (term, name) in TagTerm::ALL {
            assert_eq!(TagTerm::named(name), Some(term));
            assert_eq!(term.name(), name);
        }
        for (reason, value) in Reason::ALL {
            assert_eq!(reason.value(), value);
        }
    }
}
