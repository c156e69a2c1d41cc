//! The readers of a block's regions, one per region kind
//! (`toolparse.engine.regions`, transliterated).
//!
//! A [`Machine`] reads a block region by region; in each, the region's reader
//! reads and hands every terminal it finds to [`Machine::step`], which starts
//! or ends calls and members and says where reading goes on. A reader owns
//! the state of its kind ([`Reader`]: a name's parts, a JSON reader's place, a
//! Python literal's brackets and quotes); the machine owns what spans regions.
//! Here the readers are the machine's methods, each with the Python reader's
//! name (`read_space` is `SpaceReader.read`), over the text's code points.
//!
//! Readers decide on characters only, never on where the text they were
//! given ends: where they cannot decide yet they stop ([`Machine::wait`]) and
//! are given the same characters again with the next delta.

use crate::engine::machine::{At, Env, Machine, View};
use crate::grammar::{Step, TO_STAY};
use crate::host::{Bug, Host};
use crate::lexicon::{Hit, Unit};
use crate::runtime::Kind;
use crate::rust_calls::Convert;
use crate::tags::is_python_space;
use crate::value::{Emit, ValueReader};

/// The state of one region's reader.
#[derive(Clone, Debug)]
pub enum Reader {
    /// Space, Skip and Value regions keep nothing of their own (a value's
    /// reader is the machine's `value`).
    Stateless,
    /// A name's text so far (the parts read, joined).
    Name { parts: Vec<u32> },
    /// A Python literal: brackets open, the string it is in, an escape pending.
    Literal {
        depth: usize,
        quote: Vec<u32>,
        escape: bool,
        quiet_until: Option<u32>,
    },
    /// JSON call objects: before the first, inside one, after one.
    JsonCalls {
        state: u8,
        in_body: bool,
        in_array: bool,
    },
    /// One JSON arguments object.
    JsonArgs { in_body: bool },
}

impl Reader {
    pub fn in_body(&self) -> bool {
        match self {
            Reader::JsonCalls { in_body, .. } | Reader::JsonArgs { in_body } => *in_body,
            _ => false,
        }
    }

    pub fn quiet_until(&self) -> Option<u32> {
        match self {
            Reader::Literal { quiet_until, .. } => *quiet_until,
            _ => None,
        }
    }
}

/// A value's text, collected while its reader reads (the machine is the
/// reader's tag context meanwhile, so the text goes to the call after).
#[derive(Default)]
pub struct Collect {
    pub points: Vec<u32>,
    /// Something was emitted (an empty piece counts).
    pub any: bool,
}

impl<T: Unit> Emit<T> for Collect {
    fn text(&mut self, newline: bool, piece: &[T]) {
        self.any = true;
        if newline {
            self.points.push(u32::from(b'\n'));
        }
        self.points.extend(piece.iter().map(|&c| c.into()));
    }

    fn points(&mut self, newline: bool, piece: &[u32]) {
        self.any = true;
        if newline {
            self.points.push(u32::from(b'\n'));
        }
        self.points.extend_from_slice(piece);
    }
}

const QUOTE: u32 = b'"' as u32;
const APOSTROPHE: u32 = b'\'' as u32;
const BACKSLASH: u32 = b'\\' as u32;

/// `_NOT_SPACE`: `[^ \t\r\n]`.
fn not_space(c: u32) -> bool {
    !matches!(c, 0x20 | 0x09 | 0x0d | 0x0a)
}

/// `compile._NOT_IN_NAMES`.
fn not_in_names(c: u32) -> bool {
    matches!(c, 0x3C | 0x3E | 0x22 | 0x27 | 0x3D | 0x26 | 0x2F | 0x5C)
}

/// `NOT_NAME` (`[\s<>"'=&/\\]`, Python's `\s`) or, stripped, `NOT_NAME_STRIPPED`.
fn not_name(c: u32, strip: bool) -> bool {
    not_in_names(c) || (!strip && is_python_space(c))
}

fn find_point(text: &[u32], c: u32, from: usize, to: usize) -> Option<usize> {
    let to = to.min(text.len());
    if from >= to {
        return None;
    }
    text[from..to]
        .iter()
        .position(|&u| u == c)
        .map(|k| from + k)
}

