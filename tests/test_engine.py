"""The engine's behaviour: streaming latency, limits, ids, misuse."""

from __future__ import annotations

from typing import Any

import pytest

from support import armed, calls_of, check_all, covered_text, run, text_of
from toolparse import (
    Event,
    InvalidOptionError,
    InvalidToolError,
    StreamClosedError,
    StreamParser,
    TextDelta,
    Tool,
    ToolCall,
    ToolCallDelta,
    ToolCallError,
    ToolCallStart,
    UnknownGrammarError,
    parse_text,
)
from toolparse.engine.native import AVAILABLE
from toolparse.invariants import check_engines

CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
needs_native = pytest.mark.skipif(not AVAILABLE, reason="the native core (its lanes) is not built")
# (the tests marked so are of the native core's lanes, which gather and take deltas
# without a read: the reference, which has none, reads every delta; the events are
# the same merged, as tests/test_lanes.py and tests/test_native.py check)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> list[str]:
    """The text of every read the engine's machine path makes (``Engine._run``), in order."""
    from toolparse.engine import native
    from toolparse.engine.core import Engine

    texts: list[str] = []
    real_run = Engine._run

    def counted_run(self: Engine, text: str, out: list[Event], final: bool) -> None:
        texts.append(text)
        real_run(self, text, out, final)

    monkeypatch.setattr(Engine, "_run", counted_run)
    if native.AVAILABLE:  # (the native engine's reads: it has no Python _run to patch)
        from toolparse import _native as core  # (typed by toolparse/_native.pyi)

        core._record_reads(texts)
        request.addfinalizer(lambda: core._record_reads(None))
    return texts


def test_text_streams_at_once_holding_only_a_possible_marker() -> None:
    parser = StreamParser("hermes")
    assert parser.feed("Hello <") == [TextDelta("Hello ")]
    assert parser.feed("b>") == [TextDelta("<b>")]
    assert parser.feed("x <tool") == [TextDelta("x ")]
    assert parser.feed("kit") == [TextDelta("<toolkit")]
    assert parser.close() == []


def test_markers_split_as_tokenizers_split_them() -> None:
    deltas = [
        "Sure",
        " ",
        "<",
        "tool",
        "_call",
        '>{"',
        "name",
        '":"',
        "f",
        '","arguments":{"a":1',
        "}}</",
        "tool_call",
        ">",
        " done",
    ]
    events = check_all("hermes", "".join(deltas), [deltas])
    assert calls_of(events) == [{"name": "f", "arguments": {"a": 1}}]
    assert text_of(events) == "Sure  done"


def test_start_as_soon_as_the_name_is_known_and_strings_stream() -> None:
    parser = StreamParser("hermes", seed=1)
    assert parser.feed('<tool_call>{"name": "write"') == []
    start, first = parser.feed(', "arguments": {"text": "')
    assert isinstance(start, ToolCallStart) and start.name == "write"
    assert isinstance(first, ToolCallDelta)
    pieces = [first.arguments_delta]
    for chunk in ["once upon", " a time", " there was"]:
        (delta,) = parser.feed(chunk)
        assert isinstance(delta, ToolCallDelta)
        pieces.append(delta.arguments_delta)
    assert pieces == ['{"text":"', "once upon", " a time", " there was"]
    events = parser.feed('"}}</tool_call>')
    assert isinstance(events[-1], ToolCall)
    assert events[-1].arguments == {"text": "once upon a time there was"}


@needs_native
def test_inside_an_announced_call_deltas_wait_for_one_that_can_end_it() -> None:
    # (the engine gathers them: a small call costs a few reads, not one per delta)
    parser = StreamParser("hermes", seed=1, engine="native")
    start, opened = parser.feed('<tool_call>{"name": "f", "arguments": {')
    assert isinstance(start, ToolCallStart) and opened == ToolCallDelta(0, start.id, "{")
    for piece in ['"a"', ": 1", ', "b', '": 2']:
        assert parser.feed(piece) == []
    (gathered,) = parser.feed("}")
    assert gathered == ToolCallDelta(0, start.id, '"a":1,"b":2}')
    assert parser.feed("}") == []  # (the envelope's end: the block may still hold more calls)
    (call,) = parser.feed("</tool_call>")
    assert isinstance(call, ToolCall) and call.arguments == {"a": 1, "b": 2}


