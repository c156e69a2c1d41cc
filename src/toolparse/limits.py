"""The size and depth limits that keep untrusted model output harmless.

Model output is attacker-controlled: every buffer, nesting level and
recursion is bounded, and past a bound the parser emits an error event.
The bounds are options; this module holds their defaults and the range
each may take.
"""

from __future__ import annotations

from typing import Final

from toolparse.errors import InvalidOptionError

DEFAULT_MAX_CALL_CHARS: Final = 4 * 1024 * 1024
"""Largest call markup kept in memory, in characters."""
DEFAULT_MAX_DEPTH: Final = 64
"""Deepest nesting of a value inside a call."""
MAX_DEPTH_LIMIT: Final = 100
"""The deepest ``max_depth`` accepted. The readers keep stacks of their own,
but coercion and ``json`` recurse, about twice per level of a value: at this
bound a call needs up to about 225 free Python frames (measured: a recursive
schema coerced by the Python engine; the native core about 215; the default
64, about 150), under a quarter of Python's default recursion limit (1000),
so a caller may itself be some 750 frames deep (tests/test_hardening_three_misc.py
checks the quarter on both engines)."""


def check_count(name: str, value: object, most: int | None = None) -> int:
    """``value`` as a positive integer option, at most ``most``; raises
    :class:`~toolparse.InvalidOptionError` naming the option otherwise."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InvalidOptionError(f"{name} must be a positive integer, not {value!r}")
    if most is not None and value > most:
        raise InvalidOptionError(f"{name} must be at most {most}, not {value!r}")
    return value
