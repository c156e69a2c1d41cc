#!/usr/bin/env bash
# Build (idempotently) the cached CPU-only venv for running REAL vLLM 0.33.0
# parser / serving code and vLLM's own tests.  Prints the venv path last.
#   VENV=$(bash tests/integration/vllm/env.sh | tail -1)
# Env: TOOLPARSE_INTEGRATION_DIR (default ~/.cache/toolparse-integration).
# Does NOT install toolparse: `$VENV/bin/pip install --no-deps -e /work/main`
# or PYTHONPATH=/work/main/src (its deps lxml + pydantic are pinned here).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DIR="${TOOLPARSE_INTEGRATION_DIR:-$HOME/.cache/toolparse-integration}"
VENV="$DIR/venv-vllm"
VLLM_VERSION=0.33.0
WHEEL_NAME="vllm-$VLLM_VERSION-cp38-abi3-manylinux_2_28_x86_64.whl"
PEERS="$HOME/.cache/toolparse-peers"
SDIST_SHA256=f4c33c2503d52bb411146afa9618a4f48bed68912f617e6803ac8d76e4c74112
mkdir -p "$DIR/wheels"
log() { echo "[env.sh] $*" >&2; }

# 1. vllm wheel: reuse the pre-downloaded one, else pip download (no deps).
WHEEL="$PEERS/wheels/$WHEEL_NAME"
if [ ! -f "$WHEEL" ]; then
  WHEEL="$DIR/wheels/$WHEEL_NAME"
  [ -f "$WHEEL" ] || pip download --no-deps "vllm==$VLLM_VERSION" -d "$DIR/wheels" >&2
fi

# 2. venv: vllm + xgrammar with --no-deps (both declare torch), then the exact
#    pinned light dependencies, also --no-deps so nothing pulls in torch/CUDA.
STAMP="$VENV/.toolparse-stamp"
WANT="$(cat "$HERE/requirements-vllm.txt" "$0" | sha256sum | cut -c1-16)"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
  log "building $VENV"
  [ -x "$VENV/bin/python" ] || python3.11 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check --no-deps \
    "$WHEEL" "xgrammar==0.2.8" -r "$HERE/requirements-vllm.txt" >&2
  if "$VENV/bin/python" -c "import importlib.util as u,sys; sys.exit(u.find_spec('torch') is None)"; then
    log "ERROR: a real torch got installed"; exit 1
  fi
  echo "$WANT" > "$STAMP"
fi

# 3. sdist (tests are not in the wheel): reuse, else fetch via PyPI JSON index.
SDIST="$DIR/vllm-$VLLM_VERSION.tar.gz"
if [ ! -f "$SDIST" ]; then
  if [ -f "$PEERS/sdist/vllm-$VLLM_VERSION.tar.gz" ]; then
    cp "$PEERS/sdist/vllm-$VLLM_VERSION.tar.gz" "$SDIST.part"
  else
    URL="$(curl -fsS https://pypi.org/simple/vllm/ \
            -H "Accept: application/vnd.pypi.simple.v1+json" |
           "$VENV/bin/python" -c "import json,sys; print(next(f['url'] for f in json.load(sys.stdin)['files'] if f['filename']=='vllm-$VLLM_VERSION.tar.gz'))")"
    log "downloading $URL"
    curl -fsSL "$URL" -o "$SDIST.part"
  fi
  echo "$SDIST_SHA256  $SDIST.part" | sha256sum -c --quiet - >&2
  mv "$SDIST.part" "$SDIST"
fi

# 4. extract only the tests we run (tests/conftest.py, the GPU model-runner
#    harness, is deliberately left out; vllm_harness.py replaces what we need).
SRC="$DIR/vllm-$VLLM_VERSION"
MARK="$SRC/.extracted-v2"
if [ ! -f "$MARK" ]; then
  P="vllm-$VLLM_VERSION"
  tar xzf "$SDIST" -C "$DIR" "$P/pyproject.toml" "$P/tests/__init__.py" \
    "$P/tests/utils.py" "$P/tests/ci_envs.py" \
    "$P/tests/tool_parsers" "$P/tests/reasoning" "$P/tests/parser" \
    "$P/tests/entrypoints/__init__.py" "$P/tests/entrypoints/conftest.py" \
    "$P/tests/entrypoints/openai/__init__.py" "$P/tests/entrypoints/openai/utils.py" \
    "$P/tests/entrypoints/openai/chat_completion"
  touch "$MARK"
fi
echo "$VENV"
