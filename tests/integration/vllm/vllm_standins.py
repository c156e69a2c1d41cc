"""Import stand-ins that let REAL vLLM 0.33.0 Python code run on a CPU-only box.

Only things that need a GPU (torch, triton, CUDA kernels) or the network
(Hugging Face hub tokenizer downloads) are stood in.  Everything else vLLM
imports (pydantic, openai, transformers, xgrammar, fastapi, ...) is the real
package, installed by env.sh.

Call ``install()`` BEFORE anything imports vllm.  ``install()`` is idempotent.

Stand-ins:
  * torch, triton (+ every submodule): auto-stub packages (``_StubModule``).
    Why: real torch/triton are multi-GB GPU stacks; vLLM imports torch at
    ``import vllm`` time (vllm/env_override.py) and in many utility modules,
    but the parser/protocol code never computes with tensors.  Every attribute
    is a permissive stub class: usable as base class, decorator, annotation,
    isinstance() target (always False), dict key; calling it returns a stub,
    bool() is False (so ``torch.cuda.is_available()`` is False).
  * vllm._C, vllm._moe_C, ... (compiled CUDA extensions shipped in the
    wheel): they link against libtorch/libcuda and cannot load without them.
  * Hugging Face hub (network): a private offline HF cache (HF_HUB_CACHE)
    in which every model id the tests use is a snapshot holding the locally
    built stand-in tokenizer (standin_tokenizer.py).  vLLM's get_tokenizer
    and transformers' AutoTokenizer run for real against it.
"""

from __future__ import annotations

import abc
import importlib.abc
import importlib.machinery
import os
import sys
import types
from pathlib import Path

# Top-level packages replaced by auto-stubs.  Reason for each: see docstring.
STUB_PACKAGES = {
    "torch": "GPU stack (CUDA libs); vllm/env_override.py imports it first",
    "triton": "GPU kernel compiler; imported by vllm.triton_utils etc.",
}
# Compiled extension modules inside the vllm wheel (need libtorch + CUDA).
STUB_EXACT = {
    "vllm._C": "CUDA kernels (.so linked against libtorch)",
    "vllm._C_stable_libtorch": "CUDA kernels",
    "vllm._moe_C": "CUDA MoE kernels",
    "vllm._flashmla_C": "CUDA kernels",
    "vllm.cumem_allocator": "CUDA memory allocator",
}
TORCH_VERSION = "2.14.0"  # the version vllm 0.33.0 pins


