//! A compiled grammar's tables (`toolparse.engine.compile.CompiledGrammar`),
//! read once into Rust, from data.
//!
//! The tables cross as plain data: `toolparse.engine.grammar_data.grammar_json`
//! writes a `CompiledGrammar` as JSON in one schema, and the core's
//! [`toolparse_core::grammar`] deserializes it; nothing here reads the Python
//! objects of the tables. This module is that read's binding, and the Python
//! view of the result.
//!
//! `_native.Tables(compiled).describe()` gives the tables back as plain Python
//! values, and `tests/test_native_tables.py` compares that with the Python
//! tables of every grammar.

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

pub use toolparse_core::grammar::{
    Auto, Block, CharClass, Claim, Condition, Opener, Reason, Region, RegionKind, Step, Tables,
    TagTerm, Terminal, LOOKAHEAD, TO_BEFORE, TO_END, TO_FAIL, TO_REJECT, TO_STAY,
};

/// The grammar data of the Python `CompiledGrammar` `compiled`, as JSON
/// (`toolparse.engine.grammar_data.grammar_json`).
pub fn grammar_json(compiled: &Bound<'_, PyAny>) -> PyResult<String> {
    let py = compiled.py();
    py.import(intern!(py, "toolparse.engine.grammar_data"))?
        .getattr(intern!(py, "grammar_json"))?
        .call1((compiled,))?
        .extract()
}

/// The tables of the Python `CompiledGrammar` `compiled`, read from its data.
pub fn read(compiled: &Bound<'_, PyAny>) -> PyResult<Tables> {
    Tables::from_json(&grammar_json(compiled)?).map_err(PyValueError::new_err)
}

/// A Python terminal (a `str`, or a `declare.Term`) as the tables have it
/// (the scanner's openers; the tables' own come as data).
pub fn terminal_of(term: &Bound<'_, PyAny>) -> PyResult<Terminal> {
    if let Ok(text) = term.downcast::<PyString>() {
        return Ok(Terminal::Literal(text.to_cow()?.into_owned()));
    }
    let name: String = term.getattr("name")?.extract()?;
    TagTerm::named(&name).map(Terminal::Tag).ok_or_else(|| {
        PyValueError::new_err(format!("not a terminal the native core knows: {name:?}"))
    })
}

/// The tables' values as plain Python values.
trait Describe {
    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>>;
}

impl Describe for Terminal {
    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Terminal::Literal(text) => PyString::new(py, text).into_any(),
            Terminal::Tag(term) => PyTuple::new(py, ["term", term.name()])?.into_any(),
        })
    }
}

impl Describe for Step {
    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let flags: Vec<&str> = Step::FLAGS
            .iter()
            .zip(self.flags())
            .filter(|(_, on)| *on)
            .map(|(name, _)| *name)
            .collect();
        Ok(PyTuple::new(
            py,
            [
                self.to.into_pyobject(py)?.into_any(),
                PyTuple::new(py, flags)?.into_any(),
                PyString::new(py, &self.message).into_any(),
                PyString::new(py, self.reason.value()).into_any(),
            ],
        )?
        .into_any())
    }
}

fn describe_optional<'py>(py: Python<'py>, step: &Option<Step>) -> PyResult<Bound<'py, PyAny>> {
    match step {
        Some(step) => step.describe(py),
        None => Ok(py.None().into_bound(py)),
    }
}

// -- the Python view, for the differential test --------------------------------------------

fn terms_list<'py>(py: Python<'py>, terms: &[Terminal]) -> PyResult<Bound<'py, PyAny>> {
    let items = terms
        .iter()
        .map(|t| t.describe(py))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, items)?.into_any())
}

fn optional_terms_list<'py>(
    py: Python<'py>,
    terms: &Option<Vec<Terminal>>,
) -> PyResult<Bound<'py, PyAny>> {
    match terms {
        Some(terms) => terms_list(py, terms),
        None => Ok(py.None().into_bound(py)),
    }
}

fn chars_text(chars: &[u32]) -> String {
    chars.iter().filter_map(|&c| char::from_u32(c)).collect()
}

fn pairs<'py>(
    py: Python<'py>,
    items: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
) -> PyResult<Bound<'py, PyAny>> {
    let items = items
        .into_iter()
        .map(|(a, b)| PyTuple::new(py, [a, b]))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, items)?.into_any())
}