@needs_native
def test_gathered_argument_text_lags_by_at_most_64_characters() -> None:
    parser = StreamParser("hermes", seed=1, engine="native")
    parser.feed('<tool_call>{"name": "f", "arguments": {"a": [')
    fed = 0
    while True:
        events = parser.feed("1, ")
        fed += 3
        if events:
            break
        assert fed <= 64
    assert isinstance(events[0], ToolCallDelta) and events[0].arguments_delta.startswith("1,1,")


def test_a_string_value_streams_from_its_first_characters() -> None:
    parser = StreamParser("hermes", seed=1)
    parser.feed('<tool_call>{"name": "f", "arguments": {"n": 2, ')
    assert parser.feed('"text"') == []
    (delta,) = parser.feed(': "once')
    assert isinstance(delta, ToolCallDelta) and delta.arguments_delta.endswith('"text":"once')


@pytest.mark.parametrize(
    ("grammar", "head"),
    [
        ("qwen3-coder", "<tool_call>\n<function=f>\n<parameter=text>\n"),
        ("qwen3-coder", "<tool_call>\n<function=f>\n<parameter=text>"),
        ("xml", "<f>\n<text>"),
        ("glm", "<tool_call>f\n<arg_key>text</arg_key>\n<arg_value>"),
        ("minimax", '<minimax:tool_call>\n<invoke name="f">\n<parameter name="text">'),
    ],
)
def test_a_tag_value_streams_from_its_first_characters(grammar: str, head: str) -> None:
    # (the delta after the tag is read, not gathered: it brings the string's first characters)
    parser = StreamParser(
        grammar, [{"name": "f", "parameters": {"properties": {"text": {"type": "string"}}}}]
    )
    before = parser.feed(head)
    assert isinstance(before[0], ToolCallStart)
    (delta,) = parser.feed("once")
    assert isinstance(delta, ToolCallDelta)
    streamed = "".join(e.arguments_delta for e in [*before, delta] if isinstance(e, ToolCallDelta))
    assert streamed == '{"text":"once'


# a string member, then an integer one: the closing tag of the first is
# completed by the last three characters of value_end
_VALUE_ENDS = [
    (
        "qwen3-coder",
        "<tool_call>\n<function=f>\n<parameter=text>\n",
        "ris\n</parameter>",
        "\n<parameter=n",
        ">\n3\n",
    ),
    ("xml", "<f>\n<text>", "ris</text>", "\n<n", ">3</n>"),
    ("glm", "<tool_call>f\n<arg_key>text</arg_key>\n<arg_value>", "ris</arg_value>", "\n<arg_key", ">n"),
    (
        "minimax",
        '<minimax:tool_call>\n<invoke name="f">\n<parameter name="text">',
        "ris</parameter>",
        "\n<parameter name",
        '="n">3',
    ),
]

_TWO_MEMBERS = [
    {"name": "f", "parameters": {"properties": {"text": {"type": "string"}, "n": {"type": "integer"}}}}
]


@needs_native
@pytest.mark.parametrize(("grammar", "head", "value_end", "next_member", "rest"), _VALUE_ENDS)
def test_the_delta_that_completes_a_values_closing_tag_is_gathered(
    grammar: str, head: str, value_end: str, next_member: str, rest: str, reads: list[str]
) -> None:
    # (it neither ends the call nor begins a string: read with the next delta
    # that may, and the events are those of reading every delta)
    parser = StreamParser(grammar, _TWO_MEMBERS, engine="native")
    parser.feed(head)
    parser.feed("Pa")  # (read: a string's first characters)
    reads.clear()
    gathered = [value_end[:-3], value_end[-3:], next_member]  # (the tag's '>' in a delta of its own)
    assert [parser.feed(piece) for piece in gathered] == [[], [], []]
    events = parser.feed(rest)
    assert reads == ["".join(gathered) + rest]
    streamed = "".join(e.arguments_delta for e in events if isinstance(e, ToolCallDelta))
    assert streamed == ("ris" if grammar == "glm" else 'ris","n":')  # (glm: the key is not complete yet)
    check_engines(grammar, [head, "Pa", *gathered, rest], tools=_TWO_MEMBERS)  # (the reference reads each)


