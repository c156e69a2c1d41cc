"""The readers of a block's regions, one class per region kind.

A :class:`~toolparse.engine.machine.Machine` reads a block region by region;
in each, the region's reader reads (see :mod:`toolparse.engine.declare` for
the kinds) and hands every terminal it finds to the machine's
:meth:`~toolparse.engine.machine.Machine.step`, which starts or ends calls and
members and says where reading goes on. A reader owns the state of its kind
(a name's parts, a JSON reader's place, a Python literal's brackets and
quotes); the machine owns what spans regions (the call, the member, the
outcomes).

Readers decide on characters only, never on where the text they were given
ends: where they cannot decide yet they stop (:meth:`Machine.wait`) and are
given the same characters again with the next delta.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from toolparse.engine.calls import EnvelopeCall, JsonArgsCall
from toolparse.engine.compile import (
    NOT_NAME,
    NOT_NAME_STRIPPED,
    TO_REJECT,
    TO_STAY,
    CJsonArgs,
    CJsonCalls,
    CLiteral,
    CName,
    CRegion,
    CSkip,
    CSpace,
    CStep,
    CValue,
)
from toolparse.engine.value import ValueReader
from toolparse.readers.json import JsonSyntaxError

if TYPE_CHECKING:
    from toolparse.engine.machine import Machine

_NOT_SPACE: Final = re.compile(r"[^ \t\r\n]")
_WS: Final = frozenset(" \t\r\n")
_REJECT_STEP: Final = CStep(TO_REJECT)

# where a JSON reader is
_LEAD = 0  # before the first call object
_BODY = 1  # inside a call object
_BETWEEN = 2  # after a call object


R = TypeVar("R", bound=CRegion)


class RegionReader(Generic[R]):
    """Reads one region (of the compiled kind ``R``) of a block. One instance per
    region of a block reader, made when the region is first entered; :meth:`enter`
    starts it afresh."""

    __slots__ = ("block", "region")

    def __init__(self, block: Machine, region: R) -> None:
        self.block = block
        self.region = region

    stateful: bool = True
    """The reader keeps state of its own, set afresh by :meth:`enter` (False: a
    reader with none is not called when its region is entered)."""

    def enter(self) -> None:
        """The region is entered (again)."""

    def read(self, text: str, i: int, base: int, final: bool) -> int:
        """Read ``text[i:]`` (``base``: the block position of ``text[0]``); return
        where reading stopped (a terminal's step taken, the end of the text, or
        where more text is needed)."""
        raise NotImplementedError

    in_body: bool = False
    """(JSON) Inside a call object."""


class SpaceReader(RegionReader[CSpace]):
    """Whitespace between terminals; any other character takes its step
    (``chars``, or ``otherwise``)."""

    __slots__ = ()
    stateful = False

    def read(self, text: str, i: int, base: int, final: bool) -> int:
        region, block = self.region, self.block
        lexicon = region.lexicon
        n = len(text)
        m = _NOT_SPACE.search(text, i)
        # (a terminal that comes first begins in the whitespace or at the first other
        # character: none is looked for further, or a delta of many short regions
        # would be searched to its end once per region)
        if m is None:
            hit = lexicon.find(text, i, block)
        else:
            j = m.start()
            end = j + lexicon.max_len
            hit = lexicon.find(text, i, block, end) if end < n else lexicon.find(text, i, block)
            if hit is None or j < hit.start:
                step = region.chars.get(text[j]) or region.otherwise
                assert step is not None
                if step.to != TO_STAY:
                    if hit is not None or j < lexicon.partial_start(text, i, block):
                        return block.step(step, j, j, None, base)
                elif hit is None and end < n:  # (the text is passed over, up to the next terminal)
                    hit = lexicon.find(text, i, block)
        limit = hit.start if hit is not None else lexicon.partial_start(text, i, block)
        if hit is None:
            if final:  # a terminal cut short by the end of the stream (``</tool``): markup
                return n
            return limit if limit == n else block.wait(limit)
        if not final and lexicon.undecided(text, hit.start, hit.key):
            return block.wait(hit.start)  # (a longer terminal may still match here)
        return block.step(region.steps[hit.key], hit.start, hit.end, hit, base)


class SkipReader(RegionReader[CSkip]):
    """Anything, up to the next terminal (a broken block's rest, up to its end)."""

    __slots__ = ()
    stateful = False

    def read(self, text: str, i: int, base: int, final: bool) -> int:
        region, block = self.region, self.block
        hit = region.lexicon.find(text, i, block)
        n = len(text)
        if hit is None:
            if final:
                return n
            partial = region.lexicon.partial_start(text, i, block)
            return partial if partial == n else block.wait(partial)
        if not final and region.lexicon.undecided(text, hit.start, hit.key):
            return block.wait(hit.start)
        return block.step(region.steps[hit.key], hit.start, hit.end, hit, base)


class NameReader(RegionReader[CName]):
    """A name (a function's, a parameter's), up to the terminal that ends it."""

    __slots__ = ("parts",)

    def __init__(self, block: Machine, region: CName) -> None:
        super().__init__(block, region)
        self.parts: list[str] = []

    def enter(self) -> None:
        self.parts.clear()

    def read(self, text: str, i: int, base: int, final: bool) -> int:
        region, block = self.region, self.block
        lexicon = region.lexicon
        n = len(text)
        # (the name ends at a terminal within its longest length, or is too long: no
        # terminal is looked for further, as a delta of many names would be searched
        # to its end once per name)
        longest = region.longest
        end = i + region.reach
        if end > n:
            end = n
        hit = lexicon.find(text, i, block, end)
        if hit is None and end < n:
            limit = end
        else:
            limit = hit.start if hit is not None else n if final else lexicon.partial_start(text, i, block)
        bad = (NOT_NAME_STRIPPED if region.strip else NOT_NAME).search(text, i, limit)
        stop = limit if bad is None else bad.start()
        parts = self.parts
        parts.append(text[i:stop])
        length = len(parts[0]) if len(parts) == 1 else sum(map(len, parts))
        if length > longest or bad is not None:
            otherwise = region.otherwise
            assert otherwise is not None
            # (too long: just past the limit, wherever the deltas fell; else at the bad character)
            at = stop - (length - longest) + 1 if length > longest else stop
            parts.pop()
            return block.step(otherwise, at, at, None, base)
        if hit is None:
            return limit if limit == n else block.wait(limit)
        if not final and lexicon.undecided(text, hit.start, hit.key):
            parts.pop()  # (read again with the next delta)
            return block.wait(i)
        name = "".join(parts)
        parts.clear()
        if region.strip:
            name = name.strip()
            if NOT_NAME.search(name):
                name = ""
        if not name or len(name) > region.max_len or (region.declared and not block.declares(name)):
            otherwise = region.otherwise
            assert otherwise is not None
            return block.step(otherwise, hit.start, hit.start, None, base)
        block.name = name
        return block.step(region.steps[hit.key], hit.start, hit.end, hit, base)


class ValueRegionReader(RegionReader[CValue]):
    """A parameter's value, read by a :class:`~toolparse.engine.value.ValueReader`
    (made afresh for each value: see Machine.value)."""

    __slots__ = ()

    def enter(self) -> None:
        region, block = self.region, self.block
        block.value = ValueReader(
            region.lexicon,
            region.steps,
            region.conditions,
            block,
            block.value_text,
            xml=region.xml,
            markup=region.xml and not block.streams,
            nest=region.nest,
            nest_at_line_start=region.nest_at_line_start,
            keep_newlines=region.keep_newlines,
            typed=not block.streams,
        )

    def read(self, text: str, i: int, base: int, final: bool) -> int:
        region, block = self.region, self.block
        value = block.value
        assert value is not None
        j, hit = value.read(text, i, final)
        call = block.call
        if call is not None:
            call.flush()
        if hit is None:
            return j if j == len(text) else block.wait(j)
        if region.balanced and value.nested:
            block.fail("a parameter opened again inside itself was never closed", base + hit.start)
            return hit.start
        return block.step(region.steps[hit.key], hit.start, hit.end, hit, base)


class LiteralReader(RegionReader[CLiteral]):
    """A Python literal, up to a terminal character outside strings and brackets."""

    __slots__ = ("depth", "escape", "quote")

    def __init__(self, block: Machine, region: CLiteral) -> None:
        super().__init__(block, region)
        self.depth = 0  # brackets open
        self.quote = ""  # the quote of the string it is in
        self.escape = False  # a backslash ended the last text

    def enter(self) -> None:
        self.depth = 0
        self.quote = ""
        self.escape = False

    def read(self, text: str, i: int, base: int, final: bool) -> int:
        region, block = self.region, self.block
        n = len(text)
        start = i
        pattern = region.pattern
        assert pattern is not None
        # (the quote last looked for, and where it was found (-1: nowhere after): the
        # text before that holds none, so escapes do not send the search on again)
        sought, end = "", -1
        while i < n:
            quote = self.quote
            if quote:  # inside a string: its end, or an escape
                if self.escape:
                    self.escape = False
                    i += 1
                    continue
                if quote != sought or 0 <= end < i:
                    sought, end = quote, text.find(quote, i)
                slash = text.find("\\", i, end if end >= 0 else n)
                if slash >= 0:
                    self.escape = True
                    i = slash + 1
                    continue
                if end < 0:
                    # (a triple quote may be cut: keep the last two characters for the next delta)
                    keep = n - 2 if len(quote) == 3 and not final else n
                    i = max(i, keep)
                    if i < n:
                        block.value_text(text[start:i])
                        return block.wait(i)
                    break
                self.quote = ""
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
                    block.value_text(text[start:j])  # (a quote that may be a triple one)
                    return block.wait(j)
                self.quote = c * 3 if text.startswith(c * 3, j) else c
                i = j + len(self.quote)
            elif c in "([{":
                self.depth += 1
                i = j + 1
            elif self.depth and c in ")]}":
                self.depth -= 1
                i = j + 1
            elif c in region.steps and not self.depth:
                block.value_text(text[start:j])
                return block.step(region.steps[c], j, j + 1, None, base)
            else:
                i = j + 1  # (a closing bracket with none open: the literal parser reports it)
        block.value_text(text[start:i])
        return i


class JsonCallsReader(RegionReader[CJsonCalls]):
    """JSON call objects (``{"name": ..., "arguments": ...}``): one, an array of
    them, or several separated by ``separators``."""

    __slots__ = ("in_array", "in_body", "state")

    def __init__(self, block: Machine, region: CJsonCalls) -> None:
        super().__init__(block, region)
        self.enter()

    def enter(self) -> None:
        self.state = _LEAD
        self.in_body = False
        self.in_array = False

    def read(self, text: str, i: int, base: int, final: bool) -> int:
        region, block = self.region, self.block
        n = len(text)
        while i < n:
            state = self.state
            if state == _BODY:
                call = block.call
                assert isinstance(call, EnvelopeCall)
                i, broken = _read_json(block, call, text, i, base)
                if broken:
                    return i
                if call.reader.done:
                    block.complete(base + i)
                    self.state = _BETWEEN
                    self.in_body = False
                continue
            c = text[i]
            if c in _WS:
                i += 1
            elif c == "{":
                block.call = EnvelopeCall(block.ctx, *region.keys)
                self.state = _BODY
                self.in_body = True
            elif state == _LEAD and c == "[":
                self.in_array = True
                self.state = _BETWEEN
                i += 1
            elif state == _LEAD:
                otherwise = region.otherwise
                assert otherwise is not None
                return block.step(otherwise, i, i, None, base)
            elif c in region.separators:
                i += 1
            elif c == "]" and self.in_array:
                self.in_array = False
                i += 1
            else:  # the calls are over: the next region reads on from here
                block.goto(region.then, i, base)
                return i
        return n


class JsonArgsReader(RegionReader[CJsonArgs]):
    """One JSON object, the arguments of a call already named."""

    __slots__ = ("in_body",)

    def __init__(self, block: Machine, region: CJsonArgs) -> None:
        super().__init__(block, region)
        self.in_body = False

    def enter(self) -> None:
        self.in_body = False

    def read(self, text: str, i: int, base: int, final: bool) -> int:
        region, block = self.region, self.block
        call = block.call
        if call is None:
            m = _NOT_SPACE.search(text, i)
            if m is None:
                return len(text)
            i = m.start()
            if text[i] != "{":  # the body is not an arguments object
                return block.step(region.otherwise or _REJECT_STEP, i, i, None, base)
            name = block.json_name
            assert name is not None
            call = block.call = JsonArgsCall(block.ctx, name)
            block.json_name = None
            self.in_body = True
        assert isinstance(call, JsonArgsCall)
        i, broken = _read_json(block, call, text, i, base)
        if broken:
            return i
        if call.reader.done:
            block.complete(base + i)
            block.goto(region.then, i, base)
        return i


def _read_json(
    block: Machine, call: EnvelopeCall | JsonArgsCall, text: str, i: int, base: int
) -> tuple[int, bool]:
    """Give ``text[i:]`` to the call's JSON reader: (where it stopped, False), or
    (where the JSON broke, True) once the block is failed there."""
    try:
        i = call.reader.feed(text, i)
    except JsonSyntaxError as exc:
        call.flush()
        block.fail_json(call.error(None, exc.reason, exc.message), base + exc.index)
        return exc.index, True
    call.flush()
    return i, False


READERS: Final[dict[type[CRegion], type[RegionReader[Any]]]] = {
    CSpace: SpaceReader,
    CName: NameReader,
    CJsonCalls: JsonCallsReader,
    CJsonArgs: JsonArgsReader,
    CValue: ValueRegionReader,
    CSkip: SkipReader,
    CLiteral: LiteralReader,
}
"""The reader of each compiled region kind."""
