"""A compiled grammar as plain data: what crosses from Python to the native core.

:func:`grammar_data` gives a :class:`~toolparse.engine.compile.CompiledGrammar`
as dicts, lists, strings, numbers, booleans and None, in one schema
(:data:`SCHEMA`); the native core deserializes it (``native/core/src/grammar.rs``,
serde) and reads no Python object of the tables. Every registered grammar's
data, and ``grammar="auto"``'s, are generated into the crate
(``native/core/grammars/<name>.json``), so that a Rust program reads every
format without Python; ``python -m toolparse.grammar_files --write``
regenerates them, and ``tests/test_grammar_data.py`` fails while they are stale.

The schema (version 1). Field names are the Python dataclasses'; a dict of the
tables whose keys are not strings is a list of ``[key, value]`` pairs, in the
dict's order.

==================  ===========================================================
``grammar``         ``schema`` (only at the top), ``name``, ``openers``
                    (lexicon), ``start_openers`` (lexicon or null),
                    ``opener_steps`` (``[[term, opener], ...]``), ``start``
                    (opener or null), ``tokens``, ``call_ends``,
                    ``opener_prefixes`` and ``markup_prefixes`` (sorted lists
                    of strings), ``token_openers`` (lexicon or null),
                    ``blocks`` (every block an opener opens, in the order
                    first met: the opener steps, ``start``, auto's claims,
                    auto's owners), ``auto`` (null or auto's tables),
                    ``reasoning`` (reasoning or null: the declaration's own
                    markers, what the option ``"auto"`` means for it)
``term``            a literal: a string; a tag term: ``{"term": name}`` (the
                    name of :class:`~toolparse.engine.declare.Term`:
                    ``"<any>"``, ``"</key>"``, ``"end of stream"``...)
``lexicon``         ``{"terms": [term, ...], "firsts": str or null}`` (firsts:
                    the characters a terminal may begin with, sorted; null: any)
``opener``          ``{"block": index in blocks, "region", "lenient", "step"
                    (step or null), "again"}``
``step``            ``{"to": int, ...}`` with ``call``, ``json_call``,
                    ``member``, ``sole_string``, ``end_member``, ``end_call``,
                    ``require_sole_string``, ``again``, ``message``,
                    ``reason`` (an ``ErrorReason`` value) present only where
                    they differ from :class:`~toolparse.engine.compile.CStep`'s
                    defaults. ``to``: a region's index, or -1 end, -2 before,
                    -3 reject, -4 stay, -5 fail
``block``           ``{"closer": term or null, "regions": [region, ...],
                    "skip": region, "xml", "literal"}``
``region``          ``{"kind": the class's name, "name", "lexicon", "steps"
                    ([[term, step], ...]), "otherwise", "at_end"}`` and, by
                    kind: ``CSpace`` ``chars`` (``[[char, step], ...]``);
                    ``CName`` ``max_len``, ``strip``, ``declared``,
                    ``pattern`` (pattern or null), ``longest``, ``reach``;
                    ``CJsonCalls`` ``then``, ``separators``, ``keys``
                    (``[[name keys], [argument keys]]``); ``CJsonArgs``
                    ``then``; ``CValue`` ``conditions`` (``[[term,
                    {"confirm": lexicon or null, "end_of_stream",
                    "line_start"}], ...]``), ``xml``, ``nest`` (``[[opening,
                    closing], ...]``), ``nest_at_line_start``,
                    ``keep_newlines``, ``balanced``, ``closers``,
                    ``closed_by_key``; ``CSkip`` nothing more; ``CLiteral``
                    ``pattern``
``auto``            ``{"members": [[name, grammar], ...]`` (each member's own
                    tables, in the order claims are tried), ``"owners"``
                    (the member of each block, by index in ``blocks``; an
                    owner's block is the block of its own tables with the
                    same data), ``"claims"`` (``[[term, [{"member", "opener",
                    "pattern", "takes_rest"}, ...]], ...]``), ``"deciders"``
                    (``[[marker, member], ...]``)}``
``pattern``         a regular expression in the tables' syntax (below)
``reasoning``       ``{"open": str or null, "close", "starts_open",
                    "anywhere", "markup": [str, ...], "ended_by": [str,
                    ...]}`` (a :class:`~toolparse.engine.declare.Reasoning`)
==================  ===========================================================

The values of the ``reasoning`` option by name cross as data too
(:func:`reasoning_options_data`, generated into the crate's
``reasoning.json``): ``{"schema", "options": [[name, reasoning or null],
...]}``. ``"auto"`` there is ``<think>`` where the answer begins; a grammar
with its own markers (its ``reasoning``) means those by ``"auto"`` instead.

What the visible text's scanner starts with (``text.TextScanner``: the
openers with each declared tool's tag spelled out, the answer's openers, the
openers that are special tokens, the reasoning's lexicons) is made from these
fields and the reasoning chosen (the native core's ``start_scanner``); none of
it is data of its own.

**The tables' pattern syntax**, which Python's ``re`` and Rust's ``regex``
read with the same meaning: literal characters (a metacharacter escaped with
a backslash: ``\\ . ^ $ | ? * + ( ) [ ] { } # & - ~``), ``\\n``, ``\\t``,
``\\r``, ``\\uXXXX`` and ``\\UXXXXXXXX``; ``.``; classes ``[...]`` and
``[^...]`` of such characters and ranges ``a-z`` (never ``\\s``: Python's
spaces, ``str.isspace``, are written out, since Rust's ``\\s`` differs);
``(?:...)`` groups; ``|``; greedy ``*``, ``+``, ``?``, ``{n}``, ``{n,}``,
``{n,m}``. The whole pattern ``(?!)`` is a claim that never matches. No
anchors, lookaround, backreferences, capturing groups, ``\\d``, ``\\w`` or
``\\b``: :func:`table_pattern` writes a declaration's Python pattern in this
syntax and raises ValueError for anything else, and the native core refuses
what is not in it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import fields
from typing import Any, Final

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
)
from toolparse.engine.declare import Reasoning, Term, TermLike
from toolparse.engine.lexicon import Lexicon

SCHEMA: Final = 1
"""The version of the data's schema (the native core refuses another)."""

