"""The parser users build: a grammar by name, their tools and options, and the engine."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from toolparse.engine.calls import CallContext, IdFactory
from toolparse.engine.compile import compile_grammar
from toolparse.engine.core import Engine
from toolparse.engine.declare import Grammar, Reasoning
from toolparse.engine.native import use_native
from toolparse.engine.thought import check_reasoning_calls
from toolparse.errors import InvalidOptionError
from toolparse.grammars import AUTO, auto_tables, get_grammar
from toolparse.grammars.forced import TEXT_ONLY, forced_json
from toolparse.grammars.hermes import HERMES
from toolparse.grammars.reasoning import reasoning_for
from toolparse.limits import DEFAULT_MAX_CALL_CHARS, DEFAULT_MAX_DEPTH, MAX_DEPTH_LIMIT, check_count
from toolparse.tools import Tool, ToolLike, kept_tools, normalize_tools

PROTOTYPES = True
"""Build a parser of the native core as a copy of a prototype where one was
built before with the same grammar, tools and options (see
:class:`_Prototyped`). A switch for tests: False builds every parser in full.
The events are the same."""

_MAX_PROTOTYPES = 64
# (the options a prototype's key holds, with plain values: an id factory or a tool
# choice makes a parser of its own)
_KEYED_OPTIONS: frozenset[str] = frozenset(
    {
        "errors_as_text",
        "max_call_chars",
        "max_depth",
        "coerce",
        "collapse",
        "unknown_on_error",
        "reasoning",
        "reasoning_calls",
        "lanes",
        "engine",
        "seed",
    }
)
_PLAIN_VALUES: frozenset[type] = frozenset({str, int, bool, type(None)})
_Key = tuple[str, int, tuple[tuple[str, type, object], ...]]
# prototypes by key, with the tools whose identity the key holds (kept alive with it)
_PROTOTYPES: dict[_Key, tuple[StreamParser, tuple[Tool, ...] | None]] = {}


class _Prototyped(type):
    """StreamParser's metaclass: a parser is built per request, most often with
    the same grammar, tools and options, and building one in full runs some
    twenty Python functions and reads the tools into the native core, each
    time. Where the native core runs, with a grammar named and tools that are
    kept (:func:`~toolparse.tools.kept_tools`), the first parser built for
    them becomes a prototype (never fed), and every parser, that first one's
    twin included, is made like it (:meth:`Engine._made_like`): its
    attributes shared, its call context copied, its native engine made from
    the same parts. Anything else (other options, a grammar declaration, a
    tools iterator, the Python engine, an argument in error) is built in full,
    as is a subclass."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is StreamParser and PROTOTYPES:
            made = _from_prototype(args, kwargs)
            if made is not None:
                return made
        return super().__call__(*args, **kwargs)


def _from_prototype(args: tuple[Any, ...], kwargs: dict[str, Any]) -> StreamParser | None:
    """A parser made like the prototype of these arguments (built first if
    none is), or None where they have none (see :class:`_Prototyped`)."""
    if len(args) > 2:
        return None
    grammar = args[0] if args else kwargs.get("grammar", "hermes")
    tools = args[1] if len(args) == 2 else kwargs.get("tools")
    options: list[tuple[str, type, object]] = []
    for name, value in kwargs.items():
        if name == "grammar" or name == "tools":
            if (name == "grammar" and args) or len(args) == 2:
                return None  # (given twice: the full path says so)
        elif name in _KEYED_OPTIONS and type(value) in _PLAIN_VALUES:
            options.append((name, type(value), value))  # (True and 1 apart)
        else:
            return None
    engine = kwargs.get("engine")
    if type(grammar) is not str or (engine is not None and engine != "native") or not use_native(engine):
        return None
    declared: tuple[Tool, ...] | None = None
    if tools is not None:
        try:
            declared = kept_tools(tools)
        except Exception:  # (the full path raises it, in its turn)
            return None
        if declared is None:
            return None
    key = (grammar, id(declared), tuple(options))
    kept = _PROTOTYPES.get(key)
    if kept is None:
        prototype = type.__call__(StreamParser, *args, **kwargs)
        if len(_PROTOTYPES) >= _MAX_PROTOTYPES:
            _PROTOTYPES.clear()
        _PROTOTYPES[key] = kept = (prototype, declared)
    return kept[0]._made_like()  # type: ignore[return-value]


