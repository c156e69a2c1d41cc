"""``toolparse fuzz``: malformed and adversarial model outputs, fed with random
chunking to every grammar, checking the invariants (:mod:`toolparse.invariants`).

The fragments and strategies here are the ones the test suite's shared
matrix uses (``tests/grammar_cases.py`` imports them), so a long fuzz run
explores the same space as the tests, further. Needs hypothesis
(``pip install toolparse[fuzz]``).

A failing input is shrunk by hypothesis and written to a JSON file
(grammar, tools, text, deltas) that reproduces it; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolparse.errors import ToolparseError
from toolparse.grammars.deepseek import CALL_BEGIN as DS_CALL
from toolparse.grammars.deepseek import CALL_END as DS_CALL_END
from toolparse.grammars.deepseek import CALLS_BEGIN as DS_CALLS
from toolparse.grammars.deepseek import CALLS_END as DS_CALLS_END
from toolparse.grammars.deepseek import SEP as DS_SEP

DESCRIPTION = (
    "Feed malformed and adversarial model outputs, with random chunking and random parser "
    "options, to every grammar, and check the invariants (conservation, chunking independence, "
    "reconciliation, every started call ends); also check that pathological outputs parse in "
    "linear time. A failure is shrunk and written to a JSON file that --replay runs again."
)

HERMES_FRAGMENTS = [
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
    '<tool_call>\n{"name": "f", "arguments": {"a": [1, 2.5, true, null], "b": {"c": "d"}}}\n</tool_call>',
    '<tool_call>{"arguments": {"x": "y"}, "name": "late_name"}</tool_call>',
    "<tool_call>{'name': 'py', 'arguments': {'ok': True, 'n': None}}</tool_call>",
    '<tool_call>{{"name": "m", "arguments": {"a": 1}}}</tool_call>',
    '<tool_call>{"name": "s", "arguments": "{\\"k\\": \\"v\\"}"}</tool_call>',
    '<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"q": 1}}]</tool_call>',
    '<tool_call>{"name": "w", "arguments": {"c": "use </tool_call> here"}}</tool_call>',
    '<tool_call>{"name": "e", "arguments": {"c": "a\\$b \\u00e9 \\ud83d\\ude80 \\n"}}</tool_call>',
    '<tool_call>{"name": "q", "arguments": {"c": "He said "hi" ok"}}</tool_call>',
    '<tool_call>{"name":"get_weather","arguments":{"city":"Seoul"}}</think>',
    '<tool_call>{"name":"get_weather","arguments":{"city":"Tokyo"}}',
    '<tool_call>{"name":"x","argu',
    "<tool_call>{invalid}</tool_call>",
    '<tool_call>{"name": "t", "arguments": {"a": 1}} trailing prose',
    '<tools>{"name": "v", "arguments": {"z": 0}}</tools>',
    "<tools> are useful",
    '<function=fn>{"p": 1}</function>',
    '<function name="fn2">{"p": 2}</function>',
    "<function=not a call",
    "<tool_call>",
    "</tool_call>",
    "<tool_",
    "<",
    "</",
    "_call>",
    "{",
    "}",
    '"',
    "\\",
    "'",
    "```",
]

FENCED_FRAGMENTS = [
    '```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```',
    '```tool_call\n{"name": "f", "arguments": {"x": 1}}` after',
    '```tool_call\n{"name": "g", "arguments": {"s": "a ``` b"}}\n```',
    '```tool_call\n[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]\n```',
    '```tool_call\n{"name": "h", "arguments": {"s": "unterminated',
    "```tool_call\nnot json\n```",
    "```tool_call\n",
    "```python\nprint(1)\n```",
    "```tool_",
    "```",
    "`",
    "\n",
    "{",
    "}",
    '"',
]

QWEN3_CODER_FRAGMENTS = [
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
    "<function=f>\n<parameter=a>x</parameter>\n</function>",
    "<tool_call>function=f>\n<parameter=a>\n<value>1</value>\n</parameter>\n</function>",
    "<tool_call>\n<function=w>\n<parameter=c>\n<![CDATA[a < b && </parameter>]]>\n"
    "</parameter>\n<parameter=p>a&amp;b &#65; &bogus;</parameter>\n</function>\n</tool_call>",
    '<tool_call>\n<function=f>\n<parameter=a>\none\n<parameter=b>\n{"k": [1, 2]}\n</function>',
    "<tool_call>\n<function=f>\n<parameter=t>a</parameter><parameter=t>b</parameter></function>",
    '<tool_call>\n{"name": "h", "arguments": {"x": 1}}\n</tool_call>',
    "<tool_call>\n<function>send</function>\n<parameter>to</parameter>\nAnn\n<parameter>body</parameter>\n"
    "hi <b>\n</function>\n</tool_call>",
    "<tool_call>\n<function=w>\n<path>\na.py\n</path>\n<content>x = 1 < 2\n</content>\n</function>",
    "<function>",
    "<parameter>",
    "<tool_call>\nsome prose\n",
    "<tool_call>\n<function=bad name\n</function>\n</tool_call>",
    "<tool_call>\n<function=f>\n<parameter=a>\nunterminated",
    "<tool_call>",
    "</tool_call>",
    "<function=",
    "<parameter=x>",
    "</parameter>",
    "</function>",
    "<![CDATA[",
    "]]>",
    "&amp;",
    "&",
    "<",
    "\n",
    "<value>",
]

XML_FRAGMENTS = [
    "<get_weather><city>Paris</city><days>3</days></get_weather>",
    "<get_weather>\n<city>Seoul</city>\n</get_weather>",
    "<get_time/>",
    "<write><path>a.html</path><content><div>R&amp;D &lt; 5</div> if (a < b && c > d)</content></write>",
    "<write><content><![CDATA[</content> raw]]></content></write>",
    "<configure><tags>a</tags><tags>b</tags><opts><depth>3</depth></opts><count>7</count></configure>",
    "<configure><tags><item>x</item><item>y</item></tags></configure>",
    "<send>just text</send>",
    "<get_weather><city>Paris<city></get_weather>",
    "<get_weather><city>unclosed",
    "<unknown_tool><x>1</x></unknown_tool>",
    "<!DOCTYPE x [<!ENTITY a 'aaaa'>]>",
    "&a;",
    "<get_weather>",
    "</get_weather>",
    "<city>",
    "</city>",
    "<",
    "&amp;",
]

# Tools each grammar's properties run with (the xml grammar opens calls only at declared tools).
XML_TOOLS = [
    {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        },
    },
    {"name": "get_time", "parameters": {"type": "object", "properties": {}}},
    {
        "name": "write",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        },
    },
    {
        "name": "configure",
        "parameters": {
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "opts": {"type": "object", "properties": {"depth": {"type": "integer"}}},
                "count": {"type": "integer"},
            },
        },
    },
    {"name": "send", "parameters": {"type": "object", "properties": {"message": {"type": "string"}}}},
]
GRAMMAR_TOOLS = {"xml": XML_TOOLS}

# Tools the fuzzer may declare in any grammar: the names the fragments call,
# with schemas that exercise coercion (unions, enums, arrays, closed objects,
# a recursive union, patternProperties both safe and catastrophic).
_NESTED = {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/nested"}}, {"type": "integer"}]}
FUZZ_TOOLS: list[dict[str, Any]] = [
    *XML_TOOLS,
    {
        "name": "f",
        "parameters": {
            "type": "object",
            "properties": {
                "a": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "x": {"type": "string", "enum": ["y", "z"]},
                "t": {"type": "array", "items": {"type": "string"}},
                "n": {"$ref": "#/$defs/nested"},
            },
            "patternProperties": {"^(a|a)*$": {"type": "boolean"}, "^p[0-9]+$": {"type": "number"}},
            "$defs": {"nested": _NESTED},
        },
    },
    {
        "name": "w",
        "parameters": {
            "type": "object",
            "properties": {"c": {"type": "string"}, "p": {"type": "integer"}},
            "additionalProperties": False,
        },
    },
    {"name": "h", "parameters": {"type": "object", "properties": {"x": {"type": "number"}}}},
]

LLAMA3_JSON_FRAGMENTS = [
    '{"name": "get_weather", "parameters": {"city": "Paris"}}',
    '<|python_tag|>{"name": "f", "parameters": {"a": [1, 2]}}',
    '{"name": "a", "parameters": {}}; {"name": "b", "arguments": {"x": 1}}',
    '{"type": "function", "name": "t", "parameters": {"n": "10"}}<|eom_id|>',
    '{"answer": 42}',
    '{"name": "x", "parame',
    "<|python_tag|>",
    "<|python_",
    "<|eot_id|>",
    ";",
    "{",
    (
        '<|python_tag|>{\n    "type": "function",\n    "name": "trending_songs",\n    "parameters": {\n'
        '        "n": "10",\n        "genre": "all"\n    }\n}<|eom_id|>'
    ),
    '<|python_tag|>brave_search.call(query="latest price of 1oz gold")<|eom_id|>',
    "<|python_tag|>python.call(code=\"print('hey')\")",
    '<|python_tag|>wolfram_alpha.call(query="solve x^2 + 2x + 1 = 0", n = 2)',
    "<|python_tag|>def is_prime(n):\n    return n > 1\n\nprint(is_prime(7))<|eom_id|>",
    '<function=trending_songs>{"n": 10}</function><|eot_id|>',
    '{"name": "a", "parameters": {}} ; {"name": "b", "parameters": {}};\n{"name": "c", "arguments": {}}',
    '<|python_tag|>{"name": "a", "parameters": {}}<|python_tag|>{"name": "b", "parameters": {}}',
    '{\n"name": "get_weather", "parameters": {"city": "Paris"}}',
    '{"name": "get_weather", "parameters": {{"name": "get_weather", "parameters": {}}',
    '{"name": "x", "parameters": {invalid json}',
    '{"name": "toolWithoutParams"}',
    '{"parameters": {}}',
    '{"name": "f", "parameters": {"s": "<|python_tag|>{\\"name\\": 1} </function>"}}',
    '[{"name": "a", "parameters": {}}]',
    "<|python_tag|>x.call(1, y=2)",
    '<|python_tag|>brave_search.call(query="unterminated',
    '<function=f>{"a": </function>',
    "<function=get_weather> is how you call it",
    "<|python_tag|><|python_tag|>",
    ".call(",
    "<function=",
    "<function=get_weather>",
    "</function>",
    "<|eom_id|>",
    "<|eom",
    "<|python_tag",
    " ; ",
    ";\n",
    "}",
]

PYTHONIC_FRAGMENTS = [
    '[get_weather(city="Paris", days=3)]',
    "[a(x=1), b(y='z', t=True, n=None)]",
    '[f(v=[1, {"k": (2, 3)}])]',
    "<|python_start|>[g(q='x')]<|python_end|>",
    "[f(x=g(1))]",
    '[f("positional")]',
    "[Paris](https://example.com)",
    '[f(s="""a\nb""")]',
    "[f(a=",
    "[1, 2, 3]",
    "[",
    "(",
    "<|python_",
    '<|python_tag|>[get_weather(city="San Francisco", metric="celsius")]<|eot_id|>',
    "[get_weather(city='SF'), get_weather(city='Seattle')]<|eot|>",
    "[get_weather(city='LA',metric='C'),register_user(name='Doe',age=9)]",
    "<|python_start|>[get_weather(city='LA', metric='C'), get_weather()]<|python_end|>",
    (
        "<function_calls>get_weather(city='Paris')\nregister_user(name='Doe', age=9, role=null, ok=true"
        ")</function_calls>"
    ),
    "[f(x={'a': (1, 2), 'b': {3, 4}}, y=-1_000.5e-3, z=0x1F, w=r'\\d+')]",
    "[f(s='a\\'b]', t=\"x)\", u='''multi\nline''')]",
    "[bad(x=b'z'), f(a=1)]",
    "[calc(x=1e999), g()]",
    "[f(a='x 'y' 'z), g(b='p 'q' 'r)]",
    "[foo(x=1])]",
    "[a(x=1) b(y=2)]",
    "[f(x=1, 2)]",
    "[ f ( x = 1 ) ]",
    "<|python_start|>[f(x=1)<|python_end|>",
    "<function_calls>broken(a='x</function_calls>",
    '<function_calls>\n<invoke name="get_weather">\n</invoke>\n</function_calls>',
    "[get_weather(city='Paris')] and [search(q='x')]",
    "[f(x=1),",
    "[f(x=",
    "[f(",
    "<function_calls>",
    "</function_calls>",
    "<function_",
    "<|python_tag|>",
    "<|python_end|>",
    "<|eot_id|>",
    "<|eom|>",
    "<|eot",
    ")]",
    "=",
    "'",
]

MISTRAL_FRAGMENTS = [
    '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
    '[TOOL_CALLS]f[CALL_ID]a1b2c3d4e[ARGS]{"a": 1}[TOOL_CALLS]g[ARGS]{}',
    '[TOOL_CALLS]add{"a": 3, "b": 4}',
    '[TOOL_CALLS] [{"name": "a", "arguments": {}, "id": "123456789"}]</s>',
    "[TOOL_CALLS]broken[ARGS]{",
    "[TOOL_CALLS]",
    "[TOOL_",
    "[ARGS]",
    "[",
    (
        '[TOOL_CALLS] [{"name": "a", "arguments": {}, "id": "123456789"}, {"arguments": {"x": [1, "]"]}'
        ', "name": "b"}]</s>'
    ),
    '[TOOL_CALLS]{"name": "f", "arguments": {"a": 1}}',
    '[TOOL_CALLS]b[ARGS]{"y": tru}',
    '[TOOL_CALLS]f[ARGS]"not an object"',
    "[TOOL_CALLS]f[ARGS][1, 2]",
    "[TOOL_CALLS][1, 2]",
    '[TOOL_CALLS]  junk [{"name": "add", "arguments": {"a": 1}}] trail',
    "[TOOL_CALLS] not json at all",
    "[TOOL_CALLS]toolname_no_args",
    "[TOOL_CALLS]f[CALL_ID]",
    '[TOOL_CALLS]bash{"command": "print(\\"hi\\")\\nre.compile(r\'{}\')',
    '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    'get_weather{"city": "Paris"}',
    '[TOOL_RESULTS]{"temp": 21}[/TOOL_RESULTS]',
    '[AVAILABLE_TOOLS][{"type": "function", "function": {"name": "f"}}][/AVAILABLE_TOOLS]',
    "[THINK]Maybe [TOOL_CALLS]f[ARGS]{} first?[/THINK]",
    "[THINK]",
    "[/THINK]",
    "[TOOL_CALLS",
    "[ARG",
    "[CALL_ID]",
    "</s>",
    "</",
    "]",
    "{",
]

DEEPSEEK_FRAGMENTS = [
    f"{DS_CALLS}{DS_CALL}function{DS_SEP}get_weather\n```json\n"
    f'{{"city": "Paris"}}\n```{DS_CALL_END}{DS_CALLS_END}',
    f'{DS_CALLS}{DS_CALL}f{DS_SEP}{{"a": 1}}{DS_CALL_END}{DS_CALLS_END}',
    f'{DS_CALL}g{DS_SEP}{{"b": [1]}}{DS_CALL_END}',
    DS_CALLS,
    DS_CALL,
    DS_SEP,
    DS_CALL_END,
    DS_CALL[:6],
    DS_CALL[1],
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
]

GLM_FRAGMENTS = [
    "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
    "<tool_call>f<arg_key>a</arg_key><arg_value>[1, 2]</arg_value>"
    "<arg_key>b</arg_key><arg_value>x</arg_value></tool_call>",
    "<tool_call>g</tool_call>",
    "<tool_call>w<arg_key>c</arg_key><arg_value>use </arg_value> here</arg_value></tool_call>",
    '<tool_call>{"name": "j", "arguments": {"k": 1}}</tool_call>',
    "<tool_call>broken<arg_key>a</arg",
    "<tool_call>",
    "</tool_call>",
    "<arg_key>",
    "<arg_value>",
    "\\n",
]

KIMI_FRAGMENTS = [
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
    '{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
    '<|tool_call_begin|>functions.f:1<|tool_call_argument_begin|>{"a": [1]}<|tool_call_end|>',
    "<|tool_call_begin|>g:2<|tool_call_argument_begin|>{}<|tool_call_end|>",
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>functions.",
    "<|tool_call_argument_begin|>{",
    "<|tool_call_end|>",
    "<|tool_calls_section_end|>",
    "<|tool",
]

MINIMAX_FRAGMENTS = [
    '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n'
    "</minimax:tool_call>",
    "<minimax:tool_call><invoke name='f'><parameter name='a'>[1, 2]</parameter></invoke>"
    '<invoke name="g"></invoke></minimax:tool_call>',
    '<minimax:tool_call><invoke name="w"><parameter name="c">use </parameter> here</parameter></invoke>'
    "</minimax:tool_call>",
    '<minimax:tool_call><invoke name="b"><parameter name="x">',
    "<minimax:tool_call>",
    "</minimax:tool_call>",
    '<invoke name="',
    "</invoke>",
    "<minimax:",
]

GPT_OSS_FRAGMENTS = [
    "<|channel|>analysis<|message|>Let me think.<|end|>",
    "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
    '{"city": "Paris"}<|call|>',
    '<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{"a": 1}<|end|>',
    "<|start|>assistant<|channel|>final<|message|>The answer.<|return|>",
    "<|channel|>commentary<|message|>Preamble.<|end|>",
    "<|channel|>commentary to=functions.g<|message|>{",
    "<|start|>",
    "<|channel|>",
    "<|message|>",
    "<|end|>",
    "<|call|>",
    "<|",
    "<|channel|>final<|message|>It is sunny.<|return|>",
    "<|start|>assistant<|channel|>final<|message|>Done.<|end|>",
    '<|start|>assistant<|channel|>final <|constrain|>json<|message|>{"result": true}<|return|>',
    '<|channel|>final json<|message|>{"a": 1}',
    "<|start|>assistant<|channel|>commentary<|message|>**Plan**: check the weather.<|end|>",
    "<|start|>assistant<|channel|>analysis<|message|>I'm\nthinking<|end|>",
    ' to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"city": "Paris"}',
    (
        '<|start|>assistant to=functions.get_weather<|channel|>commentary<|constrain|>json<|message|>{"'
        'city": "Paris"}<|call|>'
    ),
    '<|channel|>commentary to=functions.get_weather<|constrain|>json<|message|>{"city": "Paris"}<|call|>',
    '<|channel|>analysis to=functions.get_weather<|message|>{"city": "Paris"}',
    (
        '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{\n  "city": "'
        'Paris"\n}<|end|>'
    ),
    '<|channel|>analysis to=browser.search <|constrain|>json<|message|>{"query": "x"}<|call|>',
    "<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}<|call|>",
    "<|channel|>commentary to=functions.get_time <|constrain|>json<|message|><|call|>",
    "<|start|>assistant to=functions.f<|channel|>commentary<|message|>foo<|call|>",
    '<|channel|>commentary to=python <|constrain|>code<|message|>print("hello")<|call|>',
    "<|start|>assistant to=container.exec<|channel|>commentary<|message|>ls -la",
    '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": "unterminated<|call|>',
    '<|channel|>commentary to=functions.f <|constrain|>json<|message|>["not", "an object"]<|call|>',
    '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1} trailing',
    "<|channel|>commentary to=functions.f <|end|>",
    "<|channel|>commentary to=functions.f ",
    "<|channel|>commentary to=assistant<|channel|>",
    "<|channel|>commentary to=assistant<|message|>",
    "<|channel|>analysis I must refuse<|end|>",
    "I must refuse<|end|>",
    '<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"sunny": true}<|end|>',
    "<|channel|> analysis<|message|> spaced<|end|><|start|> assistant",
    "analysisThinking.assistantfinalAnswer.",
    'assistantcommentary to=functions.get_weather json{"city": "Paris"}',
    "\n```\n<|end|>",
    "```<|end|>",
    "\n> quoted<|end|>",
    "<|start|>assistant",
    "<|start|>assistant to=",
    "<|channel|>commentary to=",
    "<|channel|>analysis to=",
    "to=",
    " to=functions.",
    "functions.",
    "<|constrain|>",
    "<|constrain|>json",
    " json",
    "<|return|>",
    "<|channel|>final",
    "<|channel|>analysis",
    "<|channel|>commentary",
    "<|chan",
    "<|message",
    "|>",
    "<|call|",
    "<|e",
]

GRAMMAR_FRAGMENTS = {
    "hermes": HERMES_FRAGMENTS,
    "fenced-json": FENCED_FRAGMENTS,
    "qwen3-coder": QWEN3_CODER_FRAGMENTS,
    "xml": XML_FRAGMENTS,
    "llama3-json": LLAMA3_JSON_FRAGMENTS,
    "pythonic": PYTHONIC_FRAGMENTS,
    "mistral": MISTRAL_FRAGMENTS,
    "deepseek": DEEPSEEK_FRAGMENTS,
    "glm": GLM_FRAGMENTS,
    "kimi": KIMI_FRAGMENTS,
    "minimax": MINIMAX_FRAGMENTS,
    "gpt-oss": GPT_OSS_FRAGMENTS,
}


# Reasoning markers of every preset, whole and cut short
REASONING_FRAGMENTS = [
    "<think>",
    "</think>",
    "\n<think>\n",
    "\n</think>\n\n",
    "<thi",
    "</thin",
    "<seed:think>",
    "</seed:think>",
    "◁think▷",
    "◁/think▷",
    "[THINK]",
    "[/THINK]",
]

# Markdown around calls: code fences and quotes make them examples (text)
MARKDOWN = ["\n```\n", "\n```python\n", "\n~~~~\n", "\n> ", "\n   ```", "````\n", "\n"]

ADVERSARIAL = [
    "\x00\x01\x1b[31m",  # control characters
    "\ud800",  # a lone surrogate
    "\udfff tail",
    "[" * 300,  # deep nesting
    "{" * 300,
    "<a>" * 200,
    "x" * 5000,  # a long run
    '"' * 50,
    "\\" * 50,
    "&#0; &#x110000; &#xD800; &lt",
    '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>&e;',
    "<![CDATA[ ]]> ]]> <![CDATA[",
    '{"name": "f", "arguments": {"a": "1", "n": [[[[2]]]], "aaaa": "true", "p12": "3"}}',  # a forced answer
    '[{"name": "h", "arguments": {"x": "2.5"}}, {"name": "w", "arguments": {"c": 1, "q": 2}}]',
    '"<tool_call>", "</tool_call>", "```tool_call\n", "<function=x>"',
]


def outputs(grammar: str) -> Any:
    """A hypothesis strategy of model outputs for ``grammar``: prose spliced
    with the grammar's fragments and adversarial pieces."""
    from hypothesis import strategies as st

    prose = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
    piece = st.one_of(
        prose,
        st.sampled_from(GRAMMAR_FRAGMENTS[grammar]),
        st.sampled_from(ADVERSARIAL),
        st.sampled_from(MARKDOWN),
        st.sampled_from(REASONING_FRAGMENTS),
    )
    return st.lists(piece, max_size=8).map("".join)


