"""toolparse's vLLM adapter against a stand-in of vLLM 0.33's interfaces.

The same adapter runs against the real vLLM wheel in
``tests/integration/vllm.sh``; here the stand-in (``vllm_standin.py``) lets
CI check every grammar and mode without it.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vllm_standin
from grammar_cases import EXAMPLES, GRAMMAR_TOOLS
from support import random_pieces
from test_openai import WEATHER
from toolparse.errors import InvalidOptionError
from toolparse.grammars import GRAMMARS
from toolparse.grammars.reasoning import REASONING
from toolparse.growth import check_linear, cpu_seconds
from toolparse.integrations import ServerOptions
from vllm_standin import ChatCompletionRequest, Pair, accumulate

adapter = vllm_standin.install()

HERMES_CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": "3"}}</tool_call>'


def tools_for(grammar: str) -> list[dict[str, Any]]:
    return GRAMMAR_TOOLS.get(grammar, [WEATHER])


def request(tools: list[Any] | None = None, **fields: Any) -> ChatCompletionRequest:
    return ChatCompletionRequest(tools=tools, **fields)


def stream(pair: Pair, chunks: list[str], req: ChatCompletionRequest) -> dict[str, Any]:
    messages = [pair.delta(chunk, req) for chunk in chunks[:-1]]
    messages.append(pair.delta(chunks[-1] if chunks else "", req, finished=True))
    return accumulate(messages)


def parser_class(grammar: str, **options: Any) -> Any:
    if not options:
        return adapter.TOOL_PARSERS[f"toolparse-{grammar}"]
    return adapter.register_tool_parser(f"test-{grammar}", grammar, options=ServerOptions(**options))


# -- registration -----------------------------------------------------------------------------


def test_every_grammar_and_reasoning_preset_is_registered_under_its_toolparse_name() -> None:
    tools = vllm_standin.ToolParserManager.registered
    reasoning = vllm_standin.ReasoningParserManager.registered
    for grammar in GRAMMARS:
        cls: Any = tools[f"toolparse-{grammar}"]
        assert cls.grammar == grammar and cls.engine_based_streaming
        assert getattr(adapter, cls.__name__) is cls  # (importable as module:Class)
        assert cls.structural_tag_model == adapter.STRUCTURAL_TAGS.get(grammar)
    for preset, declaration in REASONING.items():
        assert (f"toolparse-{preset}" in reasoning) == (declaration is not None)
    assert tools["toolparse-hermes"].__name__ == "ToolparseHermesToolParser"
    assert tools["toolparse-qwen3-coder"].__name__ == "ToolparseQwen3CoderToolParser"


# -- every grammar, streamed and whole ----------------------------------------------------------


@pytest.mark.parametrize("grammar", list(GRAMMARS))
def test_each_grammars_example_gives_its_calls_whole_and_streamed_in_any_chunking(grammar: str) -> None:
    cls = parser_class(grammar)
    tools = tools_for(grammar)
    for text, expected in EXAMPLES[grammar]:
        _, content, calls = Pair(cls, None, tools).parse(text, request(tools))
        got = [{"name": c.function.name, "arguments": json.loads(c.function.arguments)} for c in calls]
        assert got == expected, (grammar, text)
        rng = random.Random(7)
        for _ in range(20):
            streamed = stream(Pair(cls, None, tools), random_pieces(text, rng), request(tools))
            assert [
                {"name": c["name"], "arguments": json.loads(c["arguments"])} for c in streamed["calls"]
            ] == got
            assert streamed["content"] == (content or "")
            assert len({c["id"] for c in streamed["calls"]}) == len(calls)  # (an id per call)


@pytest.mark.parametrize("grammar", list(GRAMMARS))
def test_progressive_mode_streams_the_same_calls_and_the_parsers_records_match_them(grammar: str) -> None:
    cls = parser_class(grammar, mode="progressive")
    tools = tools_for(grammar)
    for text, expected in EXAMPLES[grammar]:
        pair = Pair(cls, None, tools)
        streamed = stream(pair, list(text), request(tools))
        assert [
            {"name": c["name"], "arguments": json.loads(c["arguments"])} for c in streamed["calls"]
        ] == expected
        tool = pair.tool
        assert tool.prev_tool_call_arr == [
            {"name": c["name"], "arguments": c["arguments"]} for c in streamed["calls"]
        ]
        assert tool.streamed_args_for_tool == [c["arguments"] for c in streamed["calls"]]
        assert tool.current_tool_id == len(expected) - 1
        assert tool.get_remaining_unstreamed_args() == ""


fragments = st.lists(
    st.sampled_from(
        [
            "Let me check. ",
            HERMES_CALL,
            # (no city: not valid)
            '<tool_call>{"name": "get_weather", "arguments": {"days": 2}}</tool_call>',
            '<tool_call>{"name": "nope", "arguments": {}}</tool_call>',
            '<tool_call>{"name": "get_weather", "arguments": {"city": "Ro',
            "<think>maybe <tool_call>{}</tool_call></think>",
            "\n\n",
            "<",
            "</tool_call>",
            "é😀",
        ]
    ),
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(fragments, st.randoms(use_true_random=False), st.sampled_from(["validated", "progressive"]))
def test_a_stream_gathers_into_the_whole_response_whatever_the_chunking(
    parts: list[str], rng: random.Random, mode: str
) -> None:
    text = "".join(parts)
    whole = Pair(parser_class("hermes"), None, [WEATHER]).parse(text, request([WEATHER]))
    cls = parser_class("hermes", mode=mode)
    streamed = stream(Pair(cls, None, [WEATHER]), random_pieces(text, rng) or [""], request([WEATHER]))
    calls = [(c.function.name, c.function.arguments) for c in whole[2]]
    if mode == "validated":
        assert [(c["name"], c["arguments"]) for c in streamed["calls"]] == calls
        assert streamed["content"].strip() == (whole[1] or "").strip()
    else:  # (progressive: every call that started went out; the valid ones are the same)
        assert set(calls) <= {(c["name"], c["arguments"]) for c in streamed["calls"]}


def test_a_call_still_open_at_the_end_is_flushed_by_finish_streaming() -> None:
    cls = parser_class("hermes")
    pair = Pair(cls, None, [WEATHER])
    req = request([WEATHER])
    first = pair.delta('Sure. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}', req)
    assert first is not None and first.content == "Sure." and not first.tool_calls
    last: Any = pair.delta("", req, finished=True)
    assert last is not None and [c.function.name for c in last.tool_calls] == ["get_weather"]
    assert json.loads(last.tool_calls[0].function.arguments) == {"city": "Paris"}


def test_a_broken_or_unknown_call_goes_out_as_content_or_is_dropped() -> None:
    text = 'A <tool_call>{"name": "nope", "arguments": {}}</tool_call> B'
    _, content, calls = Pair(parser_class("hermes"), None, [WEATHER]).parse(text, request([WEATHER]))
    assert calls == [] and content == text
    dropping = parser_class("hermes", on_error="drop")
    _, content, calls = Pair(dropping, None, [WEATHER]).parse(text, request([WEATHER]))
    assert calls == [] and content == "A  B"


def test_arguments_are_coerced_to_the_requests_tool_schema() -> None:
    _, _, calls = Pair(parser_class("hermes"), None, [WEATHER]).parse(HERMES_CALL, request([WEATHER]))
    assert json.loads(calls[0].function.arguments) == {"city": "Paris", "days": 3}


def test_tool_choice_none_reads_no_call() -> None:
    req = request([WEATHER], tool_choice="none")
    _, content, calls = Pair(parser_class("hermes"), None, [WEATHER]).parse(HERMES_CALL, req)
    assert calls == [] and content == HERMES_CALL
    assert stream(Pair(parser_class("hermes"), None, [WEATHER]), [HERMES_CALL], req)["content"] == HERMES_CALL


def test_reasoning_left_to_the_tool_parser_stays_content_and_its_call_is_not_read() -> None:
    call = '<tool_call>{"name": "get_weather", "arguments": {"city": "X"}}</tool_call>'
    text = f"<think>I could call {call}</think>Hi"
    _, content, calls = Pair(parser_class("hermes"), None, [WEATHER]).parse(text, request([WEATHER]))
    assert calls == [] and content == text


def test_requests_with_tools_keep_special_tokens_unless_they_chose() -> None:
    parser = parser_class("mistral")(vllm_standin.CharTokenizer())
    assert parser.adjust_request(request([WEATHER])).skip_special_tokens is False
    assert parser.adjust_request(request([WEATHER], skip_special_tokens=True)).skip_special_tokens is True
    assert parser.adjust_request(request(None)).skip_special_tokens is None
    assert parser.adjust_request(request([WEATHER], tool_choice="none")).skip_special_tokens is None


def test_a_parser_serves_one_stream_and_its_records_are_not_for_setting() -> None:
    cls = parser_class("hermes")
    pair = Pair(cls, None, [WEATHER])
    pair.delta(HERMES_CALL, request([WEATHER]), finished=True)
    with pytest.raises(RuntimeError, match="one response"):
        pair.tool.extract_tool_calls_streaming("", "x", "x", [], [], [], request([WEATHER]))
    with pytest.raises(AttributeError, match="computed from the calls streamed"):
        pair.tool.prev_tool_call_arr = [{"name": "x"}]
    assert pair.tool.finish_streaming() is None


def test_options_come_from_the_environment_and_a_wrong_value_is_named() -> None:
    options = ServerOptions.from_env({"TOOLPARSE_MODE": "progressive", "TOOLPARSE_COERCE": "0"})
    assert options == ServerOptions(mode="progressive", coerce=False)
    for variable, value in (
        ("TOOLPARSE_MODE", "fast"),
        ("TOOLPARSE_ON_ERROR", "raise"),
        ("TOOLPARSE_REASONING", "deep"),
        ("TOOLPARSE_COERCE", "maybe"),
    ):
        with pytest.raises(InvalidOptionError, match=variable):
            ServerOptions.from_env({variable: value})


# -- reasoning ----------------------------------------------------------------------------------


def reasoning_class(preset: str) -> Any:
    return adapter.REASONING_PARSERS[f"toolparse-{preset}"]


@pytest.mark.parametrize(
    ("preset", "prompt", "output", "reasoning", "content"),
    [
        ("auto", "<|im_start|>assistant\n", "<think>plan</think>\n\nHello", "plan", "\n\nHello"),
        ("auto", "<|im_start|>assistant\n", "Hello <think>x</think>", None, "Hello <think>x</think>"),
        (
            "auto",
            "<|im_start|>assistant\n<think>\n",
            "plan</think>Hello",
            "plan",
            "Hello",
        ),  # (the prompt opened it)
        ("think-open", "<|im_start|>assistant\n", "plan</think>Hello", "plan", "Hello"),
        ("think-open", "assistant\n<think>\n\n</think>\n\n", "Hello", None, "Hello"),  # (thinking off)
        ("think-open", "", "never closed", "never closed", None),
        ("seed", "", "<seed:think>s</seed:think>ok", "s", "ok"),
        ("magistral", "", "[THINK]m[/THINK]ok", "m", "ok"),
    ],
)
def test_reasoning_parsers_split_whole_and_streamed_alike(
    preset: str, prompt: str, output: str, reasoning: str | None, content: str | None
) -> None:
    cls = reasoning_class(preset)
    pair = Pair(None, cls)
    pair.prompt(prompt)
    if pair.reasoning_ended:  # (the prompt closed reasoning: vLLM skips the reasoning parser)
        assert (reasoning, content) == (None, output)
        return
    assert pair.reasoning.extract_reasoning(output, request()) == (reasoning, content)
    for chunks in ([output], list(output)):
        streamed = Pair(None, cls)
        streamed.prompt(prompt)
        got = accumulate(
            [streamed.delta(c, request()) for c in chunks] + [streamed.delta("", request(), finished=True)]
        )
        assert (got["reasoning"] or None, got["content"] or None) == (reasoning, content)


def test_reasoning_then_tools_through_the_pair_as_vllm_drives_them() -> None:
    text = "<think>weather?</think>\n\nSure. " + HERMES_CALL
    for chunks in ([text], list(text)):
        pair = Pair(parser_class("hermes"), reasoning_class("auto"), [WEATHER])
        pair.prompt("<|im_start|>assistant\n")
        got = stream(pair, chunks, request([WEATHER]))
        assert got["reasoning"] == "weather?"
        assert got["content"].strip() == "Sure."
        assert [(c["name"], json.loads(c["arguments"])) for c in got["calls"]] == [
            ("get_weather", {"city": "Paris", "days": 3})
        ]


def test_token_windows_find_the_closer_and_the_content_after_it() -> None:
    tokenizer = vllm_standin.CharTokenizer()
    parser = reasoning_class("think")(tokenizer)
    ids = tokenizer.encode("abc</think>def")
    assert parser.extract_content_ids(ids) == tokenizer.encode("def")
    assert parser.extract_content_ids(tokenizer.encode("abc")) == []
    ends = [parser.is_reasoning_end_streaming(ids[: i + 1], ids[i : i + 1]) for i in range(len(ids))]
    assert ends.index(True) == len("abc</think>") - 1 and ends.count(True) == 1
    assert parser.is_reasoning_end(tokenizer.encode("x<think>\n\n</think>\n\n"))
    assert not parser.is_reasoning_end(tokenizer.encode("x</think> then <think>\n"))
    assert (parser.reasoning_start_str, parser.reasoning_end_str) == ("<think>", "</think>")


# -- linear cost ---------------------------------------------------------------------------------------


def _elapsed(cls: type, text: str, size: int) -> float:
    """CPU seconds (toolparse.growth's clock, which load cannot fail)."""
    pair = Pair(cls, None, [WEATHER])
    req = request([WEATHER])
    chunks = [text[i : i + size] for i in range(0, len(text), size)]

    def work() -> None:
        for chunk in chunks:  # (each message dropped, as a server sends and drops it)
            pair.delta(chunk, req)
        pair.delta("", req, finished=True)

    return cpu_seconds(work)


@pytest.mark.parametrize("mode", ["validated", "progressive"])
def test_a_long_argument_costs_linear_time_in_small_deltas_and_one_huge_one(mode: str) -> None:
    cls = parser_class("hermes", mode=mode)

    def text(n: int) -> str:
        return '<tool_call>{"name": "get_weather", "arguments": {"city": "' + "ab\\n" * n + '"}}</tool_call>'

    for size in (4, 10**7):

        def measure(n: int, size: int = size) -> float:
            return _elapsed(cls, text(n), size)

        check_linear(f"{mode}, deltas of {size}", measure, 20_000)


def test_a_request_without_tools_reads_no_call() -> None:
    # (vLLM drops the calls of such a request: its markup must stay content, not vanish)
    _, content, calls = Pair(parser_class("hermes"), None, None).parse(HERMES_CALL, request(None))
    assert calls == [] and content == HERMES_CALL
    assert (
        stream(Pair(parser_class("hermes"), None, None), [HERMES_CALL], request(None))["content"]
        == HERMES_CALL
    )


def test_kimi_calls_get_the_ids_its_template_replays_numbered_after_earlier_turns() -> None:
    call = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:3<|tool_call_argument_begin|>"
        '{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>'
    )
    past = {"role": "assistant", "tool_calls": [{"id": "functions.get_weather:0"}, {"id": "functions.x:1"}]}
    req = request(
        [WEATHER], messages=[{"role": "user", "content": "hi"}, past, {"role": "tool", "content": "1"}]
    )
    _, _, calls = Pair(parser_class("kimi"), None, [WEATHER]).parse(call, req)
    assert [c.id for c in calls] == ["functions.get_weather:2"]
    assert [
        c["id"] for c in stream(Pair(parser_class("kimi"), None, [WEATHER]), list(call), req)["calls"]
    ] == ["functions.get_weather:2"]
    _, _, calls = Pair(parser_class("hermes"), None, [WEATHER]).parse(HERMES_CALL, req)
    assert calls[0].id.startswith("call_")  # (a format without ids of its own: the server's)


