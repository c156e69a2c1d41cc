"""OpenAI Chat Completions for text-only endpoints: the chunk conversion
(sans-IO), the wrapped ``openai`` client and the ``toolparse serve`` proxy.

Real parts only: a fake text-only upstream (tests/servers.py) runs on
127.0.0.1 and streams recorded outputs as ``delta.content`` SSE; the real
``openai`` SDK drives the wrapped client and the proxy.
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

import anyio
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from servers import Reply, fake_upstream, running
from test_corpus import DECISIONS, GRAMMAR_OF_FORMAT, REAL, RECONSTRUCTED_TOOLS
from toolparse import InvalidOptionError, StreamParser, prepare_request
from toolparse.openai import CompletionStream, ToolCallFailed, accumulate, complete, wrap
from toolparse.openai.calling import ToolCalling
from toolparse.serve import create_app

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
}
TOOLS = [WEATHER]
ASK = [{"role": "user", "content": "Weather in Paris?"}]
PARIS = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": "2"}}</tool_call>'
ANSWER = "<think>The user wants the weather.</think>Checking. " + PARIS
MISSING_CITY = '<tool_call>{"name": "get_weather", "arguments": {"days": 2}}</tool_call>'


def sdk(url: str) -> Any:
    """The real SDK's client (typed Any: the tests pass plain dicts as messages)."""
    return openai.OpenAI(base_url=url, api_key="test-key", max_retries=0, timeout=20)


def async_sdk(url: str) -> Any:
    return openai.AsyncOpenAI(base_url=url, api_key="test-key", max_retries=0, timeout=20)


def message_of(chunks: list[Any]) -> tuple[dict[str, Any], str | None]:
    """A stream's chunks (SDK objects or dicts) gathered into (message, finish reason)."""
    deltas, finish = [], None
    for chunk in chunks:
        data = chunk if isinstance(chunk, dict) else chunk.model_dump(exclude_none=True)
        for choice in data["choices"]:
            deltas.append({k: v for k, v in choice.get("delta", {}).items() if v is not None})
            finish = choice.get("finish_reason") or finish
    return accumulate(deltas), finish


def calls_in(message: Any) -> list[tuple[str, Any]]:
    """(name, arguments) of a message's calls; arguments that are not JSON
    (a failed call in progressive mode) as the string the client got."""
    if not isinstance(message, dict):
        message = message.model_dump()
    return [
        (c["function"]["name"], _json_or_text(c["function"]["arguments"]))
        for c in message.get("tool_calls") or []
    ]


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


# -- the conversion, sans-IO --------------------------------------------------------------


