"""Where a model's reasoning ends and its answer begins, for servers that hand
the answer to a separate tool parser.

vLLM and SGLang run a reasoning parser first and, once it says reasoning has
ended, give every later character to the tool parser. :class:`ReasoningSplit`
is that first stage over toolparse's engine: reasoning is read as the
``reasoning`` option of :class:`~toolparse.StreamParser` reads it (the same
declarations), and from the first character of the answer on, the text is
passed on untouched, so the tool parser sees exactly what the model wrote.

The answer begins at its first visible character that is not whitespace:
after the reasoning's closer (and after another reasoning block, where one
opens right after it), or at once for a model that did not think.
Whitespace before it is content. Streamed or whole, a text is split in the
same place however its deltas fall.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from toolparse.engine.core import join_surrogate_pairs
from toolparse.engine.declare import Reasoning
from toolparse.events import Event, ReasoningDelta, TextDelta
from toolparse.grammars.forced import TEXT_ONLY
from toolparse.parser import StreamParser
from toolparse.request import CLOSED, OPEN, prompt_state, reasoning_state

__all__ = ["CLOSED", "OPEN", "ReasoningSplit", "prompt_state", "reasoning_state"]


class ReasoningSplit:
    """One response's text in, ``(reasoning, content)`` out per delta.

    ``state`` is what the prompt or the request said (:func:`reasoning_state`): ``"open"``
    starts inside reasoning, ``"closed"`` starts in the answer. :attr:`ended`
    turns true at the first character of the answer; from then on every
    delta is content, as it came.
    """

    __slots__ = ("_held", "_high", "_parser", "ended")

    def __init__(self, reasoning: Reasoning, *, state: str | None = None) -> None:
        if state == OPEN and not reasoning.starts_open:
            reasoning = replace(reasoning, starts_open=True)
        self._parser = StreamParser(TEXT_ONLY, reasoning=reasoning)
        self._held = ""  # text fed that no event has covered yet (a possible marker's start)
        self._high = ""  # a UTF-16 pair's first half, waiting for its second
        self.ended = state == CLOSED
        """Whether the answer has begun."""

    def feed(self, text: str) -> tuple[str, str]:
        """The next delta: its reasoning text and its content."""
        if self.ended:
            return "", text
        # (the engine joins UTF-16 surrogate pairs before it reads: the events' raw text is counted
        # against the text as joined, the pair's first half held as the engine holds it)
        text = join_surrogate_pairs(self._high + text) if self._high or not text.isascii() else text
        self._high = ""
        if text and "\ud800" <= text[-1] <= "\udbff":
            text, self._high = text[:-1], text[-1]
        reasoning, content = self._split(self._held + text, self._parser.feed(text))
        if self.ended and self._high:  # (the answer began: it is passed on as written)
            content, self._high = content + self._high, ""
        return reasoning, content

    def finish(self) -> tuple[str, str]:
        """End of the response: what was held back."""
        if self.ended:
            return "", ""
        high, self._high = self._high, ""
        events = [*self._parser.feed(high), *self._parser.close()]
        reasoning, content = self._split(self._held + high, events)
        self.ended = True
        return reasoning, content

    def _split(self, text: str, events: Sequence[Event]) -> tuple[str, str]:
        # ``text`` is what the events cover, and after them what they do not yet.
        reasoning: list[str] = []
        content: list[str] = []
        at = 0
        for event in events:
            if type(event) is ReasoningDelta:
                assert isinstance(event, ReasoningDelta)
                reasoning.append(event.text)
                at += len(event.raw)
            elif type(event) is TextDelta:
                assert isinstance(event, TextDelta)
                if event.text.strip():
                    # (the answer's first visible character: after the closer and the whitespace that
                    # may still precede another opener, or with no reasoning at all)
                    self.ended = True
                    break
                content.append(event.text)
                at += len(event.text)
        if self.ended:
            content.append(text[at:])
            self._held = ""
        else:
            self._held = text[at:]
        return "".join(reasoning), "".join(content)
