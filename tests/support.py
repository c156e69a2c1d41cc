"""Shared helpers of the test suite: event normalisation and invariant checks.

Every grammar goes through the same checks; a new grammar adds cases to
``grammar_cases.py``, not a new harness.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolparse import Event, ReasoningDelta, TextDelta, ToolCall, ToolCallError
from toolparse.invariants import check_all, check_reconciliation, covered_text, normalize, run

__all__ = [
    "CORPUS",
    "ROOT",
    "SHARED_CORPUS",
    "calls_of",
    "check_all",
    "check_reconciliation",
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


def load_jsonl(name: str) -> list[dict[str, Any]]:
    path = CORPUS / name
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def calls_of(events: Sequence[Event]) -> list[dict[str, Any]]:
    return [{"name": e.name, "arguments": e.arguments} for e in events if isinstance(e, ToolCall)]


def text_of(events: Sequence[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def reasoning_of(events: Sequence[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, ReasoningDelta))


def errors_of(events: Sequence[Event]) -> list[str]:
    """The reasons of the errors, in order."""
    return [str(e.reason) for e in events if isinstance(e, ToolCallError)]
