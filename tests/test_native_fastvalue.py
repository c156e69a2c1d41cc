"""The native engine's fast paths for a member's value against the Python functions.

``native/src/fastvalue.rs`` gives, for the common cases, what four Python calls
give a member call's host: ``fragment_value(text)`` of text with no markup,
``coerce_at(text, schema, root, _child_path("$", key), 1)`` of a ``str`` under
a simple schema, ``canonical_json(value)`` of a scalar, and ``json.loads`` of
canonical JSON. Anything else it declines (None), and the host calls Python.
Each test draws inputs (schemas simple and not; texts of numbers of every
shape, huge, signed, spaced, Unicode digits, booleans, null words; values;
JSON texts, lone surrogates included, broken ones too) and asserts that every
answer given equals Python's: values with their types, issues field by field,
text exactly. A decline is always allowed where the brief allows it, and is
asserted not to happen where the fast path must apply. Last, a stream of
fifty calls through the native engine must take the fast paths every time.
"""

from __future__ import annotations

import importlib
import json
import math
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from support import tool_calls_in_sevens
from toolparse import ToolCall
from toolparse.coercion.coerce import _child_path
from toolparse.coercion.inline import UNTOUCHED, coerce_at
from toolparse.coercion.schema import json_type, types_of
from toolparse.engine import native
from toolparse.events import canonical_json
from toolparse.fuzz import splits
from toolparse.invariants import check_engines
from toolparse.readers.xml_tree import decode_text, fragment_value

_native: Any = importlib.import_module("toolparse._native") if native.AVAILABLE else None

pytestmark = pytest.mark.skipif(
    _native is None or not hasattr(_native, "_coerce_text"),
    reason="the native core (toolparse._native) is not built in this installation",
)

EXAMPLES = 400  # (each property ran clean on 20,000 examples by hand)
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

# Every code point, surrogates too (what a Python str can hold).
any_char = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=())
SPACES = [
    " ",
    "\t",
    "\n",
    "\r",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1f",
    "\x85",
    "\xa0",
    "\u1680",
    "\u2000",
    "\u2028",
    "\u3000",
]
NOT_SPACES = ["\u200b", "\ufeff", "\x00", "\x7f"]


