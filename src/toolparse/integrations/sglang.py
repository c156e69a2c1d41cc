"""toolparse as SGLang's tool-call detectors (SGLang 0.5.23 and later).

A detector per grammar, named ``toolparse-<grammar>`` like vLLM's parsers,
with SGLang's detector interface: ``detect_and_parse`` for a whole response,
``parse_streaming_increment`` for each delta (each character read once) and
``finish`` at the end of the stream (held-back text, and a call the model
left open). Calls are checked against the request's tools, their arguments
coerced to the schemas; delivery follows the ``TOOLPARSE_*`` environment
variables (:class:`~toolparse.integrations.toolcalls.ServerOptions`).

SGLang has no command-line flag that imports a parser. It loads the
entry points of the group ``sglang.srt.plugins`` in each of its processes
before it reads its arguments, and toolparse declares one,
:func:`register`: with toolparse installed in SGLang's environment, the
``toolparse-<grammar>`` names are valid values of ``--tool-call-parser``::

    python -m sglang.launch_server --model-path Qwen/Qwen3-Coder-30B-A3B-Instruct \\
        --tool-call-parser toolparse-qwen3-coder

To run toolparse under one of SGLang's own names instead (for a deployment
script that cannot change), list them in ``TOOLPARSE_SGLANG_REPLACE``:
``qwen3_coder`` (the grammar is the one that name means, from
:data:`SGLANG_NAMES`) or ``name=grammar``, comma-separated. Nothing of
SGLang's is replaced unless it is listed there. With ``SGLANG_PLUGINS`` set,
add ``toolparse`` to it.

``tool_choice`` ``"required"`` and a named tool stay SGLang's (a JSON
schema constraint it parses itself): these detectors say
``supports_structural_tag() is False``.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import StreamingParseResult, ToolCallItem

from toolparse.engine.declare import Grammar
from toolparse.errors import InvalidOptionError
from toolparse.grammars import GRAMMARS, get_grammar
from toolparse.integrations.toolcalls import (
    ServerOptions,
    Step,
    StreamedRecords,
    ToolStream,
    plain_tools,
    request_choice,
)
from toolparse.tools import to_tool

SGLANG_NAMES: dict[str, str] = {
    "qwen": "hermes",
    "qwen25": "hermes",
    "hermes": "hermes",
    "qwen3_coder": "qwen3-coder",
    "llama3": "llama3-json",
    "pythonic": "pythonic",
    "mistral": "mistral",
    "deepseekv3": "deepseek",
    "deepseekv31": "deepseek",
    "glm": "glm",
    "glm45": "glm",
    "kimi_k2": "kimi",
    "minimax-m2": "minimax",
}
"""SGLang's parser names for the formats toolparse reads, and the grammar each means."""

NOT_REPLACEABLE = frozenset(
    {"glm47", "kimi_k3", "muse", "deepseekv32", "deepseekv4", "deepseekv41", "gpt-oss"}
)
"""Names SGLang's serving code treats specially by name (another encoding,
another decoding path): a detector put under them would not be used as one."""


