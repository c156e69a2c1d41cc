//! The visible text's scanner as an engine starts with it, made from a
//! grammar's data (`toolparse.engine.text.shared_scanner` and
//! `TextScanner.__init__`, with `CompiledGrammar.openers_for`).
//!
//! What the scanner looks for depends on more than the grammar: each declared
//! tool's tag is spelled out as a literal opener (`<get_weather>`, found by
//! the lexicon's literal search where the generic tag needs a look at every
//! `<`), and the reasoning chosen adds its markers. None of this is data of
//! its own: it is made here from the grammar's tables ([`Tables`]) and the
//! reasoning ([`Reasoning`]), once per grammar, tools, reasoning and forced
//! answer, and kept ([`start_scanner`]): a parser is built per request, and
//! building a scanner was a fifth of that in Python. `grammar="auto"` switches
//! to a member's scanner once the member is decided ([`ScannerParts::switched`],
//! `TextScanner.switched`), each member with the reasoning the option means
//! for it ([`ReasoningOption::for_grammar`], `grammars.reasoning.reasoning_for`).

use std::sync::{Arc, Mutex, OnceLock};

use serde::Deserialize;

use crate::grammar::{self, Reasoning, ReasoningData, Tables, TagTerm, Terminal};
use crate::lexicon::{Lexicon, LexiconError, TagTerm as LTag};
use crate::prefixes::PrefixSet;
use crate::pyliteral::repr;
use crate::scan::{Literals, Pairs, StopSet};
use crate::text::{Lexicons, State, TextScanner};

/// With more declared tools than this, their tags are not spelled out: the
/// generic tag pattern finds them (`compile._MAX_SPELLED_TOOLS`).
pub const MAX_SPELLED_TOOLS: usize = 64;

/// The start scanners kept, the most recently used first to stay
/// (`shared_scanner`'s `lru_cache(maxsize=64)`).
pub const MAX_KEPT_SCANNERS: usize = 64;

/// What each declared tool's tag, spelled as a literal opener, stands for:
/// (the literal, its tag term, the tool's name), in the order of the tools.
pub type Spelled = Vec<(Vec<u32>, LTag, Vec<u32>)>;

/// What the text lane needs of a scanner's lexicon: its stops and, where all
/// its terminals are literal, the literals (`plain_openers`).
#[derive(Debug)]
pub struct TextLexicons {
    pub stops: StopSet,
    pub plain: Option<Literals>,
    /// The text lane's second look at a delta of one byte a code point (see
    /// [`Pairs`]): where all the terminals are literal.
    pub pairs: Option<Arc<Pairs>>,
}

impl TextLexicons {
    /// Those of `lexicon` (None: no lexicon, which stops at nothing printable).
    pub fn of(lexicon: Option<&Lexicon>) -> TextLexicons {
        let mut stops = StopSet::new();
        match lexicon.and_then(Lexicon::firsts) {
            Some(firsts) if !firsts.is_empty() => {
                for &c in firsts {
                    stops.add(c);
                }
            }
            // (`stops_of("")`: NONE, a NUL, which no printable text holds)
            _ => stops.add(0),
        }
        let plain = lexicon
            .filter(|l| l.literals_only())
            .map(|l| Literals::new(l.literals().to_vec()));
        let pairs = plain.as_ref().and_then(Pairs::of).map(Arc::new);
        TextLexicons {
            stops,
            plain,
            pairs,
        }
    }
}

/// What an engine's visible text starts with: the scanner in its first state,
/// the text lane's view of its lexicons (outside and inside Markdown code),
/// the spelled tool tags and every proper prefix of a literal opener (held
/// text the prefix lane keeps held).
#[derive(Clone, Debug)]
pub struct ScannerParts {
    pub core: TextScanner,
    pub text_lexicons: Arc<TextLexicons>,
    pub code_lexicons: Arc<TextLexicons>,
    pub spelled: Arc<Spelled>,
    pub opener_prefixes: Arc<PrefixSet>,
    /// The declared tools it was made for (None: any name is accepted).
    pub tools: Option<Arc<[String]>>,
}

