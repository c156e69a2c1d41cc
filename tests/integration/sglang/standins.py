"""Stand-ins that let SGLang 0.5.23's tool-call code import on a CPU box.

SGLang's package ``__init__`` and ``sglang.srt.utils.common`` import torch,
triton, transformers and friends at module level, although the tool-call
detectors, the OpenAI protocol models and the chat serving code never run a
tensor op.  Installing the real GPU stack is neither possible nor wanted here,
so :func:`install` puts a meta-path finder in front of the import system that
answers those top-level names with permissive mock modules:

* every attribute of a mock module is another mock module (so ``torch.cuda.
  is_available``, ``torch.distributed.ProcessGroup`` ... resolve);
* CamelCase attributes are real (empty) classes, so ``class X(nn.Module)`` and
  ``isinstance(x, torch.Tensor)`` work (isinstance is always False);
* calling a mock returns a mock, or acts as a pass-through decorator
  (``@triton.jit``, ``@torch.compile(...)``, ``@torch.no_grad()``);
* a few values that SGLang compares at import time (``torch.__version__``,
  dtypes, ``torch.cuda.is_available()``) get concrete CPU-ish answers.

Nothing here touches the parsing code: the detectors, ``FunctionCallParser``,
``ReasoningParser`` and the pydantic protocol models are SGLang's own.

Usage (before anything imports sglang)::

    import standins; standins.install()

or put this directory on PYTHONPATH and ``import sitecustomize``-free:
``python -c "import standins; standins.install(); import sglang..."``.
``TOOLPARSE_SGLANG_STANDINS=0`` turns :func:`install` into a no-op (to run
against a real SGLang installation).
"""

from __future__ import annotations

import abc
import importlib.abc
import importlib.machinery
import os
import sys
import types

# Top-level modules that are answered with mocks.  Only heavy/GPU/network
# packages; everything pure-python and light is installed for real by env.sh.
MOCKED_TOPLEVEL = frozenset(
    {
        "torch",
        "triton",
        "torchvision",
        "compressed_tensors",
        "datasets",
    }
)

# Allow extra names from the environment (comma separated), e.g. when a newer
# SGLang grows another hard import.
MOCKED_TOPLEVEL = MOCKED_TOPLEVEL | frozenset(
    n.strip() for n in os.environ.get("TOOLPARSE_SGLANG_EXTRA_STANDINS", "").split(",") if n.strip()
)

# xgrammar / llguidance / outlines are deliberately NOT stood in: every SGLang
# import of them on the tool-call path is guarded (``try: from xgrammar import
# StructuralTag, get_model_structural_tag / except ImportError`` in
# base_format_detector.py), and a mock would make get_model_structural_tag a
# mock.  Left uninstalled, SGLang takes its own fallback: no model-native
# structural tags, legacy structural tags built from structure_info().


class _StubBase:
    """Base of every CamelCase stand-in class; accepts any constructor args."""

    def __init__(self, *args, **kwargs):
        pass

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__()

    def __class_getitem__(cls, item):
        return cls

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _MockModule(f"{type(self).__name__}.{name}")

    def __call__(self, *args, **kwargs):
        return _MockModule("call_result")


class _StubMeta(abc.ABCMeta):
    """Metaclass so class-level attribute access on stand-in classes works
    (``torch.Tensor.__add__``, ``enum.Member`` style lookups)."""

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _MockModule(f"{cls.__name__}.{name}")

    def __instancecheck__(cls, instance):
        return abc.ABCMeta.__instancecheck__(cls, instance)


def _stub_class(name: str, module: str) -> type:
    return _StubMeta(name, (_StubBase,), {"__module__": module})


