"""What a wrapped client and the proxy do for each chat completion request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolparse.detect import grammar_for_model
from toolparse.engine.declare import Reasoning
from toolparse.errors import InvalidOptionError
from toolparse.grammars import get_grammar
from toolparse.grammars.reasoning import reasoning_for
from toolparse.openai.chunks import CompletionStream, check_options, complete
from toolparse.parser import StreamParser
from toolparse.request import DEFAULT_TEMPLATE, PreparedRequest, prepare_request, reasoning_state, with_state


def _omitted(value: Any) -> bool:
    """The SDK's markers of an argument not given (``NOT_GIVEN``, ``omit``)."""
    return type(value).__name__ in ("NotGiven", "Omit")


class ToolCalling:
    """Tool calling for a text-only endpoint, per request: the request shaped
    (:func:`~toolparse.prepare_request`), the answer parsed and converted
    (:mod:`toolparse.openai.chunks`). Options are checked once, here.

    Each request's reasoning is the configured (or detected) one as the
    request sets it (:func:`~toolparse.request.reasoning_state`): thinking
    switched off in ``chat_template_kwargs`` (``enable_thinking`` or
    ``thinking`` false) or by Ollama's ``think: false`` means an answer with
    no thought to close; switched on, a thought the prompt opened. Content
    the upstream already separated from its reasoning is all answer.
    ``reasoning_field`` (``"both"``, ``"reasoning_content"``,
    ``"reasoning"``) and ``extra_calls`` (``"drop"``, ``"content"``) are
    :class:`~toolparse.openai.chunks.ChoiceStream`'s."""

    __slots__ = (
        "extra_calls",
        "grammar",
        "mode",
        "on_error",
        "parser_options",
        "past_reasoning",
        "reasoning",
        "reasoning_field",
        "response_format",
        "system_template",
    )

    def __init__(
        self,
        *,
        grammar: str = "auto",
        reasoning: str | Reasoning | None = "auto",
        mode: str = "validated",
        on_error: str = "content",
        past_reasoning: str = "current",
        system_template: str | Callable[[str], str] = DEFAULT_TEMPLATE,
        response_format: bool = True,
        reasoning_field: str = "both",
        extra_calls: str = "drop",
        **parser_options: Any,
    ) -> None:
        check_options(mode, on_error, reasoning_field, extra_calls)
        given_twice = {"tools", "tool_choice"} & set(parser_options)
        if given_twice:
            raise InvalidOptionError(f"{', '.join(sorted(given_twice))}: they come with each request")
        StreamParser(grammar, reasoning=reasoning, **parser_options)  # (checked now, not per request)
        prepare_request([], grammar=grammar, reasoning=reasoning, past_reasoning=past_reasoning)
        self.grammar = grammar
        self.reasoning = reasoning
        self.mode = mode
        self.on_error = on_error
        self.past_reasoning = past_reasoning
        self.system_template = system_template
        self.response_format = response_format
        self.reasoning_field = reasoning_field
        self.extra_calls = extra_calls
        self.parser_options = parser_options

    def prepare(self, request: dict[str, Any]) -> tuple[PreparedRequest, dict[str, Any]]:
        """(the prepared request, the upstream body) for a request's fields."""
        request = {key: value for key, value in request.items() if not _omitted(value)}
        if "messages" not in request:
            raise InvalidOptionError("a chat completion request needs messages")
        grammar, reasoning = self.grammar, self.reasoning
        if grammar == "auto":  # (the request's model says its format, when it is a known family)
            found = grammar_for_model(request["model"]) if isinstance(request.get("model"), str) else None
            if found is not None:
                grammar = found.grammar
                reasoning = found.reasoning if reasoning == "auto" else reasoning
        state = reasoning_state(request, reasoning_for(get_grammar(grammar), reasoning))
        if state is not None:  # (this request's own: thinking switched on or off)
            reasoning = with_state(reasoning_for(get_grammar(grammar), reasoning), state)
        prepared = prepare_request(
            request.pop("messages"),
            request.get("tools"),
            request.get("tool_choice"),
            grammar=grammar,
            system_template=self.system_template,
            reasoning=reasoning,
            past_reasoning=self.past_reasoning,
            parallel_tool_calls=request.get("parallel_tool_calls"),
        )
        body = prepared.body(**request)
        if not self.response_format and "response_format" not in request:
            body.pop("response_format", None)
        return prepared, body

    def converter(self, prepared: PreparedRequest, model: Any = "") -> CompletionStream:
        """A sans-IO converter of the upstream's chunks for this request."""
        return CompletionStream(
            lambda: prepared.parser(**self.parser_options),
            mode=self.mode,
            on_error=self.on_error,
            reasoning_field=self.reasoning_field,
            model=model if isinstance(model, str) else "",
            parallel=prepared.parallel_tool_calls,
            extra_calls=self.extra_calls,
            answer_parser=lambda: prepared.answer_parser(**self.parser_options),
        )

    def complete(self, prepared: PreparedRequest, response: dict[str, Any]) -> dict[str, Any]:
        """The upstream's whole response (a dict), its choices parsed."""
        return complete(
            response,
            lambda: prepared.parser(**self.parser_options),
            mode=self.mode,
            on_error=self.on_error,
            reasoning_field=self.reasoning_field,
            parallel=prepared.parallel_tool_calls,
            extra_calls=self.extra_calls,
            answer_parser=lambda: prepared.answer_parser(**self.parser_options),
        )
