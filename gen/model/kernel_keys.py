"""ExecuTorch's kernel YAML: `kernels:` (with `type_alias:` and `dim_order_alias:`) in an entry,
instead of `dispatch:`, and `- op:` entries that give kernels to an operator declared elsewhere.

Note [Kernel keys]
ExecuTorch's kernel libraries (functions.yaml, custom_ops.yaml) give an operator several CPU
kernels, each for the dtypes and dim orders of its tensor arguments:

    - op: add.out                       # or `- func: <schema>` to declare the operator too
      type_alias:
        T0: [Float, Double]
      dim_order_alias:
        D0: [0, 1]                      # contiguous 2-d; [1, 0] would be its transpose
      kernels:
        - arg_meta: {self: [T0, D0], other: [T0, D0], out: [T0, D0]}
          kernel_name: mylib::add_out_2d    # the C++ function mylib::native::add_out_2d
        - arg_meta: null                    # any other call
          kernel_name: add_out              # <library's C++ namespace>::native::add_out

Each `arg_meta` names tensor arguments with a type alias and a dim-order alias; it stands for
one kernel key per choice of the aliases' dtypes (T0: Float or Double gives two). opcore
registers one CPU kernel per operator that tries the keys in YAML order, calls the first
kernel whose key matches the call's tensors (dtype and dim order), else the `arg_meta: null`
kernel, else throws an error listing the keys. A kernel name `a::b::f` means `a::b::native::f`,
as in torchgen's ExecuTorch generator; a name without `::` is in the library's own `native`
namespace. A type alias lists c10's dtype names (Half, Byte, BFloat16, ComplexFloat, ...; the
table is gen/model/dtypes.py). Those opcore's tensors cannot hold (ComplexHalf, QInt8,
Float8_e5m2, UInt16, ...) are read, since a library written for ExecuTorch may name them, and
a key naming one never matches: no call can bring such a tensor. A name that is no dtype of
c10's is a located error with a suggestion (Note [Dtype names] in gen/model/dtypes.py).
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Optional

from gen.model.dtypes import NAMES, SUPPORTED_NAMES, by_name
from gen.model.errors import Loc, SpecError, SpecErrors, did_you_mean
from gen.model.schema import FunctionSchema
from gen.model.yaml_loader import LocDict, LocList, describe, unknown_key_errors

# The entry keys of ExecuTorch's format.
KERNEL_KEYS_ENTRY_KEYS = ("op", "kernels", "type_alias", "dim_order_alias")
_KERNEL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*")


@dataclass(frozen=True)
class ArgMeta:
    """What a kernel key asks of one tensor argument."""

    arg: str
    dtype: str                  # "Float"
    dim_order: tuple[int, ...]  # (0, 1): contiguous


@dataclass(frozen=True)
class KeyedKernel:
    """One kernel of `kernels:` for one kernel key (an `arg_meta` with aliases of several dtypes
    gives several). arg_meta None: the kernel of every call no key matches."""

    kernel: str                   # "add_out_2d"
    cpp_namespace: str            # "mylib" (kernel_name mylib::add_out_2d), "" for the library's own
    arg_meta: Optional[tuple[ArgMeta, ...]]
    loc: Loc                      # the kernel_name

    @property
    def matchable(self) -> bool:
        """False when the key names a dtype opcore's tensors cannot hold: no call can match it."""
        return self.arg_meta is None or all(by_name(m.dtype).supported for m in self.arg_meta)


def parse_kernels(item: LocDict, func: FunctionSchema) -> tuple[KeyedKernel, ...]:
    """The kernels of an entry's `kernels:` (() when absent), with its aliases expanded."""
    if "kernels" not in item:
        for key in ("type_alias", "dim_order_alias"):
            if key in item:
                raise SpecError(item.key_locs[key], f"'{key}' is only read with 'kernels:'")
        return ()
    kernels = item["kernels"]
    where = item.value_locs["kernels"] if kernels is not None else item.key_locs["kernels"]
    if not isinstance(kernels, LocList) or not kernels:
        raise SpecError(where, "'kernels' must be a list of '- arg_meta: ...' / 'kernel_name: ...' mappings")
    types = _aliases(item, "type_alias", _dtype)
    orders = _aliases(item, "dim_order_alias", _dim)
    result: list[KeyedKernel] = []
    seen: dict[Optional[tuple[ArgMeta, ...]], Loc] = {}
    for entry, entry_loc in zip(kernels, kernels.item_locs):
        for k in _parse_kernel(entry, entry_loc, func, types, orders):
            if k.arg_meta in seen:
                raise SpecError(k.loc, f"a second kernel for the same kernel key (the first is at line "
                                       f"{seen[k.arg_meta].line})")
            seen[k.arg_meta] = k.loc
            result.append(k)
    return tuple(result)


