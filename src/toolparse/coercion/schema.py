"""Reading JSON Schemas the way coercion needs them.

Only what coercion asks: which JSON types a schema admits, the schema of a
property or an array item, enum and const values, and the branches of
``anyOf``/``oneOf``. ``$ref`` into ``$defs``/``definitions`` (as pydantic emits
them) is followed, cycles included, and ``{"jsonSchema": ...}`` wrappers (as
some SDKs emit them) are unwrapped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

Schema = Mapping[str, Any]

TYPES: Final = ("null", "boolean", "object", "array", "number", "integer", "string")
_ANY: Final[frozenset[str]] = frozenset(TYPES)
_SINGLE_TYPES: Final = {kind: frozenset((kind,)) for kind in TYPES}
_MAX_REF_HOPS = 32
_MAX_BRANCH_NESTING = 8
_MAX_LEAVES = 256


def unwrap(schema: Any, root: Schema | None = None) -> Schema | None:
    """The schema itself: ``jsonSchema`` wrappers removed, ``$ref`` followed.

    Returns None for "no schema" (None, True, or something that is not a schema).
    ``False`` (nothing allowed) is returned as ``{"not": {}}``.
    """
    for _ in range(_MAX_REF_HOPS):
        if schema is None or schema is True:
            return None
        if schema is False:
            return {"not": {}}
        if type(schema) is not dict and not isinstance(schema, Mapping):  # (dict: no ABC check)
            return None
        if "jsonSchema" in schema and len(schema) <= 2:
            schema = schema["jsonSchema"]
            continue
        ref = schema.get("$ref")
        if isinstance(ref, str) and root is not None:
            target = resolve_ref(ref, root)
            if target is None:
                return _without(schema, "$ref")
            if len(schema) > 1:  # sibling keywords beside $ref: merge them in
                merged = dict(target)
                merged.update(_without(schema, "$ref"))
                schema = merged
            else:
                schema = target
            continue
        return schema
    return None  # a chain of $refs that does not end: treat as no schema


def _without(schema: Schema, key: str) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != key}


def resolve_ref(ref: str, root: Schema) -> Schema | None:
    """Follow a local ``#/...`` reference inside ``root``."""
    if not ref.startswith("#"):
        return None
    node: Any = root
    for part in ref[1:].split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, Mapping) else None


def types_of(schema: Schema | None) -> frozenset[str]:
    """The JSON types a schema admits, detected when ``type`` is missing."""
    if schema is None:
        return _ANY
    declared = schema.get("type")
    if isinstance(declared, str):
        single = _SINGLE_TYPES.get(declared)
        if single is not None:  # (the usual schema: one standard type)
            return single
        kinds = {declared}
    elif isinstance(declared, list) and declared:
        kinds = {t for t in declared if isinstance(t, str)}
    else:
        kinds = set()
        if any(k in schema for k in ("properties", "additionalProperties", "patternProperties", "required")):
            kinds.add("object")
        if any(k in schema for k in ("items", "prefixItems")):
            kinds.add("array")
        if "enum" in schema or "const" in schema:
            values = schema.get("enum", [schema.get("const")])
            if isinstance(values, list):
                kinds.update(json_type(v) for v in values)
        if not kinds:
            return _ANY
    kinds &= _ANY | {"float", "int", "bool", "str"}
    # non-standard names seen in real tool schemas
    aliases = {"float": "number", "int": "integer", "bool": "boolean", "str": "string"}
    return frozenset(aliases.get(k, k) for k in kinds)


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def branches(schema: Schema) -> list[Any] | None:
    """The alternatives of an ``anyOf``/``oneOf`` schema, or None."""
    for key in ("anyOf", "oneOf"):
        alternatives = schema.get(key)
        if isinstance(alternatives, list) and alternatives:
            return alternatives
    return None


def merged_all_of(schema: Schema, root: Schema | None, depth: int = 0) -> Schema:
    """``allOf`` parts merged into one schema (properties united), for lookup."""
    parts = schema.get("allOf")
    if not isinstance(parts, list) or depth > 8:
        return schema
    merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
    properties: dict[str, Any] = dict(merged.get("properties") or {})
    for part in parts:
        sub = unwrap(part, root)
        if sub is None:
            continue
        sub = merged_all_of(sub, root, depth + 1)
        for key, value in sub.items():
            if key == "properties" and isinstance(value, Mapping):
                properties.update(value)
            elif key not in merged:
                merged[key] = value
    if properties:
        merged["properties"] = properties
    return merged


def enum_values(schema: Schema) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    values = schema.get("enum")
    return values if isinstance(values, list) else None


def leaves(schema: Schema, root: Schema | None) -> list[Schema | None]:
    """The alternatives of an ``anyOf``/``oneOf`` schema with nested ones opened,
    depth first, each resolved (``$ref`` followed, ``allOf`` merged).

    ``anyOf: [anyOf: [a, b], c]`` admits what ``anyOf: [a, b, c]`` admits, in
    the same order; flattening makes a value's cost linear in the schema's
    size, where trying nested unions in turn would multiply (a union that
    refers to itself would never end). At most 8 levels and 256 leaves; a
    union nested deeper is dropped.
    """
    found: list[Schema | None] = []
    seen: set[int] = set()  # a leaf reached twice (a union that refers to itself) counts once

    def walk(node: Schema, nesting: int) -> None:
        alternatives = branches(node)
        if alternatives is None:
            if id(node) not in seen:
                seen.add(id(node))
                found.append(node)
            return
        if nesting >= _MAX_BRANCH_NESTING:
            return  # (deeper than any real schema nests unions: a cycle)
        for branch in alternatives:
            if len(found) >= _MAX_LEAVES:
                return
            resolved = unwrap(branch, root)
            if resolved is None:
                found.append(None)
            else:
                walk(merged_all_of(resolved, root), nesting + 1)

    walk(schema, 0)
    return found
