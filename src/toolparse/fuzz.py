"""``toolparse fuzz``: malformed and adversarial model outputs, fed with random
chunking to every grammar, checking the invariants (:mod:`toolparse.invariants`).

Each grammar's fragments (and its own tools, where it has them) live in its
module, read here through the registry (:data:`toolparse.grammars.ENTRIES`);
the strategies here splice them with the shared pieces below. Every grammar
is also spliced with every *other* grammar's fragments and with the markers
of every declaration (:data:`SPLICED`: openers, closers, the terminals inside
calls, value wrappers, reasoning markers, whole and cut short): a parser
meets other formats' markup in prose, in values and in reasoning, and its
own assumptions are what its own fragments are drawn from. The test suite's
shared matrix uses the same pieces, so a long fuzz run explores the same
space as the tests, further. Needs hypothesis (``pip install toolparse[fuzz]``).

``--compare`` also runs each example through both engines, the native core
and the Python reference (:mod:`toolparse.engine.native`), with the same
options, ids and deltas, and fails on the first ``feed`` or ``close`` whose
events (or error) differ: invariant 5 of :mod:`toolparse.invariants`, checked
with the others on every example (the native core must be built).

A failing input is shrunk by hypothesis and written to a JSON file
(grammar, tools, text, deltas) that reproduces it; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolparse.engine import native
from toolparse.engine.declare import Grammar
from toolparse.errors import ToolparseError, UnknownGrammarError
from toolparse.grammars import AUTO, ENTRIES, get_entry

DESCRIPTION = (
    "Feed malformed and adversarial model outputs, with random chunking and random parser "
    "options, to every grammar, and check the invariants (conservation, chunking independence, "
    "reconciliation, every started call ends, on the native core the same events with no lane "
    "armed: lanes=False); "
    "also check that pathological outputs parse in "
    "linear time. With --compare, also check that the native core and the Python reference give "
    "the same events: its full path feed by feed, its lanes after merging adjacent deltas. "
    "A failure is shrunk and written to a JSON file that --replay "
    "runs again."
)


def _grammar_tools() -> list[dict[str, Any]]:
    """Every grammar's own tools (:attr:`GrammarEntry.fuzz_tools`), each name once."""
    tools: dict[str, dict[str, Any]] = {}
    for entry in ENTRIES.values():
        for tool in entry.fuzz_tools or ():
            tools.setdefault(tool["name"], dict(tool))
    return list(tools.values())


