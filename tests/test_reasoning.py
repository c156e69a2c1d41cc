"""The reasoning channel: thinking text as its own events, no call read inside it.

Cases marked with a source are inputs taken from other projects' test suites
(vLLM, SGLang, llama.cpp: Apache-2.0 / MIT; the AI SDK: Apache-2.0), with the
result toolparse gives; where toolparse decides differently the comment says
so. The rest are written here from the models' documented formats.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support import CORPUS, calls_of, check_all, normalize, run
from toolparse import InvalidOptionError, Reasoning, ReasoningDelta, StreamParser, TextDelta, parse_text
from toolparse.events import ToolCall, ToolCallError
from toolparse.grammars.reasoning import REASONING

GRANITE = Reasoning("Here is my thought process:", "Here is my response:", anywhere=False)
TNK_OPEN = Reasoning(None, "</tnk>", starts_open=True)

TWO_BLOCKS = (
    "<think>analyzing the request</think>Here is the response<think>thinking about the response</think>more"
)

# (source, reasoning option, input, expected reasoning, expected visible text)
CASES: list[tuple[str, Any, str, str, str]] = [
    # vllm tests/reasoning/test_deepseekr1_reasoning_parser.py @e372329
    (
        "vllm dsr1 simple",
        "think-open",
        "This is a reasoning section</think>This is the rest",
        "This is a reasoning section",
        "This is the rest",
    ),
    ("vllm dsr1 shortest", "think-open", "</think>This is the rest", "", "This is the rest"),
    (
        "vllm dsr1 think no end",
        "think-open",
        "<think>This is a reasoning section",
        "This is a reasoning section",
        "",
    ),
    # (vLLM streams the leading newline into reasoning; here it is markup with the opener)
    (
        "vllm dsr1 new line",
        "think-open",
        "\n<think>This is a reasoning section</think>\nThis is the rest",
        "This is a reasoning section",
        "\nThis is the rest",
    ),
    ("vllm dsr1 empty", "think-open", "", "", ""),
    ("vllm dsr1 no markers", "think-open", "This is content", "This is content", ""),
    # vllm tests/reasoning/test_qwen3_reasoning_parser.py @6d62c79 (an unclosed block is
    # reasoning here, as vLLM streams it; its non-streaming path returned it as content)
    (
        "vllm qwen3 only open tag",
        "auto",
        "<think>This is a reasoning section",
        "This is a reasoning section",
        "",
    ),
    (
        "vllm qwen3 prefix format",
        "think-open",
        "This is a reasoning section</think>This is the rest",
        "This is a reasoning section",
        "This is the rest",
    ),
    ("vllm qwen3 without think", "auto", "This is the rest", "", "This is the rest"),
    # vllm tests/reasoning/test_glm4_moe_reasoning_parser.py @fb71f59, test_glm47_reasoning_parser.py
    (
        "vllm glm45 multiline",
        "auto",
        "<think>This is a reasoning\nsection</think>This is the rest\nThat",
        "This is a reasoning\nsection",
        "This is the rest\nThat",
    ),
    (
        "vllm glm47 prefix",
        "think-open",
        "This\nThat</think>This is the rest\nThat",
        "This\nThat",
        "This is the rest\nThat",
    ),
    # vllm tests/reasoning/test_seedoss_reasoning_parser.py @432a38c
    (
        "vllm seed-oss closer only",
        "seed-open",
        "Some reasoning content</seed:think>Final answer",
        "Some reasoning content",
        "Final answer",
    ),
    (
        "vllm seed-oss with start",
        "seed",
        "<seed:think>This is a reasoning section</seed:think>This is the rest",
        "This is a reasoning section",
        "This is the rest",
    ),
    # vllm tests/reasoning/test_mistral_reasoning_parser.py @94001e6
    (
        "vllm magistral",
        "magistral",
        "[THINK]This is a reasoning section[/THINK]This is the rest",
        "This is a reasoning section",
        "This is the rest",
    ),
    (
        "vllm magistral new line",
        "magistral",
        "\n[THINK]This is a reasoning section[/THINK]\nThis is the rest",
        "This is a reasoning section",
        "\nThis is the rest",
    ),
    # vllm tests/reasoning/test_ernie45_reasoning_parser.py @8a8be3d
    ("vllm ernie closer only", "think-open", "abc\nABC</think>def\nDEF", "abc\nABC", "def\nDEF"),
    # vllm tests/reasoning/test_granite_reasoning_parser.py @d0ac579: plain-text markers, declared
    (
        "vllm granite",
        GRANITE,
        "Here is my thought process:This is a reasoning sectionHere is my response:This is the rest",
        "This is a reasoning section",
        "This is the rest",
    ),
    (
        "vllm granite one delta",
        GRANITE,
        "Here is my thought process: foo Here is my response: bar",
        " foo ",
        " bar",
    ),
    ("vllm granite broken start", GRANITE, "Here is my thought failure", "", "Here is my thought failure"),
    # vllm tests/parser/engine/test_qwen3_reasoning.py @8d898bc
    (
        "vllm engine duplicate closer absorbed",
        "think-open",
        "Reasoning here.</think>Content here.</think>More content.",
        "Reasoning here.",
        "Content here.More content.",
    ),
    ("vllm engine open and close in one delta", "think-open", "<think>reasoning</think>", "reasoning", ""),
    ("vllm engine pure content", "think-open", "hello world", "hello world", ""),
    # vllm tests/parser/engine/test_unpaired_reasoning_closer.py: with no reasoning, a closer is text
    (
        "vllm unpaired closer, no reasoning",
        "none",
        "work it out: 17*23</think>the answer is 391",
        "",
        "work it out: 17*23</think>the answer is 391",
    ),
    # (under "auto" a closer after the answer began is text too: the model's markers only
    # count where its answer begins)
    (
        "vllm unpaired closer, auto",
        "auto",
        "work it out: 17*23</think>the answer is 391",
        "",
        "work it out: 17*23</think>the answer is 391",
    ),
    (
        "vllm unpaired closer, think",
        "think",
        "work it out: 17*23</think>the answer is 391",
        "",
        "work it out: 17*23the answer is 391",
    ),
    # sglang test/srt/test_reasoning_parser.py @08bdf3e (held prefixes released, not lost)
    ("sglang partial closer released", "think", "</answer", "", "</answer"),
    ("sglang partial opener released", "think", "<this is text", "", "<this is text"),
    ("sglang not a marker", "think", "</random>", "", "</random>"),
    (
        "sglang kimi-vl",
        "kimi-vl",
        "◁think▷Let me consider this carefully◁/think▷The answer is 42.",
        "Let me consider this carefully",
        "The answer is 42.",
    ),
    (
        "sglang r1 forced",
        "think-open",
        "I think this is the answer</think>The final answer is 42.",
        "I think this is the answer",
        "The final answer is 42.",
    ),
    ("sglang qwen3 empty block", "auto", "<think></think>Just the answer.", "", "Just the answer."),
    ("sglang truncated", "auto", "<think>Reasoning without closing tag", "Reasoning without closing tag", ""),
    # llama.cpp tests/test-chat-parser.cpp @fb615a2 (custom markers, opened by the prompt)
    ("llama.cpp custom markers", TNK_OPEN, "Cogito</tnk>Ergo sum", "Cogito", "Ergo sum"),
    ("llama.cpp format none", "none", "REASONING</think>ok", "", "REASONING</think>ok"),
    ("llama.cpp inline think", "auto", "<think>Pense</think>Bonjour", "Pense", "Bonjour"),
    # vercel/ai packages/ai/src/middleware/extract-reasoning-middleware.test.ts @e11bb85
    (
        "ai sdk split tags",
        "auto",
        "<think>analyzing the request</think>Here is the response",
        "analyzing the request",
        "Here is the response",
    ),
    # (a second block after the answer began: reasoning with "think", text with "auto")
    (
        "ai sdk two blocks, think",
        "think",
        TWO_BLOCKS,
        "analyzing the requestthinking about the response",
        "Here is the responsemore",
    ),
    (
        "ai sdk two blocks, auto",
        "auto",
        TWO_BLOCKS,
        "analyzing the request",
        "Here is the response<think>thinking about the response</think>more",
    ),
    (
        "ai sdk start with reasoning",
        "think-open",
        "analyzing the request\n</think>this is the response",
        "analyzing the request\n",
        "this is the response",
    ),
    ("ai sdk no text", "auto", "<think>analyzing the request\n</think>", "analyzing the request\n", ""),
    # written here from the documented formats
    (
        "two blocks before the answer",
        "auto",
        "<think>a</think>\n\n<think>b</think>\nAnswer",
        "ab",
        "\nAnswer",
    ),
    ("nested opener is reasoning text", "think", "<think>x <think> y</think> z", "x <think> y", " z"),
    ("opener mid-answer, auto", "auto", "Use the <think> tag.", "", "Use the <think> tag."),
    (
        "opener in a code fence",
        "think",
        "Example:\n```\n<think>\n```\nok",
        "",
        "Example:\n```\n<think>\n```\nok",
    ),
    ("an opener after the prompt's one", "think-open", " <think>a</think>b", "a", "b"),
    ("seed-open with an opener", "seed-open", "<seed:think>x</seed:think>y", "x", "y"),
]


@pytest.mark.parametrize(
    ("source", "option", "text", "reasoning", "visible"), CASES, ids=[c[0] for c in CASES]
)
def test_reasoning_cases(source: str, option: Any, text: str, reasoning: str, visible: str) -> None:
    events = check_all("hermes", text, reasoning=option)
    result = parse_text(text, reasoning=option)
    assert (result.reasoning, result.text) == (reasoning, visible)
    assert normalize(events) == normalize(result.events)


def test_markers_are_kept_in_raw() -> None:
    events = parse_text("\n<think>a</think> b", reasoning="auto").events
    assert events == [ReasoningDelta("a", "\n<think>a</think>"), TextDelta(" b")]
    assert ReasoningDelta("a", "<think>a").to_dict() == {"type": "reasoning", "text": "a", "raw": "<think>a"}


DELETE = '<tool_call>\n{"name": "delete_file", "arguments": {"path": "old_notes.txt"}}\n</tool_call>'
DRAFTED_IN_THOUGHT = (
    "<think>\nThe user wants the old notes gone. I could just run\n"
    + DELETE
    + "\nbut that cannot be undone; I should ask first.\n</think>\n\n"
    "Do you really want me to delete old_notes.txt?"
)


@pytest.mark.parametrize("option", ["auto", "think"])
def test_a_call_drafted_in_thought_is_never_read(option: str) -> None:
    result = parse_text(DRAFTED_IN_THOUGHT, reasoning=option)
    assert result.calls == [] and result.errors == []
    assert "delete_file" in result.reasoning
    assert result.text == "\n\nDo you really want me to delete old_notes.txt?"
    # without the reasoning channel it would have been run
    assert [c.name for c in parse_text(DRAFTED_IN_THOUGHT, reasoning="none").calls] == ["delete_file"]


@pytest.mark.parametrize(
    ("grammar", "call"),
    [
        ("hermes", DELETE),
        ("fenced-json", '```tool_call\n{"name": "delete_file", "arguments": {"path": "x"}}\n```'),
        (
            "qwen3-coder",
            "<tool_call>\n<function=delete_file>\n<parameter=path>\nx\n</parameter>\n</function>\n</tool_call>",
        ),
        ("xml", "<delete_file><path>x</path></delete_file>"),
    ],
)
def test_every_grammar_reads_calls_only_outside_reasoning(grammar: str, call: str) -> None:
    tools = [
        {"name": "delete_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}
    ]
    text = f"<think>maybe {call} no</think>Asking first. {call}"
    for option in ("auto", "think", "think-open"):
        events = check_all(grammar, text, tools=tools, reasoning=option)
        assert [c["name"] for c in calls_of(events)] == ["delete_file"]  # only the one after
        assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == f"maybe {call} no"


def test_a_forced_answer_begins_after_reasoning() -> None:
    tools = [{"name": "f", "parameters": {"type": "object"}}]
    text = '<think>Which tool? f.</think>\n{"name": "f", "arguments": {"a": 1}}'
    events = check_all("hermes", text, tools=tools, tool_choice="required")
    assert calls_of(events) == [{"name": "f", "arguments": {"a": 1}}]
    assert parse_text(text, tools=tools, tool_choice="required").reasoning == "Which tool? f."
    # the stream ended inside reasoning: the answer never began
    events = run("hermes", ["<think>Which tool"], tools=tools, tool_choice="required")
    assert [type(e) for e in events] == [ReasoningDelta, ToolCallError]


def test_closer_of_a_call_block_is_not_a_reasoning_marker() -> None:
    """GLM-4.7 sometimes closes a Hermes block with </think> (corpus record 022)."""
    text = '<tool_call>{"name":"get_weather","arguments":{"city":"Seoul"}}</think>'
    for option in ("auto", "think"):
        events = check_all("hermes", text, reasoning=option)
        assert calls_of(events) == [{"name": "get_weather", "arguments": {"city": "Seoul"}}]


def _record(record_id: str) -> dict[str, Any]:
    with open(CORPUS / "real_outputs.jsonl", encoding="utf-8") as fh:
        return next(r for line in fh if (r := json.loads(line))["id"] == record_id)


def _token_splits(record_id: str) -> list[list[str]]:
    with open(CORPUS / "token_splits.jsonl", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    return [
        json.loads(r["deltas"]) if isinstance(r["deltas"], str) else r["deltas"]
        for r in rows
        if r["real_output_id"] == record_id
    ]


def test_qwen3_real_output_with_reasoning() -> None:
    """A captured Qwen3-30B-A3B output (corpus record 005): reasoning, then a call."""
    record = _record("005-omlish-qwen3-30b-a3b-6bit")
    text = record["raw_text"]
    splits = _token_splits(record["id"])
    assert splits  # (the record's real tokenizations: '<th' 'ink' '>' among them)
    events = check_all("hermes", text, splits)
    assert calls_of(events) == record["expected_calls"]
    result = parse_text(text)
    assert (
        result.reasoning.startswith("\nOkay, the user wants me to multiply") and len(result.reasoning) > 600
    )
    assert "<think>" not in result.text and "</think>" not in result.text


def test_prompt_opened_reasoning_real_fixture() -> None:
    """llama.cpp's QwQ-style fixture (corpus record 061): the prompt opened <think>."""
    record = _record("061-llamacpp-hermes2pro-thinking-forced-open")
    events = check_all(
        "hermes",
        record["raw_text"],
        _token_splits(record["id"]),
        tools=record["tools"],
        reasoning="think-open",
    )
    assert calls_of(events) == record["expected_calls"]
    assert parse_text(record["raw_text"], reasoning="think-open").reasoning == "I'm\nthinking"


