//! Lanes: the engine's short paths (`toolparse.engine.lanes`, and the lane
//! methods of `toolparse.engine.core.Engine`), natively.
//!
//! After every read, whatever is reading at that moment says what the next
//! delta would have to hold to matter, and the engine arms one [`Lane`]: a
//! delta with none of the lane's stops goes to its sink, which takes it while
//! the lane has room for it, and no reader runs. Any other delta is offered to
//! the lane's second look (an escape cut in two inside a string, a delta that
//! only lengthens a held terminal), and otherwise the lane is left: what it
//! gathered is given back in front of the delta, and the full path reads
//! both. A lane changes when events come out, never which; and which lane is
//! armed, and what it takes, is the reference's exactly (the engines are
//! compared feed by feed).

use std::sync::Arc;

use crate::engine::machine::{Machine, View};
use crate::engine::{Engine, GATHER, GATHER_QUIET};
use crate::grammar::CharClass;
use crate::host::{Host, Sink};
use crate::lexicon::{Lexicon, Name, Unit};
use crate::runtime::Kind;
use crate::scan::{
    look, Breaker, Found, JsonText, Latin1Takes, Look, Pairs, StopSet, Unprintable, MAX_KEPT,
};
use crate::sink::Text;
use crate::tags::is_python_space;
use crate::text::State;

/// Which lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneKind {
    /// Plain text.
    Text,
    /// A line's first character decides whether the text lane may take it.
    LineStart,
    /// Reasoning with nothing that may begin its closer.
    Reasoning,
    /// Inside a call: deltas that cannot end it or begin a string.
    Gather,
    /// Deltas that only lengthen a held terminal.
    Prefix,
    /// A string argument that streams.
    String,
}

impl LaneKind {
    pub fn name(self) -> &'static str {
        match self {
            LaneKind::Text => "text",
            LaneKind::LineStart => "line start",
            LaneKind::Reasoning => "reasoning",
            LaneKind::Gather => "gather",
            LaneKind::Prefix => "prefix",
            LaneKind::String => "string",
        }
    }
}

/// A gather lane's stops, as the reference's patterns give them.
#[derive(Clone, Debug)]
pub enum Pattern {
    /// `_gather_stops`' first: a character of `call_ends`, or `:` or `[`
    /// followed by whitespace and a quote (a string value begins).
    Announced,
    /// `_gather_stops`' second: a character of `call_ends`, or a quote.
    NameEnds,
    /// A Python literal's quote (`quiet_until`).
    Quote(u32),
    /// A name's breakers (`CName.pattern`).
    Breakers(CharClass),
}

/// One short path: see the module docs.
#[derive(Clone, Debug)]
pub struct Lane {
    pub kind: LaneKind,
    /// The stop characters (`every`: each delta stops).
    pub stops: StopSet,
    pub pattern: Option<Pattern>,
    /// How many more characters the sink may take.
    pub room: i64,
    pub unprintable: Unprintable,
    /// (text and prefix lanes) what held text may be and stay held.
    pub prefixes: Option<crate::engine::Prefixes>,
    /// (text lane) in the code openers' state (quote, code), not the openers'.
    pub code: bool,
    /// What the lane takes of text stored a byte a code point (most deltas),
    /// as a bitmap: the same answer as [`look`], a byte at a time.
    latin1: Latin1Takes,
    /// (text lane) the second look of `still_plain` at such text, where it
    /// takes a delta as it stands (see [`Pairs`]).
    pairs: Option<Arc<Pairs>>,
    /// (text lane) one character held, prose's last that may begin an opener
    /// (gpt-oss's and Muse's `t`): the reference's prefix lane, kept inside
    /// the text lane while the next delta is plainly text (see
    /// `Engine::after_held`), made one where it is not (`Engine::release_held`).
    held: Option<u8>,
}

const UNBOUNDED: i64 = i64::MAX;

impl Lane {
    fn new(kind: LaneKind, stops: StopSet, room: i64) -> Lane {
        let unprintable = match kind {
            LaneKind::Text => Unprintable::NewlinesAndSurrogates,
            LaneKind::Gather => Unprintable::Nothing,
            LaneKind::String => Unprintable::Any,
            _ => Unprintable::Surrogates,
        };
        Lane {
            kind,
            latin1: Latin1Takes::new(&stops, unprintable, false),
            stops,
            pattern: None,
            room,
            unprintable,
            prefixes: None,
            code: false,
            pairs: None,
            held: None,
        }
    }

    /// The lane's name, as the reference's (`Engine.lane`).
    pub fn name(&self) -> &'static str {
        match self.held {
            Some(_) => LaneKind::Prefix.name(),
            None => self.kind.name(),
        }
    }

    /// Every delta stops (true), or only those with a stop (false).
    fn set_every(&mut self, every: bool) {
        self.stops.every = every;
        self.latin1 = Latin1Takes::new(&self.stops, self.unprintable, self.pattern.is_some());
    }

    fn every(kind: LaneKind) -> Lane {
        let mut stops = StopSet::new();
        stops.every = true;
        Lane::new(kind, stops, 0)
    }

    fn pattern(pattern: Pattern, room: i64) -> Lane {
        let mut stops = StopSet::new();
        stops.add(0); // (NONE: a stop that stands for no character)
        let mut lane = Lane::new(LaneKind::Gather, stops, room);
        lane.pattern = Some(pattern);
        lane.latin1 = Latin1Takes::new(&lane.stops, lane.unprintable, true);
        lane
    }
}

/// The string that streams (`Engine._string` and its fields).
#[derive(Debug)]
pub struct StringLane<H: Host> {
    /// Which string: (its call's serial, its value's serial; 0 for JSON).
    pub serial: (u64, u64),
    /// Its call, as its events name it.
    pub call: H::Call,
    /// A value (not a JSON string).
    pub value: bool,
}