fn find_seq(text: &[u32], seq: &[u32], from: usize) -> Option<usize> {
    if seq.is_empty() {
        return Some(from.min(text.len()));
    }
    if from >= text.len() || text.len() - from < seq.len() {
        return None;
    }
    let first = seq[0];
    let mut k = from;
    while k + seq.len() <= text.len() {
        let at = find_point(text, first, k, text.len() - seq.len() + 1)?;
        if &text[at..at + seq.len()] == seq {
            return Some(at);
        }
        k = at + 1;
    }
    None
}

/// The host's error for an internal inconsistency (an `AssertionError`).
fn assertion<H: Host>(what: &str) -> H::Error {
    H::bug(Bug::assertion(what))
}

fn hit_name<'t>(text: &'t [u32], hit: &Hit) -> Option<&'t [u32]> {
    let (a, b) = hit.name;
    (b > a && b <= text.len()).then(|| &text[a..b])
}

impl<H: Host> Machine<H> {
    /// Enter the region `at` (its reader made when first entered, its state
    /// set afresh).
    pub(crate) fn enter(&mut self, at: At) {
        self.at = at;
        let At::Region(k) = at else {
            return; // (the skip region's reader keeps nothing)
        };
        let block = self.block.clone();
        let Some(region) = block.regions.get(k) else {
            return;
        };
        let reader = match &region.kind {
            Kind::Space { .. } | Kind::Skip => Reader::Stateless,
            Kind::Name { .. } => match self.readers[k].take() {
                Some(Reader::Name { mut parts }) => {
                    parts.clear();
                    Reader::Name { parts }
                }
                _ => Reader::Name { parts: Vec::new() },
            },
            Kind::Value { tables, xml, .. } => {
                let markup = *xml && !self.streams;
                self.value = Some(ValueReader::new(tables.clone(), markup, !self.streams));
                self.value_serial = self.next_serial();
                Reader::Stateless
            }
            Kind::Literal { .. } => Reader::Literal {
                depth: 0,
                quote: Vec::new(),
                escape: false,
                quiet_until: None,
            },
            Kind::JsonCalls { .. } => Reader::JsonCalls {
                state: LEAD,
                in_body: false,
                in_array: false,
            },
            Kind::JsonArgs { .. } => Reader::JsonArgs { in_body: false },
        };
        self.readers[k] = Some(reader);
    }

    /// Read `text[i..]` in the current region (see `RegionReader.read`).
    pub(crate) fn read(
        &mut self,
        env: &mut Env<'_, '_, H>,
        text: &[u32],
        i: usize,
        base: i64,
        last: bool,
    ) -> Result<usize, H::Error> {
        let block = self.block.clone();
        let region = match self.at {
            At::Region(k) => match block.regions.get(k) {
                Some(region) => region,
                None => return Err(assertion::<H>("a region out of range")),
            },
            At::Skip => &block.skip,
        };
        match &region.kind {
            Kind::Space { chars } => self.read_space(env, text, i, base, last, region, chars),
            Kind::Skip => self.read_skip(env, text, i, base, last, region),
            Kind::Name { .. } => self.read_name(env, text, i, base, last, region),
            Kind::Value { balanced, .. } => {
                self.read_value(env, text, i, base, last, region, *balanced)
            }
            Kind::Literal { specials, ends } => {
                self.read_literal(env, text, i, base, last, specials, ends)
            }
            Kind::JsonCalls { .. } | Kind::JsonArgs { .. } => {
                read_json_region(self, env, text, i, base, last, region)
            }
        }
    }

    /// The step of the terminal `hit` in `region`.
    fn hit_step(
        &mut self,
        env: &mut Env<'_, '_, H>,
        region: &crate::runtime::RegionRt,
        text: &[u32],
        hit: &Hit,
        base: i64,
    ) -> Result<usize, H::Error> {
        let step = region
            .steps
            .get(hit.key)
            .ok_or_else(|| assertion::<H>("a terminal with no step"))?;
        self.step(env, step, hit.start, hit.end, hit_name(text, hit), base)
    }

