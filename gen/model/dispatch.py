"""`dispatch:` in native_functions.yaml: which kernel serves which dispatch key.

    dispatch:
      CPU, CUDA: add_out          # several keys may share one kernel
      Meta: add_out_meta

Note [Dispatch keys in YAML]
opcore accepts the keys its runtime has (runtime/opcore/core/DispatchKey.h): the backend keys
CPU, CUDA, Meta and PrivateUse1, and the composite alias keys. A key PyTorch has and opcore
does not (SparseCPU, QuantizedCPU, MPS, ...) is rejected with a message saying so, apart from
a misspelling (which gets "did you mean"). A caller reading YAML written for torchgen may ask
for those keys to be dropped instead (ParseOptions.ignored_dispatch_keys); each entry then
records which it dropped.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from gen.model.errors import Loc, SpecError, did_you_mean
from gen.model.schema import IDENT
from gen.model.yaml_loader import LocDict, describe


class DispatchKey(enum.Enum):
    """The keys a `dispatch:` entry may name; the value is the spelling in YAML and C++. They
    mirror DispatchKey.h's backend keys and alias keys (Autograd apart), in its order:
    tests/gen/test_dispatch_keys.py fails naming any key one side has and the other lacks."""

    CPU = "CPU"
    CUDA = "CUDA"
    Meta = "Meta"
    PrivateUse1 = "PrivateUse1"
    CompositeImplicitAutograd = "CompositeImplicitAutograd"
    CompositeExplicitAutograd = "CompositeExplicitAutograd"
    CompositeExplicitAutogradNonFunctional = "CompositeExplicitAutogradNonFunctional"


# Keys of one backend each; a kernel there is the backend's own.
BACKEND_KEYS = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta, DispatchKey.PrivateUse1)
# Alias keys whose kernel is written in terms of other operators; an entry has at most one.
COMPOSITE_KEYS = (DispatchKey.CompositeImplicitAutograd, DispatchKey.CompositeExplicitAutograd,
                  DispatchKey.CompositeExplicitAutogradNonFunctional)

_PYTORCH_BACKENDS = ("CPU", "CUDA", "HIP", "XLA", "MPS", "IPU", "XPU", "HPU", "VE", "Lazy", "MTIA",
                     "MAIA", "Meta", "PrivateUse1", "PrivateUse2", "PrivateUse3")
_PYTORCH_PER_BACKEND = ("", "Quantized", "Sparse", "SparseCsr", "NestedTensor", "Autograd", "Autocast")
_PYTORCH_OTHER = (
    "MkldnnCPU", "ZeroTensor", "CompositeImplicitAutogradNestedTensor", "FPGA", "ORT", "Vulkan",
    "Metal", "MKLDNN", "OpenGL", "OpenCL", "IDEEP", "CustomRNGKeyId", "Sparse", "Python",
    "Conjugate", "Negative", "Functionalize", "FuncTorchBatched", "FuncTorchDynamicLayerFrontMode",
    "FuncTorchDynamicLayerBackMode", "BackendSelect", "Named", "Autograd", "AutogradOther",
    "AutogradFunctionality", "AutogradNestedTensor", "Tracer", "Autocast", "Batched", "VmapMode",
    "ADInplaceOrView", "PythonTLSSnapshot", "PreDispatch",
)
# Every dispatch key PyTorch's native_functions.yaml may name that opcore's does not accept.
PYTORCH_ONLY_DISPATCH_KEYS = frozenset(
    {f + b for f in _PYTORCH_PER_BACKEND for b in _PYTORCH_BACKENDS} | set(_PYTORCH_OTHER)
) - {k.value for k in DispatchKey}


@dataclass(frozen=True, slots=True)
class BackendKernel:
    """One `dispatch:` key and the kernel it names (`CPU, CUDA: view` gives two of these).

    loc <- the key's name within the key text; kernel_loc <- the kernel name.
    """

    key: DispatchKey
    kernel: str  # a function in opcore::native
    loc: Loc
    kernel_loc: Loc


def split_list(text: str) -> list[tuple[str, int]]:
    """The comma-separated parts of `text`, stripped, each with its offset in `text`."""
    parts = []
    start = 0
    for piece in text.split(","):
        parts.append((piece.strip(), start + len(piece) - len(piece.lstrip())))
        start += len(piece) + 1
    return parts


def parse_dispatch(table: object, where: Loc, ignored: frozenset[str]) -> tuple[tuple[BackendKernel, ...], tuple[str, ...]]:
    """The kernels of a `dispatch:` value (`where`: its location), and the keys in `ignored`
    that it named and that were dropped (Note [Dispatch keys in YAML])."""
    if not isinstance(table, LocDict) or not table:
        raise SpecError(where, "'dispatch' must be a mapping from dispatch keys to kernel names")
    kernels: list[BackendKernel] = []
    dropped: list[str] = []
    for keys_text, kernel in table.items():
        keys_loc = table.key_locs[keys_text]
        if kernel is None:
            raise SpecError(keys_loc, f"no kernel name for '{keys_text}' (in a {{...}} mapping, quote "
                                      "several keys: {\"CPU, CUDA\": kernel})")
        kernel_loc = table.value_locs[keys_text]
        if not isinstance(kernel, str) or not IDENT.fullmatch(kernel):
            raise SpecError(kernel_loc, f"kernel name for '{keys_text}' must be a C++ identifier, "
                                        f"got {describe(kernel)}")
        for key_text, offset in split_list(keys_text):
            if key_text in ignored:
                dropped.append(key_text)
                continue
            key_loc = keys_loc.at(offset)
            kernels.append(BackendKernel(_parse_dispatch_key(key_text, key_loc), kernel, key_loc, kernel_loc))
    _check_dispatch_keys(kernels)
    return tuple(kernels), tuple(dropped)


def _parse_dispatch_key(text: str, loc: Loc) -> DispatchKey:
    if text in DispatchKey.__members__:
        return DispatchKey[text]
    names = tuple(k.value for k in DispatchKey)
    if text in PYTORCH_ONLY_DISPATCH_KEYS:
        raise SpecError(loc, f"dispatch key '{text}' is not supported by opcore (supported: {', '.join(names)})")
    # PyTorch's keys too: --pytorch-yaml reads them (and drops them), and otherwise the error for
    # the key suggested says that opcore has no such key.
    hint = did_you_mean(text, names + tuple(sorted(PYTORCH_ONLY_DISPATCH_KEYS))) or \
        f" (expected one of: {', '.join(names)})"
    raise SpecError(loc, f"unknown dispatch key '{text}'{hint}")


def _check_dispatch_keys(kernels: list[BackendKernel]) -> None:
    seen: dict[DispatchKey, BackendKernel] = {}
    for k in kernels:
        if k.key in seen:
            raise SpecError(k.loc, f"dispatch key '{k.key.value}' appears twice "
                                   f"(first at line {seen[k.key].loc.line})")
        seen[k.key] = k
    composites = sorted((k for k in kernels if k.key in COMPOSITE_KEYS), key=lambda k: (k.loc.line, k.loc.col))
    if len(composites) > 1:
        first, second = composites[0].key.value, composites[1].key.value
        raise SpecError(composites[1].loc, f"'{first}' and '{second}' are both given: an entry has at most "
                                           f"one composite key ({', '.join(k.value for k in COMPOSITE_KEYS)})")