/// The first code point of `units`.
fn first_point<T: Unit>(units: &[T]) -> Option<u32> {
    units.first().map(|&c| c.into())
}

/// `units` hold a quote or a backslash (JSON escapes them).
fn has_escapes<T: Unit>(units: &[T]) -> bool {
    units.iter().any(|&c| {
        let c: u32 = c.into();
        c == u32::from(b'"') || c == u32::from(b'\\')
    })
}

/// Append the code points `units` to `out`.
fn extend_points<T: Unit>(out: &mut Vec<u32>, units: &[T]) {
    out.extend(units.iter().map(|&c| c.into()));
}

/// `str.isprintable()` of the code points `units` (CPython's own test).
fn all_printable<T: Unit>(units: &[T]) -> bool {
    units.iter().all(|&u| {
        let c: u32 = u.into();
        (0x20..0x7F).contains(&c) || (c > 0x7F && crate::printable::is_printable(c))
    })
}

fn is_surrogate(c: u32) -> bool {
    (0xD800..=0xDFFF).contains(&c)
}

/// Whether a gather pattern is found in `units` (`more.search(delta)`).
fn pattern_found<T: Unit>(units: &[T], pattern: &Pattern, call_ends: &StopSet) -> bool {
    match pattern {
        Pattern::Announced => announced_at(units, 0, call_ends).is_some(),
        Pattern::NameEnds => units.iter().any(|&u| {
            let c: u32 = u.into();
            c == u32::from(b'"') || call_ends.contains(c)
        }),
        Pattern::Quote(q) => units.iter().any(|&u| u.into() == *q),
        Pattern::Breakers(class) => units.iter().any(|&u| class.has(u.into())),
    }
}

/// The first match of `[{ends}:\[](?:(?<=[{ends}])|\s*")` from `from`:
/// (start, end).
fn announced_at<T: Unit>(units: &[T], from: usize, call_ends: &StopSet) -> Option<(usize, usize)> {
    let n = units.len();
    let mut k = from;
    while k < n {
        let c: u32 = units[k].into();
        if call_ends.contains(c) {
            return Some((k, k + 1));
        }
        if c == u32::from(b':') || c == u32::from(b'[') {
            let mut j = k + 1;
            while j < n && is_python_space(units[j].into()) {
                j += 1;
            }
            if j < n && units[j].into() == u32::from(b'"') {
                return Some((k, j + 1));
            }
        }
        k += 1;
    }
    None
}

/// `only_closes(text, start, stops, closers)` with the announced stops.
fn only_closes(
    text: &[u32],
    start: usize,
    call_ends: &StopSet,
    closers: &[Vec<u32>],
    key: Option<&[u32]>,
) -> bool {
    let Some((s, e)) = announced_at(text, start, call_ends) else {
        return false;
    };
    if e - s != 1 || text[s] != u32::from(b'>') || announced_at(text, e, call_ends).is_some() {
        return false;
    }
    let Some(lt) = text.iter().position(|&c| c == u32::from(b'<')) else {
        return false;
    };
    if lt > e {
        return false;
    }
    let tag = &text[lt..e];
    closers.iter().any(|c| c[..] == *tag) || key.is_some_and(|key| is_key_closer(tag, key))
}

/// Whether `tag` is `</key>`.
fn is_key_closer(tag: &[u32], key: &[u32]) -> bool {
    tag.len() == key.len() + 3
        && tag[..2] == [u32::from(b'<'), u32::from(b'/')]
        && tag[2..2 + key.len()] == *key
        && tag[tag.len() - 1] == u32::from(b'>')
}

impl<H: Host> Machine<H> {
    /// `Machine.only_closes_value` (with the announced stops): the value's
    /// closers, and `</key>` where the value's own key closes it.
    pub fn only_closes_value(&self, text: &[u32], start: usize, call_ends: &StopSet) -> bool {
        let Kind::Value {
            closers,
            closed_by_key,
            ..
        } = &self.region().kind
        else {
            return false;
        };
        let key = if *closed_by_key {
            self.key.as_deref()
        } else {
            None
        };
        (!closers.is_empty() || key.is_some()) && only_closes(text, start, call_ends, closers, key)
    }
}

/// A streamed piece's JSON: code points, or UTF-8 text of so many code points.
enum Piece<'a> {
    Points(&'a [u32]),
    Text(&'a str, usize),
}

/// `$body` on the code points of `$units` (a [`Name`]), in their width.
macro_rules! each_width {
    ($units:expr, $each:ident => $body:expr) => {
        match $units {
            Name::U8($each) => $body,
            Name::U16($each) => $body,
            Name::U32($each) => $body,
        }
    };
}

/// [`Engine::takes`] for a lane with no pattern (the text and string lanes):
/// its stops and its unprintable rule.
#[inline(always)] // (the lanes' hot path: see Engine::feed)
fn takes_plain(lane: &Lane, delta: Name<'_>) -> bool {
    debug_assert!(lane.pattern.is_none());
    if let Name::U8(bytes) = delta {
        // (the text lane: what `still_plain` would take as it stands, a stop
        // that begins no literal passed over)
        if lane.latin1.takes(bytes)
            || lane
                .pairs
                .as_ref()
                .is_some_and(|p| p.takes(bytes, &lane.latin1))
        {
            return true;
        }
        // (the bitmap is exact but for the non-ASCII characters a string lane
        // asks `isprintable` about: those are looked at below)
        if lane.unprintable != Unprintable::Any || bytes.is_ascii() {
            return false;
        }
    }
    each_width!(delta, units => match look(units, &lane.stops, lane.unprintable) {
        Look::Stops => false,
        Look::AskPython => all_printable(units),
        _ => true,
    })
}

/// What became of a delta offered to the lane.
pub enum Taken {
    /// The lane took it (its events are out).
    Done,
    /// Read it through the full path (`after_lane`).
    Read(bool),
}

/// What the armed lane made of a delta at first look ([`Engine::first_look`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstLook {
    /// The delta is visible text: one text event, the delta itself.
    Text,
    /// The delta is a piece of the string that streams (`Engine::string`'s
    /// call): one argument delta, the delta itself (none with `collapse`).
    StringPiece,
    /// The delta is reasoning, shown as written: one reasoning event.
    Reasoning,
    /// The delta was gathered inside a call, to be read later: no event.
    Gathered,
    /// The delta is for [`Engine::read_delta`].
    Read { refused: bool },
}

