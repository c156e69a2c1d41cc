"""Tool choice: validation before anything is sent, the schema that forces a
model's answer, each provider's wire format, and request shaping for models
without native tool calling.

The parsing side of a forced choice (the model's whole output is one JSON
call) is ``StreamParser(..., tool_choice=...)``.
"""

from toolparse.fastpath.choice import (
    ForceTool,
    InvalidRequestError,
    ProviderTool,
    ToolChoice,
    normalize_choice,
    validate,
)
from toolparse.fastpath.request import PreparedRequest, prepare_request
from toolparse.fastpath.schema import response_schema
from toolparse.fastpath.wire import PROVIDERS, to_wire

__all__ = [
    "PROVIDERS",
    "ForceTool",
    "InvalidRequestError",
    "PreparedRequest",
    "ProviderTool",
    "ToolChoice",
    "normalize_choice",
    "prepare_request",
    "response_schema",
    "to_wire",
    "validate",
]
