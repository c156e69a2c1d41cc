"""Tool calling at the HTTP layer of an ``openai`` client.

:func:`~toolparse.openai.wrap` gives the client an HTTP client whose transport
is :class:`ToolCallingTransport` (or its async twin). Every chat completion
request the SDK sends, by whatever path (``create``, ``with_raw_response``,
``with_streaming_response``, ``.stream()``, ``.parse()``, a copy made with
``with_options``), passes through it: the request is shaped for the
text-only endpoint (:class:`~toolparse.openai.calling.ToolCalling`), sent on
through the client's own HTTP client (its pool, proxies and hooks), and the
answer converted by the same sans-IO code as ``toolparse serve``
(:mod:`toolparse.openai.relay`), so that a wrapped client sees what a client
of the proxy sees. Every other request passes through untouched.

The SDK may use ``httpx`` or its successor ``httpx2``: the transport is
built for whichever module the client's HTTP client comes from.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import Any

from toolparse.errors import ToolparseError
from toolparse.openai.calling import ToolCalling
from toolparse.openai.relay import (
    NOT_RETRIED,
    SSERelay,
    error_body,
    json_bytes,
    whole_answer,
    whole_as_stream,
)
from toolparse.request import PreparedRequest

_PASSED_ON = ("content-length", "content-encoding", "transfer-encoding", "content-type")
"""Headers of the upstream's answer that do not describe the converted one."""


def httpx_module(http_client: Any) -> tuple[ModuleType, bool] | None:
    """(the ``httpx``-like module, is async) of an SDK's HTTP client, or None
    when it is not an ``httpx``/``httpx2`` ``Client`` or ``AsyncClient``."""
    for cls in type(http_client).__mro__:
        package = cls.__module__.partition(".")[0]
        if cls.__name__ in ("Client", "AsyncClient") and package in ("httpx", "httpx2"):
            return sys.modules[package], cls.__name__ == "AsyncClient"
    return None


class _Shaped:
    """A chat completion request, shaped for the upstream."""

    __slots__ = ("body", "prepared", "request")

    def __init__(self, prepared: PreparedRequest, body: dict[str, Any], request: Any) -> None:
        self.prepared = prepared
        self.body = body
        self.request = request


class _TransportBase:
    __slots__ = ("_calling", "_http", "inner")

    def __init__(self, inner: Any, calling: ToolCalling, http: ModuleType) -> None:
        self.inner = inner
        """The client's own HTTP client, which sends every request on."""
        self._calling = calling
        self._http = http

    def _shape(self, request: Any) -> _Shaped | Any | None:
        """The request shaped (a :class:`_Shaped`), the 400 that says why it
        cannot be, or None for a request that is not a chat completion."""
        if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
            return None
        try:
            payload = json.loads(request.content)
        except (ValueError, RecursionError):
            return None  # (not ours to judge: the upstream answers it)
        if not isinstance(payload, dict):
            return None
        try:
            prepared, body = self._calling.prepare(payload)
        except (ToolparseError, TypeError, ValueError) as exc:
            return self._json(400, error_body(str(exc), "invalid_request_error"))
        except RecursionError:
            return self._json(400, error_body("the request is nested too deep", "invalid_request_error"))
        headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() != "content-length"]
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        shaped = self._http.Request(
            request.method, request.url, headers=headers, content=content, extensions=request.extensions
        )
        return _Shaped(prepared, body, shaped)

    def _json(self, status: int, body: dict[str, Any], upstream: Any = None) -> Any:
        headers = _kept(upstream)
        if status != 200:
            headers.update(NOT_RETRIED)
        headers["content-type"] = "application/json"
        return self._http.Response(status, headers=headers, content=json_bytes(body))

    def _whole(self, shaped: _Shaped, upstream: Any, content: bytes) -> Any:
        if shaped.body.get("stream"):  # (an upstream that ignored stream: true)
            text = whole_as_stream(self._calling, shaped.prepared, shaped.body.get("model"), content)
            return self._sse(upstream, content=text.encode())
        status, answered = whole_answer(self._calling, shaped.prepared, content)
        return self._json(status, answered, upstream)

    def _sse(self, upstream: Any, **body: Any) -> Any:
        headers = {**_kept(upstream), "content-type": "text/event-stream", "cache-control": "no-cache"}
        return self._http.Response(200, headers=headers, **body)

    def _relay(self, shaped: _Shaped) -> SSERelay:
        return SSERelay(self._calling.converter(shaped.prepared, shaped.body.get("model")))

    def _passed_on(self, upstream: Any) -> Any:
        return self._http.Response(
            upstream.status_code,
            headers=upstream.headers,
            stream=upstream.stream,
            extensions=upstream.extensions,
        )


