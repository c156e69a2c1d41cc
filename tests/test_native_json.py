"""The native JSON reader and JSON calls (``toolparse._native``) against the Python ones.

``toolparse.readers.json`` (``JsonRewriter``, ``parse_value``,
``_canonical_number``) and ``toolparse.engine.calls``' ``EnvelopeCall`` and
``JsonArgsCall`` are the reference. Each example draws a text (any JSON value
dumped in some style, or a broken or tolerated one: single quotes, Python
literals, bad escapes, surrogates, control characters, trailing commas, odd
numbers, deep nesting, doubled braces, duplicate keys, quotes inside strings,
text after the value), cuts it into chunks and feeds them one by one to both
twins as the engine does (what a read did not take is given again in front of
the next chunk, after a prefix the read starts past), with no typer or with
``SchemaTyper`` over a drawn schema (a fresh instance each side), and compares
after every read: the position, the output, ``done``, ``in_plain_string``,
errors (type, message, index, reason) and the typer's issues; then ``finish``.
The calls are driven as ``engine/regions.py`` drives them (read, flush; on an
error, flush and ``error``; at the end ``finish`` and the outcome), with the
events in ``ctx.out`` (seeded ids), ``open_string`` and the call's attributes
compared after each step.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import json
import math
from collections.abc import Callable
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support import open_string_of
from toolparse.coercion.inline import SchemaTyper
from toolparse.engine import native
from toolparse.engine.calls import CallContext, EnvelopeCall, JsonArgsCall, Outcome
from toolparse.events import ErrorReason
from toolparse.readers import json as reference
from toolparse.readers.json import STRING_RUN, JsonRewriter, JsonSyntaxError, _canonical_number, parse_value
from toolparse.tools import Tool

_native: Any = importlib.import_module("toolparse._native") if native.AVAILABLE else None
NativeRewriter: Any = getattr(_native, "JsonRewriter", None)

pytestmark = pytest.mark.skipif(
    NativeRewriter is None, reason="the native core (toolparse._native) is not built in this installation"
)

_SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)

# -- texts ---------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def dumped(draw: st.DrawFn) -> str:
    """Any JSON value, dumped in some style."""
    value = draw(JSON_VALUES)
    separators = draw(st.sampled_from([None, (",", ":"), (" , ", " : "), (",\n", ":\t")]))
    return json.dumps(
        value,
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, 0, 2, "\t"])),
        separators=separators,
    )


KEYS = ["a", "b", "n", "s", "z1", "city", "x y", 'q"', "é", "name", "arguments"]
_STRING_PIECES = [
    "a",
    "xyz",
    " ",
    "é",
    "😀",
    "\u2028",
    "\\n",
    '\\"',
    "\\\\",
    "\\/",
    "\\'",
    "\\$",
    "\\u0041",
    "\\u00e9",
    "\\ud83d\\ude80",
    "\\ud83d",
    "\\udc00",
    "\\ud800\\u0041",
    "\\ud800\\ud800\\udc00",
    "\\udbff\\udfff",
    "\\uDBFF\\uDFFFx",
    "\udfff",
    "\udbff\udfff",
    "\\u12g4",
    "\\u",
    "\\u00",
    "\\u00 ",
    "\n",
    "\t",
    "\x00",
    "\x1f",
    "\x7f",
    "\x85",
    "\ud800",
    "\udc00",
    "\ud83d\ude00",
    '"',
    "'",
    '" ',
    '",',
    '" ,',
    '"}',
    '"]',
    '"<',
    '":',
    '" :',
    "\\",
    "<",
    ",",
    "\\t\\b\\f\\r",
]
_NUMBERS = [
    "0",
    "-0",
    "+1",
    ".5",
    "1.",
    "007",
    "-007",
    "+0",
    "1e400",
    "-1e-400",
    "1e16",
    "1e15",
    "1E5",
    "1.5e-05",
    "0.0001",
    "0.00001",
    "12345678901234567890",
    "123456789012345",
    "1234567890123456",
    "3.14",
    "-2.5e+3",
    "0.1",
    "1e",
    "1.2.3",
    "NaN",
    "Infinity",
    "tru",
    "True",
    "False",
    "None",
    "true",
    "false",
    "null",
    "nul",
    "x",
    "-",
    "+",
    ".",
    "0x10",
    "1_0",
    "9" * 3999,
    "9" * 4001,
    "1" + "0" * 400 + ".5",
]
_WS = st.sampled_from(["", "", " ", "\n", "\t ", "\r\n", "  ", " " * 300])

numbers = st.one_of(
    st.sampled_from(_NUMBERS),
    st.integers().map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text("0123456789+-.eE", min_size=1, max_size=8),
)


@st.composite
def strings(draw: st.DrawFn, keys: bool = False) -> str:
    quote = draw(st.sampled_from(['"', '"', "'"]))
    if keys and draw(st.booleans()):
        body = draw(st.sampled_from([*KEYS, "\\u0061", "a\\u0000", "\\ud800", "\ud800"]))
    else:
        body = "".join(draw(st.lists(st.sampled_from(_STRING_PIECES), max_size=6)))
    return quote + body + quote


def _loose(depth: int) -> st.SearchStrategy[str]:
    scalar = st.one_of(numbers, strings())
    if depth == 0:
        return scalar
    inner = _loose(depth - 1)
    return st.one_of(scalar, scalar, objects(inner), arrays(inner))


@st.composite
def objects(draw: st.DrawFn, values: st.SearchStrategy[str]) -> str:
    members = []
    for _ in range(draw(st.integers(0, 4))):
        key = draw(strings(keys=True))
        colon = draw(st.sampled_from([":", ":", ":", " : ", ""]))
        members.append(draw(_WS) + key + draw(_WS) + colon + draw(_WS) + draw(values) + draw(_WS))
    trailing = draw(st.sampled_from(["", "", ",", ", "]))
    return "{" + ",".join(members) + trailing + "}"


@st.composite
def arrays(draw: st.DrawFn, values: st.SearchStrategy[str]) -> str:
    items = [draw(_WS) + draw(values) + draw(_WS) for _ in range(draw(st.integers(0, 4)))]
    trailing = draw(st.sampled_from(["", "", ",", " ,"]))
    return "[" + ",".join(items) + trailing + "]"


_JUNK = [*"{}[],:\"'\\ \n<>/$x0.-+eE", "\ud800", "\x00", "é", "{{", "}}"]


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(text)))
        if draw(st.booleans()) and at < len(text):
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + draw(st.sampled_from(_JUNK)) + text[at:]
    return text


@st.composite
def texts(draw: st.DrawFn) -> str:
    """A JSON text, tolerated or broken, maybe with text after it."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        text = draw(dumped())
    elif kind == 1:
        depth = draw(st.integers(0, 70))
        opener = draw(st.sampled_from(["[", "{'a':", '{"a":[']))
        text = opener * depth + draw(_loose(1)) + draw(st.sampled_from(["]", "}", ""])) * depth
    elif kind == 2:
        text = draw(objects(_loose(2)))
    else:
        text = draw(_loose(3))
    if draw(st.integers(0, 2)) == 0:
        text = draw(mutated(text))
    if draw(st.booleans()):
        text = "{" + text + "}"  # (a doubled brace, for a routed root)
    return draw(_WS) + text + draw(st.sampled_from(["", "", " tail", "<end>", "}", " }} ", "\n"]))


