"""``grammar="auto"``: one lexicon of every grammar's openers, until a call decides.

:func:`compile_auto` builds, from the compiled tables of several grammars
(the *members*), one :class:`~toolparse.engine.compile.CompiledGrammar` whose
openers are all of theirs. Each opener still opens its own grammar's block
(the member's compiled :class:`~toolparse.engine.compile.Block`, its regions
unchanged), so inside a block nothing differs from the grammar given by name.
The engine reads the visible text with this union until a block of one member
makes something of its markup (a call, or an error: the model wrote that
format); from then on it reads the rest of the stream with that member's own
tables (:meth:`toolparse.engine.core.Engine.decided`). A block that turns out
to be text (a lenient opener only mentioned) decides nothing.

Two things need more than one lexicon:

* **Shared openers.** ``<tool_call>`` opens Hermes JSON, Qwen3-Coder XML and
  GLM's key/value pairs. Each member may declare a *claim* on such an opener
  (:attr:`toolparse.engine.declare.Opener.claim`): a pattern of the text right
  after it. The first member, in order, whose claim matches takes the block;
  the one member with no claim (or with ``takes_rest``) takes what no claim
  matched. The engine waits for
  at most :data:`LOOKAHEAD` characters after the opener (or the end of the
  stream) to know; the claims are anchored, bounded patterns.
* **Markers that decide on sight.** A member with its own reasoning markers
  (gpt-oss's channels) is decided by any of them where the answer begins
  (after leading whitespace), before any call: its analysis channel must be
  read as reasoning from the start. Later in the text they are not watched
  for: a mention decides nothing.

**A mention decides nothing.** Prose that names a marker (``the model writes
`[TOOL_CALLS]` first``) is not that format's call. While no grammar is
decided, an opener's block is a *trial*: it is confirmed when it announces a
call within :data:`TRIAL` characters of the opener's start. A block that ends
(as text, or as an error), breaks, or reads past :data:`TRIAL` characters
before that was a mention: its opener is text, and the text after it is read
again (once: at most :data:`TRIAL` characters per opener, so the cost stays
linear), where the real call may begin. Until confirmed, the events of the
block wait (they are at most :data:`TRIAL` characters of held text).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from toolparse.engine.compile import Block, CompiledGrammar, COpener, proper_prefixes
from toolparse.engine.declare import Grammar, Opener, TermLike
from toolparse.engine.lexicon import Lexicon

LOOKAHEAD: Final = 256
"""The most text read after a shared opener before its owner is decided
(then the member with no claim takes it)."""
TRIAL: Final = 256
"""The most text an opener's block reads, while no grammar is decided, before
it announces a call (which confirms the opener); a block that ends or breaks
before, or needs more, was a mention: the opener is text and what follows it
is read again."""


@dataclass(frozen=True, slots=True)
class Claim:
    """One member's claim on a shared opener."""

    member: str
    opener: COpener
    pattern: re.Pattern[str] | None
    """Matched at the opener's end (None: the member takes what no claim matched)."""
    takes_rest: bool = False
    """The member also takes what no claim matched."""


@dataclass(frozen=True, slots=True, eq=False)
class AutoTables:
    """What the engine needs besides the union's openers."""

    members: dict[str, CompiledGrammar]
    """Each member's own tables, by name (in the order their claims are tried)."""
    declarations: dict[str, Grammar]
    owners: dict[Block, str]
    """The member each block belongs to."""
    claims: dict[TermLike, tuple[Claim, ...]] = field(default_factory=dict)
    """The shared openers, and who may take each."""
    deciders: dict[str, str] = field(default_factory=dict)
    """Markers that decide their member on sight."""

    def choose(self, term: TermLike, text: str, at: int, final: bool) -> Claim | None:
        """The claim that takes the shared opener ``term`` ending at ``text[at]``;
        None: the text after it does not tell yet (wait for more)."""
        fallback = None
        decided = final or len(text) - at >= LOOKAHEAD
        for claim in self.claims[term]:
            if claim.pattern is None or claim.takes_rest:
                fallback = fallback or claim
            if claim.pattern is not None and claim.pattern.match(text, at, at + LOOKAHEAD) is not None:
                return claim
        if not decided:
            return None
        assert fallback is not None
        return fallback


def compile_auto(name: str, members: Sequence[tuple[Grammar, CompiledGrammar]]) -> CompiledGrammar:
    """The union of ``members`` (each a declaration and its compiled tables)."""
    opener_steps: dict[TermLike, COpener] = {}
    specs: dict[TermLike, list[tuple[str, Opener, COpener]]] = {}
    owners: dict[Block, str] = {}
    deciders: dict[str, str] = {}
    for declaration, compiled in members:
        for term, spec in declaration.openers.items():
            opener = compiled.opener_steps[term]
            owners[opener.block] = compiled.name
            specs.setdefault(term, []).append((compiled.name, spec, opener))
            opener_steps.setdefault(term, opener)
        if declaration.reasoning is not None:
            own = declaration.reasoning
            if not own.anywhere:  # (its opener is found where the answer begins: too late to decide)
                raise ValueError(f"{name}: {compiled.name}'s own reasoning must open anywhere to decide it")
            for marker in (own.open, own.close, *own.markup):
                if marker is not None:
                    deciders.setdefault(marker, compiled.name)
    claims: dict[TermLike, tuple[Claim, ...]] = {}
    for term, owned in specs.items():
        if len(owned) < 2:
            continue
        if len({spec.at_start for _, spec, _ in owned}) > 1:
            raise ValueError(
                f"{name}: the shared opener {term!r} opens at the answer's start in only some grammars"
            )
        if sum(spec.claim is None or spec.takes_rest for _, spec, _ in owned) != 1:
            raise ValueError(f"{name}: exactly one grammar sharing {term!r} must take what no claim matches")
        claims[term] = tuple(
            Claim(member, opener, None if spec.claim is None else re.compile(spec.claim), spec.takes_rest)
            for member, spec, opener in owned
        )
    at_start = {term for term, owned in specs.items() if owned[0][1].at_start}
    anywhere = [term for term in specs if term not in at_start]
    # (a member's reasoning markup decides it where the answer begins; in prose, a mention
    # of it is text: it is not watched for there)
    # (but not one holding an opener of the answer's start, "to=": the lexicon would find that
    # first; gpt-oss's "<|channel|>commentary to=assistant" is read by its opener anywhere)
    at_start |= {
        marker
        for marker in deciders
        if marker not in specs and not any(isinstance(t, str) and t in marker for t in at_start)
    }
    openers = Lexicon(anywhere)
    tables = {compiled.name: compiled for _, compiled in members}
    tokens = [t for c in tables.values() if c.tokens for t in sorted(c.openers.literals)]  # (a stable order)
    return CompiledGrammar(
        name,
        openers,
        Lexicon(sorted(at_start, key=str)) if at_start else None,
        opener_steps,
        None,
        False,
        "".join(sorted({c for m in tables.values() for c in m.call_ends})),
        proper_prefixes(openers.literals),
        frozenset().union(*(m.markup_prefixes for m in tables.values())) | proper_prefixes(deciders),
        token_openers=Lexicon(tokens) if tokens else None,
        auto=AutoTables(tables, {d.name: d for d, _ in members}, owners, claims, deciders),
    )
