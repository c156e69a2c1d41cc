"""Test configuration: hypothesis runs derandomized in CI, so a landing is reproducible."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# tests/integration/ runs in its own environments with the real vLLM and SGLang
# wheels (tests/integration/vllm.sh); the stand-in tests here cover CI.
collect_ignore = ["integration"]
