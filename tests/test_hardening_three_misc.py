"""Issue 51, items 8, 11 and 16: the Markdown state of a long unclosed thought,
a tool's schema changed between two parsers, and the minor ones (an
``id_factory`` that raises, pythonic ``\\N{...}`` escapes, ``max_depth`` at its
maximum). Each on both engines, the native core giving the Python reference's
events (``check_engines``)."""

from __future__ import annotations

from typing import Any

import pytest

from support import calls_of
from toolparse import StreamParser, ToolCall, ToolCallError
from toolparse.engine import native
from toolparse.engine.thought import WINDOW
from toolparse.invariants import check_engines, normalize, run

BUILT = ["python", "native"] if native.AVAILABLE else ["python"]
needs_native = pytest.mark.skipif(not native.AVAILABLE, reason="the native core is not built here")

# -- 8: the Markdown state of an unclosed thought is followed over all of it, not only its last window

CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
PARIS = [("get_weather", {"city": "Paris"})]
LINES = "a line of thought\n" * (WINDOW // 18 + 100)  # (longer than the window)


def ids(*given: str) -> Any:
    """An id factory that gives these ids, in order."""
    names = iter(given)
    return lambda _index: next(names)


def found(events: list[Any]) -> tuple[list[Any], list[Any]]:
    """(the calls run, the calls reported as written in unclosed reasoning)"""
    ran = [(e.name, e.arguments) for e in events if isinstance(e, ToolCall)]
    told = [
        (e.name, e.arguments)
        for e in events
        if isinstance(e, ToolCallError) and e.reason == "call_in_unclosed_reasoning"
    ]
    return ran, told


def every_chunking(text: str, engine: str, **options: Any) -> list[Any]:
    """The events of ``text`` on ``engine``, the same whatever the deltas."""
    whole = run("hermes", [text], engine=engine, **options)
    for size in (7, 4096, 70_000):
        deltas = [text[i : i + size] for i in range(0, len(text), size)]
        assert normalize(run("hermes", deltas, engine=engine, **options)) == normalize(whole)
    return whole


EXAMPLES = {
    # (an example call in a code fence opened long before the thought's end, never closed)
    "fence": "<think>An example:\n```\n" + LINES + CALL + "\n",
    "tilde fence": "<think>An example:\n~~~~ json\n" + LINES + "~~~\n" + LINES + CALL + "\n",
    # (a blockquote line longer than the window: the window begins inside it)
    "quote": "<think>Quoting:\n> " + "x" * (WINDOW + 500) + CALL + "\n",
}


@pytest.mark.parametrize("engine", BUILT)
@pytest.mark.parametrize("case", sorted(EXAMPLES))
def test_an_example_in_markdown_opened_before_the_window_is_not_run(engine: str, case: str) -> None:
    text = EXAMPLES[case]
    assert found(every_chunking(text, engine, reasoning_calls="salvage")) == ([], [])
    assert found(every_chunking(text, engine)) == ([], [])


CALLS_STILL_FOUND = {
    # (a fence closed before the window: the call after it is a call)
    "closed fence": "<think>```\ncode\n```\n" + LINES + CALL,
    "closed long fence": "<think>```\n" + LINES + "```\n" + LINES + CALL,
    # (a quote line ended before the window)
    "quote line": "<think>> quoted " + CALL + "\n" + LINES + CALL,
    # (a fence written inside a call's value is the call's, not the Markdown's)
    "fence in a value": (
        '<think><tool_call>{"name": "get_weather", "arguments": {"city": "```"}}</tool_call>\n```\n'
        + LINES
        + "```\n"
        + CALL
    ),
}


@pytest.mark.parametrize("engine", BUILT)
@pytest.mark.parametrize("case", sorted(CALLS_STILL_FOUND))
def test_calls_after_markdown_that_ended_are_still_found(engine: str, case: str) -> None:
    text = CALLS_STILL_FOUND[case]
    assert found(every_chunking(text, engine, reasoning_calls="salvage")) == (PARIS, [])
    assert found(every_chunking(text, engine)) == ([], PARIS)


def test_a_value_whose_lines_look_like_a_fence_does_not_open_one() -> None:
    # (qwen3-coder: a file's content written by a call long before the end holds a
    # fence; the real call in the window is still found)
    tools = [
        {
            "name": "write",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            },
        }
    ]
    write = (
        "<tool_call>\n<function=write>\n<parameter=path>\na.md\n</parameter>\n"
        "<parameter=content>\n```\ncode\n</parameter>\n</function>\n</tool_call>\n"
    )
    text = "<think>" + write + LINES + write
    for engine in BUILT:
        events = run("qwen3-coder", [text], tools=tools, reasoning_calls="salvage", engine=engine)
        assert [c["name"] for c in calls_of(events)] == ["write"]


