"""DeepSeek V3 / R1 and V3.1 calls, between special tokens::

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
    ```json
    {"city": "Paris"}
    ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>                                  (V3, R1)

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}
    <｜tool▁call▁end｜><｜tool▁calls▁end｜>                       (V3.1, all on one line)

The markers use U+FF5C ``｜`` and U+2581 ``▁``; they reach a client only when
the server keeps special tokens (``skip_special_tokens=False``): with them
stripped, a call is the plain text ``get_weather{"city": "Paris"}`` (V3.1) or
``functionget_weather`` and a ```json fence (V3), and stays text. None of the
wrapper markup leaks into the text. Also read, as models write them: calls
with no separator or with ``\n`` between them, pretty-printed arguments, the
section opener spelled ``<｜tool▁calls｜>`` and the other ways llama.cpp
accepts, ``<｜tool▁call▁begin｜>`` or ``<｜tool▁call▁end｜>`` missing, a call
whose section opener was lost, ``<｜end▁of▁sentence｜>`` after the section.
R1's and V3.1's thinking come first as ``<think>...</think>`` (the default
``reasoning="auto"``; ``"think-open"`` where the prompt opened it). V3.2's
DSML markup is another format.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolparse.engine.declare import (
    BEFORE,
    END,
    STAY,
    Fail,
    Grammar,
    JsonArgs,
    Name,
    Opener,
    PromptFormat,
    Space,
    Step,
    TermLike,
    go,
)
from toolparse.grammars.prompts import Example, GrammarEntry, content_text, json_text
from toolparse.tools import Tool

CALLS_BEGIN = "<\uff5ctool\u2581calls\u2581begin\uff5c>"
CALLS_END = "<\uff5ctool\u2581calls\u2581end\uff5c>"
CALL_BEGIN = "<\uff5ctool\u2581call\u2581begin\uff5c>"
CALL_END = "<\uff5ctool\u2581call\u2581end\uff5c>"
SEP = "<\uff5ctool\u2581sep\uff5c>"
END_OF_SENTENCE = "<\uff5cend\u2581of\u2581sentence\uff5c>"
OUTPUT_BEGIN = "<\uff5ctool\u2581output\u2581begin\uff5c>"
OUTPUT_END = "<\uff5ctool\u2581output\u2581end\uff5c>"


class DeepSeekPrompt(PromptFormat):
    """DeepSeek V3.1's chat template: its tools section, calls and results."""

    def system_prompt(self, tools: Sequence[Tool]) -> str:
        listed = "".join(
            f"\n### {t.name}\nDescription: {t.description}\n\nParameters: {json_text(t.parameters)}\n"
            for t in tools
        )
        return (
            f"## Tools\nYou have access to the following tools:\n{listed}\n"
            "IMPORTANT: ALWAYS adhere to this exact format for tool use:\n"
            f"{CALLS_BEGIN}{CALL_BEGIN}tool_call_name{SEP}tool_call_arguments{CALL_END}"
            f"{{{{additional_tool_calls}}}}{CALLS_END}\n\n"
            "Where:\n\n- `tool_call_name` must be an exact match to one of the available tools\n"
            "- `tool_call_arguments` must be valid JSON that strictly follows the tool's Parameters Schema\n"
            "- For multiple tool calls, chain them directly without separators or spaces\n"
        )

    def render_call(self, name: str, arguments: Mapping[str, Any]) -> str:
        return f"{CALLS_BEGIN}{CALL_BEGIN}{name}{SEP}{json_text(dict(arguments))}{CALL_END}{CALLS_END}"

    def render_result(self, name: str, content: Any) -> str:
        return f"{OUTPUT_BEGIN}{content_text(content)}{OUTPUT_END}"


# The section opener as R1 distills also spell it (llama.cpp reads these too)
SECTION_OPENERS = (
    CALLS_BEGIN,
    "<\uff5ctool\u2581calls\uff5c>",
    "<\uff5ctool_calls_begin\uff5c>",
    "<\uff5ctool calls begin\uff5c>",
    "<\uff5ctool\\_calls\\_begin\uff5c>",
)

# The section's end, and the end of the turn right after it (templates write both)
SECTION_END: dict[TermLike, Step] = {CALLS_END: go(END), CALLS_END + END_OF_SENTENCE: go(END)}

DEEPSEEK = Grammar(
    "deepseek",
    openers={
        **{spelling: Opener("calls", closer=CALLS_END) for spelling in SECTION_OPENERS},
        CALL_BEGIN: Opener("call", closer=CALLS_END),  # the section opener lost
    },
    regions={
        # (a call whose <｜tool▁call▁begin｜> is missing is read too, as llama.cpp does)
        "calls": Space({CALL_BEGIN: go("call"), **SECTION_END}, otherwise=go("call")),
        # V3 / R1 write the type first (function<｜tool▁sep｜>NAME\n```json ...), V3.1 NAME<｜tool▁sep｜>{...}
        "call": Space({f"function{SEP}": go("name")}, otherwise=go("name")),
        "name": Name(
            {
                SEP: go("arguments", call=True),
                "\n": go("arguments", call=True),
                "```json": go("arguments", call=True),
                "{": go("arguments", call=True, again=True),
            },
            otherwise=Fail("the function name is not followed by its arguments"),
        ),
        "arguments": Space(
            {"```json": go(STAY)},
            chars={"{": go("object")},
            otherwise=Fail("the arguments are not a JSON object"),
        ),
        "object": JsonArgs(then="after arguments"),
        "after arguments": Space(
            {"```": go(STAY), CALL_END: go("between"), CALL_BEGIN: go("call"), **SECTION_END},
            otherwise=Fail(f"expected {CALL_END} after the arguments"),
        ),
        "between": Space(
            {CALL_BEGIN: go("call"), **SECTION_END, END_OF_SENTENCE: go(END)},
            otherwise=go(BEFORE),
        ),
    },
    prompt=DeepSeekPrompt(),
)


