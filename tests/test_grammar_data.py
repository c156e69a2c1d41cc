"""The grammars cross to the native core as plain data (``toolparse.engine.grammar_data``;
the files: ``toolparse.grammar_files``).

The data is plain (dicts, lists, strings, numbers, booleans, None) in one
schema; its patterns are in the tables' syntax, which Python's ``re`` and
Rust's ``regex`` read alike; and the files generated into the crate
(``native/core/grammars/``) are what the grammars make now.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from toolparse import grammar_files
from toolparse.engine import grammar_data
from toolparse.engine.compile import CompiledGrammar, compile_grammar
from toolparse.engine.grammar_data import (
    NEVER,
    PYTHON_SPACES,
    SCHEMA,
    table_pattern,
)
from toolparse.engine.grammar_data import (
    grammar_data as data_of,
)
from toolparse.grammar_files import COMMAND, GRAMMARS_DIR, generated_files, stale_files
from toolparse.grammars import GRAMMARS, auto_tables, get_grammar


def _compiled(name: str) -> CompiledGrammar:
    return auto_tables() if name == "auto" else compile_grammar(get_grammar(name))


def test_the_generated_grammar_files_are_not_stale() -> None:
    stale = stale_files() + (["reasoning.json"] if grammar_files.reasoning_file_stale() else [])
    assert not stale, f"the crate's grammar data is stale ({', '.join(stale)}): run {COMMAND}"


def test_a_stale_missing_or_left_over_file_is_found(tmp_path: Path) -> None:
    written = grammar_files.write(tmp_path)
    assert len(written) == len(GRAMMARS) + 1  # (every registered grammar, and auto)
    assert stale_files(tmp_path) == []
    hermes = tmp_path / "hermes.json"
    hermes.write_text(hermes.read_text().replace('"<tool_call>"', '"<tool_cal>"'))
    (tmp_path / "xml.json").unlink()
    (tmp_path / "gone.json").write_text("{}")
    assert stale_files(tmp_path) == ["hermes.json", "xml.json", "gone.json"]
    assert grammar_files.write(tmp_path) == ["hermes.json", "xml.json", "gone.json"]
    assert stale_files(tmp_path) == [] and not (tmp_path / "gone.json").exists()


def test_the_files_are_in_the_crate_and_readable_json() -> None:
    assert GRAMMARS_DIR.parts[-3:] == ("native", "core", "grammars")
    files = generated_files()
    assert set(files) == {f"{name}.json" for name in GRAMMARS} | {"auto.json"}
    for name, text in files.items():
        data = json.loads(text)
        assert data["schema"] == SCHEMA and f"{data['name']}.json" == name


def _walk(value: Any, path: str = "") -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str), path
            _walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for k, item in enumerate(value):
            _walk(item, f"{path}[{k}]")
    else:
        assert value is None or type(value) in (str, int, bool), (path, value)


@pytest.mark.parametrize("name", sorted({*GRAMMARS, "auto"}))
def test_the_data_is_plain_and_round_trips_json(name: str) -> None:
    data = data_of(_compiled(name))
    _walk(data)
    assert json.loads(json.dumps(data)) == data
    assert json.loads(grammar_data.grammar_json(_compiled(name))) == data


def test_the_data_names_the_dataclasses_fields() -> None:
    data = data_of(_compiled("hermes"))
    assert list(data) == [
        "schema",
        "name",
        "openers",
        "start_openers",
        "opener_steps",
        "start",
        "tokens",
        "call_ends",
        "opener_prefixes",
        "markup_prefixes",
        "token_openers",
        "auto",
        "reasoning",
        "blocks",
    ]
    kinds = {r["kind"] for b in data["blocks"] for r in (*b["regions"], b["skip"])}
    assert {"CSpace", "CJsonCalls", "CSkip"} <= kinds
    calls = next(r for b in data["blocks"] for r in b["regions"] if r["kind"] == "CJsonCalls")
    # (the default keys of a JSON call come from the grammar, as data)
    assert calls["keys"] == [["name"], ["arguments", "parameters"]]
    # (a step's fields at their default are left out; a failing step has its message)
    steps = [
        s
        for name in GRAMMARS
        for b in data_of(_compiled(name))["blocks"]
        for r in b["regions"]
        for _, s in r["steps"]
    ]
    failing = [s for s in steps if s["to"] == -5]
    assert failing and all(s["message"] for s in failing)
    assert all("message" not in s and "reason" not in s for s in steps if s["to"] != -5)


def _patterns(data: Any) -> list[str]:
    found: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "pattern" and value is not None:
                found.append(value)
            else:
                found += _patterns(value)
    elif isinstance(data, list):
        for item in data:
            found += _patterns(item)
    return found


def test_every_pattern_of_the_data_is_in_the_tables_syntax() -> None:
    patterns = {p for name in {*GRAMMARS, "auto"} for p in _patterns(data_of(_compiled(name)))}
    assert len(patterns) > 10
    for pattern in patterns:
        assert table_pattern(pattern) == pattern  # (a fixed point: already in the syntax)
        assert r"\s" not in pattern


_TEXTS = (
    "",
    " {",
    "\x1c[a",
    "\x85 <",
    "\u3000function=f",
    "get_weather\n<arg_key>city</arg_key>",
    "x" * 130 + "<arg_key>",
    "<\uff5ctool_call_begin\uff5c>",
    'ab">\n<param name="x">',
    "f> <",
    "- #&~",
)


def test_a_claim_written_in_the_tables_syntax_matches_as_its_declaration() -> None:
    auto = auto_tables().auto
    assert auto is not None
    seen = 0
    for claims in auto.claims.values():
        for claim in claims:
            if claim.pattern is None or claim.pattern.pattern == NEVER:
                continue
            written = re.compile(table_pattern(claim.pattern.pattern))
            for text in _TEXTS:
                assert (written.match(text) is None) == (claim.pattern.match(text) is None), (claim, text)
                seen += 1
    assert seen > 50


def test_python_spaces_are_str_isspace() -> None:
    spaces = re.compile(f"[{PYTHON_SPACES}]")
    assert [c for c in range(0x110000) if spaces.fullmatch(chr(c))] == [
        c for c in range(0x110000) if chr(c).isspace()
    ]


@pytest.mark.parametrize(
    ("source", "written"),
    [
        (r"\s*\{", f"[{PYTHON_SPACES}]*\\{{"),
        (r"[^\s<>]{1,128}>", f"[^{PYTHON_SPACES}<>]{{1,128}}>"),
        (r"\s*<\uff5ctool\uff5c>", f"[{PYTHON_SPACES}]*<\uff5ctool\uff5c>"),
        (r"(a|b)c?", "(?:a|b)c?"),
        (r"\-\ \#\x41", r"\- \#A"),
        ("a{,3}\u3000\u200b", "a{0,3}\\u3000\\u200b"),
        (NEVER, NEVER),
    ],
)
def test_table_pattern_writes_python_patterns_in_the_syntax(source: str, written: str) -> None:
    assert table_pattern(source) == written
    assert table_pattern(written) == written


@pytest.mark.parametrize(
    "source",
    [
        r"(?=x)",
        r"(?<=x)",
        r"(?!x)",
        r"\w",
        r"\d+",
        r"\b",
        "^x",
        "x$",
        r"\Z",
        r"(?P<a>x)",
        "[a",
        r"(a)\1",
        "a*?",
        "a++",
        "{",
        "[]",
        "a{2000}",
    ],
)
def test_a_pattern_outside_the_syntax_is_refused(source: str) -> None:
    with pytest.raises(ValueError, match="not in the tables' pattern syntax"):
        table_pattern(source)


def test_the_command_writes_and_checks(capsys: pytest.CaptureFixture[str]) -> None:
    assert grammar_files.main(["--check"]) == 0
    with pytest.raises(SystemExit):
        grammar_files.main([])
