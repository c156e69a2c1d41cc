//! The sans-IO engine, natively (`toolparse.engine.core.Engine`,
//! transliterated): `feed(delta) -> events`, `close() -> events`.
//!
//! The engine alternates between the visible text and blocks of call markup:
//! in the text, the [`TextScanner`] finds the grammar's openers; inside a
//! block, a [`Machine`] runs the grammar's regions, and the engine keeps the
//! block's raw text, which it slices among the block's calls and errors when
//! the block ends. Only the engine cuts the input into events, so the events
//! concatenate back to the input. Most deltas never reach a reader: after
//! each read the engine arms one lane ([`lanes`]) that takes the deltas
//! which cannot change anything a reader would decide.
//!
//! The full path reads code points (`u32`): held text and the delta are
//! joined into one buffer, as the reference joins strings. Every name,
//! state and step is the reference's, so that a difference found by the
//! differential tests points at one function in each.

use std::sync::Arc;

use crate::context::Context;
use crate::engine::lanes::Lane;
use crate::engine::machine::{Env, Machine};
use crate::grammar::Reason;
use crate::host::{Bug, BugKind, Host, Outcome, Sink};
use crate::lexicon::Unit;
use crate::lexicon::{Key, Terminal as LTerminal};
use crate::points::Points;
use crate::runtime::{self, key_terminal, GrammarRt, OpenerRt, LOOKAHEAD_CHARS};
use crate::scan::StopSet;
use crate::sink::Text;
use crate::text::{Found, ScanHit, Source, TextScanner};

pub mod lanes;
pub mod machine;
pub mod regions;

/// Characters gathered at most inside a call before they are read (`_GATHER`).
pub const GATHER: i64 = 64;
/// The same where nothing streams (`_GATHER_QUIET`).
pub const GATHER_QUIET: i64 = 4096;
/// The least of a large delta a block is given at a time (`_WINDOW`).
pub const WINDOW: usize = 4096;
/// The most text an opener's block reads, while no grammar is decided, before
/// it announces a call (`auto.TRIAL`).
pub const TRIAL: usize = 256;
/// Reasoning kept for a call in unclosed reasoning (`thought.WINDOW`).
pub const THOUGHT_WINDOW: usize = 65_536;

/// What becomes of calls found in reasoning that never closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReasoningCalls {
    Report,
    Salvage,
    Ignore,
}

/// The engine's options (`Engine.__init__`'s).
#[derive(Clone, Copy)]
pub struct Options {
    pub errors_as_text: bool,
    pub max_call_chars: i64,
    pub collapse: bool,
    pub unknown_on_error: bool,
    pub lanes: bool,
    pub reasoning_calls: ReasoningCalls,
}

// (what the text lane needs of the scanner's lexicons, and the scanner's
// start parts: made from the grammar's data in the core)
pub use crate::start_scanner::TextLexicons;
use crate::start_scanner::{ReasoningOption, ScannerParts, StartError};

/// The native engine's state (the reference's slots, same names).
pub struct Engine<H: Host> {
    pub grammar: Arc<GrammarRt>,
    /// (`grammar="auto"`) the reasoning option: each member's reasoning is
    /// what it means for that member (`reasoning_for`).
    reasoning: ReasoningOption,
    pub scanner: TextScanner,
    /// What each declared tool's tag, spelled as a literal opener, stands for.
    spelled: Arc<crate::start_scanner::Spelled>,
    pub opener_prefixes: Prefixes,
    pub markup_prefixes: Prefixes,
    pub text_lexicons: Arc<TextLexicons>,
    pub code_lexicons: Arc<TextLexicons>,
    /// What the scanner started with (a parser made from this one starts the same).
    parts: Arc<ScannerParts>,
    /// The stream's call context, as the engine reads it.
    pub ctx: Context,
    /// What only Python knows of the stream's calls.
    pub host: H,
    pub opts: Options,
    pub answered: bool,
    /// Input a reader could not decide on yet: read again with the next delta.
    pub held: Vec<u32>,
    /// A UTF-16 pair's first half, waiting for its second.
    pub high_surrogate: Option<u32>,
    /// The block being read (its reader's place in `machines`), and the block
    /// readers kept, one per kind of block (a grammar has a few).
    pub machine: Option<usize>,
    pub machines: Vec<Machine<H>>,
    /// The current block's raw text (from `raw_base` on).
    pub raw: Points,
    pub raw_base: i64,
    /// Stream position of the first character not yet in an event.
    pub offset: i64,
    pub closed: bool,
    refeed_until: i64,
    cut_checked: bool,
    /// (`grammar="auto"`, undecided) the opener of a block not confirmed yet: no
    /// call announced (its index would be `trial_from`).
    trial: Vec<u32>,
    trial_from: i64,
    /// (the code or quote its opener, a special token, ended)
    trial_markdown: Option<crate::text::State>,
    /// The text of reasoning still open, where a call could be found in it.
    pub thought: Option<Vec<u32>>,
    /// The grammar's `call_ends`, and what ends gathering (`_gather_stops`).
    pub call_ends: StopSet,
    // -- the lanes (see lanes.rs)
    pub lane: Option<Lane>,
    pub gathered: Vec<u32>,
    pub closes_once: bool,
    pub prefix: Vec<u32>,
    pub string: Option<crate::engine::lanes::StringLane<H>>,
    pub kept: Vec<u32>,
    pub first_characters: bool,
    /// A buffer reused by the lanes (no allocation per delta).
    pub scratch: Vec<u32>,
    /// The lanes' buffer of UTF-8 text (a value's JSON), reused the same way.
    pub scratch_utf8: String,
    /// The buffer a read joins its text in, reused read after read.
    buffer: Vec<u32>,
}

