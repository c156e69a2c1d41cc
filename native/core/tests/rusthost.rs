//! The core's pure-Rust host against the Python reference's answers
//! (`tests/rusthost/*.json`, recorded by `python native/core/tools/rusthost.py`;
//! `tests/test_core_rusthost.py` fails while they are stale): seeded call
//! ids, the inline coercer (`Typer<RustOracle>`) under the streaming JSON
//! reader, and calls built with `RustCalls`. No Python runs here.

use std::path::Path;

use serde_json::Value as Json;
use toolparse_core::coercion::oracle::{RustOracle, RustTyper};
use toolparse_core::coercion::value::{loads, Loads};
use toolparse_core::coercion::{Issue, Value};
use toolparse_core::ids::{id_str, SeededIds};
use toolparse_core::json::{JsonRewriter, ReadError, Unrouted};
use toolparse_core::printable::is_printable;
use toolparse_core::wide;

fn golden(name: &str) -> Json {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/rusthost")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let data: Json = serde_json::from_str(&text).unwrap();
    assert_eq!(
        data["format"], 1,
        "{name}: a format this test does not read"
    );
    data
}

fn text(value: &Json) -> &str {
    value.as_str().expect("a string")
}

fn units(text: &str) -> Vec<u32> {
    text.chars().map(u32::from).collect()
}

/// `json.loads(text)` as coercion's value.
fn value(text: &str) -> Value {
    loads(&units(text), Loads { constants: true }).expect("JSON")
}

fn issues_json(issues: &[Issue]) -> Vec<Vec<String>> {
    issues
        .iter()
        .map(|i| {
            [&i.path, &i.expected, &i.got, &i.action]
                .iter()
                .map(|t| wide::lossy(t))
                .collect()
        })
        .collect()
}

fn expected_issues(value: &Json) -> Vec<Vec<String>> {
    serde_json::from_value(value.clone()).expect("issues")
}

/// The 32-bit words of the magnitude of the decimal integer `seed`, least
/// significant first.
fn words_of(seed: &str) -> Vec<u32> {
    let digits = seed.trim_start_matches('-');
    let mut words: Vec<u32> = Vec::new();
    for d in digits.bytes() {
        let mut carry = u64::from(d - b'0');
        for w in &mut words {
            let x = u64::from(*w) * 10 + carry;
            *w = x as u32;
            carry = x >> 32;
        }
        if carry > 0 {
            words.push(carry as u32);
        }
    }
    words
}

#[test]
fn seeded_ids_are_pythons() {
    let data = golden("ids.json");
    let seeds = data["seeds"].as_array().unwrap();
    assert!(seeds.len() >= 6);
    for case in seeds {
        let seed = text(&case["seed"]);
        let mut ids = SeededIds::from_words(&words_of(seed));
        for expected in case["ids"].as_array().unwrap() {
            assert_eq!(id_str(&ids.next_id()), text(expected), "seed {seed}");
        }
        if let Ok(small) = seed.parse::<i128>() {
            let mut again = SeededIds::new(small);
            assert_eq!(id_str(&again.next_id()), text(&case["ids"][0]));
        }
    }
}

/// One read of `input` by a reader with a fresh typer, fed in pieces of
/// `size` characters (0: whole): the text written, the issues, and the
/// error's message or whether the value is whole.
fn typer_read(
    oracle: &RustOracle,
    schema: &Value,
    max_depth: usize,
    input: &str,
    size: usize,
) -> (String, Vec<Vec<String>>, Result<bool, String>) {
    let typer: RustTyper = oracle.typer(schema.clone(), max_depth);
    let mut reader = JsonRewriter::new(max_depth, Some(typer), false, 1);
    let chars = units(input);
    let size = if size == 0 { chars.len().max(1) } else { size };
    let mut ended = Ok(false);
    let mut at = 0;
    for piece in chars.chunks(size) {
        match reader.feed(piece, 0, &mut Unrouted) {
            Ok(_) => {}
            Err(ReadError::Syntax(e)) => {
                ended = Err(e.message(is_printable));
                break;
            }
            Err(ReadError::Other(e)) => panic!("{input}: {e}"),
        }
        at += piece.len();
    }
    if ended.is_ok() {
        ended = match reader.finish(&mut Unrouted) {
            Ok(whole) => Ok(whole),
            Err(e) => panic!("{input} (at {at}): {e:?}"),
        };
    }
    let out = wide::lossy(reader.slot(0));
    let issues = issues_json(reader.typer().map_or(&[][..], |t| t.issues()));
    (out, issues, ended)
}

