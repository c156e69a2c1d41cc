"""XML tool calls: the tool's name as the element, parameters as children::

    <get_weather><city>Paris</city><days>3</days></get_weather>

Only the names of declared tools open a call (``<get_weather>``, or
``<get_time/>`` with no arguments); with no tools declared this grammar reads
everything as text. A declared tool's tag mentioned in prose is not a call:
the element must go on with one of the tool's parameters or its closing
tag, or (for a tool with a single string parameter) hold plain text up to its
closing tag, ``<send_message>Hello</send_message>``.

Inside a call each child element is a parameter. A string parameter streams
as its text arrives, raw ``<``, ``>`` and ``&``, HTML and code included; the
five predefined entities are decoded and CDATA unwrapped. Its closing tag
ends it when the structure goes on after it (the next parameter, the tool's
closing tag, the end of the stream), so ``"</content>"`` written inside a
value stays in it, and an element of the same name nested inside it is
counted, so its closing tag does not end it. Any other parameter keeps its markup and is read as an
XML fragment when it closes (nested elements for objects, repeated elements
or ``<item>`` children for arrays). Stray text and stray closing tags
between parameters are passed over; a parameter left open is closed by the
tool's closing tag.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolparse.engine.declare import (
    ANY_CLOSE_TAG,
    ANY_EMPTY_TAG,
    ANY_OPEN_TAG,
    CALL_CLOSE_TAG,
    END,
    END_OF_STREAM,
    KEY_CLOSE_TAG,
    KEY_OPEN_TAG,
    PROPERTY_TAG,
    REJECT,
    SOLE_STRING,
    STAY,
    TOOL_EMPTY_TAG,
    TOOL_TAG,
    Grammar,
    Opener,
    PromptFormat,
    Space,
    Value,
    go,
)
from toolparse.grammars.prompts import Example, GrammarEntry, content_text, json_text
from toolparse.tools import Tool


def _cdata(text: str) -> str:
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _xml_element(name: str, value: Any) -> str:
    """An element for a value: objects as nested elements, arrays as <item> children
    (read back as arrays by coercion's XML-shape rule), scalars as escaped text."""
    if isinstance(value, Mapping):
        inner = "".join(_xml_element(k, v) for k, v in value.items())
    elif isinstance(value, list):
        inner = "".join(_xml_element("item", item) for item in value)
    else:
        text = value if isinstance(value, str) else json_text(value)
        inner = _cdata(text) if text.startswith("\n") or text.endswith("\n") else _xml_escape(text)
    return f"<{name}>{inner}</{name}>"


class XmlPrompt(PromptFormat):
    """Calls as elements named after the tool, parameters as children."""

    def system_prompt(self, tools: Sequence[Tool]) -> str:
        listed = "\n".join(json_text(t.to_openai()["function"]) for t in tools)
        return (
            "You can call tools. To call one, write an XML element named after the tool, with "
            "one child element per parameter:\n<tool_name>\n<parameter_name>value</parameter_name>"
            "\n</tool_name>\nWrite an array as <item> children; an object as nested elements. "
            "Escape < and & in values as &lt; and &amp;, or wrap the value in "
            f"<![CDATA[...]]>.\nAvailable tools (JSON Schema):\n{listed}"
        )

    def render_call(self, name: str, arguments: Mapping[str, Any]) -> str:
        inner = "".join(_xml_element(k, v) for k, v in arguments.items())
        return f"<{name}>{inner}</{name}>"

    def render_result(self, name: str, content: Any) -> str:
        return f'<tool_result name="{name}">\n{_xml_escape(content_text(content))}\n</tool_result>'


AFTER_VALUE = (ANY_OPEN_TAG, ANY_EMPTY_TAG, ANY_CLOSE_TAG, CALL_CLOSE_TAG, END_OF_STREAM)

XML = Grammar(
    "xml",
    openers={
        TOOL_TAG: Opener("lead", closer=CALL_CLOSE_TAG),
        TOOL_EMPTY_TAG: Opener("lead", step=go(END, call=True, end_call=True)),
    },
    regions={
        "lead": Space(
            {
                PROPERTY_TAG: go("value", call=True, member=True),
                ANY_EMPTY_TAG: go("parameters", call=True, member=True, end_member=True),
                CALL_CLOSE_TAG: go(END, call=True, end_call=True),
            },
            otherwise=go("bare text", require=SOLE_STRING),
            at_end=go(REJECT),
        ),
        "parameters": Space(
            {
                ANY_OPEN_TAG: go("value", member=True),
                ANY_EMPTY_TAG: go(STAY, member=True, end_member=True),
                CALL_CLOSE_TAG: go(END, end_call=True),
                ANY_CLOSE_TAG: go(STAY),  # a parameter closed twice
            },
            otherwise=go(STAY),  # stray text between parameters
            at_end=go(END, end_call=True),  # never closed: its parameters stand
        ),
        "value": Value(
            {
                KEY_CLOSE_TAG: go("parameters", end_member=True, confirm=AFTER_VALUE),
                CALL_CLOSE_TAG: go(END, end_member=True, end_call=True),
            },
            xml=True,
            nest={KEY_OPEN_TAG: KEY_CLOSE_TAG},  # an element of the same name inside
            balanced=True,
        ),
        "bare text": Value(
            {
                CALL_CLOSE_TAG: go(END, call=True, member=SOLE_STRING, end_member=True, end_call=True),
                ANY_OPEN_TAG: go(REJECT),
                ANY_CLOSE_TAG: go(REJECT),
                ANY_EMPTY_TAG: go(REJECT),
            },
            xml=True,
            at_end=go(REJECT),
        ),
    },
    prompt=XmlPrompt(),
)


# -- what the fuzzer and the test matrix run it with ------------------------------------------

FRAGMENTS: tuple[str, ...] = (
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
)
# The tools it runs with: its calls open only at declared tools
FUZZ_TOOLS: tuple[dict[str, Any], ...] = (
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
)
EXAMPLES: tuple[Example, ...] = (
    (
        "Checking. <get_weather><city>Paris</city></get_weather> Done.",
        [{"name": "get_weather", "arguments": {"city": "Paris"}}],
    ),
)
ENTRY = GrammarEntry(XML, FRAGMENTS, EXAMPLES, fuzz_tools=FUZZ_TOOLS)
