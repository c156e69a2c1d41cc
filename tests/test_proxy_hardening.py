"""The proxy against a hostile or broken upstream and hostile clients (issue 25,
findings 3, 4, 12 to 15, 17): every fault reaches the client as an
OpenAI-shaped error, every buffer is bounded, no secret leaks."""

from __future__ import annotations

import asyncio
import json
import socket
import time
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from servers import running
from toolparse.serve import Limits, create_app, is_loopback, redact

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
ASK = [{"role": "user", "content": "Weather in Paris?"}]
CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
Handler = Callable[[Request], Any]


def _chunk(content: str, finish: str | None = None) -> str:
    choice = {"index": 0, "delta": {"content": content}, "finish_reason": finish}
    return "data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "choices": [choice]}) + "\n\n"


def _completion(content: str) -> dict[str, Any]:
    message = {"role": "assistant", "content": content}
    return {"id": "c", "object": "chat.completion", "choices": [{"index": 0, "message": message}]}


@contextmanager
def upstream(handler: Handler) -> Iterator[str]:
    """A raw upstream answering every chat request with ``handler``."""
    app = Starlette(routes=[Route("/v1/chat/completions", handler, methods=["POST"])])
    with running(app) as url:
        yield url + "/v1"


@contextmanager
def proxy(handler: Handler, **options: Any) -> Iterator[str]:
    with upstream(handler) as url, running(create_app(url, **options)) as proxy_url:
        yield proxy_url + "/v1/chat/completions"


def post(url: str, stream: bool, body: Any = None, **kwargs: Any) -> httpx.Response:
    payload = body if body is not None else {"model": "m", "messages": ASK, "tools": TOOLS, "stream": stream}
    content = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return httpx.post(url, content=content, timeout=20, **kwargs)


def sse_events(response: httpx.Response) -> list[Any]:
    return [
        json.loads(line[6:]) if line[6:] != "[DONE]" else "[DONE]"
        for line in response.text.splitlines()
        if line.startswith("data: ")
    ]