NEVER: Final = "(?!)"
"""The pattern of a claim that never matches."""

PYTHON_SPACES: Final = (
    "\\t\\n\\u000b\\u000c\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a"
    "\\u2028\\u2029\\u202f\\u205f\\u3000"
)
"""Python's ``\\s`` (``str.isspace``) as the body of a class in the tables' syntax."""

_META: Final = frozenset("\\.^$|?*+()[]{}#&-~")
_SHORT: Final = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}
_MAX_REPEAT: Final = 1000


def _char(c: str) -> str:
    """``c`` as one literal character of the tables' syntax (in a class or not)."""
    if c in _META:
        return "\\" + c
    if c == "\n":
        return "\\n"
    if c == "\t":
        return "\\t"
    if c == "\r":
        return "\\r"
    if c == " " or (c.isprintable() and not c.isspace() and not 0xD800 <= ord(c) <= 0xDFFF):
        return c
    return f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"


class _Reader:
    """Reads a Python pattern of the tables and writes it in the tables' syntax
    (``strict``: the source must already be in it)."""

    def __init__(self, source: str, strict: bool) -> None:
        self.source = source
        self.strict = strict
        self.k = 0

    def fail(self, why: str) -> ValueError:
        return ValueError(f"{why} at {self.k} of {self.source!r}: not in the tables' pattern syntax")

    def peek(self, ahead: int = 0) -> str:
        k = self.k + ahead
        return self.source[k] if k < len(self.source) else ""

    def take(self) -> str:
        c = self.peek()
        if not c:
            raise self.fail("the pattern ends too soon")
        self.k += 1
        return c

    def pattern(self) -> str:
        out = self.alternation()
        if self.k < len(self.source):
            raise self.fail(f"an unexpected {self.peek()!r}")
        return out

    def alternation(self) -> str:
        parts = [self.sequence()]
        while self.peek() == "|":
            self.k += 1
            parts.append(self.sequence())
        return "|".join(parts)

    def sequence(self) -> str:
        out = []
        while self.peek() not in ("", "|", ")"):
            out.append(self.atom() + self.repeat())
        return "".join(out)

    def atom(self) -> str:
        c = self.take()
        if c == "(":
            if self.source.startswith("?:", self.k):
                self.k += 2
            elif self.peek() == "?" or self.strict:
                raise self.fail("a group other than (?:...)")
            inner = self.alternation()
            if self.take() != ")":
                raise self.fail("a group not closed")
            return f"(?:{inner})"
        if c == "[":
            return self.char_class()
        if c == ".":
            return "."
        if c == "\\":
            if self.peek() == "s" and not self.strict:
                self.k += 1
                return f"[{PYTHON_SPACES}]"
            return _char(self.escaped())
        if c in _META:
            raise self.fail(f"a bare {c!r}")
        if self.strict and _char(c) != c:
            raise self.fail(f"{c!r} unescaped")
        return _char(c)

    def escaped(self) -> str:
        """The character an escape (its backslash read) stands for."""
        e = self.take()
        if e in "uU" or (e == "x" and not self.strict):
            digits = {"u": 4, "U": 8, "x": 2}[e]
            hex_ = self.source[self.k : self.k + digits]
            if len(hex_) != digits or not all(h in "0123456789abcdefABCDEF" for h in hex_):
                raise self.fail(f"a bad \\{e} escape")
            self.k += digits
            return chr(int(hex_, 16))
        if e in "ntr" or (e in _SHORT and not self.strict):
            return _SHORT[e]
        if e in _META or (not self.strict and e.isascii() and not e.isalnum()):
            return e
        raise self.fail(f"\\{e}")

    def repeat(self) -> str:
        c = self.peek()
        if c in ("*", "+", "?"):
            self.k += 1
            out = c
        elif c == "{":
            end = self.source.find("}", self.k)
            body = self.source[self.k + 1 : end] if end > 0 else ""
            match = re.fullmatch(r"(\d*)(,?)(\d*)", body)
            if match is None or not (match[1] or match[3]):
                raise self.fail("a bare '{'")
            low, comma, high = match[1] or "0", match[2], match[3]
            if self.strict and not match[1]:
                raise self.fail("a repetition with no least count")
            if int(low) > _MAX_REPEAT or (high and (int(high) > _MAX_REPEAT or int(high) < int(low))):
                raise self.fail("a repetition out of bounds")
            self.k = end + 1
            out = "{" + str(int(low)) + (comma + (str(int(high)) if high else "")) + "}"
        else:
            return ""
        if self.peek() in ("?", "+", "*", "{"):
            raise self.fail("a lazy, possessive or repeated repetition")
        return out

    def char_class(self) -> str:
        negate = self.peek() == "^"
        if negate:
            self.k += 1
        items = []
        first = True
        while True:
            c = self.take()
            if c == "]" and not first:
                break
            first = False
            if c == "\\" and self.peek() == "s" and not self.strict:
                self.k += 1
                items.append(PYTHON_SPACES)
                continue
            low = self.class_char(c)
            if self.peek() == "-" and self.peek(1) not in ("", "]"):
                self.k += 1
                high = self.class_char(self.take())
                if ord(high) < ord(low):
                    raise self.fail("a range backwards")
                items.append(f"{_char(low)}-{_char(high)}")
            else:
                items.append(_char(low))
        if not items:
            raise self.fail("an empty class")
        return "[" + ("^" if negate else "") + "".join(items) + "]"

    def class_char(self, c: str) -> str:
        if c == "\\":
            return self.escaped()
        if self.strict and _char(c) != c:
            raise self.fail(f"{c!r} unescaped in a class")
        if c == "[" and not self.strict:
            return c
        if c in ("[", "-", "&", "~", "^"):
            raise self.fail(f"{c!r} unescaped in a class")
        return c


