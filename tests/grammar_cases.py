"""Per-grammar material for the tests, read from the registry.

Each grammar module declares its own in its ``ENTRY``
(:class:`toolparse.grammars.prompts.GrammarEntry`): fragments that hypothesis
splices into arbitrary text (whole calls, broken calls, and the pieces of its
markers), the tools it runs with, and whole outputs with known results. A new
grammar's module brings them, and ``test_matrix.py`` runs it through every
property; nothing is added here.
"""

from __future__ import annotations

from typing import Any

from toolparse.grammars import ENTRIES
from toolparse.grammars.prompts import Example

__all__ = ["EXAMPLES", "GRAMMAR_FRAGMENTS", "GRAMMAR_TOOLS", "XML_TOOLS"]

# The fragments the fuzzer explores further, per grammar
GRAMMAR_FRAGMENTS: dict[str, list[str]] = {name: list(e.fragments) for name, e in ENTRIES.items()}
# The tools a grammar runs with by default, where it has its own
GRAMMAR_TOOLS: dict[str, list[dict[str, Any]]] = {
    name: [dict(tool) for tool in e.fuzz_tools] for name, e in ENTRIES.items() if e.fuzz_tools is not None
}
XML_TOOLS = GRAMMAR_TOOLS["xml"]
# Whole outputs with known results, per grammar: (text, expected calls)
EXAMPLES: dict[str, list[Example]] = {name: list(e.examples) for name, e in ENTRIES.items()}