@pytest.mark.parametrize("first", ["Pa", "<f>\n<text>Pa"])
def test_a_value_left_open_by_the_calls_closing_tag_ends_the_call_at_once(first: str) -> None:
    # (that tag ends the call: the delta that completes it is read, not gathered)
    parser = StreamParser("xml", _TWO_MEMBERS)
    if first == "Pa":
        parser.feed("<f>\n<text>")
    parser.feed(first)
    parser.feed("ris</")
    assert any(isinstance(e, ToolCall) for e in parser.feed("f>"))


@needs_native
@pytest.mark.parametrize(("grammar", "head", "value_end", "next_member", "rest"), _VALUE_ENDS)
def test_a_streaming_value_ends_with_no_read_of_its_closing_tag(
    grammar: str, head: str, value_end: str, next_member: str, rest: str, reads: list[str]
) -> None:
    # (the string's first characters come with its tag: its next deltas take the
    # fast path, which hands the closing tag over to gathering)
    parser = StreamParser(grammar, _TWO_MEMBERS, engine="native")
    parser.feed(head + "Pa")
    reads.clear()
    events = parser.feed(value_end[:-3])  # (the string's last characters stream)
    assert [parser.feed(piece) for piece in (value_end[-3:], next_member)] == [[], []]
    events += parser.feed(rest)
    assert len(reads) == 1 and reads[0].endswith(value_end[-3:] + next_member + rest)
    streamed = "".join(e.arguments_delta for e in events if isinstance(e, ToolCallDelta))
    assert streamed == ("ris" if grammar == "glm" else 'ris","n":')
    check_engines(
        grammar, [head + "Pa", value_end[:-3], value_end[-3:], next_member, rest], tools=_TWO_MEMBERS
    )


def test_held_opener_text_that_stops_being_one_is_text_at_once() -> None:
    parser = StreamParser("hermes")
    assert parser.feed("Hi <too") == [TextDelta("Hi ")]
    assert parser.feed("l_ca") == []  # (still the beginning of <tool_call>)
    assert parser.feed("t") == [TextDelta("<tool_cat")]


@needs_native
@pytest.mark.parametrize(
    ("grammar", "deltas"),
    [("hermes", ["Hi <too", "l_ca", "ll>"]), ("xml", ["Hi <get", "_wea", "ther>"])],
)
def test_a_delta_that_only_lengthens_a_held_opener_is_not_read(
    grammar: str, deltas: list[str], reads: list[str]
) -> None:
    # (a declared tool's tag, spelled out, counts as a literal opener)
    parser = StreamParser(
        grammar, [{"name": "get_weather", "parameters": {"type": "object"}}], engine="native"
    )
    assert parser.feed(deltas[0]) == [TextDelta("Hi ")]
    assert parser.feed(deltas[1]) == []
    parser.feed(deltas[2])
    assert reads == [deltas[0], "".join(deltas[1:])]


@needs_native
def test_a_delta_that_only_lengthens_a_name_is_not_read(reads: list[str]) -> None:
    # (nothing can come of a name before it ends: the engine gathers it)
    parser = StreamParser(
        "qwen3-coder", [{"name": "get_weather", "parameters": {"type": "object"}}], engine="native"
    )
    assert parser.feed("<tool_call>\n<function=get") == []
    reads.clear()
    for piece in ["_we", "ath", "er"]:
        assert parser.feed(piece) == []
    start = parser.feed(">\n")[0]
    assert isinstance(start, ToolCallStart) and start.name == "get_weather"
    assert reads == ["_weather>\n"]


def test_a_name_too_long_is_text_with_the_delta_that_passes_its_limit() -> None:
    # (gathering a name stops where it could pass the limit: the events come as
    # they would if every delta were read)
    parser = StreamParser("qwen3-coder")
    assert parser.feed("<function=" + "a" * 10) == []
    events = [parser.feed("a" * 7) for _ in range(17)]  # (the limit, 128 characters, falls in the 17th)
    assert events[:16] == [[]] * 16
    assert "".join(e.text for e in events[16] if isinstance(e, TextDelta)) == "<function=" + "a" * 129


def test_ids_are_deterministic_with_a_seed_and_unique() -> None:
    text = CALL * 5
    first = [e.id for e in parse_text(text, seed=42).calls]
    again = [e.id for e in parse_text(text, seed=42).calls]
    assert first == again and len(set(first)) == 5
    custom = [e.id for e in parse_text(text, id_factory=lambda i: f"id-{i}").calls]
    assert custom == [f"id-{i}" for i in range(5)]
    assert [e.index for e in parse_text(text).calls] == list(range(5))


