"""Issue 51, the OpenAI layer and the server adapters (items 2, 3, 9, 12, 15):
what a client of ``toolparse serve``, of a wrapped client or of the vLLM
plugin reads when thinking is switched off or on, when the text holds lone
surrogates, for Nemotron and Groq's Llama 3 tool-use models, and how
reasoning, the answer's first line and extra calls are presented."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

import vllm_standin
from servers import running
from support import random_pieces
from test_openai import PARIS, TOOLS, WEATHER, convert, message_of, upstream_chunks, whole
from test_proxy_hardening import _chunk, _completion, post, sse_events, upstream
from toolparse import StreamParser
from toolparse.detect import grammar_for_model
from toolparse.grammars.reasoning import REASONING, THINK_AT_START
from toolparse.integrations import ReasoningSplit
from toolparse.openai.calling import ToolCalling
from toolparse.openai.chunks import CompletionStream, accumulate, complete
from toolparse.openai.relay import SSERelay, sse
from toolparse.routes import Router
from toolparse.serve import create_app

adapter = vllm_standin.install()

ASK = [{"role": "user", "content": "Weather in Paris?"}]
CALL_TEXT = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


def _through(calling: ToolCalling, request: dict[str, Any], text: str, **delta: str) -> dict[str, Any]:
    """The message a client reads for ``request`` answered with ``text`` (and the
    upstream's own ``delta`` fields), streamed in random pieces; checked equal
    to the whole answer's."""
    prepared, _ = calling.prepare({"messages": ASK, "tools": TOOLS, **request})
    response = {
        "id": "x",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text, **delta}}],
    }
    message = calling.complete(prepared, response)["choices"][0]["message"]
    for seed in range(4):
        converter = calling.converter(prepared, "m")
        chunks: list[dict[str, Any]] = []
        if delta:
            first = {"index": 0, "delta": dict(delta), "finish_reason": None}
            chunks += converter.feed({"id": "x", "choices": [first]})
        for piece in random_pieces(text, random.Random(seed)):
            chunks += converter.feed({"id": "x", "choices": [{"index": 0, "delta": {"content": piece}}]})
        chunks += converter.close()
        streamed, _ = message_of(chunks)
        assert (streamed.get("content") or None) == message["content"], (streamed, message)
        assert _calls(streamed) == _calls(message)  # (their ids are drawn per response)
        assert streamed.get("reasoning_content") == message.get("reasoning_content")
    return message  # type: ignore[no-any-return]


def _calls(message: dict[str, Any]) -> list[tuple[str, Any]]:
    return [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message.get("tool_calls") or ()
    ]


# -- 2: thinking switched off (or on) in the request ----------------------------------------------

OFF: list[dict[str, Any]] = [
    {"chat_template_kwargs": {"enable_thinking": False}},
    {"chat_template_kwargs": {"thinking": False}},
    {"think": False},  # (Ollama's)
]
THINK_OPEN_MODELS = ["zai-org/GLM-4.7", "zai-org/GLM-4.7-Flash", "MiniMaxAI/MiniMax-M2", "Qwen/Qwen3.5-27B"]


@pytest.mark.parametrize("model", THINK_OPEN_MODELS)
@pytest.mark.parametrize("off", OFF, ids=["enable_thinking", "thinking", "ollama-think"])
def test_thinking_switched_off_shows_the_answer_and_its_calls(model: str, off: dict[str, Any]) -> None:
    found = grammar_for_model(model)
    assert found is not None and found.reasoning == "think-open"
    calling = ToolCalling()  # (grammar "auto": the model's own format)
    prepared, _ = calling.prepare({"model": model, "messages": ASK})
    call = get_entry_call(prepared.grammar)
    message = _through(calling, {"model": model, **off}, "Let me check. " + call)
    assert message["content"] == "Let me check."
    assert _calls(message) == [("get_weather", {"city": "Paris"})]
    assert not message.get("reasoning_content")
    # (a thought written anyway at the answer's start is still reasoning)
    message = _through(calling, {"model": model, **off}, "<think>hm</think>Sure.")
    assert (message["content"], message.get("reasoning_content")) == ("Sure.", "hm")


def get_entry_call(grammar: str) -> str:
    from toolparse.grammars import get_entry

    return get_entry(grammar).grammar.prompt.render_call("get_weather", {"city": "Paris"})


