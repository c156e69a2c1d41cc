"""A small stand-in for the vLLM 0.33 interfaces toolparse's adapter uses, for
CI machines without vLLM (``tests/integration/vllm.sh`` runs the real wheel).

It mirrors only what the adapter touches, with vLLM's own names and field
names: the protocol models, the parser base classes and their managers,
``init_logger``, and the part of ``DelegatingParser.parse_delta`` /
``parse`` that drives an engine-based pair of parsers (reasoning first, then
tools, ``finish_streaming`` at the end). A character tokenizer stands in for
a model's (one id per character).
"""

from __future__ import annotations

import logging
import sys
import types
import uuid
from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field

# -- vllm.entrypoints.generate.base.protocol ----------------------------------------------


class FunctionCall(BaseModel):
    name: str
    arguments: str


class ToolCall(BaseModel):
    id: str = Field(default_factory=lambda: f"chatcmpl-tool-{uuid.uuid4().hex}")
    type: str = "function"
    function: FunctionCall


class DeltaFunctionCall(BaseModel):
    name: str | None = None
    arguments: str | None = None


class DeltaToolCall(BaseModel):
    id: str | None = None
    type: str | None = None
    index: int
    function: DeltaFunctionCall | None = None


class DeltaMessage(BaseModel):
    role: str | None = None
    content: str | None = None
    reasoning: str | None = None
    tool_calls: list[DeltaToolCall] = Field(default_factory=list)


class ExtractedToolCallInformation(BaseModel):
    tools_called: bool
    tool_calls: list[ToolCall]
    content: str | None = None


class ChatCompletionRequest(BaseModel):
    model: str = "m"
    messages: list[Any] = Field(default_factory=list)
    tools: list[Any] | None = None
    tool_choice: Any = "auto"
    include_reasoning: bool = True
    skip_special_tokens: bool | None = None
    parallel_tool_calls: bool | None = True


# -- vllm.tool_parsers / vllm.reasoning -------------------------------------------------------


class ToolParser:
    engine_based_streaming: bool = False
    supports_required_and_named: bool = True

    def __init__(self, tokenizer: Any, tools: list[Any] | None = None) -> None:
        self.prev_tool_call_arr: list[dict[str, Any]] = []
        self.current_tool_id: int = -1
        self.current_tool_name_sent: bool = False
        self.streamed_args_for_tool: list[str] = []
        self.model_tokenizer = tokenizer
        self.tools = list(tools or [])

    def adjust_request(self, request: Any) -> Any:
        return request


class ReasoningParser:
    engine_based_streaming: bool = False

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        self.model_tokenizer = tokenizer


class _Manager:
    registered: ClassVar[dict[str, type]]

    @classmethod
    def register_module(cls, name: str, force: bool = True, module: type | None = None) -> type:
        assert module is not None
        cls.registered[name] = module
        return module


class ToolParserManager(_Manager):
    registered: ClassVar[dict[str, type]] = {}

    @classmethod
    def get_tool_parser(cls, name: str) -> type:
        return cls.registered[name]


class ReasoningParserManager(_Manager):
    registered: ClassVar[dict[str, type]] = {}

    @classmethod
    def get_reasoning_parser(cls, name: str) -> type:
        return cls.registered[name]


# -- a tokenizer and the serving layer's driving of the two parsers -------------------------------


class CharTokenizer:
    """One token per character (its code point)."""

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        return [ord(c) for c in text]

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        return "".join(map(chr, ids))

    def get_vocab(self) -> dict[str, int]:
        return {}


