//! The JSON calls of `toolparse.engine.calls`: `EnvelopeCall` (a JSON object
//! holding the name and the arguments, `{"name": ..., "arguments": {...}}`)
//! and `JsonArgsCall` (a call named by its markup whose body is its
//! arguments object, `<function=NAME>{...}`), with the `Call` base
//! behaviour they use: announce, flush, holding, `before_first_delta`, the
//! arguments given as a JSON-encoded string, and the outcome.
//!
//! Both are one type here, [`JsonCall`], made by [`JsonCall::envelope`] or
//! [`JsonCall::json_args`]: a [`JsonRewriter`] and the call's state. The
//! reader owns the call's `scratch` (its slot [`SCRATCH`]) and, for an
//! envelope, the name's text (another slot); the envelope routes the root
//! keys as Python's `route` and `member_end` do (a [`Router`]). What only
//! Python can do (ids and events, the tool's typer, coercion of arguments
//! held until the name came, `json.loads` of the final arguments) is a
//! [`JsonHost`] callback, once per call or value, never per delta; the
//! rest (a JSON string's canonical text decoded, `parse_value`) is Rust.

use crate::calls::{Ending, Host};
use crate::json::{self, JsonRewriter, ReadError, Router, Target};
use crate::lexicon::Unit;
use crate::pieces::Pieces;
use crate::tags::is_python_space;
use crate::typing::ValueTyper;
use crate::wide;

/// The reader's slot that is the call's `scratch`: argument text written
/// since the last flush.
pub const SCRATCH: usize = 0;
/// The envelope reader's slot that is `name_parts`.
const NAME: usize = 1;

/// What a JSON call asks of the Python side beyond [`Host`].
pub trait JsonHost: Host {
    /// The inline coercer of a call's arguments (`SchemaTyper`).
    type Typer: ValueTyper<Error = Self::Error>;

    /// `CallContext.typer_for(name)`: a fresh typer for a call to `name`,
    /// when coercion applies.
    fn typer_for(&mut self, name: &[u8]) -> Result<Option<Self::Typer>, Self::Error>;

    /// `EnvelopeCall.before_first_delta`'s coercion of the arguments that
    /// came before the name (`held`, a JSON object): when
    /// `typer_for(name)` is not None, append
    /// `canonical_json(coerce(json.loads(held), ctx.schema_of(name),
    /// max_depth=ctx.max_depth).value)` to `out` and return its issues;
    /// None, with nothing written, when coercion does not apply.
    fn coerce_held(
        &mut self,
        name: &[u8],
        held: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<Option<Self::Value>, Self::Error>;

    /// A call's issues: `tuple(typer.issues)` with a typer, else `extra`
    /// (`extra_issues`; an empty tuple for None).
    fn issues(
        &mut self,
        typer: Option<&Self::Typer>,
        extra: Option<&Self::Value>,
    ) -> Result<Self::Value, Self::Error>;
}

/// `EnvelopeCall`'s own state.
#[derive(Debug)]
struct Envelope {
    name_keys: Vec<Vec<u8>>,
    argument_keys: Vec<Vec<u8>>,
    name_key: Option<Vec<u8>>,
    /// Python's `name_parts is not None`: the name's value is being (or was) read.
    name_parts: bool,
    args_key: Option<Vec<u8>>,
    /// First character of the arguments' canonical text (`b'{'`, `b'"'`...); 0 until known.
    args_kind: u8,
}

/// The state of a call while its markup streams in (Python's `Call`
/// fields), less its reader.
pub struct CallState<V> {
    /// The tool's name, once known.
    pub name: Option<Vec<u8>>,
    /// Argument text flushed (emitted, or held for an unstarted call).
    pub args: Pieces,
    pub started: bool,
    /// Started and flushing: the engine's string lane may apply.
    pub streaming: bool,
    pub problem: Option<Vec<u8>>,
    /// The issues of coercing the arguments whole (`extra_issues`; None: `()`).
    pub extra_issues: Option<V>,
    max_depth: usize,
    envelope: Option<Envelope>,
}

impl<V> CallState<V> {
    /// `_args_kind`: the first character of the arguments, latched once scratch has one.
    fn args_kind(&mut self, scratch: &[u8]) -> u8 {
        match &mut self.envelope {
            Some(env) => {
                if env.args_kind == 0 {
                    if let Some(&first) = scratch.first() {
                        env.args_kind = first;
                    }
                }
                env.args_kind
            }
            None => 0,
        }
    }

