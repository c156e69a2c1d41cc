"""The stub of the native core (``src/toolparse/_native.pyi``) against the built module.

``mypy.stubtest`` (in ``.ci/run``) compares every name, function and method
with the stub, but not the constructors: a PyO3 class's ``__new__`` takes
``(*args, **kwargs)`` at run time, its real parameters are only in the
class's ``__text_signature__``. These tests check those, and that the stub
names what the module exports, so that ``pytest`` alone catches the usual
drift (a function added in Rust and not in the stub).
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path
from typing import Any

import pytest

import toolparse
from toolparse.engine import native

pytestmark = pytest.mark.skipif(
    not native.AVAILABLE, reason="the native core (toolparse._native) is not built in this installation"
)

STUB = Path(toolparse.__file__).with_name("_native.pyi")


def _module() -> Any:
    return importlib.import_module("toolparse._native")


def _stub() -> ast.Module:
    return ast.parse(STUB.read_text(encoding="utf-8"))


def _stub_all(tree: ast.Module) -> set[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == [
            "__all__"
        ]:
            return set(ast.literal_eval(node.value))
    raise AssertionError("the stub has no __all__")


def _signature(function: ast.FunctionDef) -> inspect.Signature:
    """The signature of the stub's ``__new__``, without ``cls``, as ``inspect`` writes one."""
    args = function.args
    P = inspect.Parameter
    empty = P.empty
    positional = [*args.posonlyargs, *args.args]
    defaults = [empty] * (len(positional) - len(args.defaults)) + [
        ast.literal_eval(d) for d in args.defaults
    ]
    kinds = [P.POSITIONAL_ONLY] * len(args.posonlyargs) + [P.POSITIONAL_OR_KEYWORD] * len(args.args)
    parameters = [
        P(a.arg, kind, default=default) for a, kind, default in zip(positional, kinds, defaults, strict=True)
    ][1:]  # (cls)
    if args.vararg is not None:
        parameters.append(P(args.vararg.arg, P.VAR_POSITIONAL))
    for a, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        value = empty if default is None else ast.literal_eval(default)
        parameters.append(P(a.arg, P.KEYWORD_ONLY, default=value))
    if args.kwarg is not None:
        parameters.append(P(args.kwarg.arg, P.VAR_KEYWORD))
    return inspect.Signature(parameters)


def _stub_constructors(tree: ast.Module) -> dict[str, inspect.Signature | None]:
    """Each class of the stub: its ``__new__``'s signature, or None where it declares none."""
    constructors: dict[str, inspect.Signature | None] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            new = [f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__new__"]
            constructors[node.name] = _signature(new[0]) if new else None
    return constructors


def test_the_stub_names_what_the_module_exports() -> None:
    assert _stub_all(_stub()) == set(_module().__all__)


def test_the_stub_constructors_are_the_modules() -> None:
    module = _module()
    constructors = _stub_constructors(_stub())
    assert set(constructors) == {name for name in module.__all__ if isinstance(getattr(module, name), type)}
    for name, stub in constructors.items():
        cls = getattr(module, name)
        if cls.__text_signature__ is None:  # (no #[new]: made by the core only)
            assert stub is None, f"{name} has no constructor, the stub declares {stub}"
            with pytest.raises(TypeError):
                cls()
        else:
            assert stub == inspect.signature(cls), f"{name}: stub {stub}, module {inspect.signature(cls)}"


def test_a_changed_constructor_is_found() -> None:
    """(The comparison itself: a parameter renamed in the stub is a difference.)"""
    tree = _stub()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "__new__" and len(node.args.args) > 1:
            node.args.args[1].arg += "_renamed"
            break
    changed = _stub_constructors(tree)
    module = _module()
    differ = [n for n, stub in changed.items() if stub and stub != inspect.signature(getattr(module, n))]
    assert len(differ) == 1
