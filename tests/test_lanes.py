"""The native core's lanes (``native/core/src/engine/lanes.rs``): each is armed where it
should be, and changes when events come out, never which (``lanes=False``
reads every delta through the full path). The Python reference has no lanes
(issue 52): the native core's lanes are checked against its full path, event
for event after merging adjacent deltas (:func:`toolparse.invariants.check_engines`);
a bug planted in a lane latches the parser as in the reference
(``tests/test_native.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from support import covered_text
from toolparse import StreamParser, TextDelta, ToolCallDelta
from toolparse.engine.native import AVAILABLE
from toolparse.invariants import check_engines

ENGINES = ("python", "native") if AVAILABLE else ("python",)
needs_native = pytest.mark.skipif(not AVAILABLE, reason="the native core is not built")

TOOLS = [
    {"name": "f", "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}},
    {"name": "write", "parameters": {"type": "object", "properties": {"content": {"type": "string"}}}},
]
QWEN_VALUE = "<tool_call>\n<function=write>\n<parameter=content>\nline one"


# (lane, grammar, options, what sets the lane up, the delta it is given, the
#  part of the lane it reaches, for the test's id)
LANES: list[tuple[str, str, dict[str, Any], list[str], str, str]] = [
    ("text", "hermes", {}, ["Hello there, "], "more text", "text"),
    ("line start", "hermes", {}, ["Hello\n"], "world", "line start"),
    ("reasoning", "hermes", {"reasoning": "think"}, ["<think>I wonder"], " more", "reasoning"),
    (
        "gather",
        "hermes",
        {},
        ['<tool_call>{"name": "f", "arguments": {"a": '],
        "1",
        "gathered",
    ),
    (
        "gather",
        "qwen3-coder",
        {
            "tools": [
                {"name": "g", "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}
            ]
        },
        ["<tool_call>\n<function=g>\n<parameter=n>\n4", "2\n</parameter"],
        ">",
        "closes value",
    ),
    ("prefix", "hermes", {}, ["hi <tool"], "_ca", "lengthens prefix"),
    (
        "string",
        "hermes",
        {"tools": TOOLS},
        ['<tool_call>{"name": "f", "arguments": {"text": "once'],
        " upon",
        "json string",
    ),
    (
        "string",
        "hermes",
        {"tools": TOOLS},
        ['<tool_call>{"name": "f", "arguments": {"text": "once', " upon"],
        ' a \\"time',
        "string piece",
    ),
    # (the bug of issue 24: one injected into a value's own fast reading)
    ("string", "qwen3-coder", {"tools": TOOLS}, [QWEN_VALUE], " and", "value sink"),
    ("string", "qwen3-coder", {"tools": TOOLS}, [QWEN_VALUE, " and"], " a<b", "fast piece"),
]
IDS = [f"{lane}-{grammar}-{where}" for lane, grammar, _, _, _, where in LANES]


@pytest.mark.parametrize(("lane", "grammar", "options", "setup", "delta", "where"), LANES, ids=IDS)
def test_a_lane_is_armed_and_takes_its_delta(
    lane: str, grammar: str, options: dict[str, Any], setup: list[str], delta: str, where: str
) -> None:
    for engine in ENGINES:
        parser = StreamParser(grammar, engine=engine, **options)
        for piece in setup:
            parser.feed(piece)
        # (the native core arms the lane; the reference arms none: it reads every delta)
        assert parser.lane == (lane if engine == "native" else None), engine
    if AVAILABLE:
        check_engines(grammar, [*setup, delta, " and the rest"], **options)


def test_no_lane_with_lanes_false() -> None:
    for engine in ENGINES:
        parser = StreamParser("hermes", lanes=False, engine=engine)
        assert parser.lane is None
        assert parser.feed("Hello there, ") == [TextDelta("Hello there, ")]
        assert parser.lane is None


def test_lanes_false_gives_the_same_events_in_every_lane() -> None:
    for engine in ENGINES:
        for lane, grammar, options, setup, delta, _ in LANES:
            deltas = [*setup, delta, " and the rest"]
            with_lanes = _merged(StreamParser(grammar, engine=engine, seed=1, **options), deltas)
            without = _merged(StreamParser(grammar, engine=engine, seed=1, lanes=False, **options), deltas)
            assert with_lanes == without, (engine, lane)
            assert covered_text(without) == "".join(deltas)


def _merged(parser: StreamParser, deltas: list[str]) -> list[Any]:
    from toolparse.invariants import normalize

    events = [e for delta in deltas for e in parser.feed(delta)]
    return normalize([*events, *parser.close()])


def test_a_string_lane_streams_at_once_and_the_full_path_too() -> None:
    # (the lanes change when events come out, never which: a string streams from
    # each delta either way)
    for engine, lanes in [(engine, lanes) for engine in ENGINES for lanes in (True, False)]:
        parser = StreamParser("hermes", TOOLS, seed=1, lanes=lanes, engine=engine)
        parser.feed('<tool_call>{"name": "f", "arguments": {"text": "once')
        (piece,) = parser.feed(" upon")
        assert isinstance(piece, ToolCallDelta) and piece.arguments_delta == " upon"


def test_lanes_must_be_a_bool() -> None:
    from toolparse import InvalidOptionError

    with pytest.raises(InvalidOptionError, match="lanes"):
        StreamParser("hermes", lanes="no")  # type: ignore[arg-type]


def test_what_a_lane_holds_at_close_is_read_as_a_delta_before_the_end() -> None:
    # (found by toolparse fuzz, seed 2401) the prefix lane held "``" of the
    # closing fence when the stream ended; read at once as the stream's end,
    # the size limit's window cut it differently than any chunking would
    from support import check_all

    text = '```tool_call\n[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]\n```'
    check_all("fenced-json", text, max_call_chars=78)
