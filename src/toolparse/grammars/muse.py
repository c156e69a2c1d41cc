"""Muse (Muse Spark, Muse Glimmer): ATEM calls in channel-addressed messages::

     to=self<|message|>The user wants the weather.<|eom|>
    <|start|>assistant to=get_weather.get_weather<|message|><atem:function_calls>
    <atem:invoke name="get_weather.get_weather">
    <atem:parameter name="city">Paris</atem:parameter>
    </atem:invoke>
    </atem:function_calls><|eom|>

Each message names its recipient (the prompt ends with ``<|start|>assistant``,
so the first comes without it): ``to=self`` is reasoning (this format's own
markers: what ``reasoning="auto"`` means here), ``to=user`` and
``to=commentary`` are the answer, any other recipient is a tool, and its
message is an ATEM block of ``<atem:invoke>`` elements. ``<|eom|>`` ends a
message, ``<|eot|>`` the turn; neither, nor the headers, is ever visible. A
thought left without its ``<|eom|>`` ends where the next
``<|start|>assistant`` begins.

The chat template lists a tool with no namespace (every OpenAI tool) as
``NAME.*``, and the model writes ``NAME.NAME``: with tools declared, a
recipient whose first part is a declared tool calls that tool (as vLLM and
SGLang map it back); otherwise the call is named as the invoke names it.
Values are the model's raw text (the template: strings as they are, spaces
kept; lists and objects as JSON), typed by the tool's schema; a closing
``</atem:parameter>`` inside a value ends it only where the structure goes
on after it. An ATEM block in reasoning or in the answer is text (an example
the model shows), and so is one with no message header. A message header
with no recipient (``<|message|>`` alone) is read as the answer, as Muse
Glimmer and SGLang read it. The tokens reach a client only when the server
keeps special tokens.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolparse.engine.declare import (
    BEFORE,
    END,
    END_OF_STREAM,
    REJECT,
    STAY,
    Fail,
    Grammar,
    Name,
    Opener,
    PromptFormat,
    Reasoning,
    Space,
    Step,
    TermLike,
    Value,
    go,
)
from toolparse.grammars.prompts import Example, GrammarEntry, content_text, json_text, parameter_text
from toolparse.tools import Tool

START = "<|start|>assistant"
MESSAGE = "<|message|>"
EOM = "<|eom|>"
EOT = "<|eot|>"
CALLS = "<atem:function_calls>"
CALLS_CLOSE = "</atem:function_calls>"
INVOKE = '<atem:invoke name="'
INVOKE_CLOSE = "</atem:invoke>"
PARAMETER = '<atem:parameter name="'
PARAMETER_CLOSE = "</atem:parameter>"

MUSE_REASONING = Reasoning(
    f"to=self{MESSAGE}",
    EOM,
    markup=(
        f"{START} ",  # (the space before the recipient goes with the header)
        START,
        f"to=user{MESSAGE}",
        f"to=commentary{MESSAGE}",
        MESSAGE,
        EOT,
    ),
    # (a message left without <|eom|> has ended where the next one starts)
    ended_by=(START,),
)


class MusePrompt(PromptFormat):
    """The Muse Glimmer chat template's wording (its tools section, as a
    rendering of the template shows it), a past call as the template writes
    it, and a result as a message from the tool."""

    def system_prompt(self, tools: Sequence[Tool]) -> str:
        schemas = "\n".join(json_text(t.to_openai()["function"]) for t in tools)
        recipients = ", ".join(json_text(f"{t.name}.*") for t in tools)
        return (
            "In this environment you have access to a set of tools you can use to answer the user's "
            "question.\n\n"
            f'You can invoke a function by writing a "{CALLS}" block like the following:\n'
            f'{CALLS}\n{INVOKE}$FUNCTION_NAME">\n{PARAMETER}$PARAMETER_NAME">$PARAMETER_VALUE'
            f"{PARAMETER_CLOSE}\n...\n{INVOKE_CLOSE}\n{CALLS_CLOSE}\n\n"
            "String and scalar parameters should be specified as is, while lists and objects should "
            "use JSON format. Note that spaces for string values are not stripped. The output is not "
            "expected to be valid XML and is parsed with regular expressions.\n"
            f"Here are the functions available in JSONSchema format:\n// Function schemas\n{schemas}\n\n"
            f'# Valid recipients: "self", {recipients}, "user".'
        )

    def render_call(self, name: str, arguments: Mapping[str, Any]) -> str:
        # (a value is glued to its tags: its newlines are its own and read back)
        params = "".join(
            f'{PARAMETER}{key}">{parameter_text(value, last_newline_dropped=False)}{PARAMETER_CLOSE}\n'
            for key, value in arguments.items()
        )
        return (
            f'{START} to={name}{MESSAGE}{CALLS}\n{INVOKE}{name}">\n{params}{INVOKE_CLOSE}\n{CALLS_CLOSE}{EOM}'
        )

    def render_result(self, name: str, content: Any) -> str:
        return (
            f'<|start|>tool {name}{MESSAGE}<tool_output name="{name}">\n{content_text(content)}\n'
            f"</tool_output>{EOT}"
        )

    def render_turn(
        self,
        reasoning: str,
        markers: Reasoning | None,
        text: str,
        calls: Sequence[tuple[str, Mapping[str, Any]]],
    ) -> str:
        """The turn's messages as the template writes past ones: the reasoning
        to ``self``, the text to ``user``, each call to its tool; one
        ``<|start|>assistant`` between messages (the prompt opens the first)."""
        messages = []
        if reasoning:
            messages.append(f" to=self{MESSAGE}{reasoning}{EOM}")
        if text:
            messages.append(f" to=user{MESSAGE}{text}{EOM if calls else EOT}")
        calls_text = "".join(self.render_call(name, arguments) for name, arguments in calls)
        return START.join(messages) + calls_text


# What follows a closing tag that really closes (after whitespace).
_AFTER_BLOCK = (EOM, EOT, END_OF_STREAM)
_AFTER_INVOKE = (INVOKE, CALLS_CLOSE, *_AFTER_BLOCK)
_AFTER_VALUE = (PARAMETER, INVOKE_CLOSE, *_AFTER_INVOKE)
_MESSAGE_ENDS: dict[TermLike, Step] = {EOM: go(END), EOT: go(END)}

MUSE = Grammar(
    "muse",
    openers={"to=": Opener("recipient", closer=EOM)},
    regions={
        # The recipient. A declared tool's name, alone or as the namespace of a
        # NAME.FUNCTION recipient, names the call; anything else leaves it to the invoke.
        "recipient": Name(
            {".": go("function", call=True), MESSAGE: go("body of call", call=True)},
            declared=True,
            otherwise=go("other recipient"),
            at_end=go(REJECT),
        ),
        "function": Name(
            {MESSAGE: go("body of call")}, otherwise=Fail("the recipient is not followed by a message")
        ),
        "other recipient": Space({MESSAGE: go("body")}, otherwise=go("rest of recipient"), at_end=go(REJECT)),
        "rest of recipient": Name({MESSAGE: go("body")}, otherwise=go(REJECT), at_end=go(REJECT)),
        # (a message that holds no ATEM block, "to=x is the syntax", is text)
        "body": Space({CALLS: go(STAY), INVOKE: go("invoke name")}, otherwise=go(REJECT), at_end=go(REJECT)),
        "body of call": Space(
            {CALLS: go(STAY), INVOKE: go("named invoke")},
            otherwise=Fail("the message to the tool is not an ATEM call"),
        ),
        "named invoke": Name({'">': go("parameters")}, otherwise=Fail("the invoke's name is not closed")),
        "invoke name": Name(
            {'">': go("parameters", call=True)}, otherwise=Fail("the invoke's name is not closed")
        ),
        "parameters": Space(
            {
                PARAMETER: go("key"),
                INVOKE_CLOSE: go("invokes", end_call=True),
                CALLS_CLOSE: go("after block", end_call=True),
                EOM: go(END, end_call=True),
                EOT: go(END, end_call=True),
            },
            otherwise=Fail("unexpected text between the parameters"),
        ),
        "key": Name(
            {'">': go("value", member=True)}, max_len=256, otherwise=Fail("the parameter name is not closed")
        ),
        # (values are written glued to their tags: a newline at either end is the value's own)
        "value": Value(
            {
                PARAMETER_CLOSE: go("parameters", end_member=True, confirm=_AFTER_VALUE),
                INVOKE_CLOSE: go("invokes", end_member=True, end_call=True, confirm=_AFTER_INVOKE),
                EOM: Fail("a parameter is not closed"),
                EOT: Fail("a parameter is not closed"),
            },
            keep_newlines=True,
        ),
        "invokes": Space(
            {INVOKE: go("invoke name"), CALLS_CLOSE: go("after block"), **_MESSAGE_ENDS},
            otherwise=Fail("unexpected text between the invokes"),
        ),
        "after block": Space(_MESSAGE_ENDS, otherwise=go(BEFORE)),
    },
    prompt=MusePrompt(),
    reasoning=MUSE_REASONING,
    tokens=True,
)


# -- what the fuzzer and the test matrix run it with ------------------------------------------

_BLOCK = (
    f'{CALLS}\n{INVOKE}get_weather.get_weather">\n{PARAMETER}city">Paris{PARAMETER_CLOSE}\n'
    f"{INVOKE_CLOSE}\n{CALLS_CLOSE}"
)
FRAGMENTS: tuple[str, ...] = (
    f" to=self{MESSAGE}Need weather.{EOM}",
    f"{START} to=get_weather.get_weather{MESSAGE}{_BLOCK}{EOM}",
    f'{START} to=wx.forecast{MESSAGE}{CALLS}\n{INVOKE}wx.forecast">\n{PARAMETER}days">3{PARAMETER_CLOSE}\n'
    f"{INVOKE_CLOSE}\n{CALLS_CLOSE}{EOT}",
    f'{START} to=f{MESSAGE}{INVOKE}f">{PARAMETER}code">line1\nline2\n{PARAMETER_CLOSE}{INVOKE_CLOSE}',
    f'{START} to=w{MESSAGE}{CALLS}{INVOKE}w">{PARAMETER}c">use {PARAMETER_CLOSE} here{PARAMETER_CLOSE}'
    f"{INVOKE_CLOSE}{CALLS_CLOSE}",
    f'{START} to=g{MESSAGE}{CALLS}\n{INVOKE}g">\n{PARAMETER}city">Par',
    f"{START} to=user{MESSAGE}It is sunny.{EOT}",
    f"{START} to=user{MESSAGE}You would write:\n{_BLOCK}{EOT}",
    f"{START} to=commentary{MESSAGE}Let me check.{EOM}",
    f"{MESSAGE}bare header{EOT}",
    _BLOCK,
    "to=x is the syntax.",
    "to=a<b is false",
    START,
    f"{START} ",
    "to=",
    "to=self",
    f"to=self{MESSAGE}",
    f"to=user{MESSAGE}",
    MESSAGE,
    EOM,
    EOT,
    CALLS,
    CALLS_CLOSE,
    INVOKE,
    INVOKE_CLOSE,
    PARAMETER,
    PARAMETER_CLOSE,
    "<atem:",
    "<|",
)
EXAMPLES: tuple[Example, ...] = (
    (
        f' to=self{MESSAGE}Weather.{EOM}{START} to=get_weather{MESSAGE}{CALLS}\n{INVOKE}get_weather">\n'
        f'{PARAMETER}city">Paris{PARAMETER_CLOSE}\n{INVOKE_CLOSE}\n{CALLS_CLOSE}{EOM}',
        [{"name": "get_weather", "arguments": {"city": "Paris"}}],
    ),
)
ENTRY = GrammarEntry(MUSE, FRAGMENTS, EXAMPLES)
