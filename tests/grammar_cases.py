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
