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

This is the reference: every delta is read this one way, the full path, by
one reader per region, inside one error boundary (a bug anywhere leaves the
parser latched in an error state). The short paths that take most deltas
without a reader (the lanes) are the native core's alone (``native/core/src/engine/lanes.rs``),
checked against this full path event for event (``tests/test_native.py``,
``toolparse fuzz --compare``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Final, cast

from toolparse.engine import native
from toolparse.engine.auto import TRIAL
from toolparse.engine.calls import CallContext, Outcome
from toolparse.engine.compile import Block, CompiledGrammar, COpener
from toolparse.engine.declare import Grammar, Reasoning
from toolparse.engine.lexicon import Hit
from toolparse.engine.machine import Machine
from toolparse.engine.native import concrete, use_native
from toolparse.engine.text import ANSWER, MARKUP, REASONING_CLOSE, REASONING_OPEN, TextScanner
from toolparse.engine.thought import WINDOW as THOUGHT_WINDOW
from toolparse.engine.thought import ThoughtReader, own_context
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
    new_call_delta,
    new_reasoning_delta,
    new_text_delta,
)
from toolparse.readers.pieces import Pieces

if TYPE_CHECKING:  # (typed by its stub, toolparse/_native.pyi; imported at run time only where built)
    from toolparse._native import Core as NativeCore

_WINDOW: Final = 4096  # the least of a large delta a block is given at a time


