//! The tables the native engine runs (`toolparse.engine.compile`), read once
//! per compiled grammar into the form the readers use.
//!
//! [`crate::tables`] reads a `CompiledGrammar` field for field (and is what
//! the tables' differential test compares); this module turns that into what
//! reading needs at once: each region's native [`Lexicon`], a step found by a
//! hit's [`Key`] without a search, value regions' [`ValueTables`], and blocks
//! shared by identity. A block is the same `Block` object in `grammar="auto"`'s
//! union and in its member's own tables, and the engine keeps one block reader
//! per block (its `_machines`), so blocks are registered by the identity of
//! their Python object, which the registry keeps alive.
//!
//! Everything here is read from Python once per grammar object and cached;
//! no table is read per delta.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::lexicon::{Key, Lexicon, TagTerm as LTag, Terminal as LTerminal};
use crate::tables::{self, CharClass, Reason, Region, RegionKind, Step, TagTerm, Terminal};
use crate::value::{Condition, ValueTables};

/// A terminal as the lexicon has it (a tag term of the tables, as the
/// lexicon's; `EndOfStream` is no lexicon's terminal).
pub fn lexicon_terminal(term: &Terminal) -> Option<LTerminal> {
    Some(match term {
        Terminal::Literal(s) => LTerminal::Literal(s.chars().map(u32::from).collect()),
        Terminal::Tag(tag) => LTerminal::Tag(match tag {
            TagTerm::AnyOpen => LTag::AnyOpen,
            TagTerm::AnyClose => LTag::AnyClose,
            TagTerm::AnyEmpty => LTag::AnyEmpty,
            TagTerm::Property => LTag::Property,
            TagTerm::KeyClose => LTag::KeyClose,
            TagTerm::KeyOpen => LTag::KeyOpen,
            TagTerm::CallClose => LTag::CallClose,
            TagTerm::Tool => LTag::Tool,
            TagTerm::ToolEmpty => LTag::ToolEmpty,
            TagTerm::PropertyName => LTag::PropertyName,
            TagTerm::EndOfStream => return None,
        }),
    })
}

fn lexicon_terminals(terms: &[Terminal]) -> Vec<LTerminal> {
    terms.iter().filter_map(lexicon_terminal).collect()
}

fn new_lexicon(terms: &[Terminal], what: &str) -> PyResult<Lexicon> {
    Lexicon::new(&lexicon_terminals(terms))
        .map_err(|e| PyValueError::new_err(format!("{what}: no lexicon of its terminals: {e:?}")))
}

/// What a lexicon's hit `key` is, as a terminal of the tables.
pub fn key_terminal(lexicon: &Lexicon, key: Key) -> Option<LTerminal> {
    match key {
        Key::Literal(k) => lexicon.literals().get(k).cloned().map(LTerminal::Literal),
        Key::Tag(tag) => Some(LTerminal::Tag(tag)),
    }
}

/// Values keyed by a lexicon's hit keys: by literal index, and by tag term.
#[derive(Clone, Debug)]
pub struct ByKey<V> {
    literals: Vec<Option<V>>,
    tags: Vec<(LTag, V)>,
}

impl<V: Clone> ByKey<V> {
    /// `entries` keyed as `lexicon` keys its hits (an entry no hit of the
    /// lexicon can give is kept out).
    pub fn new(lexicon: &Lexicon, entries: &[(LTerminal, V)]) -> Self {
        let mut literals = vec![None; lexicon.literals().len()];
        let mut tags = Vec::new();
        for (term, value) in entries {
            match term {
                LTerminal::Literal(text) => {
                    if let Some(k) = lexicon.literals().iter().position(|l| l == text) {
                        literals[k] = Some(value.clone());
                    }
                }
                LTerminal::Tag(tag) => tags.push((*tag, value.clone())),
            }
        }
        ByKey { literals, tags }
    }

