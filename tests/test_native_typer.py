"""The native ``SchemaTyper`` (``toolparse._native``) against the Python one.

``toolparse.coercion.inline.SchemaTyper`` is the reference. Each example
draws a tool's parameters schema (types, type lists and aliases, enums and
const, unions, ``allOf``, ``$ref`` into ``$defs`` with cycles, arrays with
``items`` or ``prefixItems``, objects with properties, patterns and
additional properties, pydantic models' schemas) and arguments that match it,
almost match it or do not, written as JSON text in some style, sometimes
broken; the Python JSON reader (``JsonRewriter``) reads the text in the same
random chunks three times: with the Python typer, with the native one, and
with a native one that does not use the caches. Outputs, positions, errors
and issues are compared, and the typers' states after the read. The typers
are also driven directly, call by call (misuse included), and the caches are
checked to spare every Python call on a tool's second call.
"""

from __future__ import annotations

import enum
import importlib
import itertools
import json
from collections.abc import Callable, Iterator
from typing import Any, Literal

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolparse.coercion import inline
from toolparse.coercion.inline import UNTOUCHED
from toolparse.coercion.inline import SchemaTyper as PySchemaTyper
from toolparse.engine import native
from toolparse.readers.json import JsonRewriter, JsonSyntaxError
from toolparse.tools import Tool

_native: Any = importlib.import_module("toolparse._native") if native.AVAILABLE else None
NativeTyper: Any = getattr(_native, "SchemaTyper", None)

pytestmark = pytest.mark.skipif(
    NativeTyper is None, reason="the native core (toolparse._native) is not built in this installation"
)

EXAMPLES = 300  # (20,000 ran clean by hand)

# -- schemas ------------------------------------------------------------------------------

# Property names, and the keys arguments are drawn from (some need escapes in a path).
NAMES = ["a", "b", "item", "0", "n_1", "é", "a b", 'q"']
KEYS = [*NAMES, "x", "n_zz", "12", "k\n", "t\\", "\x00", "😀", "\ufffd", "A_9", ""]
TYPES = ["null", "boolean", "object", "array", "number", "integer", "string"]
# (non-standard names seen in real schemas, and one nothing knows)
ALIASES = ["float", "int", "bool", "str", "weird"]
ENUM_VALUES = ["1d", "x", "red", "Red", " red", 1, 2, 2.5, True, None, "true", "42"]
PATTERNS = ["^n_", "^[0-9]+$", "(a+)+$", "^x", "[", "(?=x)n", "^é"]
REFS = ["#/$defs/A", "#/$defs/B", "#/$defs/Node", "#", "#/$defs/Missing", "#/definitions/C", "other.json"]

type_names = st.sampled_from(TYPES + ALIASES)

leaf_schemas: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.sampled_from([True, False, {}, "not a schema", 3, ["string"]]),
    st.builds(lambda t: {"type": t}, type_names),
    st.builds(lambda ts: {"type": ts}, st.lists(type_names, min_size=1, max_size=3, unique=True)),
    st.builds(lambda ts: {"type": [*ts, 1]}, st.lists(st.sampled_from(TYPES), max_size=2)),
    st.builds(lambda vs: {"enum": vs}, st.lists(st.sampled_from(ENUM_VALUES), min_size=1, max_size=3)),
    st.builds(
        lambda vs: {"type": "string", "enum": vs},
        st.lists(st.sampled_from(["red", "green", "1d", "x"]), min_size=1, max_size=3),
    ),
    st.builds(lambda v: {"const": v}, st.sampled_from(ENUM_VALUES)),
    st.builds(lambda t: {"type": t, "description": "d", "default": None}, st.sampled_from(TYPES)),
    st.builds(lambda r: {"$ref": r}, st.sampled_from(REFS)),
    st.builds(
        lambda r, t: {"$ref": r, "type": t, "description": "beside a $ref"},
        st.sampled_from(REFS),
        st.sampled_from(TYPES),
    ),
)


