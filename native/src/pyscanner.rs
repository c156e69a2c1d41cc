//! (tests) The core's start scanner, made from a grammar's data
//! (`toolparse_core::start_scanner`), against the reference's `TextScanner`:
//! each shown as one canonical text, which tests/test_start_scanner.py
//! compares for every grammar, tool list, reasoning option and forced answer,
//! and for `grammar="auto"`'s switch to each member. The reference scanner is
//! read here ([`python_parts`], by the attributes of its `__slots__`); the
//! engine makes its own from the data (`start_scanner`).

use std::fmt::Write;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::lexicon::{Lexicon, TagTerm};
use crate::prefixes::PrefixSet;
use crate::scan::{Literals, Pairs, StopSet};
use crate::text::Lexicons;
use crate::text::{State, TextScanner};
use toolparse_core::grammar::{Reasoning, Tables, TagTerm as GTag, Terminal};
use toolparse_core::start_scanner::{
    start_scanner, ReasoningOption, ScannerParts, StartError, TextLexicons,
};

fn text_of(points: &[u32]) -> String {
    points
        .iter()
        .map(|&c| char::from_u32(c).map_or_else(|| format!("\\u{{{c:x}}}"), String::from))
        .collect()
}

fn lexicon(out: &mut String, what: &str, lexicon: &Lexicon) {
    let literals: Vec<String> = lexicon.literals().iter().map(|l| text_of(l)).collect();
    let _ = writeln!(
        out,
        "{what}: literals {literals:?} tags {:?} firsts {:?} max_len {}",
        lexicon.tags(),
        lexicon.firsts().map(text_of),
        lexicon.max_len()
    );
}

fn lane(out: &mut String, what: &str, parts: (&StopSet, Option<&Literals>, Option<&Pairs>)) {
    let (stops, plain, pairs) = parts;
    let _ = writeln!(out, "{what}: stops {stops:?}");
    let _ = writeln!(out, "{what}: plain {plain:?}");
    let _ = writeln!(out, "{what}: pairs {pairs:?}");
}

type Lane<'a> = (&'a StopSet, Option<&'a Literals>, Option<&'a Pairs>);

/// The canonical text of a scanner's start parts (the same for either maker).
fn dump(
    core: &TextScanner,
    text: Lane<'_>,
    code: Lane<'_>,
    spelled: &[(Vec<u32>, TagTerm, Vec<u32>)],
    prefixes: &PrefixSet,
) -> String {
    let mut out = String::new();
    let l = &core.lexicons;
    lexicon(&mut out, "openers", &l.openers);
    match &l.code {
        Some(code) => lexicon(&mut out, "code", code),
        None => out.push_str("code: none\n"),
    }
    for (k, (answer, is_openers)) in l.answer.iter().enumerate() {
        lexicon(
            &mut out,
            &format!("answer {k} (openers: {is_openers})"),
            answer,
        );
    }
    match &l.inside {
        Some(inside) => lexicon(&mut out, "inside", inside),
        None => out.push_str("inside: none\n"),
    }
    let _ = writeln!(
        out,
        "state {:?} fence {:?} fence_len {} answer {} prelude {} absorb {} newline {:?} ended {:?}",
        core.state,
        core.fence,
        core.fence_len,
        core.answer,
        core.prelude,
        core.absorb,
        core.newline,
        core.ended
    );
    let markers = |m: &Option<Vec<u32>>| m.as_deref().map(text_of);
    let markup: Vec<String> = core.markup.iter().map(|m| text_of(m)).collect();
    let _ = writeln!(
        out,
        "r_open {:?} r_close {:?} markup {markup:?}",
        markers(&core.r_open),
        markers(&core.r_close)
    );
    lane(&mut out, "text lane", text);
    lane(&mut out, "code lane", code);
    for (literal, tag, name) in spelled {
        let _ = writeln!(
            out,
            "spelled {:?} {tag:?} {:?}",
            text_of(literal),
            text_of(name)
        );
    }
    let prefixes: Vec<String> = prefixes.sorted().into_iter().map(text_of).collect();
    let _ = writeln!(out, "opener prefixes {prefixes:?}");
    out
}

/// The tables of a grammar's data, kept by the data's text (so that the
/// core's start scanners, kept by the tables' identity, are found again).
fn tables_of(json: &str) -> PyResult<Arc<Tables>> {
    static TABLES: Mutex<Vec<(String, Arc<Tables>)>> = Mutex::new(Vec::new());
    let mut kept = TABLES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, tables)) = kept.iter().find(|(text, _)| text == json) {
        return Ok(tables.clone());
    }
    let tables = Arc::new(Tables::from_json(json).map_err(PyValueError::new_err)?);
    kept.push((json.to_string(), tables.clone()));
    Ok(tables)
}

