"""The sans-IO engine: ``feed(delta) -> events``, ``close() -> events``.

The engine alternates between the visible text and blocks of call markup:

* in the text, a :class:`~toolparse.engine.text.TextScanner` finds the
  grammar's openers (outside Markdown code fences and quotes), text before
  them is emitted at once, and only what could still become an opener is
  held back;
* inside a block, a :class:`~toolparse.engine.machine.Machine` runs the
  grammar's regions, and the engine keeps the block's raw text. When the
  block ends, the engine slices that raw text among the block's calls and
  errors.

Because only the engine cuts the input into events, and every cut is either
text or a slice of a block's raw text, the events always concatenate back to
the input (invariant 1). Readers decide on characters only, never on where a
delta ended, and where they cannot decide yet the engine gives them the
same characters again with the next delta (invariants 2 and 3).

Most deltas never reach a reader: plain text, plain string and value text
take fast paths in :meth:`Engine.feed`, and inside a call the engine gathers
deltas that cannot end it (or that only lengthen a held terminal) and gives
them to the machine together.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Final

from toolparse.engine.calls import CallContext, FastPath, Outcome
from toolparse.engine.compile import CompiledGrammar
from toolparse.engine.declare import Reasoning
from toolparse.engine.lexicon import Hit
from toolparse.engine.machine import Machine
from toolparse.engine.text import ANSWER, MARKUP, REASONING_CLOSE, REASONING_OPEN, TextScanner
from toolparse.errors import InternalParserError, StreamClosedError, ToolparseError
from toolparse.events import (
    SURROGATE,
    ErrorReason,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallStart,
    UnfrozenCallDelta,
    new_call_delta,
    new_reasoning_delta,
    new_text_delta,
)
from toolparse.readers.pieces import Pieces

_encode_json: Final = json.encoder.encode_basestring
_new_event = object.__new__
_set_text = TextDelta.__dict__["text"].__set__
_RUN: Final = 256  # deltas the fast path takes before it joins them
_GATHER: Final = 64  # characters gathered at most inside a call before they are read
_GATHER_QUIET: Final = 4096  # the same where nothing streams (see Machine.quiet_until)
_WINDOW: Final = 4096  # the least of a large delta a block is given at a time


class Engine:
    """Turns a model's output, delta by delta, into text and tool-call events,
    following one compiled grammar. (:class:`toolparse.StreamParser` is the
    front that builds one from a grammar's name and the caller's options.)"""

    __slots__ = (
        "_answered",
        "_broken",
        "_call_ends",
        "_carry",
        "_closed",
        "_closers",
        "_collapse",
        "_ctx",
        "_cut_checked",
        "_errors_as_text",
        "_fast",
        "_fast_args",
        "_fast_room",
        "_fast_run",
        "_gather",
        "_gather_prefix",
        "_gather_room",
        "_gathered",
        "_grammar",
        "_held",
        "_machine",
        "_max_call_chars",
        "_name_ends",
        "_offset",
        "_raw",
        "_raw_base",
        "_reason_stops",
        "_refeed_until",
        "_scanner",
        "_string_starts",
        "_text_more",
        "_text_stops",
        "_unknown_on_error",
    )

    def __init__(
        self,
        grammar: CompiledGrammar,
        ctx: CallContext,
        *,
        errors_as_text: bool,
        max_call_chars: int,
        collapse: bool = False,
        unknown_on_error: bool = False,
        reasoning: Reasoning | None = None,
    ) -> None:
        self._grammar = grammar
        self._ctx = ctx
        self._errors_as_text = errors_as_text
        self._max_call_chars = max_call_chars
        self._collapse = collapse
        self._unknown_on_error = unknown_on_error
        # (with reasoning, or markup that may wrap it, a forced answer begins
        # where the scanner says)
        answer_later = grammar.start is not None and (reasoning is not None or bool(grammar.openers.terms))
        self._scanner = TextScanner(grammar, ctx, reasoning, answer=answer_later)
        self._answered = grammar.start is None  # (a forced answer's block has begun)
        self._held = ""  # input a reader could not decide on yet: read again with the next delta
        self._carry = ""  # a high surrogate waiting for its low half
        self._machine: Machine | None = None
        self._fast: FastPath | None = None  # see Machine.fast_path
        self._fast_run: list[str] = []  # raw text the fast path took, not yet in _raw
        self._fast_args: list[str] = []  # (a value's) the arguments text of that run
        self._fast_room = 0  # how much more the fast path may take (max_call_chars)
        # set inside a committed call (Machine.in_committed_call): deltas that cannot end it are gathered
        self._gather: re.Pattern[str] | None = None
        self._gathered: list[str] = []
        self._closers: tuple[str, ...] | None = None  # (gathering in a value) see Machine.value_closers
        self._gather_room = 0
        # set while the held text is a proper prefix of a literal terminal (an
        # opener's in the text, any in a block): so is this, with the deltas gathered since
        self._gather_prefix: str | None = None
        self._call_ends, self._name_ends = _gather_stops(grammar.call_ends)
        # set while plain text needs no scan (not at the stream's start: a line start)
        self._text_stops: tuple[str, str] | None = None
        self._text_more: re.Pattern[str] | None = None
        self._raw = Pieces()  # the current block's raw text (from _raw_base on)
        self._raw_base = 0
        self._offset = 0  # stream position of the first character not yet in an event
        self._closed = False
        self._broken: ToolparseError | None = None
        self._refeed_until = 0  # stream position up to which input is being read again
        self._cut_checked = False
        self._reason_stops: tuple[str, str] | None = None  # set while plain reasoning needs no scan
        self._string_starts = False  # the next delta brings a string value's first characters
        if grammar.start is not None and not answer_later:  # the whole output is one block
            self._machine = Machine(grammar.start, ctx, "")
            self._answered = True

    @property
    def grammar_name(self) -> str:
        return self._grammar.name

    # -- public -----------------------------------------------------------------------

    def feed(self, delta: str) -> list[Event]:
        """Parse the next piece of model output; return the events it completes."""
        # At most one of the short paths below is armed (by the full path, at its
        # end): plain text, a streaming string, gathering, a held terminal's
        # prefix, reasoning. A delta it cannot take falls through to the full path.
        stops = self._text_stops
        if stops is not None:
            # in plain text, a delta with no character that needs a look (and no
            # split surrogate pair) is text as it stands
            first, second = stops
            if (
                isinstance(delta, str)
                and delta
                and first not in delta
                and second not in delta
                and (delta.isascii() or SURROGATE.search(delta) is None)
                and (self._text_more is None or self._text_more.search(delta) is None)
            ):
                self._offset += len(delta)
                event = _new_event(TextDelta)  # (new_text_delta, inlined: the hottest path)
                _set_text(event, delta)
                return [event]
            self._text_stops = None
        elif (fast := self._fast) is not None:
            # inside a string that streams: a plain delta is only taken into the
            # run (see Machine.fast_path); anything else takes the full path
            _, index, call_id, pattern, value_piece = fast
            value = value_piece is not None
            if (
                not self._carry  # (the usual delta, told at once: JSON encodes it as it is)
                and isinstance(delta, str)
                and '"' not in delta
                and "\\" not in delta
                and delta.isprintable()
                and self._fast_room >= len(delta)
                and (not value or ("<" not in delta and "&" not in delta))  # (a value's markup)
            ):
                if not delta:
                    return []
                self._fast_room -= len(delta)
                run = self._fast_run
                run.append(delta)
                if value:
                    self._fast_args.append(delta)
                if len(run) >= _RUN:
                    self._take_fast_run()
                call_delta = _new_event(UnfrozenCallDelta)  # (new_call_delta, inlined)
                call_delta.index = index
                call_delta.id = call_id
                call_delta.arguments_delta = delta
                call_delta.__class__ = ToolCallDelta
                return [call_delta]
            if isinstance(delta, str):
                # (text that must wait for the next delta, the end of an escape or
                # a value's last newline, is carried: it is not taken yet)
                text = self._carry + delta if self._carry else delta
                kept = ""
                piece: str | None
                if value_piece is not None:
                    breaker = pattern.search(text)
                    if breaker is None:  # (no markup, entity or blank last line)
                        piece = _encode_json(text)[1:-1]
                    else:
                        found = value_piece(text, breaker)
                        piece, kept = found if found is not None else (None, "")
                elif pattern.fullmatch(text) is not None:
                    piece = text
                elif text[-1:] == "\\" and pattern.fullmatch(text, 0, len(text) - 1) is not None:
                    piece, kept = text[:-1], "\\"  # (an escape cut in two)
                else:
                    piece = None
                room = self._fast_room - len(text)
                if piece is not None and room >= 0:
                    self._carry = kept
                    if not piece:
                        return []
                    self._fast_room = room + len(kept)
                    run = self._fast_run
                    if not value:  # (a JSON string's text is its own canonical form)
                        run.append(piece)
                    else:
                        run.append(text[: len(text) - len(kept)] if kept else text)
                        self._fast_args.append(piece)
                    if len(run) >= _RUN:
                        self._take_fast_run()
                    call_delta = _new_event(UnfrozenCallDelta)
                    call_delta.index = index
                    call_delta.id = call_id
                    call_delta.arguments_delta = piece
                    call_delta.__class__ = ToolCallDelta
                    return [call_delta]
            self._leave_fast_path()
            if value and isinstance(delta, str) and self._gathers_value_end(delta):
                return []
        elif (gather := self._gather) is not None:
            # Inside a committed call (see Machine.in_committed_call), a delta that cannot end it
            # (none of the grammar's call_ends) is only gathered, up to _GATHER
            # characters: the machine then reads them in one go. The events are
            # the same, at most _GATHER characters later; a small call costs a
            # few machine steps instead of one per delta. So is a name being read
            # before any call is announced (see Machine.name_room), up to its limit,
            # and a delta that only completes a value's closing tag.
            if not isinstance(delta, str):
                raise _not_text(delta)
            if len(delta) <= self._gather_room and (
                gather.search(delta) is None or (self._closers is not None and self._only_closes_value(delta))
            ):
                self._gathered.append(delta)
                self._gather_room -= len(delta)
                return []
            self._gather = None
            self._closers = None
            delta = self._take_gathered(delta)
        elif (prefix := self._gather_prefix) is not None:
            # held text that may be a terminal: a delta that only lengthens it (a
            # terminal still, and not yet whole) changes nothing a reader could
            # decide, and is gathered (read with the delta that decides)
            if not isinstance(delta, str):
                raise _not_text(delta)
            prefix += delta
            grammar = self._grammar
            if prefix in (
                grammar.markup_prefixes if self._machine is not None else self._scanner.opener_prefixes
            ):
                self._gather_prefix = prefix
                self._gathered.append(delta)
                return []
            self._gather_prefix = None
            delta = self._take_gathered(delta)
        elif (reasoning := self._reason_stops) is not None:
            # inside reasoning, a delta with no character that could begin its closer
            if (
                isinstance(delta, str)
                and delta
                and reasoning[0] not in delta
                and (delta.isascii() or SURROGATE.search(delta) is None)
            ):
                self._offset += len(delta)
                return [new_reasoning_delta(delta, delta)]
            self._reason_stops = None
        elif (
            self._machine is None
            and not self._held
            and not self._carry  # (a high surrogate waits for its pair: the full path joins them)
            and not self._closed
            and self._broken is None
            and self._scanner.starts_ordinary_line(delta)
        ):
            self._text_stops, self._text_more = self._scanner.stop_check  # (decided: read on)
            return self.feed(delta)
        if self._broken is not None:
            raise self._broken
        if self._closed:
            raise StreamClosedError("feed() called after close(): this parser is finished")
        if not isinstance(delta, str):
            raise _not_text(delta)
        if self._carry:
            delta = self._carry + delta
            self._carry = ""
        if not delta.isascii() and SURROGATE.search(delta) is not None:
            delta = join_surrogate_pairs(delta)
            if "\ud800" <= delta[-1] <= "\udbff":
                # a UTF-16 pair split across deltas: wait for the low half
                self._carry = delta[-1]
                delta = delta[:-1]
        out: list[Event] = []
        # (after a string's first characters are read, the deltas that follow are
        # gathered like any others: a short value then costs one more read, not a
        # fast path to arm and leave; the next read arms it for a long one)
        first_characters = self._string_starts
        self._string_starts = False
        if delta:
            try:
                self._run(delta, out, False)
            except ToolparseError as exc:  # a caller's mistake noticed mid-stream (an id_factory)
                self._broken = exc
                raise
            except Exception as exc:
                self._broken = InternalParserError(self._grammar.name, self._offset, exc)
                raise self._broken from exc
            if self._collapse:
                out = _collapsed(out)
            machine = self._machine
            if machine is not None:
                # (with collapse the fast path is off: it emits deltas itself)
                if not self._collapse and not self._carry and not self._held and not first_characters:
                    self._fast = machine.fast_path()
                    self._fast_room = self._max_call_chars - self._raw.length
                if self._fast is None and machine.in_committed_call:
                    quiet = machine.quiet_until
                    if quiet is not None:  # (nothing streams before it: gather more)
                        self._gather = quiet
                        self._gather_room = _GATHER_QUIET
                    elif machine.string_starts:  # (its first characters: read with their delta)
                        self._string_starts = True
                    elif machine.announced:
                        self._gather = self._call_ends
                        self._gather_room = _GATHER
                        self._closers = machine.value_closers
                    else:
                        self._gather = self._name_ends
                        self._gather_room = _GATHER
                elif not self._carry and self._held in self._grammar.markup_prefixes:
                    self._gather_prefix = self._held
                elif not self._carry and not self._held and (name := machine.name_room) is not None:
                    self._gather, self._gather_room = name  # (a name: nothing comes of it yet)
            elif self._carry:
                pass
            elif self._held:
                if not self._scanner.in_reasoning and self._held in self._scanner.opener_prefixes:
                    self._gather_prefix = self._held
            elif self._scanner.in_reasoning:
                self._reason_stops = self._scanner.reasoning_stops
            else:
                self._text_stops, self._text_more = self._scanner.stop_check
        return out

    def close(self) -> list[Event]:
        """End of the stream: flush held text and finish (or fail) an open call."""
        if self._broken is not None:
            raise self._broken
        if self._closed:
            raise StreamClosedError("close() called twice: this parser is already closed")
        out: list[Event] = []
        self._gather = None
        self._closers = None
        self._gather_prefix = None
        if self._gathered:  # (deltas gathered: read first)
            out = self.feed(self._take_gathered(""))
            self._gather = None
            self._gather_prefix = None
        self._closed = True
        self._leave_fast_path()
        self._text_stops = None
        self._reason_stops = None
        self._guarded(self._carry, out, final=True)
        self._carry = ""
        return _collapsed(out) if self._collapse else out

    def _only_closes_value(self, delta: str) -> bool:
        """Gathering inside a value: ``delta`` only completes one of its closing
        tags (see :func:`_only_closes`; once, then the next stop is read)."""
        closers = self._closers
        assert closers is not None and self._gather is not None
        self._closers = None
        gathered = self._held + "".join(self._gathered)
        return _only_closes(gathered + delta, len(gathered), self._gather, closers)

    def _gathers_value_end(self, delta: str) -> bool:
        """Leaving the fast path at ``delta`` (after the text it carries): when
        it only completes the value's closing tag (see :func:`_only_closes`), it
        is gathered as after a read, not read."""
        machine = self._machine
        assert machine is not None
        text = self._carry + delta
        closers = machine.value_closers
        if closers is None or len(text) > _GATHER or not _only_closes(text, 0, self._call_ends, closers):
            return False
        self._carry = ""
        self._gathered.append(text)
        self._gather = self._call_ends
        self._gather_room = _GATHER - len(text)
        return True

    def _take_gathered(self, delta: str) -> str:
        """The deltas gathered so far, then ``delta``, as one text (and none gathered)."""
        if not self._gathered:
            return delta
        gathered = self._gathered
        gathered.append(delta)
        self._gathered = []
        return "".join(gathered)

    def _take_fast_run(self) -> None:
        """Move the text the fast path took into the block's raw text and the
        call's arguments (one join per run of deltas, not two appends per delta)."""
        fast = self._fast
        assert fast is not None
        run = self._fast_run
        taken = "".join(run)
        run.clear()
        self._raw.append(taken)
        if fast[4] is None:
            fast[0].append(taken)
        else:
            args = self._fast_args
            fast[0].append("".join(args))
            args.clear()

    def _leave_fast_path(self) -> None:
        if self._fast is not None:
            if self._fast_run:
                self._take_fast_run()
            self._fast = None

    def _guarded(self, delta: str, out: list[Event], final: bool) -> None:
        """Run, turning an unexpected exception into an :class:`InternalParserError`
        and the parser into an error state."""
        try:
            self._run(delta, out, final)
            if final:
                self._end_of_stream(out)
        except ToolparseError as exc:  # a caller's mistake noticed mid-stream (an id_factory)
            self._broken = exc
            raise
        except Exception as exc:
            self._broken = InternalParserError(self._grammar.name, self._offset, exc)
            raise self._broken from exc

    # -- reading ------------------------------------------------------------------------

    def _run(self, delta: str, out: list[Event], final: bool) -> None:
        self._ctx.out = out  # (where calls announce themselves and stream their arguments)
        if self._held:
            text = self._held + delta
            self._held = ""
        else:
            text = delta
        i = 0
        n = len(text)
        while i < n:
            machine = self._machine
            if machine is None:
                scanner = self._scanner
                in_reasoning = scanner.in_reasoning
                j, hit = scanner.scan(text, i, final)
                if j > i:
                    piece = text[i:j] if i or j < n else text
                    if in_reasoning:
                        self._emit_reasoning(piece, piece, out)
                    else:
                        self._offset += j - i
                        out.append(new_text_delta(piece))
                if hit is None:
                    if j < n:
                        self._held = text[j:]
                    return
                key = hit.key
                if key is REASONING_OPEN or key is REASONING_CLOSE or key is MARKUP:
                    self._emit_reasoning("", text[hit.start : hit.end], out)  # (markup: in a reasoning event)
                    if key is REASONING_OPEN:
                        scanner.enter_reasoning()
                    elif key is REASONING_CLOSE:
                        scanner.leave_reasoning()
                elif key is ANSWER:  # a forced answer begins
                    assert self._grammar.start is not None
                    self._machine = Machine(self._grammar.start, self._ctx, "")
                    self._answered = True
                else:
                    i = self._open(text, hit, out)
                    continue
                i = hit.end
                continue
            if machine.finished:  # (an opener that is a whole call: <get_time/>)
                leftover = self._finish_block(out)
                assert not leftover
                continue
            raw = self._raw
            room = self._max_call_chars + 1 - raw.length
            span = n - i
            if span <= _WINDOW and span < room:  # (the usual delta: small, well inside the limit)
                limited = False
                j = machine.feed(text, i, self._raw_base + raw.length, final)
            else:
                if room <= 0:  # the opener alone passed the limit
                    self._overflow(out)
                    continue
                window = min(room, max(_WINDOW, raw.length))
                limited = span > window
                if limited:  # never past the size limit; a large delta a growing window at a time
                    j = i + machine.feed(text[i : i + window], 0, self._raw_base + raw.length, final)
                    if machine.waiting and window == room:
                        # undecided where the size limit falls: the block is too large, and what
                        # the window holds is passed over unread (an overflow follows)
                        j = i + window
                else:
                    j = machine.feed(text, i, self._raw_base + raw.length, final)
            if j > i:
                raw.append(text[i:j])
            i = j
            if machine.failed_at >= 0 and not machine.finished and not self._cut_checked:
                self._cut_broken_block(machine, machine.failed_at)
            if machine.finished:
                leftover = self._finish_block(out)
                if leftover:  # raw read past the block's end (a cut): read it again as output
                    text, i, n = self._rewound(text, i, leftover)
                continue
            if raw.length > self._max_call_chars:
                self._overflow(out)
            elif machine.waiting and not limited:
                self._held = text[i:]  # the machine waits for more text
                return
            # (a machine waiting on a window: the next, larger window decides)

    def _rewound(self, text: str, i: int, again: str) -> tuple[str, int, int]:
        """Read ``again`` (raw text already taken into a block) before ``text[i:]``.
        When ``again`` is the part of ``text`` just before ``i``, only the
        position moves; otherwise (it began in an earlier delta) one copy."""
        if len(again) <= i and text.startswith(again, i - len(again)):
            i -= len(again)
            return text, i, len(text)
        text = again + text[i:]
        return text, 0, len(text)

    def _open(self, text: str, hit: Hit, out: list[Event]) -> int:
        """An opener: a block begins. Returns where reading goes on (the
        opener's end, or its start when the block reads it again)."""
        self._cut_checked = False
        key, name = hit.key, hit.name
        if isinstance(key, str) and key in self._scanner.spelled:  # a declared tool's tag, spelled out
            key, name = self._scanner.spelled[key]
        spec = self._grammar.opener_steps[key]
        if spec.again:  # (bare JSON's "{": the block's reader reads it)
            self._machine = Machine(spec, self._ctx, name, 0)
            return hit.start
        self._raw.append(text[hit.start : hit.end])
        self._machine = Machine(spec, self._ctx, name, hit.end - hit.start)
        return hit.end

    # -- block endings --------------------------------------------------------------------

    def _finish_block(self, out: list[Event]) -> str:
        """Turn the finished block into events; return raw text to read again."""
        machine = self._machine
        assert machine is not None
        raw = self._raw.text()
        base = self._raw_base
        end = max(machine.end, base) if machine.end >= 0 else base + len(raw)
        outcomes = machine.take_outcomes()
        if machine.rejected or not outcomes:  # (a block that made nothing of its markup: text)
            self._emit_text(raw[: end - base], out)
        else:
            self._emit_outcomes(outcomes, raw, base, end, out)
        self._machine = None
        self._raw.clear()
        self._raw_base = 0
        kept = raw[: end - base]
        self._scanner.after_block(kept[-1] if kept else "\n")
        return raw[end - base :]

    def _end_of_stream(self, out: list[Event]) -> None:
        if not self._answered and self._machine is None:  # a forced answer that never began (or held no call)
            assert self._grammar.start is not None
            self._machine = Machine(self._grammar.start, self._ctx, "")
            self._answered = True
        machine = self._machine
        while machine is not None:
            end = self._raw_base + self._raw.length
            machine.close(end)
            if machine.unfinished:
                self._cut_broken_block(machine, end)
            leftover = self._finish_block(out)
            if leftover:
                self._run(leftover, out, final=True)
            machine = self._machine

    def _cut_broken_block(self, machine: Machine, before: int) -> None:
        """A broken call ends at its block's first closer, when one lies before
        the point where it broke (an unterminated string swallowed it); what
        follows the closer is read again as ordinary output.

        Only a block that starts outside text already being read again may cut,
        so no character is read more than twice: total work stays linear.
        """
        self._cut_checked = True
        start = self._offset
        closer = machine.closer
        if self._raw_base or start < self._refeed_until or not closer:
            return None
        raw = self._raw.text()
        at = raw.find(closer, max(machine.last_end, 1), before)
        if at < 0:
            return None
        machine.cut(at + len(closer))
        self._refeed_until = start + len(raw)

    def _emit_outcomes(
        self, outcomes: list[Outcome], raw: str, base: int, end: int, out: list[Event]
    ) -> None:
        self._answered = True  # (a forced answer wrapped in markup: read)
        pos = base
        last = len(outcomes) - 1
        for k, outcome in enumerate(outcomes):
            stop = end if k == last or outcome.end is None else outcome.end
            piece = raw[pos - base : stop - base]
            pos = stop
            if outcome.reason is ErrorReason.TOO_LARGE and outcome.index is None:
                if not piece:  # the limit fell exactly at the block's end: nothing is left
                    continue
                if not outcome.message:
                    outcome.message = "the rest of a call that passed max_call_chars"
            event = outcome.to_event(piece, self._offset)
            self._offset += len(piece)
            if self._unknown_on_error and outcome.reason is not None and outcome.index is None:
                # (the AI SDK middleware's behaviour) a forced answer that is not a
                # call becomes a call named "unknown" with {} arguments
                index, call_id = self._ctx.start("unknown")
                out.append(new_call_delta(index, call_id, "{}"))
                out.append(ToolCall(index, call_id, "unknown", {}, piece))
                continue
            out.append(event)
            if self._errors_as_text and outcome.reason is not None and piece:
                out.append(TextDelta(piece))

    def _overflow(self, out: list[Event]) -> None:
        """The block passed max_call_chars: flush what it holds as events and
        keep only looking for its end."""
        machine = self._machine
        assert machine is not None
        current = machine.overflow()
        if current.reason is ErrorReason.TOO_LARGE:
            current.message = (
                f"the call's markup passed max_call_chars={self._max_call_chars}; "
                "the rest of it is passed over"
            )
        current.end = None
        raw = self._raw.text()
        base = self._raw_base
        self._emit_outcomes([*machine.take_outcomes(), current], raw, base, base + len(raw), out)
        self._raw_base = base + len(raw)
        self._raw.clear()

    def _emit_reasoning(self, text: str, raw: str, out: list[Event]) -> None:
        """Reasoning, joined to the reasoning event just before it in this feed."""
        self._offset += len(raw)
        if out and type(out[-1]) is ReasoningDelta:
            last = out[-1]
            assert isinstance(last, ReasoningDelta)
            out[-1] = new_reasoning_delta(last.text + text, last.raw + raw)
        else:
            out.append(new_reasoning_delta(text, raw))

    def _emit_text(self, text: str, out: list[Event]) -> None:
        self._offset += len(text)
        out.append(new_text_delta(text))


