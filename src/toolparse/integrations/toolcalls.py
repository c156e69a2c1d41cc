"""A server's tool parser without the server: one response's model text in, the
visible content and the tool-call pieces to stream out.

:class:`ToolStream` is what the vLLM and SGLang adapters run per response. It
is the chunk conversion of :mod:`toolparse.openai.chunks` (the same
``"validated"`` and ``"progressive"`` modes, the same handling of a failed
call) with its dict deltas gathered into one :class:`Step` per delta, so an
adapter only renames fields into its server's classes. Reasoning the tool
parser meets (a ``<think>`` block the server's reasoning parser did not take)
stays in the content as the model wrote it, and a call drafted in it is not
read: a server's tool parser has no reasoning field to put it in, in
non-streamed responses at least, and the two must agree.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolparse.engine.declare import Grammar
from toolparse.engine.thought import REASONING_CALLS
from toolparse.errors import InvalidOptionError
from toolparse.grammars import get_entry
from toolparse.grammars.reasoning import REASONING
from toolparse.openai.chunks import MODES, ChoiceStream
from toolparse.parser import StreamParser

SERVER_ON_ERROR = ("content", "drop", "call")
"""What a server may do with a failed call (``"raise"`` would end the response with a server error)."""

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """How a server's toolparse parsers deliver calls (the same for every request).

    A server's command line names a parser and nothing more, so these come
    from environment variables (:meth:`from_env`):

    ``TOOLPARSE_MODE``
        ``validated`` (default: a call goes out in one piece once it is
        complete and valid) or ``progressive`` (its name as soon as it is
        known, its arguments as they stream; a call that then fails has
        already been sent).
    ``TOOLPARSE_ON_ERROR``
        A call that fails: ``content`` (default: its markup goes out as
        content, as the model wrote it), ``drop``, or ``call`` (a call all
        the same, for the client's repair: see :mod:`toolparse.openai.chunks`).
    ``TOOLPARSE_REASONING``
        How the tool parser reads reasoning markers the server's reasoning
        parser left in the text (the ``reasoning`` option of
        :class:`~toolparse.StreamParser`, default ``auto``).
    ``TOOLPARSE_COERCE``
        ``1`` (default) or ``0``: coerce argument values to the request's
        tool schemas.
    ``TOOLPARSE_REASONING_CALLS``
        ``report`` (default), ``salvage`` or ``ignore``: a call in reasoning
        that never closed, where the tool parser reads the reasoning itself
        (the ``reasoning_calls`` option of :class:`~toolparse.StreamParser`).
    """

    mode: str = "validated"
    on_error: str = "content"
    reasoning: str = "auto"
    coerce: bool = True
    reasoning_calls: str = "report"

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise InvalidOptionError(f"TOOLPARSE_MODE must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.on_error not in SERVER_ON_ERROR:
            raise InvalidOptionError(
                f"TOOLPARSE_ON_ERROR must be one of {', '.join(SERVER_ON_ERROR)}, not {self.on_error!r}"
            )
        if self.reasoning not in REASONING:
            raise InvalidOptionError(
                f"TOOLPARSE_REASONING must be one of {', '.join(REASONING)}, not {self.reasoning!r}"
            )
        if self.reasoning_calls not in REASONING_CALLS:
            raise InvalidOptionError(
                f"TOOLPARSE_REASONING_CALLS must be one of {', '.join(REASONING_CALLS)}, "
                f"not {self.reasoning_calls!r}"
            )
        if type(self.coerce) is not bool:
            raise InvalidOptionError(f"coerce must be True or False, not {self.coerce!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ServerOptions:
        """The options the ``TOOLPARSE_*`` variables set (defaults for those unset).

        Raises :class:`~toolparse.InvalidOptionError` naming a variable whose
        value is not one of its choices.
        """
        env = os.environ if environ is None else environ
        coerce = env.get("TOOLPARSE_COERCE", "1").strip().lower()
        if coerce not in (*_TRUE, *_FALSE):
            raise InvalidOptionError(f"TOOLPARSE_COERCE must be 1 or 0, not {coerce!r}")
        return cls(
            mode=env.get("TOOLPARSE_MODE", "validated").strip(),
            on_error=env.get("TOOLPARSE_ON_ERROR", "content").strip(),
            reasoning=env.get("TOOLPARSE_REASONING", "auto").strip(),
            coerce=coerce in _TRUE,
            reasoning_calls=env.get("TOOLPARSE_REASONING_CALLS", "report").strip(),
        )


@dataclass(slots=True)
class CallPiece:
    """A piece of one call, as a server streams it: the call's first piece
    has its ``id`` and ``name``; every piece carries the next part of its
    arguments JSON (the whole of it in validated mode)."""

    index: int
    """The call's position among the calls of this response (0, 1, ...)."""
    id: str | None
    name: str | None
    arguments: str


@dataclass(slots=True)
class Step:
    """What one delta of model text gives: visible content and call pieces."""

    content: str = ""
    calls: list[CallPiece] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.content or self.calls)