impl Describe for Region {
    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let view = PyDict::new(py);
        view.set_item("name", &self.name)?;
        view.set_item("terms", terms_list(py, &self.terms)?)?;
        view.set_item("firsts", self.firsts.as_ref().map(|f| chars_text(f)))?;
        let steps = self
            .steps
            .iter()
            .map(|(t, s)| Ok((t.describe(py)?, s.describe(py)?)))
            .collect::<PyResult<Vec<_>>>()?;
        view.set_item("steps", pairs(py, steps)?)?;
        view.set_item("otherwise", describe_optional(py, &self.otherwise)?)?;
        view.set_item("at_end", describe_optional(py, &self.at_end)?)?;
        match &self.kind {
            RegionKind::Space { chars } => {
                view.set_item("kind", "CSpace")?;
                let chars = chars
                    .iter()
                    .map(|(c, s)| {
                        Ok((
                            chars_text(&[*c]).into_pyobject(py)?.into_any(),
                            s.describe(py)?,
                        ))
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                view.set_item("chars", pairs(py, chars)?)?;
            }
            RegionKind::Name {
                max_len,
                strip,
                declared,
                breakers,
                longest,
                reach,
            } => {
                view.set_item("kind", "CName")?;
                view.set_item("max_len", max_len)?;
                view.set_item("strip", strip)?;
                view.set_item("declared", declared)?;
                view.set_item(
                    "breakers",
                    breakers.as_ref().map(|b| (chars_text(&b.chars), b.spaces)),
                )?;
                view.set_item("longest", longest)?;
                view.set_item("reach", reach)?;
            }
            RegionKind::JsonCalls {
                then,
                separators,
                name_keys,
                argument_keys,
            } => {
                view.set_item("kind", "CJsonCalls")?;
                view.set_item("then", then)?;
                view.set_item("separators", separators)?;
                view.set_item(
                    "keys",
                    (
                        PyTuple::new(py, name_keys)?,
                        PyTuple::new(py, argument_keys)?,
                    ),
                )?;
            }
            RegionKind::JsonArgs { then } => {
                view.set_item("kind", "CJsonArgs")?;
                view.set_item("then", then)?;
            }
            RegionKind::Value {
                conditions,
                xml,
                nest,
                nest_at_line_start,
                keep_newlines,
                balanced,
                closers,
                closed_by_key,
            } => {
                view.set_item("kind", "CValue")?;
                let conditions = conditions
                    .iter()
                    .map(|(t, c)| {
                        let condition = (
                            optional_terms_list(py, &c.confirm)?,
                            c.end_of_stream,
                            c.line_start,
                        );
                        Ok((t.describe(py)?, condition.into_pyobject(py)?.into_any()))
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                view.set_item("conditions", pairs(py, conditions)?)?;
                view.set_item("xml", xml)?;
                let nest = nest
                    .iter()
                    .map(|(a, b)| Ok((a.describe(py)?, b.describe(py)?)))
                    .collect::<PyResult<Vec<_>>>()?;
                view.set_item("nest", pairs(py, nest)?)?;
                view.set_item("nest_at_line_start", nest_at_line_start)?;
                view.set_item("keep_newlines", keep_newlines)?;
                view.set_item("balanced", balanced)?;
                view.set_item("closers", closers.clone())?;
                view.set_item("closed_by_key", closed_by_key)?;
            }
            RegionKind::Skip => view.set_item("kind", "CSkip")?,
            RegionKind::Literal { specials } => {
                view.set_item("kind", "CLiteral")?;
                view.set_item("specials", chars_text(&specials.chars))?;
            }
        }
        Ok(view.into_any())
    }
}

impl Describe for Opener {
    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok((
            self.block,
            self.region,
            self.lenient,
            describe_optional(py, &self.step)?,
            self.again,
        )
            .into_pyobject(py)?
            .into_any())
    }
}

fn describe_tables<'py>(py: Python<'py>, t: &Tables) -> PyResult<Bound<'py, PyAny>> {
    let view = PyDict::new(py);
    view.set_item("name", &t.name)?;
    view.set_item("openers", terms_list(py, &t.openers)?)?;
    view.set_item("start_openers", optional_terms_list(py, &t.start_openers)?)?;
    let opener_steps = t
        .opener_steps
        .iter()
        .map(|(term, opener)| Ok((term.describe(py)?, opener.describe(py)?)))
        .collect::<PyResult<Vec<_>>>()?;
    view.set_item("opener_steps", pairs(py, opener_steps)?)?;
    view.set_item(
        "start",
        match &t.start {
            Some(opener) => opener.describe(py)?,
            None => py.None().into_bound(py),
        },
    )?;
    view.set_item("tokens", t.tokens)?;
    view.set_item("call_ends", &t.call_ends)?;
    view.set_item("opener_prefixes", t.opener_prefixes.clone())?;
    view.set_item("markup_prefixes", t.markup_prefixes.clone())?;
    view.set_item("token_openers", optional_terms_list(py, &t.token_openers)?)?;
    view.set_item(
        "auto",
        match &t.auto {
            Some(auto) => describe_auto(py, auto)?,
            None => py.None().into_bound(py),
        },
    )?;
    let blocks = t
        .blocks
        .iter()
        .map(|block| {
            let view = PyDict::new(py);
            view.set_item(
                "closer",
                match &block.closer {
                    Some(closer) => closer.describe(py)?,
                    None => py.None().into_bound(py),
                },
            )?;
            let regions = block
                .regions
                .iter()
                .map(|r| r.describe(py))
                .collect::<PyResult<Vec<_>>>()?;
            view.set_item("regions", regions)?;
            view.set_item("skip", block.skip.describe(py)?)?;
            view.set_item("xml", block.xml)?;
            view.set_item("literal", block.literal)?;
            Ok(view.into_any())
        })
        .collect::<PyResult<Vec<_>>>()?;
    view.set_item("blocks", blocks)?;
    Ok(view.into_any())
}