class _StubMeta(abc.ABCMeta):
    """Metaclass of every stub: attribute chains, calls, operators all work.
    (An ABCMeta, so `class X(torch.nn.Module, SomeABC)` has no metaclass clash.)"""

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        sub = _make_stub(f"{cls.__qualname__}.{name}")
        setattr(cls, name, sub)
        return sub

    def __call__(cls, *args, **kwargs):
        if "_stub" not in cls.__dict__:  # a real subclass of a stub
            return super().__call__(*args, **kwargs)
        # decorator use (@torch.compile, @triton.jit): return the function
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return _make_stub(f"{cls.__qualname__}()")

    # behave like "nothing": falsy, empty, zero
    def __bool__(cls):
        return False

    def __iter__(cls):
        return iter(())

    def __len__(cls):
        return 0

    def __int__(cls):
        return 0

    def __index__(cls):
        return 0

    def __float__(cls):
        return 0.0

    def __getitem__(cls, item):
        return cls

    # arithmetic with a stub is a no-op: `name + stub` stays `name`
    def __add__(cls, other):
        return cls

    def __radd__(cls, other):
        return other

    __sub__ = __mul__ = __truediv__ = __floordiv__ = __mod__ = __pow__ = __add__
    __rsub__ = __rmul__ = __rtruediv__ = __rfloordiv__ = __radd__

    def __lt__(cls, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def __enter__(cls):
        return cls

    def __exit__(cls, *exc):
        return False

    def __instancecheck__(cls, obj):
        return "_stub" not in cls.__dict__ and super().__instancecheck__(obj)

    def __subclasscheck__(cls, sub):
        return "_stub" not in cls.__dict__ and super().__subclasscheck__(sub)

    def __mro_entries__(cls, bases):  # pragma: no cover - type handles it
        return (cls,)

    def __repr__(cls):
        return f"<stand-in {cls.__qualname__}>"


_STUBS: dict[str, type] = {}


def _make_stub(qualname: str) -> type:
    # cached, so that e.g. two infer_schema() results compare equal
    if qualname not in _STUBS:
        name = qualname.rsplit(".", 1)[-1]
        _STUBS[qualname] = _StubMeta(name, (), {"_stub": True, "__qualname__": qualname})
    return _STUBS[qualname]


class _StubModule(types.ModuleType):
    """Module (and package) whose every unknown attribute is a stub.
    (create_module gives each one an empty __path__, making it a package.)"""

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        full = f"{self.__name__}.{name}"
        if full in sys.modules:  # a stub submodule imported earlier
            return sys.modules[full]
        value = _make_stub(full)
        setattr(self, name, value)
        return value


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Meta-path finder serving the stub modules (placed first on sys.meta_path)."""

    def _is_stubbed(self, fullname: str) -> bool:
        top = fullname.split(".", 1)[0]
        return top in STUB_PACKAGES or fullname in STUB_EXACT

    def find_spec(self, fullname, path=None, target=None):
        if not self._is_stubbed(fullname):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        mod = _StubModule(spec.name)
        mod.__path__ = []
        return mod

    def exec_module(self, module):
        if module.__name__ == "torch":
            module.__version__ = TORCH_VERSION
            # vllm/platforms/cpu.py globs dirname(torch.__file__) for libgomp
            module.__file__ = "/nonexistent/torch-standin/__init__.py"
        if module.__name__ == "torch.version":
            module.__version__ = TORCH_VERSION
            module.cuda = None  # "no CUDA build": vLLM skips CUDA-compat paths
            module.hip = None
        if module.__name__ == "torch.library":
            module.infer_schema = _infer_schema
        if module.__name__ == "triton":
            module.__version__ = "3.6.0"


def _infer_schema(fn, *args, **kwargs) -> str:
    """torch.library.infer_schema stand-in: vllm/ir/op.py parses the string
    ("(Tensor x, ...) -> Tensor") when registering IR ops at import time of
    the `vllm serve` CLI. Only the count of Tensor outputs matters there."""
    import inspect

    sig = inspect.signature(fn)
    params = ", ".join(f"Tensor {p}" for p in sig.parameters)
    n = str(sig.return_annotation).count("Tensor")
    ret = "()" if n == 0 else "Tensor" if n == 1 else f"({', '.join(['Tensor'] * n)})"
    return f"({params}) -> {ret}"


_FINDER = _StubFinder()


CACHE = Path(os.environ.get("TOOLPARSE_INTEGRATION_DIR", Path.home() / ".cache" / "toolparse-integration"))
VLLM_TESTS = Path(os.environ.get("TOOLPARSE_VLLM_TESTS", CACHE / "vllm-0.33.0" / "tests"))


def install(hub: bool = True) -> None:
    """Install the stand-ins (idempotent). Must run before `import vllm`
    (and before huggingface_hub is imported: it reads HF_* env at import)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    # vLLM picks the "cpu"/"unspecified" platform path; no CUDA probing.
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    if hub:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from standin_tokenizer import build_tokenizer_dir, populate_hf_cache, tokenizer_dir_name

        hub_cache = CACHE / "hf-hub"
        tok_dir = build_tokenizer_dir(CACHE / tokenizer_dir_name(), VLLM_TESTS)
        populate_hf_cache(hub_cache, tok_dir)
        os.environ["HF_HUB_CACHE"] = str(hub_cache)
        os.environ["HF_HUB_OFFLINE"] = "1"  # no network for the hub
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
    # tvm_ffi (used by xgrammar) would try to JIT-build a torch DLPack extension
    os.environ.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")


def stubbed_modules() -> list[str]:
    """Names of stand-in modules that were actually imported so far."""
    return sorted(n for n, m in sys.modules.items() if isinstance(m, _StubModule))
