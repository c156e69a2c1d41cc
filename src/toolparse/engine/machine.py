"""Running one block of call markup through a compiled grammar's regions.

A :class:`Machine` (the block reader) reads a block from the character after
its opener. In each region the region's reader reads (one class per region
kind, each with its own state: :mod:`toolparse.engine.regions`) and finds the
next terminal; the terminal's step (:meth:`Machine.step`) starts or ends
calls and members and says where reading goes on. The machine reports what
it read and never writes the engine's state: :meth:`feed` returns how far it
read, and the engine asks :attr:`finished`, :attr:`rejected` and
:attr:`failed_at` and takes the :class:`~toolparse.engine.calls.Outcome`\\ s
with :meth:`take_outcomes`.

Where a reader cannot decide yet (a partial terminal at the end of the text
it was given), :meth:`feed` stops there: the engine gives it those
characters again with the next delta. At the end of the stream the engine
feeds what it still holds with ``final=True`` and calls :meth:`close`.
"""

from __future__ import annotations

from typing import Any

from toolparse.engine.calls import (
    Call,
    CallContext,
    EnvelopeCall,
    JsonArgsCall,
    MemberCall,
    Outcome,
)
from toolparse.engine.compile import (
    TO_BEFORE,
    TO_END,
    TO_FAIL,
    TO_REJECT,
    Block,
    COpener,
    CStep,
)
from toolparse.engine.lexicon import Hit
from toolparse.engine.regions import READERS, RegionReader
from toolparse.engine.value import ValueReader
from toolparse.events import ErrorReason, replace_lone_surrogates
from toolparse.readers.json import JsonSyntaxError
from toolparse.readers.pyliteral import parse_literal
from toolparse.readers.xml_tree import fragment_value


