//! The Rust [`Parser`]'s time per delta, in 4-character deltas, on the
//! scenarios of `toolparse bench` (`src/toolparse/benchmark.py`): 20 KB of
//! prose, one call with a 100 KB code-like string argument, and fifty small
//! calls (hermes and qwen3-coder). Each iteration is a whole stream (parser
//! built, every delta fed, closed); criterion's throughput is in deltas.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::json;
use std::sync::Arc;

use toolparse_core::grammar::Tables;
use toolparse_core::parser::{grammar_data, Event, Parser, ParserOptions};

/// `benchmark.PROSE`.
const PROSE: &str =
    "The forecast for the coastal towns calls for light rain in the morning, clearing by noon; \
inland, temperatures climb to the high twenties. Pack layers, and check the tide tables \
before walking the cliff path: at 3 < 4 metres the lower trail floods. ";

/// `benchmark.prose`: `size` characters of prose.
fn prose(size: usize) -> String {
    PROSE.chars().cycle().take(size).collect()
}

/// `benchmark.code_like`: source code as an agent writes it into an
/// argument (quotes, backslashes, tabs, non-ASCII, `<` and a `<tag>`).
fn code_like(size: usize) -> String {
    let mut text = String::new();
    let mut k = 0;
    while text.chars().count() < size {
        text.push_str(&format!(
            "def f{k}(x):\n    s = \"value {}: \\\"quoted\\\" \\\\ back\"\n    return {{'k{}': [x, {}, None, True]}}\n\t# comment {} \u{2013} \u{fc}n\u{ef}c\u{f6}d\u{e9} \u{2713}\n    if x < {} and x > 0: print(\"<tag>\")\n",
            k + 1, k + 2, k + 2, k + 3, k + 4
        ));
        k += 5;
    }
    text.chars().take(size).collect()
}

/// A call as `grammar`'s prompt writes it (hermes' JSON, qwen3-coder's XML).
fn call(grammar: &str, name: &str, arguments: &[(&str, serde_json::Value)]) -> String {
    match grammar {
        "hermes" => {
            let args: serde_json::Map<_, _> = arguments
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect();
            format!(
                "<tool_call>\n{}\n</tool_call>",
                json!({"name": name, "arguments": args})
            )
        }
        "qwen3-coder" => {
            let params: String = arguments
                .iter()
                .map(|(k, v)| {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
                    format!("<parameter={k}>\n{v}\n</parameter>\n")
                })
                .collect();
            format!("<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>")
        }
        _ => unreachable!("a grammar of these benches"),
    }
}

/// `benchmark.long_argument`.
fn long_argument(grammar: &str, size: usize) -> String {
    let content = json!(code_like(size));
    "I'll write the file now.\n".to_owned()
        + &call(
            grammar,
            "write_file",
            &[("path", json!("a.py")), ("content", content)],
        )
}

/// `benchmark.fifty_calls`.
fn fifty_calls(grammar: &str) -> String {
    (0..50)
        .map(|k| {
            call(
                grammar,
                "get_weather",
                &[("city", json!(format!("City {k}"))), ("days", json!(k % 7))],
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` in deltas of 4 characters.
fn deltas(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(4).map(|c| c.iter().collect()).collect()
}

/// One stream: a parser of `tables` fed every delta, then closed. (The
/// grammar's JSON is read once, outside: a server reads it once too; the
/// parser's own start is timed.)
fn parse(tables: &Arc<Tables>, deltas: &[String]) -> usize {
    let mut parser = Parser::new(tables.clone(), ParserOptions::default()).expect("a grammar");
    let mut events = 0;
    for delta in deltas {
        events += parser.feed(delta).expect("a feed").len();
    }
    events + parser.close().expect("a close").len()
}

/// The calls read from `deltas`.
fn calls(tables: &Arc<Tables>, deltas: &[String]) -> usize {
    let mut parser = Parser::new(tables.clone(), ParserOptions::default()).expect("a grammar");
    let mut events = Vec::new();
    for delta in deltas {
        events.extend(parser.feed(delta).expect("a feed"));
    }
    events.extend(parser.close().expect("a close"));
    events
        .iter()
        .filter(|e| matches!(e, Event::ToolCall { .. }))
        .count()
}

fn scenarios(c: &mut Criterion) {
    let streams = [
        ("hermes", "prose 20 KB", prose(20_000)),
        (
            "hermes",
            "long argument 100 KB",
            long_argument("hermes", 100_000),
        ),
        ("hermes", "fifty calls", fifty_calls("hermes")),
        ("qwen3-coder", "fifty calls", fifty_calls("qwen3-coder")),
    ];
    let mut group = c.benchmark_group("parser");
    for (grammar, scenario, text) in &streams {
        let deltas = deltas(text);
        let data = grammar_data(grammar).expect("a bundled grammar");
        let tables = Arc::new(Tables::from_json(data).expect("its tables"));
        // (the scenario is what it says: its calls read as calls)
        let calls = calls(&tables, &deltas);
        assert_eq!(
            calls,
            if scenario.contains("fifty") {
                50
            } else if scenario.contains("argument") {
                1
            } else {
                0
            },
            "{grammar}/{scenario}"
        );
        group.throughput(Throughput::Elements(deltas.len() as u64));
        group.bench_function(format!("{grammar}/{scenario}"), |b| {
            b.iter(|| parse(&tables, &deltas))
        });
    }
    group.finish();
}

criterion_group!(benches, scenarios);
criterion_main!(benches);