class Engine:
    """Turns a model's output, delta by delta, into text and tool-call events,
    following one compiled grammar. (:class:`toolparse.StreamParser` is the
    front that builds one from a grammar's name and the caller's options.)"""

    # (no layout of its own: the concrete classes that run are built from this one
    # and a shell, the reference's or the native core's, with these slots; see
    # toolparse.engine.native.concrete)
    if not TYPE_CHECKING:
        __slots__ = ()
    _state: ClassVar[tuple[str, ...]] = (
        "_answered",
        "_broken",
        "_closed",
        "_collapse",
        "_ctx",
        "_cut_checked",
        "_errors_as_text",
        "_grammar",
        "_held",
        "_high_surrogate",
        "_machine",
        "_machines",
        "_max_call_chars",
        "_offset",
        "_raw",
        "_raw_base",
        "_reasoning_calls",
        "_reasoning_for",
        "_reasoning_runs",
        "_refeed_until",
        "_scanner",
        "_thought",
        "_thought_chars",
        "_thought_reader",
        "_trial",
        "_trial_from",
        "_trial_markdown",
        "_unknown_on_error",
    )
    """The slots of the engine's state (each class of the engine names its own)."""
    _native_state: ClassVar[tuple[str, ...]] = (
        "_grammar",
        "_reasoning_for",
        "_ctx",
        "_errors_as_text",
        "_max_call_chars",
        "_collapse",
        "_unknown_on_error",
    )
    """The attributes ``__init__`` sets in Python where the native core runs
    (a parser made from a prototype copies them: :meth:`_made_like`)."""
    engine: ClassVar[str] = "python"
    """Which engine runs: ``"python"`` (the reference) or ``"native"`` (see
    :mod:`toolparse.engine.native`)."""

    def __new__(cls, *args: Any, engine: str | None = None, **kwargs: Any) -> Engine:
        if "_concrete" not in cls.__dict__:  # (the class named: run one of its concrete twins)
            cls = concrete(cls, use_native(engine))
        return super().__new__(cls)

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
        lanes: bool = True,
        reasoning_calls: str = "report",
        reasoning_for: Callable[[Grammar], Reasoning | None] | None = None,
        reasoning_option: str | Reasoning | None = None,
        engine: str | None = None,
    ) -> None:
        """``engine``: ``"native"``, ``"python"`` or None (the default: see
        :func:`toolparse.engine.native.use_native`); chosen by ``__new__``.
        ``lanes``: the native core's short paths (False: it reads every delta
        through its full path); the reference has none, and ignores it.
        ``reasoning_option``: (``grammar="auto"``) the option ``reasoning_for``
        resolves, as given: the native core resolves each member's from it."""
        self._grammar = grammar
        # (grammar="auto") the reasoning of the grammar decided, by its declaration
        self._reasoning_for = reasoning_for or (lambda _: reasoning)
        self._ctx = ctx
        self._errors_as_text = errors_as_text
        self._max_call_chars = max_call_chars
        self._collapse = collapse
        self._unknown_on_error = unknown_on_error
        # (with reasoning, or markup that may wrap it, a forced answer begins
        # where the scanner says)
        answer_later = grammar.start is not None and (reasoning is not None or bool(grammar.openers.terms))
        keeps = reasoning is not None and reasoning_calls != "ignore" and grammar.start is None
        if self.engine == "native":  # (the native core holds the rest: this is a _native.Core too)
            cast("NativeCore", self)._native_start(
                grammar,
                ctx,
                ctx.tool_names,
                reasoning,
                reasoning_option,
                answer_later,
                errors_as_text=errors_as_text,
                max_call_chars=max_call_chars,
                collapse=collapse,
                unknown_on_error=unknown_on_error,
                lanes=lanes,
                reasoning_calls=reasoning_calls,
                thought=keeps and bool(grammar.openers.terms),
            )
            return
        self._scanner = TextScanner(grammar, ctx, reasoning, answer=answer_later)
        self._answered = grammar.start is None  # (a forced answer's block has begun)
        self._held = ""  # input a reader could not decide on yet: read again with the next delta
        self._high_surrogate = ""  # a UTF-16 pair's first half, waiting for its second
        self._machine: Machine | None = None  # the block being read
        self._machines: dict[Block, Machine] = {}  # (a block reader per block kind, kept)
        self._raw = Pieces()  # the current block's raw text (from _raw_base on)
        self._raw_base = 0
        self._offset = 0  # stream position of the first character not yet in an event
        self._closed = False
        self._broken: ToolparseError | None = None
        self._refeed_until = 0  # stream position up to which input is being read again
        self._cut_checked = False
        # (grammar="auto", undecided) the opener of a block not confirmed yet: no call
        # announced (its index would be _trial_from). See toolparse.engine.auto.
        self._trial = ""
        self._trial_from = 0
        self._trial_markdown: int | None = None  # (the code or quote its opener, a token, ended)
        self._reasoning_runs = False  # two reasoning events were made in a row: join them
        # the text of reasoning still open, where a call could be found in it (toolparse.engine.thought)
        self._reasoning_calls = reasoning_calls
        self._thought: list[str] | None = [] if keeps and grammar.openers.terms else None
        self._thought_chars = 0
        self._thought_reader: ThoughtReader | None = None  # (what the kept text let go, read)
        if grammar.start is not None and not answer_later:  # the whole output is one block
            self._begin(grammar.start, "")

    def _made_like(self) -> Engine:
        """A parser as this one was when it was built: ``self`` is a prototype
        of the native core, built as any parser and never fed (see
        :mod:`toolparse.parser`). Its attributes are shared (none changes once
        built), its call context copied (:meth:`CallContext.fresh`), and its
        native engine made anew from the same parts."""
        assert native._native is not None and self.engine == "native"
        made: Engine = native._native.Core.__new__(type(self))
        for name in self._native_state:
            setattr(made, name, getattr(self, name))
        ctx = made._ctx = self._ctx.fresh()
        # (both concrete twins of the native core: (engine class, _native.Core))
        cast("NativeCore", made)._native_fresh(cast("NativeCore", self), ctx)
        return made

    if TYPE_CHECKING:  # (each concrete twin's base has them: ReferenceShell, or the native core)

        @property
        def grammar_name(self) -> str:
            """The grammar being read: ``"auto"`` until a call decides which (then its name)."""

        @property
        def decided(self) -> str | None:
            """(``grammar="auto"``) the grammar a call decided, or None while none has
            (from the moment the first call is announced); with a grammar given by
            name, that name."""

        @property
        def lane(self) -> str | None:
            """The native core's lane armed for the next delta ("text", "string",
            "gather", ...), or None: it will be read through the full path (always,
            in the reference, which has no lanes). For tests and debugging."""

        def close(self) -> list[Event]:
            """End of the stream: flush held text and finish (or fail) an open call."""

    # -- public -----------------------------------------------------------------------

    if TYPE_CHECKING:

        def feed(self, delta: str) -> list[Event]:
            """Parse the next piece of model output; return the events it completes.
            (Each concrete twin's base has it: :class:`ReferenceShell`, or the
            native core's shell; so a subclass's own ``feed`` comes first, and its
            ``super().feed`` reaches the engine's.)"""

    def __copy__(self) -> Engine:
        raise self._not_copied("copied")

    def __deepcopy__(self, memo: object) -> Engine:
        raise self._not_copied("copied")

    def __reduce_ex__(self, protocol: object) -> Any:
        raise self._not_copied("pickled")

    def _not_copied(self, how: str) -> TypeError:
        """(both engines alike) A parser is not copied: it holds one stream's state."""
        return TypeError(f"a {type(self).__name__} cannot be {how}: it holds one stream's state")

    def _reference_feed(self, delta: str) -> list[Event]:
        """The reference's ``feed`` (see :class:`ReferenceShell`)."""
        if self._broken is not None or self._closed or type(delta) is not str:
            self._refuse(delta, "feed() called after close(): this parser is finished")
        try:
            return self._read(delta)
        except Exception as exc:
            raise self._latch(exc)  # noqa: B904 (the cause is set by _latch)

    def _reference_close(self) -> list[Event]:
        """The reference's ``close`` (see :class:`ReferenceShell`)."""
        if self._broken is not None or self._closed:
            self._refuse("", "close() called twice: this parser is already closed")
        self._closed = True
        out: list[Event] = []
        try:
            self._run(self._high_surrogate, out, final=True)
            self._high_surrogate = ""
            self._end_of_stream(out)
            if self._thought and self._scanner.in_reasoning:
                self._calls_in_thought(out)
            if self._reasoning_runs:
                out = self._joined_reasoning(out)
        except Exception as exc:
            raise self._latch(exc)  # noqa: B904 (the cause is set by _latch)
        return _collapsed(out) if self._collapse else out

    def _reference_grammar_name(self) -> str:
        """The grammar being read: ``"auto"`` until a call decides which (then its name)."""
        return self._grammar.name

    def _reference_decided(self) -> str | None:
        """(``grammar="auto"``) the grammar a call decided, or None while none has
        (from the moment the first call is announced); with a grammar given by
        name, that name."""
        auto = self._grammar.auto
        if auto is None:
            return self._grammar.name
        machine = self._machine
        return auto.owners[machine.block] if machine is not None and machine.committed else None

    def _reference_lane(self) -> str | None:
        """None: the reference arms no lane, it reads every delta through the
        full path (the lanes are the native core's)."""
        return None

    # -- the error boundary -------------------------------------------------------------

    def _refuse(self, delta: object, closed: str) -> None:
        """Raise the caller's mistake, if any: a parser broken or closed (``closed``
        says which call came too late), or a delta not a ``str``."""
        if self._broken is not None:
            raise self._broken
        if self._closed:
            raise StreamClosedError(closed)
        if not isinstance(delta, str):
            raise TypeError(f"feed() takes str, not {type(delta).__name__}")

    def _latch(self, exc: Exception) -> ToolparseError:
        """Leave the parser in an error state: every later ``feed`` or ``close``
        raises the same error. A bug inside the parser becomes an
        :class:`InternalParserError`; a caller's mistake noticed mid-stream (an
        ``id_factory`` that fails) stays as it was raised."""
        if isinstance(exc, ToolparseError):
            self._broken = exc
            return exc
        broken = self._broken = InternalParserError(self._grammar.name, self._offset, exc)
        broken.__cause__ = exc
        return broken

    # -- the full path -------------------------------------------------------------------

    def _read(self, delta: str) -> list[Event]:
        """Read ``delta`` through the scanner or the block's readers."""
        if self._high_surrogate:
            delta = self._high_surrogate + delta
            self._high_surrogate = ""
        if not delta.isascii() and SURROGATE.search(delta) is not None:
            delta = join_surrogate_pairs(delta)
            if "\ud800" <= delta[-1] <= "\udbff":  # a UTF-16 pair split across deltas: wait for the low half
                self._high_surrogate = delta[-1]
                delta = delta[:-1]
        out: list[Event] = []
        if delta:
            self._run(delta, out, False)
            if self._reasoning_runs:
                out = self._joined_reasoning(out)
            if self._collapse:
                out = _collapsed(out)
        return out

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
                    # (markup: in a reasoning event; reasoning that a marker ends before it has no
                    # closer of its own to show)
                    if hit.end > hit.start:
                        self._emit_reasoning("", text[hit.start : hit.end], out)
                    if key is REASONING_OPEN:
                        scanner.enter_reasoning()
                    elif key is REASONING_CLOSE:
                        scanner.leave_reasoning()
                    if key is not MARKUP and self._thought:  # (a thought begins or ends: forget it)
                        self._thought = []
                        self._thought_chars = 0
                        self._thought_reader = None
                elif key is ANSWER:  # a forced answer begins
                    assert self._grammar.start is not None
                    self._begin(self._grammar.start, "")
                else:
                    i = self._open(text, hit, final)
                    if i < 0:  # (auto: what follows a shared opener does not tell whose it is yet)
                        self._held = text[hit.start :]
                        starts = self._grammar.start_openers
                        if starts is not None and hit.key in starts.terms:
                            scanner.answer_begins_again()  # (the opener counts where the answer begins)
                        return
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
            trial = self._unconfirmed()
            if trial and span > (left := min(TRIAL, self._max_call_chars) - raw.length):
                limited = True  # (an opener not confirmed yet: its block reads TRIAL characters at most)
                j = (
                    i + machine.feed(text[i : i + left], 0, self._raw_base + raw.length, False)
                    if left > 0
                    else i
                )
            elif span <= _WINDOW and span < room:  # (the usual delta: small, well inside the limit)
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
            if trial and not machine.finished and self._unconfirmed() and (limited or machine.failed_at >= 0):
                # (it broke, or needs more than TRIAL characters, before announcing a call)
                text, i, n = self._rewound(text, i, self._abandon(out))
                continue
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

    def _open(self, text: str, hit: Hit, final: bool) -> int:
        """An opener: a block begins. Returns where reading goes on (the
        opener's end, or its start when the block reads it again), or -1 to
        wait for more text (see toolparse.engine.auto)."""
        self._cut_checked = False
        key, name = hit.key, hit.name
        if isinstance(key, str) and key in self._scanner.spelled:  # a declared tool's tag, spelled out
            key, name = self._scanner.spelled[key]
        auto = self._grammar.auto
        if auto is not None and key in auto.deciders:  # (its reasoning markup: read again as its grammar)
            assert isinstance(key, str)
            self._decide(auto.deciders[key])
            return hit.start
        if auto is not None and key in auto.claims:  # (an opener several grammars share)
            claim = auto.choose(key, text, hit.end, final)
            if claim is None:
                return -1
            spec = claim.opener
        else:
            spec = self._grammar.opener_steps[key]
        if auto is not None and self._max_call_chars >= TRIAL:
            # (undecided: the opener is confirmed only by a call its block announces; a call
            # limit below the trial's window leaves no room to confirm, so the opener decides)
            self._trial = text[hit.start : hit.end]
            self._trial_from = self._ctx.next_index
            self._trial_markdown, self._scanner.ended = self._scanner.ended, None
        else:
            self._scanner.ended = None
        if spec.again:  # (bare JSON's "{": the block's reader reads it)
            self._begin(spec, name)
            return hit.start
        self._raw.append(text[hit.start : hit.end])
        self._begin(spec, name, hit.end - hit.start)
        return hit.end

    def _begin(self, opener: COpener, name: str, at: int = 0) -> None:
        """A block begins after ``opener``: read by the block reader of its kind
        (one per kind, kept from block to block with its region readers)."""
        machine = self._machines.get(opener.block)
        if machine is None:
            machine = self._machines[opener.block] = Machine(opener.block, self._ctx)
        self._machine = machine
        if opener is self._grammar.start:
            self._answered = True
        machine.begin(opener, name, at)

    # -- block endings --------------------------------------------------------------------

    def _finish_block(self, out: list[Event]) -> str:
        """Turn the finished block into events; return raw text to read again."""
        machine = self._machine
        assert machine is not None
        if self._unconfirmed() and not machine.names_undeclared_tool:
            return self._abandon(out)  # (it ended, as text or an error, before announcing a call)
        self._trial = ""
        raw = self._raw.text()
        base = self._raw_base
        end = max(machine.end, base) if machine.end >= 0 else base + len(raw)
        outcomes = machine.take_outcomes()
        if machine.rejected or not outcomes:  # (a block that made nothing of its markup: text)
            self._emit_text(raw[: end - base], out)
        else:
            self._emit_outcomes(outcomes, raw, base, end, out)
            auto = self._grammar.auto
            if auto is not None:  # (the model wrote this grammar's markup: it is the stream's)
                self._decide(auto.owners[machine.block])
        self._machine = None
        self._raw.clear()
        self._raw_base = 0
        kept = raw[: end - base]
        self._scanner.after_block(kept[-1] if kept else "\n")
        return raw[end - base :]

    def _unconfirmed(self) -> bool:
        """(``grammar="auto"``, undecided) The block being read is an opener's
        that no call has confirmed yet (a call announced confirms it)."""
        if not self._trial:
            return False
        if self._ctx.next_index != self._trial_from:
            self._trial = ""
            return False
        return True

    def _abandon(self, out: list[Event]) -> str:
        """(``grammar="auto"``) The block of an opener that no call confirmed:
        the opener is text, and what the block read after it is read again as
        output (at most TRIAL characters, once per opener: linear)."""
        machine = self._machine
        assert machine is not None
        opener = self._trial
        raw = self._raw.text()
        assert not self._raw_base and raw.startswith(opener)
        machine.take_outcomes()  # (errors of markup only mentioned: none is shown)
        self._trial = ""
        self._machine = None
        self._raw.clear()
        self._emit_text(opener, out)
        if self._trial_markdown is not None:  # (a token mentioned in code: the code goes on)
            self._scanner.resume(self._trial_markdown)
        else:
            self._scanner.after_block(opener[-1])
        return raw[len(opener) :]

    def _decide(self, name: str) -> None:
        """(``grammar="auto"``) Read the rest of the stream as the grammar ``name``."""
        auto = self._grammar.auto
        assert auto is not None
        grammar = self._grammar = auto.members[name]
        self._scanner = self._scanner.switched(grammar, self._reasoning_for(auto.declarations[name]))

    def _end_of_stream(self, out: list[Event]) -> None:
        if not self._answered and self._machine is None:  # a forced answer that never began (or held no call)
            assert self._grammar.start is not None
            self._begin(self._grammar.start, "")
        machine = self._machine
        while machine is not None:
            end = self._raw_base + self._raw.length
            machine.close(end)
            if machine.unfinished and not self._unconfirmed():
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
        """Reasoning (joined to the reasoning event just before it in this feed
        when the read ends: see _joined_reasoning)."""
        self._offset += len(raw)
        if text and self._thought is not None:
            self._keep_thought(text)
        if out and type(out[-1]) is ReasoningDelta:
            self._reasoning_runs = True
        out.append(new_reasoning_delta(text, raw))

    def _keep_thought(self, text: str) -> None:
        """Keep reasoning text, its last WINDOW characters at least (bounded);
        what the window lets go is read by the thought's shadow reader, so its
        Markdown is known where the window begins (see toolparse.engine.thought)."""
        assert self._thought is not None
        self._thought.append(text)
        self._thought_chars += len(text)
        if self._thought_chars > 2 * THOUGHT_WINDOW:
            kept = "".join(self._thought)
            self._thought_reader = thought_read(
                self._thought_reader,
                self._grammar,
                self._ctx,
                self._max_call_chars,
                self.engine,
                kept[:-THOUGHT_WINDOW],
            )
            self._thought, self._thought_chars = [kept[-THOUGHT_WINDOW:]], THOUGHT_WINDOW

    def _calls_in_thought(self, out: list[Event]) -> None:
        """The stream ended in reasoning: the calls its kept text completes, read
        by a shadow engine (same grammar and tools, no reasoning), reported or
        salvaged (see toolparse.engine.thought)."""
        assert self._thought is not None
        text = "".join(self._thought)
        self._thought = []
        salvage = self._reasoning_calls == "salvage"
        reader, self._thought_reader = self._thought_reader, None
        grammar, ctx, limit = self._grammar, self._ctx, self._max_call_chars
        out.extend(shadow_calls(grammar, ctx, limit, self.engine, text, salvage, self._offset, reader))

    def _joined_reasoning(self, events: list[Event]) -> list[Event]:
        """``events`` with each run of adjacent reasoning events joined into one
        (in one pass: joining each to the last as it came was quadratic in a
        delta of many short reasoning blocks)."""
        self._reasoning_runs = False
        joined: list[Event] = []
        run: list[ReasoningDelta] = []
        for event in [*events, None]:
            if type(event) is ReasoningDelta:
                run.append(event)
                continue
            if len(run) == 1:
                joined.append(run[0])
            elif run:
                text = "".join([e.text for e in run])
                joined.append(new_reasoning_delta(text, "".join([e.raw for e in run])))
            run = []
            if event is not None:
                joined.append(event)
        return joined

    def _emit_text(self, text: str, out: list[Event]) -> None:
        self._offset += len(text)
        out.append(new_text_delta(text))


