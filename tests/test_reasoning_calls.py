"""A call written in reasoning that never closes (issue 27, item 8): reported
by default, salvaged on request, never run in silence, and never run at all
when the reasoning closed. The peers' reports: vLLM PRs #55759 and #32216,
issues #39056 and #42021 (Kimi K2 skipping ``</think>``); llama.cpp #17932."""

from __future__ import annotations

import random
from typing import Any

import pytest

from servers import Reply, fake_upstream
from support import random_pieces
from test_openai import ASK, TOOLS, calls_in, message_of, sdk, upstream_chunks
from toolparse import InvalidOptionError, StreamParser, TextDelta, ToolCall, ToolCallError
from toolparse.engine.thought import WINDOW
from toolparse.invariants import check_all, normalize, run
from toolparse.openai import CompletionStream, ToolCallFailed, complete, wrap

CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
UNCLOSED = "<think>The user wants the weather. " + CALL + "\n"  # (Kimi K2 without its </think>)
DECLARED = [
    {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}
]


def reported(events: list[Any]) -> list[tuple[str | None, Any]]:
    return [
        (e.name, e.arguments)
        for e in events
        if isinstance(e, ToolCallError) and e.reason == "call_in_unclosed_reasoning"
    ]


def run_calls(events: list[Any]) -> list[tuple[str, Any]]:
    return [(e.name, e.arguments) for e in events if isinstance(e, ToolCall)]


@pytest.mark.parametrize("mode", ["report", "salvage", "ignore"])
@pytest.mark.parametrize("tools", [None, DECLARED])
def test_each_mode_keeps_every_invariant(mode: str, tools: Any) -> None:
    splits = [random_pieces(UNCLOSED, random.Random(seed)) for seed in range(5)]
    events = check_all("hermes", UNCLOSED, splits, tools=tools, reasoning_calls=mode)
    paris = [("get_weather", {"city": "Paris"})]
    assert reported(events) == (paris if mode == "report" else [])
    assert run_calls(events) == (paris if mode == "salvage" else [])
    # the markup stays where it was read: in the reasoning, and nowhere else
    assert all(not e.raw for e in events if isinstance(e, ToolCall | ToolCallError))
    assert not any(isinstance(e, TextDelta) and e.text.strip() for e in events)


def test_report_is_the_default_and_the_error_says_what_to_do() -> None:
    parser = StreamParser("hermes")
    events = parser.feed(UNCLOSED) + parser.close()
    (error,) = [e for e in events if isinstance(e, ToolCallError)]
    assert error.reason == "call_in_unclosed_reasoning" and error.index is None and error.raw == ""
    assert "get_weather" in error.message and "salvage" in error.message


@pytest.mark.parametrize(
    "text",
    [
        "<think>Maybe " + CALL + "</think>No call needed.",  # (drafted, then closed: never run)
        "<think>Maybe " + CALL + "</think>Hmm.<think>thinking on",  # (a new thought forgets the old)
        "<think>Just thinking, no call",
        "<think>A broken <tool_call>{oops}</tool_call>",  # (only calls that parse count)
        "<think>Half a call " + CALL[:30],
    ],
)
def test_nothing_is_reported_where_no_complete_call_is_left_open(text: str) -> None:
    for mode in ("report", "salvage"):
        events = check_all("hermes", text, tools=DECLARED, reasoning_calls=mode)
        assert reported(events) == [] and run_calls(events) == []


def test_an_unknown_tool_in_reasoning_is_neither_reported_nor_salvaged() -> None:
    text = '<think><tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>'
    for mode in ("report", "salvage"):
        events = run("hermes", [text], tools=DECLARED, reasoning_calls=mode)
        assert reported(events) == [] and run_calls(events) == []


def test_other_formats_and_the_prompt_opened_thought() -> None:
    glm = (
        "I should check.<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>"
    )
    events = check_all("glm", glm, reasoning="think-open", reasoning_calls="salvage")
    assert run_calls(events) == [("get_weather", {"city": "Paris"})]
    coder = (
        "<think>ok <tool_call><function=get_weather><parameter=city>Paris</parameter></function></tool_call>"
    )
    assert reported(check_all("qwen3-coder", coder)) == [("get_weather", {"city": "Paris"})]


