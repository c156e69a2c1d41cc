"""The ``minimax`` grammar on real outputs: MiniMax M2's
``<minimax:tool_call><invoke name="..."><parameter name="k">v</parameter></invoke></minimax:tool_call>``.

The cases are copied from public test suites and the model's documentation
into ``fixtures/grammars/minimax.jsonl``, each line with its source
repository, path, commit and licence (see ``fixtures/grammars/SOURCE.txt``):
vLLM and SGLang (Apache-2.0), Ollama, llama.cpp and a llama.cpp fork (MIT),
MiniMax-AI/MiniMax-M2's tool-calling guide (MIT with a display clause). Each
goes through ``check_all`` (conservation, chunking independence,
reconciliation), fed whole, one character at a time, and in the source's own
split where it has one. Where toolparse deliberately differs from a source's
expectation, the case says so and why. (vLLM's MiniMax-M1 cases, ``<tool_calls>``
with JSON lines, are another format and are not copied.)

Values are typed by the schemas the sources declare (below); a source that
declares none runs with no tools, where scalar values stay strings as the
model wrote them. MiniMax M2's template ends the prompt with ``<think>\\n``, so
its real output holds only ``</think>`` (``reasoning="think-open"``, the
llama.cpp cases); Ollama's tests write ``<think>`` out, at the start (the
default ``"auto"``) or between answers, as the interleaved-thinking model
does (``reasoning="think"``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support import ROOT, Expect, calls_of, check_all, check_source_case, errors_of, reasoning_of, text_of
from toolparse import parse_text
from toolparse.events import Event
from toolparse.grammars import get_grammar

FIXTURE = ROOT / "tests" / "fixtures" / "grammars" / "minimax.jsonl"
CASES = {c["id"]: c for c in map(json.loads, FIXTURE.read_text(encoding="utf-8").splitlines())}
MARKERS = ("<minimax:tool_call>", "</minimax:tool_call>", "<invoke name=", "</invoke>", "</parameter>")


def tool(name: str, **properties: Any) -> dict[str, Any]:
    return {"name": name, "parameters": {"type": "object", "properties": properties}}


STRING = {"type": "string"}
INTEGER = {"type": "integer"}
STRING_OR_NULL = {"anyOf": [STRING, {"type": "null"}]}

# The schemas the sources declare. vLLM's streaming tests pass no request (no
# tools: values stay strings); only its anyOf tests declare tools.
VLLM_ANYOF_TOOLS = [  # test_minimax_m2_tool_parser.py, TestAnyOfNullableParam
    tool("update_profile", nickname=STRING_OR_NULL),
    tool("update_settings", config={"anyOf": [{"type": "object"}, {"type": "null"}]}),
]
SGLANG_TOOLS = [  # test_minimax_m2_detector.py: setUp and the tests' own tools
    tool("the_tool", args=STRING_OR_NULL),
    tool("context_info", metadata_only={"type": "boolean"}),
    tool("test_func", content=STRING),
    tool("process_html", html=STRING),
    tool(
        "complex_func",
        data={"anyOf": [{"type": "object", "properties": {"key": STRING}}, {"type": "null"}]},
    ),
    tool("array_func", items={"type": "array"}),
]
OLLAMA_TOOLS = [  # minimaxm2_test.go, TestMiniMaxM2Parser (the streaming test's are a subset)
    tool("get_weather", location=STRING, unit=STRING),
    tool("search_web", query=STRING, limit=INTEGER),
    tool("calculate", expression=STRING),
]
OLLAMA_ERROR_TOOLS = [tool("get_weather")]  # TestMiniMaxM2ParserErrors
MINIMAX_DOC_TOOLS = [  # tool_calling_guide.md: "Tool Structure" and the parse_tool_calls example
    tool(
        "search_web",
        query_list={"type": "array", "items": STRING},
        query_tag={"type": "array", "items": STRING},
    ),
    tool("get_weather", location=STRING, unit=STRING),
]
LLAMACPP_TOOLS = [  # test-chat.cpp: special_function_tool, special_function_tool_with_optional_param
    tool("special_function", arg1=INTEGER),
    tool("special_function_with_opt", arg1=INTEGER, arg2=INTEGER),
]
TOOLS: dict[str, list[dict[str, Any]]] = {
    "sgl-project/sglang": SGLANG_TOOLS,
    "ollama/ollama": OLLAMA_TOOLS,
    "MiniMax-AI/MiniMax-M2": MINIMAX_DOC_TOOLS,
    "ggml-org/llama.cpp": LLAMACPP_TOOLS,
    "ochafik/llama.cpp": LLAMACPP_TOOLS,
}
CASE_TOOLS: dict[str, list[dict[str, Any]]] = {
    "vllm-m2-anyof-null-string": VLLM_ANYOF_TOOLS,
    "vllm-m2-anyof-null-literal": VLLM_ANYOF_TOOLS,
    "vllm-m2-anyof-object": VLLM_ANYOF_TOOLS,
    "ollama-m2-unknown-tool": OLLAMA_ERROR_TOOLS,
}

THINK = {"reasoning": "think"}  # <think> between answers (interleaved thinking)
THINK_OPEN = {"reasoning": "think-open"}  # the prompt opened <think>
HELLO = "Hello, world!\nWhat's up?"
LLAMACPP_THOUGHTS = "I'm\nthinking"


EXPECT: dict[str, Expect] = {
    # -- vLLM ----------------------------------------------------------------------------------
    "vllm-m2-content-before": Expect(text="Let me check. "),
    "vllm-m2-incremental-elements": Expect(),
    "vllm-m2-untyped-number-stays-string": Expect(),  # no tools declared: "5" as written
    "vllm-m2-two-invokes-one-block": Expect(),
    "vllm-m2-two-invokes-single-delta": Expect(),
    "vllm-m2-header-then-rest": Expect(),
    "vllm-m2-anyof-null-string": Expect(),
    # DIFFERS: vLLM (and SGLang, and the official parse_tool_calls) turn the text "null"
    # into null. The schema admits a string, and "null" is a string a model may mean
    # (a nickname); the template writes a None argument and the string "null" alike, so
    # the text cannot tell them apart. toolparse keeps what the model wrote: "null" is
    # null only where null is allowed and a string is not (the README's coercion table).
    "vllm-m2-anyof-null-literal": Expect(
        calls=[{"name": "update_profile", "arguments": {"nickname": "null"}}]
    ),
    "vllm-m2-anyof-object": Expect(),
    "vllm-m2-plain-content": Expect(text="Hello world"),
    "vllm-m2-different-functions": Expect(),
    # -- SGLang --------------------------------------------------------------------------------
    "sglang-m2-anyof-hi": Expect(),
    "sglang-m2-anyof-explicit-null": Expect(  # DIFFERS: as vllm-m2-anyof-null-literal
        calls=[{"name": "the_tool", "arguments": {"args": "null"}}]
    ),
    # DIFFERS from the case file's strict reading (no call); SGLang itself asserts only
    # that no markup leaks into the text, which holds. The invoke is complete (its
    # </invoke> came), only the block's closer is missing at the end of the output: the
    # call is read.
    "sglang-m2-unclosed-block": Expect(
        text="[Pasted ~4 lines]",
        calls=[{"name": "context_info", "arguments": {"metadata_only": False}}],
    ),
    "sglang-m2-text-before-and-after": Expect(text="Here is some text.More text after."),
    # SGLang's non-greedy regex cuts the value at the first </parameter> (its test is
    # guarded by "if result.calls"); toolparse gives the value the test hopes for: a
    # </parameter> ends a value only where the structure goes on after it.
    "sglang-m2-closing-tag-in-value": Expect(),
    "sglang-m2-html-in-value": Expect(),
    # the stream ends inside the invoke: no call, one error, no markup in the text
    "sglang-m2-stream-unclosed": Expect(text="Normal text before", errors=("unfinished_call",)),
    "sglang-m2-stream-text-around": Expect(text="Text before  Text after"),
    "sglang-m2-array-mixed": Expect(),
    "sglang-m2-anyof-object-nested": Expect(),
    # -- Ollama --------------------------------------------------------------------------------
    "ollama-m2-single-param": Expect(),
    "ollama-m2-single-template-layout": Expect(),
    "ollama-m2-no-params": Expect(),
    "ollama-m2-two-invokes-one-block": Expect(),
    # DIFFERS: Ollama decodes JSON-looking text whatever the schema says. The tool
    # declares query a string: the declared type wins (as in the official
    # parse_tool_calls), and the model's text is the string.
    "ollama-m2-json-object-for-string-param": Expect(
        calls=[{"name": "search_web", "arguments": {"query": '{"keywords": ["AI", "news"]}'}}]
    ),
    "ollama-m2-json-array-for-string-param": Expect(
        calls=[{"name": "search_web", "arguments": {"query": '["AI", "machine learning"]'}}]
    ),
    "ollama-m2-integer": Expect(),
    # DIFFERS only in whitespace (here and below): Ollama trims the text around a block and
    # after </think>; toolparse keeps every character of the answer where it was written.
    "ollama-m2-content-after": Expect(text="\nHere is the weather."),
    "ollama-m2-content-before-and-after": Expect(text="Let me check. \nDone checking."),
    "ollama-m2-thinking-only": Expect(reasoning="I need to analyze this problem first."),
    "ollama-m2-think-then-call": Expect(text="\n", reasoning="I should check the weather."),
    "ollama-m2-think-inline-with-content": Expect(
        text="Let me think.  Okay, done.", reasoning="This is complex.", options=THINK
    ),
    # DIFFERS: Ollama (and the official parse_tool_calls) strip the spaces around a
    # value. toolparse drops only one newline after the opening tag and one before the
    # closing tag (the template's layout); other whitespace is the model's own (the
    # indentation of code in a value), so it is kept.
    "ollama-m2-whitespace-trimmed": Expect(
        calls=[{"name": "get_weather", "arguments": {"location": "  San Francisco  "}}]
    ),
    "ollama-m2-empty-value": Expect(),
    "ollama-m2-entity-not-decoded": Expect(),
    # markup inside reasoning is never a call
    "ollama-m2-call-inside-think-is-thinking": Expect(
        reasoning=(
            'Maybe I should call <minimax:tool_call><invoke name="get_weather">'
            '<parameter name="location">Tokyo</parameter></invoke></minimax:tool_call>'
        )
    ),
    "ollama-m2-two-think-blocks": Expect(
        text=" Some content. ", reasoning="First thoughtSecond thought", options=THINK
    ),
    "ollama-m2-two-blocks-text-between": Expect(text="\nSome text.\n"),
    "ollama-m2-missing-parameter-close": Expect(),  # </invoke> closes the value
    "ollama-m2-missing-invoke-close": Expect(),  # </minimax:tool_call> closes the invoke
    "ollama-m2-value-newlines-trimmed": Expect(),
    "ollama-m2-stream-split-opener": Expect(text="Let me check. "),
    "ollama-m2-stream-split-invoke": Expect(),
    "ollama-m2-stream-split-value": Expect(),
    "ollama-m2-stream-split-closing-tag": Expect(),
    "ollama-m2-stream-split-think": Expect(
        text="Let me think.  Done.", reasoning="This is complex.", options=THINK
    ),
    # Ollama fails the whole parse; here the one call is an error and nothing else is lost
    "ollama-m2-unknown-tool": Expect(errors=("unknown_tool",)),
    # -- MiniMax's tool-calling guide ----------------------------------------------------------
    "official-m2-two-invokes-json-arrays": Expect(),
    "official-m2-text-then-call": Expect(text="Let me help you query the weather.\n"),
    # -- llama.cpp -----------------------------------------------------------------------------
    "llamacpp-m2-single": Expect(),
    "llamacpp-m2-compact": Expect(),
    "llamacpp-m2-withopt-stream": Expect(),
    "llamacpp-m2-call-then-content": Expect(text=HELLO),
    "llamacpp-m2-forced-open-content": Expect(text=HELLO, reasoning=LLAMACPP_THOUGHTS, options=THINK_OPEN),
    "llamacpp-m2-forced-open-call": Expect(reasoning=LLAMACPP_THOUGHTS, options=THINK_OPEN),
    "llamacpp-m2-forced-open-call-content": Expect(
        text=HELLO, reasoning=LLAMACPP_THOUGHTS, options=THINK_OPEN
    ),
    # DIFFERS only in whitespace: llama.cpp trims the reasoning and the content
    "llamacpp-m2-forced-open-stream": Expect(
        text=HELLO + "\n", reasoning=LLAMACPP_THOUGHTS + "\n", options=THINK_OPEN
    ),
    "llamacpp-m2-forced-open-stream-newlines": Expect(
        text="\n\n" + HELLO + "\n\n\n", reasoning=LLAMACPP_THOUGHTS + "\n", options=THINK_OPEN
    ),
}


def test_every_fixture_case_has_an_expectation() -> None:
    assert set(EXPECT) == set(CASES)


def test_no_minimax_m1_case_is_copied() -> None:
    # (MiniMax-M1's <tool_calls> JSON lines are another format)
    assert not any("<tool_calls>" in case["raw_text"] for case in CASES.values())


@pytest.mark.parametrize("case_id", list(EXPECT))
def test_source_case(case_id: str) -> None:
    case = CASES[case_id]
    check_source_case(
        "minimax", case, EXPECT[case_id], CASE_TOOLS.get(case_id, TOOLS.get(case["source_repo"])), MARKERS
    )


# -- written here, from the format's documentation ------------------------------------------


def run_checked(text: str, **options: Any) -> list[Event]:
    return check_all("minimax", text, **options)


CALL = (
    '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n'
    "</invoke>\n</minimax:tool_call>"
)
WEATHER = [{"name": "get_weather", "arguments": {"city": "Paris"}}]


@pytest.mark.parametrize(
    "output",
    [
        "Wrap each call in <minimax:tool_call> tags. Then answer.\nMore text.",
        "Use `<minimax:tool_call>` and an <invoke> element per call.",
        "The <minimax:tool_call>\n\ntag is special.",
    ],
)
def test_an_opener_mentioned_in_prose_is_text(output: str) -> None:
    # (the block begins only once an <invoke name=...> follows the opener; a stray
    # opener never swallows the rest of the answer)
    events = run_checked(output)
    assert calls_of(events) == [] and errors_of(events) == []
    assert text_of(events) == output


def test_a_call_after_a_mention_of_the_opener_is_read() -> None:
    events = run_checked("Calls go in <minimax:tool_call> blocks.\n" + CALL)
    assert calls_of(events) == WEATHER
    assert text_of(events) == "Calls go in <minimax:tool_call> blocks.\n"


def test_a_call_in_a_code_fence_is_an_example() -> None:
    text = "Write:\n```\n" + CALL + "\n```\n"
    events = run_checked(text)
    assert calls_of(events) == [] and text_of(events) == text


def test_a_closing_tag_in_code_stays_in_the_value() -> None:
    # a coding agent writing this format: the </parameter> inside the code is followed
    # by more code, not by the structure, so it does not end the value
    code = "def render(k, v):\n    return f'<parameter name=\"{k}\">{v}</parameter>'\n\nprint(render('a', 1))"
    text = (
        '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="path">render.py</parameter>\n'
        f'<parameter name="content">{code}</parameter>\n</invoke>\n</minimax:tool_call>'
    )
    events = run_checked(text)
    assert calls_of(events) == [{"name": "write_file", "arguments": {"path": "render.py", "content": code}}]
    assert text_of(events) == ""


def test_an_example_of_the_format_inside_a_value_stays_in_it() -> None:
    # the format's own markup written on lines of its own inside a value (a prompt or a
    # document being written) opens and closes in balance: its </parameter>, </invoke>
    # and </minimax:tool_call> are the value's text
    example = "An example:\n" + CALL + "\nThat is all."
    text = (
        '<minimax:tool_call>\n<invoke name="write_file">\n'
        f'<parameter name="content">{example}</parameter>\n</invoke>\n</minimax:tool_call>Saved.'
    )
    events = run_checked(text)
    assert calls_of(events) == [{"name": "write_file", "arguments": {"content": example}}]
    assert text_of(events) == "Saved."


def test_names_quoted_with_single_quotes() -> None:
    text = (
        "<minimax:tool_call>\n<invoke name='get_weather'>\n<parameter name='city'>Paris</parameter>\n"
        '<parameter name="days">3</parameter>\n</invoke>\n</minimax:tool_call>'
    )
    tools = [{"name": "get_weather", "parameters": {"type": "object", "properties": {"days": INTEGER}}}]
    events = run_checked(text, tools=tools)
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]


def test_an_unquoted_name_is_broken_markup() -> None:
    # (the template always quotes; the opener token says a call was meant: an error,
    # never text, and the answer after the block stands)
    text = "<minimax:tool_call>\n<invoke name=get_weather>\n</invoke>\n</minimax:tool_call>Done."
    events = run_checked(text)
    assert calls_of(events) == [] and errors_of(events) == ["malformed_markup"]
    assert text_of(events) == "Done."


def test_declared_tools_type_the_arguments_and_name_the_tools() -> None:
    text = (
        '<minimax:tool_call>\n<invoke name="special_function">\n<parameter name="arg1">1</parameter>\n'
        '</invoke>\n<invoke name="other">\n</invoke>\n</minimax:tool_call>'
    )
    events = run_checked(text, tools=LLAMACPP_TOOLS)
    assert calls_of(events) == [{"name": "special_function", "arguments": {"arg1": 1}}]
    assert errors_of(events) == ["unknown_tool"]


# -- reasoning ---------------------------------------------------------------------------------


def test_m2_output_begins_inside_the_reasoning_its_prompt_opened() -> None:
    # MiniMax M2's template ends the prompt with "<think>\n": the output holds only the
    # closer, and a call drafted in the reasoning is never read
    output = "Draft: " + CALL.replace("Paris", "Lyon") + "\nNo, Paris.\n</think>\n\n" + CALL
    events = run_checked(output, **THINK_OPEN)
    assert calls_of(events) == WEATHER
    assert reasoning_of(events) == "Draft: " + CALL.replace("Paris", "Lyon") + "\nNo, Paris.\n"
    assert text_of(events) == "\n\n"


def test_the_same_output_needs_the_right_reasoning_option() -> None:
    output = "plan</think>Answer"
    assert parse_text(output, "minimax", reasoning="think-open").text == "Answer"
    assert parse_text(output, "minimax", reasoning="think-open").reasoning == "plan"
    # read with the default option, the closer is ordinary text
    assert parse_text(output, "minimax").text == output


def test_interleaved_thinking_between_calls() -> None:
    # M2 thinks again after a call: with the prompt-opened reasoning, a later <think> opens
    # reasoning again
    output = "first</think>\n" + CALL + "\n<think>second</think>\nDone."
    events = run_checked(output, **THINK_OPEN)
    assert calls_of(events) == WEATHER
    assert reasoning_of(events) == "firstsecond"
    assert text_of(events) == "\n\n\nDone."


# -- the prompt side ------------------------------------------------------------------------

TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
KINDS: dict[str, tuple[dict[str, Any], st.SearchStrategy[Any]]] = {
    "string": (STRING, TEXT),
    "integer": (INTEGER, st.integers(-(10**12), 10**12)),
    "number": ({"type": "number"}, st.floats(allow_nan=False, allow_infinity=False, width=32)),
    "boolean": ({"type": "boolean"}, st.booleans()),
    "strings": ({"type": "array", "items": STRING}, st.lists(TEXT, max_size=3)),
    "record": (
        {"type": "object", "properties": {"k": STRING, "n": INTEGER}},
        st.fixed_dictionaries({"k": TEXT, "n": st.integers(-99, 99)}),
    ),
}
NAMES = st.from_regex(r"[a-z][a-z_]{0,7}", fullmatch=True)


@st.composite
def tool_and_arguments(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    fields = draw(st.dictionaries(NAMES, st.sampled_from(sorted(KINDS)), max_size=4))
    schema = {"type": "object", "properties": {n: KINDS[k][0] for n, k in fields.items()}}
    return {"name": "the_tool", "parameters": schema}, {n: draw(KINDS[k][1]) for n, k in fields.items()}


@settings(max_examples=150, deadline=None)
@given(case=tool_and_arguments())
def test_a_rendered_call_parses_back(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    # (strings as they are, anything else as JSON, as the template writes them: the
    # declared schema types them back)
    tool_, arguments = case
    rendered = get_grammar("minimax").prompt.render_call("the_tool", arguments)
    events = check_all("minimax", "Calling.\n" + rendered + "\nDone.", tools=[tool_])
    assert calls_of(events) == [{"name": "the_tool", "arguments": arguments}]
    assert text_of(events) == "Calling.\n\nDone."


def test_a_past_call_is_written_as_the_template_writes_it() -> None:
    prompt = get_grammar("minimax").prompt
    # (llama.cpp's template test renders this very delta from MiniMax-M2.jinja)
    rendered = prompt.render_call("special_function", {"arg1": 1})
    assert rendered == CASES["llamacpp-m2-single"]["raw_text"]
    assert calls_of(run_checked(rendered, tools=LLAMACPP_TOOLS)) == [
        {"name": "special_function", "arguments": {"arg1": 1}}
    ]
    assert prompt.render_call("calculate", {}) == (
        '<minimax:tool_call>\n<invoke name="calculate">\n</invoke>\n</minimax:tool_call>'
    )


def test_a_tool_result_is_text() -> None:
    result = get_grammar("minimax").prompt.render_result("get_weather", {"temp": 21})
    assert result == '<response>{"temp": 21}</response>'
    events = run_checked(result)
    assert calls_of(events) == [] and text_of(events) == result
