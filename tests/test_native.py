"""The native core (``toolparse._native``) against the Python reference.

Both engines must give the same events for the same input and chunking,
feed by feed, and raise the same errors (invariant 5 of
:mod:`toolparse.invariants`). The differential tests draw from the fuzzer's
own strategies (:mod:`toolparse.fuzz`); ``toolparse fuzz --compare`` runs the
same comparison for longer. Where the native core is not built, only the
tests of the engine's selection that make sense without it run.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolparse import StreamParser, TextDelta, ToolCallDelta, grammar_names
from toolparse.engine import native
from toolparse.engine.core import Engine
from toolparse.engine.text import TextScanner
from toolparse.engine.thought import WINDOW as THOUGHT_WINDOW
from toolparse.errors import InternalParserError, InvalidOptionError, StreamClosedError
from toolparse.fuzz import outputs, parser_options, splits
from toolparse.invariants import check_engines, engine_steps

needs_native = pytest.mark.skipif(
    not native.AVAILABLE, reason="the native core (toolparse._native) is not built in this installation"
)
BUILT = ["python", "native"] if native.AVAILABLE else ["python"]
"""The engines this installation runs."""
GRAMMARS = sorted({*grammar_names(), "auto"})
"""Every grammar name (aliases too: an alias may bring its own options), and auto."""
TOOLS = [
    {"name": "f", "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}},
    {"name": "write", "parameters": {"type": "object", "properties": {"content": {"type": "string"}}}},
]
CALL = '<tool_call>{"name": "f", "arguments": {"text": "once upon a time"}}</tool_call>'
QWEN_VALUE = "<tool_call>\n<function=write>\n<parameter=content>\nline one"


# -- (a) the same events, feed by feed ------------------------------------------------------------


@needs_native
@pytest.mark.parametrize("grammar", GRAMMARS)
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_the_engines_give_the_same_events_feed_by_feed(grammar: str, data: st.DataObject) -> None:
    text = data.draw(outputs(grammar), label="text")
    deltas = data.draw(splits(text), label="deltas")
    # (the fuzzer's options: tools declared or not, limits, reasoning, tool choice;
    # check_engines compares the native core's full path feed by feed, and its
    # lanes after merging adjacent deltas)
    options = data.draw(parser_options(grammar), label="options")
    check_engines(grammar, deltas, **options)


@needs_native
@pytest.mark.parametrize(
    ("grammar", "options", "text"),
    [
        ("hermes", {"tools": TOOLS}, f"Sure.\n{CALL}\nDone."),
        ("hermes", {"tools": TOOLS, "reasoning": "think"}, f"<think>why {CALL}</think>Ok {CALL}"),
        (
            "qwen3-coder",
            {"tools": TOOLS},
            QWEN_VALUE + " and <b>more</b>\n</parameter>\n</function>\n</tool_call>",
        ),
        ("auto", {}, f"text first, then {CALL} and ```\n{CALL}\n```"),
        ("hermes", {"tools": TOOLS, "tool_choice": "required"}, '{"name": "f", "arguments": {"text": "x"}}'),
    ],
)
def test_the_engines_agree_in_one_character_deltas(grammar: str, options: dict[str, Any], text: str) -> None:
    # (one character a delta: the native core's lanes take the most)
    check_engines(grammar, list(text), **options)
    check_engines(grammar, [text], **options)


# (pieces of prose that cut and complete the openers of grammars whose openers
# begin with letters or "<": the text and prefix lanes hold and let go of them;
# the native text lane holds a last `t` itself, and lets it go with a delta of
# text a byte a code point, ASCII or not, or hands it to the prefix lane)
_CUT_PIECES = [
    *("t", "to", "to=", "he ", "tt", "t<", "tü", "ÿ"),
    *("function", " call", "func", "tools", "functools"),
    *("<", "<tool", "3 ", "\n", "é", "\u2013", "x", "`", "```\n"),
    *("to=self<|message|>", "<|message|>", "<|eom|>", "<|start|>assistant"),
]


@needs_native
@pytest.mark.parametrize("grammar", ["muse", "gpt-oss", "gigachat3", "phi4-mini", "hermes"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_engines_agree_on_prose_that_cuts_openers(grammar: str, data: st.DataObject) -> None:
    text = "".join(data.draw(st.lists(st.sampled_from(_CUT_PIECES), max_size=40), label="pieces"))
    deltas = data.draw(splits(text), label="deltas")
    check_engines(grammar, deltas)


# (pieces of a value read as XML text: entities whole, cut and invalid, markup)
_XML_PIECES = [
    *("&lt;", "&amp;", "&gt;", "&quot;", "&apos;", "&#65;", "&#x1F600;", "&#0;", "&#xD800;"),
    *("&", "&l", "&#", "&#x4", ";", "&nbsp;", "&amp;lt;"),
    *("<", "<b>", "</b", "\n", "  ", "x", "\u00e9", "\t", "\\", '"'),
]
_XML_TOOLS = [
    {"name": "write", "parameters": {"type": "object", "properties": {"content": {"type": "string"}}}},
]


@needs_native
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_engines_agree_on_xml_entities_in_a_value(data: st.DataObject) -> None:
    value = "".join(data.draw(st.lists(st.sampled_from(_XML_PIECES), max_size=40), label="pieces"))
    text = f"Writing.\n<write><content>{value}</content></write> done"
    deltas = data.draw(splits(text), label="deltas")
    check_engines("xml", deltas, tools=_XML_TOOLS)


@needs_native
def test_a_long_string_joins_its_run_alike() -> None:
    # (hundreds of deltas the native string lane takes, one after the other: the
    # same raw text and arguments as the reference reads them)
    head = '<tool_call>{"name": "f", "arguments": {"text": "'
    deltas = [head, *(["ab"] * (3 * _LONG_RUN + 5)), '"}}</tool_call> after']
    check_engines("hermes", deltas, tools=TOOLS)
    check_engines("qwen3-coder", [QWEN_VALUE, *(["ab"] * (2 * _LONG_RUN + 1)), "\n</parameter>"])


@needs_native
def test_a_str_subclass_is_read_alike() -> None:
    class Text(str):
        pass

    check_engines("hermes", [Text("Hello "), Text("<tool_"), Text(CALL[6:]), Text(" bye")], tools=TOOLS)


_LONG_RUN = 256
"""A long run of deltas in one string (the reference's string lane, before
issue 52, joined what it took this many deltas at a time)."""


# -- (b) which engine runs ------------------------------------------------------------------------


def test_engine_python_runs_the_reference() -> None:
    parser = StreamParser("hermes", engine="python")
    assert parser.engine == "python"
    assert type(parser).__name__ == "StreamParser"
    assert isinstance(parser, StreamParser) and isinstance(parser, Engine)
    if native.AVAILABLE:
        assert not isinstance(parser, native_core())
    assert parser.feed("hi") == [TextDelta("hi")]


@needs_native
def test_engine_native_runs_the_native_core() -> None:
    parser = StreamParser("hermes", engine="native")
    assert parser.engine == "native"
    assert type(parser).__name__ == "StreamParser"
    assert type(parser).__qualname__ == "StreamParser"
    assert isinstance(parser, StreamParser) and isinstance(parser, Engine)
    assert isinstance(parser, native_core())
    assert parser.feed("hi") == [TextDelta("hi")]


@needs_native
def test_the_default_is_the_native_core_where_it_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(native.PURE_VARIABLE, raising=False)
    assert native.default_engine() == "native"
    assert StreamParser("hermes").engine == "native"
    monkeypatch.setenv(native.PURE_VARIABLE, "0")
    assert StreamParser("hermes").engine == "native"


def test_toolparse_pure_runs_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLPARSE_PURE", "1")
    assert native.default_engine() == "python"
    parser = StreamParser("hermes")
    assert parser.engine == "python" and type(parser).__name__ == "StreamParser"
    assert isinstance(parser, StreamParser)
    assert StreamParser("hermes", engine="python").engine == "python"


@needs_native
def test_an_explicit_engine_wins_over_toolparse_pure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLPARSE_PURE", "1")
    assert StreamParser("hermes", engine="native").engine == "native"


@pytest.mark.parametrize("engine", ["rust", "", "Native", "PYTHON", 1, True, b"native"])
def test_a_bad_engine_is_an_invalid_option(engine: Any) -> None:
    with pytest.raises(InvalidOptionError, match="engine must be"):
        StreamParser("hermes", engine=engine)


def test_engine_native_is_refused_where_it_is_not_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native, "AVAILABLE", False)
    monkeypatch.delenv(native.PURE_VARIABLE, raising=False)
    with pytest.raises(InvalidOptionError, match="not built"):
        StreamParser("hermes", engine="native")
    assert native.default_engine() == "python"  # (and the default is the reference)
    assert StreamParser("hermes").engine == "python"
    assert StreamParser("hermes", engine="python").engine == "python"


def test_the_engine_is_a_keyword_the_front_takes_with_the_others() -> None:
    for engine in BUILT:
        parser = StreamParser("xml", TOOLS, engine=engine, seed=3, lanes=False, reasoning="think")
        assert parser.engine == engine and parser.lane is None and set(parser.tools or ()) == {"f", "write"}


@needs_native
def test_native_parsers_share_a_scanner_that_switching_grammars_leaves_alone() -> None:
    # (a parser is built per request: the native engines of one grammar, tools and reasoning
    # read one shared scanner as they start; grammar="auto" switches a copy of it)
    from toolparse.engine.text import shared_scanner
    from toolparse.grammars import auto_tables, get_grammar
    from toolparse.grammars.reasoning import reasoning_for

    reasoning = reasoning_for(get_grammar("auto"), "auto")
    scanner = shared_scanner(auto_tables(), ("get_weather",), reasoning, False)
    first = {slot: getattr(scanner, slot) for slot in TextScanner.__slots__}
    output = (
        "Text first.\n<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>"
        'commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>'
    )
    tools = [{"name": "get_weather", "parameters": {"type": "object"}}]
    runs = []
    for _ in range(2):
        parser = StreamParser("auto", tools=tools, seed=1, engine="native")
        runs.append(parser.feed(output) + parser.close())
        assert parser.decided == "gpt-oss"
    assert runs[0] == runs[1] == run_engine("python", "auto", [output], tools=tools, seed=1)
    assert {slot: getattr(scanner, slot) for slot in TextScanner.__slots__} == first


def run_engine(engine: str, grammar: str, deltas: list[str], **options: Any) -> list[Any]:
    parser = StreamParser(grammar, engine=engine, **options)
    return [event for delta in deltas for event in parser.feed(delta)] + parser.close()


def native_module() -> Any:
    """``toolparse._native`` (only where it is built)."""
    return importlib.import_module("toolparse._native")


def native_core() -> type:
    core: type = native_module().Core
    return core


# -- (c) the constants the two engines share ------------------------------------------------------


@needs_native
def test_the_engines_bounds_are_the_same() -> None:
    from toolparse.engine import auto, core

    module = native_module()
    assert module.THOUGHT_WINDOW == THOUGHT_WINDOW
    assert module.WINDOW == core._WINDOW
    assert module.LOOKAHEAD == auto.LOOKAHEAD
    # (the native lanes' own bounds, with no twin in the reference: gathering
    # delays a call's events by at most GATHER characters (GATHER_QUIET inside a
    # Python literal's string, which streams nothing), and a value's string lane
    # keeps at most MAX_KEPT characters of a last line for the next delta)
    assert (module.GATHER, module.GATHER_QUIET, module.MAX_KEPT) == (64, 4096, 64)


# -- (d) the error boundary -----------------------------------------------------------------------


class Boom(KeyError):
    """The bug injected."""


def _boom(*_args: Any, **_kwargs: Any) -> Any:
    raise Boom("injected")


class Bug(NamedTuple):
    """A bug planted inside the parser, and the deltas that reach it."""

    name: str
    grammar: str
    options: dict[str, Any]
    setup: list[str]
    """Fed before the bug is planted."""
    where: tuple[Any, str]
    """The place it is planted in the reference: (owner, attribute). (A place
    of the native core's lanes has no twin in the reference, which reads every
    delta through its full path: the bug is planted in ``Engine._read``, and
    the two must still raise alike.)"""
    after: list[str]
    """Fed after (then ``close``), until one raises."""
    bound: bool
    """(the native core) The place is a lane's, armed while the parser is
    built: the bug is planted before the setup too."""
    native: str | None
    """The same place in the native core (``Core._plant``), if it has one."""


_READ = (Engine, "_read")

BUGS = [
    Bug("full path", "hermes", {}, ["Hello there, "], _READ, ["<tool_call>"], False, "read"),
    Bug("full path, first", "hermes", {}, [], _READ, ["Hello"], False, "read"),
    Bug(
        "reasoning sink",
        "hermes",
        {"reasoning": "think"},
        ["<think>I wonder"],
        _READ,
        [" more"],
        True,
        "reasoning",
    ),
    Bug("prefix lane", "hermes", {}, ["hi <tool"], _READ, ["_ca"], True, "prefix"),
    # (a delta the native prefix lane cannot decide: handed to the full path)
    Bug("prefix lane, handed over", "hermes", {}, ["hi <tool"], _READ, ["\n"], True, "prefix"),
    Bug("line start", "hermes", {}, ["Hello\n"], _READ, ["world"], False, "line start"),
    Bug(
        "string piece",
        "hermes",
        {"tools": TOOLS},
        ['<tool_call>{"name": "f", "arguments": {"text": "once', " upon"],
        _READ,
        [' a \\"time'],
        True,
        "string piece",
    ),
    Bug(
        "value piece",
        "qwen3-coder",
        {"tools": TOOLS},
        [QWEN_VALUE, " and"],
        _READ,
        [" a<b"],
        True,
        "string piece",
    ),
    Bug("value sink", "qwen3-coder", {"tools": TOOLS}, [QWEN_VALUE], _READ, [" and"], True, "value sink"),
    Bug("close", "hermes", {}, ["Hello <tool"], (Engine, "_end_of_stream"), [], False, "close"),
]
BUG_IDS = [bug.name for bug in BUGS]


def _provoke(engine: str, bug: Bug) -> tuple[StreamParser, InternalParserError, int, list[Any]]:
    """Plant the bug, feed until it raises (or close); return the parser, the
    error, the number of the call that raised and the events before it. (A
    place the native core runs natively in this build cannot be reached: the
    test is skipped for it there; the reference always reaches it.)"""
    owner, name = bug.where
    events: list[Any] = []
    if engine == "native" and bug.native is None:
        pytest.skip(f"{name} has no twin in the native core: no bug can be planted there")
    with pytest.MonkeyPatch.context() as patch:
        parser = StreamParser(bug.grammar, engine=engine, seed=1, **bug.options)
        if bug.bound and engine == "native":
            parser._plant(bug.native, Boom("injected"))  # type: ignore[attr-defined]
        for delta in bug.setup:
            events += parser.feed(delta)
        if engine == "python":
            patch.setattr(owner, name, _boom)
        else:
            parser._plant(bug.native, Boom("injected"))  # type: ignore[attr-defined]
        calls: list[Callable[[], list[Any]]] = [functools.partial(parser.feed, delta) for delta in bug.after]
        calls.append(parser.close)
        for k, call in enumerate(calls):
            try:
                events += call()
            except InternalParserError as exc:
                return parser, exc, k, events
    raise AssertionError(f"the bug planted in {name} ({engine}) was never reached")


@pytest.mark.parametrize("engine", BUILT)
@pytest.mark.parametrize("bug", BUGS, ids=BUG_IDS)
def test_a_bug_inside_latches_the_parser(engine: str, bug: Bug) -> None:
    parser, raised, _, _ = _provoke(engine, bug)
    assert parser.engine == engine
    assert isinstance(raised.__cause__, Boom)
    assert raised.grammar == parser.grammar_name and "Boom" in str(raised)
    # latched: every later feed or close raises the same error
    later_calls: list[Callable[[], object]] = [
        functools.partial(parser.feed, "more"),
        functools.partial(parser.feed, ""),
        parser.close,
        parser.close,
    ]
    for again in later_calls:
        with pytest.raises(InternalParserError) as later:
            again()
        assert later.value is raised
    assert parser.lane is None


@needs_native
@pytest.mark.parametrize("bug", BUGS, ids=BUG_IDS)
def test_a_bug_inside_raises_alike_in_both_engines(bug: Bug) -> None:
    _, python, at, before = _provoke("python", bug)
    _, ours, native_at, native_before = _provoke("native", bug)
    assert (native_at, native_before) == (at, before)  # (raised by the same call, after the same events)
    assert str(ours) == str(python) and ours.offset == python.offset


@needs_native
def test_a_panic_in_the_native_core_latches_as_an_internal_error() -> None:
    parser = StreamParser("hermes", engine="native", seed=1)
    assert parser.feed("Hello ") == [TextDelta("Hello ")]
    parser._plant("panic")  # type: ignore[attr-defined]
    with pytest.raises(InternalParserError, match="panic in toolparse's native core") as raised:
        parser.feed("<tool_call>")
    assert isinstance(raised.value.__cause__, RuntimeError)
    for again in (functools.partial(parser.feed, "x"), parser.close):
        with pytest.raises(InternalParserError) as later:
            again()
        assert later.value is raised.value
    assert parser.lane is None


@needs_native
def test_a_callers_mistake_mid_stream_latches_as_it_was_raised() -> None:
    # (an id_factory that returns no string: the caller's error, not an internal one)
    options: dict[str, Any] = {"tools": TOOLS, "id_factory": lambda index: index}
    check_engines("hermes", ["Hi ", CALL, " more"], **options)
    steps = engine_steps("hermes", ["Hi ", CALL, " more"], "native", **options)
    assert [step.outcome[1] for step in steps[2:]] == [InvalidOptionError] * 4  # (feed, feed, close, feed)


@needs_native
def test_an_interrupt_is_not_latched_by_either_engine() -> None:
    # (only an Exception latches: a KeyboardInterrupt goes through, the parser as it was)
    seen = []
    for engine in ("python", "native"):
        parser = StreamParser("hermes", engine=engine, seed=1)
        parser.feed("Hello ")
        with pytest.MonkeyPatch.context() as patch:

            def interrupt(*_args: Any, **_kwargs: Any) -> Any:
                raise KeyboardInterrupt

            if engine == "python":
                patch.setattr(Engine, "_read", interrupt)
            else:
                parser._plant("read", KeyboardInterrupt())  # type: ignore[attr-defined]
            with pytest.raises(KeyboardInterrupt):
                parser.feed("<tool_call>")
            if engine == "native":
                parser._plant("read")  # type: ignore[attr-defined]  # (taken away)
        seen.append([*parser.feed("there"), *parser.close()])
    assert seen[0] == seen[1]


# -- (e) the caller's mistakes --------------------------------------------------------------------


@pytest.mark.parametrize("engine", BUILT)
@pytest.mark.parametrize("delta", [b"bytes", None, 3, ["a"], bytearray(b"x")])
def test_a_delta_that_is_not_a_str_is_a_type_error(engine: str, delta: Any) -> None:
    parser = StreamParser("hermes", engine=engine, seed=1)
    parser.feed("Hi ")  # (with a lane armed)
    with pytest.raises(TypeError, match=f"feed\\(\\) takes str, not {type(delta).__name__}"):
        parser.feed(delta)
    unarmed = StreamParser("hermes", engine=engine, seed=1, lanes=False)
    with pytest.raises(TypeError, match="takes str"):
        unarmed.feed(delta)
    # (a caller's mistake before anything is read: the parser goes on)
    assert parser.feed("there") == [TextDelta("there")]


@pytest.mark.parametrize("engine", BUILT)
def test_feed_after_close_is_a_closed_stream(engine: str) -> None:
    parser = StreamParser("hermes", TOOLS, engine=engine, seed=1)
    events = parser.feed('Hi <tool_call>{"name": "f", "arguments": {"text": "x')
    events += parser.close()
    assert any(isinstance(e, ToolCallDelta) for e in events)
    with pytest.raises(StreamClosedError, match="feed\\(\\) called after close\\(\\)"):
        parser.feed("more")
    with pytest.raises(StreamClosedError, match="close\\(\\) called twice"):
        parser.close()
    with pytest.raises(StreamClosedError):
        parser.feed(b"bytes")  # type: ignore[arg-type]  # (closed first: the stream's state wins)
    assert parser.lane is None


@needs_native
def test_the_caller_s_mistakes_raise_alike() -> None:
    def outcomes(engine: str) -> list[tuple[type, str]]:
        parser = StreamParser("hermes", engine=engine, seed=1)
        seen: list[tuple[type, str]] = []
        calls: list[Callable[[], list[Any]]] = [
            functools.partial(parser.feed, b"x"),  # type: ignore[arg-type]
            functools.partial(parser.feed, "Hi"),
            parser.close,
            functools.partial(parser.feed, "x"),
            functools.partial(parser.feed, b"x"),  # type: ignore[arg-type]
            parser.close,
        ]
        for call in calls:
            try:
                seen.append((list, repr(call())))
            except Exception as exc:
                seen.append((type(exc), str(exc)))
        return seen

    assert outcomes("python") == outcomes("native")


# -- differences the comparison found, fixed ------------------------------------------------------


@needs_native
def test_a_subclass_s_own_feed_runs_under_both_engines() -> None:
    class Shouting(StreamParser):
        def feed(self, delta: str) -> list[Any]:
            return super().feed(delta.upper())

    assert [Shouting("hermes", engine=e).feed("hello") for e in ("python", "native")] == [
        [TextDelta("HELLO")]
    ] * 2


@pytest.mark.parametrize("engine", BUILT)
@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_a_parser_refuses_to_be_copied_under_both_engines(engine: str, how: str) -> None:
    import copy
    import pickle

    parser = StreamParser("hermes", TOOLS, engine=engine, seed=1)
    parser.feed('<tool_call>{"name": "f", "arguments": {"text": "a')
    copiers: dict[str, Callable[[Any], Any]] = {
        "copy": copy.copy,
        "deepcopy": copy.deepcopy,
        "pickle": pickle.dumps,
    }
    copier = copiers[how]
    with pytest.raises(TypeError, match="it holds one stream's state"):
        copier(parser)
