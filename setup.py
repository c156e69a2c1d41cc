"""The native core's build: the one part of the packaging that needs code.

Everything else is in pyproject.toml. setuptools-rust builds `native/` (a
Cargo workspace: `toolparse-core` and the PyO3 binding that becomes
`toolparse._native`) where a Rust toolchain is found; without one the
extension is skipped (it is optional) and the pure-Python engine runs (see
`toolparse.engine.native`).

The flags below must reach every crate of the workspace, since most of the
hot code is `toolparse-core`'s: setuptools-rust's `rustc-flags` reach only the
last crate, so they go in as Cargo's `build.rustflags`, which reaches them
all. Cargo runs each compiler in its own directory, so the profile's path is
made absolute here. (A `RUSTFLAGS` in the environment replaces
`build.rustflags`: then the build is as fast as those flags make it.)
"""

from __future__ import annotations

import json
from pathlib import Path

NATIVE = Path(__file__).resolve().parent / "native"

# LLVM inlines more than its default (225) when it optimizes the workspace
# whole (fat LTO): a call's reading is a chain of small steps across modules,
# and at 500 they take 3 to 4% fewer instructions (at 1,000 no fewer again);
# and it lays each function's blocks out by ext-TSP, which keeps the likely
# path on fewer cache lines: as many instructions, 5 to 10% fewer
# instruction-cache misses a call, 60% fewer in prose (callgrind;
# docs/native.md, "Measuring").
OPTIMIZE = [
    "-Cllvm-args=-inline-threshold=500",
    "-Cllvm-args=-enable-ext-tsp-block-placement=true",
]
# The profile is of streams through every grammar: the compiler inlines and
# lays out the code by how often each path ran, 5 to 7% fewer instructions a
# call and a fifth to a quarter fewer instruction-cache misses.
# native/pgo/refresh.sh remakes it after a change to the crates (a stale
# profile slows the changed functions, nothing more).
PROFILE = NATIVE / "pgo" / "toolparse.profdata"


def rustflags(profile: str) -> list[str]:
    """The compiler's flags, with `profile` (a `-Cprofile-...` flag)."""
    return [*OPTIMIZE, profile]


if __name__ == "__main__":
    from setuptools import setup
    from setuptools_rust import Binding, RustExtension

    flags = rustflags(f"-Cprofile-use={PROFILE}")
    setup(
        rust_extensions=[
            RustExtension(
                "toolparse._native",
                path="native/Cargo.toml",
                binding=Binding.PyO3,
                features=["extension-module"],
                optional=True,
                debug=False,
                cargo_manifest_args=["--config", f"build.rustflags={json.dumps(flags)}"],
            )
        ]
    )
