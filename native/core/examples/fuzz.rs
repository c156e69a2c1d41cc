//! A plain fuzz loop over the Rust [`Parser`]: adversarial inputs, fed in
//! random deltas, checked against the project's invariants, until time runs
//! out. No cargo-fuzz and no dependency: a seeded xorshift, so a failure
//! replays.
//!
//! ```sh
//! cargo run --release -p toolparse-core --example fuzz -- [--seconds N] [--seed S] [--grammar NAME]
//! cargo run --release -p toolparse-core --example fuzz -- --grammar hermes --case X   # one example again
//! ```
//!
//! Each example takes the next grammar in turn (every bundled one, `auto`
//! too; `--grammar` keeps to one) and an input made of pieces: prose (ASCII
//! and not, lone `<`, `{`, `[`, quotes, backslashes, newlines, code fences),
//! the markers of that grammar and of the others (the short strings of the
//! grammar files that hold one of `<|[{`, and their prefixes), JSON
//! fragments, numbers and tool names; a few KB, sometimes tens of KB of one
//! piece. Half the time the tools are declared. The input is fed whole, then
//! in deltas of 1 to 16 characters (now and then one huge delta), and each
//! run must keep:
//!
//! - no panic, and no `Err` from `feed` or `close`;
//! - nothing lost: text, reasoning raws, call raws and error raws are the input;
//! - every `ToolCallStart` ends in exactly one `ToolCall` or `ToolCallError`,
//!   whose arguments its deltas join into;
//! - the merged events of the deltas are those of the whole input (not asked
//!   of `auto`, which picks its member from what it has seen).
//!
//! Every two seconds a growth probe times one grammar on one input shape at
//! about 20 K and 80 K characters (the least of three runs each): a ratio
//! past 8 (linear is 4, quadratic 16) is a failure. A failure prints the
//! example's seed (`--case`), grammar, the check and the input (its first
//! 2 KB). The last line sums up; the exit code is 1 if anything failed.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value as Json;
use toolparse_core::bundled::GRAMMARS;
use toolparse_core::grammar::Tables;
use toolparse_core::parser::{Event, Parser, ParserOptions};
use toolparse_core::rust_calls::RustTools;

/// The tools declared in half the examples (the golden files' kinds of
/// schema: strings, integers, arrays, nested objects).
const TOOLS: &str = r#"[
  {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}},
  {"name": "get_time", "parameters": {"type": "object", "properties": {}}},
  {"name": "write", "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}},
  {"name": "configure", "parameters": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}, "opts": {"type": "object", "properties": {"depth": {"type": "integer"}}}, "count": {"type": "integer"}, "ratio": {"type": "number"}, "on": {"type": "boolean"}}}}
]"#;

const TOOL_NAMES: &[&str] = &[
    "get_weather",
    "get_time",
    "write",
    "configure",
    "f",
    "search.web",
    "tool-name",
    "ツール",
    "",
    "a b",
];

const WORDS: &[&str] = &[
    "Sure",
    "the",
    "call",
    "weather",
    "in",
    "Paris",
    "I",
    "will",
    "now",
    "tool",
    "function",
    "answer",
    "think",
    "café",
    "naïve",
    "日本語",
    "東京",
    "Ωμέγα",
    "Привет",
    "🙂",
    "👍🏽",
    "e\u{301}",
    "\u{200b}",
    "\u{2028}",
    "\u{feff}",
    "\u{a0}",
    "مرحبا",
];

const SPECIALS: &[&str] = &[
    "<",
    ">",
    "</",
    "/>",
    "<|",
    "|>",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "\"",
    "'",
    "\\",
    "\\\"",
    "\n",
    "\n\n",
    "\r\n",
    "\t",
    " ",
    ":",
    ",",
    "=",
    "|",
    "```",
    "```json\n",
    "```python\n",
    "\n```\n",
    "<<",
    "{{",
    "[[",
    "}}",
    "]]",
    "\"\"",
    "\\u",
    "\\ud800",
    "&lt;",
    "&amp;",
    "<!--",
    "-->",
];

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-17",
    "3.14",
    "1e309",
    "-1e-400",
    "123456789012345678901234567890",
    "0x1F",
    "NaN",
    "Infinity",
    "-Infinity",
    "1_000",
    "01",
    ".5",
    "true",
    "false",
    "null",
    "None",
    "True",
];

