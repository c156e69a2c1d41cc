"""The core's coercion (``native/core/src/coercion``, through ``_native._coerce``)
against ``toolparse.coercion.coerce``, the reference.

Both must give the same value (compared by its canonical JSON, so ``1``,
``1.0`` and ``true`` differ, and so does key order), the same canonical JSON
text and the same issues (path, expected, got, action) in the same order.
The cases: every coercion test of ``tests/test_coercion.py``, run again with
its ``coerce`` checking the twins against each other on every call; a table
of edge cases; and drawn values against drawn schemas.
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import test_coercion
from toolparse.coercion import Coerced, coerce
from toolparse.engine import native
from toolparse.events import canonical_json

_native: Any = importlib.import_module("toolparse._native") if native.AVAILABLE else None
native_coerce: Any = getattr(_native, "_coerce", None)

pytestmark = pytest.mark.skipif(
    native_coerce is None, reason="the native core (toolparse._native) is not built in this installation"
)


def _nesting(value: Any, bound: int = 500) -> int:
    """How deeply ``value`` nests, counted up to just past ``bound``."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth <= bound and isinstance(item, (list, dict)):
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def check(value: Any, schema: Any, max_depth: int = 64) -> Coerced:
    """Python's coercion of ``value``, checked against the core's."""
    expected = coerce(value, schema, max_depth=max_depth)
    if _nesting(value) > 500 or _nesting(schema) > 500:
        return expected  # (Python's own bound on nesting depends on its stack: not compared)
    got_value, got_json, got_issues = native_coerce(value, schema, max_depth)
    label = f"coerce({value!r:.200}, {schema!r:.200})"
    want_json = canonical_json(expected.value)
    assert got_json == want_json, label
    assert canonical_json(got_value) == want_json, label
    assert got_issues == [(i.path, i.expected, i.got, i.action) for i in expected.issues], label
    return expected


def _coerce_twice(value: Any, schema: Any, *, max_depth: int = 64) -> Coerced:
    return check(value, schema, max_depth)


# -- tests/test_coercion.py, every call checked -------------------------------------------

_WHOLE_VALUE_TESTS = [
    name
    for name in dir(test_coercion)
    if name.startswith("test_")
    and callable(getattr(test_coercion, name))
    and getattr(test_coercion, name).__code__.co_firstlineno
    < test_coercion.test_never_raises_and_is_idempotent.__code__.co_firstlineno + 10
]


def _cases() -> list[Any]:
    cases = []
    for name in sorted(_WHOLE_VALUE_TESTS):
        function = getattr(test_coercion, name)
        marks = [m for m in getattr(function, "pytestmark", []) if m.name == "parametrize"]
        if not marks:
            cases.append(pytest.param(name, {}, id=name))
            continue
        (mark,) = marks
        names = (
            [n.strip() for n in mark.args[0].split(",")] if isinstance(mark.args[0], str) else mark.args[0]
        )
        for k, row in enumerate(mark.args[1]):
            row = row if len(names) > 1 else (row,)
            cases.append(pytest.param(name, dict(zip(names, row, strict=True)), id=f"{name}-{k}"))
    return cases


