"""pytest plugin that runs vLLM's own tests (from the sdist) on CPU.

Load it with `-p vllm_harness` (this folder must be on PYTHONPATH; run_suite.py
does that).  At plugin load, i.e. before any test module is collected:
  1. standins.install(): torch/triton stand-ins + offline HF cache whose model
     ids all hold the stand-in tokenizer (tokenizer fixtures then load it
     through vLLM's real get_tokenizer / transformers' AutoTokenizer);
  2. TOOLPARSE_SUBSTITUTE is applied (see below), so test modules that do
     `from vllm.tool_parsers.hermes_tool_parser import Hermes2ProToolParser`
     receive the substitute class.

TOOLPARSE_SUBSTITUTE format: ';'-separated items  TARGET=REPLACEMENT
  TARGET       `module.Class`; `module` is a vllm module path, or a short one
               relative to vllm.tool_parsers / vllm.reasoning
               (e.g. `hermes_tool_parser.Hermes2ProToolParser`).
  REPLACEMENT  `package.module:Class` (imported after vLLM is importable).
Example:
  TOOLPARSE_SUBSTITUTE="hermes_tool_parser.Hermes2ProToolParser=toolparse.integrations.vllm:HermesParser"
The class attribute in the vLLM module is replaced, so the lazy
ToolParserManager / ReasoningParserManager registrations (which resolve
module + class name on first use) also return the substitute.
"""

from __future__ import annotations

import importlib
import os

import pytest
import vllm_standins as standins

standins.install()

SUBSTITUTIONS: list[tuple[str, str, str]] = []  # (module, class, replacement)


def _resolve_module(name: str):
    for prefix in ("", "vllm.tool_parsers.", "vllm.reasoning.", "vllm."):
        try:
            return importlib.import_module(prefix + name)
        except ModuleNotFoundError as e:
            if e.name is None or not (prefix + name).startswith(e.name):
                raise  # a real missing dependency inside the module
    raise ModuleNotFoundError(f"no vLLM module {name!r} for TOOLPARSE_SUBSTITUTE")


def apply_substitutions(spec: str | None = None) -> None:
    spec = os.environ.get("TOOLPARSE_SUBSTITUTE", "") if spec is None else spec
    for item in filter(None, (s.strip() for s in spec.split(";"))):
        target, replacement = (x.strip() for x in item.split("=", 1))
        mod_name, cls_name = target.rsplit(".", 1)
        module = _resolve_module(mod_name)
        if not hasattr(module, cls_name):
            raise AttributeError(f"{module.__name__} has no class {cls_name}")
        rep_mod, rep_cls = replacement.split(":", 1)
        new_cls = getattr(importlib.import_module(rep_mod), rep_cls)
        setattr(module, cls_name, new_cls)
        SUBSTITUTIONS.append((module.__name__, cls_name, replacement))


apply_substitutions()


def pytest_report_header(config):
    lines = ["vllm_harness: torch/triton stand-ins + offline stand-in tokenizer"]
    for mod, cls, rep in SUBSTITUTIONS:
        lines.append(f"vllm_harness: SUBSTITUTE {mod}.{cls} -> {rep}")
    return lines


@pytest.fixture()
def should_do_global_cleanup_after_test() -> bool:
    # provided by vLLM's root tests/conftest.py (GPU harness, not extracted);
    # tests/parser/engine/conftest.py overrides it.  No GPU => no cleanup.
    return False
