"""Mistral's ``[TOOL_CALLS]`` formats::

    [TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]     (tokenizer v2-v7)
    [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}                           (v11 and later)
    [TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}         (v11)

Mistral 7B v0.3 and Nemo write the JSON list (7B with a space after the
marker); Mistral Small 3.2, Magistral, Devstral and Ministral 3 write one
``[TOOL_CALLS]`` per call, and each is a block of its own (a broken call
leaves the others standing). Where a server drops ``[ARGS]`` (a control
token) but keeps ``[TOOL_CALLS]``, the name runs up to the ``{``, as vLLM
reads it. The model's ``[CALL_ID]`` is passed over. ``[TOOL_CALLS]`` itself
is a control token: a server must keep special tokens
(``skip_special_tokens=False``) for calls to be seen at all; with them
stripped, ``[{"name": ...}]`` or ``get_weather{"city": "Paris"}`` is text.
Magistral's ``[THINK]...[/THINK]`` is the ``reasoning="magistral"`` option.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolparse.engine.declare import (
    BEFORE,
    END,
    OPENER,
    STAY,
    Fail,
    Grammar,
    JsonArgs,
    JsonCalls,
    Name,
    Opener,
    PromptFormat,
    Space,
    go,
)
from toolparse.grammars.prompts import Example, GrammarEntry, content_text, json_text
from toolparse.tools import Tool


class MistralPrompt(PromptFormat):
    """The v13 templates' markup (Magistral, Devstral, Ministral 3): the tools
    as ``[AVAILABLE_TOOLS]`` + their OpenAI JSON + ``[/AVAILABLE_TOOLS]``,
    calls as ``[TOOL_CALLS]name[ARGS]{...}`` (no call id), results as
    ``[TOOL_RESULTS]...[/TOOL_RESULTS]``. The templates add no wording; the one
    sentence after the tools names the call format for models that know only
    the older JSON list."""

    def system_prompt(self, tools: Sequence[Tool]) -> str:
        listed = json_text([t.to_openai() for t in tools])
        return (
            f"[AVAILABLE_TOOLS]{listed}[/AVAILABLE_TOOLS]\n"
            "To call a tool, write [TOOL_CALLS], the tool's name, [ARGS] and its arguments as one JSON "
            "object: [TOOL_CALLS]tool_name[ARGS]{arguments}, one [TOOL_CALLS] for each call."
        )

    def render_call(self, name: str, arguments: Mapping[str, Any]) -> str:
        return f"[TOOL_CALLS]{name}[ARGS]{json_text(dict(arguments))}"

    def render_result(self, name: str, content: Any) -> str:
        return f"[TOOL_RESULTS]{content_text(content)}[/TOOL_RESULTS]"


MISTRAL = Grammar(
    "mistral",
    openers={"[TOOL_CALLS]": Opener("lead")},
    regions={
        "lead": Space({}, chars={"[": go("calls"), "{": go("calls")}, otherwise=go("name")),
        "calls": JsonCalls(then="after"),
        "name": Name(
            {
                "[ARGS]": go("arguments", call=True),
                "[CALL_ID]": go("call id", call=True),
                "{": go("object", call=True, again=True),  # [ARGS] dropped by the server
            },
            otherwise=Fail("the function name is not followed by [ARGS]"),
        ),
        "call id": Space({"[ARGS]": go("arguments")}, otherwise=go(STAY)),
        "arguments": Space(
            {}, chars={"{": go("object")}, otherwise=Fail("the arguments are not a JSON object")
        ),
        "object": JsonArgs(then="after"),
        # each [TOOL_CALLS] opens a block of its own: a broken call leaves the others standing
        "after": Space({"</s>": go(END), OPENER: go(BEFORE)}, otherwise=go(BEFORE)),
    },
    prompt=MistralPrompt(),
)


# -- what the fuzzer and the test matrix run it with ------------------------------------------

FRAGMENTS: tuple[str, ...] = (
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
)
EXAMPLES: tuple[Example, ...] = (
    (
        'Checking. [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
        [{"name": "get_weather", "arguments": {"city": "Paris"}}],
    ),
)
ENTRY = GrammarEntry(MISTRAL, FRAGMENTS, EXAMPLES)
