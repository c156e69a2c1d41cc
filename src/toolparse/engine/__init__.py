"""The sans-IO streaming engine and its front-ends."""

from toolparse.engine.events import (
    ErrorReason,
    Event,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallError,
    ToolCallStart,
    canonical_json,
)
from toolparse.engine.frontends import ParseResult, parse_iter, parse_stream, parse_text
from toolparse.engine.stream import StreamParser

__all__ = [
    "ErrorReason",
    "Event",
    "ParseResult",
    "StreamParser",
    "TextDelta",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallError",
    "ToolCallStart",
    "canonical_json",
    "parse_iter",
    "parse_stream",
    "parse_text",
]
