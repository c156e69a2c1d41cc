"""The native core reads every grammar's compiled tables as the Python engine has them.

``_native.Tables(compiled).describe()`` gives back what the native core read
from a :class:`~toolparse.engine.compile.CompiledGrammar`; :func:`describe`
here builds the same view from the Python objects. The two must be equal for
every grammar (the native structure path runs these tables).
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest

from toolparse.engine import native
from toolparse.engine.compile import (
    Block,
    CJsonArgs,
    CJsonCalls,
    CLiteral,
    CName,
    CompiledGrammar,
    COpener,
    CRegion,
    CSpace,
    CStep,
    CValue,
    compile_grammar,
)
from toolparse.engine.declare import Term, TermLike
from toolparse.engine.grammar_data import NEVER, table_pattern
from toolparse.engine.lexicon import Lexicon
from toolparse.grammars import auto_tables, get_grammar, grammar_names

pytestmark = pytest.mark.skipif(
    not native.AVAILABLE, reason="the native core (toolparse._native) is not built in this installation"
)

_FLAGS = (
    "call",
    "json_call",
    "member",
    "sole_string",
    "end_member",
    "end_call",
    "require_sole_string",
    "again",
)
_NOT_IN_NAMES = "<>\"'=&/\\"


def _term(term: TermLike) -> Any:
    return ("term", term.name) if isinstance(term, Term) else term


def _terms(lexicon: Lexicon | None) -> Any:
    return None if lexicon is None else [_term(t) for t in lexicon.terms]


def _step(step: CStep | None) -> Any:
    if step is None:
        return None
    return (step.to, tuple(f for f in _FLAGS if getattr(step, f)), step.message, str(step.reason))


def _class_chars(pattern: re.Pattern[str] | None) -> Any:
    """The characters (of the first 0x3001) that a one-class pattern matches."""
    if pattern is None:
        return None
    return "".join(chr(c) for c in range(0x3001) if pattern.fullmatch(chr(c)))


def _region(region: CRegion) -> dict[str, Any]:
    firsts = region.lexicon.firsts
    view: dict[str, Any] = {
        "name": region.name,
        "terms": _terms(region.lexicon),
        "firsts": None if firsts is None else "".join(sorted(firsts)),
        "steps": [(_term(t), _step(s)) for t, s in region.steps.items()],
        "otherwise": _step(region.otherwise),
        "at_end": _step(region.at_end),
        "kind": type(region).__name__,
    }
    if isinstance(region, CSpace):
        view["chars"] = [(c, _step(s)) for c, s in region.chars.items()]
    elif isinstance(region, CName):
        view.update(
            max_len=region.max_len,
            strip=region.strip,
            declared=region.declared,
            # (a class with every space holds them as a flag, the others listed)
            breakers=None
            if region.pattern is None
            else (
                "".join(
                    sorted(c for c in {*(firsts or ()), *_NOT_IN_NAMES} if region.strip or not c.isspace())
                ),
                not region.strip,
            ),
            longest=region.longest,
            reach=region.reach,
        )
    elif isinstance(region, CJsonCalls):
        view.update(then=region.then, separators=region.separators, keys=region.keys)
    elif isinstance(region, CJsonArgs):
        view["then"] = region.then
    elif isinstance(region, CValue):
        view.update(
            conditions=[
                (_term(t), (_terms(c.confirm), c.end_of_stream, c.line_start))
                for t, c in region.conditions.items()
            ],
            xml=region.xml,
            nest=[(_term(a), _term(b)) for a, b in region.nest.items()],
            nest_at_line_start=region.nest_at_line_start,
            keep_newlines=region.keep_newlines,
            balanced=region.balanced,
            closers=list(region.closers),
            closed_by_key=region.closed_by_key,
        )
    elif isinstance(region, CLiteral):
        view["specials"] = "".join(sorted({*"\"'()[]{}", *(t for t in region.steps if isinstance(t, str))}))
    return view


def describe(compiled: CompiledGrammar) -> dict[str, Any]:
    """The Python tables, in the shape of ``_native.Tables.describe()``."""
    blocks: list[Block] = []

    def index(block: Block) -> int:
        if not any(b is block for b in blocks):
            blocks.append(block)
        return next(k for k, b in enumerate(blocks) if b is block)

    def opener(spec: COpener) -> Any:
        return (index(spec.block), spec.region, spec.lenient, _step(spec.step), spec.again)

    opener_steps = [(_term(t), opener(spec)) for t, spec in compiled.opener_steps.items()]
    start = None if compiled.start is None else opener(compiled.start)
    auto: Any = None
    if compiled.auto is not None:
        tables = compiled.auto
        claims = [
            (
                _term(term),
                [
                    (
                        c.member,
                        opener(c.opener),
                        # (the data carries the pattern in the tables' syntax)
                        None if c.pattern is None else table_pattern(c.pattern.pattern),
                        c.pattern is not None and c.pattern.pattern == NEVER,
                        c.takes_rest,
                    )
                    for c in owned
                ],
            )
            for term, owned in tables.claims.items()
        ]
        owners = {index(block): member for block, member in tables.owners.items()}
        auto = {
            "members": [(name, describe(member)) for name, member in tables.members.items()],
            "owners": [owners.get(k) for k in range(len(blocks))],
            "claims": claims,
            "deciders": list(tables.deciders.items()),
        }
    return {
        "name": compiled.name,
        "openers": _terms(compiled.openers),
        "start_openers": _terms(compiled.start_openers),
        "opener_steps": opener_steps,
        "start": start,
        "tokens": compiled.tokens,
        "call_ends": compiled.call_ends,
        "opener_prefixes": sorted(compiled.opener_prefixes),
        "markup_prefixes": sorted(compiled.markup_prefixes),
        "token_openers": _terms(compiled.token_openers),
        "auto": auto,
        "blocks": [
            {
                "closer": None if b.closer is None else _term(b.closer),
                "regions": [_region(r) for r in b.regions],
                "skip": _region(b.skip),
                "xml": b.xml,
                "literal": b.literal,
            }
            for b in blocks
        ],
    }


def _native() -> Any:
    return importlib.import_module("toolparse._native")


def _compiled(name: str) -> CompiledGrammar:
    return auto_tables() if name == "auto" else compile_grammar(get_grammar(name))


@pytest.mark.parametrize("name", sorted({*grammar_names(), "auto"}))
def test_the_native_core_reads_the_tables_of_every_grammar(name: str) -> None:
    compiled = _compiled(name)
    tables = _native().Tables(compiled)
    assert tables.describe() == describe(compiled)
    assert tables.blocks == len(describe(compiled)["blocks"])


_CLAIM_TEXTS = (
    "",
    " ",
    "\n[",
    "{",
    ' {"name": 1}',
    "[get_weather(city='Paris')]",
    "\x1c[a",  # (a space to Python's \s, not to Unicode's)
    "\x85 <",
    "\u3000function=f",
    "<function=x>",
    "get_weather\n<arg_key>city</arg_key>",
    "get_weather</tool_call>",
    "get weather<arg_key>",
    "x" * 130 + "<arg_key>",
    "x" * 128 + "<arg_key>",
    "f>\n{",
    "f> <",
    'ab">\n<param name="x">',
    'ab"></function>',
    "<\uff5ctool_call_begin\uff5c>",
    " <tool_call>",
    "\ud800[",
    "[\ud800",
)


def test_auto_s_claims_match_alike() -> None:
    compiled = _compiled("auto")
    assert compiled.auto is not None
    tables = _native().Tables(compiled)
    seen = 0
    for term, claims in compiled.auto.claims.items():
        for k, claim in enumerate(claims):
            for text in _CLAIM_TEXTS:
                for cut in (text, text[:3], text[:-1]):
                    expected = claim.pattern is not None and claim.pattern.match(cut, 0, 256) is not None
                    assert tables.claim_matches(term, k, cut) is expected, (term, claim.member, cut)
                    seen += expected
    assert seen > 20


def test_a_name_s_breakers_are_its_pattern() -> None:
    # (the native core builds a name's breakers from its lexicon's firsts; the
    # Python pattern is the reference: both must hold the same characters)
    seen = 0
    for name in grammar_names():
        compiled = _compiled(name)
        regions = [r for spec in compiled.opener_steps.values() for r in spec.block.regions]
        for region in regions:
            if isinstance(region, CName) and region.pattern is not None:
                chars = "".join(sorted({*(region.lexicon.firsts or ()), *_NOT_IN_NAMES}))
                expected = _class_chars(region.pattern)
                spaces = "".join(c for c in expected if c.isspace()) if not region.strip else ""
                assert expected == "".join(sorted({*chars, *spaces}))
                seen += 1
    assert seen > 10


def test_a_literal_s_specials_are_its_pattern() -> None:
    seen = 0
    for name in grammar_names():
        for spec in _compiled(name).opener_steps.values():
            for region in spec.block.regions:
                if isinstance(region, CLiteral):
                    assert _class_chars(region.pattern) == _region(region)["specials"]
                    seen += 1
    assert seen > 0


def test_a_table_the_native_core_cannot_read_is_refused() -> None:
    compiled = _compiled("hermes")

    class Odd(CRegion):
        pass

    spec = next(iter(compiled.opener_steps.values()))
    odd_block = Block(None, (Odd("odd", Lexicon(())),), spec.block.skip)
    odd = CompiledGrammar("odd", compiled.openers, None, {"<x>": COpener(odd_block, 0, False, None)}, None)
    with pytest.raises(ValueError, match="not a region the grammar data has: Odd"):
        _native().Tables(odd)