/// `text[a:b]` as Python slices it (negative bounds from the end, clamped).
pub fn py_range(len: usize, a: i64, b: i64) -> (usize, usize) {
    let n = len as i64;
    let fix = |k: i64| -> usize {
        let k = if k < 0 { (k + n).max(0) } else { k.min(n) };
        k as usize
    };
    let (a, b) = (fix(a), fix(b));
    (a, b.max(a))
}

fn find_seq(text: &[u32], seq: &[u32], from: usize, to: usize) -> Option<usize> {
    let to = to.min(text.len());
    if seq.is_empty() || to < seq.len() {
        return None;
    }
    (from..=to - seq.len()).find(|&k| &text[k..k + seq.len()] == seq)
}

/// A set of held texts (the proper prefixes of a grammar's literals).
pub type Prefixes = Arc<crate::prefixes::PrefixSet>;

/// What an engine starts from (see [`Engine::new`]): the grammar's tables,
/// the start scanner made of them, the tools and the reasoning, the
/// reasoning option (`grammar="auto"`: each member's is what it means for
/// that member), the options, and whether calls in reasoning that never
/// closes are looked for.
pub struct Start {
    pub grammar: Arc<GrammarRt>,
    pub parts: Arc<ScannerParts>,
    pub reasoning: ReasoningOption,
    pub opts: Options,
    pub thought: bool,
}

impl<H: Host> Engine<H> {
    /// An engine in its first state, of what it starts from, with its host
    /// and call context (`out`: where the events of a forced answer's
    /// beginning would go; none comes).
    pub fn new(
        start: Start,
        host: H,
        ctx: Context,
        out: &mut H::Out<'_>,
    ) -> Result<Self, H::Error> {
        let Start {
            grammar,
            parts,
            reasoning,
            opts,
            thought,
        } = start;
        let answer_later = grammar.start.is_some() && parts.core.answer;
        let mut engine = Engine {
            call_ends: gather_stops(&grammar.call_ends),
            markup_prefixes: grammar.markup_prefixes.clone(),
            grammar,
            reasoning,
            scanner: parts.core.clone(),
            spelled: parts.spelled.clone(),
            opener_prefixes: parts.opener_prefixes.clone(),
            text_lexicons: parts.text_lexicons.clone(),
            code_lexicons: parts.code_lexicons.clone(),
            parts,
            ctx,
            host,
            opts,
            answered: false,
            held: Vec::new(),
            high_surrogate: None,
            machine: None,
            machines: Vec::new(),
            raw: Points::default(),
            raw_base: 0,
            offset: 0,
            closed: false,
            refeed_until: 0,
            trial: Vec::new(),
            trial_from: 0,
            trial_markdown: None,
            cut_checked: false,
            thought: thought.then(Vec::new),
            lane: None,
            gathered: Vec::new(),
            closes_once: false,
            prefix: Vec::new(),
            string: None,
            kept: Vec::new(),
            first_characters: false,
            scratch: Vec::new(),
            scratch_utf8: String::new(),
            buffer: Vec::new(),
        };
        engine.answered = engine.grammar.start.is_none();
        if let Some(start) = engine.grammar.start.clone() {
            if !answer_later {
                // the whole output is one block
                // (nothing comes of a block's beginning: no event to keep)
                engine.begin(out, &start, true, Vec::new(), 0)?;
            }
        }
        engine.lane = engine.next_lane()?;
        Ok(engine)
    }

    /// What this engine started from (a parser made from a prototype starts
    /// the same: see `toolparse.parser`'s prototypes), if it was never fed.
    pub fn start(&self) -> Option<Start> {
        if self.offset != 0 || self.closed {
            return None;
        }
        Some(Start {
            grammar: self.grammar.clone(),
            parts: self.parts.clone(),
            reasoning: self.reasoning.clone(),
            opts: self.opts,
            thought: self.thought.is_some(),
        })
    }

    /// The grammar being read.
    pub fn grammar_name(&self) -> &str {
        &self.grammar.name
    }

