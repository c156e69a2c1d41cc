//! One call's life (`toolparse.engine.calls`): announce it, stream its
//! arguments as canonical JSON deltas, and end it in a call or an error.
//!
//! Ported here: the `Call` base and `MemberCall`, a call whose arguments
//! arrive as named text members, each read by its schema's mode. The call's
//! state (its scratch and argument text, mode, keys, deferred members,
//! issues) is Rust's, and the per-delta work (a streaming member's text,
//! JSON-escaped; `flush`) is pure Rust. What only Python can do (a call's id,
//! the tool's schema, coercion of a complete member, converters, validation)
//! is a [`Host`] callback, made once per member or call, never per delta.
//!
//! Text that Python hands over with lone surrogates possible (names, keys,
//! the canonical JSON of Python values) is kept losslessly (see
//! [`crate::wide`]), so the arguments are exactly the Python engine's.

use std::collections::HashMap;

use crate::json::KeySet;
use crate::pieces::Pieces;
use crate::tags::is_python_space;
use crate::wide;

/// How a member is read (`calls._STREAM` ... `calls._DROP`, same numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A string written as it arrives.
    Stream = 0,
    /// Collected, coerced to its schema when it closes.
    Buffer = 1,
    /// An array member: collected, written when the call closes.
    Defer = 2,
    /// No schema: a string, unless its first character opens JSON.
    Sniff = 3,
    /// No schema and JSON-looking: parsed when it closes.
    Json = 4,
    /// Read and dropped.
    Drop = 5,
}

impl Mode {
    /// The mode numbered `n` (as `CallContext.member_plan` gives it).
    pub fn from_number(n: i64) -> Option<Mode> {
        Some(match n {
            0 => Mode::Stream,
            1 => Mode::Buffer,
            2 => Mode::Defer,
            3 => Mode::Sniff,
            4 => Mode::Json,
            5 => Mode::Drop,
            _ => return None,
        })
    }
}

/// How a member of a tool is read (`CallContext.member_plan`).
pub struct Plan<V> {
    /// Its schema (None: Python's None).
    pub schema: Option<V>,
    pub mode: Mode,
    /// Issues to report each time the member is given.
    pub issues: Vec<V>,
}

/// A member's value coerced to its schema, and what coercion reported.
pub struct Coerced<V> {
    pub value: V,
    pub issues: Vec<V>,
}

/// A member's collected text read by the call's converter (`_converted`).
pub enum Converted<V> {
    Value(V),
    /// The converter refused it (a `ValueError`): the problem it makes.
    Invalid(Vec<u8>),
}

/// How a complete call ends (`Call.outcome`, less the Python objects).
pub enum Ending {
    /// An invalid call (`ErrorReason.INVALID_CALL`) with this message.
    Invalid(Vec<u8>),
    /// Markup not to be trusted (`ErrorReason.MALFORMED_MARKUP`: a parameter
    /// given twice) with this message.
    Malformed(Vec<u8>),
    /// A call to no declared tool, with its arguments' JSON text.
    Unknown(Option<Vec<u8>>),
    /// A call, with its arguments' JSON text (generalized UTF-8: `json.loads`
    /// of it is the call's arguments); its issues are
    /// [`MemberCall::extra_issues`].
    Call(Option<Vec<u8>>),
}