class ToolparseDetector(StreamedRecords, BaseFormatDetector):  # type: ignore[misc]
    """An SGLang detector reading ``grammar`` with toolparse (one instance per response)."""

    grammar: ClassVar[str | Grammar] = "hermes"
    options: ClassVar[ServerOptions | None] = None
    """The delivery options; None: read from the environment at first use."""

    def __init__(self) -> None:
        self._stream: ToolStream | None = None
        self._finished = False
        super().__init__()
        if type(self).options is None:
            type(self).options = ServerOptions.from_env()
        self._options: ServerOptions = type(self).options  # type: ignore[assignment]
        declaration = self.grammar if isinstance(self.grammar, Grammar) else get_grammar(self.grammar)
        self._openers = [opener for opener in declaration.openers if isinstance(opener, str)]
        self._any_opener = len(self._openers) < len(declaration.openers)

    def _reading(self, tools: list[Any]) -> dict[str, Any]:
        # (SGLang's own serving skips a request without tools; another caller may not)
        plain = plain_tools(tools)
        return {"tools": plain, "tool_choice": request_choice(plain, None), "options": self._options}

    def has_tool_call(self, text: str) -> bool:
        """Whether ``text`` may hold a call: one of the format's markers is in it."""
        return self._any_opener or any(opener in text for opener in self._openers)

    def detect_and_parse(self, text: str, tools: list[Any]) -> Any:
        """A whole response: always validated (a call is delivered complete and valid, or stays content)."""
        reading = self._reading(tools)
        content, calls = ToolStream.whole(self.grammar, text, **reading)
        position = {to_tool(tool).name: i for i, tool in enumerate(reading["tools"] or ())}
        return StreamingParseResult(
            normal_text=content,
            calls=[
                ToolCallItem(
                    tool_index=position.get(call.name, -1), name=call.name, parameters=call.arguments
                )
                for call in calls
            ],
        )

    def parse_streaming_increment(self, new_text: str, tools: list[Any]) -> Any:
        """The next delta; a call's first item has its name (``tool_index`` is the call's position)."""
        if self._finished:
            raise RuntimeError("parse_streaming_increment after finish: a detector serves one response")
        stream = self._stream
        if stream is None:
            stream = self._stream = ToolStream(self.grammar, **self._reading(tools))
        return _result(stream.feed(new_text))

    def finish(self, tools: list[Any]) -> Any:
        """End of the stream: held-back text and calls still open."""
        if self._stream is None or self._finished:
            return StreamingParseResult()
        self._finished = True
        return _result(self._stream.finish())

    def supports_structural_tag(self) -> bool:
        return False

    def structure_info(self) -> Any:
        raise NotImplementedError(
            "toolparse detectors leave required and named tool_choice to SGLang's JSON constraint"
        )


def _result(step: Step) -> Any:
    if not step:
        return StreamingParseResult()
    return StreamingParseResult(
        normal_text=step.content,
        calls=[ToolCallItem(tool_index=p.index, name=p.name, parameters=p.arguments) for p in step.calls],
    )


def detector_class(
    grammar: str | Grammar, *, options: ServerOptions | None = None
) -> type[ToolparseDetector]:
    """A detector class reading ``grammar`` (a grammar's name or a declaration);
    ``options`` fixes the delivery options instead of the environment."""
    label = grammar if isinstance(grammar, str) else grammar.name
    return type(
        "Toolparse" + "".join(part.capitalize() for part in label.replace("_", "-").split("-")) + "Detector",
        (ToolparseDetector,),
        {"grammar": grammar, "options": options, "__module__": __name__},
    )


DETECTORS: dict[str, type[ToolparseDetector]] = {
    f"toolparse-{grammar}": detector_class(grammar) for grammar in GRAMMARS
}
"""Every detector, by the name :func:`register` gives it."""
globals().update({cls.__name__: cls for cls in DETECTORS.values()})


def replacements(value: str | None = None) -> dict[str, str]:
    """SGLang's names to replace and the grammar for each, from
    ``TOOLPARSE_SGLANG_REPLACE`` (or ``value``): ``name`` or ``name=grammar``,
    comma-separated. Raises :class:`~toolparse.InvalidOptionError` for a
    name or grammar it cannot take."""
    text = os.environ.get("TOOLPARSE_SGLANG_REPLACE", "") if value is None else value
    out: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, grammar = (piece.strip() for piece in item.partition("="))
        if name in NOT_REPLACEABLE:
            raise InvalidOptionError(
                f"TOOLPARSE_SGLANG_REPLACE: SGLang treats {name!r} specially by name; "
                f"use --tool-call-parser toolparse-<grammar> instead"
            )
        grammar = grammar or SGLANG_NAMES.get(name, "")
        if not grammar:
            raise InvalidOptionError(
                f"TOOLPARSE_SGLANG_REPLACE: no grammar known for SGLang's {name!r}; write {name}=<grammar>"
            )
        if grammar not in GRAMMARS:
            raise InvalidOptionError(
                f"TOOLPARSE_SGLANG_REPLACE: unknown grammar {grammar!r}; known: {', '.join(GRAMMARS)}"
            )
        out[name] = grammar
    return out


def register() -> None:
    """Add the ``toolparse-<grammar>`` detectors to SGLang's parser table, and
    put them under the names ``TOOLPARSE_SGLANG_REPLACE`` lists (SGLang's
    plugin entry point: it runs in every SGLang process, before the
    arguments are read)."""
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    table = FunctionCallParser.ToolCallParserEnum
    table.update(DETECTORS)
    for name, grammar in replacements().items():
        table[name] = DETECTORS[f"toolparse-{grammar}"]