/// Why a grammar, tools and reasoning make no scanner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartError {
    /// The openers with the tools' tags make no lexicon (Python: ValueError).
    Openers(String),
    /// The reasoning's markers cannot be used with the grammar (Python:
    /// `InvalidOptionError`).
    Reasoning(String),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Openers(why) | StartError::Reasoning(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for StartError {}

fn points(s: &str) -> Vec<u32> {
    s.chars().map(u32::from).collect()
}

/// The lexicon of `terms`, or the Python constructor's message.
fn lexicon(terms: &[Terminal]) -> Result<Lexicon, String> {
    let terminals: Vec<_> = terms.iter().filter_map(Terminal::for_lexicon).collect();
    Lexicon::new(&terminals).map_err(|e| match e {
        LexiconError::Empty => "string index out of range".to_string(),
        LexiconError::Inside { a, b } => {
            // (the indices are into the sorted, distinct literals)
            let mut literals: Vec<Vec<u32>> = terms
                .iter()
                .filter_map(|t| match t {
                    Terminal::Literal(s) => Some(points(s)),
                    Terminal::Tag(_) => None,
                })
                .collect();
            literals.sort();
            literals.dedup();
            let (a, b) = (repr(&literals[a]), repr(&literals[b]));
            format!("terminal {a} inside {b} would be found before {b} is complete")
        }
    })
}

/// Every proper prefix of each of `literals` (`compile.proper_prefixes`).
fn proper_prefixes<'a>(literals: impl IntoIterator<Item = &'a str>) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    for literal in literals {
        let chars = points(literal);
        for k in 1..chars.len() {
            out.push(chars[..k].to_vec());
        }
    }
    out
}

/// The openers as literals for these tools (`CompiledGrammar.openers_for`):
/// their terms, the spelled tags (literal, term, tool) and the opener prefixes.
#[allow(clippy::type_complexity)]
fn openers_for(
    tables: &Tables,
    tools: Option<&[String]>,
) -> (Vec<Terminal>, Vec<(String, TagTerm, String)>, Vec<Vec<u32>>) {
    let steps = |term: TagTerm| {
        tables
            .opener_steps
            .iter()
            .any(|(t, _)| *t == Terminal::Tag(term))
    };
    let mut spelled: Vec<(String, TagTerm, String)> = Vec::new();
    // (a dict: a literal met again keeps its place and takes the new value)
    let mut spell = |literal: String, term: TagTerm, name: &str| match spelled
        .iter_mut()
        .find(|(l, _, _)| *l == literal)
    {
        Some(entry) => *entry = (literal, term, name.to_string()),
        None => spelled.push((literal, term, name.to_string())),
    };
    if let Some(names) = tools.filter(|names| names.len() <= MAX_SPELLED_TOOLS) {
        let (tool, empty) = (steps(TagTerm::Tool), steps(TagTerm::ToolEmpty));
        for name in names {
            if tool {
                spell(format!("<{name}>"), TagTerm::Tool, name);
            }
            if empty {
                spell(format!("<{name}/>"), TagTerm::ToolEmpty, name);
            }
        }
    }
    let prefixes = || tables.opener_prefixes.iter().map(|p| points(p));
    let anywhere = &tables.openers;
    let others: Vec<Terminal> = anywhere
        .iter()
        .filter(|t| !matches!(t, Terminal::Tag(TagTerm::Tool | TagTerm::ToolEmpty)))
        .cloned()
        .collect();
    if tools.is_none_or(<[String]>::is_empty) && others.len() < anywhere.len() {
        // (no tool declared: no tag is a tool's)
        return (others, spelled, prefixes().collect());
    }
    if spelled.is_empty() {
        return (anywhere.clone(), spelled, prefixes().collect());
    }
    let mut terms = others;
    terms.extend(spelled.iter().map(|(l, _, _)| Terminal::Literal(l.clone())));
    let mut all: Vec<Vec<u32>> = prefixes().collect();
    all.extend(proper_prefixes(spelled.iter().map(|(l, _, _)| l.as_str())));
    (terms, spelled, all)
}

fn lexicon_tag(term: TagTerm) -> LTag {
    match Terminal::Tag(term).for_lexicon() {
        Some(crate::lexicon::Terminal::Tag(tag)) => tag,
        _ => unreachable!("a tool's tag term is a lexicon's"),
    }
}

