"""Issue 51, items 1 and 13, on both engines.

1. ``grammar="auto"``: a marker in prose decides nothing. An opener is
   confirmed only by what follows it (a call its block announces); unconfirmed,
   it is text and the text after it is read again, so a real call of another
   format after the mention is read as the grammar given by name reads it.
   Reasoning markers decide on sight only where the answer begins.
13. ``reasoning="auto"``: every invisible code point (controls, default
   ignorables, fillers) before ``<think>`` counts as leading whitespace.
"""

from __future__ import annotations

import random
import re
import time
from pathlib import Path

import pytest

from support import calls_of, random_pieces, reasoning_of, text_of
from toolparse import ReasoningDelta, StreamParser, TextDelta, ToolCall, ToolCallError
from toolparse.engine.auto import TRIAL
from toolparse.engine.text import INVISIBLE
from toolparse.events import Event
from toolparse.grammars import ENTRIES, auto_tables

ENGINES = ("python", "native")
ROOT = Path(__file__).resolve().parent.parent


def _events(
    grammar: str, deltas: list[str], engine: str, **options: object
) -> tuple[list[Event], str | None]:
    parser = StreamParser(grammar, None, seed=7, engine=engine, **options)  # type: ignore[arg-type]
    events: list[Event] = []
    for delta in deltas:
        events += parser.feed(delta)
    events += parser.close()
    return events, parser.decided


# -- 13: every invisible character before <think> ---------------------------------------------


def _invisible_points() -> list[int]:
    """Each range's ends and a few points inside (the tag block whole)."""
    points: set[int] = set()
    for lo, hi in INVISIBLE:
        points.update((lo, hi, (lo + hi) // 2))
        if hi - lo < 160:
            points.update(range(lo, hi + 1))
    return sorted(points)


DRAFTED = '<think>Maybe <tool_call>{"name": "f", "arguments": {}}</tool_call></think>Done.'


@pytest.mark.parametrize("engine", ENGINES)
def test_every_invisible_character_before_think_is_leading_space(engine: str) -> None:
    wrong = []
    for point in _invisible_points():
        if 0xD800 <= point <= 0xDFFF:
            continue
        events, _ = _events("hermes", [chr(point) + DRAFTED], engine, reasoning="auto")
        reasoned = any(isinstance(e, ReasoningDelta) for e in events)
        if any(isinstance(e, ToolCall) for e in events) or not reasoned:
            wrong.append(f"U+{point:04X}")
    assert not wrong, wrong


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "lead", ["\x01", "\ufe0f", "\u034f", "\u3164", "\u2800", "\U000e0041", "\x85\u00a0\u3000"]
)
def test_invisible_lead_under_chunking(engine: str, lead: str) -> None:
    output = lead * 3 + DRAFTED
    rng = random.Random(lead)
    for deltas in ([output], list(output), random_pieces(output, rng)):
        events, _ = _events("hermes", deltas, engine, reasoning="auto")
        assert not any(isinstance(e, ToolCall) for e in events)
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Done."


@pytest.mark.parametrize("engine", ENGINES)
def test_a_visible_character_still_begins_the_answer(engine: str) -> None:
    # (the neighbours of the invisible ranges are not swallowed: the drafted call is text's business)
    for point in (0x20AC, 0x2801, 0x3165, 0xFE10, 0xE1000, 0xA1, 0x2D):
        events, _ = _events("hermes", [chr(point) + DRAFTED], engine, reasoning="auto")
        assert not any(isinstance(e, ReasoningDelta) for e in events), f"U+{point:04X}"


def test_the_native_invisible_set_is_the_python_one() -> None:
    """native/core/src/text.rs's ``is_invisible`` names exactly :data:`INVISIBLE`'s ranges."""
    source = (ROOT / "native" / "core" / "src" / "text.rs").read_text(encoding="utf-8")
    body = re.search(r"fn is_invisible\(c: u32\) -> bool \{\s*matches!\(\s*c,(.*?)\)\s*\}", source, re.S)
    assert body is not None
    ranges = []
    for arm in body.group(1).split("|"):
        bounds = [int(x, 16) for x in re.findall(r"0x([0-9A-Fa-f]+)", arm)]
        assert len(bounds) in (1, 2), arm
        ranges.append((bounds[0], bounds[-1]))
    assert tuple(ranges) == INVISIBLE


# -- 1: a marker in prose decides nothing ------------------------------------------------------


def _watched() -> list[str]:
    """Every marker auto watches for (openers anywhere, and what opens or decides
    where the answer begins), longest last."""
    tables = auto_tables()
    terms = set(tables.openers.literals)
    if tables.start_openers is not None:
        terms |= {t for t in tables.start_openers.terms if isinstance(t, str)}
    assert tables.auto is not None
    terms |= set(tables.auto.deciders)
    return sorted(terms, key=lambda t: (len(t), t))


WATCHED = _watched()
REAL = ("hermes", "mistral", "qwen3-coder", "deepseek", "kimi")
"""Grammars whose real call follows the mention."""


def _mentions(marker: str) -> list[str]:
    return [
        f"That model writes {marker} first. Now the real call:\n",
        f"That model writes `{marker}` first. Now the real call:\n",
        f"For example:\n```\n{marker}\n```\nNow the real call:\n",
        f"> {marker} is its marker.\n\nNow the real call: ",
    ]


def _real_call(grammar: str) -> str:
    return ENTRIES[grammar].grammar.prompt.render_call_after_text("get_weather", {"city": "Paris", "days": 3})


def test_every_watched_marker_is_counted() -> None:
    # (the issue counted 75 openers and reasoning markers; the lists grew since: all are here)
    assert len(WATCHED) >= 75
    assert "[TOOL_CALLS]" in WATCHED and "<|end|>" in WATCHED and "<tool_call>" in WATCHED


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("real", REAL)
def test_a_marker_in_prose_decides_nothing(engine: str, real: str) -> None:
    """Each watched marker mentioned (bare, in backticks, in a fence, in a quote),
    then a real call of another format: auto reads the call as the grammar given
    by name reads it alone, and the mention stays text."""
    call = _real_call(real)
    expected, _ = _events(real, [call], engine)
    wrong = []
    rng = random.Random(real)
    for marker in WATCHED:
        for prose in _mentions(marker):
            output = prose + call
            for deltas in ([output], random_pieces(output, rng)):
                events, decided = _events("auto", deltas, engine)
                if (
                    calls_of(events) != calls_of(expected)
                    or text_of(events) != prose + text_of(expected)
                    or any(isinstance(e, ReasoningDelta | ToolCallError) for e in events)
                    or decided != real
                ):
                    wrong.append((marker, prose[:24], len(deltas), decided))
    assert not wrong, f"{len(wrong)} wrong: {wrong[:12]}"


@pytest.mark.parametrize("engine", ENGINES)
def test_the_issues_example(engine: str) -> None:
    output = (
        'That model writes `[TOOL_CALLS]` first. Now the real call: <tool_call>{"name": "get_weather", '
        '"arguments": {"city": "Paris"}}</tool_call>'
    )
    for deltas in ([output], list(output)):
        events, decided = _events("auto", deltas, engine)
        assert decided == "hermes"
        assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]
        assert text_of(events) == "That model writes `[TOOL_CALLS]` first. Now the real call: "