def splits(text: str) -> Any:
    """A strategy of ways to cut ``text`` into deltas (empty ones included)."""
    from hypothesis import strategies as st

    def cut(cuts: list[int]) -> list[str]:
        bounds = [0, *sorted(cuts), len(text)]
        return [text[a:b] for a, b in itertools.pairwise(bounds)]

    return st.lists(st.integers(0, len(text)), max_size=12).map(cut)


def parser_options(grammar: str) -> Any:
    """A hypothesis strategy of parser options: declared tools or none, the size
    and depth limits (tiny ones included), errors as text, coercion, the
    reasoning markers, and tool choice with its forced-answer switches. Plain
    data, so a failure file holds them as JSON."""
    from hypothesis import strategies as st

    from toolparse.grammars.reasoning import REASONING

    tools = st.sampled_from([XML_TOOLS, FUZZ_TOOLS] if grammar == "xml" else [None, FUZZ_TOOLS])

    def with_choice(options: dict[str, Any]) -> Any:
        declared = options.get("tools")
        if declared is None:
            return st.just(options)
        forced = {"type": "tool", "name": declared[0]["name"]}
        choices = st.sampled_from(["auto", "none", "required", forced])
        extra = {"tool_choice": choices, "collapse": st.booleans(), "unknown_on_error": st.booleans()}
        return st.fixed_dictionaries({}, optional=extra).map(lambda more: {**options, **more})

    limits = {
        "max_call_chars": st.one_of(st.integers(1, 64), st.integers(65, 4000)),
        "max_depth": st.one_of(st.integers(1, 6), st.integers(7, 100)),
        "errors_as_text": st.booleans(),
        "coerce": st.booleans(),
        "reasoning": st.sampled_from(sorted(REASONING)),
    }
    return st.fixed_dictionaries({"tools": tools}, optional=limits).flatmap(with_choice)


