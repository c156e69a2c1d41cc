//! Running one block of call markup through a compiled grammar's regions
//! (`toolparse.engine.machine.Machine`, transliterated).
//!
//! A [`Machine`] (the block reader) reads a block from the character after
//! its opener. In each region the region's reader reads ([`crate::regions`])
//! and finds the next terminal; the terminal's step ([`Machine::step`])
//! starts or ends calls and members and says where reading goes on. The
//! machine reports what it read and never writes the engine's state: `feed`
//! returns how far it read, and the engine asks `finished`, `rejected` and
//! `failed_at` and takes the [`Outcome`]s with [`Machine::take_outcomes`].
//!
//! Where a reader cannot decide yet (a partial terminal at the end of the
//! text it was given), `feed` stops there: the engine gives it those
//! characters again with the next delta. Names, member keys and the text the
//! machine holds are code points (`u32`); block positions are `i64` (a
//! text's first character may lie before the block's start).

use std::cell::{OnceCell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::call_env::{CallEnv, HostTyper};
use crate::calls::{Ending, Host as _, MemberCall};
use crate::calls_json::JsonCall;
use crate::coercion::Value;
use crate::context::{Context, PointNames, PropertyNames};
use crate::engine::regions::Reader;
use crate::grammar::{Reason, Step, TO_BEFORE, TO_END, TO_FAIL, TO_REJECT};
use crate::host::{Host, Outcome};
use crate::lexicon::{Name, Names, TagContext};
use crate::runtime::{BlockRt, Kind, OpenerRt, RegionRt};
use crate::rust_calls::Convert;
use crate::value::ValueReader;
use crate::wide;

/// Code points as generalized UTF-8 (what the calls keep names and keys as).
pub fn wide_of_points(points: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(points.len());
    wide::push_units(&mut out, points);
    out
}

/// A JSON call (`EnvelopeCall` or `JsonArgsCall`), with the core's typer.
pub type JsonCallRt<H> = JsonCall<Value, HostTyper<H>>;

/// The call being read, of the kind its block makes.
pub enum Call<H: Host> {
    /// Named text members (`MemberCall`).
    Member(Box<MemberCall<Value>>),
    /// A JSON object: an envelope of name and arguments, or the arguments.
    Json(Box<JsonCallRt<H>>),
}

impl<H: Host> Call<H> {
    pub fn started(&self) -> bool {
        match self {
            Call::Member(c) => c.started,
            Call::Json(c) => c.started(),
        }
    }

    /// The call's name (generalized UTF-8; None: not known yet).
    pub fn wide_name(&self) -> Option<&[u8]> {
        match self {
            Call::Member(c) => Some(&c.name),
            Call::Json(c) => c.name(),
        }
    }

    /// The call's name, as code points (None: not known yet).
    pub fn name(&self) -> Option<Vec<u32>> {
        self.wide_name().map(|n| wide::chars(n).collect())
    }

    /// The call's argument text flushed so far.
    pub fn args_mut(&mut self) -> &mut crate::pieces::Pieces {
        match self {
            Call::Member(c) => &mut c.args,
            Call::Json(c) => &mut c.state.args,
        }
    }
}

/// The call being read, as its events name it (once started), and its converter.
pub struct CallSlot<H: Host> {
    pub call: Call<H>,
    pub ids: Option<H::Call>,
    pub convert: Convert,
    /// A number that tells calls apart (the engine's string lane asks whether
    /// the string that streams is still the same).
    pub serial: u64,
    /// The call's name as code points, once known and asked for.
    pub name_points: OnceCell<Vec<u32>>,
}

/// Where the machine reads: a region of the block, or its skip region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    Region(usize),
    Skip,
}

