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
   call, no error, no visible text);
5. engines: the native core and the Python reference (``engine="native"``
   and ``engine="python"``, see :mod:`toolparse.engine.native`) give the same
   events from the same deltas, feed by feed, and raise the same errors.

Each check raises ``AssertionError`` with what went wrong.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from toolparse.engine.core import join_surrogate_pairs
from toolparse.engine.declare import Grammar, Reasoning
from toolparse.engine.native import use_native
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
from toolparse.grammars import AUTO, auto_tables, get_grammar
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


def check_reasoning(events: Sequence[Event], reasonings: Sequence[Reasoning]) -> None:
    """While reasoning is open, only reasoning comes out: no call is read
    there, and no visible text. Reasoning opens and closes where a reasoning
    event's raw holds an opener or a closer of ``reasonings`` (whichever comes
    last), or where a marker that ends reasoning (``ended_by``) begins an
    event's raw or text (a call's block opened by it: the raw of the call's
    last event); other markup leaves it as it was. (A forced answer that never began,
    the stream having ended inside reasoning, is an error, or with
    ``unknown_on_error`` a call, with no input of its own.) ``reasonings``: what
    the parser starts with first, then the markers of any format it may switch
    to (see :func:`reasoning_of`)."""
    unread = {e.index for e in events if isinstance(e, (ToolCall, ToolCallError)) and not e.raw}
    ends = tuple(marker for r in reasonings for marker in r.ended_by)
    raws = {
        e.index: e.raw for e in events if isinstance(e, (ToolCall, ToolCallError)) and e.index is not None
    }
    open_ = reasonings[0].starts_open
    for event in events:
        if open_ and ends and not isinstance(event, ReasoningDelta):
            if isinstance(event, TextDelta):
                raw = event.text
            else:
                raw = event.raw if isinstance(event, (ToolCall, ToolCallError)) else raws.get(event.index, "")
            open_ = not raw.startswith(ends)
        if isinstance(event, ReasoningDelta):
            closed_at = max(max(event.raw.rfind(m) for m in (r.close, *r.ended_by)) for r in reasonings)
            opened_at = max(event.raw.rfind(r.open) if r.open else -1 for r in reasonings)
            if closed_at != opened_at:
                open_ = opened_at > closed_at
        elif open_ and not (
            (isinstance(event, TextDelta) and not event.text)
            or (not isinstance(event, TextDelta) and event.index in unread)
        ):
            raise AssertionError(f"{type(event).__name__} while reasoning is open: {event!r:.200}")


def reasoning_of(grammar: str | Grammar, options: dict[str, Any]) -> tuple[Reasoning, ...]:
    """The reasoning declarations a parser of ``grammar`` with ``options`` reads
    (none: no reasoning): the one it starts with, then, for ``grammar="auto"``,
    each member's, read once that member is decided (seed-oss's
    ``<seed:think>``)."""
    declaration = grammar if isinstance(grammar, Grammar) else get_grammar(grammar)
    option = options.get("reasoning", "auto")
    first = reasoning_for(declaration, option)
    if first is None:
        return ()
    if declaration is not AUTO:
        return (first,)
    auto = auto_tables().auto
    assert auto is not None
    members = (reasoning_for(member, option) for member in auto.declarations.values())
    return (first, *dict.fromkeys(r for r in members if r is not None and r != first))


def check_all(
    grammar: str | Grammar, text: str, splits: Sequence[Sequence[str]] = (), **options: Any
) -> list[Event]:
    """The invariant matrix for one input: conservation, chunking independence
    (1-char deltas, one big delta, the given splits), reconciliation, and, on
    the native core, the same events with no lane armed (``lanes=False``: every
    delta read through its full path; the reference has no lanes)."""
    whole = run(grammar, [text], **options)
    expected = normalize(whole)
    as_text = bool(options.get("errors_as_text"))
    collapsed = bool(options.get("collapse")) and _forced(options.get("tool_choice"))
    reasoning = reasoning_of(grammar, options)
    lanes = use_native(options.get("engine")) and options.get("lanes", True) is not False
    for deltas in [[text], list(text), *splits]:
        events = whole if len(deltas) == 1 and deltas[0] is text else run(grammar, deltas, **options)
        assert covered_text(events, errors_as_text=as_text) == join_surrogate_pairs("".join(deltas))
        check_reconciliation(events, collapsed=collapsed)
        if reasoning:
            check_reasoning(events, reasoning)
        assert normalize(events) == expected, f"chunking changed the events: {deltas!r:.300}"
        if len(deltas) > 1 and lanes:
            read = run(grammar, deltas, **options, lanes=False)
            assert normalize(read) == expected, f"the lanes changed the events: {deltas!r:.300}"
    return whole


def _forced(choice: Any) -> bool:
    return choice is not None and choice not in ("auto", "none")


# -- 5. the engines -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One call made to a parser, and what came of it (see :func:`engine_steps`)."""

    call: str
    """The call: ``"StreamParser(...)"``, ``"feed(deltas[3])"``, ``"close()"``, ..."""
    outcome: tuple[Any, ...]
    """What is compared: ``("events", list type, ((event class, repr), ...))`` or
    ``("raised", exception class, message, class of its cause)``. (The reprs, not
    ``==``: a key order, ``True`` for ``1`` or ``-0.0`` for ``0.0`` differ too.)"""
    shown: str
    """The events or the error, for a message."""
    lane: str | None
    """The lane armed after the call (:attr:`Engine.lane`: the native core's; the
    reference arms none)."""
    events: tuple[Event, ...] = ()
    """The events the call returned (none where it raised)."""


