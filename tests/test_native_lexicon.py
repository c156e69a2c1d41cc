"""The native lexicon (``toolparse._native.Lexicon``, ``native/src/lexicon.rs``)
against the reference (:class:`toolparse.engine.lexicon.Lexicon`).

Every lexicon the compiled grammars hold (their openers, each block's regions
and skip, the openers spelled for declared tools, the reasoning lexicons),
and random sets of terminals, are built twice; texts drawn from the
lexicon's own terminals, their prefixes, tag-shaped fragments (names from
the context, runs of spaces and names at their bounds), Unicode whitespace
and noise are asked every question at drawn positions, with drawn contexts,
and the answers (or the errors) must be the same; so must the answers to
every question the reference engine asks while parsing the fuzzer's
outputs. Skipped where the native core is not built.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import importlib
import pkgutil
from collections.abc import Callable, Iterator
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolparse.grammars
from toolparse.engine import native
from toolparse.engine.declare import (
    ANY_CLOSE_TAG,
    ANY_EMPTY_TAG,
    ANY_OPEN_TAG,
    CALL_CLOSE_TAG,
    CLOSER,
    KEY_CLOSE_TAG,
    KEY_OPEN_TAG,
    OPENER,
    PROPERTY_NAME,
    PROPERTY_TAG,
    TOOL_EMPTY_TAG,
    TOOL_TAG,
    Reasoning,
    Term,
)
from toolparse.engine.lexicon import Hit, Lexicon
from toolparse.engine.text import _reasoning_lexicons
from toolparse.fuzz import outputs, parser_options, splits
from toolparse.grammars import auto_tables, get_grammar, grammar_names
from toolparse.invariants import engine_steps

pytestmark = pytest.mark.skipif(
    not native.AVAILABLE, reason="the native core (toolparse._native) is not built in this installation"
)

TAG_TERMS = [
    KEY_CLOSE_TAG,
    CALL_CLOSE_TAG,
    KEY_OPEN_TAG,
    TOOL_TAG,
    TOOL_EMPTY_TAG,
    PROPERTY_TAG,
    ANY_OPEN_TAG,
    ANY_CLOSE_TAG,
    ANY_EMPTY_TAG,
    PROPERTY_NAME,
]
SPACES = [chr(c) for c in range(0x110000) if chr(c).isspace()]
"""Python's whitespace (``\\s`` in a ``str`` pattern): U+001C to U+001F too."""
NAMES = [
    "f",
    "fo",
    "foo",
    "write",
    "content",
    "text",
    "k",
    "key",
    "a",
    "ab",
    "é",
    "名前",
    "😀x",
    "n" * 255,
    "n" * 256,
]
"""Names a context may hold (and a text may spell): prefixes of each other,
non-ASCII of every width, and names at the bound of a tag's name."""


def _walk(obj: object, seen: set[int], found: list[Lexicon]) -> None:
    if id(obj) in seen or isinstance(obj, (str, bytes, int, float, Term)) or obj is None:
        return
    seen.add(id(obj))
    if isinstance(obj, Lexicon):
        found.append(obj)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            _walk(getattr(obj, f.name), seen, found)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            _walk(k, seen, found)
            _walk(v, seen, found)
    elif isinstance(obj, (tuple, list, frozenset, set)):
        for v in obj:
            _walk(v, seen, found)


def _reasonings() -> list[Reasoning]:
    for module in pkgutil.iter_modules(toolparse.grammars.__path__):
        importlib.import_module(f"toolparse.grammars.{module.name}")
    found = {id(o): o for o in gc.get_objects() if isinstance(o, Reasoning)}
    return sorted(found.values(), key=repr)


def _grammar_lexicons() -> list[Lexicon]:
    """Every lexicon the engine builds from the compiled grammars, once per set of terminals."""
    found: list[Lexicon] = []
    seen: set[int] = set()
    compiled = [auto_tables()]
    for name in grammar_names():
        if name != "auto":
            compiled.append(
                importlib.import_module("toolparse.engine.compile").compile_grammar(get_grammar(name))
            )
    for grammar in compiled:
        _walk(grammar, seen, found)
        for tools in [None, (), ("f",), ("f", "foo", "write"), tuple(NAMES)]:
            _walk(grammar.openers_for(tools), seen, found)
    for reasoning in _reasonings():
        for grammar in compiled:
            with contextlib.suppress(ValueError):  # (a marker that is also an opener)
                _walk(_reasoning_lexicons(grammar.openers, reasoning), seen, found)
    unique: dict[tuple[object, ...], Lexicon] = {}
    for lexicon in found:
        unique.setdefault(tuple((type(t), t) for t in lexicon.terms), lexicon)
    return list(unique.values())