def test_a_configured_think_open_route_reads_thinking_off_too() -> None:
    # (a DeepSeek V3.1 route set to think-open; its requests may switch thinking off)
    calling = ToolCalling(grammar="hermes", reasoning="think-open")
    for off in OFF:
        message = _through(calling, off, "Plain answer.")
        assert (message["content"], message.get("reasoning_content")) == ("Plain answer.", None)
    message = _through(calling, {}, "plan</think>Answer.")
    assert (message["content"], message["reasoning_content"]) == ("Answer.", "plan")


def test_thinking_switched_on_opens_the_thought_the_template_opened() -> None:
    # (DeepSeek V3.1: auto by id and by template; thinking: true makes the prompt end in <think>)
    found = grammar_for_model("deepseek-ai/DeepSeek-V3.1")
    assert found is not None and found.reasoning == "auto"
    calling = ToolCalling()
    on = {"model": "deepseek-ai/DeepSeek-V3.1", "chat_template_kwargs": {"thinking": True}}
    message = _through(calling, on, "I should look.</think>Looking.")
    assert (message["content"], message["reasoning_content"]) == ("Looking.", "I should look.")
    # (a model that writes the opener itself is read the same)
    message = _through(calling, on, "<think>I should look.</think>Looking.")
    assert (message["content"], message["reasoning_content"]) == ("Looking.", "I should look.")
    # (Qwen3.5, thinking on by default: its thought and </think> are never content)
    message = _through(ToolCalling(), {"model": "Qwen/Qwen3.5-27B"}, "plan</think>\n\nDone.")
    assert (message["content"], message["reasoning_content"]) == ("Done.", "plan")


def test_content_the_upstream_separated_from_its_reasoning_is_the_answer() -> None:
    # (an upstream with its own reasoning parser: the prompt opened the thought, the content is answer)
    calling = ToolCalling(grammar="hermes", reasoning="think-open")
    message = _through(calling, {}, "Answer. " + CALL_TEXT, reasoning_content="plan")
    assert (message["content"], message["reasoning_content"]) == ("Answer.", "plan")
    assert _calls(message) == [("get_weather", {"city": "Paris"})]


def test_one_decision_for_serve_wrap_and_the_vllm_plugin() -> None:
    from toolparse.request import CLOSED, OPEN, reasoning_state, thinking_switch

    think_open = REASONING["think-open"]
    auto = REASONING["auto"]
    assert think_open is not None and auto is not None
    assert thinking_switch({"chat_template_kwargs": {"enable_thinking": 0}}) is None  # (not a bool)
    assert thinking_switch({"think": True}) is None
    for off in OFF:
        assert reasoning_state(off, think_open) == CLOSED
    on = {"chat_template_kwargs": {"enable_thinking": True}}
    assert reasoning_state(on, auto) == OPEN
    assert reasoning_state(on, auto, prompt_tail="<|im_start|>assistant\n") is None  # (the model opens it)
    assert reasoning_state(OFF[0], think_open, prompt_tail="assistant<think>\n") == OPEN  # (the prompt wins)
    assert reasoning_state({}, None) is None
    # (the vLLM plugin: the same decision, before the prompt is seen and after)
    cls = adapter.REASONING_PARSERS["toolparse-auto"]
    parser = cls(vllm_standin.CharTokenizer(), chat_template_kwargs={"thinking": True})
    assert parser.extract_reasoning("plan</think>Hello", None) == ("plan", "Hello")
    parser.set_prompt_token_ids(vllm_standin.CharTokenizer().encode("<|Assistant|>"))
    assert parser.extract_reasoning("Hello", None) == (None, "Hello")
    parser = adapter.REASONING_PARSERS["toolparse-think-open"](
        vllm_standin.CharTokenizer(), chat_template_kwargs={"enable_thinking": False}
    )
    assert parser.extract_reasoning("Hello </think> there", None) == (None, "Hello </think> there")


def test_the_proxy_reads_each_requests_thinking_switch() -> None:
    async def handler(request: Request) -> Response:
        return JSONResponse(_completion("Checking. " + get_entry_call("glm")))

    with upstream(handler) as url, running(create_app(url)) as proxy_url:
        body = {
            "model": "zai-org/GLM-4.7",
            "messages": ASK,
            "tools": TOOLS,
            "chat_template_kwargs": {"enable_thinking": False},
        }
        message = post(proxy_url + "/v1/chat/completions", stream=False, body=body).json()["choices"][0]
    assert message["message"]["content"] == "Checking."
    assert message["message"]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert message["finish_reason"] == "tool_calls"


