"""toolparse's parsers inside the real vLLM 0.33.0 (run by tests/integration/vllm.sh).

Through vLLM's own code: ``ParserManager.get_parser`` composes the
``DelegatingParser``, whose ``parse`` (whole responses) and ``parse_delta``
(streams) run under ``ChatStreamProcessor``, the per-choice loop of vLLM's
chat serving; token deltas come from a real (stand-in) tokenizer, decoded
one token at a time.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import vllm_standins

vllm_standins.install()

from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor  # noqa: E402
from vllm.parser.parser_manager import ParserManager  # noqa: E402
from vllm.tokenizers import get_tokenizer  # noqa: E402
from vllm.tool_parsers import ToolParserManager  # noqa: E402

import toolparse.integrations.vllm as adapter  # noqa: E402
from toolparse.grammars import ENTRIES, GRAMMARS  # noqa: E402

TOKENIZER = get_tokenizer("Qwen/Qwen3-32B")
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
}


def tools_for(grammar: str) -> list[dict[str, Any]]:
    entry = ENTRIES[grammar]
    if entry.fuzz_tools is None:
        return [WEATHER]
    return [
        tool if "function" in tool else {"type": "function", "function": dict(tool)}
        for tool in entry.fuzz_tools
    ]


def chat_request(tools: list[dict[str, Any]] | None, **fields: Any) -> Any:
    return ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools, **fields
    )


def parser_for(tool: str | None, reasoning: str | None, request: Any) -> tuple[Any, type]:
    cls = ParserManager.get_parser(
        tool_parser_name=tool, reasoning_parser_name=reasoning, enable_auto_tools=True
    )
    assert cls is not None
    return cls(TOKENIZER, request.tools), cls


def token_deltas(text: str) -> list[tuple[str, list[int]]]:
    """The text as vLLM streams it: one token at a time, decoded incrementally."""
    ids = TOKENIZER.encode(text, add_special_tokens=False)
    out, done = [], ""
    for i in range(len(ids)):
        now = TOKENIZER.decode(ids[: i + 1], skip_special_tokens=False)
        if now.endswith("\ufffd"):  # (a character still incomplete: wait, as the detokenizer does)
            out.append(("", [ids[i]]))
            continue
        out.append((now[len(done) :], [ids[i]]))
        done = now
    assert done == text
    return out


def streamed(
    tool: str | None, reasoning: str | None, text: str, request: Any, prompt: str = ""
) -> dict[str, Any]:
    parser, cls = parser_for(tool, reasoning, request)
    processor = ChatStreamProcessor(request, parser, enable_auto_tools=True, parser_cls=cls)
    prompt_ids = TOKENIZER.encode(prompt, add_special_tokens=False) if prompt else []
    content, reasoning_text, calls, finish = [], [], [], None
    deltas = token_deltas(text)
    for i, (delta, ids) in enumerate(deltas):
        last = i == len(deltas) - 1
        step = processor.step(delta, ids, "stop" if last else None, prompt_ids)
        finish = step.finish_reason
        if step.delta is None:
            continue
        content.append(step.delta.content or "")
        reasoning_text.append(step.delta.reasoning or "")
        for call in step.delta.tool_calls:
            if call.id:
                assert call.index == len(calls)
                calls.append({"name": call.function.name, "arguments": ""})
            calls[call.index]["arguments"] += call.function.arguments or ""
    return {
        "content": "".join(content),
        "reasoning": "".join(reasoning_text),
        "calls": calls,
        "finish": finish,
    }


def test_every_name_is_registered_with_vllms_managers() -> None:
    names = set(ToolParserManager.list_registered())
    assert {f"toolparse-{grammar}" for grammar in GRAMMARS} <= names
    assert set(adapter.REASONING_PARSERS) <= set(vllm_standins_reasoning_names())


def vllm_standins_reasoning_names() -> list[str]:
    from vllm.reasoning import ReasoningParserManager

    return list(ReasoningParserManager.list_registered())


@pytest.mark.parametrize("grammar", list(GRAMMARS))
def test_each_grammars_example_whole_and_streamed_through_vllms_parser(grammar: str) -> None:
    tools = tools_for(grammar)
    request = chat_request(tools)
    for text, expected in ENTRIES[grammar].examples:
        parser, _ = parser_for(f"toolparse-{grammar}", None, request)
        _, content, calls = parser.parse(text, request, enable_auto_tools=True)
        assert [{"name": c.name, "arguments": json.loads(c.arguments)} for c in calls or ()] == expected
        got = streamed(f"toolparse-{grammar}", None, text, request)
        assert [
            {"name": c["name"], "arguments": json.loads(c["arguments"])} for c in got["calls"]
        ] == expected
        assert got["content"].strip() == (content or "").strip()
        assert got["finish"] == "tool_calls"


@pytest.mark.parametrize("mode", ["validated", "progressive"])
def test_a_long_argument_and_a_call_left_open_stream_whole_through_the_serving_loop(mode: str) -> None:
    cls = adapter.register_tool_parser(f"test-{mode}", "hermes", options=adapter.ServerOptions(mode=mode))
    assert ToolParserManager.get_tool_parser(f"test-{mode}") is cls
    code = 'print("a < b")\n' * 200
    text = (
        'Writing. <tool_call>{"name": "get_weather", "arguments": {"city": '
        + json.dumps(code)
        + ', "days": "2"}}'
    )
    got = streamed(f"test-{mode}", None, text, chat_request([WEATHER]))  # (no closer: flushed at the end)
    assert got["content"].strip() == "Writing."
    assert [json.loads(c["arguments"]) for c in got["calls"]] == [{"city": code, "days": 2}]


def test_toolparse_reasoning_then_tools_and_with_vllms_own_reasoning_parser() -> None:
    call = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    text = f"<think>The user wants Paris.</think>\n\nSure. {call}"
    request = chat_request([WEATHER])
    for reasoning in ("toolparse-auto", "qwen3"):
        got = streamed("toolparse-hermes", reasoning, text, request, prompt="<|im_start|>assistant\n")
        assert got["reasoning"] == "The user wants Paris."
        assert got["content"].strip() == "Sure."
        assert [c["name"] for c in got["calls"]] == ["get_weather"]
        parser, _ = parser_for("toolparse-hermes", reasoning, request)
        parser.set_prompt_token_ids(TOKENIZER.encode("<|im_start|>assistant\n"))
        thought, _content, calls = parser.parse(text, request, enable_auto_tools=True)
        assert thought == "The user wants Paris." and [c.name for c in calls] == ["get_weather"]


def test_a_prompt_that_opened_reasoning_and_one_that_closed_it() -> None:
    request = chat_request([WEATHER])
    opened = streamed(None, "toolparse-auto", "plan</think>Hello", request, prompt="assistant\n<think>\n")
    assert (opened["reasoning"], opened["content"]) == ("plan", "Hello")
    closed = streamed(
        None, "toolparse-think-open", "Hello", request, prompt="assistant\n<think>\n\n</think>\n\n"
    )
    assert (closed["reasoning"], closed["content"]) == ("", "Hello")


def test_requests_with_tools_keep_special_tokens() -> None:
    request = chat_request([WEATHER])
    parser, _ = parser_for("toolparse-kimi", None, request)
    assert parser.adjust_request(request).skip_special_tokens is False


def test_tool_choice_none_and_no_tools_keep_the_markup_as_content() -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    for request in (chat_request([WEATHER], tool_choice="none"), chat_request(None)):
        got = streamed("toolparse-hermes", None, text, request)
        assert got["calls"] == [] and got["content"] == text


def test_required_and_named_choices_are_constrained_to_the_format_and_read_by_toolparse() -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    named = {"type": "function", "function": {"name": "get_weather"}}
    for choice in ("required", named):
        request = chat_request([WEATHER], tool_choice=choice)
        parser, _ = parser_for("toolparse-hermes", None, request)
        adjusted = parser.adjust_request(request)
        assert json.loads(adjusted.structured_outputs.structural_tag)  # (xgrammar's hermes tag)
        _, _, calls = parser.parse(text, adjusted, enable_auto_tools=True)
        assert [(c.name, json.loads(c.arguments)) for c in calls] == [("get_weather", {"city": "Paris"})]
        got = streamed("toolparse-hermes", None, text, chat_request([WEATHER], tool_choice=choice))
        assert [c["name"] for c in got["calls"]] == ["get_weather"]
