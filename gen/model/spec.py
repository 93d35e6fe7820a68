"""Everything the generator reads from a YAML directory, parsed and validated."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Mapping, Optional

from gen.model.derivatives import Derivative
from gen.model.native_function import ATEN, NativeFunction, OperatorImpl
from gen.model.operators import NativeFunctionsGroup, OperatorIndex
from gen.model.tags import Tag


@dataclass(frozen=True)
class Spec:
    """functions <- native_functions.yaml, tags <- tags.yaml, derivatives <- derivatives.yaml,
    each in file order; their operators are in `namespace`. An extension's (any namespace but
    aten) is built on opcore's operators, `aten_functions`, which its formulas may call (Note
    [Operator namespaces] in gen/emit/common.py).

    The functions by name and their groups (gen/model/operators.py) are indexed once per Spec,
    on first use: ask function(), by_name, group_of(), operator_groups rather than building
    another index. A Spec made with dataclasses.replace() (a selective build's kept operators)
    has its own."""

    functions: tuple[NativeFunction, ...]
    tags: tuple[Tag, ...]
    derivatives: tuple[Derivative, ...]
    namespace: str = ATEN
    aten_functions: tuple[NativeFunction, ...] = ()
    impls: tuple[OperatorImpl, ...] = ()  # `- op:` entries (an extension's kernels for opcore's operators)
    files: tuple[str, ...] = ()  # the files read (absolute): the YAML (opcore's too for an extension), ...
    # A selective build's (Note [Selective builds] in gen/emit/selection.py): the names of the
    # operators it keeps (None: every one), those of them with autograd kernels, and its operator
    # list's file name.
    kept: Optional[frozenset[str]] = None
    trained: Optional[frozenset[str]] = None
    selection_file: str = ""

    @functools.cached_property  # stored in the instance, not a field
    def operators(self) -> OperatorIndex:
        """`functions` by name and by group."""
        return OperatorIndex(self.functions)

    @property
    def by_name(self) -> Mapping[str, NativeFunction]:
        """Operator name (`add.Tensor`) -> its overload; read-only."""
        return self.operators.by_name

    def group_of(self, f: NativeFunction) -> NativeFunctionsGroup:
        """The functional, in-place and out= overloads `f` is one of (gen/model/operators.py)."""
        return self.operators.group_of(f)

    @property
    def operator_groups(self) -> Mapping[str, tuple[NativeFunction, ...]]:
        """Operator group name (`add`) -> its overloads, which share their per-operator headers
        (Note [One-op rebuilds] in gen/emit/common.py); sorted by name."""
        return self.operators.operator_groups

    @functools.cached_property
    def _derivative_by_name(self) -> dict[str, Derivative]:
        return {d.name: d for d in self.derivatives}

    def derivative_for(self, f: NativeFunction) -> Optional[Derivative]:
        """The derivatives.yaml entry `f`'s autograd kernel uses: its own, or for an in-place or
        out= overload its group's functional overload's (`mul_.Tensor` and `mul.out` use
        `mul.Tensor`'s; torchgen's rule)."""
        own = self._derivative_by_name.get(f.name)
        if own is not None or not (f.func.is_inplace or f.func.is_out):
            return own
        functional = self.group_of(f).functional
        return None if functional is None else self._derivative_by_name.get(functional.name)

    def has_derivatives(self, f: NativeFunction) -> bool:
        """Whether derivatives.yaml has formulas for `f` (or its functional overload)."""
        return self.derivative_for(f) is not None
