"""Real model outputs and other parsers' fixtures from ../shared/corpus/.

Every hermes, hermes_variant and gemma_fenced record of real_outputs.jsonl,
with each of its real tokenizer splits, and the hermes cases of
middleware_cases.jsonl: each passes, or is skipped with the reason this
project decides differently (``DECISIONS``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from support import CORPUS, calls_of, check_all, load_jsonl, run, text_of
from toolparse import ToolCallError

pytestmark = pytest.mark.skipif(not CORPUS.exists(), reason="../shared/corpus/ is not beside this checkout")

REAL = [
    r for r in load_jsonl("real_outputs.jsonl") if r["format"] in ("hermes", "hermes_variant", "gemma_fenced")
]
SPLITS: dict[str, list[list[str]]] = defaultdict(list)
for _record in load_jsonl("token_splits.jsonl"):
    SPLITS[_record["real_output_id"]].append(_record["deltas"])
MIDDLEWARE = [c for c in load_jsonl("middleware_cases.jsonl") if c["protocol"] == "hermes"]

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
}


def grammar_of(record: dict[str, Any]) -> str:
    return "fenced-json" if record["format"] == "gemma_fenced" else "hermes"


@pytest.mark.parametrize("record", REAL, ids=[r["id"] for r in REAL])
def test_real_output(record: dict[str, Any]) -> None:
    if record["id"] in DECISIONS:
        pytest.skip(DECISIONS[record["id"]])
    events = check_all(grammar_of(record), record["raw_text"], SPLITS[record["id"]])
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
    grammar = "fenced-json" if case["input_text"].count("```tool_call") else "hermes"
    tools = middleware_tools(case)
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
