"""The shared invariant matrix, run with hypothesis for every registered grammar,
for the tool-choice modes (the forced answer, text only) and for the reasoning
presets (the default ``"auto"`` everywhere else).

1. conservation: text + reasoning raws + call raws + error raws, in order,
   equal the input;
2. chunking: any split of the input gives the same normalised events;
3. every prefix followed by close() raises nothing and conserves;
4. argument deltas reconcile with the final arguments, every start ends;
5. while reasoning is open, only reasoning comes out (no call is read there);
6. parse_text, parse_iter and parse_stream agree.

A new grammar's module brings its fragments and examples (its ``ENTRY`` in
the registry, ``toolparse.grammars.ENTRIES``), never a harness: the first
test fails until it does.

Every grammar is spliced with its own fragments and with every grammar's
markers (``toolparse.fuzz.SPLICED``: openers, closers, the tags inside calls,
value wrappers, reasoning markers, whole and cut short): a parser meets other
formats' markup in prose and in values, and a matrix drawn only from a
grammar's own pieces shares that grammar's assumptions. (``toolparse fuzz``
splices every grammar's whole calls too.)
"""

from __future__ import annotations

import itertools
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support import calls_of, check_all, check_reconciliation, covered_text, normalize, run
from toolparse import parse_iter, parse_stream, parse_text
from toolparse.fuzz import (
    ADVERSARIAL,
    EVERY_FRAGMENT,
    FUZZ_TOOLS,
    MARKDOWN,
    REASONING_FRAGMENTS,
    SPLICED,
    fragments_of,
)
from toolparse.grammars import ENTRIES, GRAMMARS
from toolparse.invariants import check_reasoning, reasoning_of

# (name, grammar, options): every grammar as declared, and the modes tool choice puts a parser in
MODES: list[tuple[str, str, dict[str, Any]]] = [
    *((name, name, {"tools": ENTRIES[name].fuzz_tools}) for name in sorted(GRAMMARS)),
    ("auto", "auto", {}),
    ("auto, with tools", "auto", {"tools": ENTRIES["xml"].fuzz_tools}),
    ("forced answer", "hermes", {"tools": FUZZ_TOOLS, "tool_choice": "required"}),
    ("forced, collapsed", "hermes", {"tools": FUZZ_TOOLS, "tool_choice": "required", "collapse": True}),
    ("text only", "qwen3-coder", {"tools": FUZZ_TOOLS, "tool_choice": "none"}),
    ("hermes, reasoning anywhere", "hermes", {"reasoning": "think"}),
    ("qwen3-coder, reasoning opened by the prompt", "qwen3-coder", {"reasoning": "think-open"}),
    ("xml, kimi-vl reasoning", "xml", {"tools": ENTRIES["xml"].fuzz_tools, "reasoning": "kimi-vl"}),
    ("fenced-json, no reasoning", "fenced-json", {"reasoning": "none"}),
    (
        "forced answer after reasoning",
        "hermes",
        {"tools": FUZZ_TOOLS, "tool_choice": "required", "reasoning": "think-open"},
    ),
]
IDS = [m[0] for m in MODES]
PROSE = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
BARE_JSON = [a for a in ADVERSARIAL if a.startswith(("{", "["))]


def test_every_grammar_has_fragments_and_examples() -> None:
    for name, entry in ENTRIES.items():
        assert entry.grammar is GRAMMARS[name]
        assert entry.fragments and entry.examples, f"{name}: no fragments or no examples"


DSML = "<\uff5cDSML\uff5c"


def test_every_grammar_is_spliced_with_every_other_grammars_markers() -> None:
    # (what found issue 51's item 7: k2-horizon fed hunyuan's and others' markup)
    for entry in ENTRIES.values():
        assert set(entry.fragments) <= set(EVERY_FRAGMENT)
    for marker in ("<ifm|arg_value>", "</arg_value>", "<tool_sep>", "[TOOL_CALLS]", "<|message|>", "<value>"):
        assert marker in SPLICED, marker
    assert any(m.startswith(DSML) for m in SPLICED)
    assert {"<think>", "</think>", "<seed:think>", "[/THINK]"} <= set(SPLICED)


def outputs(grammar: str) -> st.SearchStrategy[str]:
    # (its own fragments, and every grammar's markers: toolparse.fuzz's
    # SPLICED; not every grammar's whole calls, as toolparse fuzz does, nor
    # the long adversarial pieces besides bare JSON: long pieces make every
    # prefix slow)
    piece = st.one_of(
        PROSE,
        st.sampled_from([*fragments_of(grammar), *BARE_JSON]),
        st.sampled_from(SPLICED),
        st.sampled_from(MARKDOWN),
        st.sampled_from(REASONING_FRAGMENTS),
    )
    return st.lists(piece, max_size=8).map("".join)


@st.composite
def split(draw: st.DrawFn, text: str) -> list[str]:
    """An arbitrary split of ``text`` into deltas (empty ones included)."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def output_and_split(draw: st.DrawFn, grammar: str) -> tuple[str, list[str]]:
    text = draw(outputs(grammar))
    return text, draw(split(text))


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize(("mode", "grammar", "options"), MODES, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_conservation_chunking_reconciliation(
    mode: str, grammar: str, options: dict[str, Any], data: st.DataObject
) -> None:
    text, deltas = data.draw(output_and_split(grammar))
    check_all(grammar, text, [deltas], **options)


@pytest.mark.parametrize(("mode", "grammar", "options"), MODES, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_with_tools_and_errors_as_text(
    mode: str, grammar: str, options: dict[str, Any], data: st.DataObject
) -> None:
    text, deltas = data.draw(output_and_split(grammar))
    tools = options.get("tools") or [
        {"name": "get_weather", "parameters": {"type": "object"}},
        {"name": "f"},
    ]
    check_all(grammar, text, [deltas], **{**options, "tools": tools}, errors_as_text=True, coerce=False)


@pytest.mark.parametrize(("mode", "grammar", "options"), MODES, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_every_prefix_then_close(
    mode: str, grammar: str, options: dict[str, Any], data: st.DataObject
) -> None:
    text = data.draw(outputs(grammar))
    reasoning = reasoning_of(grammar, options)
    for end in range(len(text) + 1):
        events = run(grammar, [text[:end]], **options)
        assert covered_text(events) == text[:end]
        check_reconciliation(events, collapsed=bool(options.get("collapse")))
        if reasoning:
            check_reasoning(events, reasoning)


@pytest.mark.parametrize(("mode", "grammar", "options"), MODES, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_front_ends_agree(mode: str, grammar: str, options: dict[str, Any], data: st.DataObject) -> None:
    text, deltas = data.draw(output_and_split(grammar))
    tools = options.get("tools")
    rest = {k: v for k, v in options.items() if k != "tools"}
    whole = parse_text(text, grammar, tools, seed=3, **rest).events
    iterated = list(parse_iter(deltas, grammar, tools, seed=3, **rest))

    async def collect() -> list[Any]:
        async def source() -> Any:
            for delta in deltas:
                yield delta

        return [event async for event in parse_stream(source(), grammar, tools, seed=3, **rest)]

    streamed = anyio.run(collect)
    assert normalize(whole) == normalize(iterated) == normalize(streamed)


@pytest.mark.parametrize("grammar", sorted(GRAMMARS))
def test_examples(grammar: str) -> None:
    entry = ENTRIES[grammar]
    for text, expected in entry.examples:
        events = check_all(grammar, text, tools=entry.fuzz_tools)
        assert calls_of(events) == expected
