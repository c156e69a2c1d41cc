"""The packages import each other one way only, bottom to top:

events, errors, limits, readers -> tools, coercion -> engine -> grammars -> the front
(registry, parser, tool choice, front-ends, CLI, tools around them).

Read from the source (every ``import``, at any depth, type-checking ones too),
so a cycle or an upward import fails here before it tangles the code.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from support import ROOT

SRC = ROOT / "src" / "toolparse"

LAYERS: list[set[str]] = [
    {"toolparse.events", "toolparse.errors", "toolparse.limits", "toolparse.readers"},
    {"toolparse.tools", "toolparse.coercion"},
    {"toolparse.engine"},
    {"toolparse.grammars.declarations"},  # every module of toolparse.grammars but its __init__ (the registry)
    {"toolparse"},  # the front: everything else
]


def layer_of(module: str) -> int:
    if module.startswith("toolparse.grammars.") and module != "toolparse.grammars":
        return 3
    for level, prefixes in enumerate(LAYERS[:3]):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return level
    return 4


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("toolparse"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("toolparse"))
    return found


MODULES = sorted(SRC.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[module_name(p) for p in MODULES])
def test_imports_point_down(path: Path) -> None:
    here = module_name(path)
    for imported in imports_of(path):
        assert layer_of(imported) <= layer_of(here), f"{here} (layer {layer_of(here)}) imports {imported}"


def test_the_engine_imports_no_grammar() -> None:
    for path in (SRC / "engine").rglob("*.py"):
        assert not any(m.startswith("toolparse.grammars") for m in imports_of(path)), path.name


def test_grammar_declarations_hold_no_parsing_code() -> None:
    # a declaration module defines data and its prompt side: no classes but a PromptFormat
    for path in (SRC / "grammars").glob("*.py"):
        if path.name in ("__init__.py", "prompts.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
        for cls in classes:
            bases = [b.id for b in cls.bases if isinstance(b, ast.Name)]
            assert bases == ["PromptFormat"], f"{path.name}: class {cls.name} is not a prompt side"