    /// (`grammar="auto"`) the grammar a call decided, or None while none has.
    pub fn decided(&self) -> Option<String> {
        let Some(auto) = &self.grammar.auto else {
            return Some(self.grammar.name.clone());
        };
        let machine = self.current_ref()?;
        if !machine.committed() {
            return None;
        }
        auto.owners.get(&machine.block.id).cloned()
    }

    fn env_parts(&mut self) -> (&mut Vec<Machine<H>>, &mut Context, &mut H) {
        (&mut self.machines, &mut self.ctx, &mut self.host)
    }

    /// The machine reading the current block.
    pub fn current(&mut self) -> Option<&mut Machine<H>> {
        let id = self.machine?;
        self.machines.get_mut(id)
    }

    pub fn current_ref(&self) -> Option<&Machine<H>> {
        let id = self.machine?;
        self.machines.get(id)
    }

    /// Run `f` on the current machine with the environment it reads in.
    fn with_machine<R>(
        &mut self,
        out: &mut H::Out<'_>,
        f: impl FnOnce(&mut Machine<H>, &mut Env<'_, '_, H>) -> Result<R, H::Error>,
    ) -> Result<R, H::Error> {
        let id = self
            .machine
            .ok_or_else(|| H::bug(Bug::value("no block is being read")))?;
        let (machines, ctx, host) = self.env_parts();
        let machine = machines
            .get_mut(id)
            .ok_or_else(|| H::bug(Bug::value("no block reader")))?;
        let mut env = Env { host, ctx, out };
        f(machine, &mut env)
    }

    // -- the full path -------------------------------------------------------------------

    /// `_read`: read `delta` through the scanner or the block's readers; then
    /// arm the lane for the next delta. `after_lane`: what the lane took and
    /// gave no reader is read first, together with `delta`.
    #[inline(never)] // (off the lanes' hot path: see Engine::feed)
    pub(crate) fn read_into<T: Unit>(
        &mut self,
        delta: &[T],
        after_lane: bool,
        out: &mut H::Out<'_>,
    ) -> Result<(), H::Error> {
        self.host.planted("read")?;
        // (one buffer: the held text, a pair's first half waiting, what the lane
        // gathered and kept, the delta: the reference joins the same strings)
        let mut text = std::mem::take(&mut self.buffer);
        text.clear();
        text.append(&mut self.held);
        let held = text.len();
        text.extend(self.high_surrogate.take());
        if after_lane {
            self.lane = None;
            self.closes_once = false;
            text.append(&mut self.gathered);
            text.append(&mut self.kept);
        }
        text.extend(delta.iter().map(|&c| c.into()));
        if text[held..].iter().any(|&c| (0xD800..=0xDFFF).contains(&c)) {
            let mut joined = text.split_off(held);
            crate::wide::join_surrogate_pairs(&mut joined);
            text.append(&mut joined);
            if text.len() > held && text.last().is_some_and(|&c| crate::wide::is_high(c)) {
                // a UTF-16 pair split across deltas: wait for the low half
                self.high_surrogate = text.pop();
            }
        }
        if text.len() > held {
            self.run_text(text, held, out, false)?;
        } else {
            // (nothing new: the held text waits on)
            self.held.extend_from_slice(&text);
            self.buffer = text;
        }
        self.lane = self.next_lane()?;
        Ok(())
    }

    /// `close`'s body (the boundary is the binding's): its events into `out`.
    pub fn close(&mut self, out: &mut H::Out<'_>) -> Result<(), H::Error> {
        self.closed = true;
        if self.lane.is_some() {
            // (what the lane took is read as the delta it was, then the end)
            self.read_into::<u32>(&[], true, out)?;
            self.lane = None;
        }
        let high: Vec<u32> = self.high_surrogate.take().into_iter().collect();
        self.run(high, out, true)?;
        self.host.planted("close")?;
        self.end_of_stream(out)?;
        if self.thought.as_ref().is_some_and(|t| !t.is_empty()) && self.scanner.in_reasoning() {
            self.calls_in_thought(out)?;
        }
        Ok(())
    }

    /// `_run`: read `delta` (after the held text).
    pub fn run(
        &mut self,
        delta: Vec<u32>,
        out: &mut H::Out<'_>,
        last: bool,
    ) -> Result<(), H::Error> {
        let mut text = std::mem::take(&mut self.held);
        let held = text.len();
        text.extend_from_slice(&delta);
        self.run_text(text, held, out, last)
    }

    /// `_run` of `text`, the held text (its first `held` characters) and the
    /// delta after it.
    fn run_text(
        &mut self,
        text: Vec<u32>,
        held: usize,
        out: &mut H::Out<'_>,
        last: bool,
    ) -> Result<(), H::Error> {
        let mut text = text;
        let read = self.run_in(&mut text, held, out, last);
        // (the buffer is reused by the next read: no allocation per read)
        if text.capacity() >= self.buffer.capacity() {
            self.buffer = text;
        }
        read
    }

