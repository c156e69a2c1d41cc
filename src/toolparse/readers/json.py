"""A streaming, tolerant JSON reader that writes canonical JSON as it reads.

:class:`JsonRewriter` reads one JSON value from a stream of chunks, character
positions only ever moving forward, and appends the same value as canonical
JSON pieces (see :func:`toolparse.events.canonical_json`) to an output
list. Long strings are copied in runs found by one C-level regex match, so a
string argument of any size streams out at the speed of a slice per chunk.

Because the output is canonical the moment it is written, the concatenated
output parses back (``json.loads``) to the value, and a caller can stream it
as argument deltas that are guaranteed to reconcile with the final arguments.

Tolerated on the way, because real models write them (each keeps the output
canonical and never needs to take back what was already written):

* single-quoted strings and Python's ``True``/``False``/``None``;
* a double quote inside a string that is not followed by ``,``/``}``/``]``/``<``
  (or ``:`` for a key) is read as a literal quote;
* invalid escapes such as ``\\$`` lose their backslash; raw control
  characters inside strings are escaped;
* trailing commas; a leading ``+``, ``.5`` or ``1.`` in numbers;
* a duplicate key keeps its first value (that one has already streamed out);
* with ``root_keys``, a doubled outer brace ``{{...}}}``.

Anything else is a :class:`JsonSyntaxError` carrying the index of the
offending character.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Final, Protocol

from toolparse.events import ErrorReason

_encode_string: Callable[[str], str] = json.encoder.encode_basestring

# (surrogates are not plain: a lone one becomes U+FFFD, see _emit_char)
# Runs of string content already in canonical form: characters that need no
# escape, and the escapes that are written back as they are (``\\n``, ``\\"``...).
# Read with one match at C speed (unrolled: no backtracking).
_PLAIN_CHARS: Final = r'[^"\\\x00-\x1f\ud800-\udfff]*'
_PLAIN_SQ_CHARS: Final = r"""[^'"\\\x00-\x1f\ud800-\udfff]*"""
_KEPT_ESCAPE: Final = r'\\[\\"bfnrt]'
STRING_RUN: Final = re.compile(f"{_PLAIN_CHARS}(?:{_KEPT_ESCAPE}{_PLAIN_CHARS})*")
_PLAIN_DQ: Final = STRING_RUN
_PLAIN_SQ: Final = re.compile(f"{_PLAIN_SQ_CHARS}(?:{_KEPT_ESCAPE}{_PLAIN_SQ_CHARS})*")
_WS: Final = frozenset(" \t\r\n")
_VALUE_STARTS: Final = frozenset("{[\"'-+.0123456789tfnTFN")
# What may follow the closing quote of a value. '<' is not JSON, but a string
# followed by a closing tag is a call that lost its braces: ending the string
# there lets the block end at that tag instead of swallowing what follows.
_VALUE_FOLLOWERS: Final = ",}]<"
_SCALAR_RUN: Final = re.compile(r"[A-Za-z0-9+\-.]+")
# A whole key with its colon, and a whole string value with what follows it in
# sight, of plain characters only: read in one match (what the state machine
# would do in one step per token, with the same outcome; anything else, or a
# token the text's end cuts, takes the steps).
_WHOLE_KEY: Final = re.compile(r'"([^"\\\x00-\x1f\ud800-\udfff]*)"[ \t\r\n]{0,256}:')
_WHOLE_STRING: Final = re.compile(r'"[^"\\\x00-\x1f\ud800-\udfff]*"(?=[ \t\r\n]{0,256}[,}\]<])')
_STRICT_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_LOOSE_NUMBER: Final = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_LITERALS: Final = {
    "true": "true",
    "false": "false",
    "null": "null",
    "True": "true",
    "False": "false",
    "None": "null",
}
_SIMPLE_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "/": "/",
    "b": "\\b",
    "f": "\\f",
    "n": "\\n",
    "r": "\\r",
    "t": "\\t",
    "'": "'",
}
_HEX: Final = frozenset("0123456789abcdefABCDEF")
_MAX_SCALAR = 4000  # below CPython's int-from-str digit limit
_MAX_PENDING_WS = 256

