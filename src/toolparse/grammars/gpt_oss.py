"""gpt-oss (OpenAI harmony), as text with its special tokens kept::

    <|channel|>analysis<|message|>The user wants the weather.<|end|>
    <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>
    {"city": "Paris"}<|call|>

    <|channel|>analysis<|message|>...<|end|>
    <|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>

(lines broken here for reading: the model writes no newline between tokens).

The analysis channel is reasoning (this format's own markers: what
``reasoning="auto"`` means here); a message with a recipient
(``to=functions.NAME``, in the channel part or the role part of the
header, with or without ``<|constrain|>json`` or a bare ``json``, on the
commentary or the analysis channel) is a call, whose message is one JSON
object (an empty message before ``<|call|>``: no arguments); the final
channel (structured output with ``<|constrain|>json`` included),
commentary without a recipient (a preamble) and a message with no channel
(``<|start|>assistant<|message|>Hi``, or output that begins at
``<|message|>``) are text. A message left without its ``<|end|>`` ends
where the next ``<|start|>`` begins: reasoning closes there, and the
answer or call after it is read. The headers and end
tokens are never visible: they are kept in reasoning events' ``raw``. A
call to a built-in tool (``to=browser.search``) is a call of that name (with
tools declared, an unknown tool); one whose message is not JSON
(``to=python``, code) is a ``malformed_json`` error. A header cut short
(``<|channel|>commentary to=assistant`` right before the next channel) is
markup. The tokens reach a client only when the server keeps special
tokens (``skip_special_tokens=False``): stripped, the output is plain text.
"""

from __future__ import annotations

import re
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
    Reasoning,
    Space,
    go,
)
from toolparse.events import ErrorReason
from toolparse.grammars.prompts import Example, GrammarEntry, content_text, json_text
from toolparse.tools import Tool

# The headers of messages that are text, content types included (structured output)
_CONTENT_TYPES = ("", " json", " <|constrain|>json", "<|constrain|>json")
HARMONY_REASONING = Reasoning(
    "<|channel|>analysis<|message|>",
    "<|end|>",
    markup=(
        "<|start|>assistant",
        *(f"<|channel|>{ch}{ct}<|message|>" for ch in ("final", "commentary") for ct in _CONTENT_TYPES),
        "<|channel|>commentary to=assistant",  # (a header cut short: the next channel counts)
        # (a message with no channel, or output that begins at its message: the answer)
        "<|message|>",
        "<|return|>",
        "<|call|>",
    ),
    # (a message left without <|end|> has ended where the next one starts)
    ended_by=("<|start|>",),
)


class GptOssPrompt(PromptFormat):
    """Harmony's own rendering (``openai/harmony`` ``docs/format.md`` and its
    renderer): the tools as a TypeScript ``functions`` namespace for the
    developer message, a past call as the model writes it (recipient in the
    channel part, ``<|constrain|>json``, ended by ``<|call|>``), and a tool's
    result as a message from ``functions.NAME`` to the assistant."""

    def system_prompt(self, tools: Sequence[Tool]) -> str:
        declarations = "\n\n".join(_declaration(t) for t in tools)
        return (
            f"# Tools\n\n## functions\n\nnamespace functions {{\n\n{declarations}\n\n"
            "} // namespace functions\n\n"
            "# Valid channels: analysis, commentary, final. Channel must be included for every message.\n"
            "Calls to these tools must go to the commentary channel: 'functions'."
        )

    def render_call(self, name: str, arguments: Mapping[str, Any]) -> str:
        return (
            f"<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json"
            f"<|message|>{json_text(dict(arguments))}<|call|>"
        )

    def render_result(self, name: str, content: Any) -> str:
        return (
            f"<|start|>functions.{name} to=assistant<|channel|>commentary"
            f"<|message|>{content_text(content)}<|end|>"
        )

    def render_turn(
        self,
        reasoning: str,
        markers: Reasoning | None,
        text: str,
        calls: Sequence[tuple[str, Mapping[str, Any]]],
    ) -> str:
        """The turn's messages as harmony's renderer writes past ones: the
        reasoning in the analysis channel, text on the commentary channel
        before calls (a preamble) or else the final one, each call a
        commentary message to its function (:meth:`render_call`); one
        ``<|start|>assistant`` between messages (the prompt opens the first)."""
        messages = []
        if reasoning:
            messages.append(f"<|channel|>analysis<|message|>{reasoning}<|end|>")
        if text:
            messages.append(f"<|channel|>{'commentary' if calls else 'final'}<|message|>{text}<|end|>")
        calls_text = "".join(self.render_call(name, arguments) for name, arguments in calls)
        return "<|start|>assistant".join(messages) + calls_text


_TS_TYPES = {
    "string": "string",
    "integer": "number",
    "number": "number",
    "boolean": "boolean",
    "null": "null",
}
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")