    pub fn get(&self, key: Key) -> Option<&V> {
        match key {
            Key::Literal(k) => self.literals.get(k).and_then(Option::as_ref),
            Key::Tag(tag) => self.tags.iter().find(|(t, _)| *t == tag).map(|(_, v)| v),
        }
    }
}

/// What each kind of region has of its own, ready to read with.
#[derive(Debug)]
pub enum Kind {
    Space {
        chars: Vec<(u32, Step)>,
    },
    Name {
        max_len: usize,
        strip: bool,
        declared: bool,
        /// What may end the name or make it bad (None: anything may).
        breakers: Option<CharClass>,
        longest: usize,
        reach: usize,
    },
    JsonCalls {
        then: i32,
        separators: Vec<u32>,
        name_keys: Vec<Vec<u8>>,
        argument_keys: Vec<Vec<u8>>,
    },
    JsonArgs {
        then: i32,
    },
    Value {
        tables: Arc<ValueTables>,
        xml: bool,
        balanced: bool,
        /// The closing tags that end the value but not the call.
        closers: Vec<Vec<u32>>,
        closed_by_key: bool,
    },
    Skip,
    Literal {
        /// What needs a look outside strings.
        specials: CharClass,
        /// The single characters that end the literal, and their steps.
        ends: Vec<(u32, Step)>,
    },
}

/// A compiled region, ready to read with.
#[derive(Debug)]
pub struct RegionRt {
    pub name: String,
    pub lexicon: Lexicon,
    pub steps: ByKey<Step>,
    pub otherwise: Option<Step>,
    pub at_end: Option<Step>,
    pub kind: Kind,
}

impl RegionRt {
    fn new(region: Region) -> PyResult<RegionRt> {
        let lexicon = new_lexicon(&region.terms, &region.name)?;
        let entries: Vec<(LTerminal, Step)> = region
            .steps
            .iter()
            .filter_map(|(t, s)| lexicon_terminal(t).map(|t| (t, s.clone())))
            .collect();
        let steps = ByKey::new(&lexicon, &entries);
        let kind = match region.kind {
            RegionKind::Space { chars } => Kind::Space { chars },
            RegionKind::Name {
                max_len,
                strip,
                declared,
                breakers,
                longest,
                reach,
            } => Kind::Name {
                max_len: usize::try_from(max_len).unwrap_or(0),
                strip,
                declared,
                breakers,
                longest: usize::try_from(longest).unwrap_or(0),
                reach: usize::try_from(reach).unwrap_or(0),
            },
            RegionKind::JsonCalls {
                then,
                separators,
                name_keys,
                argument_keys,
            } => Kind::JsonCalls {
                then,
                separators: separators.chars().map(u32::from).collect(),
                name_keys: name_keys.into_iter().map(String::into_bytes).collect(),
                argument_keys: argument_keys.into_iter().map(String::into_bytes).collect(),
            },
            RegionKind::JsonArgs { then } => Kind::JsonArgs { then },
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
                let mut read = Vec::with_capacity(conditions.len());
                for (term, condition) in conditions {
                    let Some(term) = lexicon_terminal(&term) else {
                        continue;
                    };
                    let confirm = match &condition.confirm {
                        Some(terms) => Some(new_lexicon(terms, &region.name)?),
                        None => None,
                    };
                    read.push((
                        term,
                        Condition {
                            confirm,
                            end_of_stream: condition.end_of_stream,
                            line_start: condition.line_start,
                        },
                    ));
                }
                let tables = ValueTables {
                    lexicon: lexicon.clone(),
                    steps: entries.iter().map(|(t, _)| t.clone()).collect(),
                    conditions: read,
                    nest: nest
                        .iter()
                        .filter_map(|(a, b)| Some((lexicon_terminal(a)?, lexicon_terminal(b)?)))
                        .collect(),
                    nest_at_line_start,
                    keep_newlines,
                    xml,
                };
                Kind::Value {
                    tables: Arc::new(tables),
                    xml,
                    balanced,
                    closers: closers
                        .iter()
                        .map(|c| c.chars().map(u32::from).collect())
                        .collect(),
                    closed_by_key,
                }
            }
            RegionKind::Skip => Kind::Skip,
            RegionKind::Literal { specials } => Kind::Literal {
                specials,
                ends: region
                    .steps
                    .iter()
                    .filter_map(|(t, s)| match t {
                        Terminal::Literal(c) if c.chars().count() == 1 => {
                            c.chars().next().map(|c| (u32::from(c), s.clone()))
                        }
                        _ => None,
                    })
                    .collect(),
            },
        };
        Ok(RegionRt {
            name: region.name,
            lexicon,
            steps,
            otherwise: region.otherwise,
            at_end: region.at_end,
            kind,
        })
    }
}