def same(a: Any, b: Any) -> bool:
    """Equal, with the same types all the way down (1, 1.0 and True differ; a
    dict's key order counts; NaN equals NaN; -0.0 differs from 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


# -- fragment_text ---------------------------------------------------------------------------------

ENTITY_BITS = [
    "&", "&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&nbsp;", "&LT;", "&lt", "&#", "&#;", "&#x;", "&#X41;",
    "&#65;", "&#x41;", "&#0;", "&#x0;", "&#00000065;", "&#000000065;", "&#xD800;", "&#55296;", "&#xDFFF;",
    "&#x10FFFF;", "&#x110000;", "&#1114111;", "&#1114112;", "&#99999999;", "&#x1F600;", "&#xfffffff;",
    "&#123456789;", "&amp;lt;", "&&lt;", "&#38;lt;", ";", "#", "x", "a", "1", "<", "\ud800", "é", " ",
]  # fmt: skip
entity_texts = st.lists(st.sampled_from(ENTITY_BITS) | st.text(any_char, max_size=3), max_size=12).map(
    "".join
)


@SETTINGS
@given(text=entity_texts)
@example(text="&#xD800;&#0;&#x110000;&nbsp;&amp;lt;")
@example(text="")
def test_fragment_text_is_fragment_value_where_there_is_no_markup(text: str) -> None:
    got = _native._fragment_text(text)
    if "<" in text:
        assert got is None
        return
    assert got is not None
    assert got == fragment_value(text) == decode_text(text)


# -- coerce_text -----------------------------------------------------------------------------------

SCALARS = ["string", "integer", "number", "boolean", "null"]
TYPE_NAMES = [*SCALARS, "object", "array", "float", "int", "bool", "str", "weird", ""]

simple_schemas = st.one_of(
    st.builds(lambda t: {"type": t}, st.sampled_from(TYPE_NAMES)),
    st.builds(lambda ts: {"type": ts}, st.lists(st.sampled_from(TYPE_NAMES), min_size=1, max_size=4)),
    st.builds(
        lambda t, extra: {"type": t, **extra},
        st.sampled_from(TYPE_NAMES),
        st.sampled_from([{}, {"description": "d"}, {"minimum": 1}, {"title": "T", "default": 3}]),
    ),
    st.sampled_from(
        [
            {},
            {"description": "no type"},
            {"properties": {}},
            {"items": {"type": "integer"}},
            {"required": []},
            {"type": None},
            {"type": []},
            {"type": 5},
            {"type": ["integer", 5]},
            {"type": {"integer": 1}},  # (a schema is JSON: a tuple would read as a list)
            None,
            True,
            False,
        ]
    ),
)
other_schemas = st.sampled_from(
    [
        {"type": "integer", "enum": [1, 2]},
        {"type": "string", "enum": ["a", "b"]},
        {"enum": ["1", 1, True]},
        {"const": 3},
        {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        {"oneOf": [{"type": "boolean"}, {"type": "null"}]},
        {"anyOf": []},
        {"allOf": [{"type": "integer"}]},
        {"$ref": "#/$defs/N"},
        {"$ref": "#/$defs/Missing", "type": "integer"},
        {"$ref": 5, "type": "integer"},
        {"jsonSchema": {"type": "integer"}},
        {"type": "object"},
        {"type": "array", "items": {"type": "integer"}},
        {"type": ["array", "integer"]},
        {"type": ["object", "boolean", "null"]},
        UNTOUCHED,
        5,
        "integer",
    ]
)
ROOT = {"type": "object", "$defs": {"N": {"type": "number"}}, "properties": {}}

digits = st.text(st.sampled_from("0123456789"), min_size=1, max_size=30)
number_texts = st.one_of(
    st.integers().map(str),
    st.integers(min_value=-(10**60), max_value=10**60).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats().map(lambda x: f"{x:e}"),
    st.floats().map(lambda x: f"{x:.30f}"),
    st.builds(
        lambda sign, whole, dot, frac, e, esign, exp: f"{sign}{whole}{dot}{frac}{e}{esign}{exp}",
        st.sampled_from(["", "+", "-"]),
        st.sampled_from(["", "0", "00", "1"]) | digits,
        st.sampled_from(["", "."]),
        st.sampled_from(["", "0", "5"]) | digits,
        st.sampled_from(["", "e", "E"]),
        st.sampled_from(["", "+", "-"]),
        st.sampled_from(["", "0", "5", "308", "309", "324", "400", "99999999999999999999"]) | digits,
    ),
    st.builds(
        lambda sign, n, d: sign + d * n,
        st.sampled_from(["", "+", "-"]),
        st.sampled_from([3998, 3999, 4000, 4001, 4002, 4299, 4300, 4301]),
        st.sampled_from(["9", "1", "0"]),
    ),
    st.sampled_from(
        [
            "٣",
            "\uff11\uff12",
            "²",
            "1_000",
            "0x10",
            "1e",
            "e5",
            ".",
            "-",
            "+",
            "..5",
            "1.2.3",
            "inf",
            "-Infinity",
            "nan",
            "NaN",
            "1e-400",
            "2.0",
            "-0",
            "-0.0",
            "+.5",
            "5.",
            "1.E5",
            "9007199254740993",
            "1e16",
            "123456789e-30",
            "0.30000000000000004",
            "575820270870527.25",
            "1" + "0" * 400 + ".5",
            "0." + "0" * 400 + "1",
        ]
    ),
)
word_texts = st.sampled_from(
    [
        "true",
        "false",
        "True",
        "FALSE",
        "tRuE",
        "fAlSe",
        "yes",
        "1",
        "0",
        "null",
        "NULL",
        "Null",
        "None",
        "none",
        "nil",
        "nUll",
        "",
        "\u212aey",
        "\u0130",
        "trueish",
        "t",
        "[1, 2]",
        '{"a": 1}',
        "[]",
        "{}",
        "[x",
        "x]",
        "a, b",
        "a\nb",
        'he said "hi"',
        "back\\slash",
        "\x00\x01",
        "é" * 70,
        "x" * 58,
        "x" * 59,
        "x" * 200,
    ]
)
padded = st.builds(
    lambda left, core, right: left + core + right,
    st.text(st.sampled_from(SPACES + NOT_SPACES), max_size=3),
    number_texts | word_texts,
    st.text(st.sampled_from(SPACES + NOT_SPACES), max_size=3),
)
KEYS = ["days", "city", "_k", "A9", "a b", "9x", "é", "\ud800", 'q"uote', "k\n", "", "x.y", "[0]"]
keys = st.sampled_from(KEYS) | st.text(any_char, max_size=6)
# JSON objects written in a string (an XML parameter holding an object), spaced, escaped or not
json_objects = st.builds(
    lambda value, ascii, left, right: left + json.dumps(value, ensure_ascii=ascii) + right,
    st.dictionaries(
        keys,
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(any_char, max_size=8),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
            max_leaves=6,
        ),
        max_size=4,
    ),
    st.booleans(),
    st.text(st.sampled_from(SPACES), max_size=2),
    st.text(st.sampled_from(SPACES), max_size=2),
) | st.sampled_from(['{"a": 1,}', "{'a': 1}", '{"a": NaN}', '{"a": "\\ud800"}', '{"a": 1} x', "[1]", "{}"])
texts = padded | number_texts | word_texts | json_objects | st.text(any_char, max_size=80)


def check_coerce(text: str, schema: Any, key: str, *, must: bool) -> None:
    want_value, want_issues = coerce_at(text, schema, ROOT, _child_path("$", key), 1)
    got = _native._coerce_text(text, schema, ROOT, key)
    if got is None:
        assert not must, "declined where the fast path applies"
        return
    value, issues = got
    assert same(value, want_value), (value, want_value)
    if isinstance(want_value, str):
        assert value is text  # (returned as it is, as Python returns it)
    assert [(i.path, i.expected, i.got, i.action) for i in issues] == [
        (i.path, i.expected, i.got, i.action) for i in want_issues
    ]
    assert all(type(i) is type(w) for i, w in zip(issues, want_issues, strict=True))


def applies(text: str, schema: Any) -> bool:
    """Where the fast path must answer: a schema of scalar types (nothing to
    parse as JSON), and an integer Python's int() reads."""
    if not isinstance(schema, dict) or schema.keys() - {"type", "description", "minimum", "title", "default"}:
        return False
    declared = schema.get("type")
    names = declared if isinstance(declared, list) else [declared]
    return all(isinstance(n, str) for n in names) and not {"object", "array"} & set(names)