class DeliveredCall:
    """A call sent to the client: its id, name and the arguments sent so far
    (kept as parts and joined when read, so a long argument streamed in many
    pieces costs linear time)."""

    __slots__ = ("_joined", "_parts", "id", "name")

    def __init__(self, id: str, name: str) -> None:
        self.id = id
        self.name = name
        self._parts: list[str] = []
        self._joined = ""

    def extend(self, text: str) -> None:
        if text:
            self._parts.append(text)

    @property
    def arguments(self) -> str:
        """The arguments JSON sent so far."""
        if self._parts:
            self._joined = "".join([self._joined, *self._parts])
            self._parts.clear()
        return self._joined


def plain_tools(tools: Iterable[Any] | None) -> list[Any] | None:
    """A server request's tools as plain dicts (its pydantic models dumped):
    what :class:`~toolparse.StreamParser` accepts. None or empty: no tools."""
    if not tools:
        return None
    return [tool.model_dump(exclude_none=True) if hasattr(tool, "model_dump") else tool for tool in tools]


class ToolStream:
    """One response of a server: model text in, :class:`Step` out.

    ``grammar`` names the wire format; ``tools`` are the request's tools
    (OpenAI-style dicts or :class:`~toolparse.Tool`); ``tool_choice`` is
    ``"none"`` (every character is content) or None. Each call delivered is
    in :attr:`calls`. Where the format has call ids of its own, which its
    chat template replays in later turns (Kimi K2's ``functions.NAME:N``,
    :attr:`~toolparse.grammars.prompts.GrammarEntry.call_ids`), the calls
    get them, numbered after the ``history`` calls of the earlier turns.
    """

    __slots__ = ("_call_ids", "_choice", "_history", "calls")

    def __init__(
        self,
        grammar: str | Grammar,
        tools: Iterable[Any] | None = None,
        *,
        tool_choice: str | None = None,
        options: ServerOptions | None = None,
        history: int = 0,
    ) -> None:
        options = options or ServerOptions()
        self._call_ids = get_entry(grammar).call_ids if isinstance(grammar, str) else None
        self._history = history
        parser = StreamParser(
            grammar,
            tools,
            tool_choice=tool_choice,
            reasoning=options.reasoning,
            coerce=options.coerce,
            reasoning_calls=options.reasoning_calls,
        )
        self._choice = ChoiceStream(
            parser, mode=options.mode, on_error=options.on_error, reasoning_field=None
        )
        self.calls: list[DeliveredCall] = []
        """Every call sent so far, in order (a call's position is its index)."""

    def feed(self, text: str) -> Step:
        """The next delta of the model's text."""
        return self._step(self._choice.content(text))

    def finish(self) -> Step:
        """End of the response: what was held back, and calls still open."""
        deltas, _ = self._choice.finish()
        return self._step(deltas)

    @classmethod
    def whole(
        cls,
        grammar: str | Grammar,
        text: str,
        tools: Iterable[Any] | None = None,
        *,
        tool_choice: str | None = None,
        options: ServerOptions | None = None,
        history: int = 0,
    ) -> tuple[str, list[DeliveredCall]]:
        """A whole (non-streamed) response: its content and its calls.

        Always validated, whatever the options' mode: a whole response has no
        reason to send a call that is not complete and valid.
        """
        options = options or ServerOptions()
        if options.mode != "validated":
            options = dataclasses.replace(options, mode="validated")
        stream = cls(grammar, tools, tool_choice=tool_choice, options=options, history=history)
        content = stream.feed(text).content + stream.finish().content
        return content, stream.calls

    def _step(self, deltas: list[dict[str, Any]]) -> Step:
        step = Step()
        if not deltas:
            return step
        content: list[str] = []
        calls = self.calls
        for delta in deltas:
            text = delta.get("content")
            if text:
                content.append(text)
            for entry in delta.get("tool_calls", ()):
                function = entry["function"]
                arguments = function.get("arguments", "")
                index = entry["index"]
                if "id" in entry:
                    name = function["name"]
                    native = self._call_ids
                    call_id = (
                        entry["id"]
                        if native is None
                        else native.format(name=name, index=self._history + index)
                    )
                    call = DeliveredCall(call_id, name)
                    calls.append(call)
                    step.calls.append(CallPiece(index, call.id, call.name, arguments))
                else:
                    call = calls[index]
                    pieces = step.calls
                    if pieces and pieces[-1].index == index:  # (one piece per call per step)
                        pieces[-1].arguments += arguments
                    else:
                        pieces.append(CallPiece(index, None, None, arguments))
                call.extend(arguments)
        step.content = "".join(content)
        return step


