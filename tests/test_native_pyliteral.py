"""The native reader of Python literals against ``toolparse.readers.pyliteral``.

``native/src/pyliteral.rs`` is a transliteration of ``parse_literal``: the
same value (with the same types: ``int``, ``float``, ``bool``, None, ``str``,
``list``, ``dict``, keys in order) or the same ``LiteralError`` message, or a
decline (None) where the interpreter decides (a decimal integer past 640
digits, nesting past 200). Each test draws texts (literals written in every
style: string prefixes and quotes, every escape, numbers of every shape, the
six words, tuples, sets, dicts with keys of every kind; broken and random
texts made of the same pieces; mutations of valid ones) and asserts that
every answer given equals Python's, and that it is given wherever it must
be. Last, pythonic calls through the native engine must read their members
without calling a Python function, and both engines must give the same
events for drawn pythonic outputs.
"""

from __future__ import annotations

import importlib
import math
import re
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from support import tool_calls_in_sevens
from toolparse import ToolCall
from toolparse.engine import native
from toolparse.fuzz import splits
from toolparse.invariants import check_engines
from toolparse.readers.pyliteral import LiteralError, parse_literal

_native: Any = importlib.import_module("toolparse._native") if native.AVAILABLE else None

pytestmark = pytest.mark.skipif(
    _native is None or not hasattr(_native, "_parse_literal"),
    reason="the native core (toolparse._native) is not built in this installation",
)

EXAMPLES = 500
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

# Every code point, surrogates too (what a Python str can hold).
any_char = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=())


def same(a: Any, b: Any) -> bool:
    """Equal, with the same types all the way down (1, 1.0 and True differ; a
    dict's key order counts; -0.0 differs from 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


_LONG_DIGITS = re.compile(r"[0-9a-fA-F_]{600}")


def check(text: str, max_depth: int = 64, *, must: bool | None = None) -> Any:
    """The native answer for ``text`` is Python's, or a decline where one is
    allowed (``must``: by default, wherever no number is long, no ``\\N``
    escape asks for a character name, and the depth is within the native
    bound). Returns Python's value or message."""
    if must is None:
        must = max_depth <= 150 and _LONG_DIGITS.search(text) is None and "\\N" not in text
    try:
        want: Any = parse_literal(text, max_depth=max_depth)
        problem = None
    except LiteralError as exc:
        want, problem = None, str(exc)
    except (ValueError, RecursionError):
        # (not the reader's own error: the interpreter's, which the native side leaves to it)
        assert _native._parse_literal(text, max_depth) is None
        return None
    got = _native._parse_literal(text, max_depth)
    if got is None:
        assert not must, f"declined {text[:80]!r}"
        return problem if problem is not None else want
    value, message = got
    assert message == problem, (text[:80], message, problem)
    if problem is None:
        assert same(value, want), (text[:80], value, want)
    return problem if problem is not None else want


# -- the pieces literals are written with ----------------------------------------------------------

SPACE = st.sampled_from(["", "", " ", "  ", "\t", "\n", "\r\n", " \n "])
PREFIXES = ["", "", "", "r", "R", "b", "B", "u", "U", "rb", "Rb", "bR", "BR", "br", "ur", "f", "rf", "bu"]
QUOTES = ["'", '"', "'''", '"""']
ESCAPES = [
    "\\\\", "\\'", '\\"', "\\a", "\\b", "\\f", "\\n", "\\r", "\\t", "\\v", "\\\n", "\\\r\n", "\\0", "\\7",
    "\\08", "\\101", "\\777", "\\1234", "\\8", "\\9", "\\x41", "\\xe9", "\\x4", "\\xg1", "\\X41", "\\u00e9",
    "\\u00E9", "\\ud800", "\\udc00", "\\ud83d\\ude00", "\\u12", "\\U0001F600", "\\U0010ffff", "\\U00110000",
    "\\U0001f60", "\\N{DASH}", "\\q", "\\ ", "\\é", "\\\ud800", "\\",
]  # fmt: skip
BODY_BITS = ["a", "Paris", " ", "é", "😀", "\ud800", "\n", "'", '"', "''", '""', "'''", '"""', "\\", "x" * 30]