# -- what the fuzzer and the test matrix run it with ------------------------------------------

FRAGMENTS: tuple[str, ...] = (
    f"{CALLS_BEGIN}{CALL_BEGIN}function{SEP}get_weather\n```json\n"
    f'{{"city": "Paris"}}\n```{CALL_END}{CALLS_END}',
    f'{CALLS_BEGIN}{CALL_BEGIN}f{SEP}{{"a": 1}}{CALL_END}{CALLS_END}',
    f'{CALL_BEGIN}g{SEP}{{"b": [1]}}{CALL_END}',
    CALLS_BEGIN,
    CALL_BEGIN,
    SEP,
    CALL_END,
    CALL_BEGIN[:6],
    CALL_BEGIN[1],
    (
        "<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>function<\uff5c"
        'tool\u2581sep\uff5c>a\n```json\n{\n  "x": [1, 2]\n}\n```<\uff5ctool\u2581call\u2581end\uff5c>'
        "\n<\uff5ctool\u2581call\u2581begin\uff5c>function<\uff5ctool\u2581sep\uff5c>b\n```json\n{}\n``"
        "`<\uff5ctool\u2581call\u2581end\uff5c><\uff5ctool\u2581calls\u2581end\uff5c><\uff5cend\u2581of"
        "\u2581sentence\uff5c>"
    ),
    (
        "<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>f<\uff5ctool"
        '\u2581sep\uff5c>{"a": 1}<\uff5ctool\u2581call\u2581end\uff5c><\uff5ctool\u2581call\u2581begin'
        '\uff5c>g<\uff5ctool\u2581sep\uff5c>{"b": "```"}<\uff5ctool\u2581call\u2581end\uff5c><\uff5ctoo'
        "l\u2581calls\u2581end\uff5c>"
    ),
    (
        '<\uff5ctool\u2581calls\uff5c>function<\uff5ctool\u2581sep\uff5c>f\n```json\n{"a": 1}\n```<'
        "\uff5ctool\u2581call\u2581end\uff5c><\uff5ctool\u2581calls\u2581end\uff5c>"
    ),
    "<\uff5ctool_calls_begin\uff5c>",
    (
        "<\uff5ctool\u2581calls\u2581begin\uff5c>function<\uff5ctool\u2581sep\uff5c>get_weather\n```jso"
        'n\n{"city": "Tokyo"}\n```<\uff5ctool\u2581calls\u2581end\uff5c>'
    ),
    (
        '<\uff5ctool\u2581calls\u2581begin\uff5c>foo<\uff5ctool\u2581sep\uff5c>{"x":1}<\uff5ctool\u2581'
        "calls\u2581end\uff5c>"
    ),
    "<\uff5ctool\u2581calls\u2581begin\uff5c>get_weather",
    (
        "<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>function<\uff5c"
        'tool\u2581sep\uff5c>get_weather\n```json\n{"city": "Tokyo"\n```<\uff5ctool\u2581call\u2581end'
        "\uff5c><\uff5ctool\u2581calls\u2581end\uff5c>"
    ),
    (
        "<\uff5ctool\u2581call\u2581begin\uff5c>f<\uff5ctool\u2581sep\uff5c>[1]<\uff5ctool\u2581call"
        "\u2581end\uff5c>"
    ),
    (
        '<\uff5ctool\u2581call\u2581begin\uff5c>g<\uff5ctool\u2581sep\uff5c>{"b": tru}<\uff5ctool\u2581'
        "call\u2581end\uff5c>"
    ),
    (
        "<\uff5ctool\u2581call\u2581begin\uff5c>bad name<\uff5ctool\u2581sep\uff5c>{}<\uff5ctool\u2581c"
        "all\u2581end\uff5c>"
    ),
    'functionget_weather\n```json\n{"city": "Paris"}\n```',
    '<\uff5ctool\u2581output\u2581begin\uff5c>{"temp": 21}<\uff5ctool\u2581output\u2581end\uff5c>',
    '<\uff5cDSML\uff5cinvoke name="f">',
    "function<\uff5ctool\u2581sep\uff5c>",
    "<\uff5ctool\u2581calls\u2581end\uff5c>",
    "<\uff5cend\u2581of\u2581sentence\uff5c>",
    "```json\n",
    "\n```",
    "<\uff5ctool\u2581call",
    "<\uff5c",
    "\u2581",
)
EXAMPLES: tuple[Example, ...] = (
    (
        "Checking.<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>get_weather"
        '<\uff5ctool\u2581sep\uff5c>{"city": "Paris"}<\uff5ctool\u2581call\u2581end\uff5c>'
        "<\uff5ctool\u2581calls\u2581end\uff5c>",
        [{"name": "get_weather", "arguments": {"city": "Paris"}}],
    ),
)
ENTRY = GrammarEntry(DEEPSEEK, FRAGMENTS, EXAMPLES)