# Tools the fuzzer may declare in any grammar: the names the fragments call
# (every grammar's own tools, then these), with schemas that exercise coercion
# (unions, enums, arrays, closed objects, a recursive union, patternProperties
# both safe and catastrophic).
_NESTED = {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/nested"}}, {"type": "integer"}]}
FUZZ_TOOLS: list[dict[str, Any]] = [
    *_grammar_tools(),
    {
        "name": "f",
        "parameters": {
            "type": "object",
            "properties": {
                "a": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "x": {"type": "string", "enum": ["y", "z"]},
                "t": {"type": "array", "items": {"type": "string"}},
                "n": {"$ref": "#/$defs/nested"},
            },
            "patternProperties": {"^(a|a)*$": {"type": "boolean"}, "^p[0-9]+$": {"type": "number"}},
            "$defs": {"nested": _NESTED},
        },
    },
    {
        "name": "w",
        "parameters": {
            "type": "object",
            "properties": {"c": {"type": "string"}, "p": {"type": "integer"}},
            "additionalProperties": False,
        },
    },
    {"name": "h", "parameters": {"type": "object", "properties": {"x": {"type": "number"}}}},
]

# Reasoning markers of every preset, whole and cut short
REASONING_FRAGMENTS = [
    "<think>",
    "</think>",
    "\n<think>\n",
    "\n</think>\n\n",
    "<thi",
    "</thin",
    "<seed:think>",
    "</seed:think>",
    "◁think▷",
    "◁/think▷",
    "[THINK]",
    "[/THINK]",
]

# Markdown around calls: code fences and quotes make them examples (text)
MARKDOWN = ["\n```\n", "\n```python\n", "\n~~~~\n", "\n> ", "\n   ```", "````\n", "\n"]

ADVERSARIAL = [
    "\x00\x01\x1b[31m",  # control characters
    "\ud800",  # a lone surrogate
    "\udfff tail",
    "[" * 300,  # deep nesting
    "{" * 300,
    "<a>" * 200,
    "x" * 5000,  # a long run
    '"' * 50,
    "\\" * 50,
    "&#0; &#x110000; &#xD800; &lt",
    '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>&e;',
    "<![CDATA[ ]]> ]]> <![CDATA[",
    '{"name": "f", "arguments": {"a": "1", "n": [[[[2]]]], "aaaa": "true", "p12": "3"}}',  # a forced answer
    '[{"name": "h", "arguments": {"x": "2.5"}}, {"name": "w", "arguments": {"c": 1, "q": 2}}]',
    '"<tool_call>", "</tool_call>", "```tool_call\n", "<function=x>"',
]


def markers_of(grammar: Grammar) -> list[str]:
    """Every literal marker ``grammar`` declares: its openers and their
    closers, each terminal its regions end at or nest (the tags inside a call,
    a value's closer), the characters a region steps on, and its reasoning
    markers. (Marker families matched by shape, ``<any>``, are left out.)"""
    found: list[str] = []
    for key, opener in grammar.openers.items():
        found += [t for t in (key, opener.closer) if isinstance(t, str)]
    for region in grammar.regions.values():
        for key in getattr(region, "on", {}):
            found.append(key)
        for key, value in getattr(region, "nest", {}).items():
            found += [key, value]
        found += list(getattr(region, "chars", {}))
    if grammar.reasoning is not None:
        found += [
            m for m in (grammar.reasoning.open, grammar.reasoning.close, *grammar.reasoning.markup) if m
        ]
    return list(dict.fromkeys(m for m in found if isinstance(m, str) and m))


def _cut(marker: str) -> list[str]:
    """A marker, and it cut short (its first half, all but its last character)."""
    return list(dict.fromkeys(m for m in (marker, marker[: len(marker) // 2], marker[:-1]) if m))


# The wrappers a parameter's value may hold: <value> (Qwen3-Coder and the
# XML family), CDATA and entities (XML), the string flags of DSML and GCML
VALUE_WRAPPERS = [
    "<value>",
    "</value>",
    "<value>a</value> and <value>b</value>",
    "<![CDATA[",
    "]]>",
    "&lt;",
    "&amp;",
    '" string="true">',
    '" string="false">',
]


def _spliced() -> list[str]:
    """What every grammar is spliced with (:data:`SPLICED`)."""
    from toolparse.grammars.reasoning import REASONING

    markers: list[str] = []
    for entry in ENTRIES.values():
        markers += markers_of(entry.grammar)
    for reasoning in REASONING.values():
        if reasoning is not None:
            markers += [m for m in (reasoning.open, reasoning.close, *reasoning.markup) if m]
    cut = [piece for marker in dict.fromkeys(markers) for piece in _cut(marker)]
    return list(dict.fromkeys([*cut, *VALUE_WRAPPERS]))


SPLICED: list[str] = _spliced()
"""Every grammar's markers, whole and cut short, and the value wrappers:
spliced into every grammar's outputs, its own and every other's."""

EVERY_FRAGMENT: list[str] = list(dict.fromkeys(f for entry in ENTRIES.values() for f in entry.fragments))
"""Every grammar's fragments (whole and broken calls): spliced into every grammar."""


def fragments_of(grammar: str) -> list[str]:
    """The fragments ``grammar`` is fuzzed with (``"auto"``: every grammar's)."""
    if grammar == AUTO.name:
        return [fragment for entry in ENTRIES.values() for fragment in entry.fragments]
    return list(get_entry(grammar).fragments)


def tools_of(grammar: str) -> list[dict[str, Any]] | None:
    """The tools ``grammar`` runs with by default (``"auto"``: none)."""
    if grammar == AUTO.name:
        return None
    tools = get_entry(grammar).fuzz_tools
    return None if tools is None else [dict(tool) for tool in tools]


def pieces(grammar: str, extra: Sequence[str] = ADVERSARIAL) -> Any:
    """A hypothesis strategy of one piece of a model output for ``grammar``:
    prose, one of its own fragments, one of every grammar's fragments
    (:data:`EVERY_FRAGMENT`), one of every grammar's markers (:data:`SPLICED`),
    one of ``extra``, Markdown, or a reasoning marker. Each kind is drawn as
    often (its own fragments as often as everyone's: they reach its states)."""
    from hypothesis import strategies as st

    prose = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
    return st.one_of(
        prose,
        st.sampled_from(fragments_of(grammar)),
        st.sampled_from(EVERY_FRAGMENT),
        st.sampled_from(SPLICED),
        st.sampled_from(list(extra)),
        st.sampled_from(MARKDOWN),
        st.sampled_from(REASONING_FRAGMENTS),
    )


def outputs(grammar: str) -> Any:
    """A hypothesis strategy of model outputs for ``grammar``: prose spliced
    with the grammar's fragments, every other grammar's fragments and
    markers, and adversarial pieces (:func:`pieces`)."""
    from hypothesis import strategies as st

    return st.lists(pieces(grammar), max_size=8).map("".join)


def splits(text: str) -> Any:
    """A strategy of ways to cut ``text`` into deltas (empty ones included)."""
    from hypothesis import strategies as st

    def cut(cuts: list[int]) -> list[str]:
        bounds = [0, *sorted(cuts), len(text)]
        return [text[a:b] for a, b in itertools.pairwise(bounds)]

    return st.lists(st.integers(0, len(text)), max_size=12).map(cut)


def parser_options(grammar: str) -> Any:
    """A hypothesis strategy of parser options: declared tools or none, the size
    and depth limits (tiny ones included), errors as text, coercion, the
    reasoning markers, and tool choice with its forced-answer switches. Plain
    data, so a failure file holds them as JSON."""
    from hypothesis import strategies as st

    from toolparse.grammars.reasoning import REASONING

    # the grammar's own tools (none for most) or every tool the fragments call
    tools = st.sampled_from([tools_of(grammar), FUZZ_TOOLS])

    def with_choice(options: dict[str, Any]) -> Any:
        declared = options.get("tools")
        if declared is None:
            return st.just(options)
        forced = {"type": "tool", "name": declared[0]["name"]}
        choices = st.sampled_from(["auto", "none", "required", forced])
        extra = {"tool_choice": choices, "collapse": st.booleans(), "unknown_on_error": st.booleans()}
        return st.fixed_dictionaries({}, optional=extra).map(lambda more: {**options, **more})

    limits = {
        "max_call_chars": st.one_of(st.integers(1, 64), st.integers(65, 4000)),
        "max_depth": st.one_of(st.integers(1, 6), st.integers(7, 100)),
        "errors_as_text": st.booleans(),
        "coerce": st.booleans(),
        "reasoning": st.sampled_from(sorted(REASONING)),
        "reasoning_calls": st.sampled_from(["report", "salvage", "ignore"]),
    }
    return st.fixed_dictionaries({"tools": tools}, optional=limits).flatmap(with_choice)


def check_example(
    grammar: str,
    text: str,
    deltas: Sequence[str],
    options: dict[str, Any] | None = None,
    *,
    memory: bool = False,
) -> None:
    """Every invariant for one input under ``options``; raises AssertionError.
    Only documented usage errors (:class:`ToolparseError`) may be raised by
    the parser, and none is expected here. (``--compare`` checks the engines
    after it: :func:`compare_engines`.)"""
    from toolparse.invariants import check_all

    options = dict(options) if options is not None else {"tools": tools_of(grammar)}
    if memory:
        tracemalloc.start()
    try:
        check_all(grammar, text, [list(deltas)], **options)
        if memory:
            peak = tracemalloc.get_traced_memory()[1]
            bound = 200 * len(text) + 8_000_000
            assert peak <= bound, f"peak memory {peak} bytes for {len(text)} characters"
    finally:
        if memory:
            tracemalloc.stop()


def compare_engines(
    grammar: str, text: str, deltas: Sequence[str], options: dict[str, Any] | None = None
) -> None:
    """The native core against the Python reference (invariant 5,
    :func:`toolparse.invariants.check_engines`: its full path feed by feed, its
    lanes event for event after merging adjacent deltas), in ``deltas`` and in
    one-character deltas (where the lanes take the most)."""
    from toolparse.invariants import check_engines

    options = dict(options) if options is not None else {"tools": tools_of(grammar)}
    chunkings: list[tuple[str, Sequence[str], dict[str, Any]]] = [
        ("the deltas", deltas, options),
        ("one-character deltas", list(text), options),
    ]
    for name, pieces, chosen in chunkings:
        try:
            check_engines(grammar, pieces, **chosen)
        except AssertionError as exc:
            raise AssertionError(f"in {name}: {exc}") from None


def _explorer(
    grammar: str, last: dict[str, Any], examples: int, seed_value: int, compare: bool = False
) -> Any:
    """A hypothesis test over ``grammar``'s outputs and options; ``last`` keeps the input in hand."""
    from hypothesis import HealthCheck, given, seed, settings
    from hypothesis import strategies as st

    @seed(seed_value)
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
        report_multiple_bugs=False,  # shrink one failure, the one ``last`` holds
    )
    @given(data=st.data())
    def explore(data: Any) -> None:
        text = data.draw(outputs(grammar))
        deltas = data.draw(splits(text))
        options = data.draw(parser_options(grammar))
        last.update(grammar=grammar, text=text, deltas=deltas, options=options)
        check_example(grammar, text, deltas, options, memory=len(text) > 2000)
        if compare:
            compare_engines(grammar, text, deltas, options)

    return explore


def add_arguments(parser: argparse.ArgumentParser) -> None:
    amount = parser.add_mutually_exclusive_group()
    amount.add_argument("--examples", type=int, default=None, help="examples per grammar and batch")
    amount.add_argument("--seconds", type=float, default=None, help="run for this long")
    amount.add_argument("--replay", metavar="FAILURE.json", help="run one failure file again and exit")
    parser.add_argument("--grammar", action="append", help="only these grammars (repeatable)")
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of the examples (default: a new one, printed)"
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="also run every example through both engines (the native core and the Python "
        "reference: same options, ids and deltas) and fail on the first difference: a feed whose "
        "events or error differ with the native lanes off, or events that differ, merged, with "
        "them on (needs the native core built)",
    )
    parser.add_argument(
        "--failure-file", default="toolparse-fuzz-failure.json", help="where a failing input is written"
    )
    parser.add_argument(
        "--keep-going",
        action="store_true",
        help="after a failure, go on (each failure written to its own file: the failure file's name "
        "with its number) and exit 1 at the end; to collect every finding of a long run",
    )
    parser.add_argument(
        "--growth-size",
        type=int,
        default=20_000,
        help="also check that each pathological shape's time grows linearly from this size to 4x "
        "(0 to skip; default 20000)",
    )


_NO_NATIVE = (
    "toolparse fuzz{what}: the native core (toolparse._native) is not built in this installation: "
    "there is no engine to compare the Python reference with (install toolparse where a Rust "
    "toolchain is found; see the README)"
)


def _describe_failure(exc: BaseException) -> str:
    if isinstance(exc, ToolparseError):
        return f"usage error raised on model data: {exc!r}"
    return f"{type(exc).__name__}: {exc}"


def _replay(path: str, compare: bool = False) -> int:
    """Run the failure file ``path`` again (``compare``: the engines too, as
    they are for a failure ``--compare`` wrote)."""
    try:
        case = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ToolparseError(f"cannot read the failure file {path!r}: {exc}") from exc
    compare = compare or bool(case.get("compare"))
    if compare and not native.AVAILABLE:
        print(_NO_NATIVE.format(what=f" --replay {path} (a failure of --compare)"), file=sys.stderr)
        return 2
    try:
        check_example(case["grammar"], case["text"], case["deltas"], case.get("options"))
        if compare:
            compare_engines(case["grammar"], case["text"], case["deltas"], case.get("options"))
    except Exception as exc:
        print(f"still failing: {_describe_failure(exc)[:500]}", file=sys.stderr)
        return 1
    print("passes now", file=sys.stderr)
    return 0


def _check_growth(size: int) -> str | None:
    from toolparse.growth import SHAPES, check_growth

    for k, shape in enumerate(SHAPES, 1):
        print(f"\rgrowth {k}/{len(SHAPES)}: {shape.name[:60]:60}", end="", file=sys.stderr)
        try:
            check_growth(shape, size)
        except AssertionError as exc:
            return str(exc)
    print(f"\rgrowth: {len(SHAPES)} pathological shapes grow linearly{' ' * 50}", file=sys.stderr)
    return None


def run(args: argparse.Namespace) -> int:
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        print("toolparse fuzz needs hypothesis: pip install 'toolparse[fuzz]'", file=sys.stderr)
        return 2
    compare = bool(getattr(args, "compare", False))
    if args.replay:
        return _replay(args.replay, compare)
    if compare and not native.AVAILABLE:
        print(_NO_NATIVE.format(what=" --compare"), file=sys.stderr)
        return 2
    try:  # (an alias stands for its grammar)
        grammars = [
            name if name == AUTO.name else get_entry(name).grammar.name
            for name in args.grammar or [*sorted(ENTRIES), AUTO.name]
        ]
    except UnknownGrammarError as exc:
        print(f"toolparse fuzz: {exc}", file=sys.stderr)
        return 2
    base_seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    engines = f"invariants checked on the {native.default_engine()} engine"
    if compare:
        engines += (
            ", and each example run under both engines and compared (--compare: the native full path"
            " feed by feed, its lanes after merging adjacent deltas)"
        )
    print(f"toolparse fuzz: seed {base_seed} (run again with --seed {base_seed}); {engines}", file=sys.stderr)
    if args.growth_size:
        problem = _check_growth(args.growth_size)
        if problem is not None:
            print(f"\nFAILED: {problem}", file=sys.stderr)
            return 1
    deadline = time.monotonic() + args.seconds if args.seconds else None
    per_batch = 200 if args.examples is None else args.examples
    keep_going = bool(getattr(args, "keep_going", False))
    batch = 0
    total = 0
    failures = 0
    started = time.monotonic()
    while True:
        for k, grammar in enumerate(grammars):
            last: dict[str, Any] = {}
            seed_value = (base_seed * 1_000_003 + batch * 7919 + k) % (1 << 63)
            explore = _explorer(grammar, last, per_batch, seed_value, compare)
            try:
                explore()
            except Exception as exc:  # any failure is a finding: assertion, crash, usage error
                message = _describe_failure(exc)
                case = {**last, "seed": base_seed, "batch": batch, "compare": compare, "failure": message}
                failures += 1
                where = Path(args.failure_file)
                if keep_going:
                    where = where.with_name(f"{where.stem}-{failures}{where.suffix}")
                where.write_text(json.dumps(case, indent=2))  # ASCII: lone surrogates too
                print(
                    f"\nFAILED in {grammar}: {message[:300]}\nreproducible case written to "
                    f"{where} (toolparse fuzz --replay {where})",
                    file=sys.stderr,
                )
                if not keep_going:
                    return 1
            total += per_batch
            elapsed = time.monotonic() - started
            print(f"\r{total} examples, {elapsed:.0f} s, no failure ({grammar})", end="", file=sys.stderr)
        batch += 1
        if deadline is None or time.monotonic() >= deadline:
            break
    if failures:
        print(f"\n{total} examples, seed {base_seed}: {failures} failures (--keep-going)", file=sys.stderr)
        return 1
    agreed = ", and the native and python engines gave the same events" if compare else ""
    print(
        f"\n{total} examples over {len(grammars)} grammars, options drawn, seed {base_seed}: "
        f"every invariant held{agreed}",
        file=sys.stderr,
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="toolparse fuzz", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
