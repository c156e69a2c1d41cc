"""Pathological outputs whose parsing time must grow linearly: used by the
test suite and by ``toolparse fuzz``.

Each :class:`Shape` builds an output of about ``n`` characters that once made
some part of the parser quadratic or worse (a buffer joined again per piece,
a slice of the rest of the input copied per block, a regex compiled per
parameter name, a marker alternation as long as the tool list). The check
parses it at ``n`` and ``4 n`` in the same run and compares the times: a
linear parser takes about 4 times as long, a quadratic one 16 times.
Absolute times are never asserted (the machines are shared and noisy).

The time is this thread's CPU time (:func:`time.thread_time`), not the wall
clock, with the garbage collector held off, and each size's is the least of
several runs: a machine busy with other work makes the wall clock of a run
longer by whatever the scheduler gave to others, and a ratio of two such
runs says nothing; the CPU time the parse itself took barely moves.
(Checked with two busy loops keeping both cores of a 2-core machine busy:
see the README's "Development" section.) Every growth check of the project,
in the tests too, measures through :func:`cpu_seconds` and
:func:`check_linear`.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toolparse.engine.thought import WINDOW
from toolparse.grammars import deepseek as ds
from toolparse.parser import StreamParser

_INT_TOOL = [{"name": "f", "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}]
_STRING_TOOL = [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}]
_MANY_TOOLS = [{"name": f"tool_number_{k:04d}_with_a_long_descriptive_name"} for k in range(1000)]
_HERMES_CALL = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'


@dataclass(frozen=True)
class Shape:
    """An output of about ``n`` characters, fed in ``delta``-character deltas (0: one delta)."""

    name: str
    grammar: str
    make: Callable[[int], str]
    delta: int = 4
    options: dict[str, Any] = field(default_factory=dict)
    through: Callable[[StreamParser, list[str]], object] | None = None
    """What feeds the parser the deltas and closes it (None: ``feed`` and ``close``
    themselves; the OpenAI chunk conversion, for its own shapes)."""
    least: int = 0
    """The least ``n`` it is measured at (a shape whose cost shows only past a
    size, such as reasoning longer than the salvage window)."""

    def parse(self, n: int) -> float:
        """CPU seconds to parse this shape at size ``n`` (:func:`cpu_seconds`)."""
        text = self.make(n)
        size = self.delta or len(text) or 1
        deltas = [text[i : i + size] for i in range(0, len(text), size)]

        def work() -> None:
            parser = StreamParser(self.grammar, **self.options)
            if self.through is not None:
                self.through(parser, deltas)
            else:
                for delta in deltas:
                    parser.feed(delta)
                parser.close()

        return cpu_seconds(work)


def _fill(prefix: str, unit: str, n: int, suffix: str = "") -> str:
    return prefix + unit * max(1, n // len(unit)) + suffix


SHAPES: tuple[Shape, ...] = (
    # issue 9's findings
    Shape(
        "qwen3-coder: a value of newlines, no tools",
        "qwen3-coder",
        lambda n: _fill("<function=f><parameter=a>", "\n", n),
        16,
    ),
    Shape(
        "xml: CDATA in an integer parameter",
        "xml",
        lambda n: _fill("<f><n><![CDATA[", "x", n, "]]></n></f>"),
        16,
        {"tools": _INT_TOOL},
    ),
    Shape(
        "xml: unclosed CDATA in an integer parameter",
        "xml",
        lambda n: _fill("<f><n><![CDATA[", "x", n),
        16,
        {"tools": _INT_TOOL},
    ),
    Shape(
        "hermes: one delta of many calls past max_call_chars",
        "hermes",
        lambda n: _fill("", _HERMES_CALL, n),
        0,
        {"max_call_chars": 2048},
        least=40_000,
    ),
    Shape(
        "hermes: a broken call running past max_call_chars",
        "hermes",
        lambda n: _fill('<tool_call>{"name": "f", "arguments": {"a": 1 oops', "y", n),
        64,
        {"max_call_chars": 1000},
    ),
    Shape("xml: '<' with 1000 tools", "xml", lambda n: _fill("", "<", n), 4, {"tools": _MANY_TOOLS}),
    Shape(
        "xml: opening tags of 1000 tools",
        "xml",
        lambda n: _fill("", "<tool_number_0001_with_a_long_descriptive_nam ", n),
        4,
        {"tools": _MANY_TOOLS},
    ),
    Shape(
        "qwen3-coder: distinct parameter names",
        "qwen3-coder",
        lambda n: "<function=f>" + "".join(f"<parameter=p{k}>v</parameter>" for k in range(n // 26)),
        4,
    ),
    Shape(
        "qwen3-coder: distinct property tags",
        "qwen3-coder",
        lambda n: "<function=f>" + "".join(f"<p{k}>v</p{k}>" for k in range(n // 12)),
        4,
    ),
    Shape(
        "xml: distinct parameter names",
        "xml",
        lambda n: "<f>" + "".join(f"<p{k}>v</p{k}>" for k in range(n // 12)),
        4,
        {"tools": [{"name": "f"}]},
    ),
    # runs of the characters each reader treats specially
    Shape(
        "hermes: backslashes in a string",
        "hermes",
        lambda n: _fill('<tool_call>{"name": "f", "arguments": {"a": "', "\\", n),
        4,
    ),
    Shape(
        "hermes: quotes in a string",
        "hermes",
        lambda n: _fill('<tool_call>{"name": "f", "arguments": {"a": "', '" ', n),
        4,
    ),
    Shape(
        "hermes: open brackets past max_depth",
        "hermes",
        lambda n: _fill('<tool_call>{"name": "f", "arguments": {"a": ', "[", n),
        4,
    ),
    Shape("hermes: openers that open nothing", "hermes", lambda n: _fill("", "<tool_call> ", n), 4),
    Shape("hermes: '<' in prose", "hermes", lambda n: _fill("", "<", n), 4),
    Shape("fenced-json: backticks", "fenced-json", lambda n: _fill("", "`", n), 4),
    Shape(
        "fenced-json: fences that open nothing", "fenced-json", lambda n: _fill("", "```tool_call\nx", n), 4
    ),
    Shape(
        "qwen3-coder: closing tags inside a value",
        "qwen3-coder",
        lambda n: _fill("<function=f><parameter=a>", "</parameter", n),
        4,
    ),
    Shape(
        "qwen3-coder: entities and CDATA openers in a value",
        "qwen3-coder",
        lambda n: _fill("<function=f><parameter=a>", "&amp<![CDATA", n),
        4,
    ),
    Shape(
        "xml: '<' in a string parameter", "xml", lambda n: _fill("<f><a>", "<", n), 4, {"tools": _STRING_TOOL}
    ),
    # the common case, for scale
    Shape(
        "hermes: one long string argument",
        "hermes",
        lambda n: _fill(
            '<tool_call>{"name": "f", "arguments": {"a": "', "lorem ipsum ", n, '"}}</tool_call>'
        ),
        4,
    ),
    Shape(
        "qwen3-coder: one long string argument",
        "qwen3-coder",
        lambda n: _fill("<function=f><parameter=a>", "lorem ipsum ", n, "</parameter></function>"),
        4,
    ),
    Shape(
        "xml: one long string argument",
        "xml",
        lambda n: _fill("<f><a>", "lorem ipsum ", n, "</a></f>"),
        4,
        {"tools": _STRING_TOOL},
    ),
    # the reasoning channel (issue 11)
    Shape("hermes: reasoning of '<' and '</th'", "hermes", lambda n: _fill("<think>", "</th<", n), 4),
    Shape("hermes: whitespace before the answer", "hermes", lambda n: _fill("", " \n", n, "<think>x"), 4),
    Shape(
        "hermes: openers mid-answer, reasoning anywhere",
        "hermes",
        lambda n: _fill("", "<think>a</think>", n),
        4,
        {"reasoning": "think"},
    ),
    Shape(
        "qwen3-coder: calls inside prompt-opened reasoning",
        "qwen3-coder",
        lambda n: _fill("", "<tool_call><function=f><parameter=a>1</parameter></function></tool_call>", n),
        4,
        {"reasoning": "think-open"},
    ),
    Shape(
        "hermes: a forced answer after long reasoning",
        "hermes",
        lambda n: _fill("<think>", "lorem ipsum ", n, '</think>{"name": "f", "arguments": {}}'),
        4,
        {"tools": [{"name": "f"}], "tool_choice": "required"},
    ),
)


def _through_chunks(parser: StreamParser, deltas: list[str]) -> None:
    from toolparse.openai.chunks import ChoiceStream  # (lazily: the OpenAI layer sits above the parser)

    stream = ChoiceStream(parser)
    for delta in deltas:
        stream.content(delta)
    stream.finish()


def _repeated(text: str) -> Callable[[int], str]:
    return lambda n: text * max(1, n // len(text))


def _grammar_shapes() -> tuple[Shape, ...]:
    """For every grammar in the registry, each in one delta and in 4-character
    deltas: many calls, one call of many arguments (a region entered once per
    argument), and the format's own fuzz fragments (whole, broken and partial
    markup) over and over."""
    from toolparse.grammars import ENTRIES  # (the registry imports every grammar module)

    shapes: list[Shape] = []
    for name, entry in ENTRIES.items():
        prompt = entry.grammar.prompt
        tools = {"tools": list(entry.fuzz_tools)} if entry.fuzz_tools else {}
        tool = entry.fuzz_tools[0]["name"] if entry.fuzz_tools else "get_weather"
        call = prompt.render_call_after_text(tool, {"city": "Paris", "days": 3}) + "\n"
        fragments = "".join(entry.fragments)

        def many_arguments(n: int, prompt: Any = prompt, tool: str = tool) -> str:
            return str(prompt.render_call_after_text(tool, {f"a{k}": k for k in range(max(1, n // 12))}))

        def long_argument(n: int, prompt: Any = prompt, tool: str = tool) -> str:
            return str(prompt.render_call_after_text(tool, {"city": "lorem ipsum " * max(1, n // 12)}))

        shapes.append(Shape(f"{name}: a long string argument, in one delta", name, long_argument, 0, tools))
        for delta in (0, 4):
            where = "in one delta" if delta == 0 else "in small deltas"
            shapes.append(Shape(f"{name}: many calls, {where}", name, _repeated(call), delta, tools))
            shapes.append(
                Shape(f"{name}: a call of many arguments, {where}", name, many_arguments, delta, tools)
            )
            shapes.append(Shape(f"{name}: its fragments, {where}", name, _repeated(fragments), delta, tools))
    return tuple(shapes)


_ISSUE_25: tuple[Shape, ...] = (
    # issue 25's findings, in one delta as parse_text and the proxy's whole answers give them
    Shape("hermes: many short reasoning blocks, in one delta", "hermes", _repeated("<think>a</think>"), 0),
    Shape(
        "pythonic: an argument repeated, in one delta", "pythonic", lambda n: _fill("[f(", "a=1,", n, ")]"), 0
    ),
    Shape(
        "llama3-json: builtin call arguments, in one delta",
        "llama3-json",
        lambda n: _fill("<|python_tag|>b.call(", "a=1,", n, ")"),
        0,
    ),
    Shape(
        "pythonic: Olmo-style call lines, in one delta",
        "pythonic",
        lambda n: _fill("<function_calls>\n", "f(a=1)\n", n, "</function_calls>"),
        0,
    ),
    Shape(
        "deepseek: V3.1 calls, in one delta",
        "deepseek",
        lambda n: _fill(ds.CALLS_BEGIN, f'{ds.CALL_BEGIN}f{ds.SEP}{{"a": 1}}{ds.CALL_END}', n, ds.CALLS_END),
        0,
    ),
    Shape(
        "pythonic: backslashes in a string, in one delta", "pythonic", lambda n: _fill('[f(a="', "\\", n), 0
    ),
    Shape(
        "pythonic: escaped quotes in a string, in one delta",
        "pythonic",
        lambda n: _fill("[f(a='", "\\'", n, "')]"),
        0,
    ),
    Shape(
        "hermes: newlines through the chunk conversion", "hermes", _repeated("\n\n"), 2, {}, _through_chunks
    ),
    Shape(
        "hermes: lines through the chunk conversion, in one delta",
        "hermes",
        _repeated("a\n> b\n"),
        0,
        {},
        _through_chunks,
    ),
    Shape(
        "hermes: reasoning through the chunk conversion, in one delta",
        "hermes",
        _repeated("<think>a</think>b"),
        0,
        {},
        _through_chunks,
    ),
)

_UNCLOSED_THOUGHT = (  # (issue 27: reasoning kept for calls at the end, read once more)
    Shape(
        "hermes: unclosed reasoning full of calls, reported",
        "hermes",
        lambda n: _fill("<think>", _HERMES_CALL + " and ", n),
        4,
    ),
    Shape(
        "hermes: unclosed reasoning full of calls, salvaged, in one delta",
        "hermes",
        lambda n: _fill("<think>", _HERMES_CALL + " and ", n),
        0,
        {"reasoning_calls": "salvage"},
    ),
)


def _small_then_one(parser: StreamParser, deltas: list[str]) -> None:
    """The first 256 characters in 4-character deltas, then the rest in one
    delta (a server that flushes a backlog at once)."""
    (text,) = deltas
    for k in range(0, min(256, len(text)), 4):
        parser.feed(text[k : k + 4])
    parser.feed(text[256:])
    parser.close()


_FENCED_CALLS = "<think>\n```\n"  # (an example fence opened first, never closed)

_ISSUE_51 = (
    # issue 51: one big delta, and an unclosed thought longer than the window
    # ``reasoning_calls="salvage"`` reads it again through (its Markdown state
    # must be carried, not read again from the start)
    Shape(
        "hermes: one long string argument, in one delta",
        "hermes",
        lambda n: _fill('<tool_call>{"name": "f", "arguments": {"a": "', "lorem \\n ", n, '"}}</tool_call>'),
        0,
    ),
    Shape(
        "hermes: a few small deltas, then the rest in one",
        "hermes",
        lambda n: _fill('<tool_call>{"name": "f", "arguments": {"a": "', "lorem \\n ", n, '"}}</tool_call>'),
        0,
        {},
        _small_then_one,
    ),
    Shape(
        "qwen3-coder: a few small deltas, then the rest in one",
        "qwen3-coder",
        lambda n: _fill("<function=f><parameter=a>", "x < y\n", n, "</parameter></function>"),
        0,
        {},
        _small_then_one,
    ),
    *(
        Shape(
            f"hermes: unclosed reasoning past the window, a fence first, {mode}{where}",
            "hermes",
            lambda n: _fill(_FENCED_CALLS, _HERMES_CALL + " and ", n),
            delta,
            {"reasoning_calls": mode},
            least=WINDOW + 1024,
        )
        for mode in ("salvage", "report")
        for delta, where in ((0, ", in one delta"), (64, ""))
    ),
)

SHAPES = SHAPES + _ISSUE_25 + _UNCLOSED_THOUGHT + _ISSUE_51 + _grammar_shapes()


_MIN_SECONDS = 0.005  # below this, the clock's and the allocator's noise decide the ratio

BOUND = 8.0
"""The most ``time(4 n) / time(n)`` may be: a linear parser gives about 4, a
quadratic one 16. With two busy loops beside it on a loaded 2-core machine,
the CPU-time ratios of every shape, measured once, stayed under 7.6 but one
(9.5: a step at one size, which :func:`check_linear` measures again at
twice the size), on both engines."""


def cpu_seconds(work: Callable[[], object]) -> float:
    """The CPU seconds this thread spends in ``work()``, the garbage collector
    held off (a collection's cost depends on what earlier runs left behind;
    it runs when the collector is enabled again, outside the measure).

    CPU time, not the wall clock: on a loaded machine the wall clock also
    counts the time the scheduler gave other processes, which has nothing to
    do with the parser. (The parser runs in the calling thread; this thread's
    clock leaves other threads of the process out too.)"""
    enabled = gc.isenabled()
    gc.disable()
    try:
        started = time.thread_time()
        work()
        return time.thread_time() - started
    finally:
        if enabled:
            gc.enable()


def growth_ratio_of(measure: Callable[[int], float], n: int, repeats: int = 3) -> tuple[float, int]:
    """``measure(4 n) / measure(n)``, each the least of ``repeats`` runs, taken
    in turns, and the ``n`` used: one that measures under 5 ms at ``n`` is
    measured at a larger size (up to 8 n), so that the times compared are not
    noise. ``measure(n)``: the CPU seconds of one run at size ``n``
    (:func:`cpu_seconds`)."""
    limit = 8 * n
    while n < limit and measure(n) < _MIN_SECONDS:
        n *= 2
    small: list[float] = []
    large: list[float] = []
    for _ in range(repeats):
        small.append(measure(n))
        large.append(measure(4 * n))
    return min(large) / max(min(small), 1e-9), n


def check_linear(name: str, measure: Callable[[int], float], n: int, bound: float = BOUND) -> float:
    """Assert that ``measure`` grows linearly from ``n`` to ``4 n``
    (:func:`growth_ratio_of`); returns the ratio. A ratio past ``bound`` is
    measured once more, with more runs, and then, if still past it, at twice
    the size: a cost that grows faster than linearly does so at every size,
    while a step in it (the working set outgrowing a cache, a table resized
    once, a burst of contention for the core's caches) gives one high ratio
    and not the next (measured: 9.7 from 40,000 characters to 160,000 and
    4.1 from 80,000 to 320,000 for one linear shape)."""
    ratio, used = growth_ratio_of(measure, n)
    if ratio > bound:
        ratio, used = growth_ratio_of(measure, n, repeats=7)
    if ratio > bound:
        ratio, used = growth_ratio_of(measure, 2 * used, repeats=5)
    assert ratio <= bound, f"{name}: CPU time grew {ratio:.1f}x from {used} to {4 * used} characters"
    return ratio


def growth_ratio(shape: Shape, n: int, repeats: int = 3) -> float:
    """CPU time(4 n) / CPU time(n) for ``shape`` (:func:`growth_ratio_of`), at
    its :attr:`~Shape.least` size at least."""
    return growth_ratio_of(shape.parse, max(n, shape.least), repeats)[0]


def check_growth(shape: Shape, n: int, bound: float = BOUND) -> float:
    """Assert that parsing ``shape`` grows linearly from ``n`` (its
    :attr:`~Shape.least` at least) to ``4 n``: :func:`check_linear`."""
    return check_linear(shape.name, shape.parse, max(n, shape.least), bound)
