"""What a hostile user found in round two (issue 25), one regression test each,
numbered as the issue numbers them. (The growth shapes, in one delta and in
small ones, run in test_hardening.py over ``toolparse.growth.SHAPES``.)"""

from __future__ import annotations

import pytest

from support import calls_of, check_all, errors_of, reasoning_of, text_of

# -- 1: whatever Unicode counts as space before <think> keeps a drafted call in thought

DRAFT = '<think>I will call <tool_call>{"name": "delete_file", "arguments": {}}</tool_call></think>Done.'


@pytest.mark.parametrize(
    "lead",
    ["\ufeff", "\u200b", "\xa0", "\u2028", "\u3000", "\x0b", "\x0c", "\x85", "\u200e", " \t\ufeff\r\n\u2029"],
)
def test_a_drafted_call_after_unicode_space_stays_reasoning(lead: str) -> None:
    events = check_all("hermes", lead + DRAFT)
    assert calls_of(events) == []
    assert text_of(events) == "Done."
    assert "delete_file" in reasoning_of(events)


def test_a_visible_character_before_think_still_ends_the_prelude() -> None:
    # (with "auto", reasoning opens anywhere in hermes; a letter before it is text)
    events = check_all("hermes", "x" + DRAFT)
    assert text_of(events).startswith("x")


# -- 2: a hex, octal or binary number past Python's digit bound is an error, not a crash


@pytest.mark.parametrize(
    ("grammar", "text"),
    [
        ("pythonic", "[get_weather(city=0x" + "f" * 3600 + ")]"),
        ("pythonic", "[get_weather(city=0X" + "F" * 5000 + ")]"),
        ("pythonic", "[get_weather(city=[0b" + "1" * 50_000 + "])]"),
        ("pythonic", "[get_weather(city=0o" + "7" * 5000 + ")]"),
        ("pythonic", "[get_weather(city=-0x" + "f" * 3600 + ")]"),
        ("llama3-json", "<|python_tag|>b.call(x=0x" + "f" * 3600 + ")"),
    ],
)
def test_a_huge_non_decimal_number_is_an_error(grammar: str, text: str) -> None:
    from toolparse import parse_text

    result = parse_text(text, grammar=grammar)
    assert result.calls == []
    (error,) = result.errors
    assert "too many digits" in error.message
    assert error.raw == text


def test_numbers_within_the_bound_still_read() -> None:
    events = check_all("pythonic", "[f(a=0xfe, b=0o17, c=0b101, d=1e3, e=" + "9" * 4300 + ", g=-0x1E)]")
    (call,) = calls_of(events)
    assert call["arguments"]["a"] == 254 and call["arguments"]["b"] == 15 and call["arguments"]["c"] == 5
    assert call["arguments"]["d"] == 1000.0 and call["arguments"]["g"] == -30
    assert call["arguments"]["e"] == int("9" * 4300)
    assert errors_of(events) == []


# -- 7: many reasoning blocks in one delta (growth: "many short reasoning blocks")


def test_reasoning_pieces_of_one_read_come_as_one_event() -> None:
    from toolparse import ReasoningDelta, StreamParser

    parser = StreamParser("hermes", reasoning="think")
    events = parser.feed("<think>a</think>" * 3 + "<think>b")
    reasoning = [e for e in events if isinstance(e, ReasoningDelta)]
    assert [(e.text, e.raw) for e in reasoning] == [("aaab", "<think>a</think>" * 3 + "<think>b")]
    check_all("hermes", "<think>a</think>x" * 3, reasoning="think")


# -- 8: regions entered once per argument or call search no further than they must


@pytest.mark.parametrize(
    ("grammar", "text", "arguments"),
    [
        ("pythonic", "[f(a=1,  b = 2 ,c=3)]", {"a": 1, "b": 2, "c": 3}),
        ("pythonic", "<function_calls>\nf(a=1)\nf(a=2)\n</function_calls>", {"a": 2}),
        ("llama3-json", "<|python_tag|>b.call(q='x', n=2)", {"q": "x", "n": 2}),
    ],
)
def test_short_regions_read_right_in_one_delta(grammar: str, text: str, arguments: dict[str, object]) -> None:
    events = check_all(grammar, text)
    assert calls_of(events)[-1]["arguments"] == arguments


