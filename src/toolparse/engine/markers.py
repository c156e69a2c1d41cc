"""Finding literal markers in a stream, with the smallest possible hold-back.

A :class:`MarkerSet` answers two questions about a piece of text, both with
one C-level regex search each, so the per-delta cost does not depend on how
much text came before:

* where is the first complete marker at or after a position;
* where does the shortest suffix begin that could still grow into a marker
  (the part that must be held back until the next delta).

Markers are plain literals and must be prefix-free (no marker is a prefix of
another), so a complete marker can be acted on the moment it is seen.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable


class MarkerSet:
    """A fixed, prefix-free set of literal markers."""

    __slots__ = ("_full", "_partial", "markers", "max_len")

    def __init__(self, markers: Iterable[str]) -> None:
        unique = sorted(set(markers), key=lambda m: (-len(m), m))
        if any(not m for m in unique):
            raise ValueError("markers must not be empty")
        for a in unique:
            for b in unique:
                if a != b and b.startswith(a):
                    raise ValueError(f"marker {a!r} is a prefix of {b!r}")
        self.markers: tuple[str, ...] = tuple(unique)
        self.max_len = len(unique[0]) if unique else 0
        # with no markers, a pattern that never matches
        self._full = re.compile("|".join(re.escape(m) for m in unique) if unique else r"(?!)")
        prefixes = {m[:k] for m in unique for k in range(1, len(m))}
        if prefixes:
            ordered = sorted(prefixes, key=lambda p: (-len(p), p))
            self._partial: re.Pattern[str] | None = re.compile(
                "(?:" + "|".join(re.escape(p) for p in ordered) + r")\Z"
            )
        else:
            self._partial = None

    @staticmethod
    @functools.lru_cache(maxsize=1024)
    def of(*markers: str) -> MarkerSet:
        """A shared, cached set (building one compiles two regexes)."""
        return MarkerSet(markers)

    def find(self, text: str, start: int = 0) -> tuple[int, str] | None:
        """The position and text of the first complete marker at or after ``start``."""
        m = self._full.search(text, start)
        if m is None:
            return None
        return m.start(), m.group()

    def partial_start(self, text: str, start: int = 0) -> int:
        """Where the suffix begins that is a proper prefix of some marker.

        Returns ``len(text)`` when no suffix could begin a marker. Only the
        last ``max_len - 1`` characters are examined.
        """
        if self._partial is None:
            return len(text)
        lo = max(start, len(text) - self.max_len + 1)
        m = self._partial.search(text, lo)
        return len(text) if m is None else m.start()

    def match_at(self, text: str, pos: int) -> str | None:
        """The marker that begins exactly at ``pos``, if any."""
        m = self._full.match(text, pos)
        return None if m is None else m.group()

    def prefix_at(self, text: str, pos: int) -> bool:
        """True when ``text[pos:]`` (reaching the end of ``text``) could still grow into a marker."""
        return self._partial is not None and self._partial.match(text, pos) is not None
