"""SGLang integration tests only run inside the venv built by env.sh.

Anywhere else (the project's own test run) this directory is not collected.
"""

import importlib.metadata
import os
import sys

try:
    importlib.metadata.version("sglang")
except importlib.metadata.PackageNotFoundError:
    collect_ignore_glob = ["*"]
else:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import standins

    standins.install()
