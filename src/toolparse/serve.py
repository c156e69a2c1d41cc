"""``toolparse serve``: an OpenAI-compatible proxy that gives a text-only
endpoint tool calling.

Clients (the ``openai`` SDK, pydantic-ai, LangChain, instructor, LiteLLM)
send ordinary Chat Completions requests with ``tools``; the proxy shapes each
request for the text-only upstream (:class:`~toolparse.openai.calling.ToolCalling`),
parses the answer and returns ``tool_calls``, streamed (SSE) or not.
``/v1/models`` passes through. Built on Starlette and uvicorn, with httpx for
the upstream: the ``serve`` extra (``pip install 'toolparse[serve]'``).

Faults never hang a client and never stop the proxy: an upstream that refuses
the connection or times out gives an OpenAI-style error (502, 504); an
upstream error status is passed on with its body; a stream the upstream
breaks (malformed SSE or chunks, dropped connection, a timeout between
chunks) ends in an SSE ``error`` event, which the SDK raises as ``APIError``;
an answer that is not a chat completion is a 502. A client that disconnects
cancels its upstream request, streamed or not. Every buffer is bounded (see
:class:`Limits`), and no message echoes the upstream's credentials.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import warnings
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from toolparse.errors import ToolparseError
from toolparse.openai.calling import ToolCalling
from toolparse.openai.relay import (
    NOT_RETRIED,
    SSERelay,
    error_body,
    json_bytes,
    sse_error,
    whole_answer,
    whole_as_stream,
)
from toolparse.routes import Router, UnknownModelError, UpstreamRoute

if TYPE_CHECKING:
    import httpx
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

DEFAULT_MAX_BODY = 8 * 1024 * 1024
DEFAULT_TIMEOUT = 300.0
_LOG = logging.getLogger("toolparse.serve")


@dataclass(frozen=True, slots=True)
class Limits:
    """What the proxy holds or waits for at most (the README's table says what a
    client sees past each)."""

    max_body: int = DEFAULT_MAX_BODY
    """A client's request body, in bytes (past it: 413)."""
    body_timeout: float = 30.0
    """Seconds for a client to send its whole request body (past it: 408)."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds to connect to the upstream (10 at most), for its answer to begin,
    and between two of its reads (past it: 504, or an SSE error mid-stream)."""
    max_upstream_body: int = 64 * 1024 * 1024
    """A whole (non-streamed or error) upstream answer, in bytes (past it: 502)."""
    max_upstream_line: int = 16 * 1024 * 1024
    """One line of the upstream's event stream, in characters (past it: an SSE error)."""
    max_upstream_event: int = 64 * 1024 * 1024
    """One event's data (``data:`` lines with no blank line to end them), in
    characters (past it: an SSE error)."""


class _UpstreamFailed(Exception):
    """The upstream's whole answer could not be had: the status and code to tell."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


def redact(url: str) -> str:
    """``url`` without the user name and password it may carry (never shown to a client)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1]))


def is_loopback(host: str) -> bool:
    """``host`` is only reachable from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _needs_extra() -> None:
    try:
        import httpx  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise ToolparseError(
            f"toolparse serve needs the 'serve' extra ({exc.name} is missing): pip install 'toolparse[serve]'"
        ) from exc


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON answer, its text valid UTF-8 whatever it holds (:func:`~toolparse.openai.relay.json_bytes`:
    Starlette's own JSON would fail on a lone surrogate, a bare 500)."""
    from starlette.responses import Response

    return Response(json_bytes(body), status_code=status, headers=headers, media_type="application/json")


def _error(status: int, message: str, kind: str, code: str | None = None) -> Response:
    return _json(error_body(message, kind, code), status)


async def _read_bounded(response: httpx.Response, limit: int) -> bytes | None:
    """The response's body, or None past ``limit`` bytes (read no further)."""
    parts: list[bytes] = []
    total = 0
    async for part in response.aiter_bytes():
        total += len(part)
        if total > limit:
            return None
        parts.append(part)
    return b"".join(parts)


async def _unless_disconnected(request: Request, work: Awaitable[Response]) -> Response:
    """``work``'s response, or, when the client goes away first, ``work``
    cancelled (its upstream request with it) and an empty 499."""
    from starlette.responses import Response

    task = asyncio.ensure_future(work)

    async def disconnected() -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass

    watcher = asyncio.ensure_future(disconnected())
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not task.done():
            task.cancel()
        watcher.cancel()
    with suppress(asyncio.CancelledError):
        await watcher
    if task.cancelled() or not task.done():
        with suppress(asyncio.CancelledError):
            await task
        return Response(status_code=499)
    return task.result()


