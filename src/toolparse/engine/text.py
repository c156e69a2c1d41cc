"""The visible text: where an opener starts a block, and where one cannot.

Markdown is content. A call written inside a fenced code block or on a
blockquote line is an example the model shows, not a call, so the scanner
follows the Markdown structure of the text (CommonMark's rules, the parts
that matter here) and looks for openers only outside it:

* a fence opens on a line that begins with up to three spaces and three or
  more backticks or tildes; it closes on a line of up to three spaces, at
  least as many of the same character, and only spaces or tabs after them;
  a fence never closed runs to the end of the stream;
* a line that begins with up to three spaces and ``>`` is a blockquote line.

An opener that is itself fence-like (the ``fenced-json`` grammar's
```` ```tool_call ````) is an opener, not a code fence. The stream's start is a
line start. Only what could still be an opener, or the beginning of a line
whose kind is not known yet, is held back.

Reasoning (:class:`~toolparse.engine.declare.Reasoning`) is a region of the
visible text too: its opener is one more terminal here (anywhere, or only
where the answer begins), and inside it only its closer is looked for, so no
call is ever read there. A closer met outside reasoning is reasoning markup,
never shown. Where the answer begins (after whitespace and reasoning) is
known to the scanner: a forced answer's block starts there.
"""

from __future__ import annotations

import functools
import re
from typing import Final

from toolparse.engine.compile import CompiledGrammar
from toolparse.engine.declare import Reasoning, Term
from toolparse.engine.lexicon import Hit, Lexicon, TagContext
from toolparse.errors import InvalidOptionError

_LINE_START = 0  # at the start of a line (its kind not known yet)
_TEXT = 1  # inside an ordinary line: openers are looked for
_QUOTE = 2  # inside a blockquote line
_CODE_LINE_START = 3  # at the start of a line inside a code fence
_CODE = 4  # inside a line of a code fence
_REASONING = 5  # inside reasoning: only its closer is looked for


REASONING_OPEN: Final = Term("reasoning opens")
REASONING_CLOSE: Final = Term("reasoning closes")
MARKUP: Final = Term("the format's markup around channels")
ANSWER: Final = Term("the answer begins")
INVISIBLE: Final = (
    (0x0000, 0x001F),  # C0 controls (Cc)
    (0x007F, 0x009F),  # DEL and the C1 controls (Cc)
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),  # Mongolian variation selectors and vowel separator
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x2800, 0x2800),  # braille pattern blank
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),  # tag characters, variation selectors supplement, reserved
)
"""The invisible code points a model may write before ``<think>``, besides
Python's spaces (``\\s``, which holds every Zs): Unicode's
Default_Ignorable_Code_Point, the controls (Cc), the format characters (Cf)
and the blank fillers (U+2800, the Hangul fillers). The one definition: the
native core's ``text::is_invisible`` is checked against it by
tests/test_hardening_three_auto.py."""
_NOT_SPACE: Final = re.compile("[^\\s" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in INVISIBLE) + "]")
"""Any character but leading space: before the answer, every Unicode space
(``\\s``: NBSP, U+2028, U+3000, VT, FF, NEL, ...) and invisible character
(:data:`INVISIBLE`) counts as the whitespace models write before ``<think>``."""
_MAX_PRELUDE = 4096  # whitespace held back before the answer begins
_MAX_FENCE = 64  # a longer run of fence characters counts as this long
_MAX_TRAIL = 64  # spaces looked past after a closing fence


class ToolNames:
    """A tag context with declared tools and nothing being read: that of a
    scanner only the native core reads (and of tests that drive a scanner)."""

    __slots__ = ("tool_names",)
    key = None
    call_name = None
    property_names = None

    def __init__(self, tool_names: tuple[str, ...] | None) -> None:
        self.tool_names = tool_names

    def given(self, name: str) -> bool:
        return False


@functools.lru_cache(maxsize=64)
def shared_scanner(
    grammar: CompiledGrammar, tool_names: tuple[str, ...] | None, reasoning: Reasoning | None, answer: bool
) -> TextScanner:
    """A scanner in its first state for these, shared by the native engines
    built for them. The native core reads it once, as it starts, and copies it
    before switching grammars (``grammar="auto"``): it never changes. A parser
    is built per request, and building a scanner was a fifth of that."""
    return TextScanner(grammar, ToolNames(tool_names), reasoning, answer=answer)