@st.composite
def chunked(draw: st.DrawFn, text: str) -> list[tuple[str, str]]:
    """``text`` cut into chunks, each with a prefix that the read starts past."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    bounds = [0, *cuts, len(text)]
    chunks = [text[a:b] for a, b in itertools.pairwise(bounds)]
    return [(draw(st.sampled_from(["", "", "<x>", "é"])), chunk) for chunk in chunks]


# -- schemas and tools -----------------------------------------------------------------------

MEMBER_SCHEMAS: list[Any] = [
    {"type": "string"},
    {"type": "integer"},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "null"},
    {"type": ["string", "null"]},
    {"type": "array", "items": {"type": "integer"}},
    {"type": "array", "items": {"type": "string"}},
    {"type": "object", "properties": {"x": {"type": "integer"}}, "additionalProperties": False},
    {"enum": ["a", "b", "1"]},
    {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    {"anyOf": [{"type": "object"}, {"type": "null"}]},
    {},
]


@st.composite
def schemas(draw: st.DrawFn) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=5, unique=True))
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {key: draw(st.sampled_from(MEMBER_SCHEMAS)) for key in keys},
    }
    if draw(st.booleans()):
        schema["additionalProperties"] = draw(st.sampled_from([False, True, {"type": "integer"}]))
    if draw(st.booleans()):
        schema["patternProperties"] = {"^z": {"type": "number"}}
    return schema


class Point(pydantic.BaseModel):
    a: int
    b: str = ""


NAMES = ["f", "g", "model"]


@st.composite
def toolsets(draw: st.DrawFn) -> tuple[Tool, ...] | None:
    if draw(st.integers(0, 3)) == 0:
        return None
    names = ["f"] if draw(st.integers(0, 3)) else []
    names += draw(st.lists(st.sampled_from(NAMES[1:2]), max_size=1))
    tools = [Tool(name, "", draw(schemas())) for name in names]
    if draw(st.booleans()):
        tools.append(Tool.from_model(Point, name="model"))
    return tuple(tools)


# -- the reader ----------------------------------------------------------------------------


def _error(exc: Exception) -> tuple[Any, ...]:
    if isinstance(exc, JsonSyntaxError):
        return ("JsonSyntaxError", exc.message, exc.index, exc.reason, type(exc.reason))
    return (type(exc), str(exc))


def _route_rule(key: str) -> tuple[int | None, bool]:
    """(Routed readers) Where root key ``key`` goes, and whether it gets a typer."""
    if key == "name":
        return 1, False
    if key in ("arguments", "a"):
        return 0, True
    if key == "b":
        return 1, True
    return None, False


class _Side:
    """One twin of the reader, with its outputs, typers and member-end log."""

    def __init__(self, python: bool, max_depth: int, schema: dict[str, Any] | None, routed: bool) -> None:
        self.python = python
        self.schema = schema
        self.max_depth = max_depth
        self.lists: list[list[str]] = [[], []]
        self.ended: list[str] = []
        self.typers: list[SchemaTyper] = []
        typer = None if routed else self._typer()
        root_keys = self._route if routed else None
        on_member_end = self.ended.append if routed else None
        if python:
            out = [] if routed else self.lists[0]
            self.reader: Any = JsonRewriter(
                out, max_depth=max_depth, typer=typer, root_keys=root_keys, on_member_end=on_member_end
            )
        else:
            self.reader = NativeRewriter(
                max_depth, typer, slots=2, root_keys=root_keys, on_member_end=on_member_end
            )

    def _typer(self) -> SchemaTyper | None:
        if self.schema is None:
            return None
        typer = SchemaTyper(self.schema, max_depth=self.max_depth)
        self.typers.append(typer)
        return typer

    def _route(self, key: str) -> tuple[Any, SchemaTyper | None]:
        slot, typed = _route_rule(key)
        typer = self._typer() if typed else None
        if not self.python:
            return slot, typer
        return (self.lists[slot] if slot is not None else []), typer

    def state(self) -> tuple[Any, ...]:
        reader = self.reader
        if self.python:
            outputs = tuple("".join(out) for out in self.lists)
            plain = tuple(reader.in_plain_string(out) for out in self.lists)
        else:
            outputs = (reader.output(0), reader.output(1))
            plain = (reader.in_plain_string(0), reader.in_plain_string(1))
        issues = [list(typer.issues) for typer in self.typers]
        return outputs, plain, reader.done, list(self.ended), issues

    def feed(self, text: str, i: int) -> tuple[str, Any]:
        try:
            return "ok", self.reader.feed(text, i)
        except Exception as exc:
            return "raised", _error(exc)

    def finish(self) -> tuple[str, Any]:
        try:
            return "ok", self.reader.finish()
        except Exception as exc:
            return "raised", _error(exc)


def _compare_readers(
    text: str, chunks: list[tuple[str, str]], max_depth: int, schema: dict[str, Any] | None, routed: bool
) -> None:
    python, rust = (_Side(flag, max_depth, schema, routed) for flag in (True, False))
    held = ""
    for step, (prefix, chunk) in enumerate(chunks):
        held += chunk
        given_text = prefix + held
        expected = python.feed(given_text, len(prefix))
        got = rust.feed(given_text, len(prefix))
        where = f"chunk {step}: {given_text!r}"
        assert got == expected, where
        assert rust.state() == python.state(), where
        if expected[0] == "raised":
            return
        held = given_text[expected[1] :]
    assert rust.finish() == python.finish()
    assert rust.state() == python.state()


@_SETTINGS
@given(data=st.data())
def test_the_native_reader_reads_as_the_python_one(data: st.DataObject) -> None:
    text = data.draw(texts(), label="text")
    chunks = data.draw(chunked(text), label="chunks")
    max_depth = data.draw(st.sampled_from([1, 3, 64]), label="max_depth")
    schema = data.draw(st.one_of(st.none(), schemas()), label="schema")
    routed = data.draw(st.integers(0, 3), label="routed") == 0
    _compare_readers(text, chunks, max_depth, schema, routed)
    assert _native.parse_value(text, max_depth=max_depth) == parse_value(text, max_depth=max_depth)


@_SETTINGS
@given(value=JSON_VALUES, data=st.data())
def test_any_json_value_in_any_chunks(value: Any, data: st.DataObject) -> None:
    text = json.dumps(
        value, ensure_ascii=data.draw(st.booleans()), indent=data.draw(st.sampled_from([None, 2]))
    )
    _compare_readers(text, data.draw(chunked(text)), 64, data.draw(st.one_of(st.none(), schemas())), False)


_DECIMALS = st.from_regex(r"[+-]?[0-9]{0,25}\.?[0-9]{0,25}([eE][+-]?[0-9]{1,3})?", fullmatch=True)
_FLOAT_TEXTS = st.tuples(st.floats(allow_nan=False, allow_infinity=False), st.integers(0, 20)).map(
    lambda drawn: f"{drawn[0]:.{drawn[1]}e}"
)
# (floats whose exact value is a short decimal: where two shortest candidates may tie)
_DYADIC = st.tuples(
    st.integers(1, 2**53), st.integers(-8, 4), st.sampled_from(["", ".1f", ".2f", ".17g"])
).map(lambda drawn: format(math.ldexp(drawn[0], drawn[1]), drawn[2]))


@_SETTINGS
@given(token=st.one_of(numbers, _DECIMALS, _FLOAT_TEXTS, _DYADIC, st.text(max_size=6)))
def test_canonical_numbers_are_pythons(token: str) -> None:
    assert _native.canonical_number(token) == _canonical_number(token)


_SCANNED = st.text(
    st.sampled_from([*"\"'\\:,}]<ab \t\r\nbfnrtu", "\x00", "\x1f", "\ud800", "\udfff", "é"]), max_size=12
)


@_SETTINGS
@given(
    pattern=st.sampled_from(["STRING_RUN", "_PLAIN_SQ", "_WHOLE_KEY", "_WHOLE_STRING"]),
    text=st.one_of(
        _SCANNED,
        st.tuples(st.text("ab é", max_size=4), st.integers(254, 258), st.sampled_from([*":,}]<x", ""])).map(
            lambda drawn: f'"{drawn[0]}"' + " " * drawn[1] + drawn[2]
        ),
    ),
    data=st.data(),
)
def test_the_scanners_are_the_patterns(pattern: str, text: str, data: st.DataObject) -> None:
    i = data.draw(st.one_of(st.just(0), st.integers(0, len(text))))
    m = getattr(reference, pattern).match(text, i)
    assert _native.json_match(pattern, text, i) == (None if m is None else m.end())


def test_the_whole_token_patterns_look_past_256_spaces_at_most() -> None:
    for spaces in range(250, 260):
        for follower in [*":,}]<x", ""]:
            text = '"ab"' + " " * spaces + follower
            for pattern in ("_WHOLE_KEY", "_WHOLE_STRING"):
                m = getattr(reference, pattern).match(text)
                assert _native.json_match(pattern, text, 0) == (None if m is None else m.end()), (
                    pattern,
                    text,
                )


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',
        '{\'a\': \'it\'s fine\', "b": "He said "hi" to me"}',
        '["\\ud83d\\ude80", "\\ud83d x", "\\udc00", "\\ud800\\ud800\\udc00", "\\u12g4", "\\u00"]',
        '["\ud83d\ude00", "\ud800", "a\x00b\x1f\x7f"]',
        '{"a": +1, "b": .5, "c": 1., "d": 007, "e": -0, "f": 1e16, "g": 1.5e-05, "h": -0.0}',
        "[1e400]",
        "[" * 65 + "]" * 65,
        "[" * 64 + "]" * 64,
        '{{"name": "f", "arguments": {"a": 1}}}',
        '{{"name": "f"}} tail',
        '"a" tail',
        "12 ",
        "  nul",
        "[tru]",
        '["x"' + " " * 257 + "y]",
        '{"k"' + " " * 257 + ": 1}",
        "[\x85]",
        "['\"]",
        '{"a\\u0022b": 1, \'a"b\': 2}',
        '{"a": "x"  <y>',
        "[" + "9" * 4001 + "]",
        "{" + "'s': '" + "a\\\\" * 40 + "'}",
    ],
)
def test_edge_cases_in_every_chunking(text: str) -> None:
    for routed in (False, True):
        for schema in (None, {"type": "object", "properties": {"a": {"type": "integer"}, "s": {}}}):
            _compare_readers(text, [("", text)], 64, schema, routed)
            _compare_readers(text, [("", c) for c in text], 64, schema, routed)
            for at in range(0, len(text), max(1, len(text) // 20)):
                _compare_readers(text, [("", text[:at]), ("<x>", text[at:])], 64, schema, routed)


def test_a_typers_failure_is_raised_as_it_is() -> None:
    class Failing:
        def begin_value(self, first: str) -> bool:
            return False

        def key(self, key: str) -> bool:
            raise KeyError(key)

        def array_item(self) -> None: ...

        def end_container(self) -> None: ...

        def finish_buffered(self, canonical: str) -> str:
            return canonical

    for reader in (JsonRewriter([], typer=Failing()), NativeRewriter(64, Failing())):
        with pytest.raises(KeyError, match="k"):
            reader.feed('{"k": 1}')


# -- the calls -----------------------------------------------------------------------------

_NAME_VALUES = [
    '"f"',
    '"g"',
    '"zz"',
    '"model"',
    '""',
    "5",
    "null",
    '"\\u0066"',
    "'f'",
    '["f"]',
    '"f\\"x"',
    "True",
]


_COERCIBLE = [
    '"7"',
    "7",
    "7.5",
    '"true"',
    "true",
    "[1, 2]",
    '"x"',
    '{"x": "1"}',
    "null",
    '"[1]"',
    '"a"',
    "'1'",
]


@st.composite
def coercible(draw: st.DrawFn) -> str:
    """An arguments object whose members a schema may well coerce."""
    members = draw(st.dictionaries(st.sampled_from(KEYS[:5]), st.sampled_from(_COERCIBLE), max_size=4))
    return "{" + ", ".join(f"{json.dumps(key)}: {value}" for key, value in members.items()) + "}"


@st.composite
def argument_values(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 7))
    if kind <= 1:
        return draw(objects(_loose(1)))
    if kind == 2:
        return draw(coercible())
    if kind == 7:
        return json.dumps(draw(coercible()))
    if kind == 3:  # a JSON-encoded string of an object (maybe a tolerated one)
        inner = draw(st.one_of(objects(_loose(1)), st.sampled_from(["", "  ", "[1]", "nope", "{'a': True}"])))
        return json.dumps(inner, ensure_ascii=draw(st.booleans()))
    if kind == 4:
        return "'" + draw(st.sampled_from(['{"a": 1}', "", "x"])) + "'"
    return draw(_loose(1))


@st.composite
def envelopes(draw: st.DrawFn, name_keys: tuple[str, ...], argument_keys: tuple[str, ...]) -> str:
    if draw(st.booleans()):  # a well-formed call, its name first or last
        name = (
            draw(st.sampled_from(name_keys)),
            draw(st.sampled_from(['"f"', '"f"', '"f"', '"g"', '"model"', '"zz"'])),
        )
        arguments = (draw(st.sampled_from(argument_keys)), draw(argument_values()))
        pairs = [name, arguments] if draw(st.booleans()) else [arguments, name]
        return "{" + ", ".join(f'"{key}": {value}' for key, value in pairs) + "}"
    members = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 4))
        if kind <= 1:
            key, value = draw(st.sampled_from(name_keys)), draw(st.sampled_from(_NAME_VALUES))
        elif kind <= 3:
            key, value = draw(st.sampled_from(argument_keys)), draw(argument_values())
        else:
            key, value = draw(st.sampled_from(["id", "type", "a"])), draw(_loose(1))
        quote = draw(st.sampled_from(['"', '"', "'"]))
        members.append(draw(_WS) + quote + key + quote + draw(_WS) + ":" + draw(_WS) + value)
    text = "{" + ",".join(members) + draw(st.sampled_from(["", "", ","])) + "}"
    if draw(st.integers(0, 4)) == 0:
        text = "{" + text + "}"
    if draw(st.integers(0, 4)) == 0:
        text = draw(mutated(text))
    return text + draw(st.sampled_from(["", " ", "\n<end>"]))


def _outcome(outcome: Outcome) -> tuple[Any, ...]:
    assert type(outcome) is Outcome
    fields = tuple(getattr(outcome, field.name) for field in dataclasses.fields(Outcome))
    return (*fields, type(outcome.reason), type(outcome.arguments), type(outcome.issues))


def _result(value: Any) -> Any:
    if isinstance(value, Outcome):
        return _outcome(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # an OpenString
        args, index, call_id, plain, piece = value
        return ("OpenString", args.text(), args.length, index, call_id, plain is STRING_RUN, piece)
    return value


def _events(ctx: CallContext) -> list[tuple[str, str]]:
    return [(type(event).__name__, repr(event)) for event in ctx.out]


def _reader(call: Any) -> Any:
    return call.reader if isinstance(call, (EnvelopeCall, JsonArgsCall)) else call


def _call_state(call: Any) -> tuple[Any, ...]:
    typer = call.typer
    envelope = (call.name_key, call.args_key, call.args_kind) if hasattr(call, "args_kind") else None
    return (
        call.name,
        call.started,
        call.streaming,
        call.index,
        call.id,
        call.problem,
        call.extra_issues,
        "".join(call.scratch),
        call.args.text(),
        call.args.length,
        _reader(call).done,
        None if typer is None else (type(typer), list(typer.issues)),
        envelope,
        _result(open_string_of(call)),
    )


def _apply(f: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    try:
        return "ok", _result(f(*args))
    except Exception as exc:
        return "raised", _error(exc)


class _Calls:
    """Both twins of one call, driven alike and compared after each step."""

    def __init__(self, tools: tuple[Tool, ...] | None, coerce: bool, max_depth: int, seed: int) -> None:
        self.contexts = [CallContext(tools, max_depth=max_depth, coerce=coerce, seed=seed) for _ in range(2)]
        self.calls: list[Any] = []

    def make(self, make: Callable[[int, CallContext], Any]) -> bool:
        made = [_apply(make, k, ctx) for k, ctx in enumerate(self.contexts)]
        assert [kind for kind, _ in made] == [made[0][0]] * 2, made
        if made[0][0] == "raised":
            assert made[0] == made[1]
            return False
        self.calls = [call for _, call in made]
        self.check("made")
        return True

    def check(self, where: str) -> None:
        python, rust = self.calls
        assert _events(self.contexts[1]) == _events(self.contexts[0]), where
        assert _call_state(rust) == _call_state(python), where

    def both(self, where: str, op: Callable[..., Any], *args: Any) -> tuple[str, Any]:
        """``op(call, *args)`` on both twins, compared."""
        python, rust = self.calls
        expected = _apply(op, python, *args)
        got = _apply(op, rust, *args)
        assert got == expected, where
        self.check(where)
        return expected

    def run(self, chunks: list[tuple[str, str]], lane: list[bool]) -> None:
        """Read as the block reader does, to the JSON's end or the stream's."""
        held = ""
        for step, ((prefix, chunk), take) in enumerate(zip(chunks, lane, strict=True)):
            opened = open_string_of(self.calls[0])
            if take and opened is not None and not held and STRING_RUN.fullmatch(chunk) and '"' not in chunk:
                # the engine's string lane: plain text appended to the arguments, no read
                self.both(f"lane {step}", _lane, chunk)
                continue
            held += chunk
            text = prefix + held
            where = f"chunk {step}: {text!r}"
            kind, read = self.both(where, _feed, text, len(prefix))
            if kind == "raised":
                self.both(where, _flush)
                if read[0] == "JsonSyntaxError":
                    _, message, _, reason, _ = read
                    self.both(where, _error_outcome, reason, message)
                self.both(where, _outcome_at, None)
                return
            self.both(where, _flush)
            held = text[read:]
            if self.calls[0].reader.done:
                self.both(where, _outcome_at, len(text))
                return
        kind, whole = self.both("finish", _finish)
        if kind == "raised" and whole[0] == "JsonSyntaxError":
            _, message, _, reason, _ = whole
            self.both("finish", _error_outcome, reason, message)
        self.both("finish", _flush)
        self.both("outcome", _outcome_at, None)


def _lane(call: Any, chunk: str) -> None:
    open_string_of(call).args.append(chunk)


def _feed(call: Any, text: str, i: int) -> int:
    end: int = _reader(call).feed(text, i)
    return end


def _finish(call: Any) -> bool:
    whole: bool = _reader(call).finish()
    return whole


def _flush(call: Any) -> None:
    call.flush()


def _error_outcome(call: Any, reason: ErrorReason, message: str) -> Outcome:
    outcome: Outcome = call.error(None, reason, message)
    return outcome


def _outcome_at(call: Any, end: int | None) -> Outcome:
    outcome: Outcome = call.outcome(end)
    return outcome


_NATIVE_CALLS: dict[type, str] = {EnvelopeCall: "EnvelopeCall", JsonArgsCall: "JsonArgsCall"}


def _native_class(cls: type) -> Any:
    return getattr(_native, _NATIVE_CALLS[cls])


def _maker(classes: tuple[Any, Any], *args: Any) -> Callable[[int, CallContext], Any]:
    """Makes the Python twin (0) or the native one (1) of a call from ``ctx``."""
    return lambda k, ctx: classes[k](ctx, *args)


@_SETTINGS
@given(data=st.data())
def test_the_native_envelope_call_is_the_python_one(data: st.DataObject) -> None:
    keys = data.draw(
        st.sampled_from(
            [(("name",), ("arguments", "parameters")), (("tool_name", "name"), ("parameters", "args"))]
        ),
        label="keys",
    )
    text = data.draw(envelopes(*keys), label="text")
    calls = _Calls(
        data.draw(toolsets(), label="tools"),
        data.draw(st.integers(0, 3), label="coerce") > 0,
        data.draw(st.sampled_from([2, 64]), label="max_depth"),
        data.draw(st.integers(0, 2**32), label="seed"),
    )
    default = keys[0] == ("name",) and data.draw(st.booleans(), label="default keys")
    classes = (EnvelopeCall, _native_class(EnvelopeCall))
    if calls.make(_maker(classes) if default else _maker(classes, *keys)):
        chunks = data.draw(chunked(text), label="chunks")
        lane = data.draw(st.lists(st.booleans(), min_size=len(chunks), max_size=len(chunks)), label="lane")
        calls.run(chunks, lane)


@_SETTINGS
@given(data=st.data())
def test_the_native_json_args_call_is_the_python_one(data: st.DataObject) -> None:
    text = data.draw(st.one_of(objects(_loose(2)), texts()), label="text")
    calls = _Calls(
        data.draw(toolsets(), label="tools"),
        data.draw(st.integers(0, 3), label="coerce") > 0,
        data.draw(st.sampled_from([2, 64]), label="max_depth"),
        data.draw(st.integers(0, 2**32), label="seed"),
    )
    name = data.draw(st.sampled_from([*NAMES, "zz", "\ud800"]), label="name")
    if calls.make(_maker((JsonArgsCall, _native_class(JsonArgsCall)), name)):
        chunks = data.draw(chunked(text), label="chunks")
        lane = data.draw(st.lists(st.booleans(), min_size=len(chunks), max_size=len(chunks)), label="lane")
        calls.run(chunks, lane)


_TOOLS = (
    Tool("f", "", {"type": "object", "properties": {"a": {"type": "integer"}, "s": {"type": "string"}}}),
    Tool.from_model(Point, name="model"),
)


@pytest.mark.parametrize(
    ("cls", "text"),
    [
        (EnvelopeCall, '{"name": "f", "arguments": {"a": "1", "s": "long text", "x": [1]}}'),
        (EnvelopeCall, '{"arguments": {"a": "1"}, "name": "f"}'),  # coerced whole when the name comes
        (EnvelopeCall, '{"arguments": "{\\"a\\": \\"2\\"}", "name": "f"}'),  # a JSON-encoded string
        (EnvelopeCall, '{"name": "f", "arguments": "{\'a\': True}"}'),
        (EnvelopeCall, '{"name": "f", "arguments": "  "}'),
        (EnvelopeCall, '{"name": "f", "arguments": "[1]"}'),
        (EnvelopeCall, '{"name": "f", "arguments": 5}'),
        (EnvelopeCall, '{"name": "zz", "arguments": {"a": 1}}'),
        (EnvelopeCall, '{"name": "model", "arguments": {"a": "x"}}'),
        (EnvelopeCall, '{"name": "model", "parameters": {"a": 3}, "arguments": {}}'),
        (EnvelopeCall, '{"arguments": {"a": 1}}'),
        (EnvelopeCall, '{"name": 5}'),
        (EnvelopeCall, '{"name": "f"}'),
        (EnvelopeCall, '{"name": "f", "name": "g"}'),
        (EnvelopeCall, '{{"name": "f", "arguments": {}}}'),
        (EnvelopeCall, '["f"]'),
        (EnvelopeCall, '{"name": "f", "arguments": {"a": [[[1]]]}}'),
        (JsonArgsCall, '{"a": "7", "s": "x\\"y"}'),
        (JsonArgsCall, '{"a": 1'),
        (JsonArgsCall, "[1]"),
        (JsonArgsCall, '{"a": tru}'),
    ],
)
def test_calls_the_fuzzer_may_miss(cls: type, text: str) -> None:
    for tools in (None, _TOOLS):
        for coerce in (True, False):
            for cuts in ([("", text)], [("", c) for c in text]):
                calls = _Calls(tools, coerce, 2, 7)
                args = () if cls is EnvelopeCall else ("f",)
                assert calls.make(_maker((cls, _native_class(cls)), *args))
                calls.run(cuts, [True] * len(cuts))


def test_a_streamed_string_may_be_appended_by_the_engine() -> None:
    outs = []
    for cls in (EnvelopeCall, _native_class(EnvelopeCall)):
        ctx = CallContext(_TOOLS, max_depth=64, seed=3)
        call = cls(ctx)
        reader = _reader(call)
        reader.feed('{"name": "f", "arguments": {"s": "ab')
        call.flush()
        opened: Any = open_string_of(call)
        assert opened is not None
        assert opened.plain is STRING_RUN
        opened.args.append("cd")
        assert cls is EnvelopeCall or opened is call.open_string()  # type: ignore[union-attr]  # (the native call's: built once)
        reader.feed('ef", "a": 2}}')
        call.flush()
        assert reader.done
        outcome = call.outcome(9)
        assert outcome.arguments == {"s": "abcdef", "a": 2}
        outs.append((_events(ctx), _outcome(outcome)))
    assert outs[0] == outs[1]


def test_errors_are_the_reference_exception() -> None:
    for reader in (JsonRewriter([]), NativeRewriter()):
        with pytest.raises(JsonSyntaxError) as info:
            reader.feed("[" * 100)
        assert info.value.reason is ErrorReason.TOO_DEEP and info.value.index == 64
