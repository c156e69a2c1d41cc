"""The prompt side of each wire format: teach a model the format, and write a
conversation's past calls and tool results back into it.

For models without native tool calling, the tools must be described in the
system prompt, and earlier turns' calls and results must be sent as text in
the same format the model is asked to write. Each :class:`PromptFormat`
renders calls so that its grammar parses them back to the same call (a
round trip, tested with hypothesis for every grammar).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from toolparse.engine.declare import PromptFormat
from toolparse.tools import Tool


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _openai_tool(tool: Tool) -> dict[str, Any]:
    return tool.to_openai()


def content_text(content: Any) -> str:
    """A tool result as text: a string as it is, OpenAI content parts
    (``[{"type": "text", "text": ...}]``) joined, anything else as JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and all(_is_text_part(part) for part in content):
        return "".join(part["text"] for part in content)
    return json_text(content)


def _is_text_part(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)


class HermesPrompt(PromptFormat):
    """The Hermes / Qwen 2.5 template's wording."""

    def system_prompt(self, tools: Sequence[Tool]) -> str:
        listed = "\n".join(json_text(_openai_tool(t)) for t in tools)
        return (
            "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
            "You are provided with function signatures within <tools></tools> XML tags:\n"
            f"<tools>\n{listed}\n</tools>\n\n"
            "For each function call, return a json object with function name and arguments "
            "within <tool_call></tool_call> XML tags:\n<tool_call>\n"
            '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
        )

    def render_call(self, name: str, arguments: Mapping[str, Any]) -> str:
        return f"<tool_call>\n{json_text({'name': name, 'arguments': dict(arguments)})}\n</tool_call>"

    def render_result(self, name: str, content: Any) -> str:
        return f"<tool_response>\n{content_text(content)}\n</tool_response>"


class FencedJsonPrompt(PromptFormat):
    """Gemma-style fenced calls."""

    def system_prompt(self, tools: Sequence[Tool]) -> str:
        listed = json_text([_openai_tool(t)["function"] for t in tools])
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


def _cdata(text: str) -> str:
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def _raw_value(value: Any) -> str:
    """A Qwen3-Coder parameter value: the text itself (its template escapes
    nothing), JSON for anything else. Written on its own lines, it reads back
    exactly: the reader drops the one newline after the opening tag and the
    one before the closing tag, nothing else."""
    return value if isinstance(value, str) else json_text(value)


class Qwen3CoderPrompt(PromptFormat):
    """The Qwen3-Coder chat template's wording."""

    def system_prompt(self, tools: Sequence[Tool]) -> str:
        blocks = []
        for tool in tools:
            params = []
            properties = tool.parameters.get("properties") or {}
            for pname, pschema in properties.items():
                kind = pschema.get("type", "any") if isinstance(pschema, Mapping) else "any"
                desc = pschema.get("description", "") if isinstance(pschema, Mapping) else ""
                params.append(
                    f"<parameter>\n<name>{pname}</name>\n<type>{kind}</type>\n"
                    f"<description>{desc}</description>\n</parameter>"
                )
            blocks.append(
                f"<function>\n<name>{tool.name}</name>\n<description>{tool.description}</description>\n"
                f"<parameters>\n{chr(10).join(params)}\n</parameters>\n</function>"
            )
        return (
            "# Tools\n\nYou have access to the following functions:\n\n<tools>\n"
            + "\n".join(blocks)
            + "\n</tools>\n\nIf you choose to call a function ONLY reply in the following format "
            "with NO suffix:\n\n<tool_call>\n<function=example_function_name>\n"
            "<parameter=example_parameter_1>\nvalue_1\n</parameter>\n<parameter=example_parameter_2>\n"
            "This is the value for the second parameter\nthat can span\nmultiple lines\n"
            "</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n"
            "- Function calls MUST follow the specified format: an inner <function=...></function> "
            "block must be nested within <tool_call></tool_call> XML tags\n"
            "- Required parameters MUST be specified\n</IMPORTANT>"
        )

    def render_call(self, name: str, arguments: Mapping[str, Any]) -> str:
        params = "".join(
            f"<parameter={key}>\n{_raw_value(value)}\n</parameter>\n" for key, value in arguments.items()
        )
        return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"

    def render_result(self, name: str, content: Any) -> str:
        return f"<tool_response>\n{content_text(content)}\n</tool_response>"


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
        listed = "\n".join(json_text(_openai_tool(t)["function"]) for t in tools)
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