@needs_native
@pytest.mark.parametrize("mode", ["report", "salvage"])
def test_the_engines_agree_on_long_thoughts(mode: str) -> None:
    for text in [*EXAMPLES.values(), *CALLS_STILL_FOUND.values()]:
        for size in (len(text), 4096, 65_537):
            deltas = [text[i : i + size] for i in range(0, len(text), size)]
            check_engines("hermes", deltas, reasoning_calls=mode)


def test_salvaged_calls_are_numbered_as_the_parser_s_own_calls() -> None:
    # (a call of the thought that fails takes no index and no id: the salvaged one is call 0)
    broken = '<tool_call>{"name": "get_weather", "arguments": {"city": </tool_call>'
    for text in ("<think>" + broken + CALL, "<think>" + broken + LINES + LINES + broken + CALL):
        for engine in BUILT:
            parser = StreamParser(
                "hermes", reasoning_calls="salvage", engine=engine, id_factory=ids("first", "second", "third")
            )
            events = parser.feed(text) + parser.close()
            assert [(c.index, c.id) for c in events if isinstance(c, ToolCall)] == [(0, "first")]


# -- 11: a Tool keeps the schema it was made with, whatever its maker does to the dict afterwards

NUMBERS = '<tool_call>{"name": "f", "arguments": {"n": "5", "m": "6"}}</tool_call>'


def arguments(engine: str, tools: Any) -> list[Any]:
    events = run("hermes", [NUMBERS], tools=tools, engine=engine)
    return [(e.arguments, e.issues) for e in events if isinstance(e, ToolCall)]


@pytest.mark.parametrize("order", [BUILT, BUILT[::-1]])
def test_a_schema_changed_after_its_tool_was_made_changes_nothing(order: list[str]) -> None:
    from toolparse import Tool

    schema: dict[str, Any] = {"type": "object", "properties": {"n": {"type": "string"}}}
    tool = Tool("f", "", schema)
    strings = [({"n": "5", "m": "6"}, ())]
    for engine in order:
        assert arguments(engine, [tool]) == strings
    schema["properties"]["n"] = {"type": "integer"}
    schema["properties"]["m"] = {"type": "integer"}
    for engine in order:
        assert arguments(engine, [tool]) == strings  # (the prototype's path and the full one alike)
        assert arguments(engine, iter([tool])) == strings
    assert tool.parameters == {"type": "object", "properties": {"n": {"type": "string"}}}
    # a new Tool of the changed dict reads it
    changed = Tool("f", "", schema)
    for engine in order:
        ((given, issues),) = arguments(engine, [changed])
        assert given == {"n": 5, "m": 6} and len(issues) == 2
    if native.AVAILABLE:
        check_engines("hermes", [NUMBERS], tools=[tool])
        check_engines("hermes", [NUMBERS], tools=[changed])


def test_a_tool_s_own_schema_is_a_copy_equal_to_the_one_given() -> None:
    from toolparse import Tool

    schema: dict[str, Any] = {"type": "object", "properties": {"n": {"type": "number", "minimum": 1.5}}}
    tool = Tool("f", "", schema)
    assert tool.parameters == schema and tool.parameters is not schema
    assert tool == Tool("f", "", schema)
    assert type(tool.parameters["properties"]["n"]["minimum"]) is float


# -- 16: an id_factory that raises is the caller's error, named, not a parser bug


def failing_factory(index: int) -> str:
    raise KeyError(f"no id for {index}")


@pytest.mark.parametrize("engine", BUILT)
def test_an_id_factory_that_raises_is_a_misuse_error_naming_it(engine: str) -> None:
    from toolparse import InvalidOptionError

    parser = StreamParser("hermes", engine=engine, id_factory=failing_factory)
    with pytest.raises(InvalidOptionError, match=r"id_factory\(0\) raised KeyError: 'no id for 0'") as raised:
        parser.feed("Hi " + CALL)
    assert isinstance(raised.value.__cause__, KeyError)
    # the parser stays latched with the same error
    with pytest.raises(InvalidOptionError, match="id_factory"):
        parser.feed("more")
    with pytest.raises(InvalidOptionError, match="id_factory"):
        parser.close()


@needs_native
def test_the_engines_agree_on_a_failing_id_factory() -> None:
    for deltas in ([CALL], list(CALL), ["<think>" + CALL]):
        check_engines("hermes", deltas, id_factory=failing_factory, reasoning_calls="salvage")


# -- 16: pythonic \N{...} escapes are read as Python reads them


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        (r"'\N{BEL}'", "\a"),
        (r"'\N{latin small letter e with acute}t\N{LATIN SMALL LETTER E WITH ACUTE}'", "\u00e9t\u00e9"),
        (r"'\N{CJK UNIFIED IDEOGRAPH-4E00}\N{HYPHEN-MINUS}'", "\u4e00-"),
        (r"'\N{GRINNING FACE}!'", "\U0001f600!"),
        (r"r'\N{BEL}'", r"\N{BEL}"),  # (raw: kept as written, as Python keeps it)
        (r"'\N{BEL}}'", "\a}"),
    ],
)
@pytest.mark.parametrize("engine", BUILT)
def test_a_named_character_escape_is_the_character(literal: str, value: str, engine: str) -> None:
    assert eval(literal) == value  # (what Python itself reads)
    events = check_all_on(engine, "pythonic", f"[f(a={literal})]")
    assert calls_of(events) == [{"name": "f", "arguments": {"a": value}}]


