"""GLM-4.5 / 4.6 / 4.7 (``glm``), on inputs from other projects' test suites.

Each case is a model output copied from a public test suite (repository,
path, commit and licence in the constants below; gathered in the research
notes' case file) with what toolparse gives for it: the calls, the visible
text (exactly: every character of the output lands in one event, so
whitespace and the text between and after calls are kept), the errors, and
the reasoning. Where toolparse decides differently from the source, the
comment says so and why. Every case also runs through ``check_all``:
conservation, chunking independence (one delta, one character at a time, and
the source's own split where it has one), reconciliation.

GLM-4.5 and 4.6 write their reasoning as ``<think>...</think>`` (the default
``reasoning="auto"``); GLM-4.7's prompt opens ``<think>`` itself, so its
output holds only the closer (``reasoning="think-open"``). vLLM's parser
tests declare only ``get_weather`` and never check names: their cases that
call other tools run here with no tools declared.
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
VLLM_GLM45 = (
    "vllm-project/vllm tests/tool_parsers/test_glm4_moe_tool_parser.py "
    "@024364d6695352f41c029121af6b8ecf2ae60184 (Apache-2.0)"
)
VLLM_GLM47 = (
    "vllm-project/vllm tests/tool_parsers/test_glm47_moe_tool_parser.py "
    "@0ce879769db6d7503db0ecdfb5b503b080720347 (Apache-2.0)"
)
VLLM_GLM47_FINAL_DELTA = (
    "vllm-project/vllm tests/tool_parsers/test_glm47_final_delta_bug.py "
    "@5637b791b2befedcbbac82d07fc03b0bcd452f1e (Apache-2.0)"
)
VLLM_GLM47_STRAY = (
    "vllm-project/vllm tests/parser/engine/test_glm47_stray_tool_call.py "
    "@6acf0c21a7fdac47e7781c7cf626830540ea485f (Apache-2.0)"
)
VLLM_GLM47_ENGINE = (
    "vllm-project/vllm tests/parser/engine/test_glm47_moe.py "
    "@14f7a27c776bd0c423bbc155b25ce21ee5a839da (Apache-2.0; the test feeds token ids, the text is "
    "the case file's rendering of them)"
)
SGLANG_GLM47 = (
    "sgl-project/sglang test/registered/function_call/test_glm47_moe_detector.py "
    "@143dd88794a729b254341dfd124f0513e6864a71 (Apache-2.0)"
)
SGLANG_GLM45 = (
    "sgl-project/sglang test/registered/function_call/test_function_call_parser.py "
    "@05400c2adc07b70f67bc28ebcaf4170c0282f571 (Apache-2.0)"
)
OLLAMA_GLM47 = "ollama/ollama model/parsers/glm47_test.go @00ff547b9d9f03d56c44f4d14952e57847f751b4 (MIT)"
LLAMA_CPP = "ggml-org/llama.cpp tests/test-chat.cpp (MIT; commit not recorded by the case file)"
IK_LLAMA_753 = (
    "ikawrakow/ik_llama.cpp discussion #753, a user's post of GLM-4.5-Air output "
    "(no licence; a one-line quotation)"
)


def tool(name: str, **properties: Any) -> dict[str, Any]:
    return {"name": name, "parameters": {"type": "object", "properties": properties}}


STRING = {"type": "string"}
INTEGER = {"type": "integer"}
NUMBER = {"type": "number"}
BOOLEAN = {"type": "boolean"}
ARRAY = {"type": "array"}

# The tools the sources declare, where they matter (values are typed by them).
WEATHER = [tool("get_weather", city=STRING, date=STRING)]  # (SGLang's tests)
APPLY_DIFF = [tool("apply_diff", s=STRING)]
CALCULATE = [tool("calculate", operation=STRING, a=NUMBER, b=NUMBER)]
CONFIGURE = [
    tool("configure", api_key={"anyOf": [STRING, {"type": "null"}]}, enabled=BOOLEAN),
    tool("log", message={"type": ["string", "null"]}),
]
TODOS = [tool("todo_write", todos=ARRAY)]
CREATE_TASK = [tool("create_task", title=STRING, location=STRING)]
FILES_AND_WEATHER = [tool("list_files"), tool("get_weather", city=STRING)]
CREATE_TODOS = [tool("create_todos", priority=NUMBER, count=INTEGER, items=ARRAY)]
NUMBERS = [tool("calculate", zero=NUMBER, negative=NUMBER, large=NUMBER)]
STORE = [tool("store_data", id=STRING, code=STRING)]
OLLAMA_CALCULATE = [tool("calculate", count=INTEGER, enabled=BOOLEAN)]
SPECIAL = [
    tool("special_function", arg1=INTEGER),
    tool("special_function_with_opt", arg1=INTEGER, arg2=INTEGER),
]


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
        # (indented by the test's triple-quoted string: whitespace between the tags is passed over)
        "vllm-glm45-single-indented",
        VLLM_GLM45,
        (
            "<tool_call>get_current_weather\n    <arg_key>city</arg_key>\n    <arg_value>Dallas"
            "</arg_value>\n    <arg_key>state</arg_key>\n    <arg_value>TX</arg_value>\n    "
            "<arg_key>unit</arg_key>\n    <arg_value>fahrenheit</arg_value>\n    </tool_call>"
        ),
        [
            {
                "name": "get_current_weather",
                "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"},
            }
        ],
        text="",
    ),
    Case(
        # vLLM reports no content: it drops whitespace-only text; here the whitespace between
        # the blocks is visible text, as written (every character lands in one event)
        "vllm-glm45-parallel-indented",
        VLLM_GLM45,
        (
            "<tool_call>get_current_weather\n    <arg_key>city</arg_key>\n    <arg_value>Dallas"
            "</arg_value>\n    <arg_key>state</arg_key>\n    <arg_value>TX</arg_value>\n    "
            "<arg_key>unit</arg_key>\n    <arg_value>fahrenheit</arg_value>\n    </tool_call>\n    "
            "<tool_call>get_current_weather\n    <arg_key>city</arg_key>\n    <arg_value>Orlando"
            "</arg_value>\n    <arg_key>state</arg_key>\n    <arg_value>FL</arg_value>\n    "
            "<arg_key>unit</arg_key>\n    <arg_value>fahrenheit</arg_value>\n    </tool_call>"
        ),
        [
            {
                "name": "get_current_weather",
                "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"},
            },
            {
                "name": "get_current_weather",
                "arguments": {"city": "Orlando", "state": "FL", "unit": "fahrenheit"},
            },
        ],
        text="\n    ",
    ),
    Case(
        "vllm-glm45-content-before",
        VLLM_GLM45,
        (
            "I'll help you check the weather. <tool_call>get_current_weather\n    <arg_key>city"
            "</arg_key>\n    <arg_value>Seattle</arg_value>\n    <arg_key>state</arg_key>\n    "
            "<arg_value>WA</arg_value>\n    <arg_key>unit</arg_key>\n    <arg_value>celsius"
            "</arg_value>\n    </tool_call>"
        ),
        [{"name": "get_current_weather", "arguments": {"city": "Seattle", "state": "WA", "unit": "celsius"}}],
        text="I'll help you check the weather. ",
    ),
    Case(
        # (vLLM's tool parser leaves the <think> block in the content for its reasoning parser;
        # here reasoning is read by the same parser)
        "vllm-glm45-think-then-call",
        VLLM_GLM45,
        (
            "<think>I want to get the weather.</think>\n\nI will help you get the weather.\n"
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
            "<arg_key>date</arg_key>\n<arg_value>2025-08-01</arg_value>\n</tool_call>"
        ),
        [{"name": "get_weather", "arguments": {"city": "Beijing", "date": "2025-08-01"}}],
        text="\n\nI will help you get the weather.\n",
        reasoning="I want to get the weather.",
    ),
    Case(
        # vLLM returns get_weather{city: Seattle} and silently drops the broken pair; here the
        # call is an error carrying its markup: the model did not write the call it meant
        "vllm-glm45-malformed-arg-key-unclosed",
        VLLM_GLM45,
        (
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Seattle</arg_value>\n"
            "<arg_key>incomplete_arg\n<arg_value>value</arg_value>\n</tool_call>"
        ),
        [],
        text="",
        errors=("malformed_markup",),
    ),
    Case(
        "vllm-glm45-empty-args-newline",
        VLLM_GLM45,
        "<tool_call>get_current_time\n</tool_call>",
        [{"name": "get_current_time", "arguments": {}}],
        text="",
    ),
    Case(
        # vLLM's non-streaming path keeps only the text before the first call (its streaming
        # path emits the rest too); here all the text between and after the calls is kept
        "vllm-glm45-mixed-content-two-calls",
        VLLM_GLM45,
        (
            "I will help you get the weather info.\n\n<tool_call>get_weather\n<arg_key>city</arg_key>\n"
            "<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2025-08-01"
            "</arg_value>\n</tool_call>\n\nmeaningwhile, I will also check the weather in Shanghai.\n\n"
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Shanghai</arg_value>\n"
            "<arg_key>date</arg_key>\n<arg_value>2025-08-01</arg_value>\n</tool_call>"
        ),
        [
            {"name": "get_weather", "arguments": {"city": "Beijing", "date": "2025-08-01"}},
            {"name": "get_weather", "arguments": {"city": "Shanghai", "date": "2025-08-01"}},
        ],
        text=(
            "I will help you get the weather info.\n\n\n\nmeaningwhile, I will also check the "
            "weather in Shanghai.\n\n"
        ),
    ),
    Case(
        # vLLM returns the whole output as content; here the call cut short by the end of the
        # stream is an unfinished_call error carrying the markup (none of it is visible text)
        "vllm-glm45-incomplete-no-close",
        VLLM_GLM45,
        (
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
            "<arg_key>date</arg_key>\n<arg_value>2025-08-01</arg_value>"
        ),
        [],
        text="",
        errors=("unfinished_call",),
    ),
    Case(
        # (as vllm-glm45-incomplete-no-close: an error, not text)
        "vllm-glm45-open-tag-only",
        VLLM_GLM45,
        "<tool_call>   ",
        [],
        text="",
        errors=("unfinished_call",),
    ),
    Case(
        "vllm-glm45-stream-bei-jing",
        VLLM_GLM45,
        "<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
        [{"name": "get_weather", "arguments": {"city": "Beijing"}}],
        text="",
        splits=[
            [
                "<tool_call>",
                "get_weather\n",
                "<arg_key>city</arg_key>",
                "<arg_value>",
                "Bei",
                "jing",
                "</arg_value>",
                "</tool_call>",
            ]
        ],
    ),
    Case(
        "vllm-glm45-stream-escape-quote-newline",
        VLLM_GLM45,
        (
            '<tool_call>send_message\n<arg_key>message</arg_key><arg_value>Hello "world"\nNew line'
            "</arg_value></tool_call>"
        ),
        [{"name": "send_message", "arguments": {"message": 'Hello "world"\nNew line'}}],
        text="",
        splits=[
            [
                "<tool_call>send_message\n",
                "<arg_key>message</arg_key>",
                '<arg_value>Hello "world"\nNew line</arg_value>',
                "</tool_call>",
            ]
        ],
    ),
    Case(
        # vLLM guesses types when the tool has no schema (42 -> 42); here values are typed only
        # by the declared schema, so with none they stay the text the model wrote (as ollama does)
        "vllm-glm45-typed-numeric-bool",
        VLLM_GLM45,
        (
            "<tool_call>calculate\n<arg_key>operation</arg_key>\n<arg_value>add</arg_value>\n<arg_key>a"
            "</arg_key>\n<arg_value>42</arg_value>\n<arg_key>b</arg_key>\n<arg_value>3.14</arg_value>\n"
            "<arg_key>enabled</arg_key>\n<arg_value>true</arg_value>\n</tool_call>"
        ),
        [{"name": "calculate", "arguments": {"operation": "add", "a": "42", "b": "3.14", "enabled": "true"}}],
        text="",
    ),
    Case(
        "vllm-glm45-whitespace-preserved",
        VLLM_GLM45,
        (
            "<tool_call>apply_diff\n<arg_key>s</arg_key>\n<arg_value>    indented code    "
            "</arg_value>\n</tool_call>"
        ),
        [{"name": "apply_diff", "arguments": {"s": "    indented code    "}}],
        text="",
        tools=APPLY_DIFF,
    ),
    Case(
        "vllm-glm45-unicode",
        VLLM_GLM45,
        (
            "<tool_call>send_message\n<arg_key>greeting</arg_key>\n<arg_value>你好世界</arg_value>\n"
            "<arg_key>emoji</arg_key>\n<arg_value>🎉</arg_value>\n</tool_call>"
        ),
        [{"name": "send_message", "arguments": {"greeting": "你好世界", "emoji": "🎉"}}],
        text="",
    ),
    Case(
        "vllm-glm45-content-between-calls",
        VLLM_GLM45,
        (
            "Checking Beijing.\n<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Beijing"
            "</arg_value></tool_call>\nAlso Shanghai.\n<tool_call>get_weather\n<arg_key>city</arg_key>"
            "<arg_value>Shanghai</arg_value></tool_call>"
        ),
        [
            {"name": "get_weather", "arguments": {"city": "Beijing"}},
            {"name": "get_weather", "arguments": {"city": "Shanghai"}},
        ],
        text="Checking Beijing.\n\nAlso Shanghai.\n",
    ),
    Case(
        "vllm-glm45-typed-mixed-two-chunks",
        VLLM_GLM45,
        (
            "<tool_call>calculate\n<arg_key>operation</arg_key><arg_value>add</arg_value><arg_key>a"
            "</arg_key><arg_value>42</arg_value><arg_key>b</arg_key><arg_value>3.14</arg_value>"
            "</tool_call>"
        ),
        [{"name": "calculate", "arguments": {"operation": "add", "a": 42, "b": 3.14}}],
        text="",
        splits=[
            [
                (
                    "<tool_call>calculate\n<arg_key>operation</arg_key><arg_value>add</arg_value><arg_key>a"
                    "</arg_key>"
                ),
                "<arg_value>42</arg_value><arg_key>b</arg_key><arg_value>3.14</arg_value></tool_call>",
            ]
        ],
        tools=CALCULATE,
    ),
    Case(
        "vllm-glm45-anyof-string-stream",
        VLLM_GLM45,
        "<tool_call>configure<arg_key>api_key</arg_key><arg_value>sk-12345678</arg_value></tool_call>",
        [{"name": "configure", "arguments": {"api_key": "sk-12345678"}}],
        text="",
        splits=[
            [
                "<tool_call>configure<arg_key>api_key</arg_key><arg_value>sk-",
                "12345678",
                "</arg_value></tool_call>",
            ]
        ],
        tools=CONFIGURE,
    ),
    Case(
        "vllm-glm45-type-list-string",
        VLLM_GLM45,
        "<tool_call>log<arg_key>message</arg_key><arg_value>test message</arg_value></tool_call>",
        [{"name": "log", "arguments": {"message": "test message"}}],
        text="",
        tools=CONFIGURE,
    ),
    Case(
        "vllm-glm45-bool-stream",
        VLLM_GLM45,
        "<tool_call>configure<arg_key>enabled</arg_key><arg_value>true</arg_value></tool_call>",
        [{"name": "configure", "arguments": {"enabled": True}}],
        text="",
        splits=[
            [
                "<tool_call>configure<arg_key>enabled</arg_key><arg_value>true</arg_value>",
                "</tool_call>",
            ]
        ],
        tools=CONFIGURE,
    ),
    Case(
        "vllm-glm47-zero-arg-inline",
        VLLM_GLM47,
        "<tool_call>get_current_date</tool_call>",
        [{"name": "get_current_date", "arguments": {}}],
        text="",
    ),
    Case(
        # (vLLM reports whitespace-only content as None; here it is kept)
        "vllm-glm47-whitespace-content-none",
        VLLM_GLM47,
        "  \n  <tool_call>get_current_date</tool_call>",
        [{"name": "get_current_date", "arguments": {}}],
        text="  \n  ",
    ),
    Case(
        # (the name split across deltas: nothing is announced before it ends at <arg_key>)
        "vllm-glm47-stream-prefix-name",
        VLLM_GLM47,
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
        [{"name": "get_weather", "arguments": {"city": "Beijing"}}],
        text="",
        splits=[
            [
                "<tool_call>get",
                "_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
            ]
        ],
    ),
    Case(
        "vllm-glm47-final-delta-not-cumulative",
        VLLM_GLM47_FINAL_DELTA,
        (
            "<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Beijing</arg_value><arg_key>date"
            "</arg_key><arg_value>2025-08-01</arg_value></tool_call>"
        ),
        [{"name": "get_weather", "arguments": {"city": "Beijing", "date": "2025-08-01"}}],
        text="",
        splits=[
            [
                "<tool_call>get_weather\n",
                "<arg_key>city</arg_key>",
                "<arg_value>Beijing</arg_value>",
                "<arg_key>date</arg_key>",
                "<arg_value>2025-08",
                "-01</arg_value>",
                "</tool_call>",
            ]
        ],
    ),
    Case(
        "vllm-glm47-engine-prose-then-call",
        VLLM_GLM47_STRAY,
        "Fetching. I will issue a <tool_call>get_weather</tool_call>",
        [{"name": "get_weather", "arguments": {}}],
        text="Fetching. I will issue a ",
    ),
    Case(
        # (an opener doubled: the first one opens nothing and is text)
        "vllm-glm47-engine-two-stray-openers",
        VLLM_GLM47_STRAY,
        "text <tool_call><tool_call>get_weather</tool_call>",
        [{"name": "get_weather", "arguments": {}}],
        text="text <tool_call>",
    ),
    Case(
        # vLLM reports no call; here the opener the stream ended on is an unfinished_call error
        "vllm-glm47-engine-lone-stray",
        VLLM_GLM47_STRAY,
        "text <tool_call>",
        [],
        text="text ",
        errors=("unfinished_call",),
    ),
    Case(
        "vllm-glm47-engine-stray-with-args",
        VLLM_GLM47_STRAY,
        (
            "prose <tool_call><tool_call>get_weather<arg_key>city</arg_key><arg_value>BJ</arg_value>"
            "</tool_call>"
        ),
        [{"name": "get_weather", "arguments": {"city": "BJ"}}],
        text="prose <tool_call>",
    ),
    Case(
        # vLLM ends reasoning at a <tool_call> met inside it; here markup inside reasoning is
        # reasoning text, never a call: a call counts once the model has closed its thought (README,
        # Reasoning). The stream ended inside reasoning, so all of it is reasoning
        "vllm-glm47-engine-reasoning-into-call-no-think-end",
        VLLM_GLM47_ENGINE,
        (
            "I should check the weather.<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing"
            "</arg_value></tool_call>"
        ),
        [],
        text="",
        reasoning=(
            "I should check the weather.<tool_call>get_weather<arg_key>city</arg_key>"
            "<arg_value>Beijing</arg_value></tool_call>"
        ),
        # (the call stays reasoning and is not run, but is reported: reasoning_calls="report")
        errors=("call_in_unclosed_reasoning",),
        options={"reasoning": "think-open"},
    ),
    Case(
        "sglang-glm47-single",
        SGLANG_GLM47,
        (
            "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value><arg_key>date"
            "</arg_key><arg_value>2024-06-27</arg_value></tool_call>"
        ),
        [{"name": "get_weather", "arguments": {"city": "Beijing", "date": "2024-06-27"}}],
        text="",
        tools=WEATHER,
    ),
    Case(
        "sglang-glm47-two-calls",
        SGLANG_GLM47,
        (
            "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value><arg_key>date"
            "</arg_key><arg_value>2024-06-27</arg_value></tool_call><tool_call>get_weather<arg_key>city"
            "</arg_key><arg_value>Shanghai</arg_value><arg_key>date</arg_key><arg_value>2024-06-28"
            "</arg_value></tool_call>"
        ),
        [
            {"name": "get_weather", "arguments": {"city": "Beijing", "date": "2024-06-27"}},
            {"name": "get_weather", "arguments": {"city": "Shanghai", "date": "2024-06-28"}},
        ],
        text="",
        tools=WEATHER,
    ),
    Case(
        "sglang-glm47-noarg",
        SGLANG_GLM47,
        "<tool_call>list_filenames</tool_call>",
        [{"name": "list_filenames", "arguments": {}}],
        text="",
    ),
    Case(
        # SGLang drops a call to an undeclared tool; here it is an unknown_tool error
        "sglang-glm47-unknown-tool",
        SGLANG_GLM47,
        "<tool_call>invalid_func<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
        [],
        text="",
        errors=("unknown_tool",),
        tools=WEATHER,
    ),
    Case(
        "sglang-glm47-array-json-value",
        SGLANG_GLM47,
        (
            '<tool_call>todo_write<arg_key>todos</arg_key><arg_value>[{"id": "1", "task": "Check for '
            'hard-coded issues in the backend code", "status": "in_progress"}, {"id": "2", "task": '
            '"Check for hard-coded issues in the frontend code", "status": "pending"}, {"id": "3", '
            '"task": "Check for code violating the Single Responsibility Principle", "status": '
            '"pending"}, {"id": "4", "task": "Generate a rectification proposal report", "status": '
            '"pending"}]</arg_value>\n</tool_call>'
        ),
        [
            {
                "name": "todo_write",
                "arguments": {
                    "todos": [
                        {
                            "id": "1",
                            "task": "Check for hard-coded issues in the backend code",
                            "status": "in_progress",
                        },
                        {
                            "id": "2",
                            "task": "Check for hard-coded issues in the frontend code",
                            "status": "pending",
                        },
                        {
                            "id": "3",
                            "task": "Check for code violating the Single Responsibility Principle",
                            "status": "pending",
                        },
                        {"id": "4", "task": "Generate a rectification proposal report", "status": "pending"},
                    ]
                },
            }
        ],
        text="",
        tools=TODOS,
    ),
    Case(
        "sglang-glm47-array-windows-path",
        SGLANG_GLM47,
        (
            '<tool_call>todo_write<arg_key>todos</arg_key><arg_value>[{"id": "1", "task": "Check file '
            'at C:\\\\Users\\\\test.txt", "status": "pending"}]</arg_value></tool_call>'
        ),
        [
            {
                "name": "todo_write",
                "arguments": {
                    "todos": [{"id": "1", "task": "Check file at C:\\Users\\test.txt", "status": "pending"}]
                },
            }
        ],
        text="",
        tools=TODOS,
    ),
    Case(
        "sglang-glm47-array-literal-backslash-n",
        SGLANG_GLM47,
        (
            '<tool_call>todo_write<arg_key>todos</arg_key><arg_value>[{"id": "1", "task": "Print \\\\n '
            'to see newline","status": "pending"}]</arg_value></tool_call>'
        ),
        [
            {
                "name": "todo_write",
                "arguments": {
                    "todos": [{"id": "1", "task": "Print \\n to see newline", "status": "pending"}]
                },
            }
        ],
        text="",
        tools=TODOS,
    ),
    Case(
        "sglang-glm47-mtp-split-name-and-values",
        SGLANG_GLM47,
        (
            "I'll create a task.<tool_call>create_task<arg_key>title</arg_key><arg_value>Go to Beijing"
            "</arg_value><arg_key>location</arg_key><arg_value>San Francisco</arg_value></tool_call>"
        ),
        [{"name": "create_task", "arguments": {"title": "Go to Beijing", "location": "San Francisco"}}],
        text="I'll create a task.",
        splits=[
            [
                "I'll create a task.",
                "<tool_call>create_ta",
                "sk<arg_key>title</arg_key><arg_value>Go to Bei",
                "jing</arg_value>",
                "<arg_key>location</arg_key><arg_value>San Fran",
                "cisco</arg_value></tool_call>",
            ]
        ],
        tools=CREATE_TASK,
    ),
    Case(
        "sglang-glm47-stream-noarg-then-call",
        SGLANG_GLM47,
        (
            "<tool_call>list_files</tool_call><tool_call>get_weather<arg_key>city</arg_key>"
            "<arg_value>Beijing</arg_value></tool_call>"
        ),
        [{"name": "list_files", "arguments": {}}, {"name": "get_weather", "arguments": {"city": "Beijing"}}],
        text="",
        splits=[
            [
                "<tool_call>list_files</tool_call>",
                "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
            ]
        ],
        tools=FILES_AND_WEATHER,
    ),
    Case(
        "sglang-glm47-stream-numbers-and-array",
        SGLANG_GLM47,
        (
            "<tool_call>create_todos<arg_key>priority</arg_key><arg_value>5.5</arg_value><arg_key>count"
            '</arg_key><arg_value>10</arg_value><arg_key>items</arg_key><arg_value>[{"description": '
            '"TestTodo 1"}, {"description": "TestTodo 2"}]</arg_value></tool_call>'
        ),
        [
            {
                "name": "create_todos",
                "arguments": {
                    "priority": 5.5,
                    "count": 10,
                    "items": [{"description": "TestTodo 1"}, {"description": "TestTodo 2"}],
                },
            }
        ],
        text="",
        splits=[
            [
                "<tool_call>create_todos",
                "<arg_key>priority</arg_key><arg_value>5.5</arg_value>",
                "<arg_key>count</arg_key><arg_value>10</arg_value>",
                '<arg_key>items</arg_key><arg_value>[{"description',
                '": "Test',
                'Todo 1"}, {"description": "TestTodo 2"}]</arg_value></tool_call>',
            ]
        ],
        tools=CREATE_TODOS,
    ),
    Case(
        "sglang-glm47-stream-two-calls-transition-in-chunk",
        SGLANG_GLM47,
        (
            "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value><arg_key>date"
            "</arg_key><arg_value>2024-06-27</arg_value></tool_call><tool_call>get_weather<arg_key>city"
            "</arg_key><arg_value>Shanghai</arg_value><arg_key>date</arg_key><arg_value>2024-06-28"
            "</arg_value></tool_call>"
        ),
        [
            {"name": "get_weather", "arguments": {"city": "Beijing", "date": "2024-06-27"}},
            {"name": "get_weather", "arguments": {"city": "Shanghai", "date": "2024-06-28"}},
        ],
        text="",
        splits=[
            [
                "<tool_call>get_weather",
                "<arg_key>city</arg_key><arg_value>Beijing</arg_value>",
                "<arg_key>date</arg_key><arg_value>2024-06-27</arg_value>",
                "</tool_call><tool_call>get_weather",
                "<arg_key>city</arg_key><arg_value>Shanghai</arg_value>",
                "<arg_key>date</arg_key><arg_value>2024-06-28</arg_value>",
                "</tool_call>",
            ]
        ],
        tools=WEATHER,
    ),
    Case(
        # (a full-width colon before the opener; the source feeds the text up to the name only,
        # the case file added </tool_call>)
        "sglang-glm47-chinese-punct-before",
        SGLANG_GLM47,
        "结构\uff1a<tool_call>list_dir</tool_call>",
        [{"name": "list_dir", "arguments": {}}],
        text="结构\uff1a",
    ),
    Case(
        "sglang-glm47-empty-string-value",
        SGLANG_GLM47,
        (
            "<tool_call>create_note<arg_key>title</arg_key><arg_value>Test</arg_value><arg_key>content"
            "</arg_key><arg_value></arg_value></tool_call>"
        ),
        [{"name": "create_note", "arguments": {"title": "Test", "content": ""}}],
        text="",
    ),
    Case(
        "sglang-glm47-one-char-chunks",
        SGLANG_GLM47,
        "<tool_call>search<arg_key>query</arg_key><arg_value>New York</arg_value></tool_call>",
        [{"name": "search", "arguments": {"query": "New York"}}],
        text="",
        splits=[
            [
                "<tool_call>search<arg_key>query</arg_key><arg_value>N",
                "e",
                "w ",
                "Y",
                "o",
                "rk</arg_value></tool_call>",
            ]
        ],
    ),
    Case(
        "sglang-glm47-shell-chars",
        SGLANG_GLM47,
        (
            "<tool_call>execute_command<arg_key>command</arg_key><arg_value>echo Hello & World"
            "</arg_value></tool_call>"
        ),
        [{"name": "execute_command", "arguments": {"command": "echo Hello & World"}}],
        text="",
    ),
    Case(
        # (no schema: JSON text of an object is read as the object, as JSON is)
        "sglang-glm47-deep-nested-object",
        SGLANG_GLM47,
        (
            '<tool_call>process_data<arg_key>data</arg_key><arg_value>{"level1": {"level2": {"level3": '
            '{"level4": {"value": "deep"}}}}}</arg_value></tool_call>'
        ),
        [
            {
                "name": "process_data",
                "arguments": {"data": {"level1": {"level2": {"level3": {"level4": {"value": "deep"}}}}}},
            }
        ],
        text="",
    ),
    Case(
        "sglang-glm47-empty-obj-arr",
        SGLANG_GLM47,
        (
            "<tool_call>create_structure<arg_key>empty_obj</arg_key><arg_value>{}</arg_value>"
            "<arg_key>empty_arr</arg_key><arg_value>[]</arg_value></tool_call>"
        ),
        [{"name": "create_structure", "arguments": {"empty_obj": {}, "empty_arr": []}}],
        text="",
    ),
    Case(
        "sglang-glm47-text-after-call",
        SGLANG_GLM47,
        "First I'll do this.<tool_call>action</tool_call>Then I'll do that.",
        [{"name": "action", "arguments": {}}],
        text="First I'll do this.Then I'll do that.",
    ),
    Case(
        "sglang-glm47-number-edges",
        SGLANG_GLM47,
        (
            "<tool_call>calculate<arg_key>zero</arg_key><arg_value>0</arg_value><arg_key>negative"
            "</arg_key><arg_value>-42.5</arg_value><arg_key>large</arg_key><arg_value>1e10</arg_value>"
            "</tool_call>"
        ),
        [{"name": "calculate", "arguments": {"zero": 0, "negative": -42.5, "large": 10000000000.0}}],
        text="",
        tools=NUMBERS,
    ),
    Case(
        "sglang-glm47-numeric-looking-strings",
        SGLANG_GLM47,
        (
            "<tool_call>store_data<arg_key>id</arg_key><arg_value>12345</arg_value><arg_key>code"
            "</arg_key><arg_value>67.89</arg_value></tool_call>"
        ),
        [{"name": "store_data", "arguments": {"id": "12345", "code": "67.89"}}],
        text="",
        tools=STORE,
    ),
    Case(
        "sglang-glm47-truncated-value",
        SGLANG_GLM47,
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing",
        [],
        text="",
        errors=("unfinished_call",),
    ),
    Case(
        "sglang-glm45-single-newlines",
        SGLANG_GLM45,
        (
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
            "<arg_key>date</arg_key>\n<arg_value>2024-06-27</arg_value>\n</tool_call>"
        ),
        [{"name": "get_weather", "arguments": {"city": "Beijing", "date": "2024-06-27"}}],
        text="",
        tools=WEATHER,
    ),
    Case(
        "sglang-glm45-stream-two-calls",
        SGLANG_GLM45,
        (
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
            "<arg_key>date</arg_key>\n<arg_value>2024-06-27</arg_value>\n</tool_call>"
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Shanghai</arg_value>\n"
            "<arg_key>date</arg_key>\n<arg_value>2024-06-28</arg_value>\n</tool_call>"
        ),
        [
            {"name": "get_weather", "arguments": {"city": "Beijing", "date": "2024-06-27"}},
            {"name": "get_weather", "arguments": {"city": "Shanghai", "date": "2024-06-28"}},
        ],
        text="",
        splits=[
            [
                "<tool_call>get_weather\n",
                "<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n",
                "<arg_key>date</arg_key>\n<arg_value>2024-06-27</arg_value>\n",
                "</tool_call><tool_call>get_weather\n",
                "<arg_key>city</arg_key>\n<arg_value>Shanghai</arg_value>\n",
                "<arg_key>date</arg_key>\n<arg_value>2024-06-28</arg_value>\n",
                "</tool_call>",
            ]
        ],
        tools=WEATHER,
    ),
    Case(
        # (as sglang-glm47-unknown-tool: an unknown_tool error, not a dropped call)
        "sglang-glm45-invalid-name",
        SGLANG_GLM45,
        "<tool_call>invalid_func\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n</tool_call>",
        [],
        text="",
        errors=("unknown_tool",),
        tools=WEATHER,
    ),
    Case(
        "sglang-glm45-empty-name-stream",
        SGLANG_GLM45,
        "<tool_call>\n",
        [],
        text="",
        errors=("unfinished_call",),
        splits=[
            [
                "<tool_call>",
                "\n",
            ]
        ],
    ),
    Case(
        # (GLM-4.7's prompt opened <think>: reasoning='think-open')
        "ollama-glm47-reasoning-content-call",
        OLLAMA_GLM47,
        (
            "plan</think>Answer<tool_call>calculate<arg_key>count</arg_key><arg_value>3</arg_value>"
            "<arg_key>enabled</arg_key><arg_value>true</arg_value></tool_call>"
        ),
        [{"name": "calculate", "arguments": {"count": 3, "enabled": True}}],
        text="Answer",
        reasoning="plan",
        tools=OLLAMA_CALCULATE,
        options={"reasoning": "think-open"},
    ),
    Case(
        "ollama-glm47-empty-thinking",
        OLLAMA_GLM47,
        "</think>Plain answer",
        [],
        text="Plain answer",
        options={"reasoning": "think-open"},
    ),
    Case(
        # (thinking off: the prompt closed reasoning itself, so the default option reads it)
        "ollama-glm47-thinking-disabled",
        OLLAMA_GLM47,
        "Plain answer",
        [],
        text="Plain answer",
    ),
    Case(
        "ollama-glm46-xml-special-chars-raw",
        OLLAMA_GLM47,
        "<tool_call>exec\n<arg_key>expr</arg_key>\n<arg_value>a < b && c > d</arg_value></tool_call>",
        [{"name": "exec", "arguments": {"expr": "a < b && c > d"}}],
        text="",
    ),
    Case(
        # (a closer inside a value ends it only where the call's markup goes on after it)
        "ollama-glm47-close-tag-inside-value",
        OLLAMA_GLM47,
        (
            "<tool_call>write_file<arg_key>path</arg_key><arg_value>docs/format.md</arg_value>"
            "<arg_key>content</arg_key><arg_value>Wrap each call in <tool_call> and </tool_call>; this "
            "text is part of the argument.</arg_value></tool_call>"
        ),
        [
            {
                "name": "write_file",
                "arguments": {
                    "path": "docs/format.md",
                    "content": "Wrap each call in <tool_call> and </tool_call>; this text is part "
                    "of the argument.",
                },
            }
        ],
        text="",
        splits=[
            [
                (
                    "<tool_call>write_file<arg_key>path</arg_key><arg_value>docs/format.md</arg_value>"
                    "<arg_key>content</arg_key><arg_value>Wrap each call in <tool_call> and </tool_"
                ),
                "call>; this text is part of the argument.</arg_value></tool_",
                "call>",
            ]
        ],
    ),
    Case(
        "ollama-glm47-three-calls-newline-separated",
        OLLAMA_GLM47,
        (
            "plan</think>\n<tool_call>first<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>\n"
            "<tool_call>second<arg_key>b</arg_key><arg_value>2</arg_value></tool_call>\n"
            "<tool_call>third<arg_key>c</arg_key><arg_value>3</arg_value></tool_call>"
        ),
        [
            {"name": "first", "arguments": {"a": "1"}},
            {"name": "second", "arguments": {"b": "2"}},
            {"name": "third", "arguments": {"c": "3"}},
        ],
        text="\n\n\n",
        reasoning="plan",
        options={"reasoning": "think-open"},
    ),
    Case(
        "ollama-glm47-streaming-indexing",
        OLLAMA_GLM47,
        (
            "plan</think><tool_call>first<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>"
            "<tool_call>second<arg_key>b</arg_key><arg_value>2</arg_value></tool_call><tool_call>third"
            "<arg_key>c</arg_key><arg_value>3</arg_value></tool_call>"
        ),
        [
            {"name": "first", "arguments": {"a": "1"}},
            {"name": "second", "arguments": {"b": "2"}},
            {"name": "third", "arguments": {"c": "3"}},
        ],
        text="",
        reasoning="plan",
        splits=[
            [
                (
                    "plan</think><tool_call>first<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>"
                    "<tool_call>second<arg_key>b</arg_key>"
                ),
                (
                    "<arg_value>2</arg_value></tool_call><tool_call>third<arg_key>c</arg_key><arg_value>3"
                    "</arg_value></tool_call>"
                ),
            ]
        ],
        options={"reasoning": "think-open"},
    ),
    Case(
        "observed-glm45air-spaces-instead-of-newlines",
        IK_LLAMA_753,
        (
            "Let me search for configuration files in the backend directory to help locate this "
            "information: <tool_call>ls <arg_key>dirPath</arg_key> <arg_value>backend</arg_value> "
            "</tool_call>"
        ),
        [{"name": "ls", "arguments": {"dirPath": "backend"}}],
        text=(
            "Let me search for configuration files in the backend directory to help locate this information: "
        ),
    ),
    Case(
        "llamacpp-glm46-single",
        LLAMA_CPP,
        "<tool_call>special_function\n<arg_key>arg1</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
        [{"name": "special_function", "arguments": {"arg1": 1}}],
        text="",
        tools=SPECIAL,
    ),
    Case(
        "llamacpp-glm47flash-content-no-thinking",
        LLAMA_CPP,
        "Hello, world!\nWhat's up?",
        [],
        text="Hello, world!\nWhat's up?",
    ),
    Case(
        "llamacpp-glm47flash-forced-open-reasoning",
        LLAMA_CPP,
        "I'm\nthinking</think>Hello, world!\nWhat's up?",
        [],
        text="Hello, world!\nWhat's up?",
        reasoning="I'm\nthinking",
        options={"reasoning": "think-open"},
    ),
    Case(
        "llamacpp-glm47flash-reasoning-then-call",
        LLAMA_CPP,
        (
            "I'm\nthinking</think><tool_call>special_function<arg_key>arg1</arg_key><arg_value>1"
            "</arg_value></tool_call>"
        ),
        [{"name": "special_function", "arguments": {"arg1": 1}}],
        text="",
        reasoning="I'm\nthinking",
        tools=SPECIAL,
        options={"reasoning": "think-open"},
    ),
    Case(
        "llamacpp-glm47flash-parallel",
        LLAMA_CPP,
        (
            "<tool_call>special_function<arg_key>arg1</arg_key><arg_value>1</arg_value></tool_call>"
            "<tool_call>special_function_with_opt<arg_key>arg1</arg_key><arg_value>1</arg_value>"
            "<arg_key>arg2</arg_key><arg_value>2</arg_value></tool_call>"
        ),
        [
            {"name": "special_function", "arguments": {"arg1": 1}},
            {"name": "special_function_with_opt", "arguments": {"arg1": 1, "arg2": 2}},
        ],
        text="",
        tools=SPECIAL,
    ),
    Case(
        # A value that ends with a newline (a file's content) keeps it: GLM writes values glued
        # to their tags, so the newline is the value's own
        "vllm-glm45-stream-long-code",
        VLLM_GLM45,
        (
            "<tool_call>write_to_file\n<arg_key>file_path</arg_key><arg_value>/tmp/bubble_sort.py"
            "</arg_value><arg_key>content</arg_key><arg_value>#!/usr/bin/env python3\n# -*- coding: "
            'utf-8 -*-\n"""\nBubble Sort Implementation\n"""\n\ndef bubble_sort(arr):\n    n = '
            "len(arr)\n    for i in range(n):\n        swapped = False\n        for j in range(0, n - "
            "i - 1):\n            if arr[j] > arr[j + 1]:\n                arr[j], arr[j + 1] = arr[j "
            "+ 1], arr[j]\n                swapped = True\n        if not swapped:\n            break\n"
            '    return arr\n\nif __name__ == "__main__":\n    test_arr = [64, 34, 25, 12, 22, 11, '
            '90]\n    print(f"Original: {test_arr}")\n    sorted_arr = bubble_sort(test_arr.copy())\n  '
            '  print(f"Sorted: {sorted_arr}")\n</arg_value></tool_call>'
        ),
        [
            {
                "name": "write_to_file",
                "arguments": {
                    "file_path": "/tmp/bubble_sort.py",
                    "content": "#!/usr/bin/env python3\n"
                    "# -*- coding: utf-8 -*-\n"
                    '"""\n'
                    "Bubble Sort Implementation\n"
                    '"""\n'
                    "\n"
                    "def bubble_sort(arr):\n"
                    "    n = len(arr)\n"
                    "    for i in range(n):\n"
                    "        swapped = False\n"
                    "        for j in range(0, n - i - 1):\n"
                    "            if arr[j] > arr[j + 1]:\n"
                    "                arr[j], arr[j + 1] = arr[j + 1], arr[j]\n"
                    "                swapped = True\n"
                    "        if not swapped:\n"
                    "            break\n"
                    "    return arr\n"
                    "\n"
                    'if __name__ == "__main__":\n'
                    "    test_arr = [64, 34, 25, 12, 22, 11, 90]\n"
                    '    print(f"Original: {test_arr}")\n'
                    "    sorted_arr = bubble_sort(test_arr.copy())\n"
                    '    print(f"Sorted: {sorted_arr}")\n',
                },
            }
        ],
        text="",
        splits=[
            [
                "<tool_call>",
                "write_to_file\n",
                "<arg_key>file_path</arg_key>",
                "<arg_value>/tmp/bubble_sort.py</arg_value>",
                "<arg_key>content</arg_key>",
                "<arg_value>",
                "#!/usr/bin/env python3\n",
                "# -*- coding: utf-8 -*-\n",
                '"""\n',
                "Bubble Sort Implementation\n",
                '"""\n',
                "\n",
                "def bubble_sort(arr):\n",
                "    n = len(arr)\n",
                "    for i in range(n):\n",
                "        swapped = False\n",
                "        for j in range(0, n - i - 1):\n",
                "            if arr[j] > arr[j + 1]:\n",
                "                arr[j], arr[j + 1] = arr[j + 1], arr[j]\n",
                "                swapped = True\n",
                "        if not swapped:\n",
                "            break\n",
                "    return arr\n",
                "\n",
                'if __name__ == "__main__":\n',
                "    test_arr = [64, 34, 25, 12, 22, 11, 90]\n",
                '    print(f"Original: {test_arr}")\n',
                "    sorted_arr = bubble_sort(test_arr.copy())\n",
                '    print(f"Sorted: {sorted_arr}")\n',
                "</arg_value>",
                "</tool_call>",
            ]
        ],
    ),
    # Over-escaped JSON (GLM-4.6 writes every quote of an array value as \"; SGLang undoes one
    # level of escaping): the markup is read (the literal \n separators included), and a value
    # that is JSON escaped once more is read as the JSON it holds.
    Case(
        "sglang-glm46-literal-backslash-n-and-overescaped",
        SGLANG_GLM45,
        (
            '<tool_call>todo_write\\n<arg_key>todos</arg_key>\\n<arg_value>[{\\"id\\": \\"1\\", '
            '\\"task\\": \\"Check for hard-coded issues in the backend code\\", \\"status\\": '
            '\\"in_progress\\"}, {\\"id\\": \\"2\\", \\"task\\": \\"Check for hard-coded issues in the '
            'frontend code\\", \\"status\\": \\"pending\\"}, {\\"id\\": \\"3\\", \\"task\\": \\"Check '
            'for code violating the Single Responsibility Principle\\", \\"status\\": \\"pending\\"}, '
            '{\\"id\\": \\"4\\", \\"task\\": \\"Generate a rectification proposal report\\", '
            '\\"status\\": \\"pending\\"}]</arg_value>\n</tool_call>'
        ),
        [
            {
                "name": "todo_write",
                "arguments": {
                    "todos": [
                        {
                            "id": "1",
                            "task": "Check for hard-coded issues in the backend code",
                            "status": "in_progress",
                        },
                        {
                            "id": "2",
                            "task": "Check for hard-coded issues in the frontend code",
                            "status": "pending",
                        },
                        {
                            "id": "3",
                            "task": "Check for code violating the Single Responsibility Principle",
                            "status": "pending",
                        },
                        {"id": "4", "task": "Generate a rectification proposal report", "status": "pending"},
                    ]
                },
            }
        ],
        text="",
        tools=TODOS,
    ),
    Case(
        "sglang-glm47-array-overescaped-json",
        SGLANG_GLM47,
        (
            '<tool_call>todo_write<arg_key>todos</arg_key><arg_value>[{\\"id\\": \\"1\\", \\"task\\": '
            '\\"Check for hard-coded issues in the backend code\\", \\"status\\": \\"in_progress\\"}, '
            '{\\"id\\": \\"2\\", \\"task\\": \\"Check for hard-coded issues in the frontend code\\", '
            '\\"status\\": \\"pending\\"}, {\\"id\\": \\"3\\", \\"task\\": \\"Check for code violating '
            'the Single Responsibility Principle\\", \\"status\\": \\"pending\\"}, {\\"id\\": \\"4\\", '
            '\\"task\\": \\"Generate a rectification proposal report\\", \\"status\\": \\"pending\\"}]'
            "</arg_value>\n</tool_call>"
        ),
        [
            {
                "name": "todo_write",
                "arguments": {
                    "todos": [
                        {
                            "id": "1",
                            "task": "Check for hard-coded issues in the backend code",
                            "status": "in_progress",
                        },
                        {
                            "id": "2",
                            "task": "Check for hard-coded issues in the frontend code",
                            "status": "pending",
                        },
                        {
                            "id": "3",
                            "task": "Check for code violating the Single Responsibility Principle",
                            "status": "pending",
                        },
                        {"id": "4", "task": "Generate a rectification proposal report", "status": "pending"},
                    ]
                },
            }
        ],
        text="",
        tools=TODOS,
    ),
    Case(
        "sglang-glm46-overescaped-windows-path",
        SGLANG_GLM45,
        (
            '<tool_call>todo_write\\n<arg_key>todos</arg_key>\\n<arg_value>[{\\"id\\": \\"1\\", '
            '\\"task\\": \\"Check file at C:\\\\\\\\Users\\\\\\\\test.txt\\", \\"status\\": '
            '\\"pending\\"}]</arg_value></tool_call>'
        ),
        [
            {
                "name": "todo_write",
                "arguments": {
                    "todos": [{"id": "1", "task": "Check file at C:\\Users\\test.txt", "status": "pending"}]
                },
            }
        ],
        text="",
        tools=TODOS,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_case(case: Case) -> None:
    events = check_all("glm", case.output, case.splits, tools=case.tools, **case.options)
    assert calls_of(events) == case.calls
    assert text_of(events) == case.text
    assert tuple(e.reason for e in events if isinstance(e, ToolCallError)) == case.errors
    assert parse_text(case.output, "glm", case.tools, **case.options).reasoning == case.reasoning


def test_over_escaped_json_is_read_without_a_schema_too() -> None:
    """The over-escaped cases above, with no schema: the value is still the
    array the model meant."""
    case = next(case for case in CASES if case.id == "sglang-glm46-literal-backslash-n-and-overescaped")
    [call] = calls_of(check_all("glm", case.output))
    assert call == case.calls[0]


def test_a_string_value_with_escaped_quotes_stays_as_written() -> None:
    tools = [tool("say", text=STRING)]
    output = '<tool_call>say\n<arg_key>text</arg_key><arg_value>[{\\"a\\": 1}]</arg_value></tool_call>'
    [call] = calls_of(check_all("glm", output, tools=tools))
    assert call["arguments"] == {"text": '[{\\"a\\": 1}]'}


# -- written here, from the format's documentation -----------------------------------


@pytest.mark.parametrize(
    "output",
    [
        "Wrap each call in <tool_call> tags. Then answer.\nMore text.",
        "Use <tool_call>get_weather to check it.",
        "The <tool_call>\n\ntag is special.",
    ],
)
def test_an_opener_mentioned_in_prose_is_text(output: str) -> None:
    # (a call begins only once its name is followed by markup: the newline, <arg_key>
    # or </tool_call>; a stray opener never swallows the rest of the answer)
    events = check_all("glm", output)
    assert calls_of(events) == []
    assert text_of(events) == output


def test_hermes_json_inside_tool_call() -> None:
    output = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    assert calls_of(check_all("glm", output)) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]


def test_the_same_output_needs_the_right_reasoning_option() -> None:
    # GLM-4.7 with thinking on: the prompt opened <think>, the output holds only the closer
    output = "plan</think>Answer"
    assert parse_text(output, "glm", reasoning="think-open").text == "Answer"
    assert parse_text(output, "glm", reasoning="think-open").reasoning == "plan"
    # read with the default option, the closer is ordinary text
    assert parse_text(output, "glm").text == output


def test_a_past_call_is_written_as_the_template_writes_it() -> None:
    # (GLM-4.6.jinja: strings raw, other values as JSON; the round trip is in test_prompts.py)
    rendered = get_grammar("glm").prompt.render_call("get_weather", {"city": "Paris", "days": 3})
    assert rendered == (
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
        "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>"
    )
    tools = [tool("get_weather", city=STRING, days=INTEGER)]
    assert calls_of(check_all("glm", rendered, tools=tools)) == [
        {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}
    ]
