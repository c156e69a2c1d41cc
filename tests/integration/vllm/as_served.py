"""pytest plugin: vLLM's tool-parser tests as vLLM's server would run them.

Two habits of vLLM's tests differ from its serving (load with
``-p as_served`` after ``-p vllm_harness``):

* most build their request with no tools. vLLM's server never delivers the
  calls of such a request, so toolparse reads none there (their markup stays
  content); here toolparse reads any tool name instead, as vLLM's parsers do;
* the streaming helper never calls ``finish_streaming()``, which vLLM's
  server calls at the end of every stream of an engine-based parser; here
  each simulated stream ends with it.

The figures with this plugin say how far the parsers agree; those without
it, how far the tests' expectations hold as written.
"""

from __future__ import annotations

import contextlib
from typing import Any

import vllm_harness  # noqa: F401  (the stand-ins first)

import toolparse.integrations.vllm as adapter

adapter.request_choice = lambda tools, tool_choice: (
    None
)  # (vLLM gives a request without tools tool_choice "none")


def _finish_streams() -> None:
    import tests.tool_parsers.utils as helpers

    run = helpers.run_tool_extraction_streaming

    def run_and_finish(
        tool_parser: Any, model_deltas: Any, request: Any = None, *args: Any, **kwargs: Any
    ) -> Any:
        reconstructor = run(tool_parser, model_deltas, request, *args, **kwargs)
        finish = getattr(tool_parser, "finish_streaming", None)
        last = finish() if finish is not None else None
        if last is not None:
            reconstructor.append_delta(last)
        return reconstructor

    helpers.run_tool_extraction_streaming = run_and_finish


with contextlib.suppress(ImportError):  # (a file that does not stream through the shared helper)
    _finish_streams()
