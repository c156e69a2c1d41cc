"""Shaping a chat request for a model without native tool calling.

``prepare_request`` takes an OpenAI-style message history (``system``,
``user``, ``assistant`` with ``tool_calls``, ``tool`` results) and returns the
messages such a model can read: the tools described in the system prompt in
the grammar's words, past calls written as the grammar's text, tool results
as user text in the same format, consecutive user texts merged, the
reasoning of past assistant turns dropped or kept as the model's templates do,
and, for a forced choice, the response-format schema that makes the answer
one call. A pure function: the caller's objects are not touched.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from toolparse.engine.declare import Reasoning
from toolparse.errors import InvalidOptionError
from toolparse.grammars import get_grammar
from toolparse.grammars.reasoning import reasoning_for
from toolparse.parser import StreamParser
from toolparse.toolchoice.choice import ForceTool, InvalidRequestError, ToolChoice, function_tools, validate
from toolparse.toolchoice.schema import response_schema
from toolparse.tools import Tool

DEFAULT_TEMPLATE = "{tools_prompt}"
"""How the tools prompt is placed in the system message; ``{tools_prompt}`` is replaced."""


TOOL_FIELDS = frozenset({"tools", "tool_choice", "parallel_tool_calls", "functions", "function_call"})
"""Request fields a text-only endpoint must not see (their meaning is in the prompt now)."""


@dataclass(frozen=True, slots=True)
class PreparedRequest:
    """The messages to send, what else the request needs, and the parser that
    reads the answer (same grammar, tools, tool choice and reasoning)."""

    messages: list[dict[str, Any]]
    response_format: dict[str, Any] | None = None
    """For a forced choice: an OpenAI-style ``json_schema`` response format."""
    tool_choice: ToolChoice | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    grammar: str = "hermes"
    tools: tuple[Any, ...] = ()
    """The request's tools, as validated (function tools and others)."""
    reasoning: str | Reasoning | None = "auto"
    parallel_tool_calls: bool = True
    """False where the request said ``parallel_tool_calls: false``: one call at most."""

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"messages": self.messages}
        if self.response_format is not None:
            body["response_format"] = self.response_format
        return body

    def body(self, **request: Any) -> dict[str, Any]:
        """The request body for the text-only endpoint: ``request``'s fields
        (``model``, ``temperature``, ``stream``...) without the tool fields,
        with the prepared messages (and a forced choice's response format,
        unless ``request`` sets its own)."""
        body = {key: value for key, value in request.items() if key not in TOOL_FIELDS}
        body["messages"] = self.messages
        if self.response_format is not None:
            body.setdefault("response_format", self.response_format)
        return body

    def parser(self, **options: Any) -> StreamParser:
        """A :class:`~toolparse.StreamParser` for the answer: this request's
        grammar, tools, tool choice and reasoning, and ``options``. A request
        that offers no function tools gets a parser that reads no calls."""
        functions = function_tools(self.tools) or None
        choice = self.tool_choice if functions is not None else "none"
        options.setdefault("reasoning", self.reasoning)
        return StreamParser(self.grammar, functions, tool_choice=choice, **options)

    def answer_parser(self, **options: Any) -> StreamParser | None:
        """A parser for content the upstream has already separated from its
        reasoning (its reasoning came in a field of its own): that content
        begins in the answer, whatever the prompt opened. None where the
        request's parser reads it so already (no reasoning that starts open)."""
        markers = reasoning_for(get_grammar(self.grammar), self.reasoning)
        if markers is None or not markers.starts_open:
            return None
        return self.parser(reasoning=with_state(markers, CLOSED), **options)


OPEN = "open"
"""The output begins inside reasoning: the prompt opened it."""
CLOSED = "closed"
"""The output is all answer: the prompt closed the thought (thinking off)."""


def prompt_state(prompt_tail: str, reasoning: Reasoning) -> str | None:
    """What the end of a rendered prompt says about the output's reasoning:
    :data:`OPEN` (the template opened it: the output begins inside it),
    :data:`CLOSED` (the template wrote an empty block, thinking off: the
    output is all answer), or None (the declaration decides).

    ``prompt_tail`` is the prompt's last few dozen characters (a server
    decodes only its last tokens: constant work per request).
    """
    tail = prompt_tail.rstrip()
    if tail.endswith(reasoning.close):
        return CLOSED
    if reasoning.open is not None and tail.endswith(reasoning.open):
        return OPEN
    return None


