"""Python literals read as data, never evaluated.

Pythonic tool calls (``[get_weather(city="Paris", days=3)]``) write each
argument as a Python literal. :func:`parse_literal` reads one: strings
(single, double or triple quotes, ``r``/``b``/``u`` prefixes, Python's
escapes, adjacent strings joined), numbers (with ``_`` separators, ``inf``
and ``nan`` excluded: JSON has neither), ``True``/``False``/``None`` (and
JSON's ``true``/``false``/``null``), lists, tuples (as lists), dicts and sets
(as lists). Anything else, a name or a call in particular (``f(x=g(1))``), is a
:class:`LiteralError`. One pass, bounded nesting: linear in the text.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Final

from toolparse.events import valid_unicode

_SPACE: Final = re.compile(r"[ \t\r\n]*")
_NUMBER: Final = re.compile(
    r"[+-]?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|"
    r"(?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9_]+)?)"
)
_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORDS: Final = {"True": True, "False": False, "None": None, "true": True, "false": False, "null": None}
_STRING_PREFIX: Final = re.compile(r"(?:[rRbBuU]|[rR][bB]|[bB][rR])?(?=['\"])")
_SIMPLE_ESCAPES: Final = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\n": "",
}
_HEX_LENGTH: Final = {"x": 2, "u": 4, "U": 8}


class LiteralError(ValueError):
    """The text is not a Python literal (or nests deeper than allowed)."""


def parse_literal(text: str, max_depth: int = 64) -> Any:
    """The value of the Python literal ``text`` (surrounding whitespace allowed)."""
    reader = _Reader(text, max_depth)
    value = reader.value()
    reader.space()
    if reader.i != len(text):
        raise LiteralError(f"unexpected {text[reader.i : reader.i + 20]!r} after the value")
    return value


class _Open:
    """A list, tuple, dict or set being read (see :meth:`_Reader.value`)."""

    __slots__ = ("close", "comma", "items", "key", "pairs")

    def __init__(self, close: str) -> None:
        self.close = close  # "]", ")" or "}"
        self.items: list[Any] = []  # (a sequence's items, a set's members)
        self.comma = False  # (a sequence: a comma was read)
        self.pairs: dict[Any, Any] = {}  # (a dict)
        self.key: Any = _NO_KEY  # (a dict: the key whose value is being read)


_NO_KEY: Final = object()


class _Reader:
    __slots__ = ("i", "max_depth", "text")

    def __init__(self, text: str, max_depth: int) -> None:
        self.text = text
        self.i = 0
        self.max_depth = max_depth

    def space(self) -> None:
        m = _SPACE.match(self.text, self.i)
        assert m is not None
        self.i = m.end()

    def value(self) -> Any:
        """One value, its containers read with a stack of their own: no Python
        frame per level of nesting, so ``max_depth`` asks nothing of the
        caller's recursion limit. (The steps, and so the first error met, are
        those of a recursive reader: the native core's is one, ``pyliteral.rs``.)"""
        text, space, max_depth = self.text, _SPACE.match, self.max_depth
        stack: list[_Open] = []
        while True:
            # a value begins, nested len(stack) deep
            if len(stack) >= max_depth:
                raise LiteralError(f"nested deeper than {max_depth}")
            i = space(text, self.i).end()  # type: ignore[union-attr]
            if i >= len(text):
                self.i = i
                raise LiteralError("a value is missing")
            c = text[i]
            if c == "[" or c == "(" or c == "{":
                opened = _Open("]" if c == "[" else ")" if c == "(" else "}")
                i = space(text, i + 1).end()  # type: ignore[union-attr]
                self.i = i
                if not text.startswith(opened.close, i):
                    stack.append(opened)
                    continue  # (its first item)
                self.i = i + 1
                value: Any = [] if c != "{" else {}
            else:
                self.i = i
                value = self.scalar()
            # a value ends: it goes into the container around it, which may end too
            while stack:
                opened = stack[-1]
                close = opened.close
                i = space(text, self.i).end()  # type: ignore[union-attr]
                if close != "}":
                    opened.items.append(value)
                    if text.startswith(",", i):
                        i += 1
                        opened.comma = True
                    elif not text.startswith(close, i):
                        raise LiteralError(f"expected ',' or {close!r}")
                else:
                    if opened.key is not _NO_KEY:  # (a dict's value; a set has no key)
                        opened.pairs.setdefault(opened.key, value)
                        opened.key = _NO_KEY
                    elif text.startswith(":", i) and not opened.items:
                        if not isinstance(value, (str, int, float, bool)) and value is not None:
                            raise LiteralError("a dict key must be a string, a number, a bool or None")
                        opened.key = value if isinstance(value, str) else _key_text(value)
                        self.i = i + 1
                        break  # (the key's value)
                    elif not opened.pairs:
                        opened.items.append(value)
                    else:
                        raise LiteralError("expected ':' in a dict")
                    i = space(text, i).end()  # type: ignore[union-attr]
                    if text.startswith(",", i):
                        i += 1
                    elif not text.startswith("}", i):
                        raise LiteralError("expected ',' or '}'")
                # the container's loop goes on: its next item, or its end
                i = space(text, i).end()  # type: ignore[union-attr]
                self.i = i
                if not text.startswith(close, i):
                    break  # (its next item)
                self.i = i + 1
                stack.pop()
                items = opened.items
                if close == "}":
                    value = items if items else opened.pairs
                elif close == ")" and len(items) == 1 and not opened.comma:
                    value = items[0]  # (parentheses around one value group it: ("Paris") is "Paris")
                else:
                    value = items
            else:
                return value

    def scalar(self) -> Any:
        """A value that is no container."""
        text, i = self.text, self.i
        prefix = _STRING_PREFIX.match(text, i)
        if prefix is not None:
            return self.strings()
        m = _NUMBER.match(text, i)
        if m is not None and m.end() > i and any(ch.isdigit() for ch in m.group()):
            self.i = m.end()
            return _number(m.group())
        m = _WORD.match(text, i)
        if m is not None:
            word = m.group()
            self.i = m.end()
            if word in _WORDS:
                return _WORDS[word]
            self.space()
            if self.text.startswith("(", self.i):
                raise LiteralError(f"a call ({word}(...)) is not a literal: nested calls are not read")
            raise LiteralError(f"a name ({word}) is not a literal")
        raise LiteralError(f"unexpected {text[i : i + 20]!r}")

    def strings(self) -> str:
        """One string, or adjacent ones joined (``"a" 'b'``); a surrogate pair
        (``"\\ud83d\\ude00"``, two escapes, which Python keeps apart) joined
        into its character, a lone surrogate U+FFFD: a value is valid Unicode."""
        parts = [self.string()]
        while True:
            self.space()
            if _STRING_PREFIX.match(self.text, self.i) is None:
                return valid_unicode("".join(parts))
            parts.append(self.string())

    def string(self) -> str:
        text = self.text
        m = _STRING_PREFIX.match(text, self.i)
        assert m is not None
        raw = "r" in m.group().lower()
        i = m.end()
        quote = text[i] * 3 if text.startswith(text[i] * 3, i) else text[i]
        i += len(quote)
        out: list[str] = []
        end = text.find(quote, i)
        while True:
            if 0 <= end < i:  # (the quote found was escaped: look past it, once)
                end = text.find(quote, i)
            slash = text.find("\\", i, end if end >= 0 else len(text))
            if slash < 0:
                if end < 0:
                    raise LiteralError("a string is not closed")
                chunk = text[i:end]
                if len(quote) == 1 and "\n" in chunk:
                    raise LiteralError("a newline inside a one-line string")
                out.append(chunk)
                self.i = end + len(quote)
                return "".join(out)
            out.append(text[i:slash])
            if slash + 1 >= len(text):
                raise LiteralError("a string is not closed")
            if raw:
                out.append(text[slash : slash + 2])
                i = slash + 2
                continue
            escaped, i = _escape(text, slash + 1)
            out.append(escaped)