def shadow_calls(
    grammar: CompiledGrammar,
    ctx: CallContext,
    max_call_chars: int,
    engine: str,
    text: str,
    salvage: bool,
    offset: int,
    reader: ThoughtReader | None = None,
) -> list[Event]:
    """The events of the calls that begin in the last window of ``text``, the
    kept text of reasoning that never closed, read by a shadow engine (same
    grammar and tools, no reasoning: ``reader``, where it has read what the
    window let go before), reported or salvaged (see
    :mod:`toolparse.engine.thought`). Both engines call it, once, at the end of
    such a stream."""
    head, window = text[:-THOUGHT_WINDOW], text[-THOUGHT_WINDOW:]
    reader = thought_read(reader, grammar, ctx, max_call_chars, engine, head)
    return reader.calls(window, salvage, offset, ctx)


def thought_read(
    reader: ThoughtReader | None,
    grammar: CompiledGrammar,
    ctx: CallContext,
    max_call_chars: int,
    engine: str,
    text: str,
) -> ThoughtReader:
    """``reader`` (or a new one) after reading ``text``, which the window of
    unclosed reasoning let go. Both engines call it, once a window's worth."""
    if reader is None:
        shadow = Engine(
            grammar, own_context(ctx), errors_as_text=False, max_call_chars=max_call_chars, engine=engine
        )
        reader = ThoughtReader(shadow)
    if text:
        reader.let_go(text)
    return reader


class ReferenceShell:
    """The base of the reference's concrete twins: its ``feed``, ``close`` and
    properties (the native core's twin is ``toolparse._native.Core``; see
    :mod:`toolparse.engine.native`)."""

    __slots__ = ()
    feed = Engine._reference_feed
    close = Engine._reference_close
    grammar_name = property(Engine._reference_grammar_name, doc=Engine._reference_grammar_name.__doc__)
    decided = property(Engine._reference_decided, doc=Engine._reference_decided.__doc__)
    lane = property(Engine._reference_lane, doc=Engine._reference_lane.__doc__)


def _collapsed(events: list[Event]) -> list[Event]:
    """``collapse``: only the final ToolCall (and errors) of a forced answer."""
    return [e for e in events if not isinstance(e, (ToolCallStart, ToolCallDelta))]


def join_surrogate_pairs(text: str) -> str:
    """UTF-16 surrogate pairs (as JavaScript sources send them) joined into the
    characters they encode; lone surrogates are kept. The engine reads its input
    this way wherever the pair's halves fall, so chunking cannot matter."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