    /// `SpaceReader.read`: whitespace between terminals; any other character
    /// takes its step (`chars`, or `otherwise`).
    #[allow(clippy::too_many_arguments)]
    fn read_space(
        &mut self,
        env: &mut Env<'_, '_, H>,
        text: &[u32],
        i: usize,
        base: i64,
        last: bool,
        region: &crate::runtime::RegionRt,
        chars: &[(u32, Step)],
    ) -> Result<usize, H::Error> {
        let lexicon = &region.lexicon;
        let n = text.len();
        let m = (i..n).find(|&k| not_space(text[k]));
        let mut hit;
        // (a terminal that comes first begins in the whitespace or at the first
        // other character: none is looked for further)
        {
            let view = View::new(self, env.ctx);
            match m {
                None => {
                    hit = lexicon.find(text, i, &view, None);
                }
                Some(j) => {
                    let end = j + lexicon.max_len();
                    hit = if end < n {
                        lexicon.find(text, i, &view, Some(end))
                    } else {
                        lexicon.find(text, i, &view, None)
                    };
                    let before = hit.is_none_or(|h| j < h.start);
                    let mut take = None;
                    if before {
                        let c = text[j];
                        let step = chars
                            .iter()
                            .find(|(k, _)| *k == c)
                            .map(|(_, s)| s)
                            .or(region.otherwise.as_ref());
                        let Some(step) = step else {
                            return Err(assertion::<H>(
                                "a space region with no step for a character",
                            ));
                        };
                        if step.to != TO_STAY {
                            if hit.is_some() || j < lexicon.partial_start(text, i, &view) {
                                take = Some(step);
                            }
                        } else if hit.is_none() && end < n {
                            // (the text is passed over, up to the next terminal)
                            hit = lexicon.find(text, i, &view, None);
                        }
                    }
                    if let Some(step) = take {
                        return self.step(env, step, j, j, None, base);
                    }
                }
            }
        }
        let view = View::new(self, env.ctx);
        let limit = match &hit {
            Some(h) => h.start,
            None => lexicon.partial_start(text, i, &view),
        };
        let Some(hit) = hit else {
            if last {
                // a terminal cut short by the end of the stream (``</tool``): markup
                return Ok(n);
            }
            return Ok(if limit == n { limit } else { self.wait(limit) });
        };
        if !last && lexicon.undecided(text, hit.start, hit.key) {
            return Ok(self.wait(hit.start)); // (a longer terminal may still match here)
        }
        self.hit_step(env, region, text, &hit, base)
    }

    /// `SkipReader.read`: anything, up to the next terminal.
    fn read_skip(
        &mut self,
        env: &mut Env<'_, '_, H>,
        text: &[u32],
        i: usize,
        base: i64,
        last: bool,
        region: &crate::runtime::RegionRt,
    ) -> Result<usize, H::Error> {
        let lexicon = &region.lexicon;
        let n = text.len();
        let view = View::new(self, env.ctx);
        let hit = lexicon.find(text, i, &view, None);
        let partial = if hit.is_none() && !last {
            Some(lexicon.partial_start(text, i, &view))
        } else {
            None
        };
        let Some(hit) = hit else {
            if last {
                return Ok(n);
            }
            let partial = partial.unwrap_or(n);
            return Ok(if partial == n {
                partial
            } else {
                self.wait(partial)
            });
        };
        if !last && lexicon.undecided(text, hit.start, hit.key) {
            return Ok(self.wait(hit.start));
        }
        self.hit_step(env, region, text, &hit, base)
    }