/// xorshift64 (as `tests/invariants.rs`): deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        // (xorshift's state must not be zero; the constant spreads small seeds)
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// One of `pool`'s strings (not empty).
    fn marker<'a>(&mut self, pool: &'a [String]) -> &'a str {
        &pool[self.below(pool.len())]
    }
}

/// The seed of example `i` of a run seeded `seed` (splitmix64's finalizer:
/// neighbouring examples get unrelated streams).
fn example_seed(seed: u64, i: u64) -> u64 {
    let mut z = seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One grammar, ready to fuzz: its tables and its marker-like strings.
struct Grammar {
    name: &'static str,
    tables: Arc<Tables>,
    markers: Vec<String>,
    /// Its golden streams' inputs (`tests/golden/<name>.json`): calls well
    /// formed, which random pieces seldom make.
    golden: Vec<String>,
}

/// The inputs of the golden streams of `name` (none when it has no file).
fn golden_of(name: &str) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.json"));
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let data: Json = serde_json::from_str(&text).expect("a golden file is JSON");
    data["streams"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["input"].as_str().map(str::to_owned))
        .collect()
}

/// The short strings of a grammar file that look like markup: 2 to 40
/// characters holding one of `<|[{`, none the prefix of another (sorted, so
/// that a seed replays).
fn markers_of(data: &str) -> Vec<String> {
    fn walk(value: &Json, out: &mut BTreeSet<String>) {
        match value {
            Json::String(s) => {
                let n = s.chars().count();
                if (2..=40).contains(&n) && s.contains(['<', '|', '[', '{']) {
                    out.insert(s.clone());
                }
            }
            Json::Array(items) => items.iter().for_each(|v| walk(v, out)),
            Json::Object(map) => map.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let value: Json = serde_json::from_str(data).expect("a grammar file is JSON");
    let mut out = BTreeSet::new();
    walk(&value, &mut out);
    // (the files list each marker's prefixes too: keep the whole markers,
    // the pieces cut their own prefixes)
    let whole: Vec<String> = out
        .iter()
        .filter(|s| {
            out.range::<String, _>(*s..)
                .nth(1)
                .is_none_or(|next| !next.starts_with(s.as_str()))
        })
        .cloned()
        .collect();
    whole
}

/// What the inputs are made of: the grammar fuzzed's markers, and everyone's.
struct Pieces<'g> {
    own: &'g [String],
    all: &'g [String],
    /// The grammar's golden inputs, and every grammar's.
    own_golden: &'g [String],
    all_golden: &'g [String],
}

impl Pieces<'_> {
    /// One piece of input.
    fn piece(&self, rng: &mut Rng, out: &mut String) {
        match rng.below(23) {
            0..=3 => prose(rng, out),
            4..=5 => out.push_str(rng.pick(SPECIALS)),
            6..=8 if !self.own.is_empty() => out.push_str(rng.marker(self.own)),
            9..=10 => out.push_str(rng.marker(self.all)),
            11 => {
                // (a marker's proper prefix: what the scanner holds back)
                let pool = if rng.one_in(2) && !self.own.is_empty() {
                    self.own
                } else {
                    self.all
                };
                let marker: Vec<char> = rng.marker(pool).chars().collect();
                let cut = 1 + rng.below(marker.len().max(2) - 1);
                out.extend(&marker[..cut.min(marker.len())]);
            }
            12..=13 => json(rng, 3, out),
            14 => {
                // (JSON cut short)
                let mut text = String::new();
                json(rng, 3, &mut text);
                let chars: Vec<char> = text.chars().collect();
                out.extend(&chars[..rng.below(chars.len() + 1)]);
            }
            15 => out.push_str(rng.pick(NUMBERS)),
            16 => out.push_str(rng.pick(TOOL_NAMES)),
            17 => call_json(rng, out),
            18 => {
                // (a call as a grammar might write one: marker, name, body, marker)
                let pool = if self.own.is_empty() {
                    self.all
                } else {
                    self.own
                };
                out.push_str(rng.marker(pool));
                if rng.one_in(2) {
                    out.push_str(rng.pick(TOOL_NAMES));
                    out.push_str(rng.pick(&[">", "\n", "(", " ", "", "\">"]));
                }
                match rng.below(3) {
                    0 => call_json(rng, out),
                    1 => json(rng, 3, out),
                    _ => python_call(rng, out),
                }
                out.push_str(rng.marker(pool));
            }
            19 => python_call(rng, out),
            20 | 21 if !self.own_golden.is_empty() => out.push_str(rng.marker(self.own_golden)),
            _ => {
                // (a slice of any grammar's golden input)
                let chars: Vec<char> = rng.marker(self.all_golden).chars().collect();
                let from = rng.below(chars.len() + 1);
                let to = from + rng.below(chars.len() - from + 1);
                out.extend(&chars[from..to]);
            }
        }
    }

    /// An input of about `target` characters (more: the last piece is whole).
    fn input(&self, rng: &mut Rng, target: usize) -> String {
        let mut out = String::new();
        while out.chars().count() < target {
            self.piece(rng, &mut out);
        }
        out
    }
}

