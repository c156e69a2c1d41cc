"""toolparse: turn raw LLM output streams into tool-call events.

>>> from toolparse import parse_text
>>> result = parse_text('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>')
>>> result.calls[0].name, result.calls[0].arguments
('get_weather', {'city': 'Paris'})
"""

from toolparse.engine import (
    ErrorReason,
    Event,
    ParseResult,
    StreamParser,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallError,
    ToolCallStart,
    canonical_json,
    parse_iter,
    parse_stream,
    parse_text,
)
from toolparse.errors import (
    InvalidOptionError,
    InvalidToolError,
    StreamClosedError,
    ToolparseError,
    UnknownGrammarError,
)
from toolparse.grammars import grammar_names
from toolparse.tools import Tool

__version__ = "0.1.0"

__all__ = [
    "ErrorReason",
    "Event",
    "InvalidOptionError",
    "InvalidToolError",
    "ParseResult",
    "StreamClosedError",
    "StreamParser",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallError",
    "ToolCallStart",
    "ToolparseError",
    "UnknownGrammarError",
    "__version__",
    "canonical_json",
    "grammar_names",
    "parse_iter",
    "parse_stream",
    "parse_text",
]
