//! The tables the native engine runs (`toolparse.engine.compile`), read once
//! per compiled grammar into the form the readers use.
//!
//! [`crate::tables`] reads a `CompiledGrammar`'s data (the tables' differential
//! test compares what it read); this module turns that into what reading
//! needs at once: each region's native [`Lexicon`], a step found by a hit's
//! [`Key`] without a search, value regions' [`ValueTables`], and blocks with
//! an identity. A block is the same `Block` object in `grammar="auto"`'s union
//! and in its member's own tables, and the engine keeps one block reader per
//! block (its `_machines`): auto's blocks are its members' own `BlockRt`s
//! (`grammar::Auto::owner_block` finds each).
//!
//! Everything here is read once per grammar (the binding keeps what it
//! read by the identity of the Python grammar object); no table is read per
//! delta.

use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::grammar::{
    Auto, Block, CharClass, Opener, Reason, Region, RegionKind, Step, Tables, Terminal,
};
use crate::lexicon::{Key, Lexicon, TagTerm as LTag, Terminal as LTerminal};
use crate::value::{Condition, ValueTables};

/// Why tables could not be read (they are generated and checked: a bug).
pub type TablesError = String;

/// Where `grammar="auto"`'s members' runtime tables come from: each
/// member's, by its name and data (built with [`build`], or shared).
pub type MemberOf<'a> = dyn FnMut(&str, &Arc<Tables>) -> Result<Arc<GrammarRt>, TablesError> + 'a;

/// A terminal as the lexicon has it ([`Terminal::for_lexicon`]).
pub fn lexicon_terminal(term: &Terminal) -> Option<LTerminal> {
    term.for_lexicon()
}

fn lexicon_terminals(terms: &[Terminal]) -> Vec<LTerminal> {
    terms.iter().filter_map(lexicon_terminal).collect()
}

