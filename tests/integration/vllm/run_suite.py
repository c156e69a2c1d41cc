"""Run vLLM's own tests (from the 0.33.0 sdist) under the CPU harness.

Usage (with the venv built by env.sh):
  VENV=$(bash tests/integration/vllm/env.sh | tail -1)
  $VENV/bin/python tests/integration/vllm/run_suite.py [FILES...] [--json OUT]
      [-- extra pytest args]
FILES are paths relative to the sdist root (tests/tool_parsers/test_x.py) or
bare names (test_x.py, looked up in tests/tool_parsers, tests/reasoning,
tests/parser, tests/entrypoints/openai/chat_completion); `all` = every test
file in tool_parsers/reasoning/parser + test_serving_chat; default:
DEFAULT_FILES.  Each file runs in its own pytest
subprocess (so module-level state / substitutions cannot leak) with
`-p vllm_harness`; set TOOLPARSE_SUBSTITUTE to swap a vLLM parser class
(see vllm_harness.py).  Prints a pass/fail/error/skip table per file.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("TOOLPARSE_INTEGRATION_DIR", Path.home() / ".cache" / "toolparse-integration"))
SDIST = Path(os.environ.get("TOOLPARSE_VLLM_SDIST", CACHE / "vllm-0.33.0"))
DEFAULT_FILES = [
    "tests/tool_parsers/test_hermes_tool_parser.py",
    "tests/tool_parsers/test_qwen3coder_tool_parser.py",
    "tests/tool_parsers/test_llama3_json_tool_parser.py",
    "tests/tool_parsers/test_pythonic_tool_parser.py",
    "tests/tool_parsers/test_llama4_pythonic_tool_parser.py",
    "tests/tool_parsers/test_deepseekv3_tool_parser.py",
    "tests/tool_parsers/test_deepseekv31_tool_parser.py",
    "tests/tool_parsers/test_glm4_moe_tool_parser.py",
    "tests/tool_parsers/test_glm47_moe_tool_parser.py",
    "tests/tool_parsers/test_kimi_k2_tool_parser.py",
    "tests/tool_parsers/test_minimax_m2_tool_parser.py",
    "tests/reasoning/test_qwen3_reasoning_parser.py",
    "tests/reasoning/test_deepseekr1_reasoning_parser.py",
    "tests/parser/test_abstract_parser.py",
    "tests/parser/test_streaming.py",
    # OpenAIServingChat (real) driven by a mocked engine; uses "hermes"
    "tests/entrypoints/openai/chat_completion/test_serving_chat.py",
]


def resolve(name: str) -> str:
    if (SDIST / name).exists():
        return name
    for d in (
        "tests/tool_parsers",
        "tests/reasoning",
        "tests/parser",
        "tests/entrypoints/openai/chat_completion",
    ):
        if (SDIST / d / name).exists():
            return f"{d}/{name}"
    raise SystemExit(f"not found in {SDIST}: {name}")


def run_file(path: str, extra: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "junit.xml"
        env = dict(
            os.environ,
            TOOLPARSE_INTEGRATION_DIR=str(CACHE),
            PYTHONPATH=os.pathsep.join([str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])]),
        )
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "vllm_harness",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "asyncio_default_fixture_loop_scope=function",
            f"--junitxml={xml}",
            path,
            *extra,
        ]
        proc = subprocess.run(cmd, cwd=SDIST, env=env, capture_output=True, text=True)
        res = {
            "file": path,
            "rc": proc.returncode,
            "passed": 0,
            "failed": 0,
            "error": 0,
            "skipped": 0,
            "failures": [],
        }
        if not xml.exists():
            res["error"] = 1
            res["failures"].append(("<collection>", proc.stdout[-2000:] + proc.stderr[-2000:]))
            return res
        for case in ET.parse(xml).getroot().iter("testcase"):
            kinds = [c.tag for c in case]
            name = case.get("name")
            if "failure" in kinds:
                res["failed"] += 1
            elif "error" in kinds:
                res["error"] += 1
            elif "skipped" in kinds:
                res["skipped"] += 1
                continue
            else:
                res["passed"] += 1
                continue
            node = next(c for c in case if c.tag in ("failure", "error"))
            res["failures"].append((name, (node.get("message") or "")[:300]))
        return res


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*")
    ap.add_argument("--json", help="write per-file results here")
    ap.add_argument("-v", "--verbose", action="store_true", help="show failure messages")
    args, extra = ap.parse_known_args()
    extra = [a for a in extra if a != "--"]
    names = args.files or DEFAULT_FILES
    if names == ["all"]:
        names = sorted(
            str(p.relative_to(SDIST))
            for d in ("tool_parsers", "reasoning", "parser")
            for p in (SDIST / "tests" / d).glob("test_*.py")
        )
        names.append("tests/entrypoints/openai/chat_completion/test_serving_chat.py")
    files = [resolve(f) for f in names]
    sub = os.environ.get("TOOLPARSE_SUBSTITUTE")
    print(f"sdist: {SDIST}\nsubstitute: {sub or '(none: vLLM own parsers)'}")
    results, bad = [], 0
    print(f"{'file':60} {'pass':>5} {'fail':>5} {'err':>5} {'skip':>5}")
    for f in files:
        r = run_file(f, extra)
        results.append(r)
        bad += r["failed"] + r["error"]
        print(f"{f:60} {r['passed']:5} {r['failed']:5} {r['error']:5} {r['skipped']:5}", flush=True)
        if args.verbose:
            for name, msg in r["failures"]:
                print(f"    FAIL {name}: {msg.splitlines()[0] if msg else ''}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
