"""Tool choice: the values, their spellings, and validation before anything is sent.

``"auto"`` (the model decides), ``"none"`` (tools are not offered),
``"required"`` (exactly one call to some declared tool) and
:class:`ForceTool` (one call to the named tool). Validation raises
:class:`InvalidRequestError` for exactly the three requests no provider can
honour, plus forcing a provider-defined (non-function) tool; it never mutates
the caller's objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict

from toolparse.errors import ToolparseError
from toolparse.tools import Tool, to_tool


class ForceTool(BaseModel):
    """Force one call to the tool named ``name``."""

    model_config = ConfigDict(frozen=True)

    type: Literal["tool"] = "tool"
    name: str

    def __init__(self, name: str, **data: Any) -> None:
        super().__init__(name=name, **data)


ToolChoice: TypeAlias = Literal["auto", "none", "required"] | ForceTool
"""A normalised tool choice."""


class InvalidRequestError(ToolparseError, ValueError):
    """A request that cannot be sent as it is; ``code`` says why, for machines.

    Codes: ``required_without_tools``, ``forced_without_tools``,
    ``forced_tool_not_declared``, ``forced_provider_tool``, ``invalid_tool_choice``,
    ``unknown_provider``, ``invalid_messages`` (messages not of the API's shape),
    ``invalid_parallel_tool_calls``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class ProviderTool:
    """A provider-defined tool (web search, code execution, computer use...),
    passed through to the wire as it was given."""

    spec: Mapping[str, Any]

    @property
    def name(self) -> str:
        return str(self.spec.get("name") or self.spec.get("type") or "")


AnyTool: TypeAlias = Tool | ProviderTool


def read_tools(tools: Iterable[Any] | None) -> list[AnyTool]:
    """Function tools as :class:`Tool`, anything else as :class:`ProviderTool`, order kept."""
    result: list[AnyTool] = []
    for spec in tools or ():
        if isinstance(spec, (Tool, ProviderTool)):
            result.append(spec)
        elif isinstance(spec, Mapping) and spec.get("type", "function") != "function":
            result.append(ProviderTool(spec))
        else:
            result.append(to_tool(spec))
    return result


def normalize_choice(choice: Any) -> ToolChoice | None:
    """Accept every spelling in use; None means "not given".

    ``"auto"``/``"none"``/``"required"``, :class:`ForceTool`, ``{"type": "tool",
    "name": X}``, the AI SDK's ``{"type": "tool", "toolName": X}`` and
    ``{"type": "auto" | "none" | "required"}``, OpenAI's
    ``{"type": "function", "function": {"name": X}}``, Anthropic's ``{"type": "any"}``.
    """
    if choice is None or isinstance(choice, ForceTool):
        return choice
    if isinstance(choice, str):
        if choice in ("auto", "none", "required"):
            return choice  # type: ignore[return-value]
        if choice == "any":
            return "required"
        raise InvalidRequestError("invalid_tool_choice", f"unknown tool choice {choice!r}")
    if isinstance(choice, Mapping):
        kind = choice.get("type")
        if kind in ("auto", "none", "required"):
            return kind  # type: ignore[no-any-return]
        if kind == "any":
            return "required"
        if kind == "tool":
            name = choice.get("name", choice.get("toolName"))
            if isinstance(name, str) and name:
                return ForceTool(name)
        if kind == "function":
            inner = choice.get("function")
            name = inner.get("name") if isinstance(inner, Mapping) else choice.get("name")
            if isinstance(name, str) and name:
                return ForceTool(name)
    raise InvalidRequestError("invalid_tool_choice", f"not a tool choice: {choice!r}")


def validate(tools: Iterable[Any] | None, choice: Any) -> tuple[list[AnyTool], ToolChoice | None]:
    """Check a tool choice against the tools before anything is sent.

    Returns the tools read and the normalised choice; raises
    :class:`InvalidRequestError`. ``"auto"`` and ``"none"`` with no tools are valid.
    """
    read = read_tools(tools)
    normal = normalize_choice(choice)
    if normal == "required" and not read:
        raise InvalidRequestError(
            "required_without_tools", 'tool_choice "required" needs at least one tool, and none was given'
        )
    if isinstance(normal, ForceTool):
        if not read:
            raise InvalidRequestError(
                "forced_without_tools", f"tool_choice forces {normal.name!r}, but no tools were given"
            )
        match = [t for t in read if t.name == normal.name]
        if not match:
            declared = ", ".join(repr(t.name) for t in read)
            raise InvalidRequestError(
                "forced_tool_not_declared",
                f"tool_choice forces {normal.name!r}, which is not among the tools ({declared})",
            )
        if all(isinstance(t, ProviderTool) for t in match):
            raise InvalidRequestError(
                "forced_provider_tool",
                f"tool_choice forces {normal.name!r}, a provider-defined tool: only function tools "
                "can be forced",
            )
    return read, normal


def function_tools(tools: Iterable[AnyTool]) -> list[Tool]:
    return [t for t in tools if isinstance(t, Tool)]
