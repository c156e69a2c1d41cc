"""The native core's start scanner, made from a grammar's data, is the
reference's ``TextScanner`` (issue 52, step 18).

``toolparse_core::start_scanner`` builds the visible text's scanner (the
openers with each declared tool's tag spelled out, the answer's and the
special tokens' openers, the reasoning's lexicons, the first state) from the
generated grammar data and the reasoning option alone; the engine starts with
it. It and the reference's ``text.shared_scanner`` are shown as one canonical
text (``native/src/pyscanner.rs``, which reads the reference scanner by its
slots) and compared for every grammar and ``auto``, tool lists (none, empty,
spelled, more than are spelled, names with regex and markup characters),
every reasoning option and a declaration given, and a forced answer or not;
and ``grammar="auto"``'s switch to each member (``TextScanner.switched``), from
several Markdown states.
"""

from __future__ import annotations

import copy
import importlib
import json
from typing import Any

import pytest

from toolparse import grammar_files
from toolparse.engine import native
from toolparse.engine.compile import CompiledGrammar, compile_grammar
from toolparse.engine.declare import Grammar, Reasoning
from toolparse.engine.grammar_data import grammar_json, reasoning_data
from toolparse.engine.text import TextScanner, shared_scanner
from toolparse.errors import InvalidOptionError
from toolparse.grammars import AUTO, GRAMMARS, auto_tables, get_grammar
from toolparse.grammars.reasoning import REASONING, reasoning_for

_native: Any = importlib.import_module("toolparse._native") if native.AVAILABLE else None

pytestmark = pytest.mark.skipif(
    getattr(_native, "_start_scanner_dump", None) is None,
    reason="the native core (toolparse._native) is not built in this installation",
)

_MANY = tuple(f"tool_{k}" for k in range(65))  # (more than compile._MAX_SPELLED_TOOLS)
TOOLS: tuple[tuple[str, ...] | None, ...] = (
    None,
    (),
    ("get_weather",),
    ("get_weather", "f", "get_weather"),  # (a name twice)
    ("a.b*c", "x[0]+", "(g)|h", "ü🙂", "think", "tool_call", "a/", "x<y>", 'q"&'),
    ("x<tool_call>",),  # (auto: its spelled tag holds an opener, and makes no lexicon)
    _MANY[:64],
    _MANY,
)
OPTIONS: tuple[str | Reasoning | None, ...] = (
    *REASONING,
    None,
    Reasoning("<r>", "</r>", markup=("<m>", "<n>"), ended_by=("<e>",)),
    Reasoning(None, "</x>", starts_open=True, anywhere=False),
    Reasoning("<tool_call>", "</tool_call>"),  # (an opener of several grammars: refused there)
)


def _declaration(name: str) -> Grammar:
    return AUTO if name == "auto" else get_grammar(name)


def _compiled(name: str) -> CompiledGrammar:
    return auto_tables() if name == "auto" else compile_grammar(get_grammar(name))


_JSON: dict[str, str] = {}


def _json(name: str) -> str:
    if name not in _JSON:
        _JSON[name] = grammar_json(_compiled(name))
    return _JSON[name]


def _option_args(option: str | Reasoning | None) -> tuple[str | None, str | None]:
    if isinstance(option, Reasoning):
        return None, json.dumps(reasoning_data(option))
    return option, None


def _failed(exc: ValueError) -> str:
    kind = "Reasoning" if isinstance(exc, InvalidOptionError) else "Openers"
    return f"error {kind}: {exc}\n"


def _reference(
    compiled: CompiledGrammar, tools: tuple[str, ...] | None, reasoning: Reasoning | None, answer: bool
) -> str:
    try:
        scanner = shared_scanner(compiled, tools, reasoning, answer)
    except ValueError as exc:
        return _failed(exc)
    return _dump(scanner)