# States
_VALUE = 0  # expecting a value
_OBJ_FIRST = 1  # after '{': a key or '}'
_OBJ_KEY = 2  # after ',' in an object: a key (or '}' for a trailing comma)
_COLON = 3  # after a key
_AFTER = 4  # after a value inside a container: ',' or the closer
_STRING = 5
_ESCAPE = 6  # after a backslash in a string
_QUOTE_END = 7  # after a quote that may or may not close the string
_SCALAR = 8  # inside a number or literal
_EXTRA_CLOSE = 9  # after a doubled root object: swallow one more '}'
_DONE = 10


class JsonSyntaxError(Exception):
    """The input is not JSON, even read tolerantly."""

    def __init__(self, message: str, index: int, reason: ErrorReason = ErrorReason.MALFORMED_JSON):
        super().__init__(message)
        self.message = message
        self.index = index
        self.reason = reason


class ValueTyper(Protocol):
    """Schema-driven decisions while values stream (see :mod:`toolparse.coercion.inline`).

    The reader calls it at structural points only, never per character:
    each value's start, each key, each array item, each container's end.
    """

    def begin_value(self, first: str) -> bool:
        """A value begins with ``first``; True to receive it whole in :meth:`finish_buffered`."""

    def key(self, key: str) -> bool:
        """An object key; False to drop that member."""

    def array_item(self) -> None:
        """The next value is an item of the innermost array."""

    def end_container(self) -> None:
        """The innermost container that :meth:`begin_value` let stream has closed."""

    def finish_buffered(self, canonical: str) -> str:
        """The canonical JSON of a value asked for whole; returns what to write instead."""


RootTarget = Callable[[str], tuple[list[str], "ValueTyper | None"]]
"""Called with each key of the root object; returns the list that key's value is
written to, and the typer for that value (or None)."""

# What a diverted value is for
_ROUTE = 0  # a root member routed to its own list
_DISCARD = 1  # a member read and dropped (duplicate key, or one the schema forbids)
_BUFFER = 2  # a value collected whole, to be coerced when complete