@functools.lru_cache(maxsize=256)
def table_pattern(source: str) -> str:
    """The Python pattern ``source`` written in the tables' pattern syntax (see
    the module's docstring); ValueError if it uses anything outside it.
    (Cached: a grammar's name regions share a few patterns.)"""
    if source == NEVER:
        return source
    written = _Reader(source, strict=False).pattern()
    if _Reader(written, strict=True).pattern() != written:  # (the syntax is a fixed point)
        raise ValueError(f"{source!r}: written as {written!r}, which does not read back alike")
    re.compile(written)
    return written


def _term(term: TermLike) -> Any:
    return {"term": term.name} if isinstance(term, Term) else term


def _lexicon(lexicon: Lexicon | None) -> Any:
    if lexicon is None:
        return None
    firsts = lexicon.firsts
    return {
        "terms": [_term(t) for t in lexicon.terms],
        "firsts": None if firsts is None else "".join(sorted(firsts)),
    }


_STEP_DEFAULTS: Final = {f.name: f.default for f in fields(CStep) if f.name != "to"}


def _step(step: CStep | None) -> Any:
    if step is None:
        return None
    data: dict[str, Any] = {"to": step.to}
    for name, default in _STEP_DEFAULTS.items():
        value = getattr(step, name)
        if value != default:
            data[name] = value.value if name == "reason" else value
    return data


def _pattern(pattern: re.Pattern[str] | None) -> str | None:
    return None if pattern is None else table_pattern(pattern.pattern)