def test_feed_after_close_and_double_close_raise() -> None:
    parser = StreamParser("hermes")
    parser.close()
    with pytest.raises(StreamClosedError, match="after close"):
        parser.feed("x")
    with pytest.raises(StreamClosedError, match="already closed"):
        parser.close()


def test_misuse_is_loud() -> None:
    with pytest.raises(UnknownGrammarError, match=r"known grammars: (.*, )?auto, .*, hermes, "):
        StreamParser("hermez")
    with pytest.raises(TypeError, match="takes str"):
        StreamParser("hermes").feed(b"bytes")  # type: ignore[arg-type]
    gathering = StreamParser("hermes")  # (inside a call, deltas are gathered: the same message)
    gathering.feed('<tool_call>{"name": "f", "arguments": {"a": ')
    gathering.feed("1")
    assert gathering.lane == armed(gathering, "gather")
    with pytest.raises(TypeError, match="takes str"):
        gathering.feed(b"bytes")  # type: ignore[arg-type]
    holding = StreamParser("hermes")  # (text held as an opener's beginning: the same)
    holding.feed("hi <tool")
    assert holding.lane == armed(holding, "prefix")
    with pytest.raises(TypeError, match="takes str"):
        holding.feed(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(InvalidOptionError, match="max_call_chars"):
        StreamParser("hermes", max_call_chars=0)
    with pytest.raises(TypeError):
        StreamParser("hermes", no_such_option=True)  # type: ignore[call-arg]
    with pytest.raises(InvalidToolError, match="two tools"):
        StreamParser("hermes", tools=[Tool("a"), {"name": "a"}])
    with pytest.raises(InvalidToolError, match="not valid"):
        Tool("has space")
    with pytest.raises(InvalidToolError, match="object"):
        Tool("t", parameters={"type": "string"})


def test_a_list_of_the_same_tools_is_normalized_once() -> None:
    from toolparse.tools import normalize_tools

    weather, search = Tool("get_weather"), Tool("search")
    first = normalize_tools([weather, search])
    assert first == (weather, search)
    assert normalize_tools([weather, search]) is first  # (the same Tools, in a new list)
    assert normalize_tools([search, weather]) == (search, weather)
    spec: dict[str, Any] = {"name": "lookup", "parameters": {"type": "object"}}
    assert [tool.name for tool in normalize_tools([weather, spec]) or ()] == ["get_weather", "lookup"]
    spec["name"] = "changed"  # (a dict may change between requests: it is read again)
    assert [tool.name for tool in normalize_tools([weather, spec]) or ()] == ["get_weather", "changed"]
    with pytest.raises(InvalidToolError, match="two tools"):
        normalize_tools([weather, weather])
    with pytest.raises(InvalidToolError, match="two tools"):  # (and again: a failure is not kept)
        normalize_tools([weather, weather])


def _weather_spec(city: str = "city") -> dict[str, Any]:
    """A new dict each time, as each request's JSON brings its tools."""
    return {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {city: {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
                "required": [city],
            },
        },
    }


def test_tools_given_as_dicts_are_normalized_once_by_their_content() -> None:
    from toolparse.tools import normalize_tools

    first = normalize_tools([_weather_spec()])
    assert first is not None and normalize_tools([_weather_spec()]) is first  # (new dicts, same content)
    assert normalize_tools((_weather_spec(),)) is first
    # what is kept was read from toolparse's own copy: the caller's dicts changing
    # afterwards changes nothing kept, and changed dicts are read again
    spec = _weather_spec()
    kept = normalize_tools([spec])
    spec["function"]["parameters"]["properties"]["city"]["type"] = "integer"
    assert kept is first and first[0].parameters["properties"]["city"] == {"type": "string"}
    changed = normalize_tools([spec])
    assert changed is not None and changed[0].parameters["properties"]["city"] == {"type": "integer"}
    assert normalize_tools([_weather_spec()]) is first


def test_tools_kept_by_content_tell_exact_types_apart() -> None:
    from toolparse.tools import normalize_tools

    def with_minimum(minimum: object) -> dict[str, Any]:
        spec = _weather_spec()
        spec["function"]["parameters"]["properties"]["days"]["minimum"] = minimum
        return spec

    minimums = [1, True, 1.0]  # (equal in Python, not the same schema)
    for minimum in minimums:
        tools = normalize_tools([with_minimum(minimum)])
        assert tools is not None
        given = tools[0].parameters["properties"]["days"]["minimum"]
        assert type(given) is type(minimum)
    keyed_by_int = _weather_spec()
    keyed_by_int["function"]["parameters"]["properties"] = {1: {"type": "string"}}
    tools = normalize_tools([keyed_by_int])
    assert tools is not None and list(tools[0].parameters["properties"]) == [1]
    # a list and a tuple spell differently: a tuple where a list must be still fails
    as_tuple = _weather_spec()
    as_tuple["function"]["parameters"]["required"] = ("city",)
    normalize_tools([_weather_spec()])
    with pytest.raises(InvalidToolError, match="required"):
        normalize_tools([as_tuple])
    # a failure is not kept
    for _ in range(2):
        with pytest.raises(InvalidToolError, match="two tools"):
            normalize_tools([_weather_spec(), _weather_spec()])

    class Schema(dict[str, Any]):  # (not a dict to marshal: read each time, as before)
        pass

    subclassed = _weather_spec()
    subclassed["function"]["parameters"] = Schema(subclassed["function"]["parameters"])
    assert normalize_tools([subclassed]) is not normalize_tools([subclassed])


def test_the_tools_kept_by_content_are_bounded() -> None:
    from toolparse import tools as tools_module

    for k in range(tools_module._MAX_KEPT_TOOLSETS + 10):
        tools_module.normalize_tools([_weather_spec(f"city_{k}")])
        assert len(tools_module._KEPT_BY_CONTENT) <= tools_module._MAX_KEPT_TOOLSETS
    assert tools_module._kept_content_bytes <= tools_module._MAX_KEPT_CONTENT_BYTES
    huge = _weather_spec("x" * (tools_module._MAX_KEPT_CONTENT_BYTES + 1))
    assert tools_module.normalize_tools([huge]) is not tools_module.normalize_tools([huge])


def test_many_or_large_tools_are_not_keyed_by_content(monkeypatch: pytest.MonkeyPatch) -> None:
    """Their key would cost more than it saves (it costs their size, normalizing
    them their number): building a parser stays as cheap as before for them."""
    from toolparse import tools as tools_module

    keyed: list[object] = []
    key = tools_module._content_key

    def counted(tools: Any) -> bytes | None:
        keyed.append(tools)
        return key(tools)

    monkeypatch.setattr(tools_module, "_content_key", counted)
    many = [{"name": f"tool_{k}"} for k in range(tools_module._MAX_KEYED_TOOLS + 1)]
    large = _weather_spec()
    properties = large["function"]["parameters"]["properties"]
    properties.update({f"p{k}": {"type": "string"} for k in range(tools_module._MAX_KEYED_PROPERTIES)})
    for tools in (many, [large]):
        assert tools_module.normalize_tools(tools) is not tools_module.normalize_tools(tools)
    assert keyed == []
    few = many[: tools_module._MAX_KEYED_TOOLS]
    assert tools_module.normalize_tools(few) is tools_module.normalize_tools(few) and keyed == [few, few]


def test_a_parser_per_request_with_the_same_tool_dicts_plans_their_members_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kept Tools keep their schemas' identities: the plans cached by them serve
    every parser, on both engines (the native core plans in Rust, its plans
    kept with the tools it read, which it keeps by the Tools' identities)."""
    import uuid

    from toolparse.engine import calls, native

    planned: list[str] = []
    plan = calls._member_plan

    def counted(root: dict[str, Any], key: str) -> Any:
        planned.append(key)
        return plan(root, key)

    monkeypatch.setattr(calls, "_member_plan", counted)
    core_plans = _core_plans_worked_out() if native.use_native(None) else 0
    city = f"city_{uuid.uuid4().hex}"  # (content no earlier test kept)
    output = (
        f"<tool_call>\n<function=get_weather>\n<parameter={city}>\nParis\n</parameter>\n"
        "<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>"
    )
    for _ in range(4):
        parser = StreamParser("qwen3-coder", [_weather_spec(city)])
        events = parser.feed(output) + parser.close()
        assert calls_of(events) == [{"name": "get_weather", "arguments": {city: "Paris", "days": 2}}]
    if native.use_native(None):
        assert planned == [] and _core_plans_worked_out() - core_plans == 2
    else:
        assert sorted(planned) == sorted([city, "days"])


def _core_plans_worked_out() -> int:
    from toolparse import _native as core  # (typed by toolparse/_native.pyi)

    return core._plans_worked_out()


def test_openai_style_tools_are_accepted() -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]
    assert calls_of(run("hermes", [CALL], tools=tools))[0]["name"] == "get_weather"
    events = run("hermes", [CALL], tools=[Tool("other")])
    (error,) = [e for e in events if isinstance(e, ToolCallError)]
    assert error.reason == "unknown_tool" and error.arguments == {"city": "Paris"}


def test_too_large_is_an_error_and_the_rest_still_parses() -> None:
    big = '<tool_call>{"name": "w", "arguments": {"text": "' + "x" * 5000 + '"}}</tool_call>'
    text = "before " + big + " middle " + CALL + " after"
    events = check_all(
        "hermes", text, [[text[i : i + 7] for i in range(0, len(text), 7)]], max_call_chars=1000
    )
    errors = [e for e in events if isinstance(e, ToolCallError)]
    assert errors and all(e.reason == "too_large" for e in errors)
    assert errors[0].index == 0 and errors[0].name == "w"
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    assert text_of(events) == "before  middle  after"


def test_too_deep_nesting_is_an_error() -> None:
    text = '<tool_call>{"name": "d", "arguments": {"a": ' + "[" * 100_000 + "</tool_call> ok"
    events = run("hermes", [text])
    assert covered_text(events) == text
    (error,) = [e for e in events if isinstance(e, ToolCallError)]
    assert error.reason == "too_deep"
    assert text_of(events) == " ok"


def test_unterminated_string_is_cut_at_its_closer_at_the_end() -> None:
    text = '<tool_call>{"name": "a", "arguments": {"x": "abc}}</tool_call> visible' + CALL
    events = check_all("hermes", text)
    error = next(e for e in events if isinstance(e, ToolCallError))
    assert error.raw.endswith("</tool_call>") and error.reason == "malformed_json"
    assert text_of(events) == " visible"
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]