#[test]
fn the_inline_coercer_is_pythons() {
    let data = golden("typer.json");
    let oracle = RustOracle::new();
    let mut reads = 0;
    for case in data["cases"].as_array().unwrap() {
        let schema = value(text(&case["schema"]));
        let max_depth = case["max_depth"].as_u64().unwrap() as usize;
        for read in case["reads"].as_array().unwrap() {
            let input = text(&read["input"]);
            let expected_end = match read.get("error") {
                Some(message) => Err(text(message).to_owned()),
                None => Ok(read["whole"].as_bool().unwrap()),
            };
            for size in [0, 1, 7] {
                let (out, issues, end) = typer_read(&oracle, &schema, max_depth, input, size);
                if expected_end.is_ok() || size == 0 {
                    // (an error's partial output depends on where the text was cut)
                    assert_eq!(out, text(&read["output"]), "{input} (pieces of {size})");
                }
                assert_eq!(issues, expected_issues(&read["issues"]), "{input} ({size})");
                assert_eq!(end, expected_end, "{input} ({size})");
            }
            reads += 1;
        }
    }
    assert!(reads >= 20, "{reads} reads");
}

// -- calls built with RustCalls -----------------------------------------------------------------

use std::sync::Arc;

use toolparse_core::calls::{Ending, MemberCall};
use toolparse_core::calls_json::JsonCall;
use toolparse_core::rust_calls::{
    issue_of, issues_of, Convert, RecordedEvent, RustCalls, RustTools,
};

/// `CallContext(tools, max_depth=64, coerce=coerce, seed=0)`.
fn context(case: &Json) -> RustCalls {
    let tools = case["tools"]
        .as_str()
        .map(|text| Arc::new(RustTools::from_json(text).expect("the tools")));
    let coerce = case["coerce"].as_bool().unwrap();
    RustCalls::new(tools, 64, coerce, Some(0)).unwrap()
}

fn events_json(events: &[RecordedEvent]) -> Json {
    let events: Vec<Json> = events
        .iter()
        .map(|event| match event {
            RecordedEvent::Start { index, id, name } => {
                serde_json::json!(["start", index, id, wide::lossy(name)])
            }
            RecordedEvent::Delta { index, id, piece } => {
                serde_json::json!(["delta", index, id, wide::lossy(piece)])
            }
        })
        .collect();
    Json::Array(events)
}

/// The argument text the deltas of `events` make, joined.
fn joined_deltas(events: &Json) -> String {
    events
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e[0] == "delta")
        .map(|e| text(&e[3]).to_owned())
        .collect()
}

fn canonical(value: Option<&Value>) -> Json {
    value.map_or(Json::Null, |v| {
        Json::String(wide::lossy(&v.canonical_json()))
    })
}

/// An outcome as the golden files write it.
fn outcome_json(ending: Ending<Value>, issues: Vec<Issue>) -> Json {
    let problem = |kind: &str, message: Vec<u8>| serde_json::json!({"kind": kind, "arguments": null, "message": wide::lossy(&message)});
    match ending {
        Ending::Invalid(message) => problem("invalid_call", message),
        Ending::Malformed(message) => problem("malformed_markup", message),
        Ending::Unknown(arguments) => {
            serde_json::json!({"kind": "unknown_tool", "arguments": canonical(arguments.as_ref())})
        }
        Ending::Call(arguments) => serde_json::json!({
            "kind": "call",
            "arguments": canonical(arguments.as_ref()),
            "issues": issues_json(&issues),
        }),
    }
}

/// A member script run with `RustCalls` (each `text` op split in pieces of
/// `size` characters, 0: whole), flushed after each step: the answers, the
/// events, the outcome.
fn member_run(case: &Json, size: usize) -> (Json, Json, Json) {
    let mut host = context(case);
    host.convert = match text(&case["convert"]) {
        "text" => Convert::Text,
        "literal" => Convert::Literal,
        "fragment" => Convert::Fragment,
        other => panic!("a converter {other}"),
    };
    let name = text(&case["name"]).as_bytes();
    let literal = case["literal"].as_bool().unwrap();
    let mut call: MemberCall<Value> = host.member_call(name, literal).unwrap();
    let mut answers = Vec::new();
    for op in case["ops"].as_array().unwrap() {
        match text(&op[0]) {
            "begin" => {
                let key = text(&op[1]).as_bytes().to_vec();
                answers.push(Json::Bool(call.begin(&mut host, key).unwrap()));
            }
            "text" => {
                let chars = units(text(&op[1]));
                if chars.is_empty() {
                    call.text(&chars); // (an empty piece still makes a delta, as in Python)
                }
                let size = if size == 0 { chars.len().max(1) } else { size };
                for piece in chars.chunks(size) {
                    call.text(piece);
                    call.flush(&mut host).unwrap();
                }
            }
            "end" => call.end(&mut host).unwrap(),
            "close" => call.close(&mut host).unwrap(),
            "sole" => {
                let sole = call.sole_string_property(&mut host).unwrap();
                answers.push(sole.map_or(Json::Null, |v| {
                    Json::String(wide::lossy(v.as_str().expect("a name")))
                }));
            }
            other => panic!("an op {other}"),
        }
        call.flush(&mut host).unwrap();
    }
    let ending = call.outcome(&mut host).unwrap();
    let issues = call
        .extra_issues()
        .iter()
        .map(|v| issue_of(v).expect("an issue"))
        .collect();
    (
        Json::Array(answers),
        events_json(&host.events),
        outcome_json(ending, issues),
    )
}

