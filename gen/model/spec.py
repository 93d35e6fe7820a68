"""Everything the generator reads from a YAML directory, parsed and validated."""
from __future__ import annotations

from dataclasses import dataclass

from gen.model.derivatives import Derivative
from gen.model.native_function import NativeFunction
from gen.model.tags import Tag


@dataclass(frozen=True)
class Spec:
    """functions <- native_functions.yaml, tags <- tags.yaml, derivatives <- derivatives.yaml,
    each in file order."""

    functions: tuple[NativeFunction, ...]
    tags: tuple[Tag, ...]
    derivatives: tuple[Derivative, ...]

    def has_derivatives(self, f: NativeFunction) -> bool:
        """Whether derivatives.yaml has formulas for `f`."""
        return any(d.name == f.name for d in self.derivatives)