LEXICONS = _grammar_lexicons()
TAGGED = [lexicon for lexicon in LEXICONS if any(isinstance(t, Term) for t in lexicon.terms)]
"""(Drawn as often as the rest: most lexicons hold literals only.)"""
NATIVE: Any = importlib.import_module("toolparse._native") if native.AVAILABLE else None


class Context:
    """A ``TagContext`` (the reference's protocol) with drawn answers."""

    def __init__(
        self,
        key: str | None,
        call_name: str | None,
        tool_names: tuple[str, ...] | None,
        property_names: tuple[str, ...] | None,
        given: frozenset[str],
    ) -> None:
        self.key = key
        self.call_name = call_name
        self.tool_names = tool_names
        self.property_names = property_names
        self._given = given

    def given(self, name: str) -> bool:
        return name in self._given

    def __repr__(self) -> str:
        return (
            f"Context({self.key!r}, {self.call_name!r}, {self.tool_names!r}, "
            f"{self.property_names!r}, {sorted(self._given)!r})"
        )


NAME_NOISE = "abké名😀<>/= \t\x1c\x1f\x85\xa0\u2028\u3000\u200b"
"""What a drawn name is made of: markup, the spaces that end a tag's name
(Python's Unicode whitespace, U+001C too) and one that does not (U+200B)."""


def names(extra: list[str]) -> st.SearchStrategy[str]:
    return st.sampled_from(NAMES + extra) | st.text(st.sampled_from(NAME_NOISE), min_size=0, max_size=4)


def contexts(extra: list[str]) -> st.SearchStrategy[Context]:
    sorted_names = st.lists(names(extra), max_size=6).map(lambda ns: tuple(sorted(set(ns))))
    return st.builds(
        Context,
        st.none() | names(extra),
        st.none() | names(extra),
        st.none() | sorted_names,
        st.none() | sorted_names,
        st.frozensets(names(extra), max_size=4),
    )


def _spaces(k: int) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(" \t\r\n"), min_size=k, max_size=k).map("".join)