class StreamedRecords:
    """The per-call records vLLM's ``ToolParser`` and SGLang's detectors keep
    for their serving code, computed from what a :class:`ToolStream` sent.

    The serving code reads ``prev_tool_call_arr`` and
    ``streamed_args_for_tool`` at the end of a stream and sends whatever
    part of the first it finds missing from the second; computed from the
    same strings, nothing is ever missing, so nothing is sent twice. The base
    classes' ``__init__`` resets them, which is all a setter accepts. A
    class using this sets ``_stream`` before calling that ``__init__``.
    """

    _stream: ToolStream | None

    def _delivered(self) -> list[DeliveredCall]:
        return self._stream.calls if self._stream is not None else []

    @property
    def prev_tool_call_arr(self) -> list[dict[str, Any]]:
        """Each call sent: its name and the arguments JSON sent so far (a string)."""
        return [{"name": call.name, "arguments": call.arguments} for call in self._delivered()]

    @prev_tool_call_arr.setter
    def prev_tool_call_arr(self, value: list[dict[str, Any]]) -> None:
        _only_reset("prev_tool_call_arr", value, [])

    @property
    def streamed_args_for_tool(self) -> list[str]:
        """Each call's arguments JSON sent so far (the same strings as above)."""
        return [call.arguments for call in self._delivered()]

    @streamed_args_for_tool.setter
    def streamed_args_for_tool(self, value: list[str]) -> None:
        _only_reset("streamed_args_for_tool", value, [])

    @property
    def current_tool_id(self) -> int:
        """The index of the last call sent (-1: none yet)."""
        return len(self._delivered()) - 1

    @current_tool_id.setter
    def current_tool_id(self, value: int) -> None:
        _only_reset("current_tool_id", value, -1)

    @property
    def current_tool_name_sent(self) -> bool:
        return bool(self._delivered())

    @current_tool_name_sent.setter
    def current_tool_name_sent(self, value: bool) -> None:
        _only_reset("current_tool_name_sent", value, False)


def _only_reset(name: str, value: object, empty: object) -> None:
    if value != empty:
        raise AttributeError(f"{name} is computed from the calls streamed; it can only be reset to {empty!r}")


def history_calls(messages: Iterable[Any] | None) -> int:
    """How many calls the assistant made in a request's earlier turns (its
    messages as dicts or objects with ``role`` and ``tool_calls``)."""
    count = 0
    for message in messages or ():
        get = message.get if isinstance(message, Mapping) else lambda key, m=message: getattr(m, key, None)
        if get("role") == "assistant":
            count += len(get("tool_calls") or ())
    return count


def request_choice(tools: list[Any] | None, tool_choice: object) -> str | None:
    """The ``tool_choice`` a server's request means for :class:`ToolStream`:
    ``"none"`` when it says so or declares no tools (a call the server would
    not deliver must stay content), else None (vLLM and SGLang constrain
    ``"required"`` and named choices themselves and parse the JSON that gives)."""
    return "none" if tool_choice == "none" or not tools else None