fn prose(rng: &mut Rng, out: &mut String) {
    for _ in 0..1 + rng.below(8) {
        out.push_str(rng.pick(WORDS));
        out.push_str(rng.pick(&[" ", " ", " ", ". ", ", ", "\n", "? ", ": ", ""]));
    }
}

fn json_string(rng: &mut Rng, out: &mut String) {
    out.push('"');
    for _ in 0..rng.below(5) {
        out.push_str(rng.pick(&[
            "a",
            "Paris",
            " ",
            "\\n",
            "\\\"",
            "\\\\",
            "\\u00e9",
            "\\ud83d\\ude00",
            "\\ud800",
            "é",
            "日本",
            "<",
            "{",
            "}",
            "]",
            "'",
            "\\/",
            "\\x",
        ]));
    }
    out.push('"');
}

/// A JSON value (`depth`: how far objects and arrays may nest).
fn json(rng: &mut Rng, depth: usize, out: &mut String) {
    match rng.below(if depth == 0 { 3 } else { 5 }) {
        0 => out.push_str(rng.pick(NUMBERS)),
        1 | 2 => json_string(rng, out),
        3 => {
            out.push('[');
            for i in 0..rng.below(4) {
                if i > 0 {
                    out.push_str(rng.pick(&[",", ", ", ",\n"]));
                }
                json(rng, depth - 1, out);
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            for i in 0..rng.below(4) {
                if i > 0 {
                    out.push_str(rng.pick(&[",", ", ", ",\n  "]));
                }
                out.push('"');
                out.push_str(rng.pick(&["city", "days", "tags", "opts", "depth", "x", "name", ""]));
                out.push_str(rng.pick(&["\":", "\": ", "\" : "]));
                json(rng, depth - 1, out);
            }
            out.push('}');
        }
    }
}

/// `{"name": ..., "arguments": ...}`, the JSON families' call.
fn call_json(rng: &mut Rng, out: &mut String) {
    out.push_str("{\"name\": \"");
    out.push_str(rng.pick(TOOL_NAMES));
    out.push_str(rng.pick(&[
        "\", \"arguments\": ",
        "\", \"parameters\": ",
        "\",\"arguments\":",
    ]));
    json(rng, 3, out);
    out.push('}');
}

/// `[f(x=1), g()]`, the pythonic families' calls.
fn python_call(rng: &mut Rng, out: &mut String) {
    let bracket = rng.one_in(2);
    if bracket {
        out.push('[');
    }
    out.push_str(rng.pick(TOOL_NAMES));
    out.push('(');
    for i in 0..rng.below(3) {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(rng.pick(&["city", "days", "x", "tags"]));
        out.push('=');
        match rng.below(3) {
            0 => out.push_str(rng.pick(NUMBERS)),
            1 => out.push_str(rng.pick(&["'Paris'", "\"a\\\"b\"", "[1, 2]", "{'k': None}"])),
            _ => json(rng, 1, out),
        }
    }
    out.push(')');
    if bracket {
        out.push(']');
    }
}

/// `text` cut on character boundaries into deltas of 1 to 16 characters,
/// now and then (`huge`) one of hundreds or more.
fn deltas(text: &str, rng: &mut Rng, huge: bool) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let size = if huge && rng.one_in(64) {
            100 + rng.below(chars.len())
        } else {
            1 + rng.below(16)
        };
        let end = (at + size).min(chars.len());
        pieces.push(chars[at..end].iter().collect());
        at = end;
    }
    pieces
}