    /// [`Engine::run_text`]'s body, on a buffer it may replace.
    fn run_in(
        &mut self,
        text: &mut Vec<u32>,
        held: usize,
        out: &mut H::Out<'_>,
        last: bool,
    ) -> Result<(), H::Error> {
        // (where calls announce themselves and stream their arguments)
        self.host.record_read(out, &text[held..])?;
        self.scanner.forget_text();
        let mut i = 0;
        let mut n = text.len();
        while i < n {
            if self.machine.is_none() {
                let in_reasoning = self.scanner.in_reasoning();
                let (j, hit) = {
                    let context = self.ctx.text_context();
                    self.scanner.scan(&text[..], i, last, &context)
                };
                if j > i {
                    let piece = &text[i..j];
                    if in_reasoning {
                        self.emit_reasoning(piece, piece, out)?;
                    } else {
                        self.offset += (j - i) as i64;
                        out.text(Text::Points(piece))?;
                    }
                }
                let Some(hit) = hit else {
                    if j < n {
                        self.held.clear();
                        self.held.extend_from_slice(&text[j..]);
                    }
                    return Ok(());
                };
                match hit.found {
                    Found::ReasoningOpen | Found::ReasoningClose | Found::Markup => {
                        if hit.end > hit.start {
                            // (reasoning a marker ends before it has no closer to show)
                            let raw = &text[hit.start..hit.end];
                            self.emit_reasoning(&[], raw, out)?; // (markup: in a reasoning event)
                        }
                        match hit.found {
                            Found::ReasoningOpen => self.scanner.enter_reasoning(),
                            Found::ReasoningClose => self.scanner.leave_reasoning(),
                            _ => {}
                        }
                        if hit.found != Found::Markup {
                            if let Some(thought) = &mut self.thought {
                                thought.clear(); // (a thought begins or ends: forget it)
                                self.host.thought_reset();
                            }
                        }
                    }
                    Found::Answer => {
                        // a forced answer begins
                        let start = self
                            .grammar
                            .start
                            .clone()
                            .ok_or_else(|| H::bug(Bug::value("an answer with no start")))?;
                        self.begin(out, &start, true, Vec::new(), 0)?;
                    }
                    Found::Terminal(source, key) => {
                        match self.open(out, text, hit, source, key, last)? {
                            None => {
                                // (auto: what follows a shared opener does not tell whose it is yet)
                                self.held.clear();
                                self.held.extend_from_slice(&text[hit.start..]);
                                if let (Some(starts), Some(term)) =
                                    (&self.grammar.start_openers, self.hit_terminal(source, key))
                                {
                                    if starts.contains(&term) {
                                        self.scanner.answer_begins_again(); // (the opener counts where the answer begins)
                                    }
                                }
                                return Ok(());
                            }
                            Some(next) => {
                                i = next;
                                continue;
                            }
                        }
                    }
                }
                i = hit.end;
                continue;
            }
            let finished = self.current_ref().is_some_and(|m| m.finished);
            if finished {
                // (an opener that is a whole call: <get_time/>)
                let leftover = self.finish_block(out)?;
                debug_assert!(leftover.is_empty());
                continue;
            }
            let raw_len = self.raw.len() as i64;
            let room = self.opts.max_call_chars + 1 - raw_len;
            let span = (n - i) as i64;
            let pos = self.raw_base + raw_len;
            let limited;
            let j;
            let trial = self.unconfirmed(out)?;
            let left = TRIAL.min(self.opts.max_call_chars.max(0) as usize) as i64 - raw_len;
            if trial && span > left {
                // (an opener not confirmed yet: its block reads TRIAL characters at most)
                limited = true;
                j = if left > 0 {
                    let part = text[i..i + left as usize].to_vec();
                    i + self.with_machine(&mut *out, |m, env| m.feed(env, &part, 0, pos, false))?
                } else {
                    i
                };
            } else if span <= WINDOW as i64 && span < room {
                // (the usual delta: small, well inside the limit)
                limited = false;
                j = self.with_machine(&mut *out, |m, env| m.feed(env, text, i, pos, last))?;
            } else {
                if room <= 0 {
                    // the opener alone passed the limit
                    self.overflow(out)?;
                    continue;
                }
                let window = room.min((WINDOW as i64).max(raw_len));
                limited = span > window;
                if limited {
                    // never past the size limit; a large delta a growing window at a time
                    let end = i + window as usize;
                    let part = text[i..end].to_vec();
                    let read =
                        self.with_machine(&mut *out, |m, env| m.feed(env, &part, 0, pos, last))?;
                    let waiting = self.current_ref().is_some_and(|m| m.waiting);
                    j = if waiting && window == room {
                        // undecided where the size limit falls: the block is too large, and
                        // what the window holds is passed over unread (an overflow follows)
                        i + window as usize
                    } else {
                        i + read
                    };
                } else {
                    j = self.with_machine(&mut *out, |m, env| m.feed(env, text, i, pos, last))?;
                }
            }
            if j > i {
                self.raw.extend(&text[i..j]);
            }
            i = j;
            let (failed_at, finished) = self
                .current_ref()
                .map_or((-1, false), |m| (m.failed_at, m.finished));
            if trial && !finished && (limited || failed_at >= 0) && self.unconfirmed(out)? {
                // (it broke, or needs more than TRIAL characters, before announcing a call)
                let again = self.abandon(out)?;
                i = self.rewind(text, i, again);
                n = text.len();
                continue;
            }
            if failed_at >= 0 && !finished && !self.cut_checked {
                self.cut_broken_block(out, failed_at)?;
            }
            if self.current_ref().is_some_and(|m| m.finished) {
                let leftover = self.finish_block(out)?;
                if !leftover.is_empty() {
                    // raw read past the block's end (a cut): read it again as output
                    i = self.rewind(text, i, leftover);
                    n = text.len();
                }
                continue;
            }
            if self.raw.len() as i64 > self.opts.max_call_chars {
                self.overflow(out)?;
            } else if self.current_ref().is_some_and(|m| m.waiting) && !limited {
                // the machine waits for more text
                self.held.clear();
                self.held.extend_from_slice(&text[i..]);
                return Ok(());
            }
            // (a machine waiting on a window: the next, larger window decides)
        }
        Ok(())
    }

