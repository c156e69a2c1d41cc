"""Tool definitions, from :class:`Tool` objects or OpenAI-style dicts."""

from __future__ import annotations

import copy
import marshal
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolparse.errors import InvalidToolError

_NAME = re.compile(r"[A-Za-z0-9_.:\-]{1,128}")


@dataclass(frozen=True, slots=True)
class Tool:
    """A tool the model may call.

    ``parameters`` is the JSON Schema of the call's arguments (an object
    schema), or a pydantic model class: then its JSON schema is used, and each
    :class:`~toolparse.ToolCall` to this tool carries the validated model
    instance in ``parsed`` (or the validation failure in ``validation_error``).
    """

    name: str
    description: str = ""
    # Always a JSON Schema dict once constructed; typed Any so that passing a
    # pydantic model class type-checks.
    parameters: Any = field(default_factory=lambda: {"type": "object", "properties": {}})
    model: Any = field(default=None, compare=False, repr=False)
    """The pydantic model class the arguments validate into, if any."""

    def __post_init__(self) -> None:
        if _is_model_class(self.parameters):
            object.__setattr__(self, "model", self.parameters)
            object.__setattr__(self, "parameters", _model_schema(self.parameters))
        else:  # (the tool's own copy: see _owned)
            object.__setattr__(self, "parameters", _owned(self.parameters))
        _check_tool(self.name, self.description, self.parameters)

    @classmethod
    def from_model(cls, model: Any, *, name: str | None = None, description: str | None = None) -> Tool:
        """A tool whose arguments are the pydantic model ``model``.

        The name defaults to the model's name, the description to its docstring.
        """
        if not _is_model_class(model):
            raise InvalidToolError(f"{model!r} is not a pydantic model class")
        doc = (model.__doc__ or "").strip()
        return cls(name or model.__name__, description if description is not None else doc, model)

    def validate(self, arguments: dict[str, Any]) -> tuple[Any, str | None]:
        """(model instance, None), or (None, the validation error) for this tool's model."""
        if self.model is None:
            return None, None
        try:
            return self.model.model_validate(arguments), None
        except Exception as exc:  # pydantic.ValidationError, or the model's own validator
            return None, str(exc)

    def to_openai(self) -> dict[str, Any]:
        """This tool as an OpenAI Chat Completions ``tools`` entry."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


ToolLike = Tool | Mapping[str, Any]
"""A :class:`Tool`, or a dict in OpenAI style or with name/description/parameters."""


def _is_mapping(obj: object) -> bool:
    """``isinstance(obj, Mapping)``, a plain dict first (the ABC's check costs
    ten times as much, and a parser is built per request)."""
    return type(obj) is dict or isinstance(obj, Mapping)


def _owned(schema: Any) -> Any:
    """A deep copy of ``schema``, the tool's own: the schema a Tool is made with
    is the one it keeps, whatever its maker does to the dict afterwards. (What
    is worked out from a schema is kept by its identity, by both engines, for
    every parser made with the tool: a dict changed under a Tool would be read
    anew by some of them and not by others. A Tool's ``parameters`` themselves
    are not to be changed: a Tool is frozen; ``dataclasses.replace`` makes
    another.) By marshal where it can say the schema (JSON's types: C speed),
    else ``copy.deepcopy``; a schema neither copies is checked, and fails, as
    given."""
    try:
        return marshal.loads(marshal.dumps(schema, _MARSHAL_VERSION))
    except ValueError:  # (not JSON's types only: a Mapping, a tuple of objects, ...)
        pass
    try:
        return copy.deepcopy(schema)
    except Exception:  # (let _check_tool say what is wrong with it)
        return schema


def _check_tool(name: object, description: object, parameters: object) -> None:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InvalidToolError(
            f"tool name {name!r} is not valid: use 1 to 128 letters, digits, '_', '.', ':' or '-'"
        )
    if not isinstance(description, str):
        raise InvalidToolError(f"tool {name!r}: description must be a string")
    if type(parameters) is not dict and not isinstance(parameters, Mapping):  # (see _is_mapping)
        raise InvalidToolError(f"tool {name!r}: parameters must be a JSON Schema object (a dict)")
    kind = parameters.get("type", "object")
    if kind != "object":
        raise InvalidToolError(
            f"tool {name!r}: parameters must describe an object (type 'object'), not {kind!r}"
        )
    properties = parameters.get("properties", {})
    if not _is_mapping(properties):
        raise InvalidToolError(f"tool {name!r}: 'properties' must be an object")
    required = parameters.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise InvalidToolError(f"tool {name!r}: 'required' must be a list of property names")


def _is_model_class(obj: object) -> bool:
    return (
        isinstance(obj, type)
        and callable(getattr(obj, "model_json_schema", None))
        and callable(getattr(obj, "model_validate", None))
    )


def _model_schema(model: Any) -> dict[str, Any]:
    schema = model.model_json_schema()
    if not isinstance(schema, dict):
        raise InvalidToolError(f"{model!r} did not give a JSON schema")
    schema.pop("title", None)
    return schema


def _parameters_of(body: Mapping[str, Any]) -> Any:
    """A tool dict's schema, under any of the names providers give it (None: none)."""
    return body.get("parameters", body.get("input_schema", body.get("schema")))


def to_tool(spec: ToolLike) -> Tool:
    """Accept a :class:`Tool`, an OpenAI-style ``{"type": "function", "function": {...}}``
    dict, or a plain ``{"name", "description", "parameters"}`` dict."""
    if isinstance(spec, Tool):
        return spec
    if not _is_mapping(spec):
        raise InvalidToolError(f"a tool must be a Tool or a dict, not {type(spec).__name__}")
    body: Mapping[str, Any] = spec
    if "function" in spec:
        if spec.get("type", "function") != "function":
            raise InvalidToolError(f"tool of type {spec.get('type')!r} is not a function tool")
        inner = spec["function"]
        if not _is_mapping(inner):
            raise InvalidToolError("'function' must be an object with name and parameters")
        body = inner
    if "name" not in body:
        raise InvalidToolError(f"tool definition has no 'name': {dict(body)!r}")
    parameters = _parameters_of(body)
    if parameters is None:
        parameters = {"type": "object", "properties": {}}
    description = body.get("description") or ""
    if not _is_mapping(parameters):  # (a model class, or what Tool says is wrong)
        return Tool(name=body["name"], description=description, parameters=parameters)
    # (a request's own dicts, made per request, or toolparse's copy of them (see
    # _KEPT_BY_CONTENT): its root copied, not all of it, as a parser is built per request)
    return _tool_of(body["name"], description, dict(parameters))


def _tool_of(name: Any, description: Any, parameters: dict[str, Any]) -> Tool:
    """``Tool(name, description, parameters)`` keeping ``parameters`` as given."""
    tool: Tool = object.__new__(Tool)
    object.__setattr__(tool, "name", name)
    object.__setattr__(tool, "description", description)
    object.__setattr__(tool, "parameters", parameters)
    object.__setattr__(tool, "model", None)
    _check_tool(name, description, parameters)
    return tool


_MAX_KEPT_TOOLSETS = 256

# Tool lists made only of Tool instances, normalized once, by the identities of their
# tools (a parser is built per request, most often with the same tools). The value is
# the tuple of those same tools: it keeps them alive, so their ids are not reused
# while the entry lives. A Tool is frozen (and its schema, as everywhere, is taken not
# to change once used).
_KEPT_TOOLSETS: dict[tuple[int, ...], tuple[Tool, ...]] = {}

# Tool lists made of dicts (OpenAI style, as each request's JSON brings them: new dicts
# every time), normalized once by their content. The key is the list's marshal
# serialization, which spells each value's exact type (a dict, not a subclass; 1, True
# and 1.0 apart; a tuple, not a list) and fails on anything else (a Tool, a pydantic model
# class, a cycle, nesting too deep): equal keys are equal content. The kept Tools are built
# from the copy that the key reads back as, which toolparse owns, so a caller changing its
# dicts afterwards changes nothing kept (its next key differs). Kept Tools keep their
# schemas' identities, so the caches keyed by a schema's identity (member plans, the
# coercer's plans, the native typer's) serve every parser built with the same tools, not
# only the first. Bounded in entries and in bytes; only few and small tools are keyed
# (see _worth_keying).
_KEPT_BY_CONTENT: dict[bytes, tuple[Tool, ...]] = {}
_MAX_KEPT_CONTENT_BYTES = 4_000_000
_kept_content_bytes = 0
_MAX_KEYED_TOOLS = 8
_MAX_KEYED_PROPERTIES = 32
_MARSHAL_VERSION = 2  # (no references between objects: the bytes do not depend on how they are shared)


def normalize_tools(tools: Iterable[ToolLike] | None) -> tuple[Tool, ...] | None:
    """Tools as a tuple of :class:`Tool`, or None when the caller declared none.

    Raises :class:`InvalidToolError` for a bad definition or a duplicate name.
    """
    if tools is None:
        return None
    kept = kept_tools(tools)
    if kept is not None:
        return kept
    if isinstance(tools, (str, bytes, Mapping)):
        raise InvalidToolError("tools must be a list of tool definitions")
    return _normalized(tools)


def kept_tools(tools: Iterable[ToolLike]) -> tuple[Tool, ...] | None:
    """``normalize_tools(tools)`` where it is kept: the same tuple, while it is
    kept, for the same tools (a list or tuple of :class:`Tool` instances, by
    their identities, or of few and small dicts, by their content); None for
    other tools. Raises as ``normalize_tools`` does."""
    if type(tools) is list or type(tools) is tuple:
        identities = tuple(map(id, tools))
        kept = _KEPT_TOOLSETS.get(identities)
        if kept is not None:
            return kept
        if all(type(given) is Tool for given in tools):
            result = _normalized(tools)
            if len(_KEPT_TOOLSETS) >= _MAX_KEPT_TOOLSETS:
                _KEPT_TOOLSETS.clear()
            _KEPT_TOOLSETS[identities] = result
            return result
        content = _content_key(tools) if _worth_keying(tools) else None
        if content is not None and len(content) <= _MAX_KEPT_CONTENT_BYTES:
            return _kept_by_content(content)
    return None


def _normalized(tools: Iterable[ToolLike]) -> tuple[Tool, ...]:
    result = tuple(to_tool(t) for t in tools)
    seen: set[str] = set()
    for tool in result:
        if tool.name in seen:
            raise InvalidToolError(f"two tools are named {tool.name!r}")
        seen.add(tool.name)
    return result


def _worth_keying(tools: Sequence[Any]) -> bool:
    """Whether ``tools`` are few and small enough that their key costs less than
    what it saves. The key costs their size (marshal writes every object of
    their schemas); normalizing them costs their number, and the plans kept
    with them a few µs for each member a call uses. Looked at to the top
    level of each schema only: O(number of tools)."""
    if len(tools) > _MAX_KEYED_TOOLS:
        return False
    for spec in tools:
        body = spec.get("function", spec) if type(spec) is dict else None
        if type(body) is not dict:
            return False
        parameters = _parameters_of(body)
        properties = parameters.get("properties") if type(parameters) is dict else None
        if type(properties) is dict and len(properties) > _MAX_KEYED_PROPERTIES:
            return False
    return True


def _content_key(tools: Any) -> bytes | None:
    """``tools`` serialized exactly (see ``_KEPT_BY_CONTENT``), or None where
    marshal cannot say them."""
    try:  # (a list or a tuple of tools: the same tools)
        return marshal.dumps(tools if type(tools) is list else list(tools), _MARSHAL_VERSION)
    except ValueError:
        return None


def _kept_by_content(key: bytes) -> tuple[Tool, ...]:
    global _kept_content_bytes
    kept = _KEPT_BY_CONTENT.get(key)
    if kept is not None:
        return kept
    result = _normalized(marshal.loads(key))
    if (
        len(_KEPT_BY_CONTENT) >= _MAX_KEPT_TOOLSETS
        or _kept_content_bytes + len(key) > _MAX_KEPT_CONTENT_BYTES
    ):
        _KEPT_BY_CONTENT.clear()
        _kept_content_bytes = 0
    if len(key) <= _MAX_KEPT_CONTENT_BYTES:
        _KEPT_BY_CONTENT[key] = result
        _kept_content_bytes += len(key)
    return result


def load_tools_file(path: str) -> list[Any]:
    """The tools in a JSON file: a list (OpenAI style or name/parameters), or
    an object with a ``tools`` list. Raises :class:`~toolparse.ToolparseError`
    saying what is wrong with the file."""
    import json

    from toolparse.errors import ToolparseError

    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise ToolparseError(f"cannot read tools file {path!r}: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise ToolparseError(f"tools file {path!r} is not valid JSON: {exc}") from exc
    if isinstance(data, dict) and "tools" in data:
        data = data["tools"]
    if not isinstance(data, list):
        raise ToolparseError(f"tools file {path!r} must hold a JSON list of tools")
    return data