@st.composite
def strings(draw: st.DrawFn) -> str:
    """A string literal, well formed or not: a prefix, a quote, a body of
    plain text, escapes and quotes, and the closing quote (or another, or none)."""
    prefix = draw(st.sampled_from(PREFIXES))
    quote = draw(st.sampled_from(QUOTES))
    body = draw(
        st.lists(
            st.sampled_from(ESCAPES) | st.sampled_from(BODY_BITS) | st.text(any_char, max_size=3), max_size=6
        )
    )
    close = draw(st.sampled_from([quote, quote, quote, quote[:1], "", "'" if quote[0] == '"' else '"']))
    return prefix + quote + "".join(body) + close


digit_runs = st.text(st.sampled_from("0123456789_"), min_size=1, max_size=8)


@st.composite
def numbers(draw: st.DrawFn) -> str:
    """A number of any shape `_NUMBER` reads, or almost reads."""
    sign = draw(st.sampled_from(["", "", "+", "-", "--", "+-"]))
    kind = draw(st.integers(0, 6))
    if kind == 0:
        body = draw(st.sampled_from(["0x", "0X", "0o", "0O", "0b", "0B", "0x_", "0b_", "0o_"])) + draw(
            st.text(st.sampled_from("0123456789abcdefABCDEFgxo_"), max_size=8)
        )
    elif kind == 1:
        body = draw(digit_runs)
    elif kind == 2:
        body = draw(digit_runs) + "." + draw(st.text(st.sampled_from("0123456789_"), max_size=6))
    elif kind == 3:
        body = "." + draw(st.text(st.sampled_from("0123456789_"), max_size=6))
    elif kind == 4:
        body = repr(draw(st.floats(allow_nan=False)))
    elif kind == 5:
        body = str(draw(st.integers() | st.integers(-(10**40), 10**40)))
    else:
        body = draw(
            st.sampled_from(["1", "0", "9" * 19, "9" * 20, "18446744073709551616", "9223372036854775808"])
        )
    if draw(st.booleans()):
        body += draw(st.sampled_from(["e", "E"])) + draw(st.sampled_from(["", "+", "-", "_"]))
        body += draw(st.text(st.sampled_from("0123456789_"), max_size=4))
    return sign + body


WORDS = [
    "True", "False", "None", "true", "false", "null", "TRUE", "none", "inf", "nan", "Infinity", "x", "_",
    "_1", "f(", "f (", "get(x=1)", "os.system('x')", "a.b", "lambda", "...", "Ellipsis",
]  # fmt: skip
OTHERS = [
    ",", ":", "]", ")", "}", "[", "(", "{", "=", "-", "+", ".", "#", "\\", "@", "*", "é", "\ud800", "\x00",
]  # fmt: skip

scalar_texts = strings() | numbers() | st.sampled_from(WORDS)


def _joined(draw: st.DrawFn, items: list[str], open_: str, close: str) -> str:
    pieces = [open_]
    for k, item in enumerate(items):
        pieces.append(draw(SPACE) + item + draw(SPACE))
        if k < len(items) - 1 or draw(st.booleans()):
            pieces.append(",")
    pieces.append(draw(SPACE) + close)
    return "".join(pieces)