def _dump(scanner: TextScanner) -> str:
    """The reference scanner in the canonical text, and (while the engine reads
    its start scanner off the reference's) the same as the engine reads it."""
    dump = str(_native._python_scanner_dump(scanner))
    if hasattr(_native, "_reference_scanner_dump"):
        assert str(_native._reference_scanner_dump(scanner)) == dump
    return dump


def _core(name: str, tools: tuple[str, ...] | None, option: str | Reasoning | None, answer: bool) -> str:
    return str(_native._start_scanner_dump(_json(name), tools, *_option_args(option), answer))


@pytest.mark.parametrize("name", sorted({*GRAMMARS, "auto"}))
def test_the_start_scanner_from_data_is_the_reference_s(name: str) -> None:
    compiled, declaration = _compiled(name), _declaration(name)
    seen = set()
    for tools in TOOLS:
        for option in OPTIONS:
            reasoning = reasoning_for(declaration, option)
            for answer in (False, True):
                expected = _reference(compiled, tools, reasoning, answer)
                got = _core(name, tools, option, answer)
                assert got == expected, (name, tools, option, answer)
                seen.add(got)
    # (the dumps tell the cases apart: the tools and the reasoning show)
    assert len(seen) > 10


def test_the_dump_shows_what_differs() -> None:
    plain = _core("xml", None, "none", False)
    assert plain != _core("xml", ("get_weather",), "none", False)
    assert 'spelled "<get_weather>" Tool "get_weather"' in _core("xml", ("get_weather",), "none", False)
    assert plain != _core("xml", None, "think", False)
    assert _core("hermes", None, Reasoning("<tool_call>", "</tool_call>"), False).startswith(
        "error Reasoning:"
    )
    assert _core("auto", ("x<tool_call>",), "none", False).startswith(
        "error Openers: terminal '<tool_call>' inside"
    )


# (reference states: _LINE_START, _TEXT, _QUOTE, _CODE_LINE_START, _CODE, _REASONING)
STATES = (
    (0, "", 0, True),
    (1, "", 0, False),
    (2, "", 0, False),
    (3, "~", 5, False),
    (4, "`", 3, False),
    (5, "", 0, True),
)


def _switched_reference(
    tools: tuple[str, ...] | None,
    option: str | Reasoning | None,
    answer: bool,
    member: str,
    state: tuple[Any, ...],
) -> str:
    auto = auto_tables()
    assert auto.auto is not None
    try:
        scanner = copy.copy(shared_scanner(auto, tools, reasoning_for(AUTO, option), answer))
        scanner._state, scanner._fence, scanner._fence_len, scanner._prelude = state
        switched = scanner.switched(
            auto.auto.members[member], reasoning_for(auto.auto.declarations[member], option)
        )
    except ValueError as exc:
        return _failed(exc)
    return _dump(switched)


def test_auto_switches_to_each_member_as_the_reference_does() -> None:
    auto = auto_tables()
    assert auto.auto is not None
    members = list(auto.auto.members)
    checked = 0
    for j, option in enumerate(OPTIONS):
        for tools in (None, ("get_weather",), TOOLS[4], _MANY):
            answer = j % 2 == 0  # (the start scanner stays while the members vary: kept)
            for k, member in enumerate(members):
                state = STATES[(k + j) % len(STATES)]
                expected = _switched_reference(tools, option, answer, member, state)
                got = str(
                    _native._switched_scanner_dump(
                        _json("auto"), tools, *_option_args(option), answer, member, *state
                    )
                )
                assert got == expected, (member, option, tools, state, answer)
                checked += 1
    for member in ("hermes", "gpt-oss", "xml"):
        for state in STATES:
            expected = _switched_reference(None, "auto", False, member, state)
            got = str(
                _native._switched_scanner_dump(_json("auto"), None, "auto", None, False, member, *state)
            )
            assert got == expected, (member, state)
    assert checked > 1000


def test_the_reasoning_options_file_is_not_stale() -> None:
    assert not grammar_files.reasoning_file_stale(), (
        f"native/core/reasoning.json is stale: run {grammar_files.COMMAND}"
    )
