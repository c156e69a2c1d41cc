"""A small stand-in for the SGLang 0.5.23 interfaces toolparse's detectors use,
for CI machines without SGLang (``tests/integration/vllm.sh`` runs the real wheel).

It mirrors only what the adapter touches, with SGLang's own names: the
detector base class and its result types, the parser table, and what
``serving_chat`` does with a detector's results (ids where an item has a
name, ``finish`` at the end, the check for arguments left unstreamed).
"""

from __future__ import annotations

import json
import sys
import types
import uuid
from typing import Any, ClassVar

from pydantic import BaseModel


class ToolCallItem(BaseModel):
    tool_index: int
    name: str | None = None
    parameters: str


class StreamingParseResult(BaseModel):
    normal_text: str = ""
    calls: list[ToolCallItem] = []


class BaseFormatDetector:
    def __init__(self) -> None:
        self._buffer = ""
        self.prev_tool_call_arr: list[dict[str, Any]] = []
        self.current_tool_id: int = -1
        self.current_tool_name_sent: bool = False
        self.streamed_args_for_tool: list[str] = []
        self.bot_token = ""
        self.eot_token = ""


class FunctionCallParser:
    ToolCallParserEnum: ClassVar[dict[str, type]] = {"qwen3_coder": BaseFormatDetector}


class Function(BaseModel):
    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None


class Tool(BaseModel):
    type: str = "function"
    function: Function


def tools_of(tools: list[dict[str, Any]]) -> list[Tool]:
    return [Tool(function=Function(**tool.get("function", tool))) for tool in tools]


def serve_stream(detector: Any, chunks: list[str], tools: list[Tool]) -> dict[str, Any]:
    """The stream a client receives, gathered as it gathers it (serving_chat's loop)."""
    content: list[str] = []
    calls: list[dict[str, Any]] = []
    results = [detector.parse_streaming_increment(chunk, tools) for chunk in chunks]
    results.append(detector.finish(tools))
    for result in results:
        content.append(result.normal_text)
        for item in result.calls:
            if item.name:  # (serving_chat: a new id and the name where an item has a name)
                assert item.tool_index == len(calls), "a call's first item comes in order"
                calls.append({"id": f"call_{uuid.uuid4().hex[:24]}", "name": item.name, "arguments": []})
            calls[item.tool_index]["arguments"].append(item.parameters)
    # (serving_chat._check_for_unstreamed_tool_args)
    if detector.prev_tool_call_arr and detector.streamed_args_for_tool:
        expected = detector.prev_tool_call_arr[-1].get("arguments", {})
        expected = expected if isinstance(expected, str) else json.dumps(expected, ensure_ascii=False)
        actual = detector.streamed_args_for_tool[-1]
        remaining = expected[len(actual) :] if expected.startswith(actual) else ""
        if remaining:
            calls[-1]["arguments"].append(remaining)
    for call in calls:
        call["arguments"] = "".join(call["arguments"])
    return {"content": "".join(content), "calls": calls}


def serve_whole(detector: Any, text: str, tools: list[Tool]) -> tuple[str, list[dict[str, Any]]]:
    """``FunctionCallParser.parse_non_stream`` and serving_chat's non-streamed calls."""
    if not tools or not detector.has_tool_call(text):
        return text, []
    result = detector.detect_and_parse(text, tools)
    calls = [{"name": item.name, "arguments": item.parameters} for item in result.calls]
    return result.normal_text, calls


def _module(name: str, **attrs: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    module.__path__ = []
    return module


def install() -> types.ModuleType:
    """Put the stand-in in ``sys.modules`` and return toolparse's detector module."""
    modules = {
        "sglang": _module("sglang"),
        "sglang.srt": _module("sglang.srt"),
        "sglang.srt.function_call": _module("sglang.srt.function_call"),
        "sglang.srt.function_call.base_format_detector": _module(
            "sglang.srt.function_call.base_format_detector", BaseFormatDetector=BaseFormatDetector
        ),
        "sglang.srt.function_call.core_types": _module(
            "sglang.srt.function_call.core_types",
            StreamingParseResult=StreamingParseResult,
            ToolCallItem=ToolCallItem,
        ),
        "sglang.srt.function_call.function_call_parser": _module(
            "sglang.srt.function_call.function_call_parser", FunctionCallParser=FunctionCallParser
        ),
    }
    for name, module in modules.items():
        sys.modules.setdefault(name, module)
    import toolparse.integrations.sglang as adapter

    return adapter