def containers(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    @st.composite
    def build(draw: st.DrawFn) -> str:
        items = draw(st.lists(inner, max_size=4))
        kind = draw(st.integers(0, 3))
        if kind == 0:
            return _joined(draw, items, "[", "]")
        if kind == 1:
            return _joined(draw, items, "(", ")")
        if kind == 2:
            return _joined(draw, items, "{", "}")  # (a set)
        keys = draw(st.lists(inner, min_size=len(items), max_size=len(items)))
        pairs = [f"{k}{draw(SPACE)}:{draw(SPACE)}{v}" for k, v in zip(keys, items, strict=True)]
        return _joined(draw, pairs, "{", "}")

    return build()


literal_texts = st.recursive(scalar_texts, containers, max_leaves=12)
token_soup = st.lists(
    scalar_texts | st.sampled_from(OTHERS) | SPACE | st.text(any_char, max_size=2), max_size=14
).map("".join)


# -- the reader ------------------------------------------------------------------------------------


@SETTINGS
@given(text=literal_texts, left=SPACE, right=SPACE)
def test_drawn_literals(text: str, left: str, right: str) -> None:
    check(left + text + right)


@SETTINGS
@given(text=token_soup)
def test_drawn_token_soup(text: str) -> None:
    check(text)


@SETTINGS
@given(
    text=literal_texts,
    edits=st.lists(st.tuples(st.integers(0, 10**6), st.text(any_char, max_size=2)), min_size=1, max_size=3),
)
def test_drawn_literals_broken(text: str, edits: list[tuple[int, str]]) -> None:
    for at, insert in edits:
        at %= len(text) + 1
        text = text[:at] + insert + text[at + 1 :]
    check(text)


@SETTINGS
@given(text=st.text(any_char, max_size=30))
def test_drawn_texts(text: str) -> None:
    check(text)


@SETTINGS
@given(text=literal_texts, max_depth=st.integers(-2, 8))
def test_max_depth(text: str, max_depth: int) -> None:
    check(text, max_depth)


@SETTINGS
@given(
    value=st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(any_char, max_size=8),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.text(any_char, max_size=4), inner, max_size=4)
            | st.lists(inner, max_size=3).map(tuple)
        ),
        max_leaves=16,
    )
)
def test_reprs_read_back(value: Any) -> None:
    """Python's own repr of a value (a tuple is read as a list) is read as
    Python reads it."""
    check(repr(value), must=True)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "[get_weather]",
        "'Paris'",
        ' "Paris" ',
        "'a' \"b\" r'\\c' b'd'",
        "'a' 'b",
        "'''a\nb'''",
        '"""a""""',
        '""""',
        '""',
        "''''''",
        "'a\nb'",
        "'a\\\nb'",
        "'a\\nb\nc\\n'",
        "'\\'",
        "r'\\'",
        "r'\\''",
        "r'a\\",
        "'\\x4'",
        "'\\x41\\u00e9\\U0001F600\\101\\400\\8'",
        "'\\ud83d\\ude00'",
        "'\\U00110000'",
        "'\\N{BULLET}'",
        "'\\",
        '"\\"\\"\\""',
        "'''\\''''",
        "u'x' ur'y'",
        "f'x'",
        "1_000",
        "0x10",
        "0X_fF",
        "-0o17",
        "0b",
        "0b2",
        "0x",
        "0xg",
        "0_7",
        "1e5",
        "1E+5",
        "1e",
        "1e_",
        "1e+_",
        "1e-5_",
        "-0.0",
        "+.5",
        ".5",
        "5.",
        "._5",
        "1._5",
        "1.e5",
        "1e400",
        "-1e400",
        "1e-400",
        "--1",
        "-",
        "+",
        ".",
        "..5",
        "1.2.3",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616",
        "0x" + "f" * 16,
        "0x1" + "0" * 16,
        "-0x8000000000000000",
        "-0x8000000000000001",
        "9" * 640,
        "9" * 641,
        "0" * 640 + "1",
        "9" * 4300,
        "9" * 4301,
        "-" + "9" * 4302,
        "9" * 4304,
        "0x" + "f" * 3571,
        "0x" + "f" * 3572,
        "0x" + "f" * 3600,
        hex(10**4300 - 1),
        hex(10**4300),
        "0b1" + "0" * 14284,
        "0b1" + "0" * 14283,
        "0o7" + "0" * 4300,
        "True",
        "true",
        "None",
        "null",
        "TRUE",
        "inf",
        "nan",
        "x",
        "get_weather(city='x')",
        "f ()",
        "f\n(",
        "[1, 2, 3]",
        "[1, 2, 3,]",
        "[,]",
        "[1,,2]",
        "[1 2]",
        "(1)",
        "(1,)",
        "()",
        "((1))",
        "(1 2)",
        "([1])",
        "{}",
        "{1, 2}",
        "{1, 2,}",
        "{1: 2, 3}",
        "{1, 2: 3}",
        "{'a': 1, 'a': 2}",
        "{1: 'a', 1.0: 'b', True: 'c', None: 'd', 'true': 'e', -0.0: 'f', 1e100: 'g', 0x10: 'h'}",
        "{" + "9" * 30 + ": 1}",
        "{(1): 2, ('k'): 3}",
        "{[1]: 2}",
        "{{}: 2}",
        "{(1,): 2}",
        "{'a' 'b': 1}",
        "{'a': }",
        "{'a'",
        "{'a':1",
        "[1",
        "[",
        "(",
        "{",
        "]",
        "[1] x",
        "[1]]",
        "'x' " + "y" * 30,
        "1 2",
        "[\n1,\r\n2\t]",
        "[1, \x0b2]",
        "[1,\xa02]",
        "é",
        "\ud800",
        "[" * 64 + "]" * 64,
        "[" * 63 + "]" * 63,
        "{'a': " * 40 + "1" + "}" * 40,
        "[" * 300 + "]" * 300,
    ],
)
def test_edges(text: str) -> None:
    check(text)