/// What a call asks of the Python side: once per call or member, never per
/// delta. Names and keys are generalized UTF-8 ([`crate::wide`]).
pub trait Host {
    /// A Python value (a schema, a converted member, an issue).
    type Value;
    type Error;
    /// `CallContext.is_known(name)`.
    fn is_known(&mut self, name: &[u8]) -> Result<bool, Self::Error>;
    /// `CallContext.start(name)`: the call's index and id (kept by the host,
    /// which builds the deltas), its `ToolCallStart` appended to the events.
    fn start(&mut self, name: &[u8]) -> Result<(), Self::Error>;
    /// A `ToolCallDelta` of the started call, appended to the events.
    fn delta(&mut self, piece: &[u8]) -> Result<(), Self::Error>;
    /// `CallContext.member_plan(name, key, root)`.
    fn member_plan(
        &mut self,
        name: &[u8],
        key: &[u8],
        root: &Self::Value,
    ) -> Result<Plan<Self::Value>, Self::Error>;
    /// A member's text read by the call's converter (the text itself when there is none).
    fn convert(&mut self, text: &str, key: &[u8]) -> Result<Converted<Self::Value>, Self::Error>;
    /// `coerce_at(value, schema, root, _child_path("$", key), 1)`: the value and its issues.
    fn coerce_at(
        &mut self,
        value: Self::Value,
        schema: Option<&Self::Value>,
        root: Option<&Self::Value>,
        key: &[u8],
    ) -> Result<Coerced<Self::Value>, Self::Error>;
    /// A list of `values` (a member given more than once).
    fn list(&mut self, values: Vec<Self::Value>) -> Result<Self::Value, Self::Error>;
    /// Append `canonical_json(value)`.
    fn canonical_json(&mut self, value: &Self::Value, out: &mut Vec<u8>)
        -> Result<(), Self::Error>;
    /// Append `canonical_json(coerce(text, None).value)`.
    fn coerce_json(&mut self, text: &str, out: &mut Vec<u8>) -> Result<(), Self::Error>;
    /// Python's `KeyError(key)` (a member ended after its call closed).
    fn key_error(&mut self, key: &[u8]) -> Self::Error;
    /// Python's None.
    fn none(&mut self) -> Self::Value;
    /// `MemberCall.sole_string_of(root)`.
    fn sole_string_of(
        &mut self,
        root: Option<&Self::Value>,
    ) -> Result<Option<Self::Value>, Self::Error>;
}

/// A member that admits an array: its schema and each value given.
struct Deferred<V> {
    key: Vec<u8>,
    schema: Option<V>,
    values: Vec<V>,
}

/// The bytes of argument text a call's buffers hold before they grow.
const ARGUMENTS_ROOM: usize = 32;

/// `MemberCall` (with its `Call` base): builds one call's arguments object
/// from named text members.
///
/// What happens to a member's text depends on its schema, as in Python: a
/// plain string streams JSON-escaped; any other member is collected and
/// coerced when it closes; a member admitting an array collects each
/// repetition and is written when the call closes; with no tools declared,
/// text that begins with `{` or `[` is parsed as JSON; with `literal`, a
/// member is a Python literal read by the converter, and the call is
/// announced only once its first member begins or it closes.
pub struct MemberCall<V> {
    /// The tool's name.
    pub name: Vec<u8>,
    /// Argument text written since the last flush.
    scratch: Vec<u8>,
    /// Something was written to `scratch` (an empty piece counts, as in
    /// Python's list of pieces: its flush still emits a delta).
    written: bool,
    /// Argument text flushed (emitted, or held for an unstarted call).
    pub args: Pieces,
    pub started: bool,
    /// Started and flushing: the engine's string lane may apply.
    pub streaming: bool,
    pub problem: Option<Vec<u8>>,
    /// The problem is a parameter given twice (`problem_reason` is
    /// `MALFORMED_MARKUP`), not an invalid call.
    pub malformed: bool,
    literal: bool,
    /// The tool's schema, when coercion applies.
    root: Option<V>,
    /// No tools declared (and coercion on): JSON-looking text is parsed.
    schemaless: bool,
    keys: KeySet,
    /// Array members in the order first given, and where each one is.
    deferred: Vec<Deferred<V>>,
    deferred_at: HashMap<Vec<u8>, usize>,
    issues: Vec<V>,
    /// `extra_issues` is `issues[..extra]` (set by `close`; issues only grow).
    extra: usize,
    count: usize,
    key: Vec<u8>,
    mode: Mode,
    schema: Option<V>,
    buffer: String,
    unannounced: bool,
}

impl<V> MemberCall<V> {
    /// `MemberCall(ctx, name, convert, literal=literal)`; `root` is the tool's
    /// schema when coercion applies, `schemaless` that no tools are declared
    /// and coercion applies.
    pub fn new<H: Host<Value = V>>(
        host: &mut H,
        name: Vec<u8>,
        root: Option<V>,
        schemaless: bool,
        literal: bool,
    ) -> Result<Self, H::Error> {
        // (room for a small call's arguments from the start: a buffer grown
        // from empty is reallocated three or four times before 32 bytes)
        let mut scratch = Vec::with_capacity(ARGUMENTS_ROOM);
        scratch.push(b'{');
        let mut call = MemberCall {
            name: wide::replace_surrogates(name),
            scratch,
            written: true,
            args: Pieces::with_capacity(ARGUMENTS_ROOM),
            started: false,
            streaming: false,
            problem: None,
            malformed: false,
            literal,
            root,
            schemaless,
            keys: KeySet::default(),
            deferred: Vec::new(),
            deferred_at: HashMap::new(),
            issues: Vec::new(),
            extra: 0,
            count: 0,
            key: Vec::new(),
            mode: Mode::Drop,
            schema: None,
            buffer: String::new(),
            unannounced: literal,
        };
        if !literal {
            call.announce(host, call.name.clone())?;
        }
        Ok(call)
    }