/// The `reasoning` option: a name, or a declaration's data (JSON), or neither (None).
fn option_of(name: Option<&str>, json: Option<&str>) -> PyResult<ReasoningOption> {
    match (name, json) {
        (Some(name), None) => ReasoningOption::named(name).map_err(PyValueError::new_err),
        (None, Some(json)) => Ok(ReasoningOption::Given(Some(
            Reasoning::from_json(json).map_err(PyValueError::new_err)?,
        ))),
        (None, None) => Ok(ReasoningOption::Given(None)),
        _ => Err(PyValueError::new_err("a name or a declaration, not both")),
    }
}

fn error_dump(e: &StartError) -> String {
    match e {
        StartError::Openers(why) => format!("error Openers: {why}\n"),
        StartError::Reasoning(why) => format!("error Reasoning: {why}\n"),
    }
}

fn parts_dump(parts: &ScannerParts) -> String {
    let t = &parts.text_lexicons;
    let c = &parts.code_lexicons;
    dump(
        &parts.core,
        (&t.stops, t.plain.as_ref(), t.pairs.as_deref()),
        (&c.stops, c.plain.as_ref(), c.pairs.as_deref()),
        &parts.spelled,
        &parts.opener_prefixes,
    )
}

/// The core's start scanner of a grammar's data (`grammar_json`), for
/// `tools`, the reasoning the option means for that grammar, and `answer`.
#[pyfunction]
#[pyo3(signature = (grammar_json, tools, option_name, option_json, answer))]
fn _start_scanner_dump(
    grammar_json: &str,
    tools: Option<Vec<String>>,
    option_name: Option<&str>,
    option_json: Option<&str>,
    answer: bool,
) -> PyResult<String> {
    let tables = tables_of(grammar_json)?;
    let reasoning = option_of(option_name, option_json)?.for_grammar(&tables);
    Ok(
        match start_scanner(&tables, tools.as_deref(), reasoning.as_ref(), answer) {
            Ok(parts) => parts_dump(&parts),
            Err(e) => error_dump(&e),
        },
    )
}

/// `grammar="auto"` (`grammar_json`: auto's data) switched to `member` from a
/// scanner standing at `state` (a reference state's number), `fence`,
/// `fence_len`, `prelude`: the member's reasoning is what the option means
/// for it.
#[pyfunction]
#[pyo3(signature = (grammar_json, tools, option_name, option_json, answer, member, state, fence, fence_len, prelude))]
#[allow(clippy::too_many_arguments)]
fn _switched_scanner_dump(
    grammar_json: &str,
    tools: Option<Vec<String>>,
    option_name: Option<&str>,
    option_json: Option<&str>,
    answer: bool,
    member: &str,
    state: i64,
    fence: &str,
    fence_len: usize,
    prelude: bool,
) -> PyResult<String> {
    let tables = tables_of(grammar_json)?;
    let option = option_of(option_name, option_json)?;
    let start = match start_scanner(
        &tables,
        tools.as_deref(),
        option.for_grammar(&tables).as_ref(),
        answer,
    ) {
        Ok(parts) => parts,
        Err(e) => return Ok(error_dump(&e)),
    };
    let members = &tables
        .auto
        .as_ref()
        .ok_or_else(|| PyValueError::new_err("not auto's data"))?
        .members;
    let (_, member) = members
        .iter()
        .find(|(name, _)| name == member)
        .ok_or_else(|| PyValueError::new_err(format!("no member {member}")))?;
    let mut now = start.core.clone();
    now.state = State::from_number(state).ok_or_else(|| PyValueError::new_err("no state"))?;
    now.fence = fence.chars().next().map(u32::from);
    now.fence_len = fence_len;
    now.prelude = prelude;
    Ok(
        match start.switched(&now, member, option.for_grammar(member).as_ref()) {
            Ok(parts) => parts_dump(&parts),
            Err(e) => error_dump(&e),
        },
    )
}

fn points(s: &str) -> Vec<u32> {
    s.chars().map(u32::from).collect()
}

/// A reference terminal (a `str`, or a `Term` by its name) as the grammar data has it.
fn terminal_of(term: &Bound<'_, PyAny>) -> PyResult<Terminal> {
    if let Ok(literal) = term.extract::<String>() {
        return Ok(Terminal::Literal(literal));
    }
    let name: String = term.getattr("name")?.extract()?;
    GTag::named(&name)
        .map(Terminal::Tag)
        .ok_or_else(|| PyValueError::new_err(format!("not a tag term: {name}")))
}

