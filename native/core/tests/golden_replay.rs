//! The golden streams (`tests/golden/*.json`, recorded from the Python
//! reference by `tools/golden.py`), replayed on the Rust [`Parser`]: whole,
//! in seven- and three-character deltas and one character at a time, each run's events
//! merged (adjacent text, reasoning and argument deltas joined, as the
//! recording merged them) must equal the recording's. Ids are left out (the
//! recording's are random).

use std::sync::Arc;

use serde_json::{json, Value as Json};
use toolparse_core::parser::{Event, Parser, ParserOptions};
use toolparse_core::rust_calls::RustTools;

fn golden_files() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("the golden streams")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    paths.sort();
    paths
}

/// An event as the recording writes it (`Event.to_dict()`, no id).
fn recorded(event: &Event) -> Json {
    match event {
        Event::Text(text) => json!({"type": "text", "text": text}),
        Event::Reasoning { text, raw } => json!({"type": "reasoning", "text": text, "raw": raw}),
        Event::ToolCallStart { index, name, .. } => {
            json!({"type": "tool_call_start", "index": index, "name": name})
        }
        Event::ToolCallDelta {
            index,
            arguments_delta,
            ..
        } => json!({"type": "tool_call_delta", "index": index, "arguments_delta": arguments_delta}),
        Event::ToolCall {
            index,
            name,
            arguments,
            raw,
            issues,
            ..
        } => json!({
            "type": "tool_call",
            "index": index,
            "name": name,
            "arguments": serde_json::from_str::<Json>(arguments).expect("arguments are JSON"),
            "raw": raw,
            "issues": issues,
            "validation_error": null,
        }),
        Event::ToolCallError {
            reason,
            message,
            raw,
            offset,
            name,
            index,
            arguments,
            ..
        } => json!({
            "type": "tool_call_error",
            "reason": reason.value(),
            "message": message,
            "raw": raw,
            "offset": offset,
            "name": name,
            "index": index,
            "arguments": arguments
                .as_ref()
                .map(|a| serde_json::from_str::<Json>(a).expect("arguments are JSON")),
        }),
    }
}

/// Adjacent text, reasoning and argument deltas of one call joined
/// (`toolparse.invariants.normalize`).
fn merged(events: &[Event]) -> Vec<Json> {
    let mut out: Vec<Event> = Vec::new();
    for event in events {
        match (out.last_mut(), event) {
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
            _ => out.push(event.clone()),
        }
    }
    out.iter()
        .filter(|e| !matches!(e, Event::Text(t) if t.is_empty()))
        .map(recorded)
        .collect()
}

fn run(grammar: &str, tools: &Option<Arc<RustTools>>, pieces: &[String]) -> Vec<Event> {
    let options = ParserOptions {
        tools: tools.clone(),
        ..ParserOptions::default()
    };
    let mut parser = Parser::named(grammar, options).expect("a bundled grammar");
    let mut events = Vec::new();
    for piece in pieces {
        events.extend(parser.feed(piece).expect("a feed"));
    }
    events.extend(parser.close().expect("a close"));
    events
}

fn chunks(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

#[test]
fn every_golden_stream_replays_in_any_chunking() {
    let mut failures = Vec::new();
    let mut streams = 0;
    for path in golden_files() {
        let data: Json =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("a golden file"))
                .expect("JSON");
        let grammar = data["grammar"].as_str().expect("a grammar name");
        let tools = match &data["tools"] {
            Json::Null => None,
            tools => Some(Arc::new(
                RustTools::from_json(&tools.to_string()).expect("the recording's tools"),
            )),
        };
        for stream in data["streams"].as_array().expect("streams") {
            streams += 1;
            let input = stream["input"].as_str().expect("an input");
            let expected = stream["events"].as_array().expect("events").clone();
            for (how, pieces) in [
                ("whole", vec![input.to_owned()]),
                ("by seven", chunks(input, 7)),
                ("by three", chunks(input, 3)),
                ("by one", chunks(input, 1)),
            ] {
                let got = merged(&run(grammar, &tools, &pieces));
                if got != expected {
                    failures.push(format!(
                        "{grammar} ({how}) {input:?}:\n  got      {}\n  expected {}",
                        Json::Array(got),
                        Json::Array(expected.clone())
                    ));
                }
            }
        }
    }
    assert!(streams > 300, "only {streams} golden streams");
    assert!(
        failures.is_empty(),
        "{} of {} replays differ:\n{}",
        failures.len(),
        streams * 4,
        failures[..failures.len().min(8)].join("\n")
    );
}