fn describe_auto<'py>(py: Python<'py>, auto: &Auto) -> PyResult<Bound<'py, PyAny>> {
    let view = PyDict::new(py);
    let members = auto
        .members
        .iter()
        .map(|(name, tables)| {
            Ok((
                PyString::new(py, name).into_any(),
                describe_tables(py, tables)?,
            ))
        })
        .collect::<PyResult<Vec<_>>>()?;
    view.set_item("members", pairs(py, members)?)?;
    view.set_item("owners", auto.owners.clone())?;
    let claims = auto
        .claims
        .iter()
        .map(|(term, claims)| {
            let claims = claims
                .iter()
                .map(|c| {
                    Ok((
                        c.member.clone(),
                        c.opener.describe(py)?,
                        c.source.clone(),
                        c.never,
                        c.takes_rest,
                    )
                        .into_pyobject(py)?
                        .into_any())
                })
                .collect::<PyResult<Vec<_>>>()?;
            Ok((term.describe(py)?, PyList::new(py, claims)?.into_any()))
        })
        .collect::<PyResult<Vec<_>>>()?;
    view.set_item("claims", pairs(py, claims)?)?;
    view.set_item("deciders", auto.deciders.clone())?;
    Ok(view.into_any())
}

/// `_native.Tables(compiled)`: a `CompiledGrammar` read into the native core.
#[pyclass(module = "toolparse._native", name = "Tables", frozen)]
pub struct PyTables {
    pub tables: Tables,
}

#[pymethods]
impl PyTables {
    #[new]
    fn new(compiled: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyTables {
            tables: read(compiled)?,
        })
    }

    /// The tables as plain Python values (lists, tuples, dicts, strings and
    /// numbers), for comparing with the Python tables they were read from.
    fn describe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        describe_tables(py, &self.tables)
    }

    /// Whether claim `k` of the shared opener `term` (auto's tables) holds
    /// for `window`, the text right after the opener (`LOOKAHEAD` characters
    /// at most; a lone surrogate is read as U+FFFD, which no claim names).
    fn claim_matches(
        &self,
        term: &Bound<'_, PyAny>,
        k: usize,
        window: &Bound<'_, PyString>,
    ) -> PyResult<bool> {
        let term = terminal_of(term)?;
        let auto = self
            .tables
            .auto
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("these tables are not auto's"))?;
        let (_, claims) = auto
            .claims
            .iter()
            .find(|(known, _)| *known == term)
            .ok_or_else(|| PyValueError::new_err("no claim on that opener"))?;
        let claim = claims
            .get(k)
            .ok_or_else(|| PyValueError::new_err("no such claim"))?;
        Ok(claim.matches(&window.to_string_lossy()))
    }

    /// How many blocks the tables hold.
    #[getter]
    fn blocks(&self) -> usize {
        self.tables.blocks.len()
    }
}

#[cfg(test)]
mod tests {
    use crate::tags::is_python_space;

    #[test]
    fn python_spaces_are_str_isspace() {
        // (the characters CPython's str.isspace() is true for)
        let spaces: Vec<u32> = (0..0x3001).filter(|&c| is_python_space(c)).collect();
        let mut expected: Vec<u32> = (0x09..=0x0d).chain(0x1c..=0x20).collect();
        expected.extend([0x85, 0xa0, 0x1680]);
        expected.extend(0x2000..=0x200a);
        expected.extend([0x2028, 0x2029, 0x202f, 0x205f, 0x3000]);
        assert_eq!(spaces, expected);
    }
}