def thinking_switch(request: Mapping[str, Any]) -> bool | None:
    """What a chat completion request's fields say of thinking: False where they
    switch it off (``chat_template_kwargs`` ``enable_thinking`` or ``thinking``
    false, as the Qwen3, Qwen3.5, GLM, DeepSeek V3.1 and MiniMax templates
    read them; Ollama's ``think: false``), True where ``chat_template_kwargs``
    switch it on, None where they say nothing."""
    kwargs = request.get("chat_template_kwargs")
    values = (
        [kwargs.get(key) for key in ("enable_thinking", "thinking")] if isinstance(kwargs, Mapping) else []
    )
    if any(value is False for value in values) or request.get("think") is False:
        return False
    if any(value is True for value in values):
        return True
    return None  # (Ollama's think: true: Ollama separates the thought itself, in a field of its own)


def reasoning_state(
    request: Mapping[str, Any], reasoning: Reasoning | None, prompt_tail: str | None = None
) -> str | None:
    """Where one request's output begins, for ``reasoning`` (the configured or
    detected declaration): :data:`OPEN`, :data:`CLOSED`, or None (as the
    declaration says). What ``toolparse serve``, a wrapped client and the
    vLLM plugin all decide by.

    The prompt's end decides where it is known (``prompt_tail``: a server
    that renders the template) and shows an opener or a closer. Otherwise
    the request: thinking switched off (:func:`thinking_switch`) means the
    template closed the thought in the prompt, so the output is all answer;
    switched on, with no prompt to look at, means the template opened it
    (the templates that take the switch open ``<think>``; a model that
    writes the opener anyway has it read as markup). A prompt that was seen
    and shows neither leaves the opening to the model."""
    if reasoning is None:
        return None
    if prompt_tail is not None:
        shown = prompt_state(prompt_tail, reasoning)
        if shown is not None:
            return shown
    switch = thinking_switch(request)
    if switch is False:
        return CLOSED
    if switch is True and prompt_tail is None and reasoning.open is not None and not reasoning.markup:
        return OPEN
    return None


def with_state(reasoning: Reasoning | None, state: str | None) -> Reasoning | None:
    """``reasoning`` as it reads an output that begins as ``state`` says
    (:func:`reasoning_state`): :data:`OPEN` starts inside reasoning;
    :data:`CLOSED` starts in the answer, where an opener still opens
    reasoning only at the answer's start (as ``"auto"`` reads it)."""
    if reasoning is None or state is None:
        return reasoning
    if state == OPEN:
        return reasoning if reasoning.starts_open else replace(reasoning, starts_open=True)
    if not reasoning.starts_open:
        return reasoning
    if reasoning.open is None:
        return None  # (only the prompt could open it, and it did not)
    return replace(reasoning, starts_open=False, anywhere=False)


def _forced_prompt(tools: Sequence[Tool], choice: ToolChoice) -> str:
    listed = "\n".join(json.dumps(t.to_openai()["function"], ensure_ascii=False) for t in tools)
    which = f"the tool {choice.name!r}" if isinstance(choice, ForceTool) else "exactly one of the tools"
    return (
        f"You must call {which}. Answer with only a JSON object, and nothing else:\n"
        '{"name": "<tool name>", "arguments": {<the arguments>}}\n'
        f"Available tools (JSON Schema):\n{listed}"
    )