def _object(
    properties: dict[str, Any], patterns: dict[str, Any] | None, additional: Any, typed: bool
) -> dict[str, Any]:
    schema: dict[str, Any] = {"properties": properties}
    if typed:
        schema["type"] = "object"
    if patterns is not None:
        schema["patternProperties"] = patterns
    if additional is not UNTOUCHED:
        schema["additionalProperties"] = additional
    return schema


def _nested(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(
            _object,
            st.dictionaries(st.sampled_from(NAMES), inner, max_size=4),
            st.none() | st.dictionaries(st.sampled_from(PATTERNS), inner, min_size=1, max_size=2),
            st.sampled_from([UNTOUCHED, True, False, None]) | inner,
            st.booleans(),
        ),
        st.builds(lambda i: {"type": "array", "items": i}, inner),
        st.builds(lambda i: {"items": i}, inner),
        st.builds(lambda i: {"type": "array", "items": i}, st.sampled_from([True, None, False])),
        st.builds(lambda ps: {"type": "array", "items": ps}, st.lists(inner, max_size=3)),
        st.builds(
            lambda ps, i: {"type": "array", "prefixItems": ps, "items": i},
            st.lists(inner, max_size=3),
            inner,
        ),
        st.builds(lambda bs: {"anyOf": bs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda bs: {"oneOf": bs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda bs: {"anyOf": bs, "type": "string"}, st.lists(inner, max_size=2)),
        st.builds(lambda bs: {"allOf": bs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(
            lambda bs, p: {"allOf": bs, "properties": p, "type": "object"},
            st.lists(inner, max_size=2),
            st.dictionaries(st.sampled_from(NAMES), inner, max_size=2),
        ),
        st.builds(lambda s: {"jsonSchema": s}, inner),
        st.builds(lambda s: {"jsonSchema": s, "name": "wrapped"}, inner),
    )


schemas: st.SearchStrategy[Any] = st.recursive(leaf_schemas, _nested, max_leaves=10)


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Point(pydantic.BaseModel):
    x: int
    y: float = 0.0


class Node(pydantic.BaseModel):
    value: int
    next: Node | None = None


class Shape(pydantic.BaseModel):
    name: str
    points: list[Point]
    color: Color = Color.RED
    tags: dict[str, int] = {}
    kind: Literal["a", "b"] = "a"
    pair: tuple[int, str] | None = None
    either: int | str = 0
    node: Node | None = None
    flags: list[bool] = []
    ratio: float | None = None


PYDANTIC = [Tool.from_model(model).parameters for model in (Point, Node, Shape)]


@st.composite
def roots(draw: st.DrawFn) -> Any:
    """A tool's parameters schema: usually an object schema, with ``$defs``
    that may refer to each other, to themselves and to the root."""
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.sampled_from(PYDANTIC))
    if kind == 1:
        return draw(schemas)  # (anything, even not an object schema)
    root = _object(
        draw(st.dictionaries(st.sampled_from(NAMES), schemas, max_size=5)),
        draw(st.none() | st.dictionaries(st.sampled_from(PATTERNS), schemas, min_size=1, max_size=2)),
        draw(st.sampled_from([UNTOUCHED, True, False]) | schemas),
        draw(st.booleans()),
    )
    if draw(st.booleans()):
        defs = draw(st.dictionaries(st.sampled_from(["A", "B"]), schemas, max_size=2))
        defs["Node"] = {  # a cycle, as pydantic writes a recursive model
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
        }
        root["$defs"] = defs
        root["definitions"] = {"C": draw(schemas)}
    if draw(st.integers(0, 5)) == 0:
        root = {"jsonSchema": root}
    return root


# -- arguments ------------------------------------------------------------------------------

STRINGS = [
    "true",
    "False",
    "TRUE",
    "42",
    "-7",
    "3.0",
    "3.5",
    "1e3",
    "9" * 20,
    "null",
    "None",
    "a, b",
    "x\ny",
    "[1, 2]",
    '{"a": 1}',
    '{"a": "2", "b": [1, "x"]}',
    "{'b': True}",
    '[{\\"id\\": 1}]',
    '"quoted"',
    "red",
    " Red ",
    "1 d",
    "",
    " 7 ",
    "é\u2028",
    "\ud800",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.5, -0.0, 1e16, 2.0, 1e-7]),
    st.sampled_from(STRINGS),
    st.text(max_size=6),
)
loose_json: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(KEYS), children, max_size=3)
    ),
    max_leaves=10,
)