    /// The terminal a scanner hit's key stands for.
    fn hit_terminal(&self, source: Source, key: Key) -> Option<LTerminal> {
        let lexicons = &self.scanner.lexicons;
        let lexicon = match source {
            Source::Openers => &lexicons.openers,
            Source::Code => lexicons.code.as_ref()?,
            Source::Answer(k) => &lexicons.answer.get(k)?.0,
        };
        key_terminal(lexicon, key)
    }

    /// `_open`: an opener; a block begins. Returns where reading goes on (the
    /// opener's end, or its start when the block reads it again), or None to
    /// wait for more text (`grammar="auto"`).
    #[allow(clippy::too_many_arguments)]
    fn open(
        &mut self,
        out: &mut H::Out<'_>,
        text: &[u32],
        hit: ScanHit,
        source: Source,
        key: Key,
        last: bool,
    ) -> Result<Option<usize>, H::Error> {
        self.cut_checked = false;
        let mut term = self
            .hit_terminal(source, key)
            .ok_or_else(|| H::bug(Bug::value("a hit of no lexicon")))?;
        let mut name: Vec<u32> = text
            .get(hit.name.0..hit.name.1)
            .map(<[u32]>::to_vec)
            .unwrap_or_default();
        if let LTerminal::Literal(literal) = &term {
            // a declared tool's tag, spelled out
            if let Some((_, tag, tool)) = self.spelled.iter().find(|(l, _, _)| l == literal) {
                name = tool.clone();
                term = LTerminal::Tag(*tag);
            }
        }
        let grammar = self.grammar.clone();
        if let Some(auto) = &grammar.auto {
            if let LTerminal::Literal(marker) = &term {
                if let Some(member) = auto.decider(marker) {
                    // (its reasoning markup: read again as its grammar)
                    let member = member.to_owned();
                    self.decide(&member)?;
                    return Ok(Some(hit.start));
                }
            }
        }
        let spec: OpenerRt = match grammar.auto.as_ref().and_then(|a| a.claims_of(&term)) {
            Some(claims) => match choose(claims, text, hit.end, last) {
                None => return Ok(None),
                Some(claim) => claim.opener.clone(),
            },
            None => grammar
                .opener(&term)
                .cloned()
                .ok_or_else(|| H::bug(Bug::value("an opener with no step")))?,
        };
        if grammar.auto.is_some() && self.opts.max_call_chars >= TRIAL as i64 {
            // (undecided: the opener is confirmed only by a call its block announces; a call
            // limit below the trial's window leaves no room to confirm, so the opener decides)
            self.trial.clear();
            self.trial.extend_from_slice(&text[hit.start..hit.end]);
            self.trial_from = self.host.next_index(out)?;
            self.trial_markdown = self.scanner.ended.take();
        } else {
            self.scanner.ended = None;
        }
        if spec.again {
            // (bare JSON's "{": the block's reader reads it)
            self.begin(out, &spec, false, name, 0)?;
            return Ok(Some(hit.start));
        }
        self.raw.extend(&text[hit.start..hit.end]);
        self.begin(out, &spec, false, name, (hit.end - hit.start) as i64)?;
        Ok(Some(hit.end))
    }