@pytest.mark.parametrize(
    "literal",
    [
        r"'\N{NO SUCH CHARACTER}'",
        r"'\N{}'",
        r"'\N'",
        r"'\N{BEL'",
        "'\\N{" + "A" * 300 + "}'",
        r"'\N{LATIN CAPITAL LETTER A WITH MACRON AND GRAVE}'",
    ],  # (the last: a named sequence)
)
@pytest.mark.parametrize("engine", BUILT)
def test_a_named_character_python_refuses_fails_the_call(literal: str, engine: str) -> None:
    with pytest.raises(SyntaxError):
        eval(literal)
    events = check_all_on(engine, "pythonic", f"[f(a={literal})]")
    (error,) = [e for e in events if isinstance(e, ToolCallError)]
    assert r"a bad \N escape" in error.message and calls_of(events) == []


@needs_native
def test_the_readers_agree_on_named_characters() -> None:
    from toolparse._native import _parse_literal as reader  # (typed by toolparse/_native.pyi)
    from toolparse.readers.pyliteral import LiteralError, parse_literal

    for literal in [r"'\N{BEL}'", r"['\x4', '\N{BEL}']", r"['\N{BEL}', '\x4']", r"r'\N{BEL}'", "'a'"]:
        try:
            expected: Any = (parse_literal(literal), None)
        except LiteralError as exc:
            expected = (None, str(exc))
        answer = reader(literal)
        assert answer is None or answer == expected  # (None: declined, Python reads it)
        if "\\N{BEL}'" in literal and not literal.startswith(("r", "['\\x")):
            assert answer is None
    for text in ["[f(a='\\N{BEL}', b=1)]", "[f(a='\\N{NOPE}')]"]:
        check_engines("pythonic", [text])
        check_engines("pythonic", list(text))


def check_all_on(engine: str, grammar: str, text: str, **options: Any) -> list[Any]:
    """``check_all`` on ``engine``."""
    from support import check_all

    return check_all(grammar, text, engine=engine, **options)


# -- 16: max_depth at its maximum fits in Python's default recursion limit, with room to spare

DEEP_SCHEMA = {
    "name": "f",
    "parameters": {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/n"}},
        "$defs": {"n": {"type": "array", "items": {"anyOf": [{"$ref": "#/$defs/n"}, {"type": "integer"}]}}},
    },
}


def with_free_frames(free: int, work: Any) -> Any:
    """``work()`` with only ``free`` Python frames left below the recursion limit."""
    import sys

    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back  # type: ignore[assignment]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + free)
    try:
        return work()
    finally:
        sys.setrecursionlimit(limit)


def deepest(grammar: str, levels: int) -> str:
    """A call whose argument ``a`` nests ``levels`` lists deep (the arguments are level 1)."""
    value = '"5"'
    for _ in range(levels - 1):
        value = f"[{value}]"
    if grammar == "pythonic":
        return f"[f(a={value})]"
    if grammar == "qwen3-coder":
        return f"<tool_call><function=f><parameter=a>{value}</parameter></function></tool_call>"
    return f'<tool_call>{{"name": "f", "arguments": {{"a": {value}}}}}</tool_call>'


@pytest.mark.parametrize("grammar", ["hermes", "pythonic", "qwen3-coder"])
@pytest.mark.parametrize("tools", [None, [DEEP_SCHEMA]])
@pytest.mark.parametrize("engine", BUILT)
def test_the_deepest_value_allowed_needs_at_most_a_quarter_of_the_default_limit(
    grammar: str, tools: Any, engine: str
) -> None:
    from toolparse.limits import MAX_DEPTH_LIMIT

    text = deepest(grammar, MAX_DEPTH_LIMIT - 1)
    expected = run(grammar, [text], tools=tools, engine=engine, max_depth=MAX_DEPTH_LIMIT)
    assert calls_of(expected)  # (read whole: not too deep)
    events = with_free_frames(
        250, lambda: run(grammar, [text], tools=tools, engine=engine, max_depth=MAX_DEPTH_LIMIT)
    )
    assert events == expected


@pytest.mark.parametrize("engine", BUILT)
def test_a_deep_python_literal_needs_no_frame_per_level(engine: str) -> None:
    # (the reference's reader keeps its own stack: it used two frames a level)
    text = deepest("pythonic", 99)
    expected = run("pythonic", [text], engine=engine, max_depth=100)
    assert with_free_frames(140, lambda: run("pythonic", [text], engine=engine, max_depth=100)) == expected
