"""Fenced JSON, as Gemma-style prompts ask for it::

    ```tool_call
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    ```

The fence opens with ```` ```tool_call ```` and a newline; after the call
object a run of backticks closes it (models also close with a single one).
"""

from __future__ import annotations

from typing import Final

from toolparse.grammars.json_calls import JsonCallsGrammar, Opener, Tag
from toolparse.grammars.prompts import FencedJsonPrompt

FENCE_OPEN: Final = "```tool_call\n"
FENCE_CLOSE: Final = "```"


class FencedJsonGrammar(JsonCallsGrammar):
    """```` ```tool_call ```` fences holding JSON call objects."""

    def __init__(self) -> None:
        self.prompt = FencedJsonPrompt()
        openers = [Opener(FENCE_OPEN, FENCE_CLOSE), Opener("```tool_call\r\n", FENCE_CLOSE)]
        super().__init__("fenced-json", openers, tag_starts="`")

    def classify_tag(self, token: str, c: str, strict: bool, closer: str) -> Tag:
        if c == "`":
            return Tag.MORE if len(token) < 16 else Tag.BAD
        if c.isalnum() or c == "_":  # ```tool_call or ```json: a new fence begins
            return Tag.NEXT if len(token) >= 3 else Tag.BAD
        if strict and len(token) < 3:
            return Tag.BAD
        return Tag.CLOSE_BEFORE