def test_reasoning_streams_at_once() -> None:
    parser = StreamParser("hermes", seed=1)
    assert parser.feed("<think>") == [ReasoningDelta("", "<think>")]
    assert parser.feed("Let me see") == [ReasoningDelta("Let me see", "Let me see")]
    assert parser.feed(" if </th") == [ReasoningDelta(" if ", " if ")]  # (only a possible closer waits)
    assert parser.feed("ink>Hi") == [ReasoningDelta("", "</think>"), TextDelta("Hi")]
    assert parser.close() == []


def test_whitespace_before_the_answer_waits_within_a_bound() -> None:
    parser = StreamParser("hermes")
    assert parser.feed("\n\n") == []  # (could still come before <think>)
    assert parser.feed("Hi") == [TextDelta("\n\nHi")]
    many = " " * 5000 + "<think>x</think>"
    assert parse_text(many).reasoning == ""  # past the bound the answer has begun
    assert parse_text(many).text == many


def test_bad_options_and_declarations() -> None:
    with pytest.raises(InvalidOptionError, match="reasoning must be one of"):
        StreamParser("hermes", reasoning="thinking")
    with pytest.raises(ValueError, match="must differ"):
        Reasoning("<t>", "<t>")
    with pytest.raises(ValueError, match="not starting with whitespace"):
        Reasoning(" <t>", "</t>")
    with pytest.raises(ValueError, match="start open"):
        Reasoning(None, "</t>")
    with pytest.raises(ValueError, match="also an opener"):
        StreamParser("hermes", reasoning=Reasoning("<tool_call>", "</tool_call>"))
    assert set(REASONING) >= {"auto", "think", "think-open", "none"}


