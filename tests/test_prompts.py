"""The prompt side: system prompts name every tool, and a rendered call parses
back to the same call in every grammar (a hypothesis round trip)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from support import calls_of, check_all
from toolparse import Tool
from toolparse.grammars import GRAMMARS, get_grammar

TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
KINDS: dict[str, tuple[dict[str, Any], st.SearchStrategy[Any]]] = {
    "string": ({"type": "string"}, TEXT),
    "integer": ({"type": "integer"}, st.integers(-(10**12), 10**12)),
    "number": ({"type": "number"}, st.floats(allow_nan=False, allow_infinity=False, width=32)),
    "boolean": ({"type": "boolean"}, st.booleans()),
    "strings": ({"type": "array", "items": {"type": "string"}}, st.lists(TEXT, max_size=3)),
    "record": (
        {"type": "object", "properties": {"k": {"type": "string"}, "n": {"type": "integer"}}},
        st.fixed_dictionaries({"k": TEXT, "n": st.integers(-99, 99)}),
    ),
}
NAMES = st.from_regex(r"[a-z][a-z_]{0,7}", fullmatch=True)


@st.composite
def tool_and_arguments(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    fields = draw(
        st.dictionaries(NAMES.filter(lambda n: n != "item"), st.sampled_from(sorted(KINDS)), max_size=4)
    )
    schema = {"type": "object", "properties": {n: KINDS[k][0] for n, k in fields.items()}}
    arguments = {n: draw(KINDS[k][1]) for n, k in fields.items()}
    return {"name": "the_tool", "parameters": schema}, arguments


@pytest.mark.parametrize("grammar", list(GRAMMARS))
@settings(max_examples=150, deadline=None)
@given(case=tool_and_arguments())
def test_a_rendered_call_parses_back_to_the_same_call(
    grammar: str, case: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    tool, arguments = case
    # (a format's special tokens cannot be written as text inside a value: a model never does)
    assume(
        not any(marker in json.dumps(arguments, ensure_ascii=False) for marker in _special_tokens(grammar))
    )
    assert_round_trip(grammar, tool, arguments)


def _special_tokens(grammar: str) -> list[str]:
    declaration = get_grammar(grammar)
    if not declaration.tokens:
        return []
    own = declaration.reasoning
    markers = [] if own is None else [own.open or "", own.close, *own.markup]
    # (and the tokens of the call's own notation, FunctionGemma's `<escape>` quote for one)
    regions = declaration.regions.values()
    notation = [t for region in regions for t in getattr(region, "on", {}) if _is_token(t)]
    return [m for m in [*declaration.openers, *markers, *notation] if isinstance(m, str) and m]


def _is_token(terminal: object) -> bool:
    return isinstance(terminal, str) and terminal.startswith("<") and terminal.endswith(">")


def assert_round_trip(grammar: str, tool: dict[str, Any], arguments: dict[str, Any]) -> None:
    """``arguments`` rendered as a call of ``grammar`` parse back the same."""
    declaration = get_grammar(grammar)
    text = declaration.prompt.render_call("the_tool", arguments)
    # (bare JSON and pythonic calls are calls only where the answer begins)
    at_start = any(
        spec.at_start and isinstance(opener, str) and text.startswith(opener)
        for opener, spec in declaration.openers.items()
    )
    events = check_all(grammar, ("" if at_start else "Calling.\n") + text + "\nDone.", tools=[tool])
    assert calls_of(events) == [{"name": "the_tool", "arguments": arguments}]


@pytest.mark.parametrize("grammar", list(GRAMMARS))
def test_system_prompt_describes_every_tool(grammar: str) -> None:
    tools = [
        Tool(
            "get_weather",
            "Current weather",
            {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}},
        ),
        Tool("get_time", "Current time"),
    ]
    prompt = get_grammar(grammar).prompt.system_prompt(tools)
    for name in ("get_weather", "get_time", "city", "Current weather"):
        assert name in prompt


@pytest.mark.parametrize("grammar", list(GRAMMARS))
def test_tool_results_are_text_outside_any_call(grammar: str) -> None:
    rendered = get_grammar(grammar).prompt.render_result("get_weather", {"temp": 21})
    assert "21" in rendered
    events = check_all(grammar, rendered, tools=[{"name": "get_weather"}])
    assert calls_of(events) == []


@pytest.mark.parametrize("grammar", list(GRAMMARS))
@pytest.mark.parametrize("value", ["<value>", "<value>x", "\n<value>", "<value>\n"])
def test_a_string_that_looks_like_a_value_wrapper_reads_back_as_itself(grammar: str, value: str) -> None:
    # (the XML family's readers unwrap <value>...</value>: found by the round trip above)
    tool = {"name": "the_tool", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}
    assert_round_trip(grammar, tool, {"a": value})