def _region(region: CRegion) -> dict[str, Any]:
    data: dict[str, Any] = {
        "kind": type(region).__name__,
        "name": region.name,
        "lexicon": _lexicon(region.lexicon),
        "steps": [[_term(t), _step(s)] for t, s in region.steps.items()],
        "otherwise": _step(region.otherwise),
        "at_end": _step(region.at_end),
    }
    if isinstance(region, CSpace):
        data["chars"] = [[c, _step(s)] for c, s in region.chars.items()]
    elif isinstance(region, CName):
        data.update(
            max_len=region.max_len,
            strip=region.strip,
            declared=region.declared,
            pattern=_pattern(region.pattern),
            longest=region.longest,
            reach=region.reach,
        )
    elif isinstance(region, CJsonCalls):
        data.update(then=region.then, separators=region.separators, keys=[list(k) for k in region.keys])
    elif isinstance(region, CJsonArgs):
        data["then"] = region.then
    elif isinstance(region, CValue):
        data.update(
            conditions=[
                [
                    _term(t),
                    {
                        "confirm": _lexicon(c.confirm),
                        "end_of_stream": c.end_of_stream,
                        "line_start": c.line_start,
                    },
                ]
                for t, c in region.conditions.items()
            ],
            xml=region.xml,
            nest=[[_term(a), _term(b)] for a, b in region.nest.items()],
            nest_at_line_start=region.nest_at_line_start,
            keep_newlines=region.keep_newlines,
            balanced=region.balanced,
            closers=list(region.closers),
            closed_by_key=region.closed_by_key,
        )
    elif isinstance(region, CLiteral):
        data["pattern"] = _pattern(region.pattern)
    elif type(region).__name__ != "CSkip":
        raise ValueError(f"not a region the grammar data has: {type(region).__name__}")
    return data


def _tables(compiled: CompiledGrammar) -> dict[str, Any]:
    blocks: list[Block] = []
    indices: dict[int, int] = {}  # (a block's index by its identity; blocks are kept alive in blocks)

    def index(block: Block) -> int:
        if id(block) not in indices:
            indices[id(block)] = len(blocks)
            blocks.append(block)
        return indices[id(block)]

    def opener(spec: COpener) -> dict[str, Any]:
        return {
            "block": index(spec.block),
            "region": spec.region,
            "lenient": spec.lenient,
            "step": _step(spec.step),
            "again": spec.again,
        }

    data: dict[str, Any] = {
        "name": compiled.name,
        "openers": _lexicon(compiled.openers),
        "start_openers": _lexicon(compiled.start_openers),
        "opener_steps": [[_term(t), opener(spec)] for t, spec in compiled.opener_steps.items()],
        "start": None if compiled.start is None else opener(compiled.start),
        "tokens": compiled.tokens,
        "call_ends": compiled.call_ends,
        "opener_prefixes": sorted(compiled.opener_prefixes),
        "markup_prefixes": sorted(compiled.markup_prefixes),
        "token_openers": _lexicon(compiled.token_openers),
        "auto": None,
        "reasoning": reasoning_data(compiled.reasoning),
    }
    auto = compiled.auto
    if auto is not None:
        claims = [
            [
                _term(term),
                [
                    {
                        "member": c.member,
                        "opener": opener(c.opener),
                        "pattern": _pattern(c.pattern),
                        "takes_rest": c.takes_rest,
                    }
                    for c in owned
                ],
            ]
            for term, owned in auto.claims.items()
        ]
        owners = {index(block): member for block, member in auto.owners.items()}
        data["auto"] = {
            "members": [[name, _tables(member)] for name, member in auto.members.items()],
            "owners": [owners.get(k) for k in range(len(blocks))],
            "claims": claims,
            "deciders": [[marker, member] for marker, member in auto.deciders.items()],
        }
    data["blocks"] = [
        {
            "closer": None if b.closer is None else _term(b.closer),
            "regions": [_region(r) for r in b.regions],
            "skip": _region(b.skip),
            "xml": b.xml,
            "literal": b.literal,
        }
        for b in blocks
    ]
    return data


def reasoning_data(reasoning: Reasoning | None) -> dict[str, Any] | None:
    """``reasoning`` as plain data (the schema's ``reasoning``; None: none)."""
    if reasoning is None:
        return None
    return {
        "open": reasoning.open,
        "close": reasoning.close,
        "starts_open": reasoning.starts_open,
        "anywhere": reasoning.anywhere,
        "markup": list(reasoning.markup),
        "ended_by": list(reasoning.ended_by),
    }


def reasoning_options_data(options: Mapping[str, Reasoning | None]) -> dict[str, Any]:
    """The ``reasoning`` option's named values (``grammars.reasoning.REASONING``)
    as plain data, in their order."""
    return {"schema": SCHEMA, "options": [[name, reasoning_data(r)] for name, r in options.items()]}


def grammar_data(compiled: CompiledGrammar) -> dict[str, Any]:
    """``compiled`` as plain data in the schema of this module's docstring."""
    return {"schema": SCHEMA, **_tables(compiled)}


def grammar_json(compiled: CompiledGrammar) -> str:
    """:func:`grammar_data` as compact JSON (what the native core reads)."""
    return json.dumps(grammar_data(compiled), ensure_ascii=False, separators=(",", ":"))


def grammar_file_text(compiled: CompiledGrammar) -> str:
    """:func:`grammar_data` as the generated file holds it: keys sorted, one
    indent a level, a newline at the end (stable, to diff)."""
    return json.dumps(grammar_data(compiled), ensure_ascii=False, indent=1, sort_keys=True) + "\n"
