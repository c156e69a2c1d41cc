"""The native ``MemberCall`` (``toolparse._native``) against the Python one.

``toolparse.engine.calls.MemberCall`` is the reference. Each example draws
the tools (declared or not, with members of every kind of schema), the
context's options, the call (its name, ``literal``, its converter) and a
sequence of operations, applies them to both classes, each with its own
fresh ``CallContext`` built alike (the same seed, so the same ids), and
compares after every operation what it returned (or raised), the events
appended to ``ctx.out`` and the attributes the engine reads; an ``outcome``
is compared field by field.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support import open_string_of
from toolparse.engine import native
from toolparse.engine.calls import CallContext, MemberCall, Outcome
from toolparse.events import ErrorReason
from toolparse.readers.json import STRING_RUN
from toolparse.readers.pyliteral import parse_literal
from toolparse.readers.xml_tree import fragment_value
from toolparse.tools import Tool

_native: Any = importlib.import_module("toolparse._native") if native.AVAILABLE else None
NativeMemberCall: Any = getattr(_native, "MemberCall", None)

pytestmark = pytest.mark.skipif(
    NativeMemberCall is None, reason="the native core (toolparse._native) is not built in this installation"
)

MEMBER_SCHEMAS: list[Any] = [
    {"type": "string"},
    {"type": "string", "description": "a string"},
    {"type": "integer"},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "null"},
    {"type": ["string", "null"]},
    {"type": "array", "items": {"type": "integer"}},
    {"type": "array", "items": {"type": "string"}},
    {"type": "object", "properties": {"x": {"type": "integer"}}},
    {"enum": ["a", "b", "1"]},
    {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    {"anyOf": [{"type": "array", "items": {"type": "number"}}, {"type": "string"}]},
    {"anyOf": [{"type": "object"}, {"type": "null"}]},
    {},
    None,
]
KEYS = ["a", "b", "c", "city", 'q"', "x y"]
OTHER_KEYS = ["zz", "", "\ud800", "\udc00", "é", "a\\b"]
NAMES = ["f", "g", "h", "only", "model"]


class Point(pydantic.BaseModel):
    a: int
    b: str = ""


@st.composite
def parameters(draw: st.DrawFn) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from(KEYS), max_size=4, unique=True))
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {key: draw(st.sampled_from(MEMBER_SCHEMAS)) for key in keys},
    }
    if draw(st.booleans()):
        schema["additionalProperties"] = draw(
            st.sampled_from([False, True, {"type": "integer"}, {"type": "array"}])
        )
    if draw(st.booleans()):
        schema["patternProperties"] = {"^z": {"type": "number"}}
    return schema


@st.composite
def toolsets(draw: st.DrawFn) -> tuple[Tool, ...] | None:
    if draw(st.booleans()):
        return None
    names = draw(st.lists(st.sampled_from(NAMES[:3]), max_size=3, unique=True))
    tools = [Tool(name, "", draw(parameters())) for name in names]
    if draw(st.booleans()):
        tools.append(Tool("only", "", {"type": "object", "properties": {"text": {"type": "string"}}}))
    if draw(st.booleans()):
        tools.append(Tool.from_model(Point, name="model"))
    return tuple(tools)


_PIECE_CHARS = st.one_of(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    st.sampled_from(
        [
            *"\"\\{}[]:, \t\n\r\x00\x08\x0c\x1b\x1c\x1f\x7f<>/'",
            "\ud800",
            "\udbff",
            "\udc00",
            "\udfff",
            "\ufffd",
            "é",
            "😀",
            "\u2028",
            "\xa0",
            "\u3000",
        ]
    ),
)
_JSONISH = [
    '{"x": 1}',
    " [1, 2]",
    "[1, 2",
    '{"s": "\\ud800"}',
    '["\\udc00x"]',
    "42",
    " 3.5 ",
    "-0",
    "1e400",
    "true",
    "null",
    "None",
    "'a'",
    "[1, 'b', None]",
    "{'k': (1, 2)}",
    "<x>1</x>",
    "<x>1</x><x>2</x>",
    "<a><b>c</b></a>",
    "a & b",
    '"quoted"',
    "\n  \t",
    "",
]
pieces = st.one_of(st.text(_PIECE_CHARS, max_size=12), st.sampled_from(_JSONISH))


_KEY_DRAWS = st.sampled_from(KEYS + OTHER_KEYS)
_WHILE_READ = st.one_of(
    st.tuples(st.just("text"), pieces),
    st.tuples(st.just("text"), pieces),
    st.tuples(st.just("flush")),
    st.tuples(st.just("open_string")),
    st.tuples(st.just("streams")),
    st.tuples(st.just("has"), _KEY_DRAWS),
)
_ANY = st.one_of(
    st.tuples(st.just("end")),
    st.tuples(st.just("close")),
    st.tuples(st.just("outcome"), st.one_of(st.none(), st.integers(0, 99))),
    st.tuples(st.just("sole_string_property")),
    st.tuples(st.just("announce"), st.sampled_from([*NAMES, "zz"])),
    _WHILE_READ,
)


@st.composite
def members(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    """A member as the machine reads one: it begins, its text arrives (with
    flushes and the engine's questions in between), and mostly it ends."""
    ops: list[tuple[Any, ...]] = [("begin", draw(_KEY_DRAWS))]
    ops += draw(st.lists(_WHILE_READ, max_size=6))
    if draw(st.integers(0, 4)):
        ops.append(("end",))
    return ops


def operations() -> st.SearchStrategy[list[tuple[Any, ...]]]:
    """Members, and now and then any operation at all (misuse included)."""
    groups = st.lists(st.one_of(members(), members(), members(), st.lists(_ANY, max_size=2)), max_size=6)
    return groups.map(lambda found: [op for group in found for op in group])


def _converter(kind: str, max_depth: int) -> Callable[[str], Any] | None:
    if kind == "fragment":
        return lambda text: fragment_value(text, max_depth=max_depth)
    if kind == "literal":
        return lambda text: parse_literal(text, max_depth=max_depth)
    return None


def _outcome(outcome: Outcome) -> tuple[Any, ...]:
    assert type(outcome) is Outcome
    fields = tuple(getattr(outcome, field.name) for field in dataclasses.fields(Outcome))
    return (*fields, type(outcome.reason), type(outcome.arguments))


def _result(value: Any) -> Any:
    if isinstance(value, Outcome):
        return _outcome(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # an OpenString
        args, index, call_id, plain, piece = value
        return ("OpenString", args.text(), args.length, index, call_id, plain is STRING_RUN, piece)
    return value


def _state(call: Any) -> tuple[Any, ...]:
    return (
        call.name,
        call.started,
        call.streaming,
        call.index,
        call.id,
        call.problem,
        call.typer,
        call.extra_issues,
        "".join(call.scratch),
        bool(call.scratch),
        call.args.text(),
        call.args.length,
        call.streams(),
        call.holding(),
    )


def _apply(call: Any, op: tuple[Any, ...]) -> tuple[str, Any]:
    name, *args = op
    try:
        if name == "open_string":  # (the native string lane's question: see open_string_of)
            return "ok", _result(open_string_of(call))
        return "ok", _result(getattr(call, name)(*args))
    except Exception as exc:
        return "raised", (type(exc), str(exc))


def _events(ctx: CallContext) -> list[tuple[str, str]]:
    return [(type(event).__name__, repr(event)) for event in ctx.out]


def _new(cls: Any, ctx: CallContext, name: str, convert: str, literal: bool) -> tuple[str, Any]:
    try:
        return "ok", cls(ctx, name, _converter(convert, ctx.max_depth), literal=literal)
    except Exception as exc:
        return "raised", (type(exc), str(exc))


def _compare(
    tools: tuple[Tool, ...] | None,
    *,
    coerce: bool,
    max_depth: int,
    seed: int,
    name: str,
    literal: bool,
    convert: str,
    ops: list[tuple[Any, ...]],
) -> None:
    """Apply ``ops`` to a Python and a native call alike and compare them after each."""
    contexts = [CallContext(tools, max_depth=max_depth, coerce=coerce, seed=seed) for _ in range(2)]
    made = [
        _new(cls, ctx, name, convert, literal)
        for cls, ctx in zip((MemberCall, NativeMemberCall), contexts, strict=True)
    ]
    python_ctx, native_ctx = contexts
    assert made[0][0] == made[1][0], made
    assert _events(python_ctx) == _events(native_ctx)
    if made[0][0] == "raised":
        assert made[0] == made[1]
        return
    python, rust = made[0][1], made[1][1]
    assert _state(python) == _state(rust)
    # (then the end of a call as the machine ends it: close, then the outcome)
    for i, op in enumerate([*ops, ("close",), ("outcome", 7)]):
        expected = _apply(python, op)
        got = _apply(rust, op)
        where = f"operation {i}: {op!r}"
        assert got == expected, where
        assert _events(native_ctx) == _events(python_ctx), where
        assert _state(rust) == _state(python), where


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_the_native_member_call_is_the_python_one(data: st.DataObject) -> None:
    _compare(
        data.draw(toolsets(), label="tools"),
        coerce=data.draw(st.booleans(), label="coerce"),
        max_depth=data.draw(st.sampled_from([2, 64]), label="max_depth"),
        seed=data.draw(st.integers(0, 2**32), label="seed"),
        name=data.draw(st.sampled_from([*NAMES, "zz", "\ud800"]), label="name"),
        literal=data.draw(st.booleans(), label="literal"),
        convert=data.draw(st.sampled_from(["none", "fragment", "literal"]), label="convert"),
        ops=data.draw(operations(), label="ops"),
    )


_TAGS = (
    Tool("f", "", {"type": "object", "properties": {"tags": {"type": "array"}, "n": {"type": "integer"}}}),
)


@pytest.mark.parametrize(
    ("tools", "literal", "convert", "ops"),
    [
        # an array member ended after its call closed (Python: a KeyError, before converting)
        (_TAGS, False, "literal", [("begin", "tags"), ("text", "(x"), ("close",), ("end",)]),
        # a member repeated, and one given but never ended
        (
            _TAGS,
            False,
            "fragment",
            [("begin", "n"), ("text", "<a>1</a>"), ("end",), ("begin", "n"), ("begin", "tags")],
        ),
        # JSON-looking text with no tools: its canonical JSON keeps a lone surrogate, as Python's does
        (None, False, "none", [("begin", "k\udc00"), ("text", ' {"s": "\\ud800"}'), ("end",)]),
        # an empty piece of a string still makes a delta
        (
            None,
            False,
            "none",
            [("begin", "k"), ("text", "a"), ("flush",), ("text", ""), ("flush",), ("end",)],
        ),
        # a literal call to an unknown tool, never announced
        (_TAGS, True, "literal", [("close",), ("flush",)]),
    ],
)
def test_sequences_the_fuzzer_may_miss(
    tools: tuple[Tool, ...] | None, literal: bool, convert: str, ops: list[tuple[Any, ...]]
) -> None:
    for name in ("f", "zz"):
        _compare(
            tools, coerce=True, max_depth=64, seed=5, name=name, literal=literal, convert=convert, ops=ops
        )


def test_a_well_formed_call_streams_as_in_python() -> None:
    tools = (
        Tool(
            "f",
            "",
            {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                    "tags": {"type": "array"},
                },
            },
        ),
    )
    outs = []
    for cls in (MemberCall, NativeMemberCall):
        ctx = CallContext(tools, max_depth=64, seed=1)
        call = cls(ctx, "f")
        assert call.begin("city") is True
        call.flush()
        string = open_string_of(call)
        assert cls is MemberCall or string is call.open_string()  # type: ignore[union-attr]  # (native: built once)
        assert string is not None and string.plain is STRING_RUN
        for piece in ('Pa"r', "is\n", "\ud800"):
            call.text(piece)
            call.flush()
        string.args.append("!")  # (as the engine's string lane does)
        call.end()
        for key, text in (("days", " 3 "), ("tags", "a"), ("tags", "b")):
            call.begin(key)
            call.text(text)
            call.end()
        call.close()
        outcome = call.outcome(42)
        assert outcome.reason is None and outcome.arguments == {
            "city": 'Pa"ris\n\ufffd!',
            "days": 3,
            "tags": ["a", "b"],
        }
        outs.append((_events(ctx), _outcome(outcome)))
    assert outs[0] == outs[1]


def test_sole_string_of_is_the_python_one() -> None:
    for schema in [
        None,
        {},
        {"properties": {"a": {"type": "string"}}},
        {"properties": {"a": {"type": "integer"}}},
    ]:
        assert NativeMemberCall.sole_string_of(schema) == MemberCall.sole_string_of(schema)


def test_an_unknown_tool_and_an_invalid_literal() -> None:
    for cls in (MemberCall, NativeMemberCall):
        ctx = CallContext((Tool("g", "", {"type": "object"}),), max_depth=64, seed=3)
        call = cls(ctx, "f\ud800")
        call.close()
        unknown = call.outcome(None)
        assert unknown.reason is ErrorReason.UNKNOWN_TOOL and unknown.arguments == {}
        # (the name's lone surrogate is U+FFFD, as in the arguments: issue 51)
        assert unknown.message == "no tool named 'f\ufffd' was declared" and not ctx.out
        literal = cls(ctx, "g", lambda text: parse_literal(text), literal=True)
        literal.begin("k")
        literal.text("(unclosed")
        literal.end()
        literal.close()
        outcome = literal.outcome(None)
        assert outcome.reason is ErrorReason.INVALID_CALL
        assert outcome.message.startswith("argument 'k' is not a literal: ")