class TextScanner:
    """Finds openers in the visible text, outside code fences and quotes, and
    the reasoning regions."""

    __slots__ = (
        "_absorb",
        "_answer",
        "_answer_openers",
        "_code_openers",
        "_ctx",
        "_fence",
        "_fence_len",
        "_markup",
        "_newline",
        "_openers",
        "_prelude",
        "_r_close",
        "_r_open",
        "_reasoning_lexicons",
        "_state",
        "ended",
        "opener_prefixes",
        "spelled",
    )

    def __init__(
        self,
        grammar: CompiledGrammar,
        ctx: TagContext,
        reasoning: Reasoning | None = None,
        *,
        answer: bool = False,
    ) -> None:
        openers, self.spelled, self.opener_prefixes = grammar.openers_for(ctx.tool_names)
        if reasoning is not None and grammar.auto is not None:  # (a member's own markers, chosen:
            openers = _without(openers, (reasoning.open, reasoning.close, *reasoning.markup))  # reasoning)
        """(``spelled``: what each declared tool's tag, spelled as a literal opener,
        stands for; ``opener_prefixes``: every proper prefix of a literal opener,
        read by the native core's text and prefix lanes; the reference has no lanes)"""
        self._ctx = ctx
        self._state = _LINE_START
        self._fence = ""
        self._fence_len = 0
        self.ended: int | None = None
        """The Markdown state (code or quote) the last special token found in it
        ended (``grammar="auto"``: restored when the token was only mentioned)."""
        self._r_open = reasoning.open if reasoning is not None else None
        self._r_close = reasoning.close if reasoning is not None else None
        self._markup = frozenset(reasoning.markup) if reasoning is not None else frozenset()
        self._answer = answer  # a forced answer: a block begins where the answer does
        # where the answer begins, these open a block (a forced answer: the
        # grammar's own openers too, for a model that wraps its answer anyway)
        self._answer_openers = tuple(
            lexicon
            for lexicon in (grammar.start_openers, openers if answer and openers.terms else None)
            if lexicon is not None
        )
        # only whitespace and reasoning so far
        self._prelude = reasoning is not None or answer or bool(self._answer_openers)
        self._absorb = False  # at the start of reasoning: an opener there is markup
        # the last newline search: (the text, where it began, what it found). A scan of
        # many openers on one long line would otherwise search that line to its end once
        # per opener: quadratic (as fast as memchr is, it shows past a few hundred KB)
        self._newline: tuple[str, int, int] | None = None
        self._openers = openers
        if reasoning is not None:
            try:
                self._reasoning_lexicons = _reasoning_lexicons(openers, reasoning)
            except ValueError as exc:  # (markers the grammar's own markup would hide, or hide)
                raise InvalidOptionError(
                    f"reasoning markers {reasoning.open!r}, {reasoning.close!r} cannot be used with "
                    f"the {grammar.name!r} grammar: {exc}"
                ) from None
            if reasoning.anywhere:  # (else the opener counts only in the prelude, read there)
                self._openers = self._reasoning_lexicons[0]
            if reasoning.starts_open:
                self._state = _REASONING
                self._absorb = reasoning.open is not None
        # in Markdown code and quotes, the openers that are special tokens (they end it)
        self._code_openers = self._openers if grammar.tokens else grammar.token_openers

    def switched(self, grammar: CompiledGrammar, reasoning: Reasoning | None) -> TextScanner:
        """A scanner of ``grammar``'s openers where this one stands in the text
        (``grammar="auto"``, once a grammar is decided): same Markdown state."""
        other = TextScanner(grammar, self._ctx, reasoning)
        other._state = self._state if self._state != _REASONING else _TEXT
        other._fence, other._fence_len = self._fence, self._fence_len
        other._prelude = other._prelude and self._prelude
        other._absorb = False
        return other

    @property
    def in_reasoning(self) -> bool:
        return self._state == _REASONING

    def resume(self, state: int) -> None:
        """(``grammar="auto"``) A special token that ended the Markdown state
        ``state`` was only mentioned: the code or quote goes on."""
        self._state = state

    def after_block(self, last: str) -> None:
        """A block (or a rejected opener, now text) ended with the character ``last``."""
        self._state = _LINE_START if last == "\n" else _TEXT

    def scan(self, text: str, i: int, final: bool) -> tuple[int, Hit | None]:
        """Read ``text[i:]``: ``text[i:stop]`` is text, and at ``stop`` begins the
        returned opener, or (with no opener) what must wait for more text."""
        n = len(text)
        ctx = self._ctx
        while i < n:
            state = self._state
            if state == _REASONING:
                return self._scan_reasoning(text, i, final)
            if self._prelude:
                i, hit, wait = self._scan_prelude(text, i, final)
                if hit is not None or wait:
                    return i, hit
                continue
            openers = self._openers
            literal = openers.literal_patterns
            if state == _TEXT:
                newline = self._newline_from(text, i)
                if literal is not None:  # (the hot path, with the lexicon's own patterns)
                    full, partial = literal
                    m = full.search(text, i) if newline < 0 else full.search(text, i, newline + 1)
                    if m is not None:
                        if not final and openers.undecided(text, m.start(), m.group()):
                            return m.start(), None
                        return m.start(), self._hit(Hit(m.start(), m.end(), m.group(), ""))
                    if newline >= 0:
                        i = newline + 1
                        self._state = _LINE_START
                        continue
                    if final:
                        return n, None
                    m = partial.search(text, max(i, n - openers.max_len + 1))
                    return (n if m is None else m.start()), None
                # (this line only: an opener ends by its newline, and a search of the
                # whole rest on every line would be quadratic)
                end = None if newline < 0 else newline + 1
                hit = openers.find(text, i, ctx, end) if openers.max_len else None
                if hit is not None and (newline < 0 or hit.start < newline):
                    if not final and openers.undecided(text, hit.start, hit.key):
                        return hit.start, None  # (a longer opener may still match here)
                    return hit.start, self._hit(hit)
                if newline >= 0:
                    i = newline + 1
                    self._state = _LINE_START
                    continue
                return (n if final or not openers.max_len else openers.partial_start(text, i, ctx)), None
            if state in (_QUOTE, _CODE):
                newline = self._newline_from(text, i)
                tokens = self._code_openers
                code_literal = None if tokens is None else tokens.literal_patterns
                if code_literal is not None:  # (special tokens end the Markdown around them)
                    assert tokens is not None
                    full, partial = code_literal
                    m = full.search(text, i, n if newline < 0 else newline + 1)
                    if m is not None:
                        if not final and tokens.undecided(text, m.start(), m.group()):
                            return m.start(), None
                        self.ended = state
                        self._state = _TEXT
                        return m.start(), self._hit(Hit(m.start(), m.end(), m.group(), ""))
                    if newline < 0 and not final:
                        m = partial.search(text, max(i, n - tokens.max_len + 1))
                        return (n if m is None else m.start()), None
                if newline < 0:
                    return n, None
                i = newline + 1
                self._state = _LINE_START if state == _QUOTE else _CODE_LINE_START
                continue
            j = i
            while j < n and j - i < 3 and text[j] == " ":
                j += 1
            if j == n:
                return (n if final else i), None
            if state == _LINE_START:
                i = self._line_start(text, i, j, final)
            else:
                i = self._code_line_start(text, i, j, final)
            if i < 0:
                return -i - 1, None
        return n, None

    def _newline_from(self, text: str, i: int) -> int:
        """``text.find("\\n", i)``, from the last search where it still answers."""
        memo = self._newline
        if memo is not None and memo[0] is text and memo[1] <= i and (memo[2] < 0 or memo[2] >= i):
            return memo[2]
        found = text.find("\n", i)
        self._newline = (text, i, found)
        return found

    def _hit(self, hit: Hit) -> Hit:
        """A reasoning marker found among the openers, named as such."""
        if hit.key == self._r_close:
            return Hit(hit.start, hit.end, REASONING_CLOSE, "")
        if hit.key == self._r_open:
            return Hit(hit.start, hit.end, REASONING_OPEN, "")
        if hit.key in self._markup:
            return Hit(hit.start, hit.end, MARKUP, "")
        return hit

    def answer_begins_again(self) -> None:
        """The answer's first opener is read again with more text (``grammar="auto"``
        waits to know whose it is): the answer has not begun yet."""
        self._prelude = True

    def enter_reasoning(self) -> None:
        self._state = _REASONING
        self._absorb = False

    def _scan_prelude(self, text: str, i: int, final: bool) -> tuple[int, Hit | None, bool]:
        """Before the answer: whitespace (held back) and reasoning. Returns (where,
        a hit there, wait there); no hit and no wait: the answer began, read on."""
        hit, wait = self._opener_after_space(text, i, final)
        if hit is not None or wait:
            return i, hit, wait
        m = _NOT_SPACE.search(text, i)
        if m is not None:
            j = m.start()
            anywhere = self._openers
            for openers in self._answer_openers:
                if not final and openers.prefix_at(text, j, self._ctx):
                    return i, None, True
                opener = openers.match_at(text, j, self._ctx)
                if opener is not None and anywhere.max_len and openers is not anywhere:
                    # (grammar="auto": "[" opens a pythonic list where the answer begins, and
                    # "[TOOL_CALLS]" is Mistral's opener anywhere: the longer one is read)
                    if not final and anywhere.prefix_at(text, j, self._ctx):
                        return i, None, True
                    longer = anywhere.match_at(text, j, self._ctx)
                    if longer is not None and longer.end > opener.end:
                        break
                if opener is not None:  # (a forced answer then is the grammar's output)
                    self._prelude = self._answer = False
                    return j, opener, False
        self._prelude = False  # the answer begins here
        if self._answer:
            return i, Hit(i, i, ANSWER, ""), False
        return i, None, False

    def _opener_after_space(self, text: str, i: int, final: bool) -> tuple[Hit | None, bool]:
        """(the reasoning opener after the whitespace at ``i``, the whitespace
        with it; wait for more text): both empty when something else is there."""
        n = len(text)
        m = _NOT_SPACE.search(text, i)
        if m is None:  # (whitespace so far: held back, within a bound)
            return None, not final and n - i <= _MAX_PRELUDE
        j = m.start()
        opener = self._r_open
        if opener is not None and j - i <= _MAX_PRELUDE:
            if text.startswith(opener, j):
                return Hit(i, j + len(opener), REASONING_OPEN, ""), False
            if not final and n - j < len(opener) and opener.startswith(text[j:]):
                return None, True
        return None, False

    def _scan_reasoning(self, text: str, i: int, final: bool) -> tuple[int, Hit | None]:
        """Inside reasoning: up to its closer (or, at the very start of reasoning
        the prompt opened, an opener after whitespace: markup)."""
        n = len(text)
        if self._absorb:
            hit, wait = self._opener_after_space(text, i, final)
            if wait:
                return i, None
            self._absorb = False
            if hit is not None:
                return i, hit
        inside = self._reasoning_lexicons[1]
        full, partial = inside.literal_patterns or (None, None)
        assert full is not None and partial is not None
        m = full.search(text, i)
        if m is not None:
            if m.group() != self._r_close:
                # (a marker that ends reasoning before it: the reasoning closes with no
                # closer of its own, and the marker is read on as the visible text's)
                return m.start(), Hit(m.start(), m.start(), REASONING_CLOSE, "")
            return m.start(), Hit(m.start(), m.end(), REASONING_CLOSE, "")
        if final:
            return n, None
        m = partial.search(text, max(i, n - inside.max_len + 1))
        return (n if m is None else m.start()), None

    def leave_reasoning(self) -> None:
        """The closer was read: the visible text goes on, mid-line."""
        self._state = _TEXT

    def _line_start(self, text: str, i: int, j: int, final: bool) -> int:
        """Decide the kind of the line starting at ``i`` (``j`` after its indent).
        Returns where scanning goes on, or ``-(i + 1)`` to wait for more text."""
        c = text[j]
        if c == ">":
            self._state = _QUOTE
            return j + 1
        if c != "`" and c != "~":
            self._state = _TEXT
            return i
        openers, ctx = self._openers, self._ctx
        if openers.max_len and openers.match_at(text, j, ctx) is not None:
            self._state = _TEXT  # an opener that looks like a fence (```tool_call)
            return i
        if not final and openers.max_len and openers.prefix_at(text, j, ctx):
            return -(i + 1)
        run = _run_length(text, j, c)
        if j + run == len(text) and run < _MAX_FENCE and not final:
            return -(i + 1)
        if run < 3:
            self._state = _TEXT
            return i
        self._fence, self._fence_len = c, min(run, _MAX_FENCE)
        self._state = _CODE
        return j + run

    def _code_line_start(self, text: str, i: int, j: int, final: bool) -> int:
        """A line inside a code fence: is it the closing fence?"""
        n = len(text)
        run = _run_length(text, j, self._fence) if text[j] == self._fence else 0
        if run >= self._fence_len or (run and j + run == n):
            if j + run == n and run < _MAX_FENCE and not final:
                return -(i + 1)
            k = j + run
            while k < n and k - (j + run) < _MAX_TRAIL and text[k] in " \t":
                k += 1
            if k == n and not final and k - (j + run) < _MAX_TRAIL:
                return -(i + 1)
            if run >= self._fence_len and (k == n or text[k] == "\n"):
                self._state = _LINE_START
                return k + 1 if k < n else k
        self._state = _CODE
        return i


def _run_length(text: str, j: int, c: str) -> int:
    k = j
    n = min(len(text), j + _MAX_FENCE)
    while k < n and text[k] == c:
        k += 1
    return k - j


@functools.lru_cache(maxsize=64)
def _without(openers: Lexicon, markers: tuple[str | None, ...]) -> Lexicon:
    """``openers`` but ``markers`` (``grammar="auto"``: a grammar's reasoning markers
    decide it on sight, unless they are the reasoning chosen)."""
    if not set(markers) & set(openers.terms):
        return openers
    return Lexicon([t for t in openers.terms if t not in markers])


@functools.lru_cache(maxsize=64)
def _reasoning_lexicons(openers: Lexicon, reasoning: Reasoning) -> tuple[Lexicon, Lexicon]:
    """(the text's terminals with both reasoning markers, for reasoning that
    opens anywhere; the terminals inside reasoning)."""
    markers = [m for m in (reasoning.open, reasoning.close, *reasoning.markup) if m is not None]
    for marker in markers:
        if marker in openers.terms:
            raise ValueError(f"the reasoning marker {marker!r} is also an opener of the grammar")
    return Lexicon([*openers.terms, *markers]), Lexicon([reasoning.close, *reasoning.ended_by])