def _kept(upstream: Any) -> dict[str, str]:
    if upstream is None:
        return {}
    return {k: v for k, v in upstream.headers.items() if k.lower() not in _PASSED_ON}


def _streamed(upstream: Any) -> bool:
    return not upstream.headers.get("content-type", "").startswith("application/json")


class ToolCallingTransport(_TransportBase):
    """The sync transport (see the module's docstring)."""

    __slots__ = ()

    def handle_request(self, request: Any) -> Any:
        request.read()
        shaped = self._shape(request)
        if shaped is None:
            return self._passed_on(self.inner.send(request, stream=True))
        if not isinstance(shaped, _Shaped):
            return shaped
        upstream = self.inner.send(shaped.request, stream=True)
        if upstream.status_code >= 400:
            return self._passed_on(upstream)
        if shaped.body.get("stream") and _streamed(upstream):
            relay = self._relay(shaped)
            stream = _byte_streams(self._http)[0](_relayed(relay, upstream), upstream)
            return self._sse(upstream, stream=stream)
        try:
            content = upstream.read()
        finally:
            upstream.close()
        return self._whole(shaped, upstream, content)

    def close(self) -> None:
        self.inner.close()

    def __enter__(self) -> ToolCallingTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncToolCallingTransport(_TransportBase):
    """The async transport (see the module's docstring)."""

    __slots__ = ()

    async def handle_async_request(self, request: Any) -> Any:
        await request.aread()
        shaped = self._shape(request)
        if shaped is None:
            return self._passed_on(await self.inner.send(request, stream=True))
        if not isinstance(shaped, _Shaped):
            return shaped
        upstream = await self.inner.send(shaped.request, stream=True)
        if upstream.status_code >= 400:
            return self._passed_on(upstream)
        if shaped.body.get("stream") and _streamed(upstream):
            relay = self._relay(shaped)
            stream = _byte_streams(self._http)[1](_arelayed(relay, upstream), upstream)
            return self._sse(upstream, stream=stream)
        try:
            content = await upstream.aread()
        finally:
            await upstream.aclose()
        return self._whole(shaped, upstream, content)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> AsyncToolCallingTransport:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _relayed(relay: SSERelay, upstream: Any) -> Iterator[bytes]:
    """The client's SSE from the upstream's; a network fault reaches the SDK
    as it would unwrapped."""
    for raw in upstream.iter_bytes():
        text = relay.feed(raw)
        if text:
            yield text.encode()
        if relay.done:
            return
    yield relay.close().encode()


async def _arelayed(relay: SSERelay, upstream: Any) -> AsyncIterator[bytes]:
    async for raw in upstream.aiter_bytes():
        text = relay.feed(raw)
        if text:
            yield text.encode()
        if relay.done:
            return
    yield relay.close().encode()


@functools.cache
def _byte_streams(http: ModuleType) -> tuple[type, type]:
    """Response body classes of ``http``'s kinds (its client checks them), which
    close the upstream's answer with their own."""

    class RelayedStream(http.SyncByteStream):  # type: ignore[name-defined,misc]
        def __init__(self, chunks: Iterator[bytes], upstream: Any) -> None:
            self._chunks = chunks
            self._upstream = upstream

        def __iter__(self) -> Iterator[bytes]:
            return self._chunks

        def close(self) -> None:
            try:
                self._chunks.close()  # type: ignore[attr-defined]
            finally:
                self._upstream.close()

    class AsyncRelayedStream(http.AsyncByteStream):  # type: ignore[name-defined,misc]
        def __init__(self, chunks: AsyncIterator[bytes], upstream: Any) -> None:
            self._chunks = chunks
            self._upstream = upstream

        def __aiter__(self) -> AsyncIterator[bytes]:
            return self._chunks

        async def aclose(self) -> None:
            try:
                await self._chunks.aclose()  # type: ignore[attr-defined]
            finally:
                await self._upstream.aclose()

    return RelayedStream, AsyncRelayedStream
