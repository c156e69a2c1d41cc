"""toolparse as vLLM's tool-call and reasoning parsers (vLLM 0.33 and later).

Importing this module registers, with vLLM's parser managers:

- a tool parser per grammar, named ``toolparse-<grammar>``
  (``toolparse-hermes``, ``toolparse-qwen3-coder``, ... every name in
  :data:`toolparse.grammars.GRAMMARS`);
- a reasoning parser per reasoning preset, named ``toolparse-<preset>``
  (``toolparse-auto``, ``toolparse-think``, ``toolparse-think-open``,
  ``toolparse-seed``, ``toolparse-seed-open``, ``toolparse-kimi-vl``,
  ``toolparse-magistral``).

So a server runs::

    vllm serve Qwen/Qwen3-8B --enable-auto-tool-choice \\
        --tool-parser-plugin toolparse.integrations.vllm --tool-call-parser toolparse-hermes \\
        --reasoning-parser-plugin toolparse.integrations.vllm --reasoning-parser toolparse-think-open

and clients see the same ``tool_calls``, ``content`` and ``reasoning`` fields
as with vLLM's own parsers. Both parsers are engine-based
(``engine_based_streaming``): vLLM feeds them each delta once and calls
``finish_streaming()`` at the end, so a stream costs linear time, and a call
still open when the model stops is flushed (as a call, or as content when it
is broken). Calls are checked against the request's tools and their
arguments coerced to the schemas; the delivery mode and the handling of a
failed call come from ``TOOLPARSE_*`` environment variables
(:class:`~toolparse.integrations.toolcalls.ServerOptions`).

``tool_choice``: for the formats xgrammar knows (:data:`STRUCTURAL_TAGS`),
vLLM constrains calls to the format as it does for its own parsers, and
``"required"`` and a named tool are read from that output; for the others,
vLLM constrains those two to JSON and parses that itself. ``"none"``, or a
request without tools: the parser reads no call, all is content.

Special tokens: many tokenizers mark a format's markers (``<tool_call>``,
``<|python_tag|>``, ``[TOOL_CALLS]``, DeepSeek's and Kimi's markers) as
special, and vLLM drops special tokens from the text by default. The tool
parsers therefore decode requests with tools with ``skip_special_tokens``
false, as vLLM's own Hermes parser does, unless the request sets it
explicitly; a request that sets it true loses those markers, and only what
remains readable is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from vllm.entrypoints.generate.base.protocol import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.logger import init_logger
from vllm.reasoning import ReasoningParser, ReasoningParserManager
from vllm.tool_parsers import ToolParser, ToolParserManager

from toolparse import __version__
from toolparse.engine.declare import Grammar, Reasoning
from toolparse.grammars import GRAMMARS
from toolparse.grammars.reasoning import REASONING, get_reasoning
from toolparse.integrations.reasoning import CLOSED, ReasoningSplit, prompt_state, reasoning_state
from toolparse.integrations.toolcalls import (
    ServerOptions,
    Step,
    StreamedRecords,
    ToolStream,
    history_calls,
    plain_tools,
    request_choice,
)

logger = init_logger("vllm.toolparse")  # (under "vllm": its logging configuration shows INFO lines)

PROMPT_TAIL_TOKENS = 32
"""How many of the prompt's last tokens are decoded to see whether the
template opened or closed reasoning (constant work per request)."""


class ToolparseToolParser(StreamedRecords, ToolParser):  # type: ignore[misc]
    """A vLLM tool parser reading ``grammar`` with toolparse (one instance per response).

    Subclasses set :attr:`grammar` (a name or a
    :class:`~toolparse.engine.declare.Grammar`); :func:`register_tool_parser`
    makes and registers one.
    """

    grammar: ClassVar[str | Grammar] = "hermes"
    options: ClassVar[ServerOptions | None] = None
    """The delivery options; None: read from the environment at first use."""
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, tools: list[Any] | None = None) -> None:
        self._stream: ToolStream | None = None
        self._finished = False
        super().__init__(tokenizer, tools)
        self._options = type(self)._server_options()

    @classmethod
    def _server_options(cls) -> ServerOptions:
        if cls.options is None:
            cls.options = ServerOptions.from_env()
        return cls.options

    def get_remaining_unstreamed_args(self) -> str:
        """Nothing: every argument goes out in a delta (the last ones from ``finish_streaming``)."""
        return ""

    # -- the request ------------------------------------------------------------------------

    def adjust_request(self, request: Any) -> Any:
        request = super().adjust_request(request)
        if request.tools and request.tool_choice != "none" and request.skip_special_tokens is None:
            request.skip_special_tokens = False  # (markers are special tokens in many tokenizers)
        return request

    def _reading(self, request: Any) -> dict[str, Any]:
        """What a request sets for its stream: its tools, its tool choice, its earlier calls."""
        tools = plain_tools(getattr(request, "tools", None) or self.tools)
        return {
            "tools": tools,
            "tool_choice": request_choice(tools, getattr(request, "tool_choice", None)),
            "history": history_calls(getattr(request, "messages", None)),
            "options": self._options,
        }

    # -- parsing ----------------------------------------------------------------------------

    def extract_tool_calls(self, model_output: str, request: Any) -> Any:
        """A whole response: always validated (a call goes out complete and valid, or as content)."""
        content, calls = ToolStream.whole(self.grammar, model_output, **self._reading(request))
        return ExtractedToolCallInformation(
            tools_called=bool(calls),
            tool_calls=[
                ToolCall(
                    id=call.id,
                    type="function",
                    function=FunctionCall(name=call.name, arguments=call.arguments),
                )
                for call in calls
            ],
            content=content or None,
        )

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> Any:
        """The next delta (only ``delta_text`` is read: each character once)."""
        if self._finished:
            raise RuntimeError(
                "extract_tool_calls_streaming after finish_streaming: a parser serves one response"
            )
        stream = self._stream
        if stream is None:
            stream = self._stream = ToolStream(self.grammar, **self._reading(request))
        return _message(stream.feed(delta_text)) if delta_text else None

    def finish_streaming(self) -> Any:
        """End of the stream: held-back text and calls still open."""
        if self._stream is None or self._finished:
            return None
        self._finished = True
        return _message(self._stream.finish())


def _message(step: Step) -> Any:
    if not step:
        return None
    calls = []
    for piece in step.calls:
        function = (
            DeltaFunctionCall(arguments=piece.arguments)
            if piece.name is None
            else DeltaFunctionCall(name=piece.name, arguments=piece.arguments)
        )
        if piece.id is None:
            calls.append(DeltaToolCall(index=piece.index, function=function))
        else:
            calls.append(DeltaToolCall(index=piece.index, id=piece.id, type="function", function=function))
    if step.content:
        return DeltaMessage(content=step.content, tool_calls=calls)
    return DeltaMessage(tool_calls=calls)


class ToolparseReasoningParser(ReasoningParser):  # type: ignore[misc]
    """A vLLM reasoning parser splitting off reasoning as ``preset`` marks it
    (one instance per response).

    The prompt's last tokens say whether the chat template opened reasoning
    (the output then begins inside it) or wrote an empty block (thinking
    off: the output is all answer); otherwise a request that switched
    thinking off in its ``chat_template_kwargs`` is all answer, and otherwise
    the preset decides (:func:`~toolparse.request.reasoning_state`, as
    ``toolparse serve`` decides). Text is read once per delta; token ids are
    looked at only in bounded windows.
    """

    preset: ClassVar[str | Reasoning] = "auto"
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        declaration = get_reasoning(self.preset)
        if declaration is None:
            raise ValueError("a reasoning parser needs a reasoning declaration, not 'none'")
        self._reasoning: Reasoning = declaration
        # (what the request says of thinking, as toolparse serve reads it: until the prompt is seen)
        self._request = {"chat_template_kwargs": kwargs.get("chat_template_kwargs")}
        self._prompt: str | None = reasoning_state(self._request, declaration)
        self._split: ReasoningSplit | None = None

    @property
    def reasoning_start_str(self) -> str | None:
        return self._reasoning.open

    @property
    def reasoning_end_str(self) -> str | None:
        return self._reasoning.close

    # -- token ids: bounded windows only ---------------------------------------------------

    def _decode(self, ids: Sequence[int]) -> str:
        return str(self.model_tokenizer.decode(list(ids), skip_special_tokens=False))

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        # (what the prompt shows wins over what the request asked)
        tail = self._decode(prompt_token_ids[-PROMPT_TAIL_TOKENS:])
        self._prompt = reasoning_state(self._request, self._reasoning, tail)

    def adjust_initial_state_from_prompt(self, prompt_token_ids: Sequence[int]) -> None:
        self.set_prompt_token_ids(prompt_token_ids)

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        """Whether ``input_ids`` (a prompt) end with reasoning closed."""
        return prompt_state(self._decode(input_ids[-PROMPT_TAIL_TOKENS:]), self._reasoning) == CLOSED

    def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids: Sequence[int]) -> bool:
        """Whether the closer ends in ``delta_ids`` (decodes the delta and a
        closer's length of tokens before it)."""
        close = self._reasoning.close
        count = len(delta_ids)
        if not count:
            return False
        window = input_ids[-(count + len(close)) :]
        if close not in self._decode(window):
            return False
        return close not in self._decode(window[: len(window) - count])

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        """The ids after the first closer in ``input_ids`` ([] without one)."""
        close = self._reasoning.close
        reach = len(close)
        for end in range(1, len(input_ids) + 1):
            if close in self._decode(input_ids[max(0, end - reach) : end]):
                return input_ids[end:]
        return []

    # -- text -------------------------------------------------------------------------------

    def _new_split(self) -> ReasoningSplit:
        return ReasoningSplit(self._reasoning, state=self._prompt)

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[str | None, str | None]:
        split = self._new_split()
        reasoning, content = split.feed(model_output)
        more_reasoning, more_content = split.finish()
        return (reasoning + more_reasoning) or None, (content + more_content) or None

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> Any:
        split = self._split
        if split is None:
            split = self._split = self._new_split()
        return _reasoning_message(*split.feed(delta_text))

    def has_engine_confirmed_reasoning_end(self) -> bool:
        return self._split is not None and self._split.ended

    def finish_streaming(self) -> Any:
        if self._split is None:
            return None
        return _reasoning_message(*self._split.finish())


def _reasoning_message(reasoning: str, content: str) -> Any:
    if not (reasoning or content):
        return None
    return DeltaMessage(reasoning=reasoning or None, content=content or None)


STRUCTURAL_TAGS = {
    "hermes": "hermes",
    "qwen3-coder": "qwen_3_coder",
    "llama3-json": "llama",
    "glm": "glm_4_7",
    "kimi": "kimi",
    "minimax": "minimax",
    "gpt-oss": "harmony",
}
"""The xgrammar structural tag of each grammar it knows (the ones vLLM's own
parsers for these formats name): vLLM constrains calls to the format with it
(``VLLM_ENFORCE_STRICT_TOOL_CALLING``, on by default), ``tool_choice``
``"required"`` and named tools included, and the parser reads the output."""


def register_tool_parser(
    name: str,
    grammar: str | Grammar,
    *,
    options: ServerOptions | None = None,
    structural_tag: str | None = None,
) -> type[ToolparseToolParser]:
    """Make and register a tool parser called ``name`` reading ``grammar``
    (a grammar's name or a declaration), for a plugin file of your own:
    ``options`` fixes the delivery options instead of the environment;
    ``structural_tag`` names the xgrammar structural tag of the format
    (default: the one :data:`STRUCTURAL_TAGS` gives a grammar's name)."""
    label = grammar if isinstance(grammar, str) else grammar.name
    if structural_tag is None and isinstance(grammar, str):
        structural_tag = STRUCTURAL_TAGS.get(grammar)
    namespace = {
        "grammar": grammar,
        "options": options,
        "structural_tag_model": structural_tag,
        "__module__": __name__,
    }
    words = "".join(part.capitalize() for part in label.replace("_", "-").split("-"))
    cls = type(f"Toolparse{words}ToolParser", (ToolparseToolParser,), namespace)
    ToolParserManager.register_module(name=name, module=cls)
    return cls


def register_reasoning_parser(name: str, preset: str | Reasoning) -> type[ToolparseReasoningParser]:
    """Make and register a reasoning parser called ``name`` for ``preset``
    (a preset's name or a :class:`~toolparse.engine.declare.Reasoning`)."""
    if get_reasoning(preset) is None:
        raise ValueError("a reasoning parser needs a reasoning declaration, not 'none'")
    label = preset if isinstance(preset, str) else "Custom"
    cls = type(
        "Toolparse" + "".join(part.capitalize() for part in label.split("-")) + "ReasoningParser",
        (ToolparseReasoningParser,),
        {"preset": preset, "__module__": __name__},
    )
    ReasoningParserManager.register_module(name=name, module=cls)
    return cls


TOOL_PARSERS: dict[str, type[ToolparseToolParser]] = {
    f"toolparse-{grammar}": register_tool_parser(f"toolparse-{grammar}", grammar) for grammar in GRAMMARS
}
"""Every tool parser this module registers, by its vLLM name."""
REASONING_PARSERS: dict[str, type[ToolparseReasoningParser]] = {
    f"toolparse-{preset}": register_reasoning_parser(f"toolparse-{preset}", preset)
    for preset, declaration in REASONING.items()
    if declaration is not None
}
"""Every reasoning parser this module registers, by its vLLM name."""
globals().update({cls.__name__: cls for cls in (*TOOL_PARSERS.values(), *REASONING_PARSERS.values())})

# (vLLM imports the plugin at start-up: a wrong TOOLPARSE_* value stops the server there, named)
_STARTUP_OPTIONS = ServerOptions.from_env()
logger.info(
    "toolparse %s: tool parsers toolparse-<grammar> (mode=%s, on_error=%s) and reasoning parsers "
    "toolparse-<preset> registered; requests with tools are decoded with skip_special_tokens=false "
    "unless they set it (the markers of many formats are special tokens)",
    __version__,
    _STARTUP_OPTIONS.mode,
    _STARTUP_OPTIONS.on_error,
)
