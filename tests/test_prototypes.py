"""Parsers made like a prototype (toolparse.parser): where the native core runs,
a parser built with a grammar by name, kept tools and plain options is a copy
of a prototype built once for them. It gives the events a parser built in
full gives (``PROTOTYPES = False`` builds every one in full), shares nothing
that changes, and everything else is built in full."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from support import armed, normalize, run
from toolparse import (
    InvalidOptionError,
    InvalidToolError,
    StreamParser,
    TextDelta,
    Tool,
    ToolCall,
    ToolCallStart,
    UnknownGrammarError,
)
from toolparse import parser as parser_module
from toolparse.engine.native import default_engine
from toolparse.fuzz import FUZZ_TOOLS
from toolparse.grammars import ENTRIES, GRAMMARS

pytestmark = pytest.mark.skipif(default_engine() != "native", reason="prototypes are the native core's")

WEATHER = [
    {"name": "get_weather", "parameters": {"type": "object", "properties": {"days": {"type": "integer"}}}}
]
QWEN_CALL = (
    "Hi <tool_call>\n<function=get_weather>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call> bye"
)
# (options a prototype's key holds, each with plain values)
OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"errors_as_text": True},
    {"reasoning": "think", "lanes": False},
    {"coerce": False, "max_depth": 3, "max_call_chars": 40},
    {"reasoning": "think-open", "reasoning_calls": "salvage"},
]


LOOSE: Any = StreamParser  # (called with the mistakes a caller makes)


def _tool_names(parser: StreamParser) -> set[str]:
    assert parser.tools is not None
    return set(parser.tools)


@pytest.fixture(autouse=True)
def _fresh_prototypes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parser_module, "_PROTOTYPES", {})
    monkeypatch.setattr(parser_module, "PROTOTYPES", True)


def _built_in_full(
    monkeypatch: pytest.MonkeyPatch, grammar: str, deltas: list[str], **options: Any
) -> list[Any]:
    with monkeypatch.context() as patch:
        patch.setattr(parser_module, "PROTOTYPES", False)
        return run(grammar, deltas, **options)


def test_every_grammar_gives_the_events_of_a_parser_built_in_full(monkeypatch: pytest.MonkeyPatch) -> None:
    for grammar in sorted(GRAMMARS):
        entry = ENTRIES[grammar]
        # (each example, and cut short: an unfinished call is an error)
        texts = [cut for text, _ in entry.examples for cut in (text, text[: len(text) * 2 // 3])]
        for text, options in itertools.product(texts, OPTION_SETS):
            deltas = [text[i : i + 3] for i in range(0, len(text), 3)]
            full = _built_in_full(monkeypatch, grammar, deltas, tools=entry.fuzz_tools, **options)
            for _ in range(2):  # (the prototype's first parser, then a later one)
                made = run(grammar, deltas, tools=entry.fuzz_tools, **options)
                assert made == full, (grammar, options)
    assert parser_module._PROTOTYPES  # (they were made like prototypes)


def test_a_parser_is_made_like_the_prototype_not_the_prototype_itself() -> None:
    first = StreamParser("qwen3-coder", WEATHER)
    second = StreamParser("qwen3-coder", WEATHER)
    ((prototype, _),) = parser_module._PROTOTYPES.values()
    assert len({id(first), id(second), id(prototype)}) == 3
    assert type(first) is type(prototype) and first.engine == "native"


def test_parsers_of_one_prototype_are_apart() -> None:
    first = StreamParser("qwen3-coder", WEATHER)
    second = StreamParser("qwen3-coder", WEATHER)
    half = len(QWEN_CALL) // 2
    first.feed(QWEN_CALL[:half])
    events = second.feed(QWEN_CALL) + second.close()
    events_first = first.feed(QWEN_CALL[half:]) + first.close()
    (call,) = [e for e in events if isinstance(e, ToolCall)]
    (call_first,) = [e for e in events_first if isinstance(e, ToolCall)]
    assert call.arguments == call_first.arguments == {"days": 3}
    assert call.index == call_first.index == 0
    assert call.id != call_first.id  # (random ids of their own)
    fresh = StreamParser("qwen3-coder", WEATHER)
    assert fresh.feed("Hi") == [TextDelta("Hi")] and fresh.lane == armed(fresh, "text")


def test_seeded_parsers_draw_the_ids_of_a_parser_built_in_full(monkeypatch: pytest.MonkeyPatch) -> None:
    def ids() -> list[str]:
        parser = StreamParser("qwen3-coder", WEATHER, seed=5)
        events = parser.feed(QWEN_CALL * 2) + parser.close()
        return [e.id for e in events if isinstance(e, ToolCallStart)]

    made = [ids(), ids()]
    monkeypatch.setattr(parser_module, "PROTOTYPES", False)
    assert made == [ids(), ids()]
    assert len(set(made[0])) == 2


def test_a_made_parser_holds_what_a_parser_built_in_full_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    made = StreamParser("hermes", FUZZ_TOOLS, reasoning="think")
    monkeypatch.setattr(parser_module, "PROTOTYPES", False)
    full = StreamParser("hermes", FUZZ_TOOLS, reasoning="think")
    assert type(made) is type(full)
    slots = [name for klass in type(full).__mro__ for name in getattr(klass, "__slots__", ())]
    for name in slots:
        assert hasattr(made, name) == hasattr(full, name), name
        if name == "_reasoning_for":  # (a function of the grammar decided)
            assert made._reasoning_for(full.grammar) == full._reasoning_for(full.grammar)
        elif name != "_ctx" and hasattr(full, name):
            assert getattr(made, name) == getattr(full, name), name
    for name in type(full._ctx).__slots__:
        if name not in ("_id_factory", "out"):
            assert getattr(made._ctx, name) == getattr(full._ctx, name), name
    assert made._ctx is not full._ctx and made._ctx.out == [] and made._ctx.next_index == 0
    assert made.tools == full.tools and made.grammar is full.grammar


@pytest.mark.parametrize(
    "build",
    [
        lambda: StreamParser(ENTRIES["hermes"].grammar),  # a declaration, not a name
        lambda: StreamParser("hermes", iter(WEATHER)),  # an iterator (read once)
        lambda: StreamParser("hermes", WEATHER, id_factory=lambda i: f"c{i}"),
        lambda: StreamParser("hermes", WEATHER, tool_choice="required"),
        lambda: StreamParser("hermes", engine="python"),
        lambda: StreamParser("hermes", [{"name": f"t{i}"} for i in range(9)]),  # too many to key by content
    ],
)
def test_what_is_built_in_full(build: Any) -> None:
    parser = build()
    assert not parser_module._PROTOTYPES
    assert isinstance(parser, StreamParser)


def test_a_subclass_is_built_in_full() -> None:
    class Loud(StreamParser):
        pass

    assert isinstance(Loud("hermes"), Loud)
    assert not parser_module._PROTOTYPES


@pytest.mark.parametrize(
    ("build", "error"),
    [
        (lambda: LOOSE("no-such-grammar"), UnknownGrammarError),
        (lambda: LOOSE("hermes", max_call_chars=True), InvalidOptionError),
        (lambda: LOOSE("hermes", seed=True), InvalidOptionError),
        (lambda: LOOSE("hermes", lanes=1), InvalidOptionError),
        (lambda: LOOSE("hermes", reasoning_calls="maybe"), InvalidOptionError),
        (lambda: LOOSE("hermes", [{"nameless": 1}]), InvalidToolError),
        (lambda: LOOSE("hermes", [Tool(name="f"), Tool(name="f")]), InvalidToolError),
        (lambda: LOOSE("hermes", None, None), TypeError),
        (lambda: LOOSE("hermes", grammar="xml"), TypeError),
        (lambda: LOOSE("hermes", no_such_option=1), TypeError),
        (lambda: LOOSE("hermes", engine="rust"), InvalidOptionError),
    ],
)
def test_a_mistake_raises_what_it_raises_in_full(build: Any, error: type[Exception]) -> None:
    for _ in range(2):  # (a valid parser of the same grammar has made a prototype in between)
        with pytest.raises(error):
            build()
        StreamParser("hermes")


def test_changed_tools_make_another_prototype() -> None:
    tools = [Tool(name="get_weather", parameters=WEATHER[0]["parameters"])]
    assert _tool_names(StreamParser("qwen3-coder", tools)) == {"get_weather"}
    tools.append(Tool(name="search"))
    assert _tool_names(StreamParser("qwen3-coder", tools)) == {"get_weather", "search"}
    listed = [dict(WEATHER[0])]
    StreamParser("qwen3-coder", listed)
    listed[0]["name"] = "get_time"  # (dicts are kept by their content)
    assert _tool_names(StreamParser("qwen3-coder", listed)) == {"get_time"}


def test_the_prototypes_are_bounded() -> None:
    for seed in range(parser_module._MAX_PROTOTYPES + 5):
        StreamParser("hermes", seed=seed)
    assert len(parser_module._PROTOTYPES) <= parser_module._MAX_PROTOTYPES


def test_the_events_of_the_matrix_modes_do_not_change(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Sure. " + QWEN_CALL + " <think>hm</think> <tool_call>{bad</tool_call>"
    deltas = [text[i : i + 4] for i in range(0, len(text), 4)]
    for grammar in ("qwen3-coder", "hermes", "auto", "xml"):
        full = _built_in_full(monkeypatch, grammar, deltas, tools=WEATHER)
        assert normalize(run(grammar, deltas, tools=WEATHER)) == normalize(full)
