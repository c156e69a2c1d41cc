"""The engine's lanes (toolparse.engine.lanes): each is armed where it should
be, runs inside the one error boundary, and changes when events come out,
never which (``lanes=False`` reads every delta through the full path)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from support import covered_text, normalize, run
from toolparse import Event, InternalParserError, StreamParser, TextDelta, ToolCallDelta
from toolparse.engine import core
from toolparse.engine.core import Engine
from toolparse.engine.native import AVAILABLE
from toolparse.engine.text import TextScanner
from toolparse.engine.value import ValueReader

ENGINES = ("python", "native") if AVAILABLE else ("python",)

TOOLS = [
    {"name": "f", "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}},
    {"name": "write", "parameters": {"type": "object", "properties": {"content": {"type": "string"}}}},
]
QWEN_VALUE = "<tool_call>\n<function=write>\n<parameter=content>\nline one"


class Boom(KeyError):
    """The bug injected."""


def _boom(*_args: Any, **_kwargs: Any) -> Any:
    raise Boom("injected")


PARSER = object()
"""(as an owner below) The parser itself: a sink inlined in ``feed`` has no
function to patch, so the list it appends to is replaced (see _Appends)."""


class _Appends(list[str]):
    """A parser's list that calls ``hook`` on every append (an inlined sink's)."""

    def __init__(self, hook: Callable[..., Any]) -> None:
        super().__init__()
        self.hook = hook

    def append(self, item: str) -> None:
        self.hook(item)
        super().append(item)


def _inject(patch: pytest.MonkeyPatch, parser: StreamParser, where: tuple[Any, str], hook: Any) -> None:
    """Put ``hook`` in the place ``where`` names (after the parser is built, for
    a place in the parser itself)."""
    owner, name = where
    if owner is PARSER:
        patch.setattr(parser, name, _Appends(hook))


# (lane, grammar, options, what sets the lane up, the delta it is given, the
#  place the bug is injected: (owner, attribute))
LANES: list[tuple[str, str, dict[str, Any], list[str], str, tuple[Any, str]]] = [
    ("text", "hermes", {}, ["Hello there, "], "more text", (core, "_set_text")),
    ("line start", "hermes", {}, ["Hello\n"], "world", (TextScanner, "starts_ordinary_line")),
    ("reasoning", "hermes", {"reasoning": "think"}, ["<think>I wonder"], " more", (Engine, "_to_reasoning")),
    (
        "gather",
        "hermes",
        {},
        ['<tool_call>{"name": "f", "arguments": {"a": '],
        "1",
        (PARSER, "_gathered"),
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
        (Engine, "_closes_value"),
    ),
    ("prefix", "hermes", {}, ["hi <tool"], "_ca", (Engine, "_lengthens_prefix")),
    (
        "string",
        "hermes",
        {"tools": TOOLS},
        ['<tool_call>{"name": "f", "arguments": {"text": "once'],
        " upon",
        (core, "_new_event"),
    ),
    (
        "string",
        "hermes",
        {"tools": TOOLS},
        ['<tool_call>{"name": "f", "arguments": {"text": "once', " upon"],
        ' a \\"time',
        (Engine, "_string_piece"),
    ),
    # (the bug of issue 24: one injected into a value's own fast reading)
    ("string", "qwen3-coder", {"tools": TOOLS}, [QWEN_VALUE], " and", (Engine, "_to_string")),
    ("string", "qwen3-coder", {"tools": TOOLS}, [QWEN_VALUE, " and"], " a<b", (ValueReader, "fast_piece")),
]
IDS = [f"{lane}-{grammar}-{where[1]}" for lane, grammar, _, _, _, where in LANES]


@pytest.mark.parametrize(("lane", "grammar", "options", "setup", "delta", "where"), LANES, ids=IDS)
def test_a_lane_is_armed_and_takes_its_delta(
    lane: str, grammar: str, options: dict[str, Any], setup: list[str], delta: str, where: tuple[Any, str]
) -> None:
    for engine in ENGINES:
        parser = StreamParser(grammar, engine=engine, **options)
        for piece in setup:
            parser.feed(piece)
        assert parser.lane == lane, engine
    # (the sinks spied on are the reference's: the native core runs its own in
    # Rust, compared with these event for event in test_native.py)
    options = {**options, "engine": "python"}
    called: list[str] = []
    owner, name = where
    real: Callable[..., Any] = (lambda *_: None) if owner is PARSER else getattr(owner, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        called.append(name)
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        if owner is not PARSER:
            patch.setattr(owner, name, spy)
        parser = StreamParser(grammar, **options)  # (lanes hold bound methods: built after the patch)
        for piece in setup:
            parser.feed(piece)
        _inject(patch, parser, where, spy)
        parser.feed(delta)
    assert called, f"the {lane} lane did not reach {name}"


@pytest.mark.parametrize(("lane", "grammar", "options", "setup", "delta", "where"), LANES, ids=IDS)
def test_a_bug_in_a_lane_latches_the_parser(
    lane: str, grammar: str, options: dict[str, Any], setup: list[str], delta: str, where: tuple[Any, str]
) -> None:
    owner, name = where
    with pytest.MonkeyPatch.context() as patch:
        if owner is not PARSER:
            patch.setattr(owner, name, _boom)
        parser = StreamParser(grammar, engine="python", **options)  # (the reference's sinks: see above)
        events: list[Event] = []
        for piece in setup:
            events += parser.feed(piece)
        _inject(patch, parser, where, _boom)
        with pytest.raises(InternalParserError, match="Boom") as raised:
            parser.feed(delta)
    # latched: every later call raises the same error, nothing carries on
    with pytest.raises(InternalParserError) as again:
        parser.feed("more")
    assert again.value is raised.value
    with pytest.raises(InternalParserError):
        parser.close()
    # nothing was lost before the failure: the events so far cover the input up
    # to the offset the error names, and the rest was never emitted
    fed = "".join(setup)
    assert covered_text(events) == fed[: raised.value.offset]


def test_no_lane_with_lanes_false() -> None:
    parser = StreamParser("hermes", lanes=False)
    assert parser.lane is None
    assert parser.feed("Hello there, ") == [TextDelta("Hello there, ")]
    assert parser.lane is None


def test_lanes_false_gives_the_same_events_in_every_lane() -> None:
    for lane, grammar, options, setup, delta, _ in LANES:
        text = "".join([*setup, delta, " and the rest"])
        deltas = [*setup, delta, " and the rest"]
        with_lanes = run(grammar, deltas, **options)
        without = run(grammar, deltas, **options, lanes=False)
        assert normalize(with_lanes) == normalize(without), lane
        assert covered_text(without) == text


def test_a_string_lane_streams_at_once_and_the_full_path_too() -> None:
    # (the lanes change when events come out, never which: a string streams from
    # each delta either way)
    for lanes in (True, False):
        parser = StreamParser("hermes", TOOLS, seed=1, lanes=lanes)
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