@SETTINGS
@given(text=texts, schema=simple_schemas, key=keys)
@example(text=" 42 ", schema={"type": "integer"}, key="days")
@example(text="575820270870527.25", schema={"type": "number"}, key="x")
@example(text="1" * 4001, schema={"type": ["integer", "boolean"]}, key="n")
@example(text="-" + "1" * 4000, schema={"type": "integer"}, key="n")
@example(text="1e400", schema={"type": ["number", "null"]}, key="n")
@example(text="٣", schema={"type": "integer"}, key="n")
@example(text="\u3000TRUE\x1c", schema={"type": ["boolean"]}, key="a b")
@example(text="1e300", schema={"type": "integer"}, key="n")
@example(text="None", schema={"type": "null"}, key="\ud800")
@example(text="[1]", schema=None, key="n")
@example(text="x", schema={"type": "weird"}, key="n")
def test_coerce_text_under_simple_schemas(text: str, schema: Any, key: str) -> None:
    check_coerce(text, schema, key, must=applies(text, schema))


@SETTINGS
@given(text=texts, schema=other_schemas, key=keys)
def test_coerce_text_under_other_schemas_declines_or_agrees(text: str, schema: Any, key: str) -> None:
    check_coerce(text, schema, key, must=False)


def test_coerce_text_declines_what_it_does_not_read() -> None:
    # (an array to parse or split, an object JSON does not read, an enum string
    # not found, unions, references: Python's)
    for text, schema in [
        ("[1, 2]", {"type": "array"}),
        ("a, b", {"type": ["array", "null"]}),
        ('{"a": 1}', {"type": ["object", "array"]}),
        ("{'a': 1}", {"type": "object"}),
        ('{"a": 1,}', {"type": "object"}),
        ("[1]", {"type": "object"}),
        ('{"a": 1}', None),
        ("y", {"type": "string", "enum": ["x"]}),
        ("x", {"enum": ["x"]}),
        ("x", {"type": "string", "enum": [_Str("x")]}),
        ("x", {"type": "string", "enum": _List(["x"])}),
        ("1", {"type": "integer", "enum": [1]}),
        ("1", {"anyOf": [{"type": "integer"}]}),
        ("1", {"$ref": "#/$defs/N"}),
        ("1", {"allOf": [{"type": "integer"}]}),
        ("1", {"jsonSchema": {"type": "integer"}}),
        ("1", UNTOUCHED),
        ("1", _Dict({"type": "integer"})),
        ("1", {"type": _Str("integer")}),
        ("1", {"type": [_Str("integer")]}),
        ("1", {"type": _List(["integer"])}),
    ]:
        assert _native._coerce_text(text, schema, ROOT, "k") is None, (text, schema)
    assert _native._coerce_text("1", {"type": "integer"}, ROOT, "k") is not None