    /// `_begin`: a block begins after `opener`, read by the block reader of
    /// its kind (one per kind, kept from block to block).
    fn begin(
        &mut self,
        out: &mut H::Out<'_>,
        opener: &OpenerRt,
        start: bool,
        name: Vec<u32>,
        at: i64,
    ) -> Result<(), H::Error> {
        let id = opener.block.id;
        let place = match self.machines.iter().position(|m| m.block.id == id) {
            Some(place) => place,
            None => {
                self.machines.push(Machine::new(opener.block.clone()));
                self.machines.len() - 1
            }
        };
        self.machine = Some(place);
        if start {
            self.answered = true;
        }
        self.with_machine(&mut *out, |m, env| m.begin(env, opener, name, at))
    }

    // -- block endings --------------------------------------------------------------------

    /// `_finish_block`: turn the finished block into events; return raw text
    /// to read again.
    fn finish_block(&mut self, out: &mut H::Out<'_>) -> Result<Vec<u32>, H::Error> {
        let named = self
            .current()
            .is_some_and(|machine| machine.names_undeclared_tool());
        if self.unconfirmed(out)? && !named {
            // (it ended, as text or an error, before announcing a call)
            return self.abandon(out);
        }
        self.trial.clear();
        let raw = std::mem::take(&mut self.raw);
        let base = self.raw_base;
        let (end, outcomes, rejected, block_id) = {
            let machine = self
                .current()
                .ok_or_else(|| H::bug(Bug::value("no block to finish")))?;
            let end = if machine.end >= 0 {
                machine.end.max(base)
            } else {
                base + raw.len() as i64
            };
            (
                end,
                machine.take_outcomes(),
                machine.rejected,
                machine.block.id,
            )
        };
        let (_, cut) = py_range(raw.len(), 0, end - base);
        if rejected || outcomes.is_empty() {
            // (a block that made nothing of its markup: text)
            self.offset += cut as i64;
            out.text(raw.text(0, cut))?;
        } else {
            self.emit_outcomes(outcomes, &raw, base, end, out)?;
            let owner = self
                .grammar
                .auto
                .as_ref()
                .and_then(|auto| auto.owners.get(&block_id).cloned());
            if let Some(owner) = owner {
                // (the model wrote this grammar's markup: it is the stream's)
                self.decide(&owner)?;
            }
        }
        self.machine = None;
        self.raw_base = 0;
        let newline = cut == 0 || raw.at(cut - 1) == u32::from(b'\n');
        self.scanner.after_block(newline);
        let rest = raw.points(cut, raw.len()).into_owned();
        raw.recycle(&mut self.raw);
        Ok(rest)
    }

    /// [`rewound`] in place: where reading goes on in `text`. The scanner
    /// forgets its newline search only when the text is a new one: the same
    /// text read again keeps it (`grammar="auto"` reads again after every opener
    /// only mentioned, and a search of a long line to its end each time would
    /// be quadratic).
    fn rewind(&mut self, text: &mut Vec<u32>, i: usize, again: Vec<u32>) -> usize {
        let copied = again.len() > i || text[i - again.len()..i] != again[..];
        let (t, k) = rewound(std::mem::take(text), i, again);
        if copied {
            self.scanner.forget_text();
        }
        *text = t;
        k
    }

    /// `_unconfirmed`: (`grammar="auto"`, undecided) the block being read is an
    /// opener's that no call has confirmed yet (a call announced confirms it).
    fn unconfirmed(&mut self, out: &mut H::Out<'_>) -> Result<bool, H::Error> {
        if self.trial.is_empty() {
            return Ok(false);
        }
        if self.host.next_index(out)? != self.trial_from {
            self.trial.clear();
            return Ok(false);
        }
        Ok(true)
    }

    /// `_abandon`: (`grammar="auto"`) the block of an opener that no call
    /// confirmed: the opener is text, and what the block read after it is
    /// read again as output (at most TRIAL characters, once per opener).
    fn abandon(&mut self, out: &mut H::Out<'_>) -> Result<Vec<u32>, H::Error> {
        let opener = std::mem::take(&mut self.trial);
        let raw = std::mem::take(&mut self.raw);
        if self.raw_base != 0 || raw.len() < opener.len() {
            return Err(H::bug(Bug::value(
                "an unconfirmed block without its opener",
            )));
        }
        if let Some(machine) = self.current() {
            machine.take_outcomes(); // (errors of markup only mentioned: none is shown)
        }
        self.machine = None;
        self.offset += opener.len() as i64;
        out.text(Text::Points(&opener))?;
        match self.trial_markdown.take() {
            // (a token mentioned in code: the code goes on)
            Some(state) => self.scanner.resume(state),
            None => self
                .scanner
                .after_block(opener.last() == Some(&u32::from(b'\n'))),
        }
        let rest = raw.points(opener.len(), raw.len()).into_owned();
        raw.recycle(&mut self.raw);
        Ok(rest)
    }