/// The regions of blocks that one closer ends (`Block`).
#[derive(Debug)]
pub struct BlockRt {
    /// The identity of the Python `Block` (the engine's machines are kept by it).
    pub id: usize,
    /// The closer, when it is a literal (`Machine.closer`).
    pub closer: Option<Vec<u32>>,
    pub regions: Vec<RegionRt>,
    pub skip: RegionRt,
    pub xml: bool,
    pub literal: bool,
}

/// A compiled opener (`COpener`).
#[derive(Clone, Debug)]
pub struct OpenerRt {
    pub block: Arc<BlockRt>,
    pub region: i32,
    pub lenient: bool,
    pub step: Option<Step>,
    pub again: bool,
}

/// One member's claim on a shared opener (`auto.Claim`).
#[derive(Debug)]
pub struct ClaimRt {
    pub member: String,
    pub opener: OpenerRt,
    /// None: no pattern (or `never`).
    pub pattern: Option<regex::Regex>,
    pub has_pattern: bool,
    pub takes_rest: bool,
}

/// `grammar="auto"`'s tables (`auto.AutoTables`).
#[derive(Debug)]
pub struct AutoRt {
    /// Each member's own tables, by name, in the order of the Python dict.
    pub members: Vec<(String, Arc<GrammarRt>)>,
    /// The member each block belongs to, by the block's identity.
    pub owners: HashMap<usize, String>,
    /// The shared openers, and who may take each.
    pub claims: Vec<(LTerminal, Vec<ClaimRt>)>,
    /// Markers that decide their member on sight.
    pub deciders: Vec<(Vec<u32>, String)>,
    /// The Python `AutoTables` (its declarations: each member's reasoning).
    pub py: PyObject,
}

impl AutoRt {
    pub fn member(&self, name: &str) -> Option<&Arc<GrammarRt>> {
        self.members.iter().find(|(n, _)| n == name).map(|(_, g)| g)
    }

    pub fn claims_of(&self, term: &LTerminal) -> Option<&[ClaimRt]> {
        self.claims
            .iter()
            .find(|(t, _)| t == term)
            .map(|(_, c)| &c[..])
    }

    pub fn decider(&self, marker: &[u32]) -> Option<&str> {
        self.deciders
            .iter()
            .find(|(m, _)| m == marker)
            .map(|(_, name)| name.as_str())
    }
}

/// A grammar's tables, ready to run (`CompiledGrammar`).
#[derive(Debug)]
pub struct GrammarRt {
    pub name: String,
    /// Each opener's step, by its terminal.
    pub opener_steps: Vec<(LTerminal, OpenerRt)>,
    pub start: Option<OpenerRt>,
    /// The openers that open only where the answer begins.
    pub start_openers: Option<Vec<LTerminal>>,
    /// Every character a call or its block can end with.
    pub call_ends: Vec<u32>,
    pub markup_prefixes: crate::engine::Prefixes,
    pub auto: Option<AutoRt>,
    /// The Python `CompiledGrammar` (kept: the caches are by its identity).
    pub py: PyObject,
}

