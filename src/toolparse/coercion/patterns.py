"""Matching model-written keys against ``patternProperties`` in bounded time.

The keys come from the model, the patterns from the caller's schema, and a
backtracking regex engine can take exponential time on a crafted key
(``^(a|a)*$``, ``^((a+))+$``, ``.*.*.*=``). So:

* with ``google-re2`` installed (``pip install 'toolparse[re2]'``), a pattern
  RE2 accepts is matched by RE2, in time linear in the key;
* otherwise (or for a pattern RE2 rejects, such as one with a lookahead) a
  pattern is matched by Python's ``re`` only when a static check bounds its
  backtracking (:func:`key_limit`), and only against keys short enough for a
  fixed budget of steps.

A pattern that is not applied (invalid, unprovable, or a key too long for
it) is reported through the caller's ``report`` function, never raised.
"""

from __future__ import annotations

import functools
import importlib
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

MAX_KEY: Final = 4096
"""The longest key matched against any pattern."""

Report = Callable[[str, str], None]
"""``report(pattern, why)``: a pattern was not applied to a key."""

Matcher = Callable[[str], bool]


def _load_re2() -> Any:
    try:
        return importlib.import_module("re2")
    except ImportError:
        return None


_RE2: Any = _load_re2()


def pattern_schema(patterns: Mapping[str, Any], key: str, report: Report | None = None) -> Any:
    """The schema of the first ``patternProperties`` pattern ``key`` matches, or None."""
    for pattern, schema in patterns.items():
        matcher, limit, problem = compile_pattern(pattern)
        if matcher is None:
            if report is not None:
                report(str(pattern), problem)
            continue
        if len(key) > limit:
            if report is not None:
                report(
                    str(pattern),
                    f"a key longer than {limit} characters is not matched against it without google-re2",
                )
            continue
        if matcher(key):
            return schema
    return None


def _utf8_safe(key: str) -> str:
    """``key`` as RE2 can be given it: a lone surrogate, which UTF-8 cannot
    carry, read as U+FDD0 (a noncharacter no pattern names by accident; the
    native core's matcher reads it so too)."""
    if key.isascii():
        return key
    return "".join("\ufdd0" if "\ud800" <= c <= "\udfff" else c for c in key)


@functools.lru_cache(maxsize=512)
def compile_pattern(pattern: object) -> tuple[Matcher | None, int, str]:
    """(a matcher, the longest key it may be given, why there is no matcher)."""
    if not isinstance(pattern, str):
        return None, 0, "the pattern is not a string"
    try:
        python = re.compile(pattern)
    except re.error as exc:
        return None, 0, f"not a valid regular expression ({exc})"
    if _RE2 is not None:
        options = _RE2.Options()
        options.log_errors = False
        try:
            linear = _RE2.compile(pattern, options)
        except Exception:  # re2.error: RE2 does not support it; Python's re may, within bounds
            pass
        else:
            return (lambda key: linear.search(_utf8_safe(key)) is not None), MAX_KEY, ""
    limit = key_limit(pattern)
    if limit == 0:
        return (
            None,
            0,
            "it may backtrack without bound on a crafted key "
            "(install google-re2, the 'toolparse[re2]' extra, to apply it)",
        )
    return (lambda key: python.search(key) is not None), limit, ""


# -- the static check -------------------------------------------------------------------------

_parser: Any = importlib.import_module("re._parser")
_c: Any = importlib.import_module("re._constants")

_ONE_CHARACTER: Final = frozenset({_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN, _c.CATEGORY})
_REPEATS: Final = frozenset(
    op for op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)) if op is not None
)
_ATOMIC: Final = getattr(_c, "ATOMIC_GROUP", None)
_MAX_FACTOR: Final = 256
_STEP_BUDGET: Final = 1 << 14  # backtracking steps one pattern may spend on one key


class _Unsafe(Exception):
    pass


def key_limit(pattern: str) -> int:
    """The longest key Python's ``re`` may match ``pattern`` against within the
    step budget, or 0 when the pattern may backtrack without bound.

    Accepted: literals, classes, anchors, groups and lookarounds of fixed
    strings; repeats of a single character or of a fixed string of them;
    alternation outside repeats; at most one unbounded repeat on any path
    through the pattern, and bounded repeats and alternations whose choices
    multiply to at most 256. A search tries every start, so such a pattern
    costs about ``len(key) * choices`` steps, or ``len(key) ** 2 * choices``
    with an unbounded repeat (keys up to 128 characters then).
    """
    try:
        degree, factor = _cost(_parser.parse(pattern))
    except (_Unsafe, RecursionError):
        return 0
    except Exception:  # the private parser changed shape: refuse rather than guess
        return 0
    if degree > 1 or factor > _MAX_FACTOR:
        return 0
    if degree:
        return min(MAX_KEY, math.isqrt(_STEP_BUDGET // factor))
    return min(MAX_KEY, _STEP_BUDGET // factor)


def _cost(items: Any) -> tuple[int, int]:
    """How much a sequence may backtrack: (unbounded repeats along its worst
    path, the product of the choices its bounded repeats and alternations offer)."""
    degree, factor = 0, 1
    for op, arg in items:
        if op in _ONE_CHARACTER or op == _c.AT:
            continue
        if op == _c.SUBPATTERN:
            d, f = _cost(arg[-1])
        elif op == _ATOMIC:
            d, f = _cost(arg)
        elif op == _c.BRANCH:
            costs = [_cost(branch) for branch in arg[1]]
            d, f = max(c[0] for c in costs), sum(c[1] for c in costs)
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            d, f = _cost(arg[1])
            if d:
                raise _Unsafe  # a lookaround that repeats, evaluated again at every position
        elif op in _REPEATS:
            low, high, body = arg
            if not all(o in _ONE_CHARACTER for o, _ in _flatten(body)):
                raise _Unsafe  # a repeat of anything but characters
            d, f = (1, 1) if high == _c.MAXREPEAT else (0, high - low + 1)
        else:  # backreferences, conditionals
            raise _Unsafe
        degree += d
        factor = min(factor * f, _MAX_FACTOR + 1)
    return degree, factor


def _flatten(items: Any) -> list[tuple[Any, Any]]:
    """A repeat's body with plain groups opened (anything else is left for the caller to refuse)."""
    flat: list[tuple[Any, Any]] = []
    for op, arg in items:
        if op == _c.SUBPATTERN:
            flat.extend(_flatten(arg[-1]))
        else:
            flat.append((op, arg))
    return flat
