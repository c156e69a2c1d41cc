#!/usr/bin/env bash
# Build (once) a CPU-only venv in which SGLang 0.5.23's tool-call / reasoning
# parsers and its OpenAI chat serving code import for real.
#
#   venv=$(bash tests/integration/sglang/env.sh | tail -1)
#   PYTHONPATH=tests/integration/sglang:src "$venv/bin/python" -c \
#       'import standins; standins.install(); import sglang.srt.function_call.function_call_parser'
#
# * sglang itself is installed with --no-deps (its real deps pull torch, CUDA
#   kernels, flashinfer ...).  The wheel is reused from
#   $TOOLPARSE_SGLANG_WHEEL or ~/.cache/toolparse-peers/wheels when present,
#   otherwise downloaded from PyPI (pip download --no-deps).
# * Light pure-python / small binary deps are installed pinned, --no-deps, so
#   nothing drags torch back in.  xgrammar 0.2.7 (+ apache-tvm-ffi) is real:
#   inkling_detector.py imports it unguarded, and it makes structural tags real.
# * torch, triton, torchvision, compressed_tensors are NOT installed; standins.py
#   answers those imports with mock modules (import it and call install()
#   before importing sglang).
#
# Idempotent: a stamp file records the inputs; a second run only prints the
# path.  Set TOOLPARSE_SGLANG_REBUILD=1 to force a rebuild.
set -euo pipefail

SGLANG_VERSION=0.5.23
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
BASE=${TOOLPARSE_INTEGRATION_DIR:-$HOME/.cache/toolparse-integration}
VENV=$BASE/venv-sglang
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Pinned, installed with --no-deps (the closure was resolved once by hand).
REQS=(
  aiohappyeyeballs==2.7.1 aiohttp==3.14.5 aiosignal==1.4.0 annotated-doc==0.0.7
  annotated-types==0.8.0 anyio==4.16.0 apache-tvm-ffi==0.1.11 attrs==26.1.0
  certifi==2026.10.19.post1 charset-normalizer==3.5.2 click==8.5.1 dill==0.4.1
  distro==1.9.0 fastapi==0.165.0 filelock==4.2.12 frozenlist==1.8.0
  fsspec==2026.9.0 gguf==0.19.0 h11==0.16.0 httpcore==1.0.9 httpx==0.28.1
  huggingface_hub==1.33.0 idna==3.20 ipython==9.18.1 ipython_pygments_lexers==1.1.1
  jedi==0.20.1 parso==0.8.7 asttokens==3.0.2 executing==2.3.0 pure_eval==0.2.4
  stack-data==0.6.3 traitlets==5.16.1 matplotlib-inline==0.2.2 pexpect==4.9.0
  ptyprocess==0.7.0 prompt_toolkit==3.0.53 wcwidth==0.9.4 Pygments==2.21.0
  decorator
  Jinja2==3.1.6 MarkupSafe==3.0.4 jiter==0.19.0 jsonschema==4.26.0
  jsonschema-specifications==2025.9.1 referencing==0.37.0 rpds-py==2026.9.1
  loguru==0.7.3 msgspec==0.22.0 multidict==7.2.1 numpy==2.4.6 openai==2.8.0
  orjson==3.13.0 packaging==26.3 partial-json-parser==0.2.1.1.post7 pillow==13.0.0
  propcache==0.5.4 psutil==7.2.2 pybase64==1.5.1 pydantic==2.14.4
  pydantic_core==2.50.5 PyYAML==6.0.4 pyzmq==27.3.0 regex==2026.11.19
  requests==2.34.2 safetensors==0.8.0 sentencepiece==0.2.3 sniffio==1.3.1
  starlette==1.10.0 tokenizers==0.23.2 tqdm==4.70.1 transformers==5.19.0
  typing-inspection==0.4.5 typing_extensions==4.16.0 urllib3==2.8.0
  xgrammar==0.2.7 yarl==1.25.1 hf-xet==1.8.0 typer==0.29.2 rich==15.0.0
  markdown-it-py==4.3.0 mdurl==0.1.2 shellingham==1.5.4
  opentelemetry-api==1.45.2 importlib-metadata
  pytest pluggy iniconfig
  lxml==6.1.3
)

STAMP_INPUT="sglang==$SGLANG_VERSION ${REQS[*]} $("$PYTHON" -V 2>&1)"
STAMP=$VENV/.toolparse-sglang-stamp

if [[ "${TOOLPARSE_SGLANG_REBUILD:-0}" != 1 && -f "$STAMP" ]] \
   && [[ "$(cat "$STAMP")" == "$STAMP_INPUT" ]] \
   && "$VENV/bin/python" -c 'import importlib.metadata as m; m.version("sglang")' >/dev/null 2>&1; then
  echo "$VENV"
  exit 0
fi

mkdir -p "$BASE"
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)

WHEEL=${TOOLPARSE_SGLANG_WHEEL:-}
if [[ -z "$WHEEL" ]]; then
  PYTAG=$("$VENV/bin/python" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
  for cand in "$HOME"/.cache/toolparse-peers/wheels/sglang-$SGLANG_VERSION-"$PYTAG"-*.whl \
              "$BASE"/wheels/sglang-$SGLANG_VERSION-"$PYTAG"-*.whl; do
    [[ -f "$cand" ]] && { WHEEL=$cand; break; }
  done
fi
if [[ -z "$WHEEL" ]]; then
  mkdir -p "$BASE/wheels"
  "${PIP[@]}" download --no-deps "sglang==$SGLANG_VERSION" -d "$BASE/wheels" >&2
  WHEEL=$(ls "$BASE"/wheels/sglang-$SGLANG_VERSION-*.whl | head -1)
fi

"${PIP[@]}" install --no-deps "$WHEEL" >&2
"${PIP[@]}" install --no-deps "${REQS[@]}" >&2

# Smoke: the modules the toolparse integration needs must import.
PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}" "$VENV/bin/python" - >&2 <<'EOF'
import standins
standins.install()
import sglang.srt.function_call.function_call_parser  # noqa: F401
import sglang.srt.entrypoints.openai.protocol  # noqa: F401
import sglang.srt.parser.reasoning_parser  # noqa: F401
import sglang.srt.entrypoints.openai.serving_chat  # noqa: F401
EOF

echo "$STAMP_INPUT" >"$STAMP"
echo "$VENV"