    /// True while what is in scratch must not be emitted yet: an envelope's
    /// arguments given as a JSON-encoded string (decoded when complete).
    fn holding(&mut self, scratch: &[u8]) -> bool {
        self.envelope.is_some() && self.args_kind(scratch) == b'"'
    }

    /// Emit what was written since the last flush as one delta (or hold it).
    fn flush<H: Host<Value = V>>(
        &mut self,
        host: &mut H,
        scratch: &mut Vec<u8>,
    ) -> Result<(), H::Error> {
        if scratch.is_empty() || self.holding(scratch) {
            return Ok(());
        }
        let piece = std::mem::take(scratch);
        self.args.append(&piece);
        if self.started {
            self.streaming = true;
            host.delta(&piece)?;
        }
        Ok(())
    }

    /// The name is known: start the call (if the tool is known) and emit any
    /// arguments that arrived before it.
    fn announce<H: JsonHost<Value = V>>(
        &mut self,
        host: &mut H,
        scratch: &mut Vec<u8>,
        name: Vec<u8>,
    ) -> Result<(), H::Error> {
        // (a raw lone surrogate in the markup's name: U+FFFD, as in the arguments)
        let name = &**self.name.insert(wide::replace_surrogates(name));
        if !host.is_known(name)? {
            return Ok(());
        }
        host.start(name)?;
        self.started = true;
        self.before_first_delta(host, scratch)?;
        let held = self.args.text();
        if !held.is_empty() {
            host.delta(held)?;
        }
        self.flush(host, scratch)
    }

    /// (An envelope) The arguments came before the name: coerce them whole,
    /// now that the tool (and so the schema) is known.
    fn before_first_delta<H: JsonHost<Value = V>>(
        &mut self,
        host: &mut H,
        scratch: &mut Vec<u8>,
    ) -> Result<(), H::Error> {
        let (Some(env), Some(name)) = (&self.envelope, &self.name) else {
            return Ok(());
        };
        if env.args_key.is_none() {
            return Ok(());
        }
        let mut held = self.args.text().to_vec();
        held.extend_from_slice(scratch);
        // (Python asks typer_for first, which only makes a typer: the same)
        if !held.starts_with(b"{") {
            return Ok(());
        }
        let mut canonical = Vec::new();
        let Some(issues) = host.coerce_held(name, &held, &mut canonical)? else {
            return Ok(());
        };
        self.args.clear();
        *scratch = canonical;
        if let Some(env) = &mut self.envelope {
            env.args_kind = b'{';
        }
        self.extra_issues = Some(issues);
        Ok(())
    }

    /// `EnvelopeCall.route`: where the value of root key `key` goes.
    fn route<H: JsonHost<Value = V>>(
        &mut self,
        host: &mut H,
        key: &[u8],
    ) -> Result<(Target, Option<H::Typer>), H::Error> {
        let Some(env) = &mut self.envelope else {
            return Ok((Target::Nowhere, None));
        };
        if env.name_keys.iter().any(|k| k == key) && self.name.is_none() && !env.name_parts {
            env.name_key = Some(key.to_vec());
            env.name_parts = true;
            return Ok((Target::Slot(NAME), None));
        }
        if env.argument_keys.iter().any(|k| k == key) && env.args_key.is_none() {
            env.args_key = Some(key.to_vec());
            let typer = match &self.name {
                Some(name) => host.typer_for(name)?,
                None => None,
            };
            return Ok((Target::Slot(SCRATCH), typer));
        }
        Ok((Target::Nowhere, None))
    }