def _escape(text: str, i: int) -> tuple[str, int]:
    c = text[i]
    if c in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[c], i + 1
    if c in _HEX_LENGTH:
        digits = text[i + 1 : i + 1 + _HEX_LENGTH[c]]
        if len(digits) == _HEX_LENGTH[c] and all(d in "0123456789abcdefABCDEF" for d in digits):
            code = int(digits, 16)
            if code <= 0x10FFFF:
                return chr(code), i + 1 + len(digits)
        raise LiteralError(f"a bad \\{c} escape")
    if c == "N":
        return _named(text, i)
    if c in "01234567":
        j = i
        while j < i + 3 and j < len(text) and text[j] in "01234567":
            j += 1
        return chr(int(text[i:j], 8)), j
    return "\\" + c, i + 1  # (Python keeps an unknown escape as written)


_NAMED: Final = re.compile(r"\{([A-Za-z0-9 \-]{1,256})\}")
"""``\\N``'s braces and what a character name may be spelled with: letters
(matched without case), digits, spaces and hyphens, 256 at most
(``unicodedata``'s own bound). Anything else is no name, as it is to Python;
a quote in particular ends the string first."""


def _named(text: str, i: int) -> tuple[str, int]:
    """``\\N{name}`` (``text[i]`` is the ``N``): the character of that name or
    alias, as Python reads it (a named sequence is no character); an escape
    Python refuses is a LiteralError, as a bad ``\\x`` escape is."""
    m = _NAMED.match(text, i + 1)
    if m is None:
        raise LiteralError("a bad \\N escape (malformed)")
    try:
        character = unicodedata.lookup(m.group(1))
    except KeyError:
        character = ""
    if len(character) != 1:
        raise LiteralError("a bad \\N escape (unknown character name)")
    return character, m.end()


_MAX_DIGITS: Final = 4300
"""Python's own bound on ``int()`` and ``str()`` of a decimal digit string: an
integer past it could not be written as JSON."""
_TOO_LARGE: Final = 10**_MAX_DIGITS


def _number(text: str) -> int | float:
    digits = text.replace("_", "")
    try:
        if any(c in digits for c in ".eE") and digits.lstrip("+-")[:2].lower() != "0x":
            value = float(digits)
            if value != value or value in (float("inf"), float("-inf")):
                raise LiteralError(f"{text} is not a finite number")
            return value
        if len(digits) > _MAX_DIGITS + 3:  # (a decimal past the bound, or a longer hex, octal or binary one)
            raise LiteralError("a number with too many digits")
        # (hex, octal and binary are read in linear time: bases that are powers of two)
        number = int(digits, 0) if digits.lstrip("+-")[:2].lower() in ("0x", "0o", "0b") else int(digits)
        if not -_TOO_LARGE < number < _TOO_LARGE:
            raise LiteralError("a number with too many digits")
        return number
    except LiteralError:
        raise
    except ValueError as exc:
        raise LiteralError(f"{text!r} is not a number") from exc


def _key_text(key: Any) -> str:
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    return str(key)
