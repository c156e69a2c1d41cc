"""Coercion while a call's arguments stream.

:class:`SchemaTyper` follows the arguments' structure alongside the streaming
JSON reader (:class:`toolparse.readers.json.JsonRewriter`) and decides,
for each value as it begins, whether it can stream as it is or must be
coerced when complete:

* a string whose schema is a plain string (no enum, no union) streams;
* an object or array whose schema admits it streams, its members decided the
  same way one by one (a member that ``additionalProperties: false`` forbids
  is dropped as its key arrives);
* anything else (a number, a string that may become a number, a union, an
  enum, an array with ``prefixItems``) is collected whole and coerced when it
  closes, with exactly the rules of :func:`toolparse.coercion.coerce`.

So the argument deltas are already coerced, they reconcile with the final
arguments, and streamed coercion equals :func:`coerce` on the whole value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from toolparse.coercion.coerce import Issue, _child_path, _Coercer, pattern_reporter
from toolparse.coercion.patterns import pattern_schema
from toolparse.coercion.schema import branches, enum_values, leaves, merged_all_of, types_of, unwrap
from toolparse.events import canonical_json

UNTOUCHED: Final = object()  # below an unknown property: values are kept as they are

# How a value is read, worked out once per schema object (the same tool's
# schema serves every call): (schema object, root, resolved schema, the first
# characters of a value that streams, whether an integer literal stands as it is).
# The entries hold their schema objects, so an id is never reused while cached.
_PLANS: dict[tuple[int, int], tuple[Any, Any, Any, str, bool]] = {}
_MAX_PLANS: Final = 4096
_INT_LITERAL: Final = re.compile(r"-?(?:0|[1-9][0-9]{0,15})")


DROP: Final = object()  # a member that additionalProperties: false forbids
DROPPED_EXPECTED: Final = "no such property (additionalProperties is false)"


def member_schema(schema: Mapping[str, Any], key: str, path: str, issues: list[Issue]) -> Any:
    """The schema of member ``key`` (at ``path``) of an object schema, as :func:`coerce`
    looks it up: a property, a matching ``patternProperties`` pattern, the
    ``additionalProperties`` schema; :data:`DROP` when additional properties are
    forbidden; otherwise untouched (kept as the model wrote it). A pattern that
    could not be applied is reported in ``issues``."""
    properties = schema.get("properties")
    # (a dict is told without the ABC check, which costs more than the lookup)
    if (type(properties) is dict or isinstance(properties, Mapping)) and key in properties:
        return properties[key]
    patterns = schema.get("patternProperties")
    found = None
    if isinstance(patterns, Mapping) and patterns:
        found = pattern_schema(patterns, key, pattern_reporter(path, key, issues))
    if found is not None:
        return found
    additional = schema.get("additionalProperties")
    if additional is False:
        return DROP
    return additional if isinstance(additional, Mapping) else UNTOUCHED


def text_streams(raw: Any, root: Mapping[str, Any] | None) -> bool:
    """True when a text value under this schema is a plain string (it can stream):
    untouched, or a string schema with no enum and no union."""
    if raw is UNTOUCHED:
        return True
    schema = unwrap(raw, root)
    if schema is None:
        return False
    schema = merged_all_of(schema, root)
    return branches(schema) is None and enum_values(schema) is None and "string" in types_of(schema)


def wants_array(raw: Any, root: Mapping[str, Any] | None) -> bool:
    """True when the schema admits an array (so a repeated member collects into one)."""
    if raw is UNTOUCHED:
        return False
    schema = unwrap(raw, root)
    if schema is None:
        return False
    schema = merged_all_of(schema, root)
    if branches(schema) is not None:
        return any(leaf is not None and "array" in types_of(leaf) for leaf in leaves(schema, root))
    return "array" in types_of(schema)


def coerce_at(
    value: Any, raw: Any, root: Mapping[str, Any] | None, path: str, depth: int, max_depth: int = 64
) -> tuple[Any, list[Issue]]:
    """:func:`coerce` of one member, with paths and ``$ref`` relative to the tool's schema."""
    if raw is UNTOUCHED:
        return value, []
    worker = _Coercer(root, max_depth)
    result = worker.run(value, raw, path, depth)
    return result, worker.issues


