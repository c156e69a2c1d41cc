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
    value = reader.value(0)
    reader.space()
    if reader.i != len(text):
        raise LiteralError(f"unexpected {text[reader.i : reader.i + 20]!r} after the value")
    return value


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

    def value(self, depth: int) -> Any:
        if depth >= self.max_depth:
            raise LiteralError(f"nested deeper than {self.max_depth}")
        self.space()
        text, i = self.text, self.i
        if i >= len(text):
            raise LiteralError("a value is missing")
        c = text[i]
        if c in "[(":
            return self.sequence("]" if c == "[" else ")", depth)
        if c == "{":
            return self.mapping(depth)
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

    def sequence(self, close: str, depth: int) -> Any:
        self.i += 1
        items: list[Any] = []
        comma = False
        while True:
            self.space()
            if self.text.startswith(close, self.i):
                self.i += 1
                if close == ")" and len(items) == 1 and not comma:
                    return items[0]  # (parentheses around one value group it: ("Paris") is "Paris")
                return items
            items.append(self.value(depth + 1))
            self.space()
            if self.text.startswith(",", self.i):
                self.i += 1
                comma = True
            elif not self.text.startswith(close, self.i):
                raise LiteralError(f"expected ',' or {close!r}")

    def mapping(self, depth: int) -> Any:
        self.i += 1
        pairs: dict[Any, Any] = {}
        members: list[Any] = []  # (a set: {1, 2})
        while True:
            self.space()
            if self.text.startswith("}", self.i):
                self.i += 1
                return members if members else pairs
            key = self.value(depth + 1)
            self.space()
            if self.text.startswith(":", self.i) and not members:
                self.i += 1
                if not isinstance(key, (str, int, float, bool)) and key is not None:
                    raise LiteralError("a dict key must be a string, a number, a bool or None")
                name = key if isinstance(key, str) else _key_text(key)
                value = self.value(depth + 1)
                pairs.setdefault(name, value)
            elif not pairs:
                members.append(key)
            else:
                raise LiteralError("expected ':' in a dict")
            self.space()
            if self.text.startswith(",", self.i):
                self.i += 1
            elif not self.text.startswith("}", self.i):
                raise LiteralError("expected ',' or '}'")

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
    if c in "01234567":
        j = i
        while j < i + 3 and j < len(text) and text[j] in "01234567":
            j += 1
        return chr(int(text[i:j], 8)), j
    return "\\" + c, i + 1  # (Python keeps an unknown escape as written)


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
