"""parse_text, parse_iter and parse_stream: same events; async cancellation and aclose."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from support import normalize
from toolparse import ToolCall, parse_iter, parse_stream, parse_text

TEXT = 'Hi <tool_call>{"name": "f", "arguments": {"a": "b"}}</tool_call> bye'
DELTAS = [TEXT[i : i + 3] for i in range(0, len(TEXT), 3)]


class Source:
    """An async source that records whether it was closed."""

    def __init__(self, deltas: list[str], *, block_after: int | None = None) -> None:
        self.deltas = deltas
        self.block_after = block_after
        self.closed = False

    def __aiter__(self) -> AsyncIterator[str]:
        return self._gen()

    async def _gen(self) -> AsyncIterator[str]:
        try:
            for k, delta in enumerate(self.deltas):
                if self.block_after is not None and k >= self.block_after:
                    await anyio.sleep_forever()
                await anyio.lowlevel.checkpoint()
                yield delta
        finally:
            self.closed = True


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.anyio
async def test_parse_stream_matches_parse_text(anyio_backend: str) -> None:
    events = [e async for e in parse_stream(Source(DELTAS), "hermes", seed=1)]
    assert normalize(events) == normalize(parse_text(TEXT, seed=1).events)
    assert normalize(list(parse_iter(DELTAS, seed=1))) == normalize(events)


@pytest.mark.anyio
async def test_aclose_closes_the_source(anyio_backend: str) -> None:
    source = Source(DELTAS)
    stream = parse_stream(source, "hermes")
    first = await stream.__anext__()
    assert first is not None
    await stream.aclose()
    assert source.closed


@pytest.mark.anyio
async def test_cancellation_propagates_and_closes_the_source(anyio_backend: str) -> None:
    source = Source(DELTAS, block_after=4)
    seen: list[Any] = []
    with anyio.move_on_after(0.2):
        async for event in parse_stream(source, "hermes"):
            seen.append(event)
    assert source.closed
    assert not any(isinstance(e, ToolCall) for e in seen)


def test_parse_result_views() -> None:
    result = parse_text(TEXT + " <tool_call>{oops}</tool_call>")
    assert result.text == "Hi  bye "
    assert [c.name for c in result.calls] == ["f"]
    assert [e.reason for e in result.errors] == ["malformed_json"]