def check_example(
    grammar: str,
    text: str,
    deltas: Sequence[str],
    options: dict[str, Any] | None = None,
    *,
    memory: bool = False,
) -> None:
    """Every invariant for one input under ``options``; raises AssertionError.
    Only documented usage errors (:class:`ToolparseError`) may be raised by
    the parser, and none is expected here."""
    from toolparse.invariants import check_all

    options = dict(options) if options is not None else {"tools": GRAMMAR_TOOLS.get(grammar)}
    if memory:
        tracemalloc.start()
    try:
        check_all(grammar, text, [list(deltas)], **options)
        if memory:
            peak = tracemalloc.get_traced_memory()[1]
            bound = 200 * len(text) + 8_000_000
            assert peak <= bound, f"peak memory {peak} bytes for {len(text)} characters"
    finally:
        if memory:
            tracemalloc.stop()


def _explorer(grammar: str, last: dict[str, Any], examples: int, seed_value: int) -> Any:
    """A hypothesis test over ``grammar``'s outputs and options; ``last`` keeps the input in hand."""
    from hypothesis import HealthCheck, given, seed, settings
    from hypothesis import strategies as st

    @seed(seed_value)
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
        report_multiple_bugs=False,  # shrink one failure, the one ``last`` holds
    )
    @given(data=st.data())
    def explore(data: Any) -> None:
        text = data.draw(outputs(grammar))
        deltas = data.draw(splits(text))
        options = data.draw(parser_options(grammar))
        last.update(grammar=grammar, text=text, deltas=deltas, options=options)
        check_example(grammar, text, deltas, options, memory=len(text) > 2000)

    return explore


