"""The native text scanner (``toolparse._native.TextScanner``, ``native/core/src/text.rs``)
against the reference (:class:`toolparse.engine.text.TextScanner`).

The reference engine parses the fuzzer's outputs (every grammar, ``auto`` too,
with the fuzzer's options: reasoning, forced answers, tools); every call it
makes to a text scanner is made to a native twin too (made from the scanner
as it stands when first called), and the answers and the state after each
call must be the same. Skipped where the native core is not built.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolparse.engine import native
from toolparse.engine import text as text_module
from toolparse.engine.compile import compile_grammar
from toolparse.engine.declare import Term
from toolparse.engine.lexicon import Hit
from toolparse.engine.text import ANSWER, REASONING_CLOSE, REASONING_OPEN, TextScanner, ToolNames
from toolparse.errors import InvalidOptionError
from toolparse.fuzz import outputs, parser_options, splits
from toolparse.grammars import auto_tables, get_grammar, grammar_names
from toolparse.grammars.reasoning import REASONING, reasoning_for
from toolparse.invariants import engine_steps

pytestmark = pytest.mark.skipif(
    not native.AVAILABLE, reason="the native core (toolparse._native) is not built in this installation"
)
NATIVE: Any = importlib.import_module("toolparse._native") if native.AVAILABLE else None
CALLED = (
    "scan",
    "after_block",
    "answer_begins_again",
    "enter_reasoning",
    "leave_reasoning",
)


def _answer(value: object) -> object:
    """What is compared of an answer: a Hit's fields, its class, and a Term key's identity."""
    if isinstance(value, tuple) and not isinstance(value, Hit):
        return tuple(_answer(v) for v in value)
    if isinstance(value, Hit):
        return ("hit", tuple(value), id(value.key) if isinstance(value.key, Term) else 0)
    return value


def _outcome(call: Callable[[], Any]) -> object:
    try:
        return _answer(call())
    except Exception as e:  # (both must raise the same)
        return ("raises", type(e), str(e))


def _starts_ordinary_line(scanner: TextScanner, delta: str) -> bool:
    """The native text lane's ``starts_ordinary_line``, as the reference's full
    path reads a line's first character (``TextScanner._line_start``): at a line
    start, past the prelude, a delta that begins with a character no fence or
    quote begins with makes the line ordinary text. (The reference has no text
    lane, so no twin: this is the test's oracle, the removed twin of issue 52.)"""
    s: Any = scanner
    if s._state != text_module._LINE_START or s._prelude or not delta or delta[0] in " `~>":
        return False
    s._state = text_module._TEXT
    return True


def _standing(scanner: TextScanner) -> tuple[object, ...]:
    s: Any = scanner
    return (s._state, s._fence, s._fence_len, s._prelude, s._absorb, s._answer)


@pytest.mark.parametrize("grammar", sorted({*grammar_names(), "auto"}))
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_the_scanners_answer_the_engines_calls_alike(grammar: str, data: st.DataObject) -> None:
    text = data.draw(outputs(grammar), label="text")
    deltas = data.draw(splits(text), label="deltas")
    options = data.draw(parser_options(grammar), label="options")
    twins: dict[int, tuple[TextScanner, Any]] = {}
    differences: list[str] = []
    originals = {name: getattr(TextScanner, name) for name in CALLED}

    def called(name: str) -> Callable[..., Any]:
        original = originals[name]

        def twice(self: TextScanner, *args: Any) -> Any:
            twin = twins.get(id(self))
            if twin is None:
                twin = twins[id(self)] = (self, NATIVE.TextScanner(self))
            got = _outcome(lambda: getattr(twin[1], name)(*args))
            try:
                result = original(self, *args)
            except Exception as e:
                expected: object = ("raises", type(e), str(e))
                raise
            else:
                expected = _answer(result)
                return result
            finally:
                if got != expected:
                    differences.append(f"{name}{args!r}: native {got!r}, reference {expected!r}")
                elif twin[1].standing != _standing(self):
                    differences.append(
                        f"after {name}{args!r}: native {twin[1].standing!r}, reference {_standing(self)!r}"
                    )

        return twice

    with pytest.MonkeyPatch.context() as patch:
        for name in CALLED:
            patch.setattr(TextScanner, name, called(name))
        engine_steps(grammar, deltas, "python", **options)
    assert not differences, differences[:3]


# -- scanners driven directly, on Markdown -----------------------------------------------------


MARKDOWN = [
    *["```", "~~~", "````", "``", "```\n", "```\t\n", "``` \t", "~~~~\n", "   ```", "```py\n"],
    *["> ", ">", "> quote\n", "\n", "\n\n", "   ", "    ", " ", "\t", "text", "x < 4", "\u200b"],
]
"""Fences (open, close, too short), quotes, indents and prose."""


@pytest.mark.parametrize("grammar", sorted({*grammar_names(), "auto"}))
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_the_scanners_read_markdown_alike(grammar: str, data: st.DataObject) -> None:
    """A scanner and its twin, made for drawn reasoning, forced answers and
    tools, read drawn Markdown around the grammar's openers as the engine
    reads it (delta by delta, a block ending after each opener)."""
    compiled = auto_tables() if grammar == "auto" else compile_grammar(get_grammar(grammar))
    option = data.draw(st.sampled_from([None, *sorted(REASONING)]), label="reasoning")
    reasoning = reasoning_for(get_grammar(grammar), option)
    tools = data.draw(st.sampled_from([None, ("f",), ("f", "write")]), label="tools")
    try:
        scanner = TextScanner(
            compiled, ToolNames(tools), reasoning, answer=data.draw(st.booleans(), label="answer")
        )
    except InvalidOptionError:
        return
    twin = NATIVE.TextScanner(scanner)
    s: Any = scanner
    words = sorted({*s._openers.literals, *(s._code_openers.literals if s._code_openers else ())})
    words += [m for m in (s._r_open, s._r_close, *s._markup) if m]
    pieces = st.sampled_from([*MARKDOWN, "<f>", "</f>", "<f/>", "<write>"])
    if words:
        word = st.sampled_from(words)
        pieces |= word | word | word.flatmap(lambda w: st.integers(1, len(w)).map(lambda k: w[:k]))
    text = "".join(data.draw(st.lists(pieces, max_size=16), label="pieces"))
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=6), label="cuts") | {len(text)})

    def both(name: str, *args: Any) -> None:
        expected = _outcome(lambda: getattr(scanner, name)(*args))
        got = _outcome(lambda: getattr(twin, name)(*args))
        assert got == expected, f"{name}{args!r}: native {got!r}, reference {expected!r}"
        assert twin.standing == _standing(scanner), f"after {name}{args!r}"

    i, steps = 0, 0
    for cut in cuts:
        buffer = text[:cut]
        last = cut == len(text)
        if data.draw(st.booleans(), label="ordinary line?") and i < cut:
            delta = buffer[i:cut]
            ordinary = _starts_ordinary_line(scanner, delta)
            got = _outcome(lambda: twin.starts_ordinary_line(delta))  # noqa: B023
            assert got == ordinary, f"starts_ordinary_line({delta!r}): native {got!r}, reference {ordinary!r}"
            assert twin.standing == _standing(scanner), f"after starts_ordinary_line({delta!r})"
        while steps < 4 * len(text) + 20:
            steps += 1
            expected = _outcome(lambda: scanner.scan(buffer, i, last))  # noqa: B023
            got = _outcome(lambda: twin.scan(buffer, i, last))  # noqa: B023
            assert got == expected, f"scan({buffer!r}, {i}, {last}): native {got!r}, reference {expected!r}"
            assert twin.standing == _standing(scanner), f"after scan({buffer!r}, {i}, {last})"
            assert isinstance(expected, tuple)
            stop, answer = expected
            if not isinstance(answer, tuple) or answer[0] != "hit":
                i = stop
                break
            _, end, key, _ = answer[1]
            if key is REASONING_OPEN:
                both("enter_reasoning")
            elif key is REASONING_CLOSE:
                both("leave_reasoning")
            elif key is ANSWER:
                pass
            else:
                both("after_block", buffer[end - 1] if end > 0 else "")
            i = max(end, i)
