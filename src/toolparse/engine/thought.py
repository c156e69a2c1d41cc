"""Calls written inside reasoning that never closed.

No call is read inside reasoning: a call a model drafts while it thinks never
runs. But a model that never closes its reasoning (Kimi K2 skipping
``</think>``, a thought cut short by the token limit) and then writes its call
loses that call in silence, the most reported problem in the peers' trackers
(vLLM PRs #55759 and #32216, issues #39056 and #42021; llama.cpp #17932).

So the engine keeps the reasoning text since reasoning last opened (its last
:data:`WINDOW` characters, in bounded memory), and when the stream ends with
reasoning still open it reads that text once more with the same grammar and
tools, reasoning off (a *shadow* read, linear in the window). The text the
window has let go is read too, as it is let go, by the same shadow reader
(:class:`ThoughtReader`): a call in a Markdown code fence or blockquote opened
long before the thought's end is still an example, and a fence written in a
call's value is still the call's. Only the calls that begin inside the last
window count, numbered after the parser's own. By the ``reasoning_calls``
option, each complete call found there becomes:

``"report"`` (default)
    a :class:`~toolparse.ToolCallError` with reason
    ``call_in_unclosed_reasoning``, carrying the call's name and arguments: the
    caller sees that a call was there, and nothing runs;
``"salvage"``
    a real call (``ToolCallStart``, its argument deltas, ``ToolCall``), at
    ``close()``;
``"ignore"``
    nothing (reasoning is only reasoning).

Either way the markup stays where it was read, in the reasoning events: the
new events have an empty ``raw``, so every input character is still in
exactly one event. Reasoning that closes forgets what it kept.
"""

from __future__ import annotations

from typing import Final, Protocol

from toolparse.engine.calls import CallContext
from toolparse.errors import InvalidOptionError
from toolparse.events import (
    ErrorReason,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallError,
    ToolCallStart,
    new_call_delta,
    new_tool_call,
)

REASONING_CALLS: Final = ("report", "salvage", "ignore")
WINDOW: Final = 65_536
"""Characters of unclosed reasoning read again at the end: a call that begins
earlier in a longer thought is not looked for."""


def check_reasoning_calls(option: object) -> str:
    """The ``reasoning_calls`` option, checked."""
    if option not in REASONING_CALLS:
        raise InvalidOptionError(
            f"reasoning_calls must be one of {', '.join(map(repr, REASONING_CALLS))}, not {option!r}"
        )
    return str(option)


class Reader(Protocol):
    """What a shadow read needs of an engine (:class:`~toolparse.engine.core.Engine`)."""

    def feed(self, delta: str) -> list[Event]: ...

    def close(self) -> list[Event]: ...


def own_context(ctx: CallContext) -> CallContext:
    """A context like ``ctx`` (its tools and options) for a shadow read: its
    calls take no index or id from the parser's (only the calls kept do)."""
    tools = None if ctx.tools is None else tuple(ctx.tools.values())
    return CallContext(tools, max_depth=ctx.max_depth, coerce=ctx.coerce, id_factory=_no_id)


def _no_id(_index: int) -> str:
    return ""


class ThoughtReader:
    """A shadow read of unclosed reasoning: the text the window lets go, as it
    goes, then the window itself at the end (linear; bounded memory: the
    events of the text let go are dropped as they come)."""

    __slots__ = ("_covered", "_read", "_reader")

    def __init__(self, reader: Reader) -> None:
        self._reader = reader
        self._read = 0  # characters given
        self._covered = 0  # characters in the events made (see invariants.covered_text)

    def let_go(self, text: str) -> None:
        """Read text the window lets go (its events dropped)."""
        self._read += len(text)
        self._covered += _covered(self._reader.feed(text))

    def calls(self, window: str, salvage: bool, offset: int, ctx: CallContext) -> list[Event]:
        """The calls that begin in ``window`` (the thought's last characters),
        reported or salvaged: see :func:`calls_found`."""
        boundary = self._read
        shadow = self._reader.feed(window) + self._reader.close()
        return calls_found(shadow, salvage, offset, ctx, self._covered - boundary)


def _covered(events: list[Event]) -> int:
    """The input characters in ``events`` (a shadow read: errors are not text)."""
    n = 0
    for event in events:
        kind = type(event)
        if kind is TextDelta:
            assert isinstance(event, TextDelta)
            n += len(event.text)
        elif kind is ToolCall or kind is ToolCallError or kind is ReasoningDelta:
            assert isinstance(event, ToolCall | ToolCallError | ReasoningDelta)
            n += len(event.raw)
    return n


def calls_found(
    shadow: list[Event], salvage: bool, offset: int, ctx: CallContext, ahead: int = 0
) -> list[Event]:
    """The events for the calls a shadow read of unclosed reasoning completed
    (its text, errors and unfinished calls are left out) that begin ``-ahead``
    or more characters into its events (``ahead``: how many characters of
    what came before the window the shadow had not yet put in events). A call
    salvaged takes its index and id from ``ctx``, the parser's."""
    complete: set[int] = set()
    position = ahead
    for event in shadow:
        if type(event) is ToolCall and position >= 0:
            assert isinstance(event, ToolCall)
            complete.add(event.index)
        position += _covered([event])
    # (index in the shadow -> the ToolCallStart the parser gives it)
    started: dict[int, ToolCallStart] = {}
    out: list[Event] = []
    for event in shadow:
        kind = type(event)
        if kind is ToolCall:
            assert isinstance(event, ToolCall)
            if event.index not in complete:
                continue
            if salvage:
                start = started[event.index]
                out.append(
                    new_tool_call(
                        start.index,
                        start.id,
                        event.name,
                        event.arguments,
                        "",  # (its markup is in the reasoning events)
                        event.issues,
                        event.parsed,
                        event.validation_error,
                    )
                )
            else:
                out.append(
                    ToolCallError(
                        ErrorReason.CALL_IN_UNCLOSED_REASONING,
                        f"a call to {event.name!r} was written in reasoning that never closed: "
                        "it is not run (reasoning_calls='salvage' runs it)",
                        "",
                        offset,
                        name=event.name,
                        arguments=event.arguments,
                    )
                )
        elif salvage and kind is ToolCallStart:
            assert isinstance(event, ToolCallStart)
            if event.index in complete:
                start = started[event.index] = _numbered(ctx, event.name)
                out.append(start)
        elif salvage and kind is ToolCallDelta:
            assert isinstance(event, ToolCallDelta)
            if event.index in complete:
                start = started[event.index]
                out.append(new_call_delta(start.index, start.id, event.arguments_delta))
    return out


def _numbered(ctx: CallContext, name: str) -> ToolCallStart:
    """The parser's announcement of a salvaged call: its index and id, from ``ctx``."""
    given, ctx.out = ctx.out, []
    try:
        ctx.start(name)
        (start,) = ctx.out
    finally:
        ctx.out = given
    assert isinstance(start, ToolCallStart)
    return start
