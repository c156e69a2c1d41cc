"""Test configuration: hypothesis runs derandomized in CI, so a landing is reproducible;
the suites whose outcome depends on the engine are marked ``engine`` (CI runs them on
both engines, the others once)."""

from __future__ import annotations

import os
from fnmatch import fnmatch
from pathlib import Path
from typing import Final

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# tests/integration/ runs in its own environments with the real vLLM and SGLang
# wheels (tests/integration/vllm.sh); the stand-in tests here cover CI.
collect_ignore = ["integration"]


# -- which suites run on which engine ---------------------------------------------------------
# CI (.ci/run) runs the whole suite on the native core, then on the Python reference
# (TOOLPARSE_PURE=1) only the suites marked ``engine`` (``pytest -m engine``): those whose
# outcome depends on the engine that runs by default. Every test file is in exactly one of
# these two lists (fnmatch patterns of file names); a file in neither, or in both, or a
# pattern no file matches, stops every run: sort a new file when you add it.
ENGINE_SUITES: Final = (
    # the engine through StreamParser / feed / close, on whichever engine runs: every
    # grammar's cases, the invariant matrix, the properties and the regressions
    "test_grammar_*.py",
    "test_auto.py",
    "test_core_golden.py",  # (toolparse-core's golden streams, replayed on the engine that runs)
    "test_coercion.py",  # (coercion through the engine: the native core has its own fast paths)
    "test_corpus.py",
    "test_declarations.py",
    "test_engine.py",
    "test_hardening.py",
    "test_hardening_two.py",
    "test_hardening_three_auto.py",
    "test_hardening_three_checks.py",
    "test_hardening_three_grammars.py",
    "test_hardening_three_misc.py",
    "test_hardening_three_values.py",
    "test_lanes.py",
    "test_matrix.py",
    "test_prompts.py",
    "test_reasoning.py",
    "test_reasoning_calls.py",
    "test_toolchoice.py",
    "test_xml_safety.py",
)
ONCE_SUITES: Final = (
    # the differential: each test runs both engines itself (engine="native" and
    # "python", check_engines), whatever TOOLPARSE_PURE says; and the prototypes,
    # the native core's alone (skipped on the reference)
    "test_native*.py",
    "test_prototypes.py",
    "test_reference_plain.py",  # (the reference is the plain path: engines pinned, check_engines)
    "test_core_printable.py",  # (the core's table of printable characters against unicodedata)
    "test_core_rusthost.py",  # (the goldens of the core's pure-Rust host, recorded from the reference)
    "test_start_scanner.py",  # (the core's start scanner from grammar data against the reference's)
    # the layers above the engine: what they do with its events does not depend on
    # which engine made them (the suites above prove the engines give the same)
    "test_cli.py",
    "test_detect.py",
    "test_frontends.py",
    "test_hardening_three_openai.py",
    "test_integration_sglang.py",
    "test_integration_vllm.py",
    "test_json_stream.py",  # (the reference's JSON reader itself; its twin: test_native_json.py)
    "test_layers.py",
    "test_openai.py",
    "test_openai_clients.py",
    "test_openai_fidelity.py",
    "test_proxy_hardening.py",
    "test_readme.py",
    "test_recorded.py",
    "test_request.py",
    "test_template_signatures_*.py",
    "test_tools_cli.py",
)


def _unsorted_suites(names: list[str]) -> list[str]:
    """What is wrong with the two lists, given the test files' names (nothing: [])."""
    problems = []
    for name in names:
        lists = [s for s in (ENGINE_SUITES, ONCE_SUITES) if any(fnmatch(name, p) for p in s)]
        if len(lists) != 1:
            where = "both ENGINE_SUITES and ONCE_SUITES" if lists else "neither ENGINE_SUITES nor ONCE_SUITES"
            problems.append(f"tests/{name} is in {where} (tests/conftest.py)")
    for pattern in (*ENGINE_SUITES, *ONCE_SUITES):
        if not any(fnmatch(name, pattern) for name in names):
            problems.append(f"{pattern!r} (tests/conftest.py) names no test file")
    return problems


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "engine: the outcome depends on the engine that runs (TOOLPARSE_PURE=1 pytest -m engine)"
    )
    problems = _unsorted_suites(sorted(p.name for p in Path(__file__).parent.glob("test_*.py")))
    if problems:
        raise pytest.UsageError("\n".join(problems))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    engine = pytest.mark.engine
    for item in items:
        if any(fnmatch(item.path.name, p) for p in ENGINE_SUITES):
            item.add_marker(engine)
