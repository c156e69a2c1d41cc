"""OpenAI Chat Completions for text-only endpoints.

* :func:`wrap`: an ``openai`` client (sync or async) that does tool calling
  against a model that has none, by every path the SDK sends a chat
  completion (done in its HTTP transport, :mod:`toolparse.openai.transport`);
* :class:`CompletionStream` and :func:`complete`: a parser's work as
  ``ChatCompletionChunk`` and ``ChatCompletion`` dicts (sans-IO), in
  ``"validated"`` or ``"progressive"`` mode;
* ``toolparse serve`` (:mod:`toolparse.serve`) builds a proxy on them.

The ``openai`` package is optional: the conversion works on plain dicts
without it.
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
from toolparse.openai.client import wrap

__all__ = [
    "ChoiceStream",
    "CompletionStream",
    "MalformedChunkError",
    "ToolCallFailed",
    "accumulate",
    "call_problem",
    "complete",
    "wrap",
]
