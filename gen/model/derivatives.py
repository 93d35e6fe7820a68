"""yaml/derivatives.yaml: backward formulas. Only the outer shape (a list) is read for now."""
from __future__ import annotations

from gen.model.errors import Loc, SpecError
from gen.model.yaml_loader import LocList


def parse_derivatives(data: object, path: str) -> tuple[tuple[object, ...], list[SpecError]]:
    """Returns the raw entries; TODO(#5): parse them into a model once autograd is generated."""
    if data is None:
        return (), []
    if not isinstance(data, LocList):
        return (), [SpecError(Loc(path, 1, 1), "expected a list of derivative entries")]
    return tuple(data), []
