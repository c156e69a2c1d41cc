"""Kimi K2 calls (K2 Instruct, K2 Thinking, K2.5), between special tokens::

    <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0
    <|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>

(one line in the output: it is broken here for reading).

The call id ``functions.NAME:IDX`` names the function (``functions.`` and
``:IDX`` are optional). Arguments are one JSON object (anything else, or
none, is a ``malformed_json`` error of the call). Several sections, and
text between them, are read; so is a call whose section marker was lost.
The markers reach a client only when the server keeps special tokens.
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
from toolparse.events import ErrorReason
from toolparse.grammars.prompts import Example, GrammarEntry, content_text, json_text
from toolparse.tools import Tool

SECTION_BEGIN = "<|tool_calls_section_begin|>"
SECTION_END = "<|tool_calls_section_end|>"
CALL_BEGIN = "<|tool_call_begin|>"
ARGUMENT_BEGIN = "<|tool_call_argument_begin|>"
CALL_END = "<|tool_call_end|>"


class KimiPrompt(PromptFormat):
    """Kimi K2's template: the tools as OpenAI JSON (its ``tool_declare``
    message), past calls with ``functions.NAME:0`` as their id, results headed
    by the id they answer."""

    def system_prompt(self, tools: Sequence[Tool]) -> str:
        # (the template declares the tools and says nothing more; the sentence after them,
        # from Moonshot's tool-call guidance, is for a prompt that is plain text)
        listed = json_text([t.to_openai() for t in tools])
        return (
            f"# Tools\n\n{listed}\n\n"
            f"Tool calls are wrapped by {SECTION_BEGIN} and {SECTION_END}, each call by {CALL_BEGIN} "
            f"and {CALL_END}: the call's ID, functions.NAME:INDEX, then {ARGUMENT_BEGIN} and "
            "its arguments as a JSON object."
        )

    def render_call(self, name: str, arguments: Mapping[str, Any]) -> str:
        return (
            f"{SECTION_BEGIN}{CALL_BEGIN}functions.{name}:0{ARGUMENT_BEGIN}"
            f"{json_text(dict(arguments))}{CALL_END}{SECTION_END}"
        )

    def render_result(self, name: str, content: Any) -> str:
        return f"## Return of functions.{name}:0\n{content_text(content)}"


# (vLLM also reads the singular spelling of the section markers)
SECTIONS = {SECTION_BEGIN: SECTION_END, "<|tool_call_section_begin|>": "<|tool_call_section_end|>"}
# A section's end, whichever spelling, ends the block: also one whose section
# marker was lost (or that began again after a broken call).
_SECTION_ENDS: dict[TermLike, Step] = {end: go(END) for end in SECTIONS.values()}
_NO_ARGUMENTS = Fail(f"the call id is not followed by {ARGUMENT_BEGIN}")

KIMI = Grammar(
    "kimi",
    openers={
        **{begin: Opener("section", closer=end) for begin, end in SECTIONS.items()},
        CALL_BEGIN: Opener("call id"),
    },
    regions={
        "section": Space({CALL_BEGIN: go("call id"), **_SECTION_ENDS}, otherwise=go(BEFORE)),
        "call id": Space({"functions.": go("name")}, otherwise=go("name")),
        # (an id that names no function, ``0``, ``call_3`` or ``toolu_01...`` as a client
        # rewrote the ids of past calls, is broken markup: the name is never guessed)
        "name": Name(
            {":": go("index", call=True)}, otherwise=Fail("the call id is not functions.NAME:INDEX")
        ),
        "index": Space(
            {ARGUMENT_BEGIN: go("body"), CALL_END: _NO_ARGUMENTS, CALL_BEGIN: _NO_ARGUMENTS},
            otherwise=go(STAY),
        ),
        # (the call is begun: arguments that are not an object, or none, are its error,
        # never text that would hide that the model called a tool)
        "body": Space(
            {},
            chars={"{": go("arguments", again=True)},
            otherwise=Fail("the arguments are not a JSON object", ErrorReason.MALFORMED_JSON),
        ),
        "arguments": JsonArgs(then="after call"),
        # (the next call, or the end of the stream, also ends a call whose end marker was lost)
        "after call": Space(
            {CALL_END: go("section"), CALL_BEGIN: go("call id"), **_SECTION_ENDS}, otherwise=go(BEFORE)
        ),
    },
    prompt=KimiPrompt(),
)


# -- what the fuzzer and the test matrix run it with ------------------------------------------

FRAGMENTS: tuple[str, ...] = (
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
)
EXAMPLES: tuple[Example, ...] = (
    (
        "Checking.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
        [{"name": "get_weather", "arguments": {"city": "Paris"}}],
    ),
)
ENTRY = GrammarEntry(KIMI, FRAGMENTS, EXAMPLES, call_ids="functions.{name}:{index}")
