//! The project's invariants (`toolparse.invariants`) checked on the Rust
//! [`Parser`], over every golden stream's input and adversarial inputs made
//! from them: a stream of another grammar spliced into the middle of each
//! stream, and each stream repeated twice. Each input is fed whole and in
//! several random splittings (deltas of 1 to 12 characters, from a fixed-seed
//! xorshift64, so a failure replays), and each run must keep:
//!
//! - (a) nothing lost: text, reasoning raws, call raws and error raws, in
//!   order, are the input;
//! - (b) chunking does not matter: the merged events equal those of the
//!   whole input fed at once (ids left out);
//! - (c) every started call ends in exactly one `ToolCall` or
//!   `ToolCallError` of its index (and nothing of an index not started, or
//!   already ended, comes out);
//! - (d) a call's argument deltas join into its final `arguments`;
//! - (e) no `feed` or `close` returns an error.
//!
//! Every input is read by `grammar="auto"` too, with (a), (c), (d) and (e):
//! auto decides its member from what it has seen, so (b) is not asked of it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::Value as Json;
use toolparse_core::grammar::Tables;
use toolparse_core::parser::{grammar_data, Event, Parser, ParserOptions};
use toolparse_core::rust_calls::RustTools;

/// Random splittings per input, by kind of input (the golden streams are
/// small; the adversarial ones twice their size or more).
const SPLITS_GOLDEN: u64 = 4;
const SPLITS_ADVERSARIAL: u64 = 2;
/// Which inputs auto reads, one random splitting each: every `n`th golden
/// and adversarial one. (A parser of auto builds every member's runtime,
/// about 25 ms in a debug build: every input would take minutes; the strides
/// keep the whole test near 20 s on a shared two-core machine.)
const AUTO_STRIDE_GOLDEN: usize = 2;
const AUTO_STRIDE_ADVERSARIAL: usize = 8;

/// xorshift64: deterministic, no dependency.
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

    /// A number in `1..=max`.
    fn size(&mut self, max: u64) -> usize {
        (self.next() % max + 1) as usize
    }
}

/// `text` cut on character boundaries into deltas of 1 to 12 characters.
fn splitting(text: &str, seed: u64) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut rng = Rng::new(seed);
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let end = (at + rng.size(12)).min(chars.len());
        pieces.push(chars[at..end].iter().collect());
        at = end;
    }
    pieces
}

/// One input to check, and where it came from (for a failure's message).
struct Case {
    label: String,
    grammar: String,
    tools: Option<Arc<RustTools>>,
    input: String,
}

/// Each golden file's grammar, tools and stream inputs, in name order.
fn golden() -> Vec<(String, Option<Arc<RustTools>>, Vec<String>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("the golden streams")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let data: Json =
                serde_json::from_str(&std::fs::read_to_string(path).expect("a golden file"))
                    .expect("JSON");
            let grammar = data["grammar"].as_str().expect("a grammar name").to_owned();
            let tools = match &data["tools"] {
                Json::Null => None,
                tools => Some(Arc::new(
                    RustTools::from_json(&tools.to_string()).expect("the recording's tools"),
                )),
            };
            let inputs = data["streams"]
                .as_array()
                .expect("streams")
                .iter()
                .map(|s| s["input"].as_str().expect("an input").to_owned())
                .collect();
            (grammar, tools, inputs)
        })
        .collect()
}

/// `inner` put into `outer` at its middle character.
fn spliced(outer: &str, inner: &str) -> String {
    let middle = outer
        .char_indices()
        .nth(outer.chars().count() / 2)
        .map_or(outer.len(), |(i, _)| i);
    format!("{}{inner}{}", &outer[..middle], &outer[middle..])
}

/// The golden inputs (first) and the adversarial ones: each stream with a
/// stream of another grammar (the next files', in turn) spliced into its
/// middle, and each stream twice over.
fn cases() -> (Vec<Case>, Vec<Case>) {
    let files = golden();
    let mut plain = Vec::new();
    let mut adversarial = Vec::new();
    for (g, (grammar, tools, inputs)) in files.iter().enumerate() {
        for (s, input) in inputs.iter().enumerate() {
            let case = |label: String, input: String| Case {
                label,
                grammar: grammar.clone(),
                tools: tools.clone(),
                input,
            };
            plain.push(case(format!("{grammar}[{s}]"), input.clone()));
            // (another grammar each stream, walking the files from the next one)
            let (donor, _, theirs) = &files[(g + 1 + s) % files.len()];
            if donor != grammar && !theirs.is_empty() {
                let k = s % theirs.len();
                adversarial.push(case(
                    format!("{grammar}[{s}] with {donor}[{k}] inside"),
                    spliced(input, &theirs[k]),
                ));
            }
            adversarial.push(case(format!("{grammar}[{s}] twice"), input.repeat(2)));
        }
    }
    (plain, adversarial)
}

