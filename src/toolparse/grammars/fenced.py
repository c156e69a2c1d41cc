"""Fenced JSON, as Gemma-style prompts ask for it::

    ```tool_call
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    ```

The fence opens with ```` ```tool_call ```` and a newline and holds JSON call
objects; a run of backticks closes it (models also close with a single one),
also one glued to the next fence's opener (```` ``````tool_call ````).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolparse.engine.declare import (
    BEFORE,
    END,
    OPENER,
    Fail,
    Grammar,
    JsonCalls,
    Opener,
    PromptFormat,
    Space,
    go,
)
from toolparse.events import ErrorReason
from toolparse.grammars.prompts import Example, GrammarEntry, content_text, json_text
from toolparse.tools import Tool


class FencedJsonPrompt(PromptFormat):
    """Gemma-style fenced calls."""

    def system_prompt(self, tools: Sequence[Tool]) -> str:
        listed = json_text([t.to_openai()["function"] for t in tools])
        return (
            "You have access to functions. If you decide to invoke any of the function(s), "
            "you MUST put it in a code block that starts with ```tool_call and ends with ```, "
            "one block per call:\n```tool_call\n"
            '{"name": "function_name", "arguments": {"parameter": "value"}}\n```\n'
            "You SHOULD NOT include any other text in the response if you call a function.\n"
            f"Available functions:\n{listed}"
        )

    def render_call(self, name: str, arguments: Mapping[str, Any]) -> str:
        return f"```tool_call\n{json_text({'name': name, 'arguments': dict(arguments)})}\n```"

    def render_result(self, name: str, content: Any) -> str:
        return f"```tool_output\n{content_text(content)}\n```"


_OPENERS = ("```tool_call\n", "```tool_call\r\n")
_CLOSERS = ("`````", "````", "```", "``", "`")

FENCED_JSON = Grammar(
    "fenced-json",
    openers=dict.fromkeys(_OPENERS, Opener("calls", closer="```")),
    regions={
        "calls": JsonCalls(then="after calls"),
        "after calls": Space(
            {
                **dict.fromkeys(_CLOSERS, go(END)),
                OPENER: go(BEFORE),
                # A closer glued to the next fence's opener (```` ``````tool_call ````): the
                # longest closer would take the opener's backticks too, and the next call
                # would be text. The whole run is read again by a region that knows only
                # this closer, so that the block ends right after it and the opener that
                # follows opens the next block.
                **{
                    closer + opener: go(f"closer {len(closer)}", again=True)
                    for closer in _CLOSERS
                    for opener in _OPENERS
                },
            },
            otherwise=Fail("unexpected text after the call", ErrorReason.MALFORMED_JSON),
        ),
        **{f"closer {len(closer)}": Space({closer: go(END)}) for closer in _CLOSERS},
    },
    prompt=FencedJsonPrompt(),
)


# -- what the fuzzer and the test matrix run it with ------------------------------------------

FRAGMENTS: tuple[str, ...] = (
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
)
EXAMPLES: tuple[Example, ...] = (
    (
        'Sure.\n```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```\nThanks',
        [{"name": "get_weather", "arguments": {"city": "Paris"}}],
    ),
)
ENTRY = GrammarEntry(FENCED_JSON, FRAGMENTS, EXAMPLES)