def _text(content: Any) -> str:
    """Message content as text (OpenAI content parts joined)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") if isinstance(part, Mapping) else str(part) for part in content)
    return str(content)


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, Mapping):
        return dict(raw)
    if isinstance(raw, str) and raw.strip():
        value = json.loads(raw)
        if isinstance(value, dict):
            return value
    return {}


_REASONING_FIELDS = ("reasoning_content", "reasoning", "thinking")
"""Where an assistant message may hold its reasoning: vLLM, SGLang and DeepSeek
write ``reasoning_content``, OpenRouter ``reasoning``, Ollama ``thinking``."""
PAST_REASONING = ("current", "drop", "keep")


def _split_reasoning(message: dict[str, Any], markers: Reasoning | None) -> str:
    """Take an assistant message's reasoning out of it (its reasoning field, or a
    leading reasoning block in its content); return it."""
    found = [message.pop(key) for key in _REASONING_FIELDS if isinstance(message.get(key), str)]
    reasoning = found[0] if found else ""
    content = message.get("content")
    if markers is not None and isinstance(content, str):
        opened = content.lstrip()
        if markers.open is not None and opened.startswith(markers.open):
            opened = opened[len(markers.open) :]
        elif not markers.starts_open:
            return reasoning
        inside, closer, after = opened.partition(markers.close)
        if closer:
            reasoning = reasoning or inside.strip()
            message["content"] = after.lstrip()
    return reasoning


MAX_MESSAGE_DEPTH = 64
"""The deepest nesting of a message's values (content parts, a tool result's JSON)."""


def _as_dict(message: Any, position: int) -> dict[str, Any]:
    """A message as a dict (a mapping, or an SDK object: ``response.choices[0].message``),
    checked for the shape the rest relies on."""
    if isinstance(message, Mapping):
        _check_depth(message, position)
        data: Any = copy.deepcopy(dict(message))
    else:
        dump = getattr(message, "model_dump", None)
        data = dump(exclude_none=True) if callable(dump) else None
        if not isinstance(data, dict):
            raise InvalidRequestError(
                "invalid_messages",
                f"messages[{position}] must be an object (a dict or an SDK message), "
                f"not {type(message).__name__}",
            )
        _check_depth(data, position)
    role = data.get("role")
    if role is not None and not isinstance(role, str):
        raise InvalidRequestError(
            "invalid_messages", f"messages[{position}].role must be a string, not {role!r}"
        )
    calls = data.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list):
            raise InvalidRequestError(
                "invalid_messages", f"messages[{position}].tool_calls must be a list of calls"
            )
        for k, call in enumerate(calls):
            function = call.get("function", call) if isinstance(call, Mapping) else None
            if not isinstance(function, Mapping) or not isinstance(function.get("name", ""), str):
                raise InvalidRequestError(
                    "invalid_messages",
                    f"messages[{position}].tool_calls[{k}] must be a call: "
                    '{"id": ..., "type": "function", "function": {"name": ..., "arguments": ...}}',
                )
    return data  # type: ignore[no-any-return]


def _check_depth(value: Any, position: int) -> None:
    """Refuse a message nested past MAX_MESSAGE_DEPTH (walked without recursion:
    copying or writing it out would overflow Python's stack)."""
    level: list[Any] = [value]
    for _ in range(MAX_MESSAGE_DEPTH + 1):
        level = [
            child
            for item in level
            if isinstance(item, (Mapping, list, tuple))
            for child in (item.values() if isinstance(item, Mapping) else item)
            if isinstance(child, (Mapping, list, tuple))
        ]
        if not level:
            return
    raise InvalidRequestError(
        "invalid_messages", f"messages[{position}] is nested deeper than {MAX_MESSAGE_DEPTH} levels"
    )


def prepare_request(
    messages: Iterable[Mapping[str, Any] | Any],
    tools: Iterable[Any] | None = None,
    tool_choice: Any = None,
    *,
    grammar: str = "hermes",
    system_template: str | Callable[[str], str] = DEFAULT_TEMPLATE,
    reasoning: str | Reasoning | None = "auto",
    past_reasoning: str = "current",
    parallel_tool_calls: bool | None = None,
) -> PreparedRequest:
    """The request for a model without native tool calling (see the module docstring).

    ``parallel_tool_calls=False`` (the request's field) lets one call at most
    reach the client (see :class:`~toolparse.openai.chunks.ChoiceStream`).

    ``system_template`` places the tools prompt: a string in which
    ``{tools_prompt}`` is replaced, or a function of the tools prompt. With
    ``tool_choice="none"`` the tools are not offered (no tools prompt), but
    past calls and results are still written as text.

    Messages may be dicts or the ``openai`` SDK's message objects (as in
    ``messages.append(response.choices[0].message)``).

    The reasoning of an assistant turn (its ``reasoning_content``,
    ``reasoning`` or ``thinking`` field, or a leading ``<think>...</think>`` in
    its content, in the markers ``reasoning`` names, as for the parser) is, by
    ``past_reasoning``:

    ``"current"`` (default)
        kept, as ``<think>\n...\n</think>\n\n`` before the content (the
        reasoning's and the content's edge newlines stripped, as the templates
        do; a call follows the block directly, as in Qwen3's; gpt-oss's in its
        analysis channel: the grammar's ``PromptFormat.render_turn``), only in
        the turns after the last user message (the tool loop under way) and
        dropped from earlier ones: what the templates of Qwen3, GLM-4.5 and
        later, DeepSeek V3.2, Kimi K2 Thinking and MiniMax M2 do;
    ``"drop"``
        dropped everywhere (QwQ, DeepSeek-R1 and V3.1 templates);
    ``"keep"``
        kept everywhere (Seed-OSS).
    """
    read, choice = validate(tools, tool_choice)
    if past_reasoning not in PAST_REASONING:
        raise InvalidOptionError(
            f"past_reasoning must be one of {', '.join(map(repr, PAST_REASONING))}, not {past_reasoning!r}"
        )
    declared = get_grammar(grammar)
    markers = reasoning_for(declared, reasoning)
    functions = function_tools(read)
    prompt_format = declared.prompt
    forced = choice == "required" or isinstance(choice, ForceTool)
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Iterable):
        raise InvalidRequestError(
            "invalid_messages", f"messages must be a list of messages, not {type(messages).__name__}"
        )
    history = [_as_dict(m, position) for position, m in enumerate(messages)]
    last_user = max((i for i, m in enumerate(history) if m.get("role") == "user"), default=-1)

    names_by_id: dict[str, str] = {}
    shaped: list[dict[str, Any]] = []
    for position, message in enumerate(history):
        role = message.get("role")
        if role == "assistant":
            thought = _split_reasoning(message, markers)
            keep = past_reasoning == "keep" or (past_reasoning == "current" and position > last_user)
            thought = thought if keep and markers is not None else ""
            calls = []
            for call in message.get("tool_calls") or ():
                function = call.get("function", call)
                name = function.get("name", "")
                if call.get("id"):
                    names_by_id[call["id"]] = name
                calls.append((name, _arguments(function.get("arguments"))))
            if calls or thought:
                content = prompt_format.render_turn(thought, markers, _text(message.get("content")), calls)
                # (a turn with calls is rewritten whole; one without keeps its other fields)
                kept = {} if calls else message
                message = {**kept, "role": "assistant", "content": content}
            shaped.append(message)
        elif role == "tool":
            name = names_by_id.get(message.get("tool_call_id", ""), message.get("name") or "tool")
            shaped.append(
                {"role": "user", "content": prompt_format.render_result(name, message.get("content"))}
            )
        else:
            shaped.append(message)

    merged: list[dict[str, Any]] = []
    for message in shaped:
        last = merged[-1] if merged else None
        if (
            last is not None
            and message.get("role") == "user"
            and last.get("role") == "user"
            and set(last) <= {"role", "content"}
            and set(message) <= {"role", "content"}
        ):
            last["content"] = _text(last["content"]) + "\n\n" + _text(message["content"])
        else:
            merged.append(dict(message))

    if functions and choice != "none":
        tools_prompt = (
            _forced_prompt(functions, choice)  # type: ignore[arg-type]
            if forced
            else prompt_format.system_prompt(functions)
        )
        placed = (
            system_template(tools_prompt)
            if callable(system_template)
            else system_template.replace("{tools_prompt}", tools_prompt)
        )
        if merged and merged[0].get("role") == "system":
            merged[0]["content"] = _text(merged[0].get("content")) + "\n\n" + placed
        else:
            merged.insert(0, {"role": "system", "content": placed})

    response_format = None
    if forced:
        response_format = {
            "type": "json_schema",
            "json_schema": {"name": "tool_call", "schema": response_schema(read, choice)},
        }
    if parallel_tool_calls is not None and type(parallel_tool_calls) is not bool:
        raise InvalidRequestError(
            "invalid_parallel_tool_calls",
            f"parallel_tool_calls must be true or false, not {parallel_tool_calls!r}",
        )
    return PreparedRequest(
        merged,
        response_format,
        choice,
        grammar=grammar,
        tools=tuple(read),
        reasoning=reasoning,
        parallel_tool_calls=parallel_tool_calls is not False,
    )
