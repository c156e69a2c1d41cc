"""The Hermes format: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``.

Used by Hermes 2 Pro and 3, Qwen 2.5 and 3, and many fine-tunes. Besides the
canonical ``<tool_call>`` wrapper, the wrappers real models were seen to put
around the same JSON are accepted when they hold a call (see
``../shared/corpus/real_outputs.jsonl``, format ``hermes_variant``):
``<function_call>``, ``<tools>``, ``<tool>``, ``<response>``, ``<json>``,
``<xml>``, and ``<function=NAME>{arguments}</function>`` /
``<function name="NAME">{arguments}</function>``. These *lenient* wrappers are
plain text unless a call object follows.

After a call object the block is closed by ``</tool_call>``, by any other
closing tag (``</think>``, as GLM-4.7 writes), by the next opener, or by the
end of the stream.
"""

from __future__ import annotations

import re
from typing import Final

from toolparse.grammars.json_calls import JsonCallsGrammar, Opener, Tag
from toolparse.grammars.prompts import HermesPrompt

_PARTIAL_TAG: Final = re.compile(r"</?[A-Za-z0-9_:.\-]{0,64}")
_FULL_TAG: Final = re.compile(r"</?[A-Za-z0-9_:.\-]{1,64}>")

TOOL_CALL_OPEN: Final = "<tool_call>"
TOOL_CALL_CLOSE: Final = "</tool_call>"

_LENIENT_TAGS: Final = ("function_call", "tools", "tool", "response", "json", "xml")


class HermesGrammar(JsonCallsGrammar):
    """``<tool_call>`` blocks of JSON call objects."""

    def __init__(self) -> None:
        self.prompt = HermesPrompt()
        openers = [Opener(TOOL_CALL_OPEN, TOOL_CALL_CLOSE)]
        openers += [Opener(f"<{tag}>", f"</{tag}>", lenient=True) for tag in _LENIENT_TAGS]
        openers += [
            Opener("<function=", "</function>", lenient=True, name_until=">"),
            Opener('<function name="', "</function>", lenient=True, name_until='">'),
        ]
        super().__init__("hermes", openers, tag_starts="<")

    def classify_tag(self, token: str, c: str, strict: bool, closer: str) -> Tag:
        tag = token + c
        if _PARTIAL_TAG.fullmatch(tag):
            return Tag.MORE
        if _FULL_TAG.fullmatch(tag):
            if tag in self.opener_specs:
                return Tag.NEXT
            if tag[1] == "/" and (not strict or tag == closer):
                return Tag.CLOSE
        return Tag.BAD
