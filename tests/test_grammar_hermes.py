"""The ``hermes`` grammar on real outputs: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``
as Hermes 2 Pro / 3 and Qwen 2.5 / 3 write it.

The cases are copied from public test suites into ``fixtures/grammars/hermes.jsonl``,
each line with its source repository, path, commit and licence (see
``fixtures/grammars/SOURCE.txt``): vLLM's Hermes parser tests, SGLang's
Hermes, Qwen 2.5 and base-detector tests, sglang-jax's Qwen 2.5 tests
(Apache-2.0), and the AI SDK tool-call middleware's Hermes JSON-repair and
streaming tests (Apache-2.0). Each goes through ``check_all`` (conservation,
chunking independence, reconciliation), fed whole, one character at a time,
and in the source's own split where it has one. Where toolparse
deliberately differs from a source's expectation, the case says so and why.

Already covered elsewhere, and not copied again: the shared corpus's real
Hermes outputs and the vLLM, llama.cpp and SGLang records in it
(``test_corpus.py``: line continuations, a bare-string ``arguments``, a
missing closer, a ``</think>`` closer, the lenient wrappers, ...), and the
engine's streaming latency on Hermes (``test_engine.py``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from support import ROOT, Expect, calls_of, check_all, check_source_case, errors_of, text_of
from toolparse import Tool, ToolCall, ToolCallDelta, ToolCallError
from toolparse.events import Event
from toolparse.grammars import get_grammar

GRAMMAR = "hermes"
FIXTURE = ROOT / "tests" / "fixtures" / "grammars" / "hermes.jsonl"
CASES = {c["id"]: c for c in map(json.loads, FIXTURE.read_text(encoding="utf-8").splitlines())}
MARKERS = ("<tool_call>", "</tool_call>")


def tool(name: str, /, *, closed: bool = False, **properties: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if closed:
        schema["additionalProperties"] = False
    return {"name": name, "parameters": schema}


STRING = {"type": "string"}
CITY_TOOLS = [  # SGLang's HermesDetector and Qwen25Detector tests (setUp)
    tool("get_weather", city=STRING, unit={"type": "string", "enum": ["celsius", "fahrenheit"]}),
    tool("search", query=STRING),
]
TOOLS: dict[str, list[dict[str, Any]] | None] = {
    "vllm-project/vllm": None,  # (its requests declare no tools)
    "sgl-project/sglang": CITY_TOOLS,
    "sgl-project/sglang-jax": [tool("get_weather", location=STRING), tool("square", x={"type": "number"})],
    "minpeter/ai-sdk-tool-call-middleware": None,  # (tools: [] unless the test declares its own)
}
CASE_TOOLS: dict[str, list[dict[str, Any]]] = {
    # SGLang's TestBaseFormatDetector (a detector with a <tool_call> bot token)
    **{
        case_id: [tool("get_weather", city=STRING), tool("get_tourist_attractions", city=STRING)]
        for case_id in (
            "sglang-base-chinese-one-chunk",
            "sglang-base-chinese-own-chunk",
            "sglang-base-two-objects-chinese",
        )
    },
    # the AI SDK middleware's JSON-repair tests, each with its own tool
    "aisdk-hermes-quote-before-brace": [tool("edit", closed=True, content=STRING)],
    "aisdk-hermes-quoted-code": [tool("write", path=STRING, content=STRING)],
    "aisdk-hermes-name-inside-arguments": [tool("edit", name=STRING, content=STRING)],
    "aisdk-hermes-typed-values-beside-broken-string": [
        tool(
            "update",
            count={"type": "number"},
            flag={"type": "boolean"},
            label={"type": ["string", "null"]},
            content=STRING,
        )
    ],
    "aisdk-hermes-broken-number": [tool("calc", value={"type": "number"}, label=STRING)],
    "aisdk-hermes-unknown-key-closed-schema": [tool("write", closed=True, content=STRING, path=STRING)],
}


def tools_for(case_id: str) -> list[dict[str, Any]] | None:
    return CASE_TOOLS.get(case_id, TOOLS[CASES[case_id]["source_repo"]])


EXPECT: dict[str, Expect] = {
    # -- vLLM ----------------------------------------------------------------------------------
    "vllm-hermes-forward-text": Expect(text=CASES["vllm-hermes-forward-text"]["raw_text"]),
    "vllm-hermes-stream-interval": Expect(),
    "vllm-hermes-plain-text-interval": Expect(text=CASES["vllm-hermes-plain-text-interval"]["raw_text"]),
    # -- SGLang HermesDetector -----------------------------------------------------------------
    "sglang-hermes-single": Expect(),
    "sglang-hermes-two-blocks": Expect(),
    # DIFFERS only in whitespace: SGLang strips the content; every character of the
    # answer is kept here, where it was written.
    "sglang-hermes-leading-text": Expect(text="I will check the weather for you. "),
    "sglang-hermes-two-arguments": Expect(),
    # (SGLang: no call.) An opener followed by something that is not JSON was mentioned,
    # not used: it stays text, as the README's recovery table says.
    "sglang-hermes-not-json": Expect(text="<tool_call>not valid json</tool_call>"),
    "sglang-hermes-stream-split-opener": Expect(),
    # -- SGLang Qwen25Detector -----------------------------------------------------------------
    "sglang-qwen25-text-line-before": Expect(text="Let me check the weather.\n"),  # (SGLang strips it)
    "sglang-qwen25-two-blocks-newline": Expect(text="\n"),
    "sglang-qwen25-padded-json": Expect(),
    # JSON was begun ('{') and is broken: an error, never text and never a call
    "sglang-qwen25-invalid-json": Expect(errors=("malformed_json",)),
    "sglang-qwen25-stream-chunks": Expect(),
    # -- SGLang TestBaseFormatDetector ---------------------------------------------------------
    "sglang-base-chinese-one-chunk": Expect(),
    "sglang-base-chinese-own-chunk": Expect(),
    "sglang-base-two-objects-chinese": Expect(),
    # -- sglang-jax Qwen25Detector -------------------------------------------------------------
    "sgljax-qwen25-after-thinking-text": Expect(text="thinking done\n"),
    "sgljax-qwen25-number-argument": Expect(text="\n"),
    # SGLang drops the call silently; here it is an unknown_tool error carrying the name
    "sgljax-qwen25-unknown-function": Expect(errors=("unknown_tool",)),
    # (SGLang only asserts the second call.) The first block holds prose, not JSON: text.
    "sgljax-qwen25-bad-block-then-good": Expect(text="<tool_call>\nthis is not json\n</tool_call>\n"),
    "sgljax-qwen25-stream-name-split": Expect(),
    # -- the AI SDK middleware's JSON repair ---------------------------------------------------
    # DIFFERS: the middleware repairs this with the schema's help. Here a quote followed by
    # '}' ends the string (JSON can go on after it, and the string's text has already
    # streamed out), so the text after it is broken JSON: an error, never a guessed call.
    "aisdk-hermes-quote-before-brace": Expect(calls=[], errors=("malformed_json",)),
    "aisdk-hermes-quoted-code": Expect(),
    "aisdk-hermes-name-inside-arguments": Expect(),
    "aisdk-hermes-typed-values-beside-broken-string": Expect(),
    "aisdk-hermes-escaped-quotes-nested": Expect(),
    # (the source accepts a call or an error) "params" is no alias of "arguments": the
    # envelope has no arguments, so the call has {} (the README's recovery table)
    "aisdk-hermes-params-key": Expect(calls=[{"name": "x", "arguments": {}}]),
    "aisdk-hermes-broken-number": Expect(errors=("malformed_json",)),
    # DIFFERS: the middleware rejects the whole call; here the key the closed schema does
    # not allow is dropped and reported in the call's issues (the README's coercion table)
    "aisdk-hermes-unknown-key-closed-schema": Expect(
        calls=[{"name": "write", "arguments": {"content": "ok", "path": "/tmp/a"}}]
    ),
    # -- the AI SDK middleware's streams -------------------------------------------------------
    "aisdk-hermes-text-around": Expect(text="Let me check the weather.\n\n\n\nThe weather looks good!"),
    "aisdk-hermes-two-calls-text-between": Expect(text="First,  then  done!"),
    "aisdk-hermes-tags-split-many": Expect(),
    # DIFFERS: the middleware flushes the partial call as text. It is an unfinished call:
    # an error whose raw keeps the markup (errors_as_text=True shows it as text).
    "aisdk-hermes-unfinished-at-finish": Expect(errors=("unfinished_call",)),
}


def test_every_fixture_case_has_an_expectation() -> None:
    assert set(EXPECT) == set(CASES)


@pytest.mark.parametrize("case_id", list(EXPECT))
def test_source_case(case_id: str) -> None:
    expect = EXPECT[case_id]
    # (no marker may leak into the text, except where the text is the whole unread block)
    markers = tuple(m for m in MARKERS if m not in expect.text)
    check_source_case(GRAMMAR, CASES[case_id], expect, tools_for(case_id), markers)


def test_the_source_cases_cover_the_peers_edge_cases() -> None:
    # (a guard against trimming the fixture: the kinds of case the peers test are all here)
    texts = [c["raw_text"] for c in CASES.values()]
    assert any("杭州" in t for t in texts)  # non-ASCII arguments
    assert any('"arguments":{}' in t for t in texts)  # empty arguments
    assert any(c["stream_split"] for c in CASES.values())  # the sources' own splits
    assert sum(bool(e.errors) for e in EXPECT.values()) >= 5  # broken, unknown and unfinished calls


# -- the details a source checks beyond names and arguments ----------------------------------


def run_checked(text: str, **options: Any) -> list[Event]:
    return check_all(GRAMMAR, text, **options)


def test_argument_deltas_carry_non_ascii_as_written() -> None:
    # SGLang's test_chinese_characters_not_double_escaped: the streamed arguments hold
    # 杭州 itself, not \\u676d\\u5dde, in every chunking
    case = CASES["sglang-base-chinese-own-chunk"]
    for deltas in ([case["raw_text"]], case["stream_split"], list(case["raw_text"])):
        events = check_all(GRAMMAR, case["raw_text"], [deltas], tools=tools_for(case["id"]))
        streamed = "".join(e.arguments_delta for e in events if isinstance(e, ToolCallDelta))
        assert streamed == '{"city":"杭州"}'


def test_an_unknown_tool_error_carries_the_name_and_arguments() -> None:
    case = CASES["sgljax-qwen25-unknown-function"]
    events = run_checked(case["raw_text"], tools=tools_for(case["id"]))
    (error,) = [e for e in events if isinstance(e, ToolCallError)]
    assert (error.name, error.arguments, error.raw) == ("mystery", {"x": 1}, case["raw_text"])


def test_a_key_a_closed_schema_does_not_allow_is_reported() -> None:
    case = CASES["aisdk-hermes-unknown-key-closed-schema"]
    events = run_checked(case["raw_text"], tools=tools_for(case["id"]))
    (call,) = [e for e in events if isinstance(e, ToolCall)]
    assert any("debug" in str(issue) for issue in call.issues)


# -- written here, from the format's documentation ------------------------------------------

WEATHER = [
    {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": STRING,
                "days": {"type": "integer"},
                "metric": {"type": "boolean"},
            },
        },
    }
]


def test_strings_a_schema_types_are_coerced() -> None:
    text = (
        '<tool_call>\n{"name": "get_weather", '
        '"arguments": {"city": "Paris", "days": "3", "metric": "TRUE"}}\n</tool_call>'
    )
    events = run_checked(text, tools=WEATHER)
    assert calls_of(events) == [
        {"name": "get_weather", "arguments": {"city": "Paris", "days": 3, "metric": True}}
    ]
    # (with no tools declared the values stay as the model wrote them)
    assert calls_of(run_checked(text)) == [
        {"name": "get_weather", "arguments": {"city": "Paris", "days": "3", "metric": "TRUE"}}
    ]


def test_empty_and_absent_arguments() -> None:
    text = (
        '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>'
        '<tool_call>{"name": "get_date"}</tool_call>'
    )
    assert calls_of(run_checked(text)) == [
        {"name": "get_time", "arguments": {}},
        {"name": "get_date", "arguments": {}},
    ]


def test_markup_and_angle_brackets_inside_a_string_are_the_string() -> None:
    value = 'if a < b && c > d: print("<tool_call>{\\"name\\": \\"x\\"}</tool_call>")'
    text = '<tool_call>{"name": "run", "arguments": {"code": ' + json.dumps(value) + "}}</tool_call> ok"
    events = run_checked(text)
    assert calls_of(events) == [{"name": "run", "arguments": {"code": value}}]
    assert text_of(events) == " ok"


def test_a_call_cut_off_inside_a_string_is_an_error_and_the_rest_is_not_lost() -> None:
    events = run_checked('Sure. <tool_call>{"name": "write", "arguments": {"text": "once upon a')
    assert calls_of(events) == [] and errors_of(events) == ["unfinished_call"]
    assert text_of(events) == "Sure. "


def test_a_call_inside_a_leading_think_block_is_never_run() -> None:
    # Qwen3's thinking output: a call drafted in the reasoning is reasoning
    draft = '<tool_call>\n{"name": "delete_file", "arguments": {"path": "a.txt"}}\n</tool_call>'
    text = f"<think>\nI could run {draft} but ask first.\n</think>\n\nShall I delete a.txt?"
    events = run_checked(text)
    assert calls_of(events) == [] and errors_of(events) == []
    assert text_of(events) == "\n\nShall I delete a.txt?"


# -- the prompt side -----------------------------------------------------------------------
# Qwen3's chat template (ye-NX/llama.cpp models/templates/Qwen-Qwen3-0.6B.jinja
# @ b354d7c9ecb76c97c07098617cdebbdfffa2583e, a copy of Qwen/Qwen3-0.6B's template,
# Apache-2.0) writes a past call as
#   '<tool_call>\n{"name": "' + name + '", "arguments": ' + (arguments | tojson) + '}\n</tool_call>'
# and a tool's result as '<tool_response>\n' + content + '\n</tool_response>'.


def test_a_past_call_and_a_result_are_written_as_the_qwen3_template_writes_them() -> None:
    prompt = get_grammar(GRAMMAR).prompt
    arguments = {"city": "Paris", "days": 3, "note": "café <b>"}
    rendered = prompt.render_call("get_weather", arguments)
    template = '<tool_call>\n{"name": "get_weather", "arguments": ' + json.dumps(
        arguments, ensure_ascii=False
    )
    assert rendered == template + "}\n</tool_call>"
    assert calls_of(run_checked(rendered)) == [{"name": "get_weather", "arguments": arguments}]
    result = prompt.render_result("get_weather", "21 degrees")
    assert result == "<tool_response>\n21 degrees\n</tool_response>"
    assert calls_of(run_checked(result)) == []


def test_the_system_prompt_follows_the_qwen3_template() -> None:
    weather = Tool("get_weather", "Current weather", {"type": "object", "properties": {"city": STRING}})
    system = get_grammar(GRAMMAR).prompt.system_prompt([weather])
    listed = json.dumps(weather.to_openai(), ensure_ascii=False)
    assert system == (
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
        f"{listed}\n</tools>\n\nFor each function call, return a json object with function name and "
        "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
        '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
    )
