"""The goldens of `toolparse-core`'s pure-Rust host (`native/core/tests/rusthost/`):
fresh, i.e. what `native/core/tools/rusthost.py` records from the Python
reference today (seeded call ids, the inline coercer, calls' arguments);
`cargo test -p toolparse-core --test rusthost` replays them in Rust."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "native" / "core" / "tools" / "rusthost.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rusthost_tool", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RUSTHOST = _tool()
RECORDS = RUSTHOST.records()


def test_every_golden_has_a_file_and_no_other() -> None:
    on_disk = sorted(p.name for p in RUSTHOST.GOLDEN.glob("*.json"))
    assert on_disk == sorted(RECORDS), "run `python native/core/tools/rusthost.py`"


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_golden_file_is_fresh(name: str) -> None:
    written = (RUSTHOST.GOLDEN / name).read_text()
    fresh = RUSTHOST.render(RECORDS[name])
    assert written == fresh, f"stale: run `python native/core/tools/rusthost.py` ({name})"


def test_seeded_ids_are_random_random() -> None:
    """The ids recorded are `random.Random(seed)`'s (what the Rust port must equal)."""
    import random

    for case in json.loads((RUSTHOST.GOLDEN / "ids.json").read_text())["seeds"]:
        rng = random.Random(int(case["seed"]))
        assert case["ids"] == [f"call_{rng.getrandbits(96):024x}" for _ in case["ids"]]