@pytest.mark.parametrize(("name", "arguments"), _cases())
def test_the_coercion_tests_agree(
    name: str, arguments: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []

    def twice(value: Any, schema: Any, *, max_depth: int = 64) -> Coerced:
        calls.append(1)
        return check(value, schema, max_depth)

    monkeypatch.setattr(test_coercion, "coerce", twice)
    getattr(test_coercion, name)(**arguments)
    assert calls, f"{name} never called coerce"


def test_the_tests_are_found() -> None:
    assert "test_never_raises_and_is_idempotent" in _WHOLE_VALUE_TESTS
    assert "test_type_lists" in _WHOLE_VALUE_TESTS
    assert "test_inline_coercion_in_every_grammar" not in _WHOLE_VALUE_TESTS


# -- edge cases ------------------------------------------------------------------------------

INT = {"type": "integer"}
NUM = {"type": "number"}
ARR = {"type": "array"}
OBJ = {"type": "object"}
STR = {"type": "string"}

EDGES: list[tuple[Any, Any]] = [
    # numbers written as strings
    *[
        (text, schema)
        for text in [
            "1.e5",
            "+.5",
            ".5",
            "-0",
            "+007",
            "1e400",
            "-1e400",
            "1E+2",
            "3.000",
            "1e20",
            "-2e19",
            "9" * 30,
            "9" * 4000,
            "9" * 4001,
            "1" * 400 + ".5",
            "0x10",
            "1_000",
            "١٢",
            " 42\u3000",
            "nan",
            "inf",
            "1e-400",
            "5e-324",
            "2.5e-1",
            "\u00a042\u1680",
        ]
        for schema in (INT, NUM, {"type": ["integer", "string"]}, {"type": ["number", "null"]})
    ],
    (1e20, INT),
    (-0.0, INT),
    (float("inf"), INT),
    (float("nan"), NUM),
    (2.0**80, INT),
    (1.5, INT),
    (10**30, NUM),
    (10**30, STR),
    (-(10**25), {"enum": [-(10**25)]}),
    (1e25, {"enum": [10**25]}),
    (True, {"enum": [1]}),
    (1, {"enum": [True]}),
    (1.0, {"const": 1}),
    (True, INT),
    (True, NUM),
    # booleans and nulls
    *[
        (text, {"type": ["boolean", "null"]})
        for text in ["TRUE", " False\n", "tRuE", "yes", "None", "none", "NULL", "nil", ""]
    ],
    ("null", {"type": "null"}),
    (None, STR),
    (None, ARR),
    (None, {"type": ["array", "string"]}),
    # strings as JSON
    ('{"a": 1, "a": 2, "b": [1, 2.0, -0.0]}', OBJ),
    ('{"a": NaN}', OBJ),
    ("[1, Infinity]", ARR),
    ("[1e400]", ARR),
    ("[1, NaN]", ARR),
    ('["\\ud800", "\\ud83d\\ude00", "\\udc00x"]', ARR),
    ('{"\\ud800": 1}', OBJ),
    ('[{\\"id\\": 1}, {\\"id\\": \\"\\\\ud800\\"}]', ARR),
    ('{\\"a\\": \\"b\\"}', OBJ),
    ('[\\"a\\n\\"]', ARR),
    ("{'a': True, 'b': None,}", OBJ),
    ("[1, 2,]", ARR),
    ("(1, 2)", ARR),
    ("{a: 1}", OBJ),
    ("<tag>a</tag>, b", ARR),
    ("a <b c", ARR),
    ("a <|x|> b", ARR),
    ("x\uff5c<\uff5cy>", ARR),
    ("[1, 2", ARR),
    ("[[[[[[1]]]]]]", {"type": "array", "items": ARR}),
    ("a,,b, ,c", ARR),
    ("a\n\nb,c\n", ARR),
    (",", ARR),
    ('{"item": [1, 2]}', ARR),
    ('{"item": 3}', ARR),
    ('{"2": "c", "0": "a", "1": "b"}', ARR),
    ('{"00": 1, "0": 2}', ARR),
    ({"10": 1, "9": 2, "0123456789": 3}, ARR),
    ({"\u0661": 1, "0": 2}, ARR),
    ({}, ARR),
    ({"a": 1, "b": 2}, ARR),
    ("[" * 70 + "]" * 70, None),
    ("[" * 70 + "]" * 70, ARR),
    ('"[1, 2]"', ARR),
    (' {"a": "[1]"} ', None),
    ('{"a": "{\\"b\\": \\"[1]\\"}"}', None),
    ("[1, 2]x", None),
    ("", None),
    ("{}", None),
    ("[" + "1" * 4400 + "]", ARR),
    # values to strings
    ([1, {"a": [True, None, 2.5]}], STR),
    ({"k": 'é"\n\u0001'}, STR),
    (float("nan"), STR),
    (-0.0, STR),
    (1e16, STR),
    (1e-5, STR),
    (123456789.123456789, STR),
    ({"a": float("inf")}, STR),
    # enums
    *[
        (text, {"type": "string", "enum": values})
        for text in [
            '"celsius"',
            "'Celsius'",
            " CELSIUS ",
            "cel sius",
            "STRASSE",
            "straße",
            '"',
            "''",
            "' x '",
        ]
        for values in (["celsius", "kelvin"], ["Straße", "x"], ["a b", "ab"], ["x", "X"], ["\u017f", "s"])
    ],
    ("2", {"enum": [1, 2, "2 "]}),
    ("x", {"enum": []}),
    ("x", {"enum": "x"}),
    ("x", {"const": None}),
    ([1], {"enum": [[1.0]]}),
    ({"a": 1}, {"enum": [{"a": True}]}),
    ("X", {"type": "string", "const": "x"}),
    # paths and descriptions
    (
        {"a b": "1", "\ud800": "2", "é": "3", "_x1": "4", "1x": "5", "": "6", 'q"': "7"},
        {"additionalProperties": INT},
    ),
    ("x" * 100, INT),
    ("é" * 70, INT),
    ("\ud800" * 3, INT),
    ([["x" * 30] * 3], INT),
    ({"a\n": "\u0000"}, INT),
    (["\ud800\udc00"], {"type": "array", "items": INT}),
    # schemas
    ("1", {"$ref": "#/definitions/a~1b~0c", "definitions": {"a/b~c": INT}}),
    ("1", {"$ref": "#/nope"}),
    ("1", {"$ref": "x"}),
    ("1", {"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": NUM}}),
    ("1", {"$ref": "#/$defs/a", "type": "boolean", "$defs": {"a": NUM}}),
    ("1", {"jsonSchema": INT, "description": "x"}),
    ("1", {"jsonSchema": INT, "a": 1, "b": 2}),
    ("1", False),
    ("1", True),
    ("1", [INT]),
    ("1", {"type": "float"}),
    ("1", {"type": ["int", "bool", "str"]}),
    ("1", {"type": "foo"}),
    ("1", {"type": []}),
    ("1", {"type": [1]}),
    ({"a": "1"}, {"required": ["a"]}),
    ("1", {"items": INT}),
    ("1", {"enum": [1, "x"]}),
    ("1", {"const": 1.5}),
    (
        {"a": "1", "b": "2"},
        {
            "allOf": [{"properties": {"a": INT}}, {"$ref": "#/$defs/b"}],
            "$defs": {"b": {"properties": {"b": NUM}, "type": "object"}},
        },
    ),
    ({"a": "1"}, {"allOf": [True, False, {"additionalProperties": False}]}),
    ("5", {"anyOf": [{"anyOf": [STR, INT]}, NUM]}),
    ("5", {"oneOf": [{"anyOf": [{"enum": ["x"]}, INT]}, NUM]}),
    ("5", {"anyOf": [{"$ref": "#"}, INT]}),
    ("x", {"anyOf": [INT, NUM]}),
    (5, {"anyOf": [None, STR]}),
    ("5", {"anyOf": []}),
    ([1, "2"], {"prefixItems": [STR, INT], "items": False}),
    ([1, "2"], {"items": [STR, INT]}),
    ([1], {"items": [STR, INT]}),
    ([1, "2"], {"type": "array", "items": None}),
    (["1"], {"type": "array", "items": True}),
    (["1"], {"type": "array", "items": False}),
    ({"a": "1"}, {"type": "object", "additionalProperties": 0}),
    ({"a": "1"}, {"type": "object", "properties": []}),
    ("x", {"anyOf": [{"type": "array", "items": INT}, {"type": "null"}]}),
]


