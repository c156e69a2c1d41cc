"""The one lexer: the terminals of a region, found in C, held back only while partial.

A :class:`Lexicon` is compiled once per region of a grammar from its literal
markers and its tag terms (:class:`~toolparse.engine.declare.Term`). Literal
markers are found by a trie-shaped regex (longest match); tags by one generic
tag pattern, then accepted or not by comparing the tag's name with what the
parser knows at that moment (:class:`TagContext`): the member being read,
the call's name, the declared tools. Nothing is compiled per name, so the
cost of finding a terminal depends neither on how many tools are declared
nor on how many distinct parameter names the model writes.

Every question is about ``text[start:]`` and costs time proportional to the
text looked at: a streaming reader searches each new character once, and
holds back only a suffix that could still become a terminal.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from typing import Final, NamedTuple, Protocol

from toolparse.engine.declare import (
    ANY_CLOSE_TAG,
    ANY_EMPTY_TAG,
    ANY_OPEN_TAG,
    CALL_CLOSE_TAG,
    KEY_CLOSE_TAG,
    KEY_OPEN_TAG,
    PROPERTY_NAME,
    PROPERTY_TAG,
    TOOL_EMPTY_TAG,
    TOOL_TAG,
    Term,
    TermLike,
)
from toolparse.readers.markers import full_pattern, trie_patterns

TAG_NAME: Final = r"[^\s<>/=\"'&]{1,256}"
"""What a tag's name may hold: any character but whitespace and markup (non-ASCII names too)."""
# (whitespace before the '>' is XML's own; after a closing tag's '/' it is not, but
# models write '</\n  step>': both are read, a bounded run of it)
_TAG: Final = re.compile(rf"<(?:(/)[ \t\r\n]{{0,16}})?({TAG_NAME})[ \t\r\n]{{0,16}}(/?)>")
_TAG_SO_FAR: Final = re.compile(r"<(?:(/)[ \t\r\n]{0,16})?((?:[^\s<>/=\"'&]{1,256}[ \t\r\n]{0,16})?)(/?)\Z")
_NAME_END: Final = re.compile(rf"({TAG_NAME})>")
_NAME_SO_FAR: Final = re.compile(r"[^\s<>/=\"'&]{0,256}\Z")
_TAG_LONGEST: Final = 292
_NEVER_IN_TAG_NAMES: Final = " \t\n=\"'>"  # (nor "/": closing tags begin with it)

# (closing, self-closing) of each tag term, in the order they are tried
_SHAPES: Final = {
    KEY_CLOSE_TAG: (True, False),
    CALL_CLOSE_TAG: (True, False),
    KEY_OPEN_TAG: (False, False),
    TOOL_TAG: (False, False),
    TOOL_EMPTY_TAG: (False, True),
    PROPERTY_TAG: (False, False),
    ANY_OPEN_TAG: (False, False),
    ANY_CLOSE_TAG: (True, False),
    ANY_EMPTY_TAG: (False, True),
}


class TagContext(Protocol):
    """What a tag term is compared with while parsing."""

    @property
    def key(self) -> str | None:
        """The member being read."""

    @property
    def call_name(self) -> str | None:
        """The call being read."""

    @property
    def tool_names(self) -> tuple[str, ...] | None:
        """The declared tools' names, sorted (None: no tools declared)."""

    @property
    def property_names(self) -> tuple[str, ...] | None:
        """The called tool's schema properties, sorted (None: any name)."""

    def given(self, name: str) -> bool:
        """A member of this name was already given in the call being read (asked
        only where the tool's schema is known: without one, a repeated name may
        be an array's)."""


class Hit(NamedTuple):
    """A terminal found: ``text[start:end]``, its key in the region's steps, and
    the tag's name for a tag term."""

    start: int
    end: int
    key: TermLike
    name: str


_new_tuple: Final = tuple.__new__
"""``_new_tuple(Hit, (start, end, key, name))`` is ``Hit(start, end, key, name)``
without the Python frame of a named tuple's ``__new__`` (the lexer's hot path)."""