/// The core lexicon of a reference `Lexicon`'s terms.
fn lexicon_of(lexicon: &Bound<'_, PyAny>) -> PyResult<Arc<Lexicon>> {
    let mut terms = Vec::new();
    for term in lexicon.getattr("terms")?.try_iter()? {
        terms.extend(terminal_of(&term?)?.for_lexicon());
    }
    Lexicon::new(&terms)
        .map(Arc::new)
        .map_err(|e| PyValueError::new_err(format!("{e:?}")))
}

/// The start parts a reference `TextScanner` stands for, read off its slots.
fn python_parts(scanner: &Bound<'_, PyAny>) -> PyResult<ScannerParts> {
    let openers_obj = scanner.getattr("_openers")?;
    let openers = lexicon_of(&openers_obj)?;
    let code_obj = scanner.getattr("_code_openers")?;
    let code = if code_obj.is_none() {
        None
    } else {
        Some(lexicon_of(&code_obj)?)
    };
    let mut answer = Vec::new();
    for lexicon in scanner.getattr("_answer_openers")?.try_iter()? {
        let lexicon = lexicon?;
        answer.push((lexicon_of(&lexicon)?, lexicon.is(&openers_obj)));
    }
    // (an unset slot: no reasoning)
    let inside = match scanner.getattr("_reasoning_lexicons") {
        Ok(pair) => Some(lexicon_of(&pair.downcast::<PyTuple>()?.get_item(1)?)?),
        Err(_) => None,
    };
    let marker = |name: &str| -> PyResult<Option<Vec<u32>>> {
        Ok(scanner
            .getattr(name)?
            .extract::<Option<String>>()?
            .map(|m| points(&m)))
    };
    let mut markup = Vec::new();
    for m in scanner.getattr("_markup")?.try_iter()? {
        markup.push(points(&m?.extract::<String>()?));
    }
    markup.sort();
    let fence: String = scanner.getattr("_fence")?.extract()?;
    let state = State::from_number(scanner.getattr("_state")?.extract()?)
        .ok_or_else(|| PyValueError::new_err("not a scanner's state"))?;
    let core = TextScanner {
        lexicons: Lexicons {
            openers: openers.clone(),
            code: code.clone(),
            answer,
            inside,
        },
        state,
        fence: fence.chars().next().map(u32::from),
        fence_len: scanner.getattr("_fence_len")?.extract()?,
        r_open: marker("_r_open")?,
        r_close: marker("_r_close")?,
        markup,
        answer: scanner.getattr("_answer")?.is_truthy()?,
        prelude: scanner.getattr("_prelude")?.is_truthy()?,
        absorb: scanner.getattr("_absorb")?.is_truthy()?,
        newline: None,
        ended: None,
    };
    let mut spelled = Vec::new();
    let items = scanner.getattr("spelled")?;
    for (literal, value) in items.downcast::<PyDict>()?.iter() {
        let (term, name): (Bound<'_, PyAny>, String) = value.extract()?;
        let tag = match terminal_of(&term)?.for_lexicon() {
            Some(crate::lexicon::Terminal::Tag(tag)) => tag,
            _ => return Err(PyValueError::new_err("a spelled tag that is no tag term")),
        };
        spelled.push((points(&literal.extract::<String>()?), tag, points(&name)));
    }
    let mut prefixes = Vec::new();
    for p in scanner.getattr("opener_prefixes")?.try_iter()? {
        prefixes.push(points(&p?.extract::<String>()?));
    }
    let tools: Option<Vec<String>> = scanner.getattr("_ctx")?.getattr("tool_names")?.extract()?;
    Ok(ScannerParts {
        core,
        text_lexicons: Arc::new(TextLexicons::of(Some(&openers))),
        code_lexicons: Arc::new(TextLexicons::of(code.as_deref())),
        spelled: Arc::new(spelled),
        opener_prefixes: Arc::new(PrefixSet::new(prefixes)),
        tools: tools.map(Arc::from),
    })
}

/// The reference scanner `scanner`, read off its slots, in the same canonical text.
#[pyfunction]
fn _python_scanner_dump(scanner: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(parts_dump(&python_parts(scanner)?))
}

/// (the module's functions, for lib.rs)
pub fn add_functions(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_start_scanner_dump, m)?)?;
    m.add_function(wrap_pyfunction!(_switched_scanner_dump, m)?)?;
    m.add_function(wrap_pyfunction!(_python_scanner_dump, m)?)
}
