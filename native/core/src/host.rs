//! What the engine needs of the program that runs it: where its events go
//! (a [`Sink`], one per feed or close) and what only that program knows (a
//! [`Host`]: how calls are named by their events, ids made by a caller's
//! factory, a caller's own checks of a call, test hooks).
//!
//! The engine is generic over the host, so each program's events are built
//! where they are made, with no event type in between: the Python binding's
//! sink writes `toolparse.events` objects, a Rust program's its own
//! events. Values (arguments, schemas, issues) are the core's own
//! ([`crate::coercion::Value`]) on every host, and the calls' services are
//! the core's ([`crate::call_env::CallEnv`]).

use crate::coercion::oracle::RustError;
use crate::coercion::Value;
use crate::grammar::Reason;
use crate::runtime::GrammarRt;
use crate::sink::Text;

/// What kind of internal inconsistency a [`Bug`] is (the Python exception
/// the reference would raise at the same place).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BugKind {
    /// `ValueError`.
    Value,
    /// `AssertionError`.
    Assertion,
    /// `RuntimeError`.
    Runtime,
    /// An option the grammar cannot take (`InvalidOptionError`): a caller's
    /// mistake found only once `grammar="auto"` decided its member.
    Option,
}

/// An internal inconsistency of the engine: a bug, never the model's output
/// (that becomes an error event).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bug {
    pub kind: BugKind,
    pub what: String,
}

impl Bug {
    /// A `ValueError` at `what`.
    pub fn value(what: impl Into<String>) -> Bug {
        Bug {
            kind: BugKind::Value,
            what: what.into(),
        }
    }

    /// An `AssertionError` at `what`.
    pub fn assertion(what: impl Into<String>) -> Bug {
        Bug {
            kind: BugKind::Assertion,
            what: what.into(),
        }
    }

    /// A `RuntimeError` at `what`.
    pub fn runtime(what: impl Into<String>) -> Bug {
        Bug {
            kind: BugKind::Runtime,
            what: what.into(),
        }
    }
}

impl std::fmt::Display for Bug {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            BugKind::Value => "ValueError",
            BugKind::Assertion => "AssertionError",
            BugKind::Runtime => "RuntimeError",
            BugKind::Option => "InvalidOptionError",
        };
        write!(f, "{kind}: {}", self.what)
    }
}

/// One call or error inside a block (`toolparse.engine.calls.Outcome`).
pub struct Outcome<H: Host> {
    /// Where its raw text ends (None: at the block's end).
    pub end: Option<i64>,
    /// The call's name (generalized UTF-8).
    pub name: Option<Vec<u8>>,
    /// The call, once announced.
    pub call: Option<H::Call>,
    /// Its arguments' JSON text (generalized UTF-8; `json.loads` of it is
    /// the call's arguments): each sink reads it as it needs it.
    pub arguments: Option<Vec<u8>>,
    /// None: a call.
    pub reason: Option<Reason>,
    /// Generalized UTF-8.
    pub message: Vec<u8>,
    /// What coercion changed or could not fix (`rust_calls::issue_value`s).
    pub issues: Vec<Value>,
    /// The host's own check of the call ([`Host::check`]).
    pub checked: Option<H::Checked>,
}

impl<H: Host> Outcome<H> {
    /// An error with no call behind it.
    pub fn error(
        end: Option<i64>,
        name: Option<Vec<u8>>,
        reason: Reason,
        message: Vec<u8>,
    ) -> Self {
        Outcome {
            end,
            name,
            call: None,
            arguments: None,
            reason: Some(reason),
            message,
            issues: Vec::new(),
            checked: None,
        }
    }
}

/// What only the program running the engine knows (see the module docs).
pub trait Host: Sized {
    /// A started call, as its events name it (its index and id).
    type Call: Clone;
    /// What the host adds to a call whose arguments are complete
    /// ([`Host::check`]; Python: a pydantic model's validation).
    type Checked;
    /// Why the engine stopped: a host's failure, or a [`Bug`].
    type Error;
    /// One feed's (or close's) events.
    type Out<'o>: Sink<Self>;

    /// The host's error for an internal inconsistency.
    fn bug(bug: Bug) -> Self::Error;

    /// The host's error for a failure of the core's call services.
    fn core_error(err: RustError) -> Self::Error;