fn options(tools: &Option<Arc<RustTools>>) -> ParserOptions {
    ParserOptions {
        tools: tools.clone(),
        seed: Some(7),
        ..ParserOptions::default()
    }
}

/// Every feed and close of `pieces` succeeds: the events.
fn run(
    tables: &Arc<Tables>,
    tools: &Option<Arc<RustTools>>,
    pieces: &[String],
) -> Result<Vec<Event>, String> {
    let mut parser =
        Parser::new(tables.clone(), options(tools)).map_err(|e| format!("new: {e}"))?;
    let mut events = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        events.extend(
            parser
                .feed(piece)
                .map_err(|e| format!("Err from feed #{i}: {e}"))?,
        );
    }
    events.extend(parser.close().map_err(|e| format!("Err from close: {e}"))?);
    Ok(events)
}

/// Text, reasoning raws, call raws and error raws, in order.
fn covered(events: &[Event]) -> String {
    let mut text = String::new();
    for event in events {
        match event {
            Event::Text(t) => text.push_str(t),
            Event::Reasoning { raw, .. }
            | Event::ToolCall { raw, .. }
            | Event::ToolCallError { raw, .. } => text.push_str(raw),
            Event::ToolCallStart { .. } | Event::ToolCallDelta { .. } => {}
        }
    }
    text
}

/// Each started call ends once; its deltas join into its arguments.
fn reconciled(events: &[Event]) -> Result<(), String> {
    // (each started call's deltas so far, and whether it has ended)
    let mut calls: BTreeMap<i64, (String, bool)> = BTreeMap::new();
    for event in events {
        match event {
            Event::ToolCallStart { index, .. } => {
                if calls.insert(*index, (String::new(), false)).is_some() {
                    return Err(format!("call {index} started twice"));
                }
            }
            Event::ToolCallDelta {
                index,
                arguments_delta,
                ..
            } => match calls.get_mut(index) {
                Some((deltas, false)) => deltas.push_str(arguments_delta),
                _ => return Err(format!("a delta of call {index}, not open")),
            },
            Event::ToolCall {
                index, arguments, ..
            } => match calls.get_mut(index) {
                Some((deltas, ended @ false)) => {
                    if deltas != arguments {
                        return Err(format!(
                            "call {index}'s deltas {deltas:?} are not its arguments {arguments:?}"
                        ));
                    }
                    *ended = true;
                }
                _ => return Err(format!("a ToolCall of call {index}, not open")),
            },
            Event::ToolCallError {
                index: Some(index), ..
            } => match calls.get_mut(index) {
                Some((_, ended @ false)) => *ended = true,
                _ => return Err(format!("a ToolCallError of call {index}, not open")),
            },
            Event::ToolCallError { index: None, .. } | Event::Text(_) | Event::Reasoning { .. } => {
            }
        }
    }
    match calls.iter().find(|(_, (_, ended))| !ended) {
        Some((index, _)) => Err(format!("call {index} started and never ended")),
        None => Ok(()),
    }
}

/// The events with ids left out, adjacent text, reasoning and one call's
/// argument deltas joined, empty ones dropped (`toolparse.invariants.normalize`).
fn normalized(events: &[Event]) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::new();
    for event in events {
        let mut event = event.clone();
        match &mut event {
            Event::ToolCallStart { id, .. }
            | Event::ToolCallDelta { id, .. }
            | Event::ToolCall { id, .. } => id.clear(),
            Event::ToolCallError { id, .. } => *id = None,
            Event::Text(_) | Event::Reasoning { .. } => {}
        }
        match (out.last_mut(), &event) {
            (_, Event::Text(b)) if b.is_empty() => {}
            (_, Event::Reasoning { raw, .. }) if raw.is_empty() => {}
            (
                _,
                Event::ToolCallDelta {
                    arguments_delta, ..
                },
            ) if arguments_delta.is_empty() => {}
            (Some(Event::Text(a)), Event::Text(b)) => a.push_str(b),
            (
                Some(Event::Reasoning { text: a, raw: ar }),
                Event::Reasoning { text: b, raw: br },
            ) => {
                a.push_str(b);
                ar.push_str(br);
            }
            (
                Some(Event::ToolCallDelta {
                    index: i,
                    arguments_delta: a,
                    ..
                }),
                Event::ToolCallDelta {
                    index: j,
                    arguments_delta: b,
                    ..
                },
            ) if i == j => a.push_str(b),
            _ => out.push(event),
        }
    }
    out
}