    /// `NameReader.read`: a name (a function's, a parameter's), up to the
    /// terminal that ends it.
    fn read_name(
        &mut self,
        env: &mut Env<'_, '_, H>,
        text: &[u32],
        i: usize,
        base: i64,
        last: bool,
        region: &crate::runtime::RegionRt,
    ) -> Result<usize, H::Error> {
        let Kind::Name {
            max_len,
            strip,
            declared,
            longest,
            reach,
            ..
        } = &region.kind
        else {
            return Err(assertion::<H>("not a name region"));
        };
        let (max_len, strip, declared, longest, reach) =
            (*max_len, *strip, *declared, *longest, *reach);
        let lexicon = &region.lexicon;
        let n = text.len();
        // (the name ends at a terminal within its longest length, or is too long:
        // no terminal is looked for further)
        let end = (i + reach).min(n);
        let view = View::new(self, env.ctx);
        let hit = lexicon.find(text, i, &view, Some(end));
        let limit = if hit.is_none() && end < n {
            end
        } else {
            match &hit {
                Some(h) => h.start,
                None if last => n,
                None => lexicon.partial_start(text, i, &view),
            }
        };
        let bad = (i..limit.max(i)).find(|&k| not_name(text[k], strip));
        let stop = bad.unwrap_or(limit).max(i);
        let k = match self.at {
            At::Region(k) => k,
            At::Skip => return Err(assertion::<H>("a name read in the skip region")),
        };
        let Some(Reader::Name { parts }) = self.readers[k].as_mut() else {
            return Err(assertion::<H>("a name region without its reader"));
        };
        let before = parts.len();
        parts.extend_from_slice(&text[i..stop]);
        let length = parts.len();
        if length > longest || bad.is_some() {
            // (too long: just past the limit, wherever the deltas fell; else at the bad character)
            let at = if length > longest {
                stop + 1 - (length - longest)
            } else {
                stop
            };
            parts.truncate(before);
            let otherwise = region
                .otherwise
                .as_ref()
                .ok_or_else(|| assertion::<H>("a name region with no otherwise"))?;
            return self.step(env, otherwise, at, at, None, base);
        }
        let Some(hit) = hit else {
            return Ok(if limit == n { limit } else { self.wait(limit) });
        };
        if !last && lexicon.undecided(text, hit.start, hit.key) {
            parts.truncate(before); // (read again with the next delta)
            return Ok(self.wait(i));
        }
        let mut name = std::mem::take(parts);
        if strip {
            let a = name.iter().position(|&c| !is_python_space(c));
            name = match a {
                None => Vec::new(),
                Some(a) => {
                    let b = name.iter().rposition(|&c| !is_python_space(c)).unwrap_or(a);
                    name[a..=b].to_vec()
                }
            };
            if name.iter().any(|&c| not_name(c, false)) {
                name.clear();
            }
        }
        if name.is_empty() || name.len() > max_len || (declared && !self.declares(env, &name)) {
            let otherwise = region
                .otherwise
                .as_ref()
                .ok_or_else(|| assertion::<H>("a name region with no otherwise"))?;
            return self.step(env, otherwise, hit.start, hit.start, None, base);
        }
        self.name = name;
        self.hit_step(env, region, text, &hit, base)
    }

    /// `ValueRegionReader.read`: a parameter's value, read by the machine's
    /// value reader.
    #[allow(clippy::too_many_arguments)]
    fn read_value(
        &mut self,
        env: &mut Env<'_, '_, H>,
        text: &[u32],
        i: usize,
        base: i64,
        last: bool,
        region: &crate::runtime::RegionRt,
        balanced: bool,
    ) -> Result<usize, H::Error> {
        let mut value = self
            .value
            .take()
            .ok_or_else(|| assertion::<H>("a value region with no value reader"))?;
        let mut collect = Collect::default();
        let (j, hit) = {
            let view = View::new(self, env.ctx);
            value.read(text, i, last, &view, &mut collect)
        };
        let nested = value.nested();
        self.value = Some(value);
        if collect.any {
            self.value_text(&collect.points);
        }
        self.flush(env)?;
        let Some(hit) = hit else {
            return Ok(if j == text.len() { j } else { self.wait(j) });
        };
        if balanced && nested {
            self.fail(
                env,
                b"a parameter opened again inside itself was never closed",
                base + hit.start as i64,
                crate::grammar::Reason::MalformedMarkup,
            )?;
            return Ok(hit.start);
        }
        self.hit_step(env, region, text, &hit, base)
    }

