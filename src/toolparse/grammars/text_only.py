"""No calls at all: ``tool_choice="none"``, where every character is text."""

from __future__ import annotations

from toolparse.engine.block import BlockParser, CallContext, Grammar
from toolparse.engine.markers import MarkerSet
from toolparse.grammars.prompts import HermesPrompt


class TextOnlyGrammar(Grammar):
    """A grammar with no openers."""

    def __init__(self) -> None:
        self.name = "text"
        self.openers = MarkerSet([])
        self.prompt = HermesPrompt()

    def new_block(self, opener: str, ctx: CallContext) -> BlockParser:
        raise AssertionError("a grammar with no openers never opens a block")