def upstream_chunks(text: str, cuts: list[int]) -> list[dict[str, Any]]:
    bounds = [0, *sorted(cuts), len(text)]
    pieces = [text[a:b] for a, b in itertools.pairwise(bounds)]
    chunks = [
        {"id": "x", "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]} for p in pieces
    ]
    return [*chunks, {"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]


def convert(text: str, cuts: list[int], **options: Any) -> tuple[dict[str, Any], str | None]:
    tools = options.pop("tools", TOOLS)
    stream = CompletionStream(lambda: StreamParser("hermes", tools, seed=1), **options)
    chunks = [out for chunk in upstream_chunks(text, cuts) for out in stream.feed(chunk)] + stream.close()
    return message_of(chunks)


def whole(text: str, **options: Any) -> tuple[dict[str, Any], str]:
    tools = options.pop("tools", TOOLS)
    response = {
        "id": "x",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    }
    done = complete(response, lambda: StreamParser("hermes", tools, seed=1), **options)
    choice = done["choices"][0]
    return choice["message"], choice["finish_reason"]


OUTPUTS = [
    ANSWER,
    "No tools needed.",
    PARIS + "\n\n" + PARIS.replace("Paris", "Lima") + "\n",
    "Trying: " + MISSING_CITY + " and " + PARIS,
    'Broken: <tool_call>{"name": "get_weather", "arguments": {"city": "Pa</tool_call> sorry',
    '<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>',
    "\n\n" + PARIS + "\n\n",
]


@settings(max_examples=200, deadline=None)
@given(
    text=st.sampled_from(OUTPUTS),
    data=st.data(),
    mode=st.sampled_from(["validated", "progressive"]),
    on_error=st.sampled_from(["content", "drop"]),
)
def test_streamed_message_equals_the_whole_response(text: str, data: Any, mode: str, on_error: str) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=10))
    streamed, finish = convert(text, cuts, mode=mode, on_error=on_error)
    message, whole_finish = whole(text, mode=mode, on_error=on_error)
    if mode == "validated":
        assert (calls_in(streamed), streamed.get("content") or None, finish) == (
            calls_in(message),
            message["content"],
            whole_finish,
        )
        for _, arguments in calls_in(streamed):  # every call a client receives is complete and valid
            assert isinstance(arguments, dict) and "city" in arguments
    else:  # (a whole response is never progressive; a stream also sends the calls that then fail)
        assert (message, whole_finish) == whole(text, mode="validated", on_error=on_error)
        assert all(call in calls_in(streamed) for call in calls_in(message))


def test_validated_mode_never_delivers_a_rejected_call() -> None:
    text = "Trying: " + MISSING_CITY + " and " + PARIS
    message, finish = whole(text)
    assert calls_in(message) == [("get_weather", {"city": "Paris", "days": 2})]
    assert message["content"] == "Trying: " + MISSING_CITY + " and"  # (the failed call, as text)
    assert finish == "tool_calls"
    assert whole(text, on_error="drop")[0]["content"] == "Trying:  and"
    with pytest.raises(ToolCallFailed, match="missing required argument"):
        whole(text, on_error="raise")


def test_progressive_mode_streams_arguments_and_keeps_a_failed_start() -> None:
    long_city = "x" * 50
    text = f'<tool_call>{{"name": "get_weather", "arguments": {{"city": "{long_city}"}}}}</tool_call>'
    stream = CompletionStream(lambda: StreamParser("hermes", TOOLS, seed=1), mode="progressive")
    out = [o for chunk in upstream_chunks(text, list(range(0, len(text), 9))) for o in stream.feed(chunk)]
    argument_chunks = [c for c in out if c["choices"] and "tool_calls" in c["choices"][0]["delta"]]
    assert len(argument_chunks) > 3  # (the arguments arrive piece by piece)
    # a call that fails after it started: its entry stays, arguments incomplete
    message, finish = convert(MISSING_CITY, [30], mode="progressive", on_error="drop")
    assert calls_in(message) == [("get_weather", {"days": 2})] and finish == "tool_calls"


def test_chunks_carry_role_reasoning_usage_and_choices() -> None:
    stream = CompletionStream(lambda: StreamParser("hermes", TOOLS, seed=1), model="m")
    first = stream.feed(
        {"id": "c1", "created": 5, "choices": [{"index": 0, "delta": {"content": "<think>Hm"}}]}
    )
    # (reasoning in both fields by default: vLLM 0.33 clients read "reasoning", others "reasoning_content")
    assert first[0]["choices"][0]["delta"] == {
        "role": "assistant",
        "reasoning_content": "Hm",
        "reasoning": "Hm",
    }
    assert (
        first[0]["id"] == "c1" and first[0]["object"] == "chat.completion.chunk" and first[0]["model"] == "m"
    )
    second = stream.feed({"choices": [{"index": 1, "delta": {"reasoning_content": "own"}}]})
    assert second[0]["choices"][0] == {
        "index": 1,
        "delta": {"role": "assistant", "reasoning_content": "own", "reasoning": "own"},
        "logprobs": None,
        "finish_reason": None,
    }
    usage = stream.feed({"choices": [], "usage": {"total_tokens": 3}})
    assert usage == [
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "created": 5,
            "model": "m",
            "choices": [],
            "usage": {"total_tokens": 3},
        }
    ]
    last = stream.close()
    assert [c["choices"][0]["finish_reason"] for c in last] == ["stop", "stop"]


def test_options_are_checked() -> None:
    with pytest.raises(InvalidOptionError, match="mode"):
        CompletionStream(lambda: StreamParser(), mode="fast")
    with pytest.raises(InvalidOptionError, match="on_error"):
        ToolCalling(on_error="ignore")
    with pytest.raises(InvalidOptionError, match="tools"):
        ToolCalling(tools=TOOLS)
    with pytest.raises(InvalidOptionError, match="reasoning"):
        ToolCalling(reasoning="thinking")
    with pytest.raises(InvalidOptionError, match=r"not an openai\.OpenAI"):
        wrap(object())


