//! Parse a model's output with any bundled grammar, in Rust alone: the text
//! is fed in four-character deltas, as a model's tokens would come, and each
//! event is printed as it comes out.
//!
//! ```sh
//! cargo run -p toolparse-core --example parse -- hermes \
//!     'Sure. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
//! echo '[get_weather(city="Paris")]' | cargo run -p toolparse-core --example parse -- pythonic
//! cargo run -p toolparse-core --example parse        # the grammars bundled
//! cargo run -p toolparse-core --example parse -- --all
//! ```
//!
//! `--all` parses a stream of every bundled grammar: each grammar's own
//! example, as the golden streams recorded it (`tests/golden/`), and says
//! what came of it.

use std::io::Read;

use toolparse_core::bundled::GRAMMARS;
use toolparse_core::parser::{Event, Parser, ParserOptions};
use toolparse_core::rust_calls::RustTools;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--all") {
        every_grammar();
        return;
    }
    let Some(grammar) = args.first() else {
        let names: Vec<&str> = GRAMMARS.iter().map(|(name, _)| *name).collect();
        println!("usage: parse GRAMMAR [TEXT]  (TEXT from stdin when not given)");
        println!("grammars: {}", names.join(", "));
        return;
    };
    let text = match args.get(1) {
        Some(text) => text.clone(),
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .expect("the text on stdin");
            text
        }
    };
    let mut parser = match Parser::named(grammar, ParserOptions::default()) {
        Ok(parser) => parser,
        Err(err) => {
            eprintln!("{err}");
            std::process::exit(2);
        }
    };
    let chars: Vec<char> = text.chars().collect();
    for delta in chars.chunks(4) {
        let delta: String = delta.iter().collect();
        for event in parser.feed(&delta).expect("a feed") {
            show(&event);
        }
    }
    for event in parser.close().expect("the close") {
        show(&event);
    }
}

/// A stream of each bundled grammar (its first golden stream), in
/// four-character deltas: the calls and errors each gave.
fn every_grammar() {
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    for (name, _) in GRAMMARS {
        // (auto has no recording of its own: it reads hermes's)
        let recorded = if *name == "auto" { "hermes" } else { name };
        let Ok(text) = std::fs::read_to_string(golden.join(format!("{recorded}.json"))) else {
            println!("{name:16} (no golden stream)");
            continue;
        };
        let data: serde_json::Value = serde_json::from_str(&text).expect("a golden file");
        let input = data["streams"][0]["input"].as_str().expect("an input");
        // (the tools the recording declared: xml's tags are their names)
        let tools = match &data["tools"] {
            serde_json::Value::Null => None,
            tools => Some(std::sync::Arc::new(
                RustTools::from_json(&tools.to_string()).expect("the recording's tools"),
            )),
        };
        let options = ParserOptions {
            tools,
            ..ParserOptions::default()
        };
        let mut parser = Parser::named(name, options).expect("a bundled grammar");
        let chars: Vec<char> = input.chars().collect();
        let mut events = Vec::new();
        for delta in chars.chunks(4) {
            events.extend(
                parser
                    .feed(&delta.iter().collect::<String>())
                    .expect("a feed"),
            );
        }
        events.extend(parser.close().expect("the close"));
        let calls: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                Event::ToolCall {
                    name, arguments, ..
                } => Some(format!("{name}({arguments})")),
                _ => None,
            })
            .collect();
        let errors = events
            .iter()
            .filter(|e| matches!(e, Event::ToolCallError { .. }))
            .count();
        println!(
            "{name:16} {} calls, {errors} errors: {}",
            calls.len(),
            calls.join(" ")
        );
    }
}

fn show(event: &Event) {
    match event {
        Event::Text(text) => println!("text       {text:?}"),
        Event::Reasoning { text, .. } => println!("reasoning  {text:?}"),
        Event::ToolCallStart { index, name, .. } => println!("call {index} starts: {name}"),
        Event::ToolCallDelta {
            index,
            arguments_delta,
            ..
        } => println!("call {index} delta: {arguments_delta}"),
        Event::ToolCall {
            index,
            name,
            arguments,
            issues,
            ..
        } => {
            println!("call {index}: {name}({arguments})");
            for issue in issues {
                println!("    {issue}");
            }
        }
        Event::ToolCallError {
            reason,
            message,
            raw,
            ..
        } => println!("error {}: {message} in {raw:?}", reason.value()),
    }
}
