//! Parsing a model's output from Rust: [`Parser`] runs the engine on a
//! grammar's data with no Python, and gives [`Event`]s.
//!
//! ```
//! use toolparse_core::parser::{Event, Parser, ParserOptions};
//!
//! let mut parser = Parser::named("hermes", ParserOptions::default()).unwrap();
//! let mut events = Vec::new();
//! for delta in ["Sure. <tool_", "call>{\"name\": \"f\", ", "\"arguments\": {\"x\": 1}}</tool_call>"] {
//!     events.extend(parser.feed(delta).unwrap());
//! }
//! events.extend(parser.close().unwrap());
//! let calls: Vec<_> = events
//!     .iter()
//!     .filter_map(|e| match e {
//!         Event::ToolCall { name, arguments, .. } => Some((name.as_str(), arguments.as_str())),
//!         _ => None,
//!     })
//!     .collect();
//! assert_eq!(calls, [("f", "{\"x\":1}")]);
//! ```
//!
//! The events are the Python package's (`toolparse.events`), with a call's
//! arguments as JSON text. What the Python host alone does is not here: a
//! caller's id factory, pydantic validation, and calls found in reasoning
//! that never closed (this host reports none).

use std::sync::Arc;

use crate::coercion::oracle::RustError;
use crate::coercion::Value;
use crate::context::{Context, Tools};
use crate::engine::{start_error, Engine, Options, ReasoningCalls, Start};
use crate::grammar::{Reason, Tables};
use crate::host::{Bug, Host, Outcome, ReasoningRun, Sink};
use crate::ids::{IdSource, RandomIds, SeededIds};
use crate::lexicon::Name;
use crate::runtime::{build, GrammarRt};
use crate::rust_calls::{issue_of, RustTools};
use crate::sink::Text;
use crate::start_scanner::{start_scanner, ReasoningOption};
use crate::wide;

/// `toolparse.limits.DEFAULT_MAX_CALL_CHARS`.
pub const DEFAULT_MAX_CALL_CHARS: i64 = 4 * 1024 * 1024;
/// `toolparse.limits.DEFAULT_MAX_DEPTH`.
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// One event of the output (`toolparse.events`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Visible text.
    Text(String),
    /// Reasoning: `text` shown, `raw` as written (its markup too).
    Reasoning { text: String, raw: String },
    /// A call begins.
    ToolCallStart {
        index: i64,
        id: String,
        name: String,
    },
    /// A piece of a call's arguments' JSON (the pieces of a call join into
    /// its `arguments`).
    ToolCallDelta {
        index: i64,
        id: String,
        arguments_delta: String,
    },
    /// A complete call: its arguments as JSON text, its raw markup, and what
    /// coercion to the tool's schema changed or could not fix.
    ToolCall {
        index: i64,
        id: String,
        name: String,
        arguments: String,
        raw: String,
        issues: Vec<String>,
    },
    /// Markup that is no call, or a call that failed, with why and its raw text.
    ToolCallError {
        reason: Reason,
        message: String,
        raw: String,
        offset: i64,
        name: Option<String>,
        index: Option<i64>,
        id: Option<String>,
        arguments: Option<String>,
    },
}

/// Why a parser stopped: a caller's mistake, or a bug inside the engine
/// (the parser then refuses to go on). Malformed model output is never one:
/// it becomes an [`Event::ToolCallError`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The engine found itself inconsistent, or an option it cannot take.
    Bug(Bug),
    /// A call service failed (a bug, or a caller's bad tool).
    Core(String),
    /// No grammar of this name is bundled.
    UnknownGrammar(String),
    /// `feed` or `close` after `close`, or after an error.
    Closed,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Bug(bug) => write!(f, "{bug}"),
            ParseError::Core(why) => write!(f, "{why}"),
            ParseError::UnknownGrammar(name) => write!(f, "no grammar named {name:?}"),
            ParseError::Closed => write!(f, "the parser is closed"),
        }
    }
}

impl std::error::Error for ParseError {}