# -- prepare_request fits the SDK ---------------------------------------------------------


def test_prepare_request_takes_sdk_messages_and_gives_parser_and_body() -> None:
    response = openai.types.chat.ChatCompletion.model_validate(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                            }
                        ],
                    },
                }
            ],
        }
    )
    messages: list[Any] = [*ASK, response.choices[0].message]
    messages.append({"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "21 C"}]})
    prepared = prepare_request(messages, TOOLS, "auto")
    assert prepared.messages[-1] == {"role": "user", "content": "<tool_response>\n21 C\n</tool_response>"}
    assert '"city": "Paris"' in prepared.messages[-2]["content"]
    body = prepared.body(model="m", tools=TOOLS, tool_choice="auto", parallel_tool_calls=True, temperature=0)
    assert body == {"model": "m", "temperature": 0, "messages": prepared.messages}
    parser = prepared.parser(seed=1)
    events = parser.feed(PARIS) + parser.close()
    assert [type(e).__name__ for e in events][-1] == "ToolCall"
    # a forced choice: the schema goes in the body, the parser reads the bare answer
    forced = prepare_request(ASK, TOOLS, {"type": "function", "function": {"name": "get_weather"}})
    assert forced.body(model="m")["response_format"]["type"] == "json_schema"
    parser = forced.parser()
    assert parser.feed('{"name": "get_weather", "arguments": {"city": "Oslo"}}') + parser.close()
    # no tools offered: no call is read
    plain = prepare_request(ASK).parser()
    assert [type(e).__name__ for e in plain.feed(PARIS) + plain.close()] == ["TextDelta"]


# -- the wrapped client -------------------------------------------------------------------


def test_wrapped_client_non_streaming_and_a_second_turn() -> None:
    with fake_upstream(ANSWER, "It is sunny in Paris.") as upstream:
        client = wrap(sdk(upstream.url))
        response = client.chat.completions.create(model="m", messages=ASK, tools=TOOLS)
        choice = response.choices[0]
        assert isinstance(response, openai.types.chat.ChatCompletion)
        assert choice.finish_reason == "tool_calls" and choice.message.content == "Checking."
        assert calls_in(choice.message) == [("get_weather", {"city": "Paris", "days": 2})]
        assert choice.message.model_extra["reasoning_content"] == "The user wants the weather."
        sent = upstream.requests[-1]
        assert "tools" not in sent and "tool_choice" not in sent
        assert "get_weather" in sent["messages"][0]["content"]  # (the tools, in the system prompt)
        # the usual loop: the SDK's own message object appended, then the result
        history = [*ASK, choice.message]
        history.append({"role": "tool", "tool_call_id": choice.message.tool_calls[0].id, "content": "21 C"})
        final = client.chat.completions.create(model="m", messages=history, tools=TOOLS)
        assert final.choices[0].message.content == "It is sunny in Paris."
        assert final.choices[0].finish_reason == "stop"
        resent = upstream.requests[-1]["messages"]
        assert "<tool_call>" in resent[-2]["content"] and "21 C" in resent[-1]["content"]
        assert client.models.list().data[0].id == "fake-model"  # (the rest is the client's own)


def test_wrapped_client_streaming_matches_non_streaming() -> None:
    with fake_upstream(Reply(ANSWER, size=3)) as upstream:
        client = wrap(sdk(upstream.url))
        whole_response = client.chat.completions.create(model="m", messages=ASK, tools=TOOLS)
        with client.chat.completions.create(model="m", messages=ASK, tools=TOOLS, stream=True) as stream:
            chunks = list(stream)
        assert all(isinstance(c, openai.types.chat.ChatCompletionChunk) for c in chunks)
        message, finish = message_of(chunks)
        assert calls_in(message) == calls_in(whole_response.choices[0].message)
        assert message["content"] == whole_response.choices[0].message.content
        assert finish == "tool_calls"


def test_async_wrapped_client() -> None:
    async def scenario() -> None:
        with fake_upstream(Reply(ANSWER, size=4)) as upstream:
            client = wrap(async_sdk(upstream.url), mode="progressive")
            response = await client.chat.completions.create(model="m", messages=ASK, tools=TOOLS)
            assert calls_in(response.choices[0].message) == [("get_weather", {"city": "Paris", "days": 2})]
            stream = await client.chat.completions.create(model="m", messages=ASK, tools=TOOLS, stream=True)
            async with stream:
                chunks = [chunk async for chunk in stream]
            message, finish = message_of(chunks)
            assert calls_in(message) == calls_in(response.choices[0].message) and finish == "tool_calls"
            await client.close()

    anyio.run(scenario)
    anyio.run(scenario, backend="trio")


@pytest.mark.parametrize(
    "answer",
    [
        '{"name": "get_weather", "arguments": {"city": "Oslo"}}',
        # (wrapped anyway)
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
        '```json\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```',
        '<think>Oslo it is.</think>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}',
    ],
)
def test_forced_choice(answer: str) -> None:
    with fake_upstream(answer) as upstream:
        client = wrap(sdk(upstream.url))
        choice = {"type": "function", "function": {"name": "get_weather"}}
        response = client.chat.completions.create(model="m", messages=ASK, tools=TOOLS, tool_choice=choice)
        assert calls_in(response.choices[0].message) == [("get_weather", {"city": "Oslo"})]
        assert upstream.requests[-1]["response_format"]["type"] == "json_schema"
        chunks = list(
            client.chat.completions.create(
                model="m", messages=ASK, tools=TOOLS, tool_choice=choice, stream=True
            )
        )
        assert calls_in(message_of(chunks)[0]) == [("get_weather", {"city": "Oslo"})]


def test_a_call_that_fails_validation_is_never_delivered() -> None:
    class Booking(BaseModel):
        """Book a table."""

        people: int = Field(ge=1, le=12)

    # (a pydantic model as tool, the SDK's way: its JSON schema validates)
    tool_list = [openai.pydantic_function_tool(Booking, name="book")]
    bad = '<tool_call>{"name": "book", "arguments": {"people": "a dozen"}}</tool_call>'
    with fake_upstream(Reply(bad, size=5)) as upstream:
        client = wrap(sdk(upstream.url))
        response = client.chat.completions.create(model="m", messages=ASK, tools=tool_list)
        assert response.choices[0].message.tool_calls is None and response.choices[0].finish_reason == "stop"
        assert response.choices[0].message.content == bad  # (shown as what the model wrote)
        chunks = list(client.chat.completions.create(model="m", messages=ASK, tools=tool_list, stream=True))
        assert not any(c.choices and c.choices[0].delta.tool_calls for c in chunks)
        # on_error="raise": what a client of the proxy gets, never retried (one request upstream)
        strict = wrap(sdk(upstream.url), on_error="raise")
        sent = len(upstream.requests)
        with pytest.raises(openai.InternalServerError, match="does not admit") as raised:
            strict.chat.completions.create(model="m", messages=ASK, tools=tool_list)
        assert raised.value.status_code == 502 and raised.value.code == "invalid_arguments"
        assert len(upstream.requests) == sent + 1
        with pytest.raises(openai.APIError, match="does not admit"):
            list(strict.chat.completions.create(model="m", messages=ASK, tools=tool_list, stream=True))


# -- the proxy ----------------------------------------------------------------------------


def test_proxy_streaming_and_not_with_the_sdk_helpers() -> None:
    with fake_upstream(Reply(ANSWER, size=2)) as upstream, running(create_app(upstream.url)) as proxy:
        client = sdk(proxy + "/v1")
        response = client.chat.completions.create(model="m", messages=ASK, tools=TOOLS)
        assert calls_in(response.choices[0].message) == [("get_weather", {"city": "Paris", "days": 2})]
        # the SDK's own streaming helper, which once counted a rejected call too
        with client.chat.completions.stream(model="m", messages=ASK, tools=TOOLS) as stream:
            final = stream.get_final_completion()
        assert calls_in(final.choices[0].message) == calls_in(response.choices[0].message)
        assert final.choices[0].message.content == response.choices[0].message.content == "Checking."
        assert client.models.list().data[0].id == "fake-model"
        assert upstream.requests[-1]["messages"][0]["role"] == "system"


def test_proxy_passes_a_rejected_call_on_as_text_and_validates() -> None:
    text = "Trying: " + MISSING_CITY + " and " + PARIS
    with fake_upstream(Reply(text, size=4)) as upstream, running(create_app(upstream.url)) as proxy:
        client = sdk(proxy + "/v1")
        streamed = list(client.chat.completions.create(model="m", messages=ASK, tools=TOOLS, stream=True))
        message, _ = message_of(streamed)
        assert calls_in(message) == [("get_weather", {"city": "Paris", "days": 2})]
        assert (
            len(
                client.chat.completions.create(model="m", messages=ASK, tools=TOOLS)
                .choices[0]
                .message.tool_calls
            )
            == 1
        )


def test_proxy_async_client_and_concurrency() -> None:
    async def scenario(url: str) -> None:
        client = async_sdk(url)

        async def one() -> list[tuple[str, dict[str, Any]]]:
            stream = await client.chat.completions.create(model="m", messages=ASK, tools=TOOLS, stream=True)
            return calls_in(message_of([c async for c in stream])[0])

        results: list[Any] = []
        async with anyio.create_task_group() as group:
            for _ in range(20):
                group.start_soon(lambda: _collect(one, results))
        assert results == [[("get_weather", {"city": "Paris", "days": 2})]] * 20
        await client.close()

    with fake_upstream(Reply(ANSWER, size=3)) as upstream, running(create_app(upstream.url)) as proxy:
        anyio.run(scenario, proxy + "/v1")


async def _collect(job: Any, results: list[Any]) -> None:
    results.append(await job())


@pytest.mark.parametrize(
    "record",
    [
        r
        for r in REAL
        if r["id"] not in DECISIONS
        and GRAMMAR_OF_FORMAT[r["format"]] in ("hermes", "qwen3-coder")
        and r["expected_calls"]
        and r["assert_mode"] == "exact"
    ],
    ids=lambda r: r["id"],
)
def test_proxy_replays_real_outputs(record: dict[str, Any]) -> None:
    """The corpus's outputs, streamed by the fake upstream in small pieces."""
    names = {c["name"] for c in record["expected_calls"]}
    tools = (
        record.get("tools")
        or RECONSTRUCTED_TOOLS.get(record["id"])
        or [{"name": n, "parameters": {"type": "object"}} for n in sorted(names)]
    )
    tools = [{"type": "function", "function": t} if "function" not in t else t for t in tools]
    calling = ToolCalling(grammar=GRAMMAR_OF_FORMAT[record["format"]])
    with (
        fake_upstream(Reply(record["raw_text"], size=5)) as upstream,
        running(create_app(upstream.url, calling=calling)) as proxy,
    ):
        client = sdk(proxy + "/v1")
        streamed = list(client.chat.completions.create(model="m", messages=ASK, tools=tools, stream=True))
        got = calls_in(message_of(streamed)[0])
        assert got == [(c["name"], c["arguments"]) for c in record["expected_calls"]]
        response = client.chat.completions.create(model="m", messages=ASK, tools=tools)
        assert calls_in(response.choices[0].message) == got


# -- faults: an OpenAI-style error, never a hang, and the proxy keeps serving -------------


def fault(reply: Reply, *, stream: bool, **app_options: Any) -> BaseException:
    with fake_upstream(reply, ANSWER) as upstream, running(create_app(upstream.url, **app_options)) as proxy:
        client = sdk(proxy + "/v1")
        try:
            if stream:
                list(client.chat.completions.create(model="m", messages=ASK, tools=TOOLS, stream=True))
            else:
                client.chat.completions.create(model="m", messages=ASK, tools=TOOLS)
        except openai.APIError as exc:
            error: BaseException = exc
        else:
            raise AssertionError("no error")
        # the proxy still serves
        assert calls_in(
            client.chat.completions.create(model="m", messages=ASK, tools=TOOLS).choices[0].message
        )
        return error


@pytest.mark.parametrize("stream", [False, True])
def test_upstream_error_status_is_passed_on(stream: bool) -> None:
    body = {"error": {"message": "model not loaded", "type": "server_error", "code": None}}
    error = fault(Reply(status=503, body=body), stream=stream)
    assert isinstance(error, openai.APIStatusError) and error.status_code == 503
    assert "model not loaded" in str(error)
    error = fault(
        Reply(status=400, body={"error": {"message": "bad temperature", "type": "invalid_request_error"}}),
        stream=stream,
    )
    assert isinstance(error, openai.BadRequestError)


def test_upstream_refused() -> None:
    with running(create_app("http://127.0.0.1:9/v1")) as proxy:
        for stream in (False, True):
            with pytest.raises(openai.APIStatusError) as caught:
                result = sdk(proxy + "/v1").chat.completions.create(model="m", messages=ASK, stream=stream)
                list(result) if stream else None
            assert caught.value.status_code == 502 and "cannot reach" in str(caught.value)


def test_malformed_sse_and_a_dropped_stream_end_in_an_error_event() -> None:
    assert "malformed" in str(fault(Reply(ANSWER, malformed=True), stream=True))
    assert "broke off" in str(fault(Reply(ANSWER, drop=True, after=3), stream=True))


def test_a_slow_upstream_times_out() -> None:
    error = fault(Reply(ANSWER, delay=2.0), stream=False, timeout=0.5)
    assert isinstance(error, openai.APIStatusError) and error.status_code == 504
    error = fault(Reply(ANSWER, pause=2.0, after=1), stream=True, timeout=0.5)
    assert "in time" in str(error)


def test_a_client_that_disconnects_cancels_the_upstream_request() -> None:
    with (
        fake_upstream(Reply(ANSWER * 50, size=3, pause=0.02)) as upstream,
        running(create_app(upstream.url)) as proxy,
    ):
        stream = sdk(proxy + "/v1").chat.completions.create(model="m", messages=ASK, tools=TOOLS, stream=True)
        next(iter(stream))
        stream.close()  # (the client goes away mid-answer)
        deadline = time.monotonic() + 10
        while upstream.cancelled == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert upstream.cancelled == 1 and upstream.finished == 0


def test_bad_requests() -> None:
    import httpx

    with fake_upstream(ANSWER) as upstream, running(create_app(upstream.url, max_body=1000)) as proxy:

        def post(body: bytes) -> httpx.Response:
            return httpx.post(proxy + "/v1/chat/completions", content=body, timeout=10)

        assert post(b"x" * 2000).status_code == 413
        assert post(b"{not json").status_code == 400
        assert post(json.dumps({"model": "m"}).encode()).json()["error"]["message"].endswith("needs messages")
        bad_choice = {
            "model": "m",
            "messages": ASK,
            "tools": TOOLS,
            "tool_choice": {"type": "function", "function": {"name": "nope"}},
        }
        answer = post(json.dumps(bad_choice).encode())
        assert answer.status_code == 400 and "nope" in answer.json()["error"]["message"]
        assert httpx.get(proxy + "/v1/nothing", timeout=10).status_code == 404
        assert not upstream.requests  # (none of these reached the upstream)


def test_toolparse_serve_command() -> None:
    """The console command, as the README runs it, in a subprocess."""
    import subprocess
    import sys

    import httpx

    from servers import free_port

    with fake_upstream(Reply(ANSWER, size=4)) as upstream:
        port = free_port()
        command = [
            sys.executable,
            "-m",
            "toolparse.cli",
            "serve",
            "--upstream",
            upstream.url,
            "--port",
            str(port),
        ]
        process = subprocess.Popen([*command, "--log-level", "warning"], stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 20
            while True:
                try:
                    httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=1)
                    break
                except httpx.HTTPError:
                    if time.monotonic() > deadline or process.poll() is not None:
                        raise AssertionError(
                            f"toolparse serve did not start: {process.stderr and process.stderr.read()}"
                        ) from None
                    time.sleep(0.1)
            client = sdk(f"http://127.0.0.1:{port}/v1")
            chunks = list(client.chat.completions.create(model="m", messages=ASK, tools=TOOLS, stream=True))
            assert calls_in(message_of(chunks)[0]) == [("get_weather", {"city": "Paris", "days": 2})]
        finally:
            process.terminate()
            process.wait(timeout=10)
