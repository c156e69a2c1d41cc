"""The packages import each other one way only, bottom to top:

events, errors, limits, readers -> tools, coercion -> engine -> grammars -> the front
(registry, parser, tool choice, request shaping, front-ends, CLI, tools around them),
and the front's parts import each other without a cycle.

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
    {"toolparse.engine", "toolparse._native"},  # (toolparse._native: the engine's native core)
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


MODULES = sorted([*SRC.rglob("*.py"), *SRC.rglob("*.pyi")])  # (the native core's stub too)
MODULE_NAMES = {module_name(p) for p in MODULES}


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


def front_part(module: str) -> str | None:
    """The part of the front a module belongs to: ``toolparse.X`` for the front's
    module or subpackage X (the grammar registry is ``toolparse.grammars``), or
    ``toolparse`` for the top-level package itself; None below the front."""
    if layer_of(module) != 4:
        return None
    return ".".join(module.split(".")[:2])


def loaded_by(path: Path) -> set[str]:
    """Every toolparse module an import in ``path`` runs, at any depth: the module
    named, its packages (their ``__init__`` runs first; the top-level one aside,
    which runs before anything), and ``from P import m`` for a submodule ``m``."""
    named: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("toolparse"):
            subs = {f"{node.module}.{alias.name}" for alias in node.names}
            named.update(subs & MODULE_NAMES)
            if not subs <= MODULE_NAMES:  # (names the module defines, not only its submodules)
                named.add(node.module)
        elif isinstance(node, ast.Import):
            named.update(a.name for a in node.names if a.name.startswith("toolparse"))
    loaded = set(named)
    for module in named:
        parts = module.split(".")
        loaded.update(".".join(parts[:k]) for k in range(2, len(parts)))
    return loaded


def front_graph() -> dict[str, set[str]]:
    """Which part of the front imports which others (lazy imports inside functions too)."""
    graph: dict[str, set[str]] = {}
    for path in MODULES:
        here = front_part(module_name(path))
        if here is None:
            continue
        edges = graph.setdefault(here, set())
        for module in loaded_by(path):
            there = front_part(module)
            if there is not None and there != here:
                edges.add(there)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as the path around it (first node repeated at the end), or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, list[str]]] = [(start, sorted(graph.get(start, ())))]
        path.append(start)
        on_path.add(start)
        while stack:
            node, pending = stack[-1]
            if not pending:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
                continue
            nxt = pending.pop(0)
            if nxt in on_path:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in done:
                stack.append((nxt, sorted(graph.get(nxt, ()))))
                path.append(nxt)
                on_path.add(nxt)
    return None


def test_find_cycle_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"b"}}) == ["b", "c", "b"]
    assert find_cycle({"a": {"a"}}) == ["a", "a"]


def test_the_front_has_no_import_cycle() -> None:
    graph = front_graph()
    cycle = find_cycle(graph)
    assert cycle is None, "the front's parts import each other in a cycle: " + " -> ".join(cycle or ())
    assert "toolparse.toolchoice" in graph["toolparse.parser"]  # (the lazy import is read too)