    /// `LiteralReader.read`: a Python literal, up to a terminal character
    /// outside strings and brackets.
    #[allow(clippy::too_many_arguments)]
    fn read_literal(
        &mut self,
        env: &mut Env<'_, '_, H>,
        text: &[u32],
        mut i: usize,
        base: i64,
        last: bool,
        specials: &crate::grammar::CharClass,
        ends: &[(u32, Step)],
    ) -> Result<usize, H::Error> {
        let n = text.len();
        let start = i;
        let k = match self.at {
            At::Region(k) => k,
            At::Skip => return Err(assertion::<H>("a literal read in the skip region")),
        };
        // (the quote last looked for, and where it was found (None: nowhere after):
        // the text before that holds none, so escapes do not send the search on again)
        let mut sought: Vec<u32> = Vec::new();
        let mut found: Option<Option<usize>> = None;
        loop {
            if i >= n {
                break;
            }
            let Some(Reader::Literal {
                depth,
                quote,
                escape,
                quiet_until,
            }) = self.readers[k].as_mut()
            else {
                return Err(assertion::<H>("a literal region without its reader"));
            };
            if !quote.is_empty() {
                // inside a string: its end, or an escape
                if *escape {
                    *escape = false;
                    i += 1;
                    continue;
                }
                let stale = match found {
                    None => true,
                    Some(Some(at)) => at < i,
                    Some(None) => false,
                };
                if *quote != sought || stale {
                    sought = quote.clone();
                    found = Some(find_seq(text, quote, i));
                }
                let end = found.flatten();
                let slash = find_point(text, BACKSLASH, i, end.unwrap_or(n));
                if let Some(slash) = slash {
                    *escape = true;
                    i = slash + 1;
                    continue;
                }
                let Some(end) = end else {
                    // (a triple quote may be cut: keep the last two characters for the next delta)
                    let keep = if quote.len() == 3 && !last {
                        n.saturating_sub(2)
                    } else {
                        n
                    };
                    i = i.max(keep);
                    if i < n {
                        let piece = text[start..i].to_vec();
                        self.value_text(&piece);
                        return Ok(self.wait(i));
                    }
                    break;
                };
                let len = quote.len();
                quote.clear();
                *quiet_until = None;
                i = end + len;
                continue;
            }
            let Some(j) = (i..n).find(|&j| specials.has(text[j])) else {
                i = n;
                break;
            };
            let c = text[j];
            if c == QUOTE || c == APOSTROPHE {
                if !last && n - j < 3 && text[j..].iter().all(|&u| u == c) {
                    let piece = text[start..j].to_vec();
                    self.value_text(&piece); // (a quote that may be a triple one)
                    return Ok(self.wait(j));
                }
                let triple = j + 3 <= n && text[j..j + 3].iter().all(|&u| u == c);
                *quote = vec![c; if triple { 3 } else { 1 }];
                *quiet_until = Some(c);
                i = j + quote.len();
            } else if matches!(c, 0x28 | 0x5B | 0x7B) {
                *depth += 1;
                i = j + 1;
            } else if *depth > 0 && matches!(c, 0x29 | 0x5D | 0x7D) {
                *depth -= 1;
                i = j + 1;
            } else if let Some((_, step)) =
                ends.iter().find(|(e, _)| *e == c).filter(|_| *depth == 0)
            {
                let piece = text[start..j].to_vec();
                self.value_text(&piece);
                return self.step(env, step, j, j + 1, None, base);
            } else {
                i = j + 1; // (a closing bracket with none open: the literal parser reports it)
            }
        }
        let piece = text[start..i.min(n)].to_vec();
        self.value_text(&piece);
        Ok(i)
    }
}

/// Where a JSON calls reader is (`_LEAD`, `_BODY`, `_BETWEEN`).
pub const LEAD: u8 = 0;
pub const BODY: u8 = 1;
pub const BETWEEN: u8 = 2;

/// The JSON readers' state in the region being read.
fn json_reader<H: Host>(machine: &mut Machine<H>) -> Result<&mut Reader, H::Error> {
    let At::Region(k) = machine.at else {
        return Err(assertion::<H>("a JSON region read in the skip region"));
    };
    machine
        .readers
        .get_mut(k)
        .and_then(Option::as_mut)
        .ok_or_else(|| assertion::<H>("a JSON region without its reader"))
}

/// `JsonCallsReader.read` and `JsonArgsReader.read`.
#[allow(clippy::too_many_arguments)]
fn read_json_region<H: Host>(
    machine: &mut Machine<H>,
    env: &mut Env<'_, '_, H>,
    text: &[u32],
    i: usize,
    base: i64,
    last: bool,
    region: &crate::runtime::RegionRt,
) -> Result<usize, H::Error> {
    let _ = last;
    match &region.kind {
        Kind::JsonCalls {
            then,
            separators,
            name_keys,
            argument_keys,
        } => read_json_calls(
            machine,
            env,
            text,
            i,
            base,
            region,
            *then,
            separators,
            (name_keys, argument_keys),
        ),
        Kind::JsonArgs { then } => read_json_args(machine, env, text, i, base, region, *then),
        _ => Err(assertion::<H>("not a JSON region")),
    }
}

fn is_ws(c: u32) -> bool {
    matches!(c, 0x20 | 0x09 | 0x0D | 0x0A)
}