def _resolve(schema: Any, root: Any) -> Any:
    """Follow ``jsonSchema`` and local ``$ref``s a few hops (enough to draw values)."""
    for _ in range(4):
        if not isinstance(schema, dict):
            return None
        if "jsonSchema" in schema and len(schema) <= 2:
            schema = schema["jsonSchema"]
            continue
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and isinstance(root, dict):
            node: Any = root
            for part in ref[1:].split("/"):
                node = node.get(part) if part and isinstance(node, dict) else node
            schema = node
            continue
        return schema
    return None


def values_for(draw: st.DrawFn, schema: Any, root: Any, depth: int = 0) -> Any:
    """A value shaped by ``schema``: its properties and items, its types,
    sometimes written as strings, sometimes anything at all."""
    schema = _resolve(schema, root)
    if schema is None or depth > 4 or draw(st.integers(0, 9)) == 0:
        return draw(loose_json)
    for union in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(union)
        if isinstance(branches, list) and branches and draw(st.booleans()):
            return values_for(draw, draw(st.sampled_from(branches)), root, depth + 1)
    if "const" in schema or "enum" in schema:
        values = schema.get("enum", [schema.get("const")])
        if isinstance(values, list) and values and draw(st.booleans()):
            value = draw(st.sampled_from(values))
            return str(value) if draw(st.booleans()) else value
    declared = schema.get("type")
    kinds = declared if isinstance(declared, list) else [declared]
    kind = draw(st.sampled_from(kinds))
    properties = schema.get("properties")
    if isinstance(properties, dict) or kind == "object":
        names = list(properties) if isinstance(properties, dict) else []
        keys = draw(st.lists(st.sampled_from(names + KEYS), max_size=4, unique=True))
        members = {
            key: values_for(
                draw, (properties or {}).get(key, schema.get("additionalProperties")), root, depth + 1
            )
            for key in keys
        }
        if draw(st.integers(0, 5)) == 0:
            return json.dumps(members)  # an object written as a string
        return members
    items = schema.get("items")
    prefix = schema.get("prefixItems")
    if kind == "array" or items is not None or prefix is not None:
        if isinstance(prefix, list) and draw(st.booleans()):
            return [values_for(draw, p, root, depth + 1) for p in prefix]
        per_item = items if isinstance(items, dict) else None
        value = [values_for(draw, per_item, root, depth + 1) for _ in range(draw(st.integers(0, 3)))]
        if draw(st.integers(0, 5)) == 0:
            return draw(st.sampled_from([json.dumps(value), ", ".join(map(str, value))]))
        return value
    if kind in ("integer", "int"):
        return draw(st.one_of(st.integers(-(10**18), 10**18), st.sampled_from(["12", "3.0", 4.0, "x", 2.5])))
    if kind in ("number", "float"):
        return draw(
            st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["1.5", "2", 7]))
        )
    if kind in ("boolean", "bool"):
        return draw(st.sampled_from([True, False, "true", "False", "yes", 1]))
    if kind == "null":
        return draw(st.sampled_from([None, "null", "None", ""]))
    return draw(st.one_of(st.text(max_size=8), st.sampled_from(STRINGS), scalars))


