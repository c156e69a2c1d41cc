"""What a hostile user found in round three (issue 51), items 6 (fenced JSON),
7 (the native string lane) and 14 (gpt-oss, muse, kimi): one regression test
each. Every input is checked by the invariant matrix (whole, one character at
a time, random chunkings, no lanes) on the engine that runs, and by the
native core against the Python reference, feed by feed, in each chunking."""

from __future__ import annotations

import random
from typing import Any

import pytest

from support import calls_of, check_all, errors_of, random_pieces, reasoning_of, text_of
from toolparse import ToolCall, ToolCallError
from toolparse.engine import native
from toolparse.engine.declare import Reasoning
from toolparse.errors import InvalidOptionError
from toolparse.events import ErrorReason, Event
from toolparse.invariants import check_engines


def checked(grammar: str, text: str, *, cuts: list[list[str]] | None = None, **options: Any) -> list[Event]:
    """The events of ``text`` under every check: the invariant matrix in random
    chunkings (and ``cuts``), and both engines alike in each."""
    rng = random.Random(text)
    splits = [random_pieces(text, rng) for _ in range(6)] + (cuts or [])
    events = check_all(grammar, text, splits, **options)
    if native.AVAILABLE:
        for deltas in [[text], list(text), *splits]:
            check_engines(grammar, deltas, **options)
            check_engines(grammar, deltas, lanes=False, **options)
    return events


# -- 6a: fenced JSON, a fence closed right where the next one opens -----------------------------

A = '```tool_call\n{"name": "a", "arguments": {"x": 1}}'
B = '```tool_call\n{"name": "b", "arguments": {"y": "z"}}\n```'
CALLS_AB = [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"y": "z"}}]


@pytest.mark.parametrize("closer", ["```", "``", "`", "````", "`````", "\n```", "\n`"])
@pytest.mark.parametrize("line_break", ["\n", "\r\n"])
def test_a_fence_glued_to_the_next_fence_keeps_both_calls(closer: str, line_break: str) -> None:
    second = B.replace("tool_call\n", "tool_call" + line_break)
    events = checked("fenced-json", "Sure. " + A + closer + second + " Done.")
    assert calls_of(events) == CALLS_AB
    assert text_of(events) == "Sure.  Done."
    assert errors_of(events) == []


def test_the_first_call_s_raw_ends_at_its_own_closer() -> None:
    events = checked("fenced-json", A + "\n```" + B)
    raws = [e.raw for e in events if isinstance(e, ToolCall)]
    assert raws == [A + "\n```", B]


# -- 7: the native string lane streamed a new call's text into an ended one ---------------------

K2_FAILED = (
    "<ifm|tool_calls><ifm|tool_call>{<ifm|tool_calls><ifm|tool_call>e<ifm|arg_key>c</ifm|arg_key>"
    "<ifm|arg_value>P"
)
K2_NEXT = (
    "</ifm|arg_value><ifm|tool_call>p</ifm|tool_call><ifm|tool_call>k<ifm|arg_key>c</ifm|arg_key>"
    "<ifm|arg_value>x<> <!"
)
HY_FAILED = (
    "<tool_calls:opensource><tool_call:opensource>e<arg_key:opensource>c</arg_key:opensource>"
    "<arg_value:opensource>P"
)
HY_NEXT = (
    "</arg_value:opensource>JUNK</tool_calls:opensource><tool_calls><tool_call>k<tool_sep>"
    "<arg_key>c</arg_key><arg_value>x<> <!"
)
CASES_7 = {
    # (a failed group, then a bare call: two blocks of different kinds, read by two machines)
    "k2-horizon": (K2_FAILED, K2_NEXT, "[y</ifm|arg_value></ifm|tool_call>"),
    # (a failed :opensource block, then a plain one)
    "hunyuan": (HY_FAILED, HY_NEXT, "[y</arg_value></tool_call></tool_calls>"),
}


@pytest.mark.parametrize("grammar", list(CASES_7))
def test_a_call_after_a_failed_block_of_another_kind_gets_its_own_deltas(grammar: str) -> None:
    failed, next_, rest = CASES_7[grammar]
    text = failed + next_ + rest
    events = checked(grammar, text, cuts=[[failed, next_, *rest], [failed, next_, rest[0], rest[1:]]])
    (call,) = [c for c in calls_of(events) if c["name"] == "k"]
    assert call["arguments"] == {"c": "x<> <![y"}
    assert ErrorReason.MALFORMED_MARKUP in [e.reason for e in events if isinstance(e, ToolCallError)]


# -- 14: gpt-oss and muse messages; kimi arguments that are not an object -----------------------


@pytest.mark.parametrize(
    ("text", "visible"),
    [
        ("<|start|>assistant<|message|>Hi<|end|>", "Hi"),
        ("<|message|>Hi<|end|>", "Hi"),
        ("<|message|>Hi", "Hi"),
        ("<|channel|>analysis<|message|>Think<|end|><|start|>assistant<|message|>Hi<|return|>", "Hi"),
    ],
)
def test_gpt_oss_a_message_with_no_channel_is_the_answer(text: str, visible: str) -> None:
    events = checked("gpt-oss", text)
    assert text_of(events) == visible
    assert "<|" not in text_of(events)