class Lexicon:
    """The terminals of one region."""

    __slots__ = (
        "_by_shape",
        "_extended",
        "_literals",
        "_may_grow",
        "_name_end",
        "_opening_tags",
        "_partial",
        "_search",
        "_tags",
        "after_lt",
        "firsts",
        "literal_patterns",
        "literals",
        "max_len",
        "terms",
    )

    def __init__(self, terminals: Iterable[TermLike]) -> None:
        terminals = tuple(terminals)
        self.terms = terminals
        """The terminals, as given."""
        literals = sorted({t for t in terminals if isinstance(t, str)})
        tags = {t for t in terminals if isinstance(t, Term)}
        self._name_end = PROPERTY_NAME in tags  # (only ever asked match_at and prefix_at)
        tags.discard(PROPERTY_NAME)
        unknown = tags - set(_SHAPES)
        if unknown:
            raise ValueError(f"not a tag term: {unknown}")
        self.literals = frozenset(literals)
        self.firsts: frozenset[str] | None = (
            None if self._name_end else frozenset({t[0] for t in literals} | ({"<"} if tags else set()))
        )
        """Every character a terminal may begin with (None: any, as a property name may)."""
        # the tag terms by the shape of the tag: (closing "/" or "", self-closing "/" or "")
        self._by_shape: dict[tuple[str, str], tuple[Term, ...]] = {
            ("/" if c else "", "/" if e else ""): tuple(
                t for t in _SHAPES if t in tags and _SHAPES[t] == (c, e)
            )
            for c in (False, True)
            for e in (False, True)
        }
        # the terms a tag begun so far may still become: '<name' or '</name' may end in '/>'
        self._may_grow: dict[tuple[str, str], tuple[Term, ...]] = {
            (c, e): terms + (self._by_shape[(c, "/")] if not e else ())
            for (c, e), terms in self._by_shape.items()
        }
        # A terminal found at the very end of the text may be the beginning of a
        # longer one (``<invoke name=`` and ``<invoke name="``): only these can.
        self._extended = frozenset(a for a in literals for b in literals if b != a and b.startswith(a))
        for a in literals:  # (a set where that would be wrong is a declaration's mistake)
            for b in literals:
                at = b.find(a, 1)
                cut = b[: at + len(a)]
                if a != b and at > 0 and len(cut) < len(b) and not any(cut.startswith(c) for c in literals):
                    raise ValueError(f"terminal {a!r} inside {b!r} would be found before {b!r} is complete")
        self._tags: tuple[Term, ...] = tuple(t for t in _SHAPES if t in tags)
        seconds = {t[1:2] for t in literals if t.startswith("<")}
        self._opening_tags = any(not _SHAPES[t][0] for t in self._tags)
        # after_lt: which characters, right after a "<", may begin one of these
        # terminals: (True, chars): only those; (False, chars): any but those. (A
        # "<" followed by no such character is plain text: "x < 4", "a <b".)
        self.after_lt: tuple[bool, frozenset[str]]
        if self._opening_tags or "" in seconds:
            # an opening tag may begin with any name character (and "<" alone: with anything)
            never = "" if "" in seconds else "".join(c for c in _NEVER_IN_TAG_NAMES if c not in seconds)
            self.after_lt = (False, frozenset(never))
        else:  # literals and closing tags: only what follows their "<"
            self.after_lt = (True, frozenset(seconds | ({"/"} if self._tags else set())))
        self.max_len = max(
            [*map(len, literals), _TAG_LONGEST if self._tags or self._name_end else 0], default=0
        )
        parts = []
        if literals:
            parts.append(full_pattern(literals))
        if self._tags:
            parts.append(_TAG.pattern)
        self._search = re.compile("|".join(parts)) if parts else None
        self._literals = trie_patterns(tuple(literals))[0] if literals else None
        self._partial = trie_patterns(tuple(literals))[1] if literals else None
        # literals only: the two patterns the visible text's hot path runs itself
        self.literal_patterns: tuple[re.Pattern[str], re.Pattern[str]] | None = None
        if literals and not self._tags:
            assert self._search is not None and self._partial is not None
            self.literal_patterns = (self._search, self._partial)

    def find(self, text: str, start: int, ctx: TagContext, end: int | None = None) -> Hit | None:
        """The first terminal at or after ``start`` (and ending by ``end``)."""
        search = self._search
        if search is None:
            return None
        stop = len(text) if end is None else end
        m = search.search(text, start, stop)
        while m is not None:
            found = m.group()
            if found in self.literals:
                return _new_tuple(Hit, (m.start(), m.end(), found, ""))
            hit = self._tag_hit(m, ctx)
            if hit is not None:
                return hit
            m = search.search(text, m.start() + 1, stop)
        return None

    def undecided(self, text: str, start: int, found: TermLike) -> bool:
        """True when the terminal ``found`` at ``start`` may still be the beginning
        of a longer one: what follows it so far reaches the end of the text and
        could grow into that longer one."""
        if found not in self._extended or len(text) - start >= self.max_len:
            return False
        assert self._partial is not None
        return self._partial.match(text, start) is not None

    def first_chars(self) -> frozenset[str]:
        """Every character a terminal of the visible text may begin with."""
        assert self.firsts is not None
        return self.firsts

    def match_at(self, text: str, pos: int, ctx: TagContext) -> Hit | None:
        """The terminal that begins exactly at ``pos``."""
        if self._literals is not None:
            m = self._literals.match(text, pos)
            if m is not None:
                return _new_tuple(Hit, (pos, m.end(), m.group(), ""))
        if self._tags:
            m = _TAG.match(text, pos)
            if m is not None:
                return self._tag_hit(m, ctx)
        if self._name_end:
            m = _NAME_END.match(text, pos)
            if m is not None:
                # (a member that begins: any, with no schema; else one the tool has and
                # the call has not been given)
                name = m.group(1)
                properties = ctx.property_names
                if properties is None or (_has(properties, name, True) and not ctx.given(name)):
                    return _new_tuple(Hit, (pos, m.end(), PROPERTY_NAME, name))
        return None

    def partial_start(self, text: str, start: int, ctx: TagContext) -> int:
        """Where the longest suffix of ``text[start:]`` begins that could still grow
        into a terminal (``len(text)`` when none could)."""
        n = len(text)
        best = n
        lo = max(start, n - self.max_len + 1)
        if self._partial is not None:
            m = self._partial.search(text, lo)
            if m is not None:
                best = m.start()
        if self._tags:
            # a tag holds no '<' after its first character: only the last '<' can begin one
            at = text.rfind("<", lo)
            if 0 <= at < best and self._tag_may_grow(text, at, ctx):
                best = at
        return best

    def prefix_at(self, text: str, pos: int, ctx: TagContext) -> bool:
        """True when ``text[pos:]`` (reaching its end) could still grow into a
        terminal, or into a longer one than matches there now."""
        if len(text) - pos >= self.max_len:
            return False
        if self._partial is not None and self._partial.match(text, pos) is not None:
            return True
        if self._name_end:
            m = _NAME_SO_FAR.match(text, pos)
            if m is not None and (not m.group() or _may_become(PROPERTY_TAG, m.group(), False, ctx)):
                return True
        return bool(self._tags) and text.startswith("<", pos) and self._tag_may_grow(text, pos, ctx)

    # -- tags ---------------------------------------------------------------------------

    def _tag_hit(self, m: re.Match[str], ctx: TagContext) -> Hit | None:
        closing, name, empty = m.group(1) or "", m.group(2), m.group(3)
        for term in self._by_shape[(closing, empty)]:
            if term in _ANY or _accepts(term, name, ctx):
                return _new_tuple(Hit, (m.start(), m.end(), term, name))
        return None

    def _tag_may_grow(self, text: str, at: int, ctx: TagContext) -> bool:
        if not self._opening_tags and not text.startswith("</", at):
            return False  # (only closing tags: the shape below has no term)
        m = _TAG_SO_FAR.match(text, at)
        if m is None:
            return False
        closing, spelled, empty = m.group(1) or "", m.group(2), m.group(3)
        name = spelled.rstrip()
        complete = bool(empty) or len(name) < len(spelled)  # (a space ends the name)
        for term in self._may_grow[(closing, empty)]:
            if not name or term in _ANY or _may_become(term, name, complete, ctx):
                return True
        return False