@st.composite
def texts(draw: st.DrawFn, root: Any) -> str:
    """Arguments for ``root`` as JSON text in some style, sometimes broken."""
    value = values_for(draw, root, root)
    if draw(st.integers(0, 7)) == 0:
        value = draw(loose_json)
    separators = draw(st.sampled_from([None, (",", ":"), (" , ", " : ")]))
    text = json.dumps(
        value,
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, None, 0, 2])),
        separators=separators,
    )
    if draw(st.integers(0, 9)) == 0:  # a tolerated style: single quotes, Python's literals
        text = text.replace('"', "'").replace("true", "True").replace("null", "None")
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):  # broken, here and there
        at = draw(st.integers(0, len(text)))
        edit = draw(
            st.sampled_from(["", '"', "'", "\\", "{", "}", "[", "]", ",", ":", " ", "1", "\\u", "\ud800"])
        )
        text = text[:at] + edit + text[at + draw(st.integers(0, 2)) :]
    return text


# -- the differential drive ----------------------------------------------------------------


def _typer_state(typer: Any) -> Any:
    """The typer's state as the native ``_state`` gives it."""
    if isinstance(typer, PySchemaTyper):

        def kind(schema: Any) -> str:
            return "untouched" if schema is UNTOUCHED else "none" if schema is None else "schema"

        frames = [
            (kind(f.schema), f.schema if kind(f.schema) == "schema" else None, f.path, f.count)
            for f in typer._frames
        ]
        nxt = typer._next_schema
        next_ = ("untouched", None) if nxt is UNTOUCHED else ("raw", nxt)
        return (frames, next_, typer._next_path, [tuple(b) for b in typer._buffered])
    state = typer._state()
    return (state[0], state[1], state[2], state[3])


def read(
    text: str,
    cuts: list[int],
    make: Callable[[], Any],
    *,
    envelope: bool,
    max_depth: int,
) -> tuple[Any, ...]:
    """Read ``text`` in the chunks ``cuts`` makes with a typer ``make`` builds:
    what the reader wrote, returned and raised, each typer's issues and state."""
    out: list[str] = []
    typers: list[Any] = []
    routed: dict[str, list[str]] = {}

    def root_keys(key: str) -> tuple[list[str], Any]:
        target = routed.setdefault(key, [])
        typer = make() if key == "arguments" else None
        if typer is not None:
            typers.append(typer)
        return target, typer

    if envelope:
        reader = JsonRewriter(out, max_depth=max_depth, root_keys=root_keys)
    else:
        typers.append(make())
        reader = JsonRewriter(out, max_depth=max_depth, typer=typers[0])
    returned: list[Any] = []
    error: tuple[Any, ...] | None = None
    try:
        for a, b in itertools.pairwise([0, *sorted(cuts), len(text)]):
            returned.append(reader.feed(text[a:b]))
            if reader.done:
                break
        returned.append(reader.finish())
    except JsonSyntaxError as exc:
        error = ("JsonSyntaxError", exc.message, exc.index, exc.reason)
    except Exception as exc:  # (a typer's own failure: the same on both sides)
        error = (type(exc).__name__, str(exc), None, None)
    written = ("".join(out), {key: "".join(value) for key, value in routed.items()})
    return written, returned, error, reader.state, [(list(t.issues), _typer_state(t)) for t in typers]


def compare(
    text: str, cuts: list[int], root: Any, *, envelope: bool, max_depth: int, typer_depth: int
) -> Any:
    """The three reads agree; returns the reference's."""
    expected = read(
        text, cuts, lambda: PySchemaTyper(root, max_depth=typer_depth), envelope=envelope, max_depth=max_depth
    )
    cached = read(
        text, cuts, lambda: NativeTyper(root, max_depth=typer_depth), envelope=envelope, max_depth=max_depth
    )
    assert cached == expected
    uncached = read(
        text,
        cuts,
        lambda: NativeTyper(root, max_depth=typer_depth, cache=False),
        envelope=envelope,
        max_depth=max_depth,
    )
    assert uncached == expected
    return expected


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(root=roots(), data=st.data())
def test_native_typer_reads_arguments_as_the_reference_does(root: Any, data: st.DataObject) -> None:
    text = data.draw(texts(root))
    envelope = data.draw(st.integers(0, 4)) == 0
    if envelope:
        name_first = data.draw(st.booleans())
        name = '"name": "t"'
        text = (
            "{"
            + (f"{name}, " if name_first else "")
            + f'"arguments": {text}'
            + ("" if name_first else f", {name}")
            + "}"
        )
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=8))
    compare(
        text,
        cuts,
        root,
        envelope=envelope,
        max_depth=data.draw(st.sampled_from([64, 64, 3])),
        typer_depth=data.draw(st.sampled_from([64, 64, 1, 0])),
    )