def test_coerce_text_reads_enum_strings_and_json_objects() -> None:
    """Two shapes every XML call has: a string among its enum's strings
    (kept, nothing reported), and an object parameter written as JSON
    ("parsed as JSON", then read against the object's properties)."""
    for text, schema in [
        ("celsius", {"type": "string", "enum": ["celsius", "fahrenheit"]}),
        ("b", {"type": ["string", "null"], "enum": [None, 1, "a", "b"], "description": "d"}),
        ('{"lang": ["en"], "year": 2024, "exact": false}', {"type": "object"}),
        (' {"a": "1", "b": 2}\n', {"type": "object", "properties": {"a": {"type": "integer"}}}),
        ('{"a": 1, "é": "\ud800"}', {"type": ["object", "null"], "additionalProperties": False}),
    ]:
        check_coerce(text, schema, "k", must=True)


@SETTINGS
@given(data=st.data())
def test_coerce_text_under_enums(data: st.DataObject) -> None:
    values: list[Any] = data.draw(st.lists(texts | st.sampled_from([1, None, 2.5, True, [], {}]), max_size=5))
    strings = [v for v in values if type(v) is str]
    text = data.draw(st.sampled_from(strings) | texts if strings else texts)
    declared = data.draw(
        st.sampled_from(["string", "str", ["string", "null"], ["integer", "string"], "integer"])
    )
    schema = {"type": declared, "enum": values}
    names = declared if isinstance(declared, list) else [declared]
    must = text in strings and bool({"string", "str"} & set(names))
    check_coerce(text, schema, "k", must=must)


class _Dict(dict[str, Any]):
    """A dict subclass: its lookups could differ from dict's, so it is declined."""


class _List(list[Any]):
    pass


class _Str(str):
    pass


@pytest.mark.parametrize("limit", [640, 1000, 0])
def test_int_digit_limit(limit: int) -> None:
    """Past ``sys.get_int_max_str_digits()`` (leading zeros count) Python raises:
    the fast paths then decline, so that Python's call raises the same."""
    texts = [
        "7" * 3000,
        "0" * 700 + "5",
        "-" + "0" * 641 + "5",
        "+" + "0" * 639 + "5",
        "0" * 640 + "12",
        "9" * 650,
    ]
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(limit)
    try:
        for text in texts:
            try:
                want = coerce_at(text, {"type": "integer"}, ROOT, "$.n", 1)
            except ValueError as exc:
                assert "Exceeds the limit" in str(exc)
                assert _native._coerce_text(text, {"type": "integer"}, ROOT, "n") is None
            else:
                got = _native._coerce_text(text, {"type": "integer"}, ROOT, "n")
                assert got is not None and same(got[0], want[0]), text[:20]
                assert [str(i) for i in got[1]] == [str(i) for i in want[1]]
            value = int(text) if limit == 0 else None
            if value is not None:
                assert _native._canonical_value(value) == canonical_json(value)
            for number in [text.lstrip("+"), f"[{text.lstrip('+')}]"]:
                check_loads(number, must=False)
        if limit:
            assert _native._canonical_value(10**2000) is None
    finally:
        sys.set_int_max_str_digits(old)


# -- coerce_value: a value that is not a str -------------------------------------------------------

NOT_SIMPLE = {
    "jsonSchema",
    "$ref",
    "allOf",
    "anyOf",
    "oneOf",
    "const",
    "prefixItems",
    "patternProperties",
}

member_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**80), max_value=10**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([0.0, -0.0, 1.0, 2.5, 1e16, 1e300, -3.0, 1e22, 9007199254740993.0])
    | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)
member_schemas = st.recursive(
    simple_schemas | other_schemas,
    lambda inner: st.one_of(
        st.builds(lambda items: {"type": "array", "items": items}, inner),
        st.builds(lambda items: {"items": items}, inner),
        st.builds(
            lambda t, items: {"type": t, "items": items},
            st.sampled_from(
                [["array", "null"], ["array", "string"], ["array", "integer"], ["object", "array"]]
            ),
            inner,
        ),
        st.builds(
            lambda props: {"type": "object", "properties": props}, st.dictionaries(keys, inner, max_size=3)
        ),
        st.builds(
            lambda props, extra: {"type": "object", "properties": props, "additionalProperties": extra},
            st.dictionaries(keys, inner, max_size=3),
            st.sampled_from([True, False, None, 5, [], {"type": "integer"}, {"type": "string"}]) | inner,
        ),
        st.builds(lambda props: {"properties": props}, st.dictionaries(keys, inner, max_size=3)),
        st.sampled_from(
            [
                {"type": "array", "items": True},
                {"type": "array", "items": False},
                {"type": "array", "items": None},
                {"type": "array", "items": [{"type": "integer"}]},
                {"type": "array", "prefixItems": [{"type": "integer"}]},
                {"type": "array", "items": "integer"},
                {"type": "object", "patternProperties": {}},
                {"type": "object", "patternProperties": {"^a": {"type": "integer"}}},
                {"type": "object", "properties": [], "additionalProperties": False},
                {"type": "object", "properties": None, "additionalProperties": {"type": "number"}},
                {"type": "object", "properties": {"a": {"type": "integer"}}, "patternProperties": None},
            ]
        ),
    ),
    max_leaves=6,
)


