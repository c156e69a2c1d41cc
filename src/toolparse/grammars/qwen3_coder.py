"""Qwen3-Coder tool calls::

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    </function>
    </tool_call>

Also read, as real models write them (``../shared/corpus/``): no
``<tool_call>`` wrapper; ``function=NAME>`` with its ``<`` missing; a
parameter closed only by the next ``<parameter=`` or by ``</function>``;
``</function>`` or ``</tool_call>`` missing at the end of the stream;
``<value>`` wrappers; CDATA and entities in values; several functions in
one wrapper; and Hermes JSON inside ``<tool_call>`` (handed to the Hermes
block parser). Parameter values are text: see
:mod:`toolparse.grammars.xml_values` for how they are read and
:mod:`toolparse.grammars.xml_call` for how they become typed arguments.
"""

from __future__ import annotations

import re
from typing import Final

from toolparse.engine.block import BlockParser, CallContext, Grammar
from toolparse.engine.events import ErrorReason, Event
from toolparse.engine.markers import MarkerSet
from toolparse.grammars.prompts import Qwen3CoderPrompt
from toolparse.grammars.xml_call import MemberBlock, MemberCall
from toolparse.grammars.xml_values import ValueReader

TOOL_CALL_OPEN: Final = "<tool_call>"
TOOL_CALL_CLOSE: Final = "</tool_call>"
FUNCTION_OPEN: Final = "<function="
FUNCTION_CLOSE: Final = "</function>"
PARAMETER_OPEN: Final = "<parameter="
PARAMETER_CLOSE: Final = "</parameter>"

_NAME_CHAR: Final = re.compile(r"[A-Za-z0-9_.:\-]")
_MAX_NAME = 128
_WS: Final = frozenset(" \t\r\n")

NAMELESS_FUNCTION: Final = "<function>"  # <function>NAME</function>, then the parameters
NAMELESS_PARAMETER: Final = "<parameter>"  # <parameter>KEY</parameter> VALUE

_VALUE_ENDS: Final = MarkerSet([PARAMETER_CLOSE, PARAMETER_OPEN, FUNCTION_CLOSE, TOOL_CALL_CLOSE])
_NAMELESS_VALUE_ENDS: Final = MarkerSet(
    [PARAMETER_CLOSE, PARAMETER_OPEN, NAMELESS_PARAMETER, FUNCTION_CLOSE, TOOL_CALL_CLOSE]
)
_LEAD_TAGS: Final = MarkerSet([FUNCTION_OPEN, "function=", NAMELESS_FUNCTION])
_BODY_TAGS: Final = MarkerSet([PARAMETER_OPEN, NAMELESS_PARAMETER, FUNCTION_CLOSE, TOOL_CALL_CLOSE])
# <path>...</path>: a parameter written as a bare tag named after it
_PROPERTY_TAG_SO_FAR: Final = re.compile(r"<[A-Za-z_][A-Za-z0-9_.\-]{0,63}")
_MAX_TEXT_NAME = 256
_AFTER_TAGS: Final = MarkerSet([TOOL_CALL_CLOSE, FUNCTION_OPEN, TOOL_CALL_OPEN])

# states
_LEAD = 0  # after <tool_call>: a function, or Hermes JSON
_NAME = 1  # reading the function name, up to '>'
_BODY = 2  # between parameters
_PNAME = 3  # reading a parameter name, up to '>'
_VALUE = 4  # reading a parameter value
_AFTER = 5  # after </function>
_SKIP = 6  # after an error: looking for </tool_call>
_TEXT_NAME = 7  # <function>NAME</function>: reading NAME
_TEXT_KEY = 8  # <parameter>KEY</parameter>: reading KEY


class Qwen3CoderGrammar(Grammar):
    """``<tool_call><function=NAME><parameter=P>value</parameter></function></tool_call>``."""

    def __init__(self) -> None:
        self.prompt = Qwen3CoderPrompt()
        self.name = "qwen3-coder"
        self.openers = MarkerSet([TOOL_CALL_OPEN, FUNCTION_OPEN])

    def new_block(self, opener: str, ctx: CallContext) -> BlockParser:
        return Qwen3Block(opener, ctx)


