"""toolparse inside inference servers: vLLM tool and reasoning parsers, SGLang detectors.

The server-specific modules are thin: :mod:`toolparse.integrations.vllm`
(imports vLLM) and :mod:`toolparse.integrations.sglang` (imports SGLang) only
translate between each server's classes and the sans-IO pieces here, which
need neither server:

- :class:`~toolparse.integrations.toolcalls.ToolStream`: one response's
  model text in, the content and tool-call pieces a server streams out (the
  chunk conversion of :mod:`toolparse.openai.chunks`, in both delivery modes);
- :class:`~toolparse.integrations.reasoning.ReasoningSplit`: where the model's
  reasoning ends and the answer a tool parser reads begins;
- :class:`~toolparse.integrations.toolcalls.ServerOptions`: the options a
  server's command line cannot pass, read from ``TOOLPARSE_*`` environment
  variables.
"""

from toolparse.integrations.reasoning import ReasoningSplit, prompt_state, reasoning_state
from toolparse.integrations.toolcalls import CallPiece, ServerOptions, Step, ToolStream, plain_tools

__all__ = [
    "CallPiece",
    "ReasoningSplit",
    "ServerOptions",
    "Step",
    "ToolStream",
    "plain_tools",
    "prompt_state",
    "reasoning_state",
]