def _plan(raw: Any, root: Any) -> tuple[Any, Any, Any, str, bool]:
    """How values of schema ``raw`` are read (see ``_PLANS``)."""
    schema = unwrap(raw, root)
    streams = ""
    integers = False
    if schema is not None:
        schema = merged_all_of(schema, root)
        if branches(schema) is None and enum_values(schema) is None:
            kinds = types_of(schema)
            if "string" in kinds:
                streams += "\"'"
            if "object" in kinds:
                streams += "{"
            if "array" in kinds and "prefixItems" not in schema and not isinstance(schema.get("items"), list):
                streams += "["
            integers = "integer" in kinds or "number" in kinds
    plan = (raw, root, schema, streams, integers)
    if len(_PLANS) >= _MAX_PLANS:
        _PLANS.clear()
    _PLANS[(id(raw), id(root))] = plan
    return plan


class _Frame:
    __slots__ = ("count", "path", "schema")

    def __init__(self, schema: Any, path: str) -> None:
        self.schema = schema  # resolved schema, None (no schema), or UNTOUCHED
        self.path = path
        self.count = 0


class SchemaTyper:
    """Coerces one call's arguments inline, against the tool's parameters schema."""

    __slots__ = ("_buffered", "_frames", "_next_path", "_next_schema", "issues", "max_depth", "root")

    def __init__(self, schema: Mapping[str, Any], *, max_depth: int = 64) -> None:
        self.root = schema
        self.max_depth = max_depth
        self.issues: list[Issue] = []
        self._frames: list[_Frame] = []
        self._next_schema: Any = schema
        self._next_path = "$"
        self._buffered: list[tuple[Any, str, bool]] = []

    def begin_value(self, first: str) -> bool:
        raw, path = self._next_schema, self._next_path
        container = first in "{["
        if raw is UNTOUCHED:
            if container:
                self._frames.append(_Frame(UNTOUCHED, path))
            return False
        root = self.root
        plan = _PLANS.get((id(raw), id(root)))
        if plan is None or plan[0] is not raw or plan[1] is not root:
            plan = _plan(raw, root)
        schema, streams, integers = plan[2], plan[3], plan[4]
        if schema is None:  # no schema: only strings may change (JSON-looking ones)
            if container:
                self._frames.append(_Frame(None, path))
                return False
            return self._buffer(raw, path, False) if first in "\"'" else False
        if first in streams:
            if container:
                self._frames.append(_Frame(schema, path))
            return False
        return self._buffer(raw, path, integers)

    def _buffer(self, raw: Any, path: str, integers: bool) -> bool:
        self._buffered.append((raw, path, integers))
        return True

    def key(self, key: str) -> bool:
        frame = self._frames[-1]
        self._next_path = _child_path(frame.path, key)
        schema = frame.schema
        if schema is UNTOUCHED or schema is None:
            self._next_schema = schema
            return True
        found = member_schema(schema, key, self._next_path, self.issues)
        if found is DROP:
            self.issues.append(Issue(self._next_path, DROPPED_EXPECTED, "a value", "dropped"))
            return False
        self._next_schema = found
        return True

    def array_item(self) -> None:
        frame = self._frames[-1]
        self._next_path = f"{frame.path}[{frame.count}]"
        frame.count += 1
        schema = frame.schema
        if schema is UNTOUCHED or schema is None:
            self._next_schema = schema
            return
        items = schema.get("items")
        self._next_schema = UNTOUCHED if items is None or items is True else items

    def end_container(self) -> None:
        self._frames.pop()

    def finish_buffered(self, canonical: str) -> str:
        raw, path, integers = self._buffered.pop()
        if integers and _INT_LITERAL.fullmatch(canonical) is not None:
            return canonical  # (an integer where the schema takes one: nothing to coerce)
        worker = _Coercer(self.root, self.max_depth)
        value = worker.run(json.loads(canonical), raw, path, len(self._frames))
        self.issues.extend(worker.issues)
        return canonical_json(value)
