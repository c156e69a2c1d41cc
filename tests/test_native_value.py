"""The native value reader against the reference, read for read.

``_native.ValueReader`` (``native/src/value.rs``) must emit the same pieces,
stop at the same places, end at the same terminals and answer ``nested``
alike (and ``plain`` and ``fresh``, which only its string lane asks, as the
reference's state says), for every value region of every grammar,
whatever the text and its chunking, as the machine drives it: what a read
did not take is given again with the next delta, and the stream's end is a
final read.
"""

from __future__ import annotations

import importlib
import itertools
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolparse.engine import native, value
from toolparse.engine.compile import CValue, compile_grammar
from toolparse.engine.value import ValueReader
from toolparse.grammars import get_grammar, grammar_names

pytestmark = pytest.mark.skipif(
    not native.AVAILABLE, reason="the native core (toolparse._native) is not built in this installation"
)


def _value_regions() -> list[tuple[str, CValue]]:
    seen: dict[int, tuple[str, CValue]] = {}
    for name in grammar_names():
        compiled = compile_grammar(get_grammar(name))
        for spec in compiled.opener_steps.values():
            for region in spec.block.regions:
                if isinstance(region, CValue) and id(region) not in seen:
                    seen[id(region)] = (f"{name}:{region.name}", region)
    return list(seen.values())


REGIONS = _value_regions()


@dataclass
class Context:
    """A TagContext: what the machine would say at that moment."""

    key: str | None = None
    call_name: str | None = None
    tool_names: tuple[str, ...] | None = None
    property_names: tuple[str, ...] | None = None
    given_names: frozenset[str] = field(default_factory=frozenset)

    def given(self, name: str) -> bool:
        return name in self.given_names


NAMES = ("city", "a", "content", "get_weather", "x y")


def _fragments(region: CValue) -> list[str]:
    terms = [t for t in region.lexicon.terms if isinstance(t, str)]
    for condition in region.conditions.values():
        if condition.confirm is not None:
            terms += [t for t in condition.confirm.terms if isinstance(t, str)]
    cut = [t[: len(t) // 2] for t in terms if len(t) > 1]
    tags = [f"<{n}>" for n in NAMES] + [f"</{n}>" for n in NAMES] + [f"<parameter={n}>" for n in NAMES]
    tags += [f"{n}>" for n in NAMES] + ["<value>", "</value>", "<![CDATA[", "]]>", "]", "<!", "</", "<"]
    entities = ["&amp;", "&lt;", "&#60;", "&#x3c;", "&#0;", "&#xD800;", "&#1114112;", "&", "&am", "&#", "&#x"]
    text = ["a", "x = 1", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\\n", "é", "\ud800", "\x00", '"', "{", "}"]
    return terms + cut + tags + entities + text + [" " * 70]


@st.composite
def _cases(draw: st.DrawFn) -> tuple[str, CValue, bool, Context, list[str], str]:
    label, region = draw(st.sampled_from(REGIONS), label="region")
    markup = region.xml and draw(st.booleans(), label="markup")
    names = st.sampled_from(NAMES)
    ctx = Context(
        key=draw(st.none() | names, label="key"),
        call_name=draw(st.none() | names, label="call_name"),
        tool_names=draw(st.none() | st.lists(names, unique=True).map(lambda n: tuple(sorted(n)))),
        property_names=draw(st.none() | st.lists(names, unique=True).map(lambda n: tuple(sorted(n)))),
        given_names=frozenset(draw(st.lists(names, max_size=2))),
    )
    pieces = draw(st.lists(st.sampled_from(_fragments(region)), max_size=24), label="pieces")
    text = "".join(pieces)
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=8), label="cuts"))
    bounds = [0, *cuts, len(text)]
    chunks = [text[a:b] for a, b in itertools.pairwise(bounds)]
    junk = draw(st.sampled_from(["", "<x>", "abc"]), label="already read")
    return label, region, markup, ctx, chunks, junk


def _drive(
    reader_class: Any, region: CValue, markup: bool, ctx: Context, chunks: list[str], junk: str
) -> list[Any]:
    """What the reader does, read after read, as the machine drives it."""
    log: list[Any] = []
    emitted: list[str] = []
    reader = reader_class(
        region.lexicon,
        region.steps,
        region.conditions,
        ctx,
        emitted.append,
        xml=region.xml,
        markup=markup,
        nest=region.nest,
        nest_at_line_start=region.nest_at_line_start,
        keep_newlines=region.keep_newlines,
    )
    held = ""
    for chunk in [*chunks, None]:
        final = chunk is None
        text = junk + held + ("" if chunk is None else chunk)
        at, hit = reader.read(text, len(junk), final)
        log.append(("read", at - len(junk), None if hit is None else tuple(hit), list(emitted)))
        emitted.clear()
        log.append((*_plain_and_fresh(reader), reader.nested))
        if hit is not None:
            return log
        held = text[at:]
    reader.finish()
    log.append(("finish", list(emitted)))
    return log


def _plain_and_fresh(reader: Any) -> tuple[bool, bool]:
    """What the native reader answers its engine's string lane: ``plain`` (text
    it would pass on as it is) and ``fresh`` (nothing read yet). The reference
    has no lanes, so no twin of these: for it, this is the test's oracle, read
    off its state (the removed twin of issue 52)."""
    if not isinstance(reader, ValueReader):
        return reader.plain, reader.fresh
    state = reader._state
    plain = state == value._TEXT and not reader._newline and not reader._line_start and reader._held is None
    return plain, state == value._START


def _native_reader() -> Any:
    return importlib.import_module("toolparse._native").ValueReader


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=_cases())
def test_the_native_value_reader_reads_alike(case: tuple[str, CValue, bool, Context, list[str], str]) -> None:
    label, region, markup, ctx, chunks, junk = case
    expected = _drive(ValueReader, region, markup, ctx, chunks, junk)
    assert _drive(_native_reader(), region, markup, ctx, chunks, junk) == expected, label


@pytest.mark.parametrize(("label", "region"), REGIONS, ids=[label for label, _ in REGIONS])
def test_every_value_region_is_read_alike_in_one_character_deltas(label: str, region: CValue) -> None:
    terms = [t for t in region.lexicon.terms if isinstance(t, str)]
    text = "\nx <a> &amp; " + " ".join(terms) + "\n" + "".join(terms[:1])
    ctx = Context(key="a", call_name="f", property_names=("a", "b"))
    for markup in {False, region.xml}:
        expected = _drive(ValueReader, region, markup, ctx, list(text), "")
        assert _drive(_native_reader(), region, markup, ctx, list(text), "") == expected


def test_there_are_value_regions_of_every_kind() -> None:
    assert any(r.xml for _, r in REGIONS)
    assert any(r.nest for _, r in REGIONS)
    assert any(r.keep_newlines for _, r in REGIONS)
    assert any(c.confirm is not None for _, r in REGIONS for c in r.conditions.values())