/// One run of `input` in `pieces`, checked; the events.
fn checked(
    grammar: &Grammar,
    tools: &Option<Arc<RustTools>>,
    input: &str,
    pieces: &[String],
) -> Result<Vec<Event>, String> {
    let events = run(&grammar.tables, tools, pieces)?;
    let covered = covered(&events);
    if covered != input {
        let at = covered
            .chars()
            .zip(input.chars())
            .position(|(a, b)| a != b)
            .unwrap_or(covered.chars().count().min(input.chars().count()));
        return Err(format!(
            "lost text: the events cover {} characters, the input has {}; first difference at character {at}",
            covered.chars().count(),
            input.chars().count()
        ));
    }
    reconciled(&events)?;
    Ok(events)
}

/// Every check of one example: `input` whole, then in random deltas; the
/// calls and the call errors of the whole input.
fn check(
    grammar: &Grammar,
    tools: &Option<Arc<RustTools>>,
    input: &str,
    rng: &mut Rng,
) -> Result<(u64, u64), String> {
    let whole = checked(grammar, tools, input, &[input.to_owned()])
        .map_err(|why| format!("(whole) {why}"))?;
    let pieces = deltas(input, rng, true);
    let events =
        checked(grammar, tools, input, &pieces).map_err(|why| format!("(in deltas) {why}"))?;
    if grammar.name != "auto" {
        let (got, want) = (normalized(&events), normalized(&whole));
        if got != want {
            let at = got
                .iter()
                .zip(&want)
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(want.len()));
            return Err(format!(
                "chunking changed event #{at}: {:?}, whole: {:?}",
                got.get(at),
                want.get(at)
            ));
        }
    }
    let count = |f: fn(&Event) -> bool| whole.iter().filter(|e| f(e)).count() as u64;
    Ok((
        count(|e| matches!(e, Event::ToolCall { .. })),
        count(|e| matches!(e, Event::ToolCallError { .. })),
    ))
}

/// The panic message last caught (the hook keeps it for the report).
static PANIC: Mutex<Option<String>> = Mutex::new(None);
/// Inside [`guarded`]: a panic is the engine's, reported as a failure (one
/// elsewhere is this program's own, printed as usual).
static GUARDED: AtomicBool = AtomicBool::new(false);

/// `f`, a panic in it as an `Err`.
fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    GUARDED.store(true, Ordering::Relaxed);
    let result = catch_unwind(AssertUnwindSafe(f));
    GUARDED.store(false, Ordering::Relaxed);
    result.unwrap_or_else(|_| {
        let why = PANIC.lock().map(|mut p| p.take()).unwrap_or_default();
        Err(format!("panic: {}", why.unwrap_or_default()))
    })
}

/// What a run found: counts, growth ratios, failures.
#[derive(Default)]
struct Tally {
    examples: u64,
    failures: u64,
    /// Calls and call errors the inputs held (fed whole): what was reached.
    calls: u64,
    errors: u64,
    ratios: Vec<(f64, String)>,
}

impl Tally {
    fn fail(&mut self, what: &str, why: &str, input: &str) {
        self.failures += 1;
        // (the first failures in full; a flood of one bug would hide the rest)
        if self.failures <= 20 {
            let shown: String = input.chars().take(2048).collect();
            let more = input.chars().count().saturating_sub(2048);
            println!("FAIL {what}\n  check: {why}\n  input ({more} more characters not shown): {shown:?}");
        }
    }
}

