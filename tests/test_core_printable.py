"""The core's own table of printable characters (`native/core/src/
printable_table.rs`), used where no interpreter is at hand: it must be what
`native/core/tools/printable.py` writes from this Python's Unicode database."""

from __future__ import annotations

import importlib.util
import unicodedata
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "native" / "core" / "tools" / "printable.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("printable_tool", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_is_fresh() -> None:
    tool = _tool()
    written = tool.TABLE.read_text()
    if f'"{unicodedata.unidata_version}"' not in written:
        pytest.skip(f"the table is of another Unicode version than {unicodedata.unidata_version}")
    assert written == tool.render(), "stale: run `python native/core/tools/printable.py`"


def test_the_ranges_are_what_isprintable_says() -> None:
    ranges = _tool().printable_ranges()
    inside = {c for first, last in ranges for c in (first, last)}
    for c in [0x20, 0x7E, 0xA1, 0x4E2D, 0x1F600, *inside]:
        assert chr(c).isprintable(), hex(c)
    for first, last in ranges[:50]:
        assert not chr(first - 1).isprintable() or first == 0
        assert last == 0x10FFFF or not chr(last + 1).isprintable()
