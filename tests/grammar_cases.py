"""Per-grammar material for the shared test matrix.

Each grammar lists fragments that hypothesis splices into arbitrary text:
whole calls, broken calls, and the pieces of its markers. A new grammar adds
an entry here and is run through every property in ``test_matrix.py``.
"""

from __future__ import annotations

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

GRAMMAR_FRAGMENTS = {
    "hermes": HERMES_FRAGMENTS,
    "fenced-json": FENCED_FRAGMENTS,
    "qwen3-coder": QWEN3_CODER_FRAGMENTS,
    "xml": XML_FRAGMENTS,
}

# Whole outputs with known results, per grammar: (text, expected calls)
EXAMPLES = {
    "hermes": [
        (
            'Let me check. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}'
            "</tool_call> Done.",
            [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        ),
    ],
    "fenced-json": [
        (
            'Sure.\n```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```\nThanks',
            [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        ),
    ],
    "xml": [
        (
            "Checking. <get_weather><city>Paris</city></get_weather> Done.",
            [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        ),
    ],
    "qwen3-coder": [
        (
            "Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
            "</function>\n</tool_call>\nDone.",
            [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        ),
    ],
}