class JsonRewriter:
    """Reads one JSON value incrementally and writes it out as canonical JSON pieces.

    ``out`` receives the pieces. With ``root_keys``, the root must be an object
    whose own punctuation and keys are not written: each member's value is
    written to the list ``root_keys(key)`` returns, and ``on_member_end(key)``
    is called when that value is complete. This is how a call envelope routes
    ``name`` and ``arguments`` to different places without a second pass.
    """

    __slots__ = (
        "_counts",
        "_divert",
        "_doubled",
        "_high",
        "_in_key",
        "_key_parts",
        "_keysets",
        "_kinds",
        "_mute",
        "_on_member_end",
        "_pending",
        "_plain",
        "_quote",
        "_root_keys",
        "_str_target",
        "_typed",
        "_typer",
        "max_depth",
        "out",
        "state",
    )

    def __init__(
        self,
        out: list[str],
        *,
        max_depth: int = 64,
        root_keys: RootTarget | None = None,
        on_member_end: Callable[[str], None] | None = None,
        typer: ValueTyper | None = None,
    ) -> None:
        self.out = out
        self.max_depth = max_depth
        self.state = _VALUE
        self._kinds: list[str] = []  # '{' or '[' per open container
        self._counts: list[int] = []  # members written so far per container
        self._keysets: list[set[str]] = []  # keys seen per container (empty for arrays)
        self._divert: list[tuple[int, list[str], str | None, int]] = []
        self._typer = typer
        self._mute = 0  # >0 while inside a value the typer does not see (buffered or dropped)
        self._typed: list[bool] = []  # per open container: does the typer have a frame for it
        self._root_keys = root_keys
        self._on_member_end = on_member_end
        self._doubled = False
        self._quote = '"'
        self._plain = _PLAIN_DQ
        self._in_key = False
        self._str_target: list[str] = out
        self._key_parts: list[str] = []
        self._pending = ""  # partial escape, pending whitespace, or partial scalar
        self._high = ""  # a high surrogate waiting for its low half

    @property
    def done(self) -> bool:
        """True once the root value is complete."""
        return self.state == _DONE

    def in_plain_string(self, target: list[str]) -> bool:
        """True while a double-quoted string being written to ``target`` is open
        and nothing is pending: printable text free of ``"`` and ``\\`` is then
        plain content that the caller may write to ``target`` itself (the fast
        path of a long streamed string)."""
        return self.state == _STRING and self._str_target is target and self._quote == '"' and not self._high

    def feed(self, text: str, i: int = 0) -> int:
        """Read from ``text[i:]``; return the index after the root value, or ``len(text)``.

        Raises :class:`JsonSyntaxError` at the first character that cannot be read.
        """
        n = len(text)
        while i < n:
            st = self.state
            if st == _STRING:
                j = self._plain.match(text, i).end()  # type: ignore[union-attr]  # (matches "")
                if j > i:
                    if self._high:
                        self._flush_high()
                    self._str_target.append(text[i:j])
                    i = j
                    if i == n:
                        break
                c = text[i]
                i += 1
                if c == self._quote:
                    if not self._kinds:
                        self._end_string()
                    else:
                        self._pending = ""
                        self.state = _QUOTE_END
                elif c == "\\":
                    self._pending = "\\"
                    self.state = _ESCAPE
                else:  # a control character, or '"' inside a single-quoted string
                    self._emit_char(c)
                continue
            if st == _DONE:
                return i
            c = text[i]
            if st == _ESCAPE:
                i = self._escape_char(c, i)
                continue
            if st == _QUOTE_END:
                if c in _WS:
                    self._pending += c
                    i += 1
                    if len(self._pending) > _MAX_PENDING_WS:
                        self._end_string()
                    continue
                if c in (":" if self._in_key else _VALUE_FOLLOWERS):
                    self._end_string()
                else:  # not a closing quote after all: it was part of the text
                    self._emit_char(self._quote)
                    for w in self._pending:
                        self._emit_char(w)
                    self._pending = ""
                    self.state = _STRING
                continue  # re-read c in the new state
            if st == _SCALAR:
                m = _SCALAR_RUN.match(text, i)
                if m is not None:
                    self._pending += m.group()
                    i = m.end()
                    if len(self._pending) > _MAX_SCALAR:
                        raise JsonSyntaxError("number or literal too long", i - 1)
                    if i == n:
                        break
                self._end_scalar(i)
                continue
            if c in _WS:
                i += 1
                continue
            if st == _VALUE:
                i = self._start_value(c, i, text)
            elif st == _AFTER:
                i = self._after_value(c, i)
            elif st in (_OBJ_FIRST, _OBJ_KEY):
                m = _WHOLE_KEY.match(text, i) if c == '"' else None
                if m is not None:  # (the usual key: its steps in one)
                    self._key_parts = [m.group(1)]
                    self._begin_string('"', key=True)
                    self._end_string()
                    self.state = _VALUE  # (past the colon)
                    i = m.end()
                else:
                    i = self._key_position(c, i, st)
            elif st == _COLON:
                if c != ":":
                    raise JsonSyntaxError(f"expected ':' after a key, found {c!r}", i)
                self.state = _VALUE
                i += 1
            else:  # _EXTRA_CLOSE
                self.state = _DONE
                return i + 1 if c == "}" else i
        return n

    def finish(self) -> bool:
        """At end of input: complete what can be completed; True if the value is whole."""
        if self.state == _SCALAR and len(self._kinds) == 0:
            self._end_scalar(-1)
        elif self.state == _EXTRA_CLOSE:
            self.state = _DONE
        return self.state == _DONE

    # -- values -------------------------------------------------------------

    def _start_value(self, c: str, i: int, text: str) -> int:
        kinds = self._kinds
        typer = self._typer if not self._mute else None
        if kinds and kinds[-1] == "[":
            if c == "]":  # empty array or trailing comma
                self._close_container("[", i)
                return i + 1
            if self._counts[-1]:
                self.out.append(",")
            self._counts[-1] += 1
            if typer is not None:
                typer.array_item()
        if typer is not None and c in _VALUE_STARTS and typer.begin_value(c):
            self._divert.append((len(kinds), self.out, None, _BUFFER))
            self.out = []
            self._mute += 1
            typer = None
        if c == "{" or c == "[":
            if self._root_keys is not None and not kinds and c != "{":
                raise JsonSyntaxError("a call must be a JSON object", i)
            # (a call envelope routed by root_keys is not counted: max_depth is the
            # arguments' own nesting, as in every grammar)
            if len(kinds) >= self.max_depth + (self._root_keys is not None):
                raise JsonSyntaxError(f"nesting deeper than {self.max_depth}", i, ErrorReason.TOO_DEEP)
            kinds.append(c)
            self._counts.append(0)
            self._keysets.append(set())
            self._typed.append(typer is not None)
            self.out.append(c)
            self.state = _OBJ_FIRST if c == "{" else _VALUE
            return i + 1
        if self._root_keys is not None and not kinds:
            raise JsonSyntaxError("a call must be a JSON object", i)
        if c == '"' or c == "'":
            m = _WHOLE_STRING.match(text, i) if c == '"' and kinds else None
            if m is not None:  # (the usual string: its steps in one)
                self.out.append(m.group())
                self._value_done()
                return m.end()
            self._begin_string(c, key=False)
            self.out.append('"')
            return i + 1
        if _SCALAR_RUN.match(c):
            self._pending = ""
            self.state = _SCALAR
            return i
        raise JsonSyntaxError(f"expected a value, found {c!r}", i)

    def _after_value(self, c: str, i: int) -> int:
        kind = self._kinds[-1]
        if c == ",":
            self.state = _OBJ_KEY if kind == "{" else _VALUE
            return i + 1
        if (c == "}" or c == "]") and c == ("}" if kind == "{" else "]"):
            self._close_container(kind, i)
            return i + 1
        expected = "',' or '}'" if kind == "{" else "',' or ']'"
        raise JsonSyntaxError(f"expected {expected}, found {c!r}", i)

    def _key_position(self, c: str, i: int, st: int) -> int:
        if c == "}":
            self._close_container("{", i)
            return i + 1
        if c == '"' or c == "'":
            self._key_parts = []
            self._begin_string(c, key=True)
            return i + 1
        if c == "{" and st == _OBJ_FIRST and self._root_keys is not None and len(self._kinds) == 1:
            if self._doubled:
                raise JsonSyntaxError("expected a key, found '{'", i)
            self._doubled = True  # '{{' written for '{' (a template's escaped brace)
            return i + 1
        raise JsonSyntaxError(f"expected a key, found {c!r}", i)

    def _close_container(self, kind: str, i: int) -> None:
        self._kinds.pop()
        self._counts.pop()
        self._keysets.pop()
        if self._typed.pop():
            assert self._typer is not None
            self._typer.end_container()
        self.out.append("}" if kind == "{" else "]")
        self._value_done()

    def _value_done(self) -> None:
        depth = len(self._kinds)
        divert = self._divert
        while divert and divert[-1][0] == depth:
            _, saved, key, purpose = divert.pop()
            done, self.out = self.out, saved
            if purpose == _BUFFER:
                self._mute -= 1
                assert self._typer is not None
                saved.append(self._typer.finish_buffered("".join(done)))
            elif purpose == _DISCARD:
                self._mute -= 1
            elif key is not None:  # _ROUTE: a root member is complete
                self._typer = None
                if self._on_member_end is not None:
                    self._on_member_end(key)
        if depth == 0:
            self.state = _EXTRA_CLOSE if self._doubled else _DONE
        else:
            self.state = _AFTER

    # -- strings ------------------------------------------------------------

    def _begin_string(self, quote: str, *, key: bool) -> None:
        self._quote = quote
        self._plain = _PLAIN_DQ if quote == '"' else _PLAIN_SQ
        self._in_key = key
        self._str_target = self._key_parts if key else self.out
        self.state = _STRING

    def _emit_char(self, c: str) -> None:
        """Write one decoded character of string content, escaped canonically.

        A UTF-16 surrogate pair (two ``\\u`` escapes) is joined into its
        character; a lone surrogate becomes U+FFFD, so arguments are always
        valid Unicode that any UTF-8 encoder accepts.
        """
        if self._high:
            if "\udc00" <= c <= "\udfff":
                c = (self._high + c).encode("utf-16", "surrogatepass").decode("utf-16")
                self._high = ""
            else:
                self._flush_high()
        if "\ud800" <= c <= "\udfff":
            if c <= "\udbff":
                self._high = c
                return
            c = "\ufffd"
        self._str_target.append(_encode_string(c)[1:-1])

    def _flush_high(self) -> None:
        self._high = ""
        self._str_target.append("\ufffd")

    def _escape_char(self, c: str, i: int) -> int:
        p = self._pending + c
        if len(p) == 2:
            if c == "u":
                self._pending = p
                return i + 1
            self.state = _STRING
            simple = _SIMPLE_ESCAPES.get(c)
            if simple is None:  # invalid escape such as '\$': keep the character
                self._emit_char(c)
            elif simple in ("'", "/"):
                self._emit_char(simple)
            else:
                if self._high:
                    self._flush_high()
                self._str_target.append(simple)
            return i + 1
        if c in _HEX:
            if len(p) < 6:
                self._pending = p
                return i + 1
            self.state = _STRING
            self._emit_char(chr(int(p[2:], 16)))
            return i + 1
        # a broken \u escape: keep its characters, then re-read c as string content
        self.state = _STRING
        for ch in p[1:-1]:
            self._emit_char(ch)
        return i

    def _end_string(self) -> None:
        if self._high:
            self._flush_high()
        self._pending = ""
        if not self._in_key:
            self.out.append('"')
            self._value_done()
            return
        key = "".join(self._key_parts)
        keys = self._keysets[-1]
        self.state = _COLON
        typer = self._typer if not self._mute else None
        if key in keys or (
            typer is not None and not typer.key(json.loads('"' + key + '"') if "\\" in key else key)
        ):
            # a duplicate key, or a member the schema forbids: read it, write it nowhere
            self._divert.append((len(self._kinds), self.out, None, _DISCARD))
            self.out = []
            self._mute += 1
            return
        keys.add(key)
        if self._counts[-1]:
            self.out.append(",")
        self._counts[-1] += 1
        self.out.append('"' + key + '":')
        if self._root_keys is not None and len(self._kinds) == 1:
            decoded: str = json.loads('"' + key + '"') if "\\" in key else key  # (canonical text)
            self._divert.append((1, self.out, decoded, _ROUTE))
            self.out, self._typer = self._root_keys(decoded)

    # -- scalars ------------------------------------------------------------

    def _end_scalar(self, i: int) -> None:
        token = self._pending
        self._pending = ""
        literal = _LITERALS.get(token)
        if literal is None:
            literal = _canonical_number(token)
            if literal is None:
                raise JsonSyntaxError(f"not a JSON value: {token[:40]!r}", max(i - 1, 0))
        self.out.append(literal)
        self._value_done()


def _canonical_number(token: str) -> str | None:
    if token.isascii() and token.isdigit() and len(token) < 16 and (token[0] != "0" or token == "0"):
        return token  # (a plain integer is its own canonical form)
    m = _STRICT_NUMBER.fullmatch(token) or _LOOSE_NUMBER.fullmatch(token)
    if m is None:
        return None
    try:
        if "." not in token and "e" not in token and "E" not in token:
            return str(int(token))
        value = float(token)
    except ValueError:
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return repr(value)


def parse_value(text: str, *, max_depth: int = 64) -> str | None:
    """Read a whole text as one tolerant JSON value; return its canonical JSON or None."""
    out: list[str] = []
    reader = JsonRewriter(out, max_depth=max_depth)
    try:
        end = reader.feed(text)
        if not reader.finish():
            return None
    except JsonSyntaxError:
        return None
    if text[end:].strip():
        return None
    return "".join(out)
