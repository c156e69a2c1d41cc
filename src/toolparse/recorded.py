"""Recorded streams: what a server actually sent, replayed delta by delta.

A recording keeps the real chunk boundaries, which are what a parser that
must not care about chunking should be tested on. Formats:

``sse``
    ``curl -N`` output of an OpenAI-compatible endpoint: ``data: {...}``
    events (``[DONE]``, comments and ``event:`` lines handled).
``jsonl``
    one chunk object per line (a client's log).
``json``
    a JSON array of chunk objects, read item by item (memory stays flat on
    a file of any size: only the item in progress is held).
``ollama``
    Ollama's ``/api/chat`` (``message.content``, ``message.thinking``) or
    ``/api/generate`` (``response``, ``thinking``) NDJSON stream.
``text``
    the model's raw text, as it arrives.
``auto``
    sniffed from the first bytes.

Each chunk's ``choices[0].delta.content`` (or a whole ``message.content``)
is one delta, and its ``reasoning_content`` / ``reasoning`` (reasoning the
server already separated) comes with it. Chunks with no content, ``[DONE]``
and ``finish_reason`` chunks yield nothing. A line or item that cannot be
read is reported to ``on_error(line, message)`` (default: a
:class:`RecordedStreamWarning`) and skipped, never raised.

The decoding is sans-IO (:class:`RecordedDecoder`: text in, chunks out);
:func:`iter_chunks` / :func:`iter_deltas` drive it from a file or an
iterable, :func:`aiter_chunks` / :func:`aiter_deltas` from an async iterable.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import warnings
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from toolparse.errors import InvalidOptionError
from toolparse.sse import SSEDecoder

FORMATS = ("auto", "sse", "jsonl", "json", "ollama", "text")
_READ_SIZE = 65536
_MAX_LINE = 64 * 1024 * 1024  # a line longer than this is broken, not a chunk
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[\ufeff \t\r\n]*")
_SEPARATORS = re.compile(r"[ \t\r\n,]*")
_SNIFF = 65536  # characters held at most to tell the format (a first JSON line, whole)

ErrorHandler = Callable[[int, str], None]


class RecordedStreamWarning(UserWarning):
    """A line or item of a recording could not be read and was skipped."""


@dataclass(frozen=True, slots=True)
class RecordedChunk:
    """One chunk of a recording: the model's text, reasoning the server had
    already separated, and where it was (line, or item for ``json``)."""

    content: str = ""
    reasoning: str = ""
    line: int = 0


def _warn(line: int, message: str) -> None:
    warnings.warn(f"line {line}: {message}", RecordedStreamWarning, stacklevel=3)


def chunk_of(data: Any, line: int = 0) -> RecordedChunk | None:
    """The content and reasoning of one decoded chunk object (OpenAI chunk or
    response, or Ollama chat / generate object); None when it holds neither."""
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if "error" in data:
        raise ValueError(f"the server sent an error: {json.dumps(data['error'])[:200]}")
    content: Any = None
    reasoning: Any = None
    choices = data.get("choices")
    if isinstance(choices, list):
        choice = next((c for c in choices if isinstance(c, dict) and c.get("index", 0) == 0), None)
        if choice is not None:
            part = choice.get("delta") or choice.get("message") or {}
            if isinstance(part, dict):
                content = part.get("content")
                reasoning = part.get("reasoning_content") or part.get("reasoning")
    elif isinstance(data.get("message"), dict):  # Ollama /api/chat
        content = data["message"].get("content")
        reasoning = data["message"].get("thinking")
    elif "response" in data:  # Ollama /api/generate
        content = data.get("response")
        reasoning = data.get("thinking")
    content = content if isinstance(content, str) else ""
    reasoning = reasoning if isinstance(reasoning, str) else ""
    if not content and not reasoning:
        return None
    return RecordedChunk(content, reasoning, line)


class RecordedDecoder:
    """A recording's text in, its chunks out (``feed`` / ``close``)."""

    def __init__(self, format: str = "auto", on_error: ErrorHandler | None = None) -> None:
        if format not in FORMATS:
            raise InvalidOptionError(f"unknown recording format {format!r}; known: {', '.join(FORMATS)}")
        self.format = format
        self._on_error = on_error if on_error is not None else _warn
        self._sniffed = ""  # (auto) text held until the format is known
        self._sse: SSEDecoder | None = None
        self._lines: list[str] = []  # (jsonl, ollama) the line so far
        self._line_length = 0
        self._line_number = 0
        self._pending: list[str] = []  # (json) the item in progress, in pieces
        self._pending_length = 0
        self._retry_at = 0  # (json) held characters needed before decoding again
        self._started = False  # (json) the array's "[" was read
        self._item = 0
        self._done = False
        self._broken = False
        self._begun = False  # (the first character was seen)

    # -- public --------------------------------------------------------------------------

    def feed(self, text: str) -> list[RecordedChunk]:
        """The chunks that ``text`` completes."""
        if not self._begun and text:  # (a file's leading BOM is its encoding's, not a chunk's)
            self._begun = True
            if text[0] == "\ufeff" and self.format != "text":
                text = text[1:]
        if self.format == "auto":
            self._sniffed += text
            decided = _sniff(self._sniffed, final=False)
            if decided is None and len(self._sniffed) < _SNIFF:
                return []  # (not known yet: held)
            self.format = decided or _sniff(self._sniffed, final=True) or "text"
            text, self._sniffed = self._sniffed, ""
        return self._decode(text, final=False)

    def close(self) -> list[RecordedChunk]:
        """End of the recording: what is still held."""
        if self.format == "auto":
            self.format = _sniff(self._sniffed, final=True) or "text"
            text, self._sniffed = self._sniffed, ""
            return self._decode(text, final=True)
        return self._decode("", final=True)

    # -- formats -------------------------------------------------------------------------

    def _decode(self, text: str, final: bool) -> list[RecordedChunk]:
        kind = self.format
        if kind == "text":
            return [RecordedChunk(text)] if text else []
        if kind == "sse":
            return self._decode_sse(text, final)
        if kind == "json":
            return self._decode_json(text, final)
        return self._decode_lines(text, final)

    def _decode_sse(self, text: str, final: bool) -> list[RecordedChunk]:
        if self._sse is None:
            self._sse = SSEDecoder(max_line=_MAX_LINE)
        out: list[RecordedChunk] = []
        if self._done:
            return out
        events = self._sse.feed(text) if text else []
        if final:
            events += self._sse.close()
        for line, message in self._sse.dropped:  # (a line or event past the limits: skipped)
            self._on_error(line, message)
        self._sse.dropped.clear()
        for event in events:
            data = event.data.strip()
            if data == "[DONE]":
                self._done = True
                break
            if event.event == "error":
                self._on_error(event.line, f"the server sent an error event: {data[:200]}")
                continue
            self._take(data, event.line, out)
        return out

    def _decode_lines(self, text: str, final: bool) -> list[RecordedChunk]:
        out: list[RecordedChunk] = []
        start = 0
        while True:
            end = text.find("\n", start)
            if end < 0:
                if start < len(text):
                    self._line_piece(text[start:])
                break
            self._line_piece(text[start:end])
            self._end_line(out)
            start = end + 1
        if final and self._lines:
            self._end_line(out)
        return out

    def _line_piece(self, piece: str) -> None:
        """A piece of the line so far; past _MAX_LINE the line is reported, and
        the rest of it dropped as it comes (never held)."""
        if self._line_length < 0:  # (the line being dropped)
            return
        self._line_length += len(piece)
        if self._line_length > _MAX_LINE:
            self._on_error(self._line_number + 1, f"a line longer than {_MAX_LINE} characters")
            self._lines.clear()
            self._line_length = -1
            return
        self._lines.append(piece)

    def _end_line(self, out: list[RecordedChunk]) -> None:
        self._line_number += 1
        line = "".join(self._lines).strip()
        dropped = self._line_length < 0
        self._lines.clear()
        self._line_length = 0
        if line and not dropped:
            self._take(line, self._line_number, out)

    def _decode_json(self, text: str, final: bool) -> list[RecordedChunk]:
        """The items of a JSON array, each decoded by the stdlib's C decoder as
        soon as it is whole. Only the item in progress is held; an item cut by
        a read is tried again once what is held has doubled (linear in all)."""
        out: list[RecordedChunk] = []
        if self._broken or self._done:
            return out
        if text:
            self._pending.append(text)
            self._pending_length += len(text)
        if not final and self._pending_length < self._retry_at:
            return out
        buf = "".join(self._pending)
        self._pending.clear()
        self._retry_at = 0
        n = len(buf)
        i = _skip(_SEPARATORS if self._started else _SPACE, buf, 0)
        if not self._started and i < n:
            if buf[i] != "[":
                self._broken = True
                self._on_error(1, "a JSON recording must be an array of chunk objects")
                return out
            self._started = True
            i += 1
        while True:
            i = _skip(_SEPARATORS, buf, i)
            if i >= n:
                break
            if buf[i] == "]":
                self._done = True
                break
            try:
                item, end = _DECODER.raw_decode(buf, i)
            except RecursionError:  # (skipped: where it ends is found without reading it)
                end = _value_end(buf, i)
                if end < 0 and not final:
                    self._retry_at = 2 * (n - i)
                    break
                self._item += 1
                self._on_error(self._item, "an item nested too deep to read")
                if end < 0:
                    self._broken = True
                    break
                i = end
                continue
            except ValueError as exc:
                if final or n - i > _MAX_LINE:
                    self._broken = True
                    self._on_error(self._item + 1, f"the JSON stops being readable here: {exc}")
                    break
                self._retry_at = 2 * (n - i)  # (cut by the read, most likely: wait for more)
                break
            self._item += 1
            i = end
            try:
                chunk = chunk_of(item, self._item)
            except ValueError as exc:
                self._on_error(self._item, str(exc))
                continue
            if chunk is not None:
                out.append(chunk)
        rest = buf[i:] if i < n else ""
        self._pending_length = len(rest)
        if rest and not self._broken and not self._done:
            self._pending.append(rest)
        return out

    def _take(self, data: str, line: int, out: list[RecordedChunk]) -> None:
        try:
            chunk = chunk_of(json.loads(data), line)
        except ValueError as exc:  # (json.JSONDecodeError is one)
            self._on_error(line, f"not a chunk: {exc}")
            return
        except RecursionError:
            self._on_error(line, "not a chunk: JSON nested too deep to read")
            return
        if chunk is not None:
            out.append(chunk)