/// A started call, as its events name it.
#[derive(Clone, Debug)]
pub struct RustCall {
    pub index: i64,
    pub id: Arc<str>,
}

/// The host of a Rust program: ids made here, nothing checked beyond the
/// schema.
pub struct RustHost {
    ids: IdSource,
    next_index: i64,
}

impl RustHost {
    /// Random ids (`seed`: `random.Random(seed)`'s, as Python's `seed=`).
    pub fn new(seed: Option<i128>) -> RustHost {
        RustHost {
            ids: match seed {
                None => IdSource::Random(RandomIds::new()),
                Some(seed) => IdSource::Seeded(SeededIds::new(seed)),
            },
            next_index: 0,
        }
    }
}

impl Host for RustHost {
    type Call = RustCall;
    type Checked = ();
    type Error = ParseError;
    type Out<'o> = VecSink<'o>;

    fn bug(bug: Bug) -> ParseError {
        ParseError::Bug(bug)
    }

    fn core_error(err: RustError) -> ParseError {
        ParseError::Core(format!("{err:?}"))
    }

    fn assign(&mut self, _out: &mut VecSink<'_>) -> Result<RustCall, ParseError> {
        let index = self.next_index;
        self.next_index += 1;
        let id = self.ids.next_id();
        let id = String::from_utf8_lossy(&id).into_owned();
        Ok(RustCall {
            index,
            id: id.into(),
        })
    }

    fn next_index(&self, _out: &mut VecSink<'_>) -> Result<i64, ParseError> {
        Ok(self.next_index)
    }

    fn check(
        &mut self,
        _out: &mut VecSink<'_>,
        _name: &[u8],
        _arguments: Option<&[u8]>,
    ) -> Result<Option<()>, ParseError> {
        Ok(None)
    }
}

/// The events of one feed or close, as [`Event`]s.
pub struct VecSink<'o> {
    /// The delta fed ([`Text::Input`]).
    input: &'o str,
    collapse: bool,
    events: Vec<Event>,
    reasoning: ReasoningRun,
}

impl<'o> VecSink<'o> {
    /// No events yet, of a feed of `input` (empty for a close).
    pub fn new(input: &'o str, collapse: bool) -> Self {
        VecSink {
            input,
            collapse,
            events: Vec::new(),
            reasoning: ReasoningRun::default(),
        }
    }

    /// The events, the reasoning run last joined.
    pub fn finish(mut self) -> Vec<Event> {
        self.flush();
        self.events
    }

    fn flush(&mut self) {
        if let Some((text, raw)) = self.reasoning.take() {
            self.events.push(Event::Reasoning {
                text: string_of_points(&text),
                raw: string_of_points(&raw),
            });
        }
    }

    fn push(&mut self, event: Event) {
        self.flush();
        self.events.push(event);
    }

    /// The text `text` stands for.
    fn string(&self, text: Text<'_>) -> String {
        match text {
            Text::Input => self.input.to_owned(),
            Text::InputTo(n) => self.input.chars().take(n).collect(),
            Text::Points(points) => string_of_points(points),
            Text::Latin1(bytes) => bytes.iter().map(|&b| char::from(b)).collect(),
            Text::Joined(first, rest) => std::iter::once(first)
                .chain(rest.iter().copied())
                .map(char::from)
                .collect(),
            Text::Str(text) => text.to_owned(),
            Text::Wide(bytes) => wide::lossy(bytes),
        }
    }
}