def test_a_space_region_passing_over_text_still_finds_a_far_terminal() -> None:
    # (kimi's call index: "0" is passed over up to <|tool_call_argument_begin|>, past
    # one terminal's length from it; a bound on the search there lost the call)
    from toolparse.grammars import get_grammar

    call = get_grammar("kimi").prompt.render_call_after_text("get_weather", {"city": "Paris"})
    events = check_all("kimi", call.replace(":0<", ":0        0<"))
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]


# -- 9: backslashes in a Python string


@pytest.mark.parametrize(("body", "value"), [(r"\\\\", r"\\"), (r"\'x", "'x"), ("a\\", None)])
def test_backslashes_in_a_python_string(body: str, value: str | None) -> None:
    events = check_all("pythonic", f"[f(a='{body}')]")
    if value is None:
        assert calls_of(events) == []
    else:
        assert calls_of(events) == [{"name": "f", "arguments": {"a": value}}]


# -- 10: whitespace held by the OpenAI chunk conversion


def test_held_whitespace_is_joined_once_and_kept() -> None:
    from toolparse import StreamParser
    from toolparse.openai.chunks import ChoiceStream

    stream = ChoiceStream(StreamParser("hermes"))
    for _ in range(1000):
        assert stream.content("\n\n") == []
    deltas, reason = stream.finish()
    assert reason == "stop"
    assert "".join(d.get("content", "") for d in deltas) == "\n" * 2000
    stream = ChoiceStream(StreamParser("hermes"))
    out = [*stream.content("a\n\n"), *stream.content("\n"), *stream.content("b\n"), *stream.finish()[0]]
    assert "".join(d.get("content", "") for d in out) == "a\n\n\nb\n"
    stream = ChoiceStream(StreamParser("hermes"))
    (delta,) = stream.content("x\n> y\n" * 500)
    assert delta["content"] == ("x\n> y\n" * 500).rstrip()


# -- 16: a bad Reasoning declaration is the caller's mistake, named


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda R: R("<" + "a" * 490 + ">", "</" + "a" * 490 + ">"), "at most 128 characters"),
        (lambda R: R("<t>", "</t>", markup=("",)), "not ''"),
        (lambda R: R("<t>", "</t>", markup=(5,)), "not 5"),
        (lambda R: R("<t>", "</t>", markup="abc"), "markup must be a tuple"),
        (lambda R: R(5, "</t>"), "not 5"),
        (lambda R: R("\u3000<t>", "</t>"), "not starting with whitespace"),
    ],
)
def test_a_bad_reasoning_declaration_is_an_invalid_option(make: object, match: str) -> None:
    from toolparse import InvalidOptionError, Reasoning, StreamParser

    with pytest.raises(InvalidOptionError, match=match):
        StreamParser("hermes", reasoning=make(Reasoning))  # type: ignore[operator]


@pytest.mark.parametrize(
    ("grammar", "open_", "close", "markup"),
    [
        ("hermes", "<tool_call>", "</t>", ()),
        ("hermes", "<t>", "</t>", ("<tool_call>",)),
        ("gpt-oss", "<|channel|>commentary to=", "</t>", ()),
        ("hermes", "<t>", "</t>", ("a",)),
    ],
)
def test_reasoning_markers_that_collide_with_the_grammar_are_named(
    grammar: str, open_: str, close: str, markup: tuple[str, ...]
) -> None:
    from toolparse import InvalidOptionError, Reasoning, StreamParser

    with pytest.raises(InvalidOptionError, match=f"cannot be used with the {grammar!r} grammar"):
        StreamParser(grammar, reasoning=Reasoning(open_, close, markup=markup))


# -- 18: parentheses around one Python value group it


def test_parentheses_around_one_value_are_grouping() -> None:
    query = {"type": "object", "properties": {"query": {"type": "string"}}}
    tools = [{"name": "search", "parameters": query}]
    events = check_all("pythonic", '[search(query=("Paris"))]', tools=tools)
    assert calls_of(events) == [{"name": "search", "arguments": {"query": "Paris"}}]
    events = check_all("pythonic", "[f(a=(1,), b=(), c=((2)), d=(1, 2))]")
    assert calls_of(events) == [{"name": "f", "arguments": {"a": [1], "b": [], "c": 2, "d": [1, 2]}}]


