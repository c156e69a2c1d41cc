"""Per-grammar material for the shared test matrix.

Each grammar lists fragments that hypothesis splices into arbitrary text:
whole calls, broken calls, and the pieces of its markers. A new grammar adds
an entry here and is run through every property in ``test_matrix.py``.
"""

from __future__ import annotations

from toolparse.fuzz import (  # the fragments the fuzzer explores further
    FENCED_FRAGMENTS,
    GRAMMAR_FRAGMENTS,
    GRAMMAR_TOOLS,
    HERMES_FRAGMENTS,
    QWEN3_CODER_FRAGMENTS,
    XML_FRAGMENTS,
    XML_TOOLS,
)

__all__ = [
    "EXAMPLES",
    "FENCED_FRAGMENTS",
    "GRAMMAR_FRAGMENTS",
    "GRAMMAR_TOOLS",
    "HERMES_FRAGMENTS",
    "QWEN3_CODER_FRAGMENTS",
    "XML_FRAGMENTS",
    "XML_TOOLS",
]

PARIS = {"name": "get_weather", "arguments": {"city": "Paris"}}

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
    "llama3-json": [
        ('{"name": "get_weather", "parameters": {"city": "Paris"}}', [PARIS]),
    ],
    "pythonic": [
        ('[get_weather(city="Paris")]', [PARIS]),
    ],
    "mistral": [
        ('Checking. [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}', [PARIS]),
    ],
    "deepseek": [
        (
            "Checking.<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>get_weather"
            '<\uff5ctool\u2581sep\uff5c>{"city": "Paris"}<\uff5ctool\u2581call\u2581end\uff5c>'
            "<\uff5ctool\u2581calls\u2581end\uff5c>",
            [PARIS],
        ),
    ],
    "glm": [
        (
            "Checking.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
            [PARIS],
        ),
    ],
    "kimi": [
        (
            "Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
            '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
            [PARIS],
        ),
    ],
    "minimax": [
        (
            'Checking.\n<minimax:tool_call>\n<invoke name="get_weather">\n'
            '<parameter name="city">Paris</parameter>\n</invoke>\n</minimax:tool_call>',
            [PARIS],
        ),
    ],
    "gpt-oss": [
        (
            "<|channel|>analysis<|message|>Weather.<|end|><|start|>assistant<|channel|>commentary "
            'to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>',
            [PARIS],
        ),
    ],
}
