"""A text-only upstream's answer in, a tool-calling endpoint's answer out, sans-IO.

What ``toolparse serve`` and a wrapped client (:mod:`toolparse.openai.transport`)
share, so that a client sees the same from both: the streamed answer relayed
event by event (:class:`SSERelay`), a whole answer converted
(:func:`whole_answer`), and a whole answer to a streamed request sent as the
one chunk that streams it (:func:`whole_as_stream`). Failures are answers
too, never exceptions: OpenAI-style error bodies, or an SSE ``error`` event
mid-stream (which the SDK raises as ``APIError``). The callers do the I/O and
add what only they can fail at (timeouts, dropped connections).
"""

from __future__ import annotations

import codecs
import json
import logging
from typing import Any

from toolparse.events import valid_unicode
from toolparse.openai.calling import ToolCalling
from toolparse.openai.chunks import CompletionStream, ToolCallFailed
from toolparse.request import PreparedRequest
from toolparse.sse import DEFAULT_MAX_EVENT, DEFAULT_MAX_LINE, ServerSentEvent, SSEDecoder, SSEError

_LOG = logging.getLogger("toolparse.serve")

NOT_RETRIED = {"x-should-retry": "false"}
"""Headers of an answer the SDKs must not retry: a call the model wrote that
cannot be delivered is not a transient fault, and a retry would sample again."""


