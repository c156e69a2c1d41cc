"""The native text scanner against the reference, scan for scan.

``_native.TextScanner`` (``native/src/text.rs``) is built from a reference
``TextScanner`` (whose constructor works out the tables) and must then find
the same openers at the same places, hold back the same text, and go through
the same Markdown and reasoning states, for every grammar and the fuzzer's
options, whatever the text and its chunking, driven as the engine drives the
scanner: what a scan leaves is given again with the next delta, a found
opener is read as a block that ends at once, reasoning markers enter and
leave reasoning.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolparse import StreamParser, grammar_names
from toolparse.engine import native
from toolparse.engine.text import ANSWER, MARKUP, REASONING_CLOSE, REASONING_OPEN, TextScanner
from toolparse.errors import ToolparseError
from toolparse.fuzz import outputs, parser_options, splits

pytestmark = pytest.mark.skipif(
    not native.AVAILABLE, reason="the native core (toolparse._native) is not built in this installation"
)
GRAMMARS = sorted({*grammar_names(), "auto"})


def _scanner(grammar: str, options: dict[str, Any]) -> TextScanner | None:
    """A fresh reference scanner, as a parser with these options starts with
    (None: the options are refused)."""
    try:
        parser = StreamParser(grammar, engine="python", **options)
    except (ToolparseError, ValueError, TypeError):
        return None
    scanner: TextScanner = parser._scanner
    return scanner


def _observe(scanner: Any) -> Any:
    """What the engine asks of a scanner between scans."""
    if isinstance(scanner, TextScanner):
        stops = scanner.text_stops
        lexicon = (
            scanner._openers if scanner._state == 1 else scanner._code_openers  # (the state's lexicon)
        )
        chars = None if stops is None else "".join(sorted(lexicon.first_chars())) if lexicon else ""
        reasoning = scanner.reasoning_stops
        plain = scanner.plain_openers
        state = (
            scanner._state,
            scanner._fence,
            scanner._fence_len,
            scanner._prelude,
            scanner._absorb,
            scanner._answer,
        )
        return (
            state,
            scanner.in_reasoning,
            scanner.at_line_start,
            chars,
            None if reasoning is None else reasoning[0],
            None if plain is None else sorted(plain.literals),
        )
    plain = scanner.plain_openers_literals
    return (
        scanner.state,
        scanner.in_reasoning,
        scanner.at_line_start,
        scanner.text_stop_chars,
        scanner.reasoning_stop,
        None if plain is None else sorted(plain),
    )


def _drive(scanner: Any, deltas: list[str]) -> list[Any]:
    """The scanner's answers, as the engine drives it (every block ends at once)."""
    log: list[Any] = [_observe(scanner)]
    held = ""
    for delta in [*deltas, None]:
        final = delta is None
        if delta and not held:  # (the engine's line lane: a line start, nothing held)
            log.append(("ordinary", scanner.starts_ordinary_line(delta[:1])))
        text = held + ("" if delta is None else delta)
        held = ""
        i = 0
        while i < len(text):
            j, hit = scanner.scan(text, i, final)
            log.append(("scan", i, j, None if hit is None else tuple(hit), _observe(scanner)))
            if hit is None:
                held = text[j:]
                break
            if hit.key is REASONING_OPEN:
                scanner.enter_reasoning()
            elif hit.key is REASONING_CLOSE:
                scanner.leave_reasoning()
            elif hit.key is not MARKUP and hit.key is not ANSWER:
                # (a block: say it ended with its opener)
                scanner.after_block(text[hit.end - 1] if hit.end > hit.start else "x")
            i = max(hit.end, j)
            if hit.key is ANSWER:
                i = j
                break
            log.append(_observe(scanner))
        if final:
            break
    return log


def _native_scanner(reference: TextScanner) -> Any:
    return importlib.import_module("toolparse._native").TextScanner(reference)


@pytest.mark.parametrize("grammar", GRAMMARS)
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_the_native_scanner_scans_alike(grammar: str, data: st.DataObject) -> None:
    options = data.draw(parser_options(grammar), label="options")
    reference = _scanner(grammar, options)
    if reference is None:
        return
    text = data.draw(outputs(grammar), label="text")
    deltas = data.draw(splits(text), label="deltas")
    native_one = _native_scanner(_scanner(grammar, options))  # type: ignore[arg-type]
    assert _drive(native_one, deltas) == _drive(reference, deltas)


MARKDOWN_TEXTS = (
    "  \n<think>hm <tool_call> </think>  Hi.\n```\n<tool_call>\n```\n> <tool_call>{}\n"
    "   ~~~~\n<|python_tag|>x\n~~~~~\n[TOOL_CALLS] ```tool_call\n{}\n``` <tool_call>{",
    "x\n````py\n<tool_call>\n```\n````\t \t\nok <tool_call>\n",  # (a closing fence with tabs after it)
    "x\n" + "`" * 70 + "\n<tool_call>\n" + "`" * 66 + "\n<tool_call>",  # (fences longer than counted)
    "x\n    ```\n<tool_call>{\n   ~~~\n<tool_call>\n~~~ \n",  # (four spaces: no fence)
    "\u3000\ufeff\x1c <think>x</think> \n<tool_call>",  # (space before the answer, Unicode's too)
    " \n> quoted <tool_call>\n>\n<tool_call>",
)


@pytest.mark.parametrize("text", MARKDOWN_TEXTS)
@pytest.mark.parametrize("grammar", ["hermes", "qwen3-coder", "fenced-json", "gpt-oss", "mistral", "auto"])
@pytest.mark.parametrize("reasoning", [None, "think", "think-open"])
def test_markdown_and_reasoning_scan_alike_in_one_character_deltas(
    grammar: str, reasoning: str | None, text: str
) -> None:
    options: dict[str, Any] = {} if reasoning is None else {"reasoning": reasoning}
    for deltas in (list(text), [text]):
        expected = _drive(_scanner(grammar, options), deltas)
        assert _drive(_native_scanner(_scanner(grammar, options)), deltas) == expected  # type: ignore[arg-type]
