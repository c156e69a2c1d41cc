"""The training run of the native core's profile-guided build (see
``refresh.sh`` and docs/native.md, *Profile-guided build*).

It streams what the core reads in use, through every grammar: prose, calls
among text, fifty small calls, a long code-like argument and malformed
markup (the generators of ``toolparse bench``), in deltas of 1 to 64
characters, then the corpus's real outputs in their real tokenizer splits
(``grammar="auto"``). Each kind of stream is weighted so that none swamps the
others' counts: the compiler lays out code by how often each path runs, and a
profile made of one 100 KB argument would call the rest cold.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from toolparse import StreamParser
from toolparse import benchmark as bench
from toolparse.engine import native

ROOT = Path(__file__).resolve().parents[2]
SPLITS = ROOT / "tests" / "fixtures" / "corpus" / "token_splits.jsonl"

# (scenario, delta sizes, times each): over the 42 grammars, from 0.26M deltas
# (prose) to 1.2M (the argument, whose deltas cost least; 37% of all)
PLAN = (
    ("prose 20 KB", (4, 16), 1),
    ("three calls 2 KB", (1, 4, 16, 64), 3),
    ("fifty calls", (1, 4, 16, 64), 2),
    ("long argument 100 KB", (4, 64), 1),
    ("malformed mix", (1, 4, 16), 2),
)


def stream(grammar: str, deltas: list[str], tools: list[dict[str, object]] | None) -> None:
    parser = StreamParser(grammar, tools, engine="native")
    for delta in deltas:
        parser.feed(delta)
    parser.close()


def main() -> int:
    if not native.AVAILABLE:
        print("the native core is not built: nothing to train", file=sys.stderr)
        return 1
    for grammar in bench.GRAMMARS:
        texts = bench.scenarios(grammar)
        for scenario, sizes, times in PLAN:
            for size in sizes:
                deltas = bench.chunks(texts[scenario], size)
                for _ in range(times):
                    stream(grammar, deltas, bench.TOOLS)
    for line in SPLITS.read_text(encoding="utf-8").splitlines():
        deltas = json.loads(line)["deltas"]
        for _ in range(5):
            stream("auto", deltas, None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