fn new_lexicon(terms: &[Terminal], what: &str) -> Result<Lexicon, TablesError> {
    Lexicon::new(&lexicon_terminals(terms))
        .map_err(|e| format!("{what}: no lexicon of its terminals: {e:?}"))
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
    fn new(region: Region) -> Result<RegionRt, TablesError> {
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
    /// The block's identity (the engine's machines are kept by it): one a
    /// block of a grammar's data, shared by `grammar="auto"` with the member
    /// that owns it.
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
pub struct AutoRt {
    /// Each member's own tables, by name, in the order of the Python dict.
    pub members: Vec<(String, Arc<GrammarRt>)>,
    /// The member each block belongs to, by the block's identity.
    pub owners: HashMap<usize, String>,
    /// The shared openers, and who may take each.
    pub claims: Vec<(LTerminal, Vec<ClaimRt>)>,
    /// Markers that decide their member on sight.
    pub deciders: Vec<(Vec<u32>, String)>,
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
pub struct GrammarRt {
    pub name: String,
    /// Each opener's step, by its terminal.
    pub opener_steps: Vec<(LTerminal, OpenerRt)>,
    pub start: Option<OpenerRt>,
    /// The openers that open only where the answer begins.
    pub start_openers: Option<Vec<LTerminal>>,
    /// Every character a call or its block can end with.
    pub call_ends: Vec<u32>,
    pub markup_prefixes: Arc<crate::prefixes::PrefixSet>,
    pub auto: Option<AutoRt>,
    /// Every block of the tables, by its index in the data (`Tables::blocks`).
    pub blocks: Vec<Arc<BlockRt>>,
    /// What the host keeps with the grammar (the binding: the Python
    /// `CompiledGrammar`, which a shadow read of reasoning runs).
    pub handle: Option<Arc<dyn Any + Send + Sync>>,
    /// Its data (the start scanner is made of it, and kept by its identity).
    pub tables: Arc<Tables>,
}

impl GrammarRt {
    pub fn opener(&self, term: &LTerminal) -> Option<&OpenerRt> {
        self.opener_steps
            .iter()
            .find(|(t, _)| t == term)
            .map(|(_, o)| o)
    }
}

/// The next block's identity (0 is none's).
static NEXT_BLOCK: AtomicUsize = AtomicUsize::new(1);

fn block_rt(block: &Block) -> Result<Arc<BlockRt>, TablesError> {
    let closer = match &block.closer {
        Some(Terminal::Literal(s)) => Some(s.chars().map(u32::from).collect()),
        _ => None,
    };
    Ok(Arc::new(BlockRt {
        id: NEXT_BLOCK.fetch_add(1, Ordering::Relaxed),
        closer,
        regions: block
            .regions
            .iter()
            .map(|region| RegionRt::new(region.clone()))
            .collect::<Result<Vec<_>, TablesError>>()?,
        skip: RegionRt::new(block.skip.clone())?,
        xml: block.xml,
        literal: block.literal,
    }))
}

fn opener_rt(spec: &Opener, blocks: &[Arc<BlockRt>]) -> Result<OpenerRt, TablesError> {
    Ok(OpenerRt {
        block: blocks
            .get(spec.block)
            .ok_or_else(|| "an opener's block is not in the tables".to_owned())?
            .clone(),
        region: spec.region,
        lenient: spec.lenient,
        step: spec.step.clone(),
        again: spec.again,
    })
}

fn terminal_rt(term: &Terminal) -> Result<LTerminal, TablesError> {
    lexicon_terminal(term).ok_or_else(|| "the end of the stream is no opener".to_owned())
}

fn code_points(text: &str) -> Vec<u32> {
    text.chars().map(u32::from).collect()
}

/// Auto's tables, and its blocks: each its owner's own (`BlockRt` of the
/// member's tables, so that the engine's block reader is one per block, as
/// the Python union shares its members' `Block` objects).
fn auto_rt(
    tables: &Tables,
    auto: &Auto,
    member_of: &mut MemberOf<'_>,
) -> Result<(AutoRt, Vec<Arc<BlockRt>>), TablesError> {
    let mut members = Vec::with_capacity(auto.members.len());
    for (name, member) in &auto.members {
        // (the host may share a member read before; one not read yet is built
        // of the data that came with auto's, not read again)
        members.push((name.clone(), member_of(name, member)?));
    }
    let mut blocks = Vec::with_capacity(tables.blocks.len());
    let mut owners = HashMap::new();
    for k in 0..tables.blocks.len() {
        let (member, index) = auto
            .owner_block(tables, k)
            .ok_or_else(|| format!("auto: block {k} is no block of its owner"))?;
        let (name, member) = &members[member];
        let block = member
            .blocks
            .get(index)
            .ok_or_else(|| format!("auto: {name}'s tables differ from its data"))?;
        owners.insert(block.id, name.clone());
        blocks.push(block.clone());
    }
    let mut claims = Vec::with_capacity(auto.claims.len());
    for (term, owned) in &auto.claims {
        let owned = owned
            .iter()
            .map(|claim| {
                Ok(ClaimRt {
                    member: claim.member.clone(),
                    opener: opener_rt(&claim.opener, &blocks)?,
                    pattern: claim.pattern.clone(),
                    has_pattern: claim.source.is_some(),
                    takes_rest: claim.takes_rest,
                })
            })
            .collect::<Result<Vec<_>, TablesError>>()?;
        claims.push((terminal_rt(term)?, owned));
    }
    let deciders = auto
        .deciders
        .iter()
        .map(|(marker, member)| (code_points(marker), member.clone()))
        .collect();
    let read = AutoRt {
        members,
        owners,
        claims,
        deciders,
    };
    Ok((read, blocks))
}

/// The runtime tables of the grammar data `tables` (`handle`: what the host
/// keeps with them). For `grammar="auto"`, `member_of(name, data)` gives
/// each member's runtime tables (built of its data with [`build`], or shared).
pub fn build(
    tables: Arc<Tables>,
    handle: Option<Arc<dyn Any + Send + Sync>>,
    member_of: &mut MemberOf<'_>,
) -> Result<GrammarRt, TablesError> {
    let (auto, blocks) = match &tables.auto {
        None => (
            None,
            tables
                .blocks
                .iter()
                .map(block_rt)
                .collect::<Result<Vec<_>, TablesError>>()?,
        ),
        Some(auto) => {
            let (auto, blocks) = auto_rt(&tables, auto, member_of)?;
            (Some(auto), blocks)
        }
    };
    let opener_steps = tables
        .opener_steps
        .iter()
        .map(|(term, spec)| Ok((terminal_rt(term)?, opener_rt(spec, &blocks)?)))
        .collect::<Result<Vec<_>, TablesError>>()?;
    let start = tables
        .start
        .as_ref()
        .map(|spec| opener_rt(spec, &blocks))
        .transpose()?;
    Ok(GrammarRt {
        name: tables.name.clone(),
        opener_steps,
        start,
        start_openers: tables.start_openers.as_deref().map(lexicon_terminals),
        call_ends: code_points(&tables.call_ends),
        markup_prefixes: Arc::new(crate::prefixes::PrefixSet::new(
            tables.markup_prefixes.iter().map(|p| code_points(p)),
        )),
        auto,
        blocks,
        handle,
        tables,
    })
}

/// Why a step fails, as the Python `ErrorReason` value.
pub fn reason_value(reason: Reason) -> &'static str {
    reason.value()
}

/// Characters after a shared opener that a claim may look at (`auto.LOOKAHEAD`).
pub const LOOKAHEAD_CHARS: usize = crate::grammar::LOOKAHEAD;
