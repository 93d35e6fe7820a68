"""A backend's kernel list in PyTorch's `gen_backend_stubs` format (`python3 -m gen
--backend-yaml FILE`; docs/backends.md), read against opcore's operators:

    backend: NPU                 # the backend's name: file names, class name
    cpp_namespace: npu           # where its kernels are declared
    supported: [add.out, mm, copy_, fill_.Scalar]
    autograd: [my_op]            # kernels registered at AutogradPrivateUse1

See Note [Backend YAML].
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from gen.model.errors import Loc, SpecError, did_you_mean
from gen.model.native_function import ATEN, NativeFunction
from gen.model.operators import OperatorIndex
from gen.model.yaml_loader import LocDict, LocList, describe, unknown_key_errors

# Note [Backend YAML]
# An out-of-tree backend (a device library built against an installed opcore) lists the
# operators it implements in gen_backend_stubs' format, and the generator writes, for that
# library, the declarations of the kernels it must define and their registrations. opcore has
# one dispatch key for out-of-tree backends, PrivateUse1 (renamed at run time:
# opcore::register_privateuse1_backend), so `backend:` is only a name (NPU, or PrivateUse1
# itself): it names the generated files and the kernels' class, and every kernel is registered
# at PrivateUse1, or AutogradPrivateUse1 for `autograd:`. The keys:
# - backend, cpp_namespace (required); class_name (default <backend>NativeFunctions), the
#   class whose static members the kernels are; extra_headers, text put verbatim after the
#   generated header's includes.
# - supported, autograd: operator names with overload (`add.Tensor`, `mm`, `aten::copy_`),
#   each once in all; symint: gen_backend_stubs' list of operators whose kernels take SymInt,
#   read as `supported:` (opcore's SymInt is int64_t).
# - full_codegen, ir_gen, non_native: lazy-tensor (LTC) code generation, which opcore does not
#   do: refused with a located error.
# A structured operator (structured: True, or an overload with structured_delegate:) named in
# `supported:` is implemented as in tree: the backend writes the impl of its out= overload
# (Note [Structured kernels] in gen/api/structured.py), and the out=, functional and in-place
# overloads are all registered from it, running opcore's meta function.
BACKEND_KEYS = ("backend", "cpp_namespace", "class_name", "extra_headers", "supported", "autograd", "symint")
LAZY_TENSOR_KEYS = ("full_codegen", "ir_gen", "non_native")
_OP_LISTS = ("supported", "symint", "autograd")
_BUILTIN_BACKENDS = ("CPU", "CUDA", "Meta")
_CPP_NAMESPACE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*")


@dataclass(frozen=True, slots=True)
class BackendOp:
    """One item of `supported:`, `symint:` or `autograd:`.

    function <- the opcore operator the item names
    autograd <- True for an item of `autograd:` (registered at AutogradPrivateUse1)
    loc <- where the item is written
    """

    function: NativeFunction
    autograd: bool
    loc: Loc


@dataclass(frozen=True)
class BackendYaml:
    """A backend YAML file, checked against opcore's operators (Note [Backend YAML]).

    backend <- `backend:`; cpp_namespace <- `cpp_namespace:`; class_name <- `class_name:`
    (default <backend>NativeFunctions); extra_headers <- `extra_headers:`; ops <- the items
    of `supported:`, `symint:` and `autograd:`, in that order; path: the file.
    """

    backend: str
    cpp_namespace: str
    class_name: str
    extra_headers: str
    ops: tuple[BackendOp, ...]
    path: str


def _loc(data: LocDict, key: str) -> Loc:
    return data.value_locs[key] if data[key] is not None else data.key_locs[key]


def _identifier(data: LocDict, key: str, pattern: re.Pattern, what: str, errors: list[SpecError]) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not pattern.fullmatch(value):
        errors.append(SpecError(_loc(data, key), f"'{key}' is {what}, got {describe(value)}"))
        return ""
    return value


def backend_name(data: object, path: str, errors: list[SpecError]) -> str:
    """`backend:` of the loaded backend YAML; "" after an error (appended to `errors`)."""
    if not isinstance(data, LocDict) or "backend" not in data:
        loc = data.loc if isinstance(data, (LocDict, LocList)) else Loc(path, 1, 1)
        errors.append(SpecError(loc, "a backend YAML is a mapping with a 'backend:' key (backend: NPU)"))
        return ""
    name = _identifier(data, "backend", re.compile(r"[A-Za-z_][A-Za-z0-9_]*"),
                       "the backend's name, an identifier (NPU; its kernels are registered at PrivateUse1)", errors)
    if name in _BUILTIN_BACKENDS:
        errors.append(SpecError(_loc(data, "backend"), f"'{name}' is one of opcore's own backends; a backend YAML "
                                                       "describes an out-of-tree one, registered at PrivateUse1"))
        return ""
    return name


def _op_list(data: LocDict, key: str, operators: OperatorIndex, errors: list[SpecError]) -> list[BackendOp]:
    value = data.get(key)
    if value is None:  # `supported:` with nothing after it: none
        return []
    if not isinstance(value, LocList):
        errors.append(SpecError(_loc(data, key), f"'{key}' is a list of operator names (add.Tensor, mm), "
                                                 f"got {describe(value)}"))
        return []
    ops = []
    for item, loc in zip(value, value.item_locs):
        if not isinstance(item, str):
            errors.append(SpecError(loc, f"an item of '{key}' is an operator name (add.Tensor, mm), got {describe(item)}"))
            continue
        name = item.removeprefix(f"{ATEN}::")
        f = operators.get(name)
        if f is None:
            errors.append(SpecError(loc, f"'{item}': opcore declares no operator 'aten::{name}'"
                                         f"{did_you_mean(name, list(operators.by_name))}"))
            continue
        ops.append(BackendOp(f, key == "autograd", loc))
    return ops


def _unique(ops: list[BackendOp], errors: list[SpecError]) -> tuple[BackendOp, ...]:
    """`ops` without repeats: an operator named twice is an error at its second item."""
    first: dict[str, BackendOp] = {}
    for op in ops:
        seen = first.setdefault(op.function.name, op)
        if seen is not op:
            errors.append(SpecError(op.loc, f"'{op.function.name}' is listed twice (first at line {seen.loc.line}): "
                                            "a backend gives each operator one kernel, at PrivateUse1 or at "
                                            "AutogradPrivateUse1"))
    return tuple(first.values())


def parse_backend_yaml(data: object, path: str, operators: OperatorIndex) -> tuple[BackendYaml | None, list[SpecError]]:
    """The loaded backend YAML checked against `operators` (opcore's); every error found."""
    if not isinstance(data, LocDict):
        loc = data.loc if isinstance(data, LocList) else Loc(path, 1, 1)
        return None, [SpecError(loc, f"a backend YAML is a mapping with the keys {', '.join(BACKEND_KEYS)}, "
                                     f"got {describe(data)}")]
    errors = [SpecError(data.key_locs[key], f"'{key}' asks for lazy-tensor (LTC) code generation, which opcore "
                                            "does not do: list the backend's own kernels in 'supported:'")
              for key in data if key in LAZY_TENSOR_KEYS]
    errors += unknown_key_errors(data, BACKEND_KEYS + LAZY_TENSOR_KEYS)
    errors += [SpecError(data.loc, f"missing key '{key}'") for key in ("backend", "cpp_namespace") if key not in data]
    backend = backend_name(data, path, errors) if "backend" in data else ""
    namespace = _identifier(data, "cpp_namespace", _CPP_NAMESPACE, "a C++ namespace (npu, my::npu)", errors) \
        if "cpp_namespace" in data else ""
    class_name = f"{backend}NativeFunctions"
    if "class_name" in data:
        class_name = _identifier(data, "class_name", re.compile(r"[A-Za-z_][A-Za-z0-9_]*"), "a C++ class name", errors)
    extra = data.get("extra_headers", "")
    if not isinstance(extra, str):
        errors.append(SpecError(_loc(data, "extra_headers"), f"'extra_headers' is text put in the generated header "
                                                            f"('#include <npu/Device.h>'), got {describe(extra)}"))
    ops = _unique([op for key in _OP_LISTS for op in _op_list(data, key, operators, errors)], errors)
    if errors:
        return None, errors
    return BackendYaml(backend, namespace, class_name, extra, ops, path), []