@pytest.mark.parametrize(("value", "schema"), EDGES, ids=[str(k) for k in range(len(EDGES))])
def test_edge_cases_agree(value: Any, schema: Any) -> None:
    check(value, schema)


@pytest.mark.parametrize("max_depth", [1, 2, 100])
def test_depth_bounds_agree(max_depth: int) -> None:
    deep: Any = "1"
    for _ in range(120):
        deep = [deep, {"a": "[1]"}]
    for schema in (None, {"type": "array", "items": {"$ref": "#"}}, {"type": "array", "items": {}}):
        check(deep, schema, max_depth)
        check(canonical_json(deep), schema, max_depth)


def test_shared_schema_parts_count_once_in_a_union() -> None:
    part = {"type": "integer", "enum": [1]}
    check("x", {"anyOf": [part, part, STR]})
    check("x", {"anyOf": [part, dict(part), STR]})


def test_the_native_value_type_round_trips() -> None:
    for value in [
        None,
        True,
        1,
        -(2**63),
        2**63,
        -(10**40),
        1.5,
        -0.0,
        math.inf,
        "é\ud800",
        [1, [2]],
        {"b": 1, "a": {}},
    ]:
        got, text, issues = native_coerce(value, None)
        assert canonical_json(got) == canonical_json(value) == text and issues == []


# -- drawn ---------------------------------------------------------------------------------

