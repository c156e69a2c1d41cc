"""What a hostile user found (issue 9), one regression test each, and the growth
check: pathological outputs parse in linear time (CPU time at n against 4 n,
the least of several runs: :mod:`toolparse.growth`, which load cannot fail)."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from support import calls_of, check_all, run
from toolparse import (
    InvalidOptionError,
    StreamParser,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallError,
    ToolCallStart,
    parse_text,
)
from toolparse import tools as tools_module
from toolparse.cli import main
from toolparse.coercion import coerce, patterns
from toolparse.engine import native
from toolparse.growth import SHAPES, Shape, check_growth, cpu_seconds


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_pathological_outputs_parse_in_linear_time(shape: Shape) -> None:
    check_growth(shape, 10_000)  # (a shape that needs more says so: Shape.least)


# 1, 2, 3: each was quadratic; their growth is checked above. Here: they still parse right.


def test_a_value_of_whitespace_in_qwen3_coder_is_kept() -> None:
    events = check_all("qwen3-coder", "<function=f><parameter=a>" + "\n" * 300)
    (error,) = [e for e in events if isinstance(e, ToolCallError)]
    assert error.reason == "unfinished_call" and error.index == 0
    events = check_all("qwen3-coder", "<function=f><parameter=a>\n \n\n</parameter></function>")
    assert calls_of(events) == [{"name": "f", "arguments": {"a": " \n"}}]


def test_cdata_in_a_typed_xml_parameter_in_small_deltas() -> None:
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}]
    text = "<f><n><![CDATA[ 12 ]]></n></f>"
    for size in (1, 2, 3, 16):
        deltas = [text[i : i + size] for i in range(0, len(text), size)]
        assert calls_of(run("xml", deltas, tools=tools)) == [{"name": "f", "arguments": {"n": 12}}]


def test_one_delta_holding_many_calls_past_the_limit() -> None:
    one = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
    result = parse_text(one * 500, max_call_chars=100)
    assert len(result.calls) == 500 and not result.errors


# 4


def test_a_started_call_that_never_ends_ends_with_its_own_reason() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"a": 1 oops' + "y" * 60 + "</tool_call>"
    events = check_all("hermes", text, max_call_chars=50)
    errors = [e for e in events if isinstance(e, ToolCallError)]
    assert errors[0].reason == "malformed_json" and errors[0].index == 0
    assert all(e.reason == "too_large" and e.index is None for e in errors[1:])
    for grammar, call in (
        ("qwen3-coder", "<function=f><parameter=a>x</parameter><oops>" + "y" * 80),
        ("xml", "<get_weather><city>Paris<city>" + "y" * 80),
    ):
        tools = [{"name": "get_weather"}] if grammar == "xml" else None
        events = check_all(grammar, call, tools=tools, max_call_chars=40)
        starts = [e.index for e in events if isinstance(e, ToolCallStart)]
        ends = [e.index for e in events if isinstance(e, (ToolCall, ToolCallError)) and e.index is not None]
        assert starts == ends == [0]


# 5


def test_a_lone_surrogate_in_an_argument_becomes_the_replacement_character() -> None:
    for escaped in ("\\ud800", "\\udc00", "x\\ud800\\ud800y"):
        text = '<tool_call>{"name": "f", "arguments": {"a": "' + escaped + '"}}</tool_call>'
        events = check_all("hermes", text, [[text[:44], text[44:]]])
        (call,) = [e for e in events if isinstance(e, ToolCall)]
        assert "\ufffd" in call.arguments["a"]
        call.arguments_json.encode("utf-8")  # any encoder accepts it
    text = '<tool_call>{"name": "f", "arguments": {"a": "\\ud83d\\ude80"}}</tool_call>'
    assert calls_of(run("hermes", [text])) == [{"name": "f", "arguments": {"a": "\U0001f680"}}]
    raw = "<function=f><parameter=a>x\ud800y</parameter></function>"
    assert calls_of(check_all("qwen3-coder", raw)) == [{"name": "f", "arguments": {"a": "x\ufffdy"}}]


def test_a_high_surrogate_ending_a_line_waits_for_the_next_delta() -> None:
    """Found by the fuzzer (seed 602): a new line's plain-text fast path once
    skipped the high surrogate held back from the delta before, and emitted
    it after the next character."""
    text = "0000000000\n\ud8000"
    check_all("hermes", text, [["0000000000\n\ud800", "0"]])
    check_all("hermes", "a\n\ud800\udc00b", [["a\n\ud800", "\udc00b"]])
    events = run("hermes", ["a\n\ud83d", "\ude80b"])
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "a\n\U0001f680b"


def test_the_cli_writes_a_lone_surrogate(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    source = tmp_path / "out.txt"
    source.write_text('<tool_call>{"name":"f","arguments":{"a":"\\ud800"}}</tool_call>')
    assert main(["parse", str(source), "--seed", "1"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[-1]["arguments"] == {"a": "\ufffd"}


# 6


def test_collapse_emits_only_the_call_in_any_chunking() -> None:
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}]
    text = '{"name": "f", "arguments": {"a": "' + "x" * 50 + '"}}'
    for size in (1, 4, len(text)):
        deltas = [text[i : i + size] for i in range(0, len(text), size)]
        events = run("hermes", deltas, tools=tools, tool_choice="required", collapse=True)
        assert [type(e) for e in events] == [ToolCall]


# 7


CATASTROPHIC = [("^(a|a)*$", "a" * 27 + "-"), ("^((a+))+$", "a" * 40 + "-"), (".*.*.*.*.*.*=", "x" * 128)]


@pytest.mark.parametrize("re2", [True, False], ids=["with google-re2", "without"])
@pytest.mark.parametrize(("pattern", "key"), CATASTROPHIC)
def test_catastrophic_patterns_cost_nothing(
    pattern: str, key: str, re2: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if re2 and patterns._RE2 is None:
        pytest.skip("google-re2 is not installed")
    linear = patterns._RE2
    if not re2:
        monkeypatch.setattr(patterns, "_RE2", None)
    # (the native core's coercion matches with Rust's regex crate, linear as RE2
    # is, whether google-re2 is installed or not)
    applied = re2 or native.use_native(None)
    if applied and linear is None:
        pytest.skip("google-re2 is not installed: the native core's answer is not checked")
    # (what a schema's patterns say is kept with its tools, whose schemas serve every
    # parser built with the same tools: here the pattern engine changes, so both go)
    patterns.compile_pattern.cache_clear()
    monkeypatch.setattr(tools_module, "_KEPT_BY_CONTENT", {})
    try:
        schema = {"type": "object", "patternProperties": {pattern: {"type": "integer"}}}
        tools = [{"name": "f", "parameters": schema}]
        for grammar, text in (
            ("hermes", f'<tool_call>{{"name": "f", "arguments": {{"{key}": "5"}}}}</tool_call>'),
            ("qwen3-coder", f"<function=f><parameter={key}>5</parameter></function>"),
        ):
            (call,) = [e for e in run(grammar, [text], tools=tools) if isinstance(e, ToolCall)]
            if applied:  # RE2 (or Rust's regex) matches every one of them in linear time
                assert linear is not None
                matched = linear.search(pattern, key) is not None
                assert call.arguments[key] == (5 if matched else "5")
            else:  # not applied, and said so
                assert call.arguments[key] == "5"
                assert any("not matched" in issue.action for issue in call.issues)
    finally:
        patterns.compile_pattern.cache_clear()


def test_the_static_check_accepts_common_patterns_and_refuses_backtracking() -> None:
    for safe in ("^x-", "^[a-z_]+$", "^(foo|bar)_[0-9]+$", "^S_", "(ab)+c", "^(?=a)\\w+", "a{2,5}b*"):
        assert patterns.key_limit(safe) > 0, safe
    for unsafe in ("^(a|a)*$", "^((a+))+$", ".*.*=", "(a)\\1", "(a{0,16}){0,16}", "\\d+\\.\\d+"):
        assert patterns.key_limit(unsafe) == 0, unsafe


def test_an_invalid_pattern_is_reported_in_the_issues() -> None:
    schema = {"type": "object", "patternProperties": {"[": {"type": "integer"}}}
    result = coerce({"k": "5"}, schema)
    assert result.value == {"k": "5"}
    assert "not a valid regular expression" in result.issues[0].action
    (call,) = parse_text(
        '<tool_call>{"name": "f", "arguments": {"k": "5"}}</tool_call>',
        tools=[{"name": "f", "parameters": schema}],
    ).calls
    assert "not a valid regular expression" in call.issues[0].action


# 8


NESTED = {
    "$defs": {"n": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/$defs/n"}}]}},
    "type": "object",
    "properties": {"x": {"$ref": "#/$defs/n"}},
}


def test_max_depth_has_an_upper_bound_the_readers_honour() -> None:
    with pytest.raises(InvalidOptionError, match="max_depth must be at most 100"):
        StreamParser("hermes", max_depth=101)
    with pytest.raises(InvalidOptionError, match="max_depth"):
        coerce({}, None, max_depth=10**6)
    deep = "[" * 99 + '"1"' + "]" * 99
    text = '<tool_call>{"name": "f", "arguments": {"x": ' + deep + "}}</tool_call>"
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(600)  # a caller already deep in its own stack
    try:
        (call,) = parse_text(text, tools=[{"name": "f", "parameters": NESTED}], max_depth=100).calls
        assert call.arguments_json == '{"x":' + deep.replace('"1"', "1") + "}"
        result = coerce({"x": json.loads(deep)}, NESTED, max_depth=100)
        assert json.dumps(result.value) == '{"x": ' + deep.replace('"1"', "1") + "}"  # 99 levels down
    finally:
        sys.setrecursionlimit(limit)


def test_a_union_that_refers_to_itself_ends() -> None:
    schema = {
        "$defs": {"loop": {"anyOf": [{"$ref": "#/$defs/loop"}, {"type": "integer"}]}},
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/loop"}},
    }
    assert coerce({"x": "3"}, schema).value == {"x": 3}
    (call,) = parse_text(
        '<tool_call>{"name": "f", "arguments": {"x": "3"}}</tool_call>',
        tools=[{"name": "f", "parameters": schema}],
    ).calls
    assert call.arguments == {"x": 3}


# 9: many tools and names are in the growth check; building a parser for them is fast


def test_many_declared_tools_build_and_match_by_set_lookup() -> None:
    tools = [{"name": f"tool_{k}_" + "x" * 100} for k in range(3000)]
    parser = StreamParser("xml", tools)
    events = parser.feed("say <tool_7_" + "x" * 100 + "/> and <tool_7_> and <tool_") + parser.close()
    assert [e.name for e in events if isinstance(e, ToolCall)] == ["tool_7_" + "x" * 100]
    held = StreamParser("xml", tools)
    assert held.feed("a <tool_12") == [TextDelta("a ")]  # the start of a declared tool's tag waits
    assert held.feed("3x") == [TextDelta("<tool_123x")]  # (no tool starts so: text)


def test_the_cost_per_delta_does_not_grow_with_the_number_of_properties() -> None:
    # A closing tag followed by the start of a tag that names no property: each
    # time, whether it may still grow into one is asked. It used to try every
    # property (10,000 of them: 14 times slower); it is a binary search now.
    # (CPU time, the least of 3 runs: toolparse.growth's clock, which load cannot fail)

    def seconds(properties: int) -> float:
        names = {f"prop_{k:05d}": {"type": "string"} for k in range(properties)}
        tools = [{"name": "f", "parameters": {"type": "object", "properties": {"a": {}, **names}}}]
        text = "<function=f>\n<parameter=a>\n" + "x</parameter> <zq" * 1000 + "\n</parameter>\n</function>"
        deltas = [text[i : i + 4] for i in range(0, len(text), 4)]
        events: list[Any] = []

        def work() -> None:
            parser = StreamParser("qwen3-coder", tools)
            for delta in deltas:
                parser.feed(delta)
            events[:] = parser.close()

        best = min(cpu_seconds(work) for _ in range(3))
        assert isinstance(events[-1], ToolCall)
        return best

    few, many = seconds(10), seconds(10_000)
    assert many < 3 * few, f"10,000 properties: {many / few:.1f}x the time of 10"


# 10


def test_a_tiny_max_call_chars_works_in_any_chunking() -> None:
    text = 'ab```tool_call\n{"name": "g", "arguments": {}}\n``` cd'
    events = check_all(
        "fenced-json", text, [[text[:5], text[5:]], [text[:3], text[3:20], text[20:]]], max_call_chars=1
    )
    assert not any(isinstance(e, ToolCallError) and not e.raw for e in events)


def test_unknown_on_error_with_errors_as_text_keeps_the_raw_once() -> None:
    tools = [{"name": "f"}]
    events = check_all(
        "hermes", "not json", tools=tools, tool_choice="required", unknown_on_error=True, errors_as_text=True
    )
    assert [type(e) for e in events] == [ToolCallStart, ToolCallDelta, ToolCall]
    assert events[-1].raw == "not json"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "options",
    [
        {"coerce": "false"},
        {"errors_as_text": 1},
        {"collapse": None},
        {"unknown_on_error": "yes"},
        {"seed": "7"},
        {"max_call_chars": 0},
    ],
)
def test_options_of_the_wrong_type_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptionError, match=next(iter(options))):
        StreamParser("hermes", **options)


def test_an_id_factory_must_return_strings() -> None:
    parser = StreamParser("hermes", id_factory=lambda index: index)  # type: ignore[arg-type,return-value]
    with pytest.raises(InvalidOptionError, match="id_factory"):
        parser.feed('<tool_call>{"name": "f", "arguments": {}}</tool_call>')