# -- 9: Nemotron (Llama 3.x based) and Groq's Llama 3 tool-use models ----------------------------

NEMOTRON = '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</TOOLCALL>'
GROQ = '<tool_call>\n{"id": 0, "name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


@pytest.mark.parametrize(
    ("model", "text"),
    [
        ("nvidia/Llama-3.3-Nemotron-Super-49B-v1", NEMOTRON),
        ("nvidia/Llama-3.3-Nemotron-Super-49B-v1.5", "<think>\nok\n</think>\n\n" + NEMOTRON),
        ("nvidia/Llama-3.1-Nemotron-Nano-8B-v1", NEMOTRON),
        ("nvidia/Llama-3.1-Nemotron-Nano-4B-v1.1", NEMOTRON),
        ("nvidia/Llama-3.1-Nemotron-Ultra-253B-v1", NEMOTRON),
        ("Groq/Llama-3-Groq-8B-Tool-Use", GROQ),
        ("Groq/Llama-3-Groq-70B-Tool-Use", GROQ),
    ],
)
def test_llama3_fine_tunes_with_their_own_call_format_are_read(model: str, text: str) -> None:
    found = grammar_for_model(model)
    assert found is not None and found.grammar == "hermes", found
    message = _through(ToolCalling(), {"model": model}, text)
    assert _calls(message) == [("get_weather", {"city": "Paris"})]
    assert message["content"] is None
    # (plain Llama 3.x stays Llama's JSON)
    assert grammar_for_model("meta-llama/Llama-3.3-70B-Instruct").grammar == "llama3-json"  # type: ignore[union-attr]


# -- 12: ReasoningSplit counts the text as the engine reads it ------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "<think>a\ud83d\ude00b</think>answer",
        "<think>\ud83d\ude00\ud83d\ude00</think>\n\nanswer \ud83d\ude00 end",
        "<think>a\ud800b\udc00</think>answer",  # (lone ones: kept, one each)
        "<think>x\ud83d</think>answer",
    ],
)
def test_reasoning_split_with_surrogate_pairs_leaves_no_marker_in_the_answer(text: str) -> None:
    expected_answer = text.split("</think>", 1)[1]
    for pieces in ([text], list(text), *(random_pieces(text, random.Random(s)) for s in range(6))):
        split = ReasoningSplit(THINK_AT_START)
        got = [split.feed(piece) for piece in pieces]
        got.append(split.finish())
        reasoning = "".join(r for r, _ in got)
        content = "".join(c for _, c in got)
        joined = content.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        assert joined == expected_answer.encode("utf-16-le", "surrogatepass").decode(
            "utf-16-le", "surrogatepass"
        ), (pieces, content)
        assert ">" not in content.split("answer")[0]
        assert "think" not in reasoning
    # (the vLLM plugin's reasoning parser, whole)
    parser = adapter.REASONING_PARSERS["toolparse-auto"](vllm_standin.CharTokenizer())
    assert parser.extract_reasoning("<think>a\ud83d\ude00b</think>answer", None) == ("a\U0001f600b", "answer")


# -- 3: lone surrogates reach the relay -----------------------------------------------------------


def test_sse_and_json_bodies_are_valid_utf8_whatever_text_they_hold() -> None:
    data = {"content": "a\ud800b", "pair": "\ud83d\ude00", "name": "x\udfff"}
    text = sse(data)
    text.encode()  # (never raises)
    assert json.loads(text[6:]) == {"content": "a\ufffdb", "pair": "\U0001f600", "name": "x\ufffd"}
    from toolparse.openai.relay import json_bytes

    assert json.loads(json_bytes(data)) == json.loads(text[6:])


LONE = [
    ("prose", "Hi \ud800 there", None),
    (
        "arguments",
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Par\\ud800is"}}</tool_call>',
        None,
    ),
    ("name", '<tool_call>{"name": "get_\\udc00weather", "arguments": {"city": "Paris"}}</tool_call>', "call"),
    ("reasoning", "<think>hm \ud800</think>ok", None),
]