/// A lane's second look: whether it took the delta.
type Took<H> = Result<bool, <H as Host>::Error>;

impl<H: Host> Engine<H> {
    /// `Engine.feed` past the caller's checks: the lane's first look, then
    /// the sink's event or the full path. `units`: the delta's code points;
    /// its events go to `out`, whose [`Text::Input`] is the delta.
    ///
    /// A host whose events are costly to set up may make the few events of a
    /// first look itself, as the Python binding does (see [`FirstLook`]).
    #[inline(always)] // (the text lane's path: one stretch of code, see first_look)
    pub fn feed(&mut self, units: Name<'_>, out: &mut H::Out<'_>) -> Result<(), H::Error> {
        match self.first_look(units)? {
            FirstLook::Text => out.text(Text::Input),
            FirstLook::StringPiece => match self.string.as_ref() {
                Some(string) => out.call_delta(&string.call, Text::Input),
                None => Ok(()),
            },
            FirstLook::Reasoning => out.reasoning_input(|| units.code_points()),
            FirstLook::Gathered => Ok(()),
            FirstLook::Read { refused } => self.read_delta(units, refused, out),
        }
    }

    /// The armed lane's first look at a delta: the lanes most deltas of most
    /// outputs take whole, each making one event of the fed text itself (or
    /// none), with no sink to set up: prose, a string's plain text (a JSON
    /// string's, or a value's with nothing to escape), the deltas a call's
    /// gather lane takes (read later), reasoning that cannot close. The
    /// engine's state is then as if the event was made; otherwise
    /// [`Engine::read_delta`] reads the delta.
    ///
    /// Code layout matters on this path: a delta the text lane takes runs
    /// `feed_o`, the binding's `feed_events`, this and the event's
    /// construction (inlined into one stretch of code), while the second
    /// looks and the full path stay out of line (`#[inline(never)]`). Spread
    /// over several functions, the few cache lines a delta touches collided
    /// with the interpreter's own in the instruction cache on one build
    /// (callgrind's cache simulation: one miss in each of five functions a
    /// delta, 6% slower on prose).
    #[inline(always)]
    pub fn first_look(&mut self, units: Name<'_>) -> Result<FirstLook, H::Error> {
        let n = units.len() as i64;
        let Some(lane) = self.lane.as_ref() else {
            return Ok(FirstLook::Read { refused: false });
        };
        match lane.kind {
            LaneKind::Text if lane.held.is_none() => {
                if takes_plain(lane, units) {
                    self.offset += n;
                    return Ok(FirstLook::Text);
                }
            }
            LaneKind::String => {
                let value = self.string.as_ref().is_some_and(|s| s.value);
                if !takes_plain(lane, units) {
                    return Ok(FirstLook::Read { refused: true });
                }
                if n <= lane.room && !(value && each_width!(units, u => has_escapes(u))) {
                    if value {
                        self.host.planted("value sink")?;
                    }
                    if let Some(lane) = self.lane.as_mut() {
                        lane.room -= n;
                    }
                    self.append_as_is(units);
                    return Ok(FirstLook::StringPiece);
                }
                return Ok(FirstLook::Read { refused: false });
            }
            LaneKind::Gather => {
                if !self.takes(lane, units) {
                    return Ok(FirstLook::Read { refused: true });
                }
                if n <= lane.room {
                    if let Some(lane) = self.lane.as_mut() {
                        lane.room -= n;
                    }
                    let gathered = &mut self.gathered;
                    each_width!(units, u => extend_points(gathered, u));
                    return Ok(FirstLook::Gathered);
                }
                return Ok(FirstLook::Read { refused: false });
            }
            LaneKind::Reasoning if self.thought.is_none() => {
                if !takes_plain(lane, units) {
                    return Ok(FirstLook::Read { refused: true });
                }
                if n <= lane.room {
                    self.host.planted("reasoning")?;
                    if let Some(lane) = self.lane.as_mut() {
                        lane.room -= n;
                    }
                    self.offset += n;
                    return Ok(FirstLook::Reasoning);
                }
                return Ok(FirstLook::Read { refused: false });
            }
            _ => return Ok(FirstLook::Read { refused: false }),
        }
        Ok(FirstLook::Read { refused: true })
    }

    /// A delta the first look left to read (`refused`: the armed lane's
    /// first look refused it already): the lane's second look, then the full
    /// path. Its events go to `out`.
    pub fn read_delta(
        &mut self,
        units: Name<'_>,
        refused: bool,
        out: &mut H::Out<'_>,
    ) -> Result<(), H::Error> {
        self.feed_units(units, refused, out)
    }