def test_forced_and_none_choices_report_nothing() -> None:
    for choice in ("none", "required"):
        events = run("hermes", [UNCLOSED], tools=DECLARED, tool_choice=choice)
        assert reported(events) == []


def test_only_the_last_window_of_a_long_thought_is_read_again_whatever_the_deltas() -> None:
    filler = "x" * (2 * WINDOW + 123)
    early = "<think>" + CALL + filler  # (the call lies before the window)
    late = "<think>" + filler + CALL  # (inside it)
    straddling = "<think>" + filler[: 2 * WINDOW] + CALL + "y" * (WINDOW - 40)  # (cut by its edge)
    for text, found in ((early, []), (late, [("get_weather", {"city": "Paris"})]), (straddling, [])):
        expected = run("hermes", [text], reasoning_calls="salvage")
        assert run_calls(expected) == found
        for size in (7, 4096):
            deltas = [text[i : i + size] for i in range(0, len(text), size)]
            assert normalize(run("hermes", deltas, reasoning_calls="salvage")) == normalize(expected)


def test_a_bad_option_is_named() -> None:
    with pytest.raises(InvalidOptionError, match="reasoning_calls"):
        StreamParser("hermes", reasoning_calls="run")


# -- through the OpenAI layer -------------------------------------------------------------


def convert(text: str, cuts: list[int], reasoning_calls: str = "report", **options: Any) -> Any:
    stream = CompletionStream(
        lambda: StreamParser("hermes", TOOLS, reasoning_calls=reasoning_calls), **options
    )
    chunks = [out for chunk in upstream_chunks(text, cuts) for out in stream.feed(chunk)] + stream.close()
    return message_of(chunks)


def test_the_chunk_conversion_salvages_or_reports() -> None:
    message, finish = convert(UNCLOSED, [5, 17, 40], reasoning_calls="salvage")
    assert calls_in(message) == [("get_weather", {"city": "Paris"})] and finish == "tool_calls"
    assert "<tool_call>" in message["reasoning_content"]  # (what the model wrote, still its reasoning)
    for on_error in ("content", "drop", "call"):  # (reported: never delivered as a call, nor as text)
        message, finish = convert(UNCLOSED, [9], on_error=on_error)
        assert "tool_calls" not in message and not message.get("content") and finish == "stop"
    response = {
        "id": "x",
        "choices": [{"index": 0, "message": {"content": UNCLOSED}, "finish_reason": "stop"}],
    }
    with pytest.raises(ToolCallFailed, match="never closed"):
        complete(response, lambda: StreamParser("hermes", TOOLS), on_error="raise")


def test_wrap_salvages_on_request() -> None:
    with fake_upstream(Reply(UNCLOSED, size=6), Reply(UNCLOSED)) as upstream:
        safe = wrap(sdk(upstream.url))
        assert (
            safe.chat.completions.create(model="m", messages=ASK, tools=TOOLS).choices[0].message.tool_calls
            is None
        )
        salvaging = wrap(sdk(upstream.url), reasoning_calls="salvage")
        message = salvaging.chat.completions.create(model="m", messages=ASK, tools=TOOLS).choices[0].message
        assert calls_in(message) == [("get_weather", {"city": "Paris"})]


def test_the_proxy_routes_the_cli_and_the_server_integrations_take_the_choice() -> None:
    from toolparse.cli import _build_parser
    from toolparse.integrations.toolcalls import ServerOptions, ToolStream
    from toolparse.routes import Router

    route = Router.from_dict({"default": {"upstream": "http://127.0.0.1:9/v1", "reasoning_calls": "salvage"}})
    assert route.default is not None and route.default.calling.parser_options == {
        "reasoning_calls": "salvage"
    }
    args = _build_parser().parse_args(["serve", "--upstream", "http://x/v1", "--reasoning-calls", "salvage"])
    assert args.reasoning_calls == "salvage"
    options = ServerOptions.from_env({"TOOLPARSE_REASONING_CALLS": "salvage"})
    content, calls = ToolStream.whole("hermes", UNCLOSED, TOOLS, options=options)
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", '{"city":"Paris"}')]
    assert content.startswith("<think>")  # (a server's reasoning parser had not split it: content)
    with pytest.raises(InvalidOptionError, match="TOOLPARSE_REASONING_CALLS"):
        ServerOptions.from_env({"TOOLPARSE_REASONING_CALLS": "yes"})
