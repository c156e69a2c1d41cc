"""The ``mistral`` grammar on real outputs: ``[TOOL_CALLS][{...}]`` (tokenizer
v2-v7), ``[TOOL_CALLS]name[ARGS]{...}`` (v11+), ``[CALL_ID]`` (v11).

The cases are copied from public test suites into
``fixtures/grammars/mistral.jsonl``, each line with its source repository,
path, commit and licence (see ``fixtures/grammars/SOURCE.txt``): vLLM
(Apache-2.0), SGLang (Apache-2.0), llama.cpp (MIT) and mistral-common
(Apache-2.0). Each goes through ``check_all`` (conservation, chunking
independence, reconciliation), fed whole, one character at a time, and in the
source's own token split where it has one. Where toolparse deliberately
differs from a source's expectation, the case says so and why.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support import ROOT, Expect, calls_of, check_all, check_source_case, errors_of, reasoning_of, text_of
from toolparse import Tool, ToolCall, ToolCallStart
from toolparse.events import Event
from toolparse.grammars import get_grammar

FIXTURE = ROOT / "tests" / "fixtures" / "grammars" / "mistral.jsonl"
CASES = {c["id"]: c for c in map(json.loads, FIXTURE.read_text(encoding="utf-8").splitlines())}
MARKERS = ("[TOOL_CALLS]", "[ARGS]", "[CALL_ID]")

# The schemas the sources declare (vLLM's extract tests and mistral-common's
# docstring formats declare none; the early llama.cpp branch is not copied).
SGLANG_TOOLS = [  # sglang test_function_call_parser.py, TestMistralDetector.setUp
    {
        "type": "function",
        "function": {
            "name": "make_next_step_decision",
            "description": "Test function for decision making",
            "parameters": {
                "type": "object",
                "properties": {
                    "decision": {"type": "string", "description": "The next step to take"},
                    "content": {"type": "string", "description": "The content of the next step"},
                },
                "required": ["decision", "content"],
            },
        },
    }
]
# llama.cpp tests/test-chat.cpp: special_function_tool, special_function_tool_with_optional_param
LLAMACPP_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "special_function",
            "description": "I'm special",
            "parameters": {
                "type": "object",
                "properties": {"arg1": {"type": "integer", "description": "The arg."}},
                "required": ["arg1"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "special_function_with_opt",
            "description": "I'm special but have optional stuff",
            "parameters": {
                "type": "object",
                "properties": {
                    "arg1": {"type": "integer", "description": "The arg."},
                    "arg2": {"type": "integer", "description": "The optional arg."},
                },
                "required": ["arg1"],
            },
        },
    },
]
TOOLS: dict[str, list[dict[str, Any]]] = {
    "sgl-project/sglang": SGLANG_TOOLS,
    "ggml-org/llama.cpp": LLAMACPP_TOOLS,
}


EXPECT: dict[str, Expect] = {
    # -- v2-v7: one [TOOL_CALLS], one JSON list ----------------------------------------------
    "vllm-m-prev11-single-no-space": Expect(),  # Tekken: no space after the marker
    "vllm-m-prev11-single-space": Expect(),  # SentencePiece: "[TOOL_CALLS] ["
    "vllm-m-prev11-arguments-first": Expect(),
    "vllm-m-prev11-name-key-inside-args": Expect(),
    "vllm-m-prev11-parallel": Expect(),
    "vllm-m-prev11-content-before": Expect(text="Hello"),
    "vllm-m-prev11-one-chunk-content-before": Expect(text="Some text"),
    "vllm-m-prev11-stream-odd-spacing": Expect(),
    "vllm-m-prev11-stream-string-args": Expect(),
    "vllm-m-prev11-stream-parallel-args-first": Expect(),
    # DIFFERS from vLLM's non-streaming test, which drops the text after the list
    # (content None): text the model wrote is never lost. As in vLLM's streaming
    # test the text comes back, but the whitespace right after a call (here "\n")
    # is part of the call's markup, like a </s>.
    "vllm-m-prev11-trailing-data-nonstream": Expect(text="extra trailing data"),
    "vllm-m-prev11-trailing-data-stream": Expect(text="extra trailing data"),
    # DIFFERS: vLLM raises ValueError on a second [TOOL_CALLS]. Each marker opens
    # a block of its own (mistral-common's decoder splits on the marker too), so
    # both calls are read.
    "vllm-m-prev11-two-bot-tokens-raises": Expect(
        calls=[{"name": "add", "arguments": {"a": 1}}, {"name": "sub", "arguments": {"b": 2}}]
    ),
    # DIFFERS: vLLM's regex fallback digs the list out from behind "junk". After the
    # marker comes neither a list nor name[ARGS]: broken markup, an error that runs
    # to the block's end (the end of the stream here); nothing is guessed.
    "vllm-m-prev11-junk-before-array": Expect(calls=[], errors=("malformed_markup",)),
    # DIFFERS: vLLM returns "not json at all" as content and loses the marker. The
    # special token says a call was meant: an error, whose raw keeps every
    # character (errors_as_text=True shows it as text).
    "vllm-m-prev11-not-json": Expect(calls=[], errors=("malformed_markup",)),
    # -- v11+ as vLLM sees it: [ARGS] skipped by the detokenizer, the name runs to "{" -------
    "vllm-m-v11-single": Expect(),
    "vllm-m-v11-weather": Expect(),
    "vllm-m-v11-parallel": Expect(),
    "vllm-m-v11-content-before": Expect(text="bla"),
    "vllm-m-v11-stream-parallel-encoded": Expect(),
    "vllm-m-v11-complete-escaped-args": Expect(text="hi{hi"),
    # DIFFERS: vLLM returns the call with its cut-off arguments as they are (invalid
    # JSON). A call whose JSON never completed is an unfinished_call error, never a
    # call to run.
    "vllm-m-v11-truncated-args": Expect(text="hi{hi", calls=[], errors=("unfinished_call",)),
    # vLLM: tools_called with no call and the text gone. Here: one error, no call.
    "vllm-m-v11-name-without-args": Expect(errors=("unfinished_call",)),
    # -- SGLang --------------------------------------------------------------------------------
    "sglang-m-brackets-in-string-arg": Expect(),
    "sglang-m-simple": Expect(),
    # DIFFERS only in that SGLang strips the content: the space before the marker stays.
    "sglang-m-text-before": Expect(text="Here is some text before the tool call: "),
    "sglang-m-no-tool": Expect(text="This is just normal text without any tool calls."),
    "sglang-m-compact-args": Expect(),
    "sglang-m-compact-args-stream": Expect(),  # fed in the test's own three deltas too
    # -- llama.cpp -----------------------------------------------------------------------------
    "llamacpp-nemo-with-id": Expect(),  # (the model's "id" is not kept: toolparse gives its own ids)
    "llamacpp-ministral3-compact": Expect(),
    "llamacpp-ministral3-parallel": Expect(),
    "llamacpp-ministral3-think-then-call": Expect(
        reasoning="I'm\nthinking", options={"reasoning": "magistral"}
    ),
    "llamacpp-early-nemo-text-before": Expect(text="Bleh"),
    # DIFFERS from that early llama.cpp branch (later llama.cpp parsers agree with
    # toolparse): with the [TOOL_CALLS] token stripped, a JSON list is an answer
    # like any other, not a call.
    "llamacpp-early-nemo-missing-marker": Expect(
        text='[{"arguments": {"arg1": 1}, "name": "special_function", "id": "123456789"}]', calls=[]
    ),
    # -- mistral-common's reference decoder (its docstring formats) ----------------------------
    "mistral-common-v11-with-call-id": Expect(),
    "mistral-common-v11-no-call-id": Expect(),
    "mistral-common-v2-v7-array": Expect(),
}


def test_every_fixture_case_has_an_expectation() -> None:
    assert set(EXPECT) == set(CASES)


@pytest.mark.parametrize("case_id", list(EXPECT))
def test_source_case(case_id: str) -> None:
    case = CASES[case_id]
    check_source_case("mistral", case, EXPECT[case_id], TOOLS.get(case["source_repo"]), MARKERS)


# -- beyond the sources ---------------------------------------------------------------------


def run_checked(text: str, **options: Any) -> list[Event]:
    return check_all("mistral", text, **options)


def test_a_broken_call_leaves_the_calls_before_it_standing() -> None:
    # each [TOOL_CALLS] is a block of its own: the first call is complete (and out)
    # before the second begins, and the second's bad JSON does not discredit it
    events = run_checked('[TOOL_CALLS]a[ARGS]{"x": 1}[TOOL_CALLS]b[ARGS]{"y": tru}')
    assert calls_of(events) == [{"name": "a", "arguments": {"x": 1}}]
    assert errors_of(events) == ["malformed_json"]
    kinds = [type(e).__name__ for e in events if isinstance(e, (ToolCall, ToolCallStart))]
    assert kinds == ["ToolCallStart", "ToolCall", "ToolCallStart"]


def test_call_id_and_end_of_sequence_are_markup() -> None:
    events = run_checked('Sure.[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}</s>')
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    assert text_of(events) == "Sure."


def test_arguments_that_are_not_an_object_are_an_error_not_text() -> None:
    # mistral-common rejects them too; the markers must not become visible text
    for text in (
        '[TOOL_CALLS]f[ARGS]"x"',
        "[TOOL_CALLS]f[ARGS][1, 2]",
        "[TOOL_CALLS]f[CALL_ID]abc123def[ARGS]7",
    ):
        events = run_checked(text)
        assert calls_of(events) == [] and errors_of(events) == ["malformed_markup"], text
        assert text_of(events) == ""


def test_a_single_object_after_the_marker_is_read() -> None:
    events = run_checked('[TOOL_CALLS]{"name": "f", "arguments": {"a": 1}}')
    assert calls_of(events) == [{"name": "f", "arguments": {"a": 1}}]


def test_special_tokens_stripped_by_the_server_leave_text() -> None:
    # With skip_special_tokens=True the control tokens [TOOL_CALLS] and [ARGS] are
    # gone from the text: nothing marks a call any more, so toolparse shows what is
    # left as text (no guessing that a JSON list or name{...} was a call). A server
    # must keep special tokens for Mistral calls (vLLM forces it for this parser).
    for text in (
        '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',  # v2-v7, Tekken
        ' [{"name": "get_weather", "arguments": {"city": "Paris"}}]',  # v2-v7, SentencePiece
        'get_weather{"city": "Paris"}',  # v11+
    ):
        events = run_checked(text)
        assert calls_of(events) == [] and errors_of(events) == [] and text_of(events) == text


def test_magistral_reasoning_is_an_option() -> None:
    text = (
        "[THINK]Maybe [TOOL_CALLS]f[ARGS]{} first?[/THINK]" + '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'
    )
    events = run_checked(text, reasoning="magistral")
    # a call drafted in the reasoning is never read
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    assert reasoning_of(events) == "Maybe [TOOL_CALLS]f[ARGS]{} first?"
    assert text_of(events) == ""


def test_declared_tools_type_the_arguments_and_name_the_tools() -> None:
    text = '[TOOL_CALLS]special_function[ARGS]{"arg1": "1"}[TOOL_CALLS]other[ARGS]{}'
    events = run_checked(text, tools=LLAMACPP_TOOLS)
    assert calls_of(events) == [{"name": "special_function", "arguments": {"arg1": 1}}]
    assert errors_of(events) == ["unknown_tool"]


def test_a_call_in_a_code_fence_is_an_example() -> None:
    text = 'Write:\n```\n[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}\n```\n'
    events = run_checked(text)
    assert calls_of(events) == [] and text_of(events) == text


# -- the prompt side ------------------------------------------------------------------------

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**9), 10**9) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None)
@given(arguments=st.dictionaries(st.text(min_size=1, max_size=8), VALUES, max_size=4))
def test_a_rendered_call_parses_back(arguments: dict[str, Any]) -> None:
    rendered = get_grammar("mistral").prompt.render_call("the_tool", arguments)
    events = check_all("mistral", "Calling.\n" + rendered + "\nDone.")
    assert calls_of(events) == [{"name": "the_tool", "arguments": arguments}]
    assert text_of(events) == "Calling.\nDone."


def test_prompt_side_follows_the_v13_template() -> None:
    prompt = get_grammar("mistral").prompt
    tool = Tool(
        "get_weather", "Current weather", {"type": "object", "properties": {"city": {"type": "string"}}}
    )
    system = prompt.system_prompt([tool])
    listed = json.dumps([tool.to_openai()], ensure_ascii=False)
    assert system.startswith(f"[AVAILABLE_TOOLS]{listed}[/AVAILABLE_TOOLS]")
    assert (
        prompt.render_call("get_weather", {"city": "Paris"})
        == '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'
    )
    assert prompt.render_call("get_time", {}) == "[TOOL_CALLS]get_time[ARGS]{}"
    result = prompt.render_result("get_weather", {"temp": 21})
    assert result == '[TOOL_RESULTS]{"temp": 21}[/TOOL_RESULTS]'
    assert calls_of(check_all("mistral", result)) == []