    /// What was written since the last flush.
    pub fn scratch(&self) -> Option<&[u8]> {
        self.written.then_some(&self.scratch[..])
    }

    /// The issues of the members read, as of the last `close`.
    pub fn extra_issues(&self) -> &[V] {
        &self.issues[..self.extra]
    }

    /// Every Python value the call holds (for the garbage collector).
    pub fn values(&self) -> impl Iterator<Item = &V> {
        let deferred = self
            .deferred
            .iter()
            .flat_map(|d| d.schema.iter().chain(d.values.iter()));
        self.root
            .iter()
            .chain(self.schema.iter())
            .chain(self.issues.iter())
            .chain(deferred)
    }

    fn write(&mut self, piece: &[u8]) {
        self.scratch.extend_from_slice(piece);
        self.written = true;
    }

    /// The name is known: start the call (if the tool is known) and emit any
    /// arguments that arrived before it.
    pub fn announce<H: Host<Value = V>>(
        &mut self,
        host: &mut H,
        name: Vec<u8>,
    ) -> Result<(), H::Error> {
        // (a raw lone surrogate in the markup's name: U+FFFD, as in the arguments)
        self.name = wide::replace_surrogates(name);
        if !host.is_known(&self.name)? {
            return Ok(());
        }
        host.start(&self.name)?;
        self.started = true;
        let held = self.args.text();
        if !held.is_empty() {
            host.delta(held)?;
        }
        self.flush(host)
    }

    /// Emit what was written since the last flush as one delta.
    pub fn flush<H: Host<Value = V>>(&mut self, host: &mut H) -> Result<(), H::Error> {
        if !self.written {
            return Ok(());
        }
        self.written = false;
        self.args.append(&self.scratch);
        let sent = if self.started {
            self.streaming = true;
            host.delta(&self.scratch)
        } else {
            Ok(())
        };
        self.scratch.clear();
        sent
    }

    /// While a string member streams, the engine may append plain text itself
    /// (Python's `open_string` is not None).
    pub fn string_opens(&self) -> bool {
        self.mode == Mode::Stream && self.started && !self.written
    }

    /// The call's markup is complete: a call, or an error saying why not.
    pub fn outcome<H: Host<Value = V>>(&mut self, host: &mut H) -> Result<Ending, H::Error> {
        self.flush(host)?;
        let text = self.args.text();
        // (its arguments stay JSON text: each sink reads them as it needs them)
        let arguments = (!text.is_empty()).then(|| text.to_vec());
        // (the canonical text of an object is in its braces)
        let object = text.first() == Some(&b'{') && text.last() == Some(&b'}');
        if self.problem.is_none() && !object {
            let mut problem = b"the arguments are not a JSON object: ".to_vec();
            problem.extend_from_slice(wide::head(text, 80));
            self.problem = Some(problem);
        }
        if let Some(problem) = &self.problem {
            return Ok(if self.malformed {
                Ending::Malformed(problem.clone())
            } else {
                Ending::Invalid(problem.clone())
            });
        }
        if !self.started {
            return Ok(Ending::Unknown(arguments));
        }
        Ok(Ending::Call(arguments))
    }

    fn write_key(&mut self, key: &[u8]) {
        if self.count > 0 {
            self.write(b",");
        }
        self.count += 1;
        self.scratch.push(b'"');
        wide::push_json_body(&mut self.scratch, wide::chars(key));
        self.write(b"\":");
    }