    /// `EnvelopeCall.member_end`: the value of root key `key` is complete.
    fn member_end<H: JsonHost<Value = V>>(
        &mut self,
        host: &mut H,
        key: &[u8],
        slots: &mut [Vec<u8>],
    ) -> Result<(), H::Error> {
        let Some(env) = &self.envelope else {
            return Ok(());
        };
        let is_name = env.name_key.as_deref() == Some(key) && env.name_parts;
        let is_args = env.args_key.as_deref() == Some(key);
        let (first, rest) = slots.split_at_mut(NAME.min(slots.len()));
        let Some(scratch) = first.get_mut(SCRATCH) else {
            return Ok(());
        };
        if is_name && self.name.is_none() {
            let text = rest.first().map_or(&[][..], |t| &t[..]);
            match json::decode_string(text) {
                Some(value) if !value.is_empty() => self.announce(host, scratch, value)?,
                _ => {
                    let mut problem = b"the call's name is not a string: ".to_vec();
                    problem.extend_from_slice(wide::head(text, 80));
                    self.problem = Some(problem);
                }
            }
        } else if is_args && self.args_kind(scratch) == b'"' {
            // arguments given as a JSON-encoded string: decode them once
            let inner = json::decode_string(scratch);
            scratch.clear();
            // (a string that is not one, which the reader never writes, is no object either)
            let inner: Option<Vec<u32>> = inner.map(|inner| wide::chars(&inner).collect());
            let canonical = match inner {
                Some(inner) if inner.iter().all(|&c| is_python_space(c)) => Some(b"{}".to_vec()),
                Some(inner) => json::parse_value(&inner, self.max_depth),
                None => None,
            };
            let Some(canonical) = canonical.filter(|c| c.starts_with(b"{")) else {
                let problem = b"the arguments are a string that is not a JSON object";
                self.problem = Some(problem.to_vec());
                return Ok(());
            };
            *scratch = canonical;
            if let Some(env) = &mut self.envelope {
                env.args_kind = b'{';
            }
            self.flush(host, scratch)?;
        }
        Ok(())
    }
}

/// The router of an envelope's reader: the call's state and its host.
struct Routes<'a, V, H> {
    state: &'a mut CallState<V>,
    host: &'a mut H,
}

impl<V, H: JsonHost<Value = V>> Router<H::Typer> for Routes<'_, V, H> {
    fn route(&mut self, key: &[u8]) -> Result<(Target, Option<H::Typer>), H::Error> {
        self.state.route(self.host, key)
    }

    fn member_end(&mut self, key: &[u8], slots: &mut [Vec<u8>]) -> Result<(), H::Error> {
        self.state.member_end(self.host, key, slots)
    }
}

/// `EnvelopeCall` or `JsonArgsCall` (see the module docs).
pub struct JsonCall<V, Ty> {
    pub state: CallState<V>,
    reader: JsonRewriter<Ty>,
}

impl<V, Ty: ValueTyper> JsonCall<V, Ty> {
    fn new(reader: JsonRewriter<Ty>, max_depth: usize, envelope: Option<Envelope>) -> Self {
        JsonCall {
            state: CallState {
                name: None,
                args: Pieces::new(),
                started: false,
                streaming: false,
                problem: None,
                extra_issues: None,
                max_depth,
                envelope,
            },
            reader,
        }
    }

    /// `EnvelopeCall(ctx, name_keys, argument_keys)` (`max_depth`: `ctx.max_depth`):
    /// one call object to be read, its root keys routed to the name and the arguments.
    pub fn envelope(
        max_depth: usize,
        name_keys: Vec<Vec<u8>>,
        argument_keys: Vec<Vec<u8>>,
    ) -> Self {
        let envelope = Envelope {
            name_keys,
            argument_keys,
            name_key: None,
            name_parts: false,
            args_key: None,
            args_kind: 0,
        };
        JsonCall::new(
            JsonRewriter::new(max_depth, None, true, 2),
            max_depth,
            Some(envelope),
        )
    }

