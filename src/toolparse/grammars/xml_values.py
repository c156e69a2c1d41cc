"""Reading the raw text value of an XML-ish parameter, as it streams.

Model-written XML is rarely well-formed: values hold raw ``<``, ``>`` and
``&``, code and HTML. :class:`ValueReader` reads a value up to the first of
its end markers (``</parameter>``, the next ``<parameter=``, ...) and emits
its decoded text in pieces as soon as they are certain:

* the five predefined XML entities and numeric character references are
  decoded; any other ``&`` is text (nothing is ever resolved or fetched);
* ``<![CDATA[...]]>`` is unwrapped, and an end marker inside it is text;
* a ``<`` that begins no marker is text;
* one newline right after the opening tag and one right before the end
  marker are dropped (values on their own lines), nothing else is trimmed;
* a value wrapped as ``<value>...</value>`` is unwrapped.

Only what could still begin a marker, an entity, ``]]>`` or the final
newline is held back between deltas, so the work is linear and the text
streams.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from toolparse.engine.markers import MarkerSet

_SPECIAL: Final = re.compile(r"[<&\n]")
_ENTITY: Final = re.compile(r"&(lt|gt|amp|quot|apos|#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,7});")
_ENTITY_PREFIX: Final = re.compile(r"&(?:[a-z]{0,4}|#[0-9]{0,8}|#[xX][0-9a-fA-F]{0,7})\Z")
_NAMED: Final = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
_CDATA: Final = "<![CDATA["
_WRAP_OPEN: Final = "<value>"
_WRAP_CLOSE: Final = "</value>"
_WS: Final = frozenset(" \t\r\n")

_START = 0  # nothing read yet: a first newline is dropped, a <value> wrapper unwrapped
_TEXT = 1
_CDATA_TEXT = 2
_AFTER_WRAP = 3  # after </value>: only whitespace before the end marker
_DONE = 4


def decode_entity(match: re.Match[str]) -> str | None:
    """The character an entity stands for, or None if it stands for no valid character."""
    name = match.group(1)
    if name[0] != "#":
        return _NAMED[name]
    code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code)


class ValueReader:
    """Reads one value up to the first of ``ends``; ``emit`` receives decoded text."""

    __slots__ = (
        "_emit",
        "_ends",
        "_held",
        "_lead_dropped",
        "_newline",
        "_specials",
        "_state",
        "_wrapped",
        "end",
    )

    def __init__(self, ends: MarkerSet, emit: Callable[[str], None]) -> None:
        self._ends = ends
        self._specials = MarkerSet.of(*sorted({*ends.markers, _CDATA, _WRAP_CLOSE}))
        self._emit = emit
        self._state = _START
        self._held = ""  # characters that may begin a marker or an entity
        self._newline = False  # a newline read but not yet emitted (it may be the last)
        self._wrapped = False
        self._lead_dropped = False  # the one newline after the opening tag is gone
        self.end: str | None = None  # the end marker, once the value is complete

    @property
    def done(self) -> bool:
        return self._state == _DONE

    @property
    def plain(self) -> bool:
        """True in plain text with nothing held back: printable text without ``<``
        or ``&`` would be emitted exactly as it is (the engine's fast path)."""
        return self._state == _TEXT and not self._held and not self._newline

    def feed(self, text: str, i: int) -> int:
        """Read ``text[i:]``; return the index after the end marker, or ``len(text)``."""
        held = self._held
        if held:
            self._held = ""
            s = held + text[i:]
            j = self._run(s, 0)
            return i + j - len(held) if self._state == _DONE else len(text)
        return self._run(text, i)

    def finish(self) -> None:
        """The stream ended inside the value: emit what was held back."""
        if self._newline:
            self._emit("\n")
            self._newline = False
        if self._held:
            self._emit(self._held)
            self._held = ""

    def _text(self, piece: str) -> None:
        if self._newline:
            self._newline = False
            piece = "\n" + piece
        self._emit(piece)

    def _run(self, s: str, j: int) -> int:
        n = len(s)
        while j < n:
            state = self._state
            if state == _CDATA_TEXT:
                k = s.find("]]>", j)
                if k < 0:
                    keep = 2 if s.endswith("]]") else 1 if s.endswith("]") else 0
                    if n - keep > j:
                        self._text(s[j : n - keep])
                    self._held = s[n - keep :]
                    return n
                if k > j:
                    self._text(s[j:k])
                j = k + 3
                self._state = _TEXT
                continue
            if state == _START:
                if s[j] == "\n" and not self._lead_dropped:
                    self._lead_dropped = True
                    j += 1
                    continue
                if s.startswith(_WRAP_OPEN, j):
                    self._wrapped = True
                    self._state = _TEXT
                    j += len(_WRAP_OPEN)
                    continue
                if n - j < len(_WRAP_OPEN) and _WRAP_OPEN.startswith(s[j:]):
                    self._held = s[j:]
                    return n
                self._state = _TEXT
                continue
            if state == _AFTER_WRAP:
                while j < n and s[j] in _WS:
                    j += 1
                if j == n:
                    return n
                marker = self._ends.match_at(s, j)
                if marker is not None:
                    self.end = marker
                    self._state = _DONE
                    return j + len(marker)
                if self._ends.prefix_at(s, j):
                    self._held = s[j:]
                    return n
                self._state = _TEXT  # text after </value>: keep reading it as the value
                continue
            m = _SPECIAL.search(s, j)
            stop = n if m is None else m.start()
            if stop > j:
                self._text(s[j:stop])
                j = stop
                if j == n:
                    return n
            c = s[j]
            if c == "\n":
                if self._newline:
                    self._emit("\n")
                self._newline = True
                j += 1
            elif c == "&":
                em = _ENTITY.match(s, j)
                if em is not None:
                    decoded = decode_entity(em)
                    self._text(decoded if decoded is not None else em.group())
                    j = em.end()
                elif _ENTITY_PREFIX.match(s, j):
                    self._held = s[j:]
                    return n
                else:
                    self._text("&")
                    j += 1
            else:  # '<'
                marker = self._specials.match_at(s, j)
                if marker is None:
                    if self._specials.prefix_at(s, j):
                        self._held = s[j:]
                        return n
                    self._text("<")
                    j += 1
                elif marker == _CDATA:
                    self._state = _CDATA_TEXT
                    j += len(_CDATA)
                elif marker == _WRAP_CLOSE and self._wrapped:
                    self._newline = False
                    self._wrapped = False
                    self._state = _AFTER_WRAP
                    j += len(_WRAP_CLOSE)
                elif marker == _WRAP_CLOSE:
                    self._text(marker)
                    j += len(marker)
                else:
                    self._newline = False  # the newline before the end marker is dropped
                    self.end = marker
                    self._state = _DONE
                    return j + len(marker)
        return n
