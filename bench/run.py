"""Run the benchmark suite from a checkout: ``python bench/run.py [--quick] [--output F] [--plot F]``.

The same as ``toolparse bench``; the code is :mod:`toolparse.benchmark`.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from toolparse.benchmark import main

if __name__ == "__main__":
    raise SystemExit(main())
