"""Tools and tool choice in each provider's own request-body keys.

``to_wire(provider, tools, tool_choice)`` returns only the fields it owns
(``tools`` and the provider's tool-choice field), to merge into a request.
Tools keep their declared order and are never filtered by the choice; an
absent choice omits the field (neither null nor "auto"). It validates first,
like every entry point.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from toolparse.toolchoice.choice import (
    AnyTool,
    ForceTool,
    InvalidRequestError,
    ProviderTool,
    ToolChoice,
    validate,
)
from toolparse.tools import Tool


def _described(fields: dict[str, Any], tool: Tool) -> dict[str, Any]:
    if tool.description:
        fields["description"] = tool.description
    return fields


def _openai_tool(tool: AnyTool) -> dict[str, Any]:
    if isinstance(tool, ProviderTool):
        return dict(tool.spec)
    function = _described({"name": tool.name}, tool)
    function["parameters"] = tool.parameters
    return {"type": "function", "function": function}


def _responses_tool(tool: AnyTool) -> dict[str, Any]:
    if isinstance(tool, ProviderTool):
        return dict(tool.spec)
    fields = _described({"type": "function", "name": tool.name}, tool)
    fields["parameters"] = tool.parameters
    return fields


def _anthropic_tool(tool: AnyTool) -> dict[str, Any]:
    if isinstance(tool, ProviderTool):
        return dict(tool.spec)
    fields = _described({"name": tool.name}, tool)
    fields["input_schema"] = tool.parameters
    return fields


def _openai(tools: list[AnyTool], choice: ToolChoice | None, *, required: str = "required") -> dict[str, Any]:
    body: dict[str, Any] = {"tools": [_openai_tool(t) for t in tools]}
    if isinstance(choice, ForceTool):
        body["tool_choice"] = {"type": "function", "function": {"name": choice.name}}
    elif choice is not None:
        body["tool_choice"] = required if choice == "required" else choice
    return body


def _mistral(tools: list[AnyTool], choice: ToolChoice | None) -> dict[str, Any]:
    return _openai(tools, choice, required="any")


def _responses(tools: list[AnyTool], choice: ToolChoice | None) -> dict[str, Any]:
    body: dict[str, Any] = {"tools": [_responses_tool(t) for t in tools]}
    if isinstance(choice, ForceTool):
        body["tool_choice"] = {"type": "function", "name": choice.name}
    elif choice is not None:
        body["tool_choice"] = choice
    return body


def _anthropic(tools: list[AnyTool], choice: ToolChoice | None) -> dict[str, Any]:
    body: dict[str, Any] = {"tools": [_anthropic_tool(t) for t in tools]}
    if isinstance(choice, ForceTool):
        body["tool_choice"] = {"type": "tool", "name": choice.name}
    elif choice is not None:
        body["tool_choice"] = {"type": "any" if choice == "required" else choice}
    return body


def _gemini(tools: list[AnyTool], choice: ToolChoice | None) -> dict[str, Any]:
    declarations = []
    entries: list[dict[str, Any]] = []
    for tool in tools:
        if isinstance(tool, ProviderTool):
            entries.append(dict(tool.spec))
        else:
            fields = _described({"name": tool.name}, tool)
            fields["parameters"] = tool.parameters
            declarations.append(fields)
    grouped = [{"functionDeclarations": declarations}] if declarations else []
    body: dict[str, Any] = {"tools": [*grouped, *entries]}
    if isinstance(choice, ForceTool):
        config: dict[str, Any] = {"mode": "ANY", "allowedFunctionNames": [choice.name]}
    elif choice is not None:
        config = {"mode": {"auto": "AUTO", "none": "NONE", "required": "ANY"}[choice]}
    else:
        return body
    body["toolConfig"] = {"functionCallingConfig": config}
    return body


PROVIDERS: dict[str, Callable[[list[AnyTool], ToolChoice | None], dict[str, Any]]] = {
    "openai": _openai,
    "openai-responses": _responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "deepseek": _openai,  # OpenAI-compatible Chat Completions
    "xai": _openai,  # OpenAI-compatible Chat Completions
    "mistral": _mistral,
}


def to_wire(provider: str, tools: Iterable[Any] | None, tool_choice: Any = None) -> dict[str, Any]:
    """The request-body fields for ``tools`` and ``tool_choice`` in ``provider``'s keys.

    Providers: ``openai`` (Chat Completions), ``openai-responses``, ``anthropic``
    (Messages), ``gemini``, ``deepseek``, ``xai``, ``mistral``.
    """
    mapper = PROVIDERS.get(provider)
    if mapper is None:
        raise InvalidRequestError(
            "unknown_provider",
            f"unknown provider {provider!r}; known providers: {', '.join(sorted(PROVIDERS))}",
        )
    read, choice = validate(tools, tool_choice)
    return mapper(read, choice)
