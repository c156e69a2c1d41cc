"""Issue 52, "speed lives in one place": the Python engine is the plain
reference (every delta read through its full path, one reader per region, no
lanes), and the native core's lanes are checked against it event for event
after merging adjacent deltas (:func:`toolparse.invariants.check_engines`)."""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from toolparse import StreamParser
from toolparse.engine.core import Engine
from toolparse.engine.native import AVAILABLE
from toolparse.events import Event, TextDelta
from toolparse.invariants import Step, check_engines, engine_steps

needs_native = pytest.mark.skipif(not AVAILABLE, reason="the native core is not built")

TOOLS = [
    {"name": "f", "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}},
    {"name": "write", "parameters": {"type": "object", "properties": {"content": {"type": "string"}}}},
    {"name": "g", "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}},
]
QWEN = "<tool_call>\n<function=write>\n<parameter=content>\nline one"
# (streams that put the native core in each of its lanes: text, line start,
# reasoning, gathering in a call and a name, a held opener, a JSON string and a
# value that stream, a Python literal's string)
STREAMS: list[tuple[str, dict[str, Any], list[str]]] = [
    ("hermes", {}, ["Hello there, ", "more text", "\n", "world ", "hi <tool", "_ca", "ll> no"]),
    ("hermes", {"reasoning": "think"}, ["<think>I wonder", " more", "</think>", "Ok"]),
    (
        "hermes",
        {"tools": TOOLS},
        ['<tool_call>{"name": "f", "arguments": {"text": "once', " upon", ' a \\"time', '"}}</tool_call>'],
    ),
    ("qwen3-coder", {"tools": TOOLS}, [QWEN, " and", " a<b", "\n</parameter>\n</function>\n</tool_call>"]),
    (
        "qwen3-coder",
        {"tools": TOOLS},
        ["<tool_call>\n<function=g>\n<parameter=n>\n4", "2\n</parameter", ">", "\n</function>\n</tool_call>"],
    ),
    ("pythonic", {}, ["[f(text='a long", " string", " here')]", " after"]),
    ("xml", {"tools": TOOLS}, ["<wri", "te><content>x &amp", "; y</content></write> done"]),
]
IDS = [f"{grammar}-{k}" for k, (grammar, _, _) in enumerate(STREAMS)]


def test_the_reference_has_no_lanes_module() -> None:
    assert importlib.util.find_spec("toolparse.engine.lanes") is None
    for gone in ("_next_lane", "_string_piece", "_to_string", "_lengthens_prefix", "_still_plain"):
        assert not hasattr(Engine, gone), gone


@pytest.mark.parametrize(("grammar", "options", "deltas"), STREAMS, ids=IDS)
def test_the_reference_reads_every_delta_through_its_full_path(
    grammar: str, options: dict[str, Any], deltas: list[str]
) -> None:
    reads: list[str] = []
    real = Engine._read

    def spy(self: Engine, delta: str) -> list[Event]:
        reads.append(delta)
        return real(self, delta)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Engine, "_read", spy)
        parser = StreamParser(grammar, engine="python", seed=1, **options)
        for delta in deltas:
            parser.feed(delta)
            assert parser.lane is None  # (no lane is ever armed)
        parser.close()
    assert reads == deltas  # (each delta read once, as it came: nothing gathered or taken aside)


@pytest.mark.parametrize(("grammar", "options", "deltas"), STREAMS, ids=IDS)
def test_the_reference_ignores_the_lanes_switch(
    grammar: str, options: dict[str, Any], deltas: list[str]
) -> None:
    # (the switch is the native core's: the reference is its full path either way)
    on = engine_steps(grammar, deltas, "python", **options)
    off = engine_steps(grammar, deltas, "python", lanes=False, **options)
    assert [step.outcome for step in on] == [step.outcome for step in off]


@needs_native
@pytest.mark.parametrize(("grammar", "options", "deltas"), STREAMS, ids=IDS)
def test_the_native_lanes_agree_with_the_reference(
    grammar: str, options: dict[str, Any], deltas: list[str]
) -> None:
    parser = StreamParser(grammar, engine="native", seed=1, **options)
    armed = set()
    for delta in deltas:
        parser.feed(delta)
        armed.add(parser.lane)
    assert armed - {None}, "the stream armed no native lane"
    check_engines(grammar, deltas, **options)
    check_engines(grammar, list("".join(deltas)), **options)


# -- the differential can fail ----------------------------------------------------------------------


def _delayed(steps: list[Step]) -> list[Step]:
    """``steps`` with the events of the first feed that made some moved to the
    feed after it: the same events merged, not feed by feed (as a lane that
    gathers a delta gives them)."""
    for k in range(1, len(steps) - 3):
        if steps[k].events and steps[k + 1].outcome[0] == "events":
            moved = [*steps[k].events, *steps[k + 1].events]
            return [*steps[:k], _with(steps[k], []), _with(steps[k + 1], moved), *steps[k + 2 :]]
    raise AssertionError("no feed made events")


def _changed(steps: list[Step]) -> list[Step]:
    """``steps`` with one more character of text in the last feed."""
    k = len(steps) - 3
    return [*steps[:k], _with(steps[k], [*steps[k].events, TextDelta("!")]), *steps[k + 1 :]]


def _with(step: Step, events: Sequence[Event]) -> Step:
    outcome = ("events", list, tuple((type(e), repr(e)) for e in events))
    return dataclasses.replace(step, outcome=outcome, shown=repr(events), events=tuple(events))


def _planted(patch: pytest.MonkeyPatch, lanes: bool, change: Callable[[list[Step]], list[Step]]) -> None:
    """Change what the native core's run with (or without) lanes gives."""
    from toolparse import invariants

    real = invariants.engine_steps

    def steps(grammar: Any, deltas: Sequence[str], engine: str, **options: Any) -> list[Step]:
        got = real(grammar, deltas, engine, **options)
        if engine == "native" and options.get("lanes", True) is lanes:
            return change(got)
        return got

    patch.setattr(invariants, "engine_steps", steps)


@needs_native
def test_the_differential_merges_the_lanes_deltas_but_compares_the_full_path_feed_by_feed() -> None:
    deltas = [
        "Hello ",
        "there, ",
        "<tool_call>",
        '{"name": "f", "arguments": {"text": "x"}}',
        "</tool_call> bye",
    ]
    check_engines("hermes", deltas, tools=TOOLS)
    with pytest.MonkeyPatch.context() as patch:  # (the lanes give events later: merged, the same)
        _planted(patch, True, _delayed)
        check_engines("hermes", deltas, tools=TOOLS)
    with pytest.MonkeyPatch.context() as patch:  # (the full path gives them later: a difference)
        _planted(patch, False, _delayed)
        with pytest.raises(AssertionError):
            check_engines("hermes", deltas, tools=TOOLS)
    with pytest.MonkeyPatch.context() as patch:  # (the lanes give other events: a difference)
        _planted(patch, True, _changed)
        with pytest.raises(AssertionError, match="lanes changed the events"):
            check_engines("hermes", deltas, tools=TOOLS)
    with pytest.MonkeyPatch.context() as patch:  # (lanes=False given: only the full path is compared)
        _planted(patch, True, _changed)
        check_engines("hermes", deltas, tools=TOOLS, lanes=False)


def test_a_latched_error_counts_once_in_the_merged_transcript() -> None:
    # (a native lane that gathered the deltas before a failing id_factory raises
    # it a few feeds later than the reference, then every call raises it again)
    from toolparse.invariants import _transcript

    def step(events: Sequence[Event] | None, error: str = "boom") -> Step:
        if events is None:
            return Step("feed", ("raised", ValueError, error, None), error, None)
        return _with(Step("feed", (), "", None), events)

    reference = [step([TextDelta("a"), TextDelta("b")]), step(None), step(None), step(None)]
    gathered = [step([]), step([TextDelta("ab")]), step(None), step(None)]
    assert _transcript(reference) == _transcript(gathered)
    other = [step([TextDelta("ab")]), step([]), step(None, "other"), step(None)]
    assert _transcript(reference) != _transcript(other)
    lost = [step([TextDelta("a")]), step(None), step(None), step(None)]
    assert _transcript(reference) != _transcript(lost)