EDGES: list[tuple[Any, str]] = [
    ({"type": "object", "properties": {"a": {"type": "integer"}}}, '{"a": 7, "a": "8", "b": "9"}'),
    ({"type": "object", "properties": {"a": {"type": "integer"}}}, '{"a": 12345678901234567, "b": -0}'),
    (
        {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "number"}}},
        '{"a": 1234567890123456, "a": 12345678901234567, "b": -1234567890123456, "b": 1.0, "b": 10}',
    ),
    ({"type": "object", "additionalProperties": False}, '{"x": [1, {"y": 2}], "z": "s"}'),
    ({"type": "object", "additionalProperties": False}, '{"\\ud800": 1, "\\u00e9\\n": 2, "q\\"": 3}'),
    ({"type": "object", "additionalProperties": False}, '{"\ud800": 1, "\udc00x": 2, "😀": 3}'),
    ({"type": "object", "patternProperties": {"[": {"type": "integer"}}}, '{"n": "1", "m": "2"}'),
    ({"type": "object", "patternProperties": {"^n_": {"type": "integer"}}}, '{"n_a": "1", "n_b": [1]}'),
    ({"type": "object", "patternProperties": {"(a+)+$": {"type": "integer"}}}, '{"' + "a" * 5000 + '": "1"}'),
    ({"type": "object", "properties": {"t": {"type": "array", "items": True}}}, '{"t": [1, "2", [3]]}'),
    (
        {"type": "object", "properties": {"t": {"type": "array", "items": [{"type": "integer"}]}}},
        '{"t": ["1"]}',
    ),
    ({"type": "object", "properties": {"t": {"prefixItems": [{"type": "integer"}]}}}, '{"t": ["1"]}'),
    ({"type": "object", "properties": {"o": {"type": "object"}}}, '{"o": "{\\"k\\": 1}"}'),
    ({"type": "object", "properties": {"o": {}}}, '{"o": "[1, 2]", "p": {"q": "[3]"}}'),
    (None, '{"o": "[1, 2]", "p": {"q": "{\\"r\\": 1}"}, "s": ["{}"]}'),
    (PYDANTIC[2], '{"name": 1, "points": [{"x": "1", "y": "2.5"}], "color": "RED", "pair": ["1", 2]}'),
    (PYDANTIC[1], '{"value": "1", "next": {"value": "2", "next": {"value": 3.0}}}'),
    ({"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}}, '{"a": "1"}'),
    ({"type": "object", "properties": {"a": {"type": "integer"}}}, '{"a": [1, 2]'),
    ({"type": "integer"}, "42"),
    ({"type": "integer"}, '"42"'),
    ({"type": "string"}, "'single'"),
]


@pytest.mark.parametrize(("root", "text"), EDGES)
def test_edges(root: Any, text: str) -> None:
    for cuts in ([], list(range(len(text)))):  # whole, and one character at a time
        for envelope in (False, True):
            whole = '{"arguments": ' + text + "}" if envelope else text
            for typer_depth in (64, 0):  # (past its depth, coercion reports every value it is given)
                compare(whole, cuts, root, envelope=envelope, max_depth=64, typer_depth=typer_depth)


def test_plans_are_per_root() -> None:
    shared = {"$ref": "#/$defs/A"}
    for target in ({"type": "integer"}, {"type": "string"}, {"type": "array", "items": shared}):
        root = {"type": "object", "properties": {"a": shared}, "$defs": {"A": target}}
        compare('{"a": "1", "b": [1]}', [], root, envelope=False, max_depth=64, typer_depth=64)
        compare('{"a": [1, "2"]}', [], root, envelope=False, max_depth=64, typer_depth=64)


# -- driven call by call ----------------------------------------------------------------------

FIRSTS = [*"{[\"'-0123456789tfnTFN+.", "x", "\ud800", "é"]
CANONICAL = [
    "1",
    "-0",
    "12345678901234567",
    "1.5",
    '"12"',
    '"true"',
    "[1, 2]",
    '{"a": "1"}',
    "null",
    '"\ud800"',
    "{",
    "",
]
operations = st.lists(
    st.one_of(
        st.tuples(st.just("begin_value"), st.sampled_from(FIRSTS)),
        st.tuples(st.just("key"), st.sampled_from([*KEYS, "\ud800", "a\udfff"])),
        st.tuples(st.just("array_item")),
        st.tuples(st.just("end_container")),
        st.tuples(st.just("finish_buffered"), st.sampled_from(CANONICAL)),
    ),
    max_size=30,
)


def _apply(typer: Any, operation: tuple[Any, ...]) -> Any:
    try:
        return ("ok", getattr(typer, operation[0])(*operation[1:]))
    except Exception as exc:
        return (type(exc).__name__, str(exc))


def drive_both(root: Any, ops: list[tuple[Any, ...]], *, cache: bool) -> None:
    reference = PySchemaTyper(root, max_depth=8)
    twin = NativeTyper(root, max_depth=8, cache=cache)
    assert twin.root is root and twin.max_depth == 8
    for operation in ops:
        assert _apply(twin, operation) == _apply(reference, operation), operation
        assert twin.issues == reference.issues
        assert _typer_state(twin) == _typer_state(reference)


@settings(max_examples=EXAMPLES, deadline=None)
@given(root=roots(), first=st.sampled_from("{[x"), ops=operations, cache=st.booleans())
def test_native_typer_call_by_call(root: Any, first: str, ops: list[tuple[Any, ...]], cache: bool) -> None:
    drive_both(root, [("begin_value", first), *ops], cache=cache)


@pytest.mark.parametrize(
    "root",
    [
        {"type": "object"},
        {"type": "object", "additionalProperties": False},
        {"type": "object", "properties": {"\ud800": {"type": "integer"}}},
        {"type": "object", "patternProperties": {"[": {"type": "integer"}}},
        None,
    ],
)
def test_lone_surrogates_in_keys(root: Any) -> None:
    """(the Python reader replaces them before a key reaches a typer; a native
    reader may not, and a path keeps them as json.dumps does)"""
    for key in ("\ud800", "a\udfff", "\udbff\udc00", "é\ud800 x"):
        for cache in (True, False):
            drive_both(
                root,
                [
                    ("begin_value", "{"),
                    ("key", key),
                    ("begin_value", "1"),
                    ("finish_buffered", "1"),
                    ("key", key),
                ],
                cache=cache,
            )
            drive_both(
                root, [("begin_value", "{"), ("key", key), ("begin_value", "["), ("array_item",)], cache=cache
            )


def test_begin_value_takes_one_character() -> None:
    typer = NativeTyper({"type": "object"})
    for first in ("", "{["):
        with pytest.raises(TypeError):
            typer.begin_value(first)


# -- the caches -------------------------------------------------------------------------------

TOOL = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer"},
        "where": {
            "type": "object",
            "properties": {"lat": {"type": "integer"}, "name": {"type": "string"}},
            "additionalProperties": {"type": "string"},
        },
        "tags": {"type": "array", "items": {"type": "string"}},
        "grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
    },
    "required": ["city"],
}
CALL = (
    '{"city": "Paris", "days": 3, "where": {"lat": -12, "name": "x", "é k": "y"}, '
    '"tags": ["a", "b"], "grid": [[1, 2], [3]], "free": {"any": [1, "2"]}}'
)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """The Python functions a native typer may call, counting their calls."""
    counts = {"_plan": 0, "member_schema": 0, "_Coercer": 0, "canonical_json": 0}

    def counting(name: str) -> Any:
        original = getattr(inline, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return original(*args, **kwargs)

        return wrapper

    for name in counts:
        monkeypatch.setattr(inline, name, counting(name))
    NativeTyper.clear_caches()
    yield counts
    NativeTyper.clear_caches()


def _read_call(text: str, typer: Any) -> str:
    out: list[str] = []
    reader = JsonRewriter(out, typer=typer)
    reader.feed(text)
    assert reader.finish()
    return "".join(out)


def test_second_call_of_a_tool_makes_no_python_call(counted: dict[str, int]) -> None:
    first = NativeTyper(TOOL)
    written = _read_call(CALL, first)
    assert counted["_plan"] > 0 and counted["member_schema"] > 0
    assert counted["_Coercer"] == 0  # (strings stream, integers stand)
    assert written == _read_call(CALL, PySchemaTyper(TOOL))
    for name in counted:
        counted[name] = 0
    second = NativeTyper(TOOL)
    assert _read_call(CALL, second) == written
    assert counted == {"_plan": 0, "member_schema": 0, "_Coercer": 0, "canonical_json": 0}
    assert second.issues == first.issues == []
    # a typer with the caches off asks every time
    assert _read_call(CALL, NativeTyper(TOOL, cache=False)) == written
    assert counted["_plan"] > 0 and counted["member_schema"] > 0


def test_values_to_coerce_are_one_coercion_each(counted: dict[str, int]) -> None:
    text = '{"city": 5, "days": "3", "tags": [1, "b"], "where": {"lat": 1.0}}'
    expected = _read_call(text, PySchemaTyper(TOOL))
    assert _read_call(text, NativeTyper(TOOL)) == expected
    for name in counted:
        counted[name] = 0
    typer = NativeTyper(TOOL)
    assert _read_call(text, typer) == expected
    assert counted["_plan"] == counted["member_schema"] == 0
    assert counted["_Coercer"] == counted["canonical_json"] == 4
    assert [issue.path for issue in typer.issues] == ["$.city", "$.days", "$.tags[0]", "$.where.lat"]


def test_a_lookup_that_reported_is_asked_again(counted: dict[str, int]) -> None:
    schema = {"type": "object", "patternProperties": {"[": {"type": "integer"}}}
    for text in ('{"k": 1}', '{"k": {"k": 1}}'):
        reference = PySchemaTyper(schema)
        expected = _read_call(text, reference)
        before = counted["member_schema"]
        native_typer = NativeTyper(schema)
        assert _read_call(text, native_typer) == expected
        assert native_typer.issues == reference.issues
        assert counted["member_schema"] == before + 1  # (the report names the path: never cached)


def test_caches_are_bounded(counted: dict[str, int]) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    keys = [f"k{n}" for n in range(5000)]
    text = "{" + ", ".join(f'"{key}": 1' for key in keys) + "}"
    expected = _read_call(text, PySchemaTyper(schema))
    for _ in range(2):
        assert _read_call(text, NativeTyper(schema)) == expected
        plans, members = NativeTyper.cache_sizes()
        assert plans <= 4096 and 0 < members <= 4096
    long = '{"' + "x" * 1000 + '": 1}'  # (a key too long to cache: asked each time)
    expected = _read_call(long, PySchemaTyper(schema))
    before = counted["member_schema"]
    for _ in range(2):
        assert _read_call(long, NativeTyper(schema)) == expected
    assert counted["member_schema"] == before + 2
    many = [{"type": "integer"} for _ in range(5000)]
    for member in many:
        typer = NativeTyper(member)
        assert typer.begin_value("1")
    assert NativeTyper.cache_sizes()[0] <= 4096