@pytest.mark.parametrize("max_depth", [-1, 0, 1, 2, 63, 64, 100, 199, 200, 201, 1000])
def test_depths(max_depth: int) -> None:
    for depth in [0, 1, 2, 3, 62, 63, 64, 65, 99, 100, 101, 198, 199, 200, 201, 202, 300]:
        check("[" * depth + "1" + "]" * depth, max_depth, must=max_depth <= 200 and depth < 200)
        check("(" * depth + "1" + ")" * depth, max_depth, must=max_depth <= 200 and depth < 200)
        check("{'a': " * depth + "1" + "}" * depth, max_depth, must=max_depth <= 200 and depth < 100)


def test_big_integers_are_python_ints() -> None:
    value, message = _native._parse_literal("[" + "9" * 600 + ", -0x" + "f" * 300 + ", 0b" + "1" * 70 + "]")
    assert message is None
    assert value == [int("9" * 600), -int("f" * 300, 16), 2**70 - 1]
    assert all(type(v) is int for v in value)


@pytest.mark.parametrize("limit", [640, 1000, 0])
def test_int_digit_limit(limit: int) -> None:
    """Past 640 digits ``int()`` reads a decimal or not as
    ``sys.get_int_max_str_digits()`` says: the native reader declines; hex,
    octal and binary have no limit, and neither has ``str()`` of a key read
    natively."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(limit)
    try:
        for text in [
            "7" * 3000,
            "0" * 700 + "5",
            "-" + "0" * 641 + "5",
            "9" * 640,
            "[" + "9" * 650 + "]",
            "0x" + "f" * 3000,
            "{0x" + "f" * 3000 + ": 1}",
            "{" + "9" * 600 + ": 1}",
            "{0x" + "f" * 30 + ": 1}",
            "{0b" + "1" * 2200 + ": 1}",
        ]:
            check(text)
    finally:
        sys.set_int_max_str_digits(old)


def test_repr_is_pythons() -> None:
    every = "".join(map(chr, range(0x110000)))
    assert _native._repr(every) == repr(every)
    for text in ["", "'", '"', "'\"", "a'b", 'a"b', "\\", "\t\n\r\x00\x1f\x7f\x80\xa0\xad", "\ud800\udfff"]:
        assert _native._repr(text) == repr(text)


# -- through the engine ----------------------------------------------------------------------------


def _calls(engine: str, text: str) -> list[ToolCall]:
    return tool_calls_in_sevens("pythonic", text, engine)


def _python_functions() -> set[Any]:
    """The code objects of the Python functions a pythonic member's value may call."""
    from toolparse import events
    from toolparse.coercion import inline
    from toolparse.readers import pyliteral

    coerce = importlib.import_module("toolparse.coercion.coerce")
    return {
        pyliteral.parse_literal.__code__,
        pyliteral._Reader.value.__code__,
        inline.coerce_at.__code__,
        coerce._Coercer.run.__code__,
        events.canonical_json.__code__,
    }


