"""yaml/derivatives.yaml: backward formulas, one entry per differentiable overload, named by
its schema as in PyTorch (`- name: neg(Tensor self) -> Tensor` then `self: grad.neg()`).

Only `name:` is read for now (which overloads have formulas); the formulas themselves are
TODO(#5), parsed once autograd is generated.
"""
from __future__ import annotations

from dataclasses import dataclass

from gen.model.errors import Loc, SpecError, TextLoc, did_you_mean
from gen.model.native_function import NativeFunction, parse_schema
from gen.model.schema import FunctionSchema
from gen.model.yaml_loader import LocDict, LocList


@dataclass(frozen=True)
class Derivative:
    """One derivatives.yaml entry: `func` <- `name:` (the overload's schema), `loc` <- where
    that schema starts. The other keys (formulas) are not read yet."""

    func: FunctionSchema
    loc: TextLoc

    @property
    def name(self) -> str:
        """`neg`, `add.Tensor`: the overload the formulas are for."""
        return str(self.func.name)


def parse_derivatives(data: object, path: str) -> tuple[tuple[Derivative, ...], list[SpecError]]:
    """Parses the loaded derivatives.yaml. Returns the valid entries and the errors found."""
    if data is None:
        return (), []
    if not isinstance(data, LocList):
        loc = data.loc if isinstance(data, LocDict) else Loc(path, 1, 1)
        return (), [SpecError(loc, "expected a list of derivative entries ('- name: <schema>')")]
    derivatives: list[Derivative] = []
    errors: list[SpecError] = []
    for item, loc in zip(data, data.item_locs):
        try:
            derivatives.append(_parse_entry(item, loc))
        except SpecError as e:
            errors.append(e)
    return tuple(derivatives), errors


def _parse_entry(item: object, loc: Loc) -> Derivative:
    if not isinstance(item, LocDict):
        raise SpecError(loc, "a derivative entry must be a mapping ('- name: <schema>')")
    if "name" not in item:
        raise SpecError(item.loc, "missing required key 'name'")
    text = item["name"]
    name_loc = item.value_locs["name"]
    if not isinstance(text, str):
        raise SpecError(name_loc if text is not None else item.key_locs["name"],
                        "'name' must be the schema of an operator in native_functions.yaml")
    return Derivative(parse_schema(text, name_loc), name_loc)


def check_derivatives(derivatives: tuple[Derivative, ...],
                      functions: tuple[NativeFunction, ...]) -> list[SpecError]:
    """Each entry names a declared overload, with its exact schema, at most once."""
    declared = {f.name: f for f in functions}
    seen: dict[str, Derivative] = {}
    errors = []
    for d in derivatives:
        f = declared.get(d.name)
        if f is None:
            hint = did_you_mean(d.name, tuple(declared)) or " (declare it in native_functions.yaml)"
            errors.append(SpecError(d.loc.at(0), f"derivatives for unknown operator '{d.name}'{hint}"))
        elif d.func != f.func:
            errors.append(SpecError(d.loc.at(0), f"schema of '{d.name}' differs from its declaration "
                                                 f"(line {f.func_loc.line}): '{f.func}'"))
        elif d.name in seen:
            errors.append(SpecError(d.loc.at(0), f"duplicate derivatives for '{d.name}' "
                                                 f"(first at line {seen[d.name].loc.line})"))
        seen.setdefault(d.name, d)
    return errors