class StreamParser(Engine, metaclass=_Prototyped):
    """Turns a model's output, delta by delta, into text and tool-call events.

    >>> parser = StreamParser("hermes")
    >>> events = parser.feed('Hi <tool_call>{"name": "f", "arguments": {}}</tool_call>')
    >>> events += parser.close()
    >>> [type(e).__name__ for e in events]
    ['TextDelta', 'ToolCallStart', 'ToolCallDelta', 'ToolCall']

    ``grammar`` is a grammar's name (:func:`toolparse.grammar_names`) or a
    :class:`~toolparse.engine.declare.Grammar` declaration. Options
    (keyword-only):

    ``tools``
        Declared tools (:class:`~toolparse.Tool` or OpenAI-style dicts). When
        given, a call to any other name is an ``unknown_tool`` error.
    ``errors_as_text``
        Also emit the raw markup of every :class:`ToolCallError` as text,
        right after the error. Off by default: broken markup stays out of the
        visible text.
    ``max_call_chars``
        Largest block of call markup kept in memory (default 4 MiB of
        characters). Past it the call becomes an error and the rest of its
        block is passed over in bounded memory.
    ``max_depth``
        Deepest nesting of a call's arguments (default 64, at most 100): past
        it, ``too_deep``.
    ``coerce``
        Coerce argument values to the declared tool's parameter schema, inline
        (default True; see :mod:`toolparse.coercion`). False passes values
        through untouched.
    ``tool_choice``
        ``"auto"`` (default behaviour), ``"none"`` (no calls are read: all text),
        ``"required"`` or :class:`~toolparse.toolchoice.ForceTool` (the forced fast
        path: the whole output is one bare JSON ``{"name", "arguments"}``; it
        streams as a call, and anything else is a ``ToolCallError``; an answer
        the model wraps in the grammar's markup anyway is read by the
        grammar). Validated against ``tools`` first
        (:class:`~toolparse.toolchoice.InvalidRequestError`).
    ``collapse``
        With a forced choice: emit only the final ``ToolCall``, no start or deltas.
    ``unknown_on_error``
        With a forced choice: output that is not a call becomes a call named
        ``unknown`` with ``{}`` arguments, as the AI SDK middleware does.
    ``reasoning``
        How the model marks its reasoning (:mod:`toolparse.grammars.reasoning`):
        ``"auto"`` (default: ``<think>...</think>`` where the answer begins),
        ``"think"`` (anywhere), ``"think-open"`` (the prompt opened it: the
        output begins inside reasoning), ``"seed"``, ``"kimi-vl"``,
        ``"magistral"``, ``"none"``, or a
        :class:`~toolparse.engine.declare.Reasoning` declaration. Reasoning
        comes out as :class:`~toolparse.ReasoningDelta` events, and no call is
        read inside it.
    ``reasoning_calls``
        A stream that ends inside reasoning holding a complete call (a model
        that never closed its thought, then called): ``"report"`` (default)
        a ``ToolCallError`` with reason ``call_in_unclosed_reasoning``, the
        call's name and arguments, nothing run; ``"salvage"``: a real call at
        ``close()``; ``"ignore"``: nothing (see :mod:`toolparse.engine.thought`).
        The markup stays in the reasoning events either way.
    ``seed`` / ``id_factory``
        Make call ids deterministic: ids drawn from a seeded generator, or
        ``id_factory(index)`` for each call.
    ``lanes``
        A testing switch (default True) of the native core. False arms none of
        its short paths (``native/core/src/engine/lanes.rs``): every delta is read through
        the full path. The events are the same, only slower. The Python
        reference has no lanes and ignores it.
    """

    if not TYPE_CHECKING:
        __slots__ = ()  # (see toolparse.engine.native.concrete)
    _state = ("_declaration",)
    _native_state = (*Engine._native_state, "_declaration")

    def __init__(
        self,
        grammar: str | Grammar = "hermes",
        tools: Iterable[ToolLike] | None = None,
        *,
        errors_as_text: bool = False,
        max_call_chars: int = DEFAULT_MAX_CALL_CHARS,
        max_depth: int = DEFAULT_MAX_DEPTH,
        coerce: bool = True,
        tool_choice: Any = None,
        collapse: bool = False,
        unknown_on_error: bool = False,
        reasoning: str | Reasoning | None = "auto",
        reasoning_calls: str = "report",
        seed: int | None = None,
        id_factory: IdFactory | None = None,
        lanes: bool = True,
        engine: str | None = None,
    ) -> None:
        declaration = grammar if isinstance(grammar, Grammar) else get_grammar(grammar)
        native = declaration  # (its own reasoning markers are what "auto" means, whatever the choice)
        choice = None
        if tool_choice is not None:
            from toolparse.toolchoice.choice import function_tools, validate  # (lazily: it brings pydantic)

            read, choice = validate(tools, tool_choice)
            declared = tuple(function_tools(read)) or None
        else:
            declared = normalize_tools(tools)
        forced = choice == "required" or (choice is not None and choice not in ("auto", "none"))
        if forced:  # (under "auto", a forced answer is bare JSON or Hermes markup)
            declaration = forced_json(HERMES if declaration is AUTO else declaration)
        elif choice == "none":
            declaration = TEXT_ONLY
        if not (
            type(errors_as_text) is bool
            and type(coerce) is bool
            and type(collapse) is bool
            and type(unknown_on_error) is bool
            and type(lanes) is bool
        ):
            for option, value in (
                ("errors_as_text", errors_as_text),
                ("coerce", coerce),
                ("collapse", collapse),
                ("unknown_on_error", unknown_on_error),
                ("lanes", lanes),
            ):
                if type(value) is not bool:
                    raise InvalidOptionError(f"{option} must be True or False, not {value!r}")
        check_count("max_call_chars", max_call_chars)
        check_count("max_depth", max_depth, MAX_DEPTH_LIMIT)
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise InvalidOptionError(f"seed must be an integer, not {seed!r}")
        if id_factory is not None and not callable(id_factory):
            raise InvalidOptionError("id_factory must be callable: index -> id string")
        self._declaration = declaration
        context = CallContext(declared, max_depth=max_depth, coerce=coerce, id_factory=id_factory, seed=seed)
        super().__init__(
            auto_tables() if declaration is AUTO else compile_grammar(declaration),
            context,
            errors_as_text=errors_as_text,
            max_call_chars=max_call_chars,
            collapse=collapse and forced,
            unknown_on_error=unknown_on_error and forced,
            reasoning=reasoning_for(native, reasoning),
            lanes=lanes,
            reasoning_calls=check_reasoning_calls(reasoning_calls),
            reasoning_for=functools.partial(reasoning_for, option=reasoning) if declaration is AUTO else None,
            reasoning_option=reasoning,
            engine=engine,
        )

    @property
    def tools(self) -> Mapping[str, Tool] | None:
        """The declared tools by name (None: none declared, any name is accepted)."""
        tools = self._ctx.tools
        return None if tools is None else MappingProxyType(tools)

    @property
    def grammar(self) -> Grammar:
        """The grammar this parser reads (the forced or text-only one under a tool choice)."""
        return self._declaration