/// The bundled grammar `name`'s tables, read once (auto's data is large:
/// reading it for every run would take most of the test's time).
fn tables(name: &str) -> Arc<Tables> {
    static READ: OnceLock<Mutex<HashMap<String, Arc<Tables>>>> = OnceLock::new();
    let mut read = READ
        .get_or_init(Default::default)
        .lock()
        .expect("not poisoned");
    read.entry(name.to_owned())
        .or_insert_with(|| {
            let data = grammar_data(name).expect("a bundled grammar");
            Arc::new(Tables::from_json(data).expect("its tables"))
        })
        .clone()
}

/// (e): every feed and close of `pieces` succeeds; the events.
fn run(
    grammar: &str,
    tools: &Option<Arc<RustTools>>,
    pieces: &[String],
) -> Result<Vec<Event>, String> {
    let options = ParserOptions {
        tools: tools.clone(),
        seed: Some(7),
        ..ParserOptions::default()
    };
    let mut parser = Parser::new(tables(grammar), options).map_err(|e| format!("(e) new: {e}"))?;
    let mut events = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        events.extend(
            parser
                .feed(piece)
                .map_err(|e| format!("(e) feed #{i}: {e}"))?,
        );
    }
    events.extend(parser.close().map_err(|e| format!("(e) close: {e}"))?);
    Ok(events)
}

/// (a): text, reasoning raws, call raws and error raws, in order.
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

/// (c) and (d) (`toolparse.invariants.check_reconciliation`).
fn reconciled(events: &[Event]) -> Result<(), String> {
    use std::collections::BTreeMap;
    // (each started call's deltas so far, and whether it has ended)
    let mut calls: BTreeMap<i64, (String, bool)> = BTreeMap::new();
    for event in events {
        match event {
            Event::ToolCallStart { index, .. } => {
                if calls.insert(*index, (String::new(), false)).is_some() {
                    return Err(format!("(c) call {index} started twice"));
                }
            }
            Event::ToolCallDelta {
                index,
                arguments_delta,
                ..
            } => match calls.get_mut(index) {
                Some((deltas, false)) => deltas.push_str(arguments_delta),
                _ => return Err(format!("(c) a delta of call {index}, not open")),
            },
            Event::ToolCall {
                index, arguments, ..
            } => match calls.get_mut(index) {
                Some((deltas, ended @ false)) => {
                    if deltas != arguments {
                        return Err(format!(
                            "(d) call {index}'s deltas {deltas:?} are not its arguments {arguments:?}"
                        ));
                    }
                    *ended = true;
                }
                _ => return Err(format!("(c) a ToolCall of call {index}, not open")),
            },
            Event::ToolCallError {
                index: Some(index), ..
            } => match calls.get_mut(index) {
                Some((_, ended @ false)) => *ended = true,
                _ => return Err(format!("(c) a ToolCallError of call {index}, not open")),
            },
            Event::ToolCallError { index: None, .. } | Event::Text(_) | Event::Reasoning { .. } => {
            }
        }
    }
    match calls.iter().find(|(_, (_, ended))| !ended) {
        Some((index, _)) => Err(format!("(c) call {index} started and never ended")),
        None => Ok(()),
    }
}

/// The events with ids left out, adjacent text, reasoning and argument
/// deltas of one call joined, empty ones dropped
/// (`toolparse.invariants.normalize`).
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

/// One run of `case` in `pieces` under `grammar`, checked; the events.
/// `whole`: the normalized events of the whole input, for (b).
fn checked(
    case: &Case,
    grammar: &str,
    pieces: &[String],
    whole: Option<&[Event]>,
) -> Result<Vec<Event>, String> {
    let events = run(grammar, &case.tools, pieces)?;
    if covered(&events) != case.input {
        return Err(format!("(a) the events cover {:?}", covered(&events)));
    }
    reconciled(&events)?;
    if let Some(whole) = whole {
        let got = normalized(&events);
        if got != whole {
            let at = got
                .iter()
                .zip(whole)
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(whole.len()));
            return Err(format!(
                "(b) chunking changed event #{at}: {:?}, whole: {:?}",
                got.get(at),
                whole.get(at)
            ));
        }
    }
    Ok(events)
}