/// Reads one block; see the module docs.
pub struct Machine<H: Host> {
    pub block: Arc<BlockRt>,
    lenient: bool,
    /// Value text read before its call began.
    pending: Vec<u32>,
    outcomes: Vec<Outcome<H>>,
    /// Each region's reader state (made when first entered: kept for the next
    /// block of this kind), and the skip region's (it has none).
    pub(crate) readers: Vec<Option<Reader>>,
    pub(crate) at: At,
    pub slot: Option<CallSlot<H>>,
    /// A call named, its JSON arguments not begun.
    pub json_name: Option<Vec<u32>>,
    /// The name just read (an opener tag's name, a Name region's text).
    pub name: Vec<u32>,
    /// The member being read.
    pub key: Option<Vec<u32>>,
    /// The member's text streams as a string.
    pub streams: bool,
    /// The value being read (made by its region's reader).
    pub value: Option<ValueReader>,
    /// A number that tells values apart (see [`CallSlot::serial`]).
    pub value_serial: u64,
    /// The called tool's property names (None: not looked up yet).
    properties: RefCell<Option<PropertyNames>>,
    /// Ends the block's outcomes, once it ends.
    error: Option<Outcome<H>>,
    pub(crate) stop: bool,
    /// The last feed stopped where more text is needed to decide.
    pub waiting: bool,
    /// The block has ended, or was rejected.
    pub finished: bool,
    /// Where the block ended (block-relative), once it has (-1: not yet).
    pub end: i64,
    /// The opener was only mentioned: it and what was read after it are text.
    pub rejected: bool,
    /// Where the markup broke, once it has (-1: not yet).
    pub failed_at: i64,
    /// Where the last complete call or error ended.
    pub last_end: i64,
}

/// Where the serials of calls and values come from: one count for every
/// machine. An engine keeps a machine per kind of block (k2-horizon's group
/// and its bare call), and the string lane tells strings apart by serial
/// alone: counted per machine, the first value of a bare call had the serial
/// of the failed group's, and the lane streamed the new call's text into the
/// ended one (the reference compares the strings themselves).
static SERIALS: AtomicU64 = AtomicU64::new(0);

/// What the machine needs of the engine while it reads: the host, the
/// stream's call context, and where the read's events go.
pub struct Env<'a, 'o, H: Host> {
    pub host: &'a mut H,
    pub ctx: &'a mut Context,
    /// The events of the read in progress.
    pub out: &'a mut H::Out<'o>,
}

/// The machine as the lexicons' tag context (`Machine`'s `TagContext`
/// properties).
pub struct View<'a, H: Host> {
    machine: &'a Machine<H>,
    ctx: &'a Context,
    tools: Option<PointNames<'a>>,
    properties: OnceCell<PropertyNames>,
}

impl<'o, H: Host> Env<'_, 'o, H> {
    /// The calls' host for a call (`call`: its announcement, once started)
    /// converting its members as `convert` says.
    pub fn calls<'b>(
        &'b mut self,
        call: &'b mut Option<H::Call>,
        convert: Convert,
    ) -> CallEnv<'b, 'o, H> {
        CallEnv {
            host: &mut *self.host,
            ctx: &mut *self.ctx,
            out: &mut *self.out,
            call,
            convert,
        }
    }

    /// The stream's `max_depth`.
    pub fn ctx_max_depth(&self) -> usize {
        self.ctx.max_depth
    }
}

impl<'a, H: Host> View<'a, H> {
    pub fn new(machine: &'a Machine<H>, ctx: &'a Context) -> Self {
        View {
            machine,
            ctx,
            tools: ctx.tools.as_ref().map(|t| PointNames(&t.names)),
            properties: OnceCell::new(),
        }
    }
}

impl<H: Host> TagContext for View<'_, H> {
    fn key(&self) -> Option<Name<'_>> {
        self.machine.key.as_ref().map(|k| Name::U32(k))
    }

    fn call_name(&self) -> Option<Name<'_>> {
        self.machine.call_name_points().map(Name::U32)
    }

    fn tool_names(&self) -> Option<&dyn Names> {
        self.tools.as_ref().map(|t| t as &dyn Names)
    }

    fn property_names(&self) -> Option<&dyn Names> {
        let names = self.properties.get_or_init(|| {
            if let Some(known) = self.machine.properties.borrow().as_ref() {
                return known.clone();
            }
            let names = match &self.machine.slot {
                Some(slot) => match slot.call.wide_name() {
                    Some(name) => self.ctx.property_names_of(name),
                    None => None,
                },
                None if self.machine.name.is_empty() => None,
                None => self
                    .ctx
                    .property_names_of(&wide_of_points(&self.machine.name)),
            };
            *self.machine.properties.borrow_mut() = Some(names.clone());
            names
        });
        names.as_ref().map(|n| {
            let n: &Vec<Vec<u32>> = n;
            n as &dyn Names
        })
    }

    fn given(&self, name: Name<'_>) -> bool {
        match &self.machine.slot {
            Some(CallSlot {
                call: Call::Member(call),
                ..
            }) => {
                let key = wide_of_points(&name.code_points());
                call.has(&key)
            }
            _ => false,
        }
    }
}