def create_app(
    upstream: str | Router,
    *,
    api_key: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_body: int = DEFAULT_MAX_BODY,
    calling: ToolCalling | None = None,
    client_key: str | None = None,
    limits: Limits | None = None,
) -> Starlette:
    """The proxy as an ASGI app: requests to ``upstream`` (a base URL ending
    in ``/v1``), tool calling by ``calling`` (default options). ``api_key``
    replaces the client's ``Authorization`` for the upstream. ``upstream`` may
    also be a :class:`~toolparse.routes.Router`: each request then goes where
    its ``model`` routes it, with that route's options and key, and
    ``/v1/models`` lists the routes' models. ``client_key``,
    when given, is the key every client must send (``Authorization: Bearer
    ...``); ``limits`` bound what the proxy holds and waits for (``timeout``
    and ``max_body`` set two of them, as before)."""
    _needs_extra()
    import httpx
    from starlette.applications import Starlette
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    bounds = limits if limits is not None else Limits(max_body=max_body, timeout=timeout)
    if isinstance(upstream, Router):
        if calling is not None or api_key is not None:
            raise ToolparseError("with routes, calling and api_key come from each route")
        router = upstream
    else:
        router = Router.single(upstream, calling, api_key)
    client_box: list[httpx.AsyncClient] = []

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        pool = httpx.Limits(max_connections=None, max_keepalive_connections=100)
        async with httpx.AsyncClient(
            timeout=httpx.Timeout(bounds.timeout, connect=min(bounds.timeout, 10.0)), limits=pool
        ) as client:
            client_box.append(client)
            yield
            client_box.clear()

    def headers_for(request: Request, route: UpstreamRoute) -> dict[str, str]:
        headers = {"content-type": "application/json"}
        if route.api_key is not None:
            headers["authorization"] = f"Bearer {route.api_key}"
        elif "authorization" in request.headers and client_key is None:
            headers["authorization"] = request.headers["authorization"]
        return headers

    def refused(request: Request) -> Response | None:
        """A client without the proxy's key, when it has one: 401."""
        if client_key is None:
            return None
        given = request.headers.get("authorization", "")
        if hmac.compare_digest(given.encode(), f"Bearer {client_key}".encode()):
            return None
        return _error(
            401, "a valid API key for this proxy is needed", "invalid_request_error", "invalid_api_key"
        )

    async def read_body(request: Request) -> bytes | None:
        size = int(request.headers.get("content-length") or 0)
        if size > bounds.max_body:
            return None
        parts: list[bytes] = []
        total = 0
        async for part in request.stream():
            total += len(part)
            if total > bounds.max_body:
                return None
            parts.append(part)
        return b"".join(parts)

    async def chat_completions(request: Request) -> Response:
        denied = refused(request)
        if denied is not None:
            return denied
        try:
            raw = await asyncio.wait_for(read_body(request), bounds.body_timeout)
        except TimeoutError:
            return _error(
                408,
                f"the request body did not arrive within {bounds.body_timeout:g} s",
                "invalid_request_error",
            )
        if raw is None:
            return _error(
                413, f"the request body is larger than {bounds.max_body} bytes", "invalid_request_error"
            )
        try:
            payload = json.loads(raw)
        except RecursionError:
            return _error(400, "the request body is JSON nested too deep", "invalid_request_error")
        except ValueError:
            return _error(400, "the request body is not JSON", "invalid_request_error")
        if not isinstance(payload, dict):
            return _error(400, "the request body must be a JSON object", "invalid_request_error")
        try:
            route = router.route_for(payload.get("model"))
        except UnknownModelError as exc:
            return _error(404, str(exc), "invalid_request_error", "model_not_found")
        try:
            prepared, body = route.calling.prepare(payload)
        except (ToolparseError, TypeError, ValueError) as exc:
            return _error(400, str(exc), "invalid_request_error")
        except RecursionError:
            return _error(400, "the request is nested too deep", "invalid_request_error")
        if route.upstream_model is not None:
            body["model"] = route.upstream_model
        return await _unless_disconnected(request, answer(request, route, prepared, body))

    async def answer(request: Request, route: UpstreamRoute, prepared: Any, body: dict[str, Any]) -> Response:
        client = client_box[0]
        url = f"{route.base}/chat/completions"
        shown = redact(route.base)  # (what messages to clients call the upstream)
        try:
            upstream_response = await client.send(
                client.build_request("POST", url, json=body, headers=headers_for(request, route)),
                stream=True,
            )
        except httpx.TimeoutException:
            return _error(504, f"the upstream {shown} did not answer in time", "upstream_error", "timeout")
        except httpx.HTTPError as exc:
            message = redact(str(exc)) if "@" in str(exc) else str(exc)
            return _error(
                502, f"cannot reach the upstream {shown}: {message}", "upstream_error", "unreachable"
            )
        if upstream_response.status_code >= 400:
            return await passed_on(upstream_response)
        if body.get("stream"):
            kind = upstream_response.headers.get("content-type", "")
            stream = (
                relay_whole(upstream_response, route.calling, prepared, body)  # (it ignored stream: true)
                if kind.startswith("application/json")
                else relay(upstream_response, route.calling, prepared, body)
            )
            return StreamingResponse(
                stream,
                media_type="text/event-stream",
                headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
            )
        try:
            content = await whole(upstream_response)
        except _UpstreamFailed as failure:
            return _error(failure.status, str(failure), "upstream_error", failure.code)
        status, answered = whole_answer(route.calling, prepared, content)
        return _json(answered, status, NOT_RETRIED if status != 200 else None)

    async def whole(upstream_response: httpx.Response) -> bytes:
        """The upstream's whole answer (bounded); _UpstreamFailed says why not."""
        try:
            content = await _read_bounded(upstream_response, bounds.max_upstream_body)
        except httpx.TimeoutException:
            raise _UpstreamFailed(504, "timeout", "the upstream timed out while answering") from None
        except httpx.HTTPError as exc:
            raise _UpstreamFailed(502, "dropped", f"the upstream broke off its answer: {exc}") from None
        finally:
            await upstream_response.aclose()
        if content is None:
            message = f"the upstream's answer is larger than {bounds.max_upstream_body} bytes"
            raise _UpstreamFailed(502, "too_large", message)
        return content

    async def passed_on(upstream_response: httpx.Response) -> Response:
        try:
            content = await whole(upstream_response)
        except _UpstreamFailed:
            content = b""
        try:
            data = json.loads(content)
        except (ValueError, RecursionError):
            data = None
        status = upstream_response.status_code
        if isinstance(data, dict) and "error" in data:
            return _json(data, status)
        text = content.decode("utf-8", "replace")[:500]
        return _error(status, f"the upstream answered {status}: {text}", "upstream_error", str(status))

    async def relay(
        upstream_response: httpx.Response, calling: ToolCalling, prepared: Any, body: dict[str, Any]
    ) -> AsyncIterator[str]:
        """The upstream's SSE in, the client's SSE out: what one upstream read
        completes goes out in one write."""
        relay = SSERelay(
            calling.converter(prepared, body.get("model")),
            bounds.max_upstream_line,
            bounds.max_upstream_event,
        )
        try:
            async for raw in upstream_response.aiter_bytes():
                text = relay.feed(raw)
                if text:
                    yield text
                if relay.done:
                    return
            yield relay.close()
        except httpx.TimeoutException:
            yield sse_error("the upstream stopped sending in time", "upstream_error", "timeout")
        except httpx.HTTPError as exc:
            yield sse_error(f"the upstream broke off the stream: {exc}", "upstream_error", "dropped")
        except Exception as exc:  # (a fault of ours: the client still gets an end it can read)
            _LOG.exception("the stream could not be relayed")
            yield sse_error(f"the proxy could not relay the stream: {exc!r}", "server_error", "internal")
        finally:
            await upstream_response.aclose()

    async def relay_whole(
        upstream_response: httpx.Response, calling: ToolCalling, prepared: Any, body: dict[str, Any]
    ) -> AsyncIterator[str]:
        """A streamed request the upstream answered whole (JSON): that answer,
        streamed to the client as one chunk would have been."""
        try:
            content = await whole(upstream_response)
        except _UpstreamFailed as failure:
            yield sse_error(str(failure), "upstream_error", failure.code)
            return
        yield whole_as_stream(calling, prepared, body.get("model"), content)

    async def models(request: Request) -> Response:
        client = client_box[0]
        denied = refused(request)
        if denied is not None:
            return denied
        if router.models or router.default is None:  # (routes by name: those are the models)
            listed = [{"id": name, "object": "model", "owned_by": "toolparse"} for name in router.models]
            return _json({"object": "list", "data": listed})
        route = router.default
        base, shown = route.base, redact(route.base)
        try:
            upstream_response = await client.get(f"{base}/models", headers=headers_for(request, route))
        except httpx.TimeoutException:
            return _error(504, f"the upstream {shown} did not answer in time", "upstream_error", "timeout")
        except httpx.HTTPError as exc:
            return _error(502, f"cannot reach the upstream {shown}: {exc}", "upstream_error", "unreachable")
        return Response(
            upstream_response.content,
            status_code=upstream_response.status_code,
            media_type=upstream_response.headers.get("content-type", "application/json"),
        )

    async def not_found(request: Request) -> Response:
        return _error(
            404, f"no route {request.method} {request.url.path} on this proxy", "invalid_request_error"
        )

    routes = [
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        Route("/chat/completions", chat_completions, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/models", models, methods=["GET"]),
    ]

    async def no_route(request: Request, exc: Exception) -> Response:
        return await not_found(request)

    return Starlette(routes=routes, lifespan=lifespan, exception_handlers={404: no_route, 405: no_route})


def serve(
    upstream: str | Router,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    api_key: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_body: int = DEFAULT_MAX_BODY,
    calling: ToolCalling | None = None,
    log_level: str = "info",
    client_key: str | None = None,
    limits: Limits | None = None,
) -> None:
    """Run the proxy with uvicorn until interrupted."""
    _needs_extra()
    import uvicorn

    keyed = api_key is not None or (isinstance(upstream, Router) and any(r.api_key for r in upstream.all()))
    if keyed and client_key is None and not is_loopback(host):
        warnings.warn(
            f"toolparse serve listens on {host} with an upstream API key and no client key: anyone who "
            "can reach the port spends the key (set --client-key-env)",
            stacklevel=2,
        )
    app = create_app(
        upstream,
        api_key=api_key,
        timeout=timeout,
        max_body=max_body,
        calling=calling,
        client_key=client_key,
        limits=limits,
    )
    uvicorn.run(app, host=host, port=port, log_level=log_level)
