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

GRAMMAR_FRAGMENTS = {
    "hermes": HERMES_FRAGMENTS,
    "fenced-json": FENCED_FRAGMENTS,
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
}