_STRUCTURE = re.compile(r'["\[\]{}]')
_STRING_END = re.compile(r'(?:[^"\\]|\\.)*"', re.S)


def _value_end(text: str, i: int) -> int:
    """Where the JSON array or object at ``i`` ends, found by its brackets
    outside strings, in one pass and no recursion (-1: not in ``text``)."""
    depth = 0
    while True:
        m = _STRUCTURE.search(text, i)
        if m is None:
            return -1
        c = m.group()
        if c == '"':
            end = _STRING_END.match(text, m.end())
            if end is None:
                return -1
            i = end.end()
            continue
        depth += 1 if c in "[{" else -1
        i = m.end()
        if depth == 0:
            return i


def _skip(pattern: re.Pattern[str], text: str, i: int) -> int:
    m = pattern.match(text, i)
    return i if m is None else m.end()


def _sniff(head: str, final: bool) -> str | None:
    """The format a recording's first characters show (None: not known yet)."""
    lead = head.lstrip("\ufeff \t\r\n")
    if not lead:
        return "text" if final else None
    if lead.startswith(("data:", "event:", ":", "id:", "retry:")):
        return "sse"
    if lead.startswith("["):
        return "json"
    if lead.startswith("{"):
        first = lead.split("\n", 1)[0]
        if "\n" not in lead and not final:
            return None  # (the first line is needed to tell Ollama from OpenAI chunks)
        try:
            data = json.loads(first)
        except (ValueError, RecursionError):
            return "jsonl"
        if isinstance(data, dict) and ("done" in data and ("message" in data or "response" in data)):
            return "ollama"
        return "jsonl"
    return "text"


