"""Tool choice: validation before anything is sent, the schema that forces a
model's answer, and each provider's wire format.

The parsing side of a forced choice (the model's whole output is one JSON
call) is ``StreamParser(..., tool_choice=...)``; request shaping for models
without native tool calling, which builds on both, is
:func:`toolparse.prepare_request` (:mod:`toolparse.request`). This package
imports neither: the parser and request shaping import it, never the reverse.
"""

from toolparse.toolchoice.choice import (
    ForceTool,
    InvalidRequestError,
    ProviderTool,
    ToolChoice,
    normalize_choice,
    validate,
)
from toolparse.toolchoice.schema import response_schema
from toolparse.toolchoice.wire import PROVIDERS, to_wire

__all__ = [
    "PROVIDERS",
    "ForceTool",
    "InvalidRequestError",
    "ProviderTool",
    "ToolChoice",
    "normalize_choice",
    "response_schema",
    "to_wire",
    "validate",
]
