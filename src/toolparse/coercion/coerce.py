"""JSON-Schema-driven coercion of tool-call arguments.

Models write arguments with the wrong JSON types: ``"42"`` for an integer,
``"true"`` for a boolean, ``"a, b"`` for an array, XML shapes such as
``{"item": [...]}`` for a list. :func:`coerce` converts a value towards its
schema by a fixed, documented set of rules (see the README's coercion table),
reports every change as an :class:`Issue`, never raises on model data and
never evaluates code. It is idempotent: coercing its own output changes
nothing.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolparse.coercion.patterns import pattern_schema as pattern_schema_of
from toolparse.coercion.schema import (
    Schema,
    branches,
    enum_values,
    json_type,
    leaves,
    merged_all_of,
    types_of,
    unwrap,
)
from toolparse.events import valid_unicode
from toolparse.limits import DEFAULT_MAX_DEPTH, MAX_DEPTH_LIMIT, check_count
from toolparse.readers.json import parse_value

_INT: Final = re.compile(r"[+-]?[0-9]+")
_FLOAT: Final = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_SIMPLE_KEY: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAX_DIGITS = 4000  # CPython refuses int() of longer digit strings
_NOT_CONVERTED: Final = object()
# Text an array is not split from: a tag (markup: the value ran past its own
# end, ``[]\n</parameter>\n<parameter=type>``) or a JSON container that JSON
# refused (``[1, NaN]``)
_UNSPLIT: Final = re.compile(r"<[/!?|\uff5cA-Za-z][^<>]*>|\A[\[{].*[\]}]\Z", re.DOTALL)
_NULL_WORDS: Final = frozenset({"null", "NULL", "Null", "None", "none"})

# When a value's type is not admitted, the targets tried, in this order.
_PREFERENCE: Final = ("integer", "number", "boolean", "null", "array", "object", "string")


@dataclass(frozen=True, slots=True)
class Issue:
    """One thing coercion changed, or could not fix, at a JSON path."""

    path: str
    expected: str
    got: str
    action: str

    def __str__(self) -> str:
        return f"{self.path}: expected {self.expected}, got {self.got}: {self.action}"


@dataclass(frozen=True, slots=True)
class Coerced:
    """The coerced value and what was done to get it."""

    value: Any
    issues: tuple[Issue, ...]


def coerce(value: Any, schema: Any, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Coerced:
    """Coerce ``value`` towards ``schema`` (a JSON Schema dict, or None for no schema).

    With no schema, strings that hold a JSON object or array are parsed.
    Values nested deeper than ``max_depth`` (at most 100) are left as they are.
    """
    check_count("max_depth", max_depth, MAX_DEPTH_LIMIT)
    root = schema if isinstance(schema, Mapping) else None
    worker = _Coercer(root, max_depth)
    result = worker.run(value, schema, "$", 0)
    return Coerced(result, tuple(worker.issues))


class _Coercer:
    __slots__ = ("issues", "max_depth", "root")

    def __init__(self, root: Schema | None, max_depth: int) -> None:
        self.root = root
        self.max_depth = max_depth
        self.issues: list[Issue] = []

    def report(self, path: str, expected: str, value: Any, action: str) -> None:
        self.issues.append(Issue(path, expected, _describe(value), action))

    # -- dispatch ---------------------------------------------------------------
    def run(self, value: Any, raw_schema: Any, path: str, depth: int) -> Any:
        # Recursion costs two frames per level of the value (run, then object or
        # array); MAX_DEPTH_LIMIT relies on it.
        schema = unwrap(raw_schema, self.root)
        if depth > self.max_depth:
            self.report(path, "a shallower value", value, f"left as is past depth {self.max_depth}")
            return value
        if schema is None:
            return self.no_schema(value, path, depth)
        schema = merged_all_of(schema, self.root)
        if branches(schema) is not None:
            # a union: the first branch that admits the value as it is goes on here
            alternatives = leaves(schema, self.root)
            for leaf in alternatives:
                if _admits_leaf(leaf, value):
                    if leaf is None:
                        return self.no_schema(value, path, depth)
                    schema = leaf
                    break
            else:
                return self.any_of(value, alternatives, path, depth)
        kinds = types_of(schema)
        kind = json_type(value)
        if kind in kinds or (kind == "integer" and "number" in kinds):
            if kind == "object":
                return self.object(value, schema, path, depth)
            if kind == "array":
                return self.array(value, schema, path, depth)
            return self.admitted(value, schema, path)
        if kind == "number" and "integer" in kinds and float(value).is_integer():
            return self.converted(path, "integer", value, int(value))
        for target in _PREFERENCE:
            if target not in kinds:
                continue
            result = self.convert(value, kind, target, schema, path, depth)
            if result is not _NOT_CONVERTED:
                return result
        self.report(path, _expected(kinds), value, "kept as is")
        return value

    def converted(self, path: str, expected: str, old: Any, new: Any) -> Any:
        self.report(path, expected, old, f"converted to {_describe(new)}")
        return new

    def admitted(self, value: Any, schema: Schema, path: str) -> Any:
        """A scalar of an admitted type: fix an enum string if it needs it."""
        values = enum_values(schema)
        if values is not None and value not in values and isinstance(value, str):
            match = _enum_match(value, values)
            if match is not None:
                return self.converted(path, "one of the enum values", value, match)
            self.report(path, "one of the enum values", value, "kept as is")
        return value

    def any_of(self, value: Any, alternatives: list[Schema | None], path: str, depth: int) -> Any:
        """No branch of a union admits the value as it is: the first that admits
        it after coercion, else the value unchanged. (``alternatives`` are
        :func:`leaves`: resolved, with no union inside.)"""
        for branch in alternatives:
            trial = _Coercer(self.root, self.max_depth)
            result = trial.run(value, branch, path, depth)
            if _admits_leaf(branch, result):
                self.issues.extend(trial.issues)
                return result
        self.report(path, "a value one of the anyOf/oneOf branches admits", value, "kept as is")
        return value

    # -- conversions --------------------------------------------------------------
    def convert(self, value: Any, kind: str, target: str, schema: Schema, path: str, depth: int) -> Any:
        if kind == "string":
            return self.from_string(value, target, schema, path, depth)
        if target == "string" and kind in ("integer", "number", "boolean", "object", "array"):
            return self.converted(path, "string", value, json.dumps(value, ensure_ascii=False))
        if target == "array":
            if kind == "object":
                items = _xml_list(value)
                if items is not None:
                    self.report(path, "array", value, "an XML-shaped object read as its list")
                    return self.array(items, schema, path, depth)
                return _NOT_CONVERTED
            self.report(path, "array", value, "wrapped in a one-element array")
            return self.array([value], schema, path, depth)
        return _NOT_CONVERTED

    def from_string(self, text: str, target: str, schema: Schema, path: str, depth: int) -> Any:
        stripped = text.strip()
        if target == "boolean":
            lowered = stripped.lower()
            if lowered in ("true", "false"):
                return self.converted(path, "boolean", text, lowered == "true")
        elif target == "null":
            # (reached only where the schema admits null but not a string; Qwen3.5
            # templates write Python's None)
            if stripped in _NULL_WORDS:
                return self.converted(path, "null", text, None)
        elif target in ("integer", "number"):
            number = _parse_number(stripped, integer=target == "integer")
            if number is not None:
                return self.converted(path, target, text, number)
            if len(stripped) > _MAX_DIGITS and _INT.fullmatch(stripped):
                self.report(path, target, text, "kept as a string: too many digits")
                return text
        elif target in ("array", "object"):
            parsed = _parse_json(stripped)
            if target == "object":
                if isinstance(parsed, dict):
                    self.report(path, "object", text, "parsed as JSON")
                    return self.object(parsed, schema, path, depth)
                return _NOT_CONVERTED
            if isinstance(parsed, list):
                self.report(path, "array", text, "parsed as JSON")
                return self.array(parsed, schema, path, depth)
            if isinstance(parsed, dict):
                items = _xml_list(parsed)
                if items is not None:
                    self.report(path, "array", text, "parsed as JSON, an XML-shaped object")
                    return self.array(items, schema, path, depth)
            if _UNSPLIT.search(stripped) is not None:
                # (markup, or a JSON container JSON refused: its lines or commas are
                # not the items the model meant; kept a string, and reported)
                return _NOT_CONVERTED
            parts = _split(stripped)
            self.report(path, "array", text, f"split into {len(parts)} element(s)")
            return self.array(parts, schema, path, depth)
        return _NOT_CONVERTED

    # -- containers -------------------------------------------------------------
    def object(self, value: dict[str, Any], schema: Schema, path: str, depth: int) -> Any:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        patterns = schema.get("patternProperties")
        patterns = patterns if isinstance(patterns, Mapping) else {}
        additional = schema.get("additionalProperties")
        result: dict[str, Any] = {}
        for key, item in value.items():
            where = _child_path(path, key)
            if key in properties:
                result[key] = self.run(item, properties[key], where, depth + 1)
                continue
            pattern_schema = pattern_schema_of(patterns, key, pattern_reporter(where, key, self.issues))
            if pattern_schema is not None:
                result[key] = self.run(item, pattern_schema, where, depth + 1)
            elif additional is False:
                self.report(where, "no such property (additionalProperties is false)", item, "dropped")
            elif isinstance(additional, Mapping):
                result[key] = self.run(item, additional, where, depth + 1)
            else:
                result[key] = item  # JSON Schema allows unknown properties: kept untouched
        return result

    def array(self, value: list[Any], schema: Schema, path: str, depth: int) -> Any:
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        if isinstance(prefix, list) and len(prefix) == len(value):
            per_item: list[Any] = prefix
        elif isinstance(items, list):  # the older tuple form of items
            if len(items) != len(value):
                return list(value)
            per_item = items
        elif items is None or items is True:
            return list(value)
        else:
            per_item = [items] * len(value)
        result = []  # (a loop, not a comprehension: one frame less per level)
        for k, item in enumerate(value):
            result.append(self.run(item, per_item[k], f"{path}[{k}]", depth + 1))
        return result

    def no_schema(self, value: Any, path: str, depth: int) -> Any:
        """No schema at all: strings holding a JSON object or array are parsed."""
        if isinstance(value, str):
            stripped = value.strip()
            if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
                parsed = _parse_json(stripped)
                if isinstance(parsed, (dict, list)):
                    self.report(path, "any JSON", value, "parsed as JSON")
                    return self.no_schema(parsed, path, depth + 1)
            return value
        if depth > self.max_depth:
            return value
        if isinstance(value, dict):
            return {k: self.no_schema(v, _child_path(path, k), depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [self.no_schema(v, f"{path}[{k}]", depth + 1) for k, v in enumerate(value)]
        return value


# -- helpers ------------------------------------------------------------------------


def _admits_leaf(schema: Schema | None, value: Any) -> bool:
    """A shallow check against a resolved schema with no union: the value's type
    is admitted, and so is it by enum/const."""
    if schema is None:
        return True
    kinds = types_of(schema)
    kind = json_type(value)
    if not (kind in kinds or (kind == "integer" and "number" in kinds)):
        return False
    values = enum_values(schema)
    return values is None or value in values


def _parse_number(text: str, *, integer: bool) -> int | float | None:
    if _INT.fullmatch(text):
        if len(text) > _MAX_DIGITS:
            return None
        return int(text)
    if not _FLOAT.fullmatch(text):
        return None
    number = float(text)
    if not math.isfinite(number):
        return None
    if integer:
        return int(number) if number.is_integer() else None
    return number


def _not_json(word: str) -> Any:
    raise ValueError(f"{word} is not JSON")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{text} is not a finite number")
    return number


# json.loads, less what JSON is not: NaN, Infinity and -Infinity (Python's
# extensions) and a number past a double's range (1e400, read as inf), which
# JSON.parse and the client's decoder refuse (the JSON reader of a call's body
# refuses them too)
_STRICT: Final = json.JSONDecoder(parse_constant=_not_json, parse_float=_finite)
# a \u escape of a surrogate (json.loads joins a pair, keeps a lone one)
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")


def _valid(value: Any) -> Any:
    """A parsed value with every lone surrogate in its strings (keys
    included) U+FFFD (see :func:`toolparse.events.valid_unicode`)."""
    if isinstance(value, str):
        return valid_unicode(value)
    if isinstance(value, list):
        return [_valid(item) for item in value]
    if isinstance(value, dict):
        return {valid_unicode(key): _valid(item) for key, item in value.items()}
    return value


def _loads(text: str) -> Any:
    """Strict JSON (:data:`_STRICT`), its strings valid Unicode."""
    value = _STRICT.decode(text)
    return _valid(value) if "\\" in text and _SURROGATE_ESCAPE.search(text) is not None else value


def _parse_json(text: str, *, escaped_once: bool = True) -> Any:
    """Strict JSON first, then the tolerant reader (quotes, Python literals,
    commas), then JSON escaped once more (GLM-4.6 writes an array value as
    ``[{\\"id\\": 1}]``: the body of a JSON string holding the JSON). Never
    NaN, an infinity or a lone surrogate (see :func:`_loads`)."""
    try:
        return _loads(text)
    except (ValueError, RecursionError):
        pass
    canonical = parse_value(text)
    if canonical is not None:
        return json.loads(canonical)
    if escaped_once and '\\"' in text:
        try:
            unescaped = json.loads(f'"{text}"', strict=False)
        except ValueError:
            return _NOT_CONVERTED
        # (its \u escapes are decoded now: a lone surrogate among them is one)
        return _parse_json(valid_unicode(unescaped), escaped_once=False)
    return _NOT_CONVERTED


def _split(text: str) -> list[str]:
    """An array written as lines or as a comma-separated list."""
    if "\n" in text:
        parts = text.split("\n")
    elif "," in text:
        parts = text.split(",")
    else:
        parts = [text]
    return [p.strip() for p in parts if p.strip()]


def _xml_list(value: dict[str, Any]) -> list[Any] | None:
    """The list an XML-shaped object stands for, if it is one.

    ``{"item": [...]}`` or any single key holding a list; ``{"item": x}``;
    ``{"0": a, "1": b}`` (all-numeric keys, ordered by index).
    """
    if len(value) == 1:
        ((key, inner),) = value.items()
        if isinstance(inner, list):
            return inner
        if key == "item":
            return [inner]
    if value and all(k.isdecimal() and len(k) < 10 for k in value):
        return [value[k] for k in sorted(value, key=int)]
    return None


def _enum_match(text: str, values: list[Any]) -> Any:
    """An enum member the string means: without surrounding quotes, then
    ignoring whitespace, then case; only an unambiguous match counts."""
    stripped = text.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "\"'":
        unquoted = stripped[1:-1]
        if unquoted in values:
            return unquoted
        stripped = unquoted.strip()
    if stripped in values:
        return stripped
    strings = [v for v in values if isinstance(v, str)]
    for fold in (_no_space, _no_space_no_case):
        target = fold(stripped)
        found = [v for v in strings if fold(v) == target]
        if len(found) == 1:
            return found[0]
    return None


def _no_space(text: str) -> str:
    return "".join(text.split())


def _no_space_no_case(text: str) -> str:
    return "".join(text.split()).casefold()


def pattern_reporter(path: str, key: str, issues: list[Issue]) -> Callable[[str, str], None]:
    """Reports, in ``issues``, a ``patternProperties`` pattern not applied to ``key``."""

    def report(pattern: str, why: str) -> None:
        expected = f"a key matched against the pattern {pattern!r}"
        issues.append(Issue(path, expected, _describe(key), f"not matched: {why}"))

    return report


def _child_path(path: str, key: str) -> str:
    if _SIMPLE_KEY.fullmatch(key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _expected(kinds: frozenset[str]) -> str:
    return " or ".join(sorted(kinds))


_PLAIN_TEXT: Final = re.compile(r'[^"\\\x00-\x1f\x7f-\U0010ffff]{0,58}')


def _describe(value: Any) -> str:
    """A value as short JSON, for an issue (the common cases without json.dumps)."""
    kind = type(value)
    if isinstance(value, str) and kind is str and _PLAIN_TEXT.fullmatch(value):
        return '"' + value + '"'
    if kind is int:
        return str(value)
    if kind is bool or value is None:
        return "true" if value is True else "false" if value is False else "null"
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (RecursionError, ValueError):
        return f"a deeply nested {json_type(value)}"
    return text if len(text) <= 60 else text[:57] + "..."