impl GrammarRt {
    pub fn opener(&self, term: &LTerminal) -> Option<&OpenerRt> {
        self.opener_steps
            .iter()
            .find(|(t, _)| t == term)
            .map(|(_, o)| o)
    }
}

/// The blocks and grammars read so far, by the identity of their Python
/// objects (kept alive here, so an identity is never reused).
struct Registry {
    blocks: crate::fxhash::FxHashMap<usize, (PyObject, Arc<BlockRt>)>,
    grammars: crate::fxhash::FxHashMap<usize, (PyObject, Arc<GrammarRt>)>,
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

/// Grammars (and so blocks) the registry keeps at most: past it, it starts
/// afresh (the Python side compiles at most a few dozen; a caller building
/// grammars without end must not grow it without end).
const MAX_GRAMMARS: usize = 512;

fn with_registry<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    let mut guard = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    let registry = guard.get_or_insert_with(|| Registry {
        blocks: Default::default(),
        grammars: Default::default(),
    });
    f(registry)
}

fn block_of(block: &Bound<'_, PyAny>) -> PyResult<Arc<BlockRt>> {
    let id = block.as_ptr() as usize;
    if let Some(found) = with_registry(|r| r.blocks.get(&id).map(|(_, b)| b.clone())) {
        return Ok(found);
    }
    let closer = block.getattr("closer")?;
    let closer = if closer.is_none() {
        None
    } else {
        match Terminal::read(&closer)? {
            Terminal::Literal(s) => Some(s.chars().map(u32::from).collect()),
            Terminal::Tag(_) => None,
        }
    };
    let regions = block
        .getattr("regions")?
        .try_iter()?
        .map(|region| RegionRt::new(Region::read(&region?)?))
        .collect::<PyResult<Vec<_>>>()?;
    let read = Arc::new(BlockRt {
        id,
        closer,
        regions,
        skip: RegionRt::new(Region::read(&block.getattr("skip")?)?)?,
        xml: block.getattr("xml")?.extract()?,
        literal: block.getattr("literal")?.extract()?,
    });
    with_registry(|r| {
        r.blocks.insert(id, (block.clone().unbind(), read.clone()));
    });
    Ok(read)
}

fn opener_of(spec: &Bound<'_, PyAny>) -> PyResult<OpenerRt> {
    Ok(OpenerRt {
        block: block_of(&spec.getattr("block")?)?,
        region: spec.getattr("region")?.extract()?,
        lenient: spec.getattr("lenient")?.extract()?,
        step: Step::read_optional(&spec.getattr("step")?)?,
        again: spec.getattr("again")?.extract()?,
    })
}

fn terminal_of(term: &Bound<'_, PyAny>) -> PyResult<LTerminal> {
    lexicon_terminal(&Terminal::read(term)?)
        .ok_or_else(|| PyValueError::new_err("the end of the stream is no opener"))
}

fn claim_of(claim: &Bound<'_, PyAny>) -> PyResult<ClaimRt> {
    let pattern = claim.getattr("pattern")?;
    let (compiled, has_pattern) = if pattern.is_none() {
        (None, false)
    } else {
        let source: String = pattern.getattr("pattern")?.extract()?;
        match tables::python_pattern(&source).map_err(PyValueError::new_err)? {
            None => (None, true), // (never matches)
            Some(translated) => {
                let anchored = format!("^(?:{translated})");
                let compiled = regex::Regex::new(&anchored)
                    .map_err(|e| PyValueError::new_err(format!("{source:?}: {e}")))?;
                (Some(compiled), true)
            }
        }
    };
    Ok(ClaimRt {
        member: claim.getattr("member")?.extract()?,
        opener: opener_of(&claim.getattr("opener")?)?,
        pattern: compiled,
        has_pattern,
        takes_rest: claim.getattr("takes_rest")?.extract()?,
    })
}