_ANY: Final = frozenset({ANY_OPEN_TAG, ANY_CLOSE_TAG, ANY_EMPTY_TAG})


def _accepts(term: Term, name: str, ctx: TagContext) -> bool:
    if term in _ANY:
        return True
    if term is KEY_CLOSE_TAG or term is KEY_OPEN_TAG:
        return name == ctx.key
    if term is CALL_CLOSE_TAG:
        return name == ctx.call_name
    if term is PROPERTY_TAG:
        properties = ctx.property_names
        return properties is None or _has(properties, name, True)
    tools = ctx.tool_names  # TOOL_TAG, TOOL_EMPTY_TAG
    return tools is not None and _has(tools, name, True)


def _may_become(term: Term, partial: str, complete: bool, ctx: TagContext) -> bool:
    """Could a tag name that begins with ``partial`` (or is exactly it, when the
    name is ``complete``) still be accepted by ``term``?"""
    if term in _ANY:
        return True
    if term is KEY_CLOSE_TAG or term is KEY_OPEN_TAG or term is CALL_CLOSE_TAG:
        target = ctx.key if term is not CALL_CLOSE_TAG else ctx.call_name
        return target is not None and (target == partial if complete else target.startswith(partial))
    if term is PROPERTY_TAG:
        properties = ctx.property_names
        return properties is None or _has(properties, partial, complete)
    tools = ctx.tool_names
    return tools is not None and _has(tools, partial, complete)


def _has(names: tuple[str, ...], name: str, complete: bool) -> bool:
    """``name`` is one of the sorted ``names`` (``complete``), or begins one:
    a binary search, so the cost does not grow with the schema."""
    k = bisect.bisect_left(names, name)
    return k < len(names) and (names[k] == name if complete else names[k].startswith(name))
