"""An append-only string builder that keeps its piece count small.

Streams arrive as many tiny deltas; keeping each one as its own ``str`` costs
about 50 bytes of overhead per delta. :class:`Pieces` joins runs of pieces
into one string every so often, touching each character a bounded number of
times, so building stays O(n) and memory stays close to the text's own size.
"""

from __future__ import annotations

_RUN = 512


class Pieces:
    """Append-only text, readable as a whole or from a mark onwards."""

    __slots__ = ("_parts", "_settled", "length", "limit")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._settled = 0  # parts before this index are already joined runs
        self.limit = _RUN  # settle() is due once len(parts) reaches this
        self.length = 0

    def append(self, piece: str) -> None:
        parts = self._parts
        parts.append(piece)
        self.length += len(piece)
        if len(parts) >= self.limit:
            self.settle()

    def settle(self) -> None:
        """Join the pieces appended since the last settle into one run."""
        parts = self._parts
        parts[self._settled :] = ["".join(parts[self._settled :])]
        self._settled = len(parts)
        self.limit = self._settled + _RUN

    def text(self) -> str:
        """The whole text so far."""
        parts = self._parts
        if len(parts) != 1:
            joined = "".join(parts)
            parts[:] = [joined] if joined else []
            self._settled = len(parts)
            self.limit = self._settled + _RUN
        return parts[0] if parts else ""

    def clear(self) -> None:
        self._parts.clear()
        self._settled = 0
        self.limit = _RUN
        self.length = 0