def test_surrogate_halves_split_across_deltas_are_joined() -> None:
    events = run("hermes", ["go \ud83d", "\ude80 now"])
    assert text_of(events) == "go \U0001f680 now"
    events = run("hermes", ["lone \ud83d"])
    assert text_of(events) == "lone \ud83d"


def test_errors_as_text_repeats_the_raw_markup() -> None:
    text = "before <tool_call>{invalid}</tool_call> after"
    assert parse_text(text).text == "before  after"
    shown = parse_text(text, errors_as_text=True)
    assert shown.text == text
    assert shown.errors[0].reason == "malformed_json"


def test_error_offsets_point_into_the_stream() -> None:
    text = "abc <tool_call>{bad}</tool_call> def <tool_call>{worse"
    for error in parse_text(text).errors:
        assert text[error.offset : error.offset + len(error.raw)] == error.raw


def test_every_started_call_ends_once_even_when_its_block_breaks() -> None:
    text = '<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": ]]</tool_call>'
    events = check_all("hermes", text)
    assert calls_of(events) == []
    errors = [e for e in events if isinstance(e, ToolCallError)]
    assert [e.index for e in errors] == [0, 1]


def test_lenient_wrappers_are_text_unless_they_hold_a_call() -> None:
    assert parse_text("use <tools> wisely").text == "use <tools> wisely"
    assert parse_text('<json>{"port": 80}</json>').text == '<json>{"port": 80}</json>'
    result = parse_text('<tools>{"name": "f", "arguments": {}}</tools>')
    assert [c.name for c in result.calls] == ["f"] and result.text == ""