    /// A member named `key` begins; true if its text streams as a string.
    pub fn begin<H: Host<Value = V>>(
        &mut self,
        host: &mut H,
        key: Vec<u8>,
    ) -> Result<bool, H::Error> {
        self.announce_once(host)?;
        self.key = key;
        self.buffer.clear();
        if self.deferred_at.contains_key(&self.key) {
            self.mode = Mode::Defer;
            return Ok(false);
        }
        if self.keys.contains(&self.key) {
            // a second value of a parameter that takes one: the markup was not
            // what it seemed (`MemberCall.begin`): the call is not run
            if self.problem.is_none() {
                let points: Vec<u32> = wide::chars(&self.key).collect();
                let mut problem = b"parameter ".to_vec();
                problem.extend_from_slice(crate::pyliteral::repr(&points).as_bytes());
                problem.extend_from_slice(
                    b" is given twice: a value may hold markup read as the call's own, so the call is not run",
                );
                self.problem = Some(problem);
                self.malformed = true;
            }
            self.mode = Mode::Drop;
            return Ok(false);
        }
        let schema = match &self.root {
            None => {
                self.mode = if self.literal {
                    Mode::Buffer
                } else if self.schemaless {
                    Mode::Sniff
                } else {
                    Mode::Stream
                };
                None
            }
            Some(root) => {
                let plan = host.member_plan(&self.name, &self.key, root)?;
                self.issues.extend(plan.issues);
                match plan.mode {
                    Mode::Drop => {
                        self.mode = Mode::Drop;
                        return Ok(false);
                    }
                    Mode::Defer => {
                        self.deferred_at
                            .insert(self.key.clone(), self.deferred.len());
                        self.deferred.push(Deferred {
                            key: self.key.clone(),
                            schema: plan.schema,
                            values: Vec::new(),
                        });
                        self.mode = Mode::Defer;
                        return Ok(false);
                    }
                    Mode::Stream if self.literal => self.mode = Mode::Buffer,
                    mode => self.mode = mode,
                }
                plan.schema
            }
        };
        self.schema = schema;
        // (one copy of the key, for the set: the member keeps its own)
        let key = std::mem::take(&mut self.key);
        self.keys.insert(key.clone());
        self.write_key(&key);
        self.key = key;
        if self.mode == Mode::Stream {
            self.write(b"\"");
        }
        Ok(self.streams())
    }

    /// A member named `key` was given in this call (the one being read
    /// included) and takes no second value (one that admits an array does).
    pub fn has(&self, key: &[u8]) -> bool {
        !self.deferred_at.contains_key(key) && (key == self.key || self.keys.contains(key))
    }

    /// `sole_string_property`: the tool's one property, when it takes a string.
    pub fn sole_string_property<H: Host<Value = V>>(
        &self,
        host: &mut H,
    ) -> Result<Option<V>, H::Error> {
        host.sole_string_of(self.root.as_ref())
    }

    /// The next decoded text of the current member (the code points `units`).
    pub fn text<T: Copy + Into<u32>>(&mut self, units: &[T]) {
        match self.mode {
            Mode::Stream => {
                wide::push_json_body(&mut self.scratch, units.iter().map(|&u| u.into()));
                self.written = true;
            }
            Mode::Sniff => {
                // every piece before this one was blank: only this one can decide
                push_replaced(&mut self.buffer, units);
                let lead = units
                    .iter()
                    .map(|&u| wide::replaced(u.into()))
                    .find(|&c| !is_python_space(c));
                match lead {
                    None => {}
                    Some(0x7B | 0x5B) => self.mode = Mode::Json,
                    Some(_) => {
                        // plain text after all: stream what was held, and the rest
                        self.mode = Mode::Stream;
                        self.scratch.push(b'"');
                        wide::push_json_body(&mut self.scratch, self.buffer.chars().map(u32::from));
                        self.written = true;
                        self.buffer.clear();
                    }
                }
            }
            Mode::Drop => {}
            _ => push_replaced(&mut self.buffer, units),
        }
    }

    /// True while the current member is written as it arrives (a string).
    pub fn streams(&self) -> bool {
        matches!(self.mode, Mode::Stream | Mode::Sniff)
    }

