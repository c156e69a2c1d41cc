"""An ``openai`` client that gives a text-only endpoint tool calling.

``wrap(client)`` returns an object used like the client: its
``chat.completions.create(messages=..., tools=..., tool_choice=..., stream=...)``
shapes the request with :func:`~toolparse.prepare_request` (the tools in the
system prompt, past calls and results as the grammar's text), sends it without
the tool fields, parses the answer, and returns what a tool-calling endpoint
would have returned: ``ChatCompletion`` objects, or a stream of
``ChatCompletionChunk`` objects. Everything else is the client's own.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from toolparse.engine.declare import Reasoning
from toolparse.errors import InvalidOptionError
from toolparse.openai.calling import ToolCalling
from toolparse.openai.chunks import CompletionStream
from toolparse.openai.types import as_chunk, as_completion, chunk_dict, response_dict
from toolparse.request import DEFAULT_TEMPLATE


def wrap(
    client: Any,
    *,
    grammar: str = "hermes",
    reasoning: str | Reasoning | None = "auto",
    mode: str = "validated",
    on_error: str = "content",
    past_reasoning: str = "current",
    system_template: str | Callable[[str], str] = DEFAULT_TEMPLATE,
    response_format: bool = True,
    **parser_options: Any,
) -> Any:
    """``client`` (an ``openai.OpenAI`` or ``openai.AsyncOpenAI``, or any object
    with the same ``chat.completions.create``) with tool calling done here.

    ``grammar`` and ``reasoning`` say how the model writes calls and thinks;
    ``mode`` (``"validated"`` or ``"progressive"``) and ``on_error``
    (``"content"``, ``"drop"``, ``"raise"``) how calls reach the caller (see
    :mod:`toolparse.openai.chunks`); ``past_reasoning`` and ``system_template``
    go to :func:`~toolparse.prepare_request`; ``response_format=False`` does
    not send a forced choice's JSON schema (for endpoints that reject it).
    Other keywords are :class:`~toolparse.StreamParser` options
    (``max_call_chars``, ``coerce``...).
    """
    create = getattr(getattr(getattr(client, "chat", None), "completions", None), "create", None)
    if not callable(create):
        raise InvalidOptionError(
            f"{type(client).__name__} has no chat.completions.create: not an OpenAI client"
        )
    settings = ToolCalling(
        grammar=grammar,
        reasoning=reasoning,
        mode=mode,
        on_error=on_error,
        past_reasoning=past_reasoning,
        system_template=system_template,
        response_format=response_format,
        **parser_options,
    )
    if inspect.iscoroutinefunction(inspect.unwrap(create)):
        return AsyncWrappedClient(client, settings)
    return WrappedClient(client, settings)


class _Wrapped:
    """Attribute access goes to the wrapped object, but for what is replaced."""

    __slots__ = ("_inner",)

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class WrappedClient(_Wrapped):
    """A sync client whose ``chat.completions.create`` does tool calling (see :func:`wrap`)."""

    __slots__ = ("chat",)

    def __init__(self, client: Any, settings: ToolCalling) -> None:
        super().__init__(client)
        self.chat = _Chat(client.chat, _Completions(client.chat.completions, settings))


class AsyncWrappedClient(_Wrapped):
    """An async client whose ``chat.completions.create`` does tool calling (see :func:`wrap`)."""

    __slots__ = ("chat",)

    def __init__(self, client: Any, settings: ToolCalling) -> None:
        super().__init__(client)
        self.chat = _Chat(client.chat, _AsyncCompletions(client.chat.completions, settings))


class _Chat(_Wrapped):
    __slots__ = ("completions",)

    def __init__(self, chat: Any, completions: Any) -> None:
        super().__init__(chat)
        self.completions = completions


class _CompletionsBase(_Wrapped):
    __slots__ = ("_settings",)

    def __init__(self, completions: Any, settings: ToolCalling) -> None:
        super().__init__(completions)
        self._settings = settings

    def stream(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "the wrapped client does tool calling in chat.completions.create(stream=True); "
            "its .stream() and .parse() helpers would bypass it"
        )

    parse = stream


class _Completions(_CompletionsBase):
    __slots__ = ()

    def create(self, **request: Any) -> Any:
        """As the SDK's ``create``, with tool calling done here (see :func:`wrap`)."""
        prepared, body = self._settings.prepare(request)
        upstream = self._inner.create(**body)
        if body.get("stream"):
            return ToolCallStream(upstream, self._settings.converter(prepared, body.get("model")))
        return as_completion(self._settings.complete(prepared, response_dict(upstream)))


class _AsyncCompletions(_CompletionsBase):
    __slots__ = ()

    async def create(self, **request: Any) -> Any:
        """As the SDK's ``create``, with tool calling done here (see :func:`wrap`)."""
        prepared, body = self._settings.prepare(request)
        upstream = await self._inner.create(**body)
        if body.get("stream"):
            return AsyncToolCallStream(upstream, self._settings.converter(prepared, body.get("model")))
        return as_completion(self._settings.complete(prepared, response_dict(upstream)))


class ToolCallStream:
    """The chunks of a streamed answer, as a tool-calling endpoint sends them.

    Iterate it (or use it in a ``with`` block); ``close()`` closes the
    upstream response. ``response`` is the upstream's HTTP response.
    """

    def __init__(self, upstream: Any, converter: CompletionStream) -> None:
        self._upstream = upstream
        self._converter = converter
        self._chunks = self._run()

    @property
    def response(self) -> Any:
        return getattr(self._upstream, "response", None)

    def _run(self) -> Iterator[Any]:
        converter = self._converter
        try:
            for chunk in self._upstream:
                for out in converter.feed(chunk_dict(chunk)):
                    yield as_chunk(out)
            for out in converter.close():
                yield as_chunk(out)
        finally:
            self.close()

    def __iter__(self) -> Iterator[Any]:
        return self._chunks

    def __next__(self) -> Any:
        return next(self._chunks)

    def close(self) -> None:
        close = getattr(self._upstream, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> ToolCallStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncToolCallStream:
    """The async form of :class:`ToolCallStream` (``async for``, ``async with``)."""

    def __init__(self, upstream: Any, converter: CompletionStream) -> None:
        self._upstream = upstream
        self._converter = converter
        self._chunks = self._run()

    @property
    def response(self) -> Any:
        return getattr(self._upstream, "response", None)

    async def _run(self) -> AsyncIterator[Any]:
        converter = self._converter
        try:
            async for chunk in self._upstream:
                for out in converter.feed(chunk_dict(chunk)):
                    yield as_chunk(out)
            for out in converter.close():
                yield as_chunk(out)
        finally:
            await self.close()

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._chunks

    async def __anext__(self) -> Any:
        return await self._chunks.__anext__()

    async def close(self) -> None:
        close = getattr(self._upstream, "close", None)
        if close is not None:
            result = close()
            if inspect.isawaitable(result):
                await result

    async def __aenter__(self) -> AsyncToolCallStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
