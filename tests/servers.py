"""Real HTTP servers for the OpenAI tests, on 127.0.0.1 and a free port, each
stopped by the test that started it: a fake text-only upstream that replays
model outputs (and misbehaves on request), and the toolparse proxy."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx  # noqa: F401  (imported before any SDK stream is collected: see the SDK's timeout_exceptions)
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route


@dataclass
class Reply:
    """What the fake upstream answers to one request.

    ``output`` is the model's raw text, streamed as ``delta.content`` in
    ``deltas`` (or in ``size``-character pieces); ``reasoning`` goes first as
    ``delta.reasoning_content`` (an upstream that separates reasoning itself).
    The faults: ``status`` (an error status with ``body``), ``malformed``
    (SSE data that is not JSON after ``after`` chunks), ``drop`` (the
    connection broken after ``after`` chunks), ``delay`` (seconds before the
    first byte), ``pause`` (seconds between chunks), ``no_done`` (end without
    ``[DONE]``).
    """

    output: str = ""
    deltas: list[str] | None = None
    size: int = 7
    reasoning: str = ""
    finish_reason: str = "stop"
    status: int = 200
    body: Any = None
    malformed: bool = False
    drop: bool = False
    after: int = 2
    delay: float = 0.0
    pause: float = 0.0
    no_done: bool = False

    def pieces(self) -> list[str]:
        if self.deltas is not None:
            return self.deltas
        return [self.output[i : i + self.size] for i in range(0, len(self.output), self.size)]


@dataclass
class FakeUpstream:
    """A text-only OpenAI-compatible endpoint: it never sees tools (a test
    checks), and answers with the queued replies (the last one repeats)."""

    replies: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    """Each request's headers (lower-case names)."""
    cancelled: int = 0
    finished: int = 0
    url: str = ""

    def queue(self, *replies: Reply | str) -> None:
        self.replies[:] = [r if isinstance(r, Reply) else Reply(r) for r in replies]

    def _next(self) -> Reply:
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def app(self) -> Starlette:
        async def chat(request: Request) -> Response:
            body = await request.json()
            self.requests.append(body)
            self.headers.append(dict(request.headers))
            reply = self._next()
            if reply.delay:
                await asyncio.sleep(reply.delay)
            if reply.status != 200:
                return JSONResponse(reply.body, status_code=reply.status)
            if not body.get("stream"):
                message: dict[str, Any] = {"role": "assistant", "content": reply.output}
                if reply.reasoning:
                    message["reasoning_content"] = reply.reasoning
                return JSONResponse(
                    {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion",
                        "created": 1700000000,
                        "model": body.get("model", "fake"),
                        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    }
                )
            return StreamingResponse(self._stream(reply, body), media_type="text/event-stream")

        async def models(request: Request) -> Response:
            return JSONResponse(
                {
                    "object": "list",
                    "data": [{"id": "fake-model", "object": "model", "created": 0, "owned_by": "me"}],
                }
            )

        return Starlette(
            routes=[
                Route("/v1/chat/completions", chat, methods=["POST"]),
                Route("/v1/models", models, methods=["GET"]),
            ]
        )

    async def _stream(self, reply: Reply, body: dict[str, Any]) -> AsyncIterator[str]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            data = {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": 1700000000,
                "model": body.get("model", "fake"),
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return f"data: {json.dumps(data)}\n\n"

        try:
            if reply.reasoning:
                yield chunk({"role": "assistant", "reasoning_content": reply.reasoning})
            for sent, piece in enumerate(reply.pieces()):
                if sent == reply.after and reply.malformed:
                    yield "data: {this is not json\n\n"
                    return
                if sent == reply.after and reply.drop:
                    raise ConnectionError("the fake upstream drops the stream")
                if reply.pause:
                    await asyncio.sleep(reply.pause)
                yield chunk({"content": piece})
            yield chunk({}, reply.finish_reason)
            if not reply.no_done:
                yield "data: [DONE]\n\n"
            self.finished += 1
        except asyncio.CancelledError:
            self.cancelled += 1
            raise


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running(app: Any, port: int = 0) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 (``port``, or a free one) in a thread; yield
    its base URL; stop it. OSError if the port is taken."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", port))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@contextmanager
def fake_upstream(*replies: Reply | str, port: int = 0) -> Iterator[FakeUpstream]:
    upstream = FakeUpstream()
    upstream.queue(*(replies or ("",)))
    with running(upstream.app(), port) as url:
        upstream.url = url + "/v1"
        yield upstream