    /// [`Engine::feed`] of the delta's code points, into `out`.
    #[inline(always)] // (see above)
    fn feed_units(
        &mut self,
        units: Name<'_>,
        refused: bool,
        out: &mut H::Out<'_>,
    ) -> Result<(), H::Error> {
        match self.through_lane(units, refused, out)? {
            Taken::Done => Ok(()),
            Taken::Read(after_lane) => match units {
                Name::U8(units) => self.read_into(units, after_lane, out),
                Name::U16(units) => self.read_into(units, after_lane, out),
                Name::U32(units) => self.read_into(units, after_lane, out),
            },
        }
    }

    /// Whether the armed lane takes `delta` as it stands (its stops, its
    /// unprintable rule, its pattern).
    fn takes(&self, lane: &Lane, delta: Name<'_>) -> bool {
        let Some(pattern) = &lane.pattern else {
            return takes_plain(lane, delta);
        };
        each_width!(delta, units => match look(units, &lane.stops, lane.unprintable) {
            Look::Stops => false,
            Look::AskPython if !all_printable(units) => false,
            _ => !pattern_found(units, pattern, &self.call_ends),
        })
    }

    #[inline(always)] // (see Engine::feed)
    fn through_lane(
        &mut self,
        delta: Name<'_>,
        refused: bool,
        out: &mut H::Out<'_>,
    ) -> Result<Taken, H::Error> {
        let Some(lane) = self.lane.as_ref() else {
            return Ok(Taken::Read(false));
        };
        let kind = lane.kind;
        let n = delta.len() as i64;
        if !refused && self.takes(lane, delta) {
            if kind == LaneKind::Text {
                if let Some(held) = lane.held {
                    return Ok(match self.after_held(delta, held, out)? {
                        true => Taken::Done,
                        false => Taken::Read(true),
                    });
                }
                self.offset += n;
                out.text(Text::Input)?;
                return Ok(Taken::Done);
            }
            if n > lane.room {
                return Ok(Taken::Read(true));
            }
            if let Some(lane) = self.lane.as_mut() {
                lane.room -= n;
            }
            match kind {
                LaneKind::Gather => {
                    // read later, with the delta that decides
                    let gathered = &mut self.gathered;
                    each_width!(delta, units => extend_points(gathered, units));
                    return Ok(Taken::Done);
                }
                LaneKind::Reasoning => {
                    self.take_reasoning(delta, out)?;
                    return Ok(Taken::Done);
                }
                LaneKind::String => {
                    let value = self.string.as_ref().is_some_and(|s| s.value);
                    if value {
                        self.take_string(delta, out)?;
                    } else {
                        // a JSON string's text: its own JSON
                        self.streamed_as_is(delta, Text::Input, out)?;
                    }
                    return Ok(Taken::Done);
                }
                _ => {}
            }
        }
        let taken = match kind {
            LaneKind::Text => self.still_plain(delta, out)?,
            LaneKind::LineStart => self.at_line_start(delta, out)?,
            LaneKind::Gather => self.closes_value(delta)?,
            LaneKind::Prefix => self.lengthens_prefix(delta, out)?,
            LaneKind::String => self.string_piece(delta, out)?,
            LaneKind::Reasoning => false,
        };
        Ok(match taken {
            true => Taken::Done,
            false => Taken::Read(true),
        })
    }

    // -- arming ------------------------------------------------------------------------

    /// `_next_lane`: the lane for the next delta, as what is reading now says
    /// (None: read it).
    #[inline(never)] // (off the lanes' hot path: see Engine::feed)
    pub fn next_lane(&mut self) -> Result<Option<Lane>, H::Error> {
        if !self.opts.lanes || self.high_surrogate.is_some() {
            return Ok(None);
        }
        let first_characters = std::mem::take(&mut self.first_characters);
        if self.machine.is_none() {
            let scanner = &self.scanner;
            if !self.held.is_empty() {
                if scanner.in_reasoning() || !self.opener_prefixes.contains(&self.held) {
                    return Ok(None);
                }
                self.prefix.clone_from(&self.held); // (in the prefix's own buffer)
                return Ok(Some(self.prefix_lane(self.opener_prefixes.clone())));
            }
            if scanner.in_reasoning() {
                return Ok(self
                    .reasoning_stops()
                    .map(|stops| Lane::new(LaneKind::Reasoning, stops, UNBOUNDED)));
            }
            if let Some(lane) = self.text_lane() {
                return Ok(Some(lane));
            }
            return Ok(scanner
                .at_line_start()
                .then(|| Lane::every(LaneKind::LineStart)));
        }
        let id = self.machine.unwrap_or_default();
        let Some(machine) = self.machines.get(id) else {
            return Ok(None);
        };
        // (with collapse, no string lane: it emits deltas itself)
        if !self.opts.collapse && self.held.is_empty() && !first_characters {
            if let Some(string) = machine.open_string() {
                return Ok(Some(self.open_string(string)));
            }
        }
        if machine.in_committed_call() {
            if let Some(quote) = machine.quiet_until() {
                // (nothing streams before it: gather more)
                return Ok(Some(Lane::pattern(Pattern::Quote(quote), GATHER_QUIET)));
            }
            if machine.string_starts() {
                // (its first characters: read with their delta)
                self.first_characters = true;
                return Ok(None);
            }
            if machine.announced() {
                self.closes_once = machine.in_value();
                return Ok(Some(Lane::pattern(Pattern::Announced, GATHER)));
            }
            return Ok(Some(Lane::pattern(Pattern::NameEnds, GATHER)));
        }
        if !self.held.is_empty() {
            if !self.markup_prefixes.contains(&self.held) {
                return Ok(None);
            }
            self.prefix.clone_from(&self.held); // (in the prefix's own buffer)
            return Ok(Some(self.prefix_lane(self.markup_prefixes.clone())));
        }
        if let Some((breakers, room)) = machine.name_room_pattern() {
            // (a name: nothing comes of it yet)
            return Ok(Some(Lane::pattern(
                Pattern::Breakers(breakers),
                room as i64,
            )));
        }
        Ok(None)
    }

