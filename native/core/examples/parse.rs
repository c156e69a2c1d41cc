//! Parse a model's output with any bundled grammar, in Rust alone: the text
//! is fed in four-character deltas, as a model's tokens would come, and each
//! event is printed as it comes out.
//!
//! ```sh
//! cargo run -p toolparse-core --example parse -- hermes \
//!     'Sure. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
//! echo '[get_weather(city="Paris")]' | cargo run -p toolparse-core --example parse -- pythonic
//! cargo run -p toolparse-core --example parse        # the grammars bundled
//! ```

use std::io::Read;

use toolparse_core::bundled::GRAMMARS;
use toolparse_core::parser::{Event, Parser, ParserOptions};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
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
