"""The invariants every grammar keeps, as checks: used by the test suite and
by ``toolparse fuzz``.

1. conservation: text deltas, reasoning raws, call raws and error raws, in
   order, equal the input (UTF-16 surrogate pairs joined into the characters
   they encode);
2. chunking: any split of the input gives the same events after merging
   adjacent text deltas, adjacent reasoning deltas and adjacent argument
   deltas of one call;
3. reconciliation: a call's argument deltas concatenate to its canonical
   arguments JSON, and every announced call ends in exactly one ToolCall or
   ToolCallError;
4. reasoning: while reasoning is open, nothing but reasoning comes out (no
   call, no error, no visible text).

Each check raises ``AssertionError`` with what went wrong.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from toolparse.engine.core import join_surrogate_pairs
from toolparse.engine.declare import Grammar, Reasoning
from toolparse.events import (
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallError,
    ToolCallStart,
    canonical_json,
)
from toolparse.grammars import get_grammar
from toolparse.grammars.reasoning import reasoning_for
from toolparse.parser import StreamParser


def run(grammar: str | Grammar, deltas: Iterable[str], **options: Any) -> list[Event]:
    """Feed deltas one by one, then close; return every event."""
    options.setdefault("seed", 7)
    parser = StreamParser(grammar, **options)
    events: list[Event] = []
    for delta in deltas:
        events += parser.feed(delta)
    events += parser.close()
    return events


def normalize(events: Sequence[Event]) -> list[Any]:
    """Merge adjacent text deltas, adjacent reasoning deltas and adjacent
    argument deltas of one call.

    Two runs of the same output, chunked differently, must normalise equal.
    """
    merged: list[Any] = []
    for event in events:
        last = merged[-1] if merged else None
        if isinstance(event, TextDelta):
            if not event.text:
                continue
            if isinstance(last, TextDelta):
                merged[-1] = TextDelta(last.text + event.text)
                continue
        elif isinstance(event, ReasoningDelta):
            if not event.raw:
                continue
            if isinstance(last, ReasoningDelta):
                merged[-1] = ReasoningDelta(last.text + event.text, last.raw + event.raw)
                continue
        elif isinstance(event, ToolCallDelta):
            if not event.arguments_delta:
                continue
            if isinstance(last, ToolCallDelta) and last.index == event.index:
                merged[-1] = ToolCallDelta(
                    event.index, event.id, last.arguments_delta + event.arguments_delta
                )
                continue
        merged.append(event)
    return merged


def covered_text(events: Sequence[Event], *, errors_as_text: bool = False) -> str:
    """Text deltas, reasoning raws, call raws and error raws in order: must equal the input."""
    parts: list[str] = []
    for event in events:
        if isinstance(event, TextDelta):
            parts.append(event.text)
        elif isinstance(event, (ReasoningDelta, ToolCall)) or (
            isinstance(event, ToolCallError) and not errors_as_text
        ):
            parts.append(event.raw)
    return "".join(parts)


def check_reconciliation(events: Sequence[Event], *, collapsed: bool = False) -> None:
    """Each call's argument deltas concatenate to its canonical arguments JSON,
    and every announced call ends in exactly one ToolCall or ToolCallError.

    ``collapsed`` (the ``collapse`` option of a forced choice): no call is
    announced, no argument streams, and each call's index appears once.
    """
    if collapsed:
        assert not any(isinstance(e, (ToolCallStart, ToolCallDelta)) for e in events), "collapse leaked"
        indices = [e.index for e in events if isinstance(e, ToolCall)]
        assert len(indices) == len(set(indices)), f"a call index repeats: {indices}"
        for event in events:
            if isinstance(event, ToolCall):
                assert json.loads(event.arguments_json) == event.arguments
        return
    deltas: dict[int, list[str]] = {}
    started: dict[int, str] = {}
    ended: set[int] = set()
    for event in events:
        if isinstance(event, ToolCallStart):
            assert event.index not in started, f"index {event.index} started twice"
            started[event.index] = event.id
            deltas[event.index] = []
        elif isinstance(event, ToolCallDelta):
            assert event.index in started and event.index not in ended
            assert started[event.index] == event.id
            deltas[event.index].append(event.arguments_delta)
        elif isinstance(event, ToolCall):
            assert event.index in started and event.index not in ended
            assert "".join(deltas[event.index]) == canonical_json(event.arguments)
            assert json.loads(event.arguments_json) == event.arguments
            ended.add(event.index)
        elif isinstance(event, ToolCallError) and event.index is not None:
            assert event.index in started and event.index not in ended
            ended.add(event.index)
    assert set(started) == ended, f"calls started but never ended: {set(started) - ended}"


def check_reasoning(events: Sequence[Event], reasoning: Reasoning) -> None:
    """While reasoning is open, only reasoning comes out: no call is read
    there, and no visible text. Reasoning opens and closes where a reasoning
    event's raw holds the opener or the closer (whichever comes last); other
    markup leaves it as it was. (A forced answer that never began, the stream
    having ended inside reasoning, is an error, or with ``unknown_on_error`` a
    call, with no input of its own.)"""
    unread = {e.index for e in events if isinstance(e, (ToolCall, ToolCallError)) and not e.raw}
    open_ = reasoning.starts_open
    for event in events:
        if isinstance(event, ReasoningDelta):
            closed_at = event.raw.rfind(reasoning.close)
            opened_at = event.raw.rfind(reasoning.open) if reasoning.open else -1
            if closed_at != opened_at:
                open_ = opened_at > closed_at
        elif open_ and not (
            (isinstance(event, TextDelta) and not event.text)
            or (not isinstance(event, TextDelta) and event.index in unread)
        ):
            raise AssertionError(f"{type(event).__name__} while reasoning is open: {event!r:.200}")


def reasoning_of(grammar: str | Grammar, options: dict[str, Any]) -> Reasoning | None:
    """The reasoning declaration a parser of ``grammar`` with ``options`` reads."""
    declaration = grammar if isinstance(grammar, Grammar) else get_grammar(grammar)
    return reasoning_for(declaration, options.get("reasoning", "auto"))


def check_all(
    grammar: str | Grammar, text: str, splits: Sequence[Sequence[str]] = (), **options: Any
) -> list[Event]:
    """The invariant matrix for one input: conservation, chunking independence
    (1-char deltas, one big delta, the given splits), reconciliation, and the
    same events with no lane armed (``lanes=False``: every delta read through
    the full path)."""
    whole = run(grammar, [text], **options)
    expected = normalize(whole)
    as_text = bool(options.get("errors_as_text"))
    collapsed = bool(options.get("collapse")) and _forced(options.get("tool_choice"))
    reasoning = reasoning_of(grammar, options)
    for deltas in [[text], list(text), *splits]:
        events = whole if len(deltas) == 1 and deltas[0] is text else run(grammar, deltas, **options)
        assert covered_text(events, errors_as_text=as_text) == join_surrogate_pairs("".join(deltas))
        check_reconciliation(events, collapsed=collapsed)
        if reasoning is not None:
            check_reasoning(events, reasoning)
        assert normalize(events) == expected, f"chunking changed the events: {deltas!r:.300}"
        if len(deltas) > 1:
            read = run(grammar, deltas, **options, lanes=False)
            assert normalize(read) == expected, f"the lanes changed the events: {deltas!r:.300}"
    return whole


def _forced(choice: Any) -> bool:
    return choice is not None and choice not in ("auto", "none")