    fn prefix_lane(&self, prefixes: crate::engine::Prefixes) -> Lane {
        let mut lane = Lane::every(LaneKind::Prefix);
        lane.prefixes = Some(prefixes);
        lane
    }

    /// `scanner.reasoning_stops`.
    fn reasoning_stops(&self) -> Option<StopSet> {
        let s = &self.scanner;
        if s.state != State::Reasoning || s.absorb {
            return None;
        }
        let close = s.r_close.as_ref()?;
        let mut stops = StopSet::new();
        match close.first() {
            Some(&c) => stops.add(c),
            None => stops.add(0),
        }
        // (and what may begin a marker that ends reasoning before it)
        if let Some(inside) = &s.lexicons.inside {
            for marker in inside.literals() {
                if let Some(&c) = marker.first() {
                    stops.add(c);
                }
            }
        }
        Some(stops)
    }

    /// `_arm_text(scanner.text_stops)`, or None where the scanner has no
    /// text stops in its state.
    fn text_lane(&self) -> Option<Lane> {
        let s = &self.scanner;
        if s.prelude {
            return None;
        }
        let (lexicons, code) = match s.state {
            State::Text => (&self.text_lexicons, false),
            State::Quote | State::Code => (&self.code_lexicons, true),
            _ => return None,
        };
        let mut lane = Lane::new(LaneKind::Text, lexicons.stops.clone(), UNBOUNDED);
        lane.prefixes = Some(self.opener_prefixes.clone());
        lane.code = code;
        lane.pairs.clone_from(&lexicons.pairs);
        Some(lane)
    }

    /// `_open_string`: arm the string lane for `string`.
    fn open_string(&mut self, string: StringLane<H>) -> Lane {
        let same = self
            .string
            .as_ref()
            .is_some_and(|s| s.serial == string.serial);
        if !same {
            self.string = Some(string);
        }
        let value = self.string.as_ref().is_some_and(|s| s.value);
        let mut stops = StopSet::new();
        if value {
            stops.add(u32::from(b'<'));
            stops.add(u32::from(b'&'));
        } else {
            stops.add(u32::from(b'"'));
            stops.add(u32::from(b'\\'));
        }
        Lane::new(
            LaneKind::String,
            stops,
            self.opts.max_call_chars - self.raw.len() as i64,
        )
    }

    // -- the sinks and second looks ----------------------------------------------------

    /// `_at_line_start`: a line whose first character no fence or quote
    /// begins with is ordinary text: the text lane takes it from there.
    #[inline(never)] // (off the lanes' hot path: see Engine::feed)
    fn at_line_start(&mut self, delta: Name<'_>, out: &mut H::Out<'_>) -> Took<H> {
        self.host.planted("line start")?;
        let first = each_width!(delta, units => first_point(units));
        if !self.scanner.starts_ordinary_line(first) {
            return Ok(false);
        }
        self.lane = self.text_lane();
        self.feed_units(delta, false, out)?;
        Ok(true)
    }

    /// The literals of the text lane's openers (`Lane.openers`).
    fn plain_openers(&self, code: bool) -> Option<&crate::scan::Literals> {
        if code {
            self.code_lexicons.plain.as_ref()
        } else {
            self.text_lexicons.plain.as_ref()
        }
    }

    /// `_still_plain`: a delta that holds a stop, but where no opener begins,
    /// is plain text as it stands too; where one begins cut by its end, the
    /// text before it is text and the cut part is held.
    #[inline(never)] // (off the lanes' hot path: see Engine::feed)
    fn still_plain(&mut self, delta: Name<'_>, out: &mut H::Out<'_>) -> Took<H> {
        let Some(lane) = self.lane.as_ref() else {
            return Ok(false);
        };
        if lane.held.is_some() {
            self.release_held();
            return self.lengthens_prefix(delta, out);
        }
        let (end, n) = match delta {
            // (prose ending in an opener's first character: the search's answer,
            // without it; the character held in the lane)
            Name::U8(bytes)
                if lane
                    .pairs
                    .as_ref()
                    .is_some_and(|p| p.cut_at_end(bytes, &lane.latin1)) =>
            {
                let last = bytes[bytes.len() - 1];
                if lane
                    .prefixes
                    .as_ref()
                    .is_some_and(|p| p.contains(&[last.into()]))
                {
                    self.hold(delta, last, out)?;
                    return Ok(true);
                }
                (Some(bytes.len() - 1), bytes.len())
            }
            // (read in place: most such deltas are text as they stand)
            _ => {
                let openers = self.plain_openers(lane.code);
                each_width!(delta, units => (plain_up_to(units, openers), units.len()))
            }
        };
        let Some(end) = end else {
            return Ok(false);
        };
        let mut text = Text::Input;
        if end < n {
            // (an opener cut by the delta's end: held, as the scanner holds it)
            let Some(prefixes) = lane.prefixes.clone() else {
                return Ok(false);
            };
            self.held.clear();
            each_width!(delta, units => extend_points(&mut self.held, &units[end..]));
            if !prefixes.contains(&self.held) {
                self.held.clear();
                return Ok(false);
            }
            self.prefix.clone_from(&self.held);
            self.lane = Some(self.prefix_lane(prefixes));
            if end == 0 {
                return Ok(true);
            }
            text = Text::InputTo(end);
        }
        self.offset += end as i64;
        out.text(text)?;
        Ok(true)
    }