/// `JsonCallsReader.read`: JSON call objects: one, an array of them, or
/// several separated by `separators`.
#[allow(clippy::too_many_arguments)]
fn read_json_calls<H: Host>(
    machine: &mut Machine<H>,
    env: &mut Env<'_, '_, H>,
    text: &[u32],
    mut i: usize,
    base: i64,
    region: &crate::runtime::RegionRt,
    then: i32,
    separators: &[u32],
    keys: (&[Vec<u8>], &[Vec<u8>]),
) -> Result<usize, H::Error> {
    let n = text.len();
    while i < n {
        let Reader::JsonCalls { state, .. } = *json_reader(machine)? else {
            return Err(assertion::<H>("a JSON calls region without its reader"));
        };
        if state == BODY {
            let (at, broken) = read_json(machine, env, text, i, base)?;
            i = at;
            if broken {
                return Ok(i);
            }
            let done = matches!(
                &machine.slot,
                Some(crate::engine::machine::CallSlot {
                    call: crate::engine::machine::Call::Json(c),
                    ..
                }) if c.done()
            );
            if done {
                machine.complete(env, base + i as i64)?;
                if let Reader::JsonCalls { state, in_body, .. } = json_reader(machine)? {
                    *state = BETWEEN;
                    *in_body = false;
                }
            }
            continue;
        }
        let c = text[i];
        if is_ws(c) {
            i += 1;
        } else if c == u32::from(b'{') {
            let call = crate::calls_json::JsonCall::envelope(
                env.ctx.max_depth,
                keys.0.to_vec(),
                keys.1.to_vec(),
            );
            let serial = machine.next_serial();
            machine.slot = Some(crate::engine::machine::CallSlot {
                call: crate::engine::machine::Call::Json(Box::new(call)),
                ids: None,
                convert: Convert::Text,
                serial,
                name_points: std::cell::OnceCell::new(),
            });
            if let Reader::JsonCalls { state, in_body, .. } = json_reader(machine)? {
                *state = BODY;
                *in_body = true;
            }
        } else if state == LEAD && c == u32::from(b'[') {
            if let Reader::JsonCalls {
                state, in_array, ..
            } = json_reader(machine)?
            {
                *in_array = true;
                *state = BETWEEN;
            }
            i += 1;
        } else if state == LEAD {
            let otherwise = region
                .otherwise
                .as_ref()
                .ok_or_else(|| assertion::<H>("a JSON calls region with no otherwise"))?;
            return machine.step(env, otherwise, i, i, None, base);
        } else if separators.contains(&c) {
            i += 1;
        } else if c == u32::from(b']')
            && matches!(
                json_reader(machine)?,
                Reader::JsonCalls { in_array: true, .. }
            )
        {
            if let Reader::JsonCalls { in_array, .. } = json_reader(machine)? {
                *in_array = false;
            }
            i += 1;
        } else {
            // the calls are over: the next region reads on from here
            machine.goto(env, then, i, base)?;
            return Ok(i);
        }
    }
    Ok(n)
}

/// `JsonArgsReader.read`: one JSON object, the arguments of a call already named.
#[allow(clippy::too_many_arguments)]
fn read_json_args<H: Host>(
    machine: &mut Machine<H>,
    env: &mut Env<'_, '_, H>,
    text: &[u32],
    mut i: usize,
    base: i64,
    region: &crate::runtime::RegionRt,
    then: i32,
) -> Result<usize, H::Error> {
    if machine.slot.is_none() {
        let Some(j) = (i..text.len()).find(|&k| !is_ws(text[k])) else {
            return Ok(text.len());
        };
        i = j;
        if text[i] != u32::from(b'{') {
            // the body is not an arguments object
            let step = region.otherwise.clone().unwrap_or_else(reject_step);
            return machine.step(env, &step, i, i, None, base);
        }
        let name = machine
            .json_name
            .take()
            .ok_or_else(|| assertion::<H>("a JSON arguments region with no name"))?;
        let wide_name = crate::engine::machine::wide_of_points(&name);
        let mut ids = None;
        let max_depth = env.ctx_max_depth();
        let call = {
            let mut host = env.calls(&mut ids, Convert::Text);
            crate::calls_json::JsonCall::json_args(&mut host, max_depth, wide_name)?
        };
        let serial = machine.next_serial();
        machine.slot = Some(crate::engine::machine::CallSlot {
            call: crate::engine::machine::Call::Json(Box::new(call)),
            ids,
            convert: Convert::Text,
            serial,
            name_points: std::cell::OnceCell::new(),
        });
        if let Reader::JsonArgs { in_body } = json_reader(machine)? {
            *in_body = true;
        }
    }
    if !matches!(
        &machine.slot,
        Some(crate::engine::machine::CallSlot {
            call: crate::engine::machine::Call::Json(_),
            ..
        })
    ) {
        return Err(assertion::<H>(
            "a JSON arguments region reading another kind of call",
        ));
    }
    let (at, broken) = read_json(machine, env, text, i, base)?;
    if broken {
        return Ok(at);
    }
    let done = matches!(
        &machine.slot,
        Some(crate::engine::machine::CallSlot {
            call: crate::engine::machine::Call::Json(c),
            ..
        }) if c.done()
    );
    if done {
        machine.complete(env, base + at as i64)?;
        machine.goto(env, then, at, base)?;
    }
    Ok(at)
}

