"""The JSON Schema that forces a model without native tool calling to answer
with exactly one well-formed call (use it as the response format)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolparse.toolchoice.choice import ForceTool, InvalidRequestError, function_tools, validate
from toolparse.tools import Tool


def _call_schema(tool: Tool) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "title": tool.name,
        "properties": {"name": {"const": tool.name}, "arguments": tool.parameters},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }
    if tool.description:
        schema["description"] = tool.description
    return schema


def response_schema(
    tools: Iterable[Any] | None, tool_choice: Any, *, parallel: bool = False
) -> dict[str, Any]:
    """The schema of a forced answer: ``{"name": ..., "arguments": {...}}``.

    For :class:`ForceTool` (X): an object whose ``name`` is the const X and whose
    ``arguments`` follow X's schema, both required, with X's name and
    description as hints. For ``"required"``: a ``oneOf`` of those objects,
    one per function tool. ``oneOf`` rather than an ``if/then/else`` chain:
    the ``const`` names make the branches mutually exclusive, so ``oneOf``
    admits exactly one declared tool with that tool's arguments, validators
    report the branch that failed, and constrained-decoding engines accept it
    more widely. With ``parallel=True``, an array of one or more such calls.
    Shared ``$defs`` of the tools' schemas are hoisted to the root.
    """
    read, choice = validate(tools, tool_choice)
    functions = function_tools(read)
    if isinstance(choice, ForceTool):
        branches = [_call_schema(t) for t in functions if t.name == choice.name][:1]
    elif choice == "required":
        branches = [_call_schema(t) for t in functions]
    else:
        raise InvalidRequestError(
            "invalid_tool_choice",
            f"a forced-answer schema needs tool_choice 'required' or ForceTool, not {choice!r}",
        )
    defs: dict[str, Any] = {}
    for branch in branches:
        arguments = dict(branch["properties"]["arguments"])
        defs.update(arguments.pop("$defs", {}))
        branch["properties"]["arguments"] = arguments
    call: dict[str, Any] = branches[0] if len(branches) == 1 else {"oneOf": branches}
    schema: dict[str, Any] = {"type": "array", "items": call, "minItems": 1} if parallel else dict(call)
    if defs:
        schema["$defs"] = defs
    return schema
