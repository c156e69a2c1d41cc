"""Tool choice: validation, provider wire formats (OpenArmature fixtures),
forced-answer schemas (checked with a real JSON Schema validator), and the
forced fast path through the shared invariants."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from support import SHARED_CORPUS, calls_of, check_all, load_jsonl, run
from toolparse import ToolCall, ToolCallDelta, ToolCallError, ToolCallStart, parse_text
from toolparse.toolchoice import ForceTool, InvalidRequestError, normalize_choice, response_schema, to_wire

FIXTURES = {"029": "openai", "030": "openai", "031": "openai", "036": "anthropic", "047": "gemini"}


HERE = Path(__file__).resolve().parent / "fixtures"  # copied from ../shared/corpus/ (see SOURCE.txt)


def fixture_cases() -> list[tuple[str, str, dict[str, Any]]]:
    cases = []
    for number, provider in FIXTURES.items():
        for path in sorted((HERE / "openarmature").glob(f"{number}-*.yaml")):
            for case in yaml.safe_load(path.read_text())["cases"]:
                cases.append((provider, f"{number}:{case['name']}", case))
    return cases


CASES = fixture_cases()


@pytest.mark.parametrize(("provider", "name", "case"), CASES, ids=[c[1] for c in CASES])
def test_openarmature_conformance(provider: str, name: str, case: dict[str, Any]) -> None:
    call = case["call"]
    tools, choice = call.get("tools"), call.get("tool_choice")
    before = copy.deepcopy((tools, choice))
    if "raises" in case.get("expected", {}):
        with pytest.raises(InvalidRequestError):
            to_wire(provider, tools, choice)
        return
    wire = to_wire(provider, tools, choice)
    expected = case["expected_wire_request"]
    for key in ("tools", "tool_choice", "toolConfig"):
        if key in expected:
            assert wire[key] == expected[key], key
        else:
            assert key not in wire, f"{key} must be absent"
    if (case.get("expected_wire_request_checks") or {}).get("tool_choice_absent"):
        assert "tool_choice" not in wire and "toolConfig" not in wire
    assert (tools, choice) == before  # the caller's objects are never mutated


WEATHER = {
    "name": "get_weather",
    "description": "Weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
SEARCH = {"name": "search", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}


@pytest.mark.parametrize(
    ("provider", "required", "forced"),
    [
        ("openai", "required", {"type": "function", "function": {"name": "search"}}),
        ("deepseek", "required", {"type": "function", "function": {"name": "search"}}),
        ("xai", "required", {"type": "function", "function": {"name": "search"}}),
        ("mistral", "any", {"type": "function", "function": {"name": "search"}}),
        ("openai-responses", "required", {"type": "function", "name": "search"}),
        ("anthropic", {"type": "any"}, {"type": "tool", "name": "search"}),
    ],
)
def test_provider_shapes(provider: str, required: Any, forced: Any) -> None:
    assert to_wire(provider, [WEATHER, SEARCH], "required")["tool_choice"] == required
    assert to_wire(provider, [WEATHER, SEARCH], ForceTool("search"))["tool_choice"] == forced
    wire = to_wire(provider, [WEATHER, SEARCH])
    assert "tool_choice" not in wire and len(wire["tools"]) == 2  # declared order, never filtered


def test_openai_responses_tools_are_flat_and_gemini_forces_with_allowed_names() -> None:
    assert to_wire("openai-responses", [WEATHER])["tools"][0]["name"] == "get_weather"
    wire = to_wire("gemini", [WEATHER, SEARCH], {"type": "tool", "toolName": "search"})
    assert wire["toolConfig"] == {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["search"]}
    }
    assert [d["name"] for d in wire["tools"][0]["functionDeclarations"]] == ["get_weather", "search"]


def test_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(InvalidRequestError, match="known providers: anthropic, deepseek, gemini") as info:
        to_wire("cohere", [WEATHER])
    assert info.value.code == "unknown_provider"


@pytest.mark.parametrize(
    ("tools", "choice", "code"),
    [
        ([], "required", "required_without_tools"),
        (None, ForceTool("x"), "forced_without_tools"),
        ([WEATHER], ForceTool("search"), "forced_tool_not_declared"),
        ([WEATHER, {"type": "web_search_preview"}], ForceTool("web_search_preview"), "forced_provider_tool"),
        ([WEATHER], "sometimes", "invalid_tool_choice"),
    ],
)
def test_validation_errors(tools: Any, choice: Any, code: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        to_wire("openai", tools, choice)
    assert info.value.code == code
    with pytest.raises(InvalidRequestError):
        parse_text("{}", tools=tools, tool_choice=choice)  # the parser validates the same way


def test_auto_and_none_without_tools_are_valid() -> None:
    assert to_wire("openai", None, "auto") == {"tools": [], "tool_choice": "auto"}
    assert to_wire("anthropic", [], "none") == {"tools": [], "tool_choice": {"type": "none"}}


def test_spellings() -> None:
    assert normalize_choice({"type": "tool", "toolName": "x"}) == ForceTool("x")
    assert normalize_choice({"type": "tool", "name": "x"}) == ForceTool("x")
    assert normalize_choice({"type": "required"}) == "required"
    assert normalize_choice({"type": "function", "function": {"name": "x"}}) == ForceTool("x")
    assert ForceTool("x").type == "tool"
    with pytest.raises(Exception):  # noqa: B017 - frozen pydantic model
        ForceTool("x").name = "y"


# -- forced-answer schemas -------------------------------------------------------------------


def test_forced_tool_schema() -> None:
    schema = response_schema([WEATHER, SEARCH], ForceTool("get_weather"))
    jsonschema.Draft202012Validator.check_schema(schema)
    valid = jsonschema.Draft202012Validator(schema)
    assert valid.is_valid({"name": "get_weather", "arguments": {"city": "Paris"}})
    assert not valid.is_valid({"name": "search", "arguments": {"q": "x"}})
    assert not valid.is_valid({"name": "get_weather", "arguments": {}})  # city is required
    assert not valid.is_valid({"name": "get_weather"})
    assert schema["title"] == "get_weather" and schema["description"] == "Weather"


def test_required_schema_admits_exactly_one_declared_tool() -> None:
    schema = response_schema([WEATHER, SEARCH], "required")
    valid = jsonschema.Draft202012Validator(schema)
    assert valid.is_valid({"name": "get_weather", "arguments": {"city": "Paris"}})
    assert valid.is_valid({"name": "search", "arguments": {"q": "x"}})
    assert not valid.is_valid({"name": "search", "arguments": {"q": 1}})
    assert not valid.is_valid({"name": "other", "arguments": {}})
    assert not valid.is_valid([{"name": "search", "arguments": {}}])
    parallel = jsonschema.Draft202012Validator(response_schema([WEATHER, SEARCH], "required", parallel=True))
    assert parallel.is_valid(
        [{"name": "search", "arguments": {}}, {"name": "get_weather", "arguments": {"city": "x"}}]
    )
    assert not parallel.is_valid([])
    with pytest.raises(InvalidRequestError):
        response_schema([WEATHER], "auto")


def test_required_schema_with_pydantic_defs() -> None:
    from pydantic import BaseModel

    from toolparse import Tool

    class Point(BaseModel):
        x: int

    class Path(BaseModel):
        points: list[Point]

    schema = response_schema([Tool.from_model(Path)], "required")
    valid = jsonschema.Draft202012Validator(schema)
    assert valid.is_valid({"name": "Path", "arguments": {"points": [{"x": 1}]}})
    assert not valid.is_valid({"name": "Path", "arguments": {"points": [{"x": "a"}]}})


# -- the forced fast path ---------------------------------------------------------------------

FORCED_TOOLS = [WEATHER, SEARCH]
ANSWERS = [
    '{"name": "get_weather", "arguments": {"city": "Paris"}}',
    ' \n{"name":"search","arguments":{"q":"cats \\u00e9 \\"quoted\\""}}\n',
    '[{"name": "search", "arguments": {"q": "a"}}, {"name": "get_weather", "arguments": {"city": "b"}}]',
    '{"name": "get_weather", "arguments": {"city": "Paris"}} trailing',
    "not json at all",
    '{"name": "get_weather", "argu',
    "",
]


@settings(max_examples=100, deadline=None)
@given(answer=st.sampled_from(ANSWERS), data=st.data())
def test_forced_answers_keep_the_invariants(answer: str, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(answer)), max_size=6)))
    splits = [answer[a:b] for a, b in zip([0, *cuts], [*cuts, len(answer)], strict=True)]
    events = check_all("hermes", answer, [splits], tools=FORCED_TOOLS, tool_choice="required")
    assert all(not isinstance(e, ToolCall) or e.name in ("get_weather", "search") for e in events)
    assert not any(type(e).__name__ == "TextDelta" for e in events)  # nothing else is emitted


def test_forced_answer_streams_then_collapses() -> None:
    answer = '{"name": "get_weather", "arguments": {"city": "Pa'
    parser_events = run(
        "hermes", [answer, 'ris"}}'], tools=FORCED_TOOLS, tool_choice=ForceTool("get_weather")
    )
    assert [type(e) for e in parser_events] == [ToolCallStart, ToolCallDelta, ToolCallDelta, ToolCall]
    collapsed = run("hermes", [answer, 'ris"}}'], tools=FORCED_TOOLS, tool_choice="required", collapse=True)
    assert [type(e) for e in collapsed] == [ToolCall]
    assert calls_of(collapsed) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]


def test_unparseable_forced_answer() -> None:
    events = run("hermes", ["not json at all"], tools=FORCED_TOOLS, tool_choice="required")
    (error,) = events
    assert isinstance(error, ToolCallError) and error.raw == "not json at all"
    compat = run(
        "hermes", ["not json at all"], tools=FORCED_TOOLS, tool_choice="required", unknown_on_error=True
    )
    assert calls_of(compat) == [{"name": "unknown", "arguments": {}}]


def test_none_passes_text_through() -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>'
    assert parse_text(text, tools=FORCED_TOOLS, tool_choice="none").text == text


MIDDLEWARE_CASES = [
    c for c in load_jsonl("middleware_cases.jsonl") if c["id"].startswith("toolchoice-required-")
]
MIDDLEWARE_CASES += [
    c for c in load_jsonl("middleware_cases.jsonl") if c["id"] == "toolchoice-string-coercion"
]


@pytest.mark.parametrize("case", MIDDLEWARE_CASES, ids=[c["id"] for c in MIDDLEWARE_CASES])
def test_middleware_tool_choice_cases(case: dict[str, Any]) -> None:
    tools = [{"name": t["name"], "parameters": t["schema"]} for t in case["tools"]]
    events = check_all(
        "hermes",
        case["input_text"],
        tools=tools,
        tool_choice="required",
        unknown_on_error=case["id"].endswith("bad-json"),
    )
    assert calls_of(events) == case["expected_tool_calls"]
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["ToolCallStart", "ToolCallDelta", "ToolCall"]  # start, input delta(s), call


def test_the_fixtures_are_the_corpus_files_and_all_of_them() -> None:
    assert len(CASES) == 18 and len(MIDDLEWARE_CASES) == 3
    if not SHARED_CORPUS.exists():
        pytest.skip("../shared/corpus is not beside this checkout: nothing to compare the copies with")
    for path in sorted((HERE / "openarmature").glob("*.yaml")):
        assert path.read_bytes() == (SHARED_CORPUS / "openarmature" / path.name).read_bytes(), path.name