class Qwen3Block(MemberBlock):
    """One ``<tool_call>`` (or bare ``<function=``) block."""

    __slots__ = ("_name", "_tag_pos", "_wrapped", "closer")

    SKIP = _SKIP
    STREAMING = _VALUE

    def __init__(self, opener: str, ctx: CallContext) -> None:
        super().__init__(ctx)
        self._wrapped = opener == TOOL_CALL_OPEN  # opened by <tool_call>, not by a bare function
        self.closer = TOOL_CALL_CLOSE
        self._state = _LEAD if self._wrapped else _NAME
        self._tag_pos = 0
        self._name = ""

    # -- feeding ----------------------------------------------------------------------
    def feed(self, text: str, start: int, pos: int, out: list[Event]) -> int:
        i = start
        n = len(text)
        base = pos - start
        if self._call is not None:
            self._call.out = out  # events of this feed go to this feed's list
        while i < n and not self.finished and self.handoff is None:
            st = self._state
            if st == _VALUE:
                call, reader = self._call, self._reader
                assert call is not None and reader is not None
                i = reader.feed(text, i)
                if reader.done:
                    self._value_end(reader.end, base + i)
                call.flush()
                continue
            c = text[i]
            if st in (_NAME, _PNAME):
                i = self._name_char(c, i, base, out)
            elif st in (_TEXT_NAME, _TEXT_KEY):
                i = self._text_name_char(c, i, base, out)
            elif st == _SKIP:
                i = self._skip_char(c, i, base)
            elif not self._tag and c in _WS:
                i += 1
            elif st == _LEAD and not self._tag and c in "{[":
                self._hand_to_hermes()
            else:
                i = self._tag_char(c, i, base, out)
        return i

    def _hand_to_hermes(self) -> None:
        """Hermes JSON inside <tool_call> (LFM2 and others under a Qwen prompt)."""
        from toolparse.grammars import get_grammar

        self.handoff = get_grammar("hermes").new_block(TOOL_CALL_OPEN, self._ctx)

    def _tags(self) -> MarkerSet:
        return {_LEAD: _LEAD_TAGS, _BODY: _BODY_TAGS}.get(self._state, _AFTER_TAGS)

    def _tag_char(self, c: str, i: int, base: int, out: list[Event]) -> int:
        """Read a tag in LEAD, BODY or AFTER, one character at a time."""
        if not self._tag:
            self._tag_pos = base + i
        tag = self._tag + c
        tags = self._tags()
        found = tags.match_at(tag, 0)
        st = self._state
        if found is None and (
            tags.prefix_at(tag, 0) or (st == _BODY and _PROPERTY_TAG_SO_FAR.fullmatch(tag))
        ):
            self._tag = tag
            return i + 1
        self._tag = ""
        if found is None:
            if st == _BODY and c == ">" and _PROPERTY_TAG_SO_FAR.fullmatch(tag[:-1]):
                key = tag[1:-1]
                self._begin_value(key, MarkerSet.of(f"</{key}>", FUNCTION_CLOSE, TOOL_CALL_CLOSE))
                return i + 1
            return self._unexpected(tag, i, base)
        if found in (FUNCTION_OPEN, "function="):
            self._state = _NAME
        elif found == NAMELESS_FUNCTION:
            self._state = _TEXT_NAME
        elif found == PARAMETER_OPEN:
            self._state = _PNAME
        elif found == NAMELESS_PARAMETER:
            self._state = _TEXT_KEY
        elif found == FUNCTION_CLOSE:
            self._function_end(base + i + 1)
        elif found == TOOL_CALL_CLOSE:
            if st == _BODY:  # </function> missing
                self._function_end(base + i + 1)
            self._end_at(base + i + 1)
        elif found == TOOL_CALL_OPEN:  # the next block begins
            self._end_at(self._tag_pos)
        return i + 1

    def _unexpected(self, tag: str, i: int, base: int) -> int:
        st = self._state
        if st == _LEAD and self._call is None and not self.outcomes:
            self.rejected = True  # "<tool_call>" followed by prose: it was only mentioned
            return i
        if st == _AFTER:
            self._end_at(self._tag_pos)  # the block is over; what follows is text
            return i
        self._fail(f"unexpected {tag!r} inside the call", self._tag_pos)
        return i

    def _name_char(self, c: str, i: int, base: int, out: list[Event]) -> int:
        if c == ">" and self._tag:
            name, self._tag = self._tag, ""
            if self._state == _NAME:
                self._name = name
                self._call = MemberCall(self._ctx, out, name)
                self._state = _BODY
            else:
                self._begin_value(name, _VALUE_ENDS)
            return i + 1
        if _NAME_CHAR.match(c) and len(self._tag) < _MAX_NAME:
            self._tag += c
            return i + 1
        what = "function" if self._state == _NAME else "parameter"
        if self._state == _NAME and not self._wrapped and self._call is None and not self.outcomes:
            self.rejected = True  # "<function=" followed by no name: text
            return i
        self._fail(f"the {what} name is not closed by '>' (found {c!r})", base + i)
        return i

    def _text_name_char(self, c: str, i: int, base: int, out: list[Event]) -> int:
        """Read a name written as element text, up to its closing tag."""
        closing = FUNCTION_CLOSE if self._state == _TEXT_NAME else PARAMETER_CLOSE
        tag = self._tag + c
        if tag.endswith(closing):
            self._tag = ""
            name = tag[: -len(closing)].strip()
            if not name or not all(_NAME_CHAR.match(ch) for ch in name):
                self._fail(f"{name!r} is not a name", base + i)
                return i + 1
            if self._state == _TEXT_NAME:
                self._name = name
                self._call = MemberCall(self._ctx, out, name)
                self._state = _BODY
            else:
                self._begin_value(name, _NAMELESS_VALUE_ENDS)
            return i + 1
        if len(tag) > _MAX_TEXT_NAME:
            self._fail("a name written as text runs on without its closing tag", base + i)
            return i
        self._tag = tag
        return i + 1

    def _begin_value(self, name: str, ends: MarkerSet) -> None:
        call = self._call
        assert call is not None
        call.begin(name)
        self._reader = ValueReader(ends, call.text)
        self._state = _VALUE

    def _value_end(self, end: str | None, pos: int) -> None:
        call = self._call
        assert call is not None
        call.end()
        self._reader = None
        if end == PARAMETER_OPEN:
            self._state = _PNAME
        elif end == NAMELESS_PARAMETER:
            self._state = _TEXT_KEY
        elif end == FUNCTION_CLOSE:
            self._function_end(pos)
        elif end == TOOL_CALL_CLOSE:  # </function> missing
            self._function_end(pos)
            self._end_at(pos)
        else:  # </parameter>, or a property tag's own closing tag
            self._state = _BODY

    def _function_end(self, pos: int) -> None:
        self._close_call(pos)
        self._state = _AFTER

    # -- errors -------------------------------------------------------------------------
    def _skip_char(self, c: str, i: int, base: int) -> int:
        """After an error: the block ends at </tool_call>, or before the next opener."""
        if not self._tag:
            if c != "<":
                return i + 1
            self._tag_pos = base + i
        tag = self._tag + c
        found = _AFTER_TAGS.match_at(tag, 0)
        if found is None and _AFTER_TAGS.prefix_at(tag, 0):
            self._tag = tag
            return i + 1
        self._tag = ""
        if found == TOOL_CALL_CLOSE:
            self._end_at(base + i + 1)
        elif found is not None:
            self._end_at(self._tag_pos)
        elif c == "<" and tag != c:
            return i  # read this '<' again: it may begin the closer
        return i + 1

    # -- endings ---------------------------------------------------------------------------
    def close(self, pos: int, out: list[Event]) -> None:
        st = self._state
        if st == _LEAD and not self._tag and self._wrapped:
            self._error = self._outcome_now(ErrorReason.UNFINISHED_CALL, "the stream ended before the call")
        elif st == _NAME and self._call is None and not self._wrapped and not self.outcomes:
            self.rejected = True
            return
        elif st in (_NAME, _BODY, _PNAME, _VALUE, _LEAD, _TEXT_NAME, _TEXT_KEY):
            call = self._call
            if call is not None:
                call.out = out
                if self._reader is not None:
                    self._reader.finish()
                call.flush()
            self._error = self._outcome_now(ErrorReason.UNFINISHED_CALL, "the stream ended inside the call")
        self._end_at(pos)
