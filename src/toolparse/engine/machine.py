"""Running one block of call markup through a compiled grammar's regions.

A :class:`Machine` reads a block from the character after its opener. In
each region the region's reader reads (see :mod:`toolparse.engine.declare`)
and the lexicon finds the next terminal; the terminal's step starts or ends
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

import re
from collections.abc import Callable
from typing import Any, Final

from toolparse.engine.calls import (
    Call,
    CallContext,
    EnvelopeCall,
    JsonArgsCall,
    MemberCall,
    OpenString,
    Outcome,
)
from toolparse.engine.compile import (
    JSON_ARGS,
    JSON_CALLS,
    LITERAL,
    NAME,
    NOT_NAME,
    NOT_NAME_STRIPPED,
    TO_BEFORE,
    TO_END,
    TO_FAIL,
    TO_REJECT,
    TO_STAY,
    VALUE,
    COpener,
    CRegion,
    CStep,
)
from toolparse.engine.lexicon import Hit
from toolparse.engine.value import ValueReader, only_closes
from toolparse.events import ErrorReason
from toolparse.readers.json import JsonSyntaxError
from toolparse.readers.pyliteral import parse_literal
from toolparse.readers.xml_tree import fragment_value

_NOT_SPACE: Final = re.compile(r"[^ \t\r\n]")
_WS: Final = frozenset(" \t\r\n")

# JSON calls reader states
_LEAD = 0  # before the first call object
_BODY = 1  # inside a call object
_BETWEEN = 2  # after a call object

_REJECT_STEP: Final = CStep(TO_REJECT)
_QUOTE_STOPS: Final = {q: re.compile(q) for q in "'\""}


def _longest_name(region: CRegion) -> int:
    """How long a name region's text may grow (a stripped name may carry spaces)."""
    return region.max_len + (64 if region.strip else 0)


def _length(parts: list[str]) -> int:
    return len(parts[0]) if len(parts) == 1 else sum(map(len, parts))