/// The scanner of `tables` for these tools and reasoning, in its first state
/// (`TextScanner(grammar, ToolNames(tools), reasoning, answer=answer)`), made
/// anew (see [`start_scanner`] for the kept one).
pub fn build_scanner(
    tables: &Tables,
    tools: Option<&[String]>,
    reasoning: Option<&Reasoning>,
    answer: bool,
) -> Result<ScannerParts, StartError> {
    let (mut terms, spelled, prefixes) = openers_for(tables, tools);
    // (the tools' lexicon first: one it cannot make fails as Python's does, whatever follows)
    let mut openers = lexicon(&terms).map_err(StartError::Openers)?;
    if let (Some(r), Some(_)) = (reasoning, &tables.auto) {
        // (a member's own markers decide it on sight, unless they are the reasoning chosen)
        let before = terms.len();
        terms.retain(|t| !matches!(t, Terminal::Literal(l) if r.markers().any(|m| m == l)));
        if terms.len() < before {
            openers = lexicon(&terms).map_err(StartError::Openers)?;
        }
    }
    let openers = Arc::new(openers);
    let mut answer_openers = Vec::new();
    if let Some(start) = &tables.start_openers {
        answer_openers.push((
            Arc::new(lexicon(start).map_err(StartError::Openers)?),
            false,
        ));
    }
    if answer && !terms.is_empty() {
        // (the scanner's own openers, unless reasoning that opens anywhere joins them)
        answer_openers.push((openers.clone(), !reasoning.is_some_and(|r| r.anywhere)));
    }
    let prelude = reasoning.is_some() || answer || !answer_openers.is_empty();
    let mut scanning = openers.clone();
    let mut inside = None;
    let (mut state, mut absorb) = (State::LineStart, false);
    if let Some(r) = reasoning {
        let invalid = |why: String| {
            let open = r
                .open
                .as_deref()
                .map_or("None".to_string(), |o| repr(&points(o)));
            StartError::Reasoning(format!(
                "reasoning markers {open}, {} cannot be used with the {} grammar: {why}",
                repr(&points(&r.close)),
                repr(&points(&tables.name)),
            ))
        };
        for marker in r.markers() {
            if terms.contains(&Terminal::Literal(marker.to_string())) {
                return Err(invalid(format!(
                    "the reasoning marker {} is also an opener of the grammar",
                    repr(&points(marker))
                )));
            }
        }
        let mut with_markers = terms.clone();
        with_markers.extend(r.markers().map(|m| Terminal::Literal(m.to_string())));
        let outer = lexicon(&with_markers).map_err(invalid)?;
        let closers: Vec<Terminal> = [&r.close]
            .into_iter()
            .chain(&r.ended_by)
            .map(|m| Terminal::Literal(m.clone()))
            .collect();
        inside = Some(Arc::new(lexicon(&closers).map_err(invalid)?));
        if r.anywhere {
            // (else the opener counts only in the prelude, read there)
            scanning = Arc::new(outer);
        }
        if r.starts_open {
            state = State::Reasoning;
            absorb = r.open.is_some();
        }
    }
    // (in Markdown code and quotes, the openers that are special tokens: they end it)
    let code = if tables.tokens {
        Some(scanning.clone())
    } else {
        match &tables.token_openers {
            Some(tokens) => Some(Arc::new(lexicon(tokens).map_err(StartError::Openers)?)),
            None => None,
        }
    };
    let text_lexicons = Arc::new(TextLexicons::of(Some(&scanning)));
    let code_lexicons = Arc::new(TextLexicons::of(code.as_deref()));
    let mut markup: Vec<Vec<u32>> = reasoning
        .map(|r| r.markup.iter().map(|m| points(m)).collect())
        .unwrap_or_default();
    markup.sort();
    markup.dedup();
    let core = TextScanner {
        lexicons: Lexicons {
            openers: scanning,
            code,
            answer: answer_openers,
            inside,
        },
        state,
        fence: None,
        fence_len: 0,
        r_open: reasoning.and_then(|r| r.open.as_deref()).map(points),
        r_close: reasoning.map(|r| points(&r.close)),
        markup,
        answer,
        prelude,
        absorb,
        newline: None,
        ended: None,
    };
    let spelled = spelled
        .into_iter()
        .map(|(literal, term, name)| (points(&literal), lexicon_tag(term), points(&name)))
        .collect();
    Ok(ScannerParts {
        core,
        text_lexicons,
        code_lexicons,
        spelled: Arc::new(spelled),
        opener_prefixes: Arc::new(PrefixSet::new(prefixes)),
        tools: tools.map(Arc::from),
    })
}

/// A scanner kept, by what it was made of (the tables by identity: the entry
/// holds them, so their address is theirs while it is kept).
struct Kept {
    tables: Arc<Tables>,
    tools: Option<Vec<String>>,
    reasoning: Option<Reasoning>,
    answer: bool,
    parts: Arc<ScannerParts>,
}

static KEPT: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

