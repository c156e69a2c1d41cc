"""An ``openai`` client that gives a text-only endpoint tool calling.

``wrap(client)`` returns a copy of the client (an ``openai.OpenAI`` or
``openai.AsyncOpenAI``, of its own class) whose chat completion requests,
by every path the SDK has (``create``, ``with_raw_response``,
``with_streaming_response``, ``.stream()``, ``.parse()``, further copies),
are shaped with :func:`~toolparse.prepare_request` (the tools in the system
prompt, past calls and results as the grammar's text), sent without the
tool fields, and answered as a tool-calling endpoint would: the work is done
in the copy's HTTP transport (:mod:`toolparse.openai.transport`), by the
same code as ``toolparse serve``. Everything else is the client's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolparse.engine.declare import Reasoning
from toolparse.errors import InvalidOptionError
from toolparse.openai.calling import ToolCalling
from toolparse.openai.transport import AsyncToolCallingTransport, ToolCallingTransport, httpx_module
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
    """A copy of ``client`` (an ``openai.OpenAI`` or ``openai.AsyncOpenAI``,
    Azure's included) with tool calling done here: a genuine client of the
    same class, so that instructor, LangChain and pydantic-ai take it as one.

    ``grammar`` and ``reasoning`` say how the model writes calls and thinks;
    ``mode`` (``"validated"`` or ``"progressive"``) and ``on_error``
    (``"content"``, ``"drop"``, ``"raise"``) how calls reach the caller (see
    :mod:`toolparse.openai.chunks`); ``past_reasoning`` and ``system_template``
    go to :func:`~toolparse.prepare_request`; ``response_format=False`` does
    not send a forced choice's JSON schema (for endpoints that reject it).
    ``reasoning_field`` (``"both"``, the default, ``"reasoning_content"`` or
    ``"reasoning"``) names the message field reasoning goes in, and
    ``extra_calls`` (``"drop"``, the default, or ``"content"``) what becomes
    of the calls past the first under ``parallel_tool_calls: false`` (see
    :class:`~toolparse.openai.chunks.ChoiceStream`). Each request's own
    thinking switch (``chat_template_kwargs`` ``enable_thinking`` or
    ``thinking``, Ollama's ``think``) adjusts ``reasoning`` for that request
    (:func:`~toolparse.request.reasoning_state`).
    Other keywords are :class:`~toolparse.StreamParser` options
    (``max_call_chars``, ``coerce``...).

    The copy answers as a client of ``toolparse serve`` is answered: a
    request toolparse cannot shape is a ``BadRequestError``; with
    ``on_error="raise"``, a failed call is an ``InternalServerError`` (502,
    ``code`` the reason, never retried) or, mid-stream, an ``APIError``.
    Wrapping a wrapped client replaces its options. ``close()`` closes the
    client's HTTP client too.
    """
    http_client = getattr(client, "_client", None)
    kind = httpx_module(http_client)
    if kind is None or not callable(getattr(client, "with_options", None)):
        raise InvalidOptionError(
            f"{type(client).__name__} is not an openai.OpenAI or openai.AsyncOpenAI client"
        )
    http, is_async = kind
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
    transport = getattr(http_client, "_transport", None)
    if isinstance(transport, ToolCallingTransport | AsyncToolCallingTransport):  # (wrapped before)
        http_client = transport.inner
    if is_async:
        return client.with_options(
            http_client=http.AsyncClient(transport=AsyncToolCallingTransport(http_client, settings, http))
        )
    return client.with_options(
        http_client=http.Client(transport=ToolCallingTransport(http_client, settings, http))
    )