def streamed(*pieces: bytes, media: str = "text/event-stream") -> Handler:
    async def handler(request: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            for piece in pieces:
                yield piece

        return StreamingResponse(body(), media_type=media)

    return handler


def _ends_in_an_error(response: httpx.Response, *words: str) -> dict[str, Any]:
    events = sse_events(response)
    assert response.status_code == 200
    assert events[-1] == "[DONE]", events[-3:]  # (an error event ends the stream, as vLLM ends it)
    last = events[-2]
    assert isinstance(last, dict) and "error" in last, events[-3:]
    for word in words:
        assert word in last["error"]["message"]
    return last


# -- 3: upstream garbage ends in an SSE error event (streamed) or a 502 (not)


@pytest.mark.parametrize(
    "garbage",
    [
        b"data: " + b"[" * 100_000 + b"]" * 100_000 + b"\n\n",
        b'data: {"choices": [1]}\n\n',
        b'data: {"choices": [{"index": [0]}]}\n\n',
        b'data: {"choices": [{"index": 0, "delta": "x"}]}\n\n',
        b'data: {"choices": {"a": 1}}\n\n',
    ],
)
def test_garbage_chunks_end_the_stream_in_an_error_event(garbage: bytes) -> None:
    with proxy(streamed(_chunk("Hello ").encode(), garbage, _chunk("there").encode())) as url:
        response = post(url, stream=True)
    error = _ends_in_an_error(response)
    assert error["error"]["code"] == "malformed"
    assert "Hello" in response.text  # (what came before the garbage was delivered)


@pytest.mark.parametrize("charset", ["utf-16", "no-such-charset", "latin-1"])
def test_an_odd_charset_is_read_as_utf8(charset: str) -> None:
    body = (_chunk("Héllo ") + _chunk(CALL) + "data: [DONE]\n\n").encode()
    with proxy(streamed(body, media=f"text/event-stream; charset={charset}")) as url:
        response = post(url, stream=True)
    events = sse_events(response)
    assert events[-1] == "[DONE]"
    text = "".join(e["choices"][0]["delta"].get("content") or "" for e in events[:-1] if e["choices"])
    assert text.startswith("Héllo")
    assert any(e["choices"] and e["choices"][0]["delta"].get("tool_calls") for e in events[:-1])


@pytest.mark.parametrize(
    "answer",
    [
        {"choices": [1]},
        {"choices": [{"index": 0, "message": "x"}]},
        {"choices": "x"},
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_a_whole_answer_that_is_not_a_completion_is_a_502(answer: Any) -> None:
    async def handler(request: Request) -> Response:
        content = answer if isinstance(answer, str) else json.dumps(answer)
        return Response(content, media_type="application/json")

    with proxy(handler) as url:
        response = post(url, stream=False)
    assert response.status_code == 502
    assert response.json()["error"]["code"] == "malformed"


def test_a_parser_crash_on_upstream_text_is_a_tool_call_error_not_a_500() -> None:
    # (finding 2's input, through the proxy: the parser now reports it as a broken call)
    huge = "[get_weather(city=0x" + "f" * 3600 + ")]"

    async def handler(request: Request) -> Response:
        return JSONResponse(_completion(huge))

    with (
        upstream(handler) as url,
        running(create_app(url, calling=_calling(grammar="pythonic"))) as proxy_url,
    ):
        response = post(proxy_url + "/v1/chat/completions", stream=False)
    assert response.status_code == 200
    assert "tool_calls" not in response.json()["choices"][0]["message"]


def _calling(**options: Any) -> Any:
    from toolparse.openai.calling import ToolCalling

    return ToolCalling(**options)


# -- 4: an upstream that answers a streamed request with JSON


def test_a_json_answer_to_a_streamed_request_is_streamed_out() -> None:
    async def handler(request: Request) -> Response:
        return JSONResponse(_completion("Checking. " + CALL))

    with proxy(handler) as url:
        response = post(url, stream=True)
    events = sse_events(response)
    assert events[-1] == "[DONE]"
    calls = [
        call for e in events[:-1] if e["choices"] for call in e["choices"][0]["delta"].get("tool_calls") or ()
    ]
    assert [c["function"]["name"] for c in calls] == ["get_weather"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"city": "Paris"}
    assert any(e["choices"] and e["choices"][0]["finish_reason"] == "tool_calls" for e in events[:-1])


# -- 12: upstream bodies are bounded


def test_an_event_that_never_ends_is_cut_with_an_error() -> None:
    line = b"data: " + b"x" * 1000 + b"\n"
    with proxy(streamed(*[line] * 200), limits=Limits(max_upstream_event=50_000)) as url:
        response = post(url, stream=True)
    _ends_in_an_error(response, "passes 50000 characters")


def test_a_line_that_never_ends_is_cut_with_an_error() -> None:
    with proxy(streamed(b"data: ", *[b"x" * 1000] * 200), limits=Limits(max_upstream_line=50_000)) as url:
        response = post(url, stream=True)
    _ends_in_an_error(response, "longer than 50000")


@pytest.mark.parametrize("status", [200, 500])
def test_a_whole_answer_past_the_bound_is_a_502(status: int) -> None:
    async def handler(request: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            for _ in range(200):
                yield b"x" * 1000

        return StreamingResponse(body(), status_code=status, media_type="application/json")

    with proxy(handler, limits=Limits(max_upstream_body=50_000)) as url:
        response = post(url, stream=False)
    assert response.status_code == 502 if status == 200 else response.status_code == 500
    if status == 200:
        assert response.json()["error"]["code"] == "too_large"


# -- 13: a client that leaves a non-streamed request cancels the upstream request


def test_a_client_leaving_a_whole_answer_cancels_the_upstream() -> None:
    seen = {"started": 0, "cancelled": 0}

    async def handler(request: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:  # (a slow answer: its headers, then nothing)
            seen["started"] += 1
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:  # (the upstream sees its client, the proxy, go)
                seen["cancelled"] += 1
                raise
            yield json.dumps(_completion("late")).encode()

        return StreamingResponse(body(), media_type="application/json")

    with proxy(handler) as url:
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(url, json={"model": "m", "messages": ASK}, timeout=httpx.Timeout(20, read=1.0))
        deadline = time.monotonic() + 10
        while seen["cancelled"] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
    assert seen == {"started": 1, "cancelled": 1}


# -- 14: credentials never reach a client; a proxy key keeps strangers out


def test_upstream_credentials_are_not_echoed() -> None:
    assert redact("http://admin:S3CRET@10.0.0.1:8080/v1") == "http://***@10.0.0.1:8080/v1"
    assert redact("http://10.0.0.1/v1") == "http://10.0.0.1/v1"
    with running(create_app("http://admin:S3CRET@127.0.0.1:9/v1")) as proxy_url:
        for stream in (False, True):
            response = post(proxy_url + "/v1/chat/completions", stream=stream)
            assert response.status_code == 502
            assert "S3CRET" not in response.text and "admin" not in response.text


def test_a_client_key_is_required_when_set() -> None:
    async def handler(request: Request) -> Response:
        assert request.headers.get("authorization") == "Bearer upstream-key"  # (never the client's)
        return JSONResponse(_completion("hi"))

    with proxy(handler, api_key="upstream-key", client_key="proxy-key") as url:
        assert post(url, stream=False).status_code == 401
        assert post(url, stream=False, headers={"authorization": "Bearer wrong"}).status_code == 401
        answer = post(url, stream=False, headers={"authorization": "Bearer proxy-key"})
        assert answer.status_code == 200, answer.text
        assert answer.json()["choices"][0]["message"]["content"] == "hi"


def test_serving_beyond_loopback_with_an_upstream_key_and_no_client_key_warns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import uvicorn

    from toolparse.serve import serve

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    with pytest.warns(UserWarning, match="client key"):
        serve("http://127.0.0.1:9/v1", host="0.0.0.0", api_key="k")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        serve("http://127.0.0.1:9/v1", host="127.0.0.1", api_key="k")  # (loopback: no warning)
        serve("http://127.0.0.1:9/v1", host="0.0.0.0", api_key="k", client_key="c")
    assert is_loopback("::1") and is_loopback("localhost") and not is_loopback("0.0.0.0")


# -- 15: malformed client requests are a 400 naming the problem


@pytest.mark.parametrize(
    ("messages", "words"),
    [
        ([{"role": "assistant", "content": None, "tool_calls": {"id": "1"}}], "tool_calls must be a list"),
        ([{"role": "assistant", "content": None, "tool_calls": ["a", "b"]}], "tool_calls[0] must be a call"),
        (["hi"], "messages[0] must be an object"),
        ("hello", "messages must be a list"),
    ],
)
def test_a_malformed_request_is_a_400(messages: Any, words: str) -> None:
    with proxy(streamed(b"")) as url:
        response = post(url, False, {"model": "m", "messages": messages, "tools": TOOLS})
    assert response.status_code == 400
    assert words in response.json()["error"]["message"]


def test_a_deeply_nested_request_is_a_400() -> None:
    deep: Any = "x"
    for _ in range(900):
        deep = {"a": deep}
    with proxy(streamed(b"")) as url:
        nested = post(url, False, {"model": "m", "messages": [{"role": "user", "content": deep}]})
        brackets = post(url, False, b"[" * 200_000)
    assert nested.status_code == 400 and "nested deeper" in nested.json()["error"]["message"]
    assert brackets.status_code == 400 and "nested too deep" in brackets.json()["error"]["message"]


def test_prepare_request_names_a_malformed_message() -> None:
    from toolparse import InvalidRequestError, prepare_request

    with pytest.raises(InvalidRequestError, match=r"messages\[1\].tool_calls must be a list"):
        prepare_request([{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": {}}], TOOLS)


# -- 17: keep-alives go through; a body that never completes times out


def test_upstream_keep_alive_comments_reach_the_client() -> None:
    async def handler(request: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            yield b": keep-alive\n\n"
            await asyncio.sleep(0.2)
            yield b": keep-alive\n\n"
            yield (_chunk("hi") + "data: [DONE]\n\n").encode()

        return StreamingResponse(body(), media_type="text/event-stream")

    with proxy(handler) as url:
        response = post(url, stream=True)
    assert response.text.count(": keep-alive") == 2
    assert sse_events(response)[-1] == "[DONE]"


def test_a_half_sent_body_times_out() -> None:
    with proxy(streamed(b""), limits=Limits(body_timeout=0.5)) as url:
        host, port = url.split("//")[1].split("/")[0].split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                b'content-length: 1000\r\n\r\n{"model": '
            )
            started = time.monotonic()
            answer = sock.recv(4096)
    assert b" 408 " in answer.split(b"\r\n")[0]
    assert time.monotonic() - started < 5