    /// The current member is complete.
    pub fn end<H: Host<Value = V>>(&mut self, host: &mut H) -> Result<(), H::Error> {
        match self.mode {
            Mode::Stream => self.write(b"\""),
            Mode::Sniff => {
                self.scratch.push(b'"');
                wide::push_json_body(&mut self.scratch, self.buffer.chars().map(u32::from));
                self.write(b"\"");
            }
            Mode::Json => {
                host.coerce_json(&self.buffer, &mut self.scratch)?;
                self.written = true;
            }
            Mode::Buffer => {
                let raw = self.converted(host)?;
                let value = if self.literal && self.schema.is_none() {
                    raw // (a literal says its own type)
                } else {
                    let coerced =
                        host.coerce_at(raw, self.schema.as_ref(), self.root.as_ref(), &self.key)?;
                    self.issues.extend(coerced.issues);
                    coerced.value
                };
                host.canonical_json(&value, &mut self.scratch)?;
                self.written = true;
            }
            Mode::Defer => {
                // (the member is looked up first: after `close` it is gone)
                let Some(&at) = self.deferred_at.get(&self.key) else {
                    return Err(host.key_error(&self.key));
                };
                let value = self.converted(host)?;
                self.deferred[at].values.push(value);
            }
            Mode::Drop => {}
        }
        self.mode = Mode::Drop;
        Ok(())
    }

    /// The member's collected text as a value; a literal that cannot be read
    /// makes the call invalid (the converter then gives Python's None).
    fn converted<H: Host<Value = V>>(&mut self, host: &mut H) -> Result<V, H::Error> {
        match host.convert(&self.buffer, &self.key)? {
            Converted::Value(value) => Ok(value),
            Converted::Invalid(problem) => {
                if self.problem.is_none() {
                    self.problem = Some(problem);
                }
                Ok(host.none())
            }
        }
    }

    fn announce_once<H: Host<Value = V>>(&mut self, host: &mut H) -> Result<(), H::Error> {
        if self.unannounced {
            self.unannounced = false;
            self.announce(host, self.name.clone())?;
        }
        Ok(())
    }

    /// The call's markup is complete: write the collected array members, close the object.
    pub fn close<H: Host<Value = V>>(&mut self, host: &mut H) -> Result<(), H::Error> {
        self.announce_once(host)?;
        self.deferred_at.clear();
        for Deferred {
            key,
            schema,
            mut values,
        } in std::mem::take(&mut self.deferred)
        {
            let value = match values.pop() {
                Some(value) if values.is_empty() => value,
                last => {
                    values.extend(last);
                    host.list(values)?
                }
            };
            let coerced = host.coerce_at(value, schema.as_ref(), self.root.as_ref(), &key)?;
            self.issues.extend(coerced.issues);
            self.write_key(&key);
            host.canonical_json(&coerced.value, &mut self.scratch)?;
        }
        self.write(b"}");
        self.extra = self.issues.len();
        Ok(())
    }
}