# -- drivers --------------------------------------------------------------------------------


def _texts(source: str | os.PathLike[str] | IO[Any] | Iterable[str | bytes]) -> Iterator[str]:
    """The text of a path, a file (binary or text) or an iterable of pieces, as it can be read."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as fh:
            yield from _texts(fh)
        return
    read = getattr(source, "read", None)
    if read is not None:
        while piece := read(_READ_SIZE):
            text = decoder.decode(piece) if isinstance(piece, bytes) else piece
            if text:
                yield text
    else:
        for piece in source:
            text = decoder.decode(piece) if isinstance(piece, bytes) else piece
            if text:
                yield text
    tail = decoder.decode(b"", final=True)
    if tail:
        yield tail


def iter_chunks(
    source: str | os.PathLike[str] | IO[Any] | Iterable[str | bytes],
    format: str = "auto",
    *,
    on_error: ErrorHandler | None = None,
) -> Iterator[RecordedChunk]:
    """The chunks of a recording (a path, a file, or an iterable of str/bytes pieces)."""
    decoder = RecordedDecoder(format, on_error)
    for text in _texts(source):
        yield from decoder.feed(text)
    yield from decoder.close()


def iter_deltas(
    source: str | os.PathLike[str] | IO[Any] | Iterable[str | bytes],
    format: str = "auto",
    *,
    on_error: ErrorHandler | None = None,
) -> Iterator[str]:
    """The model's text deltas of a recording, in their original boundaries:
    ``parse_iter(iter_deltas("run.sse"), "hermes")``."""
    for chunk in iter_chunks(source, format, on_error=on_error):
        if chunk.content:
            yield chunk.content


async def aiter_chunks(
    source: AsyncIterable[str | bytes],
    format: str = "auto",
    *,
    on_error: ErrorHandler | None = None,
) -> AsyncIterator[RecordedChunk]:
    """:func:`iter_chunks` from an async iterable of str or bytes (an HTTP body)."""
    decoder = RecordedDecoder(format, on_error)
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
    async for piece in source:
        text = utf8.decode(piece) if isinstance(piece, bytes) else piece
        for chunk in decoder.feed(text):
            yield chunk
    for chunk in decoder.feed(utf8.decode(b"", final=True)) + decoder.close():
        yield chunk


async def aiter_deltas(
    source: AsyncIterable[str | bytes],
    format: str = "auto",
    *,
    on_error: ErrorHandler | None = None,
) -> AsyncIterator[str]:
    """:func:`iter_deltas` from an async iterable: ``parse_stream(aiter_deltas(body, "sse"))``."""
    async for chunk in aiter_chunks(source, format, on_error=on_error):
        if chunk.content:
            yield chunk.content