def _looks_like_json(text: str) -> bool:
    stripped = text.strip()
    return stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]") and stripped != ""


def must_answer(value: Any, schema: Any, depth: int = 1) -> bool:
    """Where the native path must answer (conservative: False where unsure):
    simple schemas all the way down, no string to parse as JSON, no object
    read as an XML-shaped list, no huge integer."""
    if depth > 60 or (type(value) is int and abs(value) >= 10**600):
        return False
    if isinstance(value, list) and any(type(v) is int and abs(v) >= 10**600 for v in value):
        return False
    if schema is None or schema is True:
        if type(value) is str:
            return not _looks_like_json(value)
        if type(value) is list:
            return all(must_answer(v, None, depth + 1) for v in value)
        if type(value) is dict:
            return all(must_answer(v, None, depth + 1) for v in value.values())
        return True
    if schema is False:
        schema = {"not": {}}
    if type(schema) is not dict or schema.keys() & NOT_SIMPLE:
        return False
    declared = schema.get("type")
    names = declared if type(declared) is list else [declared]
    if declared is not None and not all(type(n) is str for n in names):
        return False
    kinds = types_of(schema)
    kind = json_type(value)
    if "enum" in schema:  # (read only where a string is found among the enum's strings)
        return declared is not None and "string" in kinds and _enum_holds(schema["enum"], value)
    if type(value) is str:
        if "object" in kinds and not {"array", "string"} & kinds:
            return _json_object_read(value, schema, depth)
        if not applies(value, {"type": sorted(kinds)}) and "string" not in kinds:
            return False
        return "string" in kinds or not {"array", "object"} & kinds
    if kind in kinds or (kind == "integer" and "number" in kinds):
        if kind == "array":
            items = schema.get("items")
            if items is None or items is True:
                return True
            return type(items) in (dict, bool) and all(must_answer(v, items, depth + 1) for v in value)
        if kind == "object":
            properties = schema.get("properties")
            additional = schema.get("additionalProperties")
            if not (_json_shaped(properties) and _json_shaped(additional)):
                return False  # (a keyword whose value is no JSON value: the native path declines it)
            properties = properties if type(properties) is dict else {}
            for k, v in value.items():
                if k in properties:
                    ok = must_answer(v, properties[k], depth + 1)
                elif type(additional) is dict:
                    ok = must_answer(v, additional, depth + 1)
                else:
                    ok = must_answer(v, None, 1) if additional is False else True
                if not ok:
                    return False
        return True
    if kind == "number" and "integer" in kinds and float(value).is_integer():
        return True
    if "array" in kinds:
        return kind != "object" and must_answer([value], schema, depth)
    if "string" in kinds and kind != "null":
        return True
    return True


def _json_shaped(value: Any) -> bool:
    """A keyword's value the native path reads (anything else, such as the
    ``UNTOUCHED`` marker, it declines: Python's own test of it may differ)."""
    return value is None or type(value) in (dict, list, str, int, float, bool, tuple)


def _enum_holds(values: Any, value: Any) -> bool:
    if type(values) is not list or type(value) is not str:
        return False
    for item in values:
        if type(item) is str and item == value:
            return True
        if type(item) not in (type(None), bool, int, float, list, dict):
            return False
    return False


def _json_object_read(text: str, schema: Any, depth: int) -> bool:
    """A string under an object schema: read where json reads it as an object
    the native reader builds (no NaN, no escaped surrogate, nothing huge)."""
    try:
        parsed = json.loads(text.strip())
    except (ValueError, RecursionError):
        return False
    if type(parsed) is not dict or "NaN" in text or "Infinity" in text or "\\ud" in text.lower():
        return False
    return must_answer(parsed, schema, depth)