def engine_steps(grammar: str | Grammar, deltas: Sequence[str], engine: str, **options: Any) -> list[Step]:
    """What the engine ``engine`` does with ``deltas``, call by call: the parser
    built, each ``feed``, ``close``, and one ``feed`` after it (the error a
    closed or latched parser raises). An exception is an outcome like any
    other: the calls go on (a latched parser raises its error again)."""
    options.setdefault("seed", 7)
    try:
        parser = StreamParser(grammar, engine=engine, **options)
    except Exception as exc:
        return [Step("StreamParser(...)", *_raised(exc), None)]
    assert parser.engine == engine, f"engine={engine!r} built a {parser.engine} parser"

    def step(name: str, call: Callable[[], Sequence[Event]]) -> Step:
        outcome, shown, events = _outcome(call)
        return Step(name, outcome, shown, parser.lane, events)

    steps = [step("StreamParser(...)", list)]
    for k, delta in enumerate(deltas):
        steps.append(step(f"feed(deltas[{k}])", functools.partial(parser.feed, delta)))
    steps.append(step("close()", parser.close))
    steps.append(step("feed('') after close()", functools.partial(parser.feed, "")))
    return steps


def check_engines(grammar: str | Grammar, deltas: Sequence[str], **options: Any) -> None:
    """Invariant 5: the native core gives the same events as the Python
    reference for the same deltas, and raises the same errors (class and
    message). Raises ``AssertionError`` at the first difference (and
    :class:`~toolparse.errors.InvalidOptionError` where the native core is not
    built). Two comparisons:

    * the native core with its lanes off (``lanes=False``: its full path)
      against the reference, feed by feed (the raw lists each call returned,
      not merged): the two full paths are one engine written twice;
    * the native core with its lanes (unless ``lanes=False`` is given) against
      the reference, over the whole stream, event for event after merging
      adjacent deltas (:func:`normalize`): a lane changes when events come
      out, never which (the reference has no lanes).
    """
    use_native("native")
    reference = engine_steps(grammar, deltas, "python", **options)
    full = engine_steps(grammar, deltas, "native", **{**options, "lanes": False})
    for ours, theirs in zip(reference, full, strict=False):
        if ours.outcome != theirs.outcome:
            raise AssertionError(_difference(ours, theirs, deltas))
    if len(reference) != len(full):  # (unreachable: a parser built by one and not the other differs first)
        raise AssertionError(f"the engines made {len(reference)} and {len(full)} calls")
    if options.get("lanes", True) is False:
        return
    lanes = engine_steps(grammar, deltas, "native", **options)
    expected, got = _transcript(reference), _transcript(lanes)
    if got != expected:
        at = next((k for k, (a, b) in enumerate(zip(expected, got, strict=False)) if a != b), None)
        if at is None:
            at = min(len(expected), len(got))
        raise AssertionError(
            f"the native core's lanes changed the events (merged) at event {at}: "
            f"reference {expected[at : at + 2]!r:.600}, native {got[at : at + 2]!r:.600}; "
            f"deltas {list(deltas)!r:.300}"
        )


def _transcript(steps: Sequence[Step]) -> list[tuple[Any, ...]]:
    """What a run gave over the whole stream: its events merged
    (:func:`normalize`), each as (class, repr), with each error raised in its
    place (a call that raised, by where it fell among the events; a latched
    parser's error raised again by the calls after it counts once: a lane
    that gathered the deltas before it raises it a few calls later)."""
    out: list[tuple[Any, ...]] = []
    events: list[Event] = []
    for step in steps:
        if step.outcome[0] == "events":
            events += step.events
            continue
        out += [(type(e), repr(e)) for e in normalize(events)]
        if events or not out or out[-1] != step.outcome:
            out.append(step.outcome)
        events = []
    out += [(type(e), repr(e)) for e in normalize(events)]
    return out


def _outcome(call: Callable[[], Sequence[Event]]) -> tuple[tuple[Any, ...], str, tuple[Event, ...]]:
    """What ``call`` returned or raised: the outcome compared, how it is shown,
    and the events."""
    try:
        events = call()
    except Exception as exc:
        return (*_raised(exc), ())
    return ("events", type(events), tuple((type(e), repr(e)) for e in events)), repr(events), tuple(events)


def _raised(exc: Exception) -> tuple[tuple[Any, ...], str]:
    cause = None if exc.__cause__ is None else type(exc.__cause__)
    return ("raised", type(exc), str(exc), cause), f"raised {type(exc).__name__}: {exc}"


def _difference(ours: Step, theirs: Step, deltas: Sequence[str]) -> str:
    where = ours.call
    if where.startswith("feed(deltas["):
        k = int(where[len("feed(deltas[") : where.index("]")])
        where += f" of {len(deltas)} (delta {deltas[k]!r:.80})"
    first = ""
    if ours.outcome[0] == theirs.outcome[0] == "events":
        mine, other = ours.outcome[2], theirs.outcome[2]
        if ours.outcome[1] is not theirs.outcome[1]:
            first = f": python returned a {ours.outcome[1].__name__}, native a {theirs.outcome[1].__name__}"
        else:
            k = next(k for k in range(max(len(mine), len(other))) if mine[k : k + 1] != other[k : k + 1])
            python = mine[k][1] if k < len(mine) else "nothing"
            native = other[k][1] if k < len(other) else "nothing"
            first = f", event {k}: python {python:.300}, native {native:.300}"
    return (
        f"the engines differ at {where}{first}\n  python: {ours.shown:.1500}\n  native: {theirs.shown:.1500}"
    )
