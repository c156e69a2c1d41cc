"""Real model outputs and other parsers' fixtures from ../shared/corpus/.

Every hermes, hermes_variant and gemma_fenced record of real_outputs.jsonl,
with each of its real tokenizer splits, and the hermes cases of
middleware_cases.jsonl: each passes, or is skipped with the reason this
project decides differently (``DECISIONS``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import pytest

from support import CORPUS, SHARED_CORPUS, calls_of, check_all, errors_of, load_jsonl, run, text_of
from toolparse import ToolCallError

GRAMMAR_OF_FORMAT = {
    "hermes": "hermes",
    "hermes_variant": "hermes",
    "gemma_fenced": "fenced-json",
    "qwen3_coder": "qwen3-coder",
    "xml_morph": "xml",
}
GRAMMAR_OF_PROTOCOL = {"hermes": "hermes", "qwen3coder": "qwen3-coder", "morph-xml": "xml"}
REAL = [r for r in load_jsonl("real_outputs.jsonl") if r["format"] in GRAMMAR_OF_FORMAT]
SPLITS: dict[str, list[list[str]]] = defaultdict(list)
for _record in load_jsonl("token_splits.jsonl"):
    SPLITS[_record["real_output_id"]].append(_record["deltas"])
MIDDLEWARE = [c for c in load_jsonl("middleware_cases.jsonl") if c["protocol"] in GRAMMAR_OF_PROTOCOL]

# real_outputs records carry no tool schemas; these are reconstructed from the
# source tests the records came from (vLLM's qwen3coder tests, the AI SDK
# middleware's), so the typed values they expect can be checked.
RECONSTRUCTED_TOOLS: dict[str, list[dict[str, Any]]] = {
    "015-aisdk-qwen3coder-value-wrapper": [
        {"name": "set_alarm", "parameters": {"type": "object", "properties": {"volume": {"type": "number"}}}}
    ],
    "046-vllm-qwen3coder-multiline-json-param": [
        {
            "name": "calculate_area",
            "parameters": {
                "type": "object",
                "properties": {
                    "shape": {"type": "string"},
                    "dimensions": {"type": "object"},
                    "precision": {"type": "integer"},
                },
            },
        }
    ],
    "050-vllm-qwen3coder-type-conversion": [
        {
            "name": "test_types",
            "parameters": {
                "type": "object",
                "properties": {
                    "int_param": {"type": "integer"},
                    "float_param": {"type": "float"},
                    "bool_param": {"type": "boolean"},
                    "str_param": {"type": "string"},
                    "obj_param": {"type": "object"},
                },
            },
        }
    ],
    "051-vllm-qwen3coder-anyof-nullable": [
        {
            "name": "test_anyof",
            "parameters": {
                "type": "object",
                "properties": {
                    "anyof_int": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                    "anyof_str": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    "anyof_array": {
                        "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]
                    },
                    "anyof_obj": {"anyOf": [{"type": "object"}, {"type": "null"}]},
                    "type_as_array": {"type": ["integer", "null"]},
                    "multi_non_null": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                },
            },
        }
    ],
}
_SHELL = {
    "name": "shell",
    "parameters": {
        "type": "object",
        "properties": {
            "command": {"type": "array", "items": {"type": "string"}},
            "justification": {"type": "string"},
            "timeout_ms": {"type": "integer"},
            "with_escalated_permissions": {"type": "boolean"},
            "workdir": {"type": "string"},
        },
    },
}
RECONSTRUCTED_TOOLS.update(
    {
        "029-aisdk-xml-shell-stray-close": [_SHELL],
        "030-aisdk-xml-shell-interleaved": [_SHELL],
        "031-aisdk-xml-repeated-tags-array": [
            {
                "name": "math_toolkit_sum_of_multiples",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "lower_limit": {"type": "integer"},
                        "upper_limit": {"type": "integer"},
                        "multiples": {"type": "array", "items": {"type": "integer"}},
                    },
                },
            }
        ],
        "032-aisdk-xml-coercion": [
            {
                "name": "calc",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "a": {"type": "number"},
                        "b": {"type": "number"},
                        "c": {"type": "boolean"},
                        "d": {"type": "string"},
                    },
                },
            }
        ],
        "033-aisdk-xml-body-as-text": [
            {
                "name": "send_message",
                "parameters": {"type": "object", "properties": {"message": {"type": "string"}}},
            }
        ],
        "034-aisdk-xml-unclosed-child": [{"name": "a", "parameters": {"type": "object"}}],
    }
)
RECONSTRUCTED_TOOLS["048-vllm-qwen3coder-typed-params-with-content"] = RECONSTRUCTED_TOOLS[
    "046-vllm-qwen3coder-multiline-json-param"
]

# Where toolparse decides differently from the record, and why.
DECISIONS = {
    "042-vllm-hermes-bare-string-arguments": (
        "ToolCall.arguments is always an object: arguments that are a plain string "
        "('hello') are an invalid_call error, not a call with string arguments"
    ),
    "059-llamacpp-hermes2pro-partial-fenced-function-call": (
        "a partial-parse expectation (llama.cpp is_partial): the name's closing quote "
        "never arrived, so toolparse announces no call, and a lenient <function_call> "
        "wrapper that never held a call stays text"
    ),
    "070-llamacpp-hermes2pro-xml-fence-bare": (
        "a plain code fence holding JSON is too common in ordinary answers to read as a "
        "call; the fenced-json grammar's ```tool_call fence is the explicit form"
    ),
    "071-llamacpp-hermes2pro-plain-fence": "see 070: plain fences are text",
    "069-llamacpp-hermes2pro-xml-fence-response": "see 002: a call inside a code fence is an example",
    "002-omlish-qwen2.5-coder-7b-instruct-8bit": (
        "Markdown is content (corpus policy): a call written inside a fenced code block "
        "(here ```xml) is an example the model shows, not a call"
    ),
    "072-llamacpp-hermes2pro-json-fence": "see 070: plain fences are text",
    # middleware cases
    "hermes-unknown-tool": (
        "corpus policy: with tools declared, an undeclared name is an unknown_tool "
        "error carrying name and arguments (tested below), not a call"
    ),
    "bare-json-recovery-middleware": (
        "a reply that is bare JSON with no wrapper is the forced-tool-choice fast path "
        "(tool-choice issue), not the Hermes grammar"
    ),
    "bare-json-multi-newline-middleware": "see bare-json-recovery-middleware",
    # qwen3-coder
    "013-aisdk-qwen3coder-live-bare_name_output": (
        "a bare tool name after <tool_call> (no <function=...>) closed by </write_file>: not read"
    ),
    "qwen-bare-name": "see 013-aisdk-qwen3coder-live-bare_name_output",
    "qwen-lfm2-hermes-json": (
        "the Hermes JSON inside <tool_call> is read (tested below), but 'seat' is kept: "
        "unknown properties are dropped only when additionalProperties is false"
    ),
    # xml
    "030-aisdk-xml-shell-interleaved": (
        "a scalar parameter written twice makes the call an error (a value's text may "
        "have been read as markup: issue 51); the record expects the last (tested below)"
    ),
    "034-aisdk-xml-unclosed-child": (
        "the tool's schema is a bare {type: object}: with no schema for 'arg', its text "
        "stays a string (the middleware guesses a number)"
    ),
    "fenced-json-recovery-middleware": "bare and ```json payloads are not XML calls (see bare-json-*)",
    "morph-html-in-string": (
        "'encoding' is kept: unknown properties are dropped only when additionalProperties "
        "is false (the string with raw HTML itself is read as expected: tested below)"
    ),
    "morph-cdata-string": (
        "QUIRK in the record: corpus policy unwraps CDATA in string values (tested below)"
    ),
    "morph-duplicate-string-tags": (
        "a repeated string parameter makes the call an error (issue 51), where the record keeps the first"
    ),
    "morph-devstral-line-prefixed": "tool names on their own lines without tags are not read",
    "qwen-cdata-and-entities": (
        "corpus policy: Qwen3-Coder values are the model's raw text (its chat template "
        "escapes nothing), so &amp; and <![CDATA[ stay as written; the record follows "
        "another parser's choice (the raw reading is tested below)"
    ),
    "qwen-prose-only-block": (
        "an opener followed by prose is text in every toolparse grammar (the opener was "
        "mentioned, not used), where the middleware hides it"
    ),
}


def grammar_of(record: dict[str, Any]) -> str:
    return GRAMMAR_OF_FORMAT[record["format"]]


@pytest.mark.parametrize("record", REAL, ids=[r["id"] for r in REAL])
def test_real_output(record: dict[str, Any]) -> None:
    if record["id"] in DECISIONS:
        pytest.skip(DECISIONS[record["id"]])
    tools = RECONSTRUCTED_TOOLS.get(record["id"])
    events = check_all(grammar_of(record), record["raw_text"], SPLITS[record["id"]], tools=tools)
    calls = calls_of(events)
    if record["assert_mode"] == "subset":
        for expected in record["expected_calls"]:
            assert expected in calls
    elif record["assert_mode"] != "no_crash_only":
        assert calls == record["expected_calls"]
    if record.get("expected_content") is not None:
        assert text_of(events).strip() == record["expected_content"].strip()
    if not record["expected_calls"] and "<tool_call>" in record["raw_text"]:
        assert any(isinstance(e, ToolCallError) for e in events), "a failed call must be reported"


def middleware_tools(case: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": t["name"], "parameters": t["schema"]} for t in case["tools"]]


@pytest.mark.parametrize("case", MIDDLEWARE, ids=[c["id"] for c in MIDDLEWARE])
def test_middleware_case(case: dict[str, Any]) -> None:
    if case["id"] in DECISIONS:
        pytest.skip(DECISIONS[case["id"]])
    grammar = GRAMMAR_OF_PROTOCOL[case["protocol"]]
    if grammar == "hermes" and "```tool_call" in case["input_text"]:
        grammar = "fenced-json"
    tools = middleware_tools(case) or None
    text = case["input_text"]
    splits = [case["chunks"]] if case.get("chunks") else []
    # the middleware's own chunks split UTF-16 surrogate pairs; the engine joins them
    events = check_all(grammar, text, [s for s in splits if "".join(s) == text], tools=tools)
    if splits and "".join(splits[0]) != text:
        assert calls_of(run(grammar, splits[0], tools=tools)) == calls_of(events)
    assert calls_of(events) == case["expected_tool_calls"]
    assert text_of(events) == case["expected_text"]
    if case.get("expected_on_error"):
        assert any(isinstance(e, ToolCallError) for e in events)
    observed = case.get("observed_tool_input_deltas")
    if observed:
        from support import normalize
        from toolparse import ToolCallDelta

        deltas = [e.arguments_delta for e in normalize(events) if isinstance(e, ToolCallDelta)]
        if grammar in ("qwen3-coder", "xml"):  # array members (repeated tags) close with the call
            assert [json.loads(d) for d in deltas] == [json.loads("".join(d)) for d in observed]
        else:
            assert deltas == ["".join(d) for d in observed]
    if case.get("expected_text_if_emitRawToolCallTextOnError") is not None:
        shown = run(grammar, [text], tools=tools, errors_as_text=True)
        assert text_of(shown) == case["expected_text_if_emitRawToolCallTextOnError"]


def test_unknown_tool_is_an_error_with_name_and_arguments() -> None:
    case = next(c for c in MIDDLEWARE if c["id"] == "hermes-unknown-tool")
    events = check_all("hermes", case["input_text"], tools=middleware_tools(case))
    assert calls_of(events) == []
    (error,) = [e for e in events if isinstance(e, ToolCallError)]
    assert error.reason == "unknown_tool"
    assert error.name == "launch_rocket"
    assert error.arguments == {"target": "moon"}
    assert error.raw == case["input_text"]


def test_hermes_json_inside_a_qwen3_coder_block() -> None:
    case = next(c for c in MIDDLEWARE if c["id"] == "qwen-lfm2-hermes-json")
    events = check_all("qwen3-coder", case["input_text"], tools=middleware_tools(case))
    (call,) = calls_of(events)
    assert call["name"] == "book_flight"
    assert {k: v for k, v in call["arguments"].items() if k != "seat"} == case["expected_tool_calls"][0][
        "arguments"
    ]


def test_xml_decisions_where_records_differ() -> None:
    by_id = {c["id"]: c for c in MIDDLEWARE}
    cdata = by_id["morph-cdata-string"]
    (call,) = calls_of(check_all("xml", cdata["input_text"], tools=middleware_tools(cdata)))
    assert call["arguments"]["content"] == "<encoding>not-sibling</encoding>"
    html = by_id["morph-html-in-string"]
    (call,) = calls_of(check_all("xml", html["input_text"], tools=middleware_tools(html)))
    assert call["arguments"]["content"] == "<html><body><h1>Title</h1><p>Para</p></body></html>"
    # (a scalar parameter given twice: not run, as read, but an error: issue 51)
    dup = by_id["morph-duplicate-string-tags"]
    events = check_all("xml", dup["input_text"], tools=middleware_tools(dup))
    assert calls_of(events) == [] and errors_of(events) == ["malformed_markup"]
    record = next(r for r in REAL if r["id"] == "030-aisdk-xml-shell-interleaved")
    events = check_all(
        "xml", record["raw_text"], SPLITS[record["id"]], tools=RECONSTRUCTED_TOOLS[record["id"]]
    )
    assert calls_of(events) == [] and errors_of(events) == ["malformed_markup"]


def test_the_copies_are_the_shared_corpus() -> None:
    assert len(REAL) > 70 and len(MIDDLEWARE) > 40 and len(SPLITS) > 70
    if not SHARED_CORPUS.exists():
        pytest.skip("../shared/corpus is not beside this checkout: nothing to compare the copies with")
    for name in ("real_outputs.jsonl", "middleware_cases.jsonl", "token_splits.jsonl", "README.md"):
        assert (CORPUS / name).read_bytes() == (SHARED_CORPUS / name).read_bytes(), name
