"""Kimi K2 (``kimi``), on inputs from other projects' test suites.

Each case is a model output copied from a public test suite (repository,
path, commit and licence in the constants below; gathered in the research
notes' case file) with what toolparse gives for it: the calls, the visible
text (exactly: every character of the output lands in one event), the
errors, and the reasoning. Where toolparse decides differently from the
source, the comment says so and why. Every case also runs through
``check_all``: conservation, chunking independence (one delta, one character
at a time, and the source's own split where it has one), reconciliation.

Kimi K2 Thinking and K2.5 write ``<think>...</think>`` themselves (the
default ``reasoning="auto"``). The markers are special tokens: they reach a
client only when the server keeps special tokens (see the tests at the end
for what toolparse does when they were stripped).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from support import calls_of, check_all, text_of
from toolparse import parse_text
from toolparse.events import ToolCallError
from toolparse.grammars import get_grammar

# Where each case comes from (repository, path, commit, licence).
VLLM_KIMI = (
    "vllm-project/vllm tests/tool_parsers/test_kimi_k2_tool_parser.py "
    "@0825a6c362795d1643ce5684bb3cfa26ff6ffed2 (Apache-2.0)"
)
SGLANG_KIMI = (
    "sgl-project/sglang test/registered/function_call/test_kimik2_detector.py "
    "@0d4564a113169e2189fa7bf0dcc85bf7e48bb13a (Apache-2.0)"
)
LLAMA_CPP = (
    "ggml-org/llama.cpp tests/test-chat.cpp, Kimi-K2-Thinking (MIT; commit not recorded by the case file)"
)


def tool(name: str, **properties: Any) -> dict[str, Any]:
    return {"name": name, "parameters": {"type": "object", "properties": properties}}


STRING = {"type": "string"}

# The tools the sources declare, where they matter (Kimi writes JSON: nothing is typed).
WEATHER_AND_FILES = [tool("get_weather", city=STRING, unit=STRING), tool("read_file", path=STRING)]
FILES_AND_WEATHER = [tool("ReadFile", path=STRING), tool("get_weather", city=STRING, unit=STRING)]


@dataclass(frozen=True)
class Case:
    id: str
    source: str
    output: str
    """The model's output, as the source feeds it."""
    calls: list[dict[str, Any]]
    text: str = ""
    """The visible text."""
    reasoning: str = ""
    errors: tuple[str, ...] = ()
    splits: list[list[str]] = field(default_factory=list)
    """The source's own deltas."""
    tools: list[dict[str, Any]] | None = None
    options: dict[str, Any] = field(default_factory=dict)


