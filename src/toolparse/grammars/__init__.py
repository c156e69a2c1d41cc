"""The wire formats toolparse reads, by name."""

from __future__ import annotations

from collections.abc import Callable

from toolparse.engine.block import Grammar
from toolparse.errors import UnknownGrammarError
from toolparse.grammars.fenced import FencedJsonGrammar
from toolparse.grammars.hermes import HermesGrammar
from toolparse.grammars.qwen3_coder import Qwen3CoderGrammar
from toolparse.grammars.xml import XmlGrammar

_FACTORIES: dict[str, Callable[[], Grammar]] = {
    "hermes": HermesGrammar,
    "fenced-json": FencedJsonGrammar,
    "qwen3-coder": Qwen3CoderGrammar,
    "xml": XmlGrammar,
}
_ALIASES = {"gemma": "fenced-json"}
_CACHE: dict[str, Grammar] = {}


def grammar_names() -> list[str]:
    """Every accepted grammar name, aliases included."""
    return sorted([*_FACTORIES, *_ALIASES])


def get_grammar(name: str) -> Grammar:
    """The grammar called ``name`` (grammars are immutable and shared)."""
    if not isinstance(name, str):
        raise UnknownGrammarError(f"a grammar name must be a string, not {type(name).__name__}")
    key = _ALIASES.get(name, name)
    if key not in _FACTORIES:
        raise UnknownGrammarError(f"unknown grammar {name!r}; known grammars: {', '.join(grammar_names())}")
    grammar = _CACHE.get(key)
    if grammar is None:
        grammar = _CACHE[key] = _FACTORIES[key]()
    return grammar
