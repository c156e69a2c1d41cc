//! Inline coercion's typer (`toolparse.coercion.inline.SchemaTyper`): the
//! state machine, without Python.
//!
//! A [`Typer`] follows one call's JSON arguments alongside the JSON reader
//! and decides, as each value begins, whether it streams as it is or is
//! collected whole and coerced when complete. Its state is its own: the open
//! containers' frames, the schema and path of the next value, the values
//! being collected, and the issues reported. What it must know of a schema
//! it asks a [`SchemaOracle`], four questions in all: a schema's plan
//! (`inline._plan`), a member's schema (`inline.member_schema`), an array's
//! `items`, and the coercion of a value collected whole. The binding's
//! oracle answers with the Python reference's own functions, cached by the
//! identity of the schema objects; a Rust host answers from its own port.
//!
//! Paths (`$.a[0]["b c"]`) and keys are generalized UTF-8 (see
//! [`crate::wide`]): a key may hold a lone surrogate, which a Rust `String`
//! cannot.

use std::sync::Arc;

use crate::typing::ValueTyper;
use crate::wide;

/// `coerce._child_path(path, key)`: `path.key` for a key that
/// `_SIMPLE_KEY` (`[A-Za-z_][A-Za-z0-9_]*`) matches whole, else
/// `path[<json.dumps(key, ensure_ascii=False)>]`.
pub fn child_path(path: &[u8], key: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(path.len() + key.len() + 4);
    child_path_into(&mut out, path, key);
    out
}

/// [`child_path`] written into `out` (cleared first: its buffer reused).
pub fn child_path_into(out: &mut Vec<u8>, path: &[u8], key: &[u8]) {
    out.clear();
    out.extend_from_slice(path);
    if is_simple_key(key) {
        out.push(b'.');
        out.extend_from_slice(key);
    } else {
        out.extend_from_slice(b"[\"");
        // (`json.dumps` keeps a lone surrogate; only the engine's own JSON replaces it)
        wide::push_json_chars(out, wide::chars(key));
        out.extend_from_slice(b"\"]");
    }
}

/// `_SIMPLE_KEY.fullmatch(key)` (the ranges are ASCII in Python's `re` too).
fn is_simple_key(key: &[u8]) -> bool {
    match key.split_first() {
        Some((&first, rest)) => {
            (first.is_ascii_alphabetic() || first == b'_')
                && rest.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
        }
        None => false,
    }
}

