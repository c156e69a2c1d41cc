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
# (setup.py's flags, with the counters in place of the profile, for every
# crate of the workspace, as the real build gives them)
flags=$(cd "$root" && python -c "
import json, runpy, sys
setup = runpy.run_path('setup.py', run_name='flags')
print(json.dumps(setup['rustflags']('-Cprofile-generate=' + sys.argv[1])))
" "$work/raw")
# (the target named, so that the flags reach the extension's crates only, not
# the build scripts and macros that run while it compiles)
host=$(rustc -vV | sed -n 's/^host: //p')
cargo rustc --lib --release --features extension-module --crate-type cdylib \
    --manifest-path "$root/native/Cargo.toml" --target-dir "$work/target" \
    --target "$host" --config "build.rustflags=$flags"
mkdir -p "$work/src"
cp -r "$root/src/toolparse" "$work/src/"
rm -f "$work"/src/toolparse/_native*.so
cp "$work/target/$host/release/lib_native.so" "$work/src/toolparse/_native$(python -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')"
PYTHONPATH="$work/src" python "$root/native/pgo/workload.py"
"$profdata" merge -o "$root/native/pgo/toolparse.profdata" "$work"/raw/*.profraw
echo "wrote native/pgo/toolparse.profdata ($("$profdata" --version | grep -o 'version [0-9.]*'))"