def test_no_arguments_and_parameters_key() -> None:
    result = parse_text(
        '<tool_call>{"name": "now"}</tool_call><tool_call>{"name": "p", "parameters": {"a": 1}}</tool_call>'
    )
    assert [(c.name, c.arguments) for c in result.calls] == [("now", {}), ("p", {"a": 1})]


def test_an_opener_that_is_only_mentioned_stays_text() -> None:
    text = "To call a tool, write <tool_call> and then the JSON. Sunny today."
    events = check_all("hermes", text)
    assert text_of(events) == text and not calls_of(events)
    events = check_all("fenced-json", "Use ```tool_call\nthen JSON.")
    assert text_of(events) == "Use ```tool_call\nthen JSON."


def test_many_unclosed_calls_in_one_delta() -> None:
    one = '<tool_call>{"name":"get_weather","arguments":{"city":"Seoul"}}'
    result = parse_text(one * 300)
    assert len(result.calls) == 300 and not result.errors
    assert "".join(c.raw for c in result.calls) == one * 300


_WRITE = [{"name": "write", "parameters": {"type": "object", "properties": {"content": {"type": "string"}}}}]
_MARKUP_IN_CODE = 'if x < 4: print("<tag>", a<b, "&amp;")\n</param <![CDATA[<b>]]>\n\t&lt;\\ &#65; &lt\n  \n'