def check_coerce_value(value: Any, schema: Any, key: str, *, must: bool) -> None:
    try:
        want_value, want_issues = coerce_at(value, schema, ROOT, _child_path("$", key), 1)
    except Exception:
        assert _native._coerce_value(value, schema, ROOT, key) is None
        return
    got = _native._coerce_value(value, schema, ROOT, key)
    if got is None:
        assert not must, "declined where the fast path applies"
        return
    coerced, issues = got
    assert same(coerced, want_value), (coerced, want_value)
    assert [(i.path, i.expected, i.got, i.action) for i in issues] == [
        (i.path, i.expected, i.got, i.action) for i in want_issues
    ]
    assert all(type(i) is type(w) for i, w in zip(issues, want_issues, strict=True))
    # (what the host writes next: the same canonical JSON)
    canonical = _native._canonical_value(coerced)
    if canonical is not None:
        assert canonical == canonical_json(want_value)


@SETTINGS
@given(value=member_values, schema=member_schemas, key=keys)
@example(value=3, schema={"type": "integer"}, key="days")
@example(value=3.0, schema={"type": "integer"}, key="days")
@example(value=1e300, schema={"type": ["integer", "null"]}, key="n")
@example(value=2.5, schema={"type": "integer"}, key="n")
@example(value=True, schema={"type": "integer"}, key="n")
@example(value=None, schema={"type": "string"}, key="n")
@example(value=None, schema={"type": "array"}, key="n")
@example(value=[1, {"a": "x"}], schema={"type": "string"}, key="n")
@example(value=7, schema={"type": ["array", "string"], "items": {"type": "string"}}, key="n")
@example(
    value={"a": "1", "b": 2}, schema={"type": "object", "properties": {"a": {"type": "integer"}}}, key="o"
)
@example(value={"a": 1, "é": [1] * 40}, schema={"type": "object", "additionalProperties": False}, key="o")
@example(value={"a": "[1]"}, schema=None, key="o")
@example(value=["1", "x", 2.0], schema={"type": "array", "items": {"type": "integer"}}, key="a")
@example(value={"item": [1]}, schema={"type": "array"}, key="a")
@example(value=[1, "\ud800" * 70], schema={"type": "integer"}, key="a")
@example(value={}, schema={"type": "object", "properties": {}, "additionalProperties": UNTOUCHED}, key="days")
def test_coerce_value_under_drawn_schemas(value: Any, schema: Any, key: str) -> None:
    check_coerce_value(value, schema, key, must=must_answer(value, schema))


@SETTINGS
@given(text=texts, schema=member_schemas, key=keys)
def test_coerce_value_of_a_str_is_coerce_text(text: str, schema: Any, key: str) -> None:
    check_coerce_value(text, schema, key, must=must_answer(text, schema))
    fast = _native._coerce_value(text, schema, ROOT, key)
    slow = _native._coerce_text(text, schema, ROOT, key)
    assert (fast is None) == (slow is None)


def test_coerce_value_declines_what_it_does_not_read() -> None:
    for value, schema in [
        ({"item": [1]}, {"type": "array"}),
        ({"0": 1, "1": 2}, {"type": ["array", "null"]}),
        ([1], {"type": "array", "prefixItems": [{"type": "integer"}]}),
        ([1], {"type": "array", "items": [{"type": "integer"}]}),
        ({"a": 1}, {"type": "object", "patternProperties": {"a": {"type": "string"}}}),
        ([1], {"type": "array", "items": {"anyOf": [{"type": "integer"}]}}),
        ({"a": "[1]"}, None),
        (["a, b"], {"type": "array", "items": {"type": "array"}}),
        ((1,), {"type": "array"}),
        (_Int(1), {"type": "integer"}),
        (_List([1]), {"type": "array"}),
        (_Dict({"a": 1}), {"type": "object"}),
        ({1: 2}, {"type": "object"}),
        ({1: 2}, None),
        ([10**5000], {"type": "integer"}),
    ]:
        assert _native._coerce_value(value, schema, ROOT, "k") is None, (value, schema)
    # (deep values: past coercion's max_depth, run reports and no_schema keeps: declined, or the same)
    deep_array: dict[str, Any] = {"type": "array", "items": None}
    for _ in range(6):
        deep_array = {"type": "array", "items": deep_array}
    for value, schema in [
        (_nested(70), None),
        (_nested(70), {"type": ["object", "array"]}),
        ([[[[[[[[1]]]]]]]], deep_array),
        ([[[[[[[["x"]]]]]]]], deep_array),
    ]:
        check_coerce_value(value, schema, "k", must=False)
    assert _native._coerce_value([1], {"type": "array", "items": {"type": "integer"}}, ROOT, "k") is not None


# -- canonical_value -------------------------------------------------------------------------------