def _aliases(item: LocDict, key: str, parse_value) -> dict[str, tuple]:
    if key not in item:
        return {}
    table = item[key]
    if not isinstance(table, LocDict):
        raise SpecError(item.value_locs[key] if table is not None else item.key_locs[key],
                        f"'{key}' must be a mapping from alias names to lists, got {describe(table)}")
    aliases = {}
    for name, values in table.items():
        where = table.value_locs[name] if values is not None else table.key_locs[name]
        if not isinstance(values, LocList) or not values:
            raise SpecError(where, f"{key} '{name}' must be a non-empty list, got {describe(values)}")
        aliases[name] = tuple(parse_value(v, at) for v, at in zip(values, values.item_locs))
    return aliases


def _dtype(value: object, loc: Loc) -> str:
    """A dtype of `type_alias:`, as c10 names it (Note [Dtype names] in gen/model/dtypes.py)."""
    if by_name(value) is None:
        hint = did_you_mean(value, NAMES) if isinstance(value, str) else ""
        raise SpecError(loc, f"unknown dtype {describe(value)}{hint} (a type alias lists c10's dtype "
                             f"names; opcore's tensors hold: {', '.join(SUPPORTED_NAMES)})")
    return value  # type: ignore[return-value]


def _dim(value: object, loc: Loc) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SpecError(loc, f"a dim order lists dimensions (0, 1, ...), got {describe(value)}")
    return value


def _parse_kernel(entry: object, loc: Loc, func: FunctionSchema, types: dict[str, tuple],
                  orders: dict[str, tuple]) -> list[KeyedKernel]:
    if not isinstance(entry, LocDict):
        raise SpecError(loc, "a kernel is a mapping: '- arg_meta: ...' and 'kernel_name: ...'")
    unknown = unknown_key_errors(entry, ("arg_meta", "kernel_name"))
    if unknown:
        raise SpecErrors(unknown)
    if "kernel_name" not in entry:
        raise SpecError(entry.loc, "missing 'kernel_name' (the kernel's C++ function, e.g. mylib::add_out)")
    name = entry["kernel_name"]
    if not isinstance(name, str) or not _KERNEL_NAME.fullmatch(name):
        where = entry.value_locs["kernel_name"] if name is not None else entry.key_locs["kernel_name"]
        raise SpecError(where, f"'kernel_name' must be a C++ function name (mylib::add_out), got {describe(name)}")
    namespace, _, kernel = name.rpartition("::")
    at = entry.value_locs["kernel_name"]
    if "arg_meta" not in entry:
        raise SpecError(entry.loc, "missing 'arg_meta' (null: the kernel of every call no other key matches)")
    meta = entry["arg_meta"]
    if meta is None:
        return [KeyedKernel(kernel, namespace, None, at)]
    if not isinstance(meta, LocDict) or not meta:
        raise SpecError(entry.value_locs["arg_meta"], f"'arg_meta' must be null or a mapping from tensor "
                                                      f"arguments to [type alias, dim order alias], got {describe(meta)}")
    choices: list[list[ArgMeta]] = []
    for arg, spec in meta.items():
        choices.append(_arg_choices(arg, spec, meta, func, types, orders))
    return [KeyedKernel(kernel, namespace, tuple(keys), at) for keys in _permutations(meta, choices)]


def _arg_choices(arg: str, spec: object, meta: LocDict, func: FunctionSchema, types: dict[str, tuple],
                 orders: dict[str, tuple]) -> list[ArgMeta]:
    a = func.argument(arg)
    if a is None or not a.type.is_tensor or a.type.suffix:
        raise SpecError(meta.key_locs[arg], f"'{arg}' is not a Tensor argument of '{func.name}'")
    where = meta.value_locs[arg] if spec is not None else meta.key_locs[arg]
    if not isinstance(spec, LocList) or len(spec) != 2 or not all(isinstance(s, str) for s in spec):
        raise SpecError(where, f"the kernel key of '{arg}' is [type alias, dim order alias], got {describe(spec)}")
    type_name, order_name = spec
    for name, table, key in ((type_name, types, "type_alias"), (order_name, orders, "dim_order_alias")):
        if name not in table:
            raise SpecError(where, f"'{name}' is not declared in '{key}'")
    order = orders[order_name]
    if sorted(order) != list(range(len(order))):
        raise SpecError(where, f"dim order {list(order)} ('{order_name}') is not a permutation of 0..{len(order) - 1}")
    return [ArgMeta(arg, dtype, order) for dtype in types[type_name]]


def _permutations(meta: LocDict, choices: list[list[ArgMeta]]) -> list[tuple[ArgMeta, ...]]:
    """One key per choice of dtype for each type alias: arguments sharing an alias share its dtype."""
    aliases = [spec[0] for spec in meta.values()]
    keys = []
    for combo in itertools.product(*choices):
        picked: dict[str, str] = {}
        if all(picked.setdefault(alias, m.dtype) == m.dtype for alias, m in zip(aliases, combo)):
            keys.append(tuple(combo))
    return keys
