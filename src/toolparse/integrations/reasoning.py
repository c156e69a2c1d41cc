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

from toolparse.engine.declare import Reasoning
from toolparse.events import Event, ReasoningDelta, TextDelta
from toolparse.grammars.forced import TEXT_ONLY
from toolparse.parser import StreamParser

OPEN = "open"
CLOSED = "closed"


def prompt_state(prompt_tail: str, reasoning: Reasoning) -> str | None:
    """What the end of a rendered prompt says about the output's reasoning:
    ``"open"`` (the template opened it: the output begins inside it),
    ``"closed"`` (the template wrote an empty block, thinking off: the output
    is all answer), or None (the declaration decides).

    ``prompt_tail`` is the prompt's last few dozen characters (a server
    decodes only its last tokens: constant work per request).
    """
    tail = prompt_tail.rstrip()
    if tail.endswith(reasoning.close):
        return CLOSED
    if reasoning.open is not None and tail.endswith(reasoning.open):
        return OPEN
    return None


class ReasoningSplit:
    """One response's text in, ``(reasoning, content)`` out per delta.

    ``state`` is what the prompt said (:func:`prompt_state`): ``"open"``
    starts inside reasoning, ``"closed"`` starts in the answer. :attr:`ended`
    turns true at the first character of the answer; from then on every
    delta is content, as it came.
    """

    __slots__ = ("_held", "_parser", "ended")

    def __init__(self, reasoning: Reasoning, *, state: str | None = None) -> None:
        if state == OPEN and not reasoning.starts_open:
            reasoning = replace(reasoning, starts_open=True)
        self._parser = StreamParser(TEXT_ONLY, reasoning=reasoning)
        self._held = ""  # text fed that no event has covered yet (a possible marker's start)
        self.ended = state == CLOSED
        """Whether the answer has begun."""

    def feed(self, text: str) -> tuple[str, str]:
        """The next delta: its reasoning text and its content."""
        if self.ended:
            return "", text
        return self._split(self._held + text, self._parser.feed(text))

    def finish(self) -> tuple[str, str]:
        """End of the response: what was held back."""
        if self.ended:
            return "", ""
        reasoning, content = self._split(self._held, self._parser.close())
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