def test_fifty_pythonic_calls_call_no_python_function() -> None:
    text = "[" + ", ".join(f'get_weather(city="Paris {i}", days={i})' for i in range(50)) + "]"
    want = _calls("python", text)
    watched = _python_functions()
    called: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in watched:
            called.append(frame.f_code.co_qualname)

    _native._fast_counts(reset=True)
    sys.setprofile(profile)
    try:
        got = _calls("native", text)
    finally:
        sys.setprofile(None)
    counts = _native._fast_counts(reset=True)
    assert [(c.name, c.arguments, c.issues) for c in got] == [(c.name, c.arguments, c.issues) for c in want]
    assert len(got) == 50 and got[3].arguments == {"city": "Paris 3", "days": 3}
    assert called == []
    # (each call's arguments read into Python objects; its two members were read,
    # coerced and written by the core, with no Python object)
    assert counts["convert"] == counts["coerce"] == counts["canonical"] == (0, 0)
    assert counts["loads"] == (50, 0)


SCHEMAS = [
    {"type": "string"},
    {"type": "integer"},
    {"type": "number"},
    {"type": "boolean"},
    {"type": ["integer", "null"]},
    {"type": ["string", "integer"]},
    {"type": "array", "items": {"type": "integer"}},
    {"type": "array"},
    {"type": "object", "properties": {"a": {"type": "integer"}}},
    {"type": "object", "additionalProperties": False},
    {},
    {"enum": ["a", "b"]},
    {"anyOf": [{"type": "integer"}, {"type": "null"}]},
]
member_literals = literal_texts.filter(lambda t: len(t) < 80)


def _pythonic(grammar: str, calls: list[list[tuple[str, str]]]) -> str:
    listed = ", ".join("f(" + ", ".join(f"{k}={v}" for k, v in members) + ")" for members in calls)
    if grammar == "lfm2":
        return f"<|tool_call_start|>[{listed}]<|tool_call_end|>"
    if grammar == "olmo3":
        return (
            "<function_calls>\n"
            + "\n".join("f(" + ", ".join(f"{k}={v}" for k, v in members) + ")" for members in calls)
            + "\n</function_calls>"
        )
    return f"[{listed}]"


@settings(max_examples=EXAMPLES // 2, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    grammar=st.sampled_from(["pythonic", "lfm2", "llama4_pythonic", "olmo3"]),
    schemas=st.lists(st.sampled_from(SCHEMAS), min_size=1, max_size=3),
    declared=st.booleans(),
    data=st.data(),
)
@example(grammar="pythonic", schemas=[{"type": "integer"}], declared=True, data=None)
def test_pythonic_outputs_give_the_same_events_through_both_engines(
    grammar: str, schemas: list[Any], declared: bool, data: st.DataObject | None
) -> None:
    properties = {f"p{k}": schema for k, schema in enumerate(schemas)}
    tools = [{"name": "f", "parameters": {"type": "object", "properties": properties}}] if declared else None
    if data is None:  # (the explicit example: one call, read whole)
        check_engines(grammar, [_pythonic(grammar, [[("p0", "[1, 2.5, 'x']")]])], tools=tools)
        return
    calls = data.draw(
        st.lists(
            st.lists(st.tuples(st.sampled_from([*properties, "q"]), member_literals), max_size=3),
            min_size=1,
            max_size=3,
        )
    )
    text = _pythonic(grammar, calls)
    check_engines(grammar, data.draw(splits(text)), tools=tools)
