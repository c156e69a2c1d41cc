"""Lanes: the engine's short paths, one mechanism for all of them.

Most deltas decide nothing: a run of prose, the middle of a string argument,
a few characters inside a call that cannot end it yet. Reading each of them
through the scanner or the block's readers would cost a few microseconds a
delta for nothing. So after every read, whatever is reading at that moment
(the text scanner, or the block's current reader) says what the next delta
would have to hold to matter, and the engine arms one :class:`Lane`:

    a delta with none of the lane's *stops* goes to its *sink*, which takes
    it while the lane has *room* for it, and no reader runs.

Any other delta is offered to the lane's ``other`` (a second, slower look
that may still take it: an escape cut in two inside a string, a delta that
only lengthens a held terminal), and otherwise the lane is left: what it
gathered is given back in front of the delta, and the full path reads both.
(A delta longer than the room leaves the lane at once.)

``Engine.feed`` runs the sinks of the three busiest lanes inline (plain text,
gathering, a JSON string's text): a Python call costs them 5 to 10% of their
time. The others are calls.

The lanes (see ``Engine._next_lane``): *text* (plain text), *line start* (a
line's first character decides whether the text lane may take it),
*reasoning* (reasoning with nothing that may begin its closer), *gather*
(inside a call, deltas that cannot end it or begin a string, or that only
complete a value's closing tag, and a name not yet announced, read together
up to a few dozen characters later), *prefix* (deltas that only lengthen a
held terminal) and *string* (a string argument that streams).

A lane changes when events come out, never which: the full path would emit
the same events for the same characters (``StreamParser(lanes=False)`` arms
none, and the tests and ``toolparse fuzz`` compare the two). Lanes run inside
the engine's one error boundary (see :meth:`toolparse.engine.core.Engine.feed`).
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, TypeAlias

from toolparse.events import Event

if TYPE_CHECKING:
    from toolparse.engine.lexicon import Lexicon

EVERY: Final = ""
"""A stop found in every delta (``"" in delta`` is always true): each delta is
offered to the lane's ``other``."""
NONE: Final = "\x00"
"""A stop that stands for no character (a NUL is not printable text: a delta
holding one takes the full path, which reads it as any other character)."""
UNBOUNDED: Final = sys.maxsize
SURROGATES: Final = re.compile("[\ud800-\udfff]")
"""What reasoning and gathering lanes cannot take among the characters
``str.isprintable`` rejects (a split UTF-16 pair is joined by the full path)."""
NEWLINES_AND_SURROGATES: Final = re.compile("[\n\ud800-\udfff]")
"""What the text lane cannot take among them: a newline too (a Markdown line
begins), so the newline costs no stop of its own (``str.isprintable`` rejects it)."""
ANY: Final = re.compile(".", re.S)
"""(A string lane's) every character ``str.isprintable`` rejects stops: JSON
escapes control characters, and a value's reader decides its newlines."""

Sink: TypeAlias = Callable[[str], "list[Event]"]
Other: TypeAlias = Callable[[str], "list[Event] | None"]
Stops: TypeAlias = "tuple[str, str, str, re.Pattern[str] | None]"
ALL: Final[Stops] = (EVERY, EVERY, EVERY, None)
"""Every delta stops (see :data:`EVERY`)."""


MORE_CHARS: Final[dict[re.Pattern[str], str]] = {}
"""The characters of each ``more`` pattern :func:`stops_of` built (the native
core reads these instead of calling the regex)."""


@functools.cache  # (the character sets come from grammars: a few dozen at most)
def stops_of(chars: str) -> Stops:
    """The stops of a lane for the characters ``chars``: three tested with ``in``
    (cheaper than a regex on the hot path: ``grammar="auto"`` watches three), and
    a regex for any more."""
    chars = "".join(dict.fromkeys(chars))  # (each once: three characters need no regex)
    if not chars:
        return NONE, NONE, NONE, None
    more = None
    if len(chars) > 3:
        more = re.compile("[" + re.escape(chars[3:]) + "]")
        MORE_CHARS[more] = chars[3:]
    return chars[0], chars[1 % len(chars)], chars[2 % len(chars)], more


class Lane:
    """One short path: see the module docstring. The engine owns one lane of
    each kind and re-arms it (:meth:`arm`) with the stops and room of the moment."""

    __slots__ = (
        "more",
        "name",
        "openers",
        "other",
        "prefixes",
        "room",
        "sink",
        "stop",
        "stop2",
        "stop3",
        "unprintable",
    )

    def __init__(
        self,
        name: str,
        sink: Sink | None,
        other: Other | None = None,
        *,
        unprintable: re.Pattern[str] | None = SURROGATES,
    ) -> None:
        self.name = name
        """What the lane is for ("text", "string", ...): shown by ``Engine.lane``."""
        self.sink: Sink = sink if sink is not None else _never
        self.other = other
        self.unprintable = unprintable
        """What the lane cannot take among the characters ``str.isprintable``
        rejects (None: it takes any: a gathering lane only delays them)."""
        self.stop = self.stop2 = self.stop3 = EVERY
        self.more: re.Pattern[str] | None = None
        self.room = 0
        """How many more characters the sink may take: a longer delta stops (the
        text and reasoning lanes have no bound)."""
        self.openers: Lexicon | None = None
        """(the text lane) The literal openers looked for, when all are literal: a
        delta that holds a stop, but where none of them begins, whole or cut at
        its end (``x < 4``), is plain text as it stands too (see
        ``Engine._still_plain``, and the native core's twin of it)."""
        self.prefixes: frozenset[str] | None = None
        """(the text and prefix lanes) What held text may be and stay held: an
        opener cut by a delta's end (the text lane, see ``Engine._still_plain``),
        and the held text lengthened by the deltas after it (the prefix lane, see
        ``Engine._lengthens_prefix``). The native core reads it to decide both."""

    def arm(self, stops: Stops, room: int = UNBOUNDED) -> Lane:
        """Set the stops (see :func:`stops_of`) and the room; return the lane."""
        self.stop, self.stop2, self.stop3, self.more = stops
        self.room = room
        return self

    def arm_pattern(self, pattern: re.Pattern[str], room: int) -> Lane:
        """Stops given as a regex found in every delta that stops."""
        self.stop = self.stop2 = self.stop3 = NONE
        self.more = pattern
        self.room = room
        return self

    def arm_every(self) -> Lane:
        """Every delta stops: each is offered to ``other``."""
        return self.arm(ALL, 0)

    def arm_prefix(self, prefixes: frozenset[str]) -> Lane:
        """(the prefix lane) Every delta stops, and is offered to ``other``, which
        gathers it while the held text with it is one of ``prefixes``."""
        self.prefixes = prefixes
        return self.arm(ALL, 0)


def _never(delta: str) -> list[Event]:
    raise AssertionError("a lane that stops every delta has no sink")