/// `inline._INT_LITERAL.fullmatch(text)`: `-?(?:0|[1-9][0-9]{0,15})`.
pub fn is_int_literal(text: &[u8]) -> bool {
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    match digits.split_first() {
        Some((b'0', rest)) => rest.is_empty(),
        Some((b'1'..=b'9', rest)) => rest.len() <= 15 && rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// How values of one schema are read (`inline._plan`'s result, less the
/// keys it is cached under).
pub struct Plan<S> {
    /// The resolved schema (`unwrap`, then `merged_all_of`); None: no schema.
    pub schema: Option<S>,
    /// The first characters of a value that streams as it is.
    pub streams: Vec<u32>,
    /// Whether an integer literal stands as it is (the schema takes integers).
    pub integers: bool,
}

/// What a member's key leads to (`inline.member_schema`'s result).
#[derive(Clone)]
pub enum Member<S> {
    /// `DROP`: `additionalProperties: false` forbids it.
    Drop,
    /// `UNTOUCHED`: kept as the model wrote it.
    Untouched,
    /// Its raw schema.
    Raw(S),
}

/// What a [`Typer`] asks of the schemas it reads (see the module docs).
/// Every answer is the reference's, question for question.
pub trait SchemaOracle {
    /// A schema (any JSON value a tool's parameters may hold).
    type Schema;
    /// What coercion changed or could not fix (`toolparse.coercion.Issue`).
    type Issue;
    /// Why an answer could not be given.
    type Error;

    /// Another handle on `schema`.
    fn share(&mut self, schema: &Self::Schema) -> Self::Schema;
    /// `inline._plan(raw, root)`.
    fn plan(
        &mut self,
        raw: &Self::Schema,
        root: &Self::Schema,
    ) -> Result<Arc<Plan<Self::Schema>>, Self::Error>;
    /// `inline.member_schema(schema, key, path, issues)`: what it reports
    /// is appended to `issues`, even when it then fails.
    fn member(
        &mut self,
        schema: &Self::Schema,
        key: &[u8],
        path: &[u8],
        issues: &mut Vec<Self::Issue>,
    ) -> Result<Member<Self::Schema>, Self::Error>;
    /// `Issue(path, DROPPED_EXPECTED, "a value", "dropped")`: a member
    /// `additionalProperties: false` forbids.
    fn dropped(&mut self, path: &[u8]) -> Result<Self::Issue, Self::Error>;
    /// The `items` of an array's resolved schema (`schema.get("items")`):
    /// None where it is absent, None or `true` (its items are untouched).
    fn items(&mut self, schema: &Self::Schema) -> Result<Option<Self::Schema>, Self::Error>;
    /// `canonical_json(_Coercer(root, max_depth).run(json.loads(canonical),
    /// raw, path, depth))` appended to `out`, the coercer's issues to `issues`.
    #[allow(clippy::too_many_arguments)]
    fn coerce(
        &mut self,
        root: &Self::Schema,
        max_depth: usize,
        canonical: &[u8],
        raw: Option<&Self::Schema>,
        path: &[u8],
        depth: usize,
        issues: &mut Vec<Self::Issue>,
        out: &mut Vec<u8>,
    ) -> Result<(), Self::Error>;
    /// Let go of `schema` (a Python host lets go with the interpreter held).
    fn release(&mut self, schema: Self::Schema) {
        drop(schema);
    }
    /// Python's `IndexError(what)`: the reader misused the typer.
    fn index_error(&mut self, what: &'static str) -> Self::Error;
}

/// What the members of an open container are read against (`_Frame.schema`).
pub enum Scope<S> {
    /// `UNTOUCHED`: below an unknown property, everything is kept as it is.
    Untouched,
    /// Python's None: no schema (only JSON-looking strings may change).
    Absent,
    /// A resolved schema.
    Schema(S),
}

/// An open container that streams (`_Frame`).
struct Frame<S> {
    scope: Scope<S>,
    path: Vec<u8>,
    /// Items begun so far (arrays).
    count: usize,
}

/// What the next value is read against (`_next_schema`).
enum Next<S> {
    /// `UNTOUCHED`.
    Untouched,
    /// Python's None, set by a container with no schema (its plan is known:
    /// no schema, nothing streams but containers).
    Absent,
    /// A raw schema, read through its plan.
    Raw(S),
}

/// A value being collected whole: its raw schema (None: Python's None), its
/// path, and whether an integer literal stands as it is.
struct Buffered<S> {
    raw: Option<S>,
    path: Vec<u8>,
    integers: bool,
}

/// A view of a [`Typer`]'s state (see [`Typer::state`]).
pub struct State<'a, S> {
    /// Each open container's scope, path and items begun, outermost first.
    pub frames: Vec<(&'a Scope<S>, &'a [u8], usize)>,
    /// The next value's raw schema: None for `UNTOUCHED`, `Some(None)` for
    /// Python's None.
    pub next: Option<Option<&'a S>>,
    /// The next value's path.
    pub next_path: &'a [u8],
    /// Each value being collected: its raw schema (None: Python's None), its
    /// path, and whether an integer literal stands as it is.
    pub buffered: Vec<(Option<&'a S>, &'a [u8], bool)>,
}

/// `toolparse.coercion.inline.SchemaTyper`: coerces one call's arguments
/// inline, against the tool's parameters schema, with what `O` answers.
pub struct Typer<O: SchemaOracle> {
    oracle: O,
    root: O::Schema,
    max_depth: usize,
    issues: Vec<O::Issue>,
    frames: Vec<Frame<O::Schema>>,
    next_schema: Next<O::Schema>,
    next_path: Vec<u8>,
    buffered: Vec<Buffered<O::Schema>>,
}

impl<O: SchemaOracle> Typer<O> {
    /// `SchemaTyper(schema, max_depth=max_depth)`: the tool's parameters schema.
    pub fn new(mut oracle: O, schema: O::Schema, max_depth: usize) -> Self {
        Typer {
            next_schema: Next::Raw(oracle.share(&schema)),
            oracle,
            root: schema,
            max_depth,
            issues: Vec::new(),
            frames: Vec::new(),
            next_path: b"$".to_vec(),
            buffered: Vec::new(),
        }
    }

    /// The oracle answering this typer.
    pub fn oracle_mut(&mut self) -> &mut O {
        &mut self.oracle
    }

    /// The tool's parameters schema.
    pub fn root(&self) -> &O::Schema {
        &self.root
    }

    /// Values nested deeper than this are left as they are by coercion.
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// What coercion changed or could not fix, in order.
    pub fn issues(&self) -> &[O::Issue] {
        &self.issues
    }

    /// Every schema the typer holds, the root first (for a binding's
    /// `__traverse__`).
    pub fn schemas(&self) -> impl Iterator<Item = &O::Schema> {
        let next = match &self.next_schema {
            Next::Raw(raw) => Some(raw),
            _ => None,
        };
        let frames = self.frames.iter().filter_map(|f| match &f.scope {
            Scope::Schema(schema) => Some(schema),
            _ => None,
        });
        std::iter::once(&self.root)
            .chain(next)
            .chain(frames)
            .chain(self.buffered.iter().filter_map(|b| b.raw.as_ref()))
    }

    /// The typer's state, for comparing it with the reference's (tests):
    /// each frame's scope, path and item count; the next value's raw schema
    /// and path; each collected value's raw schema, path, and whether
    /// integers stand.
    pub fn state(&self) -> State<'_, O::Schema> {
        State {
            frames: self
                .frames
                .iter()
                .map(|f| (&f.scope, f.path.as_slice(), f.count))
                .collect(),
            next: match &self.next_schema {
                Next::Untouched => None,
                Next::Absent => Some(None),
                Next::Raw(raw) => Some(Some(raw)),
            },
            next_path: &self.next_path,
            buffered: self
                .buffered
                .iter()
                .map(|b| (b.raw.as_ref(), b.path.as_slice(), b.integers))
                .collect(),
        }
    }

    fn buffer(&mut self, raw: Option<O::Schema>, path: Vec<u8>, integers: bool) -> bool {
        self.buffered.push(Buffered {
            raw,
            path,
            integers,
        });
        true
    }
}

impl<O: SchemaOracle> ValueTyper for Typer<O> {
    type Error = O::Error;

    fn begin_value(&mut self, first: u32) -> Result<bool, O::Error> {
        let container = first == u32::from(b'{') || first == u32::from(b'[');
        let quote = first == u32::from(b'"') || first == u32::from(b'\'');
        let path = self.next_path.clone();
        let raw = match &self.next_schema {
            Next::Untouched => {
                if container {
                    self.frames.push(Frame {
                        scope: Scope::Untouched,
                        path,
                        count: 0,
                    });
                }
                return Ok(false);
            }
            Next::Absent => None,
            Next::Raw(raw) => Some(self.oracle.share(raw)),
        };
        let plan = match &raw {
            Some(raw) => Some(self.oracle.plan(raw, &self.root)?),
            None => None, // (the plan of None: no schema)
        };
        let Some(Plan {
            schema: Some(schema),
            streams,
            integers,
        }) = plan.as_deref()
        else {
            // no schema: only strings may change (JSON-looking ones)
            if container {
                self.frames.push(Frame {
                    scope: Scope::Absent,
                    path,
                    count: 0,
                });
                return Ok(false);
            }
            return Ok(quote && self.buffer(raw, path, false));
        };
        if streams.contains(&first) {
            if container {
                let scope = Scope::Schema(self.oracle.share(schema));
                self.frames.push(Frame {
                    scope,
                    path,
                    count: 0,
                });
            }
            return Ok(false);
        }
        let integers = *integers;
        Ok(self.buffer(raw, path, integers))
    }

    fn key(&mut self, key: &[u8]) -> Result<bool, O::Error> {
        let Some(frame) = self.frames.last() else {
            return Err(self.oracle.index_error("list index out of range"));
        };
        child_path_into(&mut self.next_path, &frame.path, key);
        let schema = match &frame.scope {
            Scope::Untouched => {
                self.next_schema = Next::Untouched;
                return Ok(true);
            }
            Scope::Absent => {
                self.next_schema = Next::Absent;
                return Ok(true);
            }
            Scope::Schema(schema) => schema,
        };
        let member = self
            .oracle
            .member(schema, key, &self.next_path, &mut self.issues)?;
        match member {
            Member::Drop => {
                let issue = self.oracle.dropped(&self.next_path)?;
                self.issues.push(issue);
                return Ok(false);
            }
            Member::Untouched => self.next_schema = Next::Untouched,
            Member::Raw(raw) => self.next_schema = Next::Raw(raw),
        }
        Ok(true)
    }

    fn array_item(&mut self) -> Result<(), O::Error> {
        let Some(frame) = self.frames.last_mut() else {
            return Err(self.oracle.index_error("list index out of range"));
        };
        let mut path = Vec::with_capacity(frame.path.len() + 8);
        path.extend_from_slice(&frame.path);
        path.push(b'[');
        path.extend_from_slice(frame.count.to_string().as_bytes());
        path.push(b']');
        self.next_path = path;
        frame.count += 1;
        let schema = match &frame.scope {
            Scope::Untouched => {
                self.next_schema = Next::Untouched;
                return Ok(());
            }
            Scope::Absent => {
                self.next_schema = Next::Absent;
                return Ok(());
            }
            Scope::Schema(schema) => schema,
        };
        self.next_schema = match self.oracle.items(schema)? {
            Some(items) => Next::Raw(items),
            None => Next::Untouched,
        };
        Ok(())
    }

    fn end_container(&mut self) -> Result<(), O::Error> {
        match self.frames.pop() {
            Some(Frame {
                scope: Scope::Schema(schema),
                ..
            }) => {
                self.oracle.release(schema);
                Ok(())
            }
            Some(_) => Ok(()),
            None => Err(self.oracle.index_error("pop from empty list")),
        }
    }

    fn finish_buffered(&mut self, canonical: &[u8], out: &mut Vec<u8>) -> Result<(), O::Error> {
        let Some(Buffered {
            raw,
            path,
            integers,
        }) = self.buffered.pop()
        else {
            return Err(self.oracle.index_error("pop from empty list"));
        };
        if integers && is_int_literal(canonical) {
            // (an integer where the schema takes one: nothing to coerce)
            out.extend_from_slice(canonical);
            return Ok(());
        }
        let depth = self.frames.len();
        let done = self.oracle.coerce(
            &self.root,
            self.max_depth,
            canonical,
            raw.as_ref(),
            &path,
            depth,
            &mut self.issues,
            out,
        );
        if let Some(raw) = raw {
            self.oracle.release(raw);
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(parent: &str, key: &[u8]) -> Vec<u8> {
        child_path(parent.as_bytes(), key)
    }

    #[test]
    fn simple_keys_are_dotted() {
        assert_eq!(path("$", b"a"), b"$.a");
        assert_eq!(path("$.x", b"_a1_B"), b"$.x._a1_B");
        assert_eq!(path("$", b"Z9"), b"$.Z9");
    }

    #[test]
    fn other_keys_are_json_dumped() {
        assert_eq!(path("$", b""), b"$[\"\"]");
        assert_eq!(path("$", b"1a"), b"$[\"1a\"]");
        assert_eq!(path("$", b"a b"), b"$[\"a b\"]");
        assert_eq!(path("$", b"a-b"), b"$[\"a-b\"]");
        assert_eq!(path("$", "\u{e9}".as_bytes()), "$[\"\u{e9}\"]".as_bytes());
        assert_eq!(path("$", "a\u{e9}".as_bytes()), "$[\"a\u{e9}\"]".as_bytes());
        assert_eq!(path("$", b"q\"\\"), b"$[\"q\\\"\\\\\"]");
        assert_eq!(
            path("$", b"\n\t\x00\x1f\x7f"),
            b"$[\"\\n\\t\\u0000\\u001f\x7f\"]"
        );
        // a lone surrogate is kept (json.dumps with ensure_ascii=False keeps it)
        assert_eq!(path("$", b"\xed\xa0\x80"), b"$[\"\xed\xa0\x80\"]");
    }

    /// An oracle over a toy schema language, for the machine's own steps:
    /// a schema is a name; "obj" has members "a" (an "int") and "s" (a
    /// "str") and forbids others; "list" has "str" items; "any" has none.
    struct Toy;

    impl SchemaOracle for Toy {
        type Schema = &'static str;
        type Issue = String;
        type Error = String;

        fn share(&mut self, schema: &&'static str) -> &'static str {
            schema
        }
        fn plan(
            &mut self,
            raw: &&'static str,
            _root: &&'static str,
        ) -> Result<Arc<Plan<&'static str>>, String> {
            let (streams, integers) = match *raw {
                "obj" => ("{", false),
                "list" => ("[", false),
                "str" => ("\"", false),
                "int" => ("", true),
                _ => ("{[\"", false),
            };
            Ok(Arc::new(Plan {
                schema: (*raw != "any").then_some(*raw),
                streams: streams.chars().map(u32::from).collect(),
                integers,
            }))
        }
        fn member(
            &mut self,
            schema: &&'static str,
            key: &[u8],
            _path: &[u8],
            _issues: &mut Vec<String>,
        ) -> Result<Member<&'static str>, String> {
            Ok(match (*schema, key) {
                ("obj", b"a") => Member::Raw("int"),
                ("obj", b"s") => Member::Raw("str"),
                ("obj", b"l") => Member::Raw("list"),
                ("obj", _) => Member::Drop,
                _ => Member::Untouched,
            })
        }
        fn dropped(&mut self, path: &[u8]) -> Result<String, String> {
            Ok(format!("dropped {}", String::from_utf8_lossy(path)))
        }
        fn items(&mut self, schema: &&'static str) -> Result<Option<&'static str>, String> {
            Ok((*schema == "list").then_some("str"))
        }
        fn coerce(
            &mut self,
            _root: &&'static str,
            _max_depth: usize,
            canonical: &[u8],
            raw: Option<&&'static str>,
            path: &[u8],
            _depth: usize,
            issues: &mut Vec<String>,
            out: &mut Vec<u8>,
        ) -> Result<(), String> {
            issues.push(format!(
                "coerced {} as {raw:?}",
                String::from_utf8_lossy(path)
            ));
            out.extend_from_slice(
                canonical
                    .strip_prefix(b"\"")
                    .unwrap_or(canonical)
                    .strip_suffix(b"\"")
                    .unwrap_or(canonical),
            );
            Ok(())
        }
        fn index_error(&mut self, what: &'static str) -> String {
            what.to_string()
        }
    }

    #[test]
    fn the_machine_follows_its_oracle() {
        let mut typer = Typer::new(Toy, "obj", 64);
        let ch = |c: char| u32::from(c);
        assert!(!typer.begin_value(ch('{')).unwrap());
        assert!(typer.key(b"a").unwrap());
        assert!(typer.begin_value(ch('"')).unwrap()); // (a string where an integer goes)
        let mut out = Vec::new();
        typer.finish_buffered(b"\"12\"", &mut out).unwrap();
        assert_eq!(out, b"12");
        assert!(typer.key(b"a").unwrap());
        assert!(typer.begin_value(ch('7')).unwrap());
        out.clear();
        typer.finish_buffered(b"7", &mut out).unwrap(); // (an integer literal stands)
        assert_eq!(out, b"7");
        assert!(typer.key(b"s").unwrap());
        assert!(!typer.begin_value(ch('"')).unwrap()); // (a plain string streams)
        assert!(!typer.key(b"z z").unwrap()); // (forbidden: dropped)
        assert!(typer.key(b"l").unwrap());
        assert!(!typer.begin_value(ch('[')).unwrap());
        typer.array_item().unwrap();
        assert!(!typer.begin_value(ch('"')).unwrap()); // (items: str, streams)
        typer.end_container().unwrap();
        assert_eq!(typer.state().next_path, b"$.l[0]");
        typer.end_container().unwrap();
        assert!(typer.end_container().is_err()); // (misuse: an error, no panic)
        assert_eq!(
            typer.issues(),
            ["coerced $.a as Some(\"int\")", "dropped $[\"z z\"]"]
        );
    }

    #[test]
    fn integer_literals() {
        for yes in [
            "0",
            "-0",
            "7",
            "-12",
            "1234567890123456",
            "-1234567890123456",
        ] {
            assert!(is_int_literal(yes.as_bytes()), "{yes}");
        }
        for no in [
            "",
            "-",
            "00",
            "01",
            "+1",
            "1.0",
            "1e3",
            "12345678901234567",
            "--1",
            " 1",
            "1 ",
            "\"1\"",
            "true",
        ] {
            assert!(!is_int_literal(no.as_bytes()), "{no}");
        }
    }
}