# -- 5, 6, 11: recorded streams: a bad line is reported and skipped, a BOM is the file's


def _chunk(content: str) -> str:
    import json

    return json.dumps({"choices": [{"index": 0, "delta": {"content": content}}]})


DEEP = "[" * 100_000 + '"]\\\\"' + "]" * 100_000


@pytest.mark.parametrize(
    ("format", "recording"),
    [
        ("sse", f"data: {_chunk('a')}\n\ndata: {DEEP}\n\ndata: {_chunk('b')}\n\ndata: [DONE]\n\n"),
        ("auto", f"data: {_chunk('a')}\n\ndata: {DEEP}\n\ndata: {_chunk('b')}\n\n"),
        ("jsonl", f"{_chunk('a')}\n{DEEP}\n{_chunk('b')}\n"),
        ("auto", f"{_chunk('a')}\n{DEEP}\n{_chunk('b')}\n"),
        ("json", f"[{_chunk('a')}, {DEEP}, {_chunk('b')}]"),
        ("auto", f"[{_chunk('a')}, {DEEP}, {_chunk('b')}]"),
    ],
)
@pytest.mark.parametrize("piece", [0, 997])
def test_a_deeply_nested_line_is_reported_and_skipped(format: str, recording: str, piece: int) -> None:
    from toolparse.recorded import iter_deltas

    problems: list[tuple[int, str]] = []
    pieces = [recording[i : i + piece] for i in range(0, len(recording), piece)] if piece else [recording]
    deltas = list(
        iter_deltas(pieces, format, on_error=lambda line, message: problems.append((line, message)))
    )
    assert deltas == ["a", "b"]
    assert len(problems) == 1 and "nested too deep" in problems[0][1]


@pytest.mark.parametrize(
    ("format", "recording"),
    [
        ("sse", f"data: {_chunk('a')}\n\ndata: {_chunk('b')}\n\n"),
        ("jsonl", f"{_chunk('a')}\n{_chunk('b')}\n"),
        ("json", f"[{_chunk('a')}, {_chunk('b')}]"),
        (
            "ollama",
            '{"message": {"content": "a"}, "done": false}\n{"message": {"content": "b"}, "done": true}\n',
        ),
        ("auto", f"data: {_chunk('a')}\n\ndata: {_chunk('b')}\n\n"),
        ("auto", f"{_chunk('a')}\n{_chunk('b')}\n"),
    ],
)
def test_a_leading_bom_loses_nothing(format: str, recording: str) -> None:
    from toolparse.recorded import iter_deltas

    problems: list[object] = []
    source = [("\ufeff" + recording).encode()]
    assert list(iter_deltas(source, format, on_error=lambda *p: problems.append(p))) == ["a", "b"]
    assert problems == []


@pytest.mark.parametrize("format", ["jsonl", "ollama", "sse"])
def test_an_over_long_line_is_dropped_as_it_comes_and_the_rest_read(
    format: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tracemalloc

    from toolparse import recorded
    from toolparse.recorded import RecordedDecoder

    monkeypatch.setattr(recorded, "_MAX_LINE", 1000)
    decoder = RecordedDecoder(format, on_error=lambda *p: problems.append(p))
    problems: list[object] = []
    if format == "ollama":
        first, last = (
            '{"message": {"content": "a"}, "done": false}',
            '{"message": {"content": "b"}, "done": true}',
        )
    else:
        first, last = _chunk("a"), _chunk("b")
    lead = f"data: {first}\n\n" if format == "sse" else first + "\n"
    tail = f"\n\ndata: {last}\n\n" if format == "sse" else "\n" + last + "\n"
    out = decoder.feed(lead + ("data: " if format == "sse" else "") + "x" * 500)
    tracemalloc.start()
    for _ in range(2000):  # (a 1 MB line, 500 characters at a time)
        out += decoder.feed("x" * 500)
    held = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    out += decoder.feed(tail) + decoder.close()
    assert [c.content for c in out] == ["a", "b"]
    assert len(problems) == 1
    assert held < 200_000  # (nothing of the line is kept)