    /// `JsonArgsCall(ctx, name)`: a call named by its markup, announced now,
    /// whose body is its arguments object.
    pub fn json_args<H: JsonHost<Value = V, Typer = Ty>>(
        host: &mut H,
        max_depth: usize,
        name: Vec<u8>,
    ) -> Result<Self, H::Error> {
        let typer = host.typer_for(&name)?;
        let mut call = JsonCall::new(
            JsonRewriter::new(max_depth, typer, false, 1),
            max_depth,
            None,
        );
        call.announce(host, name)?;
        Ok(call)
    }

    /// The call has been announced (a `ToolCallStart` emitted).
    pub fn started(&self) -> bool {
        self.state.started
    }

    /// The tool's name, once known.
    pub fn name(&self) -> Option<&[u8]> {
        self.state.name.as_deref()
    }

    /// An `EnvelopeCall` (not a `JsonArgsCall`).
    pub fn is_envelope(&self) -> bool {
        self.state.envelope.is_some()
    }

    fn scratch_mut(&mut self) -> &mut Vec<u8> {
        &mut self.reader.slots_mut()[SCRATCH]
    }

    /// What was written since the last flush.
    pub fn scratch(&self) -> &[u8] {
        self.reader.slot(SCRATCH)
    }

    /// The call's inline coercer (`typer`), if any.
    pub fn typer(&self) -> Option<&Ty> {
        self.reader.typer()
    }

    /// `call.reader.done`.
    pub fn done(&self) -> bool {
        self.reader.done()
    }

    /// `call.reader.feed(text, i)`: where reading stopped, or why it failed.
    pub fn feed<T: Unit, H: JsonHost<Value = V, Typer = Ty>>(
        &mut self,
        host: &mut H,
        text: &[T],
        i: usize,
    ) -> Result<usize, ReadError<Ty::Error>> {
        let mut routes = Routes {
            state: &mut self.state,
            host,
        };
        self.reader.feed(text, i, &mut routes)
    }

    /// `call.reader.finish()`: at the stream's end, true if the JSON is whole.
    pub fn finish<H: JsonHost<Value = V, Typer = Ty>>(
        &mut self,
        host: &mut H,
    ) -> Result<bool, ReadError<Ty::Error>> {
        let mut routes = Routes {
            state: &mut self.state,
            host,
        };
        self.reader.finish(&mut routes)
    }

    /// Emit what was written since the last flush as one delta (or hold it).
    pub fn flush<H: JsonHost<Value = V, Typer = Ty>>(
        &mut self,
        host: &mut H,
    ) -> Result<(), H::Error> {
        let JsonCall { state, reader } = self;
        state.flush(host, &mut reader.slots_mut()[SCRATCH])
    }

    /// The name is known: start the call (if the tool is known) and emit any
    /// arguments that arrived before it.
    pub fn announce<H: JsonHost<Value = V, Typer = Ty>>(
        &mut self,
        host: &mut H,
        name: Vec<u8>,
    ) -> Result<(), H::Error> {
        let JsonCall { state, reader } = self;
        state.announce(host, &mut reader.slots_mut()[SCRATCH], name)
    }

    /// `holding()`: true while scratch must not be emitted yet (it may latch
    /// the arguments' kind, as Python's does).
    pub fn holding(&mut self) -> bool {
        let JsonCall { state, reader } = self;
        state.holding(&reader.slots_mut()[SCRATCH])
    }

    /// (An envelope) The root key that took the name (`name_key`).
    pub fn name_key(&self) -> Option<&[u8]> {
        self.state.envelope.as_ref()?.name_key.as_deref()
    }

    /// (An envelope) The root key that took the arguments (`args_key`).
    pub fn args_key(&self) -> Option<&[u8]> {
        self.state.envelope.as_ref()?.args_key.as_deref()
    }

    /// (An envelope) The arguments' first character (`args_kind`; 0 until known).
    pub fn args_kind(&self) -> u8 {
        self.state.envelope.as_ref().map_or(0, |env| env.args_kind)
    }