    /// `_decide`: (`grammar="auto"`) read the rest of the stream as `name`.
    fn decide(&mut self, name: &str) -> Result<(), H::Error> {
        let auto = self
            .grammar
            .auto
            .as_ref()
            .ok_or_else(|| H::bug(Bug::value("decided without auto")))?;
        let member = auto
            .member(name)
            .cloned()
            .ok_or_else(|| H::bug(Bug::value(format!("no member {name}"))))?;
        let reasoning = self.reasoning.for_grammar(&member.tables);
        let switched = self
            .parts
            .switched(&self.scanner, &member.tables, reasoning.as_ref())
            .map_err(start_error::<H>)?;
        self.scanner = switched.core;
        self.text_lexicons = switched.text_lexicons;
        self.code_lexicons = switched.code_lexicons;
        self.spelled = switched.spelled;
        self.opener_prefixes = switched.opener_prefixes;
        self.markup_prefixes = member.markup_prefixes.clone();
        self.call_ends = gather_stops(&member.call_ends);
        self.grammar = member;
        Ok(())
    }

    fn end_of_stream(&mut self, out: &mut H::Out<'_>) -> Result<(), H::Error> {
        if !self.answered && self.machine.is_none() {
            // a forced answer that never began (or held no call)
            let start = self
                .grammar
                .start
                .clone()
                .ok_or_else(|| H::bug(Bug::value("no answer to begin")))?;
            self.begin(out, &start, true, Vec::new(), 0)?;
        }
        while self.machine.is_some() {
            let end = self.raw_base + self.raw.len() as i64;
            self.with_machine(&mut *out, |m, env| m.close(env, end))?;
            if self.current_ref().is_some_and(Machine::unfinished_block)
                && !self.unconfirmed(out)?
            {
                self.cut_broken_block(out, end)?;
            }
            let leftover = self.finish_block(out)?;
            if !leftover.is_empty() {
                self.run(leftover, out, true)?;
            }
        }
        Ok(())
    }

    /// `_cut_broken_block`: a broken call ends at its block's first closer,
    /// when one lies before the point where it broke; what follows the closer
    /// is read again as ordinary output (only where the block starts outside
    /// text already read again: no character is read more than twice).
    fn cut_broken_block(&mut self, out: &mut H::Out<'_>, before: i64) -> Result<(), H::Error> {
        self.cut_checked = true;
        let start = self.offset;
        let Some(machine) = self.current_ref() else {
            return Ok(());
        };
        let Some(closer) = machine.closer().map(<[u32]>::to_vec) else {
            return Ok(());
        };
        if self.raw_base != 0 || start < self.refeed_until || closer.is_empty() {
            return Ok(());
        }
        let from = machine.last_end.max(1);
        let (from, to) = py_range(self.raw.len(), from, before);
        let Some(at) = find_seq(&self.raw.points(0, self.raw.len()), &closer, from, to) else {
            return Ok(());
        };
        let end = (at + closer.len()) as i64;
        self.with_machine(&mut *out, |m, env| m.cut(env, end))?;
        self.refeed_until = start + self.raw.len() as i64;
        Ok(())
    }

    fn emit_outcomes(
        &mut self,
        outcomes: Vec<Outcome<H>>,
        raw: &Points,
        base: i64,
        end: i64,
        out: &mut H::Out<'_>,
    ) -> Result<(), H::Error> {
        self.answered = true; // (a forced answer wrapped in markup: read)
        let mut pos = base;
        let last = outcomes.len().saturating_sub(1);
        for (k, mut outcome) in outcomes.into_iter().enumerate() {
            let stop = match outcome.end {
                Some(e) if k != last => e,
                _ => end,
            };
            let (a, b) = py_range(raw.len(), pos - base, stop - base);
            pos = stop;
            if outcome.reason == Some(Reason::TooLarge) && outcome.call.is_none() {
                if a == b {
                    continue; // the limit fell exactly at the block's end: nothing is left
                }
                if outcome.message.is_empty() {
                    outcome.message = b"the rest of a call that passed max_call_chars".to_vec();
                }
            }
            let failed = outcome.reason.is_some();
            let no_call = outcome.call.is_none();
            let offset = self.offset;
            self.offset += (b - a) as i64;
            if self.opts.unknown_on_error && failed && no_call {
                // (the AI SDK middleware's behaviour) a forced answer that is not a
                // call becomes a call named "unknown" with {} arguments
                let call = self.host.assign(out)?;
                Sink::call_start(out, &call, b"unknown")?;
                Sink::call_delta(out, &call, Text::Str("{}"))?;
                let mut unknown = Outcome::error(
                    None,
                    Some(b"unknown".to_vec()),
                    Reason::InvalidCall,
                    Vec::new(),
                );
                unknown.reason = None;
                unknown.call = Some(call);
                unknown.arguments = Some(b"{}".to_vec());
                Sink::outcome(out, unknown, raw.text(a, b), offset)?;
                continue;
            }
            Sink::outcome(out, outcome, raw.text(a, b), offset)?;
            if self.opts.errors_as_text && failed && b > a {
                out.text(raw.text(a, b))?;
            }
        }
        Ok(())
    }

