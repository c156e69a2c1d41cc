"""Calls written inside reasoning that never closed.

No call is read inside reasoning: a call a model drafts while it thinks never
runs. But a model that never closes its reasoning (Kimi K2 skipping
``</think>``, a thought cut short by the token limit) and then writes its call
loses that call in silence, the most reported problem in the peers' trackers
(vLLM PRs #55759 and #32216, issues #39056 and #42021; llama.cpp #17932).

So the engine keeps the reasoning text since reasoning last opened (its last
:data:`WINDOW` characters, in bounded memory), and when the stream ends with
reasoning still open it reads that text once more with the same grammar and
tools, reasoning off (a *shadow* read, linear in the window). By the
``reasoning_calls`` option, each complete call found there becomes:

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

from typing import Final

from toolparse.errors import InvalidOptionError
from toolparse.events import (
    ErrorReason,
    Event,
    ToolCall,
    ToolCallDelta,
    ToolCallError,
    ToolCallStart,
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


def last_window(pieces: list[str]) -> str:
    """The last :data:`WINDOW` characters of the kept pieces."""
    return "".join(pieces)[-WINDOW:]


def trimmed(pieces: list[str]) -> tuple[list[str], int]:
    """The pieces kept once they hold too much: their last window, as one
    piece (amortised: trimmed at twice the window)."""
    text = last_window(pieces)
    return [text], len(text)


def calls_found(shadow: list[Event], salvage: bool, offset: int) -> list[Event]:
    """The events for the calls a shadow read of unclosed reasoning completed
    (its text, errors and unfinished calls are left out)."""
    complete = {e.index for e in shadow if type(e) is ToolCall}
    out: list[Event] = []
    for event in shadow:
        kind = type(event)
        if kind is ToolCall:
            assert isinstance(event, ToolCall)
            if salvage:
                out.append(
                    new_tool_call(
                        event.index,
                        event.id,
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
        elif salvage and kind in (ToolCallStart, ToolCallDelta):
            assert isinstance(event, ToolCallStart | ToolCallDelta)
            if event.index in complete:
                out.append(event)
    return out
