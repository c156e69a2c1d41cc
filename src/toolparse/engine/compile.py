"""Compiling a grammar declaration into the tables the engine runs.

:func:`compile_grammar` checks a :class:`~toolparse.engine.declare.Grammar`
(every region a step names exists, every terminal is known) and builds, for
each distinct block closer, the regions with their lexicons and steps
resolved: ``CLOSER`` becomes that closer, ``OPENER`` every opener of the
grammar. It is done once per grammar and set of declared tools, and cached.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from toolparse.engine.declare import (
    BEFORE,
    CLOSER,
    END,
    END_OF_STREAM,
    KEY_CLOSE_TAG,
    OPENER,
    REJECT,
    SOLE_STRING,
    STAY,
    TOOL_EMPTY_TAG,
    TOOL_TAG,
    Fail,
    Go,
    Grammar,
    JsonArgs,
    JsonCalls,
    Literal,
    Name,
    Opener,
    Reasoning,
    Region,
    Space,
    Step,
    Term,
    TermLike,
    Value,
)
from toolparse.engine.lexicon import Lexicon
from toolparse.engine.value import Condition
from toolparse.events import ErrorReason

if TYPE_CHECKING:
    from toolparse.engine.auto import AutoTables

# where a step goes besides a region (regions are numbered from 0)
TO_END: Final = -1
TO_BEFORE: Final = -2
TO_REJECT: Final = -3
TO_STAY: Final = -4
TO_FAIL: Final = -5
_TARGETS: Final = {END: TO_END, BEFORE: TO_BEFORE, REJECT: TO_REJECT, STAY: TO_STAY}

_NOT_IN_NAMES: Final = "<>\"'=&/\\"
NOT_NAME: Final = re.compile(rf"[\s{re.escape(_NOT_IN_NAMES)}]")
"""A character no name holds."""
NOT_NAME_STRIPPED: Final = re.compile(f"[{re.escape(_NOT_IN_NAMES)}]")
"""A character no name holds, in a region whose name is stripped of spaces."""


@dataclass(frozen=True, slots=True)
class CStep:
    """A compiled step."""

    to: int
    call: bool = False
    json_call: bool = False  # the call's arguments are one JSON object (it goes to a JsonArgs region)
    member: bool = False
    sole_string: bool = False  # the member is the tool's sole string property
    end_member: bool = False
    end_call: bool = False
    require_sole_string: bool = False  # (entering a region) the tool must have a sole string property
    again: bool = False  # the terminal is read again by the next region
    message: str = ""  # (to == TO_FAIL)
    reason: ErrorReason = ErrorReason.MALFORMED_MARKUP  # (to == TO_FAIL)


@dataclass(slots=True)
class CRegion:
    """A compiled region: what every kind has. Each kind of region is a class of
    its own (below), read by the reader of its kind (``toolparse.engine.regions``)."""

    name: str
    lexicon: Lexicon
    steps: dict[TermLike, CStep] = field(default_factory=dict)
    otherwise: CStep | None = None
    at_end: CStep | None = None


@dataclass(slots=True)
class CSpace(CRegion):
    """Whitespace between terminals; other characters take their step."""

    chars: dict[str, CStep] = field(default_factory=dict)


@dataclass(slots=True)
class CName(CRegion):
    """A name, up to the terminal that ends it."""

    max_len: int = 128
    strip: bool = False
    declared: bool = False
    pattern: re.Pattern[str] | None = None
    """What may end the name or make it bad (None: anything may, as a property
    name's end may begin anywhere): the native core's gather lane takes a
    delta with none of it."""
    longest: int = 0
    """How long the name's text may grow (a stripped name may carry spaces)."""
    reach: int = 0
    """How far past the name's start its ending terminal may end: one longer
    than that is a name too long."""

    def __post_init__(self) -> None:
        self.longest = self.max_len + (64 if self.strip else 0)
        self.reach = self.longest + 1 + self.lexicon.max_len


@dataclass(slots=True)
class CJsonCalls(CRegion):
    """JSON call objects: one, an array, or several separated by ``separators``."""

    then: int = TO_END
    """Where reading goes on after the calls."""
    separators: str = ","
    keys: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    """The keys that hold a call's name, and those that hold its arguments (the
    declaration's: ``JsonCalls.name_keys`` and ``argument_keys`` hold the
    defaults; the native core has them from the grammar data)."""


@dataclass(slots=True)
class CJsonArgs(CRegion):
    """One JSON arguments object."""

    then: int = TO_END
    """Where reading goes on after it."""


@dataclass(slots=True)
class CValue(CRegion):
    """A parameter's value."""

    conditions: dict[TermLike, Condition] = field(default_factory=dict)
    xml: bool = False
    nest: dict[TermLike, TermLike] = field(default_factory=dict)  # opener -> closer
    nest_at_line_start: bool = False
    keep_newlines: bool = False
    balanced: bool = False
    closers: tuple[str, ...] = ()
    """The closing tags that end the value but not the call (the native core's
    gather lane takes a delta that only completes one: ``only_closes_value``)."""
    closed_by_key: bool = False
    """The key's own closing tag ends the value but not the call."""


@dataclass(slots=True)
class CSkip(CRegion):
    """Anything, up to the next terminal (a broken block's rest)."""


@dataclass(slots=True)
class CLiteral(CRegion):
    """A Python literal, up to a terminal character outside strings and brackets."""

    pattern: re.Pattern[str] | None = None
    """What needs a look outside strings."""


def _name_breakers(lexicon: Lexicon, strip: bool) -> re.Pattern[str] | None:
    """The characters that may end a name region's name (a terminal's first
    character) or make it bad; text with none of them only lengthens the name."""
    if lexicon.firsts is None:
        return None
    firsts = re.escape("".join(sorted(lexicon.firsts)))
    spaces = "" if strip else r"\s"
    return re.compile(f"[{firsts}{re.escape(_NOT_IN_NAMES)}{spaces}]")


@dataclass(frozen=True, slots=True, eq=False)
class Block:
    """The regions of blocks that one closer ends."""

    closer: TermLike | None
    regions: tuple[CRegion, ...]
    skip: CRegion
    """After broken markup: everything up to the closer or the next opener."""
    xml: bool = False
    """A value region reads XML (a member's collected text is an XML fragment)."""
    literal: bool = False
    """A region reads Python literals."""


@dataclass(frozen=True, slots=True)
class COpener:
    """A compiled opener."""

    block: Block
    region: int
    lenient: bool
    step: CStep | None
    again: bool = False  # the opener is read again by the block's first region


@dataclass(frozen=True, slots=True, eq=False)
class CompiledGrammar:
    """What the engine runs: a grammar's tables."""

    name: str
    openers: Lexicon
    """The terminals that open a block in the visible text."""
    start_openers: Lexicon | None
    """The terminals that open a block only where the answer begins."""
    opener_steps: dict[TermLike, COpener]
    start: COpener | None
    """Begin in this block (a forced answer), before any text."""
    tokens: bool = False
    """The literal openers are special tokens: markup even in Markdown code."""
    call_ends: str = ">})]"
    """Every character a call or its block can end with: the last character of
    each literal terminal, a tag's ``>``, and JSON's and Python's closing
    brackets. A delta with none of them cannot complete a call that has begun
    (the native core's gather lane takes such deltas; the reference reads them)."""
    opener_prefixes: frozenset[str] = frozenset()
    """Every proper prefix of a literal opener: text held back as one of them
    stays held while the next deltas only lengthen it (the native core's
    prefix lane)."""
    markup_prefixes: frozenset[str] = frozenset()
    """The same for every literal terminal of the blocks."""
    token_openers: Lexicon | None = None
    """The openers that are special tokens (markup in Markdown code too), where
    only some are (``grammar="auto"``; with ``tokens``, all of them are)."""
    auto: AutoTables | None = None
    """(``grammar="auto"``) the members this union of openers decides between."""
    reasoning: Reasoning | None = None
    """The declaration's own reasoning markers (``Grammar.reasoning``): what
    ``reasoning="auto"`` means for this grammar (``grammars.reasoning.reasoning_for``).
    The engine is given the reasoning chosen; this is here for the grammar's
    data (a Rust program resolves the option from it)."""

    def openers_for(
        self, tool_names: tuple[str, ...] | None
    ) -> tuple[Lexicon, dict[str, tuple[Term, str]], frozenset[str]]:
        """The openers as literals for these tools: ``<name>`` and ``<name/>``
        of each declared tool spelled out (found by one C-level search, where
        the generic tag pattern needs a look in Python at every tag of the
        text), what each such literal stands for (its term, the tool), and
        every proper prefix of a literal opener (see ``opener_prefixes``).
        Worth it for a few tools; with many, the generic pattern is used."""
        return _tool_openers(self, tool_names)


_MAX_SPELLED_TOOLS = 64


@functools.lru_cache(maxsize=64)
def _tool_openers(
    grammar: CompiledGrammar, tool_names: tuple[str, ...] | None
) -> tuple[Lexicon, dict[str, tuple[Term, str]], frozenset[str]]:
    terms = grammar.opener_steps
    spelled: dict[str, tuple[Term, str]] = {}
    if tool_names is not None and len(tool_names) <= _MAX_SPELLED_TOOLS:
        for name in tool_names:
            if TOOL_TAG in terms:
                spelled[f"<{name}>"] = (TOOL_TAG, name)
            if TOOL_EMPTY_TAG in terms:
                spelled[f"<{name}/>"] = (TOOL_EMPTY_TAG, name)
    anywhere = grammar.openers.terms
    others = [t for t in anywhere if t is not TOOL_TAG and t is not TOOL_EMPTY_TAG]
    if not tool_names and len(others) < len(anywhere):  # (no tool declared: no tag is a tool's)
        return _lexicon(tuple(others)), spelled, grammar.opener_prefixes
    if not spelled:
        return grammar.openers, spelled, grammar.opener_prefixes
    return Lexicon([*others, *spelled]), spelled, grammar.opener_prefixes | proper_prefixes(spelled)


@functools.lru_cache(maxsize=64)
def _lexicon(terms: tuple[TermLike, ...]) -> Lexicon:
    return Lexicon(terms)


def compile_grammar(grammar: Grammar) -> CompiledGrammar:
    """The engine's tables for ``grammar`` (checked; raises ValueError on a bad declaration)."""
    return _compile(grammar)


@functools.lru_cache(maxsize=64)
def _compile(grammar: Grammar) -> CompiledGrammar:
    names = list(grammar.regions)
    index = {name: k for k, name in enumerate(names)}
    opener_terms = tuple(grammar.openers)
    blocks: dict[TermLike | None, Block] = {}

    def block(closer: TermLike | None) -> Block:
        if closer not in blocks:
            regions = tuple(_region(name, grammar.regions, index, closer, opener_terms) for name in names)
            skip_terms: dict[TermLike, CStep] = {t: CStep(TO_BEFORE) for t in opener_terms}
            if closer is not None:
                skip_terms[closer] = CStep(TO_END)
            skip = CSkip("skip", Lexicon(skip_terms), skip_terms)
            xml = any(isinstance(r, CValue) and r.xml for r in regions)
            literal = any(isinstance(r, CLiteral) for r in regions)
            blocks[closer] = Block(closer, regions, skip, xml, literal)
        return blocks[closer]

    def opener(spec: Opener) -> COpener:
        if spec.to not in index:
            raise ValueError(f"{grammar.name}: an opener goes to an unknown region {spec.to!r}")
        step = None if spec.step is None else _step(spec.step, index, grammar.regions)
        return COpener(block(spec.closer), index[spec.to], spec.lenient, step, spec.again)

    opener_steps = {term: opener(spec) for term, spec in grammar.openers.items()}
    start = None
    if grammar.start is not None:
        start = opener(Opener(grammar.start))
    anywhere = tuple(t for t, spec in grammar.openers.items() if not spec.at_start)
    at_start = tuple(t for t, spec in grammar.openers.items() if spec.at_start)
    openers = Lexicon(anywhere)
    start_openers = Lexicon(at_start) if at_start else None
    ending = {b.closer for b in blocks.values()} | {
        term
        for b in blocks.values()
        for r in b.regions
        for term, step in r.steps.items()
        if step.end_call or step.to == TO_END
    }
    ends = "".join(sorted({">", "}", ")", "]", *(t[-1] for t in ending if isinstance(t, str) and t)}))
    markup = {t for b in blocks.values() for r in (*b.regions, b.skip) for t in r.lexicon.literals}
    markup |= {b.closer for b in blocks.values() if isinstance(b.closer, str)}
    return CompiledGrammar(
        grammar.name,
        openers,
        start_openers,
        opener_steps,
        start,
        grammar.tokens,
        ends,
        proper_prefixes(openers.literals),
        proper_prefixes(markup | openers.literals),
        reasoning=grammar.reasoning,
    )


def proper_prefixes(literals: Iterable[str]) -> frozenset[str]:
    """Every proper prefix of each of ``literals``."""
    return frozenset(t[:k] for t in literals for k in range(1, len(t)))


@dataclass(frozen=True, slots=True)
class _Resolver:
    """Resolves a region's steps and terminals for the block of one closer."""

    regions: Mapping[str, Region]
    index: Mapping[str, int]
    closer: TermLike | None
    openers: tuple[TermLike, ...]

    def one(self, step: Step) -> CStep:
        return _step(step, self.index, self.regions)

    def at_end(self, step: Step | None) -> CStep | None:
        return None if step is None else self.one(step)

    def terms(self, term: TermLike) -> tuple[TermLike, ...]:
        return _terms(term, self.closer, self.openers)

    def steps(self, steps: Mapping[TermLike, Step]) -> dict[TermLike, CStep]:
        resolved: dict[TermLike, CStep] = {}
        for term, step in steps.items():
            for real in self.terms(term):
                resolved.setdefault(real, self.one(step))
        return resolved


def _region(
    name: str,
    regions: Mapping[str, Region],
    index: Mapping[str, int],
    closer: TermLike | None,
    openers: tuple[TermLike, ...],
) -> CRegion:
    region = regions[name]
    compiler = _COMPILERS.get(type(region))
    if compiler is None:
        raise TypeError(f"not a region: {region!r}")
    return compiler(name, region, _Resolver(regions, index, closer, openers))


def _space(name: str, region: Space, r: _Resolver) -> CRegion:
    steps = r.steps(region.on)
    chars = {c: r.one(s) for c, s in region.chars.items()}
    return CSpace(name, Lexicon(steps), steps, r.one(region.otherwise), r.at_end(region.at_end), chars)


def _name(name: str, region: Name, r: _Resolver) -> CRegion:
    steps = r.steps(region.on)
    lexicon = Lexicon(steps)
    return CName(
        name,
        lexicon,
        steps,
        otherwise=r.one(region.otherwise),
        at_end=r.at_end(region.at_end),
        max_len=region.max_len,
        strip=region.strip,
        declared=region.declared,
        pattern=_name_breakers(lexicon, region.strip),
    )


def _json_calls(name: str, region: JsonCalls, r: _Resolver) -> CRegion:
    then = _target(region.then, r.index)
    otherwise = r.one(region.otherwise)
    for key in (*region.name_keys, *region.argument_keys):
        if not isinstance(key, str) or not key:
            raise ValueError(f"{name}: a call key must be a non-empty string, not {key!r}")
    keys = (tuple(region.name_keys), tuple(region.argument_keys))
    return CJsonCalls(
        name, Lexicon(()), otherwise=otherwise, then=then, separators=region.separators, keys=keys
    )


def _json_args(name: str, region: JsonArgs, r: _Resolver) -> CRegion:
    return CJsonArgs(name, Lexicon(()), then=_target(region.then, r.index))


def _value(name: str, region: Value, r: _Resolver) -> CRegion:
    steps = r.steps(region.on)
    conditions: dict[TermLike, Condition] = {}
    for term, step in region.on.items():
        if isinstance(step, Go) and (step.confirm or step.line_start):
            confirm = [c for t in step.confirm if t is not END_OF_STREAM for c in r.terms(t)]
            condition = Condition(
                Lexicon(confirm) if confirm else None, END_OF_STREAM in step.confirm, step.line_start
            )
            for real in r.terms(term):
                conditions[real] = condition
    nest = {
        opening: closing
        for term, end in region.nest.items()
        for opening in r.terms(term)
        for closing in r.terms(end)
    }
    return CValue(
        name,
        Lexicon([*steps, *nest, *nest.values()]),
        steps,
        at_end=r.at_end(region.at_end),
        conditions=conditions,
        xml=region.xml,
        nest=nest,
        nest_at_line_start=region.nest_at_line_start,
        keep_newlines=region.keep_newlines,
        balanced=region.balanced,
        closers=tuple(
            t
            for t, step in steps.items()
            if isinstance(t, str) and t.startswith("</") and t.endswith(">") and not step.end_call
        ),
        closed_by_key=KEY_CLOSE_TAG in steps and not steps[KEY_CLOSE_TAG].end_call,
    )


def _literal(name: str, region: Literal, r: _Resolver) -> CRegion:
    for term in region.on:
        if not isinstance(term, str) or len(term) != 1 or term in "\"'\\([{":
            raise ValueError(f"{name}: a literal ends at single characters, not {term!r}")
    ends: dict[TermLike, CStep] = {term: r.one(step) for term, step in region.on.items()}
    pattern = re.compile("[" + re.escape("\"'()[]{}" + "".join(region.on)) + "]")
    return CLiteral(name, Lexicon(()), ends, at_end=r.at_end(region.at_end), pattern=pattern)


_COMPILERS: Final[dict[type[Region], Callable[[str, Any, _Resolver], CRegion]]] = {
    Space: _space,
    Name: _name,
    JsonCalls: _json_calls,
    JsonArgs: _json_args,
    Value: _value,
    Literal: _literal,
}
"""The compiler of each kind of region declaration."""


def _terms(term: TermLike, closer: TermLike | None, openers: tuple[TermLike, ...]) -> tuple[TermLike, ...]:
    if term == CLOSER:
        return () if closer is None else (closer,)
    if term == OPENER:
        return openers
    if isinstance(term, Term) or (isinstance(term, str) and term):
        return (term,)
    raise ValueError(f"not a terminal: {term!r}")


def _target(to: str, index: Mapping[str, int]) -> int:
    if to in _TARGETS:
        return _TARGETS[to]
    if to not in index:
        raise ValueError(f"a step goes to an unknown region {to!r}")
    return index[to]


def _step(step: Step, index: Mapping[str, int], regions: Mapping[str, Region] | None) -> CStep:
    if isinstance(step, Fail):
        return CStep(TO_FAIL, message=step.message, reason=step.reason)
    to = _target(step.to, index)
    return CStep(
        to,
        call=step.call,
        json_call=step.call and _goes_to_json_args(step.to, index, regions),
        member=bool(step.member),
        sole_string=step.member == SOLE_STRING,
        end_member=step.end_member,
        end_call=step.end_call,
        require_sole_string=step.require == SOLE_STRING,
        again=step.again,
    )


def _goes_to_json_args(to: str, index: Mapping[str, int], regions: Mapping[str, Region] | None) -> bool:
    """A call started by a step to ``to`` takes one JSON arguments object: ``to``
    is a JsonArgs region, or markup (Space regions) leads only to one
    (``[CALL_ID]...[ARGS]{...}``, ``<|constrain|>json<|message|>{...}``)."""
    if regions is None:
        return False
    seen: set[str] = set()
    todo = [to]
    found = False
    while todo:
        name = todo.pop()
        if name in seen or name not in regions:
            continue
        seen.add(name)
        region = regions[name]
        if isinstance(region, JsonArgs):
            found = True
        elif isinstance(region, Space):
            steps = [*region.on.values(), *region.chars.values(), region.otherwise]
            todo += [step.to for step in steps if isinstance(step, Go)]
        else:
            return False  # (members are read there)
    return found