def add_arguments(parser: argparse.ArgumentParser) -> None:
    amount = parser.add_mutually_exclusive_group()
    amount.add_argument("--examples", type=int, default=None, help="examples per grammar and batch")
    amount.add_argument("--seconds", type=float, default=None, help="run for this long")
    amount.add_argument("--replay", metavar="FAILURE.json", help="run one failure file again and exit")
    parser.add_argument("--grammar", action="append", help="only these grammars (repeatable)")
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of the examples (default: a new one, printed)"
    )
    parser.add_argument(
        "--failure-file", default="toolparse-fuzz-failure.json", help="where a failing input is written"
    )
    parser.add_argument(
        "--growth-size",
        type=int,
        default=20_000,
        help="also check that each pathological shape's time grows linearly from this size to 4x "
        "(0 to skip; default 20000)",
    )


def _describe_failure(exc: BaseException) -> str:
    if isinstance(exc, ToolparseError):
        return f"usage error raised on model data: {exc!r}"
    return f"{type(exc).__name__}: {exc}"


def _replay(path: str) -> int:
    try:
        case = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ToolparseError(f"cannot read the failure file {path!r}: {exc}") from exc
    try:
        check_example(case["grammar"], case["text"], case["deltas"], case.get("options"))
    except Exception as exc:
        print(f"still failing: {_describe_failure(exc)[:500]}", file=sys.stderr)
        return 1
    print("passes now", file=sys.stderr)
    return 0