impl<H: Host> Machine<H> {
    pub fn new(block: Arc<BlockRt>) -> Machine<H> {
        let regions = block.regions.len();
        Machine {
            block,
            lenient: false,
            pending: Vec::new(),
            outcomes: Vec::new(),
            readers: (0..regions).map(|_| None).collect(),
            at: At::Skip,
            slot: None,
            json_name: None,
            name: Vec::new(),
            key: None,
            streams: true,
            value: None,
            value_serial: 0,
            properties: RefCell::new(None),
            error: None,
            stop: false,
            waiting: false,
            finished: false,
            end: -1,
            rejected: false,
            failed_at: -1,
            last_end: 0,
        }
    }

    /// The region being read.
    pub fn region(&self) -> &RegionRt {
        match self.at {
            At::Region(k) => &self.block.regions[k],
            At::Skip => &self.block.skip,
        }
    }

    pub(crate) fn next_serial(&mut self) -> u64 {
        SERIALS.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Begin reading a block after `opener` (its `name`, if it names a tool;
    /// `at`: the opener's length). Everything a block reads is set afresh
    /// here: one machine reads every block of its kind in turn.
    pub fn begin(
        &mut self,
        env: &mut Env<'_, '_, H>,
        opener: &OpenerRt,
        name: Vec<u32>,
        at: i64,
    ) -> Result<(), H::Error> {
        self.lenient = opener.lenient;
        self.slot = None;
        self.json_name = None;
        self.name = name;
        self.key = None;
        self.streams = true;
        self.value = None;
        self.pending.clear();
        *self.properties.borrow_mut() = None;
        self.outcomes.clear();
        self.error = None;
        self.stop = false;
        self.waiting = false;
        self.finished = false;
        self.end = -1;
        self.rejected = false;
        self.failed_at = -1;
        self.last_end = 0;
        let region = usize::try_from(opener.region).unwrap_or(0);
        self.enter(At::Region(region));
        if let Some(step) = &opener.step {
            self.step(env, step, 0, 0, None, at)?;
        }
        Ok(())
    }

    // -- what the engine asks ----------------------------------------------------------

    /// The block's closing marker, when it is a literal.
    pub fn closer(&self) -> Option<&[u32]> {
        self.block.closer.as_deref()
    }

    /// The calls and errors so far (the block's, when it has ended).
    pub fn take_outcomes(&mut self) -> Vec<Outcome<H>> {
        std::mem::take(&mut self.outcomes)
    }

    /// `names_undeclared_tool`: a call of the block names a tool that was not
    /// declared (the format's call was read, only its tool is unknown).
    pub fn names_undeclared_tool(&self) -> bool {
        self.outcomes
            .iter()
            .any(|o| o.reason == Some(Reason::UnknownTool) && o.name.is_some())
    }

    /// The block has made something of its markup: a call announced, or a
    /// call or error complete (it will not be read as text).
    pub fn committed(&self) -> bool {
        !self.outcomes.is_empty() || self.announced()
    }

    /// The call being read has been announced.
    pub fn announced(&self) -> bool {
        self.slot.as_ref().is_some_and(|s| s.call.started())
    }

    /// A call is being read that the block can no longer be rejected over.
    pub fn in_committed_call(&self) -> bool {
        let Some(slot) = &self.slot else {
            return false;
        };
        if self.failed_at >= 0 || self.finished {
            return false;
        }
        slot.call.started() || (!self.lenient && self.in_body())
    }

    /// (JSON) Inside a call object (the reader's `in_body`).
    pub fn in_body(&self) -> bool {
        match self.at {
            At::Region(k) => self.readers[k].as_ref().is_some_and(Reader::in_body),
            At::Skip => false,
        }
    }

    /// Inside a Python literal's string: only its quote can change anything
    /// (the quote character).
    pub fn quiet_until(&self) -> Option<u32> {
        match self.at {
            At::Region(k) => self.readers[k].as_ref().and_then(Reader::quiet_until),
            At::Skip => None,
        }
    }

    /// A string value has begun and none of its text is read yet.
    pub fn string_starts(&self) -> bool {
        self.value.as_ref().is_some_and(ValueReader::fresh)
            && self.streams
            && matches!(self.region().kind, Kind::Value { .. })
    }

    /// A value region is being read.
    pub fn in_value(&self) -> bool {
        matches!(self.region().kind, Kind::Value { .. })
    }

    /// Reading a name before any call is announced: text with none of the
    /// name's breakers only lengthens it, for this many more characters.
    pub fn name_room(&self) -> Option<usize> {
        if self.finished || self.failed_at >= 0 {
            return None;
        }
        let At::Region(k) = self.at else {
            return None;
        };
        let Kind::Name {
            breakers: Some(_),
            longest,
            ..
        } = &self.block.regions[k].kind
        else {
            return None;
        };
        let length = match &self.readers[k] {
            Some(Reader::Name { parts }) => parts.len(),
            _ => 0,
        };
        longest.checked_sub(length).filter(|&room| room > 0)
    }

    /// `name_room` with the name's breakers (the gather lane's stops).
    pub fn name_room_pattern(&self) -> Option<(crate::grammar::CharClass, usize)> {
        let room = self.name_room()?;
        let At::Region(k) = self.at else {
            return None;
        };
        match &self.block.regions[k].kind {
            Kind::Name {
                breakers: Some(b), ..
            } => Some((b.clone(), room)),
            _ => None,
        }
    }

    /// `open_string`: inside a string that streams, what the engine's string
    /// lane needs of it (None: no string streams).
    pub fn open_string(&self) -> Option<crate::engine::lanes::StringLane<H>> {
        let slot = self.slot.as_ref()?;
        if !slot.call.started() {
            return None;
        }
        let call = slot.ids.as_ref()?;
        let value = match &self.region().kind {
            Kind::Value { .. } => {
                let value = self.value.as_ref()?;
                if !value.plain() {
                    return None;
                }
                match &slot.call {
                    Call::Member(c) if c.string_opens() => {}
                    _ => return None,
                }
                true
            }
            Kind::JsonCalls { .. } if self.in_body() => match &slot.call {
                Call::Json(c) if c.string_opens() => false,
                _ => return None,
            },
            Kind::JsonArgs { .. } => match &slot.call {
                Call::Json(c) if c.string_opens() => false,
                _ => return None,
            },
            _ => return None,
        };
        Some(crate::engine::lanes::StringLane {
            serial: (slot.serial, if value { self.value_serial } else { 0 }),
            call: call.clone(),
            value,
        })
    }

    /// The call's argument text (the string lane appends what it streamed).
    pub fn args_mut(&mut self) -> Option<&mut crate::pieces::Pieces> {
        self.slot.as_mut().map(|slot| slot.call.args_mut())
    }

    /// The call's name, or the name just read (`Machine.call_name`).
    pub fn call_name(&self) -> Option<Vec<u32>> {
        self.call_name_points().map(<[u32]>::to_vec)
    }

    /// [`Machine::call_name`], borrowed (the call's name as code points is
    /// kept with the call once known).
    pub fn call_name_points(&self) -> Option<&[u32]> {
        match &self.slot {
            Some(slot) => {
                let wide = slot.call.wide_name()?;
                Some(slot.name_points.get_or_init(|| {
                    // (at most a code point a byte: one allocation)
                    let mut points = Vec::with_capacity(wide.len());
                    points.extend(wide::chars(wide));
                    points
                }))
            }
            None => (!self.name.is_empty()).then_some(&self.name[..]),
        }
    }

    // -- reading -----------------------------------------------------------------------

    /// Read `text[i..]` (`pos`: the block position of `text[i]`); return where
    /// reading stopped: the end of the text, the block's end, or a place
    /// where more text is needed.
    pub fn feed(
        &mut self,
        env: &mut Env<'_, '_, H>,
        text: &[u32],
        mut i: usize,
        pos: i64,
        last: bool,
    ) -> Result<usize, H::Error> {
        let base = pos - i as i64;
        self.stop = false;
        self.waiting = false;
        let n = text.len();
        while i < n && !self.stop {
            i = self.read(env, text, i, base, last)?;
        }
        Ok(i)
    }

    /// The stream ended at block position `pos` (held text already fed, final).
    pub fn close(&mut self, env: &mut Env<'_, '_, H>, pos: i64) -> Result<(), H::Error> {
        if self.finished {
            return Ok(());
        }
        if let Some(value) = self.value.as_mut() {
            let mut collect = crate::engine::regions::Collect::default();
            value.finish::<u32, _>(&mut collect);
            if collect.any {
                self.value_text(&collect.points);
            }
        }
        if self.slot.is_some() && self.in_body() {
            self.finish_json(env, pos)?;
        }
        if self.finished {
            return Ok(());
        }
        if let Some(at_end) = self.region().at_end.clone() {
            if self.failed_at < 0 {
                self.step(env, &at_end, 0, 0, None, pos)?;
                if self.finished {
                    return Ok(());
                }
            }
        }
        if self.slot.is_some() || self.json_name.is_some() {
            self.unfinished(env, "the stream ended inside the call")?;
        } else if self.error.is_none() && self.outcomes.is_empty() {
            if self.lenient {
                self.rejected = true;
                self.finished = true;
                return Ok(());
            }
            self.unfinished(env, "the stream ended before the call")?;
        }
        self.end_at(env, pos)
    }

    /// The block ended with the stream, inside a call.
    pub fn unfinished_block(&self) -> bool {
        self.end >= 0
            && self
                .outcomes
                .last()
                .is_some_and(|o| o.reason == Some(Reason::UnfinishedCall))
    }

    /// The engine found the block's closer at `end` inside a call that broke
    /// later: the block ends there.
    pub fn cut(&mut self, env: &mut Env<'_, '_, H>, end: i64) -> Result<(), H::Error> {
        if self.end >= 0 {
            let closer = self.closer().map(|c| c.to_vec()).unwrap_or_default();
            if let Some(last) = self.outcomes.last_mut() {
                last.reason = Some(Reason::MalformedJson);
                // f"a value was never closed before {self.closer}"
                let mut message = b"a value was never closed before ".to_vec();
                wide::push_units(&mut message, &closer);
                last.message = message;
            }
            self.end = end;
            return Ok(());
        }
        self.end_at(env, end)
    }

    /// The block passed the size limit: the outcome of the call in progress
    /// (its raw ends here); then only the block's end is looked for.
    pub fn overflow(&mut self, env: &mut Env<'_, '_, H>) -> Result<Outcome<H>, H::Error> {
        let current = match self.error.take() {
            Some(error) if error.reason != Some(Reason::TooLarge) => error,
            _ => self.now(env, Reason::TooLarge, Vec::new())?,
        };
        self.drop_call();
        self.error = Some(Outcome::error(None, None, Reason::TooLarge, Vec::new()));
        self.enter(At::Skip);
        Ok(current)
    }

    // -- what the region readers use ---------------------------------------------------

    /// Stop at `at`: more text is needed to decide.
    pub(crate) fn wait(&mut self, at: usize) -> usize {
        self.stop = true;
        self.waiting = true;
        at
    }

    pub(crate) fn declares(&self, env: &Env<'_, '_, H>, name: &[u32]) -> bool {
        env.ctx.declares(&wide_of_points(name))
    }

    /// The next decoded text of the value being read: the member's, or held
    /// until its call begins.
    pub(crate) fn value_text(&mut self, piece: &[u32]) {
        if self.key.is_some() {
            if let Some(CallSlot {
                call: Call::Member(call),
                ..
            }) = &mut self.slot
            {
                // (an empty piece too: a streaming member's flush then emits an
                // empty delta, as the reference's list of pieces does)
                call.text(piece);
                return;
            }
        }
        self.pending.extend_from_slice(piece);
    }

    /// Run `f` on the call being read with its host.
    pub(crate) fn with_call<R>(
        &mut self,
        env: &mut Env<'_, '_, H>,
        f: impl FnOnce(&mut Call<H>, &mut CallEnv<'_, '_, H>) -> Result<R, H::Error>,
    ) -> Result<Option<R>, H::Error> {
        let Some(slot) = self.slot.as_mut() else {
            return Ok(None);
        };
        let mut host = env.calls(&mut slot.ids, slot.convert);
        f(&mut slot.call, &mut host).map(Some)
    }

    /// Flush the call being read (its new argument text becomes a delta).
    pub(crate) fn flush(&mut self, env: &mut Env<'_, '_, H>) -> Result<(), H::Error> {
        self.with_call(env, |call, host| match call {
            Call::Member(c) => c.flush(host),
            Call::Json(c) => c.flush(host),
        })?;
        Ok(())
    }

    fn finish_json(&mut self, env: &mut Env<'_, '_, H>, pos: i64) -> Result<(), H::Error> {
        // (JSON calls: see regions.rs)
        crate::engine::regions::finish_json(self, env, pos)
    }

    // -- steps -------------------------------------------------------------------------

    /// Take a step at the terminal (or character) `text[start..end]`; return
    /// where reading goes on. `hit_name`: the name of the tag found, if any.
    pub fn step(
        &mut self,
        env: &mut Env<'_, '_, H>,
        step: &Step,
        start: usize,
        mut end: usize,
        hit_name: Option<&[u32]>,
        base: i64,
    ) -> Result<usize, H::Error> {
        let mut to = step.to;
        if to == TO_FAIL {
            if step.reason == Reason::MalformedJson {
                let error = self.now(env, step.reason, step.message.clone().into_bytes())?;
                self.fail_json(error, base + start as i64);
            } else {
                self.fail(
                    env,
                    step.message.as_bytes(),
                    base + start as i64,
                    step.reason,
                )?;
            }
            return Ok(start);
        }
        let sole = if step.require_sole_string || step.sole_string {
            self.sole_string(env)?
        } else {
            None
        };
        if (step.require_sole_string || step.sole_string) && sole.is_none() {
            to = TO_REJECT;
        } else {
            if step.call {
                self.start_call(env, step.json_call)?;
            }
            if step.member {
                let key = if step.sole_string {
                    sole
                } else {
                    // (copied only here: most steps of a tag never read its name)
                    match hit_name {
                        Some(name) if !name.is_empty() => Some(name.to_vec()),
                        _ => Some(self.name.clone()),
                    }
                };
                self.begin_member(env, key)?;
            }
            if step.end_member {
                self.end_member(env)?;
            }
            if step.end_call {
                let at = if to == TO_BEFORE { start } else { end };
                self.end_call(env, base + at as i64)?;
            }
        }
        if step.again {
            end = start;
        }
        if to >= 0 {
            self.goto(env, to, end, base)?;
            return Ok(end);
        }
        if to == TO_END {
            self.end_at(env, base + end as i64)?;
            return Ok(end);
        }
        if to == TO_BEFORE {
            self.end_at(env, base + start as i64)?;
            return Ok(start);
        }
        if to == TO_REJECT {
            self.reject(env, base + start as i64)?;
            return Ok(start);
        }
        Ok(end) // TO_STAY
    }

    /// Reading goes on in the region `index` at `at` (a negative index: the
    /// step of that number, as a JSON reader's `then` that ends the block).
    pub fn goto(
        &mut self,
        env: &mut Env<'_, '_, H>,
        index: i32,
        at: usize,
        base: i64,
    ) -> Result<(), H::Error> {
        if index < 0 {
            let step = Step {
                to: index,
                call: false,
                json_call: false,
                member: false,
                sole_string: false,
                end_member: false,
                end_call: false,
                require_sole_string: false,
                again: false,
                message: String::new(),
                reason: Reason::MalformedMarkup,
            };
            self.step(env, &step, at, at, None, base)?;
            return Ok(());
        }
        self.enter(At::Region(usize::try_from(index).unwrap_or(0)));
        Ok(())
    }

    /// The call's tool's one string property, when it has exactly one.
    fn sole_string(&mut self, env: &mut Env<'_, '_, H>) -> Result<Option<Vec<u32>>, H::Error> {
        let found = match &self.slot {
            Some(CallSlot {
                call: Call::Member(call),
                ..
            }) => {
                let mut ids = None;
                let mut host = env.calls(&mut ids, Convert::Text);
                call.sole_string_property(&mut host)?
            }
            _ => {
                let ctx = &mut *env.ctx;
                let schema = if ctx.coerce {
                    ctx.schema_of(&wide_of_points(&self.name)).cloned()
                } else {
                    None
                };
                ctx.services
                    .sole_string_of(schema.as_ref())
                    .map_err(H::core_error)?
            }
        };
        Ok(match found {
            Some(Value::Str(name)) => Some(wide::chars(&name).collect()),
            _ => None,
        })
    }

    fn start_call(&mut self, env: &mut Env<'_, '_, H>, json: bool) -> Result<(), H::Error> {
        *self.properties.borrow_mut() = None;
        if json {
            self.json_name = Some(self.name.clone());
            return Ok(());
        }
        let convert = if self.block.literal {
            Convert::Literal
        } else if self.block.xml {
            Convert::Fragment
        } else {
            Convert::Text
        };
        let name = wide_of_points(&self.name);
        let ctx = &*env.ctx;
        let root = if ctx.coerce {
            ctx.schema_of(&name).cloned()
        } else {
            None
        };
        let schemaless = ctx.tools.is_none() && ctx.coerce;
        let mut ids = None;
        let mut host = env.calls(&mut ids, convert);
        let call = MemberCall::new(&mut host, name, root, schemaless, self.block.literal)?;
        let serial = self.next_serial();
        self.slot = Some(CallSlot {
            call: Call::Member(Box::new(call)),
            ids,
            convert,
            serial,
            name_points: OnceCell::new(),
        });
        Ok(())
    }

    fn begin_member(
        &mut self,
        env: &mut Env<'_, '_, H>,
        key: Option<Vec<u32>>,
    ) -> Result<(), H::Error> {
        let is_member = matches!(
            self.slot,
            Some(CallSlot {
                call: Call::Member(_),
                ..
            })
        );
        let Some(key) = key.filter(|_| is_member) else {
            self.streams = true;
            return Ok(());
        };
        let wide_key = wide_of_points(&key);
        self.key = Some(key);
        let pending = std::mem::take(&mut self.pending);
        let streams = self.with_call(env, |call, host| match call {
            Call::Member(c) => {
                let streams = c.begin(host, wide_key)?;
                if !pending.is_empty() {
                    c.text(&pending);
                }
                Ok(streams)
            }
            Call::Json(_) => Ok(true),
        })?;
        self.streams = streams.unwrap_or(true);
        Ok(())
    }

    fn end_member(&mut self, env: &mut Env<'_, '_, H>) -> Result<(), H::Error> {
        if self.key.is_some() {
            self.with_call(env, |call, host| match call {
                Call::Member(c) => c.end(host),
                Call::Json(_) => Ok(()),
            })?;
        }
        self.key = None;
        self.value = None;
        self.streams = true;
        Ok(())
    }

    fn end_call(&mut self, env: &mut Env<'_, '_, H>, pos: i64) -> Result<(), H::Error> {
        if self.slot.is_none() {
            if let Some(name) = self.json_name.take() {
                // named, but no arguments written
                self.name = name;
                self.start_call(env, false)?;
            }
        }
        if self.slot.is_none() {
            return Ok(());
        }
        self.with_call(env, |call, host| match call {
            Call::Member(c) => c.close(host),
            Call::Json(_) => Ok(()), // (the base's hook: nothing owed)
        })?;
        self.complete(env, pos)
    }

    /// The call being read is complete at `pos`: its outcome.
    pub(crate) fn complete(&mut self, env: &mut Env<'_, '_, H>, pos: i64) -> Result<(), H::Error> {
        let Some(mut slot) = self.slot.take() else {
            return Ok(());
        };
        let outcome = call_outcome(env, &mut slot, Some(pos))?;
        self.outcomes.push(outcome);
        self.last_end = pos;
        self.key = None;
        self.value = None;
        *self.properties.borrow_mut() = None;
        Ok(())
    }

    // -- endings -----------------------------------------------------------------------

    pub(crate) fn end_at(&mut self, env: &mut Env<'_, '_, H>, pos: i64) -> Result<(), H::Error> {
        if self.slot.is_some() || self.json_name.is_some() {
            self.error = Some(self.now(
                env,
                Reason::MalformedMarkup,
                b"the block ended inside the call".to_vec(),
            )?);
        }
        self.drop_call();
        if self.lenient
            && !self.outcomes.iter().any(|o| o.name.is_some())
            && self.error.as_ref().is_none_or(|e| e.call.is_none())
        {
            // a lenient wrapper (<tools>, ...) holding no call is text
            self.rejected = true;
            self.finished = true;
            self.error = None;
            self.stop = true;
            return Ok(());
        }
        if let Some(error) = self.error.take() {
            self.outcomes.push(error);
        }
        self.end = pos;
        self.finished = true;
        self.stop = true;
        Ok(())
    }

    fn reject(&mut self, env: &mut Env<'_, '_, H>, pos: i64) -> Result<(), H::Error> {
        if !self.outcomes.is_empty() || self.announced() {
            return self.end_at(env, pos); // calls already announced stand: the block ends here
        }
        self.drop_call();
        self.rejected = true;
        self.finished = true;
        self.end = -1;
        self.stop = true;
        Ok(())
    }

    /// `_now`: the call in progress as an error (flushed first), or an error
    /// of the name read.
    pub(crate) fn now(
        &mut self,
        env: &mut Env<'_, '_, H>,
        reason: Reason,
        message: Vec<u8>,
    ) -> Result<Outcome<H>, H::Error> {
        if self.slot.is_some() {
            self.flush(env)?;
            let slot = self.slot.as_ref().expect("a call");
            return Ok(call_error(slot, None, reason, message));
        }
        let name = match &self.json_name {
            Some(name) => {
                let name: Vec<u32> = name.iter().map(|&c| wide::replaced(c)).collect();
                Some(wide_of_points(&name))
            }
            None => None,
        };
        Ok(Outcome::error(None, name, reason, message))
    }

    pub(crate) fn unfinished(
        &mut self,
        env: &mut Env<'_, '_, H>,
        message: &str,
    ) -> Result<(), H::Error> {
        self.error = Some(self.now(env, Reason::UnfinishedCall, message.as_bytes().to_vec())?);
        self.drop_call();
        Ok(())
    }

    /// Broken markup at `at`: the error runs to the block's end.
    pub(crate) fn fail(
        &mut self,
        env: &mut Env<'_, '_, H>,
        message: &[u8],
        at: i64,
        reason: Reason,
    ) -> Result<(), H::Error> {
        self.error = Some(self.now(env, reason, message.to_vec())?);
        self.broken(at);
        Ok(())
    }

    /// A JSON syntax error. Calls already complete in the same block are not
    /// trusted either: each becomes an error of its own.
    pub(crate) fn fail_json(&mut self, error: Outcome<H>, at: i64) {
        for outcome in &mut self.outcomes {
            if outcome.reason.is_none() || outcome.reason == Some(Reason::UnknownTool) {
                outcome.reason = Some(Reason::MalformedJson);
                let mut message = b"the block holding this call is malformed: ".to_vec();
                message.extend_from_slice(&error.message);
                outcome.message = message;
            }
        }
        self.error = Some(error);
        self.broken(at);
    }

    fn broken(&mut self, at: i64) {
        self.failed_at = at;
        self.drop_call();
        self.enter(At::Skip);
        self.stop = true; // (the engine looks for a closer to cut the block at)
    }

    fn drop_call(&mut self) {
        self.slot = None;
        self.json_name = None;
        self.value = None;
        self.key = None;
        self.pending.clear();
    }
}

/// `Call.error(end, reason, message)`.
pub(crate) fn call_error<H: Host>(
    slot: &CallSlot<H>,
    end: Option<i64>,
    reason: Reason,
    message: Vec<u8>,
) -> Outcome<H> {
    let name = slot.call.wide_name().map(<[u8]>::to_vec);
    let mut outcome = Outcome::error(end, name, reason, message);
    outcome.call = slot.ids.clone();
    outcome
}

/// `Call.outcome(end)`: the call's markup is complete: a call, or an error
/// saying why not.
fn call_outcome<H: Host>(
    env: &mut Env<'_, '_, H>,
    slot: &mut CallSlot<H>,
    end: Option<i64>,
) -> Result<Outcome<H>, H::Error> {
    let mut host = env.calls(&mut slot.ids, slot.convert);
    let (ending, issues) = match &mut slot.call {
        Call::Member(c) => {
            let ending = c.outcome(&mut host)?;
            (ending, c.extra_issues().to_vec())
        }
        Call::Json(c) => {
            let (ending, issues) = c.outcome(&mut host)?;
            let issues = match issues {
                Some(Value::Array(items)) => items.to_vec(),
                _ => Vec::new(),
            };
            (ending, issues)
        }
    };
    match ending {
        Ending::Invalid(problem) => Ok(call_error(slot, end, Reason::InvalidCall, problem)),
        Ending::Malformed(problem) => Ok(call_error(slot, end, Reason::MalformedMarkup, problem)),
        Ending::Unknown(arguments) => {
            let name = slot.call.wide_name().map(<[u8]>::to_vec);
            // f"no tool named {self.name!r} was declared"
            let mut message = b"no tool named ".to_vec();
            match &name {
                Some(name) => {
                    let points: Vec<u32> = wide::chars(name).collect();
                    message.extend_from_slice(crate::pyliteral::repr(&points).as_bytes());
                }
                None => message.extend_from_slice(b"None"),
            }
            message.extend_from_slice(b" was declared");
            let mut outcome = Outcome::error(end, name, Reason::UnknownTool, message);
            outcome.arguments = arguments;
            Ok(outcome)
        }
        Ending::Call(arguments) => {
            let wide_name = slot.call.wide_name().map(<[u8]>::to_vec);
            let mut outcome =
                Outcome::error(end, wide_name.clone(), Reason::InvalidCall, Vec::new());
            outcome.reason = None;
            outcome.call = slot.ids.clone();
            outcome.issues = issues;
            let name = wide_name.unwrap_or_default();
            outcome.checked = env.host.check(env.out, &name, arguments.as_deref())?;
            outcome.arguments = arguments;
            Ok(outcome)
        }
    }
}
