"""`precomputed:` of a structured out= entry: values its meta function computes once and hands
to its impl function, in place of arguments (or besides them), as in torchgen:

    precomputed:
    - kernel_size -> int kH, int kW       # impl gets kH and kW instead of kernel_size
    - dim -> int dim                      # impl gets the wrapped dim instead of dim
    - int numBatch, int numPlanes         # last line only: added, replacing nothing
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from gen.model.dispatch import split_list
from gen.model.errors import Loc, SpecError, TextLoc, did_you_mean
from gen.model.schema import IDENT, FunctionSchema
from gen.model.yaml_loader import LocList

# What a meta function can compute and keep by value. torchgen accepts any schema type; these
# are the ones with an owning C++ type (DimVector: a small vector of sizes or strides).
PRECOMPUTED_TYPES = ("int", "SymInt", "float", "bool", "ScalarType", "MemoryFormat", "Layout", "Device",
                     "DimVector")
_ARROW = " -> "
_DECL = re.compile(r"(?P<type>\S+) (?P<name>\S+)")


@dataclass(frozen=True)
class PrecomputedElement:
    """`int kH`: one precomputed value, its type (from PRECOMPUTED_TYPES) and name."""

    type: str
    name: str

    def __str__(self) -> str:
        return f"{self.type} {self.name}"


@dataclass(frozen=True)
class Replacement:
    """`kernel_size -> int kH, int kW`: the argument the elements replace in the impl function."""

    argument: str
    elements: tuple[PrecomputedElement, ...]

    def __str__(self) -> str:
        return f"{self.argument}{_ARROW}{', '.join(str(e) for e in self.elements)}"


@dataclass(frozen=True)
class Precompute:
    """replace <- the `a -> T x, ...` lines, in order; add <- a last line without ` -> `."""

    replace: tuple[Replacement, ...]
    add: tuple[PrecomputedElement, ...] = ()

    def replacement(self, argument: str) -> Optional[tuple[PrecomputedElement, ...]]:
        """The elements replacing `argument`, or None when it is passed on as is."""
        return next((r.elements for r in self.replace if r.argument == argument), None)

    def elements(self) -> tuple[PrecomputedElement, ...]:
        """Every precomputed value, replacements first, in YAML order."""
        return tuple(e for r in self.replace for e in r.elements) + self.add

    def lines(self) -> list[str]:
        """The YAML list items this was parsed from (round trip)."""
        return [str(r) for r in self.replace] + ([", ".join(str(e) for e in self.add)] if self.add else [])


def parse_precomputed(value: object, where: Loc, func: FunctionSchema) -> Precompute:
    """`value`: the loaded `precomputed:` list (`where`: its location), for an entry with schema
    `func`. Replaced names must be arguments of `func` other than out= arguments."""
    if not isinstance(value, LocList) or not value or not all(isinstance(v, str) for v in value):
        raise SpecError(where, "'precomputed' must be a list of lines such as 'dim -> int dim'")
    replace: list[Replacement] = []
    add: tuple[PrecomputedElement, ...] = ()
    named: list[tuple[PrecomputedElement, Loc]] = []
    for i, (line, loc) in enumerate(zip(value, value.item_locs)):
        if _ARROW not in line:
            if i != len(value) - 1:
                raise SpecError(loc, "a precomputed line without ' -> ' adds values and must be the last line")
            parsed = _parse_elements(line, loc, 0)
            add = tuple(e for e, _ in parsed)
        else:
            argument, _, rest = line.partition(_ARROW)
            _check_replaced(argument, loc, func, [r.argument for r in replace])
            parsed = _parse_elements(rest, loc, len(argument) + len(_ARROW))
            replace.append(Replacement(argument, tuple(e for e, _ in parsed)))
        named += parsed
    precompute = Precompute(tuple(replace), add)
    _check_names(precompute, named, func)
    return precompute


def _check_replaced(argument: str, loc: TextLoc, func: FunctionSchema, earlier: list[str]) -> None:
    names = [a.name for a in func.arguments if a not in func.out_arguments]
    if argument not in names:
        hint = did_you_mean(argument, names) or f" (its arguments: {', '.join(names)})"
        raise SpecError(loc.at(0), f"precomputed replaces '{argument}', which is not an argument of "
                                   f"'{func.name}'{hint}")
    if argument in earlier:
        raise SpecError(loc.at(0), f"argument '{argument}' is replaced twice in 'precomputed'")


def _parse_elements(text: str, loc: TextLoc, start: int) -> list[tuple[PrecomputedElement, Loc]]:
    """`int kH, int kW` at offset `start` of the line whose text is at `loc`: each value and
    where its name is."""
    elements = []
    for part, offset in split_list(text):
        m = _DECL.fullmatch(part)
        at = loc.at(start + offset)
        if m is None or not IDENT.fullmatch(m.group("name")):
            raise SpecError(at, f"expected a precomputed value such as 'int dim', got '{part}'")
        if m.group("type") not in PRECOMPUTED_TYPES:
            hint = did_you_mean(m.group("type"), PRECOMPUTED_TYPES) or \
                f" (expected one of: {', '.join(PRECOMPUTED_TYPES)})"
            raise SpecError(at, f"unsupported precomputed type '{m.group('type')}'{hint}")
        name_loc = loc.at(start + offset + m.start("name"))
        elements.append((PrecomputedElement(m.group("type"), m.group("name")), name_loc))
    return elements


def _check_names(precompute: Precompute, named: list[tuple[PrecomputedElement, Loc]],
                 func: FunctionSchema) -> None:
    """Each value has its own name, and none is the name of an argument the impl still takes."""
    kept = {a.name for a in func.arguments if precompute.replacement(a.name) is None}
    seen: set[str] = set()
    for e, loc in named:
        if e.name in seen:
            raise SpecError(loc, f"precomputed value '{e.name}' is named twice")
        if e.name in kept:
            raise SpecError(loc, f"precomputed value '{e.name}' has the name of an argument of "
                                 f"'{func.name}' that it does not replace")
        seen.add(e.name)
