"""The golden streams of `toolparse-core` (`native/core/tests/golden/`):
fresh (what `native/core/tools/golden.py` records from the Python reference
today), and given again by the engine that runs here when replayed in 1- and
7-character chunks, as `cargo test` replays them in Rust."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from toolparse import StreamParser
from toolparse.invariants import normalize

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "native" / "core" / "tools" / "golden.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("golden_tool", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GOLDEN = _tool()
NAMES: list[str] = GOLDEN.names()


def test_every_grammar_has_a_file_and_no_other() -> None:
    on_disk = sorted(p.stem for p in GOLDEN.GOLDEN.glob("*.json"))
    assert on_disk == NAMES, "run `python native/core/tools/golden.py`"


@pytest.mark.parametrize("name", NAMES)
def test_golden_file_is_fresh(name: str) -> None:
    written = (GOLDEN.GOLDEN / f"{name}.json").read_text()
    assert written == GOLDEN.render(name), f"stale: run `python native/core/tools/golden.py` ({name})"


def _replayed(name: str, tools: Any, text: str, size: int) -> list[dict[str, Any]]:
    parser = StreamParser(name, tools)
    events = []
    for k in range(0, len(text), size):
        events += parser.feed(text[k : k + size])
    events += parser.close()
    out = []
    for event in normalize(events):
        data = event.to_dict()
        data.pop("id", None)
        out.append(data)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_golden_streams_replay_in_any_chunking(name: str) -> None:
    golden = json.loads((GOLDEN.GOLDEN / f"{name}.json").read_text())
    assert golden["streams"], name
    for stream in golden["streams"]:
        for size in (1, 7):
            assert _replayed(name, golden["tools"], stream["input"], size) == stream["events"], (
                name,
                size,
                stream["input"],
            )