/// Seconds `feed`s of `pieces` and a close take, the least of `runs`.
fn timed(
    grammar: &Grammar,
    tools: &Option<Arc<RustTools>>,
    pieces: &[String],
    runs: usize,
) -> Result<f64, String> {
    let mut best = f64::INFINITY;
    for _ in 0..runs {
        let mut parser =
            Parser::new(grammar.tables.clone(), options(tools)).map_err(|e| format!("new: {e}"))?;
        let start = Instant::now();
        for piece in pieces {
            std::hint::black_box(
                parser
                    .feed(piece)
                    .map_err(|e| format!("Err from feed: {e}"))?,
            );
        }
        std::hint::black_box(parser.close().map_err(|e| format!("Err from close: {e}"))?);
        best = best.min(start.elapsed().as_secs_f64());
    }
    Ok(best)
}

/// Characters of the smaller input of a growth probe.
const GROWTH_N: usize = 20_000;
/// A growth ratio (4× the input) past this is superlinear.
const GROWTH_LIMIT: f64 = 8.0;

/// The growth probe: one input shape (a prefix, then one unit over and over)
/// at `GROWTH_N` and 4× that many characters; the ratio of their times.
fn growth(
    grammar: &Grammar,
    pieces: &Pieces<'_>,
    tools: &Option<Arc<RustTools>>,
    rng: &mut Rng,
) -> Result<(f64, String), String> {
    let mut prefix = String::new();
    for _ in 0..rng.below(3) {
        pieces.piece(rng, &mut prefix);
    }
    let mut unit = String::new();
    for _ in 0..1 + rng.below(3) {
        pieces.piece(rng, &mut unit);
    }
    if unit.is_empty() {
        unit.push('<');
    }
    let shaped = |n: usize| {
        let count = n / unit.chars().count().max(1) + 1;
        format!("{prefix}{}", unit.repeat(count))
    };
    let split_seed = rng.next();
    let (small, large) = (shaped(GROWTH_N), shaped(4 * GROWTH_N));
    let time = |input: &str, runs| {
        let pieces = deltas(input, &mut Rng::new(split_seed), false);
        timed(grammar, tools, &pieces, runs)
    };
    let mut ratio = time(&large, 3)? / time(&small, 3)?.max(1e-9);
    if ratio > GROWTH_LIMIT {
        // (a machine shared with other work: measure once more before
        // calling it superlinear)
        ratio = time(&large, 5)? / time(&small, 5)?.max(1e-9);
    }
    let shape: String = format!("{prefix:?} then {unit:?} repeated")
        .chars()
        .take(300)
        .collect();
    Ok((ratio, shape))
}

struct Args {
    seconds: f64,
    seed: u64,
    grammar: Option<String>,
    case: Option<u64>,
}

fn args() -> Args {
    let mut args = Args {
        seconds: 60.0,
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_secs()),
        grammar: None,
        case: None,
    };
    let mut it = std::env::args().skip(1);
    let usage = || -> ! {
        eprintln!("usage: fuzz [--seconds N] [--seed S] [--grammar NAME] [--case X]");
        std::process::exit(2);
    };
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_else(|| usage());
        match flag.as_str() {
            "--seconds" => args.seconds = value.parse().unwrap_or_else(|_| usage()),
            "--seed" => args.seed = value.parse().unwrap_or_else(|_| usage()),
            "--grammar" => args.grammar = Some(value),
            "--case" => args.case = Some(value.parse().unwrap_or_else(|_| usage())),
            _ => usage(),
        }
    }
    args
}