    /// `still_plain`'s answer to a delta of text a byte a code point whose
    /// last character, `last`, alone may begin an opener: the text before it
    /// is text, and it is held (in the text lane: see [`Lane::held`]).
    fn hold(&mut self, delta: Name<'_>, last: u8, out: &mut H::Out<'_>) -> Result<(), H::Error> {
        self.held.clear();
        self.held.push(last.into());
        self.prefix.clone_from(&self.held);
        if let Some(lane) = self.lane.as_mut() {
            lane.held = Some(last);
        }
        let end = delta.len() - 1;
        if end == 0 {
            return Ok(());
        }
        self.offset += end as i64;
        out.text(Text::InputTo(end))
    }

    /// The reference's prefix lane for the character the text lane holds.
    fn release_held(&mut self) {
        let prefixes = self.lane.as_mut().and_then(|lane| lane.prefixes.take());
        if let Some(prefixes) = prefixes {
            self.lane = Some(self.prefix_lane(prefixes));
        }
    }

    /// The text lane holding `held` (see [`Lane::held`]) takes `delta` as it
    /// stands. Where no held text begins with `held` and the delta's first
    /// character (what `_lengthens_prefix` asks), nor an opener of the lane
    /// (what `_text_after_prefix` asks: in code, the held texts are more than
    /// its openers), the two are text and the lane holds nothing; otherwise
    /// the reference's prefix lane reads it (false: the full path reads it).
    #[inline(never)] // (off the lanes' hot path: see Engine::feed)
    fn after_held(&mut self, delta: Name<'_>, held: u8, out: &mut H::Out<'_>) -> Took<H> {
        self.host.planted("prefix")?;
        let Some(lane) = self.lane.as_ref() else {
            return Ok(false);
        };
        let bytes = match delta {
            Name::U8(bytes) => Some(bytes),
            _ => None,
        };
        let bytes = bytes.filter(|bytes| {
            bytes.first().is_some_and(|&next| {
                lane.prefixes
                    .as_ref()
                    .is_some_and(|p| !p.may_begin(held.into(), next.into()))
                    && lane
                        .pairs
                        .as_ref()
                        .is_some_and(|p| p.passes(held.into(), next))
            })
        });
        let Some(bytes) = bytes else {
            self.release_held();
            return self.lengthens_prefix(delta, out);
        };
        self.held.clear();
        self.prefix.clear();
        self.gathered.clear();
        if let Some(lane) = self.lane.as_mut() {
            lane.held = None;
        }
        self.offset += bytes.len() as i64 + 1;
        out.text(Text::Joined(held, bytes))?;
        Ok(true)
    }

    /// `_to_reasoning`: reasoning with nothing that may begin its closer.
    #[inline(never)] // (off the lanes' hot path: see Engine::feed)
    fn take_reasoning(&mut self, delta: Name<'_>, out: &mut H::Out<'_>) -> Result<(), H::Error> {
        self.host.planted("reasoning")?;
        self.offset += delta.len() as i64;
        let points = || delta.code_points();
        if self.thought.is_some() {
            self.keep_thought(out, &points())?;
        }
        out.reasoning_input(points)
    }

    /// `_closes_value`: (gather lane, in a value) a delta that only completes
    /// one of the value's closing tags is gathered too, once.
    #[inline(never)] // (off the lanes' hot path: see Engine::feed)
    fn closes_value(&mut self, delta: Name<'_>) -> Took<H> {
        let n = delta.len() as i64;
        let room = self.lane.as_ref().map_or(0, |l| l.room);
        if !self.closes_once || self.machine.is_none() || n > room {
            return Ok(false);
        }
        self.closes_once = false;
        // (in the scratch buffer: no allocation per delta)
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        text.extend_from_slice(&self.held);
        text.extend_from_slice(&self.gathered);
        let start = text.len();
        each_width!(delta, units => extend_points(&mut text, units));
        let closes = self
            .current_ref()
            .is_some_and(|machine| machine.only_closes_value(&text, start, &self.call_ends));
        if closes {
            if let Some(lane) = self.lane.as_mut() {
                lane.room -= n;
            }
            self.gathered.extend_from_slice(&text[start..]);
        }
        self.scratch = text;
        Ok(closes)
    }

    /// `_lengthens_prefix`: held text that may be a terminal: a delta that
    /// only lengthens it is gathered.
    #[inline(never)] // (off the lanes' hot path: see Engine::feed)
    fn lengthens_prefix(&mut self, delta: Name<'_>, out: &mut H::Out<'_>) -> Took<H> {
        self.host.planted("prefix")?;
        let start = self.prefix.len();
        each_width!(delta, units => extend_points(&mut self.prefix, units));
        let held = self
            .lane
            .as_ref()
            .and_then(|l| l.prefixes.as_ref())
            .is_some_and(|p| p.contains(&self.prefix));
        if !held {
            if self.machine.is_some() {
                self.prefix.truncate(start);
                return Ok(false);
            }
            // (the held text and the delta, in the scratch buffer: no allocation)
            let mut text = std::mem::take(&mut self.scratch);
            text.clear();
            text.extend_from_slice(&self.prefix);
            self.prefix.truncate(start);
            let taken = self.text_after_prefix(&text, out);
            self.scratch = text;
            return taken;
        }
        let Engine {
            prefix, gathered, ..
        } = self;
        gathered.extend_from_slice(&prefix[start..]);
        Ok(true)
    }