    /// `_overflow`: the block passed max_call_chars: flush what it holds as
    /// events and keep only looking for its end.
    fn overflow(&mut self, out: &mut H::Out<'_>) -> Result<(), H::Error> {
        let max = self.opts.max_call_chars;
        let (mut current, mut outcomes) = self.with_machine(&mut *out, |m, env| {
            let current = m.overflow(env)?;
            Ok((current, m.take_outcomes()))
        })?;
        if current.reason == Some(Reason::TooLarge) {
            current.message = format!(
                "the call's markup passed max_call_chars={max}; the rest of it is passed over"
            )
            .into_bytes();
        }
        current.end = None;
        outcomes.push(current);
        let raw = std::mem::take(&mut self.raw);
        let base = self.raw_base;
        self.emit_outcomes(outcomes, &raw, base, base + raw.len() as i64, out)?;
        self.raw_base = base + raw.len() as i64;
        Ok(())
    }

    /// `_emit_reasoning`: reasoning (joined to the reasoning event just
    /// before it: see [`Out`]).
    pub fn emit_reasoning(
        &mut self,
        text: &[u32],
        raw: &[u32],
        out: &mut H::Out<'_>,
    ) -> Result<(), H::Error> {
        self.offset += raw.len() as i64;
        if !text.is_empty() && self.thought.is_some() {
            self.keep_thought(out, text)?;
        }
        out.reasoning(text, raw)
    }

    /// `_keep_thought`: keep reasoning text, its last window at least; what
    /// the window lets go is read by the host's shadow reader (the
    /// reference's `thought_read`), so its Markdown is known at the window.
    pub fn keep_thought(&mut self, out: &mut H::Out<'_>, text: &[u32]) -> Result<(), H::Error> {
        let Some(thought) = &mut self.thought else {
            return Ok(());
        };
        thought.extend_from_slice(text);
        if thought.len() > 2 * THOUGHT_WINDOW {
            let cut = thought.len() - THOUGHT_WINDOW;
            let head: Vec<u32> = thought.drain(..cut).collect();
            self.host
                .thought_read(out, &self.grammar, &head, self.opts.max_call_chars)?;
        }
        Ok(())
    }

    /// `_calls_in_thought`: the stream ended in reasoning: the calls its kept
    /// text completes, read by the host's shadow engine.
    fn calls_in_thought(&mut self, out: &mut H::Out<'_>) -> Result<(), H::Error> {
        let thought = std::mem::take(self.thought.get_or_insert_with(Vec::new));
        self.host.shadow_calls(
            out,
            &self.grammar,
            &thought,
            self.opts.max_call_chars,
            self.opts.reasoning_calls == ReasoningCalls::Salvage,
            self.offset,
        )
    }
}

/// `_rewound`: read `again` (raw text already taken into a block) before
/// `text[i..]`: only the position moves when it is the text just before `i`.
fn rewound(text: Vec<u32>, i: usize, again: Vec<u32>) -> (Vec<u32>, usize) {
    if again.len() <= i && text[i - again.len()..i] == again[..] {
        return (text, i - again.len());
    }
    let mut joined = again;
    joined.extend_from_slice(&text[i..]);
    (joined, 0)
}

/// `AutoTables.choose`: the claim that takes the shared opener ending at
/// `text[at]`; None: the text after it does not tell yet.
fn choose<'a>(
    claims: &'a [runtime::ClaimRt],
    text: &[u32],
    at: usize,
    last: bool,
) -> Option<&'a runtime::ClaimRt> {
    let mut fallback = None;
    let decided = last || text.len() - at.min(text.len()) >= LOOKAHEAD_CHARS;
    let end = (at + LOOKAHEAD_CHARS).min(text.len());
    let window: String = text[at.min(end)..end]
        .iter()
        .map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}'))
        .collect();
    for claim in claims {
        if !claim.has_pattern || claim.takes_rest {
            fallback = fallback.or(Some(claim));
        }
        if claim.pattern.as_ref().is_some_and(|p| p.is_match(&window)) {
            return Some(claim);
        }
    }
    if !decided {
        return None;
    }
    fallback
}

/// The characters of `call_ends` (`_gather_stops`' class).
fn gather_stops(call_ends: &[u32]) -> StopSet {
    let mut stops = StopSet::new();
    for &c in call_ends {
        stops.add(c);
    }
    stops
}

/// A start scanner the grammar, tools and reasoning make none of, as the
/// reference raises it (`InvalidOptionError` for the reasoning, else ValueError).
pub fn start_error<H: Host>(e: StartError) -> H::Error {
    match e {
        StartError::Openers(why) => H::bug(Bug::value(why)),
        StartError::Reasoning(why) => H::bug(Bug {
            kind: BugKind::Option,
            what: why,
        }),
    }
}