    /// A new call's index and id (`CallContext.assign`).
    fn assign(&mut self, out: &mut Self::Out<'_>) -> Result<Self::Call, Self::Error>;

    /// The index the next call gets (`CallContext.next_index`).
    fn next_index(&self, out: &mut Self::Out<'_>) -> Result<i64, Self::Error>;

    /// A Python literal the core's reader declines (a `\N{...}` escape, a
    /// very long integer, deep nesting), read by the host if it can: its
    /// value, or why it is no literal (generalized UTF-8). None: the host
    /// cannot read it either.
    fn literal(
        &mut self,
        _out: &mut Self::Out<'_>,
        _text: &str,
        _max_depth: usize,
    ) -> Result<Option<Result<Value, Vec<u8>>>, Self::Error> {
        Ok(None)
    }

    /// The host's check of a call to `name` whose arguments (their JSON
    /// text) are complete.
    fn check(
        &mut self,
        out: &mut Self::Out<'_>,
        name: &[u8],
        arguments: Option<&[u8]>,
    ) -> Result<Option<Self::Checked>, Self::Error>;

    /// (tests) fail at the named place, where a test planted a bug.
    fn planted(&self, _place: &str) -> Result<(), Self::Error> {
        Ok(())
    }

    /// (tests) a read of `text` begins.
    fn record_read(&self, _out: &mut Self::Out<'_>, _text: &[u32]) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Reasoning that may never close let go of `head` (its kept window
    /// moved on): read it, as far as a shadow read of it must, so that its
    /// Markdown is known where the window begins (`thought_read`). A host
    /// that reads no calls in unclosed reasoning does nothing.
    fn thought_read(
        &mut self,
        _out: &mut Self::Out<'_>,
        _grammar: &GrammarRt,
        _head: &[u32],
        _max_call_chars: i64,
    ) -> Result<(), Self::Error> {
        Ok(())
    }

    /// A thought began or ended: what [`Host::thought_read`] read of the
    /// last one is forgotten.
    fn thought_reset(&mut self) {}

    /// The stream ended in reasoning whose kept text is `thought` (from
    /// stream position `offset`): the calls it completes, as events
    /// (`shadow_calls`: reported, or salvaged as calls). A host that reads
    /// no calls in unclosed reasoning reports none.
    #[allow(clippy::too_many_arguments)]
    fn shadow_calls(
        &mut self,
        _out: &mut Self::Out<'_>,
        _grammar: &GrammarRt,
        _thought: &[u32],
        _max_call_chars: i64,
        _salvage: bool,
        _offset: i64,
    ) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Where one feed's (or close's) events go. The engine says what each event
/// holds and where its text is ([`Text`]); the sink builds its own events.
///
/// Two rules of the event list are the sink's to keep, as the events come
/// (so no one reads the list back): a run of adjacent reasoning is one event
/// (see [`ReasoningRun`]), and with `collapse` (a forced answer given
/// whole) no call start or argument delta comes out.
pub trait Sink<H: Host> {
    /// A text event.
    fn text(&mut self, text: Text<'_>) -> Result<(), H::Error>;
    /// Reasoning: `text` shown, `raw` as written (its markup too).
    fn reasoning(&mut self, text: &[u32], raw: &[u32]) -> Result<(), H::Error>;
    /// The whole delta fed is reasoning, shown as written (`points`: its
    /// code points, for a sink that cannot give the delta on as it is).
    fn reasoning_input(&mut self, points: impl FnOnce() -> Vec<u32>) -> Result<(), H::Error>;
    /// A call begins.
    fn call_start(&mut self, call: &H::Call, name: &[u8]) -> Result<(), H::Error>;
    /// A piece of a call's arguments' JSON.
    fn call_delta(&mut self, call: &H::Call, piece: Text<'_>) -> Result<(), H::Error>;
    /// A call's or an error's end: its outcome, its raw text and where that
    /// begins in the stream.
    fn outcome(&mut self, outcome: Outcome<H>, raw: Text<'_>, offset: i64) -> Result<(), H::Error>;
}

/// A run of reasoning not written yet, joined (a sink's first rule): its
/// text and raw text.
#[derive(Default)]
pub struct ReasoningRun {
    pub text: Vec<u32>,
    pub raw: Vec<u32>,
    pub open: bool,
}

impl ReasoningRun {
    /// Add reasoning to the run.
    pub fn add(&mut self, text: &[u32], raw: &[u32]) {
        self.text.extend_from_slice(text);
        self.raw.extend_from_slice(raw);
        self.open = true;
    }

    /// The run's text and raw text, if one is open; the run is then closed.
    pub fn take(&mut self) -> Option<(Vec<u32>, Vec<u32>)> {
        if !self.open {
            return None;
        }
        self.open = false;
        Some((
            std::mem::take(&mut self.text),
            std::mem::take(&mut self.raw),
        ))
    }
}
