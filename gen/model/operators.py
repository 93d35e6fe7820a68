"""The operators of one YAML, indexed once: by name; in groups of the functional, in-place and
out= overloads that share a signature (torchgen's NativeFunctionsGroup); and in operator groups,
every overload of one base name (what shares the per-operator headers).

    index = OperatorIndex(functions)
    index.get("add.out")               # the NativeFunction, or None
    index.group_of(f).functional       # add.Tensor for add_.Tensor and add.out
    index.operator_groups["add"]       # add.Tensor, add_.Tensor, add.out, add.Scalar, ...

The parsed Spec owns one (Spec.operators, built from its functions on first use); the checks
that run before there is a Spec (gen/model/cross_entry_checks.py, autogen.py) share one built
by their caller.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from types import MappingProxyType
from typing import Iterator, Mapping, Optional

from gen.model.native_function import NativeFunction
from gen.model.schema import FunctionSchema


def group_name(f: NativeFunction) -> str:
    """The operator group `f` belongs to, whose overloads share their per-operator headers and
    shard (Note [One-op rebuilds] in gen/emit/common.py): its base name, without an in-place `_`
    (`add_.Tensor` -> "add"; dunder names such as `__and__` stay as they are)."""
    return f.func.name.base.removesuffix("_") if f.func.is_inplace else f.func.name.base


def signature_key(func: FunctionSchema) -> tuple:
    """What a functional, in-place and out= overload of one operator share (torchgen's
    FunctionSchema.signature()): the functional base name, the arguments apart from out= ones,
    without alias annotations or defaults, and the return types."""
    arguments = tuple((a.type.without_alias(), a.name, a.kwarg_only) for a in func.arguments
                      if a not in func.out_arguments)
    returns = tuple(r.type.without_alias() for r in func.returns)
    return func.name.functional_base, arguments, returns


@dataclass(frozen=True)
class NativeFunctionsGroup:
    """The overloads of one operator that share a signature (signature_key), as torchgen's
    NativeFunctionsGroup: `add.Tensor`, `add_.Tensor`, `add.out`. Any may be missing.

    functional: the overload that is neither in-place nor out= (derivatives.yaml's entry for
                the group is this one's: Spec.derivative_for)
    inplace:    the in-place overload (`add_`)
    out:        the out= overload
    """

    functional: Optional[NativeFunction] = None
    inplace: Optional[NativeFunction] = None
    out: Optional[NativeFunction] = None

    @staticmethod
    def slot(f: NativeFunction) -> str:
        """The field `f` fills in its group."""
        return "out" if f.func.is_out else "inplace" if f.func.is_inplace else "functional"


def _groups(functions: tuple[NativeFunction, ...]) -> dict[tuple, NativeFunctionsGroup]:
    """Signature key -> its group, in the order of each group's first overload. Of two
    overloads for one field (which C++ overloading tells apart), the later one is kept, as
    derivatives.yaml's lookup by signature keeps the later entry."""
    members: dict[tuple, dict[str, NativeFunction]] = {}
    for f in functions:
        members.setdefault(signature_key(f.func), {})[NativeFunctionsGroup.slot(f)] = f
    return {key: NativeFunctionsGroup(**slots) for key, slots in members.items()}


@dataclass(frozen=True)
class OperatorIndex:
    """`functions` (distinct names, in YAML order) by name and by group, each computed once,
    when first asked for."""

    functions: tuple[NativeFunction, ...]

    @functools.cached_property  # stored in the instance, not a field
    def by_name(self) -> Mapping[str, NativeFunction]:
        """Operator name (`add.Tensor`) -> its overload; read-only."""
        return MappingProxyType({f.name: f for f in self.functions})

    def get(self, name: str) -> Optional[NativeFunction]:
        return self.by_name.get(name)

    def __getitem__(self, name: str) -> NativeFunction:
        return self.by_name[name]

    def __contains__(self, name: object) -> bool:
        return name in self.by_name

    def __iter__(self) -> Iterator[str]:
        """The names, in YAML order (as a dict's keys)."""
        return iter(self.by_name)

    @functools.cached_property
    def _groups(self) -> dict[tuple, NativeFunctionsGroup]:
        return _groups(self.functions)

    @property
    def groups(self) -> tuple[NativeFunctionsGroup, ...]:
        """Every group, in the order of its first overload."""
        return tuple(self._groups.values())

    def group_of(self, f: NativeFunction) -> NativeFunctionsGroup:
        """The group of `f` (one of `functions`)."""
        return self._groups[signature_key(f.func)]

    @functools.cached_property
    def operator_groups(self) -> Mapping[str, tuple[NativeFunction, ...]]:
        """Operator group name (group_name) -> its overloads in YAML order; the groups sorted by
        name (a stable include order); read-only."""
        groups: dict[str, list[NativeFunction]] = {}
        for f in self.functions:
            groups.setdefault(group_name(f), []).append(f)
        return MappingProxyType({name: tuple(groups[name]) for name in sorted(groups)})
