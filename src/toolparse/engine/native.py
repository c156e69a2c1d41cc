"""Which engine runs: the native core where it is built, or the Python reference.

toolparse's engine exists twice. The Python classes of :mod:`toolparse.engine`
are the reference: readable, and complete on their own. The native core
(``toolparse._native``, the Rust crate in ``native/``, built by ``pip install``
where a Rust toolchain is found) runs the same engine in Rust: the text
scanner, the block readers and their regions, the calls, from the same
compiled tables, building the same event classes; and it alone has the short
paths that take most deltas without a reader (the lanes: ``lanes=False``
turns them off), which the reference does not mirror. What only Python can do
(a call's id, coercion of a complete value, converters, a pydantic model's
validation) is a call back into Python, once per call or value.

The engine classes (:class:`~toolparse.engine.core.Engine`,
:class:`toolparse.StreamParser`) have no instance layout of their own:
constructing one builds the concrete twin that runs (:func:`concrete`), the
native one by default where it is built. ``engine="python"`` (or the
environment variable ``TOOLPARSE_PURE=1``) picks the reference;
``engine="native"`` insists on the native core. The test suite runs both and
compares them event for event (``tests/test_native.py``, ``toolparse fuzz
--compare``): any difference is a bug in one of them.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any, Final

from toolparse.errors import InvalidOptionError

_native: ModuleType | None
try:
    _native = importlib.import_module("toolparse._native")
except ImportError:  # (installed without a Rust toolchain: the reference runs)
    _native = None

AVAILABLE: Final = _native is not None
"""Whether the native core is built in this installation."""
ENGINES: Final = ("native", "python")
PURE_VARIABLE: Final = "TOOLPARSE_PURE"
"""Set to ``1`` to run the Python reference where the native core is built."""


# (read on every parser's construction: os.environ's own dict, keyed by the encoded
# name, is a C-level lookup where os.environ.get runs three Python frames; a parser
# is built per request)
_ENVIRON: Final[dict[Any, Any] | None] = getattr(os.environ, "_data", None)
_PURE_KEY: Final = os.environ.encodekey(PURE_VARIABLE) if _ENVIRON is not None else None
_NOT_PURE: Final = frozenset({None, "", "0", b"", b"0"})  # (unset, empty or 0: str or, in _data, bytes)


def use_native(engine: str | None) -> bool:
    """Whether ``engine`` (an engine's ``engine=`` option) means the native core.
    None: the native core where it is built, unless ``TOOLPARSE_PURE`` is set."""
    if engine is None:
        if _ENVIRON is not None:
            return AVAILABLE and _ENVIRON.get(_PURE_KEY) in _NOT_PURE
        return AVAILABLE and os.environ.get(PURE_VARIABLE) in _NOT_PURE
    if engine == "python":
        return False
    if engine == "native":
        if not AVAILABLE:
            raise InvalidOptionError(
                "engine='native': the native core is not built in this installation "
                "(install toolparse where a Rust toolchain is found; see the README)"
            )
        return True
    raise InvalidOptionError(f"engine must be 'native', 'python' or None, not {engine!r}")


def default_engine() -> str:
    """The engine a parser built without ``engine=`` runs: ``"native"`` or ``"python"``."""
    return "native" if use_native(None) else "python"


_CONCRETE: dict[tuple[type[Any], bool], type[Any]] = {}


def concrete(cls: type[Any], native: bool) -> type[Any]:
    """The class that runs for the engine class ``cls``: ``cls`` with the slots
    its classes name (``_state``), on a shell that brings ``feed``, ``close``
    and the engine's properties: the native core's (``native``) or the
    reference's. Built once for each."""
    made = _CONCRETE.get((cls, native))
    if made is None:
        made = _CONCRETE[cls, native] = _concrete(cls, native)
    return made


def _concrete(cls: type[Any], native: bool) -> type[Any]:
    slots: dict[str, None] = {}
    for klass in reversed(cls.__mro__):
        slots.update(dict.fromkeys(klass.__dict__.get("_state", ())))
    namespace: dict[str, Any] = {
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
        "_concrete": True,
    }
    if native:
        assert _native is not None
        bases: tuple[type, ...] = (cls, _native.Core)
        namespace["engine"] = "native"
    else:
        from toolparse.engine.core import ReferenceShell  # (core imports this module)

        bases = (cls, ReferenceShell)
    namespace["__slots__"] = tuple(slots)
    return type(cls.__name__, bases, namespace)
