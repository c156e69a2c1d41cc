"""The ``fenced-json`` grammar (alias ``gemma``): JSON calls in a fence opened
by ```` ```tool_call ```` and a newline, as the AI SDK tool-call middleware's
``gemmaToolMiddleware`` prompts Gemma 3 and other models without native tool
calls to write them::

    ```tool_call
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    ```

Few public test suites hold this format. The cases copied into
``fixtures/grammars/fenced_json.jsonl`` come from the AI SDK tool-call
middleware's tests (``minpeter/ai-sdk-tool-call-middleware``, Apache-2.0;
path and commit on each line, see ``fixtures/grammars/SOURCE.txt``); its
three Gemma outputs closed by ```` ``` ````, by a single backtick, and
followed by a later fence are records of the shared corpus, checked in
``test_corpus.py``, and are not copied again. The rest of this file is
written here, from the format's documentation (the module's docstring and
the README): each test checks the events in whole-text, one-character and
the given chunkings (``check_all``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from support import ROOT, Expect, calls_of, check_all, check_source_case, errors_of, reasoning_of, text_of
from toolparse import ToolCallError, parse_text
from toolparse.events import Event
from toolparse.grammars import get_grammar

GRAMMAR = "fenced-json"
FIXTURE = ROOT / "tests" / "fixtures" / "grammars" / "fenced_json.jsonl"
CASES = {c["id"]: c for c in map(json.loads, FIXTURE.read_text(encoding="utf-8").splitlines())}
MARKERS = ("```tool_call",)

EXPECT: dict[str, Expect] = {
    # (the middleware trims nothing here either: the spaces on both sides stay)
    "aisdk-gemma-fence-among-start-tags": Expect(text="Before  after"),
    "aisdk-gemma-formatted-past-call": Expect(),
}


def test_every_fixture_case_has_an_expectation() -> None:
    assert set(EXPECT) == set(CASES)


@pytest.mark.parametrize("case_id", list(EXPECT))
def test_source_case(case_id: str) -> None:
    # (the middleware's tests declare no tools: tools: [])
    check_source_case(GRAMMAR, CASES[case_id], EXPECT[case_id], None, MARKERS)


def test_the_alias_is_the_same_grammar() -> None:
    text = CASES["aisdk-gemma-formatted-past-call"]["raw_text"]
    assert parse_text(text, "gemma").calls[0].arguments == parse_text(text, GRAMMAR).calls[0].arguments


# -- written here, from the format's documentation ------------------------------------------


def run_checked(text: str, **options: Any) -> list[Event]:
    deltas = [text[i : i + 3] for i in range(0, len(text), 3)]  # (and three characters at a time)
    return check_all(GRAMMAR, text, [deltas], **options)


CALL = '```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```'
WEATHER = [{"name": "get_weather", "arguments": {"city": "Paris"}}]
WEATHER_TOOL = {
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "metric": {"type": "boolean"},
        },
    },
}


def test_the_prompted_form_with_text_on_both_sides() -> None:
    events = run_checked("Let me look.\n" + CALL + "\nIt is sunny there.")
    assert calls_of(events) == WEATHER
    assert text_of(events) == "Let me look.\n\nIt is sunny there."


@pytest.mark.parametrize(
    "closer",
    [
        "\n```",
        "\n``",
        "`",
        "```",
        "\n````",
        "\n`````",
    ],
)
def test_a_run_of_backticks_closes_the_fence(closer: str) -> None:
    # (Gemma often closes with two backticks, or one right after the JSON)
    text = '```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}}' + closer + " after"
    events = run_checked(text)
    assert calls_of(events) == WEATHER
    assert text_of(events) == " after"


def test_a_windows_line_break_after_the_opener() -> None:
    events = run_checked('```tool_call\r\n{"name": "get_weather", "arguments": {"city": "Paris"}}\r\n```')
    assert calls_of(events) == WEATHER and text_of(events) == ""


@pytest.mark.parametrize(
    "body",
    [
        '[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"q": 1}}]',
        '{"name": "a", "arguments": {}}\n{"name": "b", "arguments": {"q": 1}}',
    ],
    ids=["array", "two objects"],
)
def test_several_calls_in_one_fence(body: str) -> None:
    events = run_checked(f"```tool_call\n{body}\n```")
    assert calls_of(events) == [{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"q": 1}}]


def test_one_fence_per_call() -> None:
    # (the prompt asks for one block per call)
    second = '```tool_call\n{"name": "get_time", "arguments": {"zone": "UTC"}}\n```'
    events = run_checked(CALL + "\n" + second)
    assert calls_of(events) == [*WEATHER, {"name": "get_time", "arguments": {"zone": "UTC"}}]
    assert text_of(events) == "\n"


def test_python_literals_as_the_middlewares_prompt_shows_them() -> None:
    # gemmaSystemPromptTemplate shows {'name': <function-name>, 'arguments': <args-dict>}
    text = (
        "```tool_call\n{'name': 'get_weather', "
        "'arguments': {'city': 'Paris', 'metric': True, 'days': None}}\n```"
    )
    events = run_checked(text)
    assert calls_of(events) == [
        {"name": "get_weather", "arguments": {"city": "Paris", "metric": True, "days": None}}
    ]


def test_empty_and_absent_arguments() -> None:
    events = run_checked(
        '```tool_call\n{"name": "get_time", "arguments": {}}\n```\n```tool_call\n{"name": "get_date"}\n```'
    )
    assert calls_of(events) == [{"name": "get_time", "arguments": {}}, {"name": "get_date", "arguments": {}}]


def test_backticks_and_markup_inside_a_string_are_the_string() -> None:
    value = "use ```tool_call\n...``` and <tool_call></tool_call> and `code`"
    text = '```tool_call\n{"name": "note", "arguments": {"text": ' + json.dumps(value) + "}}\n```"
    assert calls_of(run_checked(text)) == [{"name": "note", "arguments": {"text": value}}]


def test_a_fence_never_closed_is_read_when_its_json_is_complete() -> None:
    events = run_checked('Checking.\n```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n')
    assert calls_of(events) == WEATHER and text_of(events) == "Checking.\n"


def test_a_fence_cut_inside_its_json_is_an_unfinished_call() -> None:
    events = run_checked('Checking.\n```tool_call\n{"name": "get_weather", "arguments": {"city": "Pa')
    assert calls_of(events) == [] and errors_of(events) == ["unfinished_call"]
    assert text_of(events) == "Checking.\n"


def test_prose_after_the_json_inside_the_fence_is_an_error_not_a_call() -> None:
    # (a call the model talked past is never run; the answer after the fence stands)
    events = run_checked(
        '```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}} or maybe not\n``` Sorry.'
    )
    assert calls_of(events) == [] and errors_of(events) == ["malformed_json", "malformed_json"]
    assert text_of(events) == " Sorry."
    (first, _) = [e for e in events if isinstance(e, ToolCallError)]
    assert (first.name, first.arguments) == ("get_weather", {"city": "Paris"})


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```',
        '```\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```',
        '```tool_call {"name": "get_weather", "arguments": {"city": "Paris"}}```',
        '```tool_output\n{"temp": 21}\n```',
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
        "Wrap calls in a ```tool_call fence.",
    ],
    ids=["json fence", "plain fence", "no newline after the opener", "tool output", "hermes tags", "mention"],
)
def test_other_fences_and_formats_are_text(text: str) -> None:
    events = run_checked(text)
    assert calls_of(events) == [] and errors_of(events) == [] and text_of(events) == text


@pytest.mark.parametrize(
    "text",
    [
        "Write it like this:\n````\n" + CALL + "\n````\n",
        "> " + CALL.replace("\n", "\n> "),
    ],
    ids=["inside a longer fence", "blockquote"],
)
def test_a_call_shown_as_an_example_is_text(text: str) -> None:
    events = run_checked(text)
    assert calls_of(events) == [] and text_of(events) == text


def test_declared_tools_type_the_arguments_and_name_the_tools() -> None:
    text = (
        '```tool_call\n{"name": "get_weather", '
        '"arguments": {"city": "Paris", "days": "3", "metric": "false"}}\n```\n'
        '```tool_call\n{"name": "launch_rocket", "arguments": {"target": "moon"}}\n```'
    )
    events = run_checked(text, tools=[WEATHER_TOOL])
    assert calls_of(events) == [
        {"name": "get_weather", "arguments": {"city": "Paris", "days": 3, "metric": False}}
    ]
    assert errors_of(events) == ["unknown_tool"]
    (error,) = [e for e in events if isinstance(e, ToolCallError)]
    assert (error.name, error.arguments) == ("launch_rocket", {"target": "moon"})


def test_arguments_encoded_as_a_json_string_and_arguments_that_are_no_object() -> None:
    events = run_checked('```tool_call\n{"name": "f", "arguments": "{\\"a\\": 1}"}\n```')
    assert calls_of(events) == [{"name": "f", "arguments": {"a": 1}}]
    # (by design: arguments that are a plain string are an invalid_call, never a call)
    events = run_checked('```tool_call\n{"name": "f", "arguments": "hello"}\n```')
    assert calls_of(events) == [] and errors_of(events) == ["invalid_call"]


def test_a_fence_drafted_in_a_leading_think_block_is_reasoning() -> None:
    text = "<think>\nMaybe:\n" + CALL + "\nNo, ask first.\n</think>\nWhich city?"
    events = run_checked(text)
    assert calls_of(events) == [] and errors_of(events) == []
    assert reasoning_of(events) == "\nMaybe:\n" + CALL + "\nNo, ask first.\n"
    assert text_of(events) == "\nWhich city?"


# -- the prompt side -----------------------------------------------------------------------


def test_a_past_call_and_a_result_are_written_in_their_fences() -> None:
    prompt = get_grammar(GRAMMAR).prompt
    rendered = prompt.render_call("get_weather", {"city": "Paris"})
    assert rendered == CALL
    assert calls_of(run_checked("Calling.\n" + rendered)) == WEATHER
    result = prompt.render_result("get_weather", {"temp": 21})
    assert result == '```tool_output\n{"temp": 21}\n```'
    assert calls_of(run_checked(result)) == []
