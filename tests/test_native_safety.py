"""What the native core's ``unsafe`` sites assume, checked from Python.

The binding reads a ``str``'s code points in place (``crate::units``: PEP 393
data, one, two or four bytes a character, compact or, for a subclass of
``str``, apart from the object), gives ``Core`` a ``METH_O`` ``feed`` whose
descriptor checks ``self``'s type, and holds the list of the read in progress
across a read that fails. Each test below feeds the native core what one of
those ``SAFETY`` notes says it copes with, and compares it with the plain case
or with the Python reference.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from toolparse import StreamParser
from toolparse.engine import native
from toolparse.invariants import normalize

_native: Any = importlib.import_module("toolparse._native") if native.AVAILABLE else None
pytestmark = pytest.mark.skipif(
    not native.AVAILABLE, reason="the native core (toolparse._native) is not built in this installation"
)

TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}}]
TEXTS = ["plain ascii", "café ÿ", "Ω ≠ ∞ \u2028", "emoji 🙂 and \U0001d54f", ""]
"""One text of each storage width (and the empty string)."""


class Sub(str):
    """A subclass of ``str``: its characters lie apart from the object."""


@pytest.mark.parametrize("text", TEXTS)
def test_a_str_subclass_is_read_in_place_as_a_str(text: str) -> None:
    assert _native._repr(Sub(text)) == repr(text)
    assert _native._repr(text) == repr(text)
    assert _native.json_match("STRING_RUN", Sub(text), 0) == _native.json_match("STRING_RUN", text, 0)


@pytest.mark.parametrize("text", TEXTS[1:])
def test_deltas_of_a_str_subclass_give_the_events_of_the_str(text: str) -> None:
    stream = f'{text} <tool_call>{{"name": "f", "arguments": {{"text": "{text}"}}}}</tool_call> {text}'

    def events(pieces: list[str]) -> list[Any]:
        parser = StreamParser("hermes", TOOLS, engine="native", seed=1)
        out = [event for piece in pieces for event in parser.feed(piece)]
        return normalize([*out, *parser.close()])

    for size in (1, 3, 7, len(stream)):
        pieces = [stream[i : i + size] for i in range(0, len(stream), size)]
        assert events([Sub(piece) for piece in pieces]) == events(pieces)


def test_feed_refuses_what_is_not_a_core() -> None:
    with pytest.raises(TypeError, match="doesn't apply"):
        _native.Core.feed(object(), "text")


@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_read_stopped_by_a_base_exception_leaves_the_next_reads_whole(engine: str) -> None:
    """An ``id_factory`` that raises ``KeyboardInterrupt`` (which passes
    through, the parser not latched) stops a read midway; the next reads
    announce their calls into their own lists, as the reference does."""
    stream = (
        'hi <tool_call>{"name": "f", "arguments": {"text": "é🙂"}}</tool_call> and '
        '<tool_call>{"name": "f", "arguments": {"text": "b"}}</tool_call> end'
    )

    def run(engine: str) -> list[Any]:
        asked: list[int] = []

        def ids(index: int) -> str:
            asked.append(index)
            if len(asked) == 1:
                raise KeyboardInterrupt
            return f"id{index}"

        parser = StreamParser("hermes", TOOLS, engine=engine, id_factory=ids)
        out: list[Any] = []
        for i in range(0, len(stream), 5):
            try:
                out.extend(parser.feed(stream[i : i + 5]))
            except KeyboardInterrupt:
                out.append("interrupted")
        return [*out, *parser.close()]

    got = run(engine)
    assert got.count("interrupted") == 1
    # (the native lanes cut argument deltas where the reference's full path
    # does not: equal once adjacent deltas are merged)
    assert normalize(got) == normalize(run("python"))
    assert "ToolCall(index=1, id='id1', name='f'" in repr(got)  # (the second call, whole)