def _comment(text: Any, indent: str = "") -> str:
    return "".join(f"{indent}// {line}\n" for line in str(text).splitlines()) if text else ""


def _declaration(tool: Tool) -> str:
    """``type NAME = (_: {...}) => any;``, the description above it as comments."""
    if not tool.parameters.get("properties"):
        return f"{_comment(tool.description)}type {tool.name} = () => any;"
    return f"{_comment(tool.description)}type {tool.name} = (_: {_ts_type(tool.parameters, '')}) => any;"


def _ts_type(schema: Any, indent: str) -> str:
    """A JSON schema in TypeScript, as harmony's renderer writes it (a nested
    object's fields indented by four spaces, its closing brace too)."""
    if not isinstance(schema, Mapping):
        return "any"
    kind = schema.get("type")
    variants = schema.get("oneOf") or schema.get("anyOf")
    properties = schema.get("properties")
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        text = " | ".join(json_text(v) for v in schema["enum"])
    elif isinstance(variants, list) and variants:
        text = " | ".join(_ts_type(v, indent) for v in variants)
    elif isinstance(kind, list) and kind:
        text = " | ".join(_TS_TYPES.get(k, str(k)) if isinstance(k, str) else "any" for k in kind)
    elif kind == "array":
        text = f"{_ts_type(schema['items'], indent)}[]" if "items" in schema else "Array<any>"
    elif isinstance(properties, Mapping) and properties and kind in ("object", None):
        required = set(schema.get("required") or ())
        fields = "".join(_field(key, value, key in required, indent) for key, value in properties.items())
        return "{\n" + fields + indent + "}"
    else:
        text = "object" if kind == "object" else _TS_TYPES.get(kind if isinstance(kind, str) else "", "any")
    return f"{text} | null" if schema.get("nullable") and "null" not in text else text


def _field(key: str, schema: Any, required: bool, indent: str) -> str:
    """``// description`` then ``key?: type, // default: value``."""
    schema = schema if isinstance(schema, Mapping) else {}
    default = schema.get("default", ...)
    if default is ...:
        note = ""
    else:  # (a default among an enum's strings is written bare, as harmony does)
        bare = isinstance(default, str) and isinstance(schema.get("enum"), list)
        note = f" // default: {default if bare else json_text(default)}"
    name = key if _IDENTIFIER.fullmatch(key) else json_text(key)
    return (
        f"{_comment(schema.get('description'), indent)}{indent}{name}{'' if required else '?'}: "
        f"{_ts_type(schema, indent + '    ')},{note}\n"
    )


# (<|call|> closes a call's block: a broken call is passed over up to it, and a
# string left open is cut there; the text after it is read again)
_CALL = Opener("recipient", closer="<|call|>")
GPT_OSS = Grammar(
    "gpt-oss",
    openers={
        "<|channel|>commentary to=": _CALL,
        "<|channel|>analysis to=": _CALL,  # (built-in tools are called on the analysis channel)
        "<|start|>assistant to=": _CALL,
        # (the prompt ended with <|start|>assistant: the recipient may come first)
        "to=": Opener("recipient", closer="<|call|>", at_start=True),
    },
    regions={
        "recipient": Space({"functions.": go("name")}, otherwise=go("name")),
        "name": Name(
            {
                " ": go("header", call=True),
                "<|constrain|>": go("header", call=True),
                "<|channel|>": go("header", call=True),
                "<|message|>": go("body", call=True),
            },
            otherwise=Fail("the recipient is not followed by a message"),
        ),
        # the rest of the header (channel, content type), up to the message
        "header": Space(
            {"<|message|>": go("body"), "<|start|>": go(BEFORE), "<|end|>": go(END), "<|call|>": go(END)},
            otherwise=go(STAY),
        ),
        "body": Space(
            {"<|call|>": go(END, end_call=True), "<|end|>": go(END, end_call=True)},  # (empty: {})
            chars={"{": go("arguments")},
            otherwise=Fail("the message to the tool is not a JSON object", ErrorReason.MALFORMED_JSON),
        ),
        "arguments": JsonArgs(then="after call"),
        "after call": Space({"<|call|>": go(END), "<|end|>": go(END)}, otherwise=go(BEFORE)),
    },
    prompt=GptOssPrompt(),
    reasoning=HARMONY_REASONING,
    tokens=True,
)


# -- what the fuzzer and the test matrix run it with ------------------------------------------

FRAGMENTS: tuple[str, ...] = (
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
)
EXAMPLES: tuple[Example, ...] = (
    (
        "<|channel|>analysis<|message|>Weather.<|end|><|start|>assistant<|channel|>commentary "
        'to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>',
        [{"name": "get_weather", "arguments": {"city": "Paris"}}],
    ),
)
ENTRY = GrammarEntry(GPT_OSS, FRAGMENTS, EXAMPLES)