def error_body(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    """An OpenAI-style error body."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


DONE = "data: [DONE]\n\n"
"""The end of a stream, after its last chunk or its error event (as vLLM ends both)."""


def json_text(data: Any) -> str:
    """``data`` as compact JSON text that any UTF-8 encoder takes: whatever text
    reached it (the upstream's, a grammar's, an error message quoting either),
    a lone UTF-16 surrogate is U+FFFD and a pair the character it encodes
    (``ensure_ascii=False`` writes them as they are, and encoding the text would
    then fail mid-stream)."""
    return valid_unicode(json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def json_bytes(data: Any) -> bytes:
    """``data`` as a JSON body (see :func:`json_text`)."""
    return json_text(data).encode()


def sse(data: dict[str, Any]) -> str:
    """One SSE ``data:`` event."""
    return f"data: {json_text(data)}\n\n"


def sse_error(message: str, kind: str, code: str | None = None) -> str:
    """An SSE ``error`` event and ``[DONE]``: the stream's end for the client."""
    return sse(error_body(message, kind, code)) + DONE


class SSERelay:
    """The upstream's event stream (bytes, as read) in, the client's SSE text out.

    ``feed`` each read and send what it returns (everything one read completes,
    in one piece); stop when ``done``; at the end of the upstream, ``close()``.
    The upstream's keep-alive comments go on as ours; its own error event is
    passed on; malformed SSE or chunks, and ``on_error="raise"``, end the
    stream with an SSE error event. Every buffer is bounded (``max_line``,
    ``max_event`` characters).
    """

    __slots__ = ("_comments", "_converter", "_decoder", "_utf8", "done")

    def __init__(
        self,
        converter: CompletionStream,
        max_line: int = DEFAULT_MAX_LINE,
        max_event: int = DEFAULT_MAX_EVENT,
    ) -> None:
        self._converter = converter
        self._decoder = SSEDecoder(max_line, max_event)
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")  # (an event stream is UTF-8)
        self._comments = 0
        self.done = False

    def feed(self, raw: bytes) -> str:
        """SSE text for the client from one read of the upstream ('' when it completes nothing)."""
        out: list[str] = []
        try:
            events = self._decoder.feed(self._utf8.decode(raw))
            if self._decoder.dropped:
                raise SSEError(self._decoder.dropped[0][1])
            if self._relay(events, out):
                return "".join(out)
            if self._decoder.comments != self._comments and not out:
                out.append(": keep-alive\n\n")
            self._comments = self._decoder.comments
        except Exception as exc:
            return self._failed(out, exc)
        return "".join(out)

    def close(self) -> str:
        """The end of the upstream's stream: what is left, then ``[DONE]``."""
        out: list[str] = []
        try:
            events = self._decoder.feed(self._utf8.decode(b"", final=True)) + self._decoder.close()
            if not self._relay(events, out):  # (an upstream that ends without [DONE])
                self._done(out)
        except Exception as exc:
            return self._failed(out, exc)
        return "".join(out)

    def _relay(self, events: list[ServerSentEvent], out: list[str]) -> bool:
        """Convert upstream events into SSE text in ``out``; True when the stream
        is over (``[DONE]``, the upstream's error, or data that is not a chunk)."""
        converter = self._converter
        for event in events:
            data = event.data
            if data.strip() == "[DONE]":
                self._done(out)
                return True
            try:
                chunk = json.loads(data)
            except (ValueError, RecursionError):
                chunk = None
            if not isinstance(chunk, dict):
                out.append(sse_error("the upstream sent malformed SSE data", "upstream_error", "malformed"))
                self.done = True
                return True
            if "error" in chunk:  # (the upstream's own error, passed on)
                out.append(sse(chunk) + DONE)
                self.done = True
                return True
            out.extend(map(sse, converter.feed(chunk)))
        return False

    def _done(self, out: list[str]) -> None:
        out.extend(map(sse, self._converter.close()))
        out.append(DONE)
        self.done = True

    def _failed(self, out: list[str], exc: Exception) -> str:
        self.done = True
        if isinstance(exc, ToolCallFailed):
            return "".join(out) + sse_error(str(exc), "tool_call_error", exc.reason)
        if isinstance(exc, SSEError):
            return sse_error(f"the upstream sent malformed SSE: {exc}", "upstream_error", "malformed")
        _LOG.warning("the upstream's stream could not be read: %r", exc)  # (chunks of no chunk's shape)
        return "".join(out) + sse_error(
            f"the upstream sent a stream that is not chat completion chunks: {exc}",
            "upstream_error",
            "malformed",
        )


def _completion(content: bytes) -> dict[str, Any]:
    completion = json.loads(content)
    if not isinstance(completion, dict):
        raise ValueError("not an object")
    return completion


def whole_answer(
    calling: ToolCalling, prepared: PreparedRequest, content: bytes
) -> tuple[int, dict[str, Any]]:
    """(status, body) for the upstream's whole answer ``content``: its choices
    parsed, or a 502 that says why not (send it with :data:`NOT_RETRIED`)."""
    try:
        completion = _completion(content)
    except (ValueError, RecursionError):
        return 502, error_body("the upstream's answer is not a JSON object", "upstream_error", "malformed")
    try:
        return 200, calling.complete(prepared, completion)
    except ToolCallFailed as exc:
        return 502, error_body(str(exc), "tool_call_error", exc.reason)
    except Exception as exc:  # (an answer of a shape no chat completion has)
        _LOG.warning("the upstream's answer could not be read: %r", exc)
        message = f"the upstream's answer is not a chat completion: {exc}"
        return 502, error_body(message, "upstream_error", "malformed")


def whole_as_stream(calling: ToolCalling, prepared: PreparedRequest, model: Any, content: bytes) -> str:
    """A streamed request the upstream answered whole (JSON): that answer as
    the SSE text that streams it, as one chunk would have."""
    try:
        completion = _completion(content)
        if "error" in completion:
            return sse(completion) + DONE
        converter = calling.converter(prepared, model)
        out = [sse(chunk) for chunk in converter.feed(_as_chunk(completion))]
        out.extend(map(sse, converter.close()))
        out.append(DONE)
        return "".join(out)
    except ToolCallFailed as exc:
        return sse_error(str(exc), "tool_call_error", exc.reason)
    except Exception as exc:  # (an answer of a shape no chat completion has)
        _LOG.warning("the upstream's answer could not be read: %r", exc)
        return sse_error(
            f"the upstream's answer is not a chat completion: {exc}", "upstream_error", "malformed"
        )


def _as_chunk(answer: dict[str, Any]) -> dict[str, Any]:
    """A whole chat completion as the one chunk that streams it."""
    choices = []
    for choice in answer.get("choices") or ():
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            raise ValueError("a choice of the upstream's answer has no message")
        delta = {k: message[k] for k in ("content", "reasoning_content", "reasoning") if k in message}
        choices.append(
            {"index": choice.get("index", 0), "delta": delta, "finish_reason": choice.get("finish_reason")}
        )
    rest = {k: v for k, v in answer.items() if k not in ("choices", "object")}
    return {**rest, "object": "chat.completion.chunk", "choices": choices}