#[test]
fn member_calls_are_pythons() {
    let data = golden("member_calls.json");
    let cases = data["cases"].as_array().unwrap();
    assert!(cases.len() >= 10);
    for case in cases {
        let what = format!("{} {}", case["name"], case["ops"]);
        let (answers, events, outcome) = member_run(case, 0);
        assert_eq!(answers, case["answers"], "{what}");
        assert_eq!(events, case["events"], "{what}");
        assert_eq!(outcome, case["outcome"], "{what}");
        // in one-character pieces: other deltas, the same arguments
        let (answers, events, outcome) = member_run(case, 1);
        assert_eq!(answers, case["answers"], "{what} (1)");
        assert_eq!(
            joined_deltas(&events),
            joined_deltas(&case["events"]),
            "{what} (1)"
        );
        assert_eq!(outcome, case["outcome"], "{what} (1)");
    }
}

/// A JSON call fed its pieces (each split in pieces of `size` characters,
/// 0: whole) with `RustCalls`, flushed after each: what each feed returned,
/// the events, and the outcome or the reader's error.
fn json_run(case: &Json, size: usize) -> (Vec<usize>, Json, Result<Json, String>) {
    let mut host = context(case);
    let mut call: JsonCall<Value, RustTyper> = match text(&case["kind"]) {
        "envelope" => JsonCall::envelope(
            host.max_depth,
            vec![b"name".to_vec()],
            vec![b"arguments".to_vec(), b"parameters".to_vec()],
        ),
        _ => {
            let name = text(&case["name"]).as_bytes().to_vec();
            JsonCall::json_args(&mut host, 64, name).unwrap()
        }
    };
    let mut fed = Vec::new();
    for piece in case["pieces"].as_array().unwrap() {
        let chars = units(text(piece));
        let size = if size == 0 { chars.len().max(1) } else { size };
        let mut consumed = 0;
        for part in chars.chunks(size) {
            match call.feed(&mut host, part, 0) {
                Ok(at) => consumed += at,
                Err(ReadError::Syntax(e)) => {
                    return (fed, events_json(&host.events), Err(e.message(is_printable)))
                }
                Err(ReadError::Other(e)) => panic!("{e}"),
            }
            call.flush(&mut host).unwrap();
        }
        fed.push(consumed);
    }
    if !call.done() {
        call.finish(&mut host).unwrap();
    }
    let (ending, issues) = call.outcome(&mut host).unwrap();
    let issues = issues.as_ref().map(issues_of).unwrap_or_default();
    let outcome = outcome_json(ending, issues);
    (fed, events_json(&host.events), Ok(outcome))
}

#[test]
fn json_calls_are_pythons() {
    let data = golden("json_calls.json");
    let cases = data["cases"].as_array().unwrap();
    assert!(cases.len() >= 10);
    for case in cases {
        let what = format!("{} {}", case["kind"], case["pieces"]);
        let expected = match case.get("error") {
            Some(error) => Err(text(error).to_owned()),
            None => Ok(case["outcome"].clone()),
        };
        let (fed, events, outcome) = json_run(case, 0);
        let fed_expected: Vec<usize> = serde_json::from_value(case["fed"].clone()).unwrap();
        assert_eq!(fed, fed_expected, "{what}");
        assert_eq!(events, case["events"], "{what}");
        assert_eq!(outcome, expected, "{what}");
        let (_, events, outcome) = json_run(case, 1);
        if expected.is_ok() {
            assert_eq!(
                joined_deltas(&events),
                joined_deltas(&case["events"]),
                "{what} (1)"
            );
        }
        assert_eq!(outcome, expected, "{what} (1)");
    }
}

#[test]
fn fragments_are_pythons() {
    let data = golden("fragments.json");
    let cases = data["cases"].as_array().unwrap();
    assert!(cases.len() >= 100);
    for case in cases {
        let input = text(&case["input"]);
        let max_depth = case["max_depth"].as_u64().unwrap() as usize;
        let value = toolparse_core::fragment::fragment_value(&units(input), max_depth);
        assert_eq!(
            wide::lossy(&value.canonical_json()),
            text(&case["value"]),
            "{input:?} (max_depth {max_depth})"
        );
    }
}