fn main() {
    let args = args();
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !GUARDED.load(Ordering::Relaxed) {
            default_hook(info);
        } else if let Ok(mut last) = PANIC.lock() {
            *last = Some(info.to_string());
        }
    }));
    let grammars: Vec<Grammar> = GRAMMARS
        .iter()
        .filter(|(name, _)| args.grammar.as_deref().is_none_or(|g| g == *name))
        .map(|(name, data)| Grammar {
            name,
            tables: Arc::new(Tables::from_json(data).expect("a bundled grammar's tables")),
            markers: markers_of(data),
            golden: golden_of(name),
        })
        .collect();
    if grammars.is_empty() {
        eprintln!("no grammar named {:?}", args.grammar.unwrap_or_default());
        std::process::exit(2);
    }
    // (every grammar's markers, whichever is fuzzed)
    let all: Vec<String> = GRAMMARS
        .iter()
        .flat_map(|(_, data)| markers_of(data))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let all_golden: Vec<String> = GRAMMARS
        .iter()
        .flat_map(|(name, _)| golden_of(name))
        .collect();
    let tools = Arc::new(RustTools::from_json(TOOLS).expect("the fuzz tools"));
    println!(
        "fuzz: seed {}, {} grammar(s), {} marker-like strings, {} golden inputs, {} s",
        args.seed,
        grammars.len(),
        all.len(),
        all_golden.len(),
        args.seconds
    );

    let mut tally = Tally::default();
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(args.seconds);
    let mut next_probe = start + Duration::from_secs(1);
    let mut seen: HashMap<&str, u64> = HashMap::new();
    let mut i: u64 = 0;
    loop {
        let seed = args.case.unwrap_or_else(|| example_seed(args.seed, i));
        let grammar = &grammars[(i % grammars.len() as u64) as usize];
        let pieces = Pieces {
            own: &grammar.markers,
            all: &all,
            own_golden: &grammar.golden,
            all_golden: &all_golden,
        };
        let mut rng = Rng::new(seed);
        let tools = rng.one_in(2).then(|| tools.clone());
        let probe = args.case.is_none() && Instant::now() >= next_probe;
        if probe {
            next_probe = Instant::now() + Duration::from_secs(2);
            match guarded(|| growth(grammar, &pieces, &tools, &mut rng)) {
                Ok((ratio, shape)) => {
                    if ratio > GROWTH_LIMIT {
                        tally.fail(
                            &format!("growth: seed {} example {i} grammar {}", seed, grammar.name),
                            &format!("time ratio {ratio:.1} for 4x the input"),
                            &shape,
                        );
                    }
                    tally
                        .ratios
                        .push((ratio, format!("{} {shape}", grammar.name)));
                }
                Err(why) => tally.fail(
                    &format!("growth: seed {seed} example {i} grammar {}", grammar.name),
                    &why,
                    "(the growth probe's input)",
                ),
            }
        } else {
            let input = if rng.one_in(20) {
                // (a long run of one piece: how the held text grows)
                let mut piece = String::new();
                pieces.piece(&mut rng, &mut piece);
                let count = (10_000 + rng.below(50_000)) / piece.chars().count().max(1);
                piece.repeat(count)
            } else {
                let target = match rng.below(4) {
                    0 => rng.below(64),
                    1 | 2 => rng.below(512),
                    _ => rng.below(4096),
                };
                pieces.input(&mut rng, target)
            };
            match guarded(|| check(grammar, &tools, &input, &mut rng)) {
                Ok((calls, errors)) => {
                    tally.calls += calls;
                    tally.errors += errors;
                }
                Err(why) => tally.fail(
                    &format!(
                        "seed {} example {i} (--case {seed} --grammar {}){}",
                        args.seed,
                        grammar.name,
                        if tools.is_some() { ", tools" } else { "" }
                    ),
                    &why,
                    &input,
                ),
            }
            tally.examples += 1;
            *seen.entry(grammar.name).or_default() += 1;
        }
        i += 1;
        if args.case.is_some() || Instant::now() >= deadline {
            break;
        }
    }

    let ratios = tally.ratios.iter().map(|(r, _)| *r);
    let min = ratios.clone().fold(f64::INFINITY, f64::min);
    let max = ratios.fold(0.0, f64::max);
    let worst = tally
        .ratios
        .iter()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(String::new(), |(_, what)| {
            format!(" (max: {})", what.chars().take(80).collect::<String>())
        });
    println!(
        "fuzz summary: {} examples, {} grammars, {:.1} s, {} calls and {} call errors, growth ratios ({} probes) min {:.2} max {:.2}{worst}, {} failures",
        tally.examples,
        seen.len(),
        start.elapsed().as_secs_f64(),
        tally.calls,
        tally.errors,
        tally.ratios.len(),
        if tally.ratios.is_empty() { 0.0 } else { min },
        max,
        tally.failures
    );
    if tally.failures > 0 {
        std::process::exit(1);
    }
}