/// The scanner of `tables` for these tools and reasoning, in its first state,
/// shared by the engines built for them (`text.shared_scanner`): made once,
/// and kept among the last [`MAX_KEPT_SCANNERS`] asked for. It never changes;
/// an engine clones its `core` to scan with.
pub fn start_scanner(
    tables: &Arc<Tables>,
    tools: Option<&[String]>,
    reasoning: Option<&Reasoning>,
    answer: bool,
) -> Result<Arc<ScannerParts>, StartError> {
    let same = |k: &Kept| {
        Arc::ptr_eq(&k.tables, tables)
            && k.tools.as_deref() == tools
            && k.reasoning.as_ref() == reasoning
            && k.answer == answer
    };
    {
        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = kept.iter().position(same) {
            let entry = kept.remove(k);
            let parts = entry.parts.clone();
            kept.push(entry);
            return Ok(parts);
        }
    }
    let parts = Arc::new(build_scanner(tables, tools, reasoning, answer)?);
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    if !kept.iter().any(same) {
        if kept.len() >= MAX_KEPT_SCANNERS {
            kept.remove(0);
        }
        kept.push(Kept {
            tables: tables.clone(),
            tools: tools.map(<[String]>::to_vec),
            reasoning: reasoning.cloned(),
            answer,
            parts: parts.clone(),
        });
    }
    Ok(parts)
}

/// How many start scanners are kept now (for tests).
pub fn kept_scanners() -> usize {
    KEPT.lock().unwrap_or_else(|e| e.into_inner()).len()
}

impl ScannerParts {
    /// (`grammar="auto"`, once `member` is decided) the parts of `member`'s
    /// scanner, with these tools and `reasoning`, standing where `now` (the
    /// scanner that ran so far) stands in the text: the same Markdown state,
    /// out of reasoning, still before the answer only if both are
    /// (`TextScanner.switched`).
    pub fn switched(
        &self,
        now: &TextScanner,
        member: &Arc<Tables>,
        reasoning: Option<&Reasoning>,
    ) -> Result<ScannerParts, StartError> {
        let start = start_scanner(member, self.tools.as_deref(), reasoning, false)?;
        let mut parts = (*start).clone();
        let core = &mut parts.core;
        core.state = if now.state == State::Reasoning {
            State::Text
        } else {
            now.state
        };
        core.fence = now.fence;
        core.fence_len = now.fence_len;
        core.prelude = core.prelude && now.prelude;
        core.absorb = false;
        Ok(parts)
    }
}

// -- the reasoning option ---------------------------------------------------------------------

/// The `reasoning` option's named values, generated from
/// `toolparse.grammars.reasoning.REASONING` (`python -m toolparse.grammar_files
/// --write`; `tests/test_grammar_data.py` fails while it is stale).
const REASONING_OPTIONS: &str = include_str!("../reasoning.json");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OptionsData {
    schema: u32,
    options: Vec<(String, Option<ReasoningData>)>,
}

/// Every named value of the `reasoning` option, in the Python table's order.
pub fn reasoning_options() -> &'static [(String, Option<Reasoning>)] {
    static OPTIONS: OnceLock<Vec<(String, Option<Reasoning>)>> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let data: OptionsData =
            serde_json::from_str(REASONING_OPTIONS).expect("the crate's reasoning.json");
        assert_eq!(data.schema, grammar::SCHEMA, "the crate's reasoning.json");
        data.options
            .into_iter()
            .map(|(name, r)| {
                let r = r
                    .map(grammar::reasoning)
                    .transpose()
                    .expect("the crate's reasoning.json");
                (name, r)
            })
            .collect()
    })
}

/// The `reasoning` option as given (`str | Reasoning | None`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReasoningOption {
    /// `"auto"`: the grammar's own markers where it has them, else `<think>`
    /// where the answer begins.
    Auto,
    /// Another named value, or a declaration given (None: no reasoning).
    Given(Option<Reasoning>),
}

impl ReasoningOption {
    /// The option of that name (`grammars.reasoning.get_reasoning`'s names).
    pub fn named(name: &str) -> Result<ReasoningOption, String> {
        if name == "auto" {
            return Ok(ReasoningOption::Auto);
        }
        reasoning_options()
            .iter()
            .find(|(known, _)| known == name)
            .map(|(_, r)| ReasoningOption::Given(r.clone()))
            .ok_or_else(|| {
                let names: Vec<String> = reasoning_options()
                    .iter()
                    .map(|(n, _)| repr(&points(n)))
                    .collect();
                format!(
                    "reasoning must be one of {} or a Reasoning declaration, not {}",
                    names.join(", "),
                    repr(&points(name))
                )
            })
    }

