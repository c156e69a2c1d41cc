"""A forced tool choice: the model's whole answer is one JSON call
``{"name": ..., "arguments": {...}}`` (or an array of them), with nothing
around it. Anything else is one error carrying the answer.

A model asked for bare JSON often wraps it in its usual markup anyway
(``<tool_call>{...}</tool_call>``): :func:`forced_json` keeps the grammar's
openers, so an answer that begins with one is read by that grammar instead
(and an answer that then holds no call is an error too). So is a Markdown
fence around the JSON (```` ```json ````), which models write unasked.
"""

from __future__ import annotations

import functools

from toolparse.engine.declare import END, Fail, Grammar, JsonCalls, Opener, Region, Space, Term, go
from toolparse.events import ErrorReason
from toolparse.grammars.hermes import HermesPrompt

_ANSWER_REGIONS: dict[str, Region] = {
    "forced answer": JsonCalls(
        then="after the forced answer",
        otherwise=Fail("expected a JSON call object", ErrorReason.MALFORMED_JSON),
    ),
    "after the forced answer": Space(
        {}, otherwise=Fail("expected the end of the answer", ErrorReason.MALFORMED_JSON)
    ),
    "fenced answer": JsonCalls(then="after the fenced answer"),
    "after the fenced answer": Space(
        {"```": go(END)}, otherwise=Fail("expected the end of the answer", ErrorReason.MALFORMED_JSON)
    ),
}
_FENCES: dict[str | Term, Opener] = {
    fence + newline: Opener("fenced answer", closer="```")
    for fence in ("```json", "```")
    for newline in ("\n", "\r\n")
}

TEXT_ONLY = Grammar("text", openers={}, regions={}, prompt=HermesPrompt())
"""``tool_choice="none"``: no calls are read, every character is text."""


@functools.cache
def forced_json(grammar: Grammar) -> Grammar:
    """The forced answer of a model that speaks ``grammar``: bare JSON, or that
    grammar's markup when the answer begins with one of its openers."""
    clash = set(grammar.regions) & set(_ANSWER_REGIONS)
    if clash:
        raise ValueError(f"{grammar.name}: region names {sorted(clash)} are reserved for the forced answer")
    return Grammar(
        "forced-json",
        openers={**_FENCES, **grammar.openers},
        regions={**grammar.regions, **_ANSWER_REGIONS},
        prompt=grammar.prompt,
        start="forced answer",
        reasoning=grammar.reasoning,
    )
