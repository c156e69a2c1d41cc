#!/usr/bin/env bash
# Remake native/pgo/toolparse.profdata, the profile the native core's build is
# guided by (docs/native.md, "Profile-guided build"): build the extension with
# counters, stream native/pgo/workload.py through it, merge the counts.
# Run from anywhere, with the project's virtual environment active (Python,
# toolparse's dependencies) and an llvm-profdata that reads rustc's raw
# profiles (LLVM 19 or later; Debian: apt-get install llvm-19), found on the
# PATH or given as LLVM_PROFDATA. About three minutes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
profdata=${LLVM_PROFDATA:-$(command -v llvm-profdata-19 || command -v llvm-profdata || true)}
[ -n "$profdata" ] || { echo "no llvm-profdata: set LLVM_PROFDATA" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# (the flags of pyproject.toml's rustc-flags, less the profile, plus the counters)
flags=$(python - "$root/pyproject.toml" <<'PY'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    ext, = tomllib.load(f)["tool"]["setuptools-rust"]["ext-modules"]
print(" ".join(flag for flag in ext["rustc-flags"] if "profile-use" not in flag))
PY
)
# shellcheck disable=SC2086 # (the flags are words)
cargo rustc --lib --release --features extension-module --crate-type cdylib \
    --manifest-path "$root/native/Cargo.toml" --target-dir "$work/target" \
    -- $flags -Cprofile-generate="$work/raw"
mkdir -p "$work/src"
cp -r "$root/src/toolparse" "$work/src/"
rm -f "$work"/src/toolparse/_native*.so
cp "$work/target/release/lib_native.so" "$work/src/toolparse/_native$(python -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
PYTHONPATH="$work/src" python "$root/native/pgo/workload.py"
"$profdata" merge -o "$root/native/pgo/toolparse.profdata" "$work"/raw/*.profraw
echo "wrote native/pgo/toolparse.profdata ($("$profdata" --version | grep -o 'version [0-9.]*'))"