    /// `_text_after_prefix`: the held text and the delta after it begin no
    /// opener after all: text, and the text lane armed again; or they only
    /// begin one cut by their end: text before it, the cut part held.
    #[inline(never)] // (off the lanes' hot path: see Engine::feed)
    fn text_after_prefix(&mut self, text: &[u32], out: &mut H::Out<'_>) -> Took<H> {
        let Some(lane) = self.text_lane() else {
            return Ok(false);
        };
        let Some(end) = plain_up_to(text, self.plain_openers(lane.code)) else {
            return Ok(false);
        };
        let held = &text[end..];
        if !held.is_empty() && !self.opener_prefixes.contains(held) {
            return Ok(false);
        }
        // (in the buffers' own room: a held prefix comes often in some formats)
        self.held.clear();
        self.held.extend_from_slice(held);
        self.prefix.clear();
        self.prefix.extend_from_slice(held);
        self.gathered.clear();
        self.lane = Some(if held.is_empty() {
            lane
        } else {
            self.prefix_lane(self.opener_prefixes.clone())
        });
        if end == 0 {
            return Ok(true);
        }
        self.offset += end as i64;
        out.text(Text::Points(&text[..end]))?;
        Ok(true)
    }

    /// A string argument's piece streamed: `taken` (the text as written)
    /// into the raw text, `piece` (its JSON) into the arguments, and the
    /// `ToolCallDelta` of the JSON, `json` (the same piece, for the event).
    fn streamed<T: Unit>(
        &mut self,
        taken: &[T],
        piece: Piece<'_>,
        json: Text<'_>,
        out: &mut H::Out<'_>,
    ) -> Result<(), H::Error> {
        self.raw.extend(taken);
        if let Some(args) = self.current().and_then(Machine::args_mut) {
            match piece {
                Piece::Points(points) => args.push_units(points),
                Piece::Text(text, chars) => args.push_str(text, chars),
            }
        }
        self.string_delta(json, out)
    }

    /// The `ToolCallDelta` of the string that streams.
    #[inline(always)] // (the string lane's path: see Engine::feed)
    fn string_delta(&self, piece: Text<'_>, out: &mut H::Out<'_>) -> Result<(), H::Error> {
        let Some(string) = self.string.as_ref() else {
            return Ok(());
        };
        out.call_delta(&string.call, piece)
    }

    /// A delta that is its own JSON (a JSON string's plain text, or a value's
    /// with nothing to escape): into the raw text and the arguments as it is
    /// (`text`: where the delta is, for the event).
    #[inline(always)] // (the string lane's path: see Engine::feed)
    fn streamed_as_is(
        &mut self,
        delta: Name<'_>,
        text: Text<'_>,
        out: &mut H::Out<'_>,
    ) -> Result<(), H::Error> {
        self.append_as_is(delta);
        self.string_delta(text, out)
    }

    /// [`Engine::streamed_as_is`]'s delta into the raw text and the arguments.
    #[inline(always)] // (the string lane's path: see Engine::feed)
    fn append_as_is(&mut self, delta: Name<'_>) {
        let Engine {
            raw,
            machines,
            machine,
            ..
        } = self;
        let args = machine
            .and_then(|at| machines.get_mut(at))
            .and_then(Machine::args_mut);
        each_width!(delta, units => {
            raw.extend(units);
            if let Some(args) = args {
                args.push_units(units);
            }
        });
    }

    /// `_to_string`: (a value) plain text inside a value that streams as a
    /// string: its JSON into the arguments.
    #[inline(never)] // (off the lanes' hot path: see Engine::feed)
    fn take_string(&mut self, delta: Name<'_>, out: &mut H::Out<'_>) -> Result<(), H::Error> {
        self.host.planted("value sink")?;
        let escapes = each_width!(delta, units => has_escapes(units));
        if !escapes {
            return self.streamed_as_is(delta, Text::Input, out);
        }
        // (read in place, its JSON in the engine's own buffer: no allocation)
        let mut encoded = std::mem::take(&mut self.scratch_utf8);
        encoded.clear();
        let streamed = each_width!(delta, units => {
            crate::scan::json_encode_into(units, &mut encoded);
            let chars = encoded.chars().count();
            self.streamed(units, Piece::Text(&encoded, chars), Text::Str(&encoded), out)
        });
        self.scratch_utf8 = encoded;
        streamed
    }

    /// `_string_piece`: a delta that is not plain text as it stands: an
    /// escape, a value's newline or markup that cannot end it yet, as the
    /// string's own reader says (text that must wait is kept). False: a
    /// reader must read it.
    #[inline(never)] // (off the lanes' hot path: see Engine::feed)
    fn string_piece(&mut self, delta: Name<'_>, out: &mut H::Out<'_>) -> Took<H> {
        self.host.planted("string piece")?;
        let value = self.string.as_ref().is_some_and(|s| s.value);
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        text.extend_from_slice(&self.kept);
        each_width!(delta, units => extend_points(&mut text, units));
        let taken = self.string_text(value, &text, out);
        self.scratch = text;
        taken
    }

    /// `_string_piece` on `text`, the kept text and the delta after it.
    fn string_text(&mut self, value: bool, text: &[u32], out: &mut H::Out<'_>) -> Took<H> {
        // (what is taken and streamed: text[..split]; its JSON: the encoded
        // text when there is one, else that text itself)
        let found: Option<(Option<String>, usize)> = if value {
            self.value_piece(text)?
                .map(|(piece, split)| (Some(piece), split))
        } else {
            match json_text_of(text) {
                JsonText::Whole => Some((None, text.len())),
                JsonText::ButLastBackslash => Some((None, text.len() - 1)),
                JsonText::No => None,
            }
        };
        let room = self.lane.as_ref().map_or(0, |l| l.room) - text.len() as i64;
        let Some((encoded, split)) = found.filter(|_| room >= 0) else {
            return if value {
                let delta = text[self.kept.len()..].to_vec();
                Ok(self.ends_value(&delta))
            } else {
                Ok(false)
            };
        };
        let mut room = room;
        let keep = text.len() - split;
        if keep > 0 || !self.kept.is_empty() {
            // (while text is kept, every delta is decided here)
            if let Some(lane) = self.lane.as_mut() {
                lane.set_every(keep > 0);
            }
            room += keep as i64;
            self.kept.clear();
            self.kept.extend_from_slice(&text[split..]);
        }
        if let Some(lane) = self.lane.as_mut() {
            lane.room = room;
        }
        let taken = &text[..split];
        match encoded {
            None if taken.is_empty() => {}
            None => self.streamed(taken, Piece::Points(taken), Text::Points(taken), out)?,
            Some(encoded) if encoded.is_empty() => {}
            Some(encoded) => {
                let chars = encoded.chars().count();
                self.streamed(
                    taken,
                    Piece::Text(&encoded, chars),
                    Text::Str(&encoded),
                    out,
                )?;
            }
        }
        Ok(true)
    }