@functools.lru_cache(maxsize=64)
def _gather_stops(call_ends: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """What ends gathering inside an announced call (one of ``call_ends``, or a
    string value that begins after ":" or "[", so that it streams from its
    start), and inside one not yet announced (also any quote: its name may end)."""
    chars = re.escape(call_ends)
    # (one character class first, then what the character needs: a delta with
    # none of them, the usual one, is told in a single pass, twice as fast as
    # an alternation of two classes)
    announced = re.compile(rf'[{chars}:\[](?:(?<=[{chars}])|\s*")')
    return announced, re.compile(f'[{chars}"]')


def _only_closes(text: str, start: int, stops: re.Pattern[str], closers: tuple[str, ...]) -> bool:
    """The first of ``stops`` in ``text[start:]`` is a ``>`` that completes one of
    ``closers`` (a value's closing tags, see Machine.value_closers), no markup
    begins in ``text`` before that tag, and nothing after it is one of ``stops``:
    reading ``text`` would decide nothing that cannot wait (gathering goes on)."""
    stop = stops.search(text, start)
    if stop is None or stop.group() != ">" or stops.search(text, stop.end()) is not None:
        return False
    lt = text.find("<")
    return lt >= 0 and text[lt : stop.end()] in closers


def _not_text(delta: object) -> TypeError:
    """The caller's mistake of feeding something that is not a ``str``."""
    return TypeError(f"feed() takes str, not {type(delta).__name__}")


def _collapsed(events: list[Event]) -> list[Event]:
    """``collapse``: only the final ToolCall (and errors) of a forced answer."""
    return [e for e in events if not isinstance(e, (ToolCallStart, ToolCallDelta))]


def join_surrogate_pairs(text: str) -> str:
    """UTF-16 surrogate pairs (as JavaScript sources send them) joined into the
    characters they encode; lone surrogates are kept. The engine reads its input
    this way wherever the pair's halves fall, so chunking cannot matter."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