TEXTS = st.sampled_from(
    [
        "true",
        "False",
        " TRUE ",
        "42",
        "-7",
        "+3",
        "3.0",
        "3.5",
        "1e3",
        ".5",
        "1.e2",
        "1e400",
        "9" * 25,
        "null",
        "None",
        "a, b",
        "x\ny",
        "",
        " ",
        "[1, 2]",
        "[1, '2']",
        '{"a": 1}',
        "{'b': True}",
        '"x"',
        '{"item": [1]}',
        '{"0": "a"}',
        "<a>b</a>",
        "[1, NaN]",
        '[\\"a\\"]',
        '"\\ud800"',
        "1d",
        " 1 D ",
        "Straße",
        "\u00a07\u2003",
        '{"a": "1", "a": "2"}',
        '["\\ud83d\\ude00"]',
    ]
)
KEYS = st.sampled_from(["a", "b", "item", "0", "1", "10", "n_1", "a b", "é", ""])
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats() | TEXTS | st.text(max_size=6),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(KEYS, children, max_size=3),
    max_leaves=10,
)
TYPE_NAMES = st.sampled_from(
    ["null", "boolean", "object", "array", "number", "integer", "string", "float", "int"]
)
LEAF_SCHEMAS = st.one_of(
    st.none(),
    st.booleans(),
    st.just({}),
    st.builds(lambda t: {"type": t}, TYPE_NAMES),
    st.builds(lambda ts: {"type": ts}, st.lists(TYPE_NAMES, min_size=1, max_size=3, unique=True)),
    st.builds(
        lambda vs, t: {"enum": vs} if t is None else {"type": t, "enum": vs},
        st.lists(
            st.sampled_from(["1d", "x", "X", "Straße", "a b", 1, 2, 2.0, True, None, [1], {"a": 1}]),
            max_size=3,
        ),
        st.none() | TYPE_NAMES,
    ),
    st.builds(lambda v: {"const": v}, st.sampled_from(["x", 1, None, True])),
    st.just({"$ref": "#/$defs/n"}),
    st.just({"$ref": "#"}),
    st.just({"$ref": "#/$defs/missing"}),
)
SCHEMAS = st.recursive(
    LEAF_SCHEMAS,
    lambda inner: st.one_of(
        st.builds(
            lambda p, add: {"type": "object", "properties": p, "additionalProperties": add},
            st.dictionaries(KEYS, inner, max_size=3),
            st.sampled_from([True, False, {"type": "integer"}, None]),
        ),
        st.builds(lambda p: {"properties": p}, st.dictionaries(KEYS, inner, max_size=2)),
        st.builds(lambda i: {"type": "array", "items": i}, inner),
        st.builds(lambda i: {"items": i}, st.lists(inner, max_size=2)),
        st.builds(lambda ps, i: {"prefixItems": ps, "items": i}, st.lists(inner, max_size=3), inner),
        st.builds(lambda bs: {"anyOf": bs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda bs: {"oneOf": bs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda bs: {"allOf": bs}, st.lists(inner, min_size=1, max_size=2)),
        st.builds(lambda s: {"jsonSchema": s}, inner),
        st.builds(lambda s, t: {"$ref": "#/$defs/n", "type": t}, inner, TYPE_NAMES),
    ),
    max_leaves=6,
)


@settings(max_examples=600, deadline=None)
@given(value=VALUES, schema=SCHEMAS, defined=LEAF_SCHEMAS, max_depth=st.sampled_from([1, 3, 64]))
def test_drawn_values_and_schemas_agree(value: Any, schema: Any, defined: Any, max_depth: int) -> None:
    if isinstance(schema, dict):
        schema = {**schema, "$defs": {"n": defined}}
    check(value, schema, max_depth)
    if not isinstance(value, str):
        check(canonical_json(value) if not _has_nan(value) else "x", schema, max_depth)


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_nan(v) for v in value)
    return False


# -- patternProperties ---------------------------------------------------------------------

# The core's matcher is Python's with google-re2 (see native/core/src/coercion/patterns.rs);
# without it Python applies `re` to every pattern, with other meanings.
with_re2 = pytest.mark.skipif(
    importlib.import_module("toolparse.coercion.patterns")._RE2 is None,
    reason="the core matches patterns as Python does with google-re2 installed",
)

PATTERNS = [
    "^n_",
    "^n_[a-z]+$",
    "^(a+)+$",
    "(a|a)*$",
    ".*.*=",
    "^a$",
    "^\\d+$",
    "^\\w+$",
    "\\s",
    "\\bx",
    "x\\b",
    "^[^a-c]+$",
    "[\\d-]",
    "^a|b$",
    "ab|ac",
    "(ab|ac)*",
    "a{2,3}",
    "a{,2}b",
    "a{2}",
    "a{1001}",
    "a{3,2}",
    "a{",
    "a{x}",
    "{",
    "}",
    "]",
    "(",
    ")",
    "a**",
    "*",
    "[a",
    "[z-a]",
    "[\\d-z]",
    "\\",
    "\\z",
    "\\1",
    "(a)\\1",
    "(a)\\2",
    "(?P<n>a)(?P=n)",
    "(?P<1>a)",
    "(?P<a>x)(?P<a>y)",
    "(?P<a_1>x)",
    "(?:x)+",
    "()",
    "()*",
    "^$",
    "$",
    "^",
    "\\u0061$",
    "^\\u0061\\d+$",
    "\\u0061\\s",
    "\\x61",
    "\\x6",
    "\\u006",
    "\\U00000061",
    "\\U00110000",
    "\\0",
    "\\012",
    "\\477",
    "[\\0-\\7]",
    "[\\b]",
    "\\A\\Z",
    "^a\\Z",
    "(?i)A",
    "(?i)[a-c]+$",
    "a(?i)",
    "(?#c)a",
    "(?#c",
    "a*?",
    "[[a]",
    "[]a]",
    "[^]a]",
    "[a-]",
    "[-a]",
    "\\.",
    "\\-",
    "\\é",
    "é+",
    "a\nb(",
    "(?P<n",
    "(?",
    "(?Q)",
    "[\\w.-]+@",
    "^[A-Z_][A-Z0-9_]*$",
    "^(x|y|z)$",
    "\\u0061(a|b)*c*",
    "\\u0061a?b?c?d?e?f?g?h?i?",
    "\\u0061[ab]{0,300}",
    "\\u0061.*$",
    "(?P<a>x)(?P=a)",
    "(?P=b)",
    "(?P<a>(?P=a))",
    "(?Px)",
    "(?<a>x)",
    "(?P<>x)",
    "(?P<a",
    "x{2,}y{,}",
    "(?i)(?i)a",
    "a|(?i)b",
]
# Patterns Python's `re` applies and the core does not read (lookarounds, possessive
# repeats, a `$` before more pattern where `re` applies it): reported as not applied.
NOT_READ = [
    "(?#x)(?i)a",
    "$\\u0061",
    "(?=a)",
    "(?!a)b",
    "(?<=a)b",
    "a*+",
    "a++",
    "\\u0061$\\n",
    "(?s).",
    "(?>a)",
    "(?(1)a)",
]
PATTERN_KEYS = [
    "n_x",
    "n_",
    "x",
    "a",
    "a\n",
    "aa",
    "ab",
    "ac",
    "abab",
    "12",
    "\u0661\u0662",
    "a_\u00e9",
    "x y",
    "",
    "é",
    "a" * 40 + "!",
    "a" * 200,
    "a" * 5000,
    "b",
    "ab{",
    "{",
    "n_\ud800",
    "\u00e9\u00e9",
    "a{,2}b",
    "=x=",
    "a\nb",
]


@with_re2
@pytest.mark.filterwarnings("ignore::FutureWarning")  # (re's "possible nested set")
@pytest.mark.parametrize("pattern", PATTERNS)
def test_patterns_agree(pattern: str) -> None:
    for key in PATTERN_KEYS:
        if "\ud800" in key:
            continue  # (google-re2 cannot encode a lone surrogate: Python raises there)
        check({key: "1", "other": "2"}, {"type": "object", "patternProperties": {pattern: INT, "^o": NUM}})


def test_patterns_the_core_does_not_read_are_reported() -> None:
    for pattern in NOT_READ:
        _, _, issues = native_coerce({"a": "1"}, {"patternProperties": {pattern: INT}})
        assert issues == [
            (
                "$.a",
                f"a key matched against the pattern {pattern!r}",
                '"a"',
                "not matched: the native matcher does not support this pattern",
            )
        ], pattern


@with_re2
@pytest.mark.filterwarnings("ignore::FutureWarning")
@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(
        st.sampled_from(
            [
                "a",
                "b",
                "^",
                "$",
                ".",
                "\\d",
                "\\w",
                "\\s",
                "[a-c]",
                "[^b]",
                "(",
                ")",
                "|",
                "*",
                "+",
                "?",
                "{2}",
                "{1,3}",
                "\\u0061",
                "(?:",
                "\\",
                "[",
                "]",
                "é",
                "_",
            ]
        ),
        max_size=7,
    ),
    key=st.text(alphabet="ab_1 \n\u00e9\u0661", max_size=6),
)
def test_drawn_patterns_agree(parts: list[str], key: str) -> None:
    pattern = "".join(parts)
    _, _, issues = native_coerce({"a": "1"}, {"patternProperties": {pattern: INT}})
    assume(not any("does not support" in action for *_, action in issues))  # (see NOT_READ)
    check({key: "1"}, {"type": "object", "patternProperties": {pattern: INT}, "additionalProperties": False})