def tags(names: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Tags and tags begun: ``<name>``, ``</ name >``, ``<name/>``, ``<name /``, spaces
    at their bounds."""
    spaces = st.sampled_from([0, 0, 1, 16, 17]).flatmap(_spaces)
    return st.builds(
        lambda closing, before, name, after, empty, end: (
            "<" + ("/" + before if closing else "") + name + after + ("/" if empty else "") + end
        ),
        st.booleans(),
        spaces,
        names,
        spaces,
        st.booleans(),
        st.sampled_from([">", ">", "", " >", ">x"]),
    )


def fragments(lexicon: Lexicon, extra: list[str], ctx: Context) -> st.SearchStrategy[str]:
    literals = sorted(lexicon.literals)
    # (the key and the call's name as often as all the declared names)
    declared = [*(ctx.tool_names or ()), *(ctx.property_names or ())]
    known = [n for n in [ctx.key, ctx.call_name] * max(1, len(declared) // 2) + declared if n]
    spelled = names(extra) | st.sampled_from(known) if known else names(extra)
    pieces: list[st.SearchStrategy[str]] = [
        st.sampled_from(["<", "</", "/>", ">", "/", "=", '"', "'", "&", "<<", "</>", "<//", "< "]),
        spelled,
        *[tags(st.sampled_from(known) if known else spelled)] * 3,
        tags(spelled),
        st.sampled_from([0, 1, 2, 15, 16, 17]).flatmap(_spaces),
        st.sampled_from([1, 255, 256, 257]).map(lambda k: "n" * k),
        st.sampled_from([*SPACES, "\u200b", "\x00", "\ud800", "x"]),  # (a lone surrogate too)
        st.text(max_size=3),
    ]
    if literals:
        literal = st.sampled_from(literals)
        pieces.append(literal)
        pieces.append(literal.flatmap(lambda s: st.integers(0, len(s)).map(lambda k: s[:k])))
    return st.one_of(pieces)


def texts(lexicon: Lexicon, extra: list[str], ctx: Context) -> st.SearchStrategy[str]:
    return st.lists(fragments(lexicon, extra, ctx), max_size=10).map("".join)


def _outcome(call: Callable[[], Any]) -> object:
    try:
        result = call()
    except Exception as e:  # (both must raise the same)
        return ("raises", type(e), str(e))
    if isinstance(result, Hit):
        # (the very Term objects as keys, and a Hit, not a plain tuple)
        return ("hit", tuple(result), type(result.key), id(result.key) if isinstance(result.key, Term) else 0)
    return result


def _same(python: Any, rust: Any, method: str, *args: object) -> None:
    """``method(*args)`` gives the same answer (or error) on both."""
    expected = _outcome(lambda: getattr(python, method)(*args))
    got = _outcome(lambda: getattr(rust, method)(*args))
    assert got == expected, f"{method}{args!r}: native {got!r}, reference {expected!r}"


def _positions(data: st.DataObject, text: str, label: str) -> Iterator[int]:
    n = len(text)
    yield from (0, n)
    yield from data.draw(st.lists(st.integers(0, n + 1), max_size=6), label=label)
    # (at and after every '<', where tags begin; after '=', where a property's name may)
    marks = [i for i, c in enumerate(text) if c in "<="][:8]
    yield from [j for i in marks for j in (i, i + 1)]


def compare(python: Lexicon, rust: Any, data: st.DataObject) -> None:
    """Every attribute and method of the two, on drawn texts, positions and contexts."""
    assert rust.terms == python.terms
    assert rust.literals == python.literals
    assert rust.firsts == python.firsts
    assert rust.after_lt == python.after_lt
    assert rust.max_len == python.max_len
    patterns = python.literal_patterns
    assert (rust.literal_patterns is None) == (patterns is None)
    if patterns is not None:
        assert [p.pattern for p in rust.literal_patterns] == [p.pattern for p in patterns]
    _same(python, rust, "first_chars")
    extra = sorted({lit.strip("<>/=\"' \n") for lit in python.literals})[:20]
    for _ in range(data.draw(st.integers(1, 4), label="texts")):
        ctx = data.draw(contexts(extra), label="ctx")
        text = data.draw(texts(python, extra, ctx), label="text")
        n = len(text)
        for i in _positions(data, text, "positions"):
            for method in ("match_at", "prefix_at", "partial_start", "find"):
                _same(python, rust, method, text, i, ctx)
            _same(python, rust, "find", text, i, ctx, data.draw(st.integers(0, n + 1), label="end"))
            for found in [*sorted(python.literals)[:4], text[i : i + 3], TOOL_TAG]:
                _same(python, rust, "undecided", text, i, found)
        # (a search from each hit on, as a reader walks the text)
        i = 0
        while i <= n:
            _same(python, rust, "find", text, i, ctx)
            hit = python.find(text, i, ctx)
            if hit is None:
                break
            i = max(hit.end, hit.start + 1)


_SETTINGS = settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def test_the_grammars_hold_many_lexicons() -> None:
    assert len(LEXICONS) > 50
    for term in (KEY_CLOSE_TAG, CALL_CLOSE_TAG, PROPERTY_NAME, PROPERTY_TAG, TOOL_TAG, ANY_OPEN_TAG):
        assert any(term in lexicon.terms for lexicon in TAGGED), term


@_SETTINGS
@given(data=st.data())
def test_every_lexicon_of_the_grammars(data: st.DataObject) -> None:
    python = data.draw(st.sampled_from(LEXICONS) | st.sampled_from(TAGGED), label="lexicon")
    rust = NATIVE.Lexicon(python.terms)
    compare(python, rust, data)


def terminal_sets() -> st.SearchStrategy[list[Any]]:
    literal = st.text(st.sampled_from('<>/=a"b|é😀 \n'), min_size=0, max_size=6)
    term = st.sampled_from(TAG_TERMS)
    mixed = st.lists(literal | term | term | literal.filter(bool).map(lambda s: "<" + s), max_size=8)
    return mixed | st.lists(term, min_size=1, max_size=4)  # (tags alone: no literal shadows one)


@_SETTINGS
@given(data=st.data())
def test_random_sets_of_terminals(data: st.DataObject) -> None:
    terminals = data.draw(terminal_sets(), label="terminals")
    if data.draw(st.booleans(), label="odd terms"):
        terminals.append(data.draw(st.sampled_from([CLOSER, OPENER, 7, None]), label="odd"))
    made = _outcome(lambda: Lexicon(terminals) and "made")
    assert _outcome(lambda: NATIVE.Lexicon(terminals) and "made") == made
    if made == "made":
        compare(Lexicon(terminals), NATIVE.Lexicon(terminals), data)


class Raising:
    """A context whose attributes raise (a misuse: the error must come through)."""

    key = "k"
    call_name = "f"
    property_names = ("path",)

    @property
    def tool_names(self) -> tuple[str, ...]:
        raise KeyError("no tools here")

    def given(self, name: str) -> bool:
        raise LookupError(name)


@pytest.mark.parametrize(
    ("terms", "text", "ctx"),
    [
        ([TOOL_TAG], "x <write> y", Raising()),
        ([TOOL_TAG, TOOL_EMPTY_TAG], "<wri", Raising()),
        ([PROPERTY_NAME], "path>", Context(None, None, None, ("path",), frozenset())),
        ([PROPERTY_NAME], "path>", Raising()),
        # (wrong types on purpose: both lexicons must refuse them alike)
        ([TOOL_TAG], "<write>", Context(None, None, cast(Any, ["f", "write"]), None, frozenset())),
        ([TOOL_TAG], "<write>", Context(None, None, cast(Any, ("f", 7)), None, frozenset())),
        ([TOOL_TAG], "<write>", Context(None, None, cast(Any, (7,)), None, frozenset())),
    ],
)
def test_a_contexts_answers_and_errors_come_through(terms: list[Any], text: str, ctx: Any) -> None:
    python, rust = Lexicon(terms), NATIVE.Lexicon(terms)
    for i in range(len(text) + 1):
        for method in ("find", "match_at", "prefix_at", "partial_start"):
            _same(python, rust, method, text, i, ctx)


def test_terms_that_are_not_tag_terms_are_refused_alike() -> None:
    odd: list[list[Any]] = [
        [CLOSER, TOOL_TAG, OPENER],
        ["a", "xab"],
        [""],
        ["", PROPERTY_NAME],
        [7, None, "<a"],
    ]
    for terms in odd:
        expected = _outcome(lambda: Lexicon(terms) and "made")  # noqa: B023
        assert _outcome(lambda: NATIVE.Lexicon(terms) and "made") == expected, terms  # noqa: B023


# -- the engine's own calls -----------------------------------------------------------------------

ASKED = ("find", "match_at", "partial_start", "prefix_at", "undecided", "first_chars")


@pytest.mark.parametrize("grammar", sorted({*grammar_names(), "auto"}))
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_the_engines_own_calls(grammar: str, data: st.DataObject) -> None:
    """Every question the reference engine asks a lexicon while parsing the
    fuzzer's outputs, asked of the native twin too, with the engine's live
    context (its machine, its call): the same answers."""
    text = data.draw(outputs(grammar), label="text")
    deltas = data.draw(splits(text), label="deltas")
    options = data.draw(parser_options(grammar), label="options")
    twins: dict[int, tuple[Lexicon, Any]] = {}
    differences: list[str] = []
    originals = {name: getattr(Lexicon, name) for name in ASKED}

    def asked(name: str) -> Callable[..., Any]:
        original = originals[name]

        def twice(self: Lexicon, *args: Any) -> Any:
            twin = twins.get(id(self))
            if twin is None:
                twin = twins[id(self)] = (self, NATIVE.Lexicon(self.terms))
            expected = _outcome(lambda: original(self, *args))
            got = _outcome(lambda: getattr(twin[1], name)(*args))
            if got != expected:
                differences.append(f"{name}{args!r}: native {got!r}, reference {expected!r}")
            return original(self, *args)

        return twice

    with pytest.MonkeyPatch.context() as patch:
        for name in ASKED:
            patch.setattr(Lexicon, name, asked(name))
        engine_steps(grammar, deltas, "python", **options)
    assert not differences, differences[:3]