@pytest.mark.parametrize("engine", ENGINES)
def test_a_mention_alone_is_text(engine: str) -> None:
    for marker in WATCHED:
        output = f"Models write `{marker}` before a call."
        events, decided = _events("auto", [output], engine)
        assert decided is None and text_of(events) == output, marker


@pytest.mark.parametrize("engine", ENGINES)
def test_reasoning_markers_decide_where_the_answer_begins(engine: str) -> None:
    output = "  <seed:think>Let me call it.</seed:think>Done."
    events, decided = _events("auto", [output], engine)
    assert decided == "seed-oss"
    assert reasoning_of(events) == "Let me call it." and text_of(events) == "  Done."
    # (later in the text the same marker is only mentioned)
    output = "Seed writes <seed:think> first. Done."
    events, decided = _events("auto", [output], engine)
    assert decided is None and text_of(events) == output


@pytest.mark.parametrize("engine", ENGINES)
def test_text_is_held_at_most_trial_characters(engine: str) -> None:
    """An unconfirmed opener holds the text after it TRIAL characters at most."""
    parser = StreamParser("auto", engine=engine)
    shown = parser.feed("See [TOOL_CALLS]")
    for _ in range(TRIAL + 8):
        shown += parser.feed("a")
    assert text_of(shown).startswith("See [TOOL_CALLS]" + "a" * 8)
    assert parser.decided is None


@pytest.mark.parametrize("engine", ENGINES)
def test_a_confirmed_call_still_decides(engine: str) -> None:
    mistral = '[TOOL_CALLS][{"name": "f", "arguments": {}}]'
    output = mistral + ' then <tool_call>{"name": "g", "arguments": {}}</tool_call>'
    events, decided = _events("auto", [output], engine)
    assert decided == "mistral"
    assert [c["name"] for c in calls_of(events)] == ["f"]


def _cpu(text: str, engine: str) -> float:
    """The least process CPU time of five reads of ``text`` (load does not count)."""
    best = float("inf")
    for _ in range(5):
        parser = StreamParser("auto", engine=engine)
        began = time.process_time()
        parser.feed(text)
        parser.close()
        best = min(best, time.process_time() - began)
    return best


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("unit", ['[TOOL_CALLS]{"name": "', "<tool_call> x ", "<|python_tag|> x ", "<tools>"])
def test_mentions_cost_linear_work(engine: str, unit: str) -> None:
    """Each opener reads again at most TRIAL characters after it: a stream of
    nothing but mentions costs CPU time linear in its length (4 times the text:
    at most 8 times the time; quadratic would be 16)."""
    n = 60_000 // len(unit)
    small, large = unit * (n // 4), unit * n
    events, decided = _events("auto", [large], engine)
    assert decided is None and text_of(events) == large
    assert _cpu(large, engine) < 8 * _cpu(small, engine) + 0.002


# -- 1: a call of an undeclared tool is the format's call, not a mention ----------------------

UNDECLARED = (
    'Let me check. <tool_call>{"name": "get_forecast", "arguments": {"city": "Paris"}}</tool_call> ok'
)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_call_of_an_undeclared_tool_decides_as_the_named_grammar_does(engine: str) -> None:
    """The block names a tool (only the tool is unknown): under ``"auto"`` it is
    hermes's ``unknown_tool`` error, as under ``"hermes"`` (so that ``on_error="call"``
    can hand it to the client's repair), not a mention shown as text."""
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    rng = random.Random(1)
    for deltas in ([UNDECLARED], list(UNDECLARED), random_pieces(UNDECLARED, rng)):
        outcome = {}
        for grammar in ("auto", "hermes"):
            parser = StreamParser(grammar, tools, seed=7, engine=engine)
            events: list[Event] = []
            for delta in deltas:
                events += parser.feed(delta)
            events += parser.close()
            errors = [e for e in events if isinstance(e, ToolCallError)]
            assert [(e.reason, e.name) for e in errors] == [("unknown_tool", "get_forecast")], grammar
            outcome[grammar] = (text_of(events), parser.decided)
        assert outcome["auto"] == (outcome["hermes"][0], "hermes")