@pytest.mark.parametrize(("what", "text", "on_error"), LONE, ids=[w for w, _, _ in LONE])
@pytest.mark.parametrize("stream", [True, False])
def test_lone_surrogates_never_cut_the_proxys_answer(
    what: str, text: str, on_error: str | None, stream: bool
) -> None:
    async def streamed_handler(request: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            yield _chunk(text[:5]).encode()
            yield (_chunk(text[5:]) + "data: [DONE]\n\n").encode()

        return StreamingResponse(body(), media_type="text/event-stream")

    async def whole_handler(request: Request) -> Response:
        return Response(json.dumps(_completion(text)), media_type="application/json")

    options: dict[str, Any] = {"on_error": on_error} if on_error else {}
    handler = streamed_handler if stream else whole_handler
    with upstream(handler) as url, running(create_app(url, calling=ToolCalling(**options))) as proxy_url:
        response = post(proxy_url + "/v1/chat/completions", stream=stream)
    assert response.status_code == 200, response.text
    response.content.decode("utf-8")  # (strict: valid UTF-8)
    if stream:
        events = sse_events(response)
        assert events[-1] == "[DONE]"
        assert not any(isinstance(e, dict) and "error" in e for e in events), events
        message, _ = message_of([e for e in events[:-1] if e["choices"]])
    else:
        message = response.json()["choices"][0]["message"]
    everything = json.dumps(message, ensure_ascii=False)
    assert "\ufffd" in everything, message
    if what == "arguments":
        assert json.loads(message["tool_calls"][0]["function"]["arguments"]) == {"city": "Par\ufffdis"}


def test_a_fault_inside_the_stream_ends_it_with_an_error_event_and_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import toolparse.serve as serve_module

    class Broken(SSERelay):
        def feed(self, raw: bytes) -> str:
            raise RuntimeError("boom")

    monkeypatch.setattr(serve_module, "SSERelay", Broken)

    async def handler(request: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            yield _chunk("Hello").encode()

        return StreamingResponse(body(), media_type="text/event-stream")

    with upstream(handler) as url, running(create_app(url)) as proxy_url:
        response = post(proxy_url + "/v1/chat/completions", stream=True)
    events = sse_events(response)
    assert events[-1] == "[DONE]"
    assert isinstance(events[-2], dict) and events[-2]["error"]["code"] == "internal"


def test_a_failed_call_under_raise_ends_the_stream_with_done() -> None:
    relay = SSERelay(CompletionStream(lambda: StreamParser("hermes", TOOLS), on_error="raise"))
    text = relay.feed(
        (_chunk('<tool_call>{"name": "nope", "arguments": {}}</tool_call>') + "data: [DONE]\n\n").encode()
    )
    assert text.endswith('"code":"unknown_tool"}}\n\ndata: [DONE]\n\n'), text
    assert relay.done


# -- 15: the OpenAI layer as clients read it ------------------------------------------------------


def test_reasoning_goes_out_in_both_fields_by_default_or_the_one_a_route_chooses() -> None:
    text = "<think>plan</think>Sure."
    message, _ = whole(text)
    assert (message["reasoning_content"], message["reasoning"], message["content"]) == (
        "plan",
        "plan",
        "Sure.",
    )
    streamed, _ = convert(text, [3, 9, 15])
    assert (streamed["reasoning_content"], streamed["reasoning"]) == ("plan", "plan")
    for field in ("reasoning", "reasoning_content"):
        message, _ = whole(text, reasoning_field=field)
        assert message[field] == "plan"
        assert ({"reasoning", "reasoning_content"} - {field}).isdisjoint(message)
    router = Router.from_dict({"default": {"upstream": "http://x/v1", "reasoning_field": "reasoning"}})
    assert router.default is not None and router.default.calling.reasoning_field == "reasoning"
    with pytest.raises(Exception, match="reasoning_field"):
        ToolCalling(reasoning_field="thoughts")
    # (an upstream's own reasoning field: passed on in both)
    message = _through(ToolCalling(grammar="hermes"), {}, "Sure.", reasoning="plan")
    assert (message["reasoning_content"], message["reasoning"]) == ("plan", "plan")


@pytest.mark.parametrize(
    "text",
    [
        "<think>plan</think>\n\nSure.",
        "<think>plan</think>\n \n  Sure.",
        "\n<think>plan</think>\n\nSure.",
        "<think>plan</think>\n\n" + PARIS,
    ],
)
def test_the_answer_after_reasoning_begins_at_its_first_visible_character(text: str) -> None:
    message, _ = whole(text)
    expected = text.split("</think>")[1].strip()
    if message.get("tool_calls"):
        assert message["content"] is None
    else:
        assert message["content"] == expected
    for cut in range(1, len(text)):
        streamed, _ = convert(text, [cut])
        assert (streamed.get("content") or None) == message["content"], cut
    # (an upstream that separated the reasoning, and sends the answer's blank lines)
    message = _through(ToolCalling(grammar="hermes"), {}, "\n\nSure.", reasoning_content="plan")
    assert message["content"] == "Sure."
    # (no reasoning field: the content is the model's text, as written)
    message, _ = whole("<think>plan</think>\n\nSure.", reasoning_field=None)
    assert message["content"] == "<think>plan</think>\n\nSure."


def test_without_parallel_tool_calls_the_later_calls_are_dropped_unless_kept() -> None:
    second = PARIS.replace("Paris", "Lima")
    text = PARIS + "\n" + second + "\nDone."
    for mode in ("validated", "progressive"):
        message, finish = whole(text, parallel=False, mode=mode)
        assert finish == "tool_calls"
        assert len(message["tool_calls"]) == 1 and message["content"] == "\n\nDone."  # (as with both calls)
        for cut in (5, 80, 120):
            streamed, _ = convert(text, [cut], parallel=False, mode=mode)
            assert streamed["content"] == "\n\nDone." and len(streamed["tool_calls"]) == 1
    message, _ = whole(text, parallel=False, extra_calls="content")
    assert message["content"] == "\n" + second + "\nDone."
    # (through ToolCalling: the request's field; the option as a route's)
    calling = ToolCalling(grammar="hermes")
    message = _through(calling, {"parallel_tool_calls": False}, text)
    assert message["content"] == "\n\nDone." and len(message["tool_calls"]) == 1
    router = Router.from_dict({"default": {"upstream": "http://x/v1", "extra_calls": "content"}})
    assert router.default is not None and router.default.calling.extra_calls == "content"


def test_accumulate_and_complete_keep_their_signatures() -> None:
    # (callers of the sans-IO pieces: the defaults changed only what is presented)
    stream = CompletionStream(lambda: StreamParser("hermes", [WEATHER]))
    chunks = [out for chunk in upstream_chunks("<think>a</think>\n\nb", [4]) for out in stream.feed(chunk)]
    message = accumulate([c["choices"][0]["delta"] for c in chunks + stream.close() if c["choices"]])
    assert message["content"] == "b"
    done = complete({"choices": [{"index": 0, "message": {"content": "x"}}]}, lambda: StreamParser("hermes"))
    assert done["choices"][0]["message"]["content"] == "x"
    assert httpx  # (the proxy tests' client)


@pytest.mark.parametrize(
    ("template", "model"),
    [
        ("deepseek-ai-DeepSeek-V3.1.jinja", "deepseek-ai/DeepSeek-V3.1"),
        ("poolside-laguna_v2_chat_template.jinja", "poolside/Laguna-XS.2"),
        ("unsloth-MiniMax-M2.jinja", "MiniMaxAI/MiniMax-M2"),
        ("DeepSeek-V3.2.jinja", "deepseek-ai/DeepSeek-V3.2-Exp"),
        ("Qwen-Qwen3-0.6B.jinja", "Qwen/Qwen3-0.6B"),
        ("GLM-4.6.jinja", "zai-org/GLM-4.6"),
        ("StepFun3.7-Flash.jinja", "stepfun-ai/Step-3.7-Flash"),
    ],
)
def test_detection_by_id_and_by_template_agree(template: str, model: str) -> None:
    from pathlib import Path

    from toolparse.detect import grammar_for_template

    text = (Path(__file__).parent / "fixtures" / "templates" / template).read_text(encoding="utf-8")
    by_template = grammar_for_template(text)
    by_id = grammar_for_model(model)
    assert by_template is not None and by_id is not None
    assert (by_template.grammar, by_template.reasoning) == (by_id.grammar, by_id.reasoning), (
        by_template.reason,
        by_id.reason,
    )
