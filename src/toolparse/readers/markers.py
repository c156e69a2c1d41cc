"""Literal markers as trie-shaped regexes (the lexer's, :mod:`toolparse.engine.lexicon`).

Markers are literals, and one may be a prefix of another (``<invoke name=``
and ``<invoke name="``): the longest that matches wins. A trie-shaped regex
tries a marker's characters once, not every marker at each position, so
matching at a position costs a marker's length, not the number of markers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable


@functools.lru_cache(maxsize=256)
def trie_patterns(markers: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(longest match of a marker, a proper prefix of one reaching the end of the text),
    as trie-shaped regexes: a flat alternation would try every marker at each position."""
    trie = _trie(markers)
    full = _full_pattern(trie) if markers else r"(?!)"
    return re.compile(full), re.compile(_partial_pattern(trie, root=True))


_END = ""  # the trie key that marks the end of a marker

_Trie = dict[str, "_Trie"]


def _trie(words: Iterable[str]) -> _Trie:
    root: _Trie = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[_END] = {}
    return root


def full_pattern(markers: Iterable[str]) -> str:
    """The regex source matching the longest of ``markers`` at a position."""
    return _full_pattern(_trie(markers))


def _full_pattern(node: _Trie) -> str:
    alternatives = [re.escape(ch) + _full_pattern(child) for ch, child in sorted(node.items()) if ch]
    if not alternatives:
        return ""
    body = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
    if _END in node:  # a marker ends here: longer ones are tried first (greedy)
        return "(?:" + body + ")?"
    return body


def _partial_pattern(node: _Trie, *, root: bool = False) -> str:
    """A non-empty proper prefix of a marker that reaches the end of the text."""
    alternatives = [] if root else [r"\Z"]
    for ch, child in sorted(node.items()):
        if ch and any(k for k in child):  # (a marker that ends here with nothing after is no prefix)
            alternatives.append(re.escape(ch) + _partial_pattern(child))
    if not alternatives:
        return r"(?!)"
    return alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
