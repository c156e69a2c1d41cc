"""Compare the native cores of two checkouts, scenario by scenario, in CPU time.

``python bench/ab.py A B [--rounds N] [--grammars hermes,xml]``: A and B are
checkout roots (each with its ``src/toolparse`` and its built
``_native*.so``, e.g. a ``git worktree`` of the older commit). Each round runs
one process per side, alternating which goes first, and each process times
every scenario of :mod:`toolparse.benchmark` (4-character deltas, the best of
a few passes, each pass repeating the run for about 0.2 s: CPU time may be
counted in scheduler ticks) and the making of a parser with real tools. The report gives
each side's median over the rounds and B's ratio to A: two builds measured
in the same run under the same load, which is what a change to the native
core is judged by (the machine's load moves both sides alike).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

# (what each side's process runs: only the interface both sides have had
# since the benchmark module existed)
_WORKER = r"""
import json, sys, time
from toolparse import StreamParser, benchmark

grammars = sys.argv[1].split(",")
passes = int(sys.argv[2])
tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
    "units": {"type": "string", "enum": ["c", "f"]}}, "required": ["city"]}}}]


def best(fn):
    # (CPU time may be counted in scheduler ticks: a pass repeats the run
    # until it lasts about 0.2 s, and the time of one run is reported)
    start = time.perf_counter()
    fn()
    reps = max(1, int(0.2 / max(time.perf_counter() - start, 1e-6)))
    times = []
    for _ in range(passes):
        start = time.process_time()
        for _ in range(reps):
            fn()
        times.append((time.process_time() - start) / reps)
    return min(times)


out = {}
for grammar in grammars:
    for name, text in benchmark.scenarios(grammar).items():
        deltas = benchmark.chunks(text, 4)
        out[f"{grammar} {name}"] = best(lambda: benchmark.run_toolparse(grammar, deltas, "native"))
    out[f"{grammar} set-up x200"] = best(
        lambda: [StreamParser(grammar=grammar, tools=tools) for _ in range(200)]
    )
print(json.dumps(out))
"""


def run_side(root: Path, grammars: str, passes: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(root / "src"), PYTHONHASHSEED="0")
    env.pop("TOOLPARSE_PURE", None)
    done = subprocess.run(
        [sys.executable, "-c", _WORKER, grammars, str(passes)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path, help="the checkout measured against (the older)")
    parser.add_argument("b", type=Path, help="the checkout measured")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--passes", type=int, default=5, help="passes a scenario, the best kept")
    parser.add_argument("--grammars", default="hermes,xml,qwen3-coder,pythonic,gemma4,muse")
    args = parser.parse_args(argv)
    runs: dict[str, list[dict[str, float]]] = {"a": [], "b": []}
    for k in range(args.rounds):
        order = ("a", "b") if k % 2 == 0 else ("b", "a")
        for side in order:
            runs[side].append(run_side(getattr(args, side), args.grammars, args.passes))
    print(f"{'scenario':34} {'A ms':>9} {'B ms':>9} {'B/A':>6}")
    worst = 0.0
    for name in runs["a"][0]:
        a = statistics.median(r[name] for r in runs["a"]) * 1000
        b = statistics.median(r[name] for r in runs["b"]) * 1000
        ratio = b / a if a else float("nan")
        worst = max(worst, ratio)
        print(f"{name:34} {a:9.3f} {b:9.3f} {ratio:6.3f}")
    print(f"(medians of {args.rounds} rounds, CPU time; worst B/A {worst:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
