"""A parser's events as OpenAI Chat Completions: streamed chunks and whole responses.

Sans-IO, plain dicts in and out (the ``openai`` package is not needed here).
:class:`CompletionStream` reads an upstream text-only stream's
chunks and writes the chunks a tool-calling endpoint would have sent;
:func:`complete` does the same for a whole (non-streamed) response, through
the same code, so a client that accumulates the stream gets exactly the
message the non-streamed response holds.

Two modes:

``"validated"`` (default)
    A call goes out in one chunk (``id``, ``name`` and the whole ``arguments``)
    once it is complete, known and valid: a client never receives a call the
    parser rejected. Text and reasoning still stream at once.
``"progressive"``
    A call's name goes out when it is known and its arguments as they
    arrive (for live display of long arguments). A call that then fails has
    already reached the client: its ``tool_calls`` entry keeps the arguments
    streamed so far, possibly incomplete JSON, and what ``on_error`` says
    follows. Clients must check the arguments before running such a call.

A call that fails (a :class:`~toolparse.ToolCallError`, or a call that is not
valid) becomes, by ``on_error``: ``"content"`` (default: its raw markup as
visible content, as the model wrote it), ``"drop"`` (nothing), ``"raise"``
(:class:`ToolCallFailed`) or ``"call"``: a call all the same, as a native
endpoint lets a model call a tool that does not exist, so that the client
framework's own repair runs (pydantic-ai retries an unknown tool, the AI
SDK has ``repairToolCall``). Its arguments are the call's arguments JSON
where they were read (a call to an unknown tool, a call its schema
rejects), else the model's raw text, which is not JSON; its entry also
carries ``"toolparse": {"error": REASON, "message": ...}``, a field clients
ignore. Markup with no readable name stays content.

Valid means: the tool's pydantic model (if any) accepts the arguments, every
``required`` argument is there, and coercion kept no value its schema does not
admit (no ``"kept as is"`` in the call's ``issues``).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from toolparse.errors import InvalidOptionError, ToolparseError
from toolparse.events import (
    ErrorReason,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallError,
    ToolCallStart,
)
from toolparse.parser import StreamParser
from toolparse.tools import Tool

MODES = ("validated", "progressive")
ON_ERROR = ("content", "drop", "raise", "call")
REASONING_FIELDS = ("both", "reasoning_content", "reasoning")
"""Where reasoning goes: ``reasoning_content`` (SGLang, DeepSeek, vLLM before
0.33), ``reasoning`` (vLLM 0.33, OpenRouter), or both (each client reads the
one it knows)."""
EXTRA_CALLS = ("drop", "content")
"""What becomes of a call past the first under ``parallel_tool_calls: false``."""


class ToolCallFailed(ToolparseError):
    """``on_error="raise"``: the model's call could not be delivered.

    ``event`` is the :class:`~toolparse.ToolCallError`, or the
    :class:`~toolparse.ToolCall` that was not valid; ``reason`` and the
    message say why.
    """

    def __init__(self, event: ToolCall | ToolCallError, reason: str, message: str) -> None:
        super().__init__(f"the model's tool call failed ({reason}): {message}")
        self.event = event
        self.reason = reason


class MalformedChunkError(ToolparseError, ValueError):
    """An upstream chunk is not of the shape a chat completion chunk has
    (``choices`` not a list of objects with an integer ``index`` and an object
    ``delta``): the server sent something else."""


def check_options(
    mode: str, on_error: str, reasoning_field: str | None = "both", extra_calls: str = "drop"
) -> None:
    """Raise :class:`~toolparse.InvalidOptionError` for a mode, on_error,
    reasoning_field or extra_calls not known."""
    if mode not in MODES:
        raise InvalidOptionError(f"mode must be one of {', '.join(map(repr, MODES))}, not {mode!r}")
    if on_error not in ON_ERROR:
        raise InvalidOptionError(
            f"on_error must be one of {', '.join(map(repr, ON_ERROR))}, not {on_error!r}"
        )
    if reasoning_field is not None and reasoning_field not in REASONING_FIELDS:
        raise InvalidOptionError(
            f"reasoning_field must be one of {', '.join(map(repr, REASONING_FIELDS))}, "
            f"not {reasoning_field!r}"
        )
    if extra_calls not in EXTRA_CALLS:
        raise InvalidOptionError(
            f"extra_calls must be one of {', '.join(map(repr, EXTRA_CALLS))}, not {extra_calls!r}"
        )


def call_problem(call: ToolCall, tool: Tool | None) -> str | None:
    """Why ``call`` is not valid for ``tool`` (None: it is)."""
    if call.validation_error is not None:
        return call.validation_error
    if tool is not None:
        required = tool.parameters.get("required", [])
        missing = [name for name in required if name not in call.arguments]
        if missing:
            return f"missing required argument(s): {', '.join(missing)}"
    for issue in call.issues:
        if getattr(issue, "action", "") == "kept as is":
            return f"an argument its schema does not admit: {issue}"
    return None


class ChoiceStream:
    """One choice of a chat completion: model text in, ``delta`` dicts out.

    ``parallel=False`` (a request's ``parallel_tool_calls: false``): one call
    at most, the first complete and valid one in validated mode, the first
    that starts in progressive mode, as vLLM delivers only the first; each
    later call is dropped (``extra_calls="drop"``, the default: the client
    asked for one call, and the model's others are neither run nor shown), or
    handled as a failed call (``extra_calls="content"``: by ``on_error``,
    reason ``parallel_tool_calls``; its raw markup visible by default).

    ``reasoning_field`` names the delta field reasoning goes in:
    ``"both"`` (default: ``reasoning_content``, as SGLang, DeepSeek and vLLM
    before 0.33 write it, and ``reasoning``, as vLLM 0.33 does, each client
    reading the one it knows), ``"reasoning_content"`` or ``"reasoning"``;
    None leaves reasoning the parser reads in the content as the model wrote
    it, markers included (a call drafted in it is still never read).
    With a reasoning field, the whitespace that begins the answer after a
    reasoning block is not content (``"</think>\n\nSure."`` answers
    ``"Sure."``, as vLLM and SGLang answer).
    Trailing whitespace of the content is held until more content comes; at
    the end it is dropped when calls were delivered (models pad calls with
    newlines), so the content is the same streamed or not, however the
    deltas fall.
    """

    __slots__ = (
        "_after_reasoning",
        "_answer_parser",
        "_both",
        "_calls",
        "_extra_calls",
        "_mode",
        "_on_error",
        "_parallel",
        "_parser",
        "_pending_space",
        "_reasoning_field",
        "_role_sent",
        "_shown",
        "_started",
        "delivered",
    )

    def __init__(
        self,
        parser: StreamParser,
        *,
        mode: str = "validated",
        on_error: str = "content",
        reasoning_field: str | None = "both",
        parallel: bool = True,
        extra_calls: str = "drop",
        answer_parser: Callable[[], StreamParser | None] | None = None,
    ) -> None:
        check_options(mode, on_error, reasoning_field, extra_calls)
        if type(parallel) is not bool:
            raise InvalidOptionError(f"parallel must be True or False, not {parallel!r}")
        self._parser = parser
        self._answer_parser = answer_parser
        self._mode = mode
        self._on_error = on_error
        self._parallel = parallel
        self._extra_calls = extra_calls
        self._both = reasoning_field == "both"
        # (the field the deltas are gathered in; "both" copies it to "reasoning" once a delta is whole)
        self._reasoning_field = "reasoning_content" if self._both else reasoning_field
        self._after_reasoning = False  # (a reasoning block ended and no visible content followed yet)
        self._shown = False  # (visible content has gone out)
        self._role_sent = False
        self._pending_space: list[str] = []  # trailing whitespace, held (parts, joined once)
        self._started: dict[int, int] = {}  # parser index -> OpenAI index (progressive)
        self._calls = parser.tools
        self.delivered = 0
        """Calls sent to the client so far (their OpenAI indices are 0, 1, ...)."""

    def content(self, text: str) -> list[dict[str, Any]]:
        """The model's next text: parsed, as deltas."""
        if not text:
            return []
        self._answer_parser = None  # (the parser has begun: it stays)
        return self._convert(self._parser.feed(text))

    def reasoning(self, text: str) -> list[dict[str, Any]]:
        """Reasoning the upstream already separated: passed on as it is. The
        content after it is then the answer (``answer_parser``, when given and
        no content came before: a prompt that opened the thought does not
        make the upstream's answer reasoning)."""
        if not text:
            return []
        if self._answer_parser is not None:
            answer = self._answer_parser()
            self._answer_parser = None
            if answer is not None:
                self._parser = answer
        field = self._reasoning_field
        if field is None:  # (as content, never read for calls)
            return self._with_role([{"content": text}])
        self._reasoned()
        return self._with_role([self._copied({field: text})])

    def finish(self, finish_reason: str | None = None) -> tuple[list[dict[str, Any]], str]:
        """End of the choice: the last deltas and the finish reason to send."""
        deltas = self._convert(self._parser.close())
        if self._pending_space and not self.delivered:
            deltas = self._with_role([*deltas, {"content": "".join(self._pending_space)}])
        self._pending_space.clear()
        if self.delivered:
            return deltas, "tool_calls"
        if finish_reason in ("length", "content_filter"):
            return deltas, finish_reason
        return deltas, "stop"

    # -- events to deltas -----------------------------------------------------------------

    def _convert(self, events: list[Event]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for event in events:
            kind = type(event)
            if kind is TextDelta:
                assert isinstance(event, TextDelta)
                self._text(event.text, out)
            elif kind is ReasoningDelta:
                assert isinstance(event, ReasoningDelta)
                if self._reasoning_field is None:
                    self._text(event.raw, out)
                else:
                    self._reasoned()
                    if event.text:
                        _append(out, self._reasoning_field, event.text)
            elif kind is ToolCall:
                assert isinstance(event, ToolCall)
                self._call(event, out)
            elif kind is ToolCallError:
                assert isinstance(event, ToolCallError)
                self._failed(event, event.reason, event.message, event.index, out)
            elif self._mode == "progressive":
                self._progress(event, out)
        for delta in out:  # (text gathered in parts: see _append)
            for field, value in delta.items():
                if type(value) is _Parts:
                    delta[field] = "".join(value)
            if self._both:
                self._copied(delta)
        return self._with_role(out)

    def _reasoned(self) -> None:
        """Reasoning went out: the whitespace that begins the answer after it is not content
        (nor is whitespace held before it, when no content has gone out yet)."""
        self._after_reasoning = True
        if not self._shown:
            self._pending_space.clear()

    def _copied(self, delta: dict[str, Any]) -> dict[str, Any]:
        """``delta`` with its reasoning in both fields, for ``reasoning_field="both"``."""
        if self._both and "reasoning_content" in delta:
            delta["reasoning"] = delta["reasoning_content"]
        return delta

    def _text(self, text: str, out: list[dict[str, Any]]) -> None:
        if self._after_reasoning:  # (the answer after reasoning begins at its first visible character)
            text = text.lstrip()
            if not text:
                return
            self._after_reasoning = False
        # (trailing whitespace waits for more text, wherever the deltas cut it)
        body = text.rstrip()
        pending = self._pending_space
        if not body:
            pending.append(text)  # (parts, joined once: one += per delta was quadratic)
            return
        self._shown = True
        if pending:
            _append(out, "content", "".join(pending))
            pending.clear()
        _append(out, "content", body)
        if len(body) < len(text):
            pending.append(text[len(body) :])

    def _call(self, call: ToolCall, out: list[dict[str, Any]]) -> None:
        tool = self._calls.get(call.name) if self._calls is not None else None
        problem = call_problem(call, tool)
        if self._mode == "progressive" and call.index in self._started:
            if problem is not None:  # (its name and arguments have gone out already)
                self._failed(call, "invalid_arguments", problem, call.index, out)
        elif problem is not None:
            self._failed(call, "invalid_arguments", problem, call.index, out)
        elif not self._parallel and self.delivered:
            self._failed(call, "parallel_tool_calls", _ONE_CALL, call.index, out)
        else:  # (validated, or a call whose start was not sent: whole, in one chunk)
            self._deliver(call.id, call.name, call.arguments_json, out)

    def _deliver(
        self, call_id: str, name: str, arguments: str, out: list[dict[str, Any]], **extra: Any
    ) -> None:
        """A whole call out, in one chunk, as the next call."""
        entry = {
            "index": self.delivered,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": arguments},
            **extra,
        }
        self.delivered += 1
        out.append({"tool_calls": [entry]})

    def _progress(self, event: Event, out: list[dict[str, Any]]) -> None:
        if isinstance(event, ToolCallStart):
            if not self._parallel and self.delivered:
                return  # (parallel_tool_calls false: a second call is never started)
            self._started[event.index] = self.delivered
            entry = {
                "index": self.delivered,
                "id": event.id,
                "type": "function",
                "function": {"name": event.name, "arguments": ""},
            }
            self.delivered += 1
            out.append({"tool_calls": [entry]})
        elif isinstance(event, ToolCallDelta) and event.arguments_delta and event.index in self._started:
            index = self._started[event.index]
            last = out[-1].get("tool_calls") if out else None
            if last and last[-1]["index"] == index:  # (one entry per call per chunk)
                last[-1]["function"]["arguments"] += event.arguments_delta
            else:
                out.append(
                    {"tool_calls": [{"index": index, "function": {"arguments": event.arguments_delta}}]}
                )

    def _failed(
        self,
        event: ToolCall | ToolCallError,
        reason: str,
        message: str,
        index: int | None,
        out: list[dict[str, Any]],
    ) -> None:
        if (
            not self._parallel
            and self.delivered
            and self._extra_calls == "drop"
            and (index is None or index not in self._started)
        ):
            return  # (one call was asked for and has gone out: the model's others, whole or broken, go)
        if self._on_error == "raise":
            raise ToolCallFailed(event, reason, message)
        if (
            self._on_error == "call"
            and reason not in _NEVER_AS_CALLS
            and self._as_call(event, reason, message, out)
        ):
            return
        if self._on_error in ("content", "call") and event.raw:
            self._text(event.raw, out)

    def _as_call(
        self, event: ToolCall | ToolCallError, reason: str, message: str, out: list[dict[str, Any]]
    ) -> bool:
        """``on_error="call"``: a failed call delivered as a call, marked (False: it has no name)."""
        if not event.name or (not self._parallel and self.delivered):
            return False  # (no name to call; or one call has gone out and only one may)
        if event.index is not None and event.index in self._started:
            return True  # (progressive: its name and arguments went out already)
        if isinstance(event, ToolCall):
            arguments = event.arguments_json
        elif event.arguments is not None:
            arguments = json.dumps(event.arguments, ensure_ascii=False, separators=(",", ":"))
        else:
            arguments = event.raw  # (unreadable: the model's text, for the client's repair)
        call_id = event.id or f"call_{uuid.uuid4().hex[:24]}"
        self._deliver(call_id, event.name, arguments, out, toolparse={"error": reason, "message": message})
        return True

    def _with_role(self, deltas: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if deltas and not self._role_sent:
            self._role_sent = True
            deltas[0] = {"role": "assistant", **deltas[0]}
        return deltas


_ONE_CALL = "parallel_tool_calls is false: only the first call is delivered"
_NEVER_AS_CALLS = ("parallel_tool_calls", ErrorReason.CALL_IN_UNCLOSED_REASONING)
"""Failures ``on_error="call"`` never delivers as calls: one call was asked
for; a call drafted in reasoning runs only by ``reasoning_calls="salvage"``."""


class _Parts(list[str]):
    """A delta's text while it is gathered (joined once the conversion ends: one
    ``+=`` per event was quadratic in a delta of many lines)."""


def _append(out: list[dict[str, Any]], field: str, text: str) -> None:
    """Text for ``field``, joined to the delta before it when that is of the same kind."""
    if not text:
        return
    if out and set(out[-1]) == {field}:
        value = out[-1][field]
        if type(value) is _Parts:
            value.append(text)
        else:
            out[-1][field] = _Parts((value, text))
    else:
        out.append({field: text})


class CompletionStream:
    """An upstream text-only stream's chunks (dicts) in, a tool-calling
    endpoint's chunks out. One parser per choice, made by ``new_parser``."""

    __slots__ = ("_envelope", "_finished", "_new_parser", "_options", "_streams")

    def __init__(
        self,
        new_parser: Callable[[], StreamParser],
        *,
        mode: str = "validated",
        on_error: str = "content",
        reasoning_field: str = "both",
        model: str = "",
        parallel: bool = True,
        extra_calls: str = "drop",
        answer_parser: Callable[[], StreamParser | None] | None = None,
    ) -> None:
        check_options(mode, on_error, reasoning_field, extra_calls)
        self._new_parser = new_parser
        self._options: dict[str, Any] = {
            "mode": mode,
            "on_error": on_error,
            "reasoning_field": reasoning_field,
            "parallel": parallel,
            "extra_calls": extra_calls,
            "answer_parser": answer_parser,
        }
        self._streams: dict[int, ChoiceStream] = {}
        self._finished: set[int] = set()
        self._envelope: dict[str, Any] = {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
        }

    def feed(self, chunk: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The chunks to send for one upstream chunk."""
        envelope = self._envelope
        for key in ("id", "created", "model", "system_fingerprint", "service_tier"):
            if chunk.get(key) is not None:
                envelope[key] = chunk[key]
        out: list[dict[str, Any]] = []
        choices = chunk.get("choices") or ()
        if not isinstance(choices, (list, tuple)):
            raise MalformedChunkError(f"a chunk's choices must be a list, not {type(choices).__name__}")
        for choice in choices:
            if not isinstance(choice, Mapping) or type(choice.get("index", 0)) is not int:
                raise MalformedChunkError(
                    f"not a chunk's choice (an object with an integer index): {choice!r:.100}"
                )
            index = choice.get("index", 0)
            if index in self._finished:
                continue
            delta = choice.get("delta") or {}
            if not isinstance(delta, Mapping):
                raise MalformedChunkError(f"a choice's delta must be an object, not {type(delta).__name__}")
            stream = self._stream(index)
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            deltas = stream.reasoning(reasoning) if isinstance(reasoning, str) else []
            content = delta.get("content")
            if isinstance(content, str):
                deltas += stream.content(content)
            out += [self._chunk(index, d) for d in deltas]
            if choice.get("finish_reason") is not None:
                out += self._finish(index, choice["finish_reason"])
        if chunk.get("usage") is not None or not chunk.get("choices"):
            rest = {k: v for k, v in chunk.items() if k not in ("choices", *envelope)}
            out.append({**envelope, "choices": [], **rest})
        return out

    def close(self) -> list[dict[str, Any]]:
        """End of the upstream stream: every choice not finished yet, finished."""
        out: list[dict[str, Any]] = []
        for index in sorted(set(self._streams) - self._finished) or ([] if self._finished else [0]):
            self._stream(index)
            out += self._finish(index, None)
        return out

    def _stream(self, index: int) -> ChoiceStream:
        stream = self._streams.get(index)
        if stream is None:
            stream = self._streams[index] = ChoiceStream(self._new_parser(), **self._options)
        return stream

    def _finish(self, index: int, reason: str | None) -> list[dict[str, Any]]:
        self._finished.add(index)
        deltas, finish_reason = self._streams[index].finish(reason)
        out = [self._chunk(index, d) for d in deltas]
        out.append(self._chunk(index, {}, finish_reason))
        return out

    def _chunk(self, index: int, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return {**self._envelope, "choices": [choice]}


def accumulate(deltas: list[dict[str, Any]], message: dict[str, Any] | None = None) -> dict[str, Any]:
    """Deltas gathered into a message, as a client accumulates a stream."""
    message = message if message is not None else {"role": "assistant", "content": None}
    for delta in deltas:
        for key, value in delta.items():
            if key == "role":
                message["role"] = value
            elif key == "tool_calls":
                calls = message.setdefault("tool_calls", [])
                for entry in value:
                    if entry["index"] == len(calls):
                        extra = {
                            k: v for k, v in entry.items() if k not in ("index", "id", "type", "function")
                        }
                        calls.append(
                            {
                                "id": entry.get("id"),
                                "type": "function",
                                "function": {"name": entry["function"].get("name"), "arguments": ""},
                                **extra,  # (on_error="call"'s marker)
                            }
                        )
                    calls[entry["index"]]["function"]["arguments"] += entry["function"].get("arguments", "")
            elif isinstance(value, str):
                message[key] = (message.get(key) or "") + value
    return message


def complete(
    response: Mapping[str, Any],
    new_parser: Callable[[], StreamParser],
    *,
    mode: str = "validated",
    on_error: str = "content",
    reasoning_field: str = "both",
    parallel: bool = True,
    extra_calls: str = "drop",
    answer_parser: Callable[[], StreamParser | None] | None = None,
) -> dict[str, Any]:
    """A whole upstream response (a ``ChatCompletion`` dict) with each choice's
    text parsed: its message then holds ``content`` (None when empty),
    reasoning and ``tool_calls``, and its ``finish_reason`` says ``"tool_calls"``
    when calls were found.

    A whole response is always validated, whatever ``mode`` says (a mode for
    streams): it never holds a call the parser rejected, or broken arguments."""
    check_options(mode, on_error, reasoning_field, extra_calls)
    choices = []
    for choice in response.get("choices") or ():
        message = choice.get("message") or {}
        stream = ChoiceStream(
            new_parser(),
            mode="validated",
            on_error=on_error,
            reasoning_field=reasoning_field,
            parallel=parallel,
            extra_calls=extra_calls,
            answer_parser=answer_parser,
        )
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        deltas = stream.reasoning(reasoning) if isinstance(reasoning, str) else []
        content = message.get("content")
        deltas += stream.content(content if isinstance(content, str) else "")
        last, finish_reason = stream.finish(choice.get("finish_reason"))
        parsed = accumulate([*deltas, *last])
        parsed["role"] = "assistant"
        if not parsed.get("content"):
            parsed["content"] = None
        choices.append({**choice, "message": parsed, "finish_reason": finish_reason})
    return {**response, "choices": choices}