def test_a_request_that_switched_thinking_off_is_all_answer() -> None:
    for kwargs in ({"enable_thinking": False}, {"thinking": False}):
        parser = reasoning_class("think-open")(vllm_standin.CharTokenizer(), chat_template_kwargs=kwargs)
        assert parser.extract_reasoning("Hello </think> there", request()) == (None, "Hello </think> there")
    parser = reasoning_class("think-open")(
        vllm_standin.CharTokenizer(), chat_template_kwargs={"enable_thinking": True}
    )
    assert parser.extract_reasoning("plan</think>Hello", request()) == ("plan", "Hello")


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(["<think>", "</think>", "<th", "ink>", "</", "a", " ", "\n", "<", "b c"]), max_size=8
    ),
    st.randoms(use_true_random=False),
    st.sampled_from(["auto", "think", "think-open"]),
    st.sampled_from([None, "open", "closed"]),
)
def test_a_reasoning_split_is_the_same_whatever_the_chunking_and_the_answer_is_passed_on_as_written(
    parts: list[str], rng: random.Random, preset: str, state: str | None
) -> None:
    from toolparse.integrations import ReasoningSplit

    text = "".join(parts)
    declaration = REASONING[preset]
    assert declaration is not None
    whole = ReasoningSplit(declaration, state=state)
    first = whole.feed(text)
    last = whole.finish()
    expected = (first[0] + last[0], first[1] + last[1])
    split = ReasoningSplit(declaration, state=state)
    got = [split.feed(chunk) for chunk in random_pieces(text, rng)] if text else []
    got.append(split.finish())
    assert ("".join(r for r, _ in got), "".join(c for _, c in got)) == expected
    # (whitespace before a reasoning block is content too; the answer proper is the text's end, as written)
    if whole.ended and expected[1].strip() and not text.endswith(expected[1].lstrip()):
        pytest.fail(f"the answer is not the text's end as written: {expected[1]!r} of {text!r}")
