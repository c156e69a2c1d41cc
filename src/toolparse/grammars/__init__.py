"""The wire formats toolparse reads, by name: each a declaration
(:class:`toolparse.engine.declare.Grammar`) with its prompt side."""

from __future__ import annotations

from toolparse.engine.declare import Grammar
from toolparse.errors import UnknownGrammarError
from toolparse.grammars.deepseek import DEEPSEEK
from toolparse.grammars.fenced import FENCED_JSON
from toolparse.grammars.glm import GLM
from toolparse.grammars.gpt_oss import GPT_OSS
from toolparse.grammars.hermes import HERMES
from toolparse.grammars.kimi import KIMI
from toolparse.grammars.llama3_json import LLAMA3_JSON
from toolparse.grammars.minimax import MINIMAX
from toolparse.grammars.mistral import MISTRAL
from toolparse.grammars.pythonic import PYTHONIC
from toolparse.grammars.qwen3_coder import QWEN3_CODER
from toolparse.grammars.xml import XML

GRAMMARS: dict[str, Grammar] = {
    g.name: g
    for g in (
        HERMES,
        FENCED_JSON,
        QWEN3_CODER,
        XML,
        LLAMA3_JSON,
        PYTHONIC,
        MISTRAL,
        DEEPSEEK,
        GLM,
        KIMI,
        MINIMAX,
        GPT_OSS,
    )
}
_ALIASES = {"gemma": "fenced-json", "llama3": "llama3-json", "harmony": "gpt-oss", "glm4.5": "glm"}


def grammar_names() -> list[str]:
    """Every accepted grammar name, aliases included."""
    return sorted([*GRAMMARS, *_ALIASES])


def get_grammar(name: str) -> Grammar:
    """The grammar called ``name`` (its ``prompt`` is the format's prompt side)."""
    if not isinstance(name, str):
        raise UnknownGrammarError(f"a grammar name must be a string, not {type(name).__name__}")
    grammar = GRAMMARS.get(_ALIASES.get(name, name))
    if grammar is None:
        raise UnknownGrammarError(f"unknown grammar {name!r}; known grammars: {', '.join(grammar_names())}")
    return grammar
