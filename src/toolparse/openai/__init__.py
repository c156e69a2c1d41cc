"""OpenAI Chat Completions for text-only endpoints.

* :func:`wrap`: an ``openai`` client (sync or async) whose
  ``chat.completions.create`` does tool calling against a model that has none;
* :class:`CompletionStream` and :func:`complete`: a parser's work as
  ``ChatCompletionChunk`` and ``ChatCompletion`` dicts (sans-IO), in
  ``"validated"`` or ``"progressive"`` mode;
* ``toolparse serve`` (:mod:`toolparse.serve`) builds a proxy on them.

The ``openai`` package is optional: where it is installed, the wrapped client
returns its own types; the conversion works on plain dicts without it.
"""

from toolparse.openai.chunks import (
    ChoiceStream,
    CompletionStream,
    MalformedChunkError,
    ToolCallFailed,
    accumulate,
    call_problem,
    complete,
)
from toolparse.openai.client import AsyncToolCallStream, ToolCallStream, wrap

__all__ = [
    "AsyncToolCallStream",
    "ChoiceStream",
    "CompletionStream",
    "MalformedChunkError",
    "ToolCallFailed",
    "ToolCallStream",
    "accumulate",
    "call_problem",
    "complete",
    "wrap",
]
