"""The ``qwen3-coder`` grammar on real outputs: Qwen3-Coder's
``<tool_call><function=NAME><parameter=KEY>value</parameter></function></tool_call>``.

The cases are copied from public test suites into
``fixtures/grammars/qwen3_coder.jsonl``, each line with its source
repository, path, commit and licence (see ``fixtures/grammars/SOURCE.txt``):
SGLang's Qwen3CoderDetector tests and vLLM's tests shared by its
``qwen3_coder`` and ``qwen3_xml`` parsers (Apache-2.0), and the Qwen3-Coder
XML tests of a llama.cpp fork (MIT). Each goes through ``check_all``
(conservation, chunking independence, reconciliation), fed whole, one
character at a time, and in the source's own split where it has one. Values
are typed by the schemas the sources declare (below). Where toolparse
deliberately differs from a source's expectation, the case says so and why;
where toolparse falls short of its own README, the case is an expected
failure (``xfail``, strict) that names the fault.

Already covered elsewhere, and not copied again: vLLM's qwen3coder parser
tests and the AI SDK middleware's Qwen3-Coder cases of the shared corpus
(``test_corpus.py``), literal closing tags and the format's own markup in a
value (``test_declarations.py``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from support import ROOT, Expect, calls_of, case_params, check_all, check_source_case, errors_of, text_of
from toolparse import ToolCall, ToolCallError
from toolparse.events import Event
from toolparse.grammars import get_grammar

GRAMMAR = "qwen3-coder"
FIXTURE = ROOT / "tests" / "fixtures" / "grammars" / "qwen3_coder.jsonl"
CASES = {c["id"]: c for c in map(json.loads, FIXTURE.read_text(encoding="utf-8").splitlines())}
MARKERS = ("<tool_call>", "</tool_call>", "<function=", "</function>", "<parameter=", "</parameter>")


def tool(name: str, /, **properties: Any) -> dict[str, Any]:
    return {"name": name, "parameters": {"type": "object", "properties": properties}}


STRING = {"type": "string"}
INTEGER = {"type": "integer"}
NUMBER = {"type": "number"}
BOOLEAN = {"type": "boolean"}

SGLANG_TOOLS = [  # test_function_call_parser.py TestQwen3CoderDetector.setUp, test_fixtures.get_test_tools
    tool(
        "get_current_weather",
        location=STRING,
        unit={"type": "string", "enum": ["celsius", "fahrenheit"]},
        days=INTEGER,
    ),
    tool("sql_interpreter", query=STRING, dry_run=BOOLEAN),
    tool(
        "TodoWrite",
        todos={"type": "array", "items": tool("todo", content=STRING, status=STRING)["parameters"]},
    ),
]
SGLANG_UNIT_TOOLS = [tool("get_weather", city=STRING, days=INTEGER)]  # test_qwen3_coder_detector.py TOOLS
LLAMACPP_TOOLS = [  # test-qwen3-coder-xml.cpp: qwen3_coder_tools, and special_function_tool
    tool("special_function", arg1=INTEGER),
    tool("complex_function", name=STRING, age=INTEGER, active=BOOLEAN, score=NUMBER),
    tool("code_function", code=STRING),
    tool("xml_function", xml_content=STRING),
    tool("search_function", query=STRING),
    tool("compact_function", param=STRING),
    tool("whitespace_function", spaces=STRING),
    tool("tab_function", content=STRING),
    tool("math_function", negative=INTEGER, decimal=NUMBER, scientific=NUMBER, formula=STRING),
    tool("number_function", big_int=INTEGER),
    tool("null_function", optional_param={"type": "null"}),
    tool("html_function", content=STRING),
]
WRITE_FILE = [tool("write_file", path=STRING, content=STRING)]  # vLLM's _WRITE_FILE_TOOLS
NULLABLE_COUNT = [tool("set_count", count={"anyOf": [INTEGER, {"type": "null"}]})]
TOOLS: dict[str, list[dict[str, Any]]] = {
    "test/registered/function_call/test_function_call_parser.py": SGLANG_TOOLS,
    "test/registered/function_call/test_qwen3_coder_detector/test_cases.py": SGLANG_TOOLS,
    "test/registered/unit/function_call/test_qwen3_coder_detector.py": SGLANG_UNIT_TOOLS,
    "tests/chat-parsers/test-qwen3-coder-xml.cpp": LLAMACPP_TOOLS,
}
CASE_TOOLS: dict[str, list[dict[str, Any]]] = {  # vLLM: each test declares its own tools
    "vllm-q3c-python-dict-object": [
        tool(
            "test_types",
            int_param=INTEGER,
            float_param={"type": "float"},
            bool_param=BOOLEAN,
            str_param=STRING,
            obj_param={"type": "object"},
        )
    ],
    "vllm-q3c-two-calls-then-text-one-delta": [tool("get_weather", city=STRING)],
    "vllm-q3c-closer-and-text-one-delta": [tool("get_weather", city=STRING)],
    "vllm-q3c-string-null": [tool("search", query=STRING)],
    "vllm-q3c-anyof-string-null-number-text": [tool("set_code", code={"anyOf": [STRING, {"type": "null"}]})],
    "vllm-q3c-anyof-integer-null": NULLABLE_COUNT,
    "vllm-q3c-python-none-nullable-int": NULLABLE_COUNT,
    "vllm-q3c-anyof-string-null-literal": [tool("set_value", optional={"anyOf": [STRING, {"type": "null"}]})],
    "vllm-q3c-double-encoded-object": [tool("process", name=STRING, data={"type": "object"})],
    "vllm-q3c-array-with-json-true": [tool("pick", items={"type": "array"})],
    "vllm-q3c-three-params-one-delta": [
        tool(
            "get_current_weather",
            city=STRING,
            state=STRING,
            unit={"type": "string", "enum": ["fahrenheit", "celsius"]},
        ),
        tool("calculate_area", shape=STRING, dimensions={"type": "object"}, precision=INTEGER),
    ],
    "vllm-q3c-escaped-markup-in-code": WRITE_FILE,
    "vllm-q3c-parameter-lines-in-value": WRITE_FILE,
    "vllm-q3c-real-parameter-name-in-value": WRITE_FILE,
    "vllm-q3c-whole-call-in-value": WRITE_FILE,
    "vllm-q3c-second-call-holds-a-call": WRITE_FILE,
    "vllm-q3c-unrendered-jinja-call": WRITE_FILE,
    "vllm-q3c-inline-empty-block-in-prose": [tool("log", msg=STRING)],
}


def tools_for(case_id: str) -> list[dict[str, Any]] | None:
    case = CASES[case_id]
    return CASE_TOOLS.get(case_id, TOOLS.get(case["path"]))


def arguments_of(case_id: str, index: int = 0) -> dict[str, Any]:
    arguments: dict[str, Any] = CASES[case_id]["expected_calls"][index]["arguments"]
    return arguments


def with_arguments(case_id: str, **changed: Any) -> list[dict[str, Any]]:
    """The source's calls, the first one's arguments changed."""
    calls = [dict(c) for c in CASES[case_id]["expected_calls"]]
    calls[0] = {"name": calls[0]["name"], "arguments": {**calls[0]["arguments"], **changed}}
    return calls


LLAMACPP_INDENT = "\n    "  # (the source's template indents a value's closing tag by four spaces)

EXPECT: dict[str, Expect] = {
    # -- SGLang TestQwen3CoderDetector ---------------------------------------------------------
    "sglang-q3c-inline-values": Expect(),
    "sglang-q3c-text-prefix": Expect(text="Let me check the weather for you.\n\n"),
    "sglang-q3c-two-calls-python-bool": Expect(text="\n"),  # dry_run "True": a boolean by the schema
    "sglang-q3c-stream-tag-chunks": Expect(),
    "sglang-q3c-stream-text-then-call": Expect(text="Let me help you.\n\n"),
    "sglang-q3c-array-of-objects": Expect(),
    "sglang-q3c-empty-value": Expect(),
    "sglang-q3c-quotes-in-value": Expect(),
    # (SGLang: no crash.) The stream ends inside the value: an unfinished call, an error,
    # and no markup in the text
    "sglang-q3c-unclosed-at-end": Expect(errors=("unfinished_call",)),
    # -- SGLang streaming cases: no <tool_call> wrapper ----------------------------------------
    "sglang-q3c-bare-function": Expect(),
    "sglang-q3c-bare-two-functions": Expect(text="Text prefix + double tool call test\n\n"),
    "sglang-q3c-implicit-parameter-close": Expect(text="Text prefix + implicit parameter close test\n\n"),
    "sglang-q3c-python-quotes-in-array": Expect(text="Text prefix + complex schema tool call test\n\n"),
    # -- SGLang: a parameter's closer that drifted ---------------------------------------------
    # DIFFERS: SGLang strips '</parameter1>' from the value. Values are the model's raw
    # text and only '</parameter>' closes one; the value, left open, ends at the next
    # parameter of the tool, so what the model wrote before it is kept as written.
    "sglang-q3c-drifted-parameter-close": Expect(
        calls=with_arguments("sglang-q3c-drifted-parameter-close", city="Shanghai\n</parameter1>")
    ),
    "sglang-q3c-angle-brackets-in-value": Expect(),
    "sglang-q3c-value-ending-like-a-closer": Expect(),
    # -- vLLM ----------------------------------------------------------------------------------
    "vllm-q3c-python-dict-object": Expect(),
    "vllm-q3c-two-calls-then-text-one-delta": Expect(text="\n\nAll done!"),
    "vllm-q3c-closer-and-text-one-delta": Expect(text="\nI hope this helps!"),
    "vllm-q3c-string-null": Expect(),
    "vllm-q3c-anyof-string-null-number-text": Expect(),
    "vllm-q3c-anyof-integer-null": Expect(),
    "vllm-q3c-python-none-nullable-int": Expect(),
    # DIFFERS: vLLM turns the text "null" into null. The schema admits a string, and the
    # text cannot tell the string "null" from a null; toolparse keeps what the model wrote
    # ("null" is null only where null is allowed and a string is not: the README's
    # coercion table).
    "vllm-q3c-anyof-string-null-literal": Expect(
        calls=with_arguments("vllm-q3c-anyof-string-null-literal", optional="null")
    ),
    # DIFFERS: vLLM decodes the JSON string, then reads the Python repr inside it. Coercion
    # reads an object from a string holding JSON or a tolerant literal, once; a JSON string
    # holding a repr is not guessed at, so the value stays as written (and is reported).
    "vllm-q3c-double-encoded-object": Expect(
        text="\n", calls=with_arguments("vllm-q3c-double-encoded-object", data="\"{'key': 'value', 'n': 1}\"")
    ),
    "vllm-q3c-array-with-json-true": Expect(),
    "vllm-q3c-three-params-one-delta": Expect(),
    "vllm-q3c-escaped-markup-in-code": Expect(text="\n"),
    "vllm-q3c-parameter-lines-in-value": Expect(text="\n"),
    "vllm-q3c-real-parameter-name-in-value": Expect(),
    "vllm-q3c-whole-call-in-value": Expect(),
    # DIFFERS: vLLM declares only write_file and still reports foo's call. With tools
    # declared, a call to an undeclared tool is an unknown_tool error (name and arguments
    # set), never a call to run; the second call's value keeps the literal call it holds.
    "vllm-q3c-second-call-holds-a-call": Expect(
        text="\n\n",
        calls=CASES["vllm-q3c-second-call-holds-a-call"]["expected_calls"][1:],
        errors=("unknown_tool",),
    ),
    # the unrendered '<function={{ tc.name }}>' is no name: broken markup, an error
    "vllm-q3c-unrendered-jinja-call": Expect(text="\n\n", errors=("malformed_markup",)),
    # '<tool_call>example</tool_call>' holds no function: the opener was mentioned, text
    "vllm-q3c-inline-empty-block-in-prose": Expect(
        text="I'll show: <tool_call>example</tool_call>. Now real:\n"
    ),
    # -- llama.cpp (fork) ----------------------------------------------------------------------
    # DIFFERS only in whitespace (here and below): llama.cpp trims the content and every
    # value. toolparse drops one newline after the opening tag and one before the closing
    # tag (the template's layout); other whitespace is the model's own (the indentation of
    # code in a value), so it is kept. Typed values are read past it.
    "llamacpp-q3c-spaces-around-tags": Expect(text=" \n\n\n"),
    "llamacpp-q3c-compact": Expect(),
    "llamacpp-q3c-text-before": Expect(
        text="I'll help you search for products. ",
        calls=with_arguments("llamacpp-q3c-text-before", query="      laptops" + LLAMACPP_INDENT),
    ),
    "llamacpp-q3c-indented-typed": Expect(
        calls=with_arguments("llamacpp-q3c-indented-typed", name="      John Doe" + LLAMACPP_INDENT)
    ),
    "llamacpp-q3c-code-value": Expect(
        calls=with_arguments(
            "llamacpp-q3c-code-value", code=arguments_of("llamacpp-q3c-code-value")["code"] + LLAMACPP_INDENT
        )
    ),
    "llamacpp-q3c-html-value": Expect(
        calls=with_arguments(
            "llamacpp-q3c-html-value",
            content="      " + arguments_of("llamacpp-q3c-html-value")["content"] + LLAMACPP_INDENT,
        )
    ),
    "llamacpp-q3c-xml-value": Expect(
        calls=with_arguments(
            "llamacpp-q3c-xml-value",
            xml_content="      " + arguments_of("llamacpp-q3c-xml-value")["xml_content"] + LLAMACPP_INDENT,
        )
    ),
    "llamacpp-q3c-whitespace-only-value": Expect(
        calls=with_arguments("llamacpp-q3c-whitespace-only-value", spaces="      " + LLAMACPP_INDENT)
    ),
    "llamacpp-q3c-tabs-and-newlines": Expect(
        calls=with_arguments(
            "llamacpp-q3c-tabs-and-newlines",
            content=arguments_of("llamacpp-q3c-tabs-and-newlines")["content"] + LLAMACPP_INDENT,
        )
    ),
    "llamacpp-q3c-numbers": Expect(),
    # DIFFERS: llama.cpp writes 1e+60 (a double). The digits are an exact integer and the
    # schema wants an integer: the integer, exactly.
    "llamacpp-q3c-huge-integer": Expect(
        calls=with_arguments("llamacpp-q3c-huge-integer", big_int=10**60 - 1)
    ),
    "llamacpp-q3c-null-typed": Expect(),
}

# Where toolparse falls short of its own README. The expectation is the source's (the
# README's promise); each case fails today.
FAULTS: dict[str, str] = {}


def test_every_fixture_case_has_an_expectation() -> None:
    assert set(EXPECT) == set(CASES)
    assert set(FAULTS) <= set(EXPECT)


@pytest.mark.parametrize("case_id", case_params(EXPECT, FAULTS))
def test_source_case(case_id: str) -> None:
    expect = EXPECT[case_id]
    markers = tuple(m for m in MARKERS if m not in expect.text)
    check_source_case(GRAMMAR, CASES[case_id], expect, tools_for(case_id), markers)


# -- the details a source checks beyond names and arguments ----------------------------------


def run_checked(text: str, **options: Any) -> list[Event]:
    return check_all(GRAMMAR, text, **options)


def test_the_unknown_tool_error_carries_the_literal_call() -> None:
    case = CASES["vllm-q3c-second-call-holds-a-call"]
    events = run_checked(case["raw_text"], tools=tools_for(case["id"]))
    errors = [e for e in events if isinstance(e, ToolCallError)]
    assert [(e.name, e.arguments) for e in errors] == [("foo", {"bar": "baz"})]


def test_a_value_kept_as_written_is_reported() -> None:
    case = CASES["vllm-q3c-double-encoded-object"]
    events = run_checked(case["raw_text"], tools=tools_for(case["id"]))
    (call,) = [e for e in events if isinstance(e, ToolCall)]
    assert [str(issue) for issue in call.issues if "data" in str(issue)]


# -- written here, from the format's documentation ------------------------------------------


def test_with_no_tools_declared_scalars_stay_strings_and_json_is_read() -> None:
    text = (
        "<tool_call>\n<function=f>\n<parameter=n>\n3\n</parameter>\n<parameter=flag>\ntrue\n</parameter>\n"
        '<parameter=obj>\n{"a": [1, 2]}\n</parameter>\n</function>\n</tool_call>'
    )
    assert calls_of(run_checked(text)) == [
        {"name": "f", "arguments": {"n": "3", "flag": "true", "obj": {"a": [1, 2]}}}
    ]


def test_a_function_of_no_declared_tool_is_an_error_and_the_answer_stands() -> None:
    text = (
        "<tool_call>\n<function=rm_rf>\n<parameter=path>\n/\n</parameter>\n</function>\n</tool_call>\nDone."
    )
    events = run_checked(text, tools=SGLANG_UNIT_TOOLS)
    assert calls_of(events) == [] and errors_of(events) == ["unknown_tool"]
    assert text_of(events) == "\nDone."


def test_a_function_with_no_parameters() -> None:
    text = "<tool_call>\n<function=get_time>\n</function>\n</tool_call>"
    assert calls_of(run_checked(text, tools=[tool("get_time")])) == [{"name": "get_time", "arguments": {}}]


def test_a_call_whose_tool_call_closer_never_came_is_read() -> None:
    text = (
        "Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n"
    )
    events = run_checked(text, tools=SGLANG_UNIT_TOOLS)
    assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    assert text_of(events) == "Checking.\n" and errors_of(events) == []


def test_a_call_cut_off_after_its_last_parameter_is_read() -> None:
    # (the value's closer came; only </function> and </tool_call> are missing)
    text = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    assert calls_of(run_checked(text, tools=SGLANG_UNIT_TOOLS)) == [
        {"name": "get_weather", "arguments": {"city": "Paris"}}
    ]


def test_a_call_in_a_code_fence_is_an_example() -> None:
    call = (
        "<tool_call>\n<function=get_weather>\n"
        "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"
    )
    text = f"Write:\n```\n{call}\n```\n"
    events = run_checked(text, tools=SGLANG_UNIT_TOOLS)
    assert calls_of(events) == [] and text_of(events) == text


# -- the prompt side -----------------------------------------------------------------------
# Qwen3-Coder's chat template (wbpxre150/llama.cpp models/templates/Qwen3-Coder.jinja
# @ 90dd63ae86bdad1b4bb6de69379956b0ae1189bf, a copy of Qwen/Qwen3-Coder's template,
# Apache-2.0) writes a past call as
#   '<tool_call>\n<function=' + name + '>\n'
#   + for each argument: '<parameter=' + key + '>\n' + value + '\n</parameter>\n'
#   + '</function>\n</tool_call>'
# (string values as they are) and a result as '<tool_response>\n' + content + '\n</tool_response>\n'.


def test_a_past_call_is_written_as_the_qwen3_coder_template_writes_it() -> None:
    prompt = get_grammar(GRAMMAR).prompt
    arguments = {"path": "a.py", "content": 'x = "</parameter>" if a < b else "&amp;"\n'}
    rendered = prompt.render_call("write_file", arguments)
    template = "<tool_call>\n<function=write_file>\n" + "".join(
        f"<parameter={key}>\n{value}\n</parameter>\n" for key, value in arguments.items()
    )
    assert rendered == template + "</function>\n</tool_call>"
    assert calls_of(run_checked(rendered, tools=WRITE_FILE)) == [
        {"name": "write_file", "arguments": arguments}
    ]
    result = prompt.render_result("write_file", "ok")
    assert result == "<tool_response>\nok\n</tool_response>"
    assert calls_of(run_checked(result)) == []


# -- literal markup in a value (issue 25): the tool's schema decides where a value ends


WRITE = [tool("write_file", path=STRING, content=STRING, mode=STRING)]
CLOSE = "</parameter>\n</function>\n</tool_call>"


def test_a_closing_tag_followed_by_a_parameter_the_tool_lacks_stays_in_the_value() -> None:
    body = 'T = """\n</parameter>\n<parameter=new_string>\nx\n</parameter>\n"""'
    text = f"<tool_call>\n<function=write_file>\n<parameter=content>\n{body}\n{CLOSE}"
    assert calls_of(run_checked(text, tools=WRITE)) == [
        {"name": "write_file", "arguments": {"content": body}}
    ]
    # (an extra parameter a model invents after a value is read into that value: the
    # schema cannot tell it from a literal one, and a literal one is what agents write)
    text = text.replace(body, "a").replace("</function>", "<parameter=extra>\nb\n</parameter>\n</function>")
    (call,) = calls_of(run_checked(text, tools=WRITE))
    assert call["arguments"]["content"] == "a\n</parameter>\n<parameter=extra>\nb"


def test_with_no_tools_declared_a_literal_parameter_line_still_cuts_the_value() -> None:
    body = "x\n</parameter>\n<parameter=new_string>\ny"
    text = f"<tool_call>\n<function=write_file>\n<parameter=content>\n{body}\n{CLOSE}"
    assert calls_of(run_checked(text)) == [
        {"name": "write_file", "arguments": {"content": "x", "new_string": "y"}}
    ]


def test_a_parameter_already_given_does_not_end_a_value_left_open() -> None:
    body = "doc = '''\n<parameter=path>\nnot/this\n'''"
    text = (
        "<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</parameter>\n"
        f"<parameter=content>\n{body}\n</parameter>\n</function>\n</tool_call>"
    )
    assert calls_of(run_checked(text, tools=WRITE)) == [
        {"name": "write_file", "arguments": {"path": "a.py", "content": body}}
    ]


def test_inside_a_literal_call_a_parameter_the_call_lacks_does_not_end_the_value() -> None:
    inner = "<tool_call>\n<function=write_file>\n<parameter=mode>\nw\n</parameter>\n</function>\n</tool_call>"
    body = f'EXAMPLE = """\n{inner}\n"""'
    text = (
        "<tool_call>\n<function=write_file>\n<parameter=path>\nex.py\n</parameter>\n"
        f"<parameter=content>\n{body}\n</parameter>\n<parameter=mode>\nw\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    assert calls_of(run_checked(text, tools=WRITE)) == [
        {"name": "write_file", "arguments": {"path": "ex.py", "content": body, "mode": "w"}}
    ]