CASES = [
    Case(
        # (vLLM's test helper writes a space after the call id, as in every vLLM case; the template
        # writes none)
        "vllm-kimi-single",
        VLLM_KIMI,
        (
            "I'll check. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 "
            '<|tool_call_argument_begin|>{"city": "Beijing"}<|tool_call_end|><|tool_calls_section_end|>'
        ),
        [{"name": "get_weather", "arguments": {"city": "Beijing"}}],
        text="I'll check. ",
    ),
    Case(
        "vllm-kimi-parallel",
        VLLM_KIMI,
        (
            "Compare weather. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 "
            '<|tool_call_argument_begin|>{"city": "Beijing"}<|tool_call_end|>'
            '<|tool_call_begin|>functions.get_weather:1 <|tool_call_argument_begin|>{"city": '
            '"Shanghai"}<|tool_call_end|><|tool_calls_section_end|>'
        ),
        [
            {"name": "get_weather", "arguments": {"city": "Beijing"}},
            {"name": "get_weather", "arguments": {"city": "Shanghai"}},
        ],
        text="Compare weather. ",
    ),
    Case(
        "vllm-kimi-three-different",
        VLLM_KIMI,
        (
            "Multiple tasks. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 "
            '<|tool_call_argument_begin|>{"city": "New York"}<|tool_call_end|>'
            '<|tool_call_begin|>functions.get_news:1 <|tool_call_argument_begin|>{"topic": '
            '"technology"}<|tool_call_end|><|tool_call_begin|>functions.send_email:2 '
            '<|tool_call_argument_begin|>{"to": "user@example.com", "subject": "Daily Update"}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [
            {"name": "get_weather", "arguments": {"city": "New York"}},
            {"name": "get_news", "arguments": {"topic": "technology"}},
            {"name": "send_email", "arguments": {"to": "user@example.com", "subject": "Daily Update"}},
        ],
        text="Multiple tasks. ",
    ),
    Case(
        "vllm-kimi-angle-brackets-in-json",
        VLLM_KIMI,
        (
            "Process HTML. <|tool_calls_section_begin|><|tool_call_begin|>functions.process_html:0 "
            '<|tool_call_argument_begin|>{"html": "<div>content</div>"}<|tool_call_end|>'
            "<|tool_calls_section_end|>"
        ),
        [{"name": "process_html", "arguments": {"html": "<div>content</div>"}}],
        text="Process HTML. ",
    ),
    Case(
        "vllm-kimi-multiline-json",
        VLLM_KIMI,
        (
            "Formatted. <|tool_calls_section_begin|><|tool_call_begin|>functions.process_data:0 "
            '<|tool_call_argument_begin|>{\n  "name": "test",\n  "value": 123\n}<|tool_call_end|>'
            "<|tool_calls_section_end|>"
        ),
        [{"name": "process_data", "arguments": {"name": "test", "value": 123}}],
        text="Formatted. ",
    ),
    Case(
        "vllm-kimi-no-functions-prefix",
        VLLM_KIMI,
        (
            "No prefix. <|tool_calls_section_begin|><|tool_call_begin|>get_weather:0 "
            '<|tool_call_argument_begin|>{"city": "Tokyo"}<|tool_call_end|><|tool_calls_section_end|>'
        ),
        [{"name": "get_weather", "arguments": {"city": "Tokyo"}}],
        text="No prefix. ",
    ),
    Case(
        "vllm-kimi-empty-args",
        VLLM_KIMI,
        (
            "Empty args. <|tool_calls_section_begin|><|tool_call_begin|>functions.test:0 "
            "<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [{"name": "test", "arguments": {}}],
        text="Empty args. ",
    ),
    Case(
        # vLLM and SGLang pass the broken arguments through as they are; here the call is a
        # malformed_json error carrying its markup, and the next call is read
        "vllm-kimi-invalid-json-passthrough",
        VLLM_KIMI,
        (
            "Help. <|tool_calls_section_begin|><|tool_call_begin|>functions.bad:0 "
            '<|tool_call_argument_begin|>{"city": "Beijing"<|tool_call_end|>'
            '<|tool_call_begin|>functions.good:1 <|tool_call_argument_begin|>{"city": "Shanghai"}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [{"name": "good", "arguments": {"city": "Shanghai"}}],
        text="Help. ",
        errors=("malformed_json",),
    ),
    Case(
        # (vLLM skips the call silently; here it is an error carrying its markup)
        "vllm-kimi-bad-id-skipped",
        VLLM_KIMI,
        (
            "Help. <|tool_calls_section_begin|><|tool_call_begin|>functions.invalid.0 "
            '<|tool_call_argument_begin|>{"city": "Beijing"}<|tool_call_end|>'
            '<|tool_call_begin|>functions.valid:1 <|tool_call_argument_begin|>{"city": "Shanghai"}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [{"name": "valid", "arguments": {"city": "Shanghai"}}],
        text="Help. ",
        errors=("malformed_markup",),
    ),
    Case(
        # vLLM and SGLang guess the name of a call whose id is a bare counter (the only tool, or
        # the one whose properties match the argument keys); here a call's name must be written:
        # the call is a malformed_markup error carrying its markup, never a guessed call
        "vllm-kimi-bare-counter-id",
        VLLM_KIMI,
        (
            "Let me check. <|tool_calls_section_begin|><|tool_call_begin|>0 "
            '<|tool_call_argument_begin|>{"city": "Tokyo", "unit": "celsius"}<|tool_call_end|>'
            "<|tool_calls_section_end|>"
        ),
        [],
        text="Let me check. ",
        errors=("malformed_markup",),
        tools=WEATHER_AND_FILES,
    ),
    Case(
        "vllm-kimi-stream-incremental-args",
        VLLM_KIMI,
        (
            "Help. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 "
            '<|tool_call_argument_begin|>{"city": "Beijing"} <|tool_call_end|>'
            "<|tool_calls_section_end|>"
        ),
        [{"name": "get_weather", "arguments": {"city": "Beijing"}}],
        text="Help. ",
        splits=[
            [
                "Help. ",
                "<|tool_calls_section_begin|>",
                "<|tool_call_begin|>",
                "functions.get_weather:0 ",
                "<|tool_call_argument_begin|>",
                '{"ci',
                'ty": "Be',
                'ijing"}',
                " ",
                "<|tool_call_end|>",
                "<|tool_calls_section_end|>",
            ]
        ],
    ),
    Case(
        # vLLM hides the text between the section marker and the first call; here a section
        # marker followed by prose opens no section: both are visible text, and the call after them
        # is read (its block takes the section's end marker)
        "vllm-kimi-noise-in-section",
        VLLM_KIMI,
        (
            "Reasoning. <|tool_calls_section_begin|> spurious noise "
            '<|tool_call_begin|>functions.test:0 <|tool_call_argument_begin|>{"k": "v"} '
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [{"name": "test", "arguments": {"k": "v"}}],
        text="Reasoning. <|tool_calls_section_begin|> spurious noise ",
        splits=[
            [
                "Reasoning. ",
                "<|tool_calls_section_begin|>",
                " spurious noise ",
                "<|tool_call_begin|>",
                "functions.test:0 ",
                "<|tool_call_argument_begin|>",
                '{"k": "v"} ',
                "<|tool_call_end|>",
                "<|tool_calls_section_end|>",
            ]
        ],
    ),
    Case(
        # (a section holding no call is not markup of a call: its markers are visible text)
        "vllm-kimi-empty-section",
        VLLM_KIMI,
        "Reasoning. <|tool_calls_section_begin|><|tool_calls_section_end|>",
        [],
        text="Reasoning. <|tool_calls_section_begin|><|tool_calls_section_end|>",
        splits=[
            [
                "Reasoning. ",
                "<|tool_calls_section_begin|>",
                "<|tool_calls_section_end|>",
            ]
        ],
    ),
    Case(
        # vLLM streams a call with the partial arguments '{"city": "Bei'; here the call cut short
        # by the end of the stream is an unfinished_call error
        "vllm-kimi-truncated",
        VLLM_KIMI,
        (
            "I'll check. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 "
            '<|tool_call_argument_begin|>{"city": "Bei'
        ),
        [],
        text="I'll check. ",
        errors=("unfinished_call",),
        splits=[
            [
                "I'll check. ",
                "<|tool_calls_section_begin|>",
                "<|tool_call_begin|>",
                "functions.get_weather:0 ",
                "<|tool_call_argument_begin|>",
                '{"city": "Bei',
            ]
        ],
    ),
    Case(
        # vLLM drops the text after the section; here it is kept (as SGLang does)
        "vllm-kimi-content-after-section",
        VLLM_KIMI,
        (
            "Before. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 "
            '<|tool_call_argument_begin|>{"city": "Tokyo"} <|tool_call_end|><|tool_calls_section_end|> '
            "After tools."
        ),
        [{"name": "get_weather", "arguments": {"city": "Tokyo"}}],
        text="Before.  After tools.",
        splits=[
            [
                "Before. ",
                "<|tool_calls_section_begin|>",
                "<|tool_call_begin|>",
                "functions.get_weather:0 ",
                "<|tool_call_argument_begin|>",
                '{"city": "Tokyo"} ',
                "<|tool_call_end|>",
                "<|tool_calls_section_end|>",
                " After tools.",
            ]
        ],
    ),
    Case(
        "vllm-kimi-three-streamed",
        VLLM_KIMI,
        (
            "Multiple tasks. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0 "
            '<|tool_call_argument_begin|>{"city": "NYC"} <|tool_call_end|>'
            '<|tool_call_begin|>functions.get_news:1 <|tool_call_argument_begin|>{"topic": "tech"} '
            "<|tool_call_end|><|tool_call_begin|>functions.send_email:2 "
            '<|tool_call_argument_begin|>{"to": "a@b.com"} <|tool_call_end|><|tool_calls_section_end|>'
        ),
        [
            {"name": "get_weather", "arguments": {"city": "NYC"}},
            {"name": "get_news", "arguments": {"topic": "tech"}},
            {"name": "send_email", "arguments": {"to": "a@b.com"}},
        ],
        text="Multiple tasks. ",
        splits=[
            [
                "Multiple tasks. ",
                "<|tool_calls_section_begin|>",
                "<|tool_call_begin|>",
                "functions.get_weather:0 ",
                "<|tool_call_argument_begin|>",
                '{"city": "NYC"} ',
                "<|tool_call_end|>",
                "<|tool_call_begin|>",
                "functions.get_news:1 ",
                "<|tool_call_argument_begin|>",
                '{"topic": "tech"} ',
                "<|tool_call_end|>",
                "<|tool_call_begin|>",
                "functions.send_email:2 ",
                "<|tool_call_argument_begin|>",
                '{"to": "a@b.com"} ',
                "<|tool_call_end|>",
                "<|tool_calls_section_end|>",
            ]
        ],
    ),
    Case(
        "sglang-kimi-single",
        SGLANG_KIMI,
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.ReadFile:0"
            '<|tool_call_argument_begin|>{"path": "/test.py"}<|tool_call_end|>'
            "<|tool_calls_section_end|>"
        ),
        [{"name": "ReadFile", "arguments": {"path": "/test.py"}}],
        text="",
    ),
    Case(
        "sglang-kimi-two-calls-one-section",
        SGLANG_KIMI,
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.ReadFile:0"
            '<|tool_call_argument_begin|>{"path": "/a.py"}<|tool_call_end|>'
            '<|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>{"city": "Tokyo"}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [
            {"name": "ReadFile", "arguments": {"path": "/a.py"}},
            {"name": "get_weather", "arguments": {"city": "Tokyo"}},
        ],
        text="",
    ),
    Case(
        # (the counter goes on across the conversation; the calls' indices are still 0 and 1)
        "sglang-kimi-nonzero-counter",
        SGLANG_KIMI,
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.ReadFile:5"
            '<|tool_call_argument_begin|>{"path": "/a.py"}<|tool_call_end|>'
            '<|tool_call_begin|>functions.get_weather:6<|tool_call_argument_begin|>{"city": "Tokyo"}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [
            {"name": "ReadFile", "arguments": {"path": "/a.py"}},
            {"name": "get_weather", "arguments": {"city": "Tokyo"}},
        ],
        text="",
    ),
    Case(
        "sglang-kimi-text-before",
        SGLANG_KIMI,
        (
            "Let me check the file.<|tool_calls_section_begin|><|tool_call_begin|>functions.ReadFile:0"
            '<|tool_call_argument_begin|>{"path": "/test.py"}<|tool_call_end|>'
            "<|tool_calls_section_end|>"
        ),
        [{"name": "ReadFile", "arguments": {"path": "/test.py"}}],
        text="Let me check the file.",
    ),
    Case(
        "sglang-kimi-hyphenated-mcp-name",
        SGLANG_KIMI,
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.mcp__portal__search-documents:0"
            '<|tool_call_argument_begin|>{"path": "/docs"}<|tool_call_end|><|tool_calls_section_end|>'
        ),
        [{"name": "mcp__portal__search-documents", "arguments": {"path": "/docs"}}],
        text="",
    ),
    Case(
        "sglang-kimi-stream-hyphenated",
        SGLANG_KIMI,
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.list-files:0"
            '<|tool_call_argument_begin|>{"path": "/home"}<|tool_call_end|><|tool_calls_section_end|>'
        ),
        [{"name": "list-files", "arguments": {"path": "/home"}}],
        text="",
        splits=[
            [
                (
                    "<|tool_calls_section_begin|><|tool_call_begin|>functions.list-files:0"
                    '<|tool_call_argument_begin|>{"path'
                ),
                '": "/home"}',
                "<|tool_call_end|>",
                "<|tool_calls_section_end|>",
            ]
        ],
    ),
    Case(
        "sglang-kimi-trailing-lt",
        SGLANG_KIMI,
        "normal text <",
        [],
        text="normal text <",
    ),
    Case(
        # SGLang strips a stray marker from the text; here a marker that opens nothing is text
        "sglang-kimi-stray-section-end",
        SGLANG_KIMI,
        "normal text<|tool_calls_section_end|>",
        [],
        text="normal text<|tool_calls_section_end|>",
    ),
    Case(
        "sglang-kimi-think-then-call",
        SGLANG_KIMI,
        (
            "<think>I need to check the file.</think><|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.ReadFile:0<|tool_call_argument_begin|>{"path": "/test.py"}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [{"name": "ReadFile", "arguments": {"path": "/test.py"}}],
        text="",
        reasoning="I need to check the file.",
    ),
    Case(
        # Kimi K2.5 may open a tool section inside <think> and never close it; SGLang, vLLM and
        # llama.cpp end reasoning there. Here markup inside reasoning is reasoning text, never a
        # call (README, Reasoning): the stream ends inside reasoning, so the call is not run, and
        # it is reported (call_in_unclosed_reasoning; reasoning_calls="salvage" would run it)
        "sglang-kimi-call-inside-think-no-close",
        SGLANG_KIMI,
        (
            "<think>Let me read this file...<|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.ReadFile:0<|tool_call_argument_begin|>{"path": "/test.py"}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [],
        errors=("call_in_unclosed_reasoning",),
        text="",
        reasoning=(
            "Let me read this file...<|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.ReadFile:0<|tool_call_argument_begin|>{"path": '
            '"/test.py"}<|tool_call_end|><|tool_calls_section_end|>'
        ),
    ),
    Case(
        # (as sglang-kimi-call-inside-think-no-close)
        "sglang-kimi-stream-call-inside-think",
        SGLANG_KIMI,
        (
            "<think>I need to read the file.<|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.ReadFile:5<|tool_call_argument_begin|>{"path": '
            '"/Users/user/project/file.ts"}<|tool_call_end|><|tool_calls_section_end|>'
        ),
        [],
        errors=("call_in_unclosed_reasoning",),
        text="",
        reasoning=(
            "I need to read the file.<|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.ReadFile:5<|tool_call_argument_begin|>{"path": '
            '"/Users/user/project/file.ts"}<|tool_call_end|><|tool_calls_section_end|>'
        ),
        splits=[
            [
                "<think>",
                "I need to",
                " read the file.",
                "<|tool_calls_section_begin|>",
                "<|tool_call_begin|>functions.ReadFile:5",
                "<|tool_call_argument_begin|>",
                '{"path": "/Users/user/project/file.ts"}',
                "<|tool_call_end|>",
                "<|tool_calls_section_end|>",
            ]
        ],
    ),
    Case(
        # (the source's detector starts inside reasoning: reasoning='think-open'; the section marker
        # is held back while partial, then, inside reasoning, is reasoning text)
        "sglang-kimi-partial-marker-in-reasoning",
        SGLANG_KIMI,
        "some reasoning<|tool_calls_section_begin|>rest",
        [],
        text="",
        reasoning="some reasoning<|tool_calls_section_begin|>rest",
        splits=[
            [
                "some reasoning",
                "<|tool",
                "_calls_section_begin|>rest",
            ]
        ],
        options={"reasoning": "think-open"},
    ),
    Case(
        "sglang-kimi-force-reasoning-no-open-tag",
        SGLANG_KIMI,
        "I should analyze this...</think>Here is the answer.",
        [],
        text="Here is the answer.",
        reasoning="I should analyze this...",
        splits=[
            [
                "I should analyze this...",
                "</think>",
                "Here is the answer.",
            ]
        ],
        options={"reasoning": "think-open"},
    ),
    Case(
        "sglang-kimi-think-content-then-call",
        SGLANG_KIMI,
        (
            "<think>Thinking about it...</think>This is a content:<|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "London"}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [{"name": "get_weather", "arguments": {"city": "London"}}],
        text="This is a content:",
        reasoning="Thinking about it...",
        splits=[
            [
                "<think>",
                "Thinking about it...",
                "</think>This is a ",
                "content:<|tool_calls_section_begin|>",
                "<|tool_call_begin|>functions.get_weather:0",
                '<|tool_call_argument_begin|>{"city": "London"}',
                "<|tool_call_end|>",
                "<|tool_calls_section_end|>",
            ]
        ],
    ),
    Case(
        "sglang-kimi-two-sections-one-chunk",
        SGLANG_KIMI,
        (
            "<think>Thinking about it...</think>This is a content:<|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "London"}'
            "<|tool_call_end|><|tool_calls_section_end|><|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>{"city": "Delhi"}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [
            {"name": "get_weather", "arguments": {"city": "London"}},
            {"name": "get_weather", "arguments": {"city": "Delhi"}},
        ],
        text="This is a content:",
        reasoning="Thinking about it...",
        splits=[
            [
                "<think>",
                "Thinking about it...",
                "</think>This is a ",
                (
                    "content:<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
                    '<|tool_call_argument_begin|>{"city": "London"}<|tool_call_end|>'
                    "<|tool_calls_section_end|><|tool_calls_section_begin|>"
                    '<|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>{"city": '
                    '"Delhi"}<|tool_call_end|><|tool_calls_section_end|>'
                ),
            ]
        ],
    ),
    Case(
        "sglang-kimi-split-inside-args",
        SGLANG_KIMI,
        (
            "<think>Thinking about it...</think>This is a content:<|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "London"}'
            "<|tool_call_end|><|tool_calls_section_end|><|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>{"city": "Delhi"}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [
            {"name": "get_weather", "arguments": {"city": "London"}},
            {"name": "get_weather", "arguments": {"city": "Delhi"}},
        ],
        text="This is a content:",
        reasoning="Thinking about it...",
        splits=[
            [
                (
                    "<think>Thinking about it...</think>This is a content:<|tool_calls_section_begin|>"
                    '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Lon'
                ),
                (
                    'don"}<|tool_call_end|><|tool_calls_section_end|><|tool_calls_section_begin|>'
                    '<|tool_call_begin|>functions.get_weather:1<|tool_call_argument_begin|>{"city": '
                    '"Delhi"}<|tool_call_end|><|tool_calls_section_end|>'
                ),
            ]
        ],
    ),
    Case(
        "sglang-kimi-text-between-sections",
        SGLANG_KIMI,
        (
            "Prefix text:<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
            '<|tool_call_argument_begin|>{"city": "London"}<|tool_call_end|><|tool_calls_section_end|> '
            "Now calling next: <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:1"
            '<|tool_call_argument_begin|>{"city": "Delhi"}<|tool_call_end|><|tool_calls_section_end|>'
        ),
        [
            {"name": "get_weather", "arguments": {"city": "London"}},
            {"name": "get_weather", "arguments": {"city": "Delhi"}},
        ],
        text="Prefix text: Now calling next: ",
    ),
    Case(
        # (SGLang skips the call silently; here it is an error carrying its markup)
        "sglang-kimi-unparsable-id-then-valid",
        SGLANG_KIMI,
        (
            "normal text before<|tool_calls_section_begin|><|tool_call_begin|>weird@id"
            '<|tool_call_argument_begin|>{"unknown_key": "London"}<|tool_call_end|>'
            "<|tool_calls_section_end|><|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Delhi"}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [{"name": "get_weather", "arguments": {"city": "Delhi"}}],
        text="normal text before",
        errors=("malformed_markup",),
        splits=[
            [
                "normal text before",
                (
                    "<|tool_calls_section_begin|><|tool_call_begin|>weird@id"
                    '<|tool_call_argument_begin|>{"unknown_key"'
                ),
                ': "London"}<|tool_call_end|><|tool_calls_section_end|>',
                (
                    "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
                    '<|tool_call_argument_begin|>{"city": "Delhi"}<|tool_call_end|>'
                    "<|tool_calls_section_end|>"
                ),
            ]
        ],
    ),
    Case(
        # SGLang passes '{"city": "Bad", "valid": fasle' through as the middle call's arguments;
        # here that call is a malformed_json error, and the stream goes on
        "sglang-kimi-malformed-json-passthrough",
        SGLANG_KIMI,
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
            '<|tool_call_argument_begin|>{"city": "London"}<|tool_call_end|><|tool_calls_section_end|>'
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:1"
            '<|tool_call_argument_begin|>{"city": "Bad", "valid": fasle<|tool_call_end|>'
            "<|tool_calls_section_end|><|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.get_weather:2<|tool_call_argument_begin|>{"city": "Delhi"}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [
            {"name": "get_weather", "arguments": {"city": "London"}},
            {"name": "get_weather", "arguments": {"city": "Delhi"}},
        ],
        text="",
        errors=("malformed_json",),
        splits=[
            [
                (
                    "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
                    '<|tool_call_argument_begin|>{"city": "London"}<|tool_call_end|>'
                    "<|tool_calls_section_end|>"
                ),
                (
                    "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:1"
                    '<|tool_call_argument_begin|>{"city":'
                ),
                ' "Bad", "valid": fasle',
                (
                    "<|tool_call_end|><|tool_calls_section_end|><|tool_calls_section_begin|>"
                    '<|tool_call_begin|>functions.get_weather:2<|tool_call_argument_begin|>{"city": '
                    '"Delhi"}<|tool_call_end|><|tool_calls_section_end|>'
                ),
            ]
        ],
    ),
    Case(
        "sglang-kimi-stream-counter-10",
        SGLANG_KIMI,
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:10"
            '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>'
        ),
        [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        text="",
        splits=[
            [
                (
                    "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:10"
                    '<|tool_call_argument_begin|>{"city":'
                ),
                ' "Pa',
                'ris"}',
                "<|tool_call_end|><|tool_calls_section_end|>",
            ]
        ],
    ),
    Case(
        # SGLang guesses get_weather for an id in a client's style (toolu_...); here it is an error
        # (see vllm-kimi-bare-counter-id) and the next call is read
        "sglang-kimi-client-style-id",
        SGLANG_KIMI,
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>toolu_01AkmjoowNgNx2qNfJzc8z2F"
            '<|tool_call_argument_begin|>{"city": "Tokyo"}<|tool_call_end|>'
            '<|tool_call_begin|>functions.ReadFile:7<|tool_call_argument_begin|>{"path": "/a.py"}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [{"name": "ReadFile", "arguments": {"path": "/a.py"}}],
        text="",
        errors=("malformed_markup",),
        tools=FILES_AND_WEATHER,
    ),
    Case(
        "llamacpp-kimi-single",
        LLAMA_CPP,
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.special_function:0"
            '<|tool_call_argument_begin|>{"arg1": 1}<|tool_call_end|><|tool_calls_section_end|>'
        ),
        [{"name": "special_function", "arguments": {"arg1": 1}}],
        text="",
    ),
    Case(
        "llamacpp-kimi-think-then-call",
        LLAMA_CPP,
        (
            "<think>I'm thinking about this</think><|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.special_function:0<|tool_call_argument_begin|>{"arg1": 1}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [{"name": "special_function", "arguments": {"arg1": 1}}],
        text="",
        reasoning="I'm thinking about this",
    ),
    Case(
        "llamacpp-kimi-content-then-call",
        LLAMA_CPP,
        (
            "Hello, world!\nWhat's up?<|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.special_function:0<|tool_call_argument_begin|>{"arg1": 1}'
            "<|tool_call_end|><|tool_calls_section_end|>"
        ),
        [{"name": "special_function", "arguments": {"arg1": 1}}],
        text="Hello, world!\nWhat's up?",
    ),
    Case(
        "llamacpp-kimi-python-multiline-code",
        LLAMA_CPP,
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.python:0"
            '<|tool_call_argument_begin|>{"code": "def hello():\\n    print(\\"Hello, '
            'world!\\")\\n\\nhello()"}<|tool_call_end|><|tool_calls_section_end|>'
        ),
        [{"name": "python", "arguments": {"code": 'def hello():\n    print("Hello, world!")\n\nhello()'}}],
        text="",
    ),
    Case(
        "llamacpp-kimi-three-calls-html",
        LLAMA_CPP,
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.special_function:0"
            '<|tool_call_argument_begin|>{"arg1": 1}<|tool_call_end|>'
            '<|tool_call_begin|>functions.python:1<|tool_call_argument_begin|>{"code": "print(1)"}'
            "<|tool_call_end|><|tool_call_begin|>functions.html:2"
            '<|tool_call_argument_begin|>{"markup": "<p>test</p>"}<|tool_call_end|>'
            "<|tool_calls_section_end|>"
        ),
        [
            {"name": "special_function", "arguments": {"arg1": 1}},
            {"name": "python", "arguments": {"code": "print(1)"}},
            {"name": "html", "arguments": {"markup": "<p>test</p>"}},
        ],
        text="",
    ),
    Case(
        # (llama.cpp's partial parse; the stream closed there: an unfinished_call error)
        "llamacpp-kimi-partial-args",
        LLAMA_CPP,
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.special_function:0"
            '<|tool_call_argument_begin|>{"arg1": '
        ),
        [],
        text="",
        errors=("unfinished_call",),
    ),
    Case(
        # (as sglang-kimi-call-inside-think-no-close)
        "llamacpp-kimi-calls-inside-think",
        LLAMA_CPP,
        (
            "<think>I need to call two functions<|tool_calls_section_begin|>"
            '<|tool_call_begin|>functions.special_function:0<|tool_call_argument_begin|>{"arg1": 1}'
            "<|tool_call_end|><|tool_call_begin|>functions.python:1"
            '<|tool_call_argument_begin|>{"code": "print(\'hey\')"}<|tool_call_end|>'
            "<|tool_calls_section_end|>"
        ),
        [],
        errors=("call_in_unclosed_reasoning", "call_in_unclosed_reasoning"),
        text="",
        reasoning=(
            "I need to call two functions<|tool_calls_section_begin|>"
            "<|tool_call_begin|>functions.special_function:0"
            '<|tool_call_argument_begin|>{"arg1": 1}<|tool_call_end|>'
            '<|tool_call_begin|>functions.python:1<|tool_call_argument_begin|>{"code": '
            "\"print('hey')\"}<|tool_call_end|><|tool_calls_section_end|>"
        ),
    ),
    Case(
        # (as sglang-kimi-call-inside-think-no-close)
        "llamacpp-kimi-no-section-no-end-markers",
        LLAMA_CPP,
        (
            "<think>I need to call two functions<|tool_call_begin|>functions.special_function:0"
            '<|tool_call_argument_begin|>{"arg1": 1}<|tool_call_begin|>functions.python:1'
            '<|tool_call_argument_begin|>{"code": "print(\'hey\')"}'
        ),
        [],
        errors=("call_in_unclosed_reasoning", "call_in_unclosed_reasoning"),
        text="",
        reasoning=(
            "I need to call two functions<|tool_call_begin|>functions.special_function:0"
            '<|tool_call_argument_begin|>{"arg1": 1}<|tool_call_begin|>functions.python:1'
            '<|tool_call_argument_begin|>{"code": "print(\'hey\')"}'
        ),
    ),
    Case(
        # (a real output: no section markers, no end marker, the stream ended after the JSON)
        "llamacpp-kimi-real-life-no-markers",
        LLAMA_CPP,
        (
            '<|tool_call_begin|>functions.execute_command:0<|tool_call_argument_begin|>{"command": "ls '
            '-lah", "cwd": "/home/jarvis/development/exllamav3", "timeout": 10}'
        ),
        [
            {
                "name": "execute_command",
                "arguments": {
                    "command": "ls -lah",
                    "cwd": "/home/jarvis/development/exllamav3",
                    "timeout": 10,
                },
            }
        ],
        text="",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_case(case: Case) -> None:
    events = check_all("kimi", case.output, case.splits, tools=case.tools, **case.options)
    assert calls_of(events) == case.calls
    assert text_of(events) == case.text
    assert tuple(e.reason for e in events if isinstance(e, ToolCallError)) == case.errors
    assert parse_text(case.output, "kimi", case.tools, **case.options).reasoning == case.reasoning


# -- written here, from the format's documentation and the cases above -----------------

BY_ID = {case.id: case for case in CASES}
MARKERS = (
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
)


def _stripped(output: str) -> str:
    for marker in MARKERS:
        output = output.replace(marker, "")
    return output


@pytest.mark.parametrize(
    "name", ["vllm-kimi-single", "vllm-kimi-parallel", "sglang-kimi-text-between-sections"]
)
def test_markers_stripped_by_the_server_leave_text(name: str) -> None:
    # A server that skips special tokens (vLLM's default) sends
    # 'I'll check. functions.get_weather:0 {"city": "Beijing"}': nothing marks a call any
    # more, so toolparse reads no call, reports no error, and passes the text through as it
    # came. (The server must keep special tokens, skip_special_tokens=False, or parse the
    # calls itself.)
    output = _stripped(BY_ID[name].output)
    events = check_all("kimi", output)
    assert calls_of(events) == []
    assert text_of(events) == output
    assert not [e for e in events if isinstance(e, ToolCallError)]


def test_calls_with_their_section_markers_lost_are_read() -> None:
    # llamacpp-kimi-no-section-no-end-markers, its calls outside reasoning: the next call's
    # marker, or the end of the stream, ends a call whose end marker was lost
    output = BY_ID["llamacpp-kimi-no-section-no-end-markers"].output
    output = output.removeprefix("<think>I need to call two functions")
    assert calls_of(check_all("kimi", output)) == [
        {"name": "special_function", "arguments": {"arg1": 1}},
        {"name": "python", "arguments": {"code": "print('hey')"}},
    ]


def test_the_singular_section_markers_vllm_also_reads() -> None:
    output = (
        "Checking.<|tool_call_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Paris"}'
        "<|tool_call_end|><|tool_call_section_end|> Done."
    )
    events = check_all("kimi", output)
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    assert text_of(events) == "Checking. Done."


def test_a_call_with_no_arguments_marker_does_not_swallow_the_next() -> None:
    output = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_end|>"
        "<|tool_call_begin|>functions.b:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>"
    )
    events = check_all("kimi", output)
    assert calls_of(events) == [{"name": "b", "arguments": {}}]
    assert [e.reason for e in events if isinstance(e, ToolCallError)] == ["malformed_markup"]


def test_a_past_call_and_its_result_are_written_as_the_template_writes_them() -> None:
    # (Kimi-K2-Thinking.jinja: the call id is the history's id, functions.NAME:INDEX here;
    # a result is headed by the id it answers)
    prompt = get_grammar("kimi").prompt
    rendered = prompt.render_call("get_weather", {"city": "Paris"})
    assert rendered == (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
        '{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>'
    )
    assert calls_of(check_all("kimi", rendered)) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    assert prompt.render_result("get_weather", "Sunny") == "## Return of functions.get_weather:0\nSunny"