class _MockModule(types.ModuleType):
    def __init__(self, name: str):
        super().__init__(name)
        self.__path__ = []
        self.__package__ = name
        self.__file__ = f"<sglang-standin {name}>"
        self.__spec__ = importlib.machinery.ModuleSpec(name, _FINDER, is_package=True)
        self.__version__ = "0.0.0+standin"

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        if name in _ABSENT.get(self.__name__, ()):
            raise AttributeError(name)
        full = f"{self.__name__}.{name}"
        if full in sys.modules:
            return sys.modules[full]
        if name[:1].isupper() and not name.isupper():
            value = _stub_class(name, self.__name__)
        else:
            value = _MockModule(full)
            _customise(value)
        object.__setattr__(self, name, value)
        return value

    # Callable: decorator (bare or parameterised) or factory.
    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return _MockModule(f"{self.__name__}()")

    # Context manager (torch.no_grad(), torch.cuda.stream(...)).
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __bool__(self):
        return False

    def __int__(self):
        return 0

    def __index__(self):
        return 0

    def __float__(self):
        return 0.0

    def __mro_entries__(self, bases):
        # ``class Foo(torch.nn.module)`` where the attr was lower-case.
        return (_stub_class(self.__name__.rsplit(".", 1)[-1], self.__name__),)

    def __or__(self, other):  # ``torch.Tensor | None`` in annotations
        return self

    __ror__ = __or__

    # Arithmetic on import-time constants (``-torch.finfo(...).max``).
    def _arith(self, *other):
        return self

    __neg__ = __pos__ = __abs__ = __invert__ = _arith
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _arith
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _arith
    __mod__ = __rmod__ = __pow__ = __rpow__ = __and__ = __rand__ = _arith
    __lshift__ = __rshift__ = __xor__ = __rxor__ = __matmul__ = _arith

    def __getitem__(self, item):
        return self

    def __eq__(self, other):
        return other is self

    def __hash__(self):
        return id(self)

    def __lt__(self, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        top = fullname.split(".", 1)[0]
        if top not in MOCKED_TOPLEVEL:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        module = _MockModule(spec.name)
        _customise(module)
        return module

    def exec_module(self, module):
        pass


_FINDER = _Finder()

# Attributes that must look absent: SGLang probes accelerators with
# ``hasattr(torch, "npu")`` etc. and raises when one "exists" but is unusable.
_ABSENT = {
    "torch": frozenset({"npu", "musa", "hpu", "mlu", "sdaa"}),
    "torch.version": frozenset({"musa", "npu"}),
}


def _customise(module: _MockModule) -> None:
    """Concrete values for the few things SGLang inspects at import time."""
    name = module.__name__
    if name == "torch":
        module.__version__ = "2.14.1+cpu"
        module.version = types.SimpleNamespace(
            cuda=None, hip=None, xpu=None, git_version="standin", __version__="2.14.1"
        )
        dtypes = [
            "float16",
            "bfloat16",
            "float32",
            "float64",
            "float8_e4m3fn",
            "float8_e5m2",
            "float8_e4m3fnuz",
            "float8_e5m2fnuz",
            "float8_e8m0fnu",
            "float4_e2m1fn_x2",
            "int8",
            "uint8",
            "int16",
            "int32",
            "int64",
            "bool",
            "half",
            "float",
            "double",
            "long",
            "int",
            "uint16",
            "uint32",
            "uint64",
            "complex64",
            "cfloat",
        ]
        for dt in dtypes:
            setattr(module, dt, _MockModule(f"torch.{dt}"))
    elif name.startswith("torch.") and name.count(".") == 1:
        # torch.cuda / torch.xpu / torch.mps / torch.cpu ...: no device here.
        module.is_available = lambda: False
    if name == "torch.cuda":
        module.device_count = lambda: 0
        module.is_initialized = lambda: False
    elif name == "torch.version":
        module.cuda = None
        module.hip = None
        module.xpu = None
        module.__version__ = "2.14.1"
    elif name == "triton":
        module.__version__ = "3.6.0"


_installed = False


def install() -> None:
    """Install the finder (idempotent)."""
    global _installed
    if _installed or os.environ.get("TOOLPARSE_SGLANG_STANDINS", "1") == "0":
        return
    # tvm_ffi (xgrammar's runtime) would otherwise try to JIT-build a torch
    # DLPack extension against the stand-in torch.
    os.environ.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")
    sys.meta_path.insert(0, _FINDER)
    _installed = True


def mocked(module_name: str) -> bool:
    """True when ``module_name`` would be answered by a stand-in."""
    return module_name.split(".", 1)[0] in MOCKED_TOPLEVEL