/// Code points as a `String` (a lone surrogate, which no `&str` holds,
/// becomes U+FFFD).
fn string_of_points(points: &[u32]) -> String {
    points
        .iter()
        .map(|&c| char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

impl Sink<RustHost> for VecSink<'_> {
    fn text(&mut self, text: Text<'_>) -> Result<(), ParseError> {
        let text = self.string(text);
        self.push(Event::Text(text));
        Ok(())
    }

    fn reasoning(&mut self, text: &[u32], raw: &[u32]) -> Result<(), ParseError> {
        self.reasoning.add(text, raw);
        Ok(())
    }

    fn reasoning_input(&mut self, points: impl FnOnce() -> Vec<u32>) -> Result<(), ParseError> {
        let points = points();
        self.reasoning.add(&points, &points);
        Ok(())
    }

    fn call_start(&mut self, call: &RustCall, name: &[u8]) -> Result<(), ParseError> {
        if !self.collapse {
            self.push(Event::ToolCallStart {
                index: call.index,
                id: call.id.to_string(),
                name: wide::lossy(name),
            });
        }
        Ok(())
    }

    fn call_delta(&mut self, call: &RustCall, piece: Text<'_>) -> Result<(), ParseError> {
        if !self.collapse {
            let arguments_delta = self.string(piece);
            self.push(Event::ToolCallDelta {
                index: call.index,
                id: call.id.to_string(),
                arguments_delta,
            });
        }
        Ok(())
    }

    fn outcome(
        &mut self,
        outcome: Outcome<RustHost>,
        raw: Text<'_>,
        offset: i64,
    ) -> Result<(), ParseError> {
        let raw = self.string(raw);
        let name = outcome.name.as_deref().map(wide::lossy);
        let arguments = outcome.arguments.as_deref().map(wide::lossy);
        let event = match outcome.reason {
            None => Event::ToolCall {
                index: outcome.call.as_ref().map_or(-1, |c| c.index),
                id: outcome
                    .call
                    .as_ref()
                    .map_or(String::new(), |c| c.id.to_string()),
                name: name.unwrap_or_default(),
                arguments: arguments.unwrap_or_else(|| "null".to_owned()),
                raw,
                issues: outcome
                    .issues
                    .iter()
                    .filter_map(issue_of)
                    .map(|issue| {
                        format!(
                            "{}: expected {}, got {}: {}",
                            wide::lossy(&issue.path),
                            wide::lossy(&issue.expected),
                            wide::lossy(&issue.got),
                            wide::lossy(&issue.action)
                        )
                    })
                    .collect(),
            },
            Some(reason) => Event::ToolCallError {
                reason,
                message: wide::lossy(&outcome.message),
                raw,
                offset,
                name,
                index: outcome.call.as_ref().map(|c| c.index),
                id: outcome.call.as_ref().map(|c| c.id.to_string()),
                arguments,
            },
        };
        self.push(event);
        Ok(())
    }
}

/// A [`Parser`]'s options (`toolparse.StreamParser`'s, with its defaults).
#[derive(Clone, Debug)]
pub struct ParserOptions {
    /// The declared tools (None: any name is a tool, values as written).
    pub tools: Option<Arc<RustTools>>,
    /// Where reasoning is (`"auto"`: the grammar's own markers, else `<think>`).
    pub reasoning: ReasoningOption,
    /// Coerce each value to its tool's schema.
    pub coerce: bool,
    pub max_depth: usize,
    pub max_call_chars: i64,
    /// A call that fails is shown as text too.
    pub errors_as_text: bool,
    /// Calls found in reasoning that never closed: reported (this host
    /// finds none yet), salvaged, or ignored.
    pub reasoning_calls: ReasoningCalls,
    /// The seed of the call ids (None: random ones).
    pub seed: Option<i128>,
}

impl Default for ParserOptions {
    fn default() -> Self {
        ParserOptions {
            tools: None,
            reasoning: ReasoningOption::Auto,
            coerce: true,
            max_depth: DEFAULT_MAX_DEPTH,
            max_call_chars: DEFAULT_MAX_CALL_CHARS,
            errors_as_text: false,
            reasoning_calls: ReasoningCalls::Report,
            seed: None,
        }
    }
}

/// The data of the bundled grammar `name` (`grammars/<name>.json`).
pub fn grammar_data(name: &str) -> Option<&'static str> {
    crate::bundled::GRAMMARS
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, data)| *data)
}

/// The runtime tables of grammar data (auto's members from the bundle).
fn grammar_of(tables: Arc<Tables>) -> Result<Arc<GrammarRt>, ParseError> {
    let mut member_of = |_name: &str, data: &Arc<Tables>| {
        build(data.clone(), None, &mut |_, _| {
            Err("a member of a member".to_owned())
        })
        .map(Arc::new)
    };
    build(tables, None, &mut member_of)
        .map(Arc::new)
        .map_err(ParseError::Core)
}

