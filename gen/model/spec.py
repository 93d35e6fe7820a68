"""Everything the generator reads from a YAML directory, parsed and validated."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional

from gen.model.derivatives import Derivative, derivatives_by_operator
from gen.model.native_function import ATEN, NativeFunction, OperatorImpl
from gen.model.tags import Tag


@dataclass(frozen=True)
class Spec:
    """functions <- native_functions.yaml, tags <- tags.yaml, derivatives <- derivatives.yaml,
    each in file order; their operators are in `namespace`. An extension's (any namespace but
    aten) is built on opcore's operators, `aten_functions`, which its formulas may call (Note
    [Operator namespaces] in gen/emit/common.py)."""

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
    def _derivative_of(self) -> dict[str, Derivative]:
        return derivatives_by_operator(self.functions, self.derivatives)

    def derivative_for(self, f: NativeFunction) -> Optional[Derivative]:
        """The derivatives.yaml entry `f`'s autograd kernel uses: its own, or its functional
        overload's for an in-place or out= overload (see derivatives_by_operator)."""
        return self._derivative_of.get(f.name)

    def has_derivatives(self, f: NativeFunction) -> bool:
        """Whether derivatives.yaml has formulas for `f` (or its functional overload)."""
        return self.derivative_for(f) is not None
