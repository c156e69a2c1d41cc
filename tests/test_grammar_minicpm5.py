"""MiniCPM 5 (``minicpm5``), on inputs from other projects' test suites.

Each case is a model output copied from a public test suite (repository,
path, commit and licence in the constants below) with what toolparse gives
for it: the calls, the visible text (exactly: every character of the output
lands in one event), the errors, and the reasoning. Where toolparse decides
differently from the source, the comment says so and why. Every case also
runs through ``check_all``: conservation, chunking independence (one delta,
one character at a time, and the source's own split where it has one),
reconciliation.

The peers validate a call against the declared tool and fall back to text
when it does not fit (an unknown tool, a parameter twice, a parameter the
tool lacks, a required one missing), and map a few tool names a benchmark's
model got wrong onto the declared ones. toolparse reports what the model
wrote: an unknown tool is an ``unknown_tool`` error carrying its name and
arguments, a parameter written twice is a ``malformed_markup`` error (its
value's text may have been read as markup; issue 51), and missing
required parameters are the caller's to check (the call's
``validation_error``).
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
VLLM_MINICPM5 = (
    "vllm-project/vllm tests/tool_parsers/test_minicpm5xml_tool_parser.py @v0.33.0 "
    "(release sdist; Apache-2.0)"
)
SGLANG_MINICPM4 = (
    "sgl-project/sglang test/registered/function_call/test_minicpm4_xml_detector.py "
    "@b844e97bf0c7533f9a89a33c379a52208464b1cd (Apache-2.0)"
)


def tool(name: str, **properties: Any) -> dict[str, Any]:
    return {"name": name, "parameters": {"type": "object", "properties": properties}}


STRING = {"type": "string"}

# The tools the sources declare, where they matter (values are typed by them).
WEATHER = [tool("get_weather", city=STRING, date=STRING)]
SUM = [tool("sum_values", nums={"type": "array"}, exact={"type": "boolean"})]
NOOP = [tool("noop", note=STRING)]
WRITE = [tool("write_file", content=STRING)]
CURRENT_WEATHER = [tool("get_current_weather", city=STRING, state=STRING, unit=STRING)]
NAMELESS = (
    '<function name="get_weather"><param>北京</param><param name="date">2024-06-27</param></function>\n'
)
SHANGHAI = {"name": "get_weather", "arguments": {"city": "上海", "date": "2024-06-27"}}


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
    Case("vllm-minicpm5-no-call", VLLM_MINICPM5, "How can I help you?", [], text="How can I help you?"),
    Case(
        # (vLLM returns no content at all here: the text around the call is kept)
        "vllm-minicpm5-single-with-surrounding-text",
        VLLM_MINICPM5,
        'Intro before.\n<function name="get_weather"><param name="city">上海</param>'
        '<param name="date">2024-06-27</param></function>\nOutro after.\n',
        [SHANGHAI],
        text="Intro before.\n\nOutro after.\n",
        tools=WEATHER,
    ),
    Case(
        "vllm-minicpm5-cdata-multiline",
        VLLM_MINICPM5,
        '<function name="get_weather"><param name="city"><![CDATA[北\n京]]></param>'
        '<param name="date">2024-06-27</param></function>\n',
        [{"name": "get_weather", "arguments": {"city": "北\n京", "date": "2024-06-27"}}],
        text="\n",
        tools=WEATHER,
    ),
    Case(
        "vllm-minicpm5-collapsed-tags",
        VLLM_MINICPM5,
        '<functionname="get_weather"><paramname="city">上海</param><paramname="date">2024-06-27</param>'
        "</function>\n",
        [SHANGHAI],
        text="\n",
        tools=WEATHER,
    ),
    Case(
        "vllm-minicpm5-streaming-partial-chunks",
        VLLM_MINICPM5,
        '<function name="get_weather"><param name="city">上海</param><param name="date">2024-06-27</param>'
        "</function>\n",
        [SHANGHAI],
        text="\n",
        tools=WEATHER,
        splits=[
            [
                '<function name="get_weather">',
                '<param name="city">',
                '上海</param><param name="date">2024-06-27</param></function>\n',
            ]
        ],
    ),
    Case(
        "vllm-minicpm5-collapsed-current-weather",
        VLLM_MINICPM5,
        '<functionname="get_current_weather"><paramname="city">Dallas</param><paramname="state">TX</param>'
        '<paramname="unit">fahrenheit</param></function>',
        [
            {
                "name": "get_current_weather",
                "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"},
            }
        ],
        tools=CURRENT_WEATHER,
    ),
    Case(
        "vllm-minicpm5-incremental-arguments",
        VLLM_MINICPM5,
        '<function name="get_current_weather"><param name="city">Dallas</param><param name="state">TX</param>'
        '<param name="unit">fahrenheit</param></function>',
        [
            {
                "name": "get_current_weather",
                "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"},
            }
        ],
        tools=CURRENT_WEATHER,
        splits=[
            [
                '<function name="get_current_weather"><param na',
                'me="city">Dallas</param><param name="state">TX</',
                'param><param name="unit">fahrenheit</param></function>',
            ]
        ],
    ),
    Case(
        # vLLM keeps the block as text; here a call to an undeclared tool is an unknown_tool error
        "vllm-minicpm5-unknown-tool",
        VLLM_MINICPM5,
        '<function name="unknown"><param name="x">1</param></function>\n',
        [],
        text="\n",
        errors=("unknown_tool",),
        tools=WEATHER,
    ),
    Case(
        "vllm-minicpm5-non-string-types",
        VLLM_MINICPM5,
        '<function name="sum_values"><param name="nums">[1, 2, 3]</param><param name="exact">true</param>'
        "</function>\n",
        [{"name": "sum_values", "arguments": {"nums": [1, 2, 3], "exact": True}}],
        text="\n",
        tools=SUM,
    ),
    Case(
        "vllm-minicpm5-multiple-interleaved-text",
        VLLM_MINICPM5,
        'Head\n<function name="get_weather"><param name="city">北京</param></function>\nTXT\n'
        '<function name="sum_values"><param name="nums">[7,8,9]</param><param name="exact">false</param>'
        "</function>\nTail\n",
        [
            {"name": "get_weather", "arguments": {"city": "北京"}},
            {"name": "sum_values", "arguments": {"nums": [7, 8, 9], "exact": False}},
        ],
        text="Head\n\nTXT\n\nTail\n",
        tools=WEATHER + SUM,
    ),
    Case(
        # (vLLM keeps it as text; here the call cut short is an unfinished_call error)
        "vllm-minicpm5-missing-function-end",
        VLLM_MINICPM5,
        '<function name="get_weather"><param name="city">北京</param>',
        [],
        errors=("unfinished_call",),
        tools=WEATHER,
    ),
    Case(
        # (a first parameter with no name: the element does not go on as a call, so it is text,
        # as vLLM keeps it)
        "vllm-minicpm5-param-missing-name",
        VLLM_MINICPM5,
        NAMELESS,
        [],
        text=NAMELESS,
        tools=WEATHER,
    ),
    Case(
        # vLLM rejects the call; here it is an error too (see the module's docstring)
        "vllm-minicpm5-duplicate-param",
        VLLM_MINICPM5,
        '<function name="get_weather"><param name="city">北京</param><param '
        'name="city">上海</param></function>\n',
        [],
        text="\n",
        errors=("malformed_markup",),
        tools=WEATHER,
    ),
    Case(
        # vLLM rejects a parameter the tool lacks; here it is passed on as written
        "vllm-minicpm5-case-sensitive-param-name",
        VLLM_MINICPM5,
        '<function name="get_weather"><param name="City">北京</param></function>\n',
        [{"name": "get_weather", "arguments": {"City": "北京"}}],
        text="\n",
        tools=WEATHER,
    ),
    Case(
        "vllm-minicpm5-zero-params",
        VLLM_MINICPM5,
        '<function name="noop"></function>\n',
        [{"name": "noop", "arguments": {}}],
        text="\n",
        tools=NOOP,
    ),
    Case(
        # vLLM unwraps a "properties" / "arguments" parameter into the arguments; here it is a
        # parameter like any other (the JSON it holds is a string: the tool declares no such property)
        "vllm-minicpm5-arguments-wrapped",
        VLLM_MINICPM5,
        '<function name="get_weather"><param name="arguments">{"city": "上海", "date": "2024-06-27"}</param>'
        "</function>",
        [{"name": "get_weather", "arguments": {"arguments": '{"city": "上海", "date": "2024-06-27"}'}}],
        tools=WEATHER,
    ),
    Case(
        "vllm-minicpm5-cdata-whitespace-preserved",
        VLLM_MINICPM5,
        '<function name="write_file"><param name="content"><![CDATA[    def foo():\n        pass\n]]></param>'
        "</function>\n",
        [{"name": "write_file", "arguments": {"content": "    def foo():\n        pass\n"}}],
        text="\n",
        tools=WRITE,
        splits=[
            [
                '<function name="write_file">',
                '<param name="content"><![CDATA[    def foo():\n',
                "        pass\n]]></param></function>\n",
            ]
        ],
    ),
    Case(
        # (the tokenizer's U+0120 and U+010A, a server's detokenizing bug that vLLM undoes, are not
        # undone here: the text is what the server sent)
        "vllm-minicpm5-sentencepiece-markers-in-text",
        VLLM_MINICPM5,
        "\u010aFirst,\u0120I\u0120need\u0120to\u0120check\u0120the\u0120weather.",
        [],
        text="\u010aFirst,\u0120I\u0120need\u0120to\u0120check\u0120the\u0120weather.",
        tools=WEATHER,
    ),
    Case(
        "sglang-minicpm4-streaming-increment",
        SGLANG_MINICPM4,
        'Hello\n<function name="get_weather">\n  <param name="city">北京</param>\n'
        '  <param name="date">2024-06-27</param>\n</function>\n',
        [{"name": "get_weather", "arguments": {"city": "北京", "date": "2024-06-27"}}],
        text="Hello\n\n",
        tools=WEATHER,
        splits=[
            [
                'Hello\n<function name="get_weather">\n  <param name="city">',
                '北京</param>\n  <param name="date">2024-06-27</param>\n</function>\n',
            ]
        ],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_case(case: Case) -> None:
    events = check_all("minicpm5", case.output, case.splits, tools=case.tools, **case.options)
    assert calls_of(events) == case.calls
    assert text_of(events) == case.text
    assert tuple(e.reason for e in events if isinstance(e, ToolCallError)) == case.errors
    assert parse_text(case.output, "minicpm5", case.tools, **case.options).reasoning == case.reasoning


# -- written here, from the format's documentation and the cases above -----------------


def test_entities_are_decoded_and_single_quotes_read() -> None:
    output = "<function name='write_file'><param name='content'>R&amp;D &lt;b&gt;</param></function>"
    assert calls_of(check_all("minicpm5", output, tools=WRITE)) == [
        {"name": "write_file", "arguments": {"content": "R&D <b>"}}
    ]


def test_a_closing_tag_inside_a_value_is_text_when_the_structure_does_not_go_on() -> None:
    output = '<function name="write_file"><param name="content">x = "</param>" + y</param></function> done'
    events = check_all("minicpm5", output, tools=WRITE)
    assert calls_of(events) == [{"name": "write_file", "arguments": {"content": 'x = "</param>" + y'}}]
    assert text_of(events) == " done"


def test_a_function_tag_mentioned_in_prose_is_text() -> None:
    output = 'Write <function name="get_weather"> then its parameters.'
    events = check_all("minicpm5", output, tools=WEATHER)
    assert calls_of(events) == [] and text_of(events) == output


def test_thinking_comes_first() -> None:
    output = (
        '<think>The user wants <function name="get_weather"></function>?</think>\n'
        '<function name="get_weather"><param name="city">北京</param></function>'
    )
    result = parse_text(output, "minicpm5", WEATHER)
    assert [c.arguments for c in result.calls] == [{"city": "北京"}]
    assert result.reasoning == 'The user wants <function name="get_weather"></function>?'


def test_a_past_call_escapes_its_values() -> None:
    rendered = get_grammar("minicpm5").prompt.render_call("write_file", {"content": "a < b && c"})
    assert (
        rendered
        == '<function name="write_file"><param name="content">a &lt; b &amp;&amp; c</param></function>'
    )
    assert calls_of(check_all("minicpm5", rendered, tools=WRITE)) == [
        {"name": "write_file", "arguments": {"content": "a < b && c"}}
    ]