/// A stream parser: feed it the model's output as it comes.
pub struct Parser {
    engine: Engine<RustHost>,
    /// Closed, or stopped by an error.
    done: bool,
}

impl Parser {
    /// A parser of the bundled grammar `name` (`"hermes"`, `"auto"`, ...).
    pub fn named(name: &str, options: ParserOptions) -> Result<Parser, ParseError> {
        let data = grammar_data(name).ok_or_else(|| ParseError::UnknownGrammar(name.to_owned()))?;
        let tables = Tables::from_json(data).map_err(ParseError::Core)?;
        Parser::new(Arc::new(tables), options)
    }

    /// A parser of the grammar data `tables`.
    pub fn new(tables: Arc<Tables>, options: ParserOptions) -> Result<Parser, ParseError> {
        let grammar = grammar_of(tables)?;
        let tables = &grammar.tables;
        // (auto: this is its own; each member's, once decided, is what the
        // option means for that member)
        let reasoning = options.reasoning.for_grammar(tables);
        let openers = !tables.openers.is_empty();
        let answer = tables.start.is_some() && (reasoning.is_some() || openers);
        let keeps = reasoning.is_some()
            && options.reasoning_calls != ReasoningCalls::Ignore
            && tables.start.is_none();
        let tool_names: Option<Vec<String>> = options
            .tools
            .as_ref()
            .map(|tools| tools.names().iter().map(|n| (*n).to_owned()).collect());
        let parts = start_scanner(tables, tool_names.as_deref(), reasoning.as_ref(), answer)
            .map_err(start_error::<RustHost>)?;
        let opts = Options {
            errors_as_text: options.errors_as_text,
            max_call_chars: options.max_call_chars,
            collapse: false,
            unknown_on_error: false,
            lanes: true,
            reasoning_calls: options.reasoning_calls,
        };
        let start = Start {
            grammar: grammar.clone(),
            parts,
            reasoning: options.reasoning.clone(),
            opts,
            thought: keeps && openers,
        };
        let tools = options.tools.clone().map(|t| Arc::new(Tools::new(t)));
        let ctx =
            Context::new(tools, options.max_depth, options.coerce).map_err(RustHost::core_error)?;
        let mut out = VecSink::new("", false);
        let engine = Engine::new(start, RustHost::new(options.seed), ctx, &mut out)?;
        Ok(Parser {
            engine,
            done: false,
        })
    }

    /// Read `delta`, the next piece of the output: the events it completes.
    pub fn feed(&mut self, delta: &str) -> Result<Vec<Event>, ParseError> {
        if self.done {
            return Err(ParseError::Closed);
        }
        let mut out = VecSink::new(delta, self.engine.opts.collapse);
        let fed = if delta.is_ascii() {
            // (ASCII is its own code points, a byte each)
            self.engine.feed(Name::U8(delta.as_bytes()), &mut out)
        } else {
            let points: Vec<u32> = delta.chars().map(u32::from).collect();
            self.engine.feed(Name::U32(&points), &mut out)
        };
        self.done = fed.is_err();
        fed?;
        Ok(out.finish())
    }

    /// The output ended: the events it completes (held text, an open call
    /// ended or failed).
    pub fn close(&mut self) -> Result<Vec<Event>, ParseError> {
        if self.done {
            return Err(ParseError::Closed);
        }
        self.done = true;
        let mut out = VecSink::new("", self.engine.opts.collapse);
        self.engine.close(&mut out)?;
        Ok(out.finish())
    }

    /// The grammar being read (`"auto"` until a call decides which).
    pub fn grammar_name(&self) -> &str {
        self.engine.grammar_name()
    }
}

/// What a value of the core is as JSON text (for callers that want one).
pub fn json_of(value: &Value) -> String {
    wide::lossy(&value.canonical_json())
}