/// Append the code points `units` to `buffer`, U+FFFD for each surrogate.
fn push_replaced<T: Copy + Into<u32>>(buffer: &mut String, units: &[T]) {
    buffer.extend(
        units
            .iter()
            .map(|&u| char::from_u32(wide::replaced(u.into())).unwrap_or('\u{FFFD}')),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host whose values are strings: a key's first letters say its mode
    /// (`n_`: buffered, `a_`: an array, `x_`: dropped, else a string).
    #[derive(Default)]
    struct Mock {
        tools: Option<Vec<&'static str>>,
        events: Vec<String>,
        plans: usize,
    }

    impl Host for Mock {
        type Value = String;
        type Error = String;
        fn is_known(&mut self, name: &[u8]) -> Result<bool, String> {
            let name = wide::lossy(name);
            Ok(self.tools.as_ref().is_none_or(|t| t.contains(&&*name)))
        }
        fn start(&mut self, name: &[u8]) -> Result<(), String> {
            self.events.push(format!("start {}", wide::lossy(name)));
            Ok(())
        }
        fn delta(&mut self, piece: &[u8]) -> Result<(), String> {
            self.events.push(String::from_utf8(piece.to_vec()).unwrap());
            Ok(())
        }
        fn member_plan(
            &mut self,
            _: &[u8],
            key: &[u8],
            _: &String,
        ) -> Result<Plan<String>, String> {
            self.plans += 1;
            let mode = match key.get(..2) {
                Some(b"n_") => Mode::Buffer,
                Some(b"a_") => Mode::Defer,
                Some(b"x_") => Mode::Drop,
                _ => Mode::Stream,
            };
            let issues = if mode == Mode::Drop {
                vec!["dropped".into()]
            } else {
                vec![]
            };
            Ok(Plan {
                schema: Some("schema".into()),
                mode,
                issues,
            })
        }
        fn convert(&mut self, text: &str, _: &[u8]) -> Result<Converted<String>, String> {
            Ok(if text == "bad" {
                Converted::Invalid(b"not a literal".to_vec())
            } else {
                Converted::Value(text.to_owned())
            })
        }
        fn coerce_at(
            &mut self,
            value: String,
            _: Option<&String>,
            _: Option<&String>,
            _: &[u8],
        ) -> Result<Coerced<String>, String> {
            Ok(Coerced {
                value,
                issues: vec!["coerced".into()],
            })
        }
        fn list(&mut self, values: Vec<String>) -> Result<String, String> {
            Ok(format!("[{}]", values.join(",")))
        }
        fn canonical_json(&mut self, value: &String, out: &mut Vec<u8>) -> Result<(), String> {
            out.extend_from_slice(value.as_bytes());
            Ok(())
        }
        fn coerce_json(&mut self, text: &str, out: &mut Vec<u8>) -> Result<(), String> {
            let text = text.trim_matches(|c| is_python_space(u32::from(c)));
            out.extend_from_slice(text.as_bytes());
            Ok(())
        }
        fn key_error(&mut self, key: &[u8]) -> String {
            format!("KeyError {}", wide::lossy(key))
        }
        fn none(&mut self) -> String {
            "null".into()
        }
        fn sole_string_of(&mut self, root: Option<&String>) -> Result<Option<String>, String> {
            Ok(root.cloned())
        }
    }

    fn units(text: &str) -> Vec<u32> {
        text.chars().map(u32::from).collect()
    }

    fn args(call: &MemberCall<String>) -> String {
        String::from_utf8(call.args.text().to_vec()).unwrap()
    }

    fn schemaless() -> (Mock, MemberCall<String>) {
        let mut host = Mock::default();
        let call = MemberCall::new(&mut host, b"f".to_vec(), None, true, false).unwrap();
        (host, call)
    }

    #[test]
    fn a_string_member_streams_escaped() {
        let mut host = Mock::default();
        let mut call = MemberCall::new(&mut host, b"f".to_vec(), None, false, false).unwrap();
        assert_eq!(host.events, ["start f", "{"]);
        assert!(call.begin(&mut host, b"say \"hi\"".to_vec()).unwrap());
        assert!(!call.string_opens()); // (the key is not flushed yet)
        call.flush(&mut host).unwrap();
        assert!(call.string_opens() && call.streaming);
        call.text(&units("a\"b\\c\n\u{1}"));
        call.text(&[0x78u32, 0xD800, 0x79]); // (a lone surrogate)
        call.text::<u8>(&[]); // (an empty piece still makes a delta)
        call.flush(&mut host).unwrap();
        call.text::<u8>(&[]);
        call.flush(&mut host).unwrap();
        call.end(&mut host).unwrap();
        call.close(&mut host).unwrap();
        let Ending::Call(Some(arguments)) = call.outcome(&mut host).unwrap() else {
            panic!("not a call")
        };
        let expected = "{\"say \\\"hi\\\"\":\"a\\\"b\\\\c\\n\\u0001x\u{FFFD}y\"}";
        assert_eq!(arguments, expected.as_bytes());
        assert_eq!(args(&call), expected);
        assert_eq!(
            host.events,
            [
                "start f",
                "{",
                "\"say \\\"hi\\\"\":\"",
                "a\\\"b\\\\c\\n\\u0001x\u{FFFD}y",
                "",
                "\"}"
            ]
        );
    }

    #[test]
    fn with_no_tools_json_looking_text_is_parsed_and_blank_text_held() {
        let (mut host, mut call) = schemaless();
        assert!(call.begin(&mut host, b"a".to_vec()).unwrap());
        call.text(&units(" \u{1c}\n"));
        assert!(call.streams() && call.mode == Mode::Sniff);
        call.text(&units("\t[1, 2] "));
        assert!(!call.streams() && call.mode == Mode::Json);
        call.end(&mut host).unwrap();
        assert!(!call.begin(&mut host, b"a".to_vec()).unwrap()); // (a repeated key is dropped)
        call.text(&units("dropped"));
        call.end(&mut host).unwrap();
        assert!(call.begin(&mut host, b"b".to_vec()).unwrap());
        call.text(&units("  "));
        call.text(&units(" x\"")); // (plain text: the blank text held streams first)
        assert_eq!(call.mode, Mode::Stream);
        call.end(&mut host).unwrap();
        assert!(call.begin(&mut host, b"c".to_vec()).unwrap());
        call.text(&units(" \n"));
        call.end(&mut host).unwrap(); // (blank to the end: a string)
        call.close(&mut host).unwrap();
        call.flush(&mut host).unwrap();
        assert_eq!(
            args(&call),
            "{\"a\":[1, 2],\"b\":\"   x\\\"\",\"c\":\" \\n\"}"
        );
        assert!(call.has(b"a") && call.has(b"c") && !call.has(b"d"));
    }

    #[test]
    fn members_by_their_plans() {
        let mut host = Mock::default();
        let root = Some("root".to_owned());
        let mut call = MemberCall::new(&mut host, b"f".to_vec(), root, false, false).unwrap();
        for (key, text) in [
            ("a_x", "1"),
            ("n_y", "2"),
            ("x_z", "3"),
            ("a_x", "4"),
            ("x_z", "5"),
        ] {
            assert!(!call.begin(&mut host, key.as_bytes().to_vec()).unwrap());
            call.text(&units(text));
            call.end(&mut host).unwrap();
        }
        assert_eq!(host.plans, 4); // (a deferred key is planned once; a dropped one each time)
        assert!(!call.has(b"a_x") && call.has(b"n_y") && call.has(b"x_z"));
        assert!(call.begin(&mut host, b"a_w".to_vec()).is_ok()); // (given, never ended: [])
        assert!(call.extra_issues().is_empty());
        call.close(&mut host).unwrap();
        assert_eq!(call.end(&mut host), Err("KeyError a_w".to_owned())); // (as in Python)
        assert_eq!(
            call.extra_issues(),
            ["coerced", "dropped", "dropped", "coerced", "coerced"]
        );
        call.flush(&mut host).unwrap();
        assert_eq!(args(&call), "{\"n_y\":2,\"a_x\":[1,4],\"a_w\":[]}");
    }

    #[test]
    fn a_literal_call_is_announced_when_its_first_member_begins() {
        let mut host = Mock::default();
        let mut call = MemberCall::new(&mut host, b"f".to_vec(), None, false, true).unwrap();
        call.flush(&mut host).unwrap(); // (held: not started)
        assert!(host.events.is_empty() && !call.streaming);
        assert!(!call.begin(&mut host, b"k".to_vec()).unwrap()); // (a literal is buffered)
        assert_eq!(host.events, ["start f", "{"]);
        call.text(&units("bad"));
        call.end(&mut host).unwrap();
        assert_eq!(call.problem.as_deref(), Some(&b"not a literal"[..]));
        call.close(&mut host).unwrap();
        let Ending::Invalid(problem) = call.outcome(&mut host).unwrap() else {
            panic!("not invalid")
        };
        assert_eq!(problem, b"not a literal");
        assert_eq!(args(&call), "{\"k\":null}");
    }

    #[test]
    fn a_call_to_no_declared_tool_is_never_started() {
        let mut host = Mock {
            tools: Some(vec!["g"]),
            ..Mock::default()
        };
        let mut call = MemberCall::new(&mut host, b"f".to_vec(), None, false, false).unwrap();
        call.begin(&mut host, b"k".to_vec()).unwrap();
        call.text(&units("v"));
        call.end(&mut host).unwrap();
        call.close(&mut host).unwrap();
        assert!(matches!(
            call.outcome(&mut host).unwrap(),
            Ending::Unknown(Some(_))
        ));
        assert!(host.events.is_empty() && !call.started && !call.string_opens());
        call.announce(&mut host, b"g".to_vec()).unwrap(); // (what was held goes out at once)
        assert_eq!(host.events, ["start g", "{\"k\":\"v\"}"]);
    }

    #[test]
    fn arguments_that_are_not_an_object_are_a_problem() {
        let (mut host, mut call) = schemaless();
        let Ending::Invalid(problem) = call.outcome(&mut host).unwrap() else {
            panic!("not invalid")
        };
        assert_eq!(problem, b"the arguments are not a JSON object: {");
    }

    #[test]
    fn modes_are_numbered_as_in_python() {
        for n in 0..6 {
            assert_eq!(Mode::from_number(n).map(|m| m as i64), Some(n));
        }
        assert_eq!(Mode::from_number(6), None);
    }
}
