"""toolparse's SGLang detectors against a stand-in of SGLang 0.5.23's interfaces
(the real wheel runs in ``tests/integration/vllm.sh``)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import sglang_standin
from grammar_cases import EXAMPLES, GRAMMAR_TOOLS
from sglang_standin import FunctionCallParser, serve_stream, serve_whole, tools_of
from support import random_pieces
from test_openai import WEATHER
from toolparse.errors import InvalidOptionError
from toolparse.grammars import GRAMMARS
from toolparse.growth import check_linear, cpu_seconds
from toolparse.integrations import ServerOptions

adapter = sglang_standin.install()

OTHER = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object"}}}


def tools_for(grammar: str) -> list[Any]:
    return tools_of(GRAMMAR_TOOLS.get(grammar, [OTHER, WEATHER]))


def detector(grammar: str, **options: Any) -> Any:
    if not options:
        return adapter.DETECTORS[f"toolparse-{grammar}"]()
    return adapter.detector_class(grammar, options=ServerOptions(**options))()


@pytest.mark.parametrize("grammar", list(GRAMMARS))
@pytest.mark.parametrize("mode", ["validated", "progressive"])
def test_each_grammars_example_gives_its_calls_whole_and_streamed_in_any_chunking(
    grammar: str, mode: str
) -> None:
    tools = tools_for(grammar)
    for text, expected in EXAMPLES[grammar]:
        content, calls = serve_whole(detector(grammar, mode=mode), text, tools)
        assert [{"name": c["name"], "arguments": json.loads(c["arguments"])} for c in calls] == expected
        rng = random.Random(11)
        for _ in range(15):
            streamed = serve_stream(detector(grammar, mode=mode), random_pieces(text, rng), tools)
            assert [(c["name"], c["arguments"]) for c in streamed["calls"]] == [
                (c["name"], c["arguments"]) for c in calls
            ]
            assert streamed["content"] == content


def test_a_whole_responses_tool_index_is_the_tools_position_and_a_streams_the_calls() -> None:
    tools = tools_of([OTHER, WEATHER])
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>'
    whole = detector("hermes").detect_and_parse(text + text.replace("get_weather", "get_time"), tools)
    assert [(c.tool_index, c.name) for c in whole.calls] == [(1, "get_weather"), (0, "get_time")]
    streaming = detector("hermes", mode="progressive")
    items = [item for chunk in text for item in streaming.parse_streaming_increment(chunk, tools).calls]
    items += streaming.finish(tools).calls
    assert [item.name for item in items if item.name] == ["get_weather"]  # (the name once: one id)
    assert {item.tool_index for item in items} == {0}
    assert json.loads("".join(item.parameters for item in items)) == {"city": "Rome"}


def test_the_records_serving_reads_at_the_end_match_what_was_streamed() -> None:
    tools = tools_of([WEATHER])
    text = 'Hi <tool_call>{"name": "get_weather", "arguments": {"city": "Rome", "days": "2"}}</tool_call>'
    for mode in ("validated", "progressive"):
        found = detector("hermes", mode=mode)
        streamed = serve_stream(found, list(text), tools)  # (no second copy of the arguments)
        assert json.loads(streamed["calls"][0]["arguments"]) == {"city": "Rome", "days": 2}
        assert found.prev_tool_call_arr == [
            {"name": "get_weather", "arguments": streamed["calls"][0]["arguments"]}
        ]
        assert found.streamed_args_for_tool == [streamed["calls"][0]["arguments"]]


def test_a_call_left_open_is_flushed_by_finish_and_a_broken_one_stays_content() -> None:
    tools = tools_of([WEATHER])
    open_call = 'Sure. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}'
    streamed = serve_stream(detector("hermes"), [open_call], tools)
    assert streamed["content"] == "Sure." and [c["name"] for c in streamed["calls"]] == ["get_weather"]
    broken = 'A <tool_call>{"name": "nope", "arguments": {}}</tool_call>'
    assert serve_stream(detector("hermes"), [broken], tools) == {"content": broken, "calls": []}
    assert serve_whole(detector("hermes"), broken, tools) == (broken, [])


def test_no_tools_means_no_calls_and_a_detector_serves_one_stream() -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>'
    found = detector("hermes")
    assert serve_stream(found, [text], []) == {"content": text, "calls": []}
    with pytest.raises(RuntimeError, match="one response"):
        found.parse_streaming_increment("x", [])
    assert found.finish([]).normal_text == ""
    assert detector("hermes").has_tool_call("a <tool_call>") and not detector("hermes").has_tool_call("plain")
    assert detector("xml").has_tool_call("plain")  # (its openers are the tools' names: it must look)


def test_register_adds_the_toolparse_names_and_replaces_only_what_is_listed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table: dict[str, Any] = FunctionCallParser.ToolCallParserEnum
    original = table["qwen3_coder"]
    monkeypatch.setenv("TOOLPARSE_SGLANG_REPLACE", "")
    adapter.register()
    assert table["toolparse-qwen3-coder"].grammar == "qwen3-coder" and table["qwen3_coder"] is original
    monkeypatch.setenv("TOOLPARSE_SGLANG_REPLACE", "qwen3_coder, my_model=hermes")
    adapter.register()
    assert table["qwen3_coder"] is adapter.DETECTORS["toolparse-qwen3-coder"]
    assert table["my_model"] is adapter.DETECTORS["toolparse-hermes"]
    table["qwen3_coder"] = original
    for value, message in (
        ("glm47", "specially by name"),
        ("mystery", "no grammar known"),
        ("a=b", "unknown grammar"),
    ):
        with pytest.raises(InvalidOptionError, match=message):
            adapter.replacements(value)


def _elapsed(mode: str, n: int, size: int) -> float:
    """CPU seconds (toolparse.growth's clock, which load cannot fail)."""
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "' + "ab\\n" * n + '"}}</tool_call>'
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    found = detector("hermes", mode=mode)
    tools = tools_of([WEATHER])

    def work() -> None:
        for chunk in chunks:  # (each result dropped, as a server sends and drops it)
            found.parse_streaming_increment(chunk, tools)
        found.finish(tools)

    return cpu_seconds(work)


@pytest.mark.parametrize("mode", ["validated", "progressive"])
def test_a_long_argument_costs_linear_time_in_small_deltas_and_one_huge_one(mode: str) -> None:
    for size in (4, 10**7):

        def measure(n: int, size: int = size) -> float:
            return _elapsed(mode, n, size)

        check_linear(f"{mode}, deltas of {size}", measure, 20_000)