# -- property: no call from inside reasoning, whatever the chunking -------------------

_CALL = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
_PIECES = st.sampled_from(["<think>", "</think>", _CALL, "text ", "\n", " ", "<thi", "nk>", "</", "[THINK]"])


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=12), option=st.sampled_from(sorted(REASONING)), data=st.data())
def test_no_call_is_read_inside_reasoning(pieces: list[str], option: str, data: st.DataObject) -> None:
    text = "".join(pieces)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    deltas = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    events = run("hermes", deltas, reasoning=option)
    assert len([e for e in events if isinstance(e, ToolCall)]) == _calls_outside_reasoning(
        text, REASONING[option]
    )
    # (a complete call left in reasoning that never closed is reported, not run)
    assert not any(isinstance(e, ToolCallError) and e.reason != "call_in_unclosed_reasoning" for e in events)


def _calls_outside_reasoning(text: str, markers: Reasoning | None) -> int:
    """An oracle written apart from the engine, exact for the inputs above (no
    code fences, no broken calls): how many whole calls lie outside reasoning."""
    n, i, count = len(text), 0, 0
    inside = markers is not None and markers.starts_open
    prelude = True  # (only whitespace and reasoning so far)
    while i < n:
        if inside:
            assert markers is not None
            j = text.find(markers.close, i)
            if j < 0:
                return count
            i, inside = j + len(markers.close), False
            continue
        if markers is not None and markers.open is not None and prelude:
            k = len(text) - len(text[i:].lstrip(" \t\r\n"))
            if text.startswith(markers.open, k):
                i, inside = k + len(markers.open), True
                continue
            prelude = False
        found = [(text.find(_CALL, i), _CALL)]
        if markers is not None and markers.anywhere:
            found += [(text.find(m, i), m) for m in (markers.open, markers.close) if m is not None]
        hits = sorted((j, m) for j, m in found if j >= 0)
        if not hits:
            return count
        j, marker = hits[0]
        count += marker == _CALL
        inside = markers is not None and marker == markers.open
        i = j + len(marker)
    return count
