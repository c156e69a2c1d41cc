//! The start scanner of every generated grammar file, with a few tool lists,
//! every reasoning option and a forced answer or not, made with no Python
//! (`start_scanner`); and `grammar="auto"` switched to each member. That it
//! is the scanner the Python reference starts with is
//! tests/test_start_scanner.py's check; this one checks what holds of any
//! grammar's scanner, and that it finds an opener in text.

use std::path::Path;
use std::sync::Arc;

use toolparse_core::grammar::{Tables, TagTerm, Terminal, GRAMMARS_DIR};
use toolparse_core::lexicon::{Name, Names, TagContext};
use toolparse_core::start_scanner::{
    build_scanner, reasoning_options, start_scanner, ReasoningOption, StartError, MAX_SPELLED_TOOLS,
};
use toolparse_core::text::{Found, State};

fn grammars() -> Vec<Arc<Tables>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(GRAMMARS_DIR);
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the generated grammars") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.push(Arc::new(Tables::from_json(&text).unwrap()));
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(out.len() >= 43);
    out
}

fn options() -> Vec<ReasoningOption> {
    let mut out = vec![ReasoningOption::Auto, ReasoningOption::Given(None)];
    for (name, _) in reasoning_options() {
        out.push(ReasoningOption::named(name).unwrap());
    }
    out
}

fn points(s: &str) -> Vec<u32> {
    s.chars().map(u32::from).collect()
}

fn tool_lists() -> Vec<Option<Vec<String>>> {
    let many: Vec<String> = (0..=MAX_SPELLED_TOOLS).map(|k| format!("t{k}")).collect();
    vec![
        None,
        Some(Vec::new()),
        Some(vec!["get_weather".into(), "a.b*c".into()]),
        Some(many),
    ]
}

#[test]
fn every_grammar_s_start_scanner_is_made_from_its_data() {
    let mut made = 0;
    for tables in grammars() {
        let has_tool_tag = tables
            .opener_steps
            .iter()
            .any(|(t, _)| *t == Terminal::Tag(TagTerm::Tool));
        for tools in tool_lists() {
            for option in options() {
                let reasoning = option.for_grammar(&tables);
                for answer in [false, true] {
                    let parts = match start_scanner(
                        &tables,
                        tools.as_deref(),
                        reasoning.as_ref(),
                        answer,
                    ) {
                        Ok(parts) => parts,
                        // (markers that are the grammar's own openers: refused, never a panic)
                        Err(StartError::Reasoning(why)) => {
                            assert!(why.contains(&tables.name), "{why}");
                            continue;
                        }
                        Err(e) => panic!("{}: {e}", tables.name),
                    };
                    made += 1;
                    let core = &parts.core;
                    let spelled = tools.as_ref().is_some_and(|t| {
                        has_tool_tag && !t.is_empty() && t.len() <= MAX_SPELLED_TOOLS
                    });
                    assert_eq!(!parts.spelled.is_empty(), spelled, "{}", tables.name);
                    for (literal, _, _) in parts.spelled.iter() {
                        assert!(core.lexicons.openers.literal_index(literal).is_some());
                    }
                    // (every proper prefix of a literal opener is held text the lanes keep)
                    for literal in &tables.opener_prefixes {
                        assert!(parts.opener_prefixes.contains(&points(literal)));
                    }
                    assert_eq!(
                        core.lexicons.code.is_some(),
                        tables.tokens || tables.token_openers.is_some()
                    );
                    assert_eq!(core.lexicons.inside.is_some(), reasoning.is_some());
                    let starts_open = reasoning.as_ref().is_some_and(|r| r.starts_open);
                    assert_eq!(core.state == State::Reasoning, starts_open);
                    assert_eq!(
                        core.prelude,
                        reasoning.is_some() || answer || !core.lexicons.answer.is_empty()
                    );
                    assert_eq!(core.answer, answer);
                }
            }
        }
    }
    assert!(made > 43 * 4 * 10, "{made}");
}

#[test]
fn auto_switches_to_every_member() {
    let all = grammars();
    let auto = all.iter().find(|t| t.name == "auto").unwrap();
    let members = &auto.auto.as_ref().unwrap().members;
    assert!(members.len() > 30);
    for option in options() {
        let tools = ["get_weather".to_string()];
        let Ok(start) = start_scanner(auto, Some(&tools), option.for_grammar(auto).as_ref(), false)
        else {
            continue;
        };
        let mut now = start.core.clone();
        now.state = State::Quote;
        for (name, member) in members {
            let reasoning = option.for_grammar(member);
            match start.switched(&now, member, reasoning.as_ref()) {
                Ok(parts) => {
                    assert_eq!(parts.core.state, State::Quote, "{name}");
                    assert!(!parts.core.absorb);
                    let alone =
                        build_scanner(member, Some(&tools), reasoning.as_ref(), false).unwrap();
                    assert_eq!(
                        parts.core.lexicons.openers.literals(),
                        alone.core.lexicons.openers.literals()
                    );
                }
                Err(StartError::Reasoning(_)) => {}
                Err(e) => panic!("{name}: {e}"),
            }
        }
    }
}

struct Tools(Vec<Vec<u32>>);

impl TagContext for Tools {
    fn key(&self) -> Option<Name<'_>> {
        None
    }
    fn call_name(&self) -> Option<Name<'_>> {
        None
    }
    fn tool_names(&self) -> Option<&dyn Names> {
        Some(&self.0)
    }
    fn property_names(&self) -> Option<&dyn Names> {
        None
    }
    fn given(&self, _: Name<'_>) -> bool {
        false
    }
}

#[test]
fn a_start_scanner_finds_a_spelled_tool_tag_and_reasoning() {
    let all = grammars();
    let xml = all.iter().find(|t| t.name == "xml").unwrap();
    let tools = ["get_weather".to_string()];
    let think = ReasoningOption::named("think").unwrap();
    let parts = start_scanner(xml, Some(&tools), think.for_grammar(xml).as_ref(), false).unwrap();
    let ctx = Tools(vec![points("get_weather")]);
    let mut scanner = parts.core.clone();
    let text = points("<think>x</think>Sure. <get_weather>");
    let (at, hit) = scanner.scan(&text, 0, true, &ctx);
    assert_eq!((at, hit.map(|h| h.found)), (0, Some(Found::ReasoningOpen)));
    scanner.enter_reasoning();
    let (at, hit) = scanner.scan(&text, 7, true, &ctx);
    assert_eq!((at, hit.map(|h| h.found)), (8, Some(Found::ReasoningClose)));
    scanner.leave_reasoning();
    let (at, hit) = scanner.scan(&text, 16, true, &ctx);
    let hit = hit.expect("the tool's tag");
    assert_eq!((at, hit.end), (22, text.len()));
    assert!(matches!(hit.found, Found::Terminal(_, _)));
}
