"""The registered grammars' data, generated into `toolparse-core`.

Each registered grammar, and ``auto``, compiled and written as the plain
data of :mod:`toolparse.engine.grammar_data` into the crate's ``grammars/``
folder (a checkout's ``native/core/grammars``), so that a Rust program reads
every format with no Python; and the ``reasoning`` option's named values
into the crate's ``reasoning.json``. ``python -m toolparse.grammar_files
--write`` regenerates them; ``--check`` exits 1 while one is stale
(``tests/test_grammar_data.py`` fails then too).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Final

from toolparse.engine.compile import compile_grammar
from toolparse.engine.grammar_data import grammar_file_text, reasoning_options_data

GRAMMARS_DIR: Final = Path(__file__).resolve().parents[2] / "native" / "core" / "grammars"
"""Where the generated files go (in a checkout: the crate's ``grammars/``)."""

REASONING_FILE: Final = GRAMMARS_DIR.parent / "reasoning.json"
"""Where the ``reasoning`` option's named values go (the crate's ``reasoning.json``)."""

COMMAND: Final = "python -m toolparse.grammar_files --write"
"""The command that regenerates the files."""


def generated_files() -> dict[str, str]:
    """Every generated file's name and text: each registered grammar, and ``auto``."""
    from toolparse.grammars import GRAMMARS, auto_tables

    files = {f"{name}.json": grammar_file_text(compile_grammar(g)) for name, g in GRAMMARS.items()}
    files["auto.json"] = grammar_file_text(auto_tables())
    return dict(sorted(files.items()))


def reasoning_file_text() -> str:
    """The text of the ``reasoning`` option's file (``grammar_data.reasoning_options_data``)."""
    from toolparse.grammars.reasoning import REASONING

    return json.dumps(reasoning_options_data(REASONING), ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def reasoning_file_stale(path: Path = REASONING_FILE) -> bool:
    """The ``reasoning`` option's file differs from what the options make now, or is missing."""
    return not path.is_file() or path.read_text(encoding="utf-8") != reasoning_file_text()


def stale_files(directory: Path = GRAMMARS_DIR) -> list[str]:
    """The generated files that differ from what the grammars make now, are
    missing, or are left over."""
    files = generated_files()
    stale = [
        name
        for name, text in files.items()
        if not (directory / name).is_file() or (directory / name).read_text(encoding="utf-8") != text
    ]
    stale += [p.name for p in sorted(directory.glob("*.json")) if p.name not in files]
    return stale


def write(directory: Path = GRAMMARS_DIR) -> list[str]:
    """Write the generated files (removing left-over ones); the names written."""
    directory.mkdir(parents=True, exist_ok=True)
    files = generated_files()
    written = stale_files(directory)
    for path in directory.glob("*.json"):
        if path.name not in files:
            path.unlink()
    for name, text in files.items():
        if name in written:
            (directory / name).write_text(text, encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    """``--write``: regenerate the crate's grammar files; ``--check``: exit 1
    if any is stale."""
    parser = argparse.ArgumentParser(prog="python -m toolparse.grammar_files", description=main.__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true")
    group.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if args.write:
        written = write()
        if reasoning_file_stale():
            REASONING_FILE.write_text(reasoning_file_text(), encoding="utf-8")
            written.append(REASONING_FILE.name)
        print(f"{len(written)} file(s) written in {GRAMMARS_DIR}: {', '.join(written) or 'none'}")
        return 0
    stale = stale_files() + ([REASONING_FILE.name] if reasoning_file_stale() else [])
    if stale:
        print(f"stale: {', '.join(stale)}; run {COMMAND}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