class Pair:
    """An engine-based reasoning parser and tool parser driven as vLLM 0.33's
    ``DelegatingParser`` drives them (streaming and whole)."""

    def __init__(
        self, tool_cls: type | None, reasoning_cls: type | None, tools: list[Any] | None = None
    ) -> None:
        tokenizer = CharTokenizer()
        self.tokenizer = tokenizer
        self.tool: Any = tool_cls(tokenizer, tools) if tool_cls else None
        self.reasoning: Any = reasoning_cls(tokenizer) if reasoning_cls else None
        self.reasoning_ended = self.reasoning is None
        self.started = False

    def prompt(self, text: str) -> None:
        ids = self.tokenizer.encode(text)
        if self.reasoning is not None:
            self.reasoning.set_prompt_token_ids(ids)
            self.reasoning_ended = self.reasoning.is_reasoning_end(ids)

    def parse(self, output: str, request: Any) -> tuple[str | None, str | None, list[ToolCall]]:
        reasoning, content = (
            self.reasoning.extract_reasoning(output, request) if self.reasoning else (None, output)
        )
        if self.tool is None:
            return reasoning, content, []
        info = self.tool.extract_tool_calls(content or "", request)
        text = info.content if not (info.content and not info.content.strip()) else None
        return reasoning, text, list(info.tool_calls)

    def delta(self, text: str, request: Any, *, finished: bool = False) -> DeltaMessage | None:
        message: DeltaMessage | None = None
        current = text
        if self.reasoning_ended and self.tool is None:
            return DeltaMessage(content=text) if text else None  # (no phase: content as it came)
        if not self.reasoning_ended:
            assert self.reasoning is not None
            message = self.reasoning.extract_reasoning_streaming("", text, text, [], [], [])
            if self.reasoning.has_engine_confirmed_reasoning_end():
                self.reasoning_ended = True
                flushed = self.reasoning.finish_streaming()
                current = ((message.content if message else None) or "") + (
                    (flushed.content if flushed else None) or ""
                )
                if self.tool is not None:
                    if message is not None:
                        message.content = None  # (the tool parser reads it next)
                elif current:
                    message = message or DeltaMessage()
                    message.content = current
            else:
                current = ""
        if self.reasoning_ended and self.tool is not None and (current or finished):
            reasoning = message.reasoning if message else None
            message = self.tool.extract_tool_calls_streaming("", current, current, [], [], [], request)
            if reasoning:
                message = message or DeltaMessage()
                message.reasoning = message.reasoning or reasoning
        if finished:
            for parser in (self.reasoning, self.tool):
                if parser is None or (parser is self.reasoning and self.reasoning_ended):
                    continue
                flushed = parser.finish_streaming()
                if flushed is None:
                    continue
                message = message or DeltaMessage()
                message.content = ((message.content or "") + (flushed.content or "")) or None
                message.reasoning = ((message.reasoning or "") + (flushed.reasoning or "")) or None
                message.tool_calls = [*message.tool_calls, *flushed.tool_calls]
        return message


def accumulate(messages: list[DeltaMessage | None]) -> dict[str, Any]:
    """Deltas gathered as a client gathers a stream."""
    content, reasoning = [], []
    calls: list[dict[str, Any]] = []
    for message in messages:
        if message is None:
            continue
        content.append(message.content or "")
        reasoning.append(message.reasoning or "")
        for piece in message.tool_calls:
            assert piece.function is not None
            if piece.id is not None:
                assert piece.index == len(calls), "a call's first delta comes in order"
                calls.append({"id": piece.id, "name": piece.function.name, "arguments": []})
            calls[piece.index]["arguments"].append(piece.function.arguments or "")  # (joined once: linear)
    for call in calls:
        call["arguments"] = "".join(call["arguments"])
    return {"content": "".join(content), "reasoning": "".join(reasoning), "calls": calls}


# -- installing the stand-in -------------------------------------------------------------------


def _module(name: str, **attrs: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    module.__path__ = []  # (a package, so that submodules resolve)
    return module


def install() -> types.ModuleType:
    """Put the stand-in in ``sys.modules`` (unless the real vLLM is importable)
    and return toolparse's adapter module imported over it."""
    modules = {
        "vllm": _module("vllm"),
        "vllm.entrypoints": _module("vllm.entrypoints"),
        "vllm.entrypoints.generate": _module("vllm.entrypoints.generate"),
        "vllm.entrypoints.generate.base": _module("vllm.entrypoints.generate.base"),
        "vllm.entrypoints.generate.base.protocol": _module(
            "vllm.entrypoints.generate.base.protocol",
            DeltaFunctionCall=DeltaFunctionCall,
            DeltaMessage=DeltaMessage,
            DeltaToolCall=DeltaToolCall,
            ExtractedToolCallInformation=ExtractedToolCallInformation,
            FunctionCall=FunctionCall,
            ToolCall=ToolCall,
        ),
        "vllm.logger": _module("vllm.logger", init_logger=logging.getLogger),
        "vllm.reasoning": _module(
            "vllm.reasoning", ReasoningParser=ReasoningParser, ReasoningParserManager=ReasoningParserManager
        ),
        "vllm.tool_parsers": _module(
            "vllm.tool_parsers", ToolParser=ToolParser, ToolParserManager=ToolParserManager
        ),
    }
    for name, module in modules.items():
        sys.modules.setdefault(name, module)
    import toolparse.integrations.vllm as adapter

    return adapter