    /// `ValueReader.fast_piece` for the value that streams: (its JSON piece,
    /// where the kept text begins), or None where the reader must read it.
    fn value_piece(&self, text: &[u32]) -> Result<Option<(String, usize)>, H::Error> {
        let Some(machine) = self.current_ref() else {
            return Ok(None);
        };
        let (Some(value), Kind::Value { tables, xml, .. }) =
            (&machine.value, &machine.region().kind)
        else {
            return Ok(None);
        };
        let xml = *xml;
        let breaker = crate::scan::value_breaker(text, xml);
        if breaker == Breaker::Nowhere {
            return Ok(Some((crate::scan::json_encoded(text), text.len())));
        }
        if !value.fast_ok() {
            return Ok(None);
        }
        let view = View::new(machine, &self.ctx);
        let found = fast_piece(&tables.lexicon, &view, xml, text, breaker);
        Ok(found)
    }

    /// `_ends_value`: leaving the string lane at `delta` (after the kept
    /// text): when it only completes the value's closing tag, it is gathered
    /// as after a read, not read.
    fn ends_value(&mut self, delta: &[u32]) -> bool {
        let mut text = self.kept.clone();
        text.extend_from_slice(delta);
        if text.len() as i64 > GATHER {
            return false;
        }
        let Some(machine) = self.current_ref() else {
            return false;
        };
        if !machine.only_closes_value(&text, 0, &self.call_ends) {
            return false;
        }
        self.kept.clear();
        let n = text.len() as i64;
        self.gathered.extend(text);
        self.lane = Some(Lane::pattern(Pattern::Announced, GATHER - n));
        true
    }
}

/// `_plain_up_to`: how much of `text` is plain text as it stands where the
/// literal openers are looked for: all where none begins in it, or up to one
/// cut by its end. None where a reader must look.
fn plain_up_to<T: Unit>(text: &[T], literals: Option<&crate::scan::Literals>) -> Option<usize> {
    let literals = literals?;
    if text.is_empty()
        || text.iter().any(|&c| {
            let c: u32 = c.into();
            c == 10 || is_surrogate(c)
        })
    {
        return None;
    }
    match literals.found_in(text) {
        Found::Nothing => Some(text.len()),
        Found::Whole => None,
        Found::Cut(p) => Some(p),
    }
}

fn json_text_of(text: &[u32]) -> JsonText {
    crate::scan::json_text(text)
}

/// `ValueReader.fast_piece(text, breaker)` (see value.py), the value fresh
/// enough to look (`fast_ok`): the JSON piece, and where the kept text begins.
fn fast_piece<H: Host>(
    lexicon: &Lexicon,
    view: &View<'_, H>,
    xml: bool,
    text: &[u32],
    breaker: Breaker,
) -> Option<(String, usize)> {
    let n = text.len();
    if let Breaker::BlankLastLine(last) = breaker {
        // the first breaker is a blank last line: all but that line, and that line waits
        if n - last > MAX_KEPT {
            return None;
        }
        return Some((crate::scan::json_encoded(&text[..last]), last));
    }
    let mut end = n;
    let lt_char = u32::from(b'<');
    let (listed, chars) = lexicon.after_lt();
    let mut lt = text.iter().position(|&c| c == lt_char);
    while let Some(at) = lt {
        let after = text.get(at + 1).copied();
        match after {
            Some(0x21) => return None, // (a CDATA section)
            None => {
                end = at; // (a terminal may begin here, cut by the text's end)
                break;
            }
            Some(after) => {
                if chars.contains(&after) == listed {
                    if lexicon.prefix_at(text, at, view) {
                        end = at; // (cut by the text's end: it and what follows wait)
                        break;
                    }
                    if lexicon.match_at(text, at, view).is_some() {
                        return None; // (a terminal: the reader decides what it means)
                    }
                }
            }
        }
        lt = text[at + 1..]
            .iter()
            .position(|&c| c == lt_char)
            .map(|k| at + 1 + k);
    }
    if xml {
        if let Some(amp) = text[..end].iter().rposition(|&c| c == u32::from(b'&')) {
            if crate::entities::entity_prefix(&text[amp..end]) {
                end = amp; // (an entity the text's end may cut: read whole)
            }
        }
    }
    let body = &text[..end];
    if body
        .iter()
        .any(|&c| c <= 0x08 || (0x0B..=0x1F).contains(&c) || is_surrogate(c))
    {
        return None;
    }
    let held = n - end;
    let mut cut = end;
    if let Some(last) = body.iter().rposition(|&c| c == 10) {
        if body[last + 1..].iter().all(|&c| c == 0x20 || c == 0x09) {
            if n - last > MAX_KEPT + held {
                return None;
            }
            cut = last;
        }
    }
    let piece = if xml {
        crate::scan::json_encoded(&crate::entities::decoded(&text[..cut]))
    } else {
        crate::scan::json_encoded(&text[..cut])
    };
    Some((piece, cut))
}