class Machine:
    """Reads one block; see the module docstring."""

    __slots__ = (
        "_block",
        "_call",
        "_ctx",
        "_error",
        "_in_array",
        "_json_name",
        "_jstate",
        "_key",
        "_lenient",
        "_lit_depth",
        "_lit_escape",
        "_lit_quote",
        "_literal",
        "_name",
        "_name_parts",
        "_outcomes",
        "_pending",
        "_properties",
        "_read",
        "_readers",
        "_region",
        "_regions",
        "_stop",
        "_streams",
        "_value",
        "_waiting",
        "_xml",
        "end",
        "failed_at",
        "finished",
        "last_end",
        "rejected",
        "waiting",
    )

    def __init__(self, opener: COpener, ctx: CallContext, name: str, at: int = 0) -> None:
        self._block = opener.block
        self._regions = opener.block.regions
        self._ctx = ctx
        self._lenient = opener.lenient
        self._call: Call | None = None
        self._json_name: str | None = None  # a call named, its JSON arguments not begun
        self._name = name  # the name just read (an opener tag's name, a Name region's text)
        self._name_parts: list[str] = []
        self._key: str | None = None  # the member being read
        self._streams = True  # the member's text streams as a string
        self._value: ValueReader | None = None
        self._pending: list[str] = []  # value text read before its call began
        self._properties: Any = False  # the called tool's property names (False: not looked up)
        self._jstate = _LEAD
        self._in_array = False
        self._outcomes: list[Outcome] = []
        self._error: Outcome | None = None  # ends the block's outcomes, once it ends
        self._xml = opener.block.xml
        self._literal = opener.block.literal
        self._lit_depth = 0  # (a literal being read) brackets open
        self._lit_quote = ""  # (a literal being read) the quote of the string it is in
        self._lit_escape = False  # (a literal being read) a backslash ended the last text
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
        # the reader of each region kind (compile.SPACE ... compile.SKIP)
        self._readers: tuple[Callable[[CRegion, str, int, int, bool], int], ...] = (
            self._read_space,
            self._read_name,
            self._read_json_calls,
            self._read_json_args,
            self._read_value,
            self._read_skip,
            self._read_literal,
        )
        self._region = self._regions[opener.region]
        self._read: Callable[[CRegion, str, int, int, bool], int] = self._read_space
        self._enter(self._region)
        if opener.step is not None:  # (taken at ``at``, the end of the opener)
            self._do(opener.step, 0, 0, None, at)

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
    def announced(self) -> bool:
        """The call being read has been announced."""
        return self._call is not None and self._call.started

    @property
    def in_committed_call(self) -> bool:
        """A call is being read that the block can no longer be rejected over
        (it has been announced, or it is a JSON object begun in a block that is
        not lenient): the block can end only after the call does (in a
        character of the grammar's ``call_ends``) or breaks."""
        call = self._call
        if call is None or self.failed_at >= 0 or self.finished:
            return False
        return call.started or (not self._lenient and self._jstate == _BODY)

    @property
    def quiet_until(self) -> re.Pattern[str] | None:
        """Inside a Python literal's string, which is read whole when the call
        ends (nothing streams from it): only its quote can change anything."""
        quote = self._lit_quote
        return _QUOTE_STOPS[quote[0]] if quote else None

    @property
    def string_starts(self) -> bool:
        """A string value has begun and none of its text is read yet: the engine
        reads the next delta (a string streams from its first characters)."""
        value = self._value
        return value is not None and self._streams and self._region.kind == VALUE and value.fresh

    def open_string(self) -> OpenString | None:
        """Inside a string that streams: the engine's string lane may take a
        plain delta itself (see :mod:`toolparse.engine.lanes`)."""
        call = self._call
        if call is None or not call.started:
            return None
        kind = self._region.kind
        if kind == VALUE:
            value = self._value
            if value is None or not value.plain:
                return None
            path = call.open_string()
            if path is None:
                return None
            opened = value.opened
            if opened is None:  # (built once per value)
                args, index, call_id, _, _ = path
                opened = value.opened = OpenString(args, index, call_id, value.breakers, value.fast_piece)
            return opened
        if (kind == JSON_CALLS and self._jstate == _BODY) or kind == JSON_ARGS:
            return call.open_string()
        return None

    @property
    def in_value(self) -> bool:
        """A value region is being read."""
        return self._region.kind == VALUE

    def only_closes_value(self, text: str, start: int, stops: re.Pattern[str]) -> bool:
        """Reading a value: the first of ``stops`` in ``text[start:]`` is the ``>``
        that completes one of the value's closing tags that end it but not the
        call, no markup begins in ``text`` before that tag, and nothing after it
        is one of ``stops``. Reading ``text`` would then decide nothing at once:
        the value's end streams nothing that cannot wait (it comes with the
        markup that follows), and no call ends or string begins (the engine
        gathers such a delta)."""
        region = self._region
        if region.kind != VALUE:
            return False
        closers = region.closers
        if region.closed_by_key and self._key is not None:
            closers = (*closers, f"</{self._key}>")
        return bool(closers) and only_closes(text, start, stops, closers)

    @property
    def name_room(self) -> tuple[re.Pattern[str], int] | None:
        """Reading a name, before any call of the block is announced: text with
        none of these characters only lengthens it, and nothing can come of it
        while it stays within this many more characters (the engine gathers it)."""
        region = self._region
        stops = region.pattern
        if region.kind != NAME or stops is None or self.finished or self.failed_at >= 0:
            return None
        room = _longest_name(region) - _length(self._name_parts)
        return (stops, room) if room > 0 else None

    # -- the TagContext of the lexicons ------------------------------------------------

    @property
    def key(self) -> str | None:
        return self._key

    @property
    def call_name(self) -> str | None:
        call = self._call
        return call.name if call is not None else self._name or None

    @property
    def tool_names(self) -> tuple[str, ...] | None:
        return self._ctx.tool_names

    @property
    def property_names(self) -> tuple[str, ...] | None:
        if self._properties is False:
            self._properties = self._ctx.property_names_of(self.call_name)
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
            i = self._read(self._region, text, i, base, final)
        return i

    def close(self, pos: int) -> None:
        """The stream ended at block position ``pos`` (held text already fed, final)."""
        if self.finished:
            return
        region = self._region
        if self._value is not None:
            self._value.finish()
        if region.kind in (JSON_CALLS, JSON_ARGS) and self._call is not None and self._jstate == _BODY:
            self._finish_json(pos)
        if self.finished:
            return
        if region.at_end is not None and self.failed_at < 0:
            self._do(region.at_end, 0, 0, None, pos)
            if self.finished:
                return
        if self._call is not None or self._json_name is not None:
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
        self._read = self._read_skip
        return current

    # -- readers -----------------------------------------------------------------------

    def _wait(self, at: int) -> int:
        self._stop = True
        self.waiting = True
        return at

    def _read_space(self, region: CRegion, text: str, i: int, base: int, final: bool) -> int:
        lexicon = region.lexicon
        hit = lexicon.find(text, i, self)
        n = len(text)
        limit = hit.start if hit is not None else lexicon.partial_start(text, i, self)
        m = _NOT_SPACE.search(text, i, limit)
        if m is not None:
            j = m.start()
            step = region.chars.get(text[j]) or region.otherwise
            assert step is not None
            if step.to != TO_STAY:
                return self._do(step, j, j, None, base)
            # (else the text is passed over, up to the next terminal)
        if hit is None:
            if final:  # a terminal cut short by the end of the stream (``</tool``): markup
                return n
            return limit if limit == n else self._wait(limit)
        if not final and lexicon.undecided(text, hit.start, hit.key):
            return self._wait(hit.start)  # (a longer terminal may still match here)
        return self._do(region.steps[hit.key], hit.start, hit.end, hit, base)

    def _read_skip(self, region: CRegion, text: str, i: int, base: int, final: bool) -> int:
        hit = region.lexicon.find(text, i, self)
        n = len(text)
        if hit is None:
            if final:
                return n
            partial = region.lexicon.partial_start(text, i, self)
            return partial if partial == n else self._wait(partial)
        if not final and region.lexicon.undecided(text, hit.start, hit.key):
            return self._wait(hit.start)
        return self._do(region.steps[hit.key], hit.start, hit.end, hit, base)

    def _read_name(self, region: CRegion, text: str, i: int, base: int, final: bool) -> int:
        lexicon = region.lexicon
        hit = lexicon.find(text, i, self)
        n = len(text)
        limit = hit.start if hit is not None else n if final else lexicon.partial_start(text, i, self)
        bad = (NOT_NAME_STRIPPED if region.strip else NOT_NAME).search(text, i, limit)
        stop = limit if bad is None else bad.start()
        parts = self._name_parts
        parts.append(text[i:stop])
        length = _length(parts)
        longest = _longest_name(region)
        if length > longest or bad is not None:
            otherwise = region.otherwise
            assert otherwise is not None
            # (too long: just past the limit, wherever the deltas fell; else at the bad character)
            at = stop - (length - longest) + 1 if length > longest else stop
            parts.pop()
            return self._do(otherwise, at, at, None, base)
        if hit is None:
            return limit if limit == n else self._wait(limit)
        if not final and lexicon.undecided(text, hit.start, hit.key):
            parts.pop()  # (read again with the next delta)
            return self._wait(i)
        name = "".join(parts)
        parts.clear()
        if region.strip:
            name = name.strip()
            if NOT_NAME.search(name):
                name = ""
        if not name or len(name) > region.max_len or (region.declared and not self._declared(name)):
            otherwise = region.otherwise
            assert otherwise is not None
            return self._do(otherwise, hit.start, hit.start, None, base)
        self._name = name
        return self._do(region.steps[hit.key], hit.start, hit.end, hit, base)

    def _declared(self, name: str) -> bool:
        tools = self._ctx.tools
        return tools is not None and name in tools

    def _read_value(self, region: CRegion, text: str, i: int, base: int, final: bool) -> int:
        value = self._value
        assert value is not None
        j, hit = value.read(text, i, final)
        if self._call is not None:
            self._call.flush()
        if hit is None:
            return j if j == len(text) else self._wait(j)
        if region.balanced and value.nested:
            self._fail("a parameter opened again inside itself was never closed", base + hit.start)
            return hit.start
        return self._do(region.steps[hit.key], hit.start, hit.end, hit, base)

    def _read_literal(self, region: CRegion, text: str, i: int, base: int, final: bool) -> int:
        """A Python literal, up to a terminal character outside strings and brackets."""
        n = len(text)
        start = i
        pattern = region.pattern
        assert pattern is not None
        while i < n:
            quote = self._lit_quote
            if quote:  # inside a string: its end, or an escape
                if self._lit_escape:
                    self._lit_escape = False
                    i += 1
                    continue
                end = text.find(quote, i)
                slash = text.find("\\", i, end if end >= 0 else n)
                if slash >= 0:
                    self._lit_escape = True
                    i = slash + 1
                    continue
                if end < 0:
                    # (a triple quote may be cut: keep the last two characters for the next delta)
                    keep = n - 2 if len(quote) == 3 and not final else n
                    i = max(i, keep)
                    if i < n:
                        self._value_text(text[start:i])
                        return self._wait(i)
                    break
                self._lit_quote = ""
                i = end + len(quote)
                continue
            m = pattern.search(text, i)
            if m is None:
                i = n
                break
            j = m.start()
            c = text[j]
            if c in "\"'":
                if not final and n - j < 3 and text[j:] == c * (n - j):
                    self._value_text(text[start:j])  # (a quote that may be a triple one)
                    return self._wait(j)
                self._lit_quote = c * 3 if text.startswith(c * 3, j) else c
                i = j + len(self._lit_quote)
            elif c in "([{":
                self._lit_depth += 1
                i = j + 1
            elif self._lit_depth and c in ")]}":
                self._lit_depth -= 1
                i = j + 1
            elif c in region.steps and not self._lit_depth:
                self._value_text(text[start:j])
                return self._do(region.steps[c], j, j + 1, None, base)
            else:
                i = j + 1  # (a closing bracket with none open: the literal parser reports it)
        self._value_text(text[start:i])
        return i

    def _value_text(self, piece: str) -> None:
        call = self._call
        if isinstance(call, MemberCall) and self._key is not None:
            call.text(piece)
        else:
            self._pending.append(piece)

    def _read_json_calls(self, region: CRegion, text: str, i: int, base: int, final: bool) -> int:
        n = len(text)
        while i < n:
            state = self._jstate
            if state == _BODY:
                call = self._call
                assert isinstance(call, EnvelopeCall)
                try:
                    i = call.reader.feed(text, i)
                except JsonSyntaxError as exc:
                    call.flush()
                    self._fail_json(call.error(None, exc.reason, exc.message), base + exc.index)
                    return exc.index
                call.flush()
                if call.reader.done:
                    self._complete(base + i)
                    self._jstate = _BETWEEN
                continue
            c = text[i]
            if c in _WS:
                i += 1
            elif c == "{":
                self._call = EnvelopeCall(self._ctx)
                self._jstate = _BODY
            elif state == _LEAD and c == "[":
                self._in_array = True
                self._jstate = _BETWEEN
                i += 1
            elif state == _LEAD:
                otherwise = region.otherwise
                assert otherwise is not None
                return self._do(otherwise, i, i, None, base)
            elif c in region.separators:
                i += 1
            elif c == "]" and self._in_array:
                self._in_array = False
                i += 1
            else:  # the calls are over: the next region reads on from here
                self._goto(region.then, i, base)
                return i
        return n

    def _read_json_args(self, region: CRegion, text: str, i: int, base: int, final: bool) -> int:
        call = self._call
        if call is None:
            m = _NOT_SPACE.search(text, i)
            if m is None:
                return len(text)
            i = m.start()
            if text[i] != "{":  # the body is not an arguments object
                return self._do(region.otherwise or _REJECT_STEP, i, i, None, base)
            assert self._json_name is not None
            call = self._call = JsonArgsCall(self._ctx, self._json_name)
            self._json_name = None
            self._jstate = _BODY
        assert isinstance(call, JsonArgsCall)
        try:
            i = call.reader.feed(text, i)
        except JsonSyntaxError as exc:
            call.flush()
            self._fail_json(call.error(None, exc.reason, exc.message), base + exc.index)
            return exc.index
        call.flush()
        if call.reader.done:
            self._complete(base + i)
            self._goto(region.then, i, base)
        return i

    def _finish_json(self, pos: int) -> None:
        call = self._call
        assert isinstance(call, (EnvelopeCall, JsonArgsCall))
        try:
            whole = call.reader.finish()
        except JsonSyntaxError as exc:
            self._fail_json(call.error(None, exc.reason, exc.message), pos)
            return
        call.flush()
        if whole:
            self._complete(pos)
        else:
            self._unfinished(pos, "the stream ended inside the call")

    # -- steps -------------------------------------------------------------------------

    def _do(self, step: CStep, start: int, end: int, hit: Hit | None, base: int) -> int:
        """Take a step at the terminal (or character) ``text[start:end]``; return
        where reading goes on."""
        to = step.to
        if to == TO_FAIL:
            if step.reason is ErrorReason.MALFORMED_JSON:
                self._fail_json(self._now(step.reason, step.message), base + start)
            else:
                self._fail(step.message, base + start)
            return start
        if (step.require_sole_string or step.sole_string) and self._sole_string() is None:
            to = TO_REJECT
        else:
            if step.call:
                self._start_call(step.json_call)
            if step.member:
                self._begin_member(
                    self._sole_string() if step.sole_string else hit.name if hit and hit.name else self._name
                )
            if step.end_member:
                self._end_member()
            if step.end_call:
                self._end_call(base + (start if to == TO_BEFORE else end))
        if step.again:
            end = start
        if to >= 0:
            self._goto(to, end, base)
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

    def _goto(self, index: int, at: int, base: int) -> None:
        if index < 0:  # (a JSON reader's ``then`` that ends the block)
            self._do(CStep(index), at, at, None, base)
            return
        self._region = self._regions[index]
        self._enter(self._region)

    def _enter(self, region: CRegion) -> None:
        kind = region.kind
        self._read = self._readers[kind]
        if kind == NAME:
            self._name_parts.clear()
        elif kind == VALUE:
            self._value = ValueReader(
                region.lexicon,
                region.steps,
                region.conditions,
                self,
                self._value_text,
                xml=region.xml,
                markup=region.xml and not self._streams,
                nest=region.nest,
                nest_at_line_start=region.nest_at_line_start,
                keep_newlines=region.keep_newlines,
            )
        elif kind == LITERAL:
            self._lit_depth = 0
            self._lit_quote = ""
            self._lit_escape = False
        elif kind == JSON_CALLS:
            self._jstate = _LEAD
            self._in_array = False
        elif kind == JSON_ARGS:
            self._jstate = _LEAD

    def _sole_string(self) -> str | None:
        call = self._call
        if isinstance(call, MemberCall):
            return call.sole_string_property()
        return MemberCall.sole_string_of(self._ctx.schema_of(self._name) if self._ctx.coerce else None)

    def _start_call(self, json: bool) -> None:
        self._properties = False
        if json:
            self._json_name = self._name
            return
        if self._literal:
            self._call = MemberCall(self._ctx, self._name, convert=self._python_literal, literal=True)
            return
        convert = self._fragment if self._xml else None
        self._call = MemberCall(self._ctx, self._name, convert=convert)

    def _python_literal(self, text: str) -> object:
        return parse_literal(text, max_depth=self._ctx.max_depth)

    def _fragment(self, text: str) -> object:
        return fragment_value(text, max_depth=self._ctx.max_depth)

    def _begin_member(self, key: str | None) -> None:
        call = self._call
        if not isinstance(call, MemberCall) or key is None:
            self._streams = True
            return
        self._key = key
        self._streams = call.begin(key)
        if self._pending:
            for piece in self._pending:
                call.text(piece)
            self._pending.clear()

    def _end_member(self) -> None:
        call = self._call
        if isinstance(call, MemberCall) and self._key is not None:
            call.end()
        self._key = None
        self._value = None
        self._streams = True

    def _end_call(self, pos: int) -> None:
        if self._call is None and self._json_name is not None:  # named, but no arguments written
            self._name = self._json_name
            self._json_name = None
            self._start_call(json=False)
        call = self._call
        if call is None:
            return
        call.close()
        self._complete(pos)

    def _complete(self, pos: int) -> None:
        call = self._call
        assert call is not None
        self._outcomes.append(call.outcome(pos))
        self.last_end = pos
        self._call = None
        self._key = None
        self._value = None
        self._properties = False

    # -- endings -----------------------------------------------------------------------

    def _end(self, pos: int) -> None:
        if self._call is not None or self._json_name is not None:
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
        if self._outcomes or (self._call is not None and self._call.started):
            self._end(pos)  # calls already announced stand: the block simply ends here
            return
        self._drop()
        self.rejected = self.finished = True
        self.end = -1
        self._stop = True

    def _now(self, reason: ErrorReason, message: str) -> Outcome:
        call = self._call
        if call is not None:
            call.flush()
            return call.error(None, reason, message)
        return Outcome(None, self._json_name, reason=reason, message=message)

    def _unfinished(self, pos: int, message: str) -> None:
        self._error = self._now(ErrorReason.UNFINISHED_CALL, message)
        self._drop()

    def _fail(self, message: str, at: int) -> None:
        """Broken markup at ``at``: the error runs to the block's end, wherever that is."""
        self._error = self._now(ErrorReason.MALFORMED_MARKUP, message)
        self._broken(at)

    def _fail_json(self, error: Outcome, at: int) -> None:
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
        self._read = self._read_skip
        self._stop = True  # (the engine looks for a closer to cut the block at)

    def _drop(self) -> None:
        self._call = None
        self._json_name = None
        self._value = None
        self._key = None
        self._pending.clear()