fn reject_step() -> Step {
    Step {
        to: crate::grammar::TO_REJECT,
        call: false,
        json_call: false,
        member: false,
        sole_string: false,
        end_member: false,
        end_call: false,
        require_sole_string: false,
        again: false,
        message: String::new(),
        reason: crate::grammar::Reason::MalformedMarkup,
    }
}

/// A JSON syntax error's reason, as the tables name it.
fn json_reason(err: &crate::json::JsonSyntaxError) -> crate::grammar::Reason {
    match err.reason() {
        crate::json::Reason::TooDeep => crate::grammar::Reason::TooDeep,
        _ => crate::grammar::Reason::MalformedJson,
    }
}

/// A JSON reader's failure: the syntax error, or a Python one.
fn syntax_error<E>(err: crate::json::ReadError<E>) -> Result<crate::json::JsonSyntaxError, E> {
    match err {
        crate::json::ReadError::Syntax(e) => Ok(e),
        crate::json::ReadError::Other(e) => Err(e),
    }
}

/// `_read_json`: give `text[i..]` to the call's JSON reader: (where it
/// stopped, false), or (where the JSON broke, true) once the block is failed
/// there.
fn read_json<H: Host>(
    machine: &mut Machine<H>,
    env: &mut Env<'_, '_, H>,
    text: &[u32],
    i: usize,
    base: i64,
) -> Result<(usize, bool), H::Error> {
    let fed = machine.with_call(env, |call, host| match call {
        crate::engine::machine::Call::Json(c) => Ok(c.feed(host, text, i)),
        crate::engine::machine::Call::Member(_) => {
            Err(assertion::<H>("a JSON region reading a member call"))
        }
    })?;
    let Some(fed) = fed else {
        return Err(assertion::<H>("a JSON region with no call"));
    };
    match fed {
        Ok(at) => {
            machine.flush(env)?;
            Ok((at, false))
        }
        Err(err) => {
            let err = syntax_error(err)?;
            machine.flush(env)?;
            let message = err.message(crate::printable::is_printable).into_bytes();
            let slot = machine
                .slot
                .as_ref()
                .ok_or_else(|| assertion::<H>("a JSON call gone"))?;
            let error = crate::engine::machine::call_error(slot, None, json_reason(&err), message);
            machine.fail_json(error, base + err.index as i64);
            Ok((err.index, true))
        }
    }
}

/// `Machine._finish_json`: the stream ended inside a JSON call.
pub(crate) fn finish_json<H: Host>(
    machine: &mut Machine<H>,
    env: &mut Env<'_, '_, H>,
    pos: i64,
) -> Result<(), H::Error> {
    let finished = machine.with_call(env, |call, host| match call {
        crate::engine::machine::Call::Json(c) => Ok(c.finish(host)),
        crate::engine::machine::Call::Member(_) => {
            Err(assertion::<H>("a JSON body ending a member call"))
        }
    })?;
    let Some(finished) = finished else {
        return Ok(());
    };
    match finished {
        Ok(whole) => {
            machine.flush(env)?;
            if whole {
                machine.complete(env, pos)
            } else {
                machine.unfinished(env, "the stream ended inside the call")
            }
        }
        Err(err) => {
            let err = syntax_error(err)?;
            let message = err.message(crate::printable::is_printable).into_bytes();
            let slot = machine
                .slot
                .as_ref()
                .ok_or_else(|| assertion::<H>("a JSON call gone"))?;
            let error = crate::engine::machine::call_error(slot, None, json_reason(&err), message);
            machine.fail_json(error, pos);
            Ok(())
        }
    }
}
