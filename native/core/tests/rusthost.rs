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