@pytest.mark.parametrize(
    ("grammar", "text"),
    [
        (
            "gpt-oss",
            "<|channel|>analysis<|message|>Think<|start|>assistant<|channel|>final<|message|>Done<|return|>",
        ),
        ("gpt-oss", "<|channel|>analysis<|message|>Think<|start|>assistant<|message|>Done<|return|>"),
        ("muse", " to=self<|message|>Think<|start|>assistant to=user<|message|>Done<|eot|>"),
        ("muse", " to=self<|message|>Think<|start|>assistant<|message|>Done<|eot|>"),
    ],
)
def test_a_message_left_without_its_end_is_ended_by_the_next_start(grammar: str, text: str) -> None:
    events = checked(grammar, text)
    assert reasoning_of(events) == "Think"
    assert text_of(events) == "Done"


def test_gpt_oss_a_call_after_an_unended_analysis_message_is_a_call() -> None:
    text = (
        "<|channel|>analysis<|message|>Need weather.<|start|>assistant<|channel|>commentary "
        'to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>'
    )
    events = checked("gpt-oss", text)
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    assert reasoning_of(events) == "Need weather."
    assert errors_of(events) == []
    # (with the recipient in the role part: the opener begins at <|start|>)
    text = (
        "<|channel|>analysis<|message|>Need weather.<|start|>assistant to=functions.get_weather"
        '<|channel|>commentary json<|message|>{"city": "Paris"}<|call|>'
    )
    assert calls_of(checked("gpt-oss", text)) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]


def test_muse_a_call_after_an_unended_thought_is_a_call() -> None:
    text = (
        " to=self<|message|>Need weather.<|start|>assistant to=get_weather.get_weather<|message|>"
        '<atem:function_calls>\n<atem:invoke name="get_weather">\n'
        '<atem:parameter name="city">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>'
    )
    events = checked("muse", text, tools=[{"name": "get_weather", "parameters": {"type": "object"}}])
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    assert reasoning_of(events) == "Need weather."


def test_a_start_that_is_no_markup_ends_the_thought_and_shows_as_before() -> None:
    # (a tool's message echoed: <|start|> alone is not markup, as it was not before)
    text = (
        "<|channel|>analysis<|message|>Think<|start|>functions.f to=assistant"
        "<|channel|>commentary<|message|>ok"
    )
    events = checked("gpt-oss", text)
    assert reasoning_of(events) == "Think"
    assert text_of(events) == "<|start|>functions.f to=assistantok"


def test_an_ended_thought_is_read_as_before() -> None:
    text = "<|channel|>analysis<|message|>A<|end|><|start|>assistant<|channel|>final<|message|>B<|return|>"
    events = checked("gpt-oss", text)
    assert (reasoning_of(events), text_of(events)) == ("A", "B")


def test_a_reasoning_marker_that_ends_it_is_checked() -> None:
    with pytest.raises(InvalidOptionError):
        Reasoning("<a>", "</a>", ended_by=("</a>",))
    with pytest.raises(InvalidOptionError):
        Reasoning("<a>", "</a>", ended_by=(" <b>",))
    with pytest.raises(InvalidOptionError):
        Reasoning("<a>", "</a>", ended_by="<b>")  # type: ignore[arg-type]
    assert Reasoning("<a>", "</a>", ended_by=["<b>"]).ended_by == ("<b>",)  # type: ignore[arg-type]


KIMI_CALL = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
KIMI_END = "<|tool_call_end|><|tool_calls_section_end|>"


@pytest.mark.parametrize("arguments", ["hello", '["a"]', ' "x"', "42", "", " ", "null"])
def test_kimi_arguments_that_are_not_an_object_are_an_error(arguments: str) -> None:
    text = "Checking. " + KIMI_CALL + arguments + KIMI_END + " after"
    events = checked("kimi", text)
    assert calls_of(events) == []
    (error,) = [e for e in events if isinstance(e, ToolCallError)]
    assert error.reason == ErrorReason.MALFORMED_JSON and error.name == "f"
    assert error.raw == KIMI_CALL + arguments + KIMI_END
    assert text_of(events) == "Checking.  after"


def test_kimi_a_broken_call_leaves_the_next_call_whole() -> None:
    text = (
        KIMI_CALL + "oops<|tool_call_end|><|tool_call_begin|>functions.g:1<|tool_call_argument_begin|>"
        ' {"a": 1}' + KIMI_END
    )
    events = checked("kimi", text)
    assert calls_of(events) == [{"name": "g", "arguments": {"a": 1}}]
    assert [e.reason for e in events if isinstance(e, ToolCallError)] == [ErrorReason.MALFORMED_JSON]


def test_kimi_arguments_after_whitespace_still_read() -> None:
    events = checked("kimi", KIMI_CALL + '\n {"a": [1]}' + KIMI_END)
    assert calls_of(events) == [{"name": "f", "arguments": {"a": [1]}}]