class Machine:
    """Reads one block; see the module docstring."""

    __slots__ = (
        "_block",
        "_error",
        "_key",
        "_lenient",
        "_literal",
        "_outcomes",
        "_pending",
        "_properties",
        "_reader",
        "_readers",
        "_region",
        "_regions",
        "_skip_reader",
        "_stop",
        "_xml",
        "block",
        "call",
        "ctx",
        "end",
        "failed_at",
        "finished",
        "json_name",
        "last_end",
        "name",
        "rejected",
        "streams",
        "value",
        "waiting",
    )

    def __init__(self, block: Block, ctx: CallContext) -> None:
        self.block = block
        """The tables of the blocks this machine reads."""
        self._block = block
        self._regions = block.regions
        self.ctx = ctx
        self._xml = block.xml
        self._literal = block.literal
        self._pending: list[str] = []  # value text read before its call began
        self._outcomes: list[Outcome] = []
        # each region's reader (made when first entered: kept for the next block of
        # this kind, as the engine keeps its machine), and the skip region's
        self._readers: list[RegionReader[Any] | None] = [None] * len(self._regions)
        self._skip_reader: RegionReader[Any] | None = None

    def begin(self, opener: COpener, name: str, at: int = 0) -> None:
        """Begin reading a block after ``opener`` (its ``name``, if it names a tool;
        ``at``: the opener's length). Everything a block reads is set afresh here:
        one machine reads every block of its kind in turn."""
        self._lenient = opener.lenient
        self.call: Call | None = None
        """The call being read."""
        self.json_name: str | None = None
        """A call named, its JSON arguments not begun."""
        self.name = name
        """The name just read (an opener tag's name, a Name region's text)."""
        self._key: str | None = None  # the member being read
        self.streams = True
        """The member's text streams as a string."""
        self.value: ValueReader | None = None
        """The value being read (made by its region's reader)."""
        self._pending.clear()
        self._properties: Any = False  # the called tool's property names (False: not looked up)
        self._outcomes = []
        self._error: Outcome | None = None  # ends the block's outcomes, once it ends
        self._stop = False
        self.waiting = False
        """The last :meth:`feed` stopped where more text is needed to decide."""
        self.finished = False
        """The block has ended, or was rejected."""
        self.end = -1
        """Where the block ended (block-relative), once it has."""
        self.rejected = False
        """The opener was only mentioned: it and what was read after it are text."""
        self.failed_at = -1
        """Where the markup broke, once it has."""
        self.last_end = 0
        """Where the last complete call or error ended."""
        self._region = self._regions[opener.region]
        self._reader = self._enter(opener.region)
        if opener.step is not None:  # (taken at ``at``, the end of the opener)
            self.step(opener.step, 0, 0, None, at)

    # -- what the engine asks ----------------------------------------------------------

    @property
    def closer(self) -> str | None:
        """The block's closing marker, when it is a literal."""
        closer = self._block.closer
        return closer if isinstance(closer, str) else None

    def take_outcomes(self) -> list[Outcome]:
        """The calls and errors so far (the block's, when it has ended)."""
        outcomes, self._outcomes = self._outcomes, []
        return outcomes

    @property
    def names_undeclared_tool(self) -> bool:
        """A call of the block names a tool that was not declared: the format's
        call was read, only its tool is unknown (``grammar="auto"`` takes it as
        the format's, so that the error reaches the caller)."""
        return any(o.reason is ErrorReason.UNKNOWN_TOOL and o.name for o in self._outcomes)

    @property
    def committed(self) -> bool:
        """The block has made something of its markup: a call announced, or a
        call or error complete (it will not be read as text)."""
        return bool(self._outcomes) or self.announced

    @property
    def announced(self) -> bool:
        """The call being read has been announced."""
        return self.call is not None and self.call.started

    # -- the TagContext of the lexicons ------------------------------------------------

    @property
    def key(self) -> str | None:
        return self._key

    @property
    def call_name(self) -> str | None:
        call = self.call
        return call.name if call is not None else self.name or None

    @property
    def tool_names(self) -> tuple[str, ...] | None:
        return self.ctx.tool_names

    def given(self, name: str) -> bool:
        call = self.call
        return isinstance(call, MemberCall) and call.has(name)

    @property
    def property_names(self) -> tuple[str, ...] | None:
        if self._properties is False:
            self._properties = self.ctx.property_names_of(self.call_name)
        names: tuple[str, ...] | None = self._properties
        return names

    # -- reading -----------------------------------------------------------------------

    def feed(self, text: str, i: int, pos: int, final: bool = False) -> int:
        """Read ``text[i:]`` (``pos``: block position of ``text[i]``); return where
        reading stopped: the end of the text, the block's end, or a place where
        more text is needed (the engine gives the rest again)."""
        base = pos - i
        self._stop = False
        self.waiting = False
        n = len(text)
        while i < n and not self._stop:
            i = self._reader.read(text, i, base, final)
        return i

    def close(self, pos: int) -> None:
        """The stream ended at block position ``pos`` (held text already fed, final)."""
        if self.finished:
            return
        region = self._region
        if self.value is not None:
            self.value.finish()
        if self.call is not None and self._reader.in_body:
            self._finish_json(pos)
        if self.finished:
            return
        if region.at_end is not None and self.failed_at < 0:
            self.step(region.at_end, 0, 0, None, pos)
            if self.finished:
                return
        if self.call is not None or self.json_name is not None:
            self._unfinished(pos, "the stream ended inside the call")
        elif self._error is None and not self._outcomes:
            if self._lenient:
                self.rejected = self.finished = True
                return
            self._unfinished(pos, "the stream ended before the call")
        self._end(pos)

    @property
    def unfinished(self) -> bool:
        """The block ended with the stream, inside a call."""
        return (
            self.end >= 0
            and bool(self._outcomes)
            and self._outcomes[-1].reason is ErrorReason.UNFINISHED_CALL
        )

    def cut(self, end: int) -> None:
        """The engine found the block's closer at ``end`` inside a call that
        broke later (an unterminated string swallowed it): the block ends there."""
        if self.end >= 0:  # (at the end of the stream: the block had ended, unfinished)
            last = self._outcomes[-1]
            last.reason = ErrorReason.MALFORMED_JSON
            last.message = f"a value was never closed before {self.closer}"
            self.end = end
            return
        self._end(end)

    def overflow(self) -> Outcome:
        """The block passed the size limit: return the outcome of the call in
        progress (its raw ends here) and only look for the block's end."""
        current = self._error  # a call that already failed ends with its own reason
        if current is None or current.reason is ErrorReason.TOO_LARGE:
            current = self._now(ErrorReason.TOO_LARGE, "")
        self._drop()
        self._error = Outcome(None, reason=ErrorReason.TOO_LARGE)
        self._region = self._block.skip
        self._reader = self._enter(-1)
        return current

    # -- what the region readers use (see toolparse.engine.regions) -------------------

    def wait(self, at: int) -> int:
        """Stop at ``at``: more text is needed to decide (read it again with the next delta)."""
        self._stop = True
        self.waiting = True
        return at

    def declares(self, name: str) -> bool:
        tools = self.ctx.tools
        return tools is not None and name in tools

    def value_text(self, piece: str) -> None:
        call = self.call
        if isinstance(call, MemberCall) and self._key is not None:
            call.text(piece)
        else:
            self._pending.append(piece)

    def _finish_json(self, pos: int) -> None:
        call = self.call
        assert isinstance(call, (EnvelopeCall, JsonArgsCall))
        try:
            whole = call.reader.finish()
        except JsonSyntaxError as exc:
            self.fail_json(call.error(None, exc.reason, exc.message), pos)
            return
        call.flush()
        if whole:
            self.complete(pos)
        else:
            self._unfinished(pos, "the stream ended inside the call")

    # -- steps -------------------------------------------------------------------------

    def step(self, step: CStep, start: int, end: int, hit: Hit | None, base: int) -> int:
        """Take a step at the terminal (or character) ``text[start:end]``; return
        where reading goes on."""
        to = step.to
        if to == TO_FAIL:
            if step.reason is ErrorReason.MALFORMED_JSON:
                self.fail_json(self._now(step.reason, step.message), base + start)
            else:
                self.fail(step.message, base + start, step.reason)
            return start
        if (step.require_sole_string or step.sole_string) and self._sole_string() is None:
            to = TO_REJECT
        else:
            if step.call:
                self._start_call(step.json_call)
            if step.member:
                self._begin_member(
                    self._sole_string() if step.sole_string else hit.name if hit and hit.name else self.name
                )
            if step.end_member:
                self._end_member()
            if step.end_call:
                self._end_call(base + (start if to == TO_BEFORE else end))
        if step.again:
            end = start
        if to >= 0:
            self.goto(to, end, base)
            return end
        if to == TO_END:
            self._end(base + end)
            return end
        if to == TO_BEFORE:
            self._end(base + start)
            return start
        if to == TO_REJECT:
            self._reject(base + start)
            return start
        return end  # TO_STAY

    def goto(self, index: int, at: int, base: int) -> None:
        """Reading goes on in the region ``index`` at ``at`` (a negative index: the
        step of that number, as a JSON reader's ``then`` that ends the block)."""
        if index < 0:
            self.step(CStep(index), at, at, None, base)
            return
        self._region = self._regions[index]
        self._reader = self._enter(index)

    def _enter(self, index: int) -> RegionReader[Any]:
        """The reader of the region ``index`` (-1: the skip region), entered (made
        when first entered)."""
        reader = self._readers[index] if index >= 0 else self._skip_reader
        if reader is None:
            region = self._regions[index] if index >= 0 else self._block.skip
            reader = READERS[type(region)](self, region)
            if index >= 0:
                self._readers[index] = reader
            else:
                self._skip_reader = reader
        if reader.stateful:
            reader.enter()
        return reader

    def _sole_string(self) -> str | None:
        call = self.call
        if isinstance(call, MemberCall):
            return call.sole_string_property()
        return MemberCall.sole_string_of(self.ctx.schema_of(self.name) if self.ctx.coerce else None)

    def _start_call(self, json: bool) -> None:
        self._properties = False
        if json:
            self.json_name = self.name
            return
        if self._literal:
            self.call = MemberCall(self.ctx, self.name, convert=self._python_literal, literal=True)
            return
        convert = self._fragment if self._xml else None
        self.call = MemberCall(self.ctx, self.name, convert=convert)

    def _python_literal(self, text: str) -> object:
        return parse_literal(text, max_depth=self.ctx.max_depth)

    def _fragment(self, text: str) -> object:
        return fragment_value(text, max_depth=self.ctx.max_depth)

    def _begin_member(self, key: str | None) -> None:
        call = self.call
        if not isinstance(call, MemberCall) or key is None:
            self.streams = True
            return
        self._key = key
        self.streams = call.begin(key)
        if self._pending:
            for piece in self._pending:
                call.text(piece)
            self._pending.clear()

    def _end_member(self) -> None:
        call = self.call
        if isinstance(call, MemberCall) and self._key is not None:
            call.end()
        self._key = None
        self.value = None
        self.streams = True

    def _end_call(self, pos: int) -> None:
        if self.call is None and self.json_name is not None:  # named, but no arguments written
            self.name = self.json_name
            self.json_name = None
            self._start_call(json=False)
        call = self.call
        if call is None:
            return
        call.close()
        self.complete(pos)

    def complete(self, pos: int) -> None:
        call = self.call
        assert call is not None
        self._outcomes.append(call.outcome(pos))
        self.last_end = pos
        self.call = None
        self._key = None
        self.value = None
        self._properties = False

    # -- endings -----------------------------------------------------------------------

    def _end(self, pos: int) -> None:
        if self.call is not None or self.json_name is not None:
            self._error = self._now(ErrorReason.MALFORMED_MARKUP, "the block ended inside the call")
        self._drop()
        if (
            self._lenient
            and not any(o.name is not None for o in self._outcomes)
            and (self._error is None or self._error.index is None)
        ):
            self.rejected = self.finished = True  # a lenient wrapper (<tools>, ...) holding no call is text
            self._error = None
            self._stop = True
            return
        if self._error is not None:
            self._outcomes.append(self._error)
            self._error = None
        self.end = pos
        self.finished = True
        self._stop = True

    def _reject(self, pos: int) -> None:
        if self._outcomes or (self.call is not None and self.call.started):
            self._end(pos)  # calls already announced stand: the block simply ends here
            return
        self._drop()
        self.rejected = self.finished = True
        self.end = -1
        self._stop = True

    def _now(self, reason: ErrorReason, message: str) -> Outcome:
        call = self.call
        if call is not None:
            call.flush()
            return call.error(None, reason, message)
        name = self.json_name
        return Outcome(None, name and replace_lone_surrogates(name), reason=reason, message=message)

    def _unfinished(self, pos: int, message: str) -> None:
        self._error = self._now(ErrorReason.UNFINISHED_CALL, message)
        self._drop()

    def fail(self, message: str, at: int, reason: ErrorReason = ErrorReason.MALFORMED_MARKUP) -> None:
        """Broken markup at ``at`` (the reason its declaration gives): the error runs
        to the block's end, wherever that is."""
        self._error = self._now(reason, message)
        self._broken(at)

    def fail_json(self, error: Outcome, at: int) -> None:
        """A JSON syntax error. Calls already complete in the same block are not
        trusted either (the model did not write the block it meant to): each
        becomes an error of its own, so every announced call still ends in
        exactly one event."""
        for outcome in self._outcomes:
            if outcome.reason is None or outcome.reason is ErrorReason.UNKNOWN_TOOL:
                outcome.reason = ErrorReason.MALFORMED_JSON
                outcome.message = f"the block holding this call is malformed: {error.message}"
        self._error = error
        self._broken(at)

    def _broken(self, at: int) -> None:
        self.failed_at = at
        self._drop()
        self._region = self._block.skip
        self._reader = self._enter(-1)
        self._stop = True  # (the engine looks for a closer to cut the block at)

    def _drop(self) -> None:
        self.call = None
        self.json_name = None
        self.value = None
        self._key = None
        self._pending.clear()
