//! Every generated grammar file (`grammars/*.json`, written by `python -m
//! toolparse.grammar_files --write`) reads into tables, and each
//! region's terminals make a lexicon: a file the core cannot read fails here,
//! with no Python. (Whether the files are stale is `tests/test_grammar_data.py`'s
//! check, which regenerates them.)

use std::path::Path;

use toolparse_core::grammar::{Tables, Terminal, GRAMMARS_DIR};
use toolparse_core::lexicon::{Lexicon, Terminal as LTerminal};

fn lexicon(terms: &[Terminal], what: &str) {
    let terms: Vec<LTerminal> = terms.iter().filter_map(Terminal::for_lexicon).collect();
    if let Err(e) = Lexicon::new(&terms) {
        panic!("{what}: no lexicon of its terminals: {e:?}");
    }
}

fn check(tables: &Tables) -> usize {
    lexicon(&tables.openers, &tables.name);
    let mut regions = 0;
    for block in &tables.blocks {
        for region in block.regions.iter().chain([&block.skip]) {
            lexicon(&region.terms, &format!("{}: {}", tables.name, region.name));
            regions += 1;
        }
    }
    if let Some(auto) = &tables.auto {
        for (_, member) in &auto.members {
            regions += check(member);
        }
        for k in 0..tables.blocks.len() {
            assert!(
                auto.owner_block(tables, k).is_some(),
                "{}: block {k}",
                tables.name
            );
        }
    }
    regions
}

#[test]
fn every_generated_grammar_reads_into_tables() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(GRAMMARS_DIR);
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the generated grammars") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path).unwrap();
            let tables =
                Tables::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(
                Some(tables.name.as_str()),
                path.file_stem().and_then(|s| s.to_str())
            );
            assert!(check(&tables) > 0, "{}", tables.name);
            names.push(tables.name);
        }
    }
    // (42 formats and auto)
    assert!(names.len() >= 43, "{names:?}");
    assert!(names.iter().any(|n| n == "auto"));
}

#[test]
fn auto_s_claims_decide_as_in_python() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(GRAMMARS_DIR);
    let auto = Tables::from_json(&std::fs::read_to_string(dir.join("auto.json")).unwrap()).unwrap();
    let claims = &auto.auto.as_ref().unwrap().claims;
    let shared = Terminal::Literal("<tool_call>".into());
    let (_, owned) = claims.iter().find(|(t, _)| *t == shared).unwrap();
    let taker = |window: &str| {
        owned
            .iter()
            .find(|c| c.matches(window))
            .map(|c| c.member.as_str())
    };
    assert_eq!(taker("\n{\"name\": \"f\"}"), Some("hermes"));
    assert_eq!(taker("\n<function=f>"), Some("qwen3-coder"));
    assert_eq!(taker("get_weather\n<arg_key>city"), Some("glm"));
}