    /// Python's `open_string() is not None`: inside a plain string of the
    /// streaming arguments, where the engine's string lane may append text
    /// to `args` itself.
    pub fn string_opens(&self) -> bool {
        self.state.streaming && self.reader.in_plain_string(SCRATCH)
    }

    /// The call's markup is complete: a call, or an error saying why not;
    /// with a call, its issues (the typer's, or `extra_issues`).
    pub fn outcome<H: JsonHost<Value = V, Typer = Ty>>(
        &mut self,
        host: &mut H,
    ) -> Result<(Ending, Option<V>), H::Error> {
        if let Some(env) = &self.state.envelope {
            if self.state.problem.is_none() && self.state.name.is_none() {
                self.state.problem = Some(b"the call object has no 'name'".to_vec());
            }
            if self.state.problem.is_none() && env.args_key.is_none() {
                self.scratch_mut().extend_from_slice(b"{}"); // no arguments at all: an empty object
            }
        }
        self.flush(host)?;
        let state = &mut self.state;
        let text = state.args.text();
        // (its arguments stay JSON text: each sink reads them as it needs them)
        let arguments = (!text.is_empty()).then(|| text.to_vec());
        // (the canonical text of an object is in its braces)
        let object = text.first() == Some(&b'{') && text.last() == Some(&b'}');
        if state.problem.is_none() && !object {
            let mut problem = b"the arguments are not a JSON object: ".to_vec();
            problem.extend_from_slice(wide::head(text, 80));
            state.problem = Some(problem);
        }
        if let Some(problem) = &state.problem {
            return Ok((Ending::Invalid(problem.clone()), None));
        }
        if !state.started {
            return Ok((Ending::Unknown(arguments), None));
        }
        let issues = host.issues(self.reader.typer(), state.extra_issues.as_ref())?;
        Ok((Ending::Call(arguments), Some(issues)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calls::{Coerced, Converted, Plan};

    /// A typer that buffers numbers (writing them as strings) and logs keys.
    #[derive(Debug, Default)]
    struct Typer(Vec<String>);

    impl ValueTyper for Typer {
        type Error = String;
        fn begin_value(&mut self, first: u32) -> Result<bool, String> {
            Ok(char::from_u32(first).is_some_and(|c| c.is_ascii_digit()))
        }
        fn key(&mut self, key: &[u8]) -> Result<bool, String> {
            self.0.push(String::from_utf8_lossy(key).into_owned());
            Ok(true)
        }
        fn array_item(&mut self) -> Result<(), String> {
            Ok(())
        }
        fn end_container(&mut self) -> Result<(), String> {
            Ok(())
        }
        fn finish_buffered(&mut self, canonical: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
            out.push(b'"');
            out.extend_from_slice(canonical);
            out.push(b'"');
            Ok(())
        }
    }

    /// A host whose values are strings; tools `f` (coerced) and `g` (not).
    #[derive(Default)]
    struct Mock {
        events: Vec<String>,
    }

    impl Host for Mock {
        type Value = String;
        type Error = String;
        fn is_known(&mut self, name: &[u8]) -> Result<bool, String> {
            Ok(name == b"f" || name == b"g")
        }
        fn start(&mut self, name: &[u8]) -> Result<(), String> {
            self.events.push(format!("start {}", wide::lossy(name)));
            Ok(())
        }
        fn delta(&mut self, piece: &[u8]) -> Result<(), String> {
            self.events.push(wide::lossy(piece));
            Ok(())
        }
        fn member_plan(&mut self, _: &[u8], _: &[u8], _: &String) -> Result<Plan<String>, String> {
            Err("unused".into())
        }
        fn convert(&mut self, _: &str, _: &[u8]) -> Result<Converted<String>, String> {
            Err("unused".into())
        }
        fn coerce_at(
            &mut self,
            _: String,
            _: Option<&String>,
            _: Option<&String>,
            _: &[u8],
        ) -> Result<Coerced<String>, String> {
            Err("unused".into())
        }
        fn list(&mut self, _: Vec<String>) -> Result<String, String> {
            Err("unused".into())
        }
        fn canonical_json(&mut self, _: &String, _: &mut Vec<u8>) -> Result<(), String> {
            Err("unused".into())
        }
        fn coerce_json(&mut self, _: &str, _: &mut Vec<u8>) -> Result<(), String> {
            Err("unused".into())
        }
        fn key_error(&mut self, _: &[u8]) -> String {
            "unused".into()
        }
        fn none(&mut self) -> String {
            "None".into()
        }
        fn sole_string_of(&mut self, _: Option<&String>) -> Result<Option<String>, String> {
            Err("unused".into())
        }
    }

    impl JsonHost for Mock {
        type Typer = Typer;
        fn typer_for(&mut self, name: &[u8]) -> Result<Option<Typer>, String> {
            Ok((name == b"f").then(Typer::default))
        }
        fn coerce_held(
            &mut self,
            name: &[u8],
            held: &[u8],
            out: &mut Vec<u8>,
        ) -> Result<Option<String>, String> {
            if name != b"f" {
                return Ok(None);
            }
            out.extend_from_slice(b"{\"coerced\":");
            out.extend_from_slice(held);
            out.push(b'}');
            Ok(Some("held issues".into()))
        }
        fn issues(
            &mut self,
            typer: Option<&Typer>,
            extra: Option<&String>,
        ) -> Result<String, String> {
            Ok(match (typer, extra) {
                (Some(typer), _) => format!("typer {:?}", typer.0),
                (None, Some(extra)) => extra.clone(),
                (None, None) => "()".into(),
            })
        }
    }

    type Call = JsonCall<String, Typer>;

    fn envelope() -> Call {
        JsonCall::envelope(
            64,
            vec![b"name".to_vec()],
            vec![b"arguments".to_vec(), b"parameters".to_vec()],
        )
    }

    fn units(text: &str) -> Vec<u32> {
        text.chars().map(u32::from).collect()
    }

    /// Feed `pieces` one by one, flushing after each, as the block reader does.
    fn read(call: &mut Call, host: &mut Mock, pieces: &[&str]) {
        for piece in pieces {
            let text = units(piece);
            assert_eq!(call.feed(host, &text, 0), Ok(text.len()));
            call.flush(host).unwrap();
        }
    }

    fn outcome(call: &mut Call, host: &mut Mock) -> (String, Option<String>) {
        let (ending, issues) = call.outcome(host).unwrap();
        let ending = match ending {
            Ending::Invalid(problem) => format!("invalid: {}", wide::lossy(&problem)),
            Ending::Malformed(problem) => format!("malformed: {}", wide::lossy(&problem)),
            Ending::Unknown(arguments) => {
                format!("unknown: {:?}", arguments.map(|a| wide::lossy(&a)))
            }
            Ending::Call(arguments) => format!("call: {:?}", arguments.map(|a| wide::lossy(&a))),
        };
        (ending, issues)
    }

    #[test]
    fn a_named_envelope_streams_its_arguments_through_the_typer() {
        let (mut host, mut call) = (Mock::default(), envelope());
        read(
            &mut call,
            &mut host,
            &["{\"name\": \"f\", \"id\": 1, \"arguments\": {\"s\": \"a"],
        );
        assert!(call.state.started && call.state.streaming && call.string_opens());
        read(&mut call, &mut host, &["b\", \"n\": 2}", "}"]);
        assert!(call.done() && !call.string_opens());
        assert_eq!(host.events, ["start f", "{\"s\":\"a", "b\",\"n\":\"2\"}"]);
        assert_eq!(
            outcome(&mut call, &mut host),
            (
                "call: Some(\"{\\\"s\\\":\\\"ab\\\",\\\"n\\\":\\\"2\\\"}\")".into(),
                Some("typer [\"s\", \"n\"]".into())
            )
        );
        assert_eq!(
            (call.name_key(), call.args_key(), call.args_kind()),
            (Some(&b"name"[..]), Some(&b"arguments"[..]), b'{')
        );
    }

    #[test]
    fn arguments_before_the_name_are_held_then_coerced_whole() {
        let (mut host, mut call) = (Mock::default(), envelope());
        read(
            &mut call,
            &mut host,
            &["{\"arguments\": {\"n\": 1}, ", "\"name\": \"f\"}"],
        );
        assert_eq!(host.events, ["start f", "{\"coerced\":{\"n\":1}}"]);
        let (ending, issues) = outcome(&mut call, &mut host);
        assert!(ending.starts_with("call: "));
        assert_eq!(issues.as_deref(), Some("held issues"));
        // (a tool not coerced: what was held goes out as it was)
        let (mut host, mut call) = (Mock::default(), envelope());
        read(
            &mut call,
            &mut host,
            &["{\"parameters\": {\"n\": 1}, \"name\": \"g\"}"],
        );
        assert_eq!(host.events, ["start g", "{\"n\":1}"]);
        assert_eq!(outcome(&mut call, &mut host).1.as_deref(), Some("()"));
    }

    #[test]
    fn arguments_given_as_a_json_string_are_decoded_once() {
        let (mut host, mut call) = (Mock::default(), envelope());
        read(
            &mut call,
            &mut host,
            &[
                "{\"name\": \"g\", \"arguments\": \"{\\\"a\\\": ",
                "True}\"}",
            ],
        );
        assert_eq!(host.events, ["start g", "{\"a\":true}"]);
        for (text, problem) in [
            (
                "{\"name\": \"g\", \"arguments\": \"[1]\"}",
                Some("the arguments are a string that is not a JSON object"),
            ),
            ("{\"name\": \"g\", \"arguments\": \" \\n \"}", None),
            ("{\"name\": 5}", Some("the call's name is not a string: 5")),
            (
                "{\"name\": \"\"}",
                Some("the call's name is not a string: \"\""),
            ),
            ("{\"arguments\": {}}", Some("the call object has no 'name'")),
            (
                "{\"name\": \"g\", \"arguments\": 5}",
                Some("the arguments are not a JSON object: 5"),
            ),
        ] {
            let (mut host, mut call) = (Mock::default(), envelope());
            read(&mut call, &mut host, &[text]);
            let (ending, _) = outcome(&mut call, &mut host);
            match problem {
                Some(problem) => assert_eq!(ending, format!("invalid: {problem}"), "{text}"),
                None => assert_eq!(ending, "call: Some(\"{}\")", "{text}"),
            }
        }
    }

    #[test]
    fn a_call_without_arguments_has_an_empty_object() {
        let (mut host, mut call) = (Mock::default(), envelope());
        read(&mut call, &mut host, &["{\"name\": \"g\"}"]);
        assert_eq!(host.events, ["start g"]);
        assert_eq!(outcome(&mut call, &mut host).0, "call: Some(\"{}\")");
        assert_eq!(host.events, ["start g", "{}"]);
    }

    #[test]
    fn a_json_args_call_is_announced_at_once() {
        let mut host = Mock::default();
        let mut call = JsonCall::json_args(&mut host, 64, b"f".to_vec()).unwrap();
        assert_eq!(host.events, ["start f"]);
        read(&mut call, &mut host, &["{\"x\": 3, \"y\": \"", "z\"}"]);
        assert!(call.done() && call.typer().is_some());
        assert_eq!(host.events, ["start f", "{\"x\":\"3\",\"y\":\"", "z\"}"]);
        let mut unknown = JsonCall::json_args(&mut host, 64, b"zz".to_vec()).unwrap();
        read(&mut unknown, &mut host, &["{}"]);
        assert_eq!(
            outcome(&mut unknown, &mut host),
            ("unknown: Some(\"{}\")".into(), None)
        );
        let mut deep = JsonCall::json_args(&mut host, 1, b"g".to_vec()).unwrap();
        let Err(ReadError::Syntax(e)) = deep.feed(&mut host, &units("{\"a\": [1]}"), 0) else {
            panic!("read")
        };
        assert_eq!((e.index, e.reason()), (6, json::Reason::TooDeep));
    }
}