/// Every check of `case` under `grammar`, whole and in `splits` random
/// splittings (`chunking`: (b) asked too; else the whole input is not run
/// on its own); the failures.
fn check_case(case: &Case, grammar: &str, splits: u64, chunking: bool, seed: u64) -> Vec<String> {
    let fail = |pieces: &[String], why: String| {
        format!(
            "{} as {grammar}: {why}\n  input  {:?}\n  deltas {:?}",
            case.label, case.input, pieces
        )
    };
    let whole_pieces = vec![case.input.clone()];
    let whole = match chunking.then(|| checked(case, grammar, &whole_pieces, None)) {
        None => Vec::new(),
        Some(Ok(events)) => normalized(&events),
        Some(Err(why)) => return vec![fail(&whole_pieces, why)],
    };
    let mut failures = Vec::new();
    for k in 0..splits {
        let pieces = splitting(&case.input, seed.wrapping_mul(1000).wrapping_add(k));
        let expected = chunking.then_some(whole.as_slice());
        if let Err(why) = checked(case, grammar, &pieces, expected) {
            failures.push(fail(&pieces, why));
        }
    }
    failures
}

#[test]
fn the_invariants_hold_in_any_chunking() {
    let (plain, adversarial) = cases();
    assert!(plain.len() > 300, "only {} golden streams", plain.len());
    let mut failures = Vec::new();
    let mut runs = 0;
    for (seed, case) in plain.iter().enumerate() {
        failures.extend(check_case(
            case,
            &case.grammar,
            SPLITS_GOLDEN,
            true,
            seed as u64,
        ));
        runs += 1 + SPLITS_GOLDEN;
    }
    for (seed, case) in adversarial.iter().enumerate() {
        let seed = (plain.len() + seed) as u64;
        failures.extend(check_case(
            case,
            &case.grammar,
            SPLITS_ADVERSARIAL,
            true,
            seed,
        ));
        runs += 1 + SPLITS_ADVERSARIAL;
    }
    let for_auto = (plain.iter().step_by(AUTO_STRIDE_GOLDEN))
        .chain(adversarial.iter().step_by(AUTO_STRIDE_ADVERSARIAL));
    for (seed, case) in for_auto.enumerate() {
        failures.extend(check_case(case, "auto", 1, false, (10_000 + seed) as u64));
        runs += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs break an invariant:\n{}",
        failures.len(),
        failures[..failures.len().min(6)].join("\n")
    );
}

#[test]
fn the_checks_catch_a_broken_stream() {
    // (the checks themselves can fail: a lost character, a call left open,
    // deltas that miss a piece, and events that differ)
    let call = |index| Event::ToolCallStart {
        index,
        id: "a".into(),
        name: "f".into(),
    };
    assert_ne!(covered(&[Event::Text("ab".into())]), "abc");
    assert!(reconciled(&[call(0)]).is_err());
    let delta = Event::ToolCallDelta {
        index: 0,
        id: "a".into(),
        arguments_delta: "{\"x\":".into(),
    };
    let done = Event::ToolCall {
        index: 0,
        id: "a".into(),
        name: "f".into(),
        arguments: "{\"x\":1}".into(),
        raw: String::new(),
        issues: Vec::new(),
    };
    assert!(reconciled(&[call(0), delta.clone(), done.clone()]).is_err());
    assert!(reconciled(&[call(0), done.clone(), done.clone()]).is_err());
    assert_ne!(
        normalized(&[Event::Text("a".into()), Event::Text("b".into())]),
        normalized(&[Event::Text("ab".into()), Event::Text("c".into())])
    );
    // (ids are left out; adjacent text joins)
    assert_eq!(
        normalized(&[Event::Text("a".into()), Event::Text("b".into()), call(1)]),
        normalized(&[
            Event::Text("ab".into()),
            Event::Text(String::new()),
            Event::ToolCallStart {
                index: 1,
                id: "other".into(),
                name: "f".into()
            }
        ])
    );
}
