"""Shared helpers of the test suite: event normalisation and invariant checks.

Every grammar goes through the same checks; a new grammar's module brings
its fragments and examples in its ``ENTRY`` (see ``toolparse.grammars``),
not a new harness.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from toolparse import Event, ReasoningDelta, StreamParser, TextDelta, ToolCall, ToolCallError
from toolparse.invariants import check_all, check_reconciliation, covered_text, normalize, run

__all__ = [
    "CORPUS",
    "ROOT",
    "SHARED_CORPUS",
    "Expect",
    "calls_of",
    "check_all",
    "check_reconciliation",
    "check_source_case",
    "covered_text",
    "errors_of",
    "load_jsonl",
    "normalize",
    "reasoning_of",
    "run",
    "text_of",
]

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
"""The real outputs the suite depends on, copied from the shared corpus (see SOURCE.txt there)."""
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"
"""The workplace's shared corpus, when it is beside the checkout (the copies are compared with it)."""


def random_pieces(text: str, rng: random.Random) -> list[str]:
    """``text`` cut at up to 12 random places (a server's deltas, anyhow)."""
    places = range(1, len(text))
    cuts = sorted(rng.sample(places, min(len(places), rng.randint(0, 12))))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def armed(parser: StreamParser, lane: str | None) -> str | None:
    """The lane ``parser`` should have armed: ``lane`` on the native core, None
    on the Python reference (it has no lanes: it reads every delta)."""
    return lane if parser.engine == "native" else None


def open_string_of(call: Any) -> Any:
    """What a call answers the native core's string lane (``open_string``: an
    ``OpenString`` while a plain string streams, else None). A native call
    answers itself; the reference's calls have no lanes, so no twin: for them
    this is the tests' oracle, read off their state (the hooks issue 52 took
    out of the reference)."""
    from toolparse.engine import calls
    from toolparse.readers.json import STRING_RUN

    if not isinstance(call, calls.Call):
        return call.open_string()
    if isinstance(call, calls.MemberCall):
        opens = call._mode == calls._STREAM and call.started and not call.scratch
    else:
        assert isinstance(call, (calls.EnvelopeCall, calls.JsonArgsCall))
        opens = call.streaming and call.reader.in_plain_string(call.scratch)
    if not opens:
        return None
    assert call.index is not None and call.id is not None
    return calls.OpenString(call.args, call.index, call.id, STRING_RUN)


def load_jsonl(name: str) -> list[dict[str, Any]]:
    path = CORPUS / name
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


WEATHER_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            },
        },
    }
]


def tool_calls_in_sevens(grammar: str, text: str, engine: str, tools: Any = WEATHER_TOOLS) -> list[ToolCall]:
    """The ``ToolCall`` events of ``text`` fed in 7-character deltas to ``engine``."""
    parser = StreamParser(grammar, tools=tools, engine=engine)
    events = []
    for start in range(0, len(text), 7):
        events += parser.feed(text[start : start + 7])
    events += parser.close()
    return [e for e in events if isinstance(e, ToolCall)]


def calls_of(events: Sequence[Event]) -> list[dict[str, Any]]:
    return [{"name": e.name, "arguments": e.arguments} for e in events if isinstance(e, ToolCall)]


def text_of(events: Sequence[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def reasoning_of(events: Sequence[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, ReasoningDelta))


def errors_of(events: Sequence[Event]) -> list[str]:
    """The reasons of the errors, in order."""
    return [str(e.reason) for e in events if isinstance(e, ToolCallError)]


@dataclass(frozen=True)
class Expect:
    """What toolparse gives for a source's case (see :func:`check_source_case`)."""

    text: str = ""
    calls: list[dict[str, Any]] | None = None
    """None: the source's own expected calls (names and arguments)."""
    errors: tuple[str, ...] = ()
    reasoning: str = ""
    options: dict[str, Any] = field(default_factory=dict)


def case_params(case_ids: Iterable[str], faults: dict[str, str]) -> list[Any]:
    """``case_ids`` for ``pytest.mark.parametrize``, those in ``faults`` marked as
    strict expected failures that name the fault (a fixed fault fails the test)."""
    return [
        pytest.param(case_id, marks=pytest.mark.xfail(strict=True, reason=faults[case_id]))
        if case_id in faults
        else case_id
        for case_id in case_ids
    ]


def check_source_case(
    grammar: str,
    case: dict[str, Any],
    expect: Expect,
    tools: list[dict[str, Any]] | None,
    markers: Iterable[str],
) -> None:
    """Run a case collected from a source's tests (``raw_text``, ``stream_split``,
    ``expected_calls``) through every invariant check and compare with ``expect``;
    none of the grammar's ``markers`` may be left in the text."""
    splits = [case["stream_split"]] if case["stream_split"] else []
    events = check_all(grammar, case["raw_text"], splits, tools=tools, **expect.options)
    source_calls = [{"name": c["name"], "arguments": c["arguments"]} for c in case["expected_calls"]]
    assert calls_of(events) == (source_calls if expect.calls is None else expect.calls)
    assert text_of(events) == expect.text
    assert errors_of(events) == list(expect.errors)
    assert reasoning_of(events) == expect.reasoning
    assert not any(marker in text_of(events) for marker in markers)