    /// The reasoning this option means for `grammar` (`reasoning_for`).
    pub fn for_grammar(&self, grammar: &Tables) -> Option<Reasoning> {
        match self {
            ReasoningOption::Auto => grammar.reasoning.clone().or_else(|| {
                reasoning_options()
                    .iter()
                    .find(|(name, _)| name == "auto")
                    .and_then(|(_, r)| r.clone())
            }),
            ReasoningOption::Given(r) => r.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables(name: &str) -> Arc<Tables> {
        let path = format!(
            "{}/{}/{name}.json",
            env!("CARGO_MANIFEST_DIR"),
            grammar::GRAMMARS_DIR
        );
        Arc::new(Tables::from_json(&std::fs::read_to_string(path).unwrap()).unwrap())
    }

    fn literals(lexicon: &Lexicon) -> Vec<String> {
        lexicon
            .literals()
            .iter()
            .map(|l| l.iter().map(|&c| char::from_u32(c).unwrap()).collect())
            .collect()
    }

    #[test]
    fn a_declared_tool_s_tag_is_spelled_out() {
        let xml = tables("xml");
        let tools = ["get_weather".to_string(), "f".to_string()];
        let parts = build_scanner(&xml, Some(&tools), None, false).unwrap();
        let openers = literals(&parts.core.lexicons.openers);
        assert!(
            openers.contains(&"<get_weather>".to_string()),
            "{openers:?}"
        );
        assert_eq!(parts.spelled[0].2, points("get_weather"));
        assert!(parts.opener_prefixes.contains(&points("<get_wea")));
        // (more tools than are spelled: the generic tag finds them)
        let many: Vec<String> = (0..=MAX_SPELLED_TOOLS).map(|k| format!("t{k}")).collect();
        let parts = build_scanner(&xml, Some(&many), None, false).unwrap();
        assert!(parts.spelled.is_empty());
        assert!(!parts.core.lexicons.openers.tags().is_empty());
    }

    #[test]
    fn reasoning_adds_its_markers_and_may_start_open() {
        let hermes = tables("hermes");
        let ReasoningOption::Given(Some(think)) = ReasoningOption::named("think").unwrap() else {
            panic!("think is a reasoning")
        };
        let parts = build_scanner(&hermes, None, Some(&think), false).unwrap();
        let openers = literals(&parts.core.lexicons.openers);
        assert!(openers.contains(&"<think>".to_string()) && openers.contains(&"</think>".into()));
        assert!(parts.core.prelude && parts.core.state == State::LineStart);
        let open = ReasoningOption::named("think-open").unwrap();
        let open = open.for_grammar(&hermes).unwrap();
        let parts = build_scanner(&hermes, None, Some(&open), false).unwrap();
        assert!(parts.core.state == State::Reasoning && parts.core.absorb);
        // (a marker that is an opener already is refused)
        let clash = Reasoning {
            open: Some("<tool_call>".into()),
            ..think.clone()
        };
        let err = build_scanner(&hermes, None, Some(&clash), false).unwrap_err();
        assert!(matches!(err, StartError::Reasoning(ref why) if why.contains("also an opener")));
    }

    #[test]
    fn auto_means_the_grammar_s_own_markers_where_it_has_them() {
        let (gpt, hermes) = (tables("gpt-oss"), tables("hermes"));
        let own = ReasoningOption::Auto.for_grammar(&gpt).unwrap();
        assert_eq!(Some(own), gpt.reasoning.clone());
        let think = ReasoningOption::Auto.for_grammar(&hermes).unwrap();
        assert_eq!(
            (think.open.as_deref(), think.anywhere),
            (Some("<think>"), false)
        );
        assert_eq!(
            ReasoningOption::named("none").unwrap().for_grammar(&gpt),
            None
        );
        assert!(ReasoningOption::named("nope").is_err());
    }

    #[test]
    fn a_start_scanner_is_kept_and_switching_keeps_the_markdown_state() {
        let auto = tables("auto");
        let tools = ["f".to_string()];
        let a = start_scanner(&auto, Some(&tools), None, false).unwrap();
        let b = start_scanner(&auto, Some(&tools), None, false).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let c = start_scanner(&auto, None, None, false).unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert!(kept_scanners() >= 2);
        let mut now = a.core.clone();
        now.state = State::Code;
        now.fence = Some(u32::from('`'));
        now.fence_len = 3;
        let members = &auto.auto.as_ref().unwrap().members;
        let (_, hermes) = members.iter().find(|(n, _)| n == "hermes").unwrap();
        let switched = a.switched(&now, hermes, None).unwrap();
        assert_eq!(switched.core.state, State::Code);
        assert_eq!(
            (switched.core.fence, switched.core.fence_len),
            (now.fence, 3)
        );
        assert!(!switched.core.prelude && !switched.core.absorb);
        assert_eq!(switched.tools.as_deref(), Some(&tools[..]));
    }
}