scalars = st.one_of(
    st.text(any_char, max_size=40),
    st.integers(),
    st.integers(min_value=-(10**200), max_value=10**200),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(width=32),
    st.builds(lambda m, e: m * 2.0**e, st.integers(-(2**53), 2**53), st.integers(-1100, 1000)).filter(
        math.isfinite
    ),
    st.booleans(),
    st.none(),
)


class _Int(int):
    pass


class _Float(float):
    pass


@SETTINGS
@given(value=scalars)
@example(value=575820270870527.25)
@example(value=1e16)
@example(value=1e-5)
@example(value=-0.0)
@example(value=10**4299)
@example(value='\ud800\udc00\x00\x1f\x7f"\\é😀')
def test_canonical_value_is_canonical_json(value: Any) -> None:
    got = _native._canonical_value(value)
    assert got is not None  # (every exact scalar Python writes)
    assert got == canonical_json(value)


containers = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(any_char, max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@SETTINGS
@given(value=containers)
@example(value=[])
@example(value={})
@example(value=[[], {}, [{}], {"": []}])
@example(value={"a": [1, 2.5, True, None, "\ud800"], "b": {"c": -0.0, "d": float("nan")}, "a\x00": 1e16})
@example(value=[float("inf"), float("-inf"), 10**4299, -(10**300)])
def test_canonical_value_of_lists_and_dicts(value: Any) -> None:
    got = _native._canonical_value(value)
    assert got is not None  # (every list and dict of exact scalars, str keys)
    assert got == canonical_json(value)


def _nested(depth: int) -> Any:
    value: Any = 1
    for k in range(depth):
        value = [value] if k % 2 else {"k": value}
    return value


def test_canonical_value_nesting() -> None:
    for depth in [1, 2, 50, 99, 100]:
        value = _nested(depth)
        assert _native._canonical_value(value) == canonical_json(value)
    deep = _nested(101)
    assert _native._canonical_value(deep) is None
    assert canonical_json(deep).count("[") == 50  # (Python's writes it: its call then does)


def test_canonical_value_declines_everything_else() -> None:
    circular: list[Any] = [1]
    circular.append(circular)
    for value in [
        (1,),
        _Str("a"),
        _Int(1),
        _Float(1.5),
        object(),
        b"x",
        1j,
        [(1,)],
        [1, _Str("a")],
        {"a": [1, object()]},
        {1: 2},
        {"a": 1, 2: 3},
        {_Str("a"): 1},
        _List([1]),
        _Dict({"a": 1}),
        [10**5000],
        {"a": 10**5000},
        circular,
    ]:
        assert _native._canonical_value(value) is None, repr(value)[:40]
    assert _native._canonical_value(10**5000) is None  # (Python's repr raises: its call then does)
    with pytest.raises(ValueError, match="Exceeds the limit"):
        canonical_json(10**5000)


# -- loads -----------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(any_char, max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(any_char, max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


def dumped(value: Any, style: int) -> str:
    if style == 0:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if style == 1:
        return json.dumps(value, ensure_ascii=False)
    if style == 2:
        return json.dumps(value)  # (ASCII: \u escapes, surrogate pairs among them)
    return json.dumps(value, ensure_ascii=False, indent=1)


def check_loads(text: str, *, must: bool) -> None:
    try:
        want: Any = json.loads(text)
    except (ValueError, RecursionError) as exc:
        assert _native._loads_native(text) is None
        with pytest.raises(type(exc)) as raised:
            _native._loads_canonical(text)
        assert str(raised.value) == str(exc)
        return
    got = _native._loads_native(text)
    if got is None:
        assert not must, "declined canonical JSON"
    else:
        assert same(got[0], want), (got[0], want)
    assert same(_native._loads_canonical(text), want)


@SETTINGS
@given(value=json_values, style=st.integers(0, 3))
def test_loads_of_dumped_values(value: Any, style: int) -> None:
    text = dumped(value, style)
    # (canonical text with no \u escape of a surrogate is always read natively)
    check_loads(text, must=style != 2 and "\\ud" not in text.lower())


@SETTINGS
@given(
    value=json_values,
    edits=st.lists(st.tuples(st.integers(0, 10**6), st.text(any_char, max_size=2)), max_size=3),
)
def test_loads_of_broken_texts(value: Any, edits: list[tuple[int, str]]) -> None:
    text = dumped(value, 0)
    for at, insert in edits:
        at %= len(text) + 1
        text = text[:at] + insert + text[at + 1 :]
    check_loads(text, must=False)


@pytest.mark.parametrize(
    "text",
    [
        '{"a":1,"b":2,"a":3}',
        '{"a":{"x":1},"a":[1]}',
        ' \t\n{ "a" : [ 1 , 2 ] , "b" : { } , "c" : [ ] } \r\n',
        '"\\ud83d\\ude00"',
        '"\\ud83d"',
        '"\\ud83dx"',
        '"\\ude00\\ud83d"',
        '"\ud83d\ude00"',
        '"a\\/b\\b\\f\\n\\r\\t\\"\\\\\\u00e9\\u0000"',
        '"\\u00E9\\u00e9"',
        "[1.5e3, -0.0, 0e0, 1E-2, 1e400, -1e400, 123456789012345678901234567890]",
        "[" + "9" * 4300 + "]",
        "[" + "9" * 4301 + "]",
        "[NaN, Infinity, -Infinity]",
        "[1.]",
        "[.5]",
        "[01]",
        "[-]",
        "[1e]",
        "[1,]",
        '{"a":1,}',
        "{,}",
        "",
        " ",
        "\ufeff{}",
        "[1] x",
        '"\x01"',
        '"\t"',
        '"abc',
        "tru",
        "nulls",
        "[" * 100 + "]" * 100,
        "[" * 101 + "]" * 101,
        "[" * 5000 + "]" * 5000,
        '{"a":' * 150 + "1" + "}" * 150,
        "\u00a0[]",
        "[\u2028]",
    ],
)
def test_loads_edges(text: str) -> None:
    check_loads(text, must=False)


def test_loads_reads_canonical_text_natively() -> None:
    for text in [
        '{"city":"Paris","days":3}',
        '{"a":[1,2.5,true,null,"\ud800"],"b":{}}',
        "[]",
        '"x"',
        "-0",
        "0",
    ]:
        assert _native._loads_native(text) is not None, text


# -- the native engine takes the fast paths --------------------------------------------------------


def _calls(engine: str, text: str) -> list[ToolCall]:
    return tool_calls_in_sevens("qwen3-coder", text, engine)


def test_fifty_calls_take_the_fast_paths() -> None:
    text = "".join(
        f"<tool_call>\n<function=get_weather>\n<parameter=city>\nParis {i}\n</parameter>\n"
        f"<parameter=days>\n {i} \n</parameter>\n</function>\n</tool_call>\n"
        for i in range(50)
    )
    want = _calls("python", text)
    _native._fast_counts(reset=True)
    got = _calls("native", text)
    counts = _native._fast_counts(reset=True)
    assert [(c.name, c.arguments, c.issues) for c in got] == [(c.name, c.arguments, c.issues) for c in want]
    assert len(got) == 50 and got[3].arguments == {"city": "Paris 3", "days": 3}
    # (each call's arguments read into Python objects; its members were coerced
    # and written by the core's coercion, with no Python object)
    assert counts["coerce"] == counts["canonical"] == (0, 0)
    assert counts["loads"] == (50, 0)


# Member calls as three grammars write them: (grammar, a call's text from its name and members).
MEMBER_GRAMMARS = {
    "qwen3-coder": lambda name, members: (
        f"<tool_call>\n<function={name}>\n"
        + "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in members)
        + "</function>\n</tool_call>"
    ),
    "xml": lambda name, members: (
        f"<tool_call><{name}>" + "".join(f"<{k}>{v}</{k}>" for k, v in members) + f"</{name}></tool_call>"
    ),
    "minimax": lambda name, members: (
        f'<minimax:tool_call><invoke name="{name}">'
        + "".join(f'<parameter name="{k}">{v}</parameter>' for k, v in members)
        + "</invoke></minimax:tool_call>"
    ),
}
member_texts = (padded | number_texts | word_texts | entity_texts | st.text(any_char, max_size=20)).filter(
    lambda t: "<" not in t
)


@settings(max_examples=EXAMPLES // 2, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    grammar=st.sampled_from(sorted(MEMBER_GRAMMARS)),
    schemas=st.lists(
        simple_schemas | other_schemas.filter(lambda s: isinstance(s, dict)), min_size=1, max_size=4
    ),
    data=st.data(),
)
def test_member_values_give_the_same_events_through_both_engines(
    grammar: str, schemas: list[Any], data: st.DataObject
) -> None:
    properties = {f"p{k}": schema for k, schema in enumerate(schemas)}
    tools = [{"name": "f", "parameters": {"type": "object", "properties": properties}}]
    calls = data.draw(
        st.lists(
            st.lists(st.tuples(st.sampled_from(sorted(properties)), member_texts), max_size=4),
            min_size=1,
            max_size=3,
        )
    )
    text = "\n".join(MEMBER_GRAMMARS[grammar]("f", members) for members in calls)
    check_engines(grammar, data.draw(splits(text)), tools=tools)