@pytest.mark.parametrize(
    ("grammar", "call"),
    [
        (
            "qwen3-coder",
            "<tool_call>\n<function=write>\n<parameter=content>\n{}\n</parameter>\n</function>\n</tool_call>",
        ),
        ("xml", "<write><content>{}</content></write>"),
        ("glm", "<tool_call>write\n<arg_key>content</arg_key>\n<arg_value>{}</arg_value>\n</tool_call>"),
    ],
)
def test_values_holding_markup_entities_and_newlines_read_the_same_in_any_deltas(
    grammar: str, call: str
) -> None:
    # (the engine takes most such deltas itself, asking the value's reader only
    # whether each "<" or "&" is markup: it must agree with the reader)
    text = call.replace("{}", _MARKUP_IN_CODE * 3)
    splits = [[text[i : i + k] for i in range(0, len(text), k)] for k in (2, 3, 4, 5, 7, 16, 64)]
    events = check_all(grammar, text, splits, tools=_WRITE)
    (found,) = calls_of(events)
    expected = _MARKUP_IN_CODE * 3
    if grammar == "xml":
        expected = expected.replace("&amp;", "&").replace("&lt;", "<").replace("&#65;", "A")
        expected = expected.replace("<![CDATA[<b>]]>", "<b>")
    assert found["arguments"]["content"].rstrip("\n") == expected.rstrip("\n")


def test_events_built_on_the_hot_paths_are_the_frozen_events_themselves() -> None:
    # (built by attribute stores on an unfrozen twin, then re-classed: see
    # toolparse.events.unfrozen_twin)
    import dataclasses

    from toolparse.events import (
        ReasoningDelta,
        new_call_delta,
        new_call_start,
        new_reasoning_delta,
        new_tool_call,
    )

    built: list[ToolCallDelta | ToolCallStart | ReasoningDelta | ToolCall] = [
        new_call_delta(2, "c", '{"a"'),
        new_call_start(2, "c", "f"),
        new_reasoning_delta("t", "<t>"),
        new_tool_call(2, "c", "f", {"a": 1}, "<raw>", ("issue",), None, "why"),
    ]
    plain = [
        ToolCallDelta(2, "c", '{"a"'),
        ToolCallStart(2, "c", "f"),
        ReasoningDelta("t", "<t>"),
        ToolCall(2, "c", "f", {"a": 1}, "<raw>", ("issue",), None, "why"),
    ]
    for fast, slow in zip(built, plain, strict=True):
        assert type(fast) is type(slow) and fast == slow
        assert repr(fast) == repr(slow) and fast.to_dict() == slow.to_dict()
        if not isinstance(slow, ToolCall):  # (a call holds a dict: not hashable)
            assert hash(fast) == hash(slow)
        for field in dataclasses.fields(fast):
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(fast, field.name, "changed")


def test_plain_text_needs_no_regex_when_its_stops_repeat_a_character() -> None:
    # gpt-oss: "<" begins both its openers and its reasoning markers; the native
    # text lane tests three characters with `in` (grammar="auto" watches "<", "["
    # and the backtick: the text lane stops at newlines without a stop), only more
    # need a regex; the reference reads every delta
    auto = StreamParser("auto")
    auto.feed("Hello there, ")
    assert auto.lane == armed(auto, "text") and auto.feed("more text ") == [TextDelta("more text ")]
    assert auto.feed("a\nb") == [TextDelta("a\nb")]  # (a newline: read, a line begins)
    parser = StreamParser("gpt-oss")
    parser.feed("Hello there, ")
    assert parser.lane == armed(parser, "text")
    assert parser.feed("more text ") == [TextDelta("more text ")]