def _check_growth(size: int) -> str | None:
    from toolparse.growth import SHAPES, check_growth

    for k, shape in enumerate(SHAPES, 1):
        print(f"\rgrowth {k}/{len(SHAPES)}: {shape.name[:60]:60}", end="", file=sys.stderr)
        try:
            check_growth(shape, size)
        except AssertionError as exc:
            return str(exc)
    print(f"\rgrowth: {len(SHAPES)} pathological shapes grow linearly{' ' * 50}", file=sys.stderr)
    return None


def run(args: argparse.Namespace) -> int:
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        print("toolparse fuzz needs hypothesis: pip install 'toolparse[fuzz]'", file=sys.stderr)
        return 2
    if args.replay:
        return _replay(args.replay)
    grammars = args.grammar or sorted(GRAMMAR_FRAGMENTS)
    for name in grammars:
        if name not in GRAMMAR_FRAGMENTS:
            print(f"toolparse fuzz: unknown grammar {name!r}", file=sys.stderr)
            return 2
    base_seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    print(f"toolparse fuzz: seed {base_seed} (run again with --seed {base_seed})", file=sys.stderr)
    if args.growth_size:
        problem = _check_growth(args.growth_size)
        if problem is not None:
            print(f"\nFAILED: {problem}", file=sys.stderr)
            return 1
    deadline = time.monotonic() + args.seconds if args.seconds else None
    per_batch = 200 if args.examples is None else args.examples
    batch = 0
    total = 0
    started = time.monotonic()
    while True:
        for k, grammar in enumerate(grammars):
            last: dict[str, Any] = {}
            seed_value = (base_seed * 1_000_003 + batch * 7919 + k) % (1 << 63)
            explore = _explorer(grammar, last, per_batch, seed_value)
            try:
                explore()
            except Exception as exc:  # any failure is a finding: assertion, crash, usage error
                message = _describe_failure(exc)
                case = {**last, "seed": base_seed, "batch": batch, "failure": message}
                Path(args.failure_file).write_text(json.dumps(case, indent=2))  # ASCII: lone surrogates too
                print(
                    f"\nFAILED in {grammar}: {message[:300]}\nreproducible case written to "
                    f"{args.failure_file} (toolparse fuzz --replay {args.failure_file})",
                    file=sys.stderr,
                )
                return 1
            total += per_batch
            elapsed = time.monotonic() - started
            print(f"\r{total} examples, {elapsed:.0f} s, no failure ({grammar})", end="", file=sys.stderr)
        batch += 1
        if deadline is None or time.monotonic() >= deadline:
            break
    print(
        f"\n{total} examples over {len(grammars)} grammars, options drawn, seed {base_seed}: "
        "every invariant held",
        file=sys.stderr,
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="toolparse fuzz", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
