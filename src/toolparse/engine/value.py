"""Reading a parameter's value as it streams, up to the terminal that ends it.

Model-written values are text: code, HTML and prose with raw ``<``, ``>``
and ``&``, often markup of the very format being written (a coding agent
writing a parser writes ``"</parameter>"`` inside a value). So a terminal
ends a value only when its step's conditions hold (see
:class:`~toolparse.engine.declare.Go`): ``confirm`` (what follows it, after
whitespace, is one of the given terminals, or the end of the stream) and
``line_start`` (it begins a line). Anything else is part of the value.

Besides, in every value:

* one newline right after the opening tag and one right before the ending
  terminal are dropped (values on their own lines), nothing else is trimmed
  (``Value.keep_newlines``: not even those, for values glued to their tags);
* a value that is one whole ``<value>...</value>`` wrapper (``<value>``
  first, its own ``</value>``, counted in balance with any ``<value>`` inside,
  followed by nothing but whitespace before the terminal that ends the value)
  is unwrapped; any other keeps its ``<value>`` tags as text (``<value>a</value>
  and <value>b</value>``). What a wrapper holds is decided only at its end, so
  a wrapped value is held until then (it does not stream).

In the ``xml`` grammar's values (``xml=True``) the five predefined entities
and numeric character references are decoded (nothing else is, nothing is
ever fetched) and ``<![CDATA[...]]>`` is unwrapped, a terminal inside it being
text; a value that is not a plain string keeps its markup as written
(``markup=True``). Markup the grammar lets a value nest (``Value.nest``) is
counted, so that its closing terminals do not end the value.

The reader never holds text itself: where it cannot decide yet (a partial
terminal, entity or ``]]>``, a terminal awaiting its confirmation), it stops
and the engine gives it that text again with the next delta. Each character
is examined a bounded number of times, so reading is linear.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass
from typing import Final

from toolparse.engine.declare import TermLike
from toolparse.engine.lexicon import Hit, Lexicon, TagContext
from toolparse.readers.xml_tree import ENTITY, ENTITY_PREFIX, decode_entity

_SPECIAL_RAW: Final = re.compile(r"<")
_SPECIAL_XML: Final = re.compile(r"[<&]")
_NOT_SPACE: Final = re.compile(r"[^ \t\r\n]")
_CDATA: Final = "<![CDATA["
_WRAP_OPEN: Final = "<value>"
_WRAP_CLOSE: Final = "</value>"
_MAX_SPACE_BEFORE_CONFIRM = 64  # whitespace looked past for a confirmation

_START = 0  # nothing read yet: a first newline is dropped, a <value> wrapper unwrapped
_TEXT = 1
_CDATA_TEXT = 2
_AFTER_WRAP = 3  # after </value>: only whitespace before the ending terminal


@dataclass(frozen=True, slots=True)
class Condition:
    """When a terminal ends a value."""

    confirm: Lexicon | None = None
    """The terminal counts only when one of these follows it (after whitespace)."""
    end_of_stream: bool = True
    """(With ``confirm``) the stream ending right after it confirms it too."""
    line_start: bool = False
    """The terminal counts only where it begins a line."""


_ALWAYS: Final = Condition()


class ValueReader:
    """Reads one value; ``emit`` receives its text, decoded where the grammar decodes."""

    __slots__ = (
        "_breakers",
        "_close_at",
        "_close_newline",
        "_conditions",
        "_ctx",
        "_deciding",
        "_depth",
        "_emit",
        "_held",
        "_keep_newlines",
        "_lead_dropped",
        "_lexicon",
        "_line_start",
        "_markup",
        "_nest",
        "_nest_at_line_start",
        "_newline",
        "_pending",
        "_space",
        "_special",
        "_state",
        "_steps",
        "_typed",
        "_wrap_depth",
        "_wrapped",
        "_xml",
        "opened",
    )

    def __init__(
        self,
        lexicon: Lexicon,
        steps: Container[TermLike],
        conditions: Mapping[TermLike, Condition],
        ctx: TagContext,
        emit: Callable[[str], None],
        *,
        xml: bool,
        markup: bool,
        nest: Mapping[TermLike, TermLike] | None = None,
        nest_at_line_start: bool = False,
        keep_newlines: bool = False,
        typed: bool = False,
    ) -> None:
        self._lexicon = lexicon
        # (a value that is not a plain string: it never holds markup, so the
        # structure that ends it is read with any parameter name)
        self._typed = typed
        self._keep_newlines = keep_newlines
        self._steps = steps  # the terminals that may end the value
        self._conditions = conditions
        self._nest = nest or {}
        self._nest_at_line_start = nest_at_line_start
        self._ctx = ctx
        self._emit = emit
        self._xml = xml
        self._markup = markup
        self._special = _SPECIAL_XML if xml and not markup else _SPECIAL_RAW
        self._state = _START
        self._newline = False  # a newline read but not yet emitted (it may be the last)
        self._line_start = True  # only whitespace since the value began or the last newline
        self._wrapped = False  # inside a <value> wrapper opened at the value's start
        self._wrap_depth = 0  # <value> open inside it, itself included
        # while a wrapper is undecided: the text emitted since it opened (held),
        # where its </value> came in it (-1: not yet) and whether a newline was
        # held there (dropped if the wrapper is whole), the whitespace read after
        # it, and whether the next character decides
        self._held: list[str] | None = None
        self._close_at = -1
        self._close_newline = False
        self._space = 0
        self._deciding = False
        self._lead_dropped = keep_newlines  # the one newline after the opening tag is gone
        self._depth: dict[TermLike, int] | None = None  # open nested markup, by its closing terminal
        self._pending: tuple[str, TermLike, str] | None = None  # a terminal awaiting its confirmation

    @property
    def nested(self) -> bool:
        """Markup opened inside the value (``nest``) is still open."""
        depth = self._depth
        return depth is not None and any(depth.values())

    def read(self, text: str, i: int, final: bool) -> tuple[int, Hit | None]:
        """Read ``text[i:]``: ``(position, terminal)`` when a terminal ends the value
        at ``position``; ``(position, None)`` when the text up to ``position`` is
        read and the rest (if any) cannot be decided before more text comes."""
        n = len(text)
        while i < n:
            state = self._state
            if state == _START:
                i, wait = self._start(text, i, final)
                if wait:
                    return i, None
                continue
            if state == _CDATA_TEXT:
                i = self._cdata(text, i, final)
                if self._state == _CDATA_TEXT:
                    return i, None
                continue
            if state == _AFTER_WRAP:  # after </value>: whitespace, held
                m = _NOT_SPACE.search(text, i)
                stop = n if m is None else m.start()
                self._space += stop - i
                if stop > i:
                    self._lines(text[i:stop])
                i = stop
                if self._space > _MAX_SPACE_BEFORE_CONFIRM:
                    self._unwrap(False)  # (a long run of whitespace: not a wrapper's end)
                    self._state = _TEXT
                    continue
                if m is None:
                    return n, None
                self._state = _TEXT
                self._deciding = True  # (what comes next decides)
                continue
            if self._deciding and text[i] != "<":
                self._unwrap(False)  # text after the wrapper: it was not the whole value
            m = self._special.search(text, i)
            stop = n if m is None else m.start()
            if stop > i:
                self._lines(text[i:stop])
                i = stop
                if i == n:
                    return n, None
            c = text[i]
            if c == "&":
                em = ENTITY.match(text, i)
                if em is not None:
                    decoded = decode_entity(em)
                    self._text(decoded if decoded is not None else em.group())
                    i = em.end()
                elif not final and ENTITY_PREFIX.match(text, i):
                    return i, None
                else:
                    self._text("&")
                    i += 1
            else:  # '<'
                j, hit = self._at_markup(text, i, final)
                if hit is not None or j == i:
                    return j, hit  # the value ends here, or cannot be decided yet
                if self._deciding:
                    self._unwrap(False)  # markup after the wrapper read as text
                i = j
        return n, None

    def finish(self) -> None:
        """The stream ended inside the value: emit a newline still held (and
        a wrapper held: whole if it was closed, only whitespace after it)."""
        if self._held is not None:
            whole = self._close_at >= 0
            if whole:
                self._newline = False
            self._unwrap(whole)
        if self._newline:
            self._emit("\n")
            self._newline = False

    def _unwrap(self, whole: bool) -> None:
        """The wrapper is decided: emit what it held, unwrapped when it is the
        whole value, else with its tags as the text they then are."""
        held = self._held
        assert held is not None
        self._held = None
        self._wrapped = False
        self._deciding = False
        close = self._close_at
        if whole:
            piece = "".join(held[:close])
        elif close < 0:
            piece = _WRAP_OPEN + "".join(held)
        else:
            tail = ("\n" if self._close_newline else "") + _WRAP_CLOSE
            piece = _WRAP_OPEN + "".join(held[:close]) + tail + "".join(held[close:])
        if piece:
            self._emit(piece)

    # -- pieces ----------------------------------------------------------------------

    def _lines(self, run: str) -> None:
        """Text without markup, newlines included, read in one piece. A newline
        that ends it is held: it may be the last before the ending terminal."""
        if "\n" not in run:
            self._text(run)
            return
        if self._newline:
            self._newline = False
            run = "\n" + run
        held = run[-1] == "\n" and not self._keep_newlines
        if held:
            run = run[:-1]
        if run:
            if self._held is None:
                self._emit(run)
            else:
                self._held.append(run)
        if held:
            self._newline = True
            self._line_start = True
        else:  # (a line starts after the last newline, and lasts while it is whitespace)
            self._line_start = not run[run.rfind("\n") + 1 :].strip(" \t\r\n")

    def _text(self, piece: str) -> None:
        if self._newline:
            self._newline = False
            piece = "\n" + piece
        if self._line_start and piece.strip(" \t\r\n"):
            self._line_start = False
        if self._held is None:
            self._emit(piece)
        else:  # (a wrapper not decided yet)
            self._held.append(piece)

    def _start(self, text: str, i: int, final: bool) -> tuple[int, bool]:
        """At the value's start: drop one newline, unwrap ``<value>``. Returns the
        next position, and True to wait there for more text."""
        if text[i] == "\n" and not self._lead_dropped:
            self._lead_dropped = True
            return i + 1, False
        if not self._markup:
            if text.startswith(_WRAP_OPEN, i):
                self._wrapped = True
                self._wrap_depth = 1
                self._held = []
                self._state = _TEXT
                self._line_start = False  # (as the text it may turn out to be)
                return i + len(_WRAP_OPEN), False
            if not final and len(text) - i < len(_WRAP_OPEN) and _WRAP_OPEN.startswith(text[i:]):
                return i, True
        self._state = _TEXT
        return i, False

    def _cdata(self, text: str, i: int, final: bool) -> int:
        """Inside CDATA (xml): text up to ``]]>``; returns where reading stopped."""
        n = len(text)
        k = text.find("]]>", i)
        if k < 0:
            keep = 0 if final else 2 if text.endswith("]]") else 1 if text.endswith("]") else 0
            if n - keep > i:
                self._text(text[i : n - keep])
            return n - keep
        if k > i:
            self._text(text[i:k])
        if self._markup:
            self._text("]]>")
        self._state = _TEXT
        return k + 3

    def _at_markup(self, text: str, i: int, final: bool) -> tuple[int, Hit | None]:
        """At a '<': ``(i, terminal)`` when a terminal ends the value here;
        ``(i, None)`` when it cannot be decided yet; otherwise ``(j, None)``
        with ``j > i`` the position to read on from (markup read as text, or a
        CDATA section or ``</value>`` entered)."""
        if self._xml:
            if text.startswith(_CDATA, i):
                if self._markup:
                    self._text(_CDATA)
                self._state = _CDATA_TEXT
                return i + len(_CDATA), None
            if not final and len(text) - i < len(_CDATA) and _CDATA.startswith(text[i:]):
                return i, None
        if self._wrapped:
            if text.startswith(_WRAP_CLOSE, i):
                self._wrap_depth -= 1
                if self._wrap_depth:  # (closes a <value> written inside the wrapper)
                    self._text(_WRAP_CLOSE)
                    return i + len(_WRAP_CLOSE), None
                assert self._held is not None
                self._close_at = len(self._held)
                self._close_newline = self._newline
                self._newline = False
                self._line_start = False  # (as the text it may turn out to be)
                self._wrapped = False
                self._state = _AFTER_WRAP
                return i + len(_WRAP_CLOSE), None
            if text.startswith(_WRAP_OPEN, i):
                self._wrap_depth += 1
                self._text(_WRAP_OPEN)
                return i + len(_WRAP_OPEN), None
            if not final and len(text) - i < len(_WRAP_CLOSE) and _WRAP_CLOSE.startswith(text[i:]):
                return i, None
            if not final and len(text) - i < len(_WRAP_OPEN) and _WRAP_OPEN.startswith(text[i:]):
                return i, None
        lexicon = self._lexicon
        pending = self._pending
        if pending is not None and text.startswith(pending[0], i):
            # the terminal found here last time, awaiting what follows it
            hit: Hit | None = Hit(i, i + len(pending[0]), pending[1], pending[2])
        else:
            hit = lexicon.match_at(text, i, self._ctx)
        self._pending = None
        if hit is None:
            if not final and lexicon.prefix_at(text, i, self._ctx):
                return i, None  # a terminal may still begin here
            self._text("<")
            return i + 1, None
        if not final and lexicon.undecided(text, i, hit.key):
            return i, None  # (a longer terminal may still match here)
        key = hit.key
        depth = self._depth
        closes = depth is not None and depth.get(key, 0) > 0  # it closes markup nested in the value
        verdict: bool | None
        if closes:
            # (text; but where it would close the only markup open, an example on lines of
            # its own, and the structure goes on after it, it is the value's own end, the
            # example left open. Nesting anywhere (xml's same-name elements) is markup the
            # value holds, always closed in balance.)
            assert depth is not None
            only = self._nest_at_line_start and key in self._steps and sum(depth.values()) == 1
            verdict = (
                self._confirmed(self._conditions.get(key, _ALWAYS), text, hit.end, final) if only else False
            )
        elif depth and key in self._nest and any(depth.values()):
            verdict = False  # (markup the value nests, opened inside open nested markup: nested too)
        elif key in self._steps:
            verdict = self._confirmed(self._conditions.get(key, _ALWAYS), text, hit.end, final)
        else:
            verdict = False
        if verdict is None:
            self._pending = (text[i : hit.end], key, hit.name)
            return i, None
        if closes:
            assert depth is not None
            depth[key] -= 1
        elif not verdict:
            closing = self._nest.get(key)
            if closing is not None and (self._line_start or not self._nest_at_line_start):
                if depth is None:
                    depth = self._depth = {}
                depth[closing] = depth.get(closing, 0) + 1  # markup opened inside the value
        if not verdict:
            self._text(text[i : hit.end])  # markup written inside the value
            return hit.end, None
        self._newline = False  # the newline before the ending terminal is dropped
        if self._held is not None:
            # (after the wrapper's own </value> and whitespace: it was the whole value)
            self._unwrap(self._deciding)
        return i, hit

    def _confirmed(self, condition: Condition, text: str, after: int, final: bool) -> bool | None:
        """Does the terminal ending at ``after`` end the value? None: not known yet."""
        if condition.line_start and not self._line_start:
            return False
        confirm = condition.confirm
        if confirm is None:
            return True
        return self._follows(condition, text, after, final, nested=False)

    def _follows(
        self, condition: Condition, text: str, after: int, final: bool, *, nested: bool
    ) -> bool | None:
        """Does one of ``condition.confirm`` follow ``after`` (past whitespace)? A
        terminal that confirms and is itself one of the value's steps with a
        confirmation of its own (``</parameter>`` confirmed by ``<parameter=``,
        which needs a parameter the tool has and has not been given) confirms
        only when that holds too (``nested``: that second look; it goes no deeper)."""
        confirm = condition.confirm
        assert confirm is not None
        m = _NOT_SPACE.search(text, after, after + _MAX_SPACE_BEFORE_CONFIRM + 1)
        if m is None:
            if len(text) - after > _MAX_SPACE_BEFORE_CONFIRM:
                return False  # a long run of whitespace: not the structure that ends a value
            if not final:
                return None
            # (nested: the confirming terminal came, then the stream ended)
            return True if nested else condition.end_of_stream
        j = m.start()
        if confirm.firsts is not None and text[j] not in confirm.firsts:
            return False
        ctx = _Loose(self._ctx, self._typed) if nested or self._typed else self._ctx
        hit = confirm.match_at(text, j, ctx)
        if hit is not None:
            inner = self._conditions.get(hit.key)
            if nested or inner is None or inner.confirm is None:
                return True
            return self._follows(inner, text, hit.end, final, nested=True)
        if not final and confirm.prefix_at(text, j, ctx):
            return None
        return False


class _Loose:
    """The tag context of a look past a closing tag, at the parameter that may
    follow it (see :meth:`ValueReader._follows`): a parameter the call was given
    counts there too (``</parameter>`` then ``<parameter=path>`` once ``path``
    was given: the call then has it twice, an error, where reading it as text
    would run a value cut by an earlier literal), and after a typed value,
    which never holds markup, any name does."""

    __slots__ = ("_any", "_ctx")

    def __init__(self, ctx: TagContext, any_name: bool) -> None:
        self._ctx = ctx
        self._any = any_name

    @property
    def key(self) -> str | None:
        return self._ctx.key

    @property
    def call_name(self) -> str | None:
        return self._ctx.call_name

    @property
    def tool_names(self) -> tuple[str, ...] | None:
        return self._ctx.tool_names

    @property
    def property_names(self) -> tuple[str, ...] | None:
        return None if self._any else self._ctx.property_names

    def given(self, name: str) -> bool:
        return False
