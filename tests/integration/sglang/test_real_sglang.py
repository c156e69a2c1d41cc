"""toolparse's detectors inside the real SGLang 0.5.23 (run by tests/integration/vllm.sh).

Through SGLang's own code: its plugin loader and argument parser, its
``FunctionCallParser``, and its chat serving's streamed and whole tool-call
paths (``_process_tool_call_stream`` with the end-of-stream check for
unstreamed arguments, ``_process_tool_calls``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import types
from typing import Any

import pytest
from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest
from sglang.srt.entrypoints.openai.serving_chat import OpenAIServingChat
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.plugins import load_plugins

from toolparse.grammars import ENTRIES, GRAMMARS

logging.disable(logging.WARNING)
load_plugins()  # (toolparse is installed in this venv: its entry point runs here)

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
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


def serving(parser_name: str) -> Any:
    chat = OpenAIServingChat.__new__(
        OpenAIServingChat
    )  # (no tokenizer manager, no model: the parsing paths only)
    chat.tool_call_parser = parser_name
    chat.reasoning_parser = None
    chat.tokenizer_manager = types.SimpleNamespace(tokenizer=None)
    return chat


def stream(chat: Any, chunks: list[str], tools: list[dict[str, Any]]) -> dict[str, Any]:
    request = ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": "hi"}], tools=tools, stream=True
    )
    parsers: dict[int, Any] = {}
    content, calls = [], []

    async def run() -> None:
        for i, chunk in enumerate(chunks):
            last = i == len(chunks) - 1
            async for event in chat._process_tool_call_stream(
                0, chunk, parsers, {"meta_info": {"id": "x"}}, request, {}, created=0, flush=last
            ):
                delta = json.loads(event[len("data: ") :])["choices"][0]["delta"]
                content.append(delta.get("content") or "")
                for call in delta.get("tool_calls") or ():
                    if call.get("id"):
                        assert call["index"] == len(calls)
                        calls.append({"name": call["function"]["name"], "arguments": ""})
                    calls[call["index"]]["arguments"] += call["function"].get("arguments") or ""
        left = chat._check_for_unstreamed_tool_args(
            parsers[0], {"meta_info": {"id": "x"}}, request, 0, created=0
        )
        assert left is None, f"SGLang would send arguments again: {left}"

    asyncio.run(run())
    return {"content": "".join(content), "calls": calls}


def test_the_entry_point_adds_every_grammar_and_the_argument_parser_accepts_it() -> None:
    from sglang.srt.server_args import ServerArgs

    table = FunctionCallParser.ToolCallParserEnum
    assert all(table[f"toolparse-{grammar}"].grammar == grammar for grammar in GRAMMARS)
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    args = parser.parse_args(["--model-path", "Qwen/Qwen3-8B", "--tool-call-parser", "toolparse-qwen3-coder"])
    assert args.tool_call_parser == "toolparse-qwen3-coder"
    assert FunctionCallParser([], "toolparse-qwen3-coder").detector.grammar == "qwen3-coder"


@pytest.mark.parametrize("grammar", list(GRAMMARS))
def test_each_grammars_example_streamed_and_whole_through_sglangs_serving(grammar: str) -> None:
    chat = serving(f"toolparse-{grammar}")
    tools = tools_for(grammar)
    for text, expected in ENTRIES[grammar].examples:
        for chunks in ([text], list(text)):
            got = stream(chat, chunks, tools)
            assert [
                {"name": c["name"], "arguments": json.loads(c["arguments"])} for c in got["calls"]
            ] == expected
        from sglang.srt.entrypoints.openai.protocol import Tool

        result = chat._process_tool_calls(text, [Tool(**tool) for tool in tools], {"type": "stop"}, "auto")
        calls = [
            {"name": c.function.name, "arguments": json.loads(c.function.arguments)}
            for c in result.tool_calls
        ]
        assert calls == expected and result.finish_reason["type"] == "tool_calls"


def test_a_call_left_open_is_flushed_at_the_end_of_the_stream() -> None:
    got = stream(
        serving("toolparse-hermes"),
        ['Sure. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}'],
        [WEATHER],
    )
    assert got["content"] == "Sure." and [c["name"] for c in got["calls"]] == ["get_weather"]


def test_replacing_sglangs_own_name_is_opt_in(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolparse.integrations import sglang as adapter

    table = FunctionCallParser.ToolCallParserEnum
    assert not issubclass(table["qwen3_coder"], adapter.ToolparseDetector)
    original = table["qwen3_coder"]
    monkeypatch.setenv("TOOLPARSE_SGLANG_REPLACE", "qwen3_coder")
    adapter.register()
    try:
        assert type(FunctionCallParser([WEATHER], "qwen3_coder").detector).grammar == "qwen3-coder"
    finally:
        table["qwen3_coder"] = original
