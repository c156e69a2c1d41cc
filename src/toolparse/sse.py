"""Server-sent events, decoded incrementally (sans-IO).

The wire format of the HTML standard's ``text/event-stream``: lines ending in
LF, CRLF or CR; ``field: value`` lines, ``:`` comments, and a blank line that
dispatches the event gathered so far. Only ``event`` and ``data`` are kept
(``id`` and ``retry`` mean nothing to a chat completion stream). Linear in
the input however it is cut, and bounded in memory: a line longer than
``max_line`` characters, or an event whose data passes ``max_event``
characters (``data:`` lines with no blank line to end them), is dropped as it
comes, and what was dropped is told in :attr:`SSEDecoder.dropped` (a peer that
never ends a line or an event must not fill memory). Comment lines are
counted (:attr:`SSEDecoder.comments`: an upstream's keep-alives).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_LINE = 16 * 1024 * 1024
DEFAULT_MAX_EVENT = 64 * 1024 * 1024


class SSEError(ValueError):
    """The stream is not a well-formed event stream (see :attr:`SSEDecoder.dropped`)."""


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched event: its type (``"message"`` unless named), its data,
    and the line its data began on (counted from 1)."""

    data: str
    event: str = "message"
    line: int = 0


class SSEDecoder:
    """Text in, events out: ``feed(text) -> list[ServerSentEvent]``."""

    __slots__ = (
        "_cr",
        "_data",
        "_data_length",
        "_data_line",
        "_event",
        "_line",
        "_line_length",
        "_lineno",
        "_max_event",
        "_max_line",
        "_skipping",
        "comments",
        "dropped",
    )

    def __init__(self, max_line: int = DEFAULT_MAX_LINE, max_event: int = DEFAULT_MAX_EVENT) -> None:
        self._line: list[str] = []  # the unfinished line, in pieces
        self._line_length = 0
        self._skipping = False  # the unfinished line passed max_line: its rest is dropped
        self._cr = False  # the last character seen was a CR (a CRLF may be split)
        self._data: list[str] | None = []  # (None: the event passed max_event, dropped)
        self._data_length = 0
        self._data_line = 0
        self._event = ""
        self._lineno = 0
        self._max_line = max_line
        self._max_event = max_event
        self.comments = 0
        """Comment lines (``: keep-alive``) read so far."""
        self.dropped: list[tuple[int, str]] = []
        """(line, why) of each line or event dropped past the limits, in order:
        the caller decides what a dropped piece means (and may clear the list)."""

    def feed(self, text: str) -> list[ServerSentEvent]:
        """The events completed by ``text``."""
        out: list[ServerSentEvent] = []
        if self._cr and text.startswith("\n"):
            text = text[1:]  # (the LF of a CRLF split across pieces)
        self._cr = False
        start = 0
        n = len(text)
        while start < n:
            lf = text.find("\n", start)
            cr = text.find("\r", start, lf if lf >= 0 else n)
            end = cr if cr >= 0 else lf
            if end < 0:
                self._piece(text[start:])
                break
            self._piece(text[start:end])
            if self._skipping:
                self._skipping = False
                self._lineno += 1
            else:
                line = "".join(self._line)
                self._line.clear()
                self._line_length = 0
                self._take(line, out)
            if end == cr:
                if cr + 1 == n:
                    self._cr = True
                    start = n
                else:
                    start = cr + 2 if text[cr + 1] == "\n" else cr + 1
            else:
                start = lf + 1
        return out

    def _piece(self, piece: str) -> None:
        """A piece of the unfinished line (dropped with the rest of the line once it
        passes max_line)."""
        if self._skipping or not piece:
            return
        self._line_length += len(piece)
        if self._line_length > self._max_line:
            self._line.clear()
            self._line_length = 0
            self._skipping = True
            self.dropped.append(
                (self._lineno + 1, f"an event-stream line longer than {self._max_line} characters")
            )
            return
        self._line.append(piece)

    def close(self) -> list[ServerSentEvent]:
        """End of the stream: the last line (even with no newline) is read and the
        event gathered so far dispatched (the standard drops it; servers that
        end without a blank line are common enough to be read)."""
        out: list[ServerSentEvent] = []
        if self._line:
            self._take("".join(self._line), out)
            self._line.clear()
            self._line_length = 0
        self._skipping = False
        self._take("", out)
        self._lineno -= 1  # (the blank line added at the end is not in the stream)
        return out

    def _take(self, line: str, out: list[ServerSentEvent]) -> None:
        self._lineno += 1
        if not line:
            if self._data:
                out.append(ServerSentEvent("\n".join(self._data), self._event or "message", self._data_line))
            self._data = []
            self._data_length = 0
            self._event = ""
            return
        if line.startswith(":"):
            self.comments += 1
            return
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "data":
            data = self._data
            if data is None:  # (the event passed max_event: its data is dropped)
                return
            if not data:
                self._data_line = self._lineno
            self._data_length += len(value) + 1
            if self._data_length > self._max_event:
                self.dropped.append(
                    (self._data_line, f"an event whose data passes {self._max_event} characters")
                )
                self._data = None
                return
            data.append(value)
        elif field == "event":
            self._event = value