fn auto_of(auto: &Bound<'_, PyAny>) -> PyResult<AutoRt> {
    let mut members = Vec::new();
    for (name, member) in auto.getattr("members")?.downcast::<PyDict>()?.iter() {
        members.push((name.extract()?, grammar_of(&member)?));
    }
    let mut owners = HashMap::new();
    for (block, member) in auto.getattr("owners")?.downcast::<PyDict>()?.iter() {
        owners.insert(block_of(&block)?.id, member.extract()?);
    }
    let mut claims = Vec::new();
    for (term, owned) in auto.getattr("claims")?.downcast::<PyDict>()?.iter() {
        let owned = owned
            .try_iter()?
            .map(|claim| claim_of(&claim?))
            .collect::<PyResult<Vec<_>>>()?;
        claims.push((terminal_of(&term)?, owned));
    }
    let mut deciders = Vec::new();
    for (marker, member) in auto.getattr("deciders")?.downcast::<PyDict>()?.iter() {
        let marker: String = marker.extract()?;
        deciders.push((marker.chars().map(u32::from).collect(), member.extract()?));
    }
    Ok(AutoRt {
        members,
        owners,
        claims,
        deciders,
        py: auto.clone().unbind(),
    })
}

fn prefixes_of(set: &Bound<'_, PyAny>) -> PyResult<crate::prefixes::PrefixSet> {
    let mut out = Vec::new();
    for item in set.try_iter()? {
        let item = item?;
        let s = item.downcast::<PyString>()?;
        out.push(crate::pylexicon::name_of(s).code_points());
    }
    Ok(crate::prefixes::PrefixSet::new(out))
}

/// The runtime tables of the Python `CompiledGrammar` `compiled` (read once,
/// then cached by its identity).
pub fn grammar_of(compiled: &Bound<'_, PyAny>) -> PyResult<Arc<GrammarRt>> {
    let id = compiled.as_ptr() as usize;
    if let Some(found) = with_registry(|r| r.grammars.get(&id).map(|(_, g)| g.clone())) {
        return Ok(found);
    }
    let mut opener_steps = Vec::new();
    for (term, spec) in compiled
        .getattr("opener_steps")?
        .downcast::<PyDict>()?
        .iter()
    {
        opener_steps.push((terminal_of(&term)?, opener_of(&spec)?));
    }
    let start = compiled.getattr("start")?;
    let start = if start.is_none() {
        None
    } else {
        Some(opener_of(&start)?)
    };
    let start_openers = compiled.getattr("start_openers")?;
    let start_openers = if start_openers.is_none() {
        None
    } else {
        Some(lexicon_terminals(&tables::terms_of(&start_openers)?))
    };
    let auto = compiled.getattr("auto")?;
    let auto = if auto.is_none() {
        None
    } else {
        Some(auto_of(&auto)?)
    };
    let call_ends: String = compiled.getattr("call_ends")?.extract()?;
    let read = Arc::new(GrammarRt {
        name: compiled.getattr("name")?.extract()?,
        opener_steps,
        start,
        start_openers,
        call_ends: call_ends.chars().map(u32::from).collect(),
        markup_prefixes: Arc::new(prefixes_of(&compiled.getattr("markup_prefixes")?)?),
        auto,
        py: compiled.clone().unbind(),
    });
    with_registry(|r| {
        if r.grammars.len() >= MAX_GRAMMARS {
            r.grammars.clear();
            r.blocks.clear();
        }
        r.grammars
            .insert(id, (compiled.clone().unbind(), read.clone()));
    });
    Ok(read)
}

/// Why a step fails, as the Python `ErrorReason` value.
pub fn reason_value(reason: Reason) -> &'static str {
    reason.value()
}

/// Characters after a shared opener that a claim may look at (`auto.LOOKAHEAD`).
pub const LOOKAHEAD_CHARS: usize = crate::tables::LOOKAHEAD;
